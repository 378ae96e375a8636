//! What a run measured: the per-window and per-region numbers, the summary and the Gini
//! coefficient they use.

use serde::Serialize;

/// Key-range buckets on the heatmaps' y axis.
pub const KEY_BUCKETS: usize = 48;

/// One region in one window.
#[derive(Clone, Debug, Serialize)]
pub struct RegionCell {
    /// Position of the region's start key in the final key space, 0..1 (rank of the key among
    /// all rowkeys of the run).
    pub y0: f64,
    /// Position of its end key.
    pub y1: f64,
    /// Writes it took in the window (engine counter).
    pub writes: u64,
    /// Reads it served in the window (engine counter: one per Get, one per row scanned).
    pub reads: u64,
}

/// One sampling window.
#[derive(Clone, Debug, Serialize)]
pub struct Window {
    /// Operations done when the window closed.
    pub end_op: u64,
    /// Regions during the window.
    pub regions: usize,
    /// Writes in the window.
    pub writes: u64,
    /// Reads in the window.
    pub reads: u64,
    /// Largest share of the window's writes that one region took.
    pub hottest_share: f64,
    /// `hottest_share / (1 / regions)`.
    pub hottest_ratio: f64,
    /// Largest share of the window's reads that one region served (0 without reads).
    pub hottest_read_share: f64,
    /// Gini coefficient of writes across the regions.
    pub gini: f64,
    /// Every region's cell.
    pub cells: Vec<RegionCell>,
    /// Writes per key-range bucket (from the keys the lab wrote).
    pub bucket_writes: Vec<u64>,
    /// Reads per key-range bucket (keys got, rows scanned).
    pub bucket_reads: Vec<u64>,
    /// Writes per simulated server in the window (every table of the design).
    pub server_writes: Vec<u64>,
    /// Reads per simulated server in the window.
    pub server_reads: Vec<u64>,
    /// Projected busy time per server in the window, ms.
    pub server_busy_ms: Vec<f64>,
    /// Regions per server during the window.
    pub server_regions: Vec<usize>,
}

/// A split the engine made.
#[derive(Clone, Debug, Serialize)]
pub struct SplitEvent {
    /// Window that ended just before it.
    pub window: usize,
    /// Operations done by then.
    pub op: u64,
    /// The split row (HBase binary notation).
    pub row: String,
    /// Its position in the key space, 0..1.
    pub y: f64,
    /// Regions afterwards.
    pub regions_after: usize,
}

/// Per query type.
#[derive(Clone, Debug, Default, Serialize)]
pub struct QueryStats {
    /// Operation name.
    pub name: String,
    /// Operation kind (`put`, `get`, `prefix_scan`, `time_scan`, `latest_n`, `get_missing`,
    /// `delete`).
    pub kind: String,
    /// How the design answers it (`get`, `prefix`, `range`, `salted range`, `full`, with
    /// `via index` when through an index).
    pub plan: String,
    /// Times run.
    pub count: u64,
    /// Mean regions whose range the read overlapped.
    pub mean_regions_touched: f64,
    /// Largest of those.
    pub max_regions_touched: u64,
    /// Regions of the table when measured (mean).
    pub mean_regions_total: f64,
    /// Mean rows the engine read for it (its read-request counters).
    pub mean_rows_examined: f64,
    /// Mean rows that matched.
    pub mean_rows_matched: f64,
    /// Mean data blocks the engine read for it (`Db::metrics().data_blocks_read`).
    pub mean_blocks_read: f64,
    /// Mean memstore reads: region parts whose memstore held data (each such part searched
    /// it; a read served from memstores reads no block).
    pub mean_memstore_reads: f64,
    /// Mean Gets or scans the client issued per operation: 1, or one per salt bucket for a
    /// salted scan and for a Get under a random salt (which must try every bucket).
    pub mean_probes: f64,
    /// Matching rows the read did not return (should be 0); for `get_missing`, rows found
    /// that were never written.
    pub missed: u64,
    #[serde(skip)]
    pub(super) sums: [u64; 7],
}

/// One row of the region table, as HBase's UI shows it.
#[derive(Clone, Debug, Serialize)]
pub struct RegionRow {
    /// Region name.
    pub name: String,
    /// Start key (binary notation).
    pub start_key: String,
    /// End key.
    pub end_key: String,
    /// Store file bytes plus memstore bytes.
    pub size_bytes: u64,
    /// Store files.
    pub files: u32,
    /// Read requests since the region was created.
    pub read_requests: u64,
    /// Write requests since the region was created (the engine's counter: it restarts at 0
    /// in each split daughter).
    pub write_requests: u64,
    /// Writes of keys in the region's range over the whole run (counted by key, so writes
    /// made before a split count in the daughter whose range holds the key).
    pub range_writes: u64,
    /// Reads of keys in the region's range over the whole run (one per Get, one per row a
    /// scan returned), counted by key.
    pub range_reads: u64,
    /// The simulated server hosting the region at the end.
    pub server: usize,
    /// Position of the start key in the run's key space, 0..1 (main table; 0 for index
    /// tables).
    pub y: f64,
}

/// Read skew of one index table over the run.
#[derive(Clone, Debug, Serialize)]
pub struct IndexReads {
    /// The index's name.
    pub name: String,
    /// Reads its regions served (one per Get, one per row a scan returned).
    pub reads: u64,
    /// Hottest index region's share of a window's index reads, averaged weighted by reads.
    pub mean_hottest_read_share: f64,
    /// That share over the fair share `1/regions`, averaged the same way.
    pub mean_hottest_read_ratio: f64,
}

/// The numbers that sum a run up.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Hottest region's share of writes, averaged over windows (weighted by writes).
    pub mean_hottest_share: f64,
    /// Hottest region's share over its fair share `1/regions`, averaged the same way.
    pub mean_hottest_ratio: f64,
    /// The largest ratio of any window.
    pub max_hottest_ratio: f64,
    /// Gini coefficient of writes across regions, averaged over windows (0 = even, 1 = one
    /// region takes all).
    pub mean_gini: f64,
    /// Share of the run's writes made while one region took over half of its window's writes.
    pub time_over_half: f64,
    /// Hottest region's share of reads, averaged over windows (weighted by reads); 0 when the
    /// workload reads nothing. Reads count one per Get and one per row a scan returned.
    pub mean_hottest_read_share: f64,
    /// Hottest region's share of reads over its fair share `1/regions`, averaged the same way.
    pub mean_hottest_read_ratio: f64,
    /// Share of the run's reads served while one region served over half of its window's reads.
    pub read_time_over_half: f64,
    /// Reads in the run.
    pub reads: u64,
    /// Read skew of each index table, like the main table's.
    pub index_reads: Vec<IndexReads>,
    /// Splits the engine made.
    pub splits: usize,
    /// Regions at the start.
    pub initial_regions: usize,
    /// Regions at the end.
    pub final_regions: usize,
    /// Operations.
    pub ops: u64,
    /// Puts.
    pub puts: u64,
    /// Seconds spent in the engine's calls (puts, gets, scans, compactions, splits; not the
    /// lab's bookkeeping).
    pub wall_secs: f64,
    /// Operations per second.
    pub ops_per_sec: f64,
    /// Bytes of keys and values written.
    pub logical_bytes: u64,
    /// Bytes the table holds at the end (store files + memstores).
    pub stored_bytes: u64,
    /// Store files at the end.
    pub store_files: u64,
}

/// Everything a run measured.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    /// Design name.
    pub design: String,
    /// Design description.
    pub description: String,
    /// Design file.
    pub file: String,
    /// Seed.
    pub seed: u64,
    /// The rowkey, described.
    pub rowkey: String,
    /// Example rowkeys (first records).
    pub example_keys: Vec<String>,
    /// Pre-split.
    pub pre_split: String,
    /// Split threshold.
    pub max_region_size: u64,
    /// Flush size.
    pub memstore_flush_size: u64,
    /// Records put.
    pub records: u64,
    /// Operations per window.
    pub window_ops: u64,
    /// Summary.
    pub summary: Summary,
    /// Per query type.
    pub queries: Vec<QueryStats>,
    /// Splits in order.
    pub splits: Vec<SplitEvent>,
    /// Final regions.
    pub regions: Vec<RegionRow>,
    /// Final regions of each index table.
    pub index_regions: Vec<(String, Vec<RegionRow>)>,
    /// Windows.
    pub windows: Vec<Window>,
    /// Start key (binary notation) of each key-range bucket.
    pub bucket_starts: Vec<String>,
    /// The simulated cluster and the projection (docs/LAB.md "Simulated cluster").
    pub cluster: super::ClusterSummary,
    /// Findings computed from the numbers above.
    pub findings: Vec<String>,
    /// What to try next, derived from the findings.
    pub next_steps: Vec<String>,
    /// Facts about the rowkey the suggestions use.
    #[serde(skip)]
    pub key_facts: KeyFacts,
    /// How the cells sat in rows (distinct rows and cells written, families per put).
    pub row_shape: super::lessons::RowShape,
}

/// Facts about a design's rowkey, for the "what to try next" suggestions.
#[derive(Clone, Debug, Default)]
pub struct KeyFacts {
    /// The key starts with a field whose values never decrease in record order (a time or a
    /// sequence): its name.
    pub monotonic_lead: Option<String>,
    /// Salt buckets when the key starts with a salt.
    pub salt_buckets: Option<u16>,
    /// The key starts with a hash (MD5) prefix.
    pub hashed: bool,
    /// Reads pick among the newest records.
    pub read_recent: bool,
    /// Regions the table was created with.
    pub pre_split_regions: usize,
    /// Mean length of the main table's rowkeys written, bytes.
    pub mean_key_len: f64,
    /// Share of each written cell's bytes that is not its value: the rowkey, family and
    /// qualifier every cell repeats, plus its 20 fixed bytes (key lengths, timestamp, type,
    /// sequence id; docs/FORMAT.md).
    pub cell_overhead_share: f64,
    /// Mean value bytes per cell.
    pub value_len: f64,
    /// Key fields written as decimal text although every value is an integer, with the mean
    /// bytes per key a fixed-width binary integer (4 bytes when every value fits `u32`, else
    /// 8, as `Bytes.toBytes(int)` / `Bytes.toBytes(long)`) would save.
    pub decimal_text_fields: Vec<(String, f64)>,
}

/// Gini coefficient of `xs` (0 when they are all equal or sum to 0).
pub fn gini(xs: &[u64]) -> f64 {
    let n = xs.len();
    let total: u64 = xs.iter().sum();
    if n < 2 || total == 0 {
        return 0.0;
    }
    let mut v = xs.to_vec();
    v.sort_unstable();
    let weighted: f64 = v
        .iter()
        .enumerate()
        .map(|(i, &x)| (i as f64 + 1.0) * x as f64)
        .sum();
    (2.0 * weighted) / (n as f64 * total as f64) - (n as f64 + 1.0) / n as f64
}
