//! Wrapper filters: HBase's `SkipFilter` and `WhileMatchFilter`, the filter language's `SKIP`
//! and `WHILE` [FLT-10].

use super::protocol::{CellView, FilterImpl, Rc};
use std::borrow::Cow;

/// `SkipFilter`: passes the wrapped filter's answers through, and drops the whole row in
/// `filterRow` once the wrapped filter answered anything but `INCLUDE` for one of its cells
/// [FLT-10]. Like HBase's, it does not pass on `filterRowKey`, `filterAllRemaining`,
/// `filterRowCells`, `filterRow` or seek hints.
#[derive(Debug)]
pub(super) struct SkipFilter {
    inner: Box<dyn FilterImpl>,
    filter_row: bool,
}

impl SkipFilter {
    pub(super) fn new(inner: Box<dyn FilterImpl>) -> Self {
        SkipFilter {
            inner,
            filter_row: false,
        }
    }
}

impl FilterImpl for SkipFilter {
    fn reset(&mut self) {
        self.inner.reset();
        self.filter_row = false;
    }

    // FilterBase: SkipFilter.filterRowKey is false.
    fn filter_row_key(&mut self, _: &[u8]) -> bool {
        false
    }

    fn filter_cell(&mut self, c: &CellView<'_>) -> Rc {
        let rc = self.inner.filter_cell(c);
        self.filter_row = self.filter_row || rc != Rc::Include;
        rc
    }

    fn transform_cell<'v>(&self, value: Cow<'v, [u8]>) -> Cow<'v, [u8]> {
        self.inner.transform_cell(value)
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        self.filter_row
    }
}

/// `WhileMatchFilter`: passes the wrapped filter's answers through; once the wrapped filter
/// excludes a row key, answers anything but `INCLUDE` for a cell, or drops a row, everything
/// remaining is filtered (the scan ends) [FLT-10].
#[derive(Debug)]
pub(super) struct WhileMatchFilter {
    inner: Box<dyn FilterImpl>,
    filter_all_remaining: bool,
}

impl WhileMatchFilter {
    pub(super) fn new(inner: Box<dyn FilterImpl>) -> Self {
        WhileMatchFilter {
            inner,
            filter_all_remaining: false,
        }
    }
}

impl FilterImpl for WhileMatchFilter {
    fn reset(&mut self) {
        self.inner.reset();
    }

    fn filter_all_remaining(&self) -> bool {
        self.filter_all_remaining || self.inner.filter_all_remaining()
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.filter_all_remaining() {
            return true;
        }
        let value = self.inner.filter_row_key(row);
        self.filter_all_remaining |= value;
        value
    }

    fn filter_cell(&mut self, c: &CellView<'_>) -> Rc {
        let rc = self.inner.filter_cell(c);
        self.filter_all_remaining |= rc != Rc::Include;
        rc
    }

    fn transform_cell<'v>(&self, value: Cow<'v, [u8]>) -> Cow<'v, [u8]> {
        self.inner.transform_cell(value)
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        let value = self.inner.filter_row();
        self.filter_all_remaining |= value;
        value
    }
}
