//! Running a [`Filter`] over the cells of a read: HBase's server-side `Filter` protocol
//! (`Filter` / `FilterBase` / `FilterWrapper` in `hbase-client/.../filter/`, driven by
//! `RegionScannerImpl` and `StoreScanner` / `UserScanQueryMatcher`).
//!
//! # How the row reader drives a [`FilterRunner`]
//!
//! For every row, in scan order (descending for reversed scans):
//!
//! 1. If [`FilterRunner::filter_all_remaining`] is true, the scan is over.
//! 2. [`FilterRunner::filter_row_key`] starts the row (it resets the per-row state; calling
//!    [`FilterRunner::reset`] as well is harmless). `true` = skip the whole row; then check
//!    step 1 again (a `Prefix` filter ends the scan once rows pass its prefix [FLT-4]).
//! 3. Each cell the visibility matcher accepts, in [SORT-1] order, goes through
//!    [`FilterRunner::filter_cell`]:
//!    * [`ReturnCode::Include`]: keep it (replace its value by
//!      [`FilterRunner::transform_cell`] when that returns `Some`);
//!    * [`ReturnCode::IncludeAndNextCol`]: keep it (transformed), skip the rest of the column;
//!    * [`ReturnCode::Skip`]: drop it;
//!    * [`ReturnCode::NextCol`]: drop it and skip the rest of the column;
//!    * [`ReturnCode::NextRow`]: drop it and skip the rest of the row **in this family**.
//!      This is HBase's `NEXT_ROW`, honoured by the per-family `StoreScanner`: the next family
//!      of the same row is still read (a `FamilyFilter` or `ColumnPrefix` filter answers
//!      `NextRow` for one family and includes cells of the next; TestFilter#testFamilyFilter).
//!      Map it to "seek to the next family", not to "next row".
//!
//!    Seeks are advisory: the runner remembers the column / family / hint position it told
//!    the caller to leave and answers the same code for further cells of it without consulting
//!    the filters, so a caller that steps cell by cell gets the result of one that seeks.
//!    The caller reports included cells to the matcher for [VER-6].
//! 4. If [`FilterRunner::has_filter_row`]: [`FilterRunner::filter_row_cells`] on the kept
//!    cells. Then, **only if at least one cell is left**, [`FilterRunner::filter_row`]:
//!    `true` = drop the row (HBase `FilterWrapper.filterRowCellsWithRet` /
//!    `RegionScannerImpl.filterRow`; `Page` counts exactly these calls [FLT-7]).
//! 5. After the row, step 1 again (a `Page` filter ends the scan after `n` rows).
//!
//! A Get runs the same steps on its single row.

use super::regex_java;
use super::{Comparator, CompareOp, Filter};
use crate::base::error::Result;
use regex::Regex;
use std::cmp::Ordering;
use std::collections::BTreeSet;

/// What to do with a cell (HBase `Filter.ReturnCode`), as the row reader must honour it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReturnCode {
    /// Keep the cell.
    Include,
    /// Keep the cell, then skip the remaining versions of its column.
    IncludeAndNextCol,
    /// Drop the cell.
    Skip,
    /// Drop the cell and skip the remaining versions of its column.
    NextCol,
    /// Drop the cell and skip the rest of its row **within its family** (HBase `NEXT_ROW`).
    NextRow,
}

/// A cell as the filter sees it (borrowed from the reader).
#[derive(Debug, Clone, Copy)]
pub struct CellView<'a> {
    /// Row key.
    pub row: &'a [u8],
    /// Family.
    pub family: &'a [u8],
    /// Qualifier.
    pub qualifier: &'a [u8],
    /// Timestamp.
    pub ts: i64,
    /// Value (empty for delete markers in raw scans).
    pub value: &'a [u8],
}

/// HBase's full set of return codes, used inside filter lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rc {
    Include,
    IncludeAndNextCol,
    /// No representable filter answers this; kept so that the merge tables are HBase's
    /// complete ones.
    #[allow(dead_code)]
    IncludeAndSeekNextRow,
    Skip,
    NextCol,
    NextRow,
    SeekNextUsingHint,
}

impl Rc {
    fn is_include(self) -> bool {
        matches!(
            self,
            Rc::Include | Rc::IncludeAndNextCol | Rc::IncludeAndSeekNextRow
        )
    }
}

/// `getNextCellHint` results: the first possible cell of `(current row, family, qualifier)`
/// (`PrivateCellUtil.createFirstOnRowCol`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Hint {
    family: Vec<u8>,
    qualifier: Vec<u8>,
}

/// [SORT-1] comparison of a cell of the current row with a hint (the hint sorts before every
/// real cell of its column), flipped for reversed scans as `FilterListBase.compareCell` does.
fn cmp_cell_hint(family: &[u8], qualifier: &[u8], hint: &Hint, reversed: bool) -> Ordering {
    let forward = (family, qualifier)
        .cmp(&(hint.family.as_slice(), hint.qualifier.as_slice()))
        .then(Ordering::Greater);
    if reversed { forward.reverse() } else { forward }
}

fn cmp_hints(a: &Hint, b: &Hint, reversed: bool) -> Ordering {
    let forward = (&a.family, &a.qualifier).cmp(&(&b.family, &b.qualifier));
    if reversed { forward.reverse() } else { forward }
}

/// A compiled [`Comparator`] (`ByteArrayComparable.compareTo(cellBytes)`).
#[derive(Debug)]
enum Cmp {
    Binary(Vec<u8>),
    BinaryPrefix(Vec<u8>),
    /// Lower-cased substring.
    Substring(String),
    Regex(Regex),
}

impl Cmp {
    fn new(c: &Comparator) -> Result<Cmp> {
        Ok(match c {
            Comparator::Binary(v) => Cmp::Binary(v.clone()),
            Comparator::BinaryPrefix(v) => Cmp::BinaryPrefix(v.clone()),
            // SubstringComparator lower-cases with Locale.ROOT on both sides.
            Comparator::Substring(s) => Cmp::Substring(s.to_lowercase()),
            Comparator::Regex(p) => Cmp::Regex(regex_java::compile(p)?),
        })
    }

    /// `comparator.compareTo(cell)`: the sign of `expected <=> cell` [FLT-2].
    fn compare_to(&self, cell: &[u8]) -> Ordering {
        match self {
            Cmp::Binary(v) => v.as_slice().cmp(cell),
            Cmp::BinaryPrefix(v) => v.as_slice().cmp(&cell[..v.len().min(cell.len())]),
            Cmp::Substring(s) => {
                if String::from_utf8_lossy(cell)
                    .to_lowercase()
                    .contains(s.as_str())
                {
                    Ordering::Equal
                } else {
                    Ordering::Greater
                }
            }
            Cmp::Regex(r) => {
                if r.is_match(&String::from_utf8_lossy(cell)) {
                    Ordering::Equal
                } else {
                    Ordering::Greater
                }
            }
        }
    }
}

/// `CompareFilter.compare`: true when the cell must be filtered OUT. `r` is
/// `comparator.compareTo(cell)`, so e.g. LESS drops the cell when `expected <= cell`, i.e.
/// keeps `cell < expected` [FLT-1].
fn filtered_out(op: CompareOp, r: Ordering) -> bool {
    match op {
        CompareOp::Less => r != Ordering::Greater,
        CompareOp::LessOrEqual => r == Ordering::Less,
        CompareOp::Equal => r != Ordering::Equal,
        CompareOp::NotEqual => r == Ordering::Equal,
        CompareOp::GreaterOrEqual => r == Ordering::Greater,
        CompareOp::Greater => r != Ordering::Less,
    }
}

/// The previous cell and return code of one `FilterListWithOR` member (HBASE-17678).
#[derive(Debug)]
struct Prev {
    rc: Rc,
    family: Vec<u8>,
    qualifier: Vec<u8>,
}

/// One filter with its HBase state.
#[derive(Debug)]
enum Node {
    /// `PrefixFilter`.
    Prefix {
        prefix: Vec<u8>,
        passed_prefix: bool,
        filter_row: bool,
    },
    /// `RowFilter`.
    Row {
        op: CompareOp,
        cmp: Cmp,
        filter_out_row: bool,
    },
    /// `FamilyFilter`.
    Family { op: CompareOp, cmp: Cmp },
    /// `QualifierFilter`.
    Qualifier { op: CompareOp, cmp: Cmp },
    /// `ValueFilter`.
    Value { op: CompareOp, cmp: Cmp },
    /// `SingleColumnValueFilter`.
    Scv {
        family: Vec<u8>,
        qualifier: Vec<u8>,
        op: CompareOp,
        cmp: Cmp,
        filter_if_missing: bool,
        latest_version_only: bool,
        found_column: bool,
        matched_column: bool,
    },
    /// `ColumnPrefixFilter`.
    ColumnPrefix(Vec<u8>),
    /// `ColumnRangeFilter`.
    ColumnRange {
        min: Option<Vec<u8>>,
        min_inclusive: bool,
        max: Option<Vec<u8>>,
        max_inclusive: bool,
    },
    /// `PageFilter`.
    Page { page_size: u64, rows_accepted: u64 },
    /// `FirstKeyOnlyFilter`.
    FirstKeyOnly { found: bool },
    /// `KeyOnlyFilter(false)`.
    KeyOnly,
    /// `TimestampsFilter` (canHint = false, as the language and the plain constructor build
    /// it).
    Timestamps { set: BTreeSet<i64>, min: i64 },
    /// `FilterListWithAND`.
    And {
        children: Vec<Node>,
        /// `seekHintFilters` of the last `filterCell`.
        hint_children: Vec<usize>,
    },
    /// `FilterListWithOR`.
    Or {
        children: Vec<Node>,
        prev: Vec<Option<Prev>>,
        /// `subFiltersIncludedCell` of the last `filterCell`.
        included: Vec<bool>,
    },
}

impl Node {
    fn new(f: &Filter) -> Result<Node> {
        Ok(match f {
            Filter::Prefix(p) => Node::Prefix {
                prefix: p.clone(),
                passed_prefix: false,
                filter_row: true,
            },
            Filter::Row(op, c) => Node::Row {
                op: *op,
                cmp: Cmp::new(c)?,
                filter_out_row: false,
            },
            Filter::Family(op, c) => Node::Family {
                op: *op,
                cmp: Cmp::new(c)?,
            },
            Filter::Qualifier(op, c) => Node::Qualifier {
                op: *op,
                cmp: Cmp::new(c)?,
            },
            Filter::Value(op, c) => Node::Value {
                op: *op,
                cmp: Cmp::new(c)?,
            },
            Filter::SingleColumnValue {
                family,
                qualifier,
                op,
                comparator,
                filter_if_missing,
                latest_version_only,
            } => Node::Scv {
                family: family.clone(),
                qualifier: qualifier.clone(),
                op: *op,
                cmp: Cmp::new(comparator)?,
                filter_if_missing: *filter_if_missing,
                latest_version_only: *latest_version_only,
                found_column: false,
                matched_column: false,
            },
            Filter::ColumnPrefix(p) => Node::ColumnPrefix(p.clone()),
            Filter::ColumnRange {
                min,
                min_inclusive,
                max,
                max_inclusive,
            } => Node::ColumnRange {
                min: min.clone(),
                min_inclusive: *min_inclusive,
                max: max.clone(),
                max_inclusive: *max_inclusive,
            },
            Filter::Page(n) => Node::Page {
                page_size: *n,
                rows_accepted: 0,
            },
            Filter::FirstKeyOnly => Node::FirstKeyOnly { found: false },
            Filter::KeyOnly => Node::KeyOnly,
            Filter::Timestamps(ts) => {
                let set: BTreeSet<i64> = ts.iter().copied().collect();
                // minTimestamp stays Long.MAX_VALUE for an empty list.
                let min = set.first().copied().unwrap_or(i64::MAX);
                Node::Timestamps { set, min }
            }
            Filter::All(fs) => Node::And {
                children: fs.iter().map(Node::new).collect::<Result<_>>()?,
                hint_children: Vec::new(),
            },
            Filter::Any(fs) => Node::Or {
                children: fs.iter().map(Node::new).collect::<Result<_>>()?,
                prev: fs.iter().map(|_| None).collect(),
                included: vec![false; fs.len()],
            },
        })
    }

    fn reset(&mut self) {
        match self {
            Node::Prefix { filter_row, .. } => *filter_row = true,
            Node::Row { filter_out_row, .. } => *filter_out_row = false,
            Node::Scv {
                found_column,
                matched_column,
                ..
            } => {
                *found_column = false;
                *matched_column = false;
            }
            Node::FirstKeyOnly { found } => *found = false,
            Node::And {
                children,
                hint_children,
            } => {
                children.iter_mut().for_each(Node::reset);
                hint_children.clear();
            }
            Node::Or {
                children,
                prev,
                included,
            } => {
                children.iter_mut().for_each(Node::reset);
                prev.iter_mut().for_each(|p| *p = None);
                included.iter_mut().for_each(|b| *b = false);
            }
            Node::Family { .. }
            | Node::Qualifier { .. }
            | Node::Value { .. }
            | Node::ColumnPrefix(_)
            | Node::ColumnRange { .. }
            | Node::Page { .. }
            | Node::KeyOnly
            | Node::Timestamps { .. } => {}
        }
    }

    fn filter_all_remaining(&self) -> bool {
        match self {
            Node::Prefix { passed_prefix, .. } => *passed_prefix,
            Node::Page {
                page_size,
                rows_accepted,
            } => rows_accepted >= page_size,
            // An empty list is FilterBase: false.
            Node::And { children, .. } => children.iter().any(Node::filter_all_remaining),
            Node::Or { children, .. } => {
                !children.is_empty() && children.iter().all(Node::filter_all_remaining)
            }
            _ => false,
        }
    }

    fn filter_row_key(&mut self, row: &[u8], reversed: bool) -> bool {
        match self {
            // PrefixFilter.filterRowKey [FLT-4]
            Node::Prefix {
                prefix,
                passed_prefix,
                filter_row,
            } => {
                if *passed_prefix {
                    return true;
                }
                if row.len() < prefix.len() {
                    return true;
                }
                let cmp = row[..prefix.len()].cmp(prefix.as_slice());
                if (!reversed && cmp == Ordering::Greater) || (reversed && cmp == Ordering::Less) {
                    *passed_prefix = true;
                }
                *filter_row = cmp != Ordering::Equal;
                *filter_row
            }
            // RowFilter.filterRowKey [FLT-3]
            Node::Row {
                op,
                cmp,
                filter_out_row,
            } => {
                if filtered_out(*op, cmp.compare_to(row)) {
                    *filter_out_row = true;
                }
                *filter_out_row
            }
            Node::Page { .. } => self.filter_all_remaining(),
            Node::And { children, .. } => {
                // No early return: PrefixFilter must see every row change.
                let mut filtered = false;
                for c in children.iter_mut() {
                    if c.filter_all_remaining() || c.filter_row_key(row, reversed) {
                        filtered = true;
                    }
                }
                filtered
            }
            Node::Or { children, .. } => {
                if children.is_empty() {
                    return false;
                }
                let mut filtered = true;
                for c in children.iter_mut() {
                    if !c.filter_all_remaining() && !c.filter_row_key(row, reversed) {
                        filtered = false;
                    }
                }
                filtered
            }
            _ => false,
        }
    }

    fn filter_cell(&mut self, c: &CellView<'_>, reversed: bool) -> Rc {
        match self {
            Node::Prefix { filter_row, .. } => {
                if *filter_row {
                    Rc::NextRow
                } else {
                    Rc::Include
                }
            }
            Node::Row { filter_out_row, .. } => {
                if *filter_out_row {
                    Rc::NextRow
                } else {
                    Rc::Include
                }
            }
            // FamilyFilter: NEXT_ROW within the family [FLT-3].
            Node::Family { op, cmp } => {
                if !c.family.is_empty() && filtered_out(*op, cmp.compare_to(c.family)) {
                    Rc::NextRow
                } else {
                    Rc::Include
                }
            }
            Node::Qualifier { op, cmp } => {
                if filtered_out(*op, cmp.compare_to(c.qualifier)) {
                    Rc::Skip
                } else {
                    Rc::Include
                }
            }
            Node::Value { op, cmp } => {
                if filtered_out(*op, cmp.compare_to(c.value)) {
                    Rc::Skip
                } else {
                    Rc::Include
                }
            }
            // SingleColumnValueFilter.filterCell [FLT-5]
            Node::Scv {
                family,
                qualifier,
                op,
                cmp,
                latest_version_only,
                found_column,
                matched_column,
                ..
            } => {
                if *matched_column {
                    return Rc::Include;
                }
                if *latest_version_only && *found_column {
                    return Rc::NextRow;
                }
                if c.family != family.as_slice() || c.qualifier != qualifier.as_slice() {
                    return Rc::Include;
                }
                *found_column = true;
                if filtered_out(*op, cmp.compare_to(c.value)) {
                    return if *latest_version_only {
                        Rc::NextRow
                    } else {
                        Rc::Include
                    };
                }
                *matched_column = true;
                Rc::Include
            }
            // ColumnPrefixFilter.filterColumn [FLT-6]
            Node::ColumnPrefix(p) => {
                let q = c.qualifier;
                if q.len() < p.len() {
                    if q.cmp(&p[..q.len()]) != Ordering::Greater {
                        Rc::SeekNextUsingHint
                    } else {
                        Rc::NextRow
                    }
                } else {
                    match q[..p.len()].cmp(p.as_slice()) {
                        Ordering::Less => Rc::SeekNextUsingHint,
                        Ordering::Greater => Rc::NextRow,
                        Ordering::Equal => Rc::Include,
                    }
                }
            }
            // ColumnRangeFilter.filterCell [FLT-6]
            Node::ColumnRange {
                min,
                min_inclusive,
                max,
                max_inclusive,
            } => {
                let q = c.qualifier;
                let cmp_min = min
                    .as_ref()
                    .map_or(Ordering::Greater, |m| q.cmp(m.as_slice()));
                if cmp_min == Ordering::Less {
                    return Rc::SeekNextUsingHint;
                }
                if !*min_inclusive && cmp_min == Ordering::Equal {
                    return Rc::NextCol;
                }
                let Some(max) = max else {
                    return Rc::Include;
                };
                let cmp_max = q.cmp(max.as_slice());
                if (*max_inclusive && cmp_max != Ordering::Greater)
                    || (!*max_inclusive && cmp_max == Ordering::Less)
                {
                    Rc::Include
                } else {
                    Rc::NextRow
                }
            }
            Node::Page { .. } | Node::KeyOnly => Rc::Include,
            // FirstKeyOnlyFilter [FLT-8]
            Node::FirstKeyOnly { found } => {
                if *found {
                    Rc::NextRow
                } else {
                    *found = true;
                    Rc::Include
                }
            }
            // TimestampsFilter [FLT-9]: an empty list includes nothing.
            Node::Timestamps { set, min } => {
                if set.contains(&c.ts) {
                    Rc::Include
                } else if c.ts < *min {
                    Rc::NextCol
                } else {
                    Rc::Skip
                }
            }
            Node::And {
                children,
                hint_children,
            } => and_filter_cell(children, hint_children, c, reversed),
            Node::Or {
                children,
                prev,
                included,
            } => or_filter_cell(children, prev, included, c, reversed),
        }
    }

    /// `getNextCellHint` for a cell of family `family` in the current row.
    fn next_cell_hint(&self, family: &[u8], reversed: bool) -> Option<Hint> {
        match self {
            Node::ColumnPrefix(p) => Some(Hint {
                family: family.to_vec(),
                qualifier: p.clone(),
            }),
            Node::ColumnRange { min, .. } => Some(Hint {
                family: family.to_vec(),
                qualifier: min.clone().unwrap_or_default(),
            }),
            // FilterListWithAND: the largest hint of the members that asked for a seek.
            Node::And {
                children,
                hint_children,
            } => {
                let mut best: Option<Hint> = None;
                for &i in hint_children.iter() {
                    let child = &children[i];
                    if child.filter_all_remaining() {
                        continue;
                    }
                    let Some(h) = child.next_cell_hint(family, reversed) else {
                        continue;
                    };
                    best = match best {
                        Some(b) if cmp_hints(&b, &h, reversed) != Ordering::Less => Some(b),
                        _ => Some(h),
                    };
                }
                best
            }
            // FilterListWithOR: the smallest hint; none if any live member has none.
            Node::Or { children, .. } => {
                let mut best: Option<Hint> = None;
                for child in children.iter() {
                    if child.filter_all_remaining() {
                        continue;
                    }
                    let h = child.next_cell_hint(family, reversed)?;
                    best = match best {
                        Some(b) if cmp_hints(&b, &h, reversed) != Ordering::Greater => Some(b),
                        _ => Some(h),
                    };
                }
                best
            }
            _ => None,
        }
    }

    /// Whether `transformCell` after the last inclusion turns the value into an empty one
    /// (`KeyOnlyFilter`; lists transform through their including members, HBASE-18879).
    fn drops_value(&self) -> bool {
        match self {
            Node::KeyOnly => true,
            // FilterListWithAND: every member included the cell.
            Node::And { children, .. } => children.iter().any(Node::drops_value),
            Node::Or {
                children, included, ..
            } => children
                .iter()
                .zip(included.iter())
                .any(|(c, &inc)| inc && c.drops_value()),
            _ => false,
        }
    }

    fn has_filter_row(&self) -> bool {
        match self {
            Node::Scv { .. } | Node::Page { .. } => true,
            Node::And { children, .. } | Node::Or { children, .. } => {
                children.iter().any(Node::has_filter_row)
            }
            _ => false,
        }
    }

    fn filter_row(&mut self) -> bool {
        match self {
            Node::Prefix { filter_row, .. } => *filter_row,
            Node::Row { filter_out_row, .. } => *filter_out_row,
            // [FLT-5] found ? !matched : filterIfMissing
            Node::Scv {
                filter_if_missing,
                found_column,
                matched_column,
                ..
            } => {
                if *found_column {
                    !*matched_column
                } else {
                    *filter_if_missing
                }
            }
            // [FLT-7] counts every row that reaches filterRow.
            Node::Page {
                page_size,
                rows_accepted,
            } => {
                *rows_accepted = rows_accepted.saturating_add(1);
                *rows_accepted > *page_size
            }
            // Lazy, in order (FilterListWithAND / FilterListWithOR.filterRow): a Page member
            // after the deciding member is not counted.
            Node::And { children, .. } => children.iter_mut().any(Node::filter_row),
            Node::Or { children, .. } => {
                !children.is_empty() && children.iter_mut().all(Node::filter_row)
            }
            _ => false,
        }
    }
}

/// `FilterListWithAND.mergeReturnCode`: the largest forward step ("Maximal Step Rule").
fn merge_and(rc: Rc, local: Rc) -> Rc {
    use Rc::*;
    if rc == SeekNextUsingHint {
        return SeekNextUsingHint;
    }
    match local {
        SeekNextUsingHint => SeekNextUsingHint,
        Include => rc,
        IncludeAndNextCol => match rc {
            Include | IncludeAndNextCol => IncludeAndNextCol,
            IncludeAndSeekNextRow => IncludeAndSeekNextRow,
            Skip | NextCol => NextCol,
            NextRow | SeekNextUsingHint => NextRow,
        },
        IncludeAndSeekNextRow => match rc {
            Include | IncludeAndNextCol | IncludeAndSeekNextRow => IncludeAndSeekNextRow,
            Skip | NextCol | NextRow | SeekNextUsingHint => NextRow,
        },
        Skip => match rc {
            Include | Skip => Skip,
            IncludeAndNextCol | NextCol => NextCol,
            IncludeAndSeekNextRow | NextRow | SeekNextUsingHint => NextRow,
        },
        NextCol => match rc {
            Include | IncludeAndNextCol | Skip | NextCol => NextCol,
            IncludeAndSeekNextRow | NextRow | SeekNextUsingHint => NextRow,
        },
        NextRow => NextRow,
    }
}

/// `FilterListWithOR.mergeReturnCode`: the smallest forward step ("Minimal Step Rule").
fn merge_or(rc: Option<Rc>, local: Rc) -> Rc {
    use Rc::*;
    let Some(rc) = rc else {
        return local;
    };
    match local {
        Include => Include,
        IncludeAndNextCol => match rc {
            Include | Skip | SeekNextUsingHint => Include,
            IncludeAndNextCol | IncludeAndSeekNextRow | NextCol | NextRow => IncludeAndNextCol,
        },
        IncludeAndSeekNextRow => match rc {
            Include | Skip | SeekNextUsingHint => Include,
            IncludeAndNextCol | NextCol => IncludeAndNextCol,
            IncludeAndSeekNextRow | NextRow => IncludeAndSeekNextRow,
        },
        Skip => match rc {
            Include | IncludeAndNextCol | IncludeAndSeekNextRow => Include,
            Skip | NextCol | NextRow | SeekNextUsingHint => Skip,
        },
        NextCol => match rc {
            Include => Include,
            NextCol | NextRow => NextCol,
            IncludeAndNextCol | IncludeAndSeekNextRow => IncludeAndNextCol,
            Skip | SeekNextUsingHint => Skip,
        },
        NextRow => match rc {
            Include => Include,
            IncludeAndNextCol => IncludeAndNextCol,
            IncludeAndSeekNextRow => IncludeAndSeekNextRow,
            Skip | SeekNextUsingHint => Skip,
            NextCol => NextCol,
            NextRow => NextRow,
        },
        SeekNextUsingHint => match rc {
            Include | IncludeAndNextCol | IncludeAndSeekNextRow => Include,
            Skip | NextCol | NextRow => Skip,
            SeekNextUsingHint => SeekNextUsingHint,
        },
    }
}

/// `FilterListWithAND.filterCell`: members see the cell only while the merged code is an
/// include (HBASE-20565); a member that is done ends the row.
fn and_filter_cell(
    children: &mut [Node],
    hint_children: &mut Vec<usize>,
    c: &CellView<'_>,
    reversed: bool,
) -> Rc {
    if children.is_empty() {
        return Rc::Include;
    }
    let mut rc = Rc::Include;
    hint_children.clear();
    for (i, child) in children.iter_mut().enumerate() {
        if child.filter_all_remaining() {
            return Rc::NextRow;
        }
        let local = child.filter_cell(c, reversed);
        if local == Rc::SeekNextUsingHint {
            hint_children.push(i);
        }
        rc = merge_and(rc, local);
        if !rc.is_include() {
            return rc;
        }
    }
    if !hint_children.is_empty() {
        return Rc::SeekNextUsingHint;
    }
    rc
}

/// `FilterListWithOR.filterCell`: every live member is asked, unless its previous answer
/// already covers this cell (HBASE-17678, HBASE-18368).
fn or_filter_cell(
    children: &mut [Node],
    prev: &mut [Option<Prev>],
    included: &mut [bool],
    c: &CellView<'_>,
    reversed: bool,
) -> Rc {
    if children.is_empty() {
        return Rc::Include;
    }
    let mut rc: Option<Rc> = None;
    for (i, child) in children.iter_mut().enumerate() {
        included[i] = false;
        if child.filter_all_remaining() {
            continue;
        }
        let known = prev[i]
            .as_ref()
            .and_then(|p| code_from_previous(child, c, p, reversed));
        let local = known.unwrap_or_else(|| child.filter_cell(c, reversed));
        prev[i] = match local {
            Rc::Include | Rc::Skip => None,
            _ => Some(Prev {
                rc: local,
                family: c.family.to_vec(),
                qualifier: c.qualifier.to_vec(),
            }),
        };
        rc = Some(merge_or(rc, local));
        if local.is_include() {
            included[i] = true;
        }
    }
    rc.unwrap_or(Rc::Skip)
}

/// `calculateReturnCodeByPrevCellAndRC`.
fn code_from_previous(child: &Node, c: &CellView<'_>, p: &Prev, reversed: bool) -> Option<Rc> {
    match p.rc {
        Rc::Include | Rc::Skip => None,
        Rc::SeekNextUsingHint => {
            let hint = child.next_cell_hint(&p.family, reversed)?;
            (cmp_cell_hint(c.family, c.qualifier, &hint, reversed) == Ordering::Less)
                .then_some(Rc::SeekNextUsingHint)
        }
        Rc::NextCol | Rc::IncludeAndNextCol => (c.family == p.family.as_slice()
            && c.qualifier == p.qualifier.as_slice())
        .then_some(Rc::NextCol),
        Rc::NextRow | Rc::IncludeAndSeekNextRow => {
            (c.family == p.family.as_slice()).then_some(Rc::NextRow)
        }
    }
}

/// Where the runner told the caller to go; cells before it are answered from memory.
#[derive(Debug)]
enum Skipping {
    /// The rest of this column.
    Column { family: Vec<u8>, qualifier: Vec<u8> },
    /// The rest of this family (HBase `NEXT_ROW` in a `StoreScanner`).
    Family(Vec<u8>),
    /// Everything before this position of the current row (forward scans).
    Hint(Hint),
}

/// Runs one [`Filter`] over a read (see the module docs for the calling protocol). One runner
/// per region scanner / Get: `Page` counts and `Prefix`'s end-of-scan are per runner [FLT-7].
#[derive(Debug)]
pub struct FilterRunner {
    root: Node,
    reversed: bool,
    skipping: Option<Skipping>,
}

impl FilterRunner {
    /// Builds the runner (compiles regular expressions; `InvalidArgument` when the filter is
    /// invalid, see [`Filter::validate`]). `reversed`: the scan runs in descending row order
    /// (`Filter.setReversed`).
    pub fn new(f: &Filter, reversed: bool) -> Result<Self> {
        f.validate()?;
        Ok(FilterRunner {
            root: Node::new(f)?,
            reversed,
            skipping: None,
        })
    }

    /// Clears the per-row state (HBase `Filter.reset`, called between rows).
    pub fn reset(&mut self) {
        self.root.reset();
        self.skipping = None;
    }

    /// True when no further row can pass: the scan can end (a `Page` limit reached, a
    /// `Prefix` passed — or, reversed, not yet reached).
    pub fn filter_all_remaining(&self) -> bool {
        self.root.filter_all_remaining()
    }

    /// Starts a row: resets the per-row state, then HBase `FilterWrapper.filterRowKey`.
    /// `true` = exclude the whole row (its cells need not be read).
    pub fn filter_row_key(&mut self, row: &[u8]) -> bool {
        self.reset();
        if self.root.filter_all_remaining() {
            return true;
        }
        self.root.filter_row_key(row, self.reversed)
    }

    /// HBase `filterCell` for the next cell of the current row (see the module docs for what
    /// each code asks of the caller).
    pub fn filter_cell(&mut self, cell: &CellView<'_>) -> ReturnCode {
        if let Some(s) = &self.skipping {
            let still = match s {
                Skipping::Column { family, qualifier } => (cell.family == family.as_slice()
                    && cell.qualifier == qualifier.as_slice())
                .then_some(ReturnCode::NextCol),
                Skipping::Family(family) => {
                    (cell.family == family.as_slice()).then_some(ReturnCode::NextRow)
                }
                Skipping::Hint(h) => (cmp_cell_hint(cell.family, cell.qualifier, h, false)
                    == Ordering::Less)
                    .then_some(ReturnCode::NextCol),
            };
            match still {
                Some(code) => return code,
                None => self.skipping = None,
            }
        }
        let column = || Skipping::Column {
            family: cell.family.to_vec(),
            qualifier: cell.qualifier.to_vec(),
        };
        match self.root.filter_cell(cell, self.reversed) {
            Rc::Include => ReturnCode::Include,
            Rc::Skip => ReturnCode::Skip,
            Rc::IncludeAndNextCol => {
                self.skipping = Some(column());
                ReturnCode::IncludeAndNextCol
            }
            Rc::NextCol => {
                self.skipping = Some(column());
                ReturnCode::NextCol
            }
            Rc::IncludeAndSeekNextRow => {
                self.skipping = Some(Skipping::Family(cell.family.to_vec()));
                ReturnCode::Include
            }
            Rc::NextRow => {
                self.skipping = Some(Skipping::Family(cell.family.to_vec()));
                ReturnCode::NextRow
            }
            // StoreScanner seeks to the hint only when it lies ahead in scan order; reversed
            // scans step to the next cell (HBASE-26232).
            Rc::SeekNextUsingHint => {
                let hint = if self.reversed {
                    None
                } else {
                    self.root
                        .next_cell_hint(cell.family, false)
                        .filter(|h| cmp_cell_hint(cell.family, cell.qualifier, h, false).is_lt())
                };
                match hint {
                    // Every cell of this column lies before the hint.
                    Some(h) => {
                        self.skipping = Some(Skipping::Hint(h));
                        ReturnCode::NextCol
                    }
                    None => ReturnCode::Skip,
                }
            }
        }
    }

    /// HBase `transformCell` for the cell just included: `Some(new value)` when the value
    /// changes (`KeyOnly` → empty [FLT-8]), `None` to keep it.
    pub fn transform_cell(&self, value: &[u8]) -> Option<Vec<u8>> {
        (self.root.drops_value() && !value.is_empty()).then(Vec::new)
    }

    /// HBase `hasFilterRow` (see [`Filter::has_filter_row`]).
    pub fn has_filter_row(&self) -> bool {
        self.root.has_filter_row()
    }

    /// HBase `filterRowCells`: may rewrite the row's kept cells. None of the representable
    /// filters does (`SingleColumnValueExcludeFilter` and `DependentColumnFilter` would), so
    /// this leaves `cells` alone; call it anyway when [`Self::has_filter_row`].
    pub fn filter_row_cells(&mut self, cells: &mut Vec<crate::Cell>) {
        let _ = cells;
    }

    /// HBase `filterRow`: `true` = drop the row. Call it once per row, and only when the row
    /// still has cells (HBase never asks about empty rows; `Page` counts each call).
    pub fn filter_row(&mut self) -> bool {
        self.root.filter_row()
    }
}

#[cfg(test)]
mod merge_tables {
    //! The merge functions against the matrices in HBase's `FilterListWithAND` /
    //! `FilterListWithOR` Javadoc (rows: the member's code; columns: the code so far).
    use super::{Rc, merge_and, merge_or};

    const ORDER: [Rc; 7] = [
        Rc::Include,
        Rc::IncludeAndNextCol,
        Rc::IncludeAndSeekNextRow,
        Rc::Skip,
        Rc::NextCol,
        Rc::NextRow,
        Rc::SeekNextUsingHint,
    ];

    fn code(s: &str) -> Rc {
        match s {
            "I" => Rc::Include,
            "INC" => Rc::IncludeAndNextCol,
            "INR" => Rc::IncludeAndSeekNextRow,
            "S" => Rc::Skip,
            "NC" => Rc::NextCol,
            "NR" => Rc::NextRow,
            "H" => Rc::SeekNextUsingHint,
            _ => unreachable!("{s}"),
        }
    }

    fn check(table: &str, merge: impl Fn(Rc, Rc) -> Rc) {
        for (local, line) in ORDER
            .iter()
            .zip(table.lines().filter(|l| !l.trim().is_empty()))
        {
            for (rc, want) in ORDER.iter().zip(line.split_whitespace()) {
                assert_eq!(merge(*rc, *local), code(want), "rc {rc:?}, local {local:?}");
            }
        }
    }

    #[test]
    fn and_is_the_maximal_step() {
        check(
            "
            I   INC INR S  NC NR H
            INC INC INR NC NC NR H
            INR INR INR NR NR NR H
            S   NC  NR  S  NC NR H
            NC  NC  NR  NC NC NR H
            NR  NR  NR  NR NR NR H
            H   H   H   H  H  H  H
            ",
            merge_and,
        );
    }

    #[test]
    fn or_is_the_minimal_step() {
        check(
            "
            I I   I   I I   I   I
            I INC INC I INC INC I
            I INC INR I INC INR I
            I I   I   S S   S   S
            I INC INC S NC  NC  S
            I INC INR S NC  NR  S
            I I   I   S S   S   H
            ",
            |rc, local| merge_or(Some(rc), local),
        );
        assert_eq!(merge_or(None, Rc::NextCol), Rc::NextCol);
    }
}
