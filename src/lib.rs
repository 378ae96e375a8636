#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod api;
mod base;
mod engine;
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod fuzzing;
mod model;
mod read;
mod storage;
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod testing;

pub use engine::repair;
pub use model::region_split_policy;
pub use model::rowkey;
pub use model::store_config;

pub use api::db::{
    BackgroundError, BackgroundErrorCount, BackgroundErrors, CheckpointInfo, Db,
    LATENCY_BUCKETS_NANOS, LATENCY_PERCENTILES, Latency, Metrics, Operation, RegionMetrics,
    RegionTraffic, SAMPLE_EVERY, SnapshotInfo, Traffic, TrafficInterval,
};
pub use api::inspect;
pub use api::ops::{
    Append, Cell, CheckAndMutate, Delete, Get, Increment, Mutation, Put, RowResult, Scan,
};
pub use api::remote::{RemoteOptions, RemoteProtocol, RemoteTransport};
pub use api::table::{BulkLoader, RegionInfo, ScanMetrics, Scanner};
pub use api::table_admin::CompactionState;
pub use api::table_handle::Table;
pub use base::clock::{Clock, LATEST_TIMESTAMP, ManualClock, SystemClock};
pub use base::error::{Error, Result};
pub use engine::bulk_load::BULK_LOAD_MEMORY;
pub use engine::normalizer::NormalizerConfig;
pub use engine::options::{DbOptions, Durability, WalRecovery};
pub use engine::recovery::RecoveryReport;
pub use model::key::CellType;
pub use model::namespace::{
    DEFAULT_NAMESPACE, MAX_NAMESPACE_LEN, NamespaceDescriptor, SYSTEM_NAMESPACE,
};
pub use model::region_split_policy::RegionSplitPolicy;
pub use model::schema::{
    BloomType, COMPACTION_POLICY_KEY, CompactionPolicy, Compression, DataBlockEncoding,
    FamilyDescriptor, KeepDeletedCells, MAX_REGIONS_PER_TABLE, ROW_PREFIX_LENGTH_KEY,
    TableDescriptor,
};
pub use model::store_config::{DateTieredConfig, MajorCompactionSettings};
pub use read::filter;
pub use read::filter::{BitOp, Comparator, CompareOp, Filter, MAX_FILTER_DEPTH, RowRange};
pub use rowkey::SplitAlgorithm;
