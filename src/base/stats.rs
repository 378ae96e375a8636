//! Always-on statistics primitives: a latency recorder over HdrHistogram, sharded so that
//! concurrent recorders rarely meet on one lock, and its snapshot [`Latency`].
//!
//! Cost: a record is two clock reads (by the caller), one thread-local read, one uncontended
//! lock and HdrHistogram's bucket arithmetic; the shards' histograms are allocated on their
//! first record (about 30 KiB each), so a database that never records one kind of operation
//! pays nothing for it. Resolution: two significant digits (1 % relative error) from 1 ns to
//! one hour; longer values are clamped to one hour.

use hdrhistogram::Histogram;
use parking_lot::Mutex;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Shards per recorder: enough that the threads of a 2–8 core machine rarely share one.
const SHARDS: usize = 8;
/// Highest trackable value: one hour in nanoseconds.
const MAX_NANOS: u64 = 3_600 * 1_000_000_000;

thread_local! {
    /// This thread's shard, assigned on its first record (round robin over threads).
    static SHARD: Cell<usize> = const { Cell::new(usize::MAX) };
}
static NEXT_SHARD: AtomicUsize = AtomicUsize::new(0);

fn shard() -> usize {
    SHARD.with(|s| {
        let v = s.get();
        if v != usize::MAX {
            return v;
        }
        let v = NEXT_SHARD.fetch_add(1, Ordering::Relaxed) % SHARDS;
        s.set(v);
        v
    })
}

fn new_histogram() -> Histogram<u64> {
    // Bounds are constants within HdrHistogram's limits: creation cannot fail.
    Histogram::new_with_bounds(1, MAX_NANOS, 2).unwrap_or_else(|_| unreachable!())
}

/// Records durations (nanoseconds) from many threads.
#[derive(Default)]
pub(crate) struct LatencyRecorder {
    shards: [Mutex<Option<Box<Histogram<u64>>>>; SHARDS],
}

impl std::fmt::Debug for LatencyRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LatencyRecorder").finish_non_exhaustive()
    }
}

impl LatencyRecorder {
    /// Records the time since `start`.
    #[inline]
    pub(crate) fn record_since(&self, start: Instant) {
        self.record(start.elapsed());
    }

    /// Records one duration.
    pub(crate) fn record(&self, d: Duration) {
        let nanos = u64::try_from(d.as_nanos())
            .unwrap_or(u64::MAX)
            .clamp(1, MAX_NANOS);
        let mut g = self.shards[shard()].lock();
        g.get_or_insert_with(|| Box::new(new_histogram()))
            .saturating_record(nanos);
    }

    /// Everything recorded so far, merged over the shards.
    pub(crate) fn snapshot(&self) -> Latency {
        let mut all = new_histogram();
        for s in &self.shards {
            if let Some(h) = s.lock().as_ref() {
                // Same bounds on both sides: adding cannot fail.
                let _ = all.add(&**h);
            }
        }
        Latency::from_histogram(&all)
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
    /// Operations recorded.
    pub count: u64,
    /// Sum of all recorded durations (each at 1 % resolution).
    pub sum_nanos: u128,
    /// Shortest.
    pub min_nanos: u64,
    /// Longest.
    pub max_nanos: u64,
    /// Mean.
    pub mean_nanos: f64,
    /// Percentiles as `(percentile, nanos)`: 25, 50, 75, 90, 95, 98, 99, 99.9 (HBase's
    /// `_25th_percentile` .. `_99.9th_percentile`); empty when nothing was recorded.
    pub percentiles: Vec<(f64, u64)>,
    /// `(upper bound ns, operations at or below it)` for each of [`LATENCY_BUCKETS_NANOS`].
    pub buckets: Vec<(u64, u64)>,
}

/// The percentiles [`Latency::percentiles`] reports.
pub const LATENCY_PERCENTILES: [f64; 8] = [25.0, 50.0, 75.0, 90.0, 95.0, 98.0, 99.0, 99.9];

impl Latency {
    fn from_histogram(h: &Histogram<u64>) -> Latency {
        let count = h.len();
        if count == 0 {
            return Latency {
                buckets: LATENCY_BUCKETS_NANOS.iter().map(|&b| (b, 0)).collect(),
                ..Latency::default()
            };
        }
        let sum_nanos = h
            .iter_recorded()
            .map(|v| {
                u128::from(h.median_equivalent(v.value_iterated_to()))
                    * u128::from(v.count_at_value())
            })
            .sum();
        Latency {
            count,
            sum_nanos,
            min_nanos: h.min(),
            max_nanos: h.max(),
            mean_nanos: h.mean(),
            percentiles: LATENCY_PERCENTILES
                .iter()
                .map(|&p| (p, h.value_at_percentile(p)))
                .collect(),
            buckets: LATENCY_BUCKETS_NANOS
                .iter()
                .map(|&b| (b, h.count_between(0, b)))
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
