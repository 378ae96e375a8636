//! `Table`: the handle a program holds on one table, embedded or remote. Each call goes to
//! the embedded engine (`LocalTable`, table.rs and its siblings) or to an HBase Thrift2 server
//! (`RemoteTable`, remote/); a call the remote side cannot express fails with
//! [`Error::Unsupported`] naming it (docs/REMOTE.md).

use crate::api::ops::{Append, CheckAndMutate, Delete, Get, Increment, Mutation, Put, Scan};
use crate::api::remote::RemoteTable;
use crate::api::scanner::Scanner;
use crate::api::table::{LocalTable, RegionInfo};
use crate::api::table_admin::CompactionState;
#[cfg(doc)]
use crate::base::error::Error;
use crate::base::error::Result;
use crate::model::cell::RowResult;

/// A handle to one table. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Table {
    pub(crate) imp: TableImp,
}

/// Where a table's calls go.
#[derive(Clone, Debug)]
pub(crate) enum TableImp {
    /// The embedded engine.
    Local(LocalTable),
    /// An HBase Thrift2 server ([`crate::Db::connect`]).
    Remote(RemoteTable),
}

/// Both backends serve the call.
macro_rules! both {
    ($self:ident, $m:ident($($a:expr),*)) => {
        match &$self.imp {
            TableImp::Local(x) => x.$m($($a),*),
            TableImp::Remote(x) => x.$m($($a),*),
        }
    };
}

/// Only the embedded engine serves the call: Thrift2 has no such call.
macro_rules! local_only {
    ($self:ident, $m:ident($($a:expr),*)) => {
        match &$self.imp {
            TableImp::Local(x) => x.$m($($a),*),
            TableImp::Remote(x) => Err(x.unsupported(concat!("Table::", stringify!($m)))),
        }
    };
}

impl Table {
    /// The table name.
    #[inline]
    pub fn name(&self) -> &str {
        both!(self, name())
    }

    /// Reads one row; an empty [`RowResult`] when nothing matches [GET-2].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a bad row, zero versions or a bad time range;
    /// [`Error::NoSuchFamily`] [GET-1]; [`Error::Corruption`] when a file is damaged.
    #[inline]
    pub fn get(&self, g: Get) -> Result<RowResult> {
        both!(self, get(g))
    }

    /// True when the Get would return at least one cell.
    ///
    /// # Errors
    /// As [`Table::get`].
    #[inline]
    pub fn exists(&self, g: Get) -> Result<bool> {
        both!(self, exists(g))
    }

    /// Opens a lazy scanner. Bad requests fail here, not on the first `next()`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for zero versions, a bad time range, oversized start/stop
    /// rows, or a raw scan naming columns [SCAN-RAW-1]; [`Error::NoSuchFamily`].
    #[inline]
    pub fn scan(&self, s: Scan) -> Result<Scanner> {
        both!(self, scan(s))
    }

    /// `s`'s row range under every salt prefix of `buckets` ([`crate::model::rowkey::salt`]), scanned
    /// in parallel (one thread per bucket) and merged in order of the unsalted key; rows keep
    /// their salted keys. `limit` applies to the merged rows. The seeds' salted-scan fan-out.
    ///
    /// # Errors
    /// As [`Table::scan`].
    #[inline]
    pub fn scan_salted(&self, s: Scan, buckets: u16) -> Result<Scanner> {
        local_only!(self, scan_salted(s, buckets))
    }

    /// Flushes every region's memstore to block files.
    ///
    /// # Errors
    /// [`Error::Io`] / [`Error::Corruption`] from writing or reading files.
    #[inline]
    pub fn flush(&self) -> Result<()> {
        local_only!(self, flush())
    }

    /// Minor compaction of each store by its family's policy (files only): the exploring
    /// policy, date-tiered windows, or FIFO's removal of expired files. A store whose periodic
    /// major compaction is due ([`crate::DbOptions::major_compaction_period`]) is
    /// major-compacted instead, as HBase's compaction selection does.
    ///
    /// # Errors
    /// As [`Table::flush`].
    #[inline]
    pub fn compact(&self) -> Result<()> {
        local_only!(self, compact())
    }

    /// Major compaction: every store's files into one (one per time window for a
    /// date-tiered family), purging what HBase purges [CMP-5] [CMP-6]. The memstore is not
    /// included: flush first for that.
    ///
    /// # Errors
    /// As [`Table::flush`].
    #[inline]
    pub fn major_compact(&self) -> Result<()> {
        local_only!(self, major_compact())
    }

    /// Splits the region holding `at` at `at`, or (with `None`) every region at its split point
    /// [SPLIT-2]; regions without one are left alone. Each region is flushed first (by the
    /// split itself), and a
    /// region still holding references from an earlier split or merge is major-compacted first
    /// (HBase refuses to split it until a compaction has run).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `at` equals its region's start key (or is not a valid
    /// row); I/O errors from the flushes and compactions.
    #[inline]
    pub fn split(&self, at: Option<&[u8]>) -> Result<()> {
        local_only!(self, split(at))
    }

    /// Runs the automatic split check now, in the calling thread: every region that the split
    /// policy finds too big [SPLIT-1] is split at its split point [SPLIT-2] and its daughters'
    /// references are compacted away, as a background thread does after a flush. Returns the
    /// rows split at, in key order. For runs without background threads
    /// (`DbOptions::background_threads(0)`), where splits otherwise never happen by themselves:
    /// calling it at chosen points makes split timing reproducible.
    ///
    /// # Errors
    /// As [`Table::flush`].
    #[inline]
    pub fn run_split_check(&self) -> Result<Vec<Vec<u8>>> {
        local_only!(self, run_split_check())
    }

    /// Merges two adjacent regions, named as [`Table::regions`] names them [MERGE-1].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for unknown names, the same region twice, or regions that are
    /// not adjacent.
    #[inline]
    pub fn merge(&self, region_a: &str, region_b: &str) -> Result<()> {
        local_only!(self, merge(region_a, region_b))
    }

    /// Every region in key order with its metrics.
    #[inline]
    pub fn regions(&self) -> Vec<RegionInfo> {
        both!(self, regions())
    }

    /// Writes the cells of one row atomically [ATOM-1].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty or oversized row, no cells, a negative
    /// timestamp or an oversized cell; [`Error::NoSuchFamily`]; [`Error::TableDisabled`];
    /// [`Error::Poisoned`] or [`Error::Io`] when the log write fails.
    #[inline]
    pub fn put(&self, p: Put) -> Result<()> {
        both!(self, put(p))
    }

    /// Bulk load (HBase's bulk load of HFiles): the puts' cells, in any row order, are sorted
    /// (spilling to temporary files past [`BULK_LOAD_MEMORY`](crate::BULK_LOAD_MEMORY) bytes),
    /// written as block files per region and family, and made visible all at once: when it
    /// returns every cell is readable; if it fails or the process dies, none is (after a
    /// reopen too). The cells bypass the write-ahead log and the memstore. Every loaded cell
    /// gets one sequence id taken when the load starts (docs/SEMANTICS.md, "Bulk load", says
    /// how that orders against concurrent puts); cells without a timestamp take the
    /// database's clock. Returns the number of cells loaded (the last of several with the same
    /// row, column and timestamp counts once).
    ///
    /// # Errors
    /// As [`Table::put`] for an invalid put (nothing is loaded); [`Error::Io`] for the
    /// temporary files or the block files (nothing is loaded).
    ///
    /// # Examples
    /// ```
    /// # use cellbase::*;
    /// let db = Db::temporary()?;
    /// let t = db.create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))?;
    /// let n = t.bulk_load((0..1000).rev().map(|i| Put::new(format!("r{i:04}")).add("f", "q", "v")))?;
    /// assert_eq!(n, 1000);
    /// assert_eq!(t.scan(Scan::new())?.count(), 1000);
    /// # Ok::<(), cellbase::Error>(())
    /// ```
    #[inline]
    pub fn bulk_load(&self, puts: impl IntoIterator<Item = Put>) -> Result<u64> {
        local_only!(self, bulk_load(puts))
    }

    /// [`Table::bulk_load`] with its sort's memory budget in bytes.
    ///
    /// # Errors
    /// As [`Table::bulk_load`].
    #[inline]
    pub fn bulk_load_with_memory(
        &self,
        puts: impl IntoIterator<Item = Put>,
        budget: usize,
    ) -> Result<u64> {
        local_only!(self, bulk_load_with_memory(puts, budget))
    }

    /// A [`BulkLoader`](crate::BulkLoader): [`Table::bulk_load`] fed one put at a time (an
    /// importer that parses its input row by row need not hold the puts).
    ///
    /// # Errors
    /// As [`Table::put`] for a closed database or a disabled table.
    #[inline]
    pub fn bulk_loader(&self) -> Result<crate::api::table::BulkLoader> {
        local_only!(self, bulk_loader())
    }

    /// [`Table::bulk_loader`] with its sort's memory budget in bytes.
    ///
    /// # Errors
    /// As [`Table::bulk_loader`].
    #[inline]
    pub fn bulk_loader_with_memory(&self, budget: usize) -> Result<crate::api::table::BulkLoader> {
        local_only!(self, bulk_loader_with_memory(budget))
    }

    /// Applies several puts in order, each atomic on its row (not atomic as a batch).
    ///
    /// # Errors
    /// As [`Table::put`]; puts before the failing one stay applied.
    #[inline]
    pub fn put_all(&self, ps: impl IntoIterator<Item = Put>) -> Result<()> {
        both!(self, put_all(ps))
    }

    /// Writes delete markers to one row [DEL-1..7].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a bad row, a negative timestamp or `up_to` combined with
    /// a family or column; [`Error::NoSuchFamily`] [DEL-8]; as [`Table::put`] for the log.
    #[inline]
    pub fn delete(&self, d: Delete) -> Result<()> {
        both!(self, delete(d))
    }

    /// Applies puts and deletes to one row atomically, in order: all or nothing [RM-1]. The
    /// batch uses the strongest durability any of its mutations asks for.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when a mutation names another row or is invalid;
    /// [`Error::NoSuchFamily`] when any names an unknown family (nothing is written).
    #[inline]
    pub fn mutate_row(&self, row: impl AsRef<[u8]>, ms: Vec<Mutation>) -> Result<()> {
        both!(self, mutate_row(row, ms))
    }

    /// Applies the actions when every condition holds on the row's latest visible values,
    /// atomically under the row lock [CAM-1]. Conditions read `expected OP stored` [CAM-2];
    /// empty expected values follow [CAM-3]; puts without a timestamp get
    /// `max(now, newest checked timestamp)` [CAM-4]. Returns whether the actions were applied.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] with no condition or no action, or an action on another row
    /// [CAM-5]; [`Error::NoSuchFamily`] for an unknown family in a condition or action.
    #[inline]
    pub fn check_and_mutate(&self, c: CheckAndMutate) -> Result<bool> {
        both!(self, check_and_mutate(c))
    }

    /// Adds each delta to its counter (8-byte big-endian i64; a missing cell counts as 0) and
    /// returns the new values [INC-1..5]. Overflow wraps, as Java's long addition.
    ///
    /// # Errors
    /// [`Error::NotACounter`] when a current value is not 8 bytes wide (nothing is written);
    /// [`Error::NoSuchFamily`]; [`Error::InvalidArgument`] for a bad row or no columns.
    #[inline]
    pub fn increment(&self, i: Increment) -> Result<RowResult> {
        both!(self, increment(i))
    }

    /// Appends each suffix to its cell's latest value (a missing cell counts as empty) and
    /// returns the new values [APP-1].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when a result exceeds `max_cell_size` [LIM-5], for a bad row
    /// or no columns; [`Error::NoSuchFamily`].
    #[inline]
    pub fn append(&self, a: Append) -> Result<RowResult> {
        both!(self, append(a))
    }

    /// Reads many rows at once (HBase's `Table.get(List<Get>)`): one result per Get, in
    /// request order, an empty [`RowResult`] for a row with nothing to return; the same row
    /// may be asked for more than once. Every Get sees the same snapshot (one read point for
    /// the whole batch), and the rows of each region are read together in key order, which
    /// is faster than a [`Table::get`] per row (docs/PERFORMANCE.md).
    ///
    /// # Examples
    ///
    /// ```
    /// use cellbase::{Db, FamilyDescriptor, Get, Put, TableDescriptor};
    /// let db = Db::temporary()?;
    /// let t = db.create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))?;
    /// t.put(Put::new("a").add("f", "q", "1"))?;
    /// t.put(Put::new("c").add("f", "q", "3"))?;
    /// let rows = t.get_many(vec![Get::new("c"), Get::new("b"), Get::new("a")])?;
    /// assert_eq!(rows[0].value("f", "q"), Some(&b"3"[..]));
    /// assert!(rows[1].is_empty());
    /// assert_eq!(rows[2].value("f", "q"), Some(&b"1"[..]));
    /// # Ok::<(), cellbase::Error>(())
    /// ```
    ///
    /// In the metrics each Get of the batch counts as one Get operation, timed at the
    /// batch's mean time per Get.
    ///
    /// # Errors
    /// As [`Table::get`], for the first bad Get (nothing is read then).
    #[inline]
    pub fn get_many(&self, gets: Vec<Get>) -> Result<Vec<RowResult>> {
        both!(self, get_many(gets))
    }

    /// Flushes one region's memstore (HBase `Admin.flushRegion`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an unknown region name; as [`Table::flush`].
    #[inline]
    pub fn flush_region(&self, region: &str) -> Result<()> {
        local_only!(self, flush_region(region))
    }

    /// Compacts one family's store in every region (`major`: every file; else by the
    /// family's policy), as HBase's `Admin.compact(table, family)` /
    /// `majorCompact(table, family)`.
    ///
    /// # Errors
    /// [`Error::NoSuchFamily`]; as [`Table::compact`].
    #[inline]
    pub fn compact_family(&self, family: &[u8], major: bool) -> Result<()> {
        local_only!(self, compact_family(family, major))
    }

    /// Compacts one region, every store or one family's (HBase `Admin.compactRegion` /
    /// `majorCompactRegion`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an unknown region name; [`Error::NoSuchFamily`]; as
    /// [`Table::compact`].
    #[inline]
    pub fn compact_region(&self, region: &str, family: Option<&[u8]>, major: bool) -> Result<()> {
        local_only!(self, compact_region(region, family, major))
    }

    /// Empties one region and keeps its key range (HBase 2.6's `truncate_region`): its
    /// memstore is flushed and every file removed (files shared with another region stay
    /// while that region lists them). Writes made while it runs may stay.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an unknown region name; I/O errors.
    #[inline]
    pub fn truncate_region(&self, region: &str) -> Result<()> {
        local_only!(self, truncate_region(region))
    }

    /// What compactions of the table run now (HBase's `Admin.getCompactionState`).
    #[inline]
    pub fn compaction_state(&self) -> CompactionState {
        both!(self, compaction_state())
    }
}
