//! The memstore's ordered set of [`MemEntry`]: a LevelDB/RocksDB-style skiplist with one writer
//! at a time (a mutex) and lock-free readers, whose nodes live in an arena freed only when the
//! whole set drops (a memstore is never shrunk: a flush replaces it).
//!
//! Why not `crossbeam_skiplist`: a YCSB record is one Put of 10 cells that sort next to each
//! other, and crossbeam searches from the head for each of them (no insert with a hint); its
//! search also pays for lock-free removal (marked pointers, unlinking, epoch pins and
//! reference counts per node). This list inserts a mutation's cells in order with a *finger*:
//! each cell after the first starts every level at the previous cell's predecessor, so a cell
//! that sorts right after the previous one costs a few comparisons instead of a full search
//! (callgrind, `examples/ycsb_load`: see docs/PERFORMANCE.md).
//!
//! Concurrency: inserts take `writer` (a mutex) for the whole mutation; readers never lock. A
//! node is fully written (entry, links) before the `Release` store that links it at level 0 and
//! then above; readers load links with `Acquire`, so every node they reach is initialized.
//! Nodes are never unlinked or freed while the list is alive: a reader's reference lives as
//! long as its borrow of the list. An entry whose key equals an existing one replaces it
//! [SORT-7]: the new entry goes into a node hung off the old one (`over`), which readers follow.
//!
//! Verified by a loom model of this protocol (`skiplist_loom.rs`, `--cfg loom`), a concurrent
//! differential test against crossbeam-skiplist (`skiplist_oracle.rs`) and an AddressSanitizer
//! run: docs/TESTING.md, "Verifying the memstore skiplist".

#![allow(
    unsafe_code,
    reason = "raw node links in an arena: see the module comment and docs/PERFORMANCE.md"
)]

use super::MemEntry;
use std::alloc::{Layout, alloc, dealloc, handle_alloc_error};
use std::cmp::Ordering;
use std::marker::PhantomData;
use std::mem::{align_of, size_of};
use std::ops::Bound;
use std::ptr::{self, null_mut};

// The synchronization primitives come through this shim so that the loom model
// (`skiplist_loom.rs`, `RUSTFLAGS="--cfg loom"`, docs/TESTING.md) checks this very code: under
// loom every atomic access, the writer lock and every read of a node's entry are tracked.
#[cfg(loom)]
use loom::sync::atomic::{AtomicPtr, AtomicUsize, Ordering as AtOrd};
#[cfg(not(loom))]
use parking_lot::Mutex;
#[cfg(not(loom))]
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering as AtOrd};

/// loom's mutex with parking_lot's `lock` (a guard, no poisoning).
#[cfg(loom)]
struct Mutex<T>(loom::sync::Mutex<T>);

#[cfg(loom)]
impl<T> Mutex<T> {
    fn new(v: T) -> Mutex<T> {
        Mutex(loom::sync::Mutex::new(v))
    }

    fn lock(&self) -> loom::sync::MutexGuard<'_, T> {
        self.0.lock().expect("writer lock poisoned")
    }
}

/// A node's entry, written once when the node is made. Under loom it is a checked cell, so
/// the model fails if a reader reaches a node whose entry's write does not happen-before the
/// read (a node published before it was fully written).
#[cfg(not(loom))]
type EntryCell = MemEntry;
#[cfg(loom)]
type EntryCell = loom::cell::UnsafeCell<MemEntry>;

#[cfg(not(loom))]
#[inline]
fn entry_cell(e: MemEntry) -> EntryCell {
    e
}

#[cfg(loom)]
fn entry_cell(e: MemEntry) -> EntryCell {
    loom::cell::UnsafeCell::new(e)
}

/// The entry of `node`.
///
/// # Safety
/// `node` is a live node of a list that outlives `'a`.
#[cfg(not(loom))]
#[inline]
unsafe fn entry<'a>(node: *const Node) -> &'a MemEntry {
    // SAFETY: per the contract; an entry is never written after its node is made.
    unsafe { &(*node).entry }
}

/// The entry of `node`; the read is recorded for loom's causality check.
///
/// # Safety
/// `node` is a live node of a list that outlives `'a`.
#[cfg(loom)]
unsafe fn entry<'a>(node: *const Node) -> &'a MemEntry {
    // SAFETY: per the contract; an entry is never written after its node is made.
    unsafe { (*node).entry.with(|e| &*e) }
}

/// Tallest tower. With a branching factor of 4, 12 levels index 4^12 = 16 M entries at full
/// speed (a 64 MiB memstore of YCSB cells holds ~300 k).
pub(super) const MAX_HEIGHT: usize = 12;

/// A node: header, followed in the arena by `height` links (`AtomicPtr<Node>`).
#[repr(C)]
struct Node {
    entry: EntryCell,
    /// A newer entry with the same key (a replacement node, never linked), or null.
    over: AtomicPtr<Node>,
    height: usize,
}

const LINK: usize = size_of::<AtomicPtr<Node>>();
const _: () = assert!(size_of::<Node>().is_multiple_of(align_of::<AtomicPtr<Node>>()));
const _: () = assert!(align_of::<Node>() <= 8);

/// The links of `node` (`height` of them, right after the header).
///
/// # Safety
/// `node` points to a node allocated by [`Arena::node`].
#[inline]
unsafe fn links(node: *const Node) -> *const AtomicPtr<Node> {
    // SAFETY: the node's allocation is `size_of::<Node>() + height * LINK` bytes (Arena::node),
    // so the links start inside it; the header's size is a multiple of the links' alignment.
    unsafe { node.cast::<u8>().add(size_of::<Node>()).cast() }
}

/// The entry a reader sees at `node`: the last replacement, if any.
///
/// # Safety
/// `node` is a live node of a list that outlives `'a`.
#[inline]
unsafe fn visible<'a>(node: *const Node) -> &'a MemEntry {
    let mut n = node;
    loop {
        // SAFETY: `n` is a live, initialized node (the caller's, or a replacement published
        // with `Release` and loaded with `Acquire`).
        let over = unsafe { (*n).over.load(AtOrd::Acquire) };
        if over.is_null() {
            // SAFETY: as above; nodes live as long as the list.
            return unsafe { entry(n) };
        }
        n = over;
    }
}

/// Bump allocator of nodes: blocks of growing size (4 KiB up to 64 KiB), freed together.
/// Every allocated byte range holds an initialized node; its drop drops the nodes' entries in
/// allocation order (sequential memory, and a mutation's cells, which share one buffer, one
/// after another) rather than in key order.
struct Arena {
    /// Each block with the bytes its nodes occupy (the last block's: `size - left`).
    blocks: Vec<(*mut u8, Layout, usize)>,
    cur: *mut u8,
    left: usize,
}

// SAFETY: the arena only hands out memory; the nodes in it hold `MemEntry` values, which are
// `Send` and `Sync`, and are accessed under the rules of the module comment.
unsafe impl Send for Arena {}

const MIN_BLOCK: usize = 4 << 10;
const MAX_BLOCK: usize = 64 << 10;

impl Arena {
    fn new() -> Arena {
        Arena {
            blocks: Vec::new(),
            cur: null_mut(),
            left: 0,
        }
    }

    /// A new node holding `entry` with `height` null links.
    fn node(&mut self, entry: MemEntry, height: usize) -> *mut Node {
        let size = size_of::<Node>() + height * LINK;
        if self.left < size {
            if let Some(last) = self.blocks.last_mut() {
                last.2 = last.1.size() - self.left;
            }
            let grown = self
                .blocks
                .last()
                .map_or(MIN_BLOCK, |(_, l, _)| l.size() * 2);
            let layout = Layout::from_size_align(grown.clamp(MIN_BLOCK, MAX_BLOCK).max(size), 8)
                .expect("block layout");
            // SAFETY: the layout has a non-zero size.
            let p = unsafe { alloc(layout) };
            if p.is_null() {
                handle_alloc_error(layout);
            }
            self.blocks.push((p, layout, 0));
            self.cur = p;
            self.left = layout.size();
        }
        let n = self.cur.cast::<Node>();
        // SAFETY: `size` bytes at `cur` are unused memory of a live block, 8-aligned (every
        // node size is a multiple of 8 and blocks are 8-aligned).
        unsafe {
            self.cur = self.cur.add(size);
            self.left -= size;
            ptr::write(
                n,
                Node {
                    entry: entry_cell(entry),
                    over: AtomicPtr::new(null_mut()),
                    height,
                },
            );
            let l = links(n);
            for i in 0..height {
                ptr::write(l.add(i).cast_mut(), AtomicPtr::new(null_mut()));
            }
        }
        n
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        if let Some(last) = self.blocks.last_mut() {
            last.2 = last.1.size() - self.left;
        }
        for (p, layout, used) in self.blocks.drain(..) {
            let mut off = 0;
            while off < used {
                // SAFETY: the block's first `used` bytes are nodes written back to back by
                // `node` (header, then `height` links), each initialized; each entry is
                // dropped once, and nothing reads the nodes afterwards (the arena drops with
                // its list, which no reader borrows any more).
                unsafe {
                    let n = p.add(off).cast::<Node>();
                    off += size_of::<Node>() + (*n).height * LINK;
                    ptr::drop_in_place(ptr::addr_of_mut!((*n).entry));
                }
            }
            // SAFETY: allocated by `alloc` with this layout, freed once.
            unsafe { dealloc(p, layout) };
        }
    }
}

struct Writer {
    arena: Arena,
    rng: u32,
}

impl Writer {
    /// Height of a new node: 1, then each further level with probability 1/4.
    fn height(&mut self) -> usize {
        // Xorshift32.
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng = x;
        (1 + (x.trailing_zeros() / 2) as usize).min(MAX_HEIGHT)
    }
}

/// Source of list ids ([`SkipList::id`]); never reused while the process lives. Always std's
/// atomic, also under loom: the id is not part of the protocol the model checks.
static NEXT_LIST_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Where an [`Iter`] of a list stopped: the node of the entry it yielded last, with the id of
/// its list. [`SkipList::iter_after`] resumes there without a search; it accepts the position
/// only from the list that made it (the id), whose nodes live as long as the list does.
#[derive(Clone, Copy, Debug)]
pub(super) struct Position {
    node: *mut Node,
    list: u64,
}

// SAFETY: a position is a node address and a list id; it is dereferenced only by
// `SkipList::iter_after` of the list with that id, which owns the node (nodes are freed only
// when their list drops, and `iter_after` borrows the list).
unsafe impl Send for Position {}
// SAFETY: as for `Send`: shared positions are only copied, never dereferenced themselves.
unsafe impl Sync for Position {}

/// The ordered set (see the module comment).
pub(super) struct SkipList {
    /// Unique among the lists of this process ([`Position`]s name their list by it).
    id: u64,
    head: [AtomicPtr<Node>; MAX_HEIGHT],
    /// Levels in use (readers may read a stale value: they then start lower, or find null
    /// head links, both correct).
    height: AtomicUsize,
    len: AtomicUsize,
    writer: Mutex<Writer>,
}

impl std::fmt::Debug for SkipList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkipList")
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}

impl Default for SkipList {
    fn default() -> Self {
        SkipList::new()
    }
}

/// Where a search stands at each level: the links (a node's or the head's) whose target is the
/// first node not less than the key.
type Preds = [*const AtomicPtr<Node>; MAX_HEIGHT];

impl SkipList {
    /// An empty list.
    pub(super) fn new() -> SkipList {
        SkipList {
            id: NEXT_LIST_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            head: std::array::from_fn(|_| AtomicPtr::new(null_mut())),
            height: AtomicUsize::new(1),
            len: AtomicUsize::new(0),
            writer: Mutex::new(Writer {
                arena: Arena::new(),
                rng: 0x2545_F491,
            }),
        }
    }

    /// Number of distinct keys.
    pub(super) fn len(&self) -> usize {
        self.len.load(AtOrd::Relaxed)
    }

    /// The link at `level` of the links starting at `base`.
    ///
    /// # Safety
    /// `base` is the head's links or a live node's links, with more than `level` of them.
    #[inline]
    unsafe fn next(base: *const AtomicPtr<Node>, level: usize) -> *mut Node {
        // SAFETY: per the contract.
        unsafe { (*base.add(level)).load(AtOrd::Acquire) }
    }

    /// Moves `preds[level]` right while its successor is less than `key` (or equal, when
    /// `inclusive` is false); `stop` is the successor at the level above where the search
    /// stopped, known not to be less (it is not compared again). Returns the successor.
    ///
    /// # Safety
    /// `preds[level]` is the head's links or a live node's links with more than `level` links.
    #[inline]
    unsafe fn walk(
        preds: &mut Preds,
        level: usize,
        key: &MemEntry,
        inclusive: bool,
        stop: *mut Node,
    ) -> *mut Node {
        loop {
            // SAFETY: per the contract; nodes reached are live and have > level links (a node
            // is linked at a level only below its height).
            let next = unsafe { Self::next(preds[level], level) };
            if next.is_null() || next == stop {
                return next;
            }
            // SAFETY: `next` is live; comparisons use the node's own entry (a replacement has
            // the same key).
            let ord = unsafe { entry(next).cmp(key) };
            if ord == Ordering::Less || (!inclusive && ord == Ordering::Equal) {
                // SAFETY: `next` is a live node.
                preds[level] = unsafe { links(next) };
            } else {
                return next;
            }
        }
    }

    /// Full search: the predecessors of `key` at every level below `top`.
    fn search(&self, key: &MemEntry, inclusive: bool, top: usize, preds: &mut Preds) -> *mut Node {
        let mut stop = null_mut();
        let mut found = null_mut();
        for level in (0..top).rev() {
            if level + 1 < top {
                preds[level] = preds[level + 1];
            }
            // SAFETY: preds hold the head's links or nodes' links reached at a level they have.
            found = unsafe { Self::walk(preds, level, key, inclusive, stop) };
            stop = found;
        }
        found
    }

    /// The first entry `>= key` (`inclusive`) or `> key`.
    fn seek(&self, key: &MemEntry, inclusive: bool) -> *mut Node {
        let mut preds: Preds = [self.head.as_ptr(); MAX_HEIGHT];
        let top = self.height.load(AtOrd::Relaxed);
        self.search(key, inclusive, top, &mut preds)
    }

    /// Entries in order from `from`.
    pub(super) fn iter_from(&self, from: Bound<&MemEntry>) -> Iter<'_> {
        let node = match from {
            Bound::Unbounded => self.head[0].load(AtOrd::Acquire),
            Bound::Included(k) => self.seek(k, true),
            Bound::Excluded(k) => self.seek(k, false),
        };
        self.iter_at(node)
    }

    /// Entries in order from `node` (null: none).
    fn iter_at(&self, node: *mut Node) -> Iter<'_> {
        Iter {
            node,
            last: null_mut(),
            list: self.id,
            _list: PhantomData,
        }
    }

    /// Entries in order after the entry at `pos` (those `>` its key, as
    /// `iter_from(Bound::Excluded(key))` finds them, entries linked since included) without a
    /// search: the node's link is followed. `None` when `pos` is not from this list.
    pub(super) fn iter_after(&self, pos: Position) -> Option<Iter<'_>> {
        if pos.list != self.id || pos.node.is_null() {
            return None;
        }
        // SAFETY: `pos` was made by an `Iter` of this list (the id is unique to it), so its
        // node is a node of this list, live while `self` is borrowed; every node has a link
        // at level 0.
        let node = unsafe { Self::next(links(pos.node), 0) };
        Some(self.iter_at(node))
    }

    /// The last entry less than `key`.
    pub(super) fn last_below(&self, key: &MemEntry) -> Option<&MemEntry> {
        let mut preds: Preds = [self.head.as_ptr(); MAX_HEIGHT];
        let top = self.height.load(AtOrd::Relaxed);
        self.search(key, true, top, &mut preds);
        if preds[0] == self.head.as_ptr() {
            return None;
        }
        // SAFETY: `preds[0]` is the links of a live node, which start right after its header.
        let node = unsafe { preds[0].cast::<u8>().sub(size_of::<Node>()).cast::<Node>() };
        // SAFETY: a live node of this list, borrowed for as long as the list.
        Some(unsafe { visible(node) })
    }

    /// Inserts `entries` under the writer lock; an entry whose key is already present replaces
    /// the present one (for readers) [SORT-7]. Entries in ascending order (a mutation's cells
    /// usually are) are inserted with a finger: each search starts at the previous entry's
    /// predecessors. Each entry comes with `after`: true when the caller knows it sorts after
    /// the previous entry (saves that comparison; false means "compare"). Returns the number
    /// of new keys.
    pub(super) fn insert(&self, entries: impl IntoIterator<Item = (MemEntry, bool)>) -> usize {
        let mut w = self.writer.lock();
        let head = self.head.as_ptr();
        let mut preds: Preds = [head; MAX_HEIGHT];
        let mut prev: Option<*mut Node> = None;
        // True when `prev` was linked by this call (preds[0] is its node), not a replacement.
        let mut prev_linked = false;
        let mut added = 0;
        for (e, after) in entries {
            let top = self.height.load(AtOrd::Relaxed);
            // SAFETY: `prev` is a live node inserted by this call.
            let after_prev =
                prev.is_some_and(|p| after || unsafe { entry(p).cmp(&e) } == Ordering::Less);
            // SAFETY: preds[0] holds the head's links or a live node's.
            let succ0 = unsafe { Self::next(preds[0], 0) };
            let next = if after_prev
                && prev_linked
                // SAFETY: `succ0` is null or a live node.
                && (succ0.is_null() || unsafe { entry(succ0).cmp(&e) } != Ordering::Less)
            {
                // Nothing lies between the previous entry (whose node is preds[0]) and `e`,
                // so every level's predecessor of the previous entry is also `e`'s.
                succ0
            } else if after_prev {
                // Every pred is less than the previous entry, so less than `e`: walk on.
                let mut stop = null_mut();
                let mut found = null_mut();
                for level in (0..top).rev() {
                    // SAFETY: preds hold links of the head or of nodes at a level they have.
                    found = unsafe { Self::walk(&mut preds, level, &e, true, stop) };
                    stop = found;
                }
                found
            } else {
                preds = [head; MAX_HEIGHT];
                self.search(&e, true, top, &mut preds)
            };
            // SAFETY: `next` is null or a live node.
            if !next.is_null() && unsafe { entry(next).cmp(&e) } == Ordering::Equal {
                let n = w.arena.node(e, 0);
                let mut last = next;
                loop {
                    // SAFETY: live nodes; only the writer (us) stores `over`.
                    let over = unsafe { (*last).over.load(AtOrd::Acquire) };
                    if over.is_null() {
                        break;
                    }
                    last = over;
                }
                // SAFETY: as above. Release publishes the initialized replacement.
                unsafe { (*last).over.store(n, AtOrd::Release) };
                prev = Some(next);
                prev_linked = false;
                continue;
            }
            let height = w.height();
            if height > top {
                // Levels above `top` start at the head (preds already say so).
                self.height.store(height, AtOrd::Relaxed);
            }
            let n = w.arena.node(e, height);
            // SAFETY: `n` is new (height links); preds below `height` are the head's links or
            // nodes' links at levels they have. Each link of `n` is set before `n` is published
            // at that level with `Release`.
            unsafe {
                let nl = links(n);
                for (level, pred) in preds.iter_mut().enumerate().take(height) {
                    let succ = Self::next(*pred, level);
                    (*nl.add(level)).store(succ, AtOrd::Relaxed);
                    (*(*pred).add(level)).store(n, AtOrd::Release);
                    *pred = nl;
                }
            }
            added += 1;
            prev = Some(n);
            prev_linked = true;
        }
        self.len.fetch_add(added, AtOrd::Relaxed);
        added
    }
}

/// Entries in order, from a position.
pub(super) struct Iter<'a> {
    node: *mut Node,
    /// The node of the entry yielded last (null before the first).
    last: *mut Node,
    /// The list's id.
    list: u64,
    _list: PhantomData<&'a SkipList>,
}

impl Iter<'_> {
    /// Where the iterator stands: after the entry it yielded last; `None` before the first.
    pub(super) fn position(&self) -> Option<Position> {
        (!self.last.is_null()).then_some(Position {
            node: self.last,
            list: self.list,
        })
    }
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a MemEntry;
    #[inline]
    fn next(&mut self) -> Option<&'a MemEntry> {
        if self.node.is_null() {
            return None;
        }
        // SAFETY: a live node of the list borrowed for 'a (nodes are never freed before the
        // list drops); every node has at least one link.
        unsafe {
            let e = visible(self.node);
            self.last = self.node;
            self.node = SkipList::next(links(self.node), 0);
            Some(e)
        }
    }
}

// Not under loom: its atomics work only inside a loom model (skiplist_loom.rs).
#[cfg(all(test, not(loom)))]
#[path = "skiplist_tests.rs"]
mod tests;
