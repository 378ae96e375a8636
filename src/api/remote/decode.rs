//! Thrift2 replies back to cellbase values: `TResult` to [`RowResult`], `TTableDescriptor` /
//! `TColumnFamilyDescriptor` to and from [`TableDescriptor`] / [`FamilyDescriptor`],
//! `THRegionLocation` to [`RegionInfo`]. A reply missing a required field is
//! [`Error::Remote`] naming it.

use crate::api::table::RegionInfo;
use crate::base::error::{Error, Result};
use crate::model::CellType;
use crate::model::block_encoding::DataBlockEncoding;
use crate::model::bloom_type::BloomType;
use crate::model::cell::{Cell, RowResult};
use crate::model::family::{Compression, FamilyDescriptor, KeepDeletedCells};
use crate::model::mutation::Durability;
use crate::model::schema::TableDescriptor;
use cellbase_thrift::protocol::{T_STRING, T_STRUCT, Value};
use std::time::Duration;

fn field(s: &[(i16, Value)], id: i16) -> Option<&Value> {
    s.iter().find(|(i, _)| *i == id).map(|(_, v)| v)
}

fn bytes(s: &[(i16, Value)], id: i16) -> Option<&[u8]> {
    match field(s, id) {
        Some(Value::Binary(b)) => Some(b),
        _ => None,
    }
}

fn int(s: &[(i16, Value)], id: i16) -> Option<i64> {
    match field(s, id)? {
        Value::Byte(v) => Some(i64::from(*v)),
        Value::I16(v) => Some(i64::from(*v)),
        Value::I32(v) => Some(i64::from(*v)),
        Value::I64(v) => Some(*v),
        _ => None,
    }
}

fn boolean(s: &[(i16, Value)], id: i16) -> Option<bool> {
    match field(s, id) {
        Some(Value::Bool(b)) => Some(*b),
        _ => None,
    }
}

fn missing(what: &str) -> Error {
    Error::Remote(format!("reply without {what}"))
}

/// The struct inside a value.
pub(crate) fn strukt<'a>(v: &'a Value, what: &str) -> Result<&'a [(i16, Value)]> {
    match v {
        Value::Struct(s) => Ok(s),
        _ => Err(missing(what)),
    }
}

/// The elements of a list value.
pub(crate) fn elems<'a>(v: &'a Value, what: &str) -> Result<&'a [Value]> {
    match v {
        Value::List(_, items) | Value::Set(_, items) => Ok(items),
        _ => Err(missing(what)),
    }
}

/// A `TResult`: cells in the order sent (HBase sends them sorted) [GET-2].
pub(crate) fn result(v: &Value) -> Result<RowResult> {
    let s = strukt(v, "TResult")?;
    let row = bytes(s, 1).unwrap_or_default().to_vec();
    let mut cells = Vec::new();
    if let Some(cvs) = field(s, 2) {
        for cv in elems(cvs, "TResult.columnValues")? {
            let c = strukt(cv, "TColumnValue")?;
            let kind = int(c, 6)
                .and_then(|t| u8::try_from(t).ok())
                .and_then(CellType::from_code)
                .unwrap_or(CellType::Put);
            cells.push(Cell::new(
                &row,
                bytes(c, 1).ok_or_else(|| missing("TColumnValue.family"))?,
                bytes(c, 2).unwrap_or_default(),
                int(c, 4).unwrap_or(0),
                kind,
                bytes(c, 3).unwrap_or_default(),
            ));
        }
    }
    if cells.is_empty() {
        return Ok(RowResult::new(Vec::new(), cells));
    }
    Ok(RowResult::new(row, cells))
}

/// A `list<TResult>`.
pub(crate) fn results(v: &Value) -> Result<Vec<RowResult>> {
    elems(v, "list<TResult>")?.iter().map(result).collect()
}

/// `TTableName` of `ns:name` (or `name` in the default namespace).
pub(crate) fn table_name(name: &str) -> Value {
    let (ns, q) = crate::model::namespace::split_table_name(name);
    Value::Struct(vec![
        (1, Value::Binary(ns.as_bytes().to_vec())),
        (2, Value::Binary(q.as_bytes().to_vec())),
    ])
}

/// `ns:name` from a `TTableName` (`name` in the default namespace).
pub(crate) fn name_of(v: &Value) -> Result<String> {
    let s = strukt(v, "TTableName")?;
    let q = String::from_utf8_lossy(bytes(s, 2).ok_or_else(|| missing("TTableName.qualifier"))?);
    match bytes(s, 1).map(String::from_utf8_lossy) {
        Some(ns) if !ns.is_empty() && ns != "default" => Ok(format!("{ns}:{q}")),
        _ => Ok(q.into_owned()),
    }
}

/// `TColumnFamilyDescriptor`: the typed fields, and the configuration map for the rest
/// (compaction policy, Bloom prefix length, major compaction period).
pub(crate) fn family(f: &FamilyDescriptor) -> Value {
    let mut s = vec![(1, Value::Binary(f.name.clone()))];
    let conf: Vec<(Value, Value)> = f
        .configuration()
        .into_iter()
        .map(|(k, v)| {
            (
                Value::Binary(k.as_bytes().to_vec()),
                Value::Binary(v.into_bytes()),
            )
        })
        .collect();
    if !conf.is_empty() {
        s.push((3, Value::Map(T_STRING, T_STRING, conf)));
    }
    s.push((
        4,
        Value::I32(i32::try_from(f.block_size).unwrap_or(i32::MAX)),
    ));
    s.push((
        5,
        Value::I32(match f.bloom_filter {
            BloomType::None => 0,
            BloomType::Row => 1,
            BloomType::RowCol => 2,
            BloomType::RowPrefixFixedLength(_) => 3,
        }),
    ));
    s.push((
        6,
        Value::I32(match f.compression {
            Compression::Gz => 1,
            Compression::None => 2,
            Compression::Snappy => 3,
            Compression::Lz4 => 4,
            Compression::Zstd => 6,
        }),
    ));
    s.push((
        8,
        Value::I32(match f.data_block_encoding {
            DataBlockEncoding::None => 0,
            DataBlockEncoding::Prefix => 2,
            DataBlockEncoding::Diff => 3,
            DataBlockEncoding::FastDiff => 4,
            DataBlockEncoding::RowIndexV1 => 7,
        }),
    ));
    s.push((
        9,
        Value::I32(match f.keep_deleted_cells {
            KeepDeletedCells::False => 0,
            KeepDeletedCells::True => 1,
            KeepDeletedCells::Ttl => 2,
        }),
    ));
    s.push((
        10,
        Value::I32(i32::try_from(f.max_versions).unwrap_or(i32::MAX)),
    ));
    s.push((
        11,
        Value::I32(i32::try_from(f.min_versions).unwrap_or(i32::MAX)),
    ));
    let ttl = f
        .ttl
        .map_or(i32::MAX, |t| i32::try_from(t.as_secs()).unwrap_or(i32::MAX));
    s.push((13, Value::I32(ttl)));
    s.push((14, Value::Bool(f.block_cache)));
    s.push((20, Value::Bool(f.in_memory)));
    Value::Struct(s)
}

/// A [`FamilyDescriptor`] from a `TColumnFamilyDescriptor`.
pub(crate) fn family_from(v: &Value) -> Result<FamilyDescriptor> {
    let s = strukt(v, "TColumnFamilyDescriptor")?;
    let mut f =
        FamilyDescriptor::new(bytes(s, 1).ok_or_else(|| missing("TColumnFamilyDescriptor.name"))?);
    if let Some(Value::Map(_, _, conf)) = field(s, 3) {
        for (k, v) in conf {
            if let (Value::Binary(k), Value::Binary(v)) = (k, v) {
                let (k, v) = (String::from_utf8_lossy(k), String::from_utf8_lossy(v));
                // Settings this version does not know stay on the server.
                let _ = f.set_configuration(&k, &v);
            }
        }
    }
    if let Some(b) = int(s, 4).and_then(|b| u32::try_from(b).ok()) {
        f.block_size = b;
    }
    if let Some(b) = int(s, 5) {
        let prefix = match f.bloom_filter {
            BloomType::RowPrefixFixedLength(n) => n,
            _ => 0,
        };
        f.bloom_filter = match b {
            0 => BloomType::None,
            2 => BloomType::RowCol,
            3 if prefix > 0 => BloomType::RowPrefixFixedLength(prefix),
            _ => BloomType::Row,
        };
    }
    if let Some(c) = int(s, 6) {
        f.compression = match c {
            1 | 5 => Compression::Gz,
            3 => Compression::Snappy,
            0 | 4 => Compression::Lz4,
            6 => Compression::Zstd,
            _ => Compression::None,
        };
    }
    if let Some(e) = int(s, 8) {
        f.data_block_encoding = match e {
            2 => DataBlockEncoding::Prefix,
            3 => DataBlockEncoding::Diff,
            4 => DataBlockEncoding::FastDiff,
            7 => DataBlockEncoding::RowIndexV1,
            _ => DataBlockEncoding::None,
        };
    }
    if let Some(k) = int(s, 9) {
        f.keep_deleted_cells = match k {
            1 => KeepDeletedCells::True,
            2 => KeepDeletedCells::Ttl,
            _ => KeepDeletedCells::False,
        };
    }
    if let Some(n) = int(s, 10).and_then(|n| u32::try_from(n).ok()) {
        f.max_versions = n;
    }
    if let Some(n) = int(s, 11).and_then(|n| u32::try_from(n).ok()) {
        f.min_versions = n;
    }
    if let Some(t) = int(s, 13) {
        f.ttl = (t > 0 && t < i64::from(i32::MAX)).then(|| Duration::from_secs(t.unsigned_abs()));
    }
    if let Some(b) = boolean(s, 14) {
        f.block_cache = b;
    }
    if let Some(b) = boolean(s, 20) {
        f.in_memory = b;
    }
    Ok(f)
}

/// `TTableDescriptor` (families, durability).
pub(crate) fn table(d: &TableDescriptor) -> Value {
    let mut s = vec![
        (1, table_name(d.name())),
        (
            2,
            Value::List(T_STRUCT, d.families().iter().map(family).collect()),
        ),
    ];
    if let Some(dur) = super::encode::durability(d.table_durability()) {
        s.push((4, dur));
    }
    Value::Struct(s)
}

/// A [`TableDescriptor`] from a `TTableDescriptor`.
pub(crate) fn table_from(v: &Value) -> Result<TableDescriptor> {
    let s = strukt(v, "TTableDescriptor")?;
    let name = name_of(field(s, 1).ok_or_else(|| missing("TTableDescriptor.tableName"))?)?;
    let mut d = TableDescriptor::new(&name);
    if let Some(fs) = field(s, 2) {
        for f in elems(fs, "TTableDescriptor.columns")? {
            d = d.family(family_from(f)?);
        }
    }
    // TDurability USE_DEFAULT (0) or a value this version does not know: the default.
    if let Some(Ok(Some(dur))) = int(s, 4)
        .and_then(|c| u8::try_from(c).ok())
        .map(Durability::from_code)
    {
        d = d.durability(dur);
    }
    Ok(d)
}

/// A [`RegionInfo`] of `table` from a `THRegionLocation` (the server's counters are not
/// sent: zero).
pub(crate) fn region(table: &str, v: &Value) -> Result<RegionInfo> {
    let s = strukt(v, "THRegionLocation")?;
    let info = strukt(
        field(s, 2).ok_or_else(|| missing("THRegionLocation.regionInfo"))?,
        "THRegionInfo",
    )?;
    let id = int(info, 1).unwrap_or(0);
    let start_key = bytes(info, 3).unwrap_or_default().to_vec();
    Ok(RegionInfo {
        name: format!("{table},{},{id}", String::from_utf8_lossy(&start_key)),
        start_key,
        end_key: bytes(info, 4).unwrap_or_default().to_vec(),
        memstore_bytes: 0,
        store_files: 0,
        store_file_bytes: 0,
        read_requests: 0,
        write_requests: 0,
    })
}
