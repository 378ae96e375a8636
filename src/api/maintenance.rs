//! Database maintenance on [`Db`] that HBase runs as chores: the compaction check (HBase's
//! `CompactionChecker`: minor and periodic major compactions) run on demand.

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
