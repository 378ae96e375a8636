//! Always-on statistics primitives: a latency recorder over HdrHistogram, sharded so that
//! concurrent recorders rarely meet on one lock, and its snapshot [`Latency`].
//!
//! Two ways in. [`LatencyRecorder::record`] times every event (flushes, compactions, splits,
//! WAL syncs: rare next to their own cost). Client operations go through [`Stamp`]: every
//! operation is counted exactly, but only one in [`SAMPLE_EVERY`] per thread is timed. Measured
//! with callgrind (benches/callgrind_ops.sh, docs/PERFORMANCE.md): timing every Put cost 327
//! instructions of 5,457 (+6.0 %: two clock reads ≈ 118, HdrHistogram's record ≈ 67, the
//! shard's lock and thread-local ≈ 100), over the 3 % budget of always-on metrics; sampled,
//! an operation pays a thread-local tick and one relaxed add on its shard. The distribution
//! (percentiles, mean, buckets) is estimated from the timed operations, the count is exact.
//!
//! Memory: a shard's histogram is allocated on its first record (about 30 KiB); resolution is
//! two significant digits (1 % relative error) from 1 ns to one hour (longer values clamp).

use hdrhistogram::Histogram;
use parking_lot::Mutex;
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Shards per recorder: enough that the threads of a 2–8 core machine rarely share one.
const SHARDS: usize = 8;
/// Highest trackable value: one hour in nanoseconds.
const MAX_NANOS: u64 = 3_600 * 1_000_000_000;
/// One client operation in this many (per thread) is timed; the first of each thread is.
pub const SAMPLE_EVERY: u32 = 8;

thread_local! {
    /// This thread's shard (assigned on first use, round robin over threads) and its
    /// operation tick for sampling.
    static LOCAL: Cell<(u32, u32)> = const { Cell::new((u32::MAX, 0)) };
}
static NEXT_SHARD: AtomicUsize = AtomicUsize::new(0);

/// This thread's shard, and whether its next operation is timed.
#[inline]
fn local_tick() -> (u32, bool) {
    LOCAL.with(|l| {
        let (mut shard, tick) = l.get();
        if shard == u32::MAX {
            shard = (NEXT_SHARD.fetch_add(1, Ordering::Relaxed) % SHARDS) as u32;
        }
        l.set((shard, tick.wrapping_add(1)));
        (shard, tick % SAMPLE_EVERY == 0)
    })
}

fn new_histogram() -> Histogram<u64> {
    // Bounds are constants within HdrHistogram's limits: creation cannot fail.
    Histogram::new_with_bounds(1, MAX_NANOS, 2).unwrap_or_else(|_| unreachable!())
}

/// The start of a client operation: which shard counts it and, for a timed one, when it
/// began.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stamp {
    shard: u32,
    start: Option<Instant>,
}

impl Stamp {
    /// An operation starts now (timed one time in [`SAMPLE_EVERY`]).
    #[inline]
    pub(crate) fn now() -> Stamp {
        let (shard, timed) = local_tick();
        Stamp {
            shard,
            start: timed.then(Instant::now),
        }
    }

    /// An operation that is always timed (a scan: rare next to its own cost).
    pub(crate) fn always() -> Stamp {
        let (shard, _) = local_tick();
        Stamp {
            shard,
            start: Some(Instant::now()),
        }
    }
}

/// One shard: operations counted, and the histogram of those timed.
#[derive(Default)]
#[repr(align(128))]
struct Shard {
    count: AtomicU64,
    histogram: Mutex<Option<Box<Histogram<u64>>>>,
}

/// Records durations (nanoseconds) from many threads.
#[derive(Default)]
pub(crate) struct LatencyRecorder {
    shards: [Shard; SHARDS],
}

impl std::fmt::Debug for LatencyRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LatencyRecorder").finish_non_exhaustive()
    }
}

impl LatencyRecorder {
    /// Records the time since `start`.
    pub(crate) fn record_since(&self, start: Instant) {
        self.record(start.elapsed());
    }

    /// Records one duration (always timed).
    pub(crate) fn record(&self, d: Duration) {
        let (shard, _) = local_tick();
        self.record_in(shard as usize, d);
    }

    /// Records `n` operations that each took `d` (always timed): the parts of a batch, each
    /// counted with the batch's mean time.
    pub(crate) fn record_n(&self, d: Duration, n: u64) {
        if n == 0 {
            return;
        }
        let (shard, _) = local_tick();
        let nanos = u64::try_from(d.as_nanos())
            .unwrap_or(u64::MAX)
            .clamp(1, MAX_NANOS);
        let s = &self.shards[shard as usize % SHARDS];
        s.count.fetch_add(n, Ordering::Relaxed);
        let mut h = s.histogram.lock();
        let h = h.get_or_insert_with(|| Box::new(new_histogram()));
        h.saturating_record_n(nanos, n);
    }

    /// Counts the operation that began at `stamp`, recording its duration when it was timed.
    #[inline]
    pub(crate) fn finish(&self, stamp: Stamp) {
        match stamp.start {
            None => {
                self.shards[stamp.shard as usize % SHARDS]
                    .count
                    .fetch_add(1, Ordering::Relaxed);
            }
            Some(start) => self.record_in(stamp.shard as usize, start.elapsed()),
        }
    }

    fn record_in(&self, shard: usize, d: Duration) {
        let nanos = u64::try_from(d.as_nanos())
            .unwrap_or(u64::MAX)
            .clamp(1, MAX_NANOS);
        let s = &self.shards[shard % SHARDS];
        s.count.fetch_add(1, Ordering::Relaxed);
        s.histogram
            .lock()
            .get_or_insert_with(|| Box::new(new_histogram()))
            .saturating_record(nanos);
    }

    /// Everything recorded so far, merged over the shards.
    pub(crate) fn snapshot(&self) -> Latency {
        let mut all = new_histogram();
        let mut count = 0;
        for s in &self.shards {
            count += s.count.load(Ordering::Relaxed);
            if let Some(h) = s.histogram.lock().as_ref() {
                // Same bounds on both sides: adding cannot fail.
                let _ = all.add(&**h);
            }
        }
        Latency::from_histogram(&all, count)
    }
}

/// Upper bounds (ns) of the cumulative buckets [`Latency::buckets`] reports: 1-2-5 steps from
/// 1 µs to 10 s (the Prometheus histogram of each operation).
pub const LATENCY_BUCKETS_NANOS: [u64; 22] = [
    1_000,
    2_000,
    5_000,
    10_000,
    20_000,
    50_000,
    100_000,
    200_000,
    500_000,
    1_000_000,
    2_000_000,
    5_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
    200_000_000,
    500_000_000,
    1_000_000_000,
    2_000_000_000,
    5_000_000_000,
    10_000_000_000,
];

/// A latency distribution since the database opened: counts, extremes, percentiles and
/// cumulative buckets, all in nanoseconds (1 % resolution).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Latency {
    /// Events counted (exact).
    pub count: u64,
    /// Events timed: all of them for flushes, compactions, splits and log syncs; one client
    /// operation in [`SAMPLE_EVERY`] per thread. The fields below are from the timed ones.
    pub timed: u64,
    /// Sum of the durations (each at 1 % resolution), scaled from the timed events to
    /// `count`.
    pub sum_nanos: u128,
    /// Shortest timed.
    pub min_nanos: u64,
    /// Longest timed.
    pub max_nanos: u64,
    /// Mean.
    pub mean_nanos: f64,
    /// Percentiles as `(percentile, nanos)`: 25, 50, 75, 90, 95, 98, 99, 99.9 (HBase's
    /// `_25th_percentile` .. `_99.9th_percentile`); empty when nothing was recorded.
    pub percentiles: Vec<(f64, u64)>,
    /// `(upper bound ns, events at or below it)` for each of [`LATENCY_BUCKETS_NANOS`], scaled
    /// from the timed events to `count`.
    pub buckets: Vec<(u64, u64)>,
}

/// The percentiles [`Latency::percentiles`] reports.
pub const LATENCY_PERCENTILES: [f64; 8] = [25.0, 50.0, 75.0, 90.0, 95.0, 98.0, 99.0, 99.9];

impl Latency {
    /// From the timed events `h` of `count` events in all (the timed ones stand for all:
    /// buckets and the sum are scaled by `count / timed`).
    fn from_histogram(h: &Histogram<u64>, count: u64) -> Latency {
        let timed = h.len();
        if timed == 0 {
            return Latency {
                count,
                buckets: LATENCY_BUCKETS_NANOS.iter().map(|&b| (b, 0)).collect(),
                ..Latency::default()
            };
        }
        let count = count.max(timed);
        let scale = |n: u128| -> u128 { n * u128::from(count) / u128::from(timed) };
        let timed_sum: u128 = h
            .iter_recorded()
            .map(|v| {
                u128::from(h.median_equivalent(v.value_iterated_to()))
                    * u128::from(v.count_at_value())
            })
            .sum();
        Latency {
            count,
            timed,
            sum_nanos: scale(timed_sum),
            min_nanos: h.min(),
            max_nanos: h.max(),
            mean_nanos: h.mean(),
            percentiles: LATENCY_PERCENTILES
                .iter()
                .map(|&p| (p, h.value_at_percentile(p)))
                .collect(),
            buckets: LATENCY_BUCKETS_NANOS
                .iter()
                .map(|&b| (b, scale(u128::from(h.count_between(0, b))) as u64))
                .collect(),
        }
    }

    /// The value at `percentile` (one of [`LATENCY_PERCENTILES`]); 0 when nothing was recorded
    /// or the percentile is not among them.
    pub fn percentile(&self, percentile: f64) -> u64 {
        self.percentiles
            .iter()
            .find(|(p, _)| *p == percentile)
            .map_or(0, |&(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_and_buckets_follow_the_recorded_values() {
        let r = LatencyRecorder::default();
        assert_eq!(r.snapshot().count, 0);
        for us in 1..=100u64 {
            r.record(Duration::from_micros(us));
        }
        // A second thread lands in another shard: the snapshot merges them.
        std::thread::scope(|s| {
            s.spawn(|| r.record(Duration::from_millis(30)));
        });
        let l = r.snapshot();
        assert_eq!(l.count, 101);
        let p50 = l.percentile(50.0);
        assert!((49_000..=52_000).contains(&p50), "p50 {p50}");
        assert!(l.max_nanos >= 29_700_000, "max {}", l.max_nanos);
        assert_eq!(l.buckets[0], (1_000, 1));
        let at_100us = l.buckets.iter().find(|b| b.0 == 100_000).unwrap().1;
        assert_eq!(at_100us, 100);
        assert_eq!(l.buckets.last().unwrap().1, 101);
        let sum_ms = l.sum_nanos / 1_000_000;
        assert!((34..=36).contains(&sum_ms), "sum {sum_ms} ms");
    }

    /// Operations are all counted; one in SAMPLE_EVERY per thread is timed, and the buckets
    /// and sum stand for all of them.
    #[test]
    fn sampled_operations_are_counted_exactly() {
        let r = LatencyRecorder::default();
        // A fresh thread: its tick starts at 0, so operations 0, 8, 16, ... are timed.
        std::thread::scope(|s| {
            s.spawn(|| {
                for _ in 0..80 {
                    r.finish(Stamp::now());
                }
            });
        });
        let l = r.snapshot();
        assert_eq!(l.count, 80);
        assert_eq!(l.timed, 80 / u64::from(SAMPLE_EVERY));
        assert_eq!(l.buckets.last().unwrap().1, 80);
    }

    #[test]
    fn values_beyond_an_hour_are_clamped_not_lost() {
        let r = LatencyRecorder::default();
        r.record(Duration::from_secs(7200));
        r.record(Duration::ZERO);
        let l = r.snapshot();
        assert_eq!(l.count, 2);
        assert!(l.max_nanos >= MAX_NANOS / 100 * 99);
        assert_eq!(l.min_nanos, 1);
    }
}
