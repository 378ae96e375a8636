//! Filters on columns and keys: HBase's `ColumnPrefixFilter` (and the language's
//! `MultipleColumnPrefixFilter`), `ColumnRangeFilter` [FLT-6], `FirstKeyOnlyFilter` and
//! `KeyOnlyFilter` [FLT-8].

use super::Filter;
use super::parse::{Arg, arity, err, to_bool, unquote};
use super::protocol::{CellView, FilterImpl, Hint, Rc};
use crate::base::error::Result;
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

/// `MultipleColumnPrefixFilter.createFilterFromArguments`: a qualifier passes iff it starts
/// with one of the prefixes, the same cells as an OR of ColumnPrefixFilters (no prefixes:
/// everything, like an empty list) [FLT-6].
pub(super) fn multiple_column_prefix_from_arguments(
    _name: &str,
    args: &[Arg],
    base: usize,
) -> Result<Filter> {
    let mut prefixes = args.iter().map(unquote).collect::<Result<Vec<_>>>()?;
    prefixes.sort();
    if prefixes.windows(2).any(|w| w[0] == w[1]) {
        return Err(err(
            base,
            "MultipleColumnPrefixFilter: prefixes must be distinct",
        ));
    }
    Ok(Filter::Any(
        prefixes.into_iter().map(Filter::ColumnPrefix).collect(),
    ))
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

    fn next_cell_hint<'a>(&'a self, family: &'a [u8]) -> Option<Hint<'a>> {
        Some(Hint {
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

    fn next_cell_hint<'a>(&'a self, family: &'a [u8]) -> Option<Hint<'a>> {
        Some(Hint {
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

/// `KeyOnlyFilter(false)`: every cell, its value replaced by an empty one [FLT-8].
#[derive(Debug)]
pub(super) struct KeyOnlyFilter;

impl KeyOnlyFilter {
    /// `KeyOnlyFilter.createFilterFromArguments`: `()` or `(false)`; `(true)` (the value's
    /// length instead of the value) is not representable.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        arity(name, args, &[0, 1], base)?;
        if let Some(a) = args.first()
            && to_bool(a)?
        {
            return Err(err(
                a.pos,
                "KeyOnlyFilter(true) (value replaced by its length) is not supported by \
                 cellbase's Filter",
            ));
        }
        Ok(Filter::KeyOnly)
    }
}

impl FilterImpl for KeyOnlyFilter {
    fn transform_cell<'v>(&self, _: Cow<'v, [u8]>) -> Cow<'v, [u8]> {
        Cow::Borrowed(&[])
    }
}
