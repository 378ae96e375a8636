//! Operations run region part by region part, so that the work each region (and so each
//! simulated RegionServer) did for an operation is counted exactly.
//!
//! An HBase client sends one RPC per region: a Get goes to the region holding the row; a scan
//! walks its regions one after another (`ClientScanner`); a salted scan runs one such scan per
//! bucket, the buckets in parallel; a multi-get groups its rows by server and sends the groups
//! in parallel. The lab runs the same parts against the real table (each part a `Get` or a
//! `Scan` clipped to one region's key range) and records for each part the rows it returned,
//! the data blocks it read (`Db::metrics().data_blocks_read` before and after: parts run one at
//! a time), whether the region's memstore held data (every read of such a region reads the
//! memstore) and the wall-clock time the engine took. The projection (`projection`) turns these
//! counts into per-server busy time and per-operation latency.

use crate::lab::cluster::Cluster;
use crate::lab::key::{Plan, prefix_stop};
use cellbase::{Db, Delete, Filter, Get, Put, RegionInfo, RowResult, Scan, Table, rowkey};
use std::time::{Duration, Instant};

/// What one region part of an operation did.
#[derive(Clone, Debug)]
pub(crate) struct Part {
    /// Server hosting the region when the part ran.
    pub server: usize,
    /// The region (its name).
    pub region: String,
    /// Rows returned (1 for a Get that found its row).
    pub rows: u64,
    /// Data blocks read from files (block cache hits included).
    pub blocks: u64,
    /// The region's memstore held data, so the read searched it.
    pub memstore: bool,
    /// For a put: bytes of the row written (key + value); `None` for reads.
    pub put_bytes: Option<u64>,
    /// The part starts a new RPC (false for the later rows of a multi-get batch).
    pub rpc: bool,
    /// Wall-clock engine time of the part (informational: varies between runs).
    pub wall: Duration,
}

/// A sequence of parts run one after another.
pub(crate) type Lane = Vec<Part>;
/// Lanes run in parallel.
pub(crate) type Stage = Vec<Lane>;

/// The parts of one operation: stages one after another, each stage's lanes in parallel.
#[derive(Clone, Debug, Default)]
pub(crate) struct OpParts {
    /// The stages.
    pub stages: Vec<Stage>,
}

impl OpParts {
    /// Every part.
    pub fn parts(&self) -> impl Iterator<Item = &Part> {
        self.stages.iter().flatten().flatten()
    }
}

/// The index of the region of `regs` (sorted by start key) holding `key`.
pub(crate) fn region_of(regs: &[RegionInfo], key: &[u8]) -> usize {
    regs.partition_point(|r| r.start_key.as_slice() <= key)
        .saturating_sub(1)
}

/// Runs engine calls, timing them and counting the blocks they read.
pub(crate) struct Runner<'a> {
    /// The database (for its block counter).
    pub db: &'a Db,
    /// Where each region lives.
    pub cluster: &'a Cluster,
    /// Engine time spent so far (the single-process figure).
    pub engine: Duration,
}

impl Runner<'_> {
    fn blocks(&self) -> u64 {
        self.db.metrics().data_blocks_read
    }

    fn server(&self, r: &RegionInfo) -> usize {
        self.cluster.server_of(&r.name).unwrap_or(0)
    }

    /// Puts `put` (row `key`, `bytes` of key and value) into `t`, whose regions are `regs`.
    ///
    /// # Errors
    /// The engine's.
    pub fn put(
        &mut self,
        t: &Table,
        regs: &[RegionInfo],
        key: &[u8],
        put: Put,
        bytes: u64,
    ) -> cellbase::Result<Part> {
        self.write(regs, key, bytes, || t.put(put))
    }

    /// Deletes with `d` (row `key`) in `t`: a write part, like a put.
    ///
    /// # Errors
    /// The engine's.
    pub fn delete(
        &mut self,
        t: &Table,
        regs: &[RegionInfo],
        key: &[u8],
        d: Delete,
    ) -> cellbase::Result<Part> {
        self.write(regs, key, key.len() as u64, || t.delete(d))
    }

    /// A write part: `op` (one mutation of row `key`, `bytes` written), timed, on the region
    /// and server holding `key`.
    fn write(
        &mut self,
        regs: &[RegionInfo],
        key: &[u8],
        bytes: u64,
        op: impl FnOnce() -> cellbase::Result<()>,
    ) -> cellbase::Result<Part> {
        let r = &regs[region_of(regs, key)];
        let t0 = Instant::now();
        op()?;
        let wall = t0.elapsed();
        self.engine += wall;
        Ok(Part {
            wall,
            server: self.server(r),
            region: r.name.clone(),
            rows: 1,
            blocks: 0,
            memstore: false,
            put_bytes: Some(bytes),
            rpc: true,
        })
    }

    /// Gets `key` from `t`; returns the part and whether the row was found.
    ///
    /// # Errors
    /// The engine's.
    pub fn get(
        &mut self,
        t: &Table,
        regs: &[RegionInfo],
        key: &[u8],
    ) -> cellbase::Result<(Part, bool)> {
        self.get_with(t, regs, key, Get::new(key))
    }

    /// Runs `g` (a Get of row `key`) on `t`; returns the part and whether it found cells.
    ///
    /// # Errors
    /// The engine's.
    pub fn get_with(
        &mut self,
        t: &Table,
        regs: &[RegionInfo],
        key: &[u8],
        g: Get,
    ) -> cellbase::Result<(Part, bool)> {
        let r = &regs[region_of(regs, key)];
        let b0 = self.blocks();
        let t0 = Instant::now();
        let found = !t.get(g)?.is_empty();
        let wall = t0.elapsed();
        self.engine += wall;
        let blocks = self.blocks().saturating_sub(b0);
        Ok((
            Part {
                wall,
                server: self.server(r),
                region: r.name.clone(),
                rows: u64::from(found),
                blocks,
                memstore: r.memstore_bytes > 0,
                put_bytes: None,
                rpc: true,
            },
            found,
        ))
    }

    /// Scans `[start, stop)` (stop empty: to the end) of `t` region by region (one lane),
    /// stopping after `limit` rows when given (as a client scanner with a limit stops asking
    /// further regions); `on_row` sees every row returned.
    #[allow(clippy::too_many_arguments)]
    pub fn scan_lane(
        &mut self,
        t: &Table,
        regs: &[RegionInfo],
        start: &[u8],
        stop: &[u8],
        limit: Option<u64>,
        on_row: &mut dyn FnMut(&RowResult),
    ) -> cellbase::Result<Lane> {
        let mut lane = Vec::new();
        let mut left = limit;
        for i in super::regions::overlapping(regs, start, stop) {
            if left == Some(0) {
                break;
            }
            let r = &regs[i];
            let s = if r.start_key.as_slice() > start {
                r.start_key.clone()
            } else {
                start.to_vec()
            };
            let e = match (stop.is_empty(), r.end_key.is_empty()) {
                (true, _) => r.end_key.clone(),
                (false, true) => stop.to_vec(),
                (false, false) => stop.min(r.end_key.as_slice()).to_vec(),
            };
            let b0 = self.blocks();
            let mut rows = 0;
            let mut seen = Vec::new();
            let t0 = Instant::now();
            let mut scan = Scan::new()
                .start_row(&s)
                .stop_row(&e)
                .filter(Filter::KeyOnly);
            if let Some(n) = left {
                scan = scan.limit(n);
            }
            for row in t.scan(scan)? {
                let row = row?;
                rows += 1;
                seen.push(row);
            }
            let wall = t0.elapsed();
            self.engine += wall;
            if let Some(n) = &mut left {
                *n = n.saturating_sub(rows);
            }
            for row in &seen {
                on_row(row);
            }
            lane.push(Part {
                wall,
                server: self.server(r),
                region: r.name.clone(),
                rows,
                blocks: self.blocks().saturating_sub(b0),
                memstore: r.memstore_bytes > 0,
                put_bytes: None,
                rpc: true,
            });
        }
        Ok(lane)
    }

    /// Runs `plan` on `t`: one lane, or one lane per salt bucket (run in parallel on a
    /// cluster, as `Table::scan_salted` runs them on threads).
    ///
    /// # Errors
    /// The engine's.
    pub fn scan(
        &mut self,
        t: &Table,
        regs: &[RegionInfo],
        plan: &Plan,
        on_row: &mut dyn FnMut(&RowResult),
    ) -> cellbase::Result<Stage> {
        match plan.salted {
            None => Ok(vec![self.scan_lane(
                t,
                regs,
                &plan.start,
                &plan.stop,
                None,
                on_row,
            )?]),
            Some(b) => {
                let mut stage = Vec::new();
                for p in rowkey::salted_prefixes(b) {
                    let mut s = p.clone();
                    s.extend_from_slice(&plan.start);
                    let e = if plan.stop.is_empty() {
                        prefix_stop(&p)
                    } else {
                        let mut e = p.clone();
                        e.extend_from_slice(&plan.stop);
                        e
                    };
                    stage.push(self.scan_lane(t, regs, &s, &e, None, on_row)?);
                }
                Ok(stage)
            }
        }
    }
}

/// Groups the Gets of a multi-get by server: one lane (one RPC) per server, in parallel
/// (HBase's `AsyncBatchRpcRetryingCaller` groups a batch by region server).
pub(crate) fn multi_get(parts: Vec<Part>) -> Stage {
    let mut by: std::collections::BTreeMap<usize, Lane> = std::collections::BTreeMap::new();
    for mut p in parts {
        let lane = by.entry(p.server).or_default();
        p.rpc = lane.is_empty();
        lane.push(p);
    }
    by.into_values().collect()
}
