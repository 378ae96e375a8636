//! A [`Filter`] back to HBase's filter language (`ParseFilter`'s input): what a remote
//! database sends as `TGet.filterString` / `TScan.filterString`. The inverse of `parse.rs`:
//! `Filter::parse(&f.to_filter_string()?)` is `f` for every filter the language can express
//! (tested in `tests/unparse.rs` beside this file).
//!
//! The filters and comparators HBase offers only through its Java API (MultiRowRangeFilter,
//! FuzzyRowFilter, RandomRowFilter, ColumnPaginationFilter with a column offset, the Long, Bit
//! and Null comparators) have no string form: they are [`Error::Unsupported`], as are byte
//! strings that are not UTF-8 (the language is parsed as text here).

use super::{BitOp, Comparator, CompareOp, Filter};
use crate::base::error::{Error, Result};

impl Filter {
    /// This filter in HBase's filter language.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a filter or comparator with no filter-language form, or a
    /// byte string that is not UTF-8.
    ///
    /// # Examples
    /// ```
    /// use cellbase::{CompareOp, Comparator, Filter};
    /// let f = Filter::All(vec![
    ///     Filter::Prefix(b"user".to_vec()),
    ///     Filter::Value(CompareOp::Equal, Comparator::Substring("it's".into())),
    /// ]);
    /// let s = f.to_filter_string()?;
    /// assert_eq!(s, "(PrefixFilter ('user')) AND (ValueFilter (=, 'substring:it''s'))");
    /// assert_eq!(Filter::parse(&s)?, f);
    /// # Ok::<(), cellbase::Error>(())
    /// ```
    pub fn to_filter_string(&self) -> Result<String> {
        let mut out = String::new();
        write(self, &mut out)?;
        Ok(out)
    }
}

fn unsupported(what: &str) -> Error {
    Error::Unsupported(format!(
        "{what} has no form in HBase's filter language (HBase offers it only through its Java API)"
    ))
}

/// `'text'` with `'` doubled, as `ParseFilter` reads quoted arguments.
fn quoted(b: &[u8], out: &mut String) -> Result<()> {
    let s = std::str::from_utf8(b).map_err(|_| {
        Error::Unsupported(format!(
            "filter argument {b:?} is not UTF-8: the filter language is sent as text"
        ))
    })?;
    out.push('\'');
    out.push_str(&s.replace('\'', "''"));
    out.push('\'');
    Ok(())
}

fn op(o: CompareOp) -> &'static str {
    match o {
        CompareOp::Less => "<",
        CompareOp::LessOrEqual => "<=",
        CompareOp::Equal => "=",
        CompareOp::NotEqual => "!=",
        CompareOp::GreaterOrEqual => ">=",
        CompareOp::Greater => ">",
    }
}

fn comparator(c: &Comparator, out: &mut String) -> Result<()> {
    let (kind, bytes): (&str, &[u8]) = match c {
        Comparator::Binary(b) => ("binary:", b),
        Comparator::BinaryPrefix(b) => ("binaryprefix:", b),
        Comparator::Substring(s) => ("substring:", s.as_bytes()),
        Comparator::Regex(s) => ("regexstring:", s.as_bytes()),
        Comparator::Long(_) => return Err(unsupported("LongComparator")),
        Comparator::Bit(_, BitOp::And | BitOp::Or | BitOp::Xor) => {
            return Err(unsupported("BitComparator"));
        }
        Comparator::Null => return Err(unsupported("NullComparator")),
    };
    let mut v = kind.as_bytes().to_vec();
    v.extend_from_slice(bytes);
    quoted(&v, out)
}

/// `Name (a, b, ...)` with each argument written by `args`.
fn call(
    name: &str,
    out: &mut String,
    args: impl FnOnce(&mut Vec<String>) -> Result<()>,
) -> Result<()> {
    let mut a = Vec::new();
    args(&mut a)?;
    out.push_str(name);
    out.push_str(" (");
    out.push_str(&a.join(", "));
    out.push(')');
    Ok(())
}

fn q(b: &[u8]) -> Result<String> {
    let mut s = String::new();
    quoted(b, &mut s)?;
    Ok(s)
}

fn cmp(c: &Comparator) -> Result<String> {
    let mut s = String::new();
    comparator(c, &mut s)?;
    Ok(s)
}

fn write(f: &Filter, out: &mut String) -> Result<()> {
    match f {
        Filter::Prefix(p) => call("PrefixFilter", out, |a| {
            a.push(q(p)?);
            Ok(())
        }),
        Filter::Row(o, c)
        | Filter::Family(o, c)
        | Filter::Qualifier(o, c)
        | Filter::Value(o, c) => {
            let name = match f {
                Filter::Row(..) => "RowFilter",
                Filter::Family(..) => "FamilyFilter",
                Filter::Qualifier(..) => "QualifierFilter",
                _ => "ValueFilter",
            };
            call(name, out, |a| {
                a.push(op(*o).into());
                a.push(cmp(c)?);
                Ok(())
            })
        }
        Filter::SingleColumnValue {
            family,
            qualifier,
            op: o,
            comparator: c,
            filter_if_missing,
            latest_version_only,
        }
        | Filter::SingleColumnValueExclude {
            family,
            qualifier,
            op: o,
            comparator: c,
            filter_if_missing,
            latest_version_only,
        } => {
            let name = match f {
                Filter::SingleColumnValue { .. } => "SingleColumnValueFilter",
                _ => "SingleColumnValueExcludeFilter",
            };
            call(name, out, |a| {
                a.extend([q(family)?, q(qualifier)?, op(*o).into(), cmp(c)?]);
                a.extend([
                    filter_if_missing.to_string(),
                    latest_version_only.to_string(),
                ]);
                Ok(())
            })
        }
        Filter::ColumnPrefix(p) => call("ColumnPrefixFilter", out, |a| {
            a.push(q(p)?);
            Ok(())
        }),
        Filter::ColumnRange {
            min,
            min_inclusive,
            max,
            max_inclusive,
        } => call("ColumnRangeFilter", out, |a| {
            a.push(q(min.as_deref().unwrap_or_default())?);
            a.push(min_inclusive.to_string());
            a.push(q(max.as_deref().unwrap_or_default())?);
            a.push(max_inclusive.to_string());
            Ok(())
        }),
        Filter::Page(n) => call("PageFilter", out, |a| {
            a.push(n.to_string());
            Ok(())
        }),
        Filter::FirstKeyOnly => call("FirstKeyOnlyFilter", out, |_| Ok(())),
        Filter::KeyOnly => call("KeyOnlyFilter", out, |_| Ok(())),
        Filter::KeyOnlyValueLength => call("KeyOnlyFilter", out, |a| {
            a.push("true".into());
            Ok(())
        }),
        Filter::Timestamps(ts) => call("TimestampsFilter", out, |a| {
            a.extend(ts.iter().map(i64::to_string));
            Ok(())
        }),
        Filter::MultipleColumnPrefix(ps) => call("MultipleColumnPrefixFilter", out, |a| {
            for p in ps {
                a.push(q(p)?);
            }
            Ok(())
        }),
        Filter::ColumnCountGet(n) => call("ColumnCountGetFilter", out, |a| {
            a.push(n.to_string());
            Ok(())
        }),
        Filter::ColumnPagination { limit, offset } => call("ColumnPaginationFilter", out, |a| {
            a.extend([limit.to_string(), offset.to_string()]);
            Ok(())
        }),
        Filter::ColumnPaginationFrom { .. } => {
            Err(unsupported("ColumnPaginationFilter with a column offset"))
        }
        Filter::InclusiveStop(r) => call("InclusiveStopFilter", out, |a| {
            a.push(q(r)?);
            Ok(())
        }),
        Filter::DependentColumn {
            family,
            qualifier,
            drop_dependent_column,
            value,
        } => call("DependentColumnFilter", out, |a| {
            a.extend([q(family)?, q(qualifier)?, drop_dependent_column.to_string()]);
            if let Some((o, c)) = value {
                a.extend([op(*o).to_string(), cmp(c)?]);
            }
            Ok(())
        }),
        Filter::ColumnValue {
            family,
            qualifier,
            op: o,
            comparator: c,
        } => call("ColumnValueFilter", out, |a| {
            a.extend([q(family)?, q(qualifier)?, op(*o).into(), cmp(c)?]);
            Ok(())
        }),
        Filter::MultiRowRange(_) => Err(unsupported("MultiRowRangeFilter")),
        Filter::FuzzyRow(_) => Err(unsupported("FuzzyRowFilter")),
        Filter::RandomRow { .. } => Err(unsupported("RandomRowFilter")),
        Filter::Skip(inner) | Filter::WhileMatch(inner) => {
            out.push_str(if matches!(f, Filter::Skip(_)) {
                "SKIP ("
            } else {
                "WHILE ("
            });
            write(inner, out)?;
            out.push(')');
            Ok(())
        }
        Filter::All(fs) | Filter::Any(fs) => {
            let joiner = if matches!(f, Filter::All(_)) {
                " AND "
            } else {
                " OR "
            };
            if fs.is_empty() {
                return Err(Error::Unsupported(
                    "an empty FilterList has no form in HBase's filter language".into(),
                ));
            }
            for (i, g) in fs.iter().enumerate() {
                if i > 0 {
                    out.push_str(joiner);
                }
                out.push('(');
                write(g, out)?;
                out.push(')');
            }
            Ok(())
        }
    }
}
