//! Database options and write durability.

use crate::base::clock::{Clock, SystemClock};
use std::fmt;
use std::sync::Arc;

pub use crate::model::mutation::Durability;

/// What an open does when the write-ahead log is missing segments that the manifest records
/// as holding writes not yet in block files (an operator deleted them, or a restore left them
/// out). As HBase's `hbase.hregion.edits.replay.skip.errors` and RocksDB's WAL recovery modes,
/// opening anyway is an explicit choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum WalRecovery {
    /// Refuse to open: [`crate::Error::Corruption`] naming the first missing segment (the
    /// default: acknowledged writes may be in it).
    #[default]
    Strict,
    /// Open without the missing segments; the writes they held are gone. What was dropped is
    /// listed in [`crate::Db::recovery_report`].
    SkipMissingSegments,
}

/// Options for [`crate::Db::open_with`]. Builder methods take and return `Self`.
#[derive(Clone)]
pub struct DbOptions {
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) durability: Durability,
    pub(crate) memstore_flush_size: u64,
    pub(crate) global_memstore_size: u64,
    pub(crate) global_memstore_lower_limit: f64,
    pub(crate) max_region_size: u64,
    pub(crate) block_cache_size: u64,
    pub(crate) background_threads: usize,
    pub(crate) max_cell_size: u64,
    pub(crate) wal_segment_size: u64,
    pub(crate) flush_on_close: bool,
    pub(crate) flush_after_replay: bool,
    pub(crate) wal_recovery: WalRecovery,
    pub(crate) major_compaction_period: std::time::Duration,
    pub(crate) major_compaction_jitter: f64,
    pub(crate) compaction_check_interval: std::time::Duration,
    pub(crate) normalizer: crate::engine::normalizer::NormalizerConfig,
    pub(crate) traffic: Option<(std::time::Duration, usize)>,
}

impl Default for DbOptions {
    fn default() -> Self {
        DbOptions {
            clock: Arc::new(SystemClock),
            durability: Durability::SyncWal,
            memstore_flush_size: 128 << 20,
            global_memstore_size: default_global_memstore_size(),
            global_memstore_lower_limit: 0.95,
            max_region_size: 10 << 30,
            block_cache_size: 64 << 20,
            background_threads: 2,
            max_cell_size: 10 << 20,
            wal_segment_size: 64 << 20,
            flush_on_close: true,
            flush_after_replay: true,
            wal_recovery: WalRecovery::Strict,
            major_compaction_period: std::time::Duration::from_secs(7 * 24 * 3600),
            major_compaction_jitter: 0.5,
            compaction_check_interval: std::time::Duration::from_secs(10_000),
            normalizer: Default::default(),
            traffic: None,
        }
    }
}

impl fmt::Debug for DbOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DbOptions")
            .field("durability", &self.durability)
            .field("memstore_flush_size", &self.memstore_flush_size)
            .field("global_memstore_size", &self.global_memstore_size)
            .field(
                "global_memstore_lower_limit",
                &self.global_memstore_lower_limit,
            )
            .field("max_region_size", &self.max_region_size)
            .field("block_cache_size", &self.block_cache_size)
            .field("background_threads", &self.background_threads)
            .field("max_cell_size", &self.max_cell_size)
            .field("wal_segment_size", &self.wal_segment_size)
            .field("flush_on_close", &self.flush_on_close)
            .field("flush_after_replay", &self.flush_after_replay)
            .field("wal_recovery", &self.wal_recovery)
            .field("major_compaction_period", &self.major_compaction_period)
            .field("major_compaction_jitter", &self.major_compaction_jitter)
            .field("compaction_check_interval", &self.compaction_check_interval)
            .field("normalizer", &self.normalizer)
            .field("traffic", &self.traffic)
            .finish_non_exhaustive()
    }
}

impl DbOptions {
    /// The clock every timestamp, TTL check and "now" comes from (default: [`SystemClock`]).
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Arc::new(clock);
        self
    }
    /// Default durability of writes that do not set their own (default [`Durability::SyncWal`]).
    pub fn durability(mut self, d: Durability) -> Self {
        self.durability = d;
        self
    }
    /// Per-region memstore size that triggers a flush (default 128 MiB).
    pub fn memstore_flush_size(mut self, bytes: u64) -> Self {
        self.memstore_flush_size = bytes;
        self
    }
    /// Bound on the bytes in all memstores of the database together, as HBase's
    /// `hbase.regionserver.global.memstore.size` (0 = no bound; default: 40 % of the machine's
    /// memory, as HBase's 40 % of the heap; no bound where the memory size cannot be read).
    /// Once the total reaches the lower limit ([`DbOptions::global_memstore_lower_limit`],
    /// default 95 % of the bound), a background thread flushes the regions with the largest
    /// memstores, whatever their flush size, until the total is below that mark again; while
    /// it is at or above the bound, writes wait for those flushes (HBase's
    /// `MemStoreFlusher#reclaimMemStoreMemory`). Per region,
    /// [`DbOptions::memstore_flush_size`] and its blocking multiplier apply as well [REG-2].
    pub fn global_memstore_size(mut self, bytes: u64) -> Self {
        self.global_memstore_size = bytes;
        self
    }
    /// The fraction of [`DbOptions::global_memstore_size`] at which flushes for global
    /// pressure start, as HBase's `hbase.regionserver.global.memstore.size.lower.limit`
    /// (default 0.95). Writes only wait at the bound itself, so a lower fraction keeps less
    /// unflushed data in memory (flushes start earlier and are smaller) with the same room
    /// for writes to go on while they run: 0.5 flushes at half the bound, as RocksDB flushes
    /// a full memtable while writes fill a second one. [`crate::Db::open_with`] rejects a
    /// value outside `(0, 1]` with [`crate::Error::InvalidArgument`].
    pub fn global_memstore_lower_limit(mut self, fraction: f64) -> Self {
        self.global_memstore_lower_limit = fraction;
        self
    }
    /// Region split threshold (default 10 GiB).
    pub fn max_region_size(mut self, bytes: u64) -> Self {
        self.max_region_size = bytes;
        self
    }
    /// Capacity of the cache of decompressed blocks (default 64 MiB; 0 disables it).
    pub fn block_cache_size(mut self, bytes: u64) -> Self {
        self.block_cache_size = bytes;
        self
    }
    /// Background threads for flushes and compactions (default 2). With 0, a write that takes
    /// a memstore past the flush size flushes it inline, and compactions run only when called:
    /// nothing ever waits for work that no thread will do.
    pub fn background_threads(mut self, n: usize) -> Self {
        self.background_threads = n;
        self
    }
    /// Largest accepted cell, in HBase's serialized size `20 + row + family + qualifier +
    /// value` (default 10 MiB; 0 = no limit) [LIM-5].
    pub fn max_cell_size(mut self, bytes: u64) -> Self {
        self.max_cell_size = bytes;
        self
    }
    /// Size at which the write-ahead log rolls to a new segment (default 64 MiB).
    pub fn wal_segment_size(mut self, bytes: u64) -> Self {
        self.wal_segment_size = bytes.max(4096);
        self
    }
    /// Whether a clean close ([`crate::Db::close`], or dropping the last handle outside a
    /// panic) flushes every memstore to block files and deletes the log segments then in
    /// files (default `true`, as HBase flushes a region when it closes it): the next open
    /// replays nothing and reads come from block files. With `false`, a close only syncs the
    /// log and the next open replays it (see [`DbOptions::flush_after_replay`]). Either way no
    /// acknowledged write is lost; a close whose flush fails leaves those writes in the synced
    /// log.
    pub fn flush_on_close(mut self, flush: bool) -> Self {
        self.flush_on_close = flush;
        self
    }
    /// Whether an open that replayed the log (after a crash, or a close with
    /// `flush_on_close(false)`) flushes every memstore the replay refilled before it returns
    /// (default `true`, as HBase flushes the edits it replays when it opens a region,
    /// `HRegion#replayRecoveredEditsIfAny`, and RocksDB its recovered memtables unless
    /// `avoid_flush_during_recovery`). The open then takes the time of those flushes, reads
    /// find files with Bloom filters rather than a large memstore, the replayed memory is
    /// returned, and the replayed log segments are deleted. With `false` the replayed cells
    /// stay in the memstores until their next flush, and the log with them. Either way replay
    /// flushes a memstore that reaches its flush size, and the largest whenever all of them
    /// together reach the global lower limit, so it never holds more than the running
    /// database would.
    pub fn flush_after_replay(mut self, flush: bool) -> Self {
        self.flush_after_replay = flush;
        self
    }
    /// The period of automatic major compactions, HBase's `hbase.hregion.majorcompaction`
    /// (default 7 days; zero disables them). A store whose oldest file was written longer
    /// ago than the period (moved by the jitter) is major-compacted by its next compaction
    /// (after a flush, [`crate::Table::compact`]) or by the compaction check
    /// ([`DbOptions::compaction_check_interval`], [`crate::Db::run_compaction_check`]); a
    /// store of one file a major compaction wrote is left alone unless cells in it have
    /// outlived the family's TTL (HBase's `RatioBasedCompactionPolicy`). A family's
    /// `hbase.hregion.majorcompaction` overrides it ([`crate::FamilyDescriptor::major_compaction_period`]).
    /// Times are the database clock's.
    pub fn major_compaction_period(mut self, period: std::time::Duration) -> Self {
        self.major_compaction_period = period;
        self
    }
    /// HBase's `hbase.hregion.majorcompaction.jitter` (default 0.5): each store's period is
    /// moved by up to this fraction, earlier or later, by a draw seeded from the store's
    /// oldest file name (the same for the same files, so a restart does not move it).
    /// [`crate::Db::open_with`] rejects a value outside `0.0..=1.0` with
    /// [`crate::Error::InvalidArgument`].
    pub fn major_compaction_jitter(mut self, fraction: f64) -> Self {
        self.major_compaction_jitter = fraction;
        self
    }
    /// How often a background thread checks every store for a compaction it needs, minor or
    /// periodic major (HBase's `CompactionChecker` chore: `hbase.server.thread.wakefrequency`
    /// × `hbase.server.compactchecker.interval.multiplier`, default 10 s × 1000 = 10,000 s).
    /// Zero turns the thread off; shorter intervals are taken as 100 ms. The thread runs only
    /// with background threads ([`DbOptions::background_threads`] > 0), queues the
    /// compactions it finds for them, and stops when the database closes (within one
    /// compaction check). Without background threads, call [`crate::Db::run_compaction_check`].
    pub fn compaction_check_interval(mut self, interval: std::time::Duration) -> Self {
        self.compaction_check_interval = interval;
        self
    }
    /// The region normalizer's settings (HBase's `hbase.normalizer.*`; default HBase's):
    /// what [`crate::Db::normalize`] plans for tables with `NORMALIZATION_ENABLED`.
    pub fn normalizer(mut self, cfg: crate::engine::normalizer::NormalizerConfig) -> Self {
        self.normalizer = cfg;
        self
    }
    /// Records live traffic for a Key Visualizer (default off): per region and per `interval`
    /// of the database clock, the read and write requests counted (as the regions' own
    /// request counters count them), in a ring of at most `max_intervals` intervals; read it
    /// with [`crate::Db::traffic`]. At a clean close, and on [`crate::Db::save_traffic`], the
    /// ring is written to the database directory's `TRAFFIC` file (docs/FORMAT.md), which
    /// [`crate::inspect::read_traffic`] and `cellbase lab keyviz --db DIR` read.
    ///
    /// Memory: at most `max_intervals` intervals, each with one entry per region that took
    /// a request in it (about 100 bytes plus the table name and the region's start and end
    /// keys). Cost: one short lock and one clock read per counted request.
    /// [`crate::Db::open_with`] rejects an interval under 1 ms or a `max_intervals` outside
    /// `1..=100000` with [`crate::Error::InvalidArgument`].
    ///
    /// # Examples
    /// ```
    /// use cellbase::{Db, DbOptions, FamilyDescriptor, Put, TableDescriptor};
    /// use std::time::Duration;
    ///
    /// let db = Db::temporary_with(
    ///     DbOptions::default().traffic_recording(Duration::from_secs(60), 60),
    /// )?;
    /// let t = db.create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))?;
    /// t.put(Put::new("r").add("f", "q", "v"))?;
    /// let traffic = db.traffic().expect("recording is on");
    /// assert_eq!(traffic.intervals.last().unwrap().regions[0].writes, 1);
    /// # Ok::<(), cellbase::Error>(())
    /// ```
    pub fn traffic_recording(
        mut self,
        interval: std::time::Duration,
        max_intervals: usize,
    ) -> Self {
        self.traffic = Some((interval, max_intervals));
        self
    }
    /// What an open does about missing write-ahead log segments (default
    /// [`WalRecovery::Strict`]: refuse with [`crate::Error::Corruption`]).
    pub fn wal_recovery(mut self, mode: WalRecovery) -> Self {
        self.wal_recovery = mode;
        self
    }
}

/// 40 % of the machine's memory, or 0 (no bound) where its size cannot be read.
fn default_global_memstore_size() -> u64 {
    static SIZE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *SIZE.get_or_init(|| crate::base::io::physical_memory().map_or(0, |m| m / 10 * 4))
}
