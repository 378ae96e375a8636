//! `Table`: the user-facing handle for writes and reads of one table, and its `Scanner`.

use crate::db::DbInner;
use crate::error::{Error, Result};
use crate::model::key::first_on_row;
use crate::model::schema::TableDescriptor;
use crate::ops::{Columns, Get, RowResult, Scan};
use crate::read::cursor::CellCursor;
use crate::read::matcher::{ColumnSelection, ReadSpec, UserMatcher};
use crate::read::merge::MergeCursor;
use crate::read::row::RowReader;
use crate::region::{FileSelection, Region};
use crate::sst::CachePolicy;
use crate::write::{check_family, check_row};
use parking_lot::RwLock;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// State of one table shared by all its handles.
#[derive(Debug)]
pub(crate) struct TableShared {
    pub id: u64,
    /// Fixed for the table's life.
    pub name: String,
    desc: RwLock<Arc<TableDescriptor>>,
    /// Regions in key order, contiguous from '' to ''.
    pub regions: RwLock<Vec<Arc<Region>>>,
    enabled: AtomicBool,
    dropped: AtomicBool,
}

impl TableShared {
    pub fn new(id: u64, desc: TableDescriptor, enabled: bool, regions: Vec<Arc<Region>>) -> Self {
        TableShared {
            id,
            name: desc.name().to_string(),
            desc: RwLock::new(Arc::new(desc)),
            regions: RwLock::new(regions),
            enabled: AtomicBool::new(enabled),
            dropped: AtomicBool::new(false),
        }
    }
    pub fn desc(&self) -> TableDescriptor {
        (**self.desc.read()).clone()
    }
    pub fn desc_arc(&self) -> Arc<TableDescriptor> {
        self.desc.read().clone()
    }
    pub fn desc_lock(&self) -> &RwLock<Arc<TableDescriptor>> {
        &self.desc
    }
    pub fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Acquire)
    }
    pub fn set_enabled(&self, yes: bool) {
        self.enabled.store(yes, Ordering::Release);
    }
    pub fn mark_dropped(&self) {
        self.dropped.store(true, Ordering::Release);
    }
    pub fn is_dropped(&self) -> bool {
        self.dropped.load(Ordering::Acquire)
    }
    /// The region whose `[start, end)` holds `row`.
    pub fn region_for(&self, row: &[u8]) -> Arc<Region> {
        let regions = self.regions.read();
        let i = regions.partition_point(|r| r.start.as_slice() <= row);
        regions[i.saturating_sub(1)].clone()
    }
}

/// A handle to one table. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Table {
    pub(crate) db: Arc<DbInner>,
    pub(crate) shared: Arc<TableShared>,
}

fn cache_policy(desc: &TableDescriptor) -> impl Fn(&[u8]) -> CachePolicy + '_ {
    move |fam: &[u8]| match desc.get_family(fam) {
        Some(f) => CachePolicy {
            fill: f.block_cache,
            in_memory: f.in_memory,
        },
        None => CachePolicy {
            fill: true,
            in_memory: false,
        },
    }
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

pub(crate) fn selection(c: &Columns) -> ColumnSelection {
    if c.0.is_empty() {
        ColumnSelection::All
    } else {
        ColumnSelection::Families(c.0.clone())
    }
}

impl Table {
    /// The table name.
    pub fn name(&self) -> &str {
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

    /// A row reader over one region from `start` (a Get when `get_row` is set).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn region_reader(
        &self,
        region: &Arc<Region>,
        desc: &Arc<TableDescriptor>,
        cols: &Columns,
        spec: ReadSpec,
        start: &[u8],
        get_row: Option<&[u8]>,
        read_point: u64,
    ) -> Result<RowReader> {
        let version = region.current();
        let fams: Option<Vec<&[u8]>> = if cols.0.is_empty() {
            None
        } else {
            Some(cols.0.keys().map(Vec::as_slice).collect())
        };
        let single_column = cols
            .0
            .iter()
            .filter_map(|(f, qs)| match qs {
                Some(s) if s.len() == 1 => s.iter().next().map(|q| (f.as_slice(), q.as_slice())),
                _ => None,
            })
            .collect();
        let policy = cache_policy(desc);
        let sel = FileSelection {
            families: fams,
            get_row,
            single_column,
            start,
            stop: &region.end,
            time_range: spec.time_range,
            cache: &policy,
        };
        let mut merge = MergeCursor::new(version.cursors(&sel));
        let from = if start < region.start.as_slice() {
            region.start.as_slice()
        } else {
            start
        };
        merge.seek(&first_on_row(from))?;
        let stop = match get_row {
            Some(r) => {
                let mut s = r.to_vec();
                s.push(0);
                s
            }
            None => region.end.clone(),
        };
        Ok(RowReader::new(
            merge,
            UserMatcher::new(desc.families(), spec),
            read_point,
            stop,
        ))
    }

    fn validate_read(
        &self,
        desc: &TableDescriptor,
        cols: &Columns,
        max_versions: u32,
        tr: (i64, i64),
    ) -> Result<()> {
        check_columns(desc, cols)?;
        if max_versions == 0 {
            return Err(Error::invalid("versions must be positive"));
        }
        check_time_range(tr)
    }

    /// Reads one row; an empty [`RowResult`] when nothing matches [GET-2].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a bad row, zero versions or a bad time range;
    /// [`Error::NoSuchFamily`] [GET-1]; [`Error::Corruption`] when a file is damaged.
    pub fn get(&self, g: Get) -> Result<RowResult> {
        let desc = self.check()?;
        check_row(&g.row)?;
        self.validate_read(&desc, &g.columns, g.max_versions, g.time_range)?;
        let spec = ReadSpec {
            now: self.db.clock.now_millis(),
            time_range: g.time_range,
            max_versions: g.max_versions,
            columns: selection(&g.columns),
            raw: false,
            has_filter: false,
        };
        let region = self.shared.region_for(&g.row);
        region.bump_reads(1);
        let mut reader = self.region_reader(
            &region,
            &desc,
            &g.columns,
            spec,
            &g.row,
            Some(&g.row),
            self.db.mvcc.read_point(),
        )?;
        Ok(match reader.next_row()? {
            Some((row, cells)) => RowResult::new(row, cells),
            None => RowResult::default(),
        })
    }

    /// True when the Get would return at least one cell.
    ///
    /// # Errors
    /// As [`Table::get`].
    pub fn exists(&self, g: Get) -> Result<bool> {
        Ok(!self.get(g)?.is_empty())
    }

    /// Opens a lazy scanner. Bad requests fail here, not on the first `next()`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for zero versions, a bad time range, oversized start/stop
    /// rows, or a raw scan naming columns [SCAN-RAW-1]; [`Error::NoSuchFamily`].
    pub fn scan(&self, s: Scan) -> Result<Scanner> {
        let desc = self.check()?;
        self.validate_read(&desc, &s.columns, s.max_versions, s.time_range)?;
        if s.start.len() > crate::write::MAX_ROW_LEN || s.stop.len() > crate::write::MAX_ROW_LEN {
            return Err(Error::invalid(
                "scan start/stop row longer than 32767 bytes",
            ));
        }
        if s.raw && s.columns.has_explicit_columns() {
            return Err(Error::invalid("Cannot specify any column for a raw scan"));
        }
        let spec = ReadSpec {
            now: self.db.clock.now_millis(),
            time_range: s.time_range,
            max_versions: s.max_versions,
            columns: selection(&s.columns),
            raw: s.raw,
            has_filter: false,
        };
        let read_point = self.db.register_scanner();
        let mut scanner = Scanner {
            table: self.clone(),
            desc,
            read_point,
            next_start: Some(s.start.clone()),
            spec,
            scan: s,
            current: None,
            returned: 0,
        };
        // Open the first region now: the scanner sees the table as of this call, whatever
        // flushes and compactions happen before its first `next()`.
        scanner.open_next_region()?;
        Ok(scanner)
    }

    /// Flushes every region's memstore to block files.
    ///
    /// # Errors
    /// [`Error::Io`] / [`Error::Corruption`] from writing or reading files.
    pub fn flush(&self) -> Result<()> {
        self.check()?;
        for r in self.shared.regions.read().clone() {
            self.db.flush_region(&self.shared, &r)?;
        }
        Ok(())
    }

    /// Minor compaction of each store by the exploring policy (files only).
    ///
    /// # Errors
    /// As [`Table::flush`].
    pub fn compact(&self) -> Result<()> {
        self.check()?;
        for r in self.shared.regions.read().clone() {
            self.db.compact_region(&self.shared, &r, false)?;
        }
        Ok(())
    }

    /// Major compaction: every store's files into one, purging what HBase purges [CMP-5]
    /// [CMP-6]. The memstore is not included: flush first for that.
    ///
    /// # Errors
    /// As [`Table::flush`].
    pub fn major_compact(&self) -> Result<()> {
        self.check()?;
        for r in self.shared.regions.read().clone() {
            self.db.compact_region(&self.shared, &r, true)?;
        }
        Ok(())
    }

    /// Every region in key order with its metrics.
    pub fn regions(&self) -> Vec<RegionInfo> {
        let name = &self.shared.name;
        self.shared
            .regions
            .read()
            .iter()
            .map(|r| {
                let v = r.current();
                let files: Vec<_> = v.files.values().flatten().collect();
                RegionInfo {
                    name: format!(
                        "{name},{},{}",
                        crate::util::to_string_binary(&r.start),
                        r.id
                    ),
                    start_key: r.start.clone(),
                    end_key: r.end.clone(),
                    memstore_bytes: r.memstore_size(),
                    store_files: files.len() as u32,
                    store_file_bytes: files.iter().map(|f| f.size()).sum(),
                    read_requests: r.read_requests.load(Ordering::Relaxed),
                    write_requests: r.write_requests.load(Ordering::Relaxed),
                }
            })
            .collect()
    }
}

/// A lazy stream of rows across regions in key order. Sees the table as of `scan()`.
pub struct Scanner {
    table: Table,
    desc: Arc<TableDescriptor>,
    scan: Scan,
    spec: ReadSpec,
    read_point: u64,
    /// Where the next region's read begins; `None` once past the last region or the stop row.
    next_start: Option<Vec<u8>>,
    current: Option<(Arc<Region>, RowReader)>,
    returned: u64,
}

impl std::fmt::Debug for Scanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scanner")
            .field("scan", &self.scan)
            .field("returned", &self.returned)
            .finish_non_exhaustive()
    }
}

impl Scanner {
    /// Opens the reader of the region holding `next_start`; false when the scan has no region
    /// left.
    fn open_next_region(&mut self) -> Result<bool> {
        let Some(start) = self.next_start.take() else {
            return Ok(false);
        };
        if !self.scan.stop.is_empty() && start >= self.scan.stop {
            return Ok(false);
        }
        let region = self.table.shared.region_for(&start);
        let reader = self.table.region_reader(
            &region,
            &self.desc,
            &self.scan.columns,
            self.spec.clone(),
            &start,
            None,
            self.read_point,
        )?;
        self.next_start = if region.end.is_empty() {
            None
        } else {
            Some(region.end.clone())
        };
        self.current = Some((region, reader));
        Ok(true)
    }

    fn advance(&mut self) -> Result<Option<RowResult>> {
        loop {
            if self.scan.limit.is_some_and(|l| self.returned >= l) {
                return Ok(None);
            }
            if self.current.is_none() && !self.open_next_region()? {
                return Ok(None);
            }
            let Some((region, reader)) = self.current.as_mut() else {
                continue;
            };
            match reader.next_row()? {
                Some((row, cells)) => {
                    if !self.scan.stop.is_empty() && row >= self.scan.stop {
                        self.next_start = None;
                        self.current = None;
                        return Ok(None);
                    }
                    region.bump_reads(1);
                    self.returned += 1;
                    return Ok(Some(RowResult::new(row, cells)));
                }
                None => self.current = None,
            }
        }
    }
}

impl Drop for Scanner {
    fn drop(&mut self) {
        self.table.db.unregister_scanner(self.read_point);
    }
}

impl Iterator for Scanner {
    type Item = Result<RowResult>;
    fn next(&mut self) -> Option<Result<RowResult>> {
        match self.advance() {
            Ok(r) => r.map(Ok),
            Err(e) => {
                self.next_start = None;
                self.current = None;
                Some(Err(e))
            }
        }
    }
}
