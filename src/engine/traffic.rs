//! Traffic recording, for a local Key Visualizer (Bigtable's, which no HBase tool offers): per
//! region and per interval of the database clock, the read and write requests of live traffic,
//! counted as the region's own request counters count them (one write per applied mutation,
//! one read per Get and per row a scan returns).
//!
//! Off by default ([`DbOptions::traffic_recording`](crate::DbOptions::traffic_recording)).
//! When on, every counted request also takes one short lock and one clock read. Memory is
//! bounded: a ring of at most `max_intervals` intervals, each holding one entry per region that
//! took a request in it (its counts, table name and start and end keys); when a new interval
//! begins past the ring's capacity the oldest is dropped. Intervals are aligned to multiples of
//! the interval length of the database clock; an interval in which nothing happened is kept
//! (empty) so the time axis stays even, except that a gap longer than the ring keeps only the
//! ring's worth.
//!
//! The recorded matrix is read with [`Db::traffic`](crate::Db::traffic) and written to the
//! database directory's `TRAFFIC` file at a clean close and by
//! [`Db::save_traffic`](crate::Db::save_traffic) (format: `traffic_file.rs`, docs/FORMAT.md).

use super::region::Region;
use super::table::TableShared;
use crate::base::error::Result;
use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};

/// Recorded traffic: per interval, per region, the read and write requests counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Interval length in milliseconds of the database clock.
    pub interval_ms: u64,
    /// The ring's capacity (intervals kept).
    pub max_intervals: u32,
    /// The intervals kept, oldest first.
    pub intervals: Vec<TrafficInterval>,
}

/// One interval of recorded traffic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrafficInterval {
    /// Its start, in ms of the database clock (a multiple of the interval length).
    pub start_ms: i64,
    /// The regions that took requests in it, by table name, then start key.
    pub regions: Vec<RegionTraffic>,
}

/// One region's requests in one interval.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegionTraffic {
    /// The table's name.
    pub table: String,
    /// The region's id (as [`RegionInfo::name`](crate::RegionInfo::name) shows it).
    pub region_id: u64,
    /// The region's first row (empty: the table's first).
    pub start_key: Vec<u8>,
    /// The region's end (exclusive; empty: past the table's last row).
    pub end_key: Vec<u8>,
    /// Read requests (one per Get, one per row a scan returned).
    pub reads: u64,
    /// Write requests (one per applied mutation).
    pub writes: u64,
}

struct Slot {
    start_ms: i64,
    regions: HashMap<u64, RegionTraffic>,
}

/// The recorder: the ring of intervals behind one lock.
pub(crate) struct TrafficRecorder {
    interval_ms: i64,
    max_intervals: usize,
    ring: Mutex<VecDeque<Slot>>,
    /// One save of the `TRAFFIC` file at a time.
    saving: Mutex<()>,
}

/// Largest ring [`DbOptions::traffic_recording`](crate::DbOptions::traffic_recording) accepts.
pub(crate) const MAX_INTERVALS: usize = 100_000;

impl TrafficRecorder {
    /// A recorder of intervals of `interval_ms` (at least 1), keeping at most `max_intervals`
    /// (at least 1).
    pub(crate) fn new(interval_ms: i64, max_intervals: usize) -> TrafficRecorder {
        TrafficRecorder {
            interval_ms: interval_ms.max(1),
            max_intervals: max_intervals.clamp(1, MAX_INTERVALS),
            ring: Mutex::new(VecDeque::new()),
            saving: Mutex::new(()),
        }
    }

    /// Counts `reads` and `writes` for a region of `table` at `now_ms`.
    pub(crate) fn note(
        &self,
        table: &str,
        region: (u64, &[u8], &[u8]),
        reads: u64,
        writes: u64,
        now_ms: i64,
    ) {
        let start = now_ms.div_euclid(self.interval_ms) * self.interval_ms;
        let mut ring = self.ring.lock();
        let behind = ring.back().is_none_or(|s| s.start_ms < start);
        if behind {
            // Empty intervals for a gap, at most the ring's worth, then the new one.
            let last = ring.back().map(|s| s.start_ms);
            let gap = last.map_or(0, |l| ((start - l) / self.interval_ms).saturating_sub(1));
            let fill = (gap as usize).min(self.max_intervals.saturating_sub(1));
            for k in (1..=fill as i64).rev() {
                ring.push_back(Slot {
                    start_ms: start - k * self.interval_ms,
                    regions: HashMap::new(),
                });
            }
            ring.push_back(Slot {
                start_ms: start,
                regions: HashMap::new(),
            });
            while ring.len() > self.max_intervals {
                ring.pop_front();
            }
        }
        // A clock set back counts into the newest interval.
        let Some(slot) = ring.back_mut() else {
            return;
        };
        let (id, start_key, end_key) = region;
        let e = slot.regions.entry(id).or_insert_with(|| RegionTraffic {
            table: table.to_string(),
            region_id: id,
            start_key: start_key.to_vec(),
            end_key: end_key.to_vec(),
            reads: 0,
            writes: 0,
        });
        e.reads += reads;
        e.writes += writes;
    }

    /// The recorded matrix now.
    pub(crate) fn snapshot(&self) -> Traffic {
        let ring = self.ring.lock();
        Traffic {
            interval_ms: self.interval_ms as u64,
            max_intervals: self.max_intervals as u32,
            intervals: ring
                .iter()
                .map(|s| {
                    let mut regions: Vec<RegionTraffic> = s.regions.values().cloned().collect();
                    regions.sort_by(|a, b| {
                        (a.table.as_str(), &a.start_key, a.region_id).cmp(&(
                            b.table.as_str(),
                            &b.start_key,
                            b.region_id,
                        ))
                    });
                    TrafficInterval {
                        start_ms: s.start_ms,
                        regions,
                    }
                })
                .collect(),
        }
    }
}

impl super::Engine {
    /// Counts `n` reads of `region` of `table`: the region's request counter and, when
    /// recording, the traffic ring.
    pub(crate) fn count_reads(&self, table: &TableShared, region: &Region, n: u64) {
        region.bump_reads(n);
        if let Some(t) = &self.traffic {
            let key = (region.id(), region.start(), region.end());
            t.note(&table.name, key, n, 0, self.clock.now_millis());
        }
    }

    /// Counts one applied mutation in `region` of `table` (see [`Engine::count_reads`]).
    pub(crate) fn count_write(&self, table: &TableShared, region: &Region) {
        region.note_write();
        if let Some(t) = &self.traffic {
            let key = (region.id(), region.start(), region.end());
            t.note(&table.name, key, 0, 1, self.clock.now_millis());
        }
    }

    /// The recorded traffic, when recording is on.
    pub(crate) fn traffic(&self) -> Option<Traffic> {
        self.traffic.as_ref().map(TrafficRecorder::snapshot)
    }

    /// Writes the recorded traffic to the directory's `TRAFFIC` file; `false` when recording
    /// is off (nothing written). Saves run one at a time; with `while_open`, a save that finds
    /// the database closed meanwhile writes nothing (`Error::Closed`): after a close the
    /// directory may be another process's.
    pub(crate) fn save_traffic(&self, while_open: bool) -> Result<bool> {
        let Some(t) = &self.traffic else {
            return Ok(false);
        };
        let _one = t.saving.lock();
        if while_open {
            self.check_open()?;
        }
        super::traffic_file::write(self.fs.as_ref(), &self.path, &t.snapshot())?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_align_gaps_fill_and_the_ring_is_bounded() {
        let r = TrafficRecorder::new(1000, 3);
        r.note("t", (1, b"", b"m"), 1, 0, 1500);
        r.note("t", (2, b"m", b""), 0, 2, 1999);
        r.note("t", (1, b"", b"m"), 0, 1, 3100);
        let s = r.snapshot();
        let starts: Vec<i64> = s.intervals.iter().map(|i| i.start_ms).collect();
        assert_eq!(
            starts,
            vec![1000, 2000, 3000],
            "the empty 2000 interval is kept"
        );
        assert_eq!(s.intervals[0].regions.len(), 2);
        assert_eq!(
            (
                s.intervals[0].regions[1].region_id,
                s.intervals[0].regions[1].writes
            ),
            (2, 2)
        );
        assert!(s.intervals[1].regions.is_empty());
        // A long gap keeps only the ring's worth; the oldest go.
        r.note("t", (1, b"", b"m"), 5, 0, 60_000);
        let s = r.snapshot();
        assert_eq!(s.intervals.len(), 3);
        assert_eq!(s.intervals[2].start_ms, 60_000);
        assert_eq!(s.intervals[2].regions[0].reads, 5);
        // A clock set back counts into the newest interval.
        r.note("t", (1, b"", b"m"), 1, 0, 10);
        assert_eq!(r.snapshot().intervals[2].regions[0].reads, 6);
    }
}
