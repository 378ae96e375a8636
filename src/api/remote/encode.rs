//! Requests to HBase 2.6's Thrift2 structs (`hbase.thrift`, `THBaseService`), field by field
//! as HBase's `ThriftUtilities` reads them back. What a struct cannot carry is
//! [`Error::Unsupported`] naming it: never dropped silently.

use crate::api::ops::{Append, CheckAndMutate, Delete, Get, Increment, Mutation, Put, Scan};
use crate::base::clock::LATEST_TIMESTAMP;
use crate::base::error::{Error, Result};
use crate::model::CellType;
use crate::model::mutation::Durability;
use crate::read::filter::{CompareOp, Filter};
use crate::read::matcher::{ColumnMap, PerFamily};
use cellbase_thrift::protocol::{T_STRING, T_STRUCT, Value};
use std::time::Duration;

/// The attribute HBase's `Mutation.setTTL` sets (`OperationWithAttributes` key `_ttl`, the TTL
/// in milliseconds as an 8-byte big-endian long); `ThriftUtilities` copies attributes over.
pub(crate) const TTL_ATTRIBUTE: &[u8] = b"_ttl";

fn unsupported(what: &str) -> Error {
    Error::Unsupported(format!(
        "{what}: HBase's Thrift2 service has no field for it"
    ))
}

fn bin(b: &[u8]) -> Value {
    Value::Binary(b.to_vec())
}

fn list(elem: u8, items: Vec<Value>) -> Value {
    Value::List(elem, items)
}

/// `TTimeRange`.
fn time_range((min, max): (i64, i64)) -> Value {
    Value::Struct(vec![(1, Value::I64(min)), (2, Value::I64(max))])
}

/// `list<TColumn>`: a family alone, or one entry per named qualifier.
fn columns(map: &ColumnMap) -> Value {
    let mut out = Vec::new();
    for (family, quals) in map {
        match quals {
            None => out.push(Value::Struct(vec![(1, bin(family))])),
            Some(qs) => out.extend(
                qs.iter()
                    .map(|q| Value::Struct(vec![(1, bin(family)), (2, bin(q))])),
            ),
        }
    }
    list(T_STRUCT, out)
}

fn filter_string(f: &Option<Filter>) -> Result<Option<Value>> {
    f.as_ref()
        .map(|f| Ok(Value::Binary(f.to_filter_string()?.into_bytes())))
        .transpose()
}

/// `TGet` [GET-1..3].
pub(crate) fn get(g: &Get) -> Result<Value> {
    let mut s = vec![(1, bin(&g.row))];
    if !g.columns.0.is_empty() {
        s.push((2, columns(&g.columns.0)));
    }
    if g.time_range != (0, i64::MAX) {
        s.push((4, time_range(g.time_range)));
    }
    s.push((5, Value::I32(max_versions(g.max_versions))));
    if let Some(f) = filter_string(&g.filter)? {
        s.push((6, f));
    }
    if let Some(p) = g.per_family.as_deref() {
        store_window(p, &mut s)?;
        if p.time_ranges.iter().next().is_some() {
            return Err(unsupported("a Get's per-family time range (TGet has none)"));
        }
    }
    Ok(Value::Struct(s))
}

fn max_versions(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// `storeLimit` / `storeOffset` [GET-3].
fn store_window(p: &PerFamily, s: &mut Vec<(i16, Value)>) -> Result<()> {
    if let Some(limit) = p.window.limit {
        s.push((12, Value::I32(max_versions(limit))));
    }
    if p.window.offset > 0 {
        s.push((13, Value::I32(max_versions(p.window.offset))));
    }
    Ok(())
}

/// `TScan`, fetching `caching` rows per round trip [SCAN-1..5].
pub(crate) fn scan(sc: &Scan, caching: u32) -> Result<Value> {
    if sc.raw {
        return Err(unsupported("a raw scan (TScan has no raw flag)"));
    }
    let mut s = Vec::new();
    if !sc.start.is_empty() {
        s.push((1, bin(&sc.start)));
    }
    if !sc.stop.is_empty() {
        s.push((2, bin(&sc.stop)));
    }
    if !sc.columns.0.is_empty() {
        s.push((3, columns(&sc.columns.0)));
    }
    let caching = match sc.limit {
        Some(l) => caching.min(u32::try_from(l).unwrap_or(u32::MAX)).max(1),
        None => caching,
    };
    s.push((4, Value::I32(max_versions(caching))));
    s.push((5, Value::I32(max_versions(sc.max_versions))));
    if sc.time_range != (0, i64::MAX) {
        s.push((6, time_range(sc.time_range)));
    }
    if let Some(f) = filter_string(&sc.filter)? {
        s.push((7, f));
    }
    if let Some(b) = sc.batch {
        s.push((8, Value::I32(max_versions(b))));
    }
    if sc.reversed {
        s.push((11, Value::Bool(true)));
    }
    if let Some(p) = sc.per_family.as_deref() {
        if p.window.is_set() {
            return Err(unsupported(
                "a Scan's per-family limit or offset (TScan has no storeLimit)",
            ));
        }
        let ranges: Vec<(Value, Value)> = p
            .time_ranges
            .iter()
            .map(|(f, r)| (bin(f), time_range(r)))
            .collect();
        if !ranges.is_empty() {
            s.push((13, Value::Map(T_STRING, T_STRUCT, ranges)));
        }
    }
    if let Some(l) = sc.limit {
        s.push((15, Value::I32(i32::try_from(l).unwrap_or(i32::MAX))));
    }
    Ok(Value::Struct(s))
}

/// `TDurability`: SKIP_WAL 1 .. FSYNC_WAL 4, the numbers of the descriptor encoding's
/// durability code.
pub(crate) fn durability(d: Option<Durability>) -> Option<Value> {
    d.map(|d| Value::I32(i32::from(Durability::code(Some(d)))))
}

fn ttl_attributes(ttl: Option<Duration>) -> Option<Value> {
    ttl.map(|t| {
        let ms = i64::try_from(t.as_millis()).unwrap_or(i64::MAX);
        Value::Map(
            T_STRING,
            T_STRING,
            vec![(bin(TTL_ATTRIBUTE), bin(&ms.to_be_bytes()))],
        )
    })
}

/// `TPut`: cells without a timestamp get the server's time, as in HBase [PUT-1].
pub(crate) fn put(p: &Put) -> Value {
    let cells = p
        .cells()
        .map(|c| {
            let mut cv = vec![(1, bin(c.family)), (2, bin(c.qualifier)), (3, bin(c.value))];
            if c.ts != LATEST_TIMESTAMP {
                cv.push((4, Value::I64(c.ts)));
            }
            Value::Struct(cv)
        })
        .collect();
    let mut s = vec![(1, bin(&p.row)), (2, list(T_STRUCT, cells))];
    if let Some(a) = ttl_attributes(p.ttl) {
        s.push((5, a));
    }
    if let Some(d) = durability(p.durability) {
        s.push((6, d));
    }
    Value::Struct(s)
}

/// `TDeleteType` of a marker kind.
fn delete_type(k: CellType) -> i32 {
    match k {
        CellType::Delete => 0,
        CellType::DeleteColumn => 1,
        CellType::DeleteFamily => 2,
        _ => 3,
    }
}

/// A [`Delete`] as `TDelete`s: one `TDelete` carries one `deleteType` for all its columns,
/// so a Delete mixing kinds becomes one `TDelete` per kind (sent together through
/// `mutateRow`, atomically, by the caller) [DEL-1..6].
pub(crate) fn deletes(d: &Delete) -> Vec<Value> {
    let head = |s: &mut Vec<(i16, Value)>| {
        if let Some(v) = durability(d.durability) {
            s.push((7, v));
        }
    };
    if d.entries.is_empty() {
        let mut s = vec![(1, bin(&d.row))];
        if let Some(ts) = d.row_ts.filter(|t| *t != LATEST_TIMESTAMP) {
            s.push((3, Value::I64(ts)));
        }
        head(&mut s);
        return vec![Value::Struct(s)];
    }
    let mut kinds: Vec<CellType> = Vec::new();
    for e in &d.entries {
        if !kinds.contains(&e.kind) {
            kinds.push(e.kind);
        }
    }
    kinds
        .into_iter()
        .map(|kind| {
            let cols = d
                .entries
                .iter()
                .filter(|e| e.kind == kind)
                .map(|e| {
                    let mut c = vec![(1, bin(&e.family))];
                    if !e.qualifier.is_empty()
                        || matches!(kind, CellType::Delete | CellType::DeleteColumn)
                    {
                        c.push((2, bin(&e.qualifier)));
                    }
                    if e.ts != LATEST_TIMESTAMP {
                        c.push((3, Value::I64(e.ts)));
                    }
                    Value::Struct(c)
                })
                .collect();
            let mut s = vec![
                (1, bin(&d.row)),
                (2, list(T_STRUCT, cols)),
                (4, Value::I32(delete_type(kind))),
            ];
            head(&mut s);
            Value::Struct(s)
        })
        .collect()
}

/// `TRowMutations` of `row`.
pub(crate) fn row_mutations(row: &[u8], ms: &[Mutation]) -> Value {
    let mut out = Vec::new();
    for m in ms {
        match m {
            Mutation::Put(p) => out.push(Value::Struct(vec![(1, put(p))])),
            Mutation::Delete(d) => {
                out.extend(deletes(d).into_iter().map(|t| Value::Struct(vec![(2, t)])))
            }
        }
    }
    Value::Struct(vec![(1, bin(row)), (2, list(T_STRUCT, out))])
}

/// `TCompareOperator`.
fn compare_op(o: CompareOp) -> i32 {
    match o {
        CompareOp::Less => 0,
        CompareOp::LessOrEqual => 1,
        CompareOp::Equal => 2,
        CompareOp::NotEqual => 3,
        CompareOp::GreaterOrEqual => 4,
        CompareOp::Greater => 5,
    }
}

/// `checkAndMutate`'s arguments after the table: row, family, qualifier, operator, value
/// (unset for "missing or empty", HBase's `ifNotExists` [CAM-3]), mutations.
pub(crate) fn check_and_mutate(c: &CheckAndMutate) -> Result<Vec<(i16, Value)>> {
    let cond = match c.conditions.as_slice() {
        [one] => one,
        [] => return Err(Error::invalid("a CheckAndMutate needs a condition")),
        _ => {
            return Err(unsupported(
                "a CheckAndMutate with several conditions (checkAndMutate takes one)",
            ));
        }
    };
    let mut s = vec![
        (2, bin(&c.row)),
        (3, bin(&cond.family)),
        (4, bin(&cond.qualifier)),
        (5, Value::I32(compare_op(cond.op))),
    ];
    if !(cond.expected.is_empty() && cond.op == CompareOp::Equal) {
        s.push((6, bin(&cond.expected)));
    }
    s.push((7, row_mutations(&c.row, &c.actions)));
    Ok(s)
}

/// `TIncrement` with `returnResults` [INC-1..4].
pub(crate) fn increment(i: &Increment) -> Value {
    let cols = i
        .cells
        .iter()
        .map(|(f, q, n)| Value::Struct(vec![(1, bin(f)), (2, bin(q)), (3, Value::I64(*n))]))
        .collect();
    let mut s = vec![(1, bin(&i.row)), (2, list(T_STRUCT, cols))];
    if let Some(a) = ttl_attributes(i.ttl) {
        s.push((4, a));
    }
    s.push((7, Value::Bool(true)));
    Value::Struct(s)
}

/// `TAppend` with `returnResults`.
pub(crate) fn append(a: &Append) -> Value {
    let cols = a
        .cells
        .iter()
        .map(|(f, q, v)| Value::Struct(vec![(1, bin(f)), (2, bin(q)), (3, bin(v))]))
        .collect();
    let mut s = vec![(1, bin(&a.row)), (2, list(T_STRUCT, cols))];
    if let Some(at) = ttl_attributes(a.ttl) {
        s.push((3, at));
    }
    s.push((6, Value::Bool(true)));
    Value::Struct(s)
}
