//! A scanner's `filter`: the JSON `FilterModel` of HBase's `ScannerModel` (its `build()`:
//! `type`, `op`, `comparator {type, value, op}`, `value`, `filters`, `family`, `qualifier`,
//! `ifMissing`, `latestVersion`, `limit`, `offset`, `minColumn`..., base64 for byte fields),
//! mapped onto [`cellbase::Filter`]. A filter that is not JSON (does not start with `{`) is
//! read as HBase's filter language ([`Filter::parse`], as the shell and the Thrift gateway
//! read it): a cellbase extension, documented in docs/REST.md.
use super::model::unb64;
use cellbase::{BitOp, Comparator, CompareOp, Filter, MAX_FILTER_DEPTH, RowRange};
use serde_json::{Map, Value};

type R<T> = Result<T, String>;

/// Parses a scanner's filter string.
pub fn parse(text: &str) -> R<Filter> {
    let t = text.trim();
    if !t.starts_with('{') {
        return Filter::parse(t).map_err(|e| format!("bad filter string: {e}"));
    }
    let v: Value = serde_json::from_str(t).map_err(|e| format!("filter is not JSON: {e}"))?;
    build(&v, 1)
}

fn obj(v: &Value) -> R<&Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| "a filter must be a JSON object".into())
}

fn s<'a>(o: &'a Map<String, Value>, k: &str) -> R<&'a str> {
    o.get(k)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("filter field {k:?} is missing or not a string"))
}

fn bytes(o: &Map<String, Value>, k: &str) -> R<Vec<u8>> {
    unb64(s(o, k)?, k)
}

fn int(o: &Map<String, Value>, k: &str) -> R<i64> {
    match o.get(k) {
        Some(Value::Number(n)) => n.as_i64().ok_or_else(|| format!("{k} is not an integer")),
        Some(Value::String(t)) => t.parse().map_err(|_| format!("{k} is not an integer")),
        _ => Err(format!("filter field {k:?} is missing or not a number")),
    }
}

fn u32_of(o: &Map<String, Value>, k: &str) -> R<u32> {
    u32::try_from(int(o, k)?).map_err(|_| format!("{k} is out of range"))
}

/// The array `k` of `o`, or `missing` as the error.
fn list<'a>(o: &'a Map<String, Value>, k: &str, missing: &str) -> R<&'a Vec<Value>> {
    o.get(k)
        .and_then(Value::as_array)
        .ok_or_else(|| missing.to_string())
}

fn flag(o: &Map<String, Value>, k: &str) -> Option<bool> {
    match o.get(k) {
        Some(Value::Bool(b)) => Some(*b),
        Some(Value::String(t)) => Some(t.eq_ignore_ascii_case("true")),
        _ => None,
    }
}

/// HBase's `CompareOperator` names (and the older `CompareOp`'s, which are the same).
fn op(o: &Map<String, Value>) -> R<CompareOp> {
    Ok(match s(o, "op")? {
        "LESS" => CompareOp::Less,
        "LESS_OR_EQUAL" => CompareOp::LessOrEqual,
        "EQUAL" => CompareOp::Equal,
        "NOT_EQUAL" => CompareOp::NotEqual,
        "GREATER_OR_EQUAL" => CompareOp::GreaterOrEqual,
        "GREATER" => CompareOp::Greater,
        other => return Err(format!("unknown compare operator {other}")),
    })
}

/// `ByteArrayComparableModel.build()`.
fn comparator(o: &Map<String, Value>) -> R<Comparator> {
    let c = obj(o.get("comparator").ok_or("filter needs a comparator")?)?;
    Ok(match s(c, "type")? {
        "BinaryComparator" => Comparator::Binary(bytes(c, "value")?),
        "BinaryPrefixComparator" => Comparator::BinaryPrefix(bytes(c, "value")?),
        "BitComparator" => {
            let bop = match s(c, "op")? {
                "AND" => BitOp::And,
                "OR" => BitOp::Or,
                "XOR" => BitOp::Xor,
                other => return Err(format!("unknown BitComparator op {other}")),
            };
            Comparator::Bit(bytes(c, "value")?, bop)
        }
        "NullComparator" => Comparator::Null,
        "RegexStringComparator" => Comparator::Regex(s(c, "value")?.to_string()),
        "SubstringComparator" => Comparator::Substring(s(c, "value")?.to_string()),
        other => return Err(format!("unknown comparator type {other}")),
    })
}

fn children(o: &Map<String, Value>, depth: usize) -> R<Vec<Filter>> {
    list(o, "filters", "filter needs a \"filters\" list")?
        .iter()
        .map(|f| build(f, depth + 1))
        .collect()
}

fn one_child(o: &Map<String, Value>, depth: usize) -> R<Box<Filter>> {
    let mut kids = children(o, depth)?;
    if kids.len() != 1 {
        return Err("SkipFilter and WhileMatchFilter wrap exactly one filter".into());
    }
    Ok(Box::new(kids.remove(0)))
}

/// `FilterModel.build()`.
fn build(v: &Value, depth: usize) -> R<Filter> {
    if depth > MAX_FILTER_DEPTH {
        return Err(format!(
            "filter nested deeper than {MAX_FILTER_DEPTH} levels"
        ));
    }
    let o = obj(v)?;
    let ty = s(o, "type")?;
    Ok(match ty {
        "ColumnCountGetFilter" => Filter::ColumnCountGet(u32_of(o, "limit")?),
        "ColumnPaginationFilter" => Filter::ColumnPagination {
            limit: u32_of(o, "limit")?,
            offset: u32_of(o, "offset")?,
        },
        "ColumnPrefixFilter" => Filter::ColumnPrefix(bytes(o, "value")?),
        "ColumnRangeFilter" => Filter::ColumnRange {
            min: Some(bytes(o, "minColumn")?).filter(|m| !m.is_empty()),
            min_inclusive: flag(o, "minColumnInclusive").unwrap_or(false),
            max: Some(bytes(o, "maxColumn")?).filter(|m| !m.is_empty()),
            max_inclusive: flag(o, "maxColumnInclusive").unwrap_or(false),
        },
        "DependentColumnFilter" => Filter::DependentColumn {
            family: bytes(o, "family")?,
            qualifier: match o.get("qualifier") {
                Some(_) => bytes(o, "qualifier")?,
                None => Vec::new(),
            },
            drop_dependent_column: flag(o, "dropDependentColumn").unwrap_or(false),
            value: if o.contains_key("comparator") {
                Some((op(o)?, comparator(o)?))
            } else {
                None
            },
        },
        "FamilyFilter" => Filter::Family(op(o)?, comparator(o)?),
        "QualifierFilter" => Filter::Qualifier(op(o)?, comparator(o)?),
        "RowFilter" => Filter::Row(op(o)?, comparator(o)?),
        "ValueFilter" => Filter::Value(op(o)?, comparator(o)?),
        "FilterList" => match s(o, "op")? {
            "MUST_PASS_ALL" => Filter::All(children(o, depth)?),
            "MUST_PASS_ONE" => Filter::Any(children(o, depth)?),
            other => return Err(format!("unknown FilterList operator {other}")),
        },
        "FirstKeyOnlyFilter" => Filter::FirstKeyOnly,
        "KeyOnlyFilter" => Filter::KeyOnly,
        "InclusiveStopFilter" => Filter::InclusiveStop(bytes(o, "value")?),
        "MultipleColumnPrefixFilter" => Filter::MultipleColumnPrefix(
            list(
                o,
                "prefixes",
                "MultipleColumnPrefixFilter needs \"prefixes\"",
            )?
            .iter()
            .map(|p| unb64(p.as_str().unwrap_or_default(), "prefix"))
            .collect::<R<_>>()?,
        ),
        "MultiRowRangeFilter" => {
            let mut ranges = Vec::new();
            for r in list(o, "ranges", "MultiRowRangeFilter needs \"ranges\"")? {
                let r = obj(r)?;
                let row = |k: &str| -> R<Vec<u8>> {
                    match r.get(k).and_then(Value::as_str) {
                        Some(t) => unb64(t, k),
                        None => Ok(Vec::new()),
                    }
                };
                ranges.push(RowRange::new(
                    row("startRow")?,
                    flag(r, "startRowInclusive").unwrap_or(true),
                    row("stopRow")?,
                    flag(r, "stopRowInclusive").unwrap_or(false),
                ));
            }
            Filter::MultiRowRange(ranges)
        }
        "PageFilter" => Filter::Page(
            u64::try_from(int(o, "value")?).map_err(|_| "PageFilter size is negative")?,
        ),
        "PrefixFilter" => Filter::Prefix(bytes(o, "value")?),
        "RandomRowFilter" => {
            let chance = o
                .get("chance")
                .and_then(Value::as_f64)
                .ok_or("RandomRowFilter needs \"chance\"")?;
            Filter::RandomRow {
                chance: chance as f32,
                seed: None,
            }
        }
        "SingleColumnValueFilter" | "SingleColumnValueExcludeFilter" => {
            let family = bytes(o, "family")?;
            let qualifier = match o.get("qualifier") {
                Some(_) => bytes(o, "qualifier")?,
                None => Vec::new(),
            };
            let (op, comparator) = (op(o)?, comparator(o)?);
            let filter_if_missing = flag(o, "ifMissing").unwrap_or(false);
            let latest_version_only = flag(o, "latestVersion").unwrap_or(true);
            if ty == "SingleColumnValueFilter" {
                Filter::SingleColumnValue {
                    family,
                    qualifier,
                    op,
                    comparator,
                    filter_if_missing,
                    latest_version_only,
                }
            } else {
                Filter::SingleColumnValueExclude {
                    family,
                    qualifier,
                    op,
                    comparator,
                    filter_if_missing,
                    latest_version_only,
                }
            }
        }
        "SkipFilter" => Filter::Skip(one_child(o, depth)?),
        "WhileMatchFilter" => Filter::WhileMatch(one_child(o, depth)?),
        "TimestampsFilter" => Filter::Timestamps(
            list(o, "timestamps", "TimestampsFilter needs \"timestamps\"")?
                .iter()
                .map(|t| t.as_i64().ok_or("a timestamp is not a long"))
                .collect::<Result<_, _>>()?,
        ),
        "FuzzyRowFilter" => {
            let mut keys = Vec::new();
            for k in list(o, "fuzzyKeys", "FuzzyRowFilter needs \"fuzzyKeys\"")? {
                let k = obj(k)?;
                keys.push((bytes(k, "key")?, bytes(k, "mask")?));
            }
            Filter::FuzzyRow(keys)
        }
        other => return Err(format!("unknown filter type {other}")),
    })
}
