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

use crate::engine::runs::disjoint_runs;
use crate::read::matcher::FamilyTimeRanges;
use crate::read::run_cursor::RunCursor;
use crate::read::source::SourceCursor;
use crate::storage::memstore::{MemCursor, MemStore};
use crate::storage::sst::bloom::RowProbe;
use crate::storage::sst::{CachePolicy, SstReader};
use parking_lot::{Mutex, MutexGuard, RwLock, RwLockReadGuard};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU8, AtomicU64, Ordering};

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

/// Orders a store's files newest first [SORT-6].
pub(crate) fn sort_newest_first(files: &mut [Arc<StoreFile>]) {
    files.sort_by_key(|f| f.recency());
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

/// A region of a table. Every field is private: the region's state changes only through the
/// methods below, each stating the invariant it keeps.
#[derive(Debug)]
pub(crate) struct Region {
    id: u64,
    start: Vec<u8>,
    end: Vec<u8>,
    /// The current sources; swapped (never edited in place) under this short lock.
    version: RwLock<Arc<RegionVersion>>,
    /// Shared by a writer from its sequence id to its memstore insert; exclusive while a flush
    /// swaps memstores or a split or merge retires the region.
    updates: RwLock<()>,
    row_locks: Vec<Mutex<()>>,
    /// One flush at a time.
    flush_lock: Mutex<()>,
    /// One compaction at a time.
    compact_lock: Mutex<()>,
    /// The kind of the compaction running ([`COMPACTING_MINOR`] / [`COMPACTING_MAJOR`] bits).
    compacting: AtomicU8,
    /// Highest sequence id whose writes are all in this region's files (only grows).
    flushed_seq: AtomicU64,
    /// A flush, compaction or split request is queued for a background thread (one of each).
    flush_queued: AtomicBool,
    compact_queued: AtomicBool,
    split_queued: AtomicBool,
    read_requests: AtomicU64,
    write_requests: AtomicU64,
    /// Set (under the update lock) when a split or merge replaces this region: writers that
    /// find it set re-route their mutation to the new regions.
    retired: AtomicBool,
    /// When this process created the region (database clock, ms; `i64::MIN` for a region
    /// found at open): the region's age for the normalizer (HBase's region id time).
    created_ms: AtomicI64,
}

/// [`Region::compacting`]: a minor compaction runs.
pub(crate) const COMPACTING_MINOR: u8 = 1;
/// [`Region::compacting`]: a major compaction runs.
pub(crate) const COMPACTING_MAJOR: u8 = 2;

/// Clears its compaction kind from the region when dropped.
pub(crate) struct CompactingGuard<'a> {
    region: &'a Region,
    kind: u8,
}

impl Drop for CompactingGuard<'_> {
    fn drop(&mut self) {
        self.region
            .compacting
            .fetch_and(!self.kind, Ordering::AcqRel);
    }
}

/// The kinds of background work a region can have queued, at most one of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Queued {
    Flush,
    Compaction,
    Split,
}

impl Region {
    /// A region over `[start, end)` with an empty memstore and `files`, whose writes up to
    /// `flushed_seq` are in those files.
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
            compacting: AtomicU8::new(0),
            flushed_seq: AtomicU64::new(flushed_seq),
            flush_queued: AtomicBool::new(false),
            compact_queued: AtomicBool::new(false),
            split_queued: AtomicBool::new(false),
            read_requests: AtomicU64::new(0),
            write_requests: AtomicU64::new(0),
            retired: AtomicBool::new(false),
            created_ms: AtomicI64::new(i64::MIN),
        }
    }

    /// Records when the region was created (a new table, a split's daughter, a merge's
    /// result).
    pub fn set_created_ms(&self, ms: i64) {
        self.created_ms.store(ms, Ordering::Release);
    }

    /// When this process created the region; `None` for a region found at open.
    pub fn created_ms(&self) -> Option<i64> {
        let ms = self.created_ms.load(Ordering::Acquire);
        (ms != i64::MIN).then_some(ms)
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

    /// True once a split or merge replaced this region.
    pub fn is_retired(&self) -> bool {
        self.retired.load(Ordering::Acquire)
    }

    /// The region's id (fixed).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// First row of the region (inclusive; empty = the table's first row).
    pub fn start(&self) -> &[u8] {
        &self.start
    }

    /// End of the region (exclusive; empty = past the table's last row).
    pub fn end(&self) -> &[u8] {
        &self.end
    }

    /// Highest sequence id whose writes are all in the region's files.
    pub fn flushed_seq(&self) -> u64 {
        self.flushed_seq.load(Ordering::Acquire)
    }

    /// Read and write requests served since open.
    pub fn request_counts(&self) -> (u64, u64) {
        (
            self.read_requests.load(Ordering::Relaxed),
            self.write_requests.load(Ordering::Relaxed),
        )
    }

    /// Counts one applied mutation.
    pub fn note_write(&self) {
        self.write_requests.fetch_add(1, Ordering::Relaxed);
    }

    /// Enters the region as a writer: `None` when it is retired (the caller routes the row
    /// again). While the guard lives, no flush swaps the memstore and no split or merge
    /// retires the region, so the sequence id the writer takes is covered by the next flush.
    pub fn begin_write(&self) -> Option<RwLockReadGuard<'_, ()>> {
        let g = self.updates.read();
        (!self.is_retired()).then_some(g)
    }

    /// Waits for every writer inside the region to finish (close: nothing is left half
    /// applied).
    pub fn drain_writers(&self) {
        drop(self.updates.write());
    }

    /// Retires the region (a split or merge replaces it): taken under the update lock, so no
    /// write is inside it afterwards, and every later writer re-routes.
    pub fn retire(&self) {
        let _updates = self.updates.write();
        self.retired.store(true, Ordering::Release);
    }

    /// Undoes [`Region::retire`] when the split or merge that retired it failed before it was
    /// logged.
    pub fn unretire(&self) {
        self.retired.store(false, Ordering::Release);
    }

    /// Marks `what` queued; false when it already was (the caller does not queue it twice).
    pub fn try_queue(&self, what: Queued) -> bool {
        !self.queued_flag(what).swap(true, Ordering::AcqRel)
    }

    /// Clears `what`'s queued mark (its job is starting or was dropped).
    pub fn clear_queued(&self, what: Queued) {
        self.queued_flag(what).store(false, Ordering::Release);
    }

    fn queued_flag(&self, what: Queued) -> &AtomicBool {
        match what {
            Queued::Flush => &self.flush_queued,
            Queued::Compaction => &self.compact_queued,
            Queued::Split => &self.split_queued,
        }
    }

    /// Held by the one flush of the region that may run.
    pub fn flush_guard(&self) -> MutexGuard<'_, ()> {
        self.flush_lock.lock()
    }

    /// Held by the one compaction (or split, merge, family purge) of the region that may run.
    pub fn compaction_guard(&self) -> MutexGuard<'_, ()> {
        self.compact_lock.lock()
    }

    /// Marks a compaction of `kind` ([`COMPACTING_MINOR`] or [`COMPACTING_MAJOR`]) as running
    /// until the returned guard is dropped (HBase's `getCompactionState`).
    pub fn compacting(&self, kind: u8) -> CompactingGuard<'_> {
        self.compacting.fetch_or(kind, Ordering::AcqRel);
        CompactingGuard { region: self, kind }
    }

    /// The kinds of compaction running now ([`COMPACTING_MINOR`] | [`COMPACTING_MAJOR`] bits).
    pub fn compaction_running(&self) -> u8 {
        self.compacting.load(Ordering::Acquire)
    }

    /// Starts a flush: under the update lock (no writer inside), moves the active memstore to
    /// the snapshot and gives the region a new empty one. `last_seq` is read there: every
    /// mutation up to it is in the snapshot. A snapshot left by a failed flush is returned
    /// again with its original sequence id (the active memstore holds later writes the retry
    /// does not cover). `None` when there is nothing to flush.
    pub fn begin_flush(&self, last_seq: &dyn Fn() -> u64) -> Option<(Arc<MemStore>, u64)> {
        let _updates = self.updates.write();
        self.swap_for_flush(last_seq)
    }

    /// Keeps every writer out of the region while the guard lives (a snapshot freezes all
    /// regions of a table at once, so their memstores are cut at one moment).
    pub fn freeze_writers(&self) -> parking_lot::RwLockWriteGuard<'_, ()> {
        self.updates.write()
    }

    /// [`Region::begin_flush`] for a caller holding [`Region::freeze_writers`]'s guard of this
    /// region.
    pub fn begin_flush_frozen(
        &self,
        frozen: &parking_lot::RwLockWriteGuard<'_, ()>,
        last_seq: &dyn Fn() -> u64,
    ) -> Option<(Arc<MemStore>, u64)> {
        debug_assert!(std::ptr::eq(
            parking_lot::RwLockWriteGuard::rwlock(frozen),
            &self.updates
        ));
        self.swap_for_flush(last_seq)
    }

    /// True while a snapshot left by a failed flush waits for its retry.
    pub fn has_flush_snapshot(&self) -> bool {
        self.version.read().snapshot.is_some()
    }

    fn swap_for_flush(&self, last_seq: &dyn Fn() -> u64) -> Option<(Arc<MemStore>, u64)> {
        let mut v = self.version.write();
        if let Some(s) = &v.snapshot {
            return Some((s.clone(), v.snapshot_seq));
        }
        if v.active.is_empty() {
            return None;
        }
        let snap = v.active.clone();
        let seq = last_seq();
        // The replaced version holds nothing the new one does not (its memstore is the new
        // snapshot): dropping it here frees nothing but itself.
        *v = Arc::new(RegionVersion {
            active: Arc::new(snap.successor()),
            snapshot: Some(snap.clone()),
            snapshot_seq: seq,
            files: v.files.clone(),
        });
        Some((snap, seq))
    }

    /// Installs the version `next` makes of the current one, and drops the replaced version
    /// only after the lock is released. The replaced version can hold the last reference to a
    /// flushed memstore (freeing a 64 MiB one takes milliseconds) or to block files, and every
    /// writer takes this lock to find the active memstore: dropped under it, that work was the
    /// longest single write of a sequential load (docs/PERFORMANCE.md, "Longest writes").
    fn install_version(&self, next: impl FnOnce(&RegionVersion) -> Arc<RegionVersion>) {
        let old = {
            let mut v = self.version.write();
            let new = next(&v);
            std::mem::replace(&mut *v, new)
        };
        drop(old);
    }

    /// Ends a flush whose files are logged: installs them (each family newest first), drops
    /// the snapshot (its bytes stop counting toward the global memstore total, as in HBase,
    /// even while a reader still holds it) and raises the flushed sequence id to `flush_seq`.
    pub fn finish_flush(&self, files: Vec<Arc<StoreFile>>, flush_seq: u64) {
        self.install_version(|v| {
            let mut all = v.files.clone();
            for f in files {
                let list = all.entry(f.family.clone()).or_default();
                list.push(f);
                sort_newest_first(list);
            }
            if let Some(s) = &v.snapshot {
                s.release_account();
            }
            Arc::new(RegionVersion {
                active: v.active.clone(),
                snapshot: None,
                snapshot_seq: 0,
                files: all,
            })
        });
        self.flushed_seq.fetch_max(flush_seq, Ordering::AcqRel);
    }

    /// Replaces `removed` files of `family` by `added` (a logged compaction), keeping the
    /// family's list newest first.
    pub fn replace_files(&self, family: &[u8], removed: &[u64], added: Vec<Arc<StoreFile>>) {
        self.install_version(|v| {
            let mut files = v.files.clone();
            let list = files.entry(family.to_vec()).or_default();
            list.retain(|f| !removed.contains(&f.id));
            list.extend(added);
            sort_newest_first(list);
            v.with_files(files)
        });
    }

    /// Forgets every file of `family` (a logged purge of a deleted family).
    pub fn drop_family_files(&self, family: &[u8]) {
        self.install_version(|v| {
            let mut files = v.files.clone();
            files.remove(family);
            v.with_files(files)
        });
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

    /// The active memstore, without holding the version: a writer that held the version
    /// could be the one to drop it last, and with it a whole flushed memstore.
    pub fn active(&self) -> Arc<MemStore> {
        self.version.read().active.clone()
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

    /// Ids of the block files the region's current version lists, every family.
    pub fn file_ids(&self) -> Vec<u64> {
        self.current()
            .files
            .values()
            .flatten()
            .map(|f| f.id)
            .collect()
    }

    /// Counts `n` rows or cells read.
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
    /// A scan's own start and stop rows, both set (HBase's `getStartRow` / `getStopRow`):
    /// ROWPREFIX_FIXED_LENGTH Blooms may rule a file out when they share a long enough prefix
    /// [BLOOM-5].
    pub scan_rows: Option<(&'a [u8], &'a [u8])>,
    /// Query time range (files wholly outside it can be skipped when they hold no markers).
    pub time_range: (i64, i64),
    /// Families whose own time range replaces `time_range` [SCAN-5], when any has one.
    pub family_time_ranges: Option<&'a FamilyTimeRanges>,
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
        // A Get's row, hashed once for every file's ROW filter.
        let probe = sel.get_row.map(RowProbe::new);
        for (fam, list) in &self.files {
            if !wanted(fam) {
                continue;
            }
            for f in list
                .iter()
                .filter(|f| file_may_match(f, sel, probe.as_ref()))
            {
                // A Get reads only the files holding its row: no run to walk.
                if in_place && sel.get_row.is_some() {
                    out.push(cursor(f));
                } else {
                    files.push(f);
                }
            }
        }
        if !in_place {
            files.sort_by_key(|f| f.recency());
        }
        if sel.get_row.is_some() || files.len() < 2 {
            out.extend(files.into_iter().map(|f| cursor(f)));
            return;
        }
        // A scan walks each run of consecutive (by recency) row-disjoint files with one
        // cursor that opens one file at a time.
        for run in disjoint_runs(&files) {
            if run.len() == 1 {
                out.push(cursor(files[run.start]));
            } else {
                out.push(SourceCursor::Run(Box::new(RunCursor::new(
                    files[run]
                        .iter()
                        .map(|f| (Arc::clone(&f.reader), (sel.cache)(&f.family)))
                        .collect(),
                ))));
            }
        }
    }
}

/// Whether file `f` may hold cells `sel` reads: its row range, time range and Bloom filter
/// (`probe`: a Get's row, hashed once for all files).
fn file_may_match(f: &StoreFile, sel: &FileSelection<'_>, probe: Option<&RowProbe<'_>>) -> bool {
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
    // [SCAN-5] the family's own range when it has one (`StoreFileScanner.shouldUseScanner`).
    let (min, max) = sel
        .family_time_ranges
        .and_then(|r| r.get(&f.family))
        .unwrap_or(sel.time_range);
    if m.max_ts < min || (m.min_ts >= max && m.delete_count == 0) {
        return false;
    }
    if let Some(p) = probe {
        return match sel.single_column.get(f.family.as_slice()) {
            Some(q) => f.reader.get_may_contain_column(p.row(), q),
            None => f.reader.get_may_contain_row(p),
        };
    }
    // [BLOOM-5] `StoreFileReader.passesGeneralRowPrefixBloomFilter` for scans.
    if let Some((start, stop)) = sel.scan_rows {
        return f.reader.scan_may_contain_rows(start, stop);
    }
    true
}
