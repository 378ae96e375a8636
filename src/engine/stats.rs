//! `EngineStats`: the database's always-on counters and latency recorders, written by the
//! operations, flushes, compactions, splits and stalls as they happen, read by
//! [`Engine::metrics`](super::Engine::metrics).
//!
//! Counters are relaxed atomics; latencies are [`LatencyRecorder`]s (sharded HdrHistograms).
//! What a piece below the engine owns (the WAL's appends and syncs, the block cache's hits and
//! Bloom checks) stays there and is read at snapshot time.

use crate::base::stats::{LatencyRecorder, Stamp};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A client operation whose latency the engine records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Operation {
    /// `Table::get` and `exists` (HBase `Get`).
    Get,
    /// `Table::put` (HBase `Put`).
    Put,
    /// `Table::delete` (HBase `Delete`).
    Delete,
    /// A whole scan, from `Table::scan` to its end or drop (HBase `ScanTime` sums the
    /// scan's RPCs; here the caller's time between rows is included).
    Scan,
    /// `Table::increment` (HBase `Increment`).
    Increment,
    /// `Table::append` (HBase `Append`).
    Append,
    /// `Table::check_and_mutate` (HBase `CheckAndMutate`).
    CheckAndMutate,
    /// `Table::mutate_row` (HBase `mutateRow` is counted under `Put`/`Delete` there).
    MutateRow,
}

impl Operation {
    /// Every operation, in the order [`crate::Metrics::latencies`] lists them.
    pub const ALL: [Operation; 8] = [
        Operation::Get,
        Operation::Put,
        Operation::Delete,
        Operation::Scan,
        Operation::Increment,
        Operation::Append,
        Operation::CheckAndMutate,
        Operation::MutateRow,
    ];

    /// HBase's metric name prefix for the operation (`Get`, `Put`, ... `ScanTime`).
    pub fn hbase_name(self) -> &'static str {
        match self {
            Operation::Get => "Get",
            Operation::Put => "Put",
            Operation::Delete => "Delete",
            Operation::Scan => "ScanTime",
            Operation::Increment => "Increment",
            Operation::Append => "Append",
            Operation::CheckAndMutate => "CheckAndMutate",
            Operation::MutateRow => "MutateRow",
        }
    }

    /// Lower-case name, for labels (`get`, `put`, ... `check_and_mutate`).
    pub fn label(self) -> &'static str {
        match self {
            Operation::Get => "get",
            Operation::Put => "put",
            Operation::Delete => "delete",
            Operation::Scan => "scan",
            Operation::Increment => "increment",
            Operation::Append => "append",
            Operation::CheckAndMutate => "check_and_mutate",
            Operation::MutateRow => "mutate_row",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// A counter.
#[derive(Debug, Default)]
pub(crate) struct Counter(AtomicU64);

impl Counter {
    #[inline]
    pub(crate) fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }

    pub(crate) fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// What flushes, compactions, splits, merges and stalls have done since open.
#[derive(Debug, Default)]
pub(crate) struct EngineStats {
    ops: [LatencyRecorder; 8],
    pub flushes: Counter,
    pub flushed_cells: Counter,
    pub flushed_bytes: Counter,
    pub flush_time: LatencyRecorder,
    pub minor_compactions: Counter,
    pub major_compactions: Counter,
    pub compacted_cells: Counter,
    pub compaction_input_bytes: Counter,
    pub compaction_output_bytes: Counter,
    pub compaction_time: LatencyRecorder,
    pub splits: Counter,
    pub merges: Counter,
    pub split_time: LatencyRecorder,
    pub blocked_writes: Counter,
    pub blocked_nanos: Counter,
    pub delayed_writes: Counter,
    pub delayed_nanos: Counter,
    /// Memstore bytes per second the last flush wrote out (accounted bytes over its wall
    /// time); 0 before the first flush. The write controller's rate (`pressure.rs`).
    pub flush_rate: AtomicU64,
}

impl EngineStats {
    /// Records one operation that started at `start`.
    #[inline]
    pub(crate) fn op(&self, op: Operation, start: Stamp) {
        self.ops[op.index()].finish(start);
    }

    /// The recorder of `op`.
    pub(crate) fn op_recorder(&self, op: Operation) -> &LatencyRecorder {
        &self.ops[op.index()]
    }

    /// A flush wrote a memstore snapshot of `bytes` accounted bytes in `d`.
    pub(crate) fn note_flush_rate(&self, bytes: u64, d: Duration) {
        let secs = d.as_secs_f64();
        if bytes > 0 && secs > 0.0 {
            self.flush_rate
                .store((bytes as f64 / secs) as u64, Ordering::Relaxed);
        }
    }

    /// A writer slept `d` because memstores were filling faster than flushes empty them.
    pub(crate) fn note_delayed(&self, d: Duration) {
        self.delayed_writes.add(1);
        self.delayed_nanos
            .add(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    }

    /// A writer waited `d` for memory or store files (HBase `updatesBlockedTime`).
    pub(crate) fn note_blocked(&self, d: Duration) {
        self.blocked_writes.add(1);
        self.blocked_nanos
            .add(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    }
}
