//! Filters that pick rows by their key or their number: HBase's `PrefixFilter` [FLT-4] and
//! `PageFilter` [FLT-7].

use super::Filter;
use super::parse::{Arg, arity, err, to_long, unquote};
use super::protocol::{CellView, FilterImpl, Rc};
use crate::base::error::Result;
use std::cmp::Ordering;

/// `PrefixFilter`: rows whose key starts with the prefix; everything remaining is filtered
/// once rows have passed it in scan order [FLT-4].
#[derive(Debug)]
pub(super) struct PrefixFilter {
    prefix: Vec<u8>,
    reversed: bool,
    passed_prefix: bool,
    filter_row: bool,
}

impl PrefixFilter {
    pub(super) fn new(prefix: &[u8], reversed: bool) -> Self {
        PrefixFilter {
            prefix: prefix.to_vec(),
            reversed,
            passed_prefix: false,
            filter_row: true,
        }
    }

    /// `PrefixFilter.createFilterFromArguments`.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        arity(name, args, &[1], base)?;
        Ok(Filter::Prefix(unquote(&args[0])?))
    }
}

impl FilterImpl for PrefixFilter {
    fn reset(&mut self) {
        self.filter_row = true;
    }

    fn filter_all_remaining(&self) -> bool {
        self.passed_prefix
    }

    // PrefixFilter.filterRowKey [FLT-4]
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.passed_prefix {
            return true;
        }
        let prefix = self.prefix.as_slice();
        if row.len() < prefix.len() {
            return true;
        }
        let cmp = row[..prefix.len()].cmp(prefix);
        if (!self.reversed && cmp == Ordering::Greater) || (self.reversed && cmp == Ordering::Less)
        {
            self.passed_prefix = true;
        }
        self.filter_row = cmp != Ordering::Equal;
        self.filter_row
    }

    fn filter_cell(&mut self, _: &CellView<'_>) -> Rc {
        if self.filter_row {
            Rc::NextRow
        } else {
            Rc::Include
        }
    }

    fn filter_row(&mut self) -> bool {
        self.filter_row
    }
}

/// `PageFilter`: at most `page_size` rows, counted per runner in `filterRow` [FLT-7].
#[derive(Debug)]
pub(super) struct PageFilter {
    page_size: u64,
    rows_accepted: u64,
}

impl PageFilter {
    pub(super) fn new(page_size: u64) -> Self {
        PageFilter {
            page_size,
            rows_accepted: 0,
        }
    }

    /// `PageFilter.createFilterFromArguments`: a page size that is not negative [FLT-7].
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        arity(name, args, &[1], base)?;
        let n = to_long(&args[0])?;
        if n < 0 {
            return Err(err(
                args[0].pos,
                format!("PageFilter: page size must not be negative, got {n}"),
            ));
        }
        Ok(Filter::Page(n.unsigned_abs()))
    }
}

impl FilterImpl for PageFilter {
    fn filter_all_remaining(&self) -> bool {
        self.rows_accepted >= self.page_size
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    // [FLT-7] counts every row that reaches filterRow.
    fn filter_row(&mut self) -> bool {
        self.rows_accepted = self.rows_accepted.saturating_add(1);
        self.rows_accepted > self.page_size
    }
}
