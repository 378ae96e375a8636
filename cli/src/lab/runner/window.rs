//! Closing a sampling window: the region counters of the window (per region, per server, per
//! index table), then the engine's compaction and split check, then the cluster's assignment
//! of the new regions and its balancer.

use super::{RegionCell, SplitEvent, State, Window, baseline, gini, refs};
use cellbase::{Result, rowkey};

impl State<'_> {
    /// Closes the window that ends at the current operation.
    pub(super) fn close_window(&mut self) -> Result<()> {
        let servers = self.cluster.servers();
        let mut server_writes = vec![0u64; servers];
        let mut server_reads = vec![0u64; servers];
        let mut cells = Vec::new();
        let mut per_region = Vec::new();
        let mut main_regions = 0;
        for (ti, lt) in self.tables.iter().enumerate() {
            let regs = lt.table.regions();
            let mut reads = Vec::with_capacity(regs.len());
            for r in &regs {
                let (pw, pr) = lt.prev.get(&r.name).copied().unwrap_or((0, 0));
                let w = r.write_requests.saturating_sub(pw);
                let rd = r.read_requests.saturating_sub(pr);
                reads.push(rd);
                if let Some(s) = self.cluster.server_of(&r.name) {
                    server_writes[s] += w;
                    server_reads[s] += rd;
                }
                if ti == 0 {
                    per_region.push(w);
                    cells.push(RegionCell {
                        y0: self.ks.pos(&r.start_key),
                        y1: if r.end_key.is_empty() {
                            1.0
                        } else {
                            self.ks.pos(&r.end_key)
                        },
                        writes: w,
                        reads: rd,
                    });
                }
            }
            if ti == 0 {
                main_regions = regs.len();
            } else {
                let total: u64 = reads.iter().sum();
                if total > 0 {
                    let share = reads.iter().copied().max().unwrap_or(0) as f64 / total as f64;
                    let acc = &mut self.idx_reads[ti - 1];
                    acc.0 += total;
                    acc.1 += share * total as f64;
                    acc.2 += share * regs.len() as f64 * total as f64;
                }
            }
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
        // The engine's compaction and split check, timed as engine work; their work and the
        // window's flushes are charged to the servers (docs/LAB.md "Projection").
        let m0 = self.db.metrics();
        let t0 = std::time::Instant::now();
        let main = &self.tables[0].table;
        main.compact()?;
        let rows = main.run_split_check()?;
        let mut split_servers = Vec::new();
        for row in &rows {
            let regs = &self.tables[0].regs;
            split_servers.push(&regs[super::parts::region_of(regs, row)].name);
        }
        for lt in &self.tables[1..] {
            lt.table.compact()?;
            for row in lt.table.run_split_check()? {
                split_servers.push(&lt.regs[super::parts::region_of(&lt.regs, &row)].name);
            }
        }
        self.engine += t0.elapsed();
        let m1 = self.db.metrics();
        let model = *self.proj.model();
        let flushed = m0.flushed_bytes.saturating_sub(self.flushed_before);
        self.flushed_before = m0.flushed_bytes;
        let compacted = m1
            .compaction_input_bytes
            .saturating_sub(m0.compaction_input_bytes);
        let background =
            flushed as f64 * model.flush_byte_ms + compacted as f64 * model.compaction_byte_ms;
        let all_writes: u64 = server_writes.iter().sum();
        if all_writes > 0 {
            for (s, &w) in server_writes.iter().enumerate() {
                self.proj
                    .charge(s, background * w as f64 / all_writes as f64);
            }
        }
        let split_on: Vec<usize> = split_servers
            .iter()
            .map(|n| self.cluster.server_of(n).unwrap_or(0))
            .collect();
        for s in split_on {
            self.proj.charge(s, model.split_ms);
        }
        let buckets = self.ks.buckets;
        self.windows.push(Window {
            end_op: self.op_no,
            regions: main_regions,
            writes,
            reads,
            hottest_share: share,
            hottest_ratio: share * main_regions as f64,
            hottest_read_share: if reads == 0 {
                0.0
            } else {
                hottest_reads as f64 / reads as f64
            },
            gini: gini(&per_region),
            cells,
            bucket_writes: std::mem::replace(&mut self.bw, vec![0; buckets]),
            bucket_reads: std::mem::replace(&mut self.br, vec![0; buckets]),
            server_writes,
            server_reads,
            server_busy_ms: self.proj.close_window(),
            server_regions: self.cluster.region_counts(),
        });
        for row in rows {
            self.splits.push(SplitEvent {
                window: self.windows.len() - 1,
                op: self.op_no,
                y: self.ks.pos(&row),
                row: rowkey::to_string_binary(&row),
                regions_after: 0,
            });
        }
        // New regions open where HBase opens them; the balancer runs when due.
        let mut all = Vec::new();
        for lt in &mut self.tables {
            lt.regs = lt.table.regions();
            lt.prev = baseline(&lt.regs);
            all.extend(refs(&lt.name, &lt.regs));
        }
        self.cluster.observe(&all);
        self.cluster.end_window(self.windows.len() as u64);
        let now = self.tables[0].regs.len();
        for s in self.splits.iter_mut().filter(|s| s.regions_after == 0) {
            s.regions_after = now;
        }
        Ok(())
    }
}
