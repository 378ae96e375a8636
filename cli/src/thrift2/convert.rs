//! HBase 2.6's `ThriftUtilities` (thrift2) data conversions: `getFromThrift`,
//! `putFromThrift`, `deleteFromThrift`, `scanFromThrift`, `incrementFromThrift`,
//! `appendFromThrift`, `rowMutationsFromThrift` and `resultFromHBase`, onto cellbase's
//! `Get`, `Put`, `Delete`, `Scan`, `Increment`, `Append` and `RowResult`.
use super::types::{
    TAppend, TColumn, TDelete, TGet, TIncrement, TPut, TRowMutations, TScan, TTimeRange,
};
use crate::thrift::call::Fail;
use crate::thrift::protocol::{T_STRUCT, Value};
use crate::thrift::service::utf8;
use cellbase::{
    Append, Delete, Durability, Filter, Get, Increment, LATEST_TIMESTAMP, Mutation, Put, RowResult,
    Scan,
};

type R<T> = Result<T, Fail>;

/// `durabilityFromThrift`: USE_DEFAULT (0, and any unknown value) leaves the table's.
pub fn durability(d: Option<i32>) -> Option<Durability> {
    match d? {
        1 => Some(Durability::SkipWal),
        2 => Some(Durability::AsyncWal),
        3 => Some(Durability::SyncWal),
        4 => Some(Durability::FsyncWal),
        _ => None,
    }
}

/// A filter string through cellbase's filter language (HBase's `ParseFilter`).
fn filter(s: &[u8]) -> R<Filter> {
    let s = utf8(s).ok_or_else(|| Fail::Io("filter string is not UTF-8".into()))?;
    Filter::parse(s).map_err(|e| Fail::Io(format!("bad filter string: {e}")))
}

/// `filterBytes` carries a protobuf-serialized Java filter, which cellbase cannot run.
fn refuse_filter_bytes(b: Option<&[u8]>) -> R<()> {
    match b {
        Some(_) => Err(Fail::Io(
            "filterBytes (a serialized Java filter) is not supported by cellbase; use \
             filterString"
                .into(),
        )),
        None => Ok(()),
    }
}

/// `setMaxVersions(n)`: HBase's `readVersions` refuses 0 and below.
fn versions(n: i32) -> R<u32> {
    u32::try_from(n)
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| Fail::Io(format!("maxVersions must be positive, got {n}")))
}

/// The time range of a `TTimeRange` (the IDL declares both stamps required; a missing one
/// is the open end).
fn range(t: &TTimeRange) -> (i64, i64) {
    (t.min.unwrap_or(0), t.max.unwrap_or(i64::MAX))
}

/// Adds `columns` (a family alone: the whole family) to a Get or Scan [GET-1].
macro_rules! add_columns {
    ($out:ident, $columns:expr) => {
        for c in $columns.iter().flatten() {
            $out = match c.qualifier {
                Some(q) => $out.column(c.family, q),
                None => $out.family(c.family),
            };
        }
    };
}

/// `getFromThrift`: the timestamp wins over the time range; maxVersions, the filter string,
/// storeLimit / storeOffset (per-family limits [GET-3]) and columns apply as set. The
/// `existence_only` flag is read by the caller.
pub fn get_from_thrift(g: &TGet<'_>) -> R<Get> {
    refuse_filter_bytes(g.filter_bytes)?;
    let mut out = Get::new(g.row);
    if let Some(ts) = g.timestamp {
        out = out.timestamp(ts);
    } else if let Some(tr) = &g.time_range {
        let (min, max) = range(tr);
        out = out.time_range(min, max);
    }
    if let Some(n) = g.max_versions {
        out = out.max_versions(versions(n)?);
    }
    if let Some(f) = g.filter_string {
        out = out.filter(filter(f)?);
    }
    // HBase's defaults are -1 (no limit) and 0: a negative value leaves them.
    if let Some(n) = g.store_limit.and_then(|n| u32::try_from(n).ok()) {
        out = out.max_results_per_column_family(n);
    }
    if let Some(k) = g.store_offset.and_then(|k| u32::try_from(k).ok()) {
        out = out.row_offset_per_column_family(k);
    }
    add_columns!(out, g.columns);
    Ok(out)
}

/// The `_ttl` attribute as a duration: HBase reads it with `Bytes.toLong`, which refuses any
/// length but 8; a negative TTL is refused too (cellbase's TTLs are durations).
fn ttl(raw: Option<&[u8]>) -> R<Option<std::time::Duration>> {
    let Some(raw) = raw else { return Ok(None) };
    let ms = <[u8; 8]>::try_from(raw)
        .map(i64::from_be_bytes)
        .map_err(|_| {
            Fail::Illegal(format!(
                "attribute _ttl must be an 8-byte long (milliseconds), got {} bytes",
                raw.len()
            ))
        })?;
    let ms = u64::try_from(ms)
        .map_err(|_| Fail::Illegal(format!("attribute _ttl must not be negative, got {ms}")))?;
    Ok(Some(std::time::Duration::from_millis(ms)))
}

/// `putFromThrift`: a cell's own timestamp wins over the TPut's; without either the server
/// stamps it; the `_ttl` attribute is the cells' TTL [TTL-3].
pub fn put_from_thrift(p: &TPut<'_>) -> R<Put> {
    let mut out = Put::new(p.row);
    for cv in &p.column_values {
        out = match cv.timestamp.or(p.timestamp) {
            Some(ts) => out.add_at(cv.family, cv.qualifier, ts, cv.value),
            None => out.add(cv.family, cv.qualifier, cv.value),
        };
    }
    if let Some(d) = durability(p.durability) {
        out = out.durability(d);
    }
    if let Some(t) = ttl(p.ttl)? {
        out = out.ttl(t);
    }
    Ok(out)
}

/// One column of a TDelete by its delete type (`deleteFromThrift`).
fn delete_column(d: Delete, kind: i32, c: &TColumn<'_>) -> R<Delete> {
    let q = c.qualifier.unwrap_or_default();
    Ok(match (kind, c.timestamp) {
        // DELETE_COLUMN: one version, the latest or the one at exactly ts [DEL-6].
        (0, None) => d.latest_version(c.family, q),
        (0, Some(ts)) => d.version(c.family, q, ts),
        // DELETE_COLUMNS: every version, up to ts.
        (1, None) => d.all_versions(c.family, q),
        (1, Some(ts)) => d.versions_up_to(c.family, q, ts),
        // DELETE_FAMILY [DEL-7].
        (2, None) => d.family(c.family),
        (2, Some(ts)) => d.family_up_to(c.family, ts),
        // DELETE_FAMILY_VERSION: every column at exactly ts.
        (3, Some(ts)) => d.family_version(c.family, ts),
        (3, None) => {
            return Err(Fail::Io(
                "Timestamp is required for TDelete with DeleteFamilyVersion type".into(),
            ));
        }
        // An unknown enum value arrives as null in HBase's generated code.
        _ => return Err(Fail::Io("DeleteType is required for TDelete".into())),
    })
}

/// `deleteFromThrift`: with columns, each by the delete type (the top-level timestamp is
/// then unused); without, the whole row, up to the timestamp when one is set.
pub fn delete_from_thrift(d: &TDelete<'_>) -> R<Delete> {
    let mut out = Delete::new(d.row);
    match &d.columns {
        Some(cols) => {
            for c in cols {
                out = delete_column(out, d.delete_type, c)?;
            }
        }
        None => {
            if let Some(ts) = d.timestamp.filter(|&ts| ts != LATEST_TIMESTAMP) {
                out = out.up_to(ts);
            }
        }
    }
    if let Some(dur) = durability(d.durability) {
        out = out.durability(dur);
    }
    Ok(out)
}

/// `rowMutationsFromThrift`: the puts and deletes in order.
pub fn row_mutations_from_thrift(m: &TRowMutations<'_>) -> R<Vec<Mutation>> {
    let mut out = Vec::with_capacity(m.mutations.len());
    for mu in &m.mutations {
        if let Some(p) = &mu.put {
            out.push(Mutation::Put(put_from_thrift(p)?));
        }
        if let Some(d) = &mu.delete {
            out.push(Mutation::Delete(delete_from_thrift(d)?));
        }
    }
    Ok(out)
}

/// `scanFromThrift`: start/stop rows, maxVersions, columns, the time range (when both stamps
/// are set), batchSize, the filter string, reversed, colFamTimeRangeMap [SCAN-5] and limit
/// (0 or below: none, as HBase's client). caching is accepted: rows are read on demand.
pub fn scan_from_thrift(s: &TScan<'_>) -> R<Scan> {
    refuse_filter_bytes(s.filter_bytes)?;
    let mut out = Scan::new().reversed(s.reversed);
    if let Some(r) = s.start_row {
        out = out.start_row(r);
    }
    if let Some(r) = s.stop_row {
        out = out.stop_row(r);
    }
    out = out.max_versions(versions(s.max_versions)?);
    add_columns!(out, s.columns);
    if let Some(TTimeRange {
        min: Some(min),
        max: Some(max),
    }) = s.time_range
    {
        out = out.time_range(min, max);
    }
    if let Some(b) = s.batch_size.filter(|&b| b > 0) {
        out = out.batch(b as u32);
    }
    if let Some(f) = s.filter_string {
        out = out.filter(filter(f)?);
    }
    for (family, tr) in &s.col_fam_time_ranges {
        let (min, max) = range(tr);
        out = out.column_family_time_range(family, min, max);
    }
    if let Some(n) = s.limit.filter(|&n| n > 0) {
        out = out.limit(n as u64);
    }
    Ok(out)
}

/// `incrementFromThrift` (durability: see docs/THRIFT2.md).
pub fn increment_from_thrift(i: &TIncrement<'_>) -> R<Increment> {
    let mut out = Increment::new(i.row);
    for c in &i.columns {
        out = out.add(c.family, c.qualifier, c.amount);
    }
    if let Some(t) = ttl(i.ttl)? {
        out = out.ttl(t);
    }
    Ok(out)
}

/// `appendFromThrift`.
pub fn append_from_thrift(a: &TAppend<'_>) -> R<Append> {
    let mut out = Append::new(a.row);
    for c in &a.columns {
        out = out.add(c.family, c.qualifier, c.value);
    }
    if let Some(t) = ttl(a.ttl)? {
        out = out.ttl(t);
    }
    Ok(out)
}

/// `resultFromHBase`: `TResult {1: row, 2: columnValues, 3: stale, 4: partial}`. A row with
/// no cells has no row field and an empty list (HBase's `Result.getRow()` is null then);
/// every `TColumnValue` carries its timestamp and the cell's type byte (Put = 4).
pub fn tresult(r: &RowResult) -> Value {
    let cells = r
        .cells()
        .iter()
        .map(|c| {
            Value::Struct(vec![
                (1, Value::bin(c.family())),
                (2, Value::bin(c.qualifier())),
                (3, Value::bin(c.value())),
                (4, Value::I64(c.timestamp())),
                (6, Value::Byte(c.cell_type().code() as i8)),
            ])
        })
        .collect();
    let mut f = Vec::with_capacity(4);
    if !r.cells().is_empty() {
        f.push((1, Value::bin(r.row())));
    }
    f.push((2, Value::List(T_STRUCT, cells)));
    f.push((3, Value::Bool(false)));
    f.push((4, Value::Bool(false)));
    Value::Struct(f)
}

/// An empty `TResult` (a Get with `existence_only`, an increment or append without
/// `returnResults`).
pub fn empty_tresult() -> Value {
    Value::Struct(vec![
        (2, Value::List(T_STRUCT, vec![])),
        (3, Value::Bool(false)),
        (4, Value::Bool(false)),
    ])
}
