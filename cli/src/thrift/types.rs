//! The `Hbase.thrift` structs (HBase 0.98-era IDL shipped with happybase), mapped to and from
//! [`Value`] trees. Field ids follow thrift-gateway.md §1.3. Decoding is lenient as Thrift
//! requires: unknown fields and fields of an unexpected type are skipped, absent fields are
//! `None`.
use super::protocol::{T_STRING, T_STRUCT, Value};

/// Typed access to the fields of a decoded struct.
#[derive(Clone, Copy, Debug)]
pub struct Fields<'a>(pub &'a [(i16, Value)]);

impl<'a> Fields<'a> {
    fn find(&self, id: i16) -> impl Iterator<Item = &'a Value> {
        self.0.iter().filter(move |(i, _)| *i == id).map(|(_, v)| v)
    }

    /// A binary/string field.
    pub fn bin(&self, id: i16) -> Option<&'a [u8]> {
        self.find(id).find_map(|v| match v {
            Value::Binary(b) => Some(b.as_slice()),
            _ => None,
        })
    }

    /// A bool field.
    pub fn bool(&self, id: i16) -> Option<bool> {
        self.find(id).find_map(|v| match v {
            Value::Bool(b) => Some(*b),
            _ => None,
        })
    }

    /// A byte field.
    pub fn byte(&self, id: i16) -> Option<i8> {
        self.find(id).find_map(|v| match v {
            Value::Byte(b) => Some(*b),
            _ => None,
        })
    }

    /// An i32 field.
    pub fn i32(&self, id: i16) -> Option<i32> {
        self.find(id).find_map(|v| match v {
            Value::I32(b) => Some(*b),
            _ => None,
        })
    }

    /// An i64 field.
    pub fn i64(&self, id: i16) -> Option<i64> {
        self.find(id).find_map(|v| match v {
            Value::I64(b) => Some(*b),
            _ => None,
        })
    }

    /// A struct field.
    pub fn strct(&self, id: i16) -> Option<Fields<'a>> {
        self.find(id).find_map(|v| match v {
            Value::Struct(f) => Some(Fields(f.as_slice())),
            _ => None,
        })
    }

    /// A list (or set) of binaries; non-binary elements are skipped.
    pub fn bin_list(&self, id: i16) -> Option<Vec<&'a [u8]>> {
        self.find(id).find_map(|v| match v {
            Value::List(_, items) | Value::Set(_, items) => Some(
                items
                    .iter()
                    .filter_map(|i| match i {
                        Value::Binary(b) => Some(b.as_slice()),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => None,
        })
    }

    /// The value of `key` in the `map<binary, binary>` field `id` (an operation's
    /// `attributes`).
    pub fn map_value(&self, id: i16, key: &[u8]) -> Option<&'a [u8]> {
        self.find(id).find_map(|v| match v {
            Value::Map(_, _, kv) => kv.iter().find_map(|(k, v)| match (k, v) {
                (Value::Binary(k), Value::Binary(v)) if k.as_slice() == key => Some(v.as_slice()),
                _ => None,
            }),
            _ => None,
        })
    }

    /// A list (or set) of structs; non-struct elements are skipped.
    pub fn struct_list(&self, id: i16) -> Option<Vec<Fields<'a>>> {
        self.find(id).find_map(|v| match v {
            Value::List(_, items) | Value::Set(_, items) => Some(
                items
                    .iter()
                    .filter_map(|i| match i {
                        Value::Struct(f) => Some(Fields(f.as_slice())),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => None,
        })
    }
}

/// An IDL struct decoded from a [`Value::Struct`]'s fields, leniently: absent fields (or fields
/// of another wire type) take the IDL default.
pub trait FromFields<'a> {
    /// Decodes the struct.
    fn from_fields(f: Fields<'a>) -> Self;
}

/// `TCell {1: value, 2: timestamp}`.
pub fn tcell(value: &[u8], ts: i64) -> Value {
    Value::Struct(vec![(1, Value::bin(value)), (2, Value::I64(ts))])
}

/// `TColumn {1: columnName, 2: cell}`.
pub fn tcolumn(name: Vec<u8>, cell: Value) -> Value {
    Value::Struct(vec![(1, Value::Binary(name)), (2, cell)])
}

/// `fam:qual` as HBase spells a column.
pub fn column_name(family: &[u8], qualifier: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(family.len() + 1 + qualifier.len());
    v.extend_from_slice(family);
    v.push(b':');
    v.extend_from_slice(qualifier);
    v
}

/// `TRowResult {1: row, 2: columns map, 3: sortedColumns list}` from a row result: one cell per
/// column (the first, i.e. newest, when several are present). With `sorted`, only field 3 is set.
pub fn trow_result(r: &cellbase::RowResult, sorted: bool) -> Value {
    let mut cols: Vec<(Vec<u8>, Value)> = Vec::with_capacity(r.cells().len());
    let mut last: Option<(&[u8], &[u8])> = None;
    for c in r.cells() {
        let key = (c.family(), c.qualifier());
        if last == Some(key) {
            continue;
        }
        last = Some(key);
        cols.push((
            column_name(c.family(), c.qualifier()),
            tcell(c.value(), c.timestamp()),
        ));
    }
    let row = Value::bin(r.row());
    if sorted {
        let list = cols.into_iter().map(|(n, c)| tcolumn(n, c)).collect();
        Value::Struct(vec![(1, row), (3, Value::List(T_STRUCT, list))])
    } else {
        let map = cols
            .into_iter()
            .map(|(n, c)| (Value::Binary(n), c))
            .collect();
        Value::Struct(vec![(1, row), (2, Value::Map(T_STRING, T_STRUCT, map))])
    }
}

/// A decoded `ColumnDescriptor`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnDescriptor {
    /// 1: name (`"cf:"`, colon optional on input).
    pub name: Vec<u8>,
    /// 2: maxVersions (default 3).
    pub max_versions: i32,
    /// 3: compression (default "NONE").
    pub compression: String,
    /// 4: inMemory.
    pub in_memory: bool,
    /// 5: bloomFilterType (default "NONE").
    pub bloom_filter_type: String,
    /// 8: blockCacheEnabled.
    pub block_cache_enabled: bool,
    /// 9: timeToLive in seconds (-1 or 0x7fffffff = forever).
    pub time_to_live: i32,
}

impl FromFields<'_> for ColumnDescriptor {
    /// Decodes with the IDL defaults for absent fields.
    fn from_fields(f: Fields<'_>) -> Self {
        ColumnDescriptor {
            name: f.bin(1).unwrap_or_default().to_vec(),
            max_versions: f.i32(2).unwrap_or(3),
            compression: String::from_utf8_lossy(f.bin(3).unwrap_or(b"NONE")).into_owned(),
            in_memory: f.bool(4).unwrap_or(false),
            bloom_filter_type: String::from_utf8_lossy(f.bin(5).unwrap_or(b"NONE")).into_owned(),
            block_cache_enabled: f.bool(8).unwrap_or(false),
            time_to_live: f.i32(9).unwrap_or(-1),
        }
    }
}

impl ColumnDescriptor {
    /// Encodes every field 1–9.
    pub fn to_value(&self) -> Value {
        Value::Struct(vec![
            (1, Value::bin(&self.name)),
            (2, Value::I32(self.max_versions)),
            (3, Value::bin(self.compression.as_bytes())),
            (4, Value::Bool(self.in_memory)),
            (5, Value::bin(self.bloom_filter_type.as_bytes())),
            (6, Value::I32(0)),
            (7, Value::I32(0)),
            (8, Value::Bool(self.block_cache_enabled)),
            (9, Value::I32(self.time_to_live)),
        ])
    }
}

/// `TRegionInfo` fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TRegionInfo {
    /// 1: startKey.
    pub start_key: Vec<u8>,
    /// 2: endKey.
    pub end_key: Vec<u8>,
    /// 3: id.
    pub id: i64,
    /// 4: name.
    pub name: Vec<u8>,
    /// 6: serverName.
    pub server_name: Vec<u8>,
    /// 7: port.
    pub port: i32,
}

impl TRegionInfo {
    /// Encodes, with version (5) = 1.
    pub fn to_value(&self) -> Value {
        Value::Struct(vec![
            (1, Value::bin(&self.start_key)),
            (2, Value::bin(&self.end_key)),
            (3, Value::I64(self.id)),
            (4, Value::bin(&self.name)),
            (5, Value::Byte(1)),
            (6, Value::bin(&self.server_name)),
            (7, Value::I32(self.port)),
        ])
    }
}

/// A decoded `Mutation`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mutation<'a> {
    /// 1: isDelete (default false).
    pub is_delete: bool,
    /// 2: column.
    pub column: &'a [u8],
    /// 3: value (absent for deletes).
    pub value: &'a [u8],
    /// 4: writeToWAL (default true).
    pub write_to_wal: bool,
}

impl<'a> FromFields<'a> for Mutation<'a> {
    /// Decodes with IDL defaults.
    fn from_fields(f: Fields<'a>) -> Self {
        Mutation {
            is_delete: f.bool(1).unwrap_or(false),
            column: f.bin(2).unwrap_or_default(),
            value: f.bin(3).unwrap_or_default(),
            write_to_wal: f.bool(4).unwrap_or(true),
        }
    }
}

/// A decoded `BatchMutation {1: row, 2: mutations}`.
#[derive(Clone, Debug)]
pub struct BatchMutation<'a> {
    /// The row.
    pub row: &'a [u8],
    /// Its mutations.
    pub mutations: Vec<Mutation<'a>>,
}

impl<'a> FromFields<'a> for BatchMutation<'a> {
    /// Decodes.
    fn from_fields(f: Fields<'a>) -> Self {
        BatchMutation {
            row: f.bin(1).unwrap_or_default(),
            mutations: f
                .struct_list(2)
                .unwrap_or_default()
                .into_iter()
                .map(Mutation::from_fields)
                .collect(),
        }
    }
}

/// A decoded `TScan` (every field optional).
#[derive(Clone, Debug, Default)]
pub struct TScan<'a> {
    /// 1: startRow.
    pub start_row: Option<&'a [u8]>,
    /// 2: stopRow.
    pub stop_row: Option<&'a [u8]>,
    /// 3: timestamp.
    pub timestamp: Option<i64>,
    /// 4: columns.
    pub columns: Option<Vec<&'a [u8]>>,
    /// 5: caching (accepted, unused: the gateway streams rows on demand).
    pub caching: Option<i32>,
    /// 6: filterString.
    pub filter_string: Option<&'a [u8]>,
    /// 7: batchSize.
    pub batch_size: Option<i32>,
    /// 8: sortColumns.
    pub sort_columns: bool,
    /// 9: reversed.
    pub reversed: bool,
}

impl<'a> FromFields<'a> for TScan<'a> {
    /// Decodes.
    fn from_fields(f: Fields<'a>) -> Self {
        TScan {
            start_row: f.bin(1),
            stop_row: f.bin(2),
            timestamp: f.i64(3),
            columns: f.bin_list(4),
            caching: f.i32(5),
            filter_string: f.bin(6),
            batch_size: f.i32(7),
            sort_columns: f.bool(8).unwrap_or(false),
            reversed: f.bool(9).unwrap_or(false),
        }
    }
}

/// A decoded `TIncrement {1: table, 2: row, 3: column, 4: ammount}`.
#[derive(Clone, Debug)]
pub struct TIncrement<'a> {
    /// Table name.
    pub table: &'a [u8],
    /// Row.
    pub row: &'a [u8],
    /// `fam:qual`.
    pub column: &'a [u8],
    /// Delta (spelled `ammount` in the IDL).
    pub amount: i64,
}

impl<'a> FromFields<'a> for TIncrement<'a> {
    /// Decodes (a missing amount counts as 0... HBase's default is 0 too).
    fn from_fields(f: Fields<'a>) -> Self {
        TIncrement {
            table: f.bin(1).unwrap_or_default(),
            row: f.bin(2).unwrap_or_default(),
            column: f.bin(3).unwrap_or_default(),
            amount: f.i64(4).unwrap_or(0),
        }
    }
}

/// A decoded `TAppend {1: table, 2: row, 3: columns, 4: values}`.
#[derive(Clone, Debug)]
pub struct TAppend<'a> {
    /// Table name.
    pub table: &'a [u8],
    /// Row.
    pub row: &'a [u8],
    /// `fam:qual` columns.
    pub columns: Vec<&'a [u8]>,
    /// Values, one per column.
    pub values: Vec<&'a [u8]>,
}

impl<'a> FromFields<'a> for TAppend<'a> {
    /// Decodes.
    fn from_fields(f: Fields<'a>) -> Self {
        TAppend {
            table: f.bin(1).unwrap_or_default(),
            row: f.bin(2).unwrap_or_default(),
            columns: f.bin_list(3).unwrap_or_default(),
            values: f.bin_list(4).unwrap_or_default(),
        }
    }
}

/// An exception struct `{1: message}` (IOError, IllegalArgument, AlreadyExists).
pub fn exception(message: &str) -> Value {
    Value::Struct(vec![(1, Value::bin(message.as_bytes()))])
}

/// `TApplicationException {1: message, 2: type}`.
pub fn application_exception(message: &str, kind: i32) -> Vec<(i16, Value)> {
    vec![(1, Value::bin(message.as_bytes())), (2, Value::I32(kind))]
}

/// TApplicationException type: unknown method.
pub const APP_UNKNOWN_METHOD: i32 = 1;
/// TApplicationException type: invalid message type.
pub const APP_INVALID_MESSAGE_TYPE: i32 = 2;
/// TApplicationException type: internal error.
pub const APP_INTERNAL_ERROR: i32 = 6;
/// TApplicationException type: protocol error.
pub const APP_PROTOCOL_ERROR: i32 = 7;

/// Splits a column string at the first `:`: `fam` → (fam, None), `fam:` → (fam, Some("")).
pub fn split_column(c: &[u8]) -> (&[u8], Option<&[u8]>) {
    match c.iter().position(|&b| b == b':') {
        Some(i) => (&c[..i], Some(&c[i + 1..])),
        None => (c, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::thrift::protocol::{MSG_REPLY, Protocol, decode_message, encode_message};

    #[test]
    fn column_descriptor_round_trip_and_defaults() {
        let d = ColumnDescriptor {
            name: b"cf:".to_vec(),
            max_versions: 2,
            compression: "NONE".into(),
            in_memory: true,
            bloom_filter_type: "ROW".into(),
            block_cache_enabled: true,
            time_to_live: 86400,
        };
        for p in [Protocol::Binary, Protocol::Compact] {
            let bytes = encode_message(p, "x", MSG_REPLY, 0, &[(0, d.to_value())]);
            let (_, body) = decode_message(p, &bytes).unwrap();
            let f = Fields(&body).strct(0).unwrap();
            assert_eq!(ColumnDescriptor::from_fields(f), d);
        }
        let empty = ColumnDescriptor::from_fields(Fields(&[]));
        assert_eq!(empty.max_versions, 3);
        assert_eq!(empty.time_to_live, -1);
        assert_eq!(empty.compression, "NONE");
    }

    #[test]
    fn columns_split_at_first_colon() {
        assert_eq!(split_column(b"cf"), (&b"cf"[..], None));
        assert_eq!(split_column(b"cf:"), (&b"cf"[..], Some(&b""[..])));
        assert_eq!(split_column(b"cf:a:b"), (&b"cf"[..], Some(&b"a:b"[..])));
    }

    #[test]
    fn lenient_decoding_skips_wrong_types() {
        let fields = vec![
            (1, Value::I32(5)),
            (2, Value::bin("cf:q")),
            (99, Value::Bool(true)),
        ];
        let m = Mutation::from_fields(Fields(&fields));
        assert!(!m.is_delete);
        assert_eq!(m.column, b"cf:q");
        assert!(m.write_to_wal);
    }
}
