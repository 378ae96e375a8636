//! cellbase: an embedded storage engine with the Apache HBase data model.
//!
//! A program opens a directory and gets tables of rows, column families, qualifiers and
//! versioned cells that behave as an HBase RegionServer's do: the same sort order, delete,
//! version and TTL rules, MemStore, write-ahead log, immutable block files with Bloom filters,
//! flush and compaction.
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod clock;
pub mod codec;
mod error;
pub mod io;
pub mod memstore;
pub mod model;
mod ops;
mod options;
pub mod read;
pub mod sst;
pub mod wal;

pub use clock::{Clock, LATEST_TIMESTAMP, ManualClock, SystemClock};
pub use error::{Error, Result};
pub use model::key::CellType;
pub use model::schema::{BloomType, Compression, FamilyDescriptor, KeepDeletedCells, TableDescriptor};
pub use ops::{Cell, Delete, Get, Put, RowResult, Scan};
pub use options::{DbOptions, Durability};
