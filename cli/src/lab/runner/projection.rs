//! The projection: what a design's operations would cost on the simulated cluster.
//!
//! Deterministic by construction: an operation's cost is computed from the work the engine
//! counted for each of its region parts (`parts`), with the constants of [`CostModel`], never
//! from wall-clock time, so the same seed gives the same projection. Each server serves one
//! part at a time; servers work in parallel. Per window the busiest server's busy time bounds
//! how fast the window's operations could run (the mix is fixed, so the other servers wait for
//! it): the projected run time is the sum over windows of the busiest server's busy time, and
//! the projected rate is operations over that time. An operation's projected latency is its
//! unloaded service time: stages one after another, the slowest lane of each stage, each part
//! costing its server time plus `rpc_ms` when it starts an RPC. docs/LAB.md gives the model.

use super::parts::{OpParts, Part};
use serde::Serialize;

/// Cost constants of the projection, in milliseconds (docs/LAB.md "Projection" gives where
/// they come from: a least-squares fit of the engine's measured time per part on the example
/// designs, release build, rounded).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CostModel {
    /// A put: the memstore insert (flushes and compactions are charged separately).
    pub put_ms: f64,
    /// Per byte of a put's key and value.
    pub put_byte_ms: f64,
    /// A read of one region part: the RPC's handling on the server, opening the scanner or
    /// the Get's lookup.
    pub read_part_ms: f64,
    /// Per row a read part returns.
    pub row_ms: f64,
    /// Per data block a read part reads from a file (block cache hits included).
    pub block_ms: f64,
    /// A read part searching a memstore that holds data.
    pub memstore_ms: f64,
    /// Per byte a flush wrote (background work of the window's writers).
    pub flush_byte_ms: f64,
    /// Per byte a compaction read (background work of the window's writers).
    pub compaction_byte_ms: f64,
    /// One region split (on the parent's server).
    pub split_ms: f64,
}

/// The constants the lab uses.
pub const COST_MODEL: CostModel = CostModel {
    put_ms: 0.0015,
    put_byte_ms: 0.000_005,
    read_part_ms: 0.004,
    row_ms: 0.000_6,
    block_ms: 0.010,
    memstore_ms: 0.001,
    flush_byte_ms: 0.000_1,
    compaction_byte_ms: 0.000_02,
    split_ms: 14.0,
};

impl CostModel {
    /// Server time of one part.
    pub(crate) fn cost(&self, p: &Part) -> f64 {
        match p.put_bytes {
            Some(b) => self.put_ms + self.put_byte_ms * b as f64,
            None => {
                self.read_part_ms
                    + self.row_ms * p.rows as f64
                    + self.block_ms * p.blocks as f64
                    + if p.memstore { self.memstore_ms } else { 0.0 }
            }
        }
    }
}

/// The projection of one operation type.
#[derive(Clone, Debug, Default, Serialize)]
pub struct OpProjection {
    /// Operation name (as in `queries`).
    pub name: String,
    /// Times run.
    pub count: u64,
    /// Median projected latency, ms.
    pub projected_p50_ms: f64,
    /// 99th percentile of the projected latency, ms.
    pub projected_p99_ms: f64,
    /// Mean projected latency, ms.
    pub projected_mean_ms: f64,
    /// Mean regions the operation's parts ran on (distinct).
    pub regions_touched_mean: f64,
    /// Mean servers the operation's parts ran on (distinct).
    pub servers_touched_mean: f64,
    /// Mean RPCs it sent.
    pub rpcs_mean: f64,
    /// Mean server time it cost (all parts, all servers), ms.
    pub server_ms_mean: f64,
    /// Mean wall-clock engine time the parts took in this process, ms. Informational and the
    /// only field here that varies between runs of the same seed.
    pub measured_engine_ms_mean: f64,
}

/// The cluster a run was projected on, and what the projection says.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ClusterSummary {
    /// RegionServers.
    pub servers: usize,
    /// Balancer period in windows (0 = never).
    pub balance_every: u64,
    /// Network round trip of one RPC, ms.
    pub rpc_ms: f64,
    /// Regions the balancer moved.
    pub balancer_moves: u64,
    /// Projected sustained rate of the cluster: operations over the projected run time
    /// (the sum over windows of the busiest server's busy time).
    pub projected_ops_per_sec: f64,
    /// That projected run time, seconds.
    pub projected_secs: f64,
    /// The busiest server's share of each window's writes (all tables of the design),
    /// averaged over windows weighted by writes.
    pub hottest_server_write_share: f64,
    /// The busiest server's share of each window's reads (one per Get, one per row a scan
    /// returned), averaged weighted by reads.
    pub hottest_server_read_share: f64,
    /// The busiest server's share of each window's projected busy time, averaged weighted by
    /// busy time.
    pub hottest_server_busy_share: f64,
    /// Share of the windows with writes in which one server took over twice its fair share
    /// (`2 / servers`) of the writes.
    pub time_server_over_2x_writes: f64,
    /// The same for reads.
    pub time_server_over_2x_reads: f64,
    /// Share of the windows with writes in which one server took over half of the writes.
    pub time_server_over_half_writes: f64,
    /// Writes per server over the run.
    pub server_writes: Vec<u64>,
    /// Reads per server over the run.
    pub server_reads: Vec<u64>,
    /// Projected busy time per server over the run, ms.
    pub server_busy_ms: Vec<f64>,
    /// Regions per server at the end (all tables).
    pub final_regions_per_server: Vec<usize>,
    /// Per operation type.
    pub operations: Vec<OpProjection>,
    /// The cost constants used.
    pub cost_model: Option<CostModel>,
}

#[derive(Default)]
struct OpAcc {
    lat: Vec<f64>,
    regions: u64,
    servers: u64,
    rpcs: u64,
    server_ms: f64,
    wall_ms: f64,
}

/// Accumulates the parts of every operation into per-window server busy time and
/// per-operation latencies.
pub(crate) struct Projector {
    model: CostModel,
    rpc_ms: f64,
    servers: usize,
    window_busy: Vec<f64>,
    total_busy: Vec<f64>,
    projected_ms: f64,
    ops: Vec<OpAcc>,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    // Nearest rank.
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

impl Projector {
    /// A projector for `servers` servers and `op_types` operation types.
    pub fn new(servers: usize, rpc_ms: f64, op_types: usize) -> Projector {
        Projector {
            model: COST_MODEL,
            rpc_ms,
            servers,
            window_busy: vec![0.0; servers],
            total_busy: vec![0.0; servers],
            projected_ms: 0.0,
            ops: (0..op_types).map(|_| OpAcc::default()).collect(),
        }
    }

    /// Records one operation of type `op`.
    pub fn record(&mut self, op: usize, parts: &OpParts) {
        let mut latency = 0.0;
        for stage in &parts.stages {
            let mut slowest: f64 = 0.0;
            for lane in stage {
                let mut t = 0.0;
                for p in lane {
                    let c = self.model.cost(p);
                    if let Some(b) = self.window_busy.get_mut(p.server) {
                        *b += c;
                    }
                    t += c + if p.rpc { self.rpc_ms } else { 0.0 };
                }
                slowest = slowest.max(t);
            }
            latency += slowest;
        }
        let acc = &mut self.ops[op];
        acc.lat.push(latency);
        let regions: std::collections::BTreeSet<&str> =
            parts.parts().map(|p| p.region.as_str()).collect();
        let servers: std::collections::BTreeSet<usize> = parts.parts().map(|p| p.server).collect();
        acc.regions += regions.len() as u64;
        acc.servers += servers.len() as u64;
        acc.rpcs += parts.parts().filter(|p| p.rpc).count() as u64;
        acc.server_ms += parts.parts().map(|p| self.model.cost(p)).sum::<f64>();
        acc.wall_ms += parts
            .parts()
            .map(|p| p.wall.as_secs_f64() * 1000.0)
            .sum::<f64>();
    }

    /// Charges background work (flushes, compactions, splits) of `ms` to `server`.
    pub fn charge(&mut self, server: usize, ms: f64) {
        if let Some(b) = self.window_busy.get_mut(server) {
            *b += ms;
        }
    }

    /// The cost constants.
    pub fn model(&self) -> &CostModel {
        &self.model
    }

    /// Closes a window: returns each server's projected busy time in it, ms.
    pub fn close_window(&mut self) -> Vec<f64> {
        let busy = std::mem::replace(&mut self.window_busy, vec![0.0; self.servers]);
        self.projected_ms += busy.iter().copied().fold(0.0, f64::max);
        for (t, b) in self.total_busy.iter_mut().zip(&busy) {
            *t += b;
        }
        busy
    }

    /// The projection of the run (`names`: the operation types' names; `ops`: operations
    /// run). Fills the projection fields of `c`.
    pub fn finish(self, names: &[String], ops: u64, c: &mut ClusterSummary) {
        c.projected_secs = self.projected_ms / 1000.0;
        c.projected_ops_per_sec = if self.projected_ms > 0.0 {
            ops as f64 / c.projected_secs
        } else {
            0.0
        };
        c.server_busy_ms = self.total_busy;
        c.rpc_ms = self.rpc_ms;
        c.cost_model = Some(self.model);
        c.operations = self
            .ops
            .into_iter()
            .zip(names)
            .filter(|(a, _)| !a.lat.is_empty())
            .map(|(mut a, name)| {
                let n = a.lat.len() as f64;
                let mean = a.lat.iter().sum::<f64>() / n;
                a.lat.sort_by(f64::total_cmp);
                OpProjection {
                    name: name.clone(),
                    count: a.lat.len() as u64,
                    projected_p50_ms: percentile(&a.lat, 0.5),
                    projected_p99_ms: percentile(&a.lat, 0.99),
                    projected_mean_ms: mean,
                    regions_touched_mean: a.regions as f64 / n,
                    servers_touched_mean: a.servers as f64 / n,
                    rpcs_mean: a.rpcs as f64 / n,
                    server_ms_mean: a.server_ms / n,
                    measured_engine_ms_mean: a.wall_ms / n,
                }
            })
            .collect();
    }
}

/// The busiest server's share of `v` (0 when all are 0).
pub(crate) fn top_share(v: &[f64]) -> f64 {
    let sum: f64 = v.iter().sum();
    if sum <= 0.0 {
        0.0
    } else {
        v.iter().copied().fold(0.0, f64::max) / sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::runner::parts::multi_get;

    fn read(server: usize, region: &str, rows: u64) -> Part {
        Part {
            server,
            region: region.into(),
            rows,
            blocks: 0,
            memstore: false,
            put_bytes: None,
            rpc: true,
            wall: std::time::Duration::ZERO,
        }
    }

    #[test]
    fn latency_is_the_slowest_parallel_lane_plus_rpc() {
        let m = COST_MODEL;
        let mut p = Projector::new(3, 0.5, 1);
        // A salted scan: three buckets in parallel; the second has two regions in sequence.
        let ops = OpParts {
            stages: vec![vec![
                vec![read(0, "a", 10)],
                vec![read(1, "b", 10), read(1, "c", 30)],
                vec![read(2, "d", 0)],
            ]],
        };
        p.record(0, &ops);
        let busy = p.close_window();
        let part = |rows: u64| m.read_part_ms + m.row_ms * rows as f64;
        assert!((busy[1] - (part(10) + part(30))).abs() < 1e-12);
        let mut c = ClusterSummary::default();
        p.finish(&["scan".into()], 1, &mut c);
        let o = &c.operations[0];
        let want = part(10) + part(30) + 2.0 * 0.5;
        assert!((o.projected_p50_ms - want).abs() < 1e-12, "{o:?}");
        assert_eq!((o.regions_touched_mean, o.servers_touched_mean), (4.0, 3.0));
        assert_eq!(o.rpcs_mean, 4.0);
        // The projected run time is the busiest server's time: 1 op over it.
        assert!((c.projected_secs * 1000.0 - (part(10) + part(30))).abs() < 1e-12);
    }

    #[test]
    fn multi_get_sends_one_rpc_per_server() {
        let stage = multi_get(vec![read(0, "a", 1), read(1, "b", 1), read(0, "c", 1)]);
        assert_eq!(stage.len(), 2);
        assert_eq!(stage[0].len(), 2);
        assert_eq!(
            stage[0].iter().map(|p| p.rpc).collect::<Vec<_>>(),
            vec![true, false]
        );
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 0.5), 50.0);
        assert_eq!(percentile(&v, 0.99), 99.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
        assert_eq!(top_share(&[1.0, 3.0]), 0.75);
    }
}
