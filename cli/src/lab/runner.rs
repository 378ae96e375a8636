//! Runs a design's workload through a real cellbase table and measures it.
//!
//! The database runs without background threads: a write that fills a memstore flushes it
//! inline, and at the end of every sampling window the lab reads the per-region request
//! counters (`Table::regions`), then runs the engine's minor compaction and automatic split
//! check (`Table::compact`, `Table::run_split_check`). Splits therefore happen only at window
//! boundaries, after the window's counters were read, so every write of a window is counted in
//! the region that took it, and the run is reproducible from its seed.

use super::design::{Design, OpKind, Workload};
use super::key::{KeyDesign, Plan, Query};
use super::records::{Rng, Value};
use cellbase::{
    Db, DbOptions, Durability, FamilyDescriptor, Filter, Get, ManualClock, Put, RegionInfo, Scan,
    Table, TableDescriptor, rowkey,
};
use indicatif::ProgressBar;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Instant;

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
    /// Matching rows the read did not return (should be 0).
    pub missed: u64,
    #[serde(skip)]
    sums: [u64; 6],
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
    /// Write requests since the region was created.
    pub write_requests: u64,
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
    /// Gini coefficient of writes across the key-range buckets over the whole run.
    pub key_bucket_gini: f64,
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
    /// Findings computed from the numbers above.
    pub findings: Vec<String>,
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

fn region_rows(regions: &[RegionInfo]) -> Vec<RegionRow> {
    regions
        .iter()
        .map(|r| RegionRow {
            name: r.name.clone(),
            start_key: rowkey::to_string_binary(&r.start_key),
            end_key: rowkey::to_string_binary(&r.end_key),
            size_bytes: r.store_file_bytes + r.memstore_bytes,
            files: r.store_files,
            read_requests: r.read_requests,
            write_requests: r.write_requests,
        })
        .collect()
}

/// Regions of `regions` overlapping `[start, stop)` (stop empty = unbounded).
fn overlapping(regions: &[RegionInfo], start: &[u8], stop: &[u8]) -> Vec<usize> {
    regions
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            (stop.is_empty() || r.start_key.as_slice() < stop)
                && (r.end_key.is_empty() || r.end_key.as_slice() > start)
        })
        .map(|(i, _)| i)
        .collect()
}

/// Regions a plan reads.
fn touched(regions: &[RegionInfo], plan: &Plan) -> u64 {
    match plan.salted {
        None => overlapping(regions, &plan.start, &plan.stop).len() as u64,
        Some(b) => {
            let mut all = std::collections::BTreeSet::new();
            for p in rowkey::salted_prefixes(b) {
                let mut s = p.clone();
                s.extend_from_slice(&plan.start);
                let e = if plan.stop.is_empty() {
                    super::key::prefix_stop(&p)
                } else {
                    let mut e = p.clone();
                    e.extend_from_slice(&plan.stop);
                    e
                };
                all.extend(overlapping(regions, &s, &e));
            }
            all.len() as u64
        }
    }
}

fn sum_reads(regions: &[RegionInfo]) -> u64 {
    regions.iter().map(|r| r.read_requests).sum()
}

struct TableSet {
    main: Table,
    indexes: Vec<(String, Table, KeyDesign)>,
}

fn open_scan(t: &Table, plan: &Plan) -> cellbase::Result<cellbase::Scanner> {
    let scan = Scan::new()
        .start_row(&plan.start)
        .stop_row(&plan.stop)
        .filter(Filter::KeyOnly);
    match plan.salted {
        Some(b) => t.scan_salted(scan, b),
        None => t.scan(scan),
    }
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
    for r in records {
        kd.learn(r);
    }
    let keys: Vec<Vec<u8>> = records.iter().map(|r| kd.encode(r)).collect();
    let mut idx_designs: Vec<KeyDesign> = design.indexes.iter().map(|i| i.key.clone()).collect();
    for d in &mut idx_designs {
        for r in records {
            d.learn(r);
        }
    }
    let mut sorted = keys.clone();
    sorted.sort();
    sorted.dedup();
    let nkeys = sorted.len().max(1);
    let buckets = KEY_BUCKETS.min(nkeys);
    let bounds: Vec<Vec<u8>> = (1..buckets)
        .map(|i| sorted[i * nkeys / buckets].clone())
        .collect();
    let bucket_of = |k: &[u8]| bounds.partition_point(|b| b.as_slice() <= k);
    let pos = |k: &[u8]| -> f64 {
        if k.is_empty() {
            return 0.0;
        }
        sorted.partition_point(|s| s.as_slice() < k) as f64 / nkeys as f64
    };
    let mut bucket_starts = vec![rowkey::to_string_binary(
        sorted.first().map_or(&[][..], |v| v),
    )];
    bucket_starts.extend(bounds.iter().map(|b| rowkey::to_string_binary(b)));

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
        Some(d) => Db::open_with(d, opts).map_err(e)?,
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
    let main = db.create_table(desc).map_err(e)?;
    let mut indexes = Vec::new();
    for (spec, kd) in design.indexes.iter().zip(idx_designs) {
        let d = TableDescriptor::new(&spec.name)
            .family(FamilyDescriptor::new("i"))
            .max_region_size(spec.max_region_size)
            .memstore_flush_size(t.memstore_flush_size)
            .split_keys(spec.split_keys.clone());
        indexes.push((spec.name.clone(), db.create_table(d).map_err(e)?, kd));
    }
    let tables = TableSet { main, indexes };
    let initial_regions = tables.main.regions().len();

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
    let mut stats: Vec<QueryStats> = ops
        .iter()
        .map(|o| QueryStats {
            name: o.name.clone(),
            ..QueryStats::default()
        })
        .collect();
    let value_filler: Vec<u8> = (0..workload.value_size)
        .map(|i| b'a' + (i % 26) as u8)
        .collect();

    let mut written: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut idx_written: Vec<HashMap<Vec<u8>, usize>> = vec![HashMap::new(); tables.indexes.len()];
    let mut put_next = 0usize;
    let mut op_no = 0u64;
    let mut windows: Vec<Window> = Vec::new();
    let mut splits: Vec<SplitEvent> = Vec::new();
    let mut bw = vec![0u64; buckets];
    let mut br = vec![0u64; buckets];
    let baseline = |regs: &[RegionInfo]| -> BTreeMap<String, (u64, u64)> {
        regs.iter()
            .map(|r| (r.name.clone(), (r.write_requests, r.read_requests)))
            .collect()
    };
    let mut prev = baseline(&tables.main.regions());
    let mut prev_idx: Vec<_> = tables
        .indexes
        .iter()
        .map(|(_, t, _)| baseline(&t.regions()))
        .collect();
    // Per index table: reads, and the hottest region's share and ratio weighted by reads.
    let mut idx_reads: Vec<(u64, f64, f64)> = vec![(0, 0.0, 0.0); tables.indexes.len()];
    let mut logical = 0u64;
    let mut engine = std::time::Duration::ZERO;

    while put_next < records.len() {
        let mut pick = rng.below(total_weight);
        let mut which = 0;
        for (i, o) in ops.iter().enumerate() {
            if pick < u64::from(o.weight) {
                which = i;
                break;
            }
            pick -= u64::from(o.weight);
        }
        let op = &ops[which];
        let kind = if written.is_empty() {
            &OpKind::Put
        } else {
            &op.kind
        };
        let which = if written.is_empty() {
            ops.iter().position(|o| o.kind == OpKind::Put).unwrap_or(0)
        } else {
            which
        };
        clock.advance(std::time::Duration::from_millis(1));
        match kind {
            OpKind::Put => {
                let i = put_next;
                put_next += 1;
                let key = &keys[i];
                let t0 = Instant::now();
                tables
                    .main
                    .put(Put::new(key).add(&family, b"v", &value_filler))
                    .map_err(e)?;
                engine += t0.elapsed();
                logical += (key.len() + value_filler.len()) as u64;
                written.insert(key.clone(), i);
                bw[bucket_of(key)] += 1;
                for (j, (_, t, kd)) in tables.indexes.iter().enumerate() {
                    let ik = kd.encode(&records[i]);
                    let t0 = Instant::now();
                    t.put(Put::new(&ik).add(b"i", b"k", key)).map_err(e)?;
                    engine += t0.elapsed();
                    logical += (ik.len() + key.len()) as u64;
                    idx_written[j].insert(ik, i);
                }
                stats[which].count += 1;
            }
            _ => {
                // A written record to read around.
                let span = if workload.read_recent {
                    (put_next as u64 / 10).max(1)
                } else {
                    put_next as u64
                };
                let j = put_next - 1 - rng.below(span) as usize;
                let rec = &records[j];
                let regs_before = tables.main.regions();
                let reads_before = sum_reads(&regs_before);
                let idx_reads_before: u64 = tables
                    .indexes
                    .iter()
                    .map(|(_, t, _)| sum_reads(&t.regions()))
                    .sum();
                let blocks_before = db.metrics().data_blocks_read;
                // Engine time of the read: the lab's own bookkeeping is subtracted.
                let mut excluded = std::time::Duration::ZERO;
                let t0 = Instant::now();
                let (plan_name, touched_n, matched, expected) = match kind {
                    OpKind::Get => {
                        let key = &keys[j];
                        let r = tables.main.get(Get::new(key)).map_err(e)?;
                        br[bucket_of(key)] += 1;
                        let found = u64::from(!r.is_empty());
                        ("get".to_string(), 1, found, 1)
                    }
                    OpKind::PrefixScan { fields } | OpKind::TimeScan { fields, .. } => {
                        let range = match kind {
                            OpKind::TimeScan { field, span_ms, .. } => {
                                let t0 = rec[*field].as_int().unwrap_or(0);
                                Some((*field, t0, t0.saturating_add(*span_ms)))
                            }
                            _ => None,
                        };
                        let q = Query {
                            eq: fields.iter().map(|&f| (f, &rec[f])).collect(),
                            range,
                        };
                        let matches = |r: &[Value]| {
                            q.eq.iter().all(|(f, v)| &r[*f] == *v)
                                && q.range.is_none_or(|(f, lo, hi)| {
                                    r[f].as_int().is_some_and(|t| t >= lo && t < hi)
                                })
                        };
                        let te = Instant::now();
                        let expected =
                            written.values().filter(|&&i| matches(&records[i])).count() as u64;
                        excluded += te.elapsed();
                        let via = op
                            .via
                            .as_ref()
                            .and_then(|name| tables.indexes.iter().position(|(n, _, _)| n == name));
                        match via {
                            None => {
                                let plan = kd.plan(&q);
                                let tn = touched(&regs_before, &plan);
                                let mut m = 0;
                                for row in open_scan(&tables.main, &plan).map_err(e)? {
                                    let row = row.map_err(e)?;
                                    br[bucket_of(row.row())] += 1;
                                    if let Some(&i) = written.get(row.row())
                                        && matches(&records[i])
                                    {
                                        m += 1;
                                    }
                                }
                                (plan.kind.to_string(), tn, m, expected)
                            }
                            Some(x) => {
                                let (_, it, ikd) = &tables.indexes[x];
                                let plan = ikd.plan(&q);
                                let iregs = it.regions();
                                let mut tn = touched(&iregs, &plan);
                                let mut main_regions = std::collections::BTreeSet::new();
                                let mut m = 0;
                                let hits: Vec<Vec<u8>> = open_scan(it, &plan)
                                    .map_err(e)?
                                    .map(|r| r.map(|r| r.row().to_vec()))
                                    .collect::<cellbase::Result<_>>()
                                    .map_err(e)?;
                                for ik in hits {
                                    let Some(&i) = idx_written[x].get(&ik) else {
                                        continue;
                                    };
                                    if !matches(&records[i]) {
                                        continue;
                                    }
                                    let key = &keys[i];
                                    let r = tables.main.get(Get::new(key)).map_err(e)?;
                                    br[bucket_of(key)] += 1;
                                    main_regions.extend(overlapping(
                                        &regs_before,
                                        key,
                                        &super::key::prefix_stop(key),
                                    ));
                                    if !r.is_empty() {
                                        m += 1;
                                    }
                                }
                                tn += main_regions.len() as u64;
                                (
                                    format!("{} via index {}", plan.kind, tables.indexes[x].0),
                                    tn,
                                    m,
                                    expected,
                                )
                            }
                        }
                    }
                    OpKind::Put => ("put".to_string(), 0, 0, 0),
                };
                engine += t0.elapsed().saturating_sub(excluded);
                let idx_reads_after: u64 = tables
                    .indexes
                    .iter()
                    .map(|(_, t, _)| sum_reads(&t.regions()))
                    .sum();
                let examined = (sum_reads(&tables.main.regions()) - reads_before)
                    + idx_reads_after.saturating_sub(idx_reads_before);
                let blocks = db.metrics().data_blocks_read.saturating_sub(blocks_before);
                let s = &mut stats[which];
                s.plan = plan_name;
                s.count += 1;
                s.sums[0] += touched_n;
                s.max_regions_touched = s.max_regions_touched.max(touched_n);
                s.sums[1] += examined;
                s.sums[2] += matched;
                s.sums[3] += blocks;
                s.sums[4] += regs_before.len() as u64;
                s.missed += expected.saturating_sub(matched);
            }
        }
        op_no += 1;
        progress.set_position(op_no);
        if op_no.is_multiple_of(window_ops) || put_next == records.len() {
            // Close the window: counters first, then the engine's compaction and split check.
            for (j, (_, t, _)) in tables.indexes.iter().enumerate() {
                let regs = t.regions();
                let reads: Vec<u64> = regs
                    .iter()
                    .map(|r| {
                        let (_, pr) = prev_idx[j].get(&r.name).copied().unwrap_or((0, 0));
                        r.read_requests.saturating_sub(pr)
                    })
                    .collect();
                let total: u64 = reads.iter().sum();
                if total > 0 {
                    let share = reads.iter().copied().max().unwrap_or(0) as f64 / total as f64;
                    let acc = &mut idx_reads[j];
                    acc.0 += total;
                    acc.1 += share * total as f64;
                    acc.2 += share * regs.len() as f64 * total as f64;
                }
            }
            let regs = tables.main.regions();
            let mut cells = Vec::with_capacity(regs.len());
            let mut per_region = Vec::with_capacity(regs.len());
            for r in &regs {
                let (pw, pr) = prev.get(&r.name).copied().unwrap_or((0, 0));
                let w = r.write_requests.saturating_sub(pw);
                let rd = r.read_requests.saturating_sub(pr);
                per_region.push(w);
                cells.push(RegionCell {
                    y0: pos(&r.start_key),
                    y1: if r.end_key.is_empty() {
                        1.0
                    } else {
                        pos(&r.end_key)
                    },
                    writes: w,
                    reads: rd,
                });
            }
            let writes: u64 = per_region.iter().sum();
            let hottest = per_region.iter().copied().max().unwrap_or(0);
            let share = if writes == 0 {
                0.0
            } else {
                hottest as f64 / writes as f64
            };
            let reads: u64 = cells.iter().map(|c| c.reads).sum();
            let hottest_reads = cells.iter().map(|c| c.reads).max().unwrap_or(0);
            windows.push(Window {
                end_op: op_no,
                regions: regs.len(),
                writes,
                reads,
                hottest_share: share,
                hottest_ratio: share * regs.len() as f64,
                hottest_read_share: if reads == 0 {
                    0.0
                } else {
                    hottest_reads as f64 / reads as f64
                },
                gini: gini(&per_region),
                cells,
                bucket_writes: std::mem::replace(&mut bw, vec![0; buckets]),
                bucket_reads: std::mem::replace(&mut br, vec![0; buckets]),
            });
            let t0 = Instant::now();
            tables.main.compact().map_err(e)?;
            for row in tables.main.run_split_check().map_err(e)? {
                splits.push(SplitEvent {
                    window: windows.len() - 1,
                    op: op_no,
                    y: pos(&row),
                    row: rowkey::to_string_binary(&row),
                    regions_after: 0,
                });
            }
            for (j, (_, t, _)) in tables.indexes.iter().enumerate() {
                t.compact().map_err(e)?;
                t.run_split_check().map_err(e)?;
                prev_idx[j] = baseline(&t.regions());
            }
            engine += t0.elapsed();
            let now = tables.main.regions();
            for s in splits.iter_mut().filter(|s| s.regions_after == 0) {
                s.regions_after = now.len();
            }
            prev = baseline(&now);
        }
    }
    let wall = engine.as_secs_f64();

    for s in &mut stats {
        if s.count > 0 && s.plan.is_empty() {
            s.plan = "put".into();
        }
        let c = s.count.max(1) as f64;
        if s.plan != "put" {
            s.mean_regions_touched = s.sums[0] as f64 / c;
            s.mean_rows_examined = s.sums[1] as f64 / c;
            s.mean_rows_matched = s.sums[2] as f64 / c;
            s.mean_blocks_read = s.sums[3] as f64 / c;
            s.mean_regions_total = s.sums[4] as f64 / c;
        }
    }
    let final_regs = tables.main.regions();
    let wsum: u64 = windows.iter().map(|w| w.writes).sum();
    let wavg = |f: &dyn Fn(&Window) -> f64| -> f64 {
        if wsum == 0 {
            0.0
        } else {
            windows.iter().map(|w| f(w) * w.writes as f64).sum::<f64>() / wsum as f64
        }
    };
    let mut total_buckets = vec![0u64; buckets];
    for w in &windows {
        for (t, x) in total_buckets.iter_mut().zip(&w.bucket_writes) {
            *t += x;
        }
    }
    let rsum: u64 = windows.iter().map(|w| w.reads).sum();
    let ravg = |f: &dyn Fn(&Window) -> f64| -> f64 {
        if rsum == 0 {
            0.0
        } else {
            windows.iter().map(|w| f(w) * w.reads as f64).sum::<f64>() / rsum as f64
        }
    };
    let m = db.metrics();
    let summary = Summary {
        mean_hottest_read_share: ravg(&|w| w.hottest_read_share),
        mean_hottest_read_ratio: ravg(&|w| w.hottest_read_share * w.regions as f64),
        read_time_over_half: ravg(&|w| if w.hottest_read_share > 0.5 { 1.0 } else { 0.0 }),
        reads: rsum,
        index_reads: tables
            .indexes
            .iter()
            .zip(&idx_reads)
            .map(|((name, _, _), &(n, sh, ra))| IndexReads {
                name: name.clone(),
                reads: n,
                mean_hottest_read_share: if n == 0 { 0.0 } else { sh / n as f64 },
                mean_hottest_read_ratio: if n == 0 { 0.0 } else { ra / n as f64 },
            })
            .collect(),
        mean_hottest_share: wavg(&|w| w.hottest_share),
        mean_hottest_ratio: wavg(&|w| w.hottest_ratio),
        max_hottest_ratio: windows.iter().map(|w| w.hottest_ratio).fold(0.0, f64::max),
        mean_gini: wavg(&|w| w.gini),
        time_over_half: wavg(&|w| if w.hottest_share > 0.5 { 1.0 } else { 0.0 }),
        key_bucket_gini: gini(&total_buckets),
        splits: splits.len(),
        initial_regions,
        final_regions: final_regs.len(),
        ops: op_no,
        puts: put_next as u64,
        wall_secs: wall,
        ops_per_sec: if wall > 0.0 { op_no as f64 / wall } else { 0.0 },
        logical_bytes: logical,
        stored_bytes: final_regs
            .iter()
            .map(|r| r.store_file_bytes + r.memstore_bytes)
            .sum(),
        store_files: m.store_files,
    };
    let mut result = RunResult {
        design: design.name.clone(),
        description: design.description.clone(),
        file: design.path.display().to_string(),
        seed,
        rowkey: design.key_text.clone(),
        example_keys: keys
            .iter()
            .take(3)
            .map(|k| rowkey::to_string_binary(k))
            .collect(),
        pre_split: design.table.pre_split.clone(),
        max_region_size: design.table.max_region_size,
        memstore_flush_size: design.table.memstore_flush_size,
        records: n,
        window_ops,
        summary,
        queries: stats.into_iter().filter(|s| s.count > 0).collect(),
        splits,
        regions: region_rows(&final_regs),
        index_regions: tables
            .indexes
            .iter()
            .map(|(n, t, _)| (n.clone(), region_rows(&t.regions())))
            .collect(),
        windows,
        bucket_starts,
        findings: Vec::new(),
    };
    result.findings = findings(&result);
    drop(tables);
    db.close().map_err(e)?;
    Ok(result)
}

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// Findings: sentences built from the measured numbers (nothing canned: every claim is a
/// comparison of numbers of this run).
pub fn findings(r: &RunResult) -> Vec<String> {
    let s = &r.summary;
    let mut f = Vec::new();
    if s.time_over_half >= 0.5 {
        f.push(format!(
            "Hot spot: one region took over half of the writes during {} of the run; on average the hottest region took {} of each window's writes ({:.1}x its fair share).",
            pct(s.time_over_half),
            pct(s.mean_hottest_share),
            s.mean_hottest_ratio
        ));
    } else {
        f.push(format!(
            "Writes spread: the hottest region took {} of a window's writes on average, {:.1}x its fair share (worst window {:.1}x); one region held a majority during {} of the run.",
            pct(s.mean_hottest_share),
            s.mean_hottest_ratio,
            s.max_hottest_ratio,
            pct(s.time_over_half)
        ));
    }
    // Read skew, with the same prominence as write skew (seeds 002 and 003 warn of read hot
    // spots): 2x the fair share on average, or one region serving a majority for half the run.
    if s.reads > 0 {
        if s.mean_hottest_read_ratio >= 2.0 || s.read_time_over_half >= 0.5 {
            f.push(format!(
                "Read hot spot: the hottest region served {} of a window's reads on average, {:.1}x its fair share; one region served a majority of reads during {} of the run.",
                pct(s.mean_hottest_read_share),
                s.mean_hottest_read_ratio,
                pct(s.read_time_over_half)
            ));
        } else {
            f.push(format!(
                "Reads spread: the hottest region served {} of a window's reads on average, {:.1}x its fair share; one region served a majority during {} of the run.",
                pct(s.mean_hottest_read_share),
                s.mean_hottest_read_ratio,
                pct(s.read_time_over_half)
            ));
        }
    }
    for ix in s.index_reads.iter().filter(|ix| ix.reads > 0) {
        let kind = if ix.mean_hottest_read_ratio >= 2.0 {
            "Read hot spot in index"
        } else {
            "Reads spread in index"
        };
        f.push(format!(
            "{kind} {}: the hottest index region served {} of a window's index reads on average, {:.1}x its fair share.",
            ix.name,
            pct(ix.mean_hottest_read_share),
            ix.mean_hottest_read_ratio
        ));
    }
    f.push(format!(
        "Gini of writes across regions: {:.2} per window on average (0 = even, 1 = one region takes all).",
        s.mean_gini
    ));
    if s.splits > 0 {
        let last = r.splits.last().map_or(0, |x| x.op);
        f.push(format!(
            "The engine split {} time(s), from {} to {} regions; the last split came at operation {} of {}.",
            s.splits, s.initial_regions, s.final_regions, last, s.ops
        ));
    } else {
        f.push(format!(
            "No region reached the split threshold; the table kept its {} region(s).",
            s.final_regions
        ));
    }
    for q in &r.queries {
        if q.plan == "put" || q.count == 0 {
            continue;
        }
        let all = q.mean_regions_total;
        let frac = if all > 0.0 {
            q.mean_regions_touched / all
        } else {
            0.0
        };
        let what = if frac >= 0.99 && all > 1.0 {
            "every region"
        } else if q.mean_regions_touched <= 1.5 {
            "about one region"
        } else {
            "several regions"
        };
        f.push(format!(
            "{} ({}) touched {} ({:.1} of {:.1} on average) and the engine read {:.1} rows to return {:.1} matching ones{}.",
            q.name,
            q.plan,
            what,
            q.mean_regions_touched,
            all,
            q.mean_rows_examined,
            q.mean_rows_matched,
            if q.missed > 0 {
                format!("; {} matching rows were NOT returned", q.missed)
            } else {
                String::new()
            }
        ));
    }
    f
}
