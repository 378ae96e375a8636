//! The per-(row, family) state machines the matchers are built from: the delete tracker of
//! [DEL-5] and the column/version trackers of [VER-1..8] (HBase's `ScanDeleteTracker`,
//! `ScanWildcardColumnTracker` and `ExplicitColumnTracker`).
//!
//! The trackers speak HBase's internal vocabulary ([`Step`]), which distinguishes "include and
//! leave the column/row" from a plain include; the matchers translate a step into the public
//! [`super::MatchCode`] and remember the "leave" part themselves.

use crate::model::CellType;
use std::cmp::Ordering;

/// What a tracker wants done with the current cell. "Row" means the current (row, family): a
/// matcher works per store, exactly like HBase's per-store `ScanQueryMatcher`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    Include,
    Skip,
    SeekNextCol,
    SeekNextRow,
    IncludeAndSeekNextCol,
    IncludeAndSeekNextRow,
}

/// Why a Put is masked ([DEL-5] item 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Deleted {
    No,
    /// `ts <= familyStamp` (a `DF`). Every older cell of the column is masked too.
    Family,
    /// `ts` is in the family-version set (a `DFV`).
    FamilyVersion,
    /// The pending column marker is a `DC` of this qualifier. Older cells are masked too.
    Column,
    /// The pending column marker is a `D` of this qualifier with this exact ts.
    Version,
}

/// [DEL-5]: the markers of one (row, family), as HBase's `ScanDeleteTracker` keeps them.
#[derive(Debug, Default)]
pub(super) struct DeleteTracker {
    /// Timestamp of the newest `DF` seen ([DEL-5] 1).
    family_stamp: Option<i64>,
    /// Timestamps of `DFV`s seen above the family stamp ([DEL-5] 1). Tiny in practice.
    family_versions: Vec<i64>,
    /// The one pending column marker ([DEL-5] 2): qualifier, ts, and whether it is a `DC`.
    has_column: bool,
    column_qualifier: Vec<u8>,
    column_ts: i64,
    column_is_dc: bool,
}

impl DeleteTracker {
    /// Forgets everything (new row or family).
    pub(super) fn reset(&mut self) {
        self.family_stamp = None;
        self.family_versions.clear();
        self.has_column = false;
    }

    /// Nothing tracked: [`DeleteTracker::is_deleted`] answers [`Deleted::No`] without changing
    /// anything.
    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.family_stamp.is_none() && self.family_versions.is_empty() && !self.has_column
    }

    /// Records a marker ([DEL-5] 1-2). REQUIRES: `ty.is_delete()`.
    pub(super) fn add(&mut self, qualifier: &[u8], ts: i64, ty: CellType) {
        // [DEL-5] 1: anything at or below the family stamp is already covered.
        if self.family_stamp.is_some_and(|f| ts <= f) {
            return;
        }
        match ty {
            CellType::DeleteFamily => self.family_stamp = Some(ts),
            CellType::DeleteFamilyVersion => {
                if !self.family_versions.contains(&ts) {
                    self.family_versions.push(ts);
                }
            }
            CellType::DeleteColumn | CellType::Delete => {
                let is_dc = ty == CellType::DeleteColumn;
                // [DEL-5] 2: a D after a DC of the same qualifier is ignored (HBase: a type code
                // below the pending one on the same qualifier is "less specific").
                if self.has_column
                    && self.column_is_dc
                    && !is_dc
                    && self.column_qualifier == qualifier
                {
                    return;
                }
                self.has_column = true;
                self.column_qualifier.clear();
                self.column_qualifier.extend_from_slice(qualifier);
                self.column_ts = ts;
                self.column_is_dc = is_dc;
            }
            CellType::Put => debug_assert!(false, "a Put is not a marker"),
        }
    }

    /// Whether a Put is masked ([DEL-5] 3). Like HBase, a pending `D` is dropped when a Put of its
    /// qualifier with another timestamp, or a Put of a later qualifier, is checked.
    pub(super) fn is_deleted(&mut self, qualifier: &[u8], ts: i64) -> Deleted {
        if self.family_stamp.is_some_and(|f| ts <= f) {
            return Deleted::Family;
        }
        if self.family_versions.contains(&ts) {
            return Deleted::FamilyVersion;
        }
        if self.has_column {
            match qualifier.cmp(&self.column_qualifier) {
                Ordering::Equal => {
                    if self.column_is_dc {
                        return Deleted::Column;
                    }
                    if ts == self.column_ts {
                        return Deleted::Version;
                    }
                    // An older version of the D's column: the D is spent.
                    self.has_column = false;
                }
                // A later column: the pending marker cannot apply any more.
                Ordering::Greater => self.has_column = false,
                // Cannot happen in [SORT-1] order (HBase throws); keep the marker, mask nothing.
                Ordering::Less => {}
            }
        }
        Deleted::No
    }

    /// [CMP-4] (HBASE-30036): a marker made redundant by a tracked newer marker of this row and
    /// family: any marker at or below the family stamp, or a `D`/`DC` of the qualifier of a
    /// pending `DC` with a ts not above it.
    pub(super) fn is_redundant(&self, qualifier: &[u8], ts: i64, ty: CellType) -> bool {
        if self.family_stamp.is_some_and(|f| ts <= f) {
            return true;
        }
        matches!(ty, CellType::Delete | CellType::DeleteColumn)
            && self.has_column
            && self.column_is_dc
            && ts <= self.column_ts
            && self.column_qualifier == qualifier
    }
}

/// Column and version tracking for one (row, family): HBase's `ScanWildcardColumnTracker`
/// (`explicit == false`) or `ExplicitColumnTracker` (the requested qualifiers are passed to each
/// call as `cols`, sorted ascending and de-duplicated).
#[derive(Debug)]
pub(super) struct ColumnTracker {
    /// Versions to let through per column (`Vcheck`, [VER-2] [VER-6]).
    max: u32,
    /// MIN_VERSIONS ([TTL-4]).
    min: u32,
    /// Cells with `ts < oldest` are TTL-expired ([TTL-2]).
    oldest: i64,
    explicit: bool,
    /// Versions counted in the current column.
    count: u32,
    /// (ts, type code) of the last version included in the current column, for [VER-4].
    /// The explicit tracker compares only the ts (HBase's `sameAsPreviousTS`).
    last: Option<(i64, u8)>,
    /// Wildcard: the current column's qualifier.
    has_col: bool,
    col: Vec<u8>,
    /// Explicit: index of the requested column being looked for.
    index: usize,
}

impl ColumnTracker {
    pub(super) fn new(explicit: bool, max: u32, min: u32, oldest: i64) -> Self {
        ColumnTracker {
            max,
            min,
            oldest,
            explicit,
            count: 0,
            last: None,
            has_col: false,
            col: Vec::new(),
            index: 0,
        }
    }

    /// Re-arms the tracker for a new (row, family) with that family's settings.
    pub(super) fn reset(&mut self, explicit: bool, max: u32, min: u32, oldest: i64) {
        self.max = max;
        self.min = min;
        self.oldest = oldest;
        self.explicit = explicit;
        self.count = 0;
        self.last = None;
        self.has_col = false;
        self.index = 0;
    }

    /// Forgets the current column (as a new tracker would), keeping the buffer.
    pub(super) fn forget_column(&mut self) {
        self.has_col = false;
        self.col.clear();
    }

    fn is_expired(&self, ts: i64) -> bool {
        ts < self.oldest
    }

    /// Explicit: every requested column has been served. Wildcard: never.
    pub(super) fn done(&self, cols: &[Vec<u8>]) -> bool {
        self.explicit && self.index >= cols.len()
    }

    /// Early out on the timestamp alone: no MIN_VERSIONS and family-expired ([TTL-2], 1.4.1
    /// step 2, [CMP-2] (b)).
    pub(super) fn is_done(&self, ts: i64) -> bool {
        self.min == 0 && self.is_expired(ts)
    }

    /// The matcher is finished with the current cell's column.
    pub(super) fn next_row_or_next_column(&mut self, qualifier: &[u8], cols: &[Vec<u8>]) -> Step {
        if !self.explicit {
            return Step::SeekNextCol;
        }
        self.done_with_column(qualifier, cols);
        if self.done(cols) {
            Step::SeekNextRow
        } else {
            Step::SeekNextCol
        }
    }

    /// Explicit: moves past the requested column(s) at or below `qualifier`.
    fn done_with_column(&mut self, qualifier: &[u8], cols: &[Vec<u8>]) {
        while self.index < cols.len() {
            let cmp = qualifier.cmp(&cols[self.index]);
            self.last = None;
            if cmp == Ordering::Less {
                return;
            }
            self.advance();
            if cmp == Ordering::Equal {
                return;
            }
        }
    }

    fn advance(&mut self) {
        self.index += 1;
        self.count = 0;
        self.last = None;
    }

    /// Is the qualifier requested ([GET-1], 1.4.1 step 6)? Only Puts reach this.
    pub(super) fn check_column(&mut self, qualifier: &[u8], cols: &[Vec<u8>]) -> Step {
        if !self.explicit {
            return Step::Include;
        }
        loop {
            if self.index >= cols.len() {
                return Step::SeekNextRow;
            }
            match qualifier.cmp(&cols[self.index]) {
                Ordering::Equal => return Step::Include,
                Ordering::Less => {
                    self.last = None;
                    return Step::SeekNextCol;
                }
                Ordering::Greater => {
                    self.advance();
                    if self.index >= cols.len() {
                        return Step::SeekNextRow;
                    }
                }
            }
        }
    }

    /// `ts` is not family-expired (and so passes both TTL checks of the trackers).
    #[inline]
    pub(super) fn unexpired(&self, ts: i64) -> bool {
        !self.is_expired(ts)
    }

    /// [`ColumnTracker::check_versions`] for a Put that is not expired, in the wildcard tracker
    /// (the fast path of a normal read). REQUIRES: `!explicit`, `unexpired(ts)`.
    #[inline]
    /// `new_column`: `qualifier` is known to differ from the current column's.
    pub(super) fn check_unexpired_put(
        &mut self,
        qualifier: &[u8],
        ts: i64,
        new_column: bool,
    ) -> Step {
        debug_assert!(!self.explicit && !self.is_expired(ts));
        debug_assert!(!new_column || !self.has_col || self.col.as_slice() != qualifier);
        let put = CellType::Put.code();
        if new_column || !self.has_col || self.col.as_slice() != qualifier {
            self.has_col = true;
            self.col.clear();
            self.col.extend_from_slice(qualifier);
            self.count = 0;
            self.last = None;
        } else if self.last == Some((ts, put)) {
            return Step::Skip;
        }
        self.count = self.count.saturating_add(1);
        if self.count > self.max {
            return Step::SeekNextCol;
        }
        // Not expired: `count <= min || !is_expired(ts)` holds.
        self.last = Some((ts, put));
        Step::Include
    }

    /// Version counting (1.4.1 steps 7-8, [CMP-2] (d)). Markers may reach the wildcard tracker
    /// (raw scans, major compaction under KDC): they are not counted but take part in the
    /// duplicate check and the limits.
    pub(super) fn check_versions(
        &mut self,
        qualifier: &[u8],
        ts: i64,
        type_code: u8,
        cols: &[Vec<u8>],
    ) -> Step {
        if self.explicit {
            return self.check_versions_explicit(ts, cols);
        }
        if !self.has_col || self.col.as_slice() != qualifier {
            // A new column (the stream is sorted, so it can only be a later one).
            self.has_col = true;
            self.col.clear();
            self.col.extend_from_slice(qualifier);
            self.count = 0;
            self.last = None;
        } else if self.last == Some((ts, type_code)) {
            // [VER-4]: same ts and type as the last included version.
            return Step::Skip;
        }
        if type_code == CellType::Put.code() {
            self.count = self.count.saturating_add(1);
        }
        if self.count > self.max {
            return Step::SeekNextCol;
        }
        // [TTL-4]: the first `min` versions survive expiry; after that an expired version ends
        // the column.
        if self.count <= self.min || !self.is_expired(ts) {
            self.last = Some((ts, type_code));
            Step::Include
        } else {
            Step::SeekNextCol
        }
    }

    /// `ExplicitColumnTracker.checkVersions`, including the [VER-8] quirk: once `min` versions
    /// are counted, the first expired version is INCLUDED and ends the column.
    fn check_versions_explicit(&mut self, ts: i64, cols: &[Vec<u8>]) -> Step {
        if self.last.is_some_and(|(t, _)| t == ts) {
            return Step::Skip;
        }
        self.count = self.count.saturating_add(1);
        if self.count >= self.max || (self.count >= self.min && self.is_expired(ts)) {
            self.advance();
            return if self.done(cols) {
                Step::IncludeAndSeekNextRow
            } else {
                Step::IncludeAndSeekNextCol
            };
        }
        self.last = Some((ts, 0));
        Step::Include
    }
}
