//! The data model: cell keys with HBase's total order, cell types, schema descriptors.

pub mod key;
pub mod schema;

pub use key::{CellType, KeyRef};
pub mod payload;
