//! `THBaseService`'s admin methods, as HBase 2.6's `ThriftHBaseServiceHandler` runs them
//! through HBase's `Admin`: region locations, table descriptors and listings, create /
//! delete / truncate / enable / disable, families, `modifyTable`, namespaces, the server type
//! and the 2.4+ slow-log and access-control methods.
use super::methods::*;
use super::schema::{
    family_from_thrift, namespace_to_thrift, table_from_thrift, table_to_thrift, ttable_name,
};
use super::service::{Thrift2Service, table_name, text};
use super::types::{TColumnFamilyDescriptor, TTableName};
use crate::thrift::admin::{drop_disabled_table, region_id};
use crate::thrift::call::{CallCtx, Fail};
use crate::thrift::protocol::{T_BOOL, T_STRUCT, Value};
use cellbase::{NamespaceDescriptor, RegionInfo, Table, TableDescriptor};

type R<T> = Result<T, Fail>;

/// Java's `Pattern.compile(regex).matcher(name).matches()`: the whole name must match.
fn full_match(regex: Option<&[u8]>) -> R<Option<regex::Regex>> {
    let Some(r) = regex else { return Ok(None) };
    let r = std::str::from_utf8(r).map_err(|_| Fail::Io("regex is not UTF-8".into()))?;
    regex::Regex::new(&format!("^(?:{r})$"))
        .map(Some)
        .map_err(|e| Fail::Io(format!("bad regex {r:?}: {e}")))
}

/// A copy of `old`'s schema (families and table settings) for a new, empty table.
fn schema_copy(old: &TableDescriptor) -> TableDescriptor {
    let mut d = TableDescriptor::new(old.name())
        .compaction_enabled(old.is_compaction_enabled())
        .normalization_enabled(old.is_normalization_enabled())
        .split_policy(old.table_split_policy().clone());
    for f in old.families() {
        d = d.family(f.clone());
    }
    if let Some(n) = old.table_max_region_size() {
        d = d.max_region_size(n);
    }
    if let Some(n) = old.table_memstore_flush_size() {
        d = d.memstore_flush_size(n);
    }
    if let Some(n) = old.table_normalizer_target_region_count() {
        d = d.normalizer_target_region_count(n);
    }
    if let Some(n) = old.table_normalizer_target_region_size_mb() {
        d = d.normalizer_target_region_size_mb(n);
    }
    if let Some(dur) = old.table_durability() {
        d = d.durability(dur);
    }
    d
}

/// HBase 2.6's master without the AccessController coprocessor refuses grant, revoke and
/// getUserPermission with this.
fn no_access_control() -> Fail {
    Fail::Io(
        "java.lang.UnsupportedOperationException: \
         org.apache.hadoop.hbase.security.access.AccessController is not loaded (access control \
         is not supported by cellbase)"
            .into(),
    )
}

impl Thrift2Service {
    /// `regionLocationFromHBase`: `THRegionLocation {1: TServerName, 2: THRegionInfo}`.
    fn location(&self, t: &Table, r: &RegionInfo) -> Value {
        let id = region_id(&r.name);
        let server = Value::Struct(vec![
            (1, Value::bin(&self.host)),
            (2, Value::I32(self.port)),
            (3, Value::I64(self.start_code)),
        ]);
        let info = Value::Struct(vec![
            (1, Value::I64(id)),
            (2, Value::bin(t.name())),
            (3, Value::bin(&r.start_key)),
            (4, Value::bin(&r.end_key)),
            (5, Value::Bool(false)),
            (6, Value::Bool(false)),
            (7, Value::I32(0)),
        ]);
        Value::Struct(vec![(1, server), (2, info)])
    }

    pub(super) fn get_region_location(
        &self,
        a: GetRegionLocationArgs<'_>,
        _: &mut CallCtx,
    ) -> R<Value> {
        let t = self.table(a.table)?;
        let row = a.row.unwrap_or_default();
        let r = t
            .regions()
            .into_iter()
            .find(|r| {
                r.start_key.as_slice() <= row && (r.end_key.is_empty() || row < &r.end_key[..])
            })
            .ok_or_else(|| Fail::Io("no region holds that row".into()))?;
        Ok(self.location(&t, &r))
    }

    pub(super) fn get_all_region_locations(
        &self,
        a: GetAllRegionLocationsArgs<'_>,
        _: &mut CallCtx,
    ) -> R<Value> {
        let t = self.table(a.table)?;
        let locs = t.regions().iter().map(|r| self.location(&t, r)).collect();
        Ok(Value::List(T_STRUCT, locs))
    }

    pub(super) fn get_table_descriptor(
        &self,
        a: GetTableDescriptorArgs<'_>,
        _: &mut CallCtx,
    ) -> R<Value> {
        let name = table_name(a.table.as_ref())?;
        Ok(table_to_thrift(&self.db.describe(&name)?))
    }

    /// HBase's `listTableDescriptors(List<TableName>)`: the tables that exist.
    pub(super) fn get_table_descriptors(
        &self,
        a: GetTableDescriptorsArgs<'_>,
        _: &mut CallCtx,
    ) -> R<Value> {
        let mut out = Vec::new();
        for t in a.tables.unwrap_or_default() {
            if let Ok(d) = self.db.describe(&table_name(Some(&t))?) {
                out.push(table_to_thrift(&d));
            }
        }
        Ok(Value::List(T_STRUCT, out))
    }

    pub(super) fn table_exists(&self, a: TableExistsArgs<'_>, _: &mut CallCtx) -> R<bool> {
        let name = table_name(a.table_name.as_ref())?;
        Ok(self.db.describe(&name).is_ok())
    }

    /// Table names matching `regex` (every table without one); cellbase has no system
    /// tables, so `includeSysTables` changes nothing.
    fn tables_matching(&self, regex: Option<&[u8]>) -> R<Vec<String>> {
        let re = full_match(regex)?;
        Ok(self
            .db
            .table_names()
            .into_iter()
            .filter(|n| re.as_ref().is_none_or(|re| re.is_match(n)))
            .collect())
    }

    /// The full names of a namespace's tables (`NamespaceNotFoundException` for an unknown one).
    fn namespace_tables(&self, name: Option<&[u8]>) -> R<Vec<String>> {
        let ns = text(name, "name")?;
        let tables = self.db.list_namespace_tables(ns)?;
        Ok(tables
            .into_iter()
            .map(|t| {
                if ns == cellbase::DEFAULT_NAMESPACE {
                    t
                } else {
                    format!("{ns}:{t}")
                }
            })
            .collect())
    }

    fn descriptors(&self, names: Vec<String>) -> R<Value> {
        let mut out = Vec::with_capacity(names.len());
        for n in names {
            out.push(table_to_thrift(&self.db.describe(&n)?));
        }
        Ok(Value::List(T_STRUCT, out))
    }

    pub(super) fn get_table_descriptors_by_pattern(
        &self,
        a: GetTableDescriptorsByPatternArgs<'_>,
        _: &mut CallCtx,
    ) -> R<Value> {
        self.descriptors(self.tables_matching(a.regex)?)
    }

    pub(super) fn get_table_descriptors_by_namespace(
        &self,
        a: GetTableDescriptorsByNamespaceArgs<'_>,
        _: &mut CallCtx,
    ) -> R<Value> {
        self.descriptors(self.namespace_tables(a.name)?)
    }

    pub(super) fn get_table_names_by_pattern(
        &self,
        a: GetTableNamesByPatternArgs<'_>,
        _: &mut CallCtx,
    ) -> R<Value> {
        let names = self.tables_matching(a.regex)?;
        Ok(Value::List(
            T_STRUCT,
            names.iter().map(|n| ttable_name(n)).collect(),
        ))
    }

    pub(super) fn get_table_names_by_namespace(
        &self,
        a: GetTableNamesByNamespaceArgs<'_>,
        _: &mut CallCtx,
    ) -> R<Value> {
        let names = self.namespace_tables(a.name)?;
        Ok(Value::List(
            T_STRUCT,
            names.iter().map(|n| ttable_name(n)).collect(),
        ))
    }

    pub(super) fn create_table(&self, a: CreateTableArgs<'_>, _: &mut CallCtx) -> R<()> {
        let desc = a
            .desc
            .ok_or_else(|| Fail::Io("missing argument desc".into()))?;
        let name = table_name(desc.table_name.as_ref())?;
        let mut d = table_from_thrift(&name, &desc)?;
        if let Some(keys) = a.split_keys.filter(|k| !k.is_empty()) {
            d = d.split_keys(keys);
        }
        self.db.create_table(d)?;
        Ok(())
    }

    pub(super) fn delete_table(&self, a: DeleteTableArgs<'_>, _: &mut CallCtx) -> R<()> {
        drop_disabled_table(&self.db, table_name(a.table_name.as_ref())?.as_bytes())
    }

    /// HBase's `truncateTable`: the table must be disabled; it comes back empty and enabled,
    /// with its region boundaries when `preserveSplits`.
    pub(super) fn truncate_table(&self, a: TruncateTableArgs<'_>, _: &mut CallCtx) -> R<()> {
        let name = table_name(a.table_name.as_ref())?;
        let old = self.db.describe(&name)?;
        if self.db.is_table_enabled(&name)? {
            return Err(Fail::Io(format!(
                "TableNotDisabledException: {name} is enabled; disable it first"
            )));
        }
        let mut d = schema_copy(&old);
        if a.preserve_splits.unwrap_or(false) {
            let starts: Vec<Vec<u8>> = self
                .db
                .table(&name)?
                .regions()
                .into_iter()
                .map(|r| r.start_key)
                .filter(|k| !k.is_empty())
                .collect();
            d = d.split_keys(starts);
        }
        self.db.drop_table(&name)?;
        self.db.create_table(d)?;
        Ok(())
    }

    pub(super) fn enable_table(&self, a: EnableTableArgs<'_>, _: &mut CallCtx) -> R<()> {
        Ok(self.db.enable_table(&table_name(a.table_name.as_ref())?)?)
    }

    pub(super) fn disable_table(&self, a: DisableTableArgs<'_>, _: &mut CallCtx) -> R<()> {
        Ok(self.db.disable_table(&table_name(a.table_name.as_ref())?)?)
    }

    pub(super) fn is_table_enabled(&self, a: IsTableEnabledArgs<'_>, _: &mut CallCtx) -> R<bool> {
        Ok(self
            .db
            .is_table_enabled(&table_name(a.table_name.as_ref())?)?)
    }

    pub(super) fn is_table_disabled(&self, a: IsTableDisabledArgs<'_>, _: &mut CallCtx) -> R<bool> {
        Ok(!self
            .db
            .is_table_enabled(&table_name(a.table_name.as_ref())?)?)
    }

    /// HBase's `isTableAvailable`: false for a missing or disabled table, true otherwise
    /// (every region of a cellbase table is online).
    fn available(&self, name: &str) -> Option<Table> {
        match self.db.is_table_enabled(name) {
            Ok(true) => self.db.table(name).ok(),
            _ => None,
        }
    }

    pub(super) fn is_table_available(
        &self,
        a: IsTableAvailableArgs<'_>,
        _: &mut CallCtx,
    ) -> R<bool> {
        Ok(self
            .available(&table_name(a.table_name.as_ref())?)
            .is_some())
    }

    /// HBase 2's `isTableAvailable(table, splitKeys)`: available, with one region more than
    /// split keys, each region starting at one of them (or at the table's start).
    pub(super) fn is_table_available_with_split(
        &self,
        a: IsTableAvailableWithSplitArgs<'_>,
        _: &mut CallCtx,
    ) -> R<bool> {
        let Some(t) = self.available(&table_name(a.table_name.as_ref())?) else {
            return Ok(false);
        };
        let keys = a.split_keys.unwrap_or_default();
        if keys.is_empty() {
            return Ok(true);
        }
        let regions = t.regions();
        Ok(regions.len() == keys.len() + 1
            && regions
                .iter()
                .all(|r| r.start_key.is_empty() || keys.contains(&r.start_key.as_slice())))
    }

    /// HBase's `addColumnFamily`: a family of that name must not exist yet.
    pub(super) fn add_column_family(&self, a: AddColumnFamilyArgs<'_>, _: &mut CallCtx) -> R<()> {
        self.alter_column_family(a.table_name.as_ref(), a.column, true)
    }

    /// HBase's `modifyColumnFamily`: the family must exist; its descriptor is replaced.
    pub(super) fn modify_column_family(
        &self,
        a: ModifyColumnFamilyArgs<'_>,
        _: &mut CallCtx,
    ) -> R<()> {
        self.alter_column_family(a.table_name.as_ref(), a.column, false)
    }

    /// Adds (`adding`) or replaces a family, with HBase's messages when it exists already or
    /// does not exist.
    fn alter_column_family(
        &self,
        table: Option<&TTableName<'_>>,
        column: Option<TColumnFamilyDescriptor<'_>>,
        adding: bool,
    ) -> R<()> {
        let name = table_name(table)?;
        let column = column.ok_or_else(|| Fail::Io("missing argument column".into()))?;
        let f = family_from_thrift(&column)?;
        let family = String::from_utf8_lossy(&f.name).into_owned();
        match (
            self.db.describe(&name)?.get_family(&f.name).is_some(),
            adding,
        ) {
            (true, true) => Err(Fail::Io(format!(
                "Column family '{family}' in table '{name}' already exists so cannot be added"
            ))),
            (false, false) => Err(Fail::Io(format!("Column family '{family}' does not exist"))),
            _ => Ok(self.db.alter_family(&name, f)?),
        }
    }

    pub(super) fn delete_column_family(
        &self,
        a: DeleteColumnFamilyArgs<'_>,
        _: &mut CallCtx,
    ) -> R<()> {
        let name = table_name(a.table_name.as_ref())?;
        let column = a
            .column
            .ok_or_else(|| Fail::Io("missing argument column".into()))?;
        Ok(self.db.delete_family(&name, column)?)
    }

    /// HBase's `modifyTable`: the table's descriptor becomes `desc`: its families are added
    /// or replaced, families it does not name are deleted, and the table settings and
    /// durability are set (unset ones back to their defaults).
    pub(super) fn modify_table(&self, a: ModifyTableArgs<'_>, _: &mut CallCtx) -> R<()> {
        let desc = a
            .desc
            .ok_or_else(|| Fail::Io("missing argument desc".into()))?;
        let name = table_name(desc.table_name.as_ref())?;
        let old = self.db.describe(&name)?;
        let new = table_from_thrift(&name, &desc)?;
        new.validate()?;
        for f in new.families() {
            if old.get_family(&f.name) != Some(f) {
                self.db.alter_family(&name, f.clone())?;
            }
        }
        for f in old.families() {
            if new.get_family(&f.name).is_none() {
                self.db.delete_family(&name, &f.name)?;
            }
        }
        let db = &self.db;
        db.set_table_max_region_size(&name, new.table_max_region_size())?;
        db.set_table_memstore_flush_size(&name, new.table_memstore_flush_size())?;
        db.set_table_compaction_enabled(&name, new.is_compaction_enabled())?;
        db.set_table_normalization_enabled(&name, new.is_normalization_enabled())?;
        db.set_table_normalizer_target_region_count(
            &name,
            new.table_normalizer_target_region_count(),
        )?;
        db.set_table_normalizer_target_region_size_mb(
            &name,
            new.table_normalizer_target_region_size_mb(),
        )?;
        db.set_table_split_policy(&name, new.table_split_policy().clone())?;
        db.set_table_durability(&name, new.table_durability())?;
        Ok(())
    }

    pub(super) fn create_namespace(&self, a: CreateNamespaceArgs<'_>, _: &mut CallCtx) -> R<()> {
        let nd = a
            .namespace_desc
            .ok_or_else(|| Fail::Io("missing argument namespaceDesc".into()))?;
        let mut d = NamespaceDescriptor::new(text(Some(nd.name), "name")?);
        for (k, v) in &nd.configuration {
            d = d.property(&String::from_utf8_lossy(k), &String::from_utf8_lossy(v));
        }
        Ok(self.db.create_namespace_with(d)?)
    }

    /// HBase's `modifyNamespace`: the configuration becomes the given one.
    pub(super) fn modify_namespace(&self, a: ModifyNamespaceArgs<'_>, _: &mut CallCtx) -> R<()> {
        let nd = a
            .namespace_desc
            .ok_or_else(|| Fail::Io("missing argument namespaceDesc".into()))?;
        let name = text(Some(nd.name), "name")?;
        let old = self.db.describe_namespace(name)?;
        let new: Vec<(String, String)> = nd
            .configuration
            .iter()
            .map(|(k, v)| {
                (
                    String::from_utf8_lossy(k).into_owned(),
                    String::from_utf8_lossy(v).into_owned(),
                )
            })
            .collect();
        for k in old.properties().keys() {
            if !new.iter().any(|(n, _)| n == k) {
                self.db.alter_namespace(name, k, None)?;
            }
        }
        for (k, v) in &new {
            self.db.alter_namespace(name, k, Some(v))?;
        }
        Ok(())
    }

    pub(super) fn delete_namespace(&self, a: DeleteNamespaceArgs<'_>, _: &mut CallCtx) -> R<()> {
        Ok(self.db.drop_namespace(text(a.name, "name")?)?)
    }

    pub(super) fn get_namespace_descriptor(
        &self,
        a: GetNamespaceDescriptorArgs<'_>,
        _: &mut CallCtx,
    ) -> R<Value> {
        let d = self.db.describe_namespace(text(a.name, "name")?)?;
        Ok(namespace_to_thrift(&d))
    }

    pub(super) fn list_namespace_descriptors(
        &self,
        _: ListNamespaceDescriptorsArgs<'_>,
        _: &mut CallCtx,
    ) -> R<Value> {
        let mut out = Vec::new();
        for ns in self.db.list_namespaces() {
            out.push(namespace_to_thrift(&self.db.describe_namespace(&ns)?));
        }
        Ok(Value::List(T_STRUCT, out))
    }

    pub(super) fn list_namespaces(&self, _: ListNamespacesArgs<'_>, _: &mut CallCtx) -> R<Value> {
        Ok(Value::bin_list(self.db.list_namespaces()))
    }

    pub(super) fn get_thrift_server_type(
        &self,
        _: GetThriftServerTypeArgs<'_>,
        _: &mut CallCtx,
    ) -> R<i32> {
        // TThriftServerType.TWO: the Thrift2 `THBaseService`.
        Ok(2)
    }

    /// No slow log is kept: an empty list.
    pub(super) fn get_slow_log_responses(
        &self,
        _: GetSlowLogResponsesArgs<'_>,
        _: &mut CallCtx,
    ) -> R<Value> {
        Ok(Value::List(T_STRUCT, vec![]))
    }

    /// Nothing to clear: `[true]`, as one region server answering that it cleared its log.
    pub(super) fn clear_slow_log_responses(
        &self,
        _: ClearSlowLogResponsesArgs<'_>,
        _: &mut CallCtx,
    ) -> R<Value> {
        Ok(Value::List(T_BOOL, vec![Value::Bool(true)]))
    }

    pub(super) fn grant(&self, _: GrantArgs<'_>, _: &mut CallCtx) -> R<bool> {
        Err(no_access_control())
    }

    pub(super) fn revoke(&self, _: RevokeArgs<'_>, _: &mut CallCtx) -> R<bool> {
        Err(no_access_control())
    }

    pub(super) fn get_user_permission(
        &self,
        _: GetUserPermissionArgs<'_>,
        _: &mut CallCtx,
    ) -> R<Value> {
        Err(no_access_control())
    }
}
