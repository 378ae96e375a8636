//! cellbase: an embedded storage engine with the Apache HBase data model.
//!
//! A program opens a directory and gets tables of rows, column families, qualifiers and
//! versioned cells that behave as an HBase RegionServer's do: the same sort order, delete,
//! version and TTL rules, MemStore, write-ahead log, immutable block files with Bloom filters,
//! flush and compaction.
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod background;
mod clock;
mod db;
mod flush;
mod manifest;
mod picker;
mod region;
mod table;
mod util;
mod write;
#[doc(hidden)]
pub mod codec;
mod error;
#[doc(hidden)]
pub mod io;
#[doc(hidden)]
pub mod memstore;
#[doc(hidden)]
pub mod model;
mod ops;
mod options;
#[doc(hidden)]
pub mod read;
#[doc(hidden)]
pub mod sst;
#[doc(hidden)]
pub mod wal;

pub use clock::{Clock, LATEST_TIMESTAMP, ManualClock, SystemClock};
pub use error::{Error, Result};
pub use model::key::CellType;
pub use model::schema::{BloomType, Compression, FamilyDescriptor, KeepDeletedCells, TableDescriptor};
pub use ops::{Cell, Delete, Get, Put, RowResult, Scan};
pub use options::{DbOptions, Durability};
pub use db::{Db, Metrics};
pub use table::{RegionInfo, Scanner, Table};
