//! [`UserMatcher`]: what a Get or Scan returns, cell by cell (1.4.1 steps 1-8,
//! [SCAN-RAW-1]).

use super::trackers::{ColumnTracker, DeleteTracker, Deleted, Step};
use super::*;

/// Decides, cell by cell, what a Get or Scan returns (1.4.1 steps 1-8, [SCAN-RAW-1]).
///
/// The caller has already dropped cells above its MVCC read point. Step 9 (the filter) is the
/// caller's: when [`ReadSpec::has_filter`] is set it runs its filter on each cell answered
/// [`MatchCode::Include`] and reports filter-included cells to
/// [`UserMatcher::note_filter_included`].
#[derive(Debug)]
pub struct UserMatcher {
    /// Selected families, sorted by name.
    families: Vec<ReadFamily>,
    now: i64,
    /// The current family's time range (the read's, or the family's own [SCAN-5]).
    tr_min: i64,
    tr_max: i64,
    /// Some family has a time range of its own [SCAN-5]: `tr_min`/`tr_max` follow the
    /// family (otherwise they stay the read's).
    family_ranges: bool,
    query_versions: u32,
    raw: bool,
    has_filter: bool,
    pos: Position,
    /// Index into `families` of the current family; `None` = not read.
    current: Option<usize>,
    deletes: DeleteTracker,
    columns: ColumnTracker,
    /// [VER-6]: filter-included cells counted in the column of `filter_row/family/qualifier`.
    filter_count: u32,
    filter_valid: bool,
    filter_row: Vec<u8>,
    filter_family: Vec<u8>,
    filter_qualifier: Vec<u8>,
    /// The current (row, family) is a normal read with the wildcard column tracker, so
    /// [`UserMatcher::match_fast`] may decide its ordinary cells.
    plain: bool,
    /// Whether `plain` may be set at all (tests turn it off to compare both paths).
    fast_path: bool,
    /// [GET-3] the per (row, family) window, and the cells of the current (row, family) the
    /// read returned or would have returned but for the offset (HBase's `countPerRow`).
    window: FamilyWindow,
    window_count: u32,
    /// Cells the fast path decided (tests check that it is exercised).
    #[cfg(test)]
    pub(crate) fast_decided: u64,
}

impl UserMatcher {
    /// A matcher for `spec` over a region whose families are `families`. Families the spec does
    /// not select, or that `families` does not describe, are skipped ([`MatchCode::SeekNextFamily`]).
    pub fn new(families: &[FamilyDescriptor], spec: ReadSpec) -> Self {
        let mut selected = Vec::new();
        select_families(&mut selected, families, &spec);
        UserMatcher {
            families: selected,
            now: spec.now,
            tr_min: spec.time_range.0,
            tr_max: spec.time_range.1,
            family_ranges: spec.family_time_ranges().is_some(),
            query_versions: spec.max_versions,
            raw: spec.raw,
            has_filter: spec.has_filter,
            pos: Position::default(),
            current: None,
            deletes: DeleteTracker::default(),
            columns: ColumnTracker::new(false, 1, 0, i64::MIN),
            filter_count: 0,
            filter_valid: false,
            filter_row: Vec::new(),
            filter_family: Vec::new(),
            filter_qualifier: Vec::new(),
            plain: false,
            fast_path: true,
            window: spec.window(),
            window_count: 0,
            #[cfg(test)]
            fast_decided: 0,
        }
    }

    /// Turns the fast path ([`UserMatcher::match_fast`]) on or off; off, every cell takes the
    /// general path. For tests that compare both.
    #[cfg(test)]
    pub(crate) fn set_fast_path(&mut self, on: bool) {
        self.fast_path = on;
        self.plain = false;
    }

    /// Turns this matcher into `UserMatcher::new(families, spec)`, keeping its buffers (the
    /// family list, the position and column copies): a read path that reuses one matcher per
    /// thread allocates nothing for it.
    pub fn reinit(&mut self, families: &[FamilyDescriptor], spec: &ReadSpec) {
        select_families(&mut self.families, families, spec);
        self.now = spec.now;
        self.tr_min = spec.time_range.0;
        self.tr_max = spec.time_range.1;
        self.family_ranges = spec.family_time_ranges().is_some();
        self.query_versions = spec.max_versions;
        self.raw = spec.raw;
        self.has_filter = spec.has_filter;
        // `started == false` makes the first cell a new family: every other position field is
        // rewritten then.
        self.pos.started = false;
        self.pos.family_done = false;
        self.pos.column_done = false;
        self.current = None;
        self.deletes.reset();
        self.columns.reset(false, 1, 0, i64::MIN);
        self.columns.forget_column();
        self.filter_count = 0;
        self.filter_valid = false;
        self.plain = false;
        self.window = spec.window();
        self.window_count = 0;
    }

    /// Versions the column tracker lets through (`Vcheck`, [VER-2] [VER-6] [SCAN-RAW-1]).
    fn versions_to_check(&self, rules: &FamilyRules) -> u32 {
        match (self.raw, self.has_filter) {
            (true, true) => u32::MAX,
            (true, false) => self.query_versions,
            (false, true) => rules.max_versions,
            (false, false) => self.query_versions.min(rules.max_versions),
        }
    }

    /// Versions returned per column after the filter (`Vout`, [VER-6]).
    fn versions_out(&self, rules: &FamilyRules) -> u32 {
        if self.raw {
            self.query_versions
        } else {
            self.query_versions.min(rules.max_versions)
        }
    }

    fn enter(&mut self, key: &KeyRef<'_>) {
        let moved = self.pos.update(key);
        if let Moved::Same = moved {
            return;
        }
        if let Moved::NewFamily = moved {
            self.current = self
                .families
                .binary_search_by(|f| f.rules.name.as_slice().cmp(key.family))
                .ok();
        }
        self.deletes.reset();
        self.plain = false;
        self.window_count = 0;
        if let Some(i) = self.current {
            let fam = &self.families[i];
            if self.family_ranges {
                (self.tr_min, self.tr_max) = fam.time_range;
            }
            let max = self.versions_to_check(&fam.rules);
            // [TTL-6]: raw scans use 0 as the oldest unexpired ts (HBase's StoreScanner).
            let oldest = if self.raw {
                0
            } else {
                fam.rules.oldest_unexpired(self.now)
            };
            let explicit = !self.raw && !fam.qualifiers.is_empty();
            self.columns
                .reset(explicit, max, fam.rules.min_versions, oldest);
            self.plain = self.fast_path && !self.raw && !explicit;
        }
    }

    /// The verdict on the next cell of the stream.
    #[cfg(any(test, feature = "testing"))]
    #[inline]
    pub fn match_cell(&mut self, key: &KeyRef<'_>, payload: &PayloadRef<'_>) -> MatchCode {
        self.match_cell_in_row(key, payload, Known::default())
    }

    /// [`UserMatcher::match_cell`] with what the caller knows about the cell without a
    /// comparison (see [`Known`]; `Known::default()` is always allowed).
    #[inline]
    pub fn match_cell_in_row(
        &mut self,
        key: &KeyRef<'_>,
        payload: &PayloadRef<'_>,
        known: Known,
    ) -> MatchCode {
        debug_assert!(!known.row || !self.pos.started || key.row == self.pos.row.as_slice());
        debug_assert!(
            !known.family
                || (key.row == self.pos.row.as_slice() && key.family == self.pos.family.as_slice())
        );
        if self.plain
            && let Some(code) = self.match_fast(key, payload, known)
        {
            #[cfg(test)]
            {
                self.fast_decided += 1;
            }
            return code;
        }
        self.match_general(key, payload)
    }

    /// The common case of a normal read, decided without the general path's detours: a Put of
    /// the current (row, family) with the wildcard tracker, no cell TTL, not family-expired,
    /// inside the time range, and no delete marker tracked in this (row, family). `None` (having
    /// changed nothing) for any other cell.
    ///
    /// Exactly what [`UserMatcher::match_general`] answers for such a cell, with the same state
    /// changes: `enter` finds the same (row, family); `already_left` is checked first; the
    /// explicit-list and family-TTL checks of `match_normal` pass (wildcard, `ts >= oldest`),
    /// the cell-TTL check passes (none), the cell is a Put, an empty delete tracker masks
    /// nothing and does not change, the time range passes and the wildcard column check
    /// includes; version counting is `check_versions` for an unexpired Put.
    /// `tests::fast_path_differential` compares both paths over random streams.
    #[inline]
    fn match_fast(
        &mut self,
        key: &KeyRef<'_>,
        payload: &PayloadRef<'_>,
        known: Known,
    ) -> Option<MatchCode> {
        let pos = &self.pos;
        if !known.family
            && ((!known.row && key.row != pos.row.as_slice())
                || key.family != pos.family.as_slice())
        {
            return None;
        }
        if let Some(code) = pos.already_left(key, known.new_column) {
            return Some(code);
        }
        let ts = key.ts;
        if key.type_code != CellType::Put.code()
            || payload.ttl_ms.is_some()
            || ts >= self.tr_max
            || ts < self.tr_min
            || !self.columns.unexpired(ts)
            || !self.deletes.is_empty()
        {
            return None;
        }
        let step = self
            .columns
            .check_unexpired_put(key.qualifier, ts, known.new_column);
        Some(self.pos.apply(key, step))
    }

    /// The general path: every rule of `match_normal` / `match_raw`.
    fn match_general(&mut self, key: &KeyRef<'_>, payload: &PayloadRef<'_>) -> MatchCode {
        self.enter(key);
        let Some(i) = self.current else {
            return MatchCode::SeekNextFamily;
        };
        if let Some(code) = self.pos.already_left(key, false) {
            return code;
        }
        let step = if self.raw {
            self.match_raw(i, key)
        } else {
            self.match_normal(i, key, payload)
        };
        self.pos.apply(key, step)
    }

    /// `NormalUserScanQueryMatcher.match` (1.4.1).
    fn match_normal(&mut self, i: usize, key: &KeyRef<'_>, payload: &PayloadRef<'_>) -> Step {
        let fam = &self.families[i];
        let cols = fam.qualifiers.as_slice();
        let (q, ts) = (key.qualifier, key.ts);
        // preCheck: an exhausted explicit column list ends the family.
        if self.columns.done(cols) {
            return Step::SeekNextRow;
        }
        // Step 2: m == 0 and family-expired: this cell and the rest of the column [TTL-2].
        if self.columns.is_done(ts) {
            return self.columns.next_row_or_next_column(q, cols);
        }
        // Step 1: cell TTL [TTL-3]; MIN_VERSIONS does not protect it [TTL-4].
        if cell_ttl_expired(ts, payload, self.now) {
            return Step::Skip;
        }
        let Some(ty) = key.cell_type() else {
            return Step::Skip;
        };
        if ty.is_delete() {
            // Step 3: [KDC-1] FALSE honours markers at or after the range start; [KDC-2] [KDC-5]
            // TRUE/TTL only markers inside the range. Never returned [DEL-4].
            let honoured = match fam.rules.kdc {
                KeepDeletedCells::False => ts >= self.tr_min,
                KeepDeletedCells::True | KeepDeletedCells::Ttl => {
                    ts >= self.tr_min && ts < self.tr_max
                }
            };
            if honoured {
                self.deletes.add(q, ts, ty);
            }
            return Step::Skip;
        }
        // Step 4: masked Puts are not counted [VER-3].
        match self.deletes.is_deleted(q, ts) {
            Deleted::No => {}
            Deleted::Family | Deleted::Column => {
                return self.columns.next_row_or_next_column(q, cols);
            }
            Deleted::FamilyVersion | Deleted::Version => return Step::Skip,
        }
        self.match_column(i, key, ty)
    }

    /// `UserScanQueryMatcher.matchColumn`: time range [VER-5], column selection [GET-1], then
    /// versions [VER-4] [VER-2].
    fn match_column(&mut self, i: usize, key: &KeyRef<'_>, ty: CellType) -> Step {
        let cols = self.families[i].qualifiers.as_slice();
        let (q, ts) = (key.qualifier, key.ts);
        if ts >= self.tr_max {
            return Step::Skip;
        }
        if ts < self.tr_min {
            return self.columns.next_row_or_next_column(q, cols);
        }
        match self.columns.check_column(q, cols) {
            Step::Include => {}
            other => return other,
        }
        self.columns.check_versions(q, ts, ty.code(), cols)
    }

    /// `RawScanQueryMatcher.match` [SCAN-RAW-1]: markers and masked cells are returned; no TTL
    /// [TTL-6]; the time range applies to markers too [KDC-6]; markers are not counted.
    fn match_raw(&mut self, i: usize, key: &KeyRef<'_>) -> Step {
        let Some(ty) = key.cell_type() else {
            return Step::Skip;
        };
        let fam = &self.families[i];
        // HBase rejects explicit columns in raw scans [KDC-6]; if a caller passes them anyway,
        // cells of other qualifiers (family markers included) are skipped.
        if !fam.qualifiers.is_empty()
            && fam
                .qualifiers
                .binary_search_by(|c| c.as_slice().cmp(key.qualifier))
                .is_err()
        {
            return Step::SeekNextCol;
        }
        if self.columns.is_done(key.ts) {
            return Step::SeekNextCol;
        }
        if key.ts >= self.tr_max {
            return Step::Skip;
        }
        if key.ts < self.tr_min {
            return Step::SeekNextCol;
        }
        self.columns
            .check_versions(key.qualifier, key.ts, ty.code(), &[])
    }

    /// [VER-6] With a filter: call after the caller's filter INCLUDEd a cell this matcher
    /// answered [`MatchCode::Include`] for. Returns `false` when the column already has
    /// `min(query versions, VERSIONS)` (raw: query versions) filter-included cells: drop the cell;
    /// the rest of the column is then answered [`MatchCode::SeekNextColumn`] (the caller may seek).
    pub fn note_filter_included(&mut self, key: &KeyRef<'_>) -> bool {
        let Some(i) = self.current else {
            return false;
        };
        let limit = self.versions_out(&self.families[i].rules);
        let same = self.filter_valid
            && self.filter_row.as_slice() == key.row
            && self.filter_family.as_slice() == key.family
            && self.filter_qualifier.as_slice() == key.qualifier;
        if !same {
            for (buf, part) in [
                (&mut self.filter_row, key.row),
                (&mut self.filter_family, key.family),
                (&mut self.filter_qualifier, key.qualifier),
            ] {
                buf.clear();
                buf.extend_from_slice(part);
            }
            self.filter_valid = true;
            self.filter_count = 0;
        }
        self.filter_count = self.filter_count.saturating_add(1);
        if self.filter_count > limit {
            if key.row == self.pos.row.as_slice() && key.family == self.pos.family.as_slice() {
                self.pos.apply(key, Step::SeekNextCol);
            }
            false
        } else {
            true
        }
    }

    /// True when the read has a per (row, family) window [GET-3]: then every cell the read
    /// returns goes through [`UserMatcher::admit`] first.
    #[inline]
    pub fn has_window(&self) -> bool {
        self.window.is_set()
    }

    /// [GET-3] Call for each cell the read would return (the matcher answered
    /// [`MatchCode::Include`], the filter included it and [`UserMatcher::note_filter_included`]
    /// kept it), in order. HBase's `StoreScanner.next`: `countPerRow` counts the cell; a cell
    /// within the offset is dropped; once `offset + limit` cells were counted the rest of the
    /// (row, family) is left ([`Admit::KeepLast`]; further cells of it are answered
    /// [`MatchCode::SeekNextFamily`]). As in HBase the limit is checked only after a cell past
    /// the offset was kept, so a limit of 0 returns one cell.
    pub fn admit(&mut self) -> Admit {
        if !self.window.is_set() {
            return Admit::Keep;
        }
        self.window_count = self.window_count.saturating_add(1);
        if self.window_count <= self.window.offset {
            return Admit::Skip;
        }
        match self.window.limit {
            Some(limit) if self.window_count >= self.window.offset.saturating_add(limit) => {
                self.pos.family_done = true;
                Admit::KeepLast
            }
            _ => Admit::Keep,
        }
    }
}

/// What [`UserMatcher::admit`] decided about a cell the read would return [GET-3].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// Within the row offset: drop it.
    Skip,
    /// Return it.
    Keep,
    /// Return it; it is the family's last in this row: leave the (row, family).
    KeepLast,
}
