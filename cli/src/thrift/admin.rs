//! Table admin handlers: table names, create, delete, enable, disable, compact, column
//! descriptors and regions, with HBase's `ColumnDescriptor` mapping (`colDescFromThrift` and
//! `colDescFromHbase`).
use super::call::{CallCtx, Fail};
use super::methods::{
    CompactArgs, CreateTableArgs, DeleteTableArgs, DisableTableArgs, EnableTableArgs,
    GetClusterIdArgs, GetColumnDescriptorsArgs, GetRegionInfoArgs, GetTableNamesArgs,
    GetTableNamesWithIsTableEnabledArgs, GetTableRegionsArgs, GetThriftServerTypeArgs,
    IsTableEnabledArgs, MajorCompactArgs,
};
use super::protocol::{T_BOOL, T_STRING, T_STRUCT, Value};
use super::service::{Service, need, utf8};
use super::types::{ColumnDescriptor, TRegionInfo};
use cellbase::{BloomType, Compression, Error, FamilyDescriptor, Table, TableDescriptor};
use std::time::Duration;

type R<T> = Result<T, Fail>;

impl Service {
    pub(super) fn get_table_names(&self, _: GetTableNamesArgs<'_>, _: &mut CallCtx) -> R<Value> {
        Ok(Value::bin_list(self.db.table_names()))
    }

    pub(super) fn get_table_names_with_is_table_enabled(
        &self,
        _: GetTableNamesWithIsTableEnabledArgs<'_>,
        _: &mut CallCtx,
    ) -> R<Value> {
        let entries = self
            .db
            .table_names()
            .into_iter()
            .filter_map(|n| {
                let en = self.db.is_table_enabled(&n).ok()?;
                Some((Value::bin(n), Value::Bool(en)))
            })
            .collect();
        Ok(Value::Map(T_STRING, T_BOOL, entries))
    }

    pub(super) fn get_thrift_server_type(
        &self,
        _: GetThriftServerTypeArgs<'_>,
        _: &mut CallCtx,
    ) -> R<i32> {
        // TThriftServerType.ONE: the Thrift1 `Hbase` service.
        Ok(1)
    }

    pub(super) fn get_cluster_id(&self, _: GetClusterIdArgs<'_>, _: &mut CallCtx) -> R<Value> {
        Ok(Value::bin("cellbase"))
    }

    pub(super) fn create_table(&self, a: CreateTableArgs<'_>, _: &mut CallCtx) -> R<()> {
        let name = need(a.table_name, "tableName")?;
        let name = utf8(name).ok_or_else(|| Fail::Illegal("table name is not UTF-8".into()))?;
        // By the engine's lookup, so `default:t` finds `t` (the same table).
        if self.db.describe(name).is_ok() {
            return Err(Fail::Exists("table name already in use".into()));
        }
        let cfs = a.column_families.unwrap_or_default();
        if cfs.is_empty() {
            return Err(Fail::Illegal(
                "a table needs at least one column family".into(),
            ));
        }
        let mut desc = TableDescriptor::new(name);
        for cd in &cfs {
            desc = desc.family(family_from_thrift(cd)?);
        }
        self.db.create_table(desc)?;
        Ok(())
    }

    pub(super) fn delete_table(&self, a: DeleteTableArgs<'_>, _: &mut CallCtx) -> R<()> {
        drop_disabled_table(&self.db, need(a.table_name, "tableName")?)
    }

    pub(super) fn enable_table(&self, a: EnableTableArgs<'_>, _: &mut CallCtx) -> R<()> {
        self.with_table_name(a.table_name, |n| self.db.enable_table(n))
    }

    pub(super) fn disable_table(&self, a: DisableTableArgs<'_>, _: &mut CallCtx) -> R<()> {
        self.with_table_name(a.table_name, |n| self.db.disable_table(n))
    }

    fn with_table_name(
        &self,
        table_name: Option<&[u8]>,
        f: impl FnOnce(&str) -> cellbase::Result<()>,
    ) -> R<()> {
        let name = need(table_name, "tableName")?;
        let n = utf8(name).ok_or_else(|| Fail::Io("table does not exist".into()))?;
        f(n)?;
        Ok(())
    }

    pub(super) fn is_table_enabled(&self, a: IsTableEnabledArgs<'_>, _: &mut CallCtx) -> R<bool> {
        let name = need(a.table_name, "tableName")?;
        let n = utf8(name).ok_or_else(|| Fail::Io("table does not exist".into()))?;
        Ok(self.db.is_table_enabled(n)?)
    }

    pub(super) fn compact(&self, a: CompactArgs<'_>, _: &mut CallCtx) -> R<()> {
        self.compact_table(a.table_name_or_region_name, false)
    }

    pub(super) fn major_compact(&self, a: MajorCompactArgs<'_>, _: &mut CallCtx) -> R<()> {
        self.compact_table(a.table_name_or_region_name, true)
    }

    fn compact_table(&self, table_name_or_region_name: Option<&[u8]>, major: bool) -> R<()> {
        let name = need(table_name_or_region_name, "tableNameOrRegionName")?;
        let n = String::from_utf8_lossy(name).into_owned();
        // A table name, or a region name (`table,startKey,id`): cellbase compacts per table.
        let table = match self.db.table(&n) {
            Ok(t) => t,
            Err(Error::TableNotFound(_)) => {
                let t = n.split(',').next().unwrap_or_default();
                let table = self
                    .db
                    .table(t)
                    .map_err(|_| Fail::Io(format!("no table or region named {n}")))?;
                if !table.regions().iter().any(|r| r.name == n) {
                    return Err(Fail::Io(format!("no table or region named {n}")));
                }
                table
            }
            Err(e) => return Err(e.into()),
        };
        if major {
            table.major_compact()?;
        } else {
            table.compact()?;
        }
        Ok(())
    }

    pub(super) fn get_column_descriptors(
        &self,
        a: GetColumnDescriptorsArgs<'_>,
        _: &mut CallCtx,
    ) -> R<Value> {
        let name = need(a.table_name, "tableName")?;
        let n = utf8(name).ok_or_else(|| Fail::Io("table does not exist".into()))?;
        let desc = self.db.describe(n)?;
        let entries = desc
            .families()
            .iter()
            .map(|f| {
                let cd = family_to_thrift(f);
                (Value::bin(&cd.name), cd.to_value())
            })
            .collect();
        Ok(Value::Map(T_STRING, T_STRUCT, entries))
    }

    fn region_infos(&self, t: &Table) -> Vec<TRegionInfo> {
        t.regions()
            .into_iter()
            .map(|r| TRegionInfo {
                id: region_id(&r.name),
                start_key: r.start_key,
                end_key: r.end_key,
                name: r.name.into_bytes(),
                server_name: self.server_name.clone(),
                port: self.port,
            })
            .collect()
    }

    pub(super) fn get_table_regions(
        &self,
        a: GetTableRegionsArgs<'_>,
        _: &mut CallCtx,
    ) -> R<Value> {
        let name = need(a.table_name, "tableName")?;
        let regions = match utf8(name).map(|n| self.db.table(n)) {
            Some(Ok(t)) => self.region_infos(&t),
            // HBase answers an unknown table with an empty list.
            _ => Vec::new(),
        };
        Ok(Value::List(
            T_STRUCT,
            regions.iter().map(TRegionInfo::to_value).collect(),
        ))
    }

    pub(super) fn get_region_info(&self, a: GetRegionInfoArgs<'_>, _: &mut CallCtx) -> R<Value> {
        // The argument is a meta row key: `table,row,suffix`.
        let key = need(a.row, "row")?;
        let first = key.iter().position(|&b| b == b',');
        let last = key.iter().rposition(|&b| b == b',');
        let (Some(i), Some(j)) = (first, last) else {
            return Err(Fail::Io("row is not a region key (table,row,id)".into()));
        };
        let table = self.table(&key[..i])?;
        let row = if j > i { &key[i + 1..j] } else { &key[i + 1..] };
        let info = self
            .region_infos(&table)
            .into_iter()
            .find(|r| {
                r.start_key.as_slice() <= row
                    && (r.end_key.is_empty() || row < r.end_key.as_slice())
            })
            .ok_or_else(|| Fail::Io("no region holds that row".into()))?;
        Ok(info.to_value())
    }
}

/// A region's id: the last part of its name (`table,startKey,id`; both gateways).
pub(crate) fn region_id(name: &str) -> i64 {
    name.rsplit(',')
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// HBase's `deleteTable` (both gateways): the table must exist and be disabled
/// (`TableNotDisabledException` otherwise).
pub(crate) fn drop_disabled_table(db: &cellbase::Db, name: &[u8]) -> R<()> {
    let n = utf8(name).ok_or_else(|| Fail::Io("table does not exist".into()))?;
    if db.describe(n).is_err() {
        return Err(Fail::Io(format!("table does not exist: {n}")));
    }
    if db.is_table_enabled(n)? {
        return Err(Fail::Io(format!(
            "TableNotDisabledException: {n} is enabled; disable it first"
        )));
    }
    db.drop_table(n)?;
    Ok(())
}

/// A family's compression by HBase's name (both gateways). LZO and BZIP2 are stored as the
/// nearest codec cellbase has; no reply field can carry a warning, so the gateway's log says
/// it (docs/SEMANTICS.md, "Compression").
pub(crate) fn compression_named(name: &str, family: &[u8]) -> R<Compression> {
    let (c, substituted) =
        Compression::from_hbase_name(name).map_err(|e| Fail::Illegal(e.to_string()))?;
    if substituted {
        log::warn!(
            "compression {} of family {} is stored as {} (cellbase has no {} codec)",
            name,
            String::from_utf8_lossy(family),
            c.hbase_name(),
            name.to_ascii_uppercase()
        );
    }
    Ok(c)
}

/// HBase's `colDescFromThrift`.
fn family_from_thrift(cd: &ColumnDescriptor) -> Result<FamilyDescriptor, Fail> {
    let mut name = cd.name.as_slice();
    if let Some(n) = name.strip_suffix(b":") {
        name = n;
    }
    if name.is_empty() {
        return Err(Fail::Illegal("column name is empty".into()));
    }
    if cd.max_versions < 1 {
        return Err(Fail::Illegal(format!(
            "maxVersions must be positive, got {}",
            cd.max_versions
        )));
    }
    let compression = if cd.compression.is_empty() {
        Compression::None
    } else {
        compression_named(&cd.compression, name)?
    };
    // HBase's `BloomType.valueOf`; Thrift1's ColumnDescriptor has no CONFIGURATION, so a
    // ROWPREFIX_FIXED_LENGTH family lacks its prefix length and is refused as HBase's table
    // sanity check refuses it [BLOOM-5].
    let bloom = match cd.bloom_filter_type.as_str() {
        "" => BloomType::None,
        name => BloomType::from_hbase_name(name, None).map_err(|e| Fail::Illegal(e.to_string()))?,
    };
    let mut f = FamilyDescriptor::new(name)
        .max_versions(cd.max_versions as u32)
        .compression(compression)
        .bloom_filter(bloom)
        .in_memory(cd.in_memory)
        .block_cache(cd.block_cache_enabled);
    if cd.time_to_live > 0 && cd.time_to_live != i32::MAX {
        f = f.ttl(Duration::from_secs(cd.time_to_live as u64));
    }
    Ok(f)
}

/// HBase's `colDescFromHbase`.
fn family_to_thrift(f: &FamilyDescriptor) -> ColumnDescriptor {
    let mut name = f.name.clone();
    name.push(b':');
    ColumnDescriptor {
        name,
        max_versions: i32::try_from(f.max_versions).unwrap_or(i32::MAX),
        compression: f.compression.hbase_name().into(),
        in_memory: f.in_memory,
        bloom_filter_type: f.bloom_filter.hbase_name().into(),
        block_cache_enabled: f.block_cache,
        time_to_live: f
            .ttl
            .map(|d| i32::try_from(d.as_secs()).unwrap_or(i32::MAX))
            .unwrap_or(i32::MAX),
    }
}
