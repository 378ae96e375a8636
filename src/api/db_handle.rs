//! `Db` calls that reach the embedded engine (`LocalDb`) or an HBase Thrift2 server
//! (`RemoteDb`, remote/); a call the remote side cannot express fails with
//! [`Error::Unsupported`] naming it (docs/REMOTE.md). Opening and closing are in db.rs.

use crate::api::db::{BackgroundErrors, CheckpointInfo, Db, DbImp, Metrics, Traffic};
use crate::api::table_handle::Table;
#[cfg(doc)]
use crate::base::error::Error;
use crate::base::error::Result;
use crate::engine::options::Durability;
use crate::engine::recovery::RecoveryReport;
use crate::model::namespace::NamespaceDescriptor;
use crate::model::region_split_policy::RegionSplitPolicy;
use crate::model::schema::{FamilyDescriptor, TableDescriptor};
use std::path::Path;

/// Both backends serve the call.
macro_rules! both {
    ($self:ident, $m:ident($($a:expr),*)) => {
        match &$self.imp {
            DbImp::Local(x) => x.$m($($a),*),
            DbImp::Remote(x) => x.$m($($a),*),
        }
    };
}

/// Only the embedded engine serves the call: Thrift2 has no such call.
macro_rules! local_only {
    ($self:ident, $m:ident($($a:expr),*)) => {
        match &$self.imp {
            DbImp::Local(x) => x.$m($($a),*),
            DbImp::Remote(x) => Err(x.unsupported(concat!("Db::", stringify!($m)))),
        }
    };
}

impl Db {
    /// The directory of this database.
    pub fn path(&self) -> &Path {
        both!(self, path())
    }

    /// What this database's open found and did beyond the ordinary: log segments dropped
    /// under [`WalRecovery::SkipMissingSegments`](crate::WalRecovery::SkipMissingSegments), a torn manifest or log tail cut off, files
    /// deleted as obsolete or as leftovers of unfinished flushes and compactions, and files
    /// kept because the engine cannot account for them.
    ///
    /// # Examples
    /// ```
    /// let db = cellbase::Db::temporary()?;
    /// assert!(db.recovery_report().missing_wal_segments.is_empty());
    /// # Ok::<(), cellbase::Error>(())
    /// ```
    pub fn recovery_report(&self) -> &RecoveryReport {
        both!(self, recovery_report())
    }

    /// Writes a consistent copy of the whole database into the new directory `dir`, which
    /// then opens as a database (RocksDB's Checkpoint), while other threads keep writing: the
    /// copy holds the database as it was at one moment between the call and its return.
    /// Block files are hard-linked (copied where the filesystem cannot link), so the cost is
    /// O(files) plus the write-ahead log written since the flush the checkpoint starts with.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) when `dir` exists (nothing is
    /// touched) or when `DIR.tmp` exists (left by a failed checkpoint); the flush's or the
    /// filesystem's errors (the partial copy is left in `DIR.tmp`, named in the error).
    ///
    /// # Examples
    /// ```
    /// # use cellbase::*;
    /// let db = Db::temporary()?;
    /// let t = db.create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))?;
    /// t.put(Put::new("r").add("f", "q", "v"))?;
    /// let dir = tempfile::tempdir()?;
    /// let copy = dir.path().join("backup");
    /// db.checkpoint(&copy)?;
    /// let restored = Db::open(&copy)?;
    /// assert!(!restored.table("t")?.get(Get::new("r"))?.is_empty());
    /// # Ok::<(), cellbase::Error>(())
    /// ```
    pub fn checkpoint(&self, dir: impl AsRef<Path>) -> Result<CheckpointInfo> {
        local_only!(self, checkpoint(dir))
    }

    /// The engine's counters, gauges and latencies now (docs/OPERATIONS.md lists each).
    pub fn metrics(&self) -> Metrics {
        both!(self, metrics())
    }

    /// Failures of background work since open: failed flushes, compactions, splits and log
    /// write-outs, counted per kind, each kind with its last error and when it happened (by
    /// the database's clock). Every such failure is also logged (`warn!`, target
    /// `cellbase::background`); a failed flush is retried (docs/OPERATIONS.md).
    ///
    /// # Examples
    /// ```
    /// let db = cellbase::Db::temporary()?;
    /// let errors = db.background_errors();
    /// assert_eq!(errors.total(), 0);
    /// assert!(errors.flushes.last.is_none());
    /// # Ok::<(), cellbase::Error>(())
    /// ```
    pub fn background_errors(&self) -> BackgroundErrors {
        both!(self, background_errors())
    }

    /// The traffic recorded since open (per region, per interval: read and write requests),
    /// when [`DbOptions::traffic_recording`](crate::DbOptions::traffic_recording) turned recording on; `None` otherwise.
    pub fn traffic(&self) -> Option<Traffic> {
        both!(self, traffic())
    }

    /// Writes the recorded traffic to the database directory's `TRAFFIC` file now (a clean
    /// close writes it too), for `cellbase lab keyviz --db DIR` and
    /// [`crate::inspect::read_traffic`]; `false` when recording is off (nothing written).
    ///
    /// # Errors
    /// [`Error::Closed`](crate::Error::Closed) after close; [`Error::Io`](crate::Error::Io).
    pub fn save_traffic(&self) -> Result<bool> {
        local_only!(self, save_traffic())
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
        both!(self, create_table(desc))
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
        local_only!(self, clone_table_schema(table, new_table, preserve_splits))
    }

    /// Turns region splits on or off for the whole database (HBase `splitSwitch`, the shell's
    /// `splitormerge_switch 'SPLIT', on`); returns the previous state. While off, no region
    /// splits automatically and [`Table::split`] fails. Not stored: every open starts with
    /// splits on.
    pub fn set_split_enabled(&self, on: bool) -> bool {
        both!(self, set_split_enabled(on))
    }

    /// Whether regions may split ([`Db::set_split_enabled`]).
    pub fn is_split_enabled(&self) -> bool {
        both!(self, is_split_enabled())
    }

    /// Turns region merges on or off (HBase `mergeSwitch`); returns the previous state. While
    /// off, [`Table::merge`] fails. Not stored: every open starts with merges on.
    pub fn set_merge_enabled(&self, on: bool) -> bool {
        both!(self, set_merge_enabled(on))
    }

    /// Whether regions may merge ([`Db::set_merge_enabled`]).
    pub fn is_merge_enabled(&self) -> bool {
        both!(self, is_merge_enabled())
    }

    /// A handle to an existing table (`ns:t`, or `t` / `default:t` in the default namespace).
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn table(&self, name: &str) -> Result<Table> {
        both!(self, table(name))
    }

    /// Every table name, sorted: tables of the default namespace without a prefix, others as
    /// `ns:t` (as HBase's `list` shows them).
    pub fn table_names(&self) -> Vec<String> {
        both!(self, table_names())
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
        both!(self, create_namespace(name))
    }

    /// Creates a namespace with properties (HBase `create_namespace 'ns', {'k' => 'v'}`).
    ///
    /// # Errors
    /// As [`Db::create_namespace`].
    pub fn create_namespace_with(&self, desc: NamespaceDescriptor) -> Result<()> {
        both!(self, create_namespace_with(desc))
    }

    /// Every namespace name, sorted, `default` and `hbase` included.
    pub fn list_namespaces(&self) -> Vec<String> {
        both!(self, list_namespaces())
    }

    /// A namespace's descriptor (`default` and `hbase` have no properties).
    ///
    /// # Errors
    /// [`Error::NamespaceNotFound`](crate::Error::NamespaceNotFound).
    pub fn describe_namespace(&self, name: &str) -> Result<NamespaceDescriptor> {
        both!(self, describe_namespace(name))
    }

    /// The tables of a namespace by their name inside it (`ns:t` is listed as `t`), sorted.
    ///
    /// # Errors
    /// [`Error::NamespaceNotFound`](crate::Error::NamespaceNotFound).
    pub fn list_namespace_tables(&self, name: &str) -> Result<Vec<String>> {
        both!(self, list_namespace_tables(name))
    }

    /// Sets (`Some`) or removes (`None`) a property of a namespace (HBase `alter_namespace`
    /// with `METHOD => 'set'` / `'unset'`).
    ///
    /// # Errors
    /// [`Error::NamespaceNotFound`](crate::Error::NamespaceNotFound);
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for `default` and `hbase`.
    pub fn alter_namespace(&self, name: &str, key: &str, value: Option<&str>) -> Result<()> {
        both!(self, alter_namespace(name, key, value))
    }

    /// Drops an empty namespace (HBase `drop_namespace`).
    ///
    /// # Errors
    /// [`Error::NamespaceNotFound`](crate::Error::NamespaceNotFound);
    /// [`Error::NamespaceNotEmpty`](crate::Error::NamespaceNotEmpty) while it holds tables;
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for `default` and `hbase`
    /// ("Reserved namespace NS cannot be removed.").
    pub fn drop_namespace(&self, name: &str) -> Result<()> {
        both!(self, drop_namespace(name))
    }

    /// The table's schema as created or last altered.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn describe(&self, name: &str) -> Result<TableDescriptor> {
        both!(self, describe(name))
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
        both!(self, alter_family(table, family))
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
        both!(self, delete_family(table, family))
    }

    /// Sets (`Some`) or unsets (`None`, back to [`crate::DbOptions::max_region_size`]) the
    /// table's split threshold (HBase `MAX_FILESIZE`). Applies from the next split check.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound); [`Error::InvalidArgument`](crate::Error::InvalidArgument) for 0.
    pub fn set_table_max_region_size(&self, table: &str, bytes: Option<u64>) -> Result<()> {
        local_only!(self, set_table_max_region_size(table, bytes))
    }

    /// Sets (`Some`) or unsets (`None`, back to [`crate::DbOptions::memstore_flush_size`]) the
    /// table's memstore flush size (HBase `MEMSTORE_FLUSHSIZE`). Applies from the next write.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound); [`Error::InvalidArgument`](crate::Error::InvalidArgument) for 0.
    pub fn set_table_memstore_flush_size(&self, table: &str, bytes: Option<u64>) -> Result<()> {
        local_only!(self, set_table_memstore_flush_size(table, bytes))
    }

    /// Sets the table's split policy (HBase `alter 't', SPLIT_POLICY => ...`): applies from the
    /// next split check; regions already split stay as they are.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound);
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for invalid settings (a prefix
    /// length of 0, an empty delimiter).
    pub fn set_table_split_policy(&self, table: &str, policy: RegionSplitPolicy) -> Result<()> {
        local_only!(self, set_table_split_policy(table, policy))
    }

    /// Sets the table's `COMPACTION_ENABLED` (HBase `alter 't', COMPACTION_ENABLED => false`):
    /// while false, no compaction of the table runs, automatic or asked for (as HBase, where a
    /// requested compaction of such a table does nothing); only the rewrite of the references
    /// a split or merge left still runs. Flushes and splits go on.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn set_table_compaction_enabled(&self, table: &str, yes: bool) -> Result<()> {
        local_only!(self, set_table_compaction_enabled(table, yes))
    }

    /// Sets the table's `NORMALIZATION_ENABLED` (whether the region normalizer may split and
    /// merge its regions).
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn set_table_normalization_enabled(&self, table: &str, yes: bool) -> Result<()> {
        local_only!(self, set_table_normalization_enabled(table, yes))
    }

    /// Sets (`Some`) or unsets (`None`: HBase's `USE_DEFAULT`, the database's) the durability
    /// of the table's writes that do not set their own (HBase `DURABILITY`). Applies from the
    /// next write.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn set_table_durability(&self, table: &str, durability: Option<Durability>) -> Result<()> {
        local_only!(self, set_table_durability(table, durability))
    }

    /// Drops a table and deletes its files (enabled or not).
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn drop_table(&self, name: &str) -> Result<()> {
        both!(self, drop_table(name))
    }

    /// Disables a table: reads and writes then fail with [`Error::TableDisabled`](crate::Error::TableDisabled).
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn disable_table(&self, name: &str) -> Result<()> {
        both!(self, disable_table(name))
    }

    /// Enables a disabled table.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn enable_table(&self, name: &str) -> Result<()> {
        both!(self, enable_table(name))
    }

    /// True unless the table is disabled.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound).
    pub fn is_table_enabled(&self, name: &str) -> Result<bool> {
        both!(self, is_table_enabled(name))
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
        local_only!(self, snapshot(table, name))
    }

    /// Every snapshot, by name (HBase's `list_snapshots`).
    pub fn list_snapshots(&self) -> Vec<crate::engine::snapshot::SnapshotInfo> {
        both!(self, list_snapshots())
    }

    /// A new table `table` made from snapshot `name` (HBase's `clone_snapshot`): the
    /// snapshot's schema, regions and files; writes to the clone never show in the source
    /// table or the snapshot, and the other way round.
    ///
    /// # Errors
    /// [`Error::SnapshotNotFound`](crate::Error::SnapshotNotFound);
    /// [`Error::TableExists`](crate::Error::TableExists); a name the table rules refuse.
    pub fn clone_snapshot(&self, name: &str, table: &str) -> Result<Table> {
        local_only!(self, clone_snapshot(name, table))
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
        local_only!(self, restore_snapshot(name))
    }

    /// Deletes snapshot `name` (HBase's `delete_snapshot`); block files no table or snapshot
    /// lists any more are deleted.
    ///
    /// # Errors
    /// [`Error::SnapshotNotFound`](crate::Error::SnapshotNotFound).
    pub fn delete_snapshot(&self, name: &str) -> Result<()> {
        local_only!(self, delete_snapshot(name))
    }

    /// Runs the compaction check once, in the calling thread: every region of every enabled
    /// table (with compactions on) whose stores need a compaction is compacted now: a store
    /// with enough files for a minor compaction, a store whose periodic major compaction is
    /// due ([`crate::DbOptions::major_compaction_period`], a family's
    /// `hbase.hregion.majorcompaction`), or one still holding a split's references. Returns
    /// the number of regions compacted. The background checker thread
    /// ([`crate::DbOptions::compaction_check_interval`]) runs the same check and queues the
    /// compactions instead; with `background_threads(0)` this call is how they happen, at
    /// moments the caller chooses.
    ///
    /// # Errors
    /// [`Error::Closed`](crate::Error::Closed); [`Error::Io`](crate::Error::Io) /
    /// [`Error::Corruption`](crate::Error::Corruption) from a compaction.
    pub fn run_compaction_check(&self) -> Result<usize> {
        local_only!(self, run_compaction_check())
    }

    /// HBase's `normalize`: when the normalizer switch is on ([`Db::set_normalizer_enabled`]),
    /// every enabled table with `NORMALIZATION_ENABLED` ([`crate::TableDescriptor::normalization_enabled`],
    /// [`Db::set_table_normalization_enabled`]) is normalized now, in the calling thread:
    /// regions larger than twice the table's average region size are split at their split
    /// points and runs of adjacent small regions are merged, as HBase's
    /// `SimpleRegionNormalizer` plans it (the average from the table's
    /// `NORMALIZER_TARGET_REGION_SIZE_MB` or `NORMALIZER_TARGET_REGION_COUNT` when set; the
    /// settings are [`crate::DbOptions::normalizer`]; docs/SEMANTICS.md). Returns whether the
    /// normalizer ran: false, doing nothing, while the switch is off. There is no periodic
    /// run (HBase's `hbase.normalizer.period` chore): call this when wanted.
    ///
    /// # Errors
    /// [`Error::Closed`](crate::Error::Closed); I/O errors from the splits, merges and the
    /// compactions of references before them (plans after a failed one do not run).
    pub fn normalize(&self) -> Result<bool> {
        local_only!(self, normalize())
    }

    /// [`Db::normalize`] of the named tables only (HBase's `normalize TABLE_NAMES => [...]`);
    /// names that are not tables are passed over.
    ///
    /// # Errors
    /// As [`Db::normalize`].
    pub fn normalize_tables<S: AsRef<str>>(&self, tables: &[S]) -> Result<bool> {
        local_only!(self, normalize_tables(tables))
    }

    /// Turns the region normalizer on or off (HBase's `normalizer_switch`); returns the
    /// previous state. On at every open (HBase's default; not stored, as the split and merge
    /// switches).
    pub fn set_normalizer_enabled(&self, on: bool) -> bool {
        both!(self, set_normalizer_enabled(on))
    }

    /// Whether the region normalizer is on (HBase's `normalizer_enabled`).
    pub fn is_normalizer_enabled(&self) -> bool {
        both!(self, is_normalizer_enabled())
    }

    /// Sets (`Some`) or unsets the table's `NORMALIZER_TARGET_REGION_COUNT`.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound);
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for 0.
    pub fn set_table_normalizer_target_region_count(
        &self,
        table: &str,
        regions: Option<u32>,
    ) -> Result<()> {
        local_only!(
            self,
            set_table_normalizer_target_region_count(table, regions)
        )
    }

    /// Sets (`Some`) or unsets the table's `NORMALIZER_TARGET_REGION_SIZE_MB`.
    ///
    /// # Errors
    /// [`Error::TableNotFound`](crate::Error::TableNotFound);
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for 0.
    pub fn set_table_normalizer_target_region_size_mb(
        &self,
        table: &str,
        mb: Option<u64>,
    ) -> Result<()> {
        local_only!(self, set_table_normalizer_target_region_size_mb(table, mb))
    }
}
