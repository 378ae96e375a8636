//! K-way merge of cursors with a binary heap. On equal keys the child with the lower index wins
//! (callers order children newest first: active memstore, snapshot, then files newest to oldest)
//! [SORT-6].

use crate::error::Result;
use crate::model::key::compare_encoded;
use crate::read::cursor::CellCursor;
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
}

impl<C: CellCursor> MergeCursor<C> {
    /// Merges `children` (newest source first).
    pub fn new(children: Vec<C>) -> MergeCursor<C> {
        let n = children.len();
        MergeCursor {
            children,
            heap: Vec::with_capacity(n),
            reposition_all: false,
        }
    }

    /// Merges `children` using `heap` (emptied) as the heap's buffer.
    pub fn with_heap(children: Vec<C>, mut heap: Vec<usize>) -> MergeCursor<C> {
        heap.clear();
        MergeCursor {
            children,
            heap,
            reposition_all: false,
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
    fn next(&mut self) -> Result<()> {
        let top = self.heap[0];
        self.children[top].next()?;
        if !self.children[top].valid() {
            let last = self.heap.len() - 1;
            self.heap.swap(0, last);
            self.heap.pop();
        }
        self.sift_down(0);
        Ok(())
    }
    fn seek(&mut self, target: &[u8]) -> Result<()> {
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
    fn seek_to_first(&mut self) -> Result<()> {
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
        self.heap.clear();
        self.reposition_all = true;
        Ok(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memstore::{MemCursor, MemStore};
    use crate::model::CellType;
    use crate::model::key::KeyRef;
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
}
