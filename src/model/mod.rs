//! Layer 1, `model`: the data model. Cell keys with HBase's total order and their encoding,
//! cell types with HBase's codes, value payloads, the limits of rows, families and cells,
//! schema descriptors, pre-split arithmetic ([`rowkey`]) and the cursor contract every source
//! of sorted cells implements. Imports only `base`.

pub mod block_encoding;
pub mod bloom_type;
pub mod cell;
pub mod cursor;
pub mod family;
pub mod key;
pub mod mutation;
pub mod namespace;
pub mod payload;
pub mod region_split_policy;
pub mod rowkey;
pub mod schema;
pub mod store_config;

pub use key::CellType;
