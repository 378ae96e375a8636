//! Runs a design's workload through a real cellbase table and measures it.
//!
//! The database runs without background threads: a write that fills a memstore flushes it
//! inline, and at the end of every sampling window the lab reads the per-region request
//! counters (`Table::regions`), then runs the engine's minor compaction and automatic split
//! check (`Table::compact`, `Table::run_split_check`). Splits therefore happen only at window
//! boundaries, after the window's counters were read, so every write of a window is counted in
//! the region that took it, and the run is reproducible from its seed.
//!
//! Every operation runs region part by region part (`parts`) on a simulated cluster
//! (`crate::lab::cluster`): the projection (`projection`) turns each part's counted work into
//! server time and latency. `ops` runs the operations, `window` closes a sampling window,
//! `finish` sums the run up; `result` holds what a run measured (the serialized result),
//! `regions` the per-region helpers and `findings` the sentences built from the numbers.
//! `seed_ops` runs the operations the seed articles teach with (`latest_n`, `get_missing`,
//! `delete`, Gets under a random salt), `written` tracks the live cells reads are checked
//! against (deletes and TTL), `lessons` states the seeds' lessons in the run's numbers.

mod findings;
mod finish;
mod lessons;
mod ops;
mod parts;
mod projection;
mod regions;
mod result;
mod seed_ops;
mod window;
mod written;

pub use findings::{findings, next_steps};
pub use lessons::{RowShape, lessons};
pub use projection::{COST_MODEL, ClusterSummary, CostModel, OpProjection};
pub use result::{
    IndexReads, KEY_BUCKETS, KeyFacts, QueryStats, RegionCell, RegionRow, RunResult, SplitEvent,
    Summary, Window, gini,
};

use super::cluster::{Cluster, RegionRef};
use super::design::{ClusterSpec, Design, OpKind, Workload};
use super::key::KeyDesign;
use super::records::{Rng, Value};
use cellbase::{
    Db, DbOptions, Durability, FamilyDescriptor, ManualClock, RegionInfo, Table, TableDescriptor,
};
use indicatif::ProgressBar;
use projection::Projector;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// The run's key space: the sorted rowkeys (the heatmaps' y axis) and the key-range buckets.
struct KeySpace {
    sorted: Vec<Vec<u8>>,
    bounds: Vec<Vec<u8>>,
    buckets: usize,
}

impl KeySpace {
    fn new(keys: &[Vec<u8>]) -> KeySpace {
        let mut sorted = keys.to_vec();
        sorted.sort();
        sorted.dedup();
        let nkeys = sorted.len().max(1);
        let buckets = KEY_BUCKETS.min(nkeys);
        let bounds = (1..buckets)
            .map(|i| sorted[i * nkeys / buckets].clone())
            .collect();
        KeySpace {
            sorted,
            bounds,
            buckets,
        }
    }

    fn bucket_of(&self, k: &[u8]) -> usize {
        self.bounds.partition_point(|b| b.as_slice() <= k)
    }

    /// Position of `k` in the key space, 0..1 (rank among the run's keys).
    fn pos(&self, k: &[u8]) -> f64 {
        if k.is_empty() {
            return 0.0;
        }
        self.sorted.partition_point(|s| s.as_slice() < k) as f64 / self.sorted.len().max(1) as f64
    }
}

/// A table of the run with what the lab tracks for it.
pub(crate) struct LabTable {
    name: String,
    table: Table,
    /// Its regions, as of the last window boundary (regions change only there).
    regs: Vec<RegionInfo>,
    /// Region counters at the start of the window: name -> (writes, reads).
    prev: BTreeMap<String, (u64, u64)>,
    /// Rows written: rowkey -> record index.
    written: HashMap<Vec<u8>, usize>,
    /// Reads per record (of this table's row for the record), for the final region table.
    rec_reads: Vec<u64>,
}

fn baseline(regs: &[RegionInfo]) -> BTreeMap<String, (u64, u64)> {
    regs.iter()
        .map(|r| (r.name.clone(), (r.write_requests, r.read_requests)))
        .collect()
}

fn refs(table: &str, regs: &[RegionInfo]) -> Vec<RegionRef> {
    regs.iter()
        .map(|r| RegionRef {
            table: table.to_string(),
            name: r.name.clone(),
            start: r.start_key.clone(),
        })
        .collect()
}

/// Everything a run tracks while it runs.
pub(crate) struct State<'a> {
    design: &'a Design,
    records: &'a [Vec<Value>],
    workload: &'a Workload,
    keys: Vec<Vec<u8>>,
    /// Each record's qualifier (`v`, or the design's `[rowkey] qualifier`).
    quals: Vec<Vec<u8>>,
    kd: KeyDesign,
    ks: KeySpace,
    db: Db,
    clock: ManualClock,
    family: Vec<u8>,
    /// The families each put writes (the first, or all with `workload.families = "all"`).
    put_families: Vec<Vec<u8>>,
    /// The live cells of the main table (what reads must return).
    cells: written::Written,
    value_filler: Vec<u8>,
    /// The main table first, then the index tables.
    tables: Vec<LabTable>,
    /// Rowkey design of each index (`tables[1 + i]`).
    idx_keys: Vec<KeyDesign>,
    cluster: Cluster,
    proj: Projector,
    engine: std::time::Duration,
    stats: Vec<QueryStats>,
    put_next: usize,
    op_no: u64,
    windows: Vec<Window>,
    splits: Vec<SplitEvent>,
    bw: Vec<u64>,
    br: Vec<u64>,
    /// Per index table: reads, and the hottest region's share and ratio weighted by reads.
    idx_reads: Vec<(u64, f64, f64)>,
    logical: u64,
    /// Main-table puts' cells: (cells, rowkey bytes summed per put, overhead bytes, value
    /// bytes), for the key-length finding.
    cell_bytes: (u64, u64, u64, u64),
    initial_regions: usize,
    window_ops: u64,
    /// The engine's flushed bytes at the end of the last window.
    flushed_before: u64,
}

/// Runs `design`'s table and rowkey on `records` with `workload` (`seed` drives the operation
/// mix), in `dir` or a temporary directory.
///
/// # Errors
/// A message when the engine fails (a full disk, a directory already holding the table).
pub fn run(
    design: &Design,
    records: &[Vec<Value>],
    workload: &Workload,
    seed: u64,
    dir: Option<&Path>,
) -> Result<RunResult, String> {
    run_with_progress(design, records, workload, seed, dir, &ProgressBar::hidden())
}

/// [`run`], counting each operation done on `progress` (its length is set to the estimated
/// number of operations).
///
/// # Errors
/// As [`run`].
pub fn run_with_progress(
    design: &Design,
    records: &[Vec<Value>],
    workload: &Workload,
    seed: u64,
    dir: Option<&Path>,
    progress: &ProgressBar,
) -> Result<RunResult, String> {
    let e = |x: cellbase::Error| format!("{}: engine error: {x}", design.name);
    // Keys first: the key space of the run fixes the heatmaps' y axis.
    let mut kd = design.key.clone();
    kd.set_seed(seed);
    for r in records {
        kd.learn(r);
    }
    let keys: Vec<Vec<u8>> = records
        .iter()
        .enumerate()
        .map(|(i, r)| kd.encode_nth(r, i as u64))
        .collect();
    // Each record's qualifier: `v`, or the design's (several records per row).
    let quals: Vec<Vec<u8>> = match &design.qualifier {
        None => vec![b"v".to_vec(); records.len()],
        Some(q) => {
            let mut q = q.clone();
            for r in records {
                q.learn(r);
            }
            records.iter().map(|r| q.encode(r)).collect()
        }
    };
    let mut idx_keys: Vec<KeyDesign> = design.indexes.iter().map(|i| i.key.clone()).collect();
    for d in &mut idx_keys {
        d.set_seed(seed);
        for r in records {
            d.learn(r);
        }
    }
    let ks = KeySpace::new(&keys);

    // The database.
    let clock = ManualClock::new(1_700_000_000_000);
    let t = &design.table;
    let opts = DbOptions::default()
        .clock(clock.clone())
        .background_threads(0)
        .durability(Durability::SkipWal)
        .memstore_flush_size(t.memstore_flush_size)
        .max_region_size(t.max_region_size);
    let db = match dir {
        // In a directory the user keeps, the engine also records the run's traffic (about 100
        // intervals of the lab's clock, 1 ms per operation), for `cellbase lab keyviz --db`.
        Some(d) => Db::open_with(
            d,
            opts.traffic_recording(
                std::time::Duration::from_millis((records.len() as u64 / 100).clamp(10, 1000)),
                10_000,
            ),
        )
        .map_err(e)?,
        None => Db::temporary_with(opts).map_err(e)?,
    };
    let mut desc = TableDescriptor::new(&t.name)
        .max_region_size(t.max_region_size)
        .memstore_flush_size(t.memstore_flush_size)
        .split_keys(t.split_keys.clone());
    for f in &t.families {
        desc = desc.family(f.clone());
    }
    let family = t.families[0].name().to_vec();
    let put_families: Vec<Vec<u8>> = if workload.all_families {
        t.families.iter().map(|f| f.name().to_vec()).collect()
    } else {
        vec![family.clone()]
    };
    // The cells live as long as the longest TTL of the families written [TTL-1].
    let ttl_ms = t
        .families
        .iter()
        .filter(|f| put_families.iter().any(|p| p.as_slice() == f.name()))
        .map(|f| f.ttl_millis())
        .try_fold(0i64, |acc, x| x.map(|x| acc.max(x)));
    let lab_table = |name: &str, table: Table| {
        let regs = table.regions();
        LabTable {
            name: name.to_string(),
            prev: baseline(&regs),
            regs,
            table,
            written: HashMap::new(),
            rec_reads: vec![0; records.len()],
        }
    };
    let mut tables = vec![lab_table(&t.name, db.create_table(desc).map_err(e)?)];
    for spec in &design.indexes {
        let d = TableDescriptor::new(&spec.name)
            .family(FamilyDescriptor::new("i"))
            .max_region_size(spec.max_region_size)
            .memstore_flush_size(t.memstore_flush_size)
            .split_keys(spec.split_keys.clone());
        tables.push(lab_table(&spec.name, db.create_table(d).map_err(e)?));
    }
    // The cluster: each table's regions round-robin, as the master assigns a new table.
    let ClusterSpec {
        servers,
        balance_every,
        rpc_ms,
    } = design.cluster.clone();
    let mut cluster = Cluster::new(servers, balance_every);
    for lt in &tables {
        cluster.create_table(&refs(&lt.name, &lt.regs));
    }

    // The mix.
    let ops = &workload.ops;
    let total_weight: u64 = ops.iter().map(|o| u64::from(o.weight)).sum::<u64>().max(1);
    let put_weight: u64 = ops
        .iter()
        .filter(|o| o.kind == OpKind::Put)
        .map(|o| u64::from(o.weight))
        .sum::<u64>()
        .max(1);
    let n = records.len() as u64;
    let est_ops = n * total_weight / put_weight;
    progress.set_length(est_ops);
    let window_ops = est_ops
        .div_ceil(u64::from(Design::windows(workload).max(1)))
        .max(1);
    let mut rng = Rng::new(seed).fork(0x0B5);
    let buckets = ks.buckets;
    let mut st = State {
        design,
        records,
        workload,
        initial_regions: tables[0].regs.len(),
        keys,
        quals,
        kd,
        ks,
        db,
        clock: clock.clone(),
        family,
        put_families,
        cells: written::Written::new(ttl_ms),
        value_filler: (0..workload.value_size)
            .map(|i| b'a' + (i % 26) as u8)
            .collect(),
        idx_reads: vec![(0, 0.0, 0.0); tables.len() - 1],
        tables,
        idx_keys,
        proj: Projector::new(cluster.servers(), rpc_ms, ops.len()),
        cluster,
        engine: std::time::Duration::ZERO,
        stats: ops
            .iter()
            .map(|o| QueryStats {
                name: o.name.clone(),
                kind: lessons::kind_name(&o.kind).to_string(),
                ..QueryStats::default()
            })
            .collect(),
        put_next: 0,
        op_no: 0,
        windows: Vec::new(),
        splits: Vec::new(),
        bw: vec![0; buckets],
        br: vec![0; buckets],
        logical: 0,
        cell_bytes: (0, 0, 0, 0),
        window_ops,
        flushed_before: 0,
    };

    while st.put_next < records.len() {
        let mut pick = rng.below(total_weight);
        let mut which = 0;
        for (i, o) in ops.iter().enumerate() {
            if pick < u64::from(o.weight) {
                which = i;
                break;
            }
            pick -= u64::from(o.weight);
        }
        let first = st.tables[0].written.is_empty();
        let which = if first {
            ops.iter().position(|o| o.kind == OpKind::Put).unwrap_or(0)
        } else {
            which
        };
        clock.advance(std::time::Duration::from_millis(1));
        if first || ops[which].kind == OpKind::Put {
            st.put(which).map_err(e)?;
        } else if ops[which].kind == OpKind::Delete {
            // Any written record (deleting one already deleted is a no-op write).
            let j = st.put_next - 1 - rng.below(st.put_next as u64) as usize;
            st.delete(which, j).map_err(e)?;
        } else {
            // A written record to read around.
            let span = if workload.read_recent {
                (st.put_next as u64 / 10).max(1)
            } else {
                st.put_next as u64
            };
            let j = st.put_next - 1 - rng.below(span) as usize;
            st.read(which, j).map_err(e)?;
        }
        st.op_no += 1;
        progress.set_position(st.op_no);
        if st.op_no.is_multiple_of(window_ops) || st.put_next == records.len() {
            st.close_window().map_err(e)?;
        }
    }
    st.finish().map_err(e)
}
