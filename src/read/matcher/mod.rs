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

mod compaction;
mod trackers;
mod user;

pub use compaction::{CompactionKind, CompactionMatcher};
pub use user::{Admit, UserMatcher};

#[cfg(test)]
mod tests;

use crate::model::CellType;
use crate::model::key::KeyRef;
use crate::model::payload::PayloadRef;
use crate::model::schema::{FamilyDescriptor, KeepDeletedCells};
use std::collections::{BTreeMap, BTreeSet};
use trackers::Step;

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
    /// Per-family options [GET-3] [SCAN-5]; `None` (the common case) when none is set.
    pub per_family: Option<Box<PerFamily>>,
}

impl ReadSpec {
    /// The per (row, family) window [GET-3] (none set: the default, no window).
    #[inline]
    pub fn window(&self) -> FamilyWindow {
        self.per_family
            .as_deref()
            .map_or(FamilyWindow::default(), |p| p.window)
    }

    /// The families' own time ranges [SCAN-5], when any is set.
    #[inline]
    pub fn family_time_ranges(&self) -> Option<&FamilyTimeRanges> {
        self.per_family
            .as_deref()
            .map(|p| &p.time_ranges)
            .filter(|r| !r.0.is_empty())
    }
}

/// A read's per-family options [GET-3] [SCAN-5], kept out of line (a `Box` in [`ReadSpec`] and
/// in `Get` / `Scan`) so reads without them carry one empty pointer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PerFamily {
    /// Per row and family, how many returned cells to skip and how many to return at most
    /// [GET-3].
    pub window: FamilyWindow,
    /// Families whose time range replaces the read's [SCAN-5].
    pub time_ranges: FamilyTimeRanges,
}

/// Time ranges `[min, max)` by family name [SCAN-5], sorted by family; setting a family's
/// range again replaces it (HBase keeps a map). A plain vector: the common empty case costs a
/// read nothing to build, clone, check or drop.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FamilyTimeRanges(Vec<(Vec<u8>, (i64, i64))>);

impl FamilyTimeRanges {
    /// Gives `family` the range `[min, max)`, replacing an earlier one.
    pub fn set(&mut self, family: &[u8], range: (i64, i64)) {
        match self.0.binary_search_by(|(f, _)| f.as_slice().cmp(family)) {
            Ok(i) => self.0[i].1 = range,
            Err(i) => self.0.insert(i, (family.to_vec(), range)),
        }
    }

    /// The range of `family`, if it has one.
    #[inline]
    pub fn get(&self, family: &[u8]) -> Option<(i64, i64)> {
        if self.0.is_empty() {
            return None;
        }
        self.0
            .binary_search_by(|(f, _)| f.as_slice().cmp(family))
            .ok()
            .map(|i| self.0[i].1)
    }

    /// Each family with its range, in family order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], (i64, i64))> {
        self.0.iter().map(|(f, r)| (f.as_slice(), *r))
    }
}

/// HBase's `setRowOffsetPerColumnFamily` / `setMaxResultsPerColumnFamily` [GET-3]: per row and
/// per family, the first `offset` cells the read would return are dropped, then at most
/// `limit` are returned (`StoreScanner`'s `storeOffset`, `storeLimit` and `countPerRow`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FamilyWindow {
    /// Cells to skip per row and family (HBase's default 0).
    pub offset: u32,
    /// Cells to return per row and family after the skipped ones; `None` = no limit (HBase's
    /// `-1`).
    pub limit: Option<u32>,
}

impl FamilyWindow {
    /// True when the window restricts anything.
    #[inline]
    pub fn is_set(&self) -> bool {
        self.offset > 0 || self.limit.is_some()
    }
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
            per_family: None,
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
    /// The read's time range for this family: its own [SCAN-5] or the read's. Set and read
    /// only when the read has family ranges.
    time_range: (i64, i64),
}

/// The families `spec` selects, with their rules and time ranges, sorted by name and unique,
/// into `out` (its allocations reused).
fn select_families(out: &mut Vec<ReadFamily>, families: &[FamilyDescriptor], spec: &ReadSpec) {
    let ranges = spec.family_time_ranges();
    let mut n = 0;
    for f in families {
        let qualifiers = match &spec.columns {
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
                time_range: spec.time_range,
            });
        } else {
            out[n].rules.assign(f);
        }
        // [SCAN-5] `UserScanQueryMatcher`'s constructor: the family's range, else the read's.
        // Read only when the spec has family ranges (`UserMatcher::enter`).
        if let Some(r) = ranges {
            out[n].time_range = r.get(&f.name).unwrap_or(spec.time_range);
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
