//! `Scanner`: a lazy stream of rows across regions, forward or reversed, and the salted
//! fan-out of [`crate::Table::scan_salted`].

use crate::api::ops::{RowResult, Scan};
use crate::api::table::LocalTable as Table;
use crate::base::error::Result;
use crate::engine::region::{Region, RegionVersion};
use crate::read::query::Query;
use crate::read::row::{ReaderParts, RowReader};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A row-range bound: the key (empty = unbounded) and whether it is included.
#[derive(Debug, Clone)]
pub(crate) struct Bound {
    pub key: Vec<u8>,
    pub inclusive: bool,
}

impl Bound {
    pub(crate) fn unbounded(&self) -> bool {
        self.key.is_empty()
    }
}

/// A lazy stream of rows across regions in key order (descending for reversed scans). Sees the
/// table as of `scan()`.
pub struct Scanner {
    inner: Inner,
    /// What the scan did so far ([`Scanner::metrics`]), shared with a salted scan's bucket
    /// threads.
    counters: Arc<ScanCounters>,
    /// When the scan was opened; taken when its time is recorded (at its end or drop).
    started: Option<crate::base::stats::Stamp>,
    /// The engine whose scan latency this scan is recorded in (none for a remote scan).
    db: Option<Arc<crate::engine::Engine>>,
}

/// What one scan did, from [`Scanner::metrics`]: HBase's client scan metrics
/// (`Scan.setScanMetricsEnabled`, the shell's `METRICS => true`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ScanMetrics {
    /// Regions the scan opened (HBase `REGIONS_SCANNED`).
    pub regions_scanned: u64,
    /// Rows read: returned plus filtered (HBase `ROWS_SCANNED`).
    pub rows_scanned: u64,
    /// Rows a filter dropped (HBase `ROWS_FILTERED`).
    pub rows_filtered: u64,
    /// Cells returned.
    pub cells_in_results: u64,
    /// Bytes of the returned cells as HBase's `KeyValue` serializes them (lengths, row,
    /// family, qualifier, timestamp, type, value) (HBase `BYTES_IN_RESULTS`).
    pub bytes_in_results: u64,
    /// Calls an HBase client would have made: one per region scanner opened (embedded, there
    /// is no RPC; HBase `RPC_CALLS` counts one open plus the `next` calls per region).
    pub rpc_calls: u64,
}

/// Shared counters behind [`ScanMetrics`].
#[derive(Debug, Default)]
pub(crate) struct ScanCounters {
    regions: AtomicU64,
    rows: AtomicU64,
    filtered: AtomicU64,
    cells: AtomicU64,
    bytes: AtomicU64,
}

/// Counts of one region scanner not yet added to the shared [`ScanCounters`] (plain fields:
/// the per-row cost of the scan metrics is a few additions).
#[derive(Debug, Default, Clone, Copy)]
struct LocalCounts {
    rows: u64,
    cells: u64,
    bytes: u64,
}

impl LocalCounts {
    fn note_row(&mut self, cells: &[crate::api::ops::Cell]) {
        // HBase KeyValue: key length (4), value length (4), row length (2), row, family
        // length (1), family, qualifier, timestamp (8), type (1), value.
        let bytes: usize = cells.iter().map(|c| 20 + c.parts_len()).sum();
        self.rows += 1;
        self.cells += cells.len() as u64;
        self.bytes += bytes as u64;
    }
}

impl ScanCounters {
    fn add(&self, l: LocalCounts) {
        self.rows.fetch_add(l.rows, Ordering::Relaxed);
        self.cells.fetch_add(l.cells, Ordering::Relaxed);
        self.bytes.fetch_add(l.bytes, Ordering::Relaxed);
    }

    fn snapshot(&self, pending: LocalCounts) -> ScanMetrics {
        let rows = self.rows.load(Ordering::Relaxed) + pending.rows;
        let filtered = self.filtered.load(Ordering::Relaxed);
        let regions = self.regions.load(Ordering::Relaxed);
        ScanMetrics {
            regions_scanned: regions,
            rows_scanned: rows + filtered,
            rows_filtered: filtered,
            cells_in_results: self.cells.load(Ordering::Relaxed) + pending.cells,
            bytes_in_results: self.bytes.load(Ordering::Relaxed) + pending.bytes,
            rpc_calls: regions,
        }
    }
}

enum Inner {
    Plain(Box<RangeScanner>),
    Salted(crate::api::salted::SaltedMerge),
    /// A remote server's scanner, with the rows the scan may still return.
    Remote(Box<crate::api::remote::RemoteScanner>, Option<u64>),
}

/// Scans one row range across regions.
pub(crate) struct RangeScanner {
    table: Table,
    query: Query,
    scan: Scan,
    read_point: u64,
    /// Lowest and highest row of the scan.
    lo: Bound,
    hi: Bound,
    /// The regions still to read, in scan order, each with the version captured at `scan()`:
    /// every region is read as of that moment, whatever flushes, compactions, splits and
    /// merges happen before the scan reaches it.
    queue: std::collections::VecDeque<(Arc<Region>, Arc<RegionVersion>)>,
    current: Option<(Arc<Region>, RowReader)>,
    /// Parts of a wide row still to hand out [SCAN-3].
    pending: std::collections::VecDeque<RowResult>,
    returned: u64,
    /// False for the sub-scanners of a salted scan: their parent registered the read point.
    registered: bool,
    /// The whole scan's counters (shared by a salted scan's buckets).
    counters: Arc<ScanCounters>,
    /// This scanner's counts not yet added to `counters` (added when a region ends).
    local: LocalCounts,
}

impl std::fmt::Debug for Scanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.inner {
            Inner::Plain(s) => f
                .debug_struct("Scanner")
                .field("scan", &s.scan)
                .field("returned", &s.returned)
                .finish_non_exhaustive(),
            Inner::Salted(m) => f
                .debug_struct("Scanner")
                .field("salted", m)
                .finish_non_exhaustive(),
            Inner::Remote(r, _) => f
                .debug_struct("Scanner")
                .field("remote", r)
                .finish_non_exhaustive(),
        }
    }
}

impl Scanner {
    /// Opens a plain scanner with a registered read point; the first region is opened now.
    pub(crate) fn open(table: Table, query: Query, scan: Scan) -> Result<Scanner> {
        let started = crate::base::stats::Stamp::always();
        let db = table.db.clone();
        let read_point = table.db.register_scanner();
        let counters = Arc::new(ScanCounters::default());
        let mut s = RangeScanner::new(table, query, scan, read_point, counters.clone());
        // Open the first region now: the scanner sees the table as of this call, whatever
        // flushes and compactions happen before its first `next()`.
        s.open_next_region()?;
        Ok(Scanner {
            inner: Inner::Plain(Box::new(s)),
            counters,
            started: Some(started),
            db: Some(db),
        })
    }

    pub(crate) fn salted(
        m: crate::api::salted::SaltedMerge,
        counters: Arc<ScanCounters>,
        started: crate::base::stats::Stamp,
        db: Arc<crate::engine::Engine>,
    ) -> Scanner {
        Scanner {
            inner: Inner::Salted(m),
            counters,
            started: Some(started),
            db: Some(db),
        }
    }

    /// A scan served by a remote server; `limit` rows at most [SCAN-4].
    pub(crate) fn remote(s: crate::api::remote::RemoteScanner, limit: Option<u64>) -> Scanner {
        Scanner {
            inner: Inner::Remote(Box::new(s), limit),
            counters: Arc::new(ScanCounters::default()),
            started: None,
            db: None,
        }
    }

    /// What the scan did so far: regions, rows scanned and filtered, cells and bytes
    /// returned (HBase's scan metrics).
    ///
    /// # Examples
    /// ```
    /// # use cellbase::*;
    /// let db = Db::temporary()?;
    /// let t = db.create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))?;
    /// t.put(Put::new("r1").add("f", "q", "v"))?;
    /// let mut s = t.scan(Scan::new())?;
    /// while s.next().transpose()?.is_some() {}
    /// assert_eq!(s.metrics().rows_scanned, 1);
    /// # Ok::<(), cellbase::Error>(())
    /// ```
    pub fn metrics(&self) -> ScanMetrics {
        let pending = match &self.inner {
            Inner::Plain(s) => s.local,
            // A salted scan's buckets add their counts when each region ends; a remote scan
            // counts nothing (the server does not send HBase's scan metrics over Thrift2).
            Inner::Salted(_) | Inner::Remote(..) => LocalCounts::default(),
        };
        self.counters.snapshot(pending)
    }

    /// Records the scan's time once (at the scanner's drop).
    fn record_time(&mut self) {
        if let (Some(started), Some(db)) = (self.started.take(), &self.db) {
            db.stats()
                .op(crate::engine::stats::Operation::Scan, started);
        }
    }
}

impl Drop for Scanner {
    fn drop(&mut self) {
        self.record_time();
    }
}

/// The low and high row bounds of a scan. Forward: [start, stop). Reversed: start is the
/// inclusive high end, stop the exclusive low end [SCAN-REV-1]. A prefix means
/// [prefix, prefix_stop) both ways.
pub(crate) fn scan_bounds(scan: &Scan) -> (Bound, Bound) {
    let b = |key: &[u8], inclusive| Bound {
        key: key.to_vec(),
        inclusive,
    };
    if scan.prefix.is_some() || !scan.reversed {
        (b(&scan.start, true), b(&scan.stop, false))
    } else {
        (b(&scan.stop, false), b(&scan.start, true))
    }
}

/// True when some row of `r` can lie between `lo` and `hi`.
fn overlaps(r: &Region, lo: &Bound, hi: &Bound) -> bool {
    let below = !lo.unbounded() && !r.end().is_empty() && r.end() <= lo.key.as_slice();
    let above = !hi.unbounded()
        && !r.start().is_empty()
        && (r.start() > hi.key.as_slice() || (r.start() == hi.key.as_slice() && !hi.inclusive));
    !below && !above
}

impl RangeScanner {
    pub(crate) fn new(
        table: Table,
        query: Query,
        scan: Scan,
        read_point: u64,
        counters: Arc<ScanCounters>,
    ) -> RangeScanner {
        let (lo, hi) = scan_bounds(&scan);
        RangeScanner::with_bounds(table, query, scan, read_point, lo, hi, true, counters)
    }

    /// A scanner of the rows between `lo` and `hi` (the scan's own bounds are ignored).
    /// `registered`: whether dropping it unregisters `read_point`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn with_bounds(
        table: Table,
        query: Query,
        scan: Scan,
        read_point: u64,
        lo: Bound,
        hi: Bound,
        registered: bool,
        counters: Arc<ScanCounters>,
    ) -> RangeScanner {
        let mut queue: std::collections::VecDeque<_> = table
            .shared
            .region_list()
            .into_iter()
            .filter(|r| overlaps(r, &lo, &hi))
            .map(|r| {
                let v = r.current();
                (r, v)
            })
            .collect();
        if scan.reversed {
            queue.make_contiguous().reverse();
        }
        RangeScanner {
            table,
            query,
            scan,
            read_point,
            lo,
            hi,
            queue,
            current: None,
            pending: Default::default(),
            returned: 0,
            registered,
            counters,
            local: LocalCounts::default(),
        }
    }

    /// Opens the reader of the next region; false when the scan has no region left.
    pub(crate) fn open_next_region(&mut self) -> Result<bool> {
        let Some((region, version)) = self.queue.pop_front() else {
            return Ok(false);
        };
        let reader = if self.scan.reversed {
            self.reversed_reader(&region, &version)?
        } else {
            crate::engine::read::region_reader(
                &region,
                &version,
                &self.query,
                &self.lo.key,
                None,
                self.bloom_rows(),
                self.read_point,
                ReaderParts::take_spare(),
            )?
        };
        self.counters.regions.fetch_add(1, Ordering::Relaxed);
        self.current = Some((region, reader));
        Ok(true)
    }

    fn reversed_reader(&self, region: &Arc<Region>, version: &RegionVersion) -> Result<RowReader> {
        // The exclusive upper bound inside this region.
        let mut upper: Option<Vec<u8>> = if self.hi.unbounded() {
            None
        } else if self.hi.inclusive {
            let mut k = self.hi.key.clone();
            k.push(0);
            Some(k)
        } else {
            Some(self.hi.key.clone())
        };
        if !region.end().is_empty() && upper.as_ref().is_none_or(|u| region.end() < u.as_slice()) {
            upper = Some(region.end().to_vec());
        }
        // Above every possible row (rows are at most 32767 bytes).
        let upper = upper.unwrap_or_else(|| vec![0xff; crate::model::mutation::MAX_ROW_LEN + 1]);
        let (region_start, lo) = (region.start().to_vec(), self.lo.clone());
        let accept = Box::new(move |row: &[u8]| {
            row >= region_start.as_slice()
                && (lo.unbounded()
                    || if lo.inclusive {
                        row >= lo.key.as_slice()
                    } else {
                        row > lo.key.as_slice()
                    })
        });
        crate::engine::read::region_reader_reversed(
            region,
            version,
            &self.query,
            self.read_point,
            crate::read::row::Reverse { upper, accept },
            self.bloom_rows(),
        )
    }

    /// The scan's start and stop rows when it has both (for a reversed scan, its high and low
    /// rows): HBase's `passesGeneralRowPrefixBloomFilter` looks at their common prefix
    /// [BLOOM-5]. A salted bucket's are its own salted bounds.
    fn bloom_rows(&self) -> Option<(&[u8], &[u8])> {
        (!self.lo.unbounded() && !self.hi.unbounded())
            .then_some((self.lo.key.as_slice(), self.hi.key.as_slice()))
    }

    /// Drops the current region's reader, keeping its buffers for the thread's next reader.
    fn finish_region(&mut self) {
        if let Some((_, reader)) = self.current.take() {
            let filtered = reader.rows_filtered();
            if filtered > 0 {
                self.counters
                    .filtered
                    .fetch_add(filtered, Ordering::Relaxed);
            }
            reader.into_parts().keep_spare();
        }
        self.counters.add(std::mem::take(&mut self.local));
    }

    /// True when `row` is past the scan's far bound.
    fn past_end(&self, row: &[u8]) -> bool {
        if self.scan.reversed {
            !self.lo.unbounded()
                && if self.lo.inclusive {
                    row < self.lo.key.as_slice()
                } else {
                    row <= self.lo.key.as_slice()
                }
        } else {
            !self.hi.unbounded() && row >= self.hi.key.as_slice()
        }
    }

    fn advance(&mut self) -> Result<Option<RowResult>> {
        if let Some(part) = self.pending.pop_front() {
            return Ok(Some(part));
        }
        loop {
            if self.scan.limit.is_some_and(|l| self.returned >= l) {
                return Ok(None);
            }
            if self.current.is_none() && !self.open_next_region()? {
                return Ok(None);
            }
            let Some((_, reader)) = self.current.as_mut() else {
                continue;
            };
            match reader.next_row()? {
                Some(cells) => {
                    if self.past_end(cells[0].row()) {
                        self.queue.clear();
                        self.finish_region();
                        return Ok(None);
                    }
                    if let Some((region, _)) = &self.current {
                        self.table.db.count_reads(&self.table.shared, region, 1);
                    }
                    self.returned += 1;
                    self.local.note_row(&cells);
                    return Ok(Some(match self.scan.batch {
                        Some(b) if cells.len() > b as usize => {
                            let mut parts = cells
                                .chunks(b as usize)
                                .map(|c| RowResult::from_cells(c.to_vec()));
                            let first = parts.next().unwrap_or_default();
                            self.pending.extend(parts);
                            first
                        }
                        _ => RowResult::from_cells(cells),
                    }));
                }
                None => self.finish_region(),
            }
        }
    }
}

impl Drop for RangeScanner {
    fn drop(&mut self) {
        self.finish_region();
        if self.registered {
            self.table.db.unregister_scanner(self.read_point);
        }
    }
}

impl Iterator for Scanner {
    type Item = Result<RowResult>;
    fn next(&mut self) -> Option<Result<RowResult>> {
        match &mut self.inner {
            Inner::Plain(s) => s.next(),
            Inner::Salted(m) => m.next(),
            Inner::Remote(r, limit) => {
                if *limit == Some(0) {
                    return None;
                }
                if let Some(l) = limit {
                    *l -= 1;
                }
                r.next()
            }
        }
    }
}

impl Iterator for RangeScanner {
    type Item = Result<RowResult>;
    fn next(&mut self) -> Option<Result<RowResult>> {
        match self.advance() {
            Ok(r) => r.map(Ok),
            Err(e) => {
                self.queue.clear();
                self.current = None;
                self.pending.clear();
                Some(Err(e))
            }
        }
    }
}
