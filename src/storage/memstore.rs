//! The MemStore: a region's in-memory sorted cells (a skiplist, `memstore/skiplist.rs`), plus
//! the MVCC that makes a mutation's cells visible all at once [ATOM-1].
//!
//! Thread safety: reads never lock and run concurrently with inserts; the inserts of one
//! memstore take turns (the skiplist's writer lock, held for one mutation's cells).
//! Invariants: every entry's key is a valid encoded key; `size` only grows; a cell with sequence
//! id `s` is visible to a reader whose read point is `>= s`, and the read point only passes `s`
//! once every sequence id `<= s` has completed.

use crate::base::error::Result;
use crate::model::cursor::CellCursor;
use crate::model::key::{KeyRef, compare_encoded};
use bytes::{Bytes, BytesMut};
use std::cmp::Ordering;
use std::ops::Bound;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering as AtOrd};

mod skiplist;
use skiplist::Position;
#[cfg(all(test, loom))]
mod skiplist_loom;
#[cfg(all(test, not(loom)))]
mod skiplist_oracle;
use skiplist::SkipList;

/// One cell in the memstore: its key and payload, a slice of its memstore's slab (see
/// [`MemStore::copy_in`]: the cells of a mutation lie back to back in it), plus the first bytes of the
/// row inline so most skiplist comparisons finish without touching the buffer.
#[derive(Clone, Debug)]
pub struct MemEntry {
    /// The key, then the payload.
    buf: Bytes,
    /// Bytes of the key; [`u32::MAX`]: all of `buf` (a probe key of 4 GiB or more, whose
    /// payload is empty: written cells' keys are shorter, [`crate::model::mutation::MAX_QUALIFIER_LEN`]).
    key_len: u32,
    /// False when the key does not parse: then comparisons use [`compare_encoded`] alone,
    /// which orders malformed keys bytewise, and `prefix` is unused.
    has_prefix: bool,
    /// [`row_prefix`] of the key (first 16 bytes of the row).
    prefix: [u64; 2],
}

/// Heap bytes of one memstore cell beyond its key and payload bytes: the skiplist node in the
/// arena (the 56-byte `MemEntry`, a replacement link and the height, 4/3 tower links on
/// average: ~83 bytes, no per-node allocator overhead).
///
/// Measured with `examples/memstore_heap.rs` (resident-set growth per cell of 16-byte rows and
/// 100-byte values, 140 bytes of key and payload), so a memstore's accounted size matches the
/// memory it occupies (HBase counts heap overhead in the memstore size too): 222 bytes per cell
/// put alone, 225 as one of a 10-cell mutation, against 223 accounted. With one `Arc` buffer per
/// mutation (no slabs) it was 250 and 217 bytes.
const ENTRY_OVERHEAD: u64 = 83;

/// Slabs: a memstore copies each mutation's cells into its current slab, a `BytesMut` of 4 KiB
/// growing to [`SLAB_SIZE`] (a region written once does not hold 64 KiB), and keeps
/// reference-counted slices of it; a slab is freed with the last cell in it, so with its
/// memstore (or the last reader still holding one of its cells). A put then allocates once per
/// slab, not once per mutation: no allocator header and `Arc` counts per mutation, and writers
/// no longer contend with the flush thread, which frees a whole memstore's cells and returns
/// free memory to the system (`malloc_trim` holds the allocator's arena lock meanwhile), on
/// every put (docs/PERFORMANCE.md, "Longest writes"). Slabs are per memstore, not per writer
/// thread: a thread's slab would hold cells of several regions, and the memory of a flushed
/// memstore would stay until every other memstore sharing its slabs flushed too.
const SLAB_SIZE: usize = 64 << 10;
/// The first slab of a memstore.
const FIRST_SLAB: usize = 4 << 10;
/// Mutations larger than this get a buffer of their own rather than a slab's tail.
const SLAB_LARGEST: usize = SLAB_SIZE / 8;

thread_local! {
    /// Scratch space of [`shared_buffer`] and [`MemStore::insert_cells`].
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    /// Entry positions of [`MemStore::insert_cells`].
    static POSITIONS: std::cell::RefCell<Vec<EntryPos>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Where [`MemStore::insert_cells`] put one cell in the mutation's buffer.
struct EntryPos {
    off: usize,
    key_len: usize,
    payload_len: usize,
    prefix: [u64; 2],
    /// Known to sort after the previous cell (see [`sorts_after`]).
    after: bool,
}

/// True when `k` is known to sort after `prev`: both borrow the same row slice (the cells of
/// one mutation do), both encode to valid keys (then [`compare_encoded`] orders them as
/// [`KeyRef::cmp_key`] does), and the rest of the key orders `k` later [SORT-1]. False means
/// unknown.
#[inline]
fn sorts_after(prev: &KeyRef<'_>, k: &KeyRef<'_>) -> bool {
    std::ptr::eq(prev.row, k.row)
        && k.row.len() <= u16::MAX as usize
        && prev.family.len() <= u8::MAX as usize
        && k.family.len() <= u8::MAX as usize
        && prev
            .family
            .cmp(k.family)
            .then_with(|| prev.qualifier.cmp(k.qualifier))
            .then_with(|| k.ts.cmp(&prev.ts))
            .then_with(|| k.type_code.cmp(&prev.type_code))
            .then_with(|| k.seq.cmp(&prev.seq))
            == Ordering::Less
}

/// The bytes `fill` writes, built in the per-thread scratch buffer and copied into a buffer of
/// their own (probe keys; cells go to a memstore's slab).
fn shared_buffer(fill: impl FnOnce(&mut Vec<u8>)) -> Bytes {
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        s.clear();
        fill(&mut s);
        Bytes::copy_from_slice(&s)
    })
}

/// The first 16 bytes of the key's row, zero-padded, as two big-endian words (compared
/// lexicographically, they order as the 16 bytes do). For two valid keys, unequal prefixes
/// order them as their rows do: at the first differing position either both rows have a byte,
/// or the shorter row is padded with 0 and is a prefix of the other (so it sorts first).
/// Sixteen bytes cover whole db_bench-style keys and the distinguishing digits of YCSB's
/// `user…` keys, whose first 8 bytes are often shared by many rows.
#[inline]
fn row_prefix(key: &[u8]) -> Option<[u64; 2]> {
    Some(prefix_of_row(KeyRef::parse(key)?.row))
}

/// [`row_prefix`] of a key whose row is `row`.
#[inline]
fn prefix_of_row(row: &[u8]) -> [u64; 2] {
    let mut p = [0u8; 16];
    let n = row.len().min(16);
    p[..n].copy_from_slice(&row[..n]);
    let (hi, lo) = p.split_at(8);
    let word = |b: &[u8]| {
        let mut w = [0u8; 8];
        w.copy_from_slice(b);
        u64::from_be_bytes(w)
    };
    [word(hi), word(lo)]
}

/// `len` as a key length field ([`u32::MAX`]: the whole buffer). A written cell's key is
/// shorter than 2 GiB ([`crate::model::mutation::MAX_QUALIFIER_LEN`]); only a probe key, with
/// an empty payload, can be longer.
fn key_len_field(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

impl MemEntry {
    /// Builds an entry from an encoded key and payload.
    pub fn new(key: &[u8], payload: &[u8]) -> MemEntry {
        let buf = shared_buffer(|s| {
            s.extend_from_slice(key);
            s.extend_from_slice(payload);
        });
        let prefix = row_prefix(key);
        MemEntry {
            buf,
            key_len: key_len_field(key.len()),
            has_prefix: prefix.is_some(),
            prefix: prefix.unwrap_or_default(),
        }
    }

    /// The encoded key.
    #[inline]
    pub fn key(&self) -> &[u8] {
        if self.key_len == u32::MAX {
            return &self.buf;
        }
        &self.buf[..self.key_len as usize]
    }
    /// The encoded payload.
    #[inline]
    pub fn payload(&self) -> &[u8] {
        if self.key_len == u32::MAX {
            return &[];
        }
        &self.buf[self.key_len as usize..]
    }
}

impl PartialEq for MemEntry {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for MemEntry {}
impl PartialOrd for MemEntry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for MemEntry {
    /// Inlined for the common case (unequal row prefixes: two word comparisons on data inside
    /// the skiplist nodes); keys whose prefixes tie are compared out of line.
    #[inline(always)]
    fn cmp(&self, o: &Self) -> Ordering {
        if self.has_prefix && o.has_prefix && self.prefix != o.prefix {
            return self.prefix.cmp(&o.prefix);
        }
        self.cmp_keys(o)
    }
}

impl MemEntry {
    #[inline(never)]
    fn cmp_keys(&self, o: &Self) -> Ordering {
        compare_encoded(self.key(), o.key())
    }
}

/// The sorted cells of one region not yet flushed.
#[derive(Debug)]
pub struct MemStore {
    set: SkipList,
    size: AtomicU64,
    min_seq: AtomicU64,
    /// The database-wide total this memstore's size is also added to, and subtracted from
    /// again when its flush completes ([`MemStore::release_account`]) or, without a flush,
    /// when it is dropped [`crate::DbOptions::global_memstore_size`].
    account: Option<Arc<AtomicU64>>,
    /// The size was taken out of `account` ([`MemStore::release_account`]).
    released: AtomicBool,
    /// The slab cells are copied into ([`MemStore::copy_in`]) and the size it was made with.
    slab: parking_lot::Mutex<(BytesMut, usize)>,
}

impl MemStore {
    /// An empty memstore.
    pub fn new() -> MemStore {
        MemStore {
            set: SkipList::new(),
            size: AtomicU64::new(0),
            min_seq: AtomicU64::new(u64::MAX),
            account: None,
            released: AtomicBool::new(false),
            slab: parking_lot::Mutex::new((BytesMut::new(), 0)),
        }
    }

    /// `src` copied into this memstore's slab (a new one, twice the last one's size up to
    /// [`SLAB_SIZE`], when the current one has no room; a buffer of its own when `src` is
    /// larger than [`SLAB_LARGEST`]).
    fn copy_in(&self, src: &[u8]) -> Bytes {
        if src.len() > SLAB_LARGEST {
            return Bytes::copy_from_slice(src);
        }
        let mut guard = self.slab.lock();
        let (slab, made) = &mut *guard;
        if slab.capacity() < src.len() {
            // The old slab lives on while cells in it do (`split` left it empty).
            *made = (*made * 2).clamp(FIRST_SLAB, SLAB_SIZE);
            *slab = BytesMut::with_capacity((*made).max(src.len()));
        }
        slab.extend_from_slice(src);
        slab.split().freeze()
    }

    /// An empty memstore whose size is also counted in `account` while it lives.
    pub(crate) fn with_account(account: Arc<AtomicU64>) -> MemStore {
        let mut m = MemStore::new();
        m.account = Some(account);
        m
    }

    /// An empty memstore counted in the same account as this one (a flush's new active
    /// memstore).
    pub(crate) fn successor(&self) -> MemStore {
        let mut m = MemStore::new();
        m.account = self.account.clone();
        m
    }

    fn count(&self, heap: u64) {
        self.size.fetch_add(heap, AtOrd::Relaxed);
        if let Some(a) = &self.account {
            a.fetch_add(heap, AtOrd::Relaxed);
        }
    }

    /// Takes this memstore's size out of its account (once; its drop does it otherwise): a
    /// flushed snapshot, which takes no more inserts.
    pub(crate) fn release_account(&self) {
        if let Some(a) = &self.account
            && !self.released.swap(true, AtOrd::AcqRel)
        {
            a.fetch_sub(self.size(), AtOrd::Relaxed);
        }
    }

    /// Inserts a cell. A cell with an identical key replaces the earlier one: the last cell of a
    /// mutation wins [SORT-7].
    #[cfg(any(test, feature = "testing"))]
    pub fn insert(&self, key: &[u8], payload: &[u8]) {
        let seq = KeyRef::parse(key).map(|k| k.seq);
        let mut e = MemEntry::new(key, payload);
        e.buf = self.copy_in(&e.buf);
        if let Some(seq) = seq {
            self.min_seq.fetch_min(seq, AtOrd::Relaxed);
        }
        self.count(e.buf.len() as u64 + ENTRY_OVERHEAD);
        self.set.insert([(e, false)]);
    }

    /// Inserts the cells of one mutation, given as key and payload parts, in order (same rules
    /// as [`MemStore::insert`]): each key and payload is encoded once, all copied into the
    /// memstore's slab together (no allocation of their own, [`MemStore::copy_in`]).
    pub fn insert_cells<'a>(
        &self,
        cells: impl IntoIterator<Item = (KeyRef<'a>, Option<u64>, &'a [u8])>,
    ) {
        SCRATCH.with(|bytes| {
            POSITIONS.with(|pos| {
                let (mut bytes, mut pos) = (bytes.borrow_mut(), pos.borrow_mut());
                bytes.clear();
                pos.clear();
                let mut min_seq = u64::MAX;
                let mut prev: Option<KeyRef<'a>> = None;
                for (k, ttl_ms, value) in cells {
                    let off = bytes.len();
                    k.encode_into(&mut bytes);
                    let key_len = bytes.len() - off;
                    crate::model::payload::encode_into(&mut bytes, ttl_ms, value);
                    pos.push(EntryPos {
                        off,
                        key_len,
                        payload_len: bytes.len() - off - key_len,
                        prefix: prefix_of_row(k.row),
                        after: prev.as_ref().is_some_and(|p| sorts_after(p, &k)),
                    });
                    min_seq = min_seq.min(k.seq);
                    prev = Some(k);
                }
                if pos.is_empty() {
                    return;
                }
                let buf = self.copy_in(&bytes);
                let heap = buf.len() as u64 + pos.len() as u64 * ENTRY_OVERHEAD;
                self.min_seq.fetch_min(min_seq, AtOrd::Relaxed);
                self.count(heap);
                self.set.insert(pos.iter().map(|p| {
                    let e = MemEntry {
                        buf: buf.slice(p.off..p.off + p.key_len + p.payload_len),
                        key_len: key_len_field(p.key_len),
                        has_prefix: true,
                        prefix: p.prefix,
                    };
                    (e, p.after)
                }));
            })
        });
    }

    /// Approximate bytes held.
    pub fn size(&self) -> u64 {
        self.size.load(AtOrd::Relaxed)
    }

    /// Number of cells.
    #[cfg(any(test, feature = "testing"))]
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.set.len() == 0
    }

    /// Smallest sequence id inserted (`u64::MAX` when empty).
    pub fn min_seq(&self) -> u64 {
        self.min_seq.load(AtOrd::Relaxed)
    }

    /// Every entry in order (for flushes), borrowed: a flush copies each cell into a block
    /// once, and a clone per entry cost two atomic reference-count updates of its slab.
    pub fn iter(&self) -> impl Iterator<Item = &MemEntry> + '_ {
        self.set.iter_from(Bound::Unbounded)
    }
}

impl Default for MemStore {
    fn default() -> Self {
        MemStore::new()
    }
}

impl Drop for MemStore {
    fn drop(&mut self) {
        self.release_account();
    }
}

/// Entries copied out of the skiplist right after a seek (point reads need one or two).
const FIRST_BATCH: usize = 2;
/// Largest batch, reached by doubling while a cursor keeps reading sequentially.
const MAX_BATCH: usize = 64;

/// A cursor over a memstore. It copies small batches of entry handles out of the skiplist
/// (cheap `Arc` clones), so it owns no borrow of the map and never blocks writers. Cells
/// inserted after the cursor passed their position are not seen; the MVCC read point filter
/// (applied by the reader) hides cells committed after the read began.
pub struct MemCursor {
    mem: Arc<MemStore>,
    batch: Vec<MemEntry>,
    pos: usize,
    /// True when the skiplist has no entries after the batch.
    at_end: bool,
    /// Size of the next refill.
    next_batch: usize,
    /// Where the skiplist iteration that took the batch stopped (its last entry's node): a
    /// refill resumes there instead of searching for the last entry again.
    resume: Option<Position>,
}

impl MemCursor {
    /// An unpositioned cursor.
    pub fn new(mem: Arc<MemStore>) -> MemCursor {
        MemCursor {
            mem,
            batch: Vec::new(),
            pos: 0,
            at_end: true,
            next_batch: FIRST_BATCH,
            resume: None,
        }
    }

    fn fill(&mut self, from: Bound<&MemEntry>, n: usize) {
        let it = self.mem.set.iter_from(from);
        self.resume = take_batch(&mut self.batch, it, n);
        self.after_fill(n);
    }

    fn after_fill(&mut self, n: usize) {
        self.pos = 0;
        self.at_end = self.batch.len() < n;
        self.next_batch = (n * 2).min(MAX_BATCH);
    }

    /// The batch after the current one: from where the last batch's iteration stopped (no
    /// search; entries linked after it since are seen, as a search would see them), or by a
    /// search for its last entry when there is no such position.
    fn refill(&mut self) {
        let n = self.next_batch;
        match self.resume.and_then(|p| self.mem.set.iter_after(p)) {
            Some(it) => {
                self.resume = take_batch(&mut self.batch, it, n);
                self.after_fill(n);
            }
            None => {
                let last = self.batch[self.batch.len() - 1].clone();
                self.fill(Bound::Excluded(&last), n);
            }
        }
    }
}

impl MemCursor {
    /// Answers a seek from the held batch when it can: the batch is a run of consecutive
    /// skiplist entries starting at `batch[0]`, so for a target at or after `batch[0]` the first
    /// batch entry `>=` the target is the skiplist's (or, when the batch ends the skiplist,
    /// nothing is). Entries inserted since the batch was taken are not seen, as for `next`: they
    /// were not visible at the reader's read point. Saves the second skiplist search of a Get
    /// whose row has an older version or several columns.
    fn seek_in_batch(&mut self, target: &[u8]) -> bool {
        let Some(first) = self.batch.first() else {
            return false;
        };
        if compare_encoded(first.key(), target) == Ordering::Greater {
            return false;
        }
        let i = self
            .batch
            .partition_point(|e| compare_encoded(e.key(), target) == Ordering::Less);
        if i < self.batch.len() || self.at_end {
            self.pos = i;
            return true;
        }
        false
    }

    /// Refills from `probe` (the entry form of `target`) with the target row's entries plus
    /// the first entry after them (at least [`FIRST_BATCH`], at most [`MAX_BATCH`]): one
    /// skiplist search then serves the rest of a Get's row, including next-column seeks.
    ///
    /// The batch also ends at the [`MAX_VERSIONS_IN_BATCH`]th consecutive version of one
    /// column: a column updated many times since the last flush (a hot row under a
    /// read-modify-write load) would otherwise fill the batch with versions the reader skips
    /// with a next-column seek, each refill walking and copying up to [`MAX_BATCH`] entries.
    /// Stopping there makes that seek one skiplist search straight to the next column.
    fn fill_row(&mut self, probe: &MemEntry, target: &[u8]) {
        self.batch.clear();
        // A new cursor's first refill: room for a typical row at once, not by doubling.
        self.batch.reserve(16);
        self.pos = 0;
        // The encoded row (length prefix and bytes) starts every key of the row.
        let row_prefix = KeyRef::parse(target).map(|k| &target[..2 + k.row.len()]);
        let mut exhausted = true;
        let mut versions = 0usize;
        let mut it = self.mem.set.iter_from(Bound::Included(probe));
        for e in it.by_ref() {
            let in_row = row_prefix.is_some_and(|p| e.key().starts_with(p));
            versions = match self.batch.last() {
                Some(prev) if same_column(prev.key(), e.key()) => versions + 1,
                _ => 1,
            };
            self.batch.push(e.clone());
            if self.batch.len() >= MAX_BATCH
                || (!in_row && self.batch.len() >= FIRST_BATCH)
                || versions >= MAX_VERSIONS_IN_BATCH
            {
                exhausted = false;
                break;
            }
        }
        self.resume = it.position();
        self.at_end = exhausted;
        self.next_batch = (self.batch.len() * 2).clamp(2 * FIRST_BATCH, MAX_BATCH);
    }
}

/// Replaces `batch` with the next `n` entries of `it`; returns where `it` stopped.
fn take_batch(batch: &mut Vec<MemEntry>, mut it: skiplist::Iter<'_>, n: usize) -> Option<Position> {
    batch.clear();
    for e in it.by_ref().take(n) {
        batch.push(e.clone());
    }
    it.position()
}

/// Consecutive versions of one column a row refill takes before it stops (see
/// [`MemCursor::fill_row`]): two versions (a value and the one it replaced) still come in
/// one batch.
const MAX_VERSIONS_IN_BATCH: usize = 3;

/// True when two encoded keys name the same row, family and qualifier: everything before the
/// trailer is equal (the length fields make that prefix determine the column).
#[inline]
fn same_column(a: &[u8], b: &[u8]) -> bool {
    use crate::model::key::KEY_TRAILER_LEN;
    let n = a.len();
    // The byte before the trailer (the qualifier's last byte, usually) differs between
    // neighbouring columns: checked first, it spares most full comparisons.
    n == b.len()
        && n > KEY_TRAILER_LEN
        && a[n - KEY_TRAILER_LEN - 1] == b[n - KEY_TRAILER_LEN - 1]
        && a[..n - KEY_TRAILER_LEN] == b[..n - KEY_TRAILER_LEN]
}

impl CellCursor for MemCursor {
    fn valid(&self) -> bool {
        self.pos < self.batch.len()
    }
    fn key(&self) -> &[u8] {
        self.batch[self.pos].key()
    }
    fn payload(&self) -> &[u8] {
        self.batch[self.pos].payload()
    }
    fn entry(&self) -> (&[u8], &[u8]) {
        let e = &self.batch[self.pos];
        (e.key(), e.payload())
    }
    fn next(&mut self) -> Result<()> {
        self.pos += 1;
        if self.pos >= self.batch.len() && !self.at_end {
            self.refill();
        }
        Ok(())
    }
    fn seek(&mut self, target: &[u8]) -> Result<()> {
        if self.seek_in_batch(target) {
            return Ok(());
        }
        // A search from the head, not a finger search from `resume`: tried, and slower on hot
        // rows (callgrind, readprof `hot`: 770 -> 846 M instructions), because the finger's
        // comparisons are all inside one row (long shared prefixes, compared out of line)
        // where the head's upper levels mostly differ in the inline row prefix.
        let probe = MemEntry::new(target, b"");
        self.fill_row(&probe, target);
        Ok(())
    }
    fn prev_row(&mut self, row: &[u8]) -> Result<Option<Vec<u8>>> {
        let probe = MemEntry::new(&crate::model::key::first_on_row(row), b"");
        Ok(self
            .mem
            .set
            .last_below(&probe)
            .and_then(|e| KeyRef::parse(e.key()).map(|k| k.row.to_vec())))
    }
    fn seek_to_first(&mut self) -> Result<()> {
        self.fill(Bound::Unbounded, MAX_BATCH);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
