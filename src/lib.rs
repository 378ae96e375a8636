#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod alter;
mod background;
mod clock;
#[doc(hidden)]
pub mod codec;
mod db;
mod error;
mod flush;
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod fuzzing;
#[doc(hidden)]
pub mod io;
mod lifecycle;
#[doc(hidden)]
pub mod manifest;
#[doc(hidden)]
pub mod memstore;
#[doc(hidden)]
pub mod model;
mod ops;
mod options;
mod picker;
#[doc(hidden)]
pub mod read;
mod recovery;
mod region;
pub mod repair;
pub mod rowkey;
mod salted;
mod scanner;
mod split;
#[doc(hidden)]
pub mod split_policy;
#[doc(hidden)]
pub mod sst;
mod table;
mod table_write;
mod util;
#[doc(hidden)]
pub mod wal;
mod write;

pub use clock::{Clock, LATEST_TIMESTAMP, ManualClock, SystemClock};
pub use db::{Db, Metrics};
pub use error::{Error, Result};
pub use model::key::CellType;
pub use model::schema::{
    BloomType, Compression, FamilyDescriptor, KeepDeletedCells, MAX_REGIONS_PER_TABLE,
    TableDescriptor,
};
pub use ops::{
    Append, Cell, CheckAndMutate, Delete, Get, Increment, Mutation, Put, RowResult, Scan,
};
pub use options::{DbOptions, Durability, WalRecovery};
pub use recovery::RecoveryReport;
pub use rowkey::SplitAlgorithm;
pub use table::{RegionInfo, Scanner, Table};
pub mod filter;
pub use filter::{Comparator, CompareOp, Filter, MAX_FILTER_DEPTH};
