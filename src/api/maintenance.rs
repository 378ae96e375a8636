//! Database maintenance on [`Db`] that HBase runs as chores: the compaction check (HBase's
//! `CompactionChecker`: minor and periodic major compactions) and the region normalizer
//! (HBase's `SimpleRegionNormalizer`, its switch and the tables' normalizer targets), run on
//! demand.

use crate::api::db::LocalDb;
use crate::base::error::Result;
use crate::engine::major_compaction::CheckMode;

impl LocalDb {
    pub(crate) fn run_compaction_check(&self) -> Result<usize> {
        self.inner.compaction_check(CheckMode::Inline)
    }
}

impl LocalDb {
    pub(crate) fn normalize(&self) -> Result<bool> {
        self.inner.normalize(None)
    }

    pub(crate) fn normalize_tables<S: AsRef<str>>(&self, tables: &[S]) -> Result<bool> {
        let names: Vec<String> = tables.iter().map(|t| t.as_ref().to_string()).collect();
        self.inner.normalize(Some(&names))
    }

    pub(crate) fn set_normalizer_enabled(&self, on: bool) -> bool {
        self.inner.set_normalizer_enabled(on)
    }

    pub(crate) fn is_normalizer_enabled(&self) -> bool {
        self.inner.normalizer_enabled()
    }

    pub(crate) fn set_table_normalizer_target_region_count(
        &self,
        table: &str,
        regions: Option<u32>,
    ) -> Result<()> {
        self.alter_table(table, |d| d.set_normalizer_target_region_count(regions))
    }

    pub(crate) fn set_table_normalizer_target_region_size_mb(
        &self,
        table: &str,
        mb: Option<u64>,
    ) -> Result<()> {
        self.alter_table(table, |d| d.set_normalizer_target_region_size_mb(mb))
    }
}
