//! HBase's server-side `Filter` protocol as a trait ([`FilterImpl`]): what one filter of the
//! compiled tree answers about rows and cells (`Filter` / `FilterBase` in
//! `hbase-client/.../filter/`). The driver that calls it is [`super::eval::FilterRunner`].
//!
//! Every filter kind is a type implementing [`FilterImpl`], in one file per family
//! (`compare.rs`, `value.rs`, `column.rs`, `row.rs`, `ranges.rs`, `time.rs`, `list.rs`,
//! `wrap.rs`); a public
//! [`Filter`](super::Filter) becomes a tree of them in `Filter::compile`. The defaults are
//! `FilterBase`'s: a filter overrides only what it decides.

use crate::model::cell::Cell;
use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt::Debug;

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

/// HBase's full set of return codes (`Filter.ReturnCode`), as filters and filter lists answer
/// them; [`FilterRunner`](super::eval::FilterRunner) turns them into the
/// [`ReturnCode`](super::eval::ReturnCode)s the row reader honours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rc {
    /// `INCLUDE`.
    Include,
    /// `INCLUDE_AND_NEXT_COL`.
    IncludeAndNextCol,
    /// `INCLUDE_AND_SEEK_NEXT_ROW`. No filter here answers this; kept so that the merge
    /// tables are HBase's complete ones.
    #[allow(dead_code)]
    IncludeAndSeekNextRow,
    /// `SKIP`.
    Skip,
    /// `NEXT_COL`.
    NextCol,
    /// `NEXT_ROW` (within the cell's family, see the `eval` module docs).
    NextRow,
    /// `SEEK_NEXT_USING_HINT`: [`FilterImpl::next_cell_hint`] says where to go.
    SeekNextUsingHint,
}

impl Rc {
    pub(super) fn is_include(self) -> bool {
        matches!(
            self,
            Rc::Include | Rc::IncludeAndNextCol | Rc::IncludeAndSeekNextRow
        )
    }
}

/// A `getNextCellHint` result: the first possible cell of `(row, family, qualifier)`
/// (`PrivateCellUtil.createFirstOnRowCol`; with an empty family and qualifier, the first cell
/// of the row, `createFirstOnRow`), borrowed from the filter and the cell it answers. Column
/// hints name the current row; row hints (`MultiRowRangeFilter`, `FuzzyRowFilter`) another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Hint<'a> {
    pub(super) row: &'a [u8],
    pub(super) family: &'a [u8],
    pub(super) qualifier: &'a [u8],
}

/// [SORT-1] comparison of a cell with a hint (the hint sorts before every real cell of its
/// column), flipped for reversed scans as `FilterListBase.compareCell` does.
pub(super) fn cmp_cell_hint(
    row: &[u8],
    family: &[u8],
    qualifier: &[u8],
    hint: Hint<'_>,
    reversed: bool,
) -> Ordering {
    let forward = (row, family, qualifier)
        .cmp(&(hint.row, hint.family, hint.qualifier))
        .then(Ordering::Greater);
    if reversed { forward.reverse() } else { forward }
}

/// Two hints in scan order (flipped for reversed scans).
pub(super) fn cmp_hints(a: Hint<'_>, b: Hint<'_>, reversed: bool) -> Ordering {
    let forward = (a.row, a.family, a.qualifier).cmp(&(b.row, b.family, b.qualifier));
    if reversed { forward.reverse() } else { forward }
}

/// One compiled filter with its per-scan state: HBase's `Filter` protocol, with
/// `FilterBase`'s defaults. The scan direction (`Filter.setReversed`) is fixed when the
/// filter is built.
///
/// Per row the driver calls `reset`, `filter_all_remaining`, `filter_row_key`, then for each
/// cell `filter_cell` (and `transform_cell` for the cells it keeps), then, when
/// `has_filter_row`, `filter_row_cells` and `filter_row` (the `eval` module docs have the
/// details). Lists call their members the same way.
/// Implementations must not allocate per cell: these run on the scan's hot path.
pub(super) trait FilterImpl: Debug + Send + Sync {
    /// `reset`: clears the per-row state before the next row.
    fn reset(&mut self) {}

    /// `filterAllRemaining`: true when no later row can pass (the scan can end).
    fn filter_all_remaining(&self) -> bool {
        false
    }

    /// `filterRowKey`: `true` = exclude the whole row before its cells are read.
    /// `FilterBase`'s default excludes it only when everything remaining is filtered.
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        let _ = row;
        self.filter_all_remaining()
    }

    /// `filterCell`: what to do with this cell of the current row (HBase's default,
    /// `filterKeyValue`, includes it).
    fn filter_cell(&mut self, cell: &CellView<'_>) -> Rc {
        let _ = cell;
        Rc::Include
    }

    /// `transformCell` of a cell this filter included: its value, possibly replaced.
    /// `FilterBase` returns the cell unchanged.
    fn transform_cell<'v>(&self, value: Cow<'v, [u8]>) -> Cow<'v, [u8]> {
        value
    }

    /// `hasFilterRow`: true when the filter decides on whole rows after seeing their cells
    /// ([`filter_row_cells`](Self::filter_row_cells) / [`filter_row`](Self::filter_row)).
    fn has_filter_row(&self) -> bool {
        false
    }

    /// `filterRowCells`: may rewrite the row's kept cells (`SingleColumnValueExcludeFilter`,
    /// `DependentColumnFilter`).
    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        let _ = cells;
    }

    /// `filterRow`: `true` = drop the row (asked only about rows that still have cells).
    fn filter_row(&mut self) -> bool {
        false
    }

    /// `getNextCellHint` after a [`Rc::SeekNextUsingHint`] for a cell of `family` in `row`
    /// (the current row); `None` = no hint (step to the next cell).
    fn next_cell_hint<'a>(&'a self, row: &'a [u8], family: &'a [u8]) -> Option<Hint<'a>> {
        let _ = (row, family);
        None
    }
}
