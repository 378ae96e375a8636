//! Summing a run up: per-query means, the summary, the cluster's numbers and the projection,
//! the final region tables with their whole-run writes and reads by key range, the findings.

use super::projection::top_share;
use super::regions::region_rows;
use super::{
    ClusterSummary, IndexReads, KeyFacts, LabTable, RegionRow, RunResult, State, Summary, Window,
};
use crate::lab::key::{Enc, Part};
use cellbase::{Result, rowkey};

/// Mean of `f` over `windows`, weighted by `weight`.
fn weighted(
    windows: &[Window],
    weight: &dyn Fn(&Window) -> f64,
    f: &dyn Fn(&Window) -> f64,
) -> f64 {
    let total: f64 = windows.iter().map(weight).sum();
    if total <= 0.0 {
        0.0
    } else {
        windows.iter().map(|w| f(w) * weight(w)).sum::<f64>() / total
    }
}

/// Share of the windows with some `weight` for which `f` holds.
fn share_of_windows(
    windows: &[Window],
    weight: &dyn Fn(&Window) -> f64,
    f: &dyn Fn(&Window) -> bool,
) -> f64 {
    let with: Vec<&Window> = windows.iter().filter(|w| weight(w) > 0.0).collect();
    if with.is_empty() {
        0.0
    } else {
        with.iter().filter(|w| f(w)).count() as f64 / with.len() as f64
    }
}

fn shares(v: &[u64]) -> f64 {
    top_share(&v.iter().map(|&x| x as f64).collect::<Vec<_>>())
}

/// The final regions of `lt` with their whole-run writes and reads counted by key.
fn final_rows(
    lt: &LabTable,
    keys: &dyn Fn(usize) -> Vec<u8>,
    c: &crate::lab::cluster::Cluster,
    pos: &dyn Fn(&[u8]) -> f64,
) -> Vec<RegionRow> {
    let mut by_key: Vec<(Vec<u8>, u64)> = lt
        .written
        .values()
        .map(|&i| (keys(i), lt.rec_reads[i]))
        .collect();
    by_key.sort();
    let mut prefix = Vec::with_capacity(by_key.len() + 1);
    prefix.push(0u64);
    for (_, r) in &by_key {
        prefix.push(prefix.last().copied().unwrap_or(0) + r);
    }
    let regs = lt.table.regions();
    let mut rows = region_rows(&regs);
    for (row, r) in rows.iter_mut().zip(&regs) {
        let lo = by_key.partition_point(|(k, _)| k.as_slice() < r.start_key.as_slice());
        let hi = if r.end_key.is_empty() {
            by_key.len()
        } else {
            by_key.partition_point(|(k, _)| k.as_slice() < r.end_key.as_slice())
        };
        row.range_writes = (hi - lo) as u64;
        row.range_reads = prefix[hi] - prefix[lo];
        row.server = c.server_of(&r.name).unwrap_or(0);
        row.y = pos(&r.start_key);
    }
    rows
}

impl State<'_> {
    /// The run's result.
    pub(super) fn finish(mut self) -> Result<RunResult> {
        let wall = self.engine.as_secs_f64();
        let key_facts = key_facts(&self);
        for s in &mut self.stats {
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
                s.mean_memstore_reads = s.sums[5] as f64 / c;
                s.mean_probes = s.sums[6] as f64 / c;
            }
        }
        let ws = &self.windows;
        let by_writes = |w: &Window| w.writes as f64;
        let by_reads = |w: &Window| w.reads as f64;
        let rsum: u64 = ws.iter().map(|w| w.reads).sum();
        let final_regs = self.tables[0].table.regions();
        let m = self.db.metrics();
        let summary = Summary {
            mean_hottest_read_share: weighted(ws, &by_reads, &|w| w.hottest_read_share),
            mean_hottest_read_ratio: weighted(ws, &by_reads, &|w| {
                w.hottest_read_share * w.regions as f64
            }),
            read_time_over_half: weighted(ws, &by_reads, &|w| {
                f64::from(u8::from(w.hottest_read_share > 0.5))
            }),
            reads: rsum,
            index_reads: self.tables[1..]
                .iter()
                .zip(&self.idx_reads)
                .map(|(lt, &(n, sh, ra))| IndexReads {
                    name: lt.name.clone(),
                    reads: n,
                    mean_hottest_read_share: if n == 0 { 0.0 } else { sh / n as f64 },
                    mean_hottest_read_ratio: if n == 0 { 0.0 } else { ra / n as f64 },
                })
                .collect(),
            mean_hottest_share: weighted(ws, &by_writes, &|w| w.hottest_share),
            mean_hottest_ratio: weighted(ws, &by_writes, &|w| w.hottest_ratio),
            max_hottest_ratio: ws.iter().map(|w| w.hottest_ratio).fold(0.0, f64::max),
            mean_gini: weighted(ws, &by_writes, &|w| w.gini),
            time_over_half: weighted(ws, &by_writes, &|w| {
                f64::from(u8::from(w.hottest_share > 0.5))
            }),
            splits: self.splits.len(),
            initial_regions: self.initial_regions,
            final_regions: final_regs.len(),
            ops: self.op_no,
            puts: self.put_next as u64,
            wall_secs: wall,
            ops_per_sec: if wall > 0.0 {
                self.op_no as f64 / wall
            } else {
                0.0
            },
            logical_bytes: self.logical,
            stored_bytes: final_regs
                .iter()
                .map(|r| r.store_file_bytes + r.memstore_bytes)
                .sum(),
            store_files: m.store_files,
        };

        // The cluster.
        let n = self.cluster.servers();
        let fair2 = 2.0 / n as f64;
        let mut cluster = ClusterSummary {
            servers: n,
            balance_every: self.design.cluster.balance_every,
            balancer_moves: self.cluster.moves(),
            hottest_server_write_share: weighted(ws, &by_writes, &|w| shares(&w.server_writes)),
            hottest_server_read_share: weighted(
                ws,
                &|w| w.server_reads.iter().sum::<u64>() as f64,
                &|w| shares(&w.server_reads),
            ),
            hottest_server_busy_share: weighted(
                ws,
                &|w| w.server_busy_ms.iter().sum::<f64>(),
                &|w| top_share(&w.server_busy_ms),
            ),
            time_server_over_2x_writes: share_of_windows(ws, &by_writes, &|w| {
                n > 1 && shares(&w.server_writes) > fair2
            }),
            time_server_over_2x_reads: share_of_windows(
                ws,
                &|w| w.server_reads.iter().sum::<u64>() as f64,
                &|w| n > 1 && shares(&w.server_reads) > fair2,
            ),
            time_server_over_half_writes: share_of_windows(ws, &by_writes, &|w| {
                shares(&w.server_writes) > 0.5
            }),
            server_writes: (0..n)
                .map(|s| ws.iter().map(|w| w.server_writes[s]).sum())
                .collect(),
            server_reads: (0..n)
                .map(|s| ws.iter().map(|w| w.server_reads[s]).sum())
                .collect(),
            final_regions_per_server: self.cluster.region_counts(),
            ..ClusterSummary::default()
        };
        let names: Vec<String> = self.stats.iter().map(|s| s.name.clone()).collect();
        self.proj.finish(&names, self.op_no, &mut cluster);

        let keys = &self.keys;
        let records = self.records;
        let ks = &self.ks;
        let regions = final_rows(&self.tables[0], &|i| keys[i].clone(), &self.cluster, &|k| {
            ks.pos(k)
        });
        let index_regions = self.tables[1..]
            .iter()
            .zip(&self.idx_keys)
            .map(|(lt, kd)| {
                (
                    lt.name.clone(),
                    final_rows(lt, &|i| kd.encode(&records[i]), &self.cluster, &|_| 0.0),
                )
            })
            .collect();
        let mut result = RunResult {
            design: self.design.name.clone(),
            description: self.design.description.clone(),
            file: self.design.path.display().to_string(),
            seed: self.design.seed,
            rowkey: self.design.key_text.clone(),
            example_keys: self
                .keys
                .iter()
                .take(3)
                .map(|k| rowkey::to_string_binary(k))
                .collect(),
            pre_split: self.design.table.pre_split.clone(),
            max_region_size: self.design.table.max_region_size,
            memstore_flush_size: self.design.table.memstore_flush_size,
            records: self.records.len() as u64,
            window_ops: self.window_ops,
            summary,
            queries: std::mem::take(&mut self.stats)
                .into_iter()
                .filter(|s| s.count > 0)
                .collect(),
            splits: std::mem::take(&mut self.splits),
            regions,
            index_regions,
            windows: std::mem::take(&mut self.windows),
            bucket_starts: {
                let mut b = vec![rowkey::to_string_binary(
                    self.ks.sorted.first().map_or(&[][..], |v| v),
                )];
                b.extend(self.ks.bounds.iter().map(|b| rowkey::to_string_binary(b)));
                b
            },
            cluster,
            findings: Vec::new(),
            next_steps: Vec::new(),
            key_facts,
            row_shape: super::RowShape {
                rows: self.ks.sorted.len() as u64,
                cells: self
                    .keys
                    .iter()
                    .zip(&self.quals)
                    .collect::<std::collections::HashSet<_>>()
                    .len() as u64,
                families: self.put_families.len(),
            },
        };
        result.findings = super::findings(&result);
        result.findings.extend(super::lessons(&result));
        result.next_steps = super::next_steps(&result);
        let db = self.db;
        drop(self.tables);
        db.close()?;
        Ok(result)
    }
}

/// What the suggestions need to know of the rowkey.
fn key_facts(st: &State<'_>) -> KeyFacts {
    let first = st.design.key.parts.first();
    let monotonic_lead = match first {
        Some(Part::Field { field, .. }) | Some(Part::TimeBucket { field, .. }) => {
            let vals: Vec<i64> = st
                .records
                .iter()
                .filter_map(|r| r[*field].as_int())
                .collect();
            (vals.len() == st.records.len()
                && vals.len() > 1
                && vals.windows(2).all(|w| w[0] <= w[1]))
            .then(|| st.design.fields[*field].name.clone())
        }
        _ => None,
    };
    let (cells, key_bytes, overhead, values) = st.cell_bytes;
    KeyFacts {
        monotonic_lead,
        salt_buckets: st.kd.leading_salt(),
        hashed: matches!(first, Some(Part::Hash { .. })),
        read_recent: st.workload.read_recent,
        pre_split_regions: st.initial_regions,
        mean_key_len: key_bytes as f64 / (st.put_next as f64).max(1.0),
        cell_overhead_share: if overhead + values > 0 {
            overhead as f64 / (overhead + values) as f64
        } else {
            0.0
        },
        value_len: values as f64 / cells.max(1) as f64,
        decimal_text_fields: decimal_text_fields(st),
    }
}

/// Key fields written as decimal text (`Str` or zero-padded `Decimal`) whose values are all
/// integers, with the mean bytes per key a fixed-width binary integer would save (seed 004: a
/// long takes 8 bytes as binary, 10 or more as text).
fn decimal_text_fields(st: &State<'_>) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for p in &st.design.key.parts {
        let Part::Field { field, enc } = p else {
            continue;
        };
        if !matches!(enc, Enc::Str | Enc::Decimal(_)) || st.records.is_empty() {
            continue;
        }
        let ints: Option<Vec<i64>> = st.records.iter().map(|r| r[*field].as_int()).collect();
        let Some(ints) = ints else { continue };
        let width = if ints.iter().all(|&v| (0..=i64::from(u32::MAX)).contains(&v)) {
            4.0
        } else {
            8.0
        };
        let text: f64 = ints
            .iter()
            .map(|v| match enc {
                Enc::Decimal(n) => (*n).max(v.to_string().len()) as f64,
                _ => v.to_string().len() as f64,
            })
            .sum::<f64>()
            / ints.len() as f64;
        if text > width {
            out.push((st.design.fields[*field].name.clone(), text - width));
        }
    }
    out
}
