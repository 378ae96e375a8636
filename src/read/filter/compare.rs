//! The compare filters (HBase `CompareFilter` and its subclasses `RowFilter`, `FamilyFilter`,
//! `QualifierFilter`, `ValueFilter`) and the compiled comparators they and the column value
//! filters share [FLT-1] [FLT-2] [FLT-3].

use super::parse::{Arg, arity, err, to_comparator, to_op};
use super::protocol::{CellView, FilterImpl, Rc};
use super::regex_java;
use super::{BitOp, Comparator, CompareOp, Filter};
use crate::base::error::Result;
use regex::Regex;
use std::cmp::Ordering;

/// A compiled [`Comparator`] (`ByteArrayComparable.compareTo(cellBytes)`).
#[derive(Debug)]
enum Cmp {
    Binary(Vec<u8>),
    BinaryPrefix(Vec<u8>),
    /// Lower-cased substring.
    Substring(String),
    Regex(Regex),
    Long(i64),
    Bit(Vec<u8>, BitOp),
    Null,
}

impl Cmp {
    fn new(c: &Comparator) -> Result<Cmp> {
        Ok(match c {
            Comparator::Binary(v) => Cmp::Binary(v.clone()),
            Comparator::BinaryPrefix(v) => Cmp::BinaryPrefix(v.clone()),
            // SubstringComparator lower-cases with Locale.ROOT on both sides.
            Comparator::Substring(s) => Cmp::Substring(s.to_lowercase()),
            Comparator::Regex(p) => Cmp::Regex(regex_java::compile(p)?),
            Comparator::Long(n) => Cmp::Long(*n),
            Comparator::Bit(v, op) => Cmp::Bit(v.clone(), *op),
            Comparator::Null => Cmp::Null,
        })
    }

    /// `comparator.compareTo(cell)`: the sign of `expected <=> cell` [FLT-2]; `None` when
    /// HBase's comparator would throw (`LongComparator` on a value that is not 8 bytes).
    fn compare_to(&self, cell: &[u8]) -> Option<Ordering> {
        Some(match self {
            Cmp::Binary(v) => v.as_slice().cmp(cell),
            Cmp::BinaryPrefix(v) => v.as_slice().cmp(&cell[..v.len().min(cell.len())]),
            // LongComparator: Long.compare(expected, Bytes.toLong(cell)).
            Cmp::Long(n) => n.cmp(&i64::from_be_bytes(cell.try_into().ok()?)),
            // BitComparator: 0 when the operation leaves a bit set, else 1; other lengths 1.
            Cmp::Bit(v, op) => {
                let set = v.len() == cell.len()
                    && v.iter().zip(cell).any(|(a, b)| {
                        (match op {
                            BitOp::And => a & b,
                            BitOp::Or => a | b,
                            BitOp::Xor => a ^ b,
                        }) != 0
                    });
                if set {
                    Ordering::Equal
                } else {
                    Ordering::Greater
                }
            }
            // NullComparator: any (non-null) array compares as 1.
            Cmp::Null => Ordering::Greater,
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
        })
    }
}

/// `CompareFilter`'s operator and comparator, compiled.
#[derive(Debug)]
pub(super) struct Compare {
    op: CompareOp,
    cmp: Cmp,
}

impl Compare {
    pub(super) fn new(op: CompareOp, c: &Comparator) -> Result<Compare> {
        Ok(Compare {
            op,
            cmp: Cmp::new(c)?,
        })
    }

    /// `CompareFilter.compare`: true when the cell's `bytes` must be filtered OUT. With
    /// `r = comparator.compareTo(bytes)`, e.g. LESS drops the cell when `expected <= cell`,
    /// i.e. keeps `cell < expected` [FLT-1].
    /// A value the comparator cannot compare (see [`Cmp::compare_to`]) is filtered out.
    pub(super) fn filters_out(&self, bytes: &[u8]) -> bool {
        let Some(r) = self.cmp.compare_to(bytes) else {
            return true;
        };
        match self.op {
            CompareOp::Less => r != Ordering::Greater,
            CompareOp::LessOrEqual => r == Ordering::Less,
            CompareOp::Equal => r != Ordering::Equal,
            CompareOp::NotEqual => r == Ordering::Equal,
            CompareOp::GreaterOrEqual => r == Ordering::Greater,
            CompareOp::Greater => r != Ordering::Less,
        }
    }
}

/// `CompareFilter.extractArguments`: `(op, 'type:value')`, regex/substring only with = / !=.
fn compare_args(name: &str, args: &[Arg], base: usize) -> Result<(CompareOp, Comparator)> {
    arity(name, args, &[2], base)?;
    let op = to_op(&args[0])?;
    let comparator = to_comparator(&args[1])?;
    check_op_for(op, &comparator, &args[1])?;
    Ok((op, comparator))
}

/// Regex and substring comparators answer only equal / not equal: other operators are refused
/// (`CompareFilter.extractArguments`).
pub(super) fn check_op_for(op: CompareOp, comparator: &Comparator, arg: &Arg) -> Result<()> {
    let restricted = matches!(comparator, Comparator::Regex(_) | Comparator::Substring(_));
    if restricted && !matches!(op, CompareOp::Equal | CompareOp::NotEqual) {
        return Err(err(
            arg.pos,
            "a regexstring comparator and substring comparator can only be used with EQUAL \
             and NOT_EQUAL",
        ));
    }
    Ok(())
}

/// `RowFilter`: decides per row, in `filterRowKey` [FLT-3].
#[derive(Debug)]
pub(super) struct RowFilter {
    compare: Compare,
    filter_out_row: bool,
}

impl RowFilter {
    pub(super) fn new(op: CompareOp, c: &Comparator) -> Result<Self> {
        Ok(RowFilter {
            compare: Compare::new(op, c)?,
            filter_out_row: false,
        })
    }

    /// `RowFilter.createFilterFromArguments`.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        let (op, c) = compare_args(name, args, base)?;
        Ok(Filter::Row(op, c))
    }
}

impl FilterImpl for RowFilter {
    fn reset(&mut self) {
        self.filter_out_row = false;
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.compare.filters_out(row) {
            self.filter_out_row = true;
        }
        self.filter_out_row
    }

    fn filter_cell(&mut self, _: &CellView<'_>) -> Rc {
        if self.filter_out_row {
            Rc::NextRow
        } else {
            Rc::Include
        }
    }

    fn filter_row(&mut self) -> bool {
        self.filter_out_row
    }
}

/// `FamilyFilter`: per cell, `NEXT_ROW` within the family when the family does not pass
/// [FLT-3].
#[derive(Debug)]
pub(super) struct FamilyFilter(Compare);

impl FamilyFilter {
    pub(super) fn new(op: CompareOp, c: &Comparator) -> Result<Self> {
        Ok(FamilyFilter(Compare::new(op, c)?))
    }

    /// `FamilyFilter.createFilterFromArguments`.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        let (op, c) = compare_args(name, args, base)?;
        Ok(Filter::Family(op, c))
    }
}

impl FilterImpl for FamilyFilter {
    fn filter_cell(&mut self, c: &CellView<'_>) -> Rc {
        if !c.family.is_empty() && self.0.filters_out(c.family) {
            Rc::NextRow
        } else {
            Rc::Include
        }
    }
}

/// `QualifierFilter`: per cell; cells whose qualifier does not pass are skipped [FLT-3].
#[derive(Debug)]
pub(super) struct QualifierFilter(Compare);

impl QualifierFilter {
    pub(super) fn new(op: CompareOp, c: &Comparator) -> Result<Self> {
        Ok(QualifierFilter(Compare::new(op, c)?))
    }

    /// `QualifierFilter.createFilterFromArguments`.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        let (op, c) = compare_args(name, args, base)?;
        Ok(Filter::Qualifier(op, c))
    }
}

impl FilterImpl for QualifierFilter {
    fn filter_cell(&mut self, c: &CellView<'_>) -> Rc {
        if self.0.filters_out(c.qualifier) {
            Rc::Skip
        } else {
            Rc::Include
        }
    }
}

/// `ValueFilter`: per cell; cells whose value does not pass are skipped [FLT-3].
#[derive(Debug)]
pub(super) struct ValueFilter(Compare);

impl ValueFilter {
    pub(super) fn new(op: CompareOp, c: &Comparator) -> Result<Self> {
        Ok(ValueFilter(Compare::new(op, c)?))
    }

    /// `ValueFilter.createFilterFromArguments`.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        let (op, c) = compare_args(name, args, base)?;
        Ok(Filter::Value(op, c))
    }
}

impl FilterImpl for ValueFilter {
    fn filter_cell(&mut self, c: &CellView<'_>) -> Rc {
        if self.0.filters_out(c.value) {
            Rc::Skip
        } else {
            Rc::Include
        }
    }
}
