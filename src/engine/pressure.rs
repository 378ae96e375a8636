//! Memory pressure and back-pressure [REG-2]: when a write makes a region's memstore, or all
//! memstores together, too large, who flushes and how long the writer waits; and the wait for
//! compactions when a store holds too many files.

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
const BLOCKING_STORE_FILES: usize = 16;
/// Writes wait while a region's memstores exceed this multiple of the flush size
/// (`hbase.hregion.memstore.block.multiplier`).
const BLOCK_MULTIPLIER: u64 = 4;

impl Engine {
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
        self.wait_while(at_bound, || self.flush_for_global_pressure())
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
                .map(|(t, r)| (r.current().active.size(), t, r))
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
        if region.current().active.size() < flush_size {
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
            || region.memstore_size() >= BLOCK_MULTIPLIER * flush_size,
            || self.flush_region(table, region),
        )
    }

    /// Makes a writer wait while `blocked` holds (background flushes notify `stall`). If
    /// nothing relieves it within a second (a slow or failing flush), the writer runs
    /// `relieve` itself (a flush): writes slow down, they never fail or hang.
    fn wait_while(
        &self,
        blocked: impl Fn() -> bool,
        relieve: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let deadline = std::time::Instant::now() + Duration::from_secs(1);
        let mut g = self.stall.0.lock();
        while blocked() && !self.closed.load(Ordering::Acquire) {
            if std::time::Instant::now() >= deadline {
                drop(g);
                return relieve();
            }
            self.stall.1.wait_for(&mut g, Duration::from_millis(20));
        }
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
        let too_many = region
            .current()
            .files
            .values()
            .any(|l| l.len() > BLOCKING_STORE_FILES);
        if too_many {
            self.compact_region(table, region, false)?;
        }
        Ok(())
    }
}
