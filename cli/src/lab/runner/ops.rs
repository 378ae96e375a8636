//! The operations of the mix, run part by part: puts (with their index rows), Gets, prefix
//! and time scans (directly or through an index table). The operations the seeds teach with
//! (`latest_n`, `get_missing`, `delete`, Gets under a random salt) are in `seed_ops`.

use super::parts::{OpParts, Runner, multi_get};
use super::{State, seed_ops};
use crate::lab::design::OpKind;
use crate::lab::key::Query;
use crate::lab::records::Value;
use cellbase::{Clock, Put, Result};

impl State<'_> {
    /// Puts the next record (and its index rows) as operation `which`.
    pub(super) fn put(&mut self, which: usize) -> Result<()> {
        let i = self.put_next;
        self.put_next += 1;
        let key = &self.keys[i];
        let mut parts = OpParts::default();
        let mut r = Runner {
            db: &self.db,
            cluster: &self.cluster,
            engine: std::time::Duration::ZERO,
        };
        let bytes = ((key.len() + self.value_filler.len()) * self.put_families.len()) as u64;
        let main = &mut self.tables[0];
        let mut put = Put::new(key);
        for f in &self.put_families {
            put = put.add(f, &self.quals[i], &self.value_filler);
        }
        let p = r.put(&main.table, &main.regs, key, put, bytes)?;
        parts.stages.push(vec![vec![p]]);
        self.logical += bytes;
        // Each cell repeats the rowkey, family and qualifier, plus 20 fixed bytes (row and
        // family lengths, timestamp, type, sequence id).
        let (cells, keys, overhead, values) = &mut self.cell_bytes;
        *keys += key.len() as u64;
        for f in &self.put_families {
            *cells += 1;
            *overhead += (key.len() + f.len() + self.quals[i].len() + 20) as u64;
            *values += self.value_filler.len() as u64;
        }
        main.written.insert(key.clone(), i);
        self.cells
            .put(key, &self.quals[i], i, self.clock.now_millis());
        self.bw[self.ks.bucket_of(key)] += 1;
        // Index rows: the client writes them after the main row.
        for (x, kd) in self.idx_keys.iter().enumerate() {
            let ik = kd.encode_nth(&self.records[i], i as u64);
            let bytes = (ik.len() + key.len()) as u64;
            let lt = &mut self.tables[1 + x];
            let p = r.put(
                &lt.table,
                &lt.regs,
                &ik,
                Put::new(&ik).add(b"i", b"k", key),
                bytes,
            )?;
            parts.stages.push(vec![vec![p]]);
            self.logical += bytes;
            lt.written.insert(ik, i);
        }
        self.engine += r.engine;
        self.stats[which].count += 1;
        self.proj.record(which, &parts);
        Ok(())
    }

    /// Runs read operation `which` around written record `j`.
    pub(super) fn read(&mut self, which: usize, j: usize) -> Result<()> {
        let op = &self.workload.ops[which];
        let records = self.records;
        let rec = &records[j];
        let regs = self.tables[0].table.regions();
        let reads_before: Vec<u64> = self
            .tables
            .iter()
            .map(|t| super::regions::sum_reads(&t.table.regions()))
            .collect();
        let mut r = Runner {
            db: &self.db,
            cluster: &self.cluster,
            engine: std::time::Duration::ZERO,
        };
        let mut parts = OpParts::default();
        let now = self.clock.now_millis();
        let mut probes = 1;
        let ks = &self.ks;
        let br = &mut self.br;
        let (plan_name, matched, expected) = match &op.kind {
            OpKind::Get | OpKind::Put | OpKind::Delete => {
                let key = &self.keys[j];
                let qual = self
                    .design
                    .qualifier
                    .as_ref()
                    .map(|_| self.quals[j].as_slice());
                let column = qual.map(|q| (self.family.as_slice(), q));
                let (stage, found, plan) =
                    seed_ops::get(&mut r, &self.tables[0].table, &regs, &self.kd, key, column)?;
                probes = stage.iter().map(Vec::len).sum::<usize>() as u64;
                parts.stages.push(stage);
                br[ks.bucket_of(key)] += 1;
                self.tables[0].rec_reads[j] += 1;
                let expected = u64::from(self.cells.has(key, &self.quals[j], now));
                (plan, u64::from(found).min(expected), expected)
            }
            OpKind::GetMissing => {
                let qual = self.quals[j].as_slice();
                let cells = &self.cells;
                let k = seed_ops::missing_key(&self.keys[j], j as u64 ^ self.op_no << 32, |k| {
                    cells.has(k, qual, i64::MIN)
                });
                let column = self
                    .design
                    .qualifier
                    .as_ref()
                    .map(|_| (self.family.as_slice(), qual));
                let (stage, found, plan) =
                    seed_ops::get(&mut r, &self.tables[0].table, &regs, &self.kd, &k, column)?;
                br[ks.bucket_of(&k)] += 1;
                let plan = format!(
                    "{} (Bloom {})",
                    plan.replacen("get", "get missing", 1),
                    self.design.table.families[0].bloom_filter.hbase_name()
                );
                probes = stage.iter().map(Vec::len).sum::<usize>() as u64;
                parts.stages.push(stage);
                // Nothing may come back: a row found counts as missed.
                (plan, 0, u64::from(found))
            }
            OpKind::LatestN { fields, by, n } => {
                let q = Query {
                    eq: fields.iter().map(|&f| (f, &rec[f])).collect(),
                    range: None,
                };
                let live: Vec<usize> = self
                    .cells
                    .live_records(now)
                    .filter(|&i| q.eq.iter().all(|(f, v)| &records[i][*f] == *v))
                    .collect();
                let cells = &self.cells;
                let target = seed_ops::Target {
                    table: &self.tables[0].table,
                    regions: &regs,
                    key: &self.kd,
                };
                let mut on_row = |row: &cellbase::RowResult| {
                    br[ks.bucket_of(row.row())] += 1;
                };
                let (stage, matched, expected, plan) = seed_ops::latest_n(
                    &mut r,
                    &target,
                    &q,
                    (fields, *by, *n),
                    records,
                    &live,
                    &|row| cells.records_in(row),
                    &mut on_row,
                )?;
                probes = stage.len() as u64;
                parts.stages.push(stage);
                (plan, matched, expected)
            }
            OpKind::PrefixScan { fields } | OpKind::TimeScan { fields, .. } => {
                let range = match &op.kind {
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
                let expected = self
                    .cells
                    .live_records(now)
                    .filter(|&i| matches(&records[i]))
                    .count() as u64;
                let via = op
                    .via
                    .as_ref()
                    .and_then(|name| self.design.indexes.iter().position(|ix| &ix.name == name));
                match via {
                    None => {
                        let plan = self.kd.plan(&q);
                        probes = plan.salted.map_or(1, u64::from);
                        let main = &mut self.tables[0];
                        let cells = &self.cells;
                        let mut m = 0;
                        let stage = r.scan(&main.table, &regs, &plan, &mut |row| {
                            br[ks.bucket_of(row.row())] += 1;
                            if let Some(&i) = main.written.get(row.row()) {
                                main.rec_reads[i] += 1;
                            }
                            // Each record whose cell the row returned (several in a wide row).
                            for i in cells.records_in(row) {
                                if matches(&records[i]) {
                                    m += 1;
                                }
                            }
                        })?;
                        parts.stages.push(stage);
                        (plan.kind.to_string(), m, expected)
                    }
                    Some(x) => {
                        let plan = self.idx_keys[x].plan(&q);
                        let (head, rest) = self.tables.split_at_mut(1);
                        let (main, it) = (&mut head[0], &mut rest[x]);
                        let iregs = it.table.regions();
                        let mut hits = Vec::new();
                        let stage = r.scan(&it.table, &iregs, &plan, &mut |row| {
                            if let Some(&i) = it.written.get(row.row()) {
                                it.rec_reads[i] += 1;
                                hits.push(i);
                            }
                        })?;
                        parts.stages.push(stage);
                        // Then one Get per matching index row, batched per server.
                        let mut gets = Vec::new();
                        let mut m = 0;
                        for i in hits {
                            if !matches(&records[i]) {
                                continue;
                            }
                            let key = &self.keys[i];
                            let (p, found) = r.get(&main.table, &regs, key)?;
                            gets.push(p);
                            br[ks.bucket_of(key)] += 1;
                            main.rec_reads[i] += 1;
                            m += u64::from(found);
                        }
                        if !gets.is_empty() {
                            parts.stages.push(multi_get(gets));
                        }
                        (format!("{} via index {}", plan.kind, it.name), m, expected)
                    }
                }
            }
        };
        self.engine += r.engine;
        let examined: u64 = self
            .tables
            .iter()
            .zip(&reads_before)
            .map(|(t, b)| super::regions::sum_reads(&t.table.regions()).saturating_sub(*b))
            .sum();
        let touched: std::collections::BTreeSet<&str> =
            parts.parts().map(|p| p.region.as_str()).collect();
        let s = &mut self.stats[which];
        s.plan = plan_name;
        s.count += 1;
        s.sums[0] += touched.len() as u64;
        s.max_regions_touched = s.max_regions_touched.max(touched.len() as u64);
        s.sums[1] += examined;
        s.sums[2] += matched;
        s.sums[3] += parts.parts().map(|p| p.blocks).sum::<u64>();
        s.sums[4] += regs.len() as u64;
        s.sums[5] += parts.parts().filter(|p| p.memstore).count() as u64;
        s.sums[6] += probes;
        s.missed += expected.saturating_sub(matched);
        self.proj.record(which, &parts);
        Ok(())
    }
}
