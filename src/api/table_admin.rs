//! Region-level administration of a table (HBase's `Admin` calls that take a region or a
//! family): flushing one region, compacting one family or one region, truncating a region,
//! and the table's compaction state.

use crate::api::table::LocalTable;
use crate::base::error::{Error, Result};
use crate::engine::region::{COMPACTING_MAJOR, COMPACTING_MINOR, Region};
use crate::model::mutation::check_family;
use std::sync::Arc;

/// What compactions of a table run now (HBase's `CompactionState`, the shell's
/// `compaction_state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompactionState {
    /// No compaction runs.
    None,
    /// Only minor compactions run.
    Minor,
    /// Only major compactions run.
    Major,
    /// Major and minor compactions run (in different regions).
    MajorAndMinor,
}

impl CompactionState {
    /// HBase's name: `NONE`, `MINOR`, `MAJOR`, `MAJOR_AND_MINOR`.
    pub fn hbase_name(self) -> &'static str {
        match self {
            CompactionState::None => "NONE",
            CompactionState::Minor => "MINOR",
            CompactionState::Major => "MAJOR",
            CompactionState::MajorAndMinor => "MAJOR_AND_MINOR",
        }
    }
}

impl LocalTable {
    /// The region named `name` (as [`Table::regions`] names it).
    pub(crate) fn region_named(&self, name: &str) -> Result<Arc<Region>> {
        self.shared
            .region_list()
            .into_iter()
            .find(|r| crate::api::table::region_name(&self.shared.name, r) == name)
            .ok_or_else(|| {
                Error::invalid(format!(
                    "no region named {name} in table {}",
                    self.shared.name
                ))
            })
    }

    pub(crate) fn flush_region(&self, region: &str) -> Result<()> {
        self.check()?;
        let r = self.region_named(region)?;
        self.db.flush_region(&self.shared, &r)
    }

    pub(crate) fn compact_family(&self, family: &[u8], major: bool) -> Result<()> {
        let desc = self.check()?;
        check_family(&desc, family)?;
        for r in self.shared.region_list() {
            self.db
                .compact_stores(&self.shared, &r, major, Some(family))?;
        }
        Ok(())
    }

    pub(crate) fn compact_region(
        &self,
        region: &str,
        family: Option<&[u8]>,
        major: bool,
    ) -> Result<()> {
        let desc = self.check()?;
        if let Some(f) = family {
            check_family(&desc, f)?;
        }
        let r = self.region_named(region)?;
        self.db.compact_stores(&self.shared, &r, major, family)
    }

    pub(crate) fn truncate_region(&self, region: &str) -> Result<()> {
        self.check()?;
        let r = self.region_named(region)?;
        self.db.truncate_region(&self.shared, &r)
    }

    pub(crate) fn compaction_state(&self) -> CompactionState {
        let running = self
            .shared
            .region_list()
            .iter()
            .fold(0, |acc, r| acc | r.compaction_running());
        match (
            running & COMPACTING_MAJOR != 0,
            running & COMPACTING_MINOR != 0,
        ) {
            (false, false) => CompactionState::None,
            (false, true) => CompactionState::Minor,
            (true, false) => CompactionState::Major,
            (true, true) => CompactionState::MajorAndMinor,
        }
    }
}
