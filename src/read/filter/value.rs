//! Filters that decide by one column's values: HBase's `SingleColumnValueFilter` and
//! `SingleColumnValueExcludeFilter` [FLT-5], `DependentColumnFilter` and `ColumnValueFilter`.

use super::compare::{Compare, check_op_for};
use super::parse::{Arg, arity, to_bool, to_comparator, to_op, unquote};
use super::protocol::{CellView, FilterImpl, Rc};
use super::{Comparator, CompareOp, Filter};
use crate::base::error::Result;
use crate::model::cell::Cell;

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
        let a = ScvArgs::parse(name, args, base)?;
        Ok(Filter::SingleColumnValue {
            family: a.family,
            qualifier: a.qualifier,
            op: a.op,
            comparator: a.comparator,
            filter_if_missing: a.filter_if_missing,
            latest_version_only: a.latest_version_only,
        })
    }
}

/// The arguments `SingleColumnValueFilter` and `SingleColumnValueExcludeFilter` share.
struct ScvArgs {
    family: Vec<u8>,
    qualifier: Vec<u8>,
    op: CompareOp,
    comparator: Comparator,
    filter_if_missing: bool,
    latest_version_only: bool,
}

impl ScvArgs {
    /// `SingleColumnValueFilter.createFilterFromArguments`'s checks: 4 or 6 arguments.
    fn parse(name: &str, args: &[Arg], base: usize) -> Result<ScvArgs> {
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
        Ok(ScvArgs {
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

/// `SingleColumnValueExcludeFilter`: a [`SingleColumnValueFilter`] whose `filterRowCells`
/// removes the tested column from the row [FLT-5].
#[derive(Debug)]
pub(super) struct SingleColumnValueExcludeFilter(pub(super) SingleColumnValueFilter);

impl SingleColumnValueExcludeFilter {
    /// `SingleColumnValueExcludeFilter.createFilterFromArguments`: as
    /// `SingleColumnValueFilter`'s.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        let a = ScvArgs::parse(name, args, base)?;
        Ok(Filter::SingleColumnValueExclude {
            family: a.family,
            qualifier: a.qualifier,
            op: a.op,
            comparator: a.comparator,
            filter_if_missing: a.filter_if_missing,
            latest_version_only: a.latest_version_only,
        })
    }
}

impl FilterImpl for SingleColumnValueExcludeFilter {
    fn reset(&mut self) {
        self.0.reset();
    }

    fn filter_cell(&mut self, c: &CellView<'_>) -> Rc {
        self.0.filter_cell(c)
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    // SingleColumnValueExcludeFilter.filterRowCells [FLT-5]
    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        let (f, q) = (self.0.family.as_slice(), self.0.qualifier.as_slice());
        cells.retain(|c| !(c.family() == f && c.qualifier() == q));
    }

    fn filter_row(&mut self) -> bool {
        self.0.filter_row()
    }
}

/// `DependentColumnFilter`: remembers the timestamps of the reference column's (passing)
/// cells and keeps, in `filterRowCells`, only the row's cells with one of them.
#[derive(Debug)]
pub(super) struct DependentColumnFilter {
    family: Vec<u8>,
    qualifier: Vec<u8>,
    drop_dependent_column: bool,
    compare: Option<Compare>,
    /// `stampSet` (a few entries per row: a sorted vector).
    stamps: Vec<i64>,
}

impl DependentColumnFilter {
    pub(super) fn new(
        family: &[u8],
        qualifier: &[u8],
        drop_dependent_column: bool,
        value: Option<&(CompareOp, Comparator)>,
    ) -> Result<Self> {
        Ok(DependentColumnFilter {
            family: family.to_vec(),
            qualifier: qualifier.to_vec(),
            drop_dependent_column,
            compare: value.map(|(op, c)| Compare::new(*op, c)).transpose()?,
            stamps: Vec::new(),
        })
    }

    /// `DependentColumnFilter.createFilterFromArguments`: `(family, qualifier)`,
    /// `(family, qualifier, dropDependentColumn)` or `(family, qualifier,
    /// dropDependentColumn, op, comparator)`.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        arity(name, args, &[2, 3, 5], base)?;
        let family = unquote(&args[0])?;
        let qualifier = unquote(&args[1])?;
        let drop_dependent_column = match args.get(2) {
            Some(a) => to_bool(a)?,
            None => false,
        };
        let value = if args.len() == 5 {
            Some((to_op(&args[3])?, to_comparator(&args[4])?))
        } else {
            None
        };
        Ok(Filter::DependentColumn {
            family,
            qualifier,
            drop_dependent_column,
            value,
        })
    }
}

impl FilterImpl for DependentColumnFilter {
    fn reset(&mut self) {
        self.stamps.clear();
    }

    // DependentColumnFilter.filterCell
    fn filter_cell(&mut self, c: &CellView<'_>) -> Rc {
        if c.family != self.family.as_slice() || c.qualifier != self.qualifier.as_slice() {
            // Kept for now; filterRowCells decides.
            return Rc::Include;
        }
        if self
            .compare
            .as_ref()
            .is_some_and(|cmp| cmp.filters_out(c.value))
        {
            return Rc::Skip;
        }
        if let Err(at) = self.stamps.binary_search(&c.ts) {
            self.stamps.insert(at, c.ts);
        }
        if self.drop_dependent_column {
            Rc::Skip
        } else {
            Rc::Include
        }
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        cells.retain(|c| self.stamps.binary_search(&c.timestamp()).is_ok());
    }
}

/// `ColumnValueFilter`: only the cells of one column whose value passes; leaves the family
/// once the column has been seen.
#[derive(Debug)]
pub(super) struct ColumnValueFilter {
    family: Vec<u8>,
    qualifier: Vec<u8>,
    compare: Compare,
    column_found: bool,
}

impl ColumnValueFilter {
    pub(super) fn new(
        family: &[u8],
        qualifier: &[u8],
        op: CompareOp,
        comparator: &Comparator,
    ) -> Result<Self> {
        Ok(ColumnValueFilter {
            family: family.to_vec(),
            qualifier: qualifier.to_vec(),
            compare: Compare::new(op, comparator)?,
            column_found: false,
        })
    }

    /// `ColumnValueFilter.createFilterFromArguments`: `(family, qualifier, op, comparator)`,
    /// regex and substring only with `=` / `!=`.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        arity(name, args, &[4], base)?;
        let family = unquote(&args[0])?;
        let qualifier = unquote(&args[1])?;
        let op = to_op(&args[2])?;
        let comparator = to_comparator(&args[3])?;
        check_op_for(op, &comparator, &args[3])?;
        Ok(Filter::ColumnValue {
            family,
            qualifier,
            op,
            comparator,
        })
    }
}

impl FilterImpl for ColumnValueFilter {
    fn reset(&mut self) {
        self.column_found = false;
    }

    // ColumnValueFilter.filterCell
    fn filter_cell(&mut self, c: &CellView<'_>) -> Rc {
        if c.family != self.family.as_slice() || c.qualifier != self.qualifier.as_slice() {
            return if self.column_found {
                Rc::NextRow
            } else {
                Rc::NextCol
            };
        }
        self.column_found = true;
        if self.compare.filters_out(c.value) {
            Rc::Skip
        } else {
            Rc::Include
        }
    }
}
