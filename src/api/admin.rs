//! Table administration on [`Db`]: create, open, describe, alter, drop, enable and disable
//! tables, and create, describe, alter, list and drop namespaces. Each method checks its input
//! and calls the engine's catalog or alter module.

use crate::api::db::LocalDb;
use crate::api::table_handle::Table;
use crate::base::error::Result;
use crate::model::mutation::Durability;
use crate::model::namespace::NamespaceDescriptor;
use crate::model::region_split_policy::RegionSplitPolicy;
use crate::model::schema::{FamilyDescriptor, TableDescriptor};

impl LocalDb {
    /// Applies `change` to the table's schema, validated and logged (every `set_table_*`).
    pub(crate) fn alter_table(
        &self,
        table: &str,
        change: impl FnOnce(&mut TableDescriptor),
    ) -> Result<()> {
        self.inner
            .alter_desc(table, |d| {
                change(d);
                Ok(())
            })
            .map(|_| ())
    }

    pub(crate) fn create_table(&self, desc: TableDescriptor) -> Result<Table> {
        let shared = self.inner.create_table(desc)?;
        Ok(self.handle(shared))
    }

    pub(crate) fn clone_table_schema(
        &self,
        table: &str,
        new_table: &str,
        preserve_splits: bool,
    ) -> Result<Table> {
        let src = self.table(table)?;
        // `default:t` is `t`, as for a new table.
        let name = TableDescriptor::new(new_table).name().to_string();
        let mut desc = self.describe(table)?.renamed(&name).without_splits();
        if preserve_splits {
            let starts: Vec<Vec<u8>> = src
                .regions()
                .into_iter()
                .skip(1)
                .map(|r| r.start_key)
                .collect();
            desc = desc.split_keys(starts);
        }
        self.create_table(desc)
    }

    pub(crate) fn set_split_enabled(&self, on: bool) -> bool {
        self.inner.set_split_enabled(on)
    }

    pub(crate) fn is_split_enabled(&self) -> bool {
        self.inner.split_enabled()
    }

    pub(crate) fn set_merge_enabled(&self, on: bool) -> bool {
        self.inner.set_merge_enabled(on)
    }

    pub(crate) fn is_merge_enabled(&self) -> bool {
        self.inner.merge_enabled()
    }

    pub(crate) fn table(&self, name: &str) -> Result<Table> {
        self.inner.check_open()?;
        Ok(self.handle(self.inner.table_shared(name)?))
    }

    pub(crate) fn table_names(&self) -> Vec<String> {
        self.inner.table_names()
    }

    pub(crate) fn create_namespace(&self, name: &str) -> Result<()> {
        self.inner.create_namespace(NamespaceDescriptor::new(name))
    }

    pub(crate) fn create_namespace_with(&self, desc: NamespaceDescriptor) -> Result<()> {
        self.inner.create_namespace(desc)
    }

    pub(crate) fn list_namespaces(&self) -> Vec<String> {
        self.inner.namespace_names()
    }

    pub(crate) fn describe_namespace(&self, name: &str) -> Result<NamespaceDescriptor> {
        self.inner.namespace(name)
    }

    pub(crate) fn list_namespace_tables(&self, name: &str) -> Result<Vec<String>> {
        self.inner.namespace_tables(name)
    }

    pub(crate) fn alter_namespace(&self, name: &str, key: &str, value: Option<&str>) -> Result<()> {
        self.inner
            .alter_namespace(name, |d| d.set_property(key, value))
    }

    pub(crate) fn drop_namespace(&self, name: &str) -> Result<()> {
        self.inner.drop_namespace(name)
    }

    pub(crate) fn describe(&self, name: &str) -> Result<TableDescriptor> {
        Ok(self.inner.table_shared(name)?.desc())
    }

    pub(crate) fn alter_family(&self, table: &str, family: FamilyDescriptor) -> Result<()> {
        self.inner.alter_family(table, family)
    }

    pub(crate) fn delete_family(&self, table: &str, family: &[u8]) -> Result<()> {
        self.inner.delete_family(table, family)
    }

    pub(crate) fn set_table_max_region_size(&self, table: &str, bytes: Option<u64>) -> Result<()> {
        self.alter_table(table, |d| d.set_max_region_size(bytes))
    }

    pub(crate) fn set_table_memstore_flush_size(
        &self,
        table: &str,
        bytes: Option<u64>,
    ) -> Result<()> {
        self.alter_table(table, |d| d.set_memstore_flush_size(bytes))
    }

    pub(crate) fn set_table_split_policy(
        &self,
        table: &str,
        policy: RegionSplitPolicy,
    ) -> Result<()> {
        policy.validate()?;
        self.alter_table(table, |d| d.set_split_policy(policy))
    }

    pub(crate) fn set_table_compaction_enabled(&self, table: &str, yes: bool) -> Result<()> {
        self.alter_table(table, |d| d.set_compaction_enabled(yes))
    }

    pub(crate) fn set_table_normalization_enabled(&self, table: &str, yes: bool) -> Result<()> {
        self.alter_table(table, |d| d.set_normalization_enabled(yes))
    }

    pub(crate) fn set_table_durability(
        &self,
        table: &str,
        durability: Option<Durability>,
    ) -> Result<()> {
        self.alter_table(table, |d| d.set_durability(durability))
    }

    pub(crate) fn drop_table(&self, name: &str) -> Result<()> {
        self.inner.drop_table(name)
    }

    pub(crate) fn disable_table(&self, name: &str) -> Result<()> {
        self.inner.set_enabled(name, false)
    }

    pub(crate) fn enable_table(&self, name: &str) -> Result<()> {
        self.inner.set_enabled(name, true)
    }

    pub(crate) fn is_table_enabled(&self, name: &str) -> Result<bool> {
        Ok(self.inner.table_shared(name)?.is_enabled())
    }

    pub(crate) fn snapshot(&self, table: &str, name: &str) -> Result<()> {
        self.inner.snapshot(table, name)
    }

    pub(crate) fn list_snapshots(&self) -> Vec<crate::engine::snapshot::SnapshotInfo> {
        self.inner.list_snapshots()
    }

    pub(crate) fn clone_snapshot(&self, name: &str, table: &str) -> Result<Table> {
        let shared = self.inner.clone_snapshot(name, table)?;
        Ok(self.handle(shared))
    }

    pub(crate) fn restore_snapshot(&self, name: &str) -> Result<()> {
        self.inner.restore_snapshot(name)
    }

    pub(crate) fn delete_snapshot(&self, name: &str) -> Result<()> {
        self.inner.delete_snapshot(name)
    }
}
