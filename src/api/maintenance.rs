//! Database maintenance on [`Db`] that HBase runs as chores: the compaction check (HBase's
//! `CompactionChecker`: minor and periodic major compactions) and the region normalizer
//! (HBase's `SimpleRegionNormalizer`, its switch and the tables' normalizer targets), run on
//! demand.

use crate::api::db::Db;
use crate::base::error::Result;
use crate::engine::major_compaction::CheckMode;

impl Db {
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
        self.inner.compaction_check(CheckMode::Inline)
    }
}

impl Db {
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
        self.inner.normalize(None)
    }

    /// [`Db::normalize`] of the named tables only (HBase's `normalize TABLE_NAMES => [...]`);
    /// names that are not tables are passed over.
    ///
    /// # Errors
    /// As [`Db::normalize`].
    pub fn normalize_tables<S: AsRef<str>>(&self, tables: &[S]) -> Result<bool> {
        let names: Vec<String> = tables.iter().map(|t| t.as_ref().to_string()).collect();
        self.inner.normalize(Some(&names))
    }

    /// Turns the region normalizer on or off (HBase's `normalizer_switch`); returns the
    /// previous state. On at every open (HBase's default; not stored, as the split and merge
    /// switches).
    pub fn set_normalizer_enabled(&self, on: bool) -> bool {
        self.inner.set_normalizer_enabled(on)
    }

    /// Whether the region normalizer is on (HBase's `normalizer_enabled`).
    pub fn is_normalizer_enabled(&self) -> bool {
        self.inner.normalizer_enabled()
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
        self.alter_table(table, |d| d.set_normalizer_target_region_count(regions))
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
        self.alter_table(table, |d| d.set_normalizer_target_region_size_mb(mb))
    }
}
