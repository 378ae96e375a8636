//! Filters that decide on a whole row by one column's value: HBase's
//! `SingleColumnValueFilter` [FLT-5].

use super::compare::{Compare, check_op_for};
use super::parse::{Arg, arity, to_bool, to_comparator, to_op, unquote};
use super::protocol::{CellView, FilterImpl, Rc};
use super::{Comparator, CompareOp, Filter};
use crate::base::error::Result;

/// `SingleColumnValueFilter`: the row passes iff the tested column's value passes; a row
/// without the column passes unless `filter_if_missing` [FLT-5].
#[derive(Debug)]
pub(super) struct SingleColumnValueFilter {
    family: Vec<u8>,
    qualifier: Vec<u8>,
    compare: Compare,
    filter_if_missing: bool,
    latest_version_only: bool,
    found_column: bool,
    matched_column: bool,
}

impl SingleColumnValueFilter {
    pub(super) fn new(
        family: &[u8],
        qualifier: &[u8],
        op: CompareOp,
        comparator: &Comparator,
        filter_if_missing: bool,
        latest_version_only: bool,
    ) -> Result<Self> {
        Ok(SingleColumnValueFilter {
            family: family.to_vec(),
            qualifier: qualifier.to_vec(),
            compare: Compare::new(op, comparator)?,
            filter_if_missing,
            latest_version_only,
            found_column: false,
            matched_column: false,
        })
    }

    /// `SingleColumnValueFilter.createFilterFromArguments`: `(family, qualifier, op,
    /// comparator)` with HBase's defaults, or all six.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        arity(name, args, &[4, 6], base)?;
        let family = unquote(&args[0])?;
        let qualifier = unquote(&args[1])?;
        let op = to_op(&args[2])?;
        let comparator = to_comparator(&args[3])?;
        check_op_for(op, &comparator, &args[3])?;
        let (filter_if_missing, latest_version_only) = if args.len() == 6 {
            (to_bool(&args[4])?, to_bool(&args[5])?)
        } else {
            (false, true)
        };
        Ok(Filter::SingleColumnValue {
            family,
            qualifier,
            op,
            comparator,
            filter_if_missing,
            latest_version_only,
        })
    }
}

impl FilterImpl for SingleColumnValueFilter {
    fn reset(&mut self) {
        self.found_column = false;
        self.matched_column = false;
    }

    // SingleColumnValueFilter.filterCell [FLT-5]
    fn filter_cell(&mut self, c: &CellView<'_>) -> Rc {
        if self.matched_column {
            return Rc::Include;
        }
        if self.latest_version_only && self.found_column {
            return Rc::NextRow;
        }
        if c.family != self.family.as_slice() || c.qualifier != self.qualifier.as_slice() {
            return Rc::Include;
        }
        self.found_column = true;
        if self.compare.filters_out(c.value) {
            return if self.latest_version_only {
                Rc::NextRow
            } else {
                Rc::Include
            };
        }
        self.matched_column = true;
        Rc::Include
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    // [FLT-5] found ? !matched : filterIfMissing
    fn filter_row(&mut self) -> bool {
        if self.found_column {
            !self.matched_column
        } else {
            self.filter_if_missing
        }
    }
}
