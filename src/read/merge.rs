//! K-way merge of cursors with a binary heap. On equal keys the child with the lower index wins
//! (callers order children newest first: active memstore, snapshot, then files newest to oldest)
//! [SORT-6].

use crate::base::error::Result;
use crate::model::cursor::{CellCursor, SHARES_ROW};
use crate::model::key::{compare_encoded, compare_encoded_rows};
use std::cmp::Ordering;

/// Merges sorted children into one sorted stream. `C` is the children's cursor type: the
/// region read path uses the concrete `SourceCursor` enum (no boxes,
/// static dispatch); compactions merge boxed cursors.
pub struct MergeCursor<C: CellCursor = Box<dyn CellCursor>> {
    children: Vec<C>,
    /// Indices of valid children; `heap[0]` is the smallest.
    heap: Vec<usize>,
    /// Set by `prev_row`: the next seek goes backwards, so every child must move.
    reposition_all: bool,
    /// The heap position (1 or 2) of the smaller of the root's two children, when known
    /// (`0` = unknown). Only the root's cursor moves in `next`, so while the root stays the
    /// smallest the answer stays true: a run of cells from one source costs one comparison per
    /// step instead of two.
    second: usize,
    /// The root's row sorts before the rows of every other child. While a `next` keeps the
    /// root on its row (its cursor says so without comparing, [`CellCursor::row_unchanged`]),
    /// the root stays the smallest with no comparison at all: a row held by one source streams
    /// through the merge for free.
    lead: bool,
    /// The last `next` kept the same child on top, and this is how much of its key that
    /// child's cell shares with its cell before ([`CellCursor::shares`]), which was the merged
    /// stream's cell before; 0 otherwise.
    shares: u8,
}

impl<C: CellCursor> MergeCursor<C> {
    /// Merges `children` (newest source first).
    pub fn new(children: Vec<C>) -> MergeCursor<C> {
        let n = children.len();
        MergeCursor {
            children,
            heap: Vec::with_capacity(n),
            reposition_all: false,
            second: 0,
            lead: false,
            shares: 0,
        }
    }

    /// Merges `children` using `heap` (emptied) as the heap's buffer.
    pub fn with_heap(children: Vec<C>, mut heap: Vec<usize>) -> MergeCursor<C> {
        heap.clear();
        MergeCursor {
            children,
            heap,
            reposition_all: false,
            second: 0,
            lead: false,
            shares: 0,
        }
    }

    /// The children's and the heap's buffers, emptied (children dropped), for reuse.
    pub fn into_buffers(self) -> (Vec<C>, Vec<usize>) {
        let (mut children, mut heap) = (self.children, self.heap);
        children.clear();
        heap.clear();
        (children, heap)
    }

    fn less(&self, a: usize, b: usize) -> bool {
        match compare_encoded(self.children[a].key(), self.children[b].key()) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => a < b,
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                return;
            }
            let r = l + 1;
            let m = if r < n && self.less(self.heap[r], self.heap[l]) {
                r
            } else {
                l
            };
            if self.less(self.heap[m], self.heap[i]) {
                self.heap.swap(m, i);
                i = m;
            } else {
                return;
            }
        }
    }

    fn rebuild(&mut self) {
        // Reuses the heap's buffer: a seek allocates nothing.
        self.second = 0;
        self.lead = false;
        self.heap.clear();
        for i in 0..self.children.len() {
            if self.children[i].valid() {
                self.heap.push(i);
            }
        }
        for i in (0..self.heap.len() / 2).rev() {
            self.sift_down(i);
        }
    }
}

impl<C: CellCursor> CellCursor for MergeCursor<C> {
    fn valid(&self) -> bool {
        !self.heap.is_empty()
    }
    fn key(&self) -> &[u8] {
        self.children[self.heap[0]].key()
    }
    fn payload(&self) -> &[u8] {
        self.children[self.heap[0]].payload()
    }
    #[inline]
    fn entry(&self) -> (&[u8], &[u8]) {
        self.children[self.heap[0]].entry()
    }
    fn next(&mut self) -> Result<()> {
        let top = self.heap[0];
        self.shares = 0;
        self.children[top].next()?;
        if !self.children[top].valid() {
            let last = self.heap.len() - 1;
            self.heap.swap(0, last);
            self.heap.pop();
            self.second = 0;
            self.lead = false;
            self.sift_down(0);
            return Ok(());
        }
        let n = self.heap.len();
        if n == 1 || (self.lead && self.children[top].row_unchanged()) {
            self.shares = self.children[top].shares();
            return Ok(());
        }
        if self.second == 0 {
            self.second = if n > 2 && self.less(self.heap[2], self.heap[1]) {
                2
            } else {
                1
            };
        }
        let s = self.second;
        let other = self.heap[s];
        let (ord, rows_differ) =
            compare_encoded_rows(self.children[top].key(), self.children[other].key());
        if ord == Ordering::Less || (ord == Ordering::Equal && top < other) {
            self.lead = rows_differ;
            self.shares = self.children[top].shares();
            return Ok(());
        }
        self.lead = false;
        // The smaller child becomes the root; the moved cursor sinks from its place.
        self.heap.swap(0, s);
        self.second = 0;
        self.lead = false;
        self.sift_down(s);
        Ok(())
    }
    fn seek(&mut self, target: &[u8]) -> Result<()> {
        self.shares = 0;
        let all = std::mem::take(&mut self.reposition_all);
        for c in &mut self.children {
            if !all {
                // Forward seeks: children already at or past the target need not move; a child
                // whose steps are cheap tries a few before seeking (the target is usually the
                // next column, a cell or two ahead).
                let mut steps = c.steps_before_seek();
                let mut stepped = false;
                loop {
                    if !c.valid() {
                        // Unpositioned (or exhausted: the seek leaves it so); a cursor that
                        // stepped past its end is exhausted.
                        if !stepped {
                            c.seek(target)?;
                        }
                        break;
                    }
                    if compare_encoded(c.key(), target) != Ordering::Less {
                        break;
                    }
                    if steps == 0 {
                        c.seek(target)?;
                        break;
                    }
                    steps -= 1;
                    stepped = true;
                    c.next()?;
                }
                continue;
            }
            c.seek(target)?;
        }
        self.rebuild();
        Ok(())
    }
    fn row_unchanged(&self) -> bool {
        self.shares >= SHARES_ROW
    }
    #[inline]
    fn shares(&self) -> u8 {
        self.shares
    }
    fn seek_to_first(&mut self) -> Result<()> {
        self.shares = 0;
        for c in &mut self.children {
            c.seek_to_first()?;
        }
        self.rebuild();
        Ok(())
    }
    fn prev_row(&mut self, row: &[u8]) -> Result<Option<Vec<u8>>> {
        let mut best: Option<Vec<u8>> = None;
        for c in &mut self.children {
            if let Some(r) = c.prev_row(row)?
                && best.as_ref().is_none_or(|b| r > *b)
            {
                best = Some(r);
            }
        }
        // The caller seeks before reading again, possibly backwards.
        self.shares = 0;
        self.heap.clear();
        self.second = 0;
        self.lead = false;
        self.reposition_all = true;
        Ok(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CellType;
    use crate::model::key::KeyRef;
    use crate::storage::memstore::{MemCursor, MemStore};
    use std::sync::Arc;

    fn key(row: &str, ts: i64) -> Vec<u8> {
        KeyRef {
            row: row.as_bytes(),
            family: b"f",
            qualifier: b"q",
            ts,
            type_code: CellType::Put.code(),
            seq: 1,
        }
        .encode()
    }

    #[test]
    fn merges_in_order_and_newer_source_wins_ties() {
        let a = Arc::new(MemStore::new());
        let b = Arc::new(MemStore::new());
        for (i, r) in ["a", "c", "e"].iter().enumerate() {
            a.insert(&key(r, 1), &[0, b'A', i as u8]);
        }
        for r in ["b", "c", "d"] {
            b.insert(&key(r, 1), &[0, b'B']);
        }
        let mut m = MergeCursor::new(vec![MemCursor::new(a), MemCursor::new(b)]);
        m.seek_to_first().unwrap();
        let mut seen = Vec::new();
        while m.valid() {
            let k = KeyRef::parse(m.key()).unwrap();
            seen.push((String::from_utf8(k.row.to_vec()).unwrap(), m.payload()[1]));
            m.next().unwrap();
        }
        let rows: Vec<_> = seen
            .iter()
            .map(|(r, s)| format!("{r}{}", *s as char))
            .collect();
        assert_eq!(rows, ["aA", "bB", "cA", "cB", "dB", "eA"]);
        m.seek(&key("d", i64::MAX)).unwrap();
        assert_eq!(KeyRef::parse(m.key()).unwrap().row, b"d");
    }

    /// [SORT-6] Random runs across 1..6 sources with shared keys: the merge yields every
    /// cell in key order, the lower-indexed source first on equal keys, through steps and
    /// forward seeks alike.
    #[test]
    fn random_merge_matches_stable_sort() {
        let mut next = crate::base::util::test_rng(0x006d_6572_6765_u64);
        for round in 0..200 {
            let k = 1 + next(6) as usize;
            let stores: Vec<Arc<MemStore>> = (0..k).map(|_| Arc::new(MemStore::new())).collect();
            let mut all: Vec<(Vec<u8>, usize)> = Vec::new();
            for (i, st) in stores.iter().enumerate() {
                // Runs of consecutive rows, so one source often stays on top for a while.
                let start = next(40);
                for r in start..start + next(30) {
                    let kk = key(&format!("{r:03}"), next(3) as i64);
                    if !all.iter().any(|(x, j)| *j == i && *x == kk) {
                        st.insert(&kk, &[0, i as u8]);
                        all.push((kk, i));
                    }
                }
            }
            all.sort_by(|a, b| compare_encoded(&a.0, &b.0).then(a.1.cmp(&b.1)));
            let mut m = MergeCursor::new(
                stores
                    .iter()
                    .map(|s| MemCursor::new(Arc::clone(s)))
                    .collect(),
            );
            m.seek_to_first().unwrap();
            let mut got = Vec::new();
            while m.valid() {
                got.push((m.key().to_vec(), m.payload()[1] as usize));
                m.next().unwrap();
            }
            assert_eq!(got, all, "round {round}");
            // A forward seek into the middle, then steps.
            if let Some((target, _)) = all.get(all.len() / 2) {
                m.seek(target).unwrap();
                let from = all.iter().position(|(x, _)| x == target).unwrap();
                for want in &all[from..] {
                    assert!(m.valid(), "round {round}");
                    assert_eq!((m.key().to_vec(), m.payload()[1] as usize), *want);
                    m.next().unwrap();
                }
                assert!(!m.valid());
            }
        }
    }
}
