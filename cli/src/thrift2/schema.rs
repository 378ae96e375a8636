//! HBase 2.6's `ThriftUtilities` (thrift2) descriptor conversions:
//! `columnFamilyDescriptorFromThrift` / `FromHBase`, `tableDescriptorFromThrift` /
//! `FromHBase`, `namespaceDescriptorFromThrift` / `FromHBase` and `tableNameFromHBase`, onto
//! cellbase's `FamilyDescriptor`, `TableDescriptor` and `NamespaceDescriptor`.
use super::types::{TColumnFamilyDescriptor, TTableDescriptor};
use crate::thrift::admin::compression_named;
use crate::thrift::call::Fail;
use crate::thrift::protocol::{T_STRING, T_STRUCT, Value};
use cellbase::{
    BloomType, DataBlockEncoding, Durability, FamilyDescriptor, KeepDeletedCells,
    NamespaceDescriptor, ROW_PREFIX_LENGTH_KEY, RegionSplitPolicy, TableDescriptor,
};
use std::time::Duration;

type R<T> = Result<T, Fail>;

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A map of strings.
fn string_map<K: AsRef<[u8]>, V: AsRef<[u8]>>(entries: impl IntoIterator<Item = (K, V)>) -> Value {
    Value::Map(
        T_STRING,
        T_STRING,
        entries
            .into_iter()
            .map(|(k, v)| (Value::bin(k), Value::bin(v)))
            .collect(),
    )
}

/// TCompressionAlgorithm by value (`compressionAlgorithmFromThrift`: unknown is NONE).
const COMPRESSIONS: [&str; 7] = ["LZO", "GZ", "NONE", "SNAPPY", "LZ4", "BZIP2", "ZSTD"];
/// TDataBlockEncoding by value (`dataBlockEncodingFromThrift`: unknown is NONE).
const ENCODINGS: [(i32, DataBlockEncoding); 5] = [
    (0, DataBlockEncoding::None),
    (2, DataBlockEncoding::Prefix),
    (3, DataBlockEncoding::Diff),
    (4, DataBlockEncoding::FastDiff),
    (7, DataBlockEncoding::RowIndexV1),
];

/// TDurability of a table's durability (`durabilityFromHBase`; unset is USE_DEFAULT, 0).
pub fn durability_value(d: Option<Durability>) -> i32 {
    match d {
        None => 0,
        Some(Durability::SkipWal) => 1,
        Some(Durability::AsyncWal) => 2,
        Some(Durability::SyncWal) => 3,
        Some(Durability::FsyncWal) => 4,
    }
}

/// A positive i32 setting as u32, or HBase's sanity-check message.
fn positive(n: i32, what: &str, family: &[u8]) -> R<u32> {
    u32::try_from(n).ok().filter(|&n| n > 0).ok_or_else(|| {
        Fail::Io(format!(
            "{what} for column family {} must be positive.",
            lossy(family)
        ))
    })
}

/// `columnFamilyDescriptorFromThrift`: HBase's family defaults [DESC-1], then the attributes
/// map (the `ColumnFamilyDescriptor` keys: VERSIONS, TTL, BLOOMFILTER, ...), the typed fields
/// and the configuration map, as HBase's builder applies them.
pub fn family_from_thrift(t: &TColumnFamilyDescriptor<'_>) -> R<FamilyDescriptor> {
    let name = t.name;
    let mut f = FamilyDescriptor::new(name);
    for (k, v) in &t.attributes {
        f = crate::rest::schema::apply_family_attr(f, &lossy(k), &lossy(v)).map_err(Fail::Io)?;
    }
    let config: Vec<(String, String)> = t
        .configuration
        .iter()
        .map(|(k, v)| (lossy(k), lossy(v)))
        .collect();
    let config_value = |key: &str| {
        config
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    if let Some(n) = t.block_size {
        f = f.block_size(positive(n, "Block size", name)?);
    }
    if let Some(b) = t.bloom_filter_type {
        // `bloomFilterFromThrift`: an unknown value is ROW.
        let bloom = match b {
            0 => BloomType::None,
            2 => BloomType::RowCol,
            3 => BloomType::from_hbase_name(
                "ROWPREFIX_FIXED_LENGTH",
                config_value(ROW_PREFIX_LENGTH_KEY),
            )?,
            _ => BloomType::Row,
        };
        f = f.bloom_filter(bloom);
    }
    if let Some(c) = t.compression_type {
        let hbase = usize::try_from(c)
            .ok()
            .and_then(|i| COMPRESSIONS.get(i))
            .unwrap_or(&"NONE");
        f = f.compression(compression_named(hbase, name)?);
    }
    if let Some(e) = t.data_block_encoding {
        let enc = ENCODINGS.iter().find(|(v, _)| *v == e).map(|(_, d)| *d);
        f = f.data_block_encoding(enc.unwrap_or_default());
    }
    if let Some(k) = t.keep_deleted_cells {
        f = f.keep_deleted_cells(match k {
            1 => KeepDeletedCells::True,
            2 => KeepDeletedCells::Ttl,
            _ => KeepDeletedCells::False,
        });
    }
    if let Some(n) = t.max_versions {
        f = f.max_versions(positive(n, "VERSIONS", name)?);
    }
    if let Some(n) = t.min_versions {
        let n = u32::try_from(n).map_err(|_| {
            Fail::Io(format!(
                "Min versions for column family {} must be positive.",
                lossy(name)
            ))
        })?;
        f = f.min_versions(n);
    }
    if let Some(ttl) = t.time_to_live {
        let secs = positive(ttl, "TTL", name)?;
        // HConstants.FOREVER.
        f.ttl = (secs != i32::MAX as u32).then(|| Duration::from_secs(u64::from(secs)));
    }
    if let Some(b) = t.block_cache_enabled {
        f = f.block_cache(b);
    }
    if let Some(b) = t.in_memory {
        f = f.in_memory(b);
    }
    for (k, v) in &config {
        if k == ROW_PREFIX_LENGTH_KEY && t.bloom_filter_type == Some(3) {
            continue;
        }
        f.set_configuration(k, v)?;
    }
    Ok(f)
}

/// `columnFamilyDescriptorFromHBase`: every typed field (HBase's defaults for what cellbase
/// does not have: dfsReplication 0, scope 0, the cache-on-write and evict flags false,
/// compressTags true), the attributes as HBase's `ColumnFamilyDescriptor` lists them and the
/// configuration (compaction policy, major compaction, Bloom prefix length).
pub fn family_to_thrift(f: &FamilyDescriptor) -> Value {
    let bloom = match f.bloom_filter {
        BloomType::None => 0,
        BloomType::RowCol => 2,
        BloomType::RowPrefixFixedLength(_) => 3,
        _ => 1,
    };
    let compression = COMPRESSIONS
        .iter()
        .position(|c| *c == f.compression.hbase_name())
        .unwrap_or(2) as i32;
    let encoding = ENCODINGS
        .iter()
        .find(|(_, e)| *e == f.data_block_encoding)
        .map_or(0, |(v, _)| *v);
    let kdc = match f.keep_deleted_cells {
        KeepDeletedCells::False => 0,
        KeepDeletedCells::True => 1,
        KeepDeletedCells::Ttl => 2,
    };
    let ttl = f
        .ttl
        .map(|d| i32::try_from(d.as_secs()).unwrap_or(i32::MAX))
        .unwrap_or(i32::MAX);
    let i32_of = |n: u32| i32::try_from(n).unwrap_or(i32::MAX);
    Value::Struct(vec![
        (1, Value::bin(&f.name)),
        (2, string_map(crate::rest::schema::family_attrs(f))),
        (3, string_map(f.configuration())),
        (4, Value::I32(i32_of(f.block_size))),
        (5, Value::I32(bloom)),
        (6, Value::I32(compression)),
        (7, Value::I16(0)),
        (8, Value::I32(encoding)),
        (9, Value::I32(kdc)),
        (10, Value::I32(i32_of(f.max_versions))),
        (11, Value::I32(i32_of(f.min_versions))),
        (12, Value::I32(0)),
        (13, Value::I32(ttl)),
        (14, Value::Bool(f.block_cache)),
        (15, Value::Bool(false)),
        (16, Value::Bool(false)),
        (17, Value::Bool(false)),
        (18, Value::Bool(true)),
        (19, Value::Bool(false)),
        (20, Value::Bool(f.in_memory)),
    ])
}

/// `tableNameFromHBase`: `TTableName {1: ns, 2: qualifier}` (`default` for a table without a
/// namespace prefix).
pub fn ttable_name(name: &str) -> Value {
    let (ns, q) = name
        .split_once(':')
        .unwrap_or((cellbase::DEFAULT_NAMESPACE, name));
    Value::Struct(vec![(1, Value::bin(ns)), (2, Value::bin(q))])
}

/// The table attributes cellbase keeps, by HBase's `TableDescriptor` keys (non-default
/// values only, as HBase lists them).
fn table_attributes(d: &TableDescriptor) -> Vec<(String, String)> {
    let mut a = Vec::new();
    let mut put = |k: &str, v: String| a.push((k.to_string(), v));
    if let Some(n) = d.table_max_region_size() {
        put("MAX_FILESIZE", n.to_string());
    }
    if let Some(n) = d.table_memstore_flush_size() {
        put("MEMSTORE_FLUSHSIZE", n.to_string());
    }
    if !d.is_compaction_enabled() {
        put("COMPACTION_ENABLED", "false".into());
    }
    if d.is_normalization_enabled() {
        put("NORMALIZATION_ENABLED", "true".into());
    }
    if let Some(n) = d.table_normalizer_target_region_count() {
        put("NORMALIZER_TARGET_REGION_COUNT", n.to_string());
    }
    if let Some(n) = d.table_normalizer_target_region_size_mb() {
        put("NORMALIZER_TARGET_REGION_SIZE_MB", n.to_string());
    }
    let policy = d.table_split_policy();
    if *policy != RegionSplitPolicy::default() {
        put("SPLIT_POLICY", policy.class_name());
        if let Some((k, v)) = policy.configuration() {
            put(k, v);
        }
    }
    a
}

/// `tableDescriptorFromHBase`.
pub fn table_to_thrift(d: &TableDescriptor) -> Value {
    Value::Struct(vec![
        (1, ttable_name(d.name())),
        (
            2,
            Value::List(
                T_STRUCT,
                d.families().iter().map(family_to_thrift).collect(),
            ),
        ),
        (3, string_map(table_attributes(d))),
        (4, Value::I32(durability_value(d.table_durability()))),
    ])
}

/// A numeric table attribute (the REST gateway's parsing and message).
fn parse<T: std::str::FromStr>(k: &str, v: &str) -> R<T> {
    crate::rest::schema::number(v, k).map_err(Fail::Io)
}

/// A boolean table attribute (the REST gateway's parsing and message).
fn truth(k: &str, v: &str) -> R<bool> {
    crate::rest::schema::truth(v, k).map_err(Fail::Io)
}

/// `tableDescriptorFromThrift` onto a descriptor named `name`: families, the table
/// attributes cellbase keeps (others are refused, so nothing asked for is silently dropped;
/// HBase's own defaults IS_META, READONLY false and REGION_REPLICATION 1 are accepted) and
/// the durability.
pub fn table_from_thrift(name: &str, t: &TTableDescriptor<'_>) -> R<TableDescriptor> {
    let mut d = TableDescriptor::new(name);
    for c in &t.columns {
        d = d.family(family_from_thrift(c)?);
    }
    let attrs: Vec<(String, String)> = t
        .attributes
        .iter()
        .map(|(k, v)| (lossy(k), lossy(v)))
        .collect();
    let attr = |key: &str| attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    for (k, v) in &attrs {
        d = match k.as_str() {
            "MAX_FILESIZE" => d.max_region_size(parse(k, v)?),
            "MEMSTORE_FLUSHSIZE" => d.memstore_flush_size(parse(k, v)?),
            "COMPACTION_ENABLED" => d.compaction_enabled(truth(k, v)?),
            "NORMALIZATION_ENABLED" => d.normalization_enabled(truth(k, v)?),
            "NORMALIZER_TARGET_REGION_COUNT" => d.normalizer_target_region_count(parse(k, v)?),
            "NORMALIZER_TARGET_REGION_SIZE_MB" => d.normalizer_target_region_size_mb(parse(k, v)?),
            "SPLIT_POLICY" => d.split_policy(RegionSplitPolicy::from_hbase(v, |key| attr(key))?),
            "IS_META" | "READONLY" if v.eq_ignore_ascii_case("false") => d,
            "REGION_REPLICATION" if v.trim() == "1" => d,
            // The split policy's own settings, read with SPLIT_POLICY.
            k if attr("SPLIT_POLICY").is_some() && k.starts_with("hbase.") => d,
            _ => {
                return Err(Fail::Io(format!(
                    "table attribute {k}={v} is not supported by cellbase (docs/THRIFT2.md)"
                )));
            }
        };
    }
    if let Some(dur) = super::convert::durability(t.durability) {
        d = d.durability(dur);
    }
    Ok(d)
}

/// `namespaceDescriptorFromHBase`: `{1: name, 2: configuration}`.
pub fn namespace_to_thrift(n: &NamespaceDescriptor) -> Value {
    Value::Struct(vec![
        (1, Value::bin(n.name())),
        (2, string_map(n.properties())),
    ])
}
