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
//!
//! Before the global bound, the write controller (RocksDB's delayed writes; HBase only
//! blocks): once all memstores together pass the global lower limit (where flushes start),
//! writers pay for the memstore bytes they add at the rate the last flush emptied memstores,
//! times `(1 - depth)²` where `depth` runs from 0 at the lower limit to 1 at the bound,
//! sleeping in steps of at least [`MIN_DELAY`] and at most [`MAX_DELAY`] per write. A writer
//! that outruns the flushes (or fills memstores while a flush waits its turn: with two
//! regions written evenly both reach their flush size together) slows down in many short
//! sleeps instead of running into the bound and waiting for a whole flush (measured before
//! it: 14-18 waits of 60-250 ms in a 1 M-record YCSB load, `examples/ycsb_load`).

use crate::base::error::Result;
use crate::engine::Engine;
use crate::engine::background::Job;
use crate::engine::flush::FlushIf;
use crate::engine::region::{Queued, Region};
use crate::engine::table::TableShared;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Writes stores hold more files than this before flushes wait for compactions
/// (`hbase.hstore.blockingStoreFiles`).
pub(crate) const BLOCKING_STORE_FILES: usize = 16;
/// Writes wait while a region's memstores exceed this multiple of the flush size
/// (`hbase.hregion.memstore.block.multiplier`).
const BLOCK_MULTIPLIER: u64 = 4;
/// How long a blocked writer waits for background flushes before it flushes itself.
pub(crate) const STALL_RELIEF_AFTER: Duration = Duration::from_secs(1);

/// The shortest sleep of a delayed write: smaller debts are carried to the next write (a sleep
/// of a few microseconds costs more than it asks for).
const MIN_DELAY: Duration = Duration::from_millis(1);
/// The longest sleep of one delayed write; the bound's wait takes over beyond.
const MAX_DELAY: Duration = Duration::from_millis(20);

/// The write controller's state: a token bucket over the memstore bytes writers add.
pub(crate) struct WriteDelay {
    origin: std::time::Instant,
    /// Nanoseconds since `origin` until which the bytes already added are paid for.
    paid_until: AtomicU64,
    /// All memstores' bytes when a writer last paid.
    seen: AtomicU64,
}

impl WriteDelay {
    pub(crate) fn new() -> WriteDelay {
        WriteDelay {
            origin: std::time::Instant::now(),
            paid_until: AtomicU64::new(0),
            seen: AtomicU64::new(0),
        }
    }

    /// Adds `cost` to the time writers owe and returns how long this writer should sleep:
    /// the time owed beyond now, at most [`MAX_DELAY`] (the debt never runs further ahead, so
    /// one charge at a tiny rate cannot delay later writes for long).
    fn charge(&self, cost: Duration) -> Duration {
        let now = u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.charge_at(cost, now)
    }

    /// [`WriteDelay::charge`] at `now` nanoseconds after `origin`.
    fn charge_at(&self, cost: Duration, now: u64) -> Duration {
        let cap = now.saturating_add(MAX_DELAY.as_nanos() as u64);
        let cost = u64::try_from(cost.as_nanos()).unwrap_or(u64::MAX);
        let paid = |p: u64| p.max(now).saturating_add(cost).min(cap);
        let prev = match self
            .paid_until
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |p| Some(paid(p)))
        {
            Ok(p) | Err(p) => p,
        };
        Duration::from_nanos(paid(prev) - now)
    }
}

/// What the memstore bytes added since the last charge cost when all memstores hold `total`
/// bytes (`seen` at the last charge), flushes start at `mark` and writes block at `limit`, and
/// the last flush emptied `flush_rate` bytes per second: `None` below the mark, at or past the
/// bound (the bound's wait takes over), before any flush, or when nothing was added above the
/// mark; else the bytes added above the mark (`total - max(seen, mark)`: writes below it are
/// free, so the first write past it does not pay for them) at `flush_rate · (1 - depth)²`,
/// `depth = (total - mark) / (limit - mark)`.
fn write_cost(total: u64, seen: u64, mark: u64, limit: u64, flush_rate: u64) -> Option<Duration> {
    let from = seen.max(mark);
    if total >= limit || flush_rate == 0 || total <= from {
        return None;
    }
    let depth = (total - mark) as f64 / (limit - mark).max(1) as f64;
    let rate = flush_rate as f64 * (1.0 - depth) * (1.0 - depth);
    Some(Duration::from_secs_f64(
        ((total - from) as f64 / rate).min(MAX_DELAY.as_secs_f64()),
    ))
}

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
        self.delay_write(limit);
        self.wait_while(StallCause::Global { limit }, at_bound, || {
            self.flush_for_global_pressure()
        })
    }

    /// The write controller (module docs): past the global lower limit and below the bound
    /// `limit`, charges the memstore bytes added since the last charge at the last flush's
    /// rate times `(1 - depth)²` (`depth` 0 at the lower limit, 1 at the bound), and sleeps
    /// once the unpaid time reaches [`MIN_DELAY`].
    fn delay_write(&self, limit: u64) {
        let total = self.memstore_bytes.load(Ordering::Relaxed);
        let seen = self.write_delay.seen.swap(total, Ordering::Relaxed);
        let rate = self.stats.flush_rate.load(Ordering::Relaxed);
        let mark = self.global_low_mark.min(limit);
        let Some(cost) = write_cost(total, seen, mark, limit, rate) else {
            return;
        };
        let wait = self.write_delay.charge(cost);
        if wait >= MIN_DELAY {
            std::thread::sleep(wait);
            self.stats.note_delayed(wait);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    /// No charge below the lower limit, at the bound, before the first flush, or without new
    /// bytes; past the limit the same bytes cost more the nearer the bound.
    #[test]
    fn writes_cost_more_the_nearer_the_bound() {
        let (mark, limit, rate) = (64 * MIB, 128 * MIB, 100 * MIB);
        let cost = |total: u64| write_cost(total, total - MIB, mark, limit, rate);
        assert_eq!(cost(63 * MIB), None);
        assert_eq!(cost(128 * MIB), None);
        assert_eq!(write_cost(100 * MIB, 99 * MIB, mark, limit, 0), None);
        assert_eq!(write_cost(100 * MIB, 100 * MIB, mark, limit, rate), None);
        // Bytes written below the mark are free: from 10 MiB to just past the mark, only the
        // 64 KiB above it count.
        let past = write_cost(mark + 64 * 1024, 10 * MIB, mark, limit, rate).unwrap();
        assert!(past < Duration::from_micros(700), "{past:?}");
        // Just past the mark: about the flush rate (1 MiB at 100 MiB/s, 10.3 ms at depth 1/64).
        let near = cost(65 * MIB).unwrap().as_secs_f64();
        assert!((0.0100..0.0105).contains(&near), "{near}");
        // Half way: a quarter of the rate, 40 ms, capped at MAX_DELAY.
        assert_eq!(cost(96 * MIB), Some(MAX_DELAY));
        let small = |total: u64| write_cost(total, total - 64 * 1024, mark, limit, rate).unwrap();
        assert!(small(70 * MIB) < small(90 * MIB) && small(90 * MIB) < small(120 * MIB));
    }

    /// Debts below the shortest sleep are carried to later writes; the time owed never runs
    /// more than MAX_DELAY ahead of now.
    #[test]
    fn small_debts_add_up_and_the_debt_is_bounded() {
        let d = WriteDelay::new();
        let ms = |x: f64| (x * 1e6) as u64;
        let c = Duration::from_micros(300);
        assert_eq!(d.charge_at(c, ms(10.0)), c);
        // Ten more charges of 0.3 ms, 0.01 ms apart: the debt grows past the shortest sleep.
        let mut last = c;
        for i in 1..=10 {
            last = d.charge_at(c, ms(10.0 + 0.01 * f64::from(i)));
        }
        assert!(
            last >= MIN_DELAY && last < Duration::from_millis(4),
            "{last:?}"
        );
        // Once time has passed the debt, a charge starts from now again.
        assert_eq!(d.charge_at(c, ms(100.0)), c);
        // However much is charged at once, no one waits past MAX_DELAY.
        for _ in 0..100 {
            last = d.charge_at(Duration::from_millis(5), ms(200.0));
        }
        assert_eq!(last, MAX_DELAY);
    }
}
