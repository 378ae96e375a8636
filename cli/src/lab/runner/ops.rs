//! The operations of the mix, run part by part: puts (with their index rows), Gets, prefix
//! and time scans (directly or through an index table).

use super::State;
use super::parts::{OpParts, Runner, multi_get};
use crate::lab::design::OpKind;
use crate::lab::key::Query;
use crate::lab::records::Value;
use cellbase::{Put, Result};

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
        let bytes = (key.len() + self.value_filler.len()) as u64;
        let main = &mut self.tables[0];
        let p = r.put(
            &main.table,
            &main.regs,
            key,
            Put::new(key).add(&self.family, b"v", &self.value_filler),
            bytes,
        )?;
        parts.stages.push(vec![vec![p]]);
        self.logical += bytes;
        main.written.insert(key.clone(), i);
        self.bw[self.ks.bucket_of(key)] += 1;
        // Index rows: the client writes them after the main row.
        for (x, kd) in self.idx_keys.iter().enumerate() {
            let ik = kd.encode(&self.records[i]);
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
        let ks = &self.ks;
        let br = &mut self.br;
        let (plan_name, matched, expected) = match &op.kind {
            OpKind::Get | OpKind::Put => {
                let key = &self.keys[j];
                let (p, found) = r.get(&self.tables[0].table, &regs, key)?;
                parts.stages.push(vec![vec![p]]);
                br[ks.bucket_of(key)] += 1;
                self.tables[0].rec_reads[j] += 1;
                ("get".to_string(), u64::from(found), 1)
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
                let expected = self.tables[0]
                    .written
                    .values()
                    .filter(|&&i| matches(&records[i]))
                    .count() as u64;
                let via = op
                    .via
                    .as_ref()
                    .and_then(|name| self.design.indexes.iter().position(|ix| &ix.name == name));
                match via {
                    None => {
                        let plan = self.kd.plan(&q);
                        let main = &mut self.tables[0];
                        let mut m = 0;
                        let stage = r.scan(&main.table, &regs, &plan, &mut |row| {
                            br[ks.bucket_of(row)] += 1;
                            if let Some(&i) = main.written.get(row) {
                                main.rec_reads[i] += 1;
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
                            if let Some(&i) = it.written.get(row) {
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
        s.missed += expected.saturating_sub(matched);
        self.proj.record(which, &parts);
        Ok(())
    }
}
