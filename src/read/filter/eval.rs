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
//!    * [`ReturnCode::SeekToRow`]: drop it and the rest of the row, and continue with the
//!      row [`FilterRunner::row_hint`] (at or after it forward, at or before it reversed);
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
//!
//! The filters themselves implement the crate-internal trait `FilterImpl` (`protocol.rs`), one
//! type per HBase filter class in one file per family; a runner holds the tree a [`Filter`]
//! compiles into and calls it through that trait, one call per filter per cell.

use super::Filter;
pub use super::protocol::CellView;
use super::protocol::{FilterImpl, Hint, Rc, cmp_cell_hint};
use crate::base::error::Result;
use std::borrow::Cow;

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
    /// Drop the cell and the rest of its row (every family), and continue with the row
    /// [`FilterRunner::row_hint`]: forward scans at the first row at or after it, reversed
    /// scans at the first row at or before it (HBase `SEEK_NEXT_USING_HINT` with a row hint,
    /// from `MultiRowRangeFilter` / `FuzzyRowFilter`). The rows in between cannot pass.
    SeekToRow,
}

/// Where the runner told the caller to go; cells before it are answered from memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Skipping {
    /// The rest of the column `(skip_family, skip_qualifier)`.
    Column,
    /// The rest of the family `skip_family` (HBase `NEXT_ROW` in a `StoreScanner`).
    Family,
    /// Everything before `(skip_family, skip_qualifier)` in the current row (forward scans).
    Hint,
    /// The rest of the current row: the scan continues at the row `skip_row`.
    Row,
}

/// Runs one [`Filter`] over a read (see the module docs for the calling protocol). One runner
/// per region scanner / Get: `Page` counts and `Prefix`'s end-of-scan are per runner [FLT-7].
#[derive(Debug)]
pub struct FilterRunner {
    root: Box<dyn FilterImpl>,
    reversed: bool,
    skipping: Option<Skipping>,
    /// The position [`Self::skipping`] refers to (buffers reused from seek to seek).
    skip_family: Vec<u8>,
    skip_qualifier: Vec<u8>,
    /// The row of a [`ReturnCode::SeekToRow`].
    skip_row: Vec<u8>,
}

impl FilterRunner {
    /// Builds the runner (compiles regular expressions; `InvalidArgument` when the filter is
    /// invalid, see [`Filter::validate`]). `reversed`: the scan runs in descending row order
    /// (`Filter.setReversed`).
    pub fn new(f: &Filter, reversed: bool) -> Result<Self> {
        Ok(FilterRunner {
            root: f.compile_checked(reversed)?,
            reversed,
            skipping: None,
            skip_family: Vec::new(),
            skip_qualifier: Vec::new(),
            skip_row: Vec::new(),
        })
    }

    /// Clears the per-row state (HBase `Filter.reset`, called between rows).
    pub fn reset(&mut self) {
        self.root.reset();
        self.skipping = None;
    }

    /// True when no further row can pass: the scan can end (a `Page` limit reached, a
    /// `Prefix` or `InclusiveStop` row passed, the last `MultiRowRange` range left, a
    /// `WhileMatch` rejection...).
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
        self.root.filter_row_key(row)
    }

    /// Remembers where the caller was told to go.
    fn skip(&mut self, kind: Skipping, family: &[u8], qualifier: &[u8]) {
        self.skipping = Some(kind);
        self.skip_family.clear();
        self.skip_family.extend_from_slice(family);
        self.skip_qualifier.clear();
        self.skip_qualifier.extend_from_slice(qualifier);
    }

    /// The answer from memory for a cell the caller was told to skip, if it is one.
    fn still_skipping(&self, kind: Skipping, cell: &CellView<'_>) -> Option<ReturnCode> {
        let family = self.skip_family.as_slice();
        let qualifier = self.skip_qualifier.as_slice();
        match kind {
            Skipping::Column => (cell.family == family && cell.qualifier == qualifier)
                .then_some(ReturnCode::NextCol),
            Skipping::Family => (cell.family == family).then_some(ReturnCode::NextRow),
            Skipping::Hint => {
                let hint = Hint {
                    row: cell.row,
                    family,
                    qualifier,
                };
                (cmp_cell_hint(cell.row, cell.family, cell.qualifier, hint, false).is_lt())
                    .then_some(ReturnCode::NextCol)
            }
            // Every cell of the current row lies before the hinted row.
            Skipping::Row => Some(ReturnCode::SeekToRow),
        }
    }

    /// The row a [`ReturnCode::SeekToRow`] asks the caller to continue with.
    pub fn row_hint(&self) -> &[u8] {
        &self.skip_row
    }

    /// HBase `filterCell` for the next cell of the current row (see the module docs for what
    /// each code asks of the caller).
    pub fn filter_cell(&mut self, cell: &CellView<'_>) -> ReturnCode {
        if let Some(kind) = self.skipping {
            match self.still_skipping(kind, cell) {
                Some(code) => return code,
                None => self.skipping = None,
            }
        }
        // UserScanQueryMatcher: DONE_SCAN once everything remaining is filtered (a
        // WhileMatch that rejected, a ColumnCountGet past its limit): the row ends here.
        if self.root.filter_all_remaining() {
            self.skip(Skipping::Family, cell.family, &[]);
            return ReturnCode::NextRow;
        }
        match self.root.filter_cell(cell) {
            Rc::Include => ReturnCode::Include,
            Rc::Skip => ReturnCode::Skip,
            Rc::IncludeAndNextCol => {
                self.skip(Skipping::Column, cell.family, cell.qualifier);
                ReturnCode::IncludeAndNextCol
            }
            Rc::NextCol => {
                self.skip(Skipping::Column, cell.family, cell.qualifier);
                ReturnCode::NextCol
            }
            Rc::IncludeAndSeekNextRow => {
                self.skip(Skipping::Family, cell.family, &[]);
                ReturnCode::Include
            }
            Rc::NextRow => {
                self.skip(Skipping::Family, cell.family, &[]);
                ReturnCode::NextRow
            }
            // StoreScanner seeks to the hint only when it lies ahead in scan order. Row hints
            // are followed in both directions; within a row, reversed scans step to the next
            // cell (HBASE-26232).
            Rc::SeekNextUsingHint => {
                let reversed = self.reversed;
                let hint = self.root.next_cell_hint(cell.row, cell.family).filter(|h| {
                    cmp_cell_hint(cell.row, cell.family, cell.qualifier, *h, reversed).is_lt()
                });
                match hint {
                    Some(h) if h.row != cell.row => {
                        self.skipping = Some(Skipping::Row);
                        self.skip_row.clear();
                        self.skip_row.extend_from_slice(h.row);
                        ReturnCode::SeekToRow
                    }
                    // Every cell of this column lies before the hint.
                    Some(h) if !reversed => {
                        self.skipping = Some(Skipping::Hint);
                        self.skip_family.clear();
                        self.skip_family.extend_from_slice(h.family);
                        self.skip_qualifier.clear();
                        self.skip_qualifier.extend_from_slice(h.qualifier);
                        ReturnCode::NextCol
                    }
                    _ => ReturnCode::Skip,
                }
            }
        }
    }

    /// HBase `transformCell` for the cell just included: `Some(new value)` when the value
    /// changes (`KeyOnly` → empty [FLT-8]), `None` to keep it.
    pub fn transform_cell(&self, value: &[u8]) -> Option<Vec<u8>> {
        match self.root.transform_cell(Cow::Borrowed(value)) {
            // Unchanged (the common case: compared by address, not by content).
            Cow::Borrowed(v) if std::ptr::eq(v, value) || v == value => None,
            v => Some(v.into_owned()),
        }
    }

    /// HBase `hasFilterRow` (see [`Filter::has_filter_row`]).
    pub fn has_filter_row(&self) -> bool {
        self.root.has_filter_row()
    }

    /// HBase `filterRowCells`: may rewrite the row's kept cells (`SingleColumnValueExclude`
    /// drops the tested column, `DependentColumn` the cells without a reference timestamp).
    /// Call it when [`Self::has_filter_row`].
    pub fn filter_row_cells(&mut self, cells: &mut Vec<crate::model::cell::Cell>) {
        self.root.filter_row_cells(cells);
    }

    /// HBase `filterRow`: `true` = drop the row. Call it once per row, and only when the row
    /// still has cells (HBase never asks about empty rows; `Page` counts each call).
    pub fn filter_row(&mut self) -> bool {
        self.root.filter_row()
    }
}
