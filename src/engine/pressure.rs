//! Memory pressure and back-pressure [REG-2]: when a write makes a region's memstore, or all
//! memstores together, too large, who flushes and how long the writer waits; and the wait for
//! compactions when a store holds too many files.
//!
//! The bound on a writer's wait: a writer that finds its region at 4× the flush size, or all
//! memstores at the global bound, waits at most one second for background flushes
//! ([`STALL_RELIEF_AFTER`]), then runs the flush itself and, when that flush fails, gets its
//! error (before its own write is applied, so nothing is half done). A writer therefore never
//! waits longer than one second plus one flush (and, with a store over the blocking file
//! count, one compaction before it) and never hangs on flushes that keep failing. Every stall
//! is logged (`warn!`, target `cellbase::stall`) with how long the writer waited and why.

use crate::base::error::Result;
use crate::engine::Engine;
use crate::engine::background::Job;
use crate::engine::flush::FlushIf;
use crate::engine::region::{Queued, Region};
use crate::engine::table::TableShared;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Writes stores hold more files than this before flushes wait for compactions
/// (`hbase.hstore.blockingStoreFiles`).
pub(crate) const BLOCKING_STORE_FILES: usize = 16;
/// Writes wait while a region's memstores exceed this multiple of the flush size
/// (`hbase.hregion.memstore.block.multiplier`).
const BLOCK_MULTIPLIER: u64 = 4;
/// How long a blocked writer waits for background flushes before it flushes itself.
pub(crate) const STALL_RELIEF_AFTER: Duration = Duration::from_secs(1);

/// Why a writer waits, for the stall log line.
#[derive(Clone, Copy)]
enum StallCause<'a> {
    Region {
        table: &'a str,
        region: u64,
        flush_size: u64,
    },
    Global {
        limit: u64,
    },
}

impl std::fmt::Display for StallCause<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            StallCause::Region {
                table,
                region,
                flush_size,
            } => write!(
                f,
                "the memstore of table '{table}' region {region} is over {BLOCK_MULTIPLIER}x its \
                 flush size ({} bytes)",
                BLOCK_MULTIPLIER * flush_size
            ),
            StallCause::Global { limit } => write!(
                f,
                "all memstores together are at the global bound ({limit} bytes)"
            ),
        }
    }
}

impl Engine {
    /// Before a write: when the region's memstores are at 4× the flush size, or all memstores
    /// at the global bound, wait for background flushes (at most [`STALL_RELIEF_AFTER`]), then
    /// flush here; that flush's error is the write's (HBase's `HRegion#checkResources` fails a
    /// blocked write with `RegionTooBusyException`). One atomic load when below every bound.
    pub(crate) fn check_resources(
        &self,
        table: &Arc<TableShared>,
        region: &Arc<Region>,
    ) -> Result<()> {
        let total = self.memstore_bytes.load(Ordering::Relaxed);
        let flush_size = table.flush_size(self.opts.memstore_flush_size);
        let region_bound = BLOCK_MULTIPLIER.saturating_mul(flush_size);
        // The total counts this region's memstores too: below the region bound, so is it.
        if total >= region_bound && region.memstore_size() >= region_bound {
            let cause = StallCause::Region {
                table: &table.name,
                region: region.id(),
                flush_size,
            };
            if self.opts.background_threads == 0 {
                self.flush_region(table, region)?;
            } else {
                self.wait_while(
                    cause,
                    || region.memstore_size() >= region_bound,
                    || self.flush_region(table, region),
                )?;
            }
        }
        let limit = self.opts.global_memstore_size;
        // `global_pressure` first: it is false without a bound (size 0).
        if self.global_pressure() && self.memstore_bytes.load(Ordering::Relaxed) >= limit {
            if self.opts.background_threads == 0 {
                return self.flush_for_global_pressure();
            }
            if !self.global_flush_queued.swap(true, Ordering::AcqRel) {
                self.bg.submit(Job::GlobalFlush);
            }
            self.wait_while(
                StallCause::Global { limit },
                || self.memstore_bytes.load(Ordering::Relaxed) >= limit,
                || self.flush_for_global_pressure(),
            )?;
        }
        Ok(())
    }

    /// After a write: flush when the memstore passes the flush size (inline without background
    /// threads), and make writers wait while it exceeds 4× (only when a thread will flush);
    /// then the same for all memstores together against the global bound.
    pub(crate) fn maybe_flush(&self, table: &Arc<TableShared>, region: &Arc<Region>) -> Result<()> {
        self.maybe_flush_region(table, region)?;
        self.reclaim_memstore_memory()
    }

    /// The global bound ([`crate::DbOptions::global_memstore_size`]), as HBase's
    /// `MemStoreFlusher#reclaimMemStoreMemory`: at or above the lower limit a background
    /// thread flushes the largest memstores; at or above the bound the writer waits for it.
    /// Without background threads the writer flushes them itself. As with the per-region
    /// bound, a writer that waited a second without relief flushes itself: writes slow down,
    /// they never fail or hang.
    fn reclaim_memstore_memory(&self) -> Result<()> {
        if !self.global_pressure() {
            return Ok(());
        }
        let limit = self.opts.global_memstore_size;
        let at_bound = || self.memstore_bytes.load(Ordering::Relaxed) >= limit;
        if self.opts.background_threads == 0 {
            return if at_bound() {
                self.flush_for_global_pressure()
            } else {
                Ok(())
            };
        }
        if !self.global_flush_queued.swap(true, Ordering::AcqRel) {
            self.bg.submit(Job::GlobalFlush);
        }
        self.wait_while(StallCause::Global { limit }, at_bound, || {
            self.flush_for_global_pressure()
        })
    }

    /// All memstores together are at or above the global lower limit,
    /// [`crate::DbOptions::global_memstore_lower_limit`] of
    /// [`crate::DbOptions::global_memstore_size`] (HBase's
    /// `hbase.regionserver.global.memstore.size.lower.limit`); never without a bound.
    pub(crate) fn global_pressure(&self) -> bool {
        self.memstore_bytes.load(Ordering::Relaxed) >= self.global_low_mark
    }

    /// Flushes the region with the largest active memstore, whatever its flush size, until all
    /// memstores together are below the global lower limit (HBase's
    /// `flushOneForGlobalPressure`), at most once per region: memory a reader still holds
    /// after its memstore's flush is not the flusher's to free.
    pub(crate) fn flush_for_global_pressure(&self) -> Result<()> {
        let regions = self.all_regions();
        for _ in 0..regions.len() {
            if !self.global_pressure() {
                break;
            }
            let Some((size, t, r)) = regions
                .iter()
                .filter(|(t, r)| !t.is_dropped() && !r.is_retired())
                .map(|(t, r)| (r.active().size(), t, r))
                .max_by_key(|&(size, ..)| size)
            else {
                break;
            };
            if size == 0 {
                break;
            }
            self.flush_after_wait(t, r, FlushIf::GlobalPressure)?;
        }
        Ok(())
    }

    /// The per-region part of [`Engine::maybe_flush`].
    fn maybe_flush_region(&self, table: &Arc<TableShared>, region: &Arc<Region>) -> Result<()> {
        let flush_size = table.flush_size(self.opts.memstore_flush_size);
        if region.active().size() < flush_size {
            return Ok(());
        }
        if self.opts.background_threads == 0 {
            return self.flush_region(table, region);
        }
        if region.try_queue(Queued::Flush) {
            self.bg.submit(Job::Flush(table.clone(), region.clone()));
        }
        // Back-pressure [REG-2]: wait for the background flush while the region holds more than
        // 4 x the flush size.
        self.wait_while(
            StallCause::Region {
                table: &table.name,
                region: region.id(),
                flush_size,
            },
            || region.memstore_size() >= BLOCK_MULTIPLIER * flush_size,
            || self.flush_region(table, region),
        )
    }

    /// Makes a writer wait while `blocked` holds (background flushes notify `stall`). If
    /// nothing relieves it within [`STALL_RELIEF_AFTER`] (a slow or failing flush), the writer
    /// runs `relieve` itself (a flush) and returns its result: a writer never hangs, and a
    /// flush that keeps failing reaches it as an error. A wait is logged with its length and
    /// `cause`.
    fn wait_while(
        &self,
        cause: StallCause<'_>,
        blocked: impl Fn() -> bool,
        relieve: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        if !blocked() {
            return Ok(());
        }
        let start = std::time::Instant::now();
        let deadline = start + STALL_RELIEF_AFTER;
        let mut g = self.stall.0.lock();
        while blocked() && !self.closed.load(Ordering::Acquire) {
            if std::time::Instant::now() >= deadline {
                drop(g);
                let res = relieve();
                self.stats.note_blocked(start.elapsed());
                log::warn!(
                    target: "cellbase::stall",
                    "write stalled {} ms: {cause}; no background flush relieved it, so the writer \
                     flushed itself{}",
                    start.elapsed().as_millis(),
                    match &res {
                        Ok(()) => String::new(),
                        Err(e) => format!(" and failed: {e}"),
                    }
                );
                return res;
            }
            self.stall.1.wait_for(&mut g, Duration::from_millis(20));
        }
        drop(g);
        self.stats.note_blocked(start.elapsed());
        log::warn!(
            target: "cellbase::stall",
            "write stalled {} ms: {cause}",
            start.elapsed().as_millis()
        );
        Ok(())
    }

    /// With background threads, flushes wait (up to 90 s, `hbase.hstore.blockingWaitTime`) while
    /// a store has too many files, compacting them first.
    pub(crate) fn wait_for_store_files(
        &self,
        table: &Arc<TableShared>,
        region: &Arc<Region>,
    ) -> Result<()> {
        if self.opts.background_threads == 0 {
            return Ok(());
        }
        // Sorted runs count as one file each ([`crate::engine::runs`]): compacting them would
        // not make reads any cheaper.
        let desc = table.desc_arc();
        let now = self.clock.now_millis();
        let too_many = region.current().files.iter().any(|(fam, l)| {
            l.len() > BLOCKING_STORE_FILES
                && desc.get_family(fam).is_some_and(|fd| {
                    crate::engine::runs::run_count(l, fd, now) > BLOCKING_STORE_FILES
                })
        });
        if too_many {
            let start = std::time::Instant::now();
            let res = self.compact_region(table, region, false);
            self.stats.note_blocked(start.elapsed());
            log::warn!(
                target: "cellbase::stall",
                "flush of table '{}' region {} stalled {} ms: a store holds more than \
                 {BLOCKING_STORE_FILES} sorted runs, compacted first",
                table.name,
                region.id(),
                start.elapsed().as_millis()
            );
            res?;
        }
        Ok(())
    }
}
