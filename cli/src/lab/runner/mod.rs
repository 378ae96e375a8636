//! Runs a design's workload through a real cellbase table and measures it.
//!
//! The database runs without background threads: a write that fills a memstore flushes it
//! inline, and at the end of every sampling window the lab reads the per-region request
//! counters (`Table::regions`), then runs the engine's minor compaction and automatic split
//! check (`Table::compact`, `Table::run_split_check`). Splits therefore happen only at window
//! boundaries, after the window's counters were read, so every write of a window is counted in
//! the region that took it, and the run is reproducible from its seed.
//!
//! `result` holds what a run measured (the serialized result), `regions` the per-region
//! helpers (region table rows, the regions a read plan touches) and `findings` the sentences
//! built from the numbers; this module runs the workload.

mod findings;
mod regions;
mod result;

pub use findings::findings;
pub use result::{
    IndexReads, KEY_BUCKETS, QueryStats, RegionCell, RegionRow, RunResult, SplitEvent, Summary,
    Window, gini,
};

use super::design::{Design, OpKind, Workload};
use super::key::{KeyDesign, Plan, Query};
use super::records::{Rng, Value};
use cellbase::{
    Db, DbOptions, Durability, FamilyDescriptor, Filter, Get, ManualClock, Put, RegionInfo, Scan,
    Table, TableDescriptor, rowkey,
};
use indicatif::ProgressBar;
use regions::{overlapping, region_rows, sum_reads, touched};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Instant;

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
                                        &crate::lab::key::prefix_stop(key),
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
