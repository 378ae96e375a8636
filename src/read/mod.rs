//! Layer 3, `read`: turning sorted cells into answers. Sources over memstores and block files,
//! the k-way merge, the visibility matcher (every delete, version, TTL and KEEP_DELETED_CELLS
//! rule), filters and row assembly. Imports `base`, `model` and `storage`.

pub mod filter;
pub mod matcher;
pub mod merge;
pub(crate) mod query;
pub(crate) mod row;
pub(crate) mod run_cursor;
pub(crate) mod source;
