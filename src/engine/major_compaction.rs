//! Periodic major compaction (HBase's `hbase.hregion.majorcompaction`, default 7 days, and its
//! jitter `hbase.hregion.majorcompaction.jitter`, 0.5): when a store's oldest file was written
//! longer ago than the store's period, its next compaction is a major one. The decision is
//! HBase's `SortedCompactionPolicy.getNextMajorCompactTime` with the policy's
//! `shouldPerformMajorCompaction` (`RatioBasedCompactionPolicy` for the exploring policy,
//! `DateTieredCompactionPolicy`'s own for date-tiered stores; FIFO stores never do one), as
//! pure functions; the engine methods apply it where compactions are chosen and in the
//! compaction check ([`Engine::compaction_check`], HBase's `CompactionChecker` chore).

use crate::base::error::Result;
use crate::engine::Engine;
use crate::engine::background::Job;
use crate::engine::compaction::{dt_files, dt_order, needs_minor};
use crate::engine::date_tiered::major_boundaries;
use crate::engine::region::{Queued, StoreFile};
use crate::model::schema::{CompactionPolicy, FamilyDescriptor};
use std::sync::Arc;

/// HBase's `hbase.hstore.compaction.max`: a store of this many files or more gets a minor
/// compaction first, never a periodic major one (HBase's `selectCompaction` tries a major
/// only below it).
const MAX_FILES_FOR_MAJOR: usize = 10;

/// How [`Engine::compaction_check`] acts on what it finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CheckMode {
    /// Queue a compaction job for the background threads (the checker thread).
    Queue,
    /// Compact in the calling thread ([`crate::Db::run_compaction_check`]).
    Inline,
}

/// What the periodic major compaction knows of one store file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MajorFile {
    /// Java's `String.hashCode` of the file's name (the jitter's seed, as HBase's
    /// `StoreUtils.getDeterministicRandomSeed`).
    pub name_hash: i32,
    /// When the file was written (database clock, ms): HBase's file modification time.
    pub written_ms: i64,
    /// Oldest and newest cell timestamps (`None` without cells).
    pub min_ts: Option<i64>,
    /// Newest cell timestamp.
    pub max_ts: Option<i64>,
    /// Written by a major compaction (HBase's `isMajorCompactionResult`).
    pub major_result: bool,
}

/// Java's `String.hashCode` (`s[0]*31^(n-1) + ... + s[n-1]`, wrapping, over UTF-16 units).
pub(crate) fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// A draw in `[0, 1)` determined by `seed` (SplitMix64's output; HBase draws `nextDouble`
/// of a `java.util.Random` seeded the same way: the same files give the same jitter, here
/// and across restarts, though not HBase's number).
pub(crate) fn unit_draw(seed: i32) -> f64 {
    let mut z = (i64::from(seed) as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// The store's time between major compactions (HBase's `getNextMajorCompactTime`): 0 when
/// periodic majors are off (`period_ms` 0) or the store has no file to seed the jitter from;
/// else the period moved by `round(period × jitter)` at most, earlier or later.
pub(crate) fn next_major_period(period_ms: u64, jitter: f64, seed: Option<i32>) -> u64 {
    if period_ms == 0 || jitter <= 0.0 {
        return period_ms;
    }
    let Some(seed) = seed else { return 0 };
    let span = (period_ms as f64 * jitter).round() as u64;
    let shift = (2.0 * span as f64 * unit_draw(seed)).round() as u64;
    period_ms.saturating_add(span).saturating_sub(shift)
}

/// The age past which a file's cells have expired, for this decision: the family TTL when
/// MIN_VERSIONS is 0, else none (HBase's `HStore.getStoreFileTtl`).
pub(crate) fn store_ttl(fd: &FamilyDescriptor) -> Option<i64> {
    if fd.min_versions == 0 {
        fd.ttl_millis()
    } else {
        None
    }
}

/// The period has passed for the store (HBase: the lowest file modification time is positive
/// and before `now - mc_time`).
fn period_elapsed(files: &[MajorFile], now: i64, mc_time: u64) -> bool {
    let Some(lowest) = files.iter().map(|f| f.written_ms).min() else {
        return false;
    };
    let mc = i64::try_from(mc_time).unwrap_or(i64::MAX);
    mc_time != 0 && lowest > 0 && lowest < now.saturating_sub(mc)
}

/// HBase's `RatioBasedCompactionPolicy.shouldPerformMajorCompaction`: once the period has
/// passed, a store of two or more files is major-compacted; a store of one file only when
/// that file holds cells older than the TTL, or when it was not written by a major
/// compaction and cells in it are older than the TTL (so one major-compacted file with
/// nothing expired, or one file with no TTL, is left alone).
pub(crate) fn ratio_based_due(
    files: &[MajorFile],
    now: i64,
    mc_time: u64,
    ttl: Option<i64>,
) -> bool {
    if !period_elapsed(files, now, mc_time) {
        return false;
    }
    let [only] = files else { return true };
    let oldest_age = only.min_ts.map_or(i64::MIN, |t| now.saturating_sub(t));
    if only.major_result && ttl.is_none_or(|t| oldest_age < t) {
        return false;
    }
    ttl.is_some_and(|t| oldest_age > t)
}

/// `DateTieredCompactionPolicy.shouldPerformMajorCompaction`: once the period has passed, a
/// major compaction runs when a file holds cells older than the TTL, a file was not written
/// by a major compaction, a file's cells span two windows of `boundaries` (the major
/// compaction's output windows), or two files share a window.
pub(crate) fn date_tiered_due(
    files: &[MajorFile],
    now: i64,
    mc_time: u64,
    ttl: Option<i64>,
    boundaries: &[i64],
) -> bool {
    if !period_elapsed(files, now, mc_time) {
        return false;
    }
    let window_of = |ts: i64| boundaries.partition_point(|&b| b <= ts).saturating_sub(1);
    let mut taken = vec![false; boundaries.len()];
    for f in files {
        let oldest_age = f.min_ts.map_or(i64::MIN, |t| now.saturating_sub(t));
        if ttl.is_some_and(|t| oldest_age >= t) || !f.major_result {
            return true;
        }
        let low = window_of(f.min_ts.unwrap_or(i64::MAX));
        let high = window_of(f.max_ts.unwrap_or(i64::MAX));
        if low != high || taken[high] {
            return true;
        }
        taken[high] = true;
    }
    false
}

impl Engine {
    /// Whether the periodic major compaction of a store (`files` newest first) is due now:
    /// the family's period and jitter, or the database's, and the store's policy's rule.
    pub(crate) fn periodic_major_due(
        &self,
        fd: &FamilyDescriptor,
        files: &[Arc<StoreFile>],
        now: i64,
    ) -> bool {
        if files.is_empty() || files.len() >= MAX_FILES_FOR_MAJOR {
            return false;
        }
        let period = fd.major_compaction.period_millis.unwrap_or_else(|| {
            u64::try_from(self.opts.major_compaction_period.as_millis()).unwrap_or(u64::MAX)
        });
        let jitter = fd
            .major_compaction
            .jitter()
            .unwrap_or(self.opts.major_compaction_jitter);
        let oldest_first = dt_order(files.iter().rev().cloned().collect());
        let major_files: Vec<MajorFile> = oldest_first
            .iter()
            .map(|f| {
                let m = f.reader.meta();
                let has_cells = m.cell_count > 0;
                MajorFile {
                    name_hash: java_string_hash(&format!("{:010}.sst", f.id)),
                    written_ms: m.written_ms.unwrap_or(self.opened_ms),
                    min_ts: has_cells.then_some(m.min_ts),
                    max_ts: has_cells.then_some(m.max_ts),
                    major_result: m.major_compaction,
                }
            })
            .collect();
        let mc_time = next_major_period(period, jitter, major_files.first().map(|f| f.name_hash));
        let ttl = store_ttl(fd);
        match &fd.compaction_policy {
            CompactionPolicy::Fifo => false,
            CompactionPolicy::DateTiered(cfg) => {
                let boundaries = major_boundaries(&dt_files(&oldest_first), now, cfg);
                date_tiered_due(&major_files, now, mc_time, ttl, &boundaries)
            }
            _ => ratio_based_due(&major_files, now, mc_time, ttl),
        }
    }

    /// HBase's `CompactionChecker`: every region of every enabled table with compactions on
    /// whose stores need a compaction (minor, periodic major, or the rewrite of references)
    /// gets one: queued for the background threads, or run now in this thread. Returns the
    /// number of regions compacted or queued.
    pub(crate) fn compaction_check(&self, mode: CheckMode) -> Result<usize> {
        self.check_open()?;
        let now = self.clock.now_millis();
        let mut n = 0;
        for (t, r) in self.all_regions() {
            let desc = t.desc_arc();
            if t.is_dropped() || !t.is_enabled() || r.is_retired() {
                continue;
            }
            if !desc.is_compaction_enabled() && !r.has_references() {
                continue;
            }
            let flush_size = desc
                .table_memstore_flush_size()
                .unwrap_or(self.opts.memstore_flush_size);
            let needs = r.has_references()
                || r.current().files.iter().any(|(fam, l)| {
                    desc.get_family(fam).is_some_and(|fd| {
                        needs_minor(fd, l, now, flush_size) || self.periodic_major_due(fd, l, now)
                    })
                });
            if !needs {
                continue;
            }
            match mode {
                CheckMode::Queue => {
                    if r.try_queue(Queued::Compaction) {
                        self.bg.submit(Job::Compact(t.clone(), r.clone()));
                        n += 1;
                    }
                }
                CheckMode::Inline => {
                    self.compact_region(&t, &r, false)?;
                    n += 1;
                }
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400_000;

    fn file(written: i64, min_ts: i64, max_ts: i64, major: bool) -> MajorFile {
        MajorFile {
            name_hash: java_string_hash(&format!("{written}.sst")),
            written_ms: written,
            min_ts: Some(min_ts),
            max_ts: Some(max_ts),
            major_result: major,
        }
    }

    #[test]
    fn java_string_hash_matches_java() {
        // Values of Java's "...".hashCode().
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("a"), 97);
        assert_eq!(java_string_hash("hello"), 99_162_322);
        assert_eq!(java_string_hash("0000000042.sst"), {
            let mut h = 0i32;
            for c in "0000000042.sst".bytes() {
                h = h.wrapping_mul(31).wrapping_add(i32::from(c));
            }
            h
        });
    }

    /// HBase's `getNextMajorCompactTime`: 0 disables; the jitter moves the period by at most
    /// `period × jitter` either way, the same for the same seed; no file, no major.
    #[test]
    fn jittered_period() {
        assert_eq!(next_major_period(0, 0.5, Some(1)), 0);
        assert_eq!(next_major_period(7 * DAY as u64, 0.0, None), 7 * DAY as u64);
        assert_eq!(next_major_period(7 * DAY as u64, 0.5, None), 0);
        let week = 7 * DAY as u64;
        let mut seen = std::collections::BTreeSet::new();
        for seed in -500..500 {
            let p = next_major_period(week, 0.5, Some(seed));
            assert!((week / 2..=week * 3 / 2).contains(&p), "{p}");
            assert_eq!(p, next_major_period(week, 0.5, Some(seed)));
            seen.insert(p / DAY as u64);
        }
        // Spread over the whole ±3.5 days.
        assert!(seen.len() >= 6, "{seen:?}");
    }

    /// `RatioBasedCompactionPolicy.shouldPerformMajorCompaction`.
    #[test]
    fn ratio_based_rules() {
        let now = 100 * DAY;
        let week = 7 * DAY as u64;
        // Two files, the oldest written 8 days ago: due; 6 days ago: not yet.
        let two = [
            file(now - 8 * DAY, 0, 1, false),
            file(now - DAY, 2, 3, false),
        ];
        assert!(ratio_based_due(&two, now, week, None));
        let young = [
            file(now - 6 * DAY, 0, 1, false),
            file(now - DAY, 2, 3, false),
        ];
        assert!(!ratio_based_due(&young, now, week, None));
        assert!(!ratio_based_due(&two, now, 0, None), "0 disables");
        // One file: left alone without a TTL, major result or not.
        let one_major = [file(now - 8 * DAY, now - 9 * DAY, now - 8 * DAY, true)];
        let one_flushed = [file(now - 8 * DAY, now - 9 * DAY, now - 8 * DAY, false)];
        assert!(!ratio_based_due(&one_major, now, week, None));
        assert!(!ratio_based_due(&one_flushed, now, week, None));
        // With a TTL its oldest cell outlived: due, major result or not; within it: not.
        assert!(ratio_based_due(&one_major, now, week, Some(DAY)));
        assert!(ratio_based_due(&one_flushed, now, week, Some(DAY)));
        assert!(!ratio_based_due(&one_major, now, week, Some(30 * DAY)));
        // A write time of 0 or before (unknown in HBase) never counts.
        let zero = [file(0, 0, 1, false), file(0, 2, 3, false)];
        assert!(!ratio_based_due(&zero, now, week, None));
    }

    /// `DateTieredCompactionPolicy.shouldPerformMajorCompaction`, with the windows of HBase's
    /// `TestDateTieredCompactionPolicy.majorCompation` ([MIN, 24, 48, ...]).
    #[test]
    fn date_tiered_rules() {
        let b = [i64::MIN, 24, 48, 72, 96, 120, 144, 150, 156];
        let now = 161;
        // As `majorCompation`: major-compacted files whose cells cross windows: due.
        let crossing = [file(1, 0, 44, true), file(1, 50, 60, true)];
        assert!(date_tiered_due(&crossing, now, 5, None, &b));
        // One file per window, all major results: not due.
        let laid_out = [
            file(1, 0, 20, true),
            file(1, 30, 40, true),
            file(1, 150, 155, true),
        ];
        assert!(!date_tiered_due(&laid_out, now, 5, None, &b));
        // Two files in one window, or a file not from a major compaction: due.
        let shared = [file(1, 0, 10, true), file(1, 12, 20, true)];
        assert!(date_tiered_due(&shared, now, 5, None, &b));
        let flushed = [file(1, 0, 20, true), file(1, 30, 40, false)];
        assert!(date_tiered_due(&flushed, now, 5, None, &b));
        // A cell older than the TTL: due.
        assert!(date_tiered_due(&laid_out, now, 5, Some(100), &b));
        // Before the period: never.
        assert!(!date_tiered_due(&crossing, 3, 5, None, &b));
    }
}
