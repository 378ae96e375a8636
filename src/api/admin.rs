//! Table administration on [`Db`]: create, open, describe, alter, drop, enable and disable
//! tables, and create, describe, alter, list and drop namespaces. Each method checks its input
//! and calls the engine's catalog or alter module.

use crate::api::db::Db;
use crate::api::table::Table;
use crate::base::error::Result;
use crate::model::mutation::Durability;
use crate::model::namespace::NamespaceDescriptor;
use crate::model::region_split_policy::RegionSplitPolicy;
use crate::model::schema::{FamilyDescriptor, TableDescriptor};

impl Db {
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

    /// Creates a table with one region covering every row (or pre-split). The name may carry
    /// a namespace, `ns:t`, which must exist ([`Db::create_namespace`]); `default:t` is the
    /// table `t`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a bad name, no or duplicate families or bad family
    /// settings, or a table in the reserved `hbase` namespace; [`Error::TableExists`](crate::Error::TableExists);
    /// [`Error::NamespaceNotFound`](crate::Error::NamespaceNotFound).
    pub fn create_table(&self, desc: TableDescriptor) -> Result<Table> {
        let shared = self.inner.create_table(desc)?;
        Ok(self.handle(shared))
    }

    /// Creates `new_table` with the schema of `table` (families, table attributes), empty
    /// (HBase `Admin.cloneTableSchema`, the shell's `clone_table_schema`): with
    /// `preserve_splits` its regions start at the keys where `table`'s regions start now,
    /// else it has one region.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound) for `table`;
    /// [`Error::TableExists`](crate::Error::TableExists) for `new_table`; as
    /// [`Db::create_table`].
    pub fn clone_table_schema(
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

    /// Turns region splits on or off for the whole database (HBase `splitSwitch`, the shell's
    /// `splitormerge_switch 'SPLIT', on`); returns the previous state. While off, no region
    /// splits automatically and [`Table::split`] fails. Not stored: every open starts with
    /// splits on.
    pub fn set_split_enabled(&self, on: bool) -> bool {
        self.inner.set_split_enabled(on)
    }

    /// Whether regions may split ([`Db::set_split_enabled`]).
    pub fn is_split_enabled(&self) -> bool {
        self.inner.split_enabled()
    }

    /// Turns region merges on or off (HBase `mergeSwitch`); returns the previous state. While
    /// off, [`Table::merge`] fails. Not stored: every open starts with merges on.
    pub fn set_merge_enabled(&self, on: bool) -> bool {
        self.inner.set_merge_enabled(on)
    }

    /// Whether regions may merge ([`Db::set_merge_enabled`]).
    pub fn is_merge_enabled(&self) -> bool {
        self.inner.merge_enabled()
    }

    /// A handle to an existing table (`ns:t`, or `t` / `default:t` in the default namespace).
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn table(&self, name: &str) -> Result<Table> {
        self.inner.check_open()?;
        Ok(self.handle(self.inner.table_shared(name)?))
    }

    /// Every table name, sorted: tables of the default namespace without a prefix, others as
    /// `ns:t` (as HBase's `list` shows them).
    pub fn table_names(&self) -> Vec<String> {
        self.inner.table_names()
    }

    /// Creates a namespace with no properties (HBase `create_namespace`). It lasts until
    /// dropped, across reopens.
    ///
    /// # Examples
    ///
    /// ```
    /// use cellbase::{Db, FamilyDescriptor, TableDescriptor};
    /// let db = Db::temporary()?;
    /// db.create_namespace("ns")?;
    /// db.create_table(TableDescriptor::new("ns:t").family(FamilyDescriptor::new("f")))?;
    /// assert_eq!(db.list_namespaces(), ["default", "hbase", "ns"]);
    /// assert_eq!(db.list_namespace_tables("ns")?, ["t"]);
    /// assert_eq!(db.table_names(), ["ns:t"]);
    /// // A namespace holding tables cannot be dropped.
    /// assert!(db.drop_namespace("ns").is_err());
    /// db.drop_table("ns:t")?;
    /// db.drop_namespace("ns")?;
    /// # Ok::<(), cellbase::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a name that is not
    /// 1..=128 of `[a-zA-Z_0-9]`; [`Error::NamespaceExists`](crate::Error::NamespaceExists)
    /// (also for `default` and `hbase`).
    pub fn create_namespace(&self, name: &str) -> Result<()> {
        self.inner.create_namespace(NamespaceDescriptor::new(name))
    }

    /// Creates a namespace with properties (HBase `create_namespace 'ns', {'k' => 'v'}`).
    ///
    /// # Errors
    /// As [`Db::create_namespace`].
    pub fn create_namespace_with(&self, desc: NamespaceDescriptor) -> Result<()> {
        self.inner.create_namespace(desc)
    }

    /// Every namespace name, sorted, `default` and `hbase` included.
    pub fn list_namespaces(&self) -> Vec<String> {
        self.inner.namespace_names()
    }

    /// A namespace's descriptor (`default` and `hbase` have no properties).
    ///
    /// # Errors
    /// [`Error::NamespaceNotFound`](crate::Error::NamespaceNotFound).
    pub fn describe_namespace(&self, name: &str) -> Result<NamespaceDescriptor> {
        self.inner.namespace(name)
    }

    /// The tables of a namespace by their name inside it (`ns:t` is listed as `t`), sorted.
    ///
    /// # Errors
    /// [`Error::NamespaceNotFound`](crate::Error::NamespaceNotFound).
    pub fn list_namespace_tables(&self, name: &str) -> Result<Vec<String>> {
        self.inner.namespace_tables(name)
    }

    /// Sets (`Some`) or removes (`None`) a property of a namespace (HBase `alter_namespace`
    /// with `METHOD => 'set'` / `'unset'`).
    ///
    /// # Errors
    /// [`Error::NamespaceNotFound`](crate::Error::NamespaceNotFound);
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for `default` and `hbase`.
    pub fn alter_namespace(&self, name: &str, key: &str, value: Option<&str>) -> Result<()> {
        self.inner
            .alter_namespace(name, |d| d.set_property(key, value))
    }

    /// Drops an empty namespace (HBase `drop_namespace`).
    ///
    /// # Errors
    /// [`Error::NamespaceNotFound`](crate::Error::NamespaceNotFound);
    /// [`Error::NamespaceNotEmpty`](crate::Error::NamespaceNotEmpty) while it holds tables;
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for `default` and `hbase`
    /// ("Reserved namespace NS cannot be removed.").
    pub fn drop_namespace(&self, name: &str) -> Result<()> {
        self.inner.drop_namespace(name)
    }

    /// The table's schema as created or last altered.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn describe(&self, name: &str) -> Result<TableDescriptor> {
        Ok(self.inner.table_shared(name)?.desc())
    }

    /// Adds a family or changes an existing family's settings. New settings apply to later
    /// flushes, compactions and reads. A new family starts empty: the table is flushed and
    /// anything a deleted family of that name left behind is removed first
    /// ([`Db::delete_family`]).
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound); [`Error::InvalidArgument`](crate::Error::InvalidArgument) for bad settings; [`Error::Io`](crate::Error::Io)
    /// from that flush.
    pub fn alter_family(&self, table: &str, family: FamilyDescriptor) -> Result<()> {
        self.inner.alter_family(table, family)
    }

    /// Deletes a column family with its data (HBase `alter 't', 'delete' => 'f'`). The schema
    /// change is logged first, so the family's cells are unreadable from then on (reads only
    /// see described families) and writes to it fail; then every region is flushed (a flush
    /// writes only described families, so the family's memstore cells are dropped and its log
    /// records are covered) and the family's block files are removed from every region. A
    /// family added later under the same name starts empty.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound); [`Error::NoSuchFamily`](crate::Error::NoSuchFamily); [`Error::InvalidArgument`](crate::Error::InvalidArgument) when it
    /// is the table's only family; [`Error::Io`](crate::Error::Io) from the log, the flush or the file removal
    /// (the schema change stands once logged; a later flush or compaction finishes the rest).
    pub fn delete_family(&self, table: &str, family: &[u8]) -> Result<()> {
        self.inner.delete_family(table, family)
    }

    /// Sets (`Some`) or unsets (`None`, back to [`crate::DbOptions::max_region_size`]) the
    /// table's split threshold (HBase `MAX_FILESIZE`). Applies from the next split check.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound); [`Error::InvalidArgument`](crate::Error::InvalidArgument) for 0.
    pub fn set_table_max_region_size(&self, table: &str, bytes: Option<u64>) -> Result<()> {
        self.alter_table(table, |d| d.set_max_region_size(bytes))
    }

    /// Sets (`Some`) or unsets (`None`, back to [`crate::DbOptions::memstore_flush_size`]) the
    /// table's memstore flush size (HBase `MEMSTORE_FLUSHSIZE`). Applies from the next write.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound); [`Error::InvalidArgument`](crate::Error::InvalidArgument) for 0.
    pub fn set_table_memstore_flush_size(&self, table: &str, bytes: Option<u64>) -> Result<()> {
        self.alter_table(table, |d| d.set_memstore_flush_size(bytes))
    }

    /// Sets the table's split policy (HBase `alter 't', SPLIT_POLICY => ...`): applies from the
    /// next split check; regions already split stay as they are.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound);
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for invalid settings (a prefix
    /// length of 0, an empty delimiter).
    pub fn set_table_split_policy(&self, table: &str, policy: RegionSplitPolicy) -> Result<()> {
        policy.validate()?;
        self.alter_table(table, |d| d.set_split_policy(policy))
    }

    /// Sets the table's `COMPACTION_ENABLED` (HBase `alter 't', COMPACTION_ENABLED => false`):
    /// while false, no compaction of the table runs, automatic or asked for (as HBase, where a
    /// requested compaction of such a table does nothing); only the rewrite of the references
    /// a split or merge left still runs. Flushes and splits go on.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn set_table_compaction_enabled(&self, table: &str, yes: bool) -> Result<()> {
        self.alter_table(table, |d| d.set_compaction_enabled(yes))
    }

    /// Sets the table's `NORMALIZATION_ENABLED` (whether the region normalizer may split and
    /// merge its regions).
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn set_table_normalization_enabled(&self, table: &str, yes: bool) -> Result<()> {
        self.alter_table(table, |d| d.set_normalization_enabled(yes))
    }

    /// Sets (`Some`) or unsets (`None`: HBase's `USE_DEFAULT`, the database's) the durability
    /// of the table's writes that do not set their own (HBase `DURABILITY`). Applies from the
    /// next write.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn set_table_durability(&self, table: &str, durability: Option<Durability>) -> Result<()> {
        self.alter_table(table, |d| d.set_durability(durability))
    }

    /// Drops a table and deletes its files (enabled or not).
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn drop_table(&self, name: &str) -> Result<()> {
        self.inner.drop_table(name)
    }

    /// Disables a table: reads and writes then fail with [`Error::TableDisabled`](crate::Error::TableDisabled).
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn disable_table(&self, name: &str) -> Result<()> {
        self.inner.set_enabled(name, false)
    }

    /// Enables a disabled table.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn enable_table(&self, name: &str) -> Result<()> {
        self.inner.set_enabled(name, true)
    }

    /// True unless the table is disabled.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn is_table_enabled(&self, name: &str) -> Result<bool> {
        Ok(self.inner.table_shared(name)?.is_enabled())
    }

    /// Takes snapshot `name` of `table` (HBase's `snapshot`): the table's schema, regions and
    /// block files as of one moment. The memstores are flushed first with every region's
    /// writers held out at once, so the snapshot holds exactly the writes made before that
    /// moment; later writes are not in it. No data is copied (block files never change); the
    /// files stay while the table, a clone or a snapshot lists them, through compactions,
    /// splits, merges, a drop of the table and reopens.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a name HBase refuses;
    /// [`Error::SnapshotExists`](crate::Error::SnapshotExists);
    /// [`Error::TableNotFound`](crate::Error::TableNotFound); the flush's errors.
    ///
    /// # Examples
    /// ```
    /// # use cellbase::*;
    /// let db = Db::temporary()?;
    /// let t = db.create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))?;
    /// t.put(Put::new("r").add("f", "q", "v1"))?;
    /// db.snapshot("t", "before")?;
    /// t.put(Put::new("r").add("f", "q", "v2"))?;
    /// let copy = db.clone_snapshot("before", "t_before")?;
    /// assert_eq!(copy.get(Get::new("r"))?.value("f", "q"), Some(&b"v1"[..]));
    /// db.disable_table("t")?;
    /// db.restore_snapshot("before")?;
    /// db.enable_table("t")?;
    /// assert_eq!(db.table("t")?.get(Get::new("r"))?.value("f", "q"), Some(&b"v1"[..]));
    /// # Ok::<(), cellbase::Error>(())
    /// ```
    pub fn snapshot(&self, table: &str, name: &str) -> Result<()> {
        self.inner.snapshot(table, name)
    }

    /// Every snapshot, by name (HBase's `list_snapshots`).
    pub fn list_snapshots(&self) -> Vec<crate::engine::snapshot::SnapshotInfo> {
        self.inner.list_snapshots()
    }

    /// A new table `table` made from snapshot `name` (HBase's `clone_snapshot`): the
    /// snapshot's schema, regions and files; writes to the clone never show in the source
    /// table or the snapshot, and the other way round.
    ///
    /// # Errors
    /// [`Error::SnapshotNotFound`](crate::Error::SnapshotNotFound);
    /// [`Error::TableExists`](crate::Error::TableExists); a name the table rules refuse.
    pub fn clone_snapshot(&self, name: &str, table: &str) -> Result<Table> {
        let shared = self.inner.clone_snapshot(name, table)?;
        Ok(self.handle(shared))
    }

    /// Restores the snapshot's table to the snapshot (HBase's `restore_snapshot`): its schema,
    /// regions and cells as they were; writes made since are gone. The table must be disabled
    /// and stays disabled; a table dropped since is re-created (disabled). Handles of the
    /// table taken before the restore are stale: take a new one with [`Db::table`](crate::Db::table).
    ///
    /// # Errors
    /// [`Error::SnapshotNotFound`](crate::Error::SnapshotNotFound);
    /// [`Error::TableNotDisabled`](crate::Error::TableNotDisabled).
    pub fn restore_snapshot(&self, name: &str) -> Result<()> {
        self.inner.restore_snapshot(name)
    }

    /// Deletes snapshot `name` (HBase's `delete_snapshot`); block files no table or snapshot
    /// lists any more are deleted.
    ///
    /// # Errors
    /// [`Error::SnapshotNotFound`](crate::Error::SnapshotNotFound).
    pub fn delete_snapshot(&self, name: &str) -> Result<()> {
        self.inner.delete_snapshot(name)
    }
}
