//! Filters on columns and keys: HBase's `ColumnPrefixFilter`, `MultipleColumnPrefixFilter`,
//! `ColumnRangeFilter` [FLT-6], `FirstKeyOnlyFilter` and `KeyOnlyFilter` [FLT-8], and the
//! column counters `ColumnCountGetFilter` and `ColumnPaginationFilter`.

use super::Filter;
use super::parse::{Arg, arity, err, to_bool, to_long, unquote};
use super::protocol::{CellView, FilterImpl, Hint, Rc};
use crate::base::error::{Error, Result};
use std::borrow::Cow;
use std::cmp::Ordering;

/// `ColumnPrefixFilter`: qualifiers starting with the prefix; seeks to the prefix from
/// before it and leaves the family after it [FLT-6].
#[derive(Debug)]
pub(super) struct ColumnPrefixFilter {
    prefix: Vec<u8>,
}

impl ColumnPrefixFilter {
    pub(super) fn new(prefix: &[u8]) -> Self {
        ColumnPrefixFilter {
            prefix: prefix.to_vec(),
        }
    }

    /// `ColumnPrefixFilter.createFilterFromArguments`.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        arity(name, args, &[1], base)?;
        Ok(Filter::ColumnPrefix(unquote(&args[0])?))
    }
}

impl FilterImpl for ColumnPrefixFilter {
    // ColumnPrefixFilter.filterColumn [FLT-6]
    fn filter_cell(&mut self, c: &CellView<'_>) -> Rc {
        let (q, p) = (c.qualifier, self.prefix.as_slice());
        if q.len() < p.len() {
            if q.cmp(&p[..q.len()]) != Ordering::Greater {
                Rc::SeekNextUsingHint
            } else {
                Rc::NextRow
            }
        } else {
            match q[..p.len()].cmp(p) {
                Ordering::Less => Rc::SeekNextUsingHint,
                Ordering::Greater => Rc::NextRow,
                Ordering::Equal => Rc::Include,
            }
        }
    }

    fn next_cell_hint<'a>(&'a self, row: &'a [u8], family: &'a [u8]) -> Option<Hint<'a>> {
        Some(Hint {
            row,
            family,
            qualifier: &self.prefix,
        })
    }
}

/// `ColumnRangeFilter`: qualifiers in the range; `None` bounds are unbounded [FLT-6].
#[derive(Debug)]
pub(super) struct ColumnRangeFilter {
    min: Option<Vec<u8>>,
    min_inclusive: bool,
    max: Option<Vec<u8>>,
    max_inclusive: bool,
}

impl ColumnRangeFilter {
    pub(super) fn new(
        min: &Option<Vec<u8>>,
        min_inclusive: bool,
        max: &Option<Vec<u8>>,
        max_inclusive: bool,
    ) -> Self {
        ColumnRangeFilter {
            min: min.clone(),
            min_inclusive,
            max: max.clone(),
            max_inclusive,
        }
    }

    /// `ColumnRangeFilter.createFilterFromArguments`: `(min, minInclusive, max,
    /// maxInclusive)`; an empty bound means "unbounded" in the language.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        arity(name, args, &[4], base)?;
        let min = unquote(&args[0])?;
        let min_inclusive = to_bool(&args[1])?;
        let max = unquote(&args[2])?;
        let max_inclusive = to_bool(&args[3])?;
        Ok(Filter::ColumnRange {
            min: (!min.is_empty()).then_some(min),
            min_inclusive,
            max: (!max.is_empty()).then_some(max),
            max_inclusive,
        })
    }
}

impl FilterImpl for ColumnRangeFilter {
    // ColumnRangeFilter.filterCell [FLT-6]
    fn filter_cell(&mut self, c: &CellView<'_>) -> Rc {
        let q = c.qualifier;
        let cmp_min = self
            .min
            .as_ref()
            .map_or(Ordering::Greater, |m| q.cmp(m.as_slice()));
        if cmp_min == Ordering::Less {
            return Rc::SeekNextUsingHint;
        }
        if !self.min_inclusive && cmp_min == Ordering::Equal {
            return Rc::NextCol;
        }
        let Some(max) = &self.max else {
            return Rc::Include;
        };
        let cmp_max = q.cmp(max.as_slice());
        if (self.max_inclusive && cmp_max != Ordering::Greater)
            || (!self.max_inclusive && cmp_max == Ordering::Less)
        {
            Rc::Include
        } else {
            Rc::NextRow
        }
    }

    fn next_cell_hint<'a>(&'a self, row: &'a [u8], family: &'a [u8]) -> Option<Hint<'a>> {
        Some(Hint {
            row,
            family,
            qualifier: self.min.as_deref().unwrap_or_default(),
        })
    }
}

/// `FirstKeyOnlyFilter`: only the first cell of each row [FLT-8].
#[derive(Debug, Default)]
pub(super) struct FirstKeyOnlyFilter {
    found: bool,
}

impl FirstKeyOnlyFilter {
    /// `FirstKeyOnlyFilter.createFilterFromArguments`: no arguments.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        arity(name, args, &[0], base)?;
        Ok(Filter::FirstKeyOnly)
    }
}

impl FilterImpl for FirstKeyOnlyFilter {
    fn reset(&mut self) {
        self.found = false;
    }

    fn filter_cell(&mut self, _: &CellView<'_>) -> Rc {
        if self.found {
            Rc::NextRow
        } else {
            self.found = true;
            Rc::Include
        }
    }
}

/// `KeyOnlyFilter(lenAsVal)`: every cell, its value replaced by an empty one, or by the
/// original value's length as a 4-byte big-endian int [FLT-8].
#[derive(Debug)]
pub(super) struct KeyOnlyFilter {
    pub(super) len_as_val: bool,
}

impl KeyOnlyFilter {
    /// `KeyOnlyFilter.createFilterFromArguments`: `()`, `(false)` or `(true)`.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        arity(name, args, &[0, 1], base)?;
        Ok(match args.first() {
            Some(a) if to_bool(a)? => Filter::KeyOnlyValueLength,
            _ => Filter::KeyOnly,
        })
    }
}

impl FilterImpl for KeyOnlyFilter {
    fn transform_cell<'v>(&self, value: Cow<'v, [u8]>) -> Cow<'v, [u8]> {
        if self.len_as_val {
            // KeyOnlyFilter.KeyOnlyCell: Bytes.toBytes(int length), as Java truncates.
            let len = u32::try_from(value.len()).unwrap_or(u32::MAX);
            Cow::Owned(len.to_be_bytes().to_vec())
        } else {
            Cow::Borrowed(&[])
        }
    }
}

/// `MultipleColumnPrefixFilter`: qualifiers starting with one of the sorted, distinct
/// prefixes; seeks to the next prefix and leaves the family after the last [FLT-6].
#[derive(Debug)]
pub(super) struct MultipleColumnPrefixFilter {
    sorted: Vec<Vec<u8>>,
    /// Index in `sorted` of the prefix the last `SEEK_NEXT_USING_HINT` points at.
    hint: usize,
}

impl MultipleColumnPrefixFilter {
    /// The constructor refuses duplicate prefixes ("prefixes must be distinct").
    pub(super) fn new(prefixes: &[Vec<u8>]) -> Result<Self> {
        let mut sorted = prefixes.to_vec();
        sorted.sort();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return Err(Error::invalid(
                "MultipleColumnPrefixFilter: prefixes must be distinct",
            ));
        }
        Ok(MultipleColumnPrefixFilter { sorted, hint: 0 })
    }

    /// `MultipleColumnPrefixFilter.createFilterFromArguments`: any number of quoted prefixes.
    pub(super) fn from_arguments(_name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        let prefixes = args.iter().map(unquote).collect::<Result<Vec<_>>>()?;
        MultipleColumnPrefixFilter::new(&prefixes).map_err(|e| err(base, e.to_string()))?;
        Ok(Filter::MultipleColumnPrefix(prefixes))
    }
}

impl FilterImpl for MultipleColumnPrefixFilter {
    // MultipleColumnPrefixFilter.filterColumn [FLT-6]
    fn filter_cell(&mut self, c: &CellView<'_>) -> Rc {
        if self.sorted.is_empty() {
            return Rc::Include;
        }
        let q = c.qualifier;
        // Prefixes <= the qualifier (headSet(qualifier, true)).
        let lesser_or_equal = self.sorted.partition_point(|p| p.as_slice() <= q);
        if lesser_or_equal == 0 {
            self.hint = 0;
            return Rc::SeekNextUsingHint;
        }
        if q.starts_with(&self.sorted[lesser_or_equal - 1]) {
            return Rc::Include;
        }
        if lesser_or_equal == self.sorted.len() {
            Rc::NextRow
        } else {
            self.hint = lesser_or_equal;
            Rc::SeekNextUsingHint
        }
    }

    fn next_cell_hint<'a>(&'a self, row: &'a [u8], family: &'a [u8]) -> Option<Hint<'a>> {
        Some(Hint {
            row,
            family,
            qualifier: self.sorted.get(self.hint)?,
        })
    }
}

/// `ColumnCountGetFilter`: the first `limit` columns of each row (`INCLUDE_AND_NEXT_COL`);
/// `filterAllRemaining` once a row has more, which ends a scan.
#[derive(Debug)]
pub(super) struct ColumnCountGetFilter {
    limit: u32,
    count: u64,
}

impl ColumnCountGetFilter {
    pub(super) fn new(limit: u32) -> Self {
        ColumnCountGetFilter { limit, count: 0 }
    }

    /// `ColumnCountGetFilter.createFilterFromArguments`: one int, not negative.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        arity(name, args, &[1], base)?;
        Ok(Filter::ColumnCountGet(to_count(name, "limit", &args[0])?))
    }
}

impl FilterImpl for ColumnCountGetFilter {
    fn reset(&mut self) {
        self.count = 0;
    }

    fn filter_all_remaining(&self) -> bool {
        self.count > u64::from(self.limit)
    }

    fn filter_cell(&mut self, _: &CellView<'_>) -> Rc {
        self.count += 1;
        if self.filter_all_remaining() {
            Rc::NextCol
        } else {
            Rc::IncludeAndNextCol
        }
    }
}

/// `ColumnPaginationFilter`: per row, `limit` columns after skipping `offset` columns, or
/// starting at the first qualifier `>= column_offset` (newest version of each column).
#[derive(Debug)]
pub(super) struct ColumnPaginationFilter {
    limit: u32,
    offset: Option<u32>,
    column_offset: Option<Vec<u8>>,
    count: u64,
}

impl ColumnPaginationFilter {
    /// One of `offset` / `column_offset` is set.
    pub(super) fn new(limit: u32, offset: Option<u32>, column_offset: Option<Vec<u8>>) -> Self {
        ColumnPaginationFilter {
            limit,
            offset,
            column_offset,
            count: 0,
        }
    }

    /// `ColumnPaginationFilter.createFilterFromArguments`: `(limit, offset)`, two ints, not
    /// negative.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        arity(name, args, &[2], base)?;
        let limit = to_count(name, "limit", &args[0])?;
        let offset = to_count(name, "offset", &args[1])?;
        Ok(Filter::ColumnPagination { limit, offset })
    }
}

impl FilterImpl for ColumnPaginationFilter {
    fn reset(&mut self) {
        self.count = 0;
    }

    // ColumnPaginationFilter.filterCell
    fn filter_cell(&mut self, c: &CellView<'_>) -> Rc {
        let limit = u64::from(self.limit);
        if let Some(column_offset) = &self.column_offset {
            if self.count >= limit {
                return Rc::NextRow;
            }
            // Only compared until a column has been counted.
            if self.count == 0 && c.qualifier < column_offset.as_slice() {
                return Rc::SeekNextUsingHint;
            }
            self.count += 1;
            return Rc::IncludeAndNextCol;
        }
        let offset = u64::from(self.offset.unwrap_or(0));
        if self.count >= offset + limit {
            return Rc::NextRow;
        }
        let code = if self.count < offset {
            Rc::NextCol
        } else {
            Rc::IncludeAndNextCol
        };
        self.count += 1;
        code
    }

    fn next_cell_hint<'a>(&'a self, row: &'a [u8], family: &'a [u8]) -> Option<Hint<'a>> {
        Some(Hint {
            row,
            family,
            qualifier: self.column_offset.as_deref()?,
        })
    }
}

/// `ParseFilter.convertByteArrayToInt` of a count that must not be negative
/// (`Preconditions.checkArgument(x >= 0)` in the filters' constructors).
fn to_count(name: &str, what: &str, arg: &Arg) -> Result<u32> {
    let n = to_long(arg)?;
    if n > i64::from(i32::MAX) || n < i64::from(i32::MIN) {
        return Err(err(
            arg.pos,
            format!("{name}: integer argument `{n}` is out of the int range"),
        ));
    }
    u32::try_from(n).map_err(|_| {
        err(
            arg.pos,
            format!("{name}: {what} must not be negative, got {n}"),
        )
    })
}
