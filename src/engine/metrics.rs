//! `Metrics`: the engine's counters, gauges and latency distributions, gathered on demand
//! from the pieces that own them (the engine's [`EngineStats`](super::stats::EngineStats), the
//! WAL, the block cache, the background queue, every region). docs/OPERATIONS.md lists each
//! with its HBase name.

use super::Engine;
use super::stats::Operation;
use crate::base::stats::Latency;
use std::sync::atomic::Ordering;

/// Engine counters, gauges and latencies, from [`Db::metrics`](crate::Db::metrics). Counters
/// count since the database was opened; gauges are read now.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Metrics {
    /// Data blocks fetched from the block files currently live (cache hits and misses).
    pub data_blocks_read: u64,
    /// Block cache hits since open. Only data blocks go through the cache: index and Bloom
    /// blocks are read once when a file opens and stay in memory
    /// ([`Metrics::static_index_bytes`], [`Metrics::static_bloom_bytes`]) (HBase
    /// `blockCacheHitCount`, `blockCacheDataHitCount`).
    pub block_cache_hits: u64,
    /// Block cache misses since open (HBase `blockCacheMissCount`).
    pub block_cache_misses: u64,
    /// Bytes the block cache holds now, entry overhead included (HBase `blockCacheSize`).
    pub block_cache_bytes: u64,
    /// Blocks the block cache holds now (HBase `blockCacheCount`).
    pub block_cache_blocks: u64,
    /// The block cache's capacity ([`DbOptions::block_cache_size`](crate::DbOptions::block_cache_size)).
    pub block_cache_capacity: u64,
    /// Bloom filter checks made by Gets, and by scans whose start and stop rows let a
    /// ROWPREFIX_FIXED_LENGTH filter answer [BLOOM-5] (HBase `bloomFilterRequestsCount`).
    pub bloom_checked: u64,
    /// Checks that ruled a file out, sparing its block reads (HBase
    /// `bloomFilterNegativeResultsCount`).
    pub bloom_useful: u64,
    /// Gets that met a file without a filter able to answer (HBase
    /// `bloomFilterEligibleRequestsCount`).
    pub bloom_unavailable: u64,
    /// Block files currently live (HBase `storeFileCount`).
    pub store_files: u64,
    /// Bytes in those files (HBase `storeFileSize`).
    pub store_file_bytes: u64,
    /// Bytes of their indexes, held in memory (HBase `staticIndexSize`).
    pub static_index_bytes: u64,
    /// Bytes of their Bloom filters, held in memory (HBase `staticBloomSize`).
    pub static_bloom_bytes: u64,
    /// Regions of all tables (HBase `regionCount`).
    pub regions: u64,
    /// Stores (region × family) of all tables (HBase `storeCount`).
    pub stores: u64,
    /// Write-ahead-log segment files currently live (HBase `hlogFileCount`).
    pub wal_segments: u64,
    /// Entries appended to the log (HBase `appendCount`).
    pub wal_appends: u64,
    /// Bytes of those entries with their framing (HBase `AppendSize` summed).
    pub wal_appended_bytes: u64,
    /// `write()` batches to the log (group commit joins appends).
    pub wal_writes: u64,
    /// `fdatasync` calls on log segments (HBase `SyncTime_num_ops`).
    pub wal_syncs: u64,
    /// Log segment rolls (HBase `rollRequest`).
    pub wal_rolls: u64,
    /// How long the group commit's syncs took (HBase `SyncTime`).
    pub wal_sync_time: Latency,
    /// Bytes in memstores not yet flushed: every region's active memstore and flush snapshot
    /// (the total that [`DbOptions::global_memstore_size`](crate::DbOptions::global_memstore_size) bounds; a flushed memstore a
    /// reader still holds no longer counts, as in HBase) (HBase `memStoreSize`).
    pub memstore_bytes: u64,
    /// Flushes that wrote their memstore out (HBase `flushedCellsCount`'s flushes).
    pub flushes: u64,
    /// Cells those flushes wrote (HBase `flushedCellsCount`).
    pub flushed_cells: u64,
    /// Bytes of the files they wrote (HBase `flushedOutputBytes`).
    pub flushed_bytes: u64,
    /// How long each flush took (HBase `FlushTime`).
    pub flush_time: Latency,
    /// Minor compactions done.
    pub minor_compactions: u64,
    /// Major compactions done (HBase `majorCompactedCellsCount`'s compactions).
    pub major_compactions: u64,
    /// Cells the compactions read from their input files (HBase `compactedCellsCount`).
    pub compacted_cells: u64,
    /// Bytes of the files they read (HBase `CompactionInputSize` summed).
    pub compaction_input_bytes: u64,
    /// Bytes of the files they wrote (HBase `CompactionOutputSize` summed).
    pub compaction_output_bytes: u64,
    /// How long each compaction took (HBase `CompactionTime`).
    pub compaction_time: Latency,
    /// Region splits done (HBase `splitSuccessCount`).
    pub splits: u64,
    /// Region merges done.
    pub merges: u64,
    /// How long each split took (HBase `SplitTime`).
    pub split_time: Latency,
    /// Flushes queued now, failed ones waiting for their retry included (HBase
    /// `flushQueueLength`).
    pub flush_queue_length: u64,
    /// Compactions queued now (HBase `compactionQueueLength`).
    pub compaction_queue_length: u64,
    /// Splits queued now (HBase `splitQueueLength`).
    pub split_queue_length: u64,
    /// Writes that had to wait for a flush or compaction (HBase `blockedRequestCount`).
    pub blocked_writes: u64,
    /// Nanoseconds writers spent waiting (HBase `updatesBlockedTime`, which is in ms).
    pub blocked_nanos: u64,
    /// Writes the write controller slowed down: all memstores together were past the
    /// slowdown mark, filling faster than flushes empty them (RocksDB's delayed writes; HBase
    /// has no such stage and only blocks).
    pub delayed_writes: u64,
    /// Nanoseconds those writes slept.
    pub delayed_nanos: u64,
    /// Background failures (flushes, compactions, splits, log write-outs) since open;
    /// [`Db::background_errors`](crate::Db::background_errors) has them per kind.
    pub background_errors: u64,
    /// Read requests of all regions: one per Get, one per row a scan returns (HBase
    /// `readRequestCount`).
    pub read_requests: u64,
    /// Write requests of all regions: one per row mutation (HBase `writeRequestCount`).
    pub write_requests: u64,
    /// Latency of each client operation, in [`Operation::ALL`] order.
    pub latencies: Vec<(Operation, Latency)>,
    /// Every region of every table, tables in name order, regions in key order.
    pub per_region: Vec<RegionMetrics>,
}

impl Metrics {
    /// The latency distribution of `op` (empty when it never ran).
    pub fn latency(&self, op: Operation) -> Latency {
        self.latencies
            .iter()
            .find(|(o, _)| *o == op)
            .map(|(_, l)| l.clone())
            .unwrap_or_default()
    }

    /// Block cache hits over lookups, 0.0 before the first lookup (HBase
    /// `blockCacheCountHitPercent` / 100).
    pub fn block_cache_hit_ratio(&self) -> f64 {
        let total = self.block_cache_hits + self.block_cache_misses;
        if total == 0 {
            0.0
        } else {
            self.block_cache_hits as f64 / total as f64
        }
    }
}

/// One region's gauges and request counters (HBase's per-region metrics,
/// `Namespace_default_table_T_region_R_metric_*`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RegionMetrics {
    /// The region's table.
    pub table: String,
    /// The region's id (fixed for its life).
    pub region_id: u64,
    /// HBase-style name: `table,startKey,id`.
    pub name: String,
    /// Start key, inclusive (empty = unbounded).
    pub start_key: Vec<u8>,
    /// End key, exclusive (empty = unbounded).
    pub end_key: Vec<u8>,
    /// Stores (families) of the region (HBase `storeCount`).
    pub stores: u64,
    /// Block files (HBase `storeFileCount`).
    pub store_files: u64,
    /// Bytes in block files (HBase `storeFileSize`).
    pub store_file_bytes: u64,
    /// Bytes in the memstore and its flush snapshot (HBase `memStoreSize`).
    pub memstore_bytes: u64,
    /// One per Get, one per row a scan returns (HBase `readRequestCount`).
    pub read_requests: u64,
    /// One per row mutation (HBase `writeRequestCount`).
    pub write_requests: u64,
}

impl Engine {
    /// The counters of [`Metrics`], read now.
    pub(crate) fn metrics(&self) -> Metrics {
        let wal = self.wal.stats();
        let (bloom_checked, bloom_useful, bloom_unavailable) = self.cache.bloom_counts();
        let (flush_q, compaction_q, split_q) = self.bg.queue_lengths();
        let s = &self.stats;
        let mut m = Metrics {
            block_cache_hits: self.cache.hits(),
            block_cache_misses: self.cache.misses(),
            block_cache_bytes: self.cache.used(),
            block_cache_blocks: self.cache.block_count(),
            block_cache_capacity: self.cache.capacity(),
            bloom_checked,
            bloom_useful,
            bloom_unavailable,
            wal_segments: self.wal.segment_count() as u64,
            wal_appends: wal.appends,
            wal_appended_bytes: wal.appended_bytes,
            wal_writes: wal.writes,
            wal_syncs: wal.syncs,
            wal_rolls: wal.rolls,
            wal_sync_time: wal.sync_time,
            memstore_bytes: self.memstore_bytes.load(Ordering::Relaxed),
            flushes: s.flushes.get(),
            flushed_cells: s.flushed_cells.get(),
            flushed_bytes: s.flushed_bytes.get(),
            flush_time: s.flush_time.snapshot(),
            minor_compactions: s.minor_compactions.get(),
            major_compactions: s.major_compactions.get(),
            compacted_cells: s.compacted_cells.get(),
            compaction_input_bytes: s.compaction_input_bytes.get(),
            compaction_output_bytes: s.compaction_output_bytes.get(),
            compaction_time: s.compaction_time.snapshot(),
            splits: s.splits.get(),
            merges: s.merges.get(),
            split_time: s.split_time.snapshot(),
            flush_queue_length: flush_q,
            compaction_queue_length: compaction_q,
            split_queue_length: split_q,
            blocked_writes: s.blocked_writes.get(),
            blocked_nanos: s.blocked_nanos.get(),
            delayed_writes: s.delayed_writes.get(),
            delayed_nanos: s.delayed_nanos.get(),
            background_errors: self.bg.errors.snapshot().total(),
            latencies: Operation::ALL
                .iter()
                .map(|&op| (op, s.op_recorder(op).snapshot()))
                .collect(),
            ..Metrics::default()
        };
        for (t, r) in self.all_regions() {
            m.regions += 1;
            let v = r.current();
            let (reads, writes) = r.request_counts();
            let mut rm = RegionMetrics {
                table: t.name.clone(),
                region_id: r.id(),
                name: format!(
                    "{},{},{}",
                    t.name,
                    crate::base::util::to_string_binary(r.start()),
                    r.id()
                ),
                start_key: r.start().to_vec(),
                end_key: r.end().to_vec(),
                stores: t.desc_arc().families().len() as u64,
                store_files: 0,
                store_file_bytes: 0,
                memstore_bytes: r.memstore_size(),
                read_requests: reads,
                write_requests: writes,
            };
            for f in v.files.values().flatten() {
                rm.store_files += 1;
                rm.store_file_bytes += f.size();
                m.data_blocks_read += f.reader.blocks_read();
                let (index, bloom) = f.reader.resident_bytes();
                m.static_index_bytes += index;
                m.static_bloom_bytes += bloom;
            }
            m.stores += rm.stores;
            m.store_files += rm.store_files;
            m.store_file_bytes += rm.store_file_bytes;
            m.read_requests += reads;
            m.write_requests += writes;
            m.per_region.push(rm);
        }
        m
    }

    /// The engine's live statistics (recorded by operations, flushes, compactions, splits).
    pub(crate) fn stats(&self) -> &super::stats::EngineStats {
        &self.stats
    }
}
