//! [`CompactionMatcher`]: what a flush or compaction of one store writes out, cell by cell
//! (1.7).

use super::trackers::{ColumnTracker, DeleteTracker, Deleted, Step};
use super::*;

/// Which retention rules a [`CompactionMatcher`] applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionKind {
    /// Writing the memstore snapshot to a file [CMP-1]: minor rules.
    Flush,
    /// Compacting some of a store's files: markers are kept [DEL-11].
    Minor,
    /// Compacting all of a store's files: markers may be dropped [CMP-5].
    Major,
}

/// Decides, cell by cell, what a flush or compaction of one store (family) writes out (1.7).
///
/// Cells above the smallest read point of open scanners ([`CompactionMatcher::max_read_point`])
/// are kept and never used for masking, as in HBase's compaction matchers
/// (`maxReadPointToTrackVersions`, §1.7).
#[derive(Debug)]
pub struct CompactionMatcher {
    rules: FamilyRules,
    kind: CompactionKind,
    now: i64,
    oldest: i64,
    earliest_put_ts: i64,
    purge_delete_after_ms: i64,
    pos: Position,
    deletes: DeleteTracker,
    columns: ColumnTracker,
    max_read_point: u64,
}

impl CompactionMatcher {
    /// Sets the smallest read point of open scanners (default: none open, `u64::MAX`). A marker
    /// above it is kept and not tracked; a Put above it is still dropped when an older-sequence
    /// marker masks it, otherwise kept without counting as a version
    /// (`MinorCompactionScanQueryMatcher` / `MajorCompactionScanQueryMatcher.match`,
    /// `ScanWildcardColumnTracker.checkVersions(ignoreCount)`).
    pub fn max_read_point(mut self, read_point: u64) -> Self {
        self.max_read_point = read_point;
        self
    }

    /// `earliest_put_ts` = min over the inputs' EARLIEST_PUT_TS (`i64::MAX` if none) [KDC-4];
    /// `purge_delete_after_ms` = `hbase.hstore.time.to.purge.deletes` (0 default) [DEL-13].
    pub fn new(
        family: &FamilyDescriptor,
        kind: CompactionKind,
        now: i64,
        earliest_put_ts: i64,
        purge_delete_after_ms: i64,
    ) -> Self {
        let rules = FamilyRules::of(family);
        let oldest = rules.oldest_unexpired(now);
        // [CMP-2]: always the wildcard tracker with Vcheck = V, m and the family TTL.
        let columns = ColumnTracker::new(false, rules.max_versions, rules.min_versions, oldest);
        CompactionMatcher {
            rules,
            kind,
            now,
            oldest,
            earliest_put_ts,
            purge_delete_after_ms,
            pos: Position::default(),
            deletes: DeleteTracker::default(),
            columns,
            max_read_point: u64::MAX,
        }
    }

    /// [CMP-3] [KDC-5]: markers used to mask Puts: all (FALSE), expired ones (TTL), none (TRUE).
    fn tracks(&self, ts: i64) -> bool {
        match self.rules.kdc {
            KeepDeletedCells::False => true,
            KeepDeletedCells::Ttl => ts < self.oldest,
            KeepDeletedCells::True => false,
        }
    }

    /// Include = write to the output; Skip / SeekNextColumn / SeekNextFamily = drop
    /// (SeekNextColumn: drop the rest of the column too).
    pub fn match_cell(&mut self, key: &KeyRef<'_>, payload: &PayloadRef<'_>) -> MatchCode {
        if !matches!(self.pos.update(key), Moved::Same) {
            self.deletes.reset();
            let r = &self.rules;
            self.columns
                .reset(false, r.max_versions, r.min_versions, self.oldest);
        }
        if let Some(code) = self.pos.already_left(key, false) {
            return code;
        }
        let step = self.match_inner(key, payload);
        self.pos.apply(key, step)
    }

    fn match_inner(&mut self, key: &KeyRef<'_>, payload: &PayloadRef<'_>) -> Step {
        let (q, ts) = (key.qualifier, key.ts);
        // [CMP-2] (b), [TTL-7]: m == 0 and family-expired (markers too): drop the rest.
        if self.columns.is_done(ts) {
            return Step::SeekNextCol;
        }
        // [CMP-2] (a): cell TTL [TTL-3] [TTL-5].
        if cell_ttl_expired(ts, payload, self.now) {
            return Step::Skip;
        }
        let Some(ty) = key.cell_type() else {
            // Not a stored type: keep it rather than lose data.
            return Step::Include;
        };
        let above_read_point = key.seq > self.max_read_point;
        if ty.is_delete() {
            if above_read_point {
                // An open scanner may not see it yet: keep it, mask nothing with it.
                return Step::Include;
            }
            match self.kind {
                CompactionKind::Flush | CompactionKind::Minor => {
                    // [CMP-4]: drop a marker already covered by a tracked newer one.
                    if self.deletes.is_redundant(q, ts, ty) {
                        return Step::Skip;
                    }
                    if self.tracks(ts) {
                        self.deletes.add(q, ts, ty);
                    }
                    // [DEL-11]: flush and minor compaction keep markers.
                    return Step::Include;
                }
                CompactionKind::Major => {
                    if self.tracks(ts) {
                        self.deletes.add(q, ts, ty);
                    }
                    if let Some(step) = self.try_drop_delete(ts) {
                        return step;
                    }
                    // [KDC-4]: version-counted with the Puts of its column, not counted itself.
                }
            }
        } else {
            // [CMP-2] (c): Puts masked by tracked markers.
            match self.deletes.is_deleted(q, ts) {
                Deleted::No => {}
                Deleted::Family | Deleted::Column => return Step::SeekNextCol,
                Deleted::FamilyVersion | Deleted::Version => return Step::Skip,
            }
            if above_read_point {
                // Kept without counting as a version (`checkVersions(.., ignoreCount)`).
                return Step::Include;
            }
        }
        // [CMP-2] (d): versions with Vcheck = V, m and expiry; duplicates dropped [VER-4].
        self.columns.check_versions(q, ts, ty.code(), &[])
    }

    /// `DropDeletesCompactionScanQueryMatcher.tryDropDelete` ([CMP-5], [DEL-13], [KDC-4],
    /// [KDC-5]). `None` = let version counting decide.
    fn try_drop_delete(&self, ts: i64) -> Option<Step> {
        let p = self.purge_delete_after_ms;
        if p > 0 && i128::from(self.now) - i128::from(ts) <= i128::from(p) {
            return Some(Step::Include);
        }
        let kept_by_kdc = match self.rules.kdc {
            KeepDeletedCells::False => false,
            KeepDeletedCells::True => true,
            KeepDeletedCells::Ttl => ts >= self.oldest,
        };
        if !kept_by_kdc {
            return Some(Step::Skip);
        }
        // No Put of the whole compaction is this old: nothing left to mask. Everything after it
        // in the column is older still (markers only), so the rest of the column goes too.
        if ts < self.earliest_put_ts {
            return Some(Step::SeekNextCol);
        }
        None
    }
}
