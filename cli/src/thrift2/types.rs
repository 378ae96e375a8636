//! The `THBaseService` structs of HBase 2.6's Thrift2 IDL (`hbase-thrift/.../thrift2/hbase.thrift`)
//! decoded from [`Value`] trees, leniently as Thrift requires: unknown fields and fields of an
//! unexpected wire type are skipped, absent fields take the IDL default. Field ids are the
//! IDL's; a field with an IDL default (TDelete.deleteType, TScan.maxVersions,
//! TColumnIncrement.amount) is "set" to it when absent, as in the generated Java HBase runs.
use crate::thrift::protocol::Value;
use crate::thrift::types::{Fields, FromFields};

/// The operation attribute HBase's `Mutation.setTTL` sets (`_ttl`: the TTL in milliseconds as
/// an 8-byte big-endian long); `ThriftUtilities` copies a mutation's attributes over, so a
/// Thrift2 client sets a per-cell TTL with it [TTL-3].
pub const TTL_ATTRIBUTE: &[u8] = b"_ttl";

/// The binary keys and values of map field `id` (other entries skipped).
pub fn bin_map<'a>(f: &Fields<'a>, id: i16) -> Vec<(&'a [u8], &'a [u8])> {
    f.0.iter()
        .filter(|(i, _)| *i == id)
        .find_map(|(_, v)| match v {
            Value::Map(_, _, entries) => Some(
                entries
                    .iter()
                    .filter_map(|(k, v)| match (k, v) {
                        (Value::Binary(k), Value::Binary(v)) => Some((k.as_slice(), v.as_slice())),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => None,
        })
        .unwrap_or_default()
}

/// The entries of map field `id` with binary keys and struct values.
fn struct_map<'a>(f: &Fields<'a>, id: i16) -> Option<Vec<(&'a [u8], Fields<'a>)>> {
    f.0.iter()
        .filter(|(i, _)| *i == id)
        .find_map(|(_, v)| match v {
            Value::Map(_, _, entries) => Some(
                entries
                    .iter()
                    .filter_map(|(k, v)| match (k, v) {
                        (Value::Binary(k), Value::Struct(s)) => {
                            Some((k.as_slice(), Fields(s.as_slice())))
                        }
                        _ => None,
                    })
                    .collect(),
            ),
            _ => None,
        })
}

fn structs<'a, T: FromFields<'a>>(f: &Fields<'a>, id: i16) -> Option<Vec<T>> {
    f.struct_list(id)
        .map(|l| l.into_iter().map(T::from_fields).collect())
}

/// `TTimeRange {1: minStamp, 2: maxStamp}`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TTimeRange {
    /// 1: minStamp (inclusive).
    pub min: Option<i64>,
    /// 2: maxStamp (exclusive).
    pub max: Option<i64>,
}

impl FromFields<'_> for TTimeRange {
    fn from_fields(f: Fields<'_>) -> Self {
        TTimeRange {
            min: f.i64(1),
            max: f.i64(2),
        }
    }
}

/// `TColumn {1: family, 2: qualifier, 3: timestamp}`.
#[derive(Clone, Debug, Default)]
pub struct TColumn<'a> {
    /// 1: family.
    pub family: &'a [u8],
    /// 2: qualifier (absent: the whole family).
    pub qualifier: Option<&'a [u8]>,
    /// 3: timestamp.
    pub timestamp: Option<i64>,
}

impl<'a> FromFields<'a> for TColumn<'a> {
    fn from_fields(f: Fields<'a>) -> Self {
        TColumn {
            family: f.bin(1).unwrap_or_default(),
            qualifier: f.bin(2),
            timestamp: f.i64(3),
        }
    }
}

/// `TColumnValue {1: family, 2: qualifier, 3: value, 4: timestamp, 5: tags, 6: type}`.
#[derive(Clone, Debug, Default)]
pub struct TColumnValue<'a> {
    /// 1: family.
    pub family: &'a [u8],
    /// 2: qualifier.
    pub qualifier: &'a [u8],
    /// 3: value.
    pub value: &'a [u8],
    /// 4: timestamp.
    pub timestamp: Option<i64>,
}

impl<'a> FromFields<'a> for TColumnValue<'a> {
    fn from_fields(f: Fields<'a>) -> Self {
        TColumnValue {
            family: f.bin(1).unwrap_or_default(),
            qualifier: f.bin(2).unwrap_or_default(),
            value: f.bin(3).unwrap_or_default(),
            timestamp: f.i64(4),
        }
    }
}

/// `TColumnIncrement {1: family, 2: qualifier, 3: amount = 1}`.
#[derive(Clone, Debug)]
pub struct TColumnIncrement<'a> {
    /// 1: family.
    pub family: &'a [u8],
    /// 2: qualifier.
    pub qualifier: &'a [u8],
    /// 3: amount (IDL default 1).
    pub amount: i64,
}

impl<'a> FromFields<'a> for TColumnIncrement<'a> {
    fn from_fields(f: Fields<'a>) -> Self {
        TColumnIncrement {
            family: f.bin(1).unwrap_or_default(),
            qualifier: f.bin(2).unwrap_or_default(),
            amount: f.i64(3).unwrap_or(1),
        }
    }
}

/// `TGet` (fields 1–15; attributes, authorizations, consistency, targetReplicaId and
/// cacheBlocks are accepted and ignored).
#[derive(Clone, Debug, Default)]
pub struct TGet<'a> {
    /// 1: row.
    pub row: &'a [u8],
    /// 2: columns.
    pub columns: Option<Vec<TColumn<'a>>>,
    /// 3: timestamp (wins over timeRange).
    pub timestamp: Option<i64>,
    /// 4: timeRange.
    pub time_range: Option<TTimeRange>,
    /// 5: maxVersions.
    pub max_versions: Option<i32>,
    /// 6: filterString.
    pub filter_string: Option<&'a [u8]>,
    /// 12: storeLimit.
    pub store_limit: Option<i32>,
    /// 13: storeOffset.
    pub store_offset: Option<i32>,
    /// 14: existence_only.
    pub existence_only: bool,
    /// 15: filterBytes (a serialized Java filter: refused).
    pub filter_bytes: Option<&'a [u8]>,
}

impl<'a> FromFields<'a> for TGet<'a> {
    fn from_fields(f: Fields<'a>) -> Self {
        TGet {
            row: f.bin(1).unwrap_or_default(),
            columns: structs(&f, 2),
            timestamp: f.i64(3),
            time_range: f.strct(4).map(TTimeRange::from_fields),
            max_versions: f.i32(5),
            filter_string: f.bin(6),
            store_limit: f.i32(12),
            store_offset: f.i32(13),
            existence_only: f.bool(14).unwrap_or(false),
            filter_bytes: f.bin(15),
        }
    }
}

/// `TPut {1: row, 2: columnValues, 3: timestamp, 5: attributes, 6: durability, 7: cellVisibility}`.
#[derive(Clone, Debug, Default)]
pub struct TPut<'a> {
    /// 1: row.
    pub row: &'a [u8],
    /// 2: columnValues.
    pub column_values: Vec<TColumnValue<'a>>,
    /// 3: timestamp (of the cells without their own).
    pub timestamp: Option<i64>,
    /// 5: attributes["_ttl"] (`Mutation.setTTL`).
    pub ttl: Option<&'a [u8]>,
    /// 6: durability (TDurability).
    pub durability: Option<i32>,
}

impl<'a> FromFields<'a> for TPut<'a> {
    fn from_fields(f: Fields<'a>) -> Self {
        TPut {
            row: f.bin(1).unwrap_or_default(),
            column_values: structs(&f, 2).unwrap_or_default(),
            timestamp: f.i64(3),
            ttl: f.map_value(5, TTL_ATTRIBUTE),
            durability: f.i32(6),
        }
    }
}

/// `TDelete {1: row, 2: columns, 3: timestamp, 4: deleteType = DELETE_COLUMNS, 7: durability}`.
#[derive(Clone, Debug, Default)]
pub struct TDelete<'a> {
    /// 1: row.
    pub row: &'a [u8],
    /// 2: columns (absent: the whole row).
    pub columns: Option<Vec<TColumn<'a>>>,
    /// 3: timestamp (of a whole-row delete).
    pub timestamp: Option<i64>,
    /// 4: deleteType (TDeleteType; IDL default 1, DELETE_COLUMNS).
    pub delete_type: i32,
    /// 7: durability.
    pub durability: Option<i32>,
}

impl<'a> FromFields<'a> for TDelete<'a> {
    fn from_fields(f: Fields<'a>) -> Self {
        TDelete {
            row: f.bin(1).unwrap_or_default(),
            columns: structs(&f, 2),
            timestamp: f.i64(3),
            delete_type: f.i32(4).unwrap_or(1),
            durability: f.i32(7),
        }
    }
}

/// `TIncrement {1: row, 2: columns, 5: durability, 7: returnResults}`.
#[derive(Clone, Debug, Default)]
pub struct TIncrement<'a> {
    /// 1: row.
    pub row: &'a [u8],
    /// 2: columns.
    pub columns: Vec<TColumnIncrement<'a>>,
    /// 4: attributes["_ttl"] (`Mutation.setTTL`).
    pub ttl: Option<&'a [u8]>,
    /// 5: durability.
    pub durability: Option<i32>,
    /// 7: returnResults (absent: true, HBase's default).
    pub return_results: bool,
}

impl<'a> FromFields<'a> for TIncrement<'a> {
    fn from_fields(f: Fields<'a>) -> Self {
        TIncrement {
            row: f.bin(1).unwrap_or_default(),
            columns: structs(&f, 2).unwrap_or_default(),
            ttl: f.map_value(4, TTL_ATTRIBUTE),
            durability: f.i32(5),
            return_results: f.bool(7).unwrap_or(true),
        }
    }
}

/// `TAppend {1: row, 2: columns, 4: durability, 6: returnResults}`.
#[derive(Clone, Debug, Default)]
pub struct TAppend<'a> {
    /// 1: row.
    pub row: &'a [u8],
    /// 2: columns.
    pub columns: Vec<TColumnValue<'a>>,
    /// 3: attributes["_ttl"] (`Mutation.setTTL`).
    pub ttl: Option<&'a [u8]>,
    /// 4: durability.
    pub durability: Option<i32>,
    /// 6: returnResults (absent: true, HBase's default).
    pub return_results: bool,
}

impl<'a> FromFields<'a> for TAppend<'a> {
    fn from_fields(f: Fields<'a>) -> Self {
        TAppend {
            row: f.bin(1).unwrap_or_default(),
            columns: structs(&f, 2).unwrap_or_default(),
            ttl: f.map_value(3, TTL_ATTRIBUTE),
            durability: f.i32(4),
            return_results: f.bool(6).unwrap_or(true),
        }
    }
}

/// `TScan` (fields 1–18; attributes, authorizations, cacheBlocks, readType, consistency and
/// targetReplicaId are accepted and ignored).
#[derive(Clone, Debug, Default)]
pub struct TScan<'a> {
    /// 1: startRow.
    pub start_row: Option<&'a [u8]>,
    /// 2: stopRow.
    pub stop_row: Option<&'a [u8]>,
    /// 3: columns.
    pub columns: Option<Vec<TColumn<'a>>>,
    /// 4: caching (accepted; rows are read on demand).
    pub caching: Option<i32>,
    /// 5: maxVersions (IDL default 1).
    pub max_versions: i32,
    /// 6: timeRange.
    pub time_range: Option<TTimeRange>,
    /// 7: filterString.
    pub filter_string: Option<&'a [u8]>,
    /// 8: batchSize.
    pub batch_size: Option<i32>,
    /// 11: reversed.
    pub reversed: bool,
    /// 13: colFamTimeRangeMap.
    pub col_fam_time_ranges: Vec<(&'a [u8], TTimeRange)>,
    /// 15: limit.
    pub limit: Option<i32>,
    /// 18: filterBytes (refused).
    pub filter_bytes: Option<&'a [u8]>,
}

impl<'a> FromFields<'a> for TScan<'a> {
    fn from_fields(f: Fields<'a>) -> Self {
        TScan {
            start_row: f.bin(1),
            stop_row: f.bin(2),
            columns: structs(&f, 3),
            caching: f.i32(4),
            max_versions: f.i32(5).unwrap_or(1),
            time_range: f.strct(6).map(TTimeRange::from_fields),
            filter_string: f.bin(7),
            batch_size: f.i32(8),
            reversed: f.bool(11).unwrap_or(false),
            col_fam_time_ranges: struct_map(&f, 13)
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (k, TTimeRange::from_fields(v)))
                .collect(),
            limit: f.i32(15),
            filter_bytes: f.bin(18),
        }
    }
}

/// `TMutation` (a union): `1: put` or `2: deleteSingle`.
#[derive(Clone, Debug, Default)]
pub struct TMutation<'a> {
    /// 1: put.
    pub put: Option<TPut<'a>>,
    /// 2: deleteSingle.
    pub delete: Option<TDelete<'a>>,
}

impl<'a> FromFields<'a> for TMutation<'a> {
    fn from_fields(f: Fields<'a>) -> Self {
        TMutation {
            put: f.strct(1).map(TPut::from_fields),
            delete: f.strct(2).map(TDelete::from_fields),
        }
    }
}

/// `TRowMutations {1: row, 2: mutations}`.
#[derive(Clone, Debug, Default)]
pub struct TRowMutations<'a> {
    /// 1: row.
    pub row: &'a [u8],
    /// 2: mutations.
    pub mutations: Vec<TMutation<'a>>,
}

impl<'a> FromFields<'a> for TRowMutations<'a> {
    fn from_fields(f: Fields<'a>) -> Self {
        TRowMutations {
            row: f.bin(1).unwrap_or_default(),
            mutations: structs(&f, 2).unwrap_or_default(),
        }
    }
}

/// `TTableName {1: ns, 2: qualifier}`.
#[derive(Clone, Debug, Default)]
pub struct TTableName<'a> {
    /// 1: ns (absent or empty: `default`).
    pub ns: Option<&'a [u8]>,
    /// 2: qualifier.
    pub qualifier: &'a [u8],
}

impl<'a> FromFields<'a> for TTableName<'a> {
    fn from_fields(f: Fields<'a>) -> Self {
        TTableName {
            ns: f.bin(1),
            qualifier: f.bin(2).unwrap_or_default(),
        }
    }
}

/// `TColumnFamilyDescriptor` (fields 1–20; dfsReplication, scope and the cache-on-write,
/// compressTags and evictBlocksOnClose flags are accepted and ignored).
#[derive(Clone, Debug, Default)]
pub struct TColumnFamilyDescriptor<'a> {
    /// 1: name.
    pub name: &'a [u8],
    /// 2: attributes.
    pub attributes: Vec<(&'a [u8], &'a [u8])>,
    /// 3: configuration.
    pub configuration: Vec<(&'a [u8], &'a [u8])>,
    /// 4: blockSize.
    pub block_size: Option<i32>,
    /// 5: bloomnFilterType (sic).
    pub bloom_filter_type: Option<i32>,
    /// 6: compressionType.
    pub compression_type: Option<i32>,
    /// 8: dataBlockEncoding.
    pub data_block_encoding: Option<i32>,
    /// 9: keepDeletedCells.
    pub keep_deleted_cells: Option<i32>,
    /// 10: maxVersions.
    pub max_versions: Option<i32>,
    /// 11: minVersions.
    pub min_versions: Option<i32>,
    /// 13: timeToLive (seconds).
    pub time_to_live: Option<i32>,
    /// 14: blockCacheEnabled.
    pub block_cache_enabled: Option<bool>,
    /// 20: inMemory.
    pub in_memory: Option<bool>,
}

impl<'a> FromFields<'a> for TColumnFamilyDescriptor<'a> {
    fn from_fields(f: Fields<'a>) -> Self {
        TColumnFamilyDescriptor {
            name: f.bin(1).unwrap_or_default(),
            attributes: bin_map(&f, 2),
            configuration: bin_map(&f, 3),
            block_size: f.i32(4),
            bloom_filter_type: f.i32(5),
            compression_type: f.i32(6),
            data_block_encoding: f.i32(8),
            keep_deleted_cells: f.i32(9),
            max_versions: f.i32(10),
            min_versions: f.i32(11),
            time_to_live: f.i32(13),
            block_cache_enabled: f.bool(14),
            in_memory: f.bool(20),
        }
    }
}

/// `TTableDescriptor {1: tableName, 2: columns, 3: attributes, 4: durability}`.
#[derive(Clone, Debug, Default)]
pub struct TTableDescriptor<'a> {
    /// 1: tableName.
    pub table_name: Option<TTableName<'a>>,
    /// 2: columns.
    pub columns: Vec<TColumnFamilyDescriptor<'a>>,
    /// 3: attributes.
    pub attributes: Vec<(&'a [u8], &'a [u8])>,
    /// 4: durability.
    pub durability: Option<i32>,
}

impl<'a> FromFields<'a> for TTableDescriptor<'a> {
    fn from_fields(f: Fields<'a>) -> Self {
        TTableDescriptor {
            table_name: f.strct(1).map(TTableName::from_fields),
            columns: structs(&f, 2).unwrap_or_default(),
            attributes: bin_map(&f, 3),
            durability: f.i32(4),
        }
    }
}

/// `TNamespaceDescriptor {1: name, 2: configuration}`.
#[derive(Clone, Debug, Default)]
pub struct TNamespaceDescriptor<'a> {
    /// 1: name.
    pub name: &'a [u8],
    /// 2: configuration.
    pub configuration: Vec<(&'a [u8], &'a [u8])>,
}

impl<'a> FromFields<'a> for TNamespaceDescriptor<'a> {
    fn from_fields(f: Fields<'a>) -> Self {
        TNamespaceDescriptor {
            name: f.bin(1).unwrap_or_default(),
            configuration: bin_map(&f, 2),
        }
    }
}
