//! `Table`: the user-facing handle for writes and reads of one table, and its `Scanner`.

use crate::api::ops::{Columns, Get, RowResult, Scan};
pub use crate::api::scanner::{ScanMetrics, Scanner};
use crate::base::error::{Error, Result};
use crate::engine::Engine;
use crate::engine::region::Region;
use crate::engine::table::TableShared;
use crate::model::mutation::{check_family, check_row};
use crate::model::schema::TableDescriptor;
use crate::read::matcher::{ColumnSelection, PerFamily, ReadSpec};
use crate::read::query::Query;
use crate::read::row::ReaderParts;
use std::sync::Arc;

/// Per-region statistics, as HBase's region server reports them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionInfo {
    /// Unique name, HBase style: `table,startKey,id`.
    pub name: String,
    /// Start key, inclusive (empty = unbounded).
    pub start_key: Vec<u8>,
    /// End key, exclusive (empty = unbounded).
    pub end_key: Vec<u8>,
    /// Bytes in the region's memstores.
    pub memstore_bytes: u64,
    /// Number of block files.
    pub store_files: u32,
    /// Bytes in block files.
    pub store_file_bytes: u64,
    /// One per Get, one per row a scan returns.
    pub read_requests: u64,
    /// One per row mutation.
    pub write_requests: u64,
}

/// An embedded table: the engine's side of [`Table`].
#[derive(Clone, Debug)]
pub(crate) struct LocalTable {
    pub(crate) db: Arc<Engine>,
    /// Keeps the database open; the last user handle's drop closes it.
    pub(crate) _open: Arc<crate::api::db::OpenHandles>,
    pub(crate) shared: Arc<TableShared>,
}

fn check_time_range((min, max): (i64, i64)) -> Result<()> {
    if min < 0 || max < 0 {
        return Err(Error::invalid(format!(
            "time range bounds cannot be negative: [{min}, {max})"
        )));
    }
    if max < min {
        return Err(Error::invalid(format!(
            "maxStamp is smaller than minStamp: [{min}, {max})"
        )));
    }
    Ok(())
}

fn check_columns(desc: &TableDescriptor, c: &Columns) -> Result<()> {
    c.0.keys().try_for_each(|f| check_family(desc, f))
}

pub(crate) fn selection(c: Columns) -> ColumnSelection {
    if c.0.is_empty() {
        ColumnSelection::All
    } else {
        ColumnSelection::Families(c.0)
    }
}

impl LocalTable {
    pub(crate) fn name(&self) -> &str {
        &self.shared.name
    }

    pub(crate) fn check(&self) -> Result<Arc<TableDescriptor>> {
        self.db.check_open()?;
        if self.shared.is_dropped() {
            return Err(Error::TableNotFound(self.shared.name.clone()));
        }
        let desc = self.shared.desc_arc();
        if !self.shared.is_enabled() {
            return Err(Error::TableDisabled(desc.name().to_string()));
        }
        Ok(desc)
    }

    /// Checks a Get's row and read settings against `desc`.
    pub(crate) fn validate_get(&self, desc: &TableDescriptor, g: &Get) -> Result<()> {
        check_row(&g.row)?;
        self.validate_read(
            desc,
            &g.columns,
            g.max_versions,
            g.time_range,
            g.per_family.as_deref(),
        )
    }

    pub(crate) fn validate_read(
        &self,
        desc: &TableDescriptor,
        cols: &Columns,
        max_versions: u32,
        tr: (i64, i64),
        per_family: Option<&PerFamily>,
    ) -> Result<()> {
        check_columns(desc, cols)?;
        if max_versions == 0 {
            return Err(Error::invalid("versions must be positive"));
        }
        check_time_range(tr)?;
        // [SCAN-5] each family's range as HBase's `TimeRange` constructor checks it; an unknown
        // family fails like a Get of it (HBase ignores it: docs/SEMANTICS.md).
        if let Some(p) = per_family {
            for (f, range) in p.time_ranges.iter() {
                check_family(desc, f)?;
                check_time_range(range)?;
            }
        }
        Ok(())
    }

    pub(crate) fn get(&self, g: Get) -> Result<RowResult> {
        let started = crate::base::stats::Stamp::now();
        let r = self.get_untimed(g);
        self.db
            .stats()
            .op(crate::engine::stats::Operation::Get, started);
        r
    }

    fn get_untimed(&self, g: Get) -> Result<RowResult> {
        let desc = self.check()?;
        self.validate_get(&desc, &g)?;
        let spec = ReadSpec {
            now: self.db.clock().now_millis(),
            time_range: g.time_range,
            max_versions: g.max_versions,
            columns: selection(g.columns),
            raw: false,
            has_filter: g.filter.is_some(),
            per_family: g.per_family,
        };
        let q = Query {
            desc,
            spec,
            filter: g.filter,
            reversed: false,
        };
        let region = self.shared.region_for(&g.row);
        self.db.count_reads(&self.shared, &region, 1);
        let mut reader = crate::engine::read::region_reader(
            &region,
            &region.current(),
            &q,
            &g.row,
            Some(&g.row),
            None,
            self.db.read_point(),
            ReaderParts::take_spare(),
        )?;
        let found = reader.next_row()?;
        // The reader's buffers are kept per thread between reads (sources dropped).
        reader.into_parts().keep_spare();
        Ok(match found {
            Some(cells) => RowResult::from_cells(cells),
            None => RowResult::default(),
        })
    }

    pub(crate) fn exists(&self, g: Get) -> Result<bool> {
        Ok(!self.get(g)?.is_empty())
    }

    pub(crate) fn scan(&self, s: Scan) -> Result<Scanner> {
        let q = self.prepare_scan(&s)?;
        Scanner::open(self.clone(), q, s)
    }

    pub(crate) fn scan_salted(&self, s: Scan, buckets: u16) -> Result<Scanner> {
        let q = self.prepare_scan(&s)?;
        let started = crate::base::stats::Stamp::always();
        let counters = std::sync::Arc::new(crate::api::scanner::ScanCounters::default());
        crate::api::salted::open(self.clone(), q, s, buckets, counters.clone())
            .map(|m| Scanner::salted(m, counters, started, self.db.clone()))
    }

    /// Validates a scan [SCAN-1] [SCAN-3] [SCAN-RAW-1] and fixes its `now`.
    fn prepare_scan(&self, s: &Scan) -> Result<Query> {
        let desc = self.check()?;
        self.validate_read(
            &desc,
            &s.columns,
            s.max_versions,
            s.time_range,
            s.per_family.as_deref(),
        )?;
        if s.start.len() > crate::model::mutation::MAX_ROW_LEN
            || s.stop.len() > crate::model::mutation::MAX_ROW_LEN
        {
            return Err(Error::invalid(
                "scan start/stop row longer than 32767 bytes",
            ));
        }
        if s.raw && s.columns.has_explicit_columns() {
            return Err(Error::invalid("Cannot specify any column for a raw scan"));
        }
        if s.batch == Some(0) {
            return Err(Error::invalid("scan batch must be at least 1 cell"));
        }
        let spec = ReadSpec {
            now: self.db.clock().now_millis(),
            time_range: s.time_range,
            max_versions: s.max_versions,
            columns: selection(s.columns.clone()),
            raw: s.raw,
            has_filter: s.filter.is_some(),
            per_family: s.per_family.clone(),
        };
        if let Some(f) = &s.filter {
            f.validate()?;
            if s.batch.is_some() && f.has_filter_row() {
                return Err(Error::invalid(
                    "batch cannot be combined with a filter that decides on whole rows (SingleColumnValue, Page)",
                ));
            }
        }
        Ok(Query {
            desc,
            spec,
            filter: s.filter.clone(),
            reversed: s.reversed,
        })
    }

    pub(crate) fn flush(&self) -> Result<()> {
        self.check()?;
        for r in self.shared.region_list() {
            self.db.flush_region(&self.shared, &r)?;
        }
        Ok(())
    }

    pub(crate) fn compact(&self) -> Result<()> {
        self.check()?;
        for r in self.shared.region_list() {
            self.db.compact_region(&self.shared, &r, false)?;
        }
        Ok(())
    }

    pub(crate) fn major_compact(&self) -> Result<()> {
        self.check()?;
        for r in self.shared.region_list() {
            self.db.compact_region(&self.shared, &r, true)?;
        }
        Ok(())
    }

    pub(crate) fn split(&self, at: Option<&[u8]>) -> Result<()> {
        self.check()?;
        match at {
            Some(row) => {
                check_row(row)?;
                loop {
                    let region = self.shared.region_for(row);
                    if row == region.start() {
                        return Err(Error::invalid(format!(
                            "Split row is equal to startkey: {}",
                            crate::base::util::to_string_binary(row)
                        )));
                    }
                    if region.has_references() {
                        self.db.compact_region(&self.shared, &region, true)?;
                    }
                    // `None` only when a concurrent split or merge replaced the region: retry.
                    if self
                        .db
                        .split_region(&self.shared, &region, Some(row))?
                        .is_some()
                    {
                        return Ok(());
                    }
                }
            }
            None => {
                for region in self.shared.region_list() {
                    if region.has_references() {
                        self.db.compact_region(&self.shared, &region, true)?;
                    }
                    self.db.split_region(&self.shared, &region, None)?;
                }
                Ok(())
            }
        }
    }

    pub(crate) fn run_split_check(&self) -> Result<Vec<Vec<u8>>> {
        self.check()?;
        self.db.split_check(&self.shared)
    }

    pub(crate) fn merge(&self, region_a: &str, region_b: &str) -> Result<()> {
        self.check()?;
        let (a, b) = (self.region_named(region_a)?, self.region_named(region_b)?);
        if a.id() == b.id() {
            return Err(Error::invalid("merge needs two different regions"));
        }
        // A region holding references (files shared with a former sibling, read clamped to
        // its range) is major-compacted first, as HBase requires before a merge: the merged
        // range would otherwise expose the rest of those files, rows the sibling may since have
        // deleted and compacted away.
        for r in [&a, &b] {
            if r.has_references() {
                self.db.compact_region(&self.shared, r, true)?;
            }
        }
        self.db.merge_regions(&self.shared, &a, &b).map(|_| ())
    }

    pub(crate) fn regions(&self) -> Vec<RegionInfo> {
        let name = &self.shared.name;
        self.shared
            .region_list()
            .iter()
            .map(|r| {
                let v = r.current();
                let files: Vec<_> = v.files.values().flatten().collect();
                RegionInfo {
                    name: region_name(name, r),
                    start_key: r.start().to_vec(),
                    end_key: r.end().to_vec(),
                    memstore_bytes: r.memstore_size(),
                    store_files: files.len() as u32,
                    store_file_bytes: files.iter().map(|f| f.size()).sum(),
                    read_requests: r.request_counts().0,
                    write_requests: r.request_counts().1,
                }
            })
            .collect()
    }
}

/// HBase-style region name: `table,startKey,id` (start key as `Bytes.toStringBinary`).
pub(crate) fn region_name(table: &str, r: &Region) -> String {
    format!(
        "{table},{},{}",
        crate::base::util::to_string_binary(r.start()),
        r.id()
    )
}

/// A bulk load fed one put at a time ([`Table::bulk_loader`](crate::Table::bulk_loader)): nothing is visible until
/// [`BulkLoader::finish`], which makes every cell visible at once; a loader dropped without
/// `finish` loads nothing.
pub struct BulkLoader {
    pub(crate) table: LocalTable,
    pub(crate) desc: Arc<TableDescriptor>,
    pub(crate) seq: u64,
    pub(crate) now: i64,
    pub(crate) sorter: crate::engine::bulk_load::Sorter,
}

impl std::fmt::Debug for BulkLoader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BulkLoader")
            .field("table", &self.table.name())
            .finish_non_exhaustive()
    }
}

impl BulkLoader {
    /// Adds a put's cells (validated as [`Table::put`](crate::Table::put) validates them).
    ///
    /// # Errors
    /// As [`Table::put`](crate::Table::put) for an invalid put (the loader stays usable; that put is not added);
    /// [`Error::Io`] when spilling to a temporary file fails.
    pub fn add(&mut self, p: &crate::api::ops::Put) -> Result<()> {
        self.table.validate_put(&self.desc, p)?;
        let mut cells = Vec::new();
        LocalTable::put_cells(p, self.now, &mut cells);
        for c in &cells {
            self.sorter.push_with(
                |buf| c.key(&p.row, self.seq).encode_into(buf),
                |buf| crate::model::payload::encode_into(buf, c.ttl_ms, c.value),
            )?;
        }
        Ok(())
    }

    /// Writes the block files and makes every added cell visible at once; returns the number
    /// of cells loaded.
    ///
    /// # Errors
    /// As [`Table::bulk_load`](crate::Table::bulk_load) (nothing is loaded).
    pub fn finish(self) -> Result<u64> {
        self.table.db.bulk_load(&self.table.shared, self.sorter)
    }
}
