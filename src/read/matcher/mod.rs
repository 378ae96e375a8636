//! The visibility matcher: pure, cell-by-cell decisions about what a read returns
//! ([`UserMatcher`], 1.4.1, [SCAN-RAW-1]) and what a flush or compaction keeps
//! ([`CompactionMatcher`], 1.7). No I/O, no locks.
//!
//! Both matchers consume cells in [SORT-1] order and keep per-(row, family) state that resets
//! whenever the row or the family changes. They mirror HBase 2.6's `ScanQueryMatcher` family
//! (`NormalUserScanQueryMatcher`, `RawScanQueryMatcher`, `MinorCompactionScanQueryMatcher`,
//! `MajorCompactionScanQueryMatcher`, `DropDeletesCompactionScanQueryMatcher`) with
//! `ScanDeleteTracker`, `ScanWildcardColumnTracker` and `ExplicitColumnTracker`;
//! NEW_VERSION_BEHAVIOR is not supported. See `docs/MATCHER.md`.
//!
//! Seeks are advisory: a matcher remembers the column / family it told the caller to leave and
//! answers the same code for any further cell of it, so a caller that turns a seek into a series
//! of single steps gets the same result as one that seeks. A seek past the empty-qualifier column
//! is never requested: like HBase (HBASE-18471), the matcher then answers [`MatchCode::Skip`],
//! because `DF`/`DFV` markers share that column [SORT-5].

mod trackers;

#[cfg(test)]
mod tests;

use crate::model::CellType;
use crate::model::key::KeyRef;
use crate::model::payload::PayloadRef;
use crate::model::schema::{FamilyDescriptor, KeepDeletedCells};
use std::collections::{BTreeMap, BTreeSet};
use trackers::{ColumnTracker, DeleteTracker, Deleted, Step};

/// A matcher's verdict on one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchCode {
    /// Return / keep this cell.
    Include,
    /// Not this cell; look at the next one.
    Skip,
    /// Nothing more of this (row, family, qualifier): seek past the column
    /// ([`crate::model::key::last_on_column`]). Never answered for the empty qualifier.
    SeekNextColumn,
    /// Nothing more of this (row, family).
    SeekNextFamily,
    /// Nothing more of this row. (Not answered by these matchers; for callers and filters.)
    #[cfg_attr(not(any(test, feature = "testing")), allow(dead_code))]
    SeekNextRow,
    /// Nothing more at all. (Not answered by these matchers: stop rows are the caller's.)
    #[cfg_attr(not(any(test, feature = "testing")), allow(dead_code))]
    Done,
}

/// The reader's request.
#[derive(Debug, Clone)]
pub struct ReadSpec {
    /// Clock reading fixed when the Get/Scan opens [TTL-2].
    pub now: i64,
    /// `[min, max)`; all time is `(0, i64::MAX)` [TS-5].
    pub time_range: (i64, i64),
    /// Query versions (Get/Scan default 1; all versions = `u32::MAX`) [VER-2]. Must be >= 1.
    pub max_versions: u32,
    /// Families and qualifiers to read [GET-1].
    pub columns: ColumnSelection,
    /// Raw scan [SCAN-RAW-1] [KDC-6] [TTL-6].
    pub raw: bool,
    /// The caller applies a filter [VER-6]: versions are checked against the family's VERSIONS
    /// (raw: unlimited) and the caller reports filter-included cells to
    /// [`UserMatcher::note_filter_included`].
    pub has_filter: bool,
}

impl ReadSpec {
    /// A normal read of everything at `now`: all time, one version, all columns, no filter.
    pub fn new(now: i64) -> Self {
        ReadSpec {
            now,
            time_range: (0, i64::MAX),
            max_versions: 1,
            columns: ColumnSelection::All,
            raw: false,
            has_filter: false,
        }
    }
}

/// Selected families, each with its selected qualifiers (`None` = every qualifier).
pub type ColumnMap = BTreeMap<Vec<u8>, Option<BTreeSet<Vec<u8>>>>;

/// Which columns a read wants [GET-1].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnSelection {
    /// Every family, every qualifier.
    All,
    /// Only these families; per family `None` (or an empty set) = every qualifier, `Some(set)` =
    /// only those qualifiers (the empty qualifier is a qualifier like any other).
    Families(ColumnMap),
}

/// A family's settings as the matchers use them.
#[derive(Debug, Clone)]
struct FamilyRules {
    name: Vec<u8>,
    max_versions: u32,
    min_versions: u32,
    /// TTL in ms; `i64::MAX` for FOREVER ([TTL-1], like HBase's `Long.MAX_VALUE`).
    ttl_ms: i64,
    kdc: KeepDeletedCells,
}

impl FamilyRules {
    fn of(f: &FamilyDescriptor) -> Self {
        FamilyRules {
            name: f.name.clone(),
            max_versions: f.max_versions,
            min_versions: f.min_versions,
            ttl_ms: f.ttl_millis().unwrap_or(i64::MAX),
            kdc: f.keep_deleted_cells,
        }
    }

    /// Becomes `FamilyRules::of(f)`, reusing the name's buffer.
    fn assign(&mut self, f: &FamilyDescriptor) {
        self.name.clone_from(&f.name);
        self.max_versions = f.max_versions;
        self.min_versions = f.min_versions;
        self.ttl_ms = f.ttl_millis().unwrap_or(i64::MAX);
        self.kdc = f.keep_deleted_cells;
    }

    /// `now - ttlMs`: cells below it are family-expired [TTL-2].
    fn oldest_unexpired(&self, now: i64) -> i64 {
        now.saturating_sub(self.ttl_ms)
    }
}

/// [TTL-3]: `ts + cellTtl < now`.
fn cell_ttl_expired(ts: i64, payload: &PayloadRef<'_>, now: i64) -> bool {
    payload
        .ttl_ms
        .is_some_and(|ttl| i128::from(ts) + i128::from(ttl) < i128::from(now))
}

/// Where the stream is, plus the "leave" decisions already taken for it.
#[derive(Debug, Default)]
struct Position {
    started: bool,
    row: Vec<u8>,
    family: Vec<u8>,
    /// The caller was told to leave this (row, family).
    family_done: bool,
    /// The caller was told to leave the column `done_qualifier` (never the empty qualifier).
    column_done: bool,
    done_qualifier: Vec<u8>,
}

/// What a caller of [`UserMatcher::match_cell_in_row`] knows about a cell without comparing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Known {
    /// The cell's row is the row of the last cell given to the matcher.
    pub row: bool,
    /// The cell's row and family are those of the last cell given to the matcher.
    pub family: bool,
    /// The cell's qualifier sorts after every qualifier of its (row, family) the matcher was
    /// given (a stream's next column), so it equals none of them.
    pub new_column: bool,
}

/// What a position update found.
enum Moved {
    Same,
    NewRow,
    NewFamily,
}

impl Position {
    fn update(&mut self, key: &KeyRef<'_>) -> Moved {
        let moved = if !self.started || key.family != self.family.as_slice() {
            Moved::NewFamily
        } else if key.row != self.row.as_slice() {
            Moved::NewRow
        } else {
            return Moved::Same;
        };
        self.started = true;
        self.row.clear();
        self.row.extend_from_slice(key.row);
        self.family.clear();
        self.family.extend_from_slice(key.family);
        self.family_done = false;
        self.column_done = false;
        moved
    }

    /// A leave decision already taken for this cell, if any.
    #[inline]
    /// `new_column`: the cell's qualifier is known to sort after every qualifier of this
    /// (row, family) seen so far.
    fn already_left(&self, key: &KeyRef<'_>, new_column: bool) -> Option<MatchCode> {
        if self.family_done {
            Some(MatchCode::SeekNextFamily)
        } else if self.column_done && !new_column && key.qualifier == self.done_qualifier.as_slice()
        {
            Some(MatchCode::SeekNextColumn)
        } else {
            None
        }
    }

    fn leave_column(&mut self, qualifier: &[u8]) {
        self.column_done = true;
        self.done_qualifier.clear();
        self.done_qualifier.extend_from_slice(qualifier);
    }

    /// Turns a tracker step into a public code, remembering the "leave" part.
    #[inline]
    fn apply(&mut self, key: &KeyRef<'_>, step: Step) -> MatchCode {
        match step {
            Step::Include => MatchCode::Include,
            Step::Skip => MatchCode::Skip,
            Step::SeekNextCol => {
                // HBASE-18471: in the empty-qualifier column a "seek to the next column" only
                // moves to the next cell, so that `DF`/`DFV` markers behind a Put are still seen.
                if key.qualifier.is_empty() {
                    MatchCode::Skip
                } else {
                    self.leave_column(key.qualifier);
                    MatchCode::SeekNextColumn
                }
            }
            Step::IncludeAndSeekNextCol => {
                if !key.qualifier.is_empty() {
                    self.leave_column(key.qualifier);
                }
                MatchCode::Include
            }
            Step::SeekNextRow => {
                self.family_done = true;
                MatchCode::SeekNextFamily
            }
            Step::IncludeAndSeekNextRow => {
                self.family_done = true;
                MatchCode::Include
            }
        }
    }
}

/// A family as a read sees it.
#[derive(Debug, Clone)]
struct ReadFamily {
    rules: FamilyRules,
    /// Requested qualifiers (sorted, unique); empty = wildcard.
    qualifiers: Vec<Vec<u8>>,
}

/// The families `columns` selects, with their rules, sorted by name and unique, into `out`
/// (its allocations reused).
fn select_families(
    out: &mut Vec<ReadFamily>,
    families: &[FamilyDescriptor],
    columns: &ColumnSelection,
) {
    let mut n = 0;
    for f in families {
        let qualifiers = match columns {
            ColumnSelection::All => None,
            ColumnSelection::Families(map) => match map.get(&f.name) {
                None => continue,
                Some(q) => q.as_ref(),
            },
        };
        if n == out.len() {
            out.push(ReadFamily {
                rules: FamilyRules::of(f),
                qualifiers: Vec::new(),
            });
        } else {
            out[n].rules.assign(f);
        }
        let slot = &mut out[n].qualifiers;
        slot.clear();
        // A BTreeSet iterates sorted and unique; an empty set = whole family.
        if let Some(set) = qualifiers {
            slot.extend(set.iter().cloned());
        }
        n += 1;
    }
    out.truncate(n);
    if !out.is_sorted_by(|a, b| a.rules.name < b.rules.name) {
        out.sort_by(|a, b| a.rules.name.cmp(&b.rules.name));
        out.dedup_by(|a, b| a.rules.name == b.rules.name);
    }
}

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
    tr_min: i64,
    tr_max: i64,
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
    /// Cells the fast path decided (tests check that it is exercised).
    #[cfg(test)]
    pub(crate) fast_decided: u64,
}

impl UserMatcher {
    /// A matcher for `spec` over a region whose families are `families`. Families the spec does
    /// not select, or that `families` does not describe, are skipped ([`MatchCode::SeekNextFamily`]).
    pub fn new(families: &[FamilyDescriptor], spec: ReadSpec) -> Self {
        let mut selected = Vec::new();
        select_families(&mut selected, families, &spec.columns);
        UserMatcher {
            families: selected,
            now: spec.now,
            tr_min: spec.time_range.0,
            tr_max: spec.time_range.1,
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
        select_families(&mut self.families, families, &spec.columns);
        self.now = spec.now;
        self.tr_min = spec.time_range.0;
        self.tr_max = spec.time_range.1;
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
        if let Some(i) = self.current {
            let fam = &self.families[i];
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
}

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
