//! A region: one table's row range `[start, end)`, with its memstore and each family's block
//! files (the stores). Readers take an immutable [`RegionVersion`] snapshot; flushes and
//! compactions install new versions under the version lock.
//!
//! Thread safety: `version` is swapped under a short write lock, never held during I/O.
//! `updates` is held shared by writers between taking a sequence id and inserting into the
//! memstore, and exclusively by a flush while it swaps the memstore, so a flush's sequence id
//! covers every write of the region before it [ATOM-1].
//!
//! Invariants: every cell in the region's memstores and files has a row in `[start, end)`;
//! files of a family are ordered newest first (highest max sequence id first).

use crate::read::source::SourceCursor;
use crate::storage::memstore::{MemCursor, MemStore};
use crate::storage::sst::{CachePolicy, SstReader};
use parking_lot::{Mutex, MutexGuard, RwLock};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// One block file of a store.
#[derive(Debug)]
pub(crate) struct StoreFile {
    pub id: u64,
    pub family: Vec<u8>,
    pub reader: Arc<SstReader>,
}

impl StoreFile {
    pub fn size(&self) -> u64 {
        self.reader.meta().file_size
    }

    /// Sorts newest first by this key, reversed: the highest max sequence id (then file id)
    /// is the newest, so it wins equal keys [SORT-6].
    pub fn recency(&self) -> std::cmp::Reverse<(u64, u64)> {
        std::cmp::Reverse((self.reader.meta().max_seq, self.id))
    }
}

/// An immutable view of a region's data sources.
#[derive(Debug, Clone)]
pub(crate) struct RegionVersion {
    /// Receives writes.
    pub active: Arc<MemStore>,
    /// Being flushed, still readable.
    pub snapshot: Option<Arc<MemStore>>,
    /// Highest sequence id in `snapshot` (every write of the region up to it is there).
    pub snapshot_seq: u64,
    /// Per family, newest first.
    pub files: BTreeMap<Vec<u8>, Vec<Arc<StoreFile>>>,
}

impl RegionVersion {
    /// The same memstores with another set of block files.
    pub fn with_files(&self, files: BTreeMap<Vec<u8>, Vec<Arc<StoreFile>>>) -> Arc<Self> {
        Arc::new(RegionVersion {
            active: self.active.clone(),
            snapshot: self.snapshot.clone(),
            snapshot_seq: self.snapshot_seq,
            files,
        })
    }
}

const ROW_LOCK_STRIPES: usize = 256;

/// A region of a table.
#[derive(Debug)]
pub(crate) struct Region {
    pub id: u64,
    pub start: Vec<u8>,
    pub end: Vec<u8>,
    pub version: RwLock<Arc<RegionVersion>>,
    pub updates: RwLock<()>,
    row_locks: Vec<Mutex<()>>,
    /// One flush at a time.
    pub flush_lock: Mutex<()>,
    /// One compaction at a time.
    pub compact_lock: Mutex<()>,
    /// Highest sequence id whose writes are all in this region's files.
    pub flushed_seq: AtomicU64,
    /// A flush request is queued for a background thread.
    pub flush_queued: AtomicBool,
    /// A compaction request is queued for a background thread.
    pub compact_queued: AtomicBool,
    /// A split request is queued for a background thread.
    pub split_queued: AtomicBool,
    pub read_requests: AtomicU64,
    pub write_requests: AtomicU64,
    /// Set (under the update lock) when a split or merge replaces this region: writers that
    /// find it set re-route their mutation to the new regions.
    pub retired: AtomicBool,
}

impl Region {
    pub fn new(
        id: u64,
        start: Vec<u8>,
        end: Vec<u8>,
        flushed_seq: u64,
        files: BTreeMap<Vec<u8>, Vec<Arc<StoreFile>>>,
        memstore_account: &Arc<AtomicU64>,
    ) -> Region {
        Region {
            id,
            start,
            end,
            version: RwLock::new(Arc::new(RegionVersion {
                active: Arc::new(MemStore::with_account(memstore_account.clone())),
                snapshot: None,
                snapshot_seq: 0,
                files,
            })),
            updates: RwLock::new(()),
            row_locks: (0..ROW_LOCK_STRIPES).map(|_| Mutex::new(())).collect(),
            flush_lock: Mutex::new(()),
            compact_lock: Mutex::new(()),
            flushed_seq: AtomicU64::new(flushed_seq),
            flush_queued: AtomicBool::new(false),
            compact_queued: AtomicBool::new(false),
            split_queued: AtomicBool::new(false),
            read_requests: AtomicU64::new(0),
            write_requests: AtomicU64::new(0),
            retired: AtomicBool::new(false),
        }
    }

    /// True when `row` lies in `[start, end)`.
    pub fn contains(&self, row: &[u8]) -> bool {
        row >= self.start.as_slice() && (self.end.is_empty() || row < self.end.as_slice())
    }

    /// True when `f` also holds rows outside this region: a half-file reference left by a split
    /// or merge until a compaction rewrites it [SPLIT-3].
    pub fn is_reference(&self, f: &StoreFile) -> bool {
        let m = f.reader.meta();
        m.first_row() < self.start.as_slice()
            || (!self.end.is_empty() && m.last_row() >= self.end.as_slice())
    }

    /// True when some store of the region holds a reference.
    pub fn has_references(&self) -> bool {
        self.current()
            .files
            .values()
            .flatten()
            .any(|f| self.is_reference(f))
    }

    pub fn is_retired(&self) -> bool {
        self.retired.load(Ordering::Acquire)
    }

    /// The lock serializing mutations of `row` (striped).
    pub fn lock_row(&self, row: &[u8]) -> MutexGuard<'_, ()> {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        row.hash(&mut h);
        self.row_locks[(h.finish() as usize) % ROW_LOCK_STRIPES].lock()
    }

    /// The current version.
    pub fn current(&self) -> Arc<RegionVersion> {
        self.version.read().clone()
    }

    /// Bytes in the active memstore.
    pub fn memstore_size(&self) -> u64 {
        let v = self.version.read();
        v.active.size() + v.snapshot.as_ref().map_or(0, |s| s.size())
    }

    /// Smallest sequence id not yet in files (`u64::MAX` when everything is flushed).
    pub fn min_unflushed_seq(&self) -> u64 {
        let v = self.version.read();
        v.active
            .min_seq()
            .min(v.snapshot.as_ref().map_or(u64::MAX, |s| s.min_seq()))
    }

    pub fn bump_reads(&self, n: u64) {
        self.read_requests.fetch_add(n, Ordering::Relaxed);
    }
}

/// What a read wants from a region's files.
pub(crate) struct FileSelection<'a> {
    /// Families to read (None = all).
    pub families: Option<Vec<&'a [u8]>>,
    /// Single-row read: the row (enables Bloom filters [BLOOM-3]).
    pub get_row: Option<&'a [u8]>,
    /// For a Get naming exactly one column of a family: that qualifier per family [BLOOM-4].
    pub single_column: BTreeMap<&'a [u8], &'a [u8]>,
    /// Row range `[start, stop)` of a scan (empty stop = unbounded).
    pub start: &'a [u8],
    pub stop: &'a [u8],
    /// Query time range (files wholly outside it can be skipped when they hold no markers).
    pub time_range: (i64, i64),
    /// Cache policy per family.
    pub cache: &'a dyn Fn(&[u8]) -> CachePolicy,
}

impl RegionVersion {
    /// Cursors over every source that can hold matching cells, newest first, unpositioned.
    pub fn cursors(&self, sel: &FileSelection<'_>) -> Vec<SourceCursor> {
        let mut out: Vec<SourceCursor> = Vec::with_capacity(4);
        self.cursors_into(sel, &mut out);
        out
    }

    /// [`RegionVersion::cursors`], appended to `out` (a reused buffer).
    pub fn cursors_into(&self, sel: &FileSelection<'_>, out: &mut Vec<SourceCursor>) {
        // An empty memstore holds no cell visible to this read: every cell at or below the
        // read point (taken before this call) was inserted before it [ATOM-1].
        for m in std::iter::once(&self.active).chain(&self.snapshot) {
            if !m.is_empty() {
                out.push(SourceCursor::Mem(MemCursor::new(m.clone())));
            }
        }
        let wanted = |fam: &[u8]| sel.families.as_ref().is_none_or(|w| w.contains(&fam));
        let mut stores = 0;
        let mut sorted = true;
        for (fam, list) in &self.files {
            if !list.is_empty() && wanted(fam) {
                stores += 1;
                sorted &= list.is_sorted_by_key(|f| f.recency());
            }
        }
        // One store whose list is already newest first [SORT-6] is used in place; otherwise
        // the files are ordered newest first across families too (ties between families cannot
        // hold equal keys).
        let in_place = stores <= 1 && sorted;
        // A Get's file cursors end at the row's end (one shared copy of the row).
        let mut bound: Option<Arc<[u8]>> = None;
        let mut cursor = |f: &StoreFile| {
            let mut c = f.reader.cursor((sel.cache)(&f.family));
            if let Some(row) = sel.get_row {
                c.bound_to_row(Arc::clone(bound.get_or_insert_with(|| Arc::from(row))));
            }
            SourceCursor::File(c)
        };
        let mut files: Vec<&Arc<StoreFile>> = Vec::new();
        for (fam, list) in &self.files {
            if !wanted(fam) {
                continue;
            }
            for f in list.iter().filter(|f| file_may_match(f, sel)) {
                if in_place {
                    out.push(cursor(f));
                } else {
                    files.push(f);
                }
            }
        }
        files.sort_by_key(|f| f.recency());
        out.extend(files.into_iter().map(|f| cursor(f)));
    }
}

fn file_may_match(f: &StoreFile, sel: &FileSelection<'_>) -> bool {
    let m = f.reader.meta();
    if m.cell_count == 0 {
        return false;
    }
    if let Some(row) = sel.get_row {
        if row < m.first_row() || row > m.last_row() {
            return false;
        }
    } else {
        if !sel.stop.is_empty() && m.first_row() >= sel.stop {
            return false;
        }
        if m.last_row() < sel.start {
            return false;
        }
    }
    // Cells older than the range are never returned and markers older than it mask nothing
    // returned [KDC-1]; newer cells can only matter through markers.
    if m.max_ts < sel.time_range.0 || (m.min_ts >= sel.time_range.1 && m.delete_count == 0) {
        return false;
    }
    if let Some(row) = sel.get_row {
        return match sel.single_column.get(f.family.as_slice()) {
            Some(q) => f.reader.may_contain_column(row, q),
            None => f.reader.may_contain_row(row),
        };
    }
    true
}
