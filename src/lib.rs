#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod api;
mod base;
mod engine;
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod fuzzing;
#[doc(hidden)]
pub mod model;
#[doc(hidden)]
pub mod read;
mod storage;
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod testing;

// Internal layers the command-line tools and benches still reach (being replaced by `inspect`).
#[doc(hidden)]
pub use base::{codec, io};
pub use engine::repair;
#[doc(hidden)]
pub use engine::split_policy;
pub use model::rowkey;
#[doc(hidden)]
pub use storage::{manifest, memstore, sst, wal};

pub use api::db::{Db, Metrics};
pub use api::inspect;
pub use api::ops::{
    Append, Cell, CheckAndMutate, Delete, Get, Increment, Mutation, Put, RowResult, Scan,
};
pub use api::table::{RegionInfo, Scanner, Table};
pub use base::clock::{Clock, LATEST_TIMESTAMP, ManualClock, SystemClock};
pub use base::error::{Error, Result};
pub use engine::options::{DbOptions, Durability, WalRecovery};
pub use engine::recovery::RecoveryReport;
pub use model::key::CellType;
pub use model::schema::{
    BloomType, Compression, FamilyDescriptor, KeepDeletedCells, MAX_REGIONS_PER_TABLE,
    TableDescriptor,
};
pub use read::filter;
pub use read::filter::{Comparator, CompareOp, Filter, MAX_FILTER_DEPTH};
pub use rowkey::SplitAlgorithm;
