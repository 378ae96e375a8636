//! [`SstCursor`]: a [`CellCursor`] over one block file.
//!
//! A seek binary-searches the in-memory index for the last block whose first key is `<=` the
//! target, then the block's restart points, then scans at most one restart interval; a target
//! past the block's last key continues at the next block. Seeks that land in the block the
//! cursor already holds skip the cache. Any error invalidates the cursor.

use super::block::BlockIter;
use super::cache::CachePolicy;
use super::reader::{SstReader, block_err};
use crate::base::error::Result;
use crate::model::cursor::CellCursor;
use std::sync::Arc;

/// A forward cursor over one file (a [`CellCursor`]). Holds its reader alive.
pub struct SstCursor {
    reader: Arc<SstReader>,
    policy: CachePolicy,
    /// Index of the block `iter` walks.
    block_idx: usize,
    /// `Some` while positioned inside a block.
    iter: Option<BlockIter>,
    /// Key buffer carried from block to block.
    key_buf: Vec<u8>,
    /// Set for a single-row read: the cursor ends (becomes invalid) instead of entering a
    /// block whose index key's row sorts after this row, so a read of a row that ends a
    /// block does not fetch the next block only to see its first key.
    row_bound: Option<Arc<[u8]>>,
}

impl std::fmt::Debug for SstCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SstCursor")
            .field("path", &self.reader.path())
            .field("block", &self.block_idx)
            .finish()
    }
}

impl SstCursor {
    /// A new, unpositioned cursor.
    pub(super) fn new(reader: Arc<SstReader>, policy: CachePolicy) -> SstCursor {
        SstCursor {
            reader,
            policy,
            block_idx: 0,
            iter: None,
            key_buf: Vec::new(),
            row_bound: None,
        }
    }

    /// Bounds the cursor to cells of `row` and rows before it: it ends at the first block
    /// whose index key's row sorts after `row` (cells of later rows in the block it holds
    /// may still be returned). For reads of one row, which stop at the row's end anyway.
    pub fn bound_to_row(&mut self, row: Arc<[u8]>) {
        self.row_bound = Some(row);
    }

    /// True when block `i` starts past the row bound (no cell of the bound row or earlier).
    fn past_bound(&self, i: usize) -> bool {
        let Some(bound) = self.row_bound.as_deref() else {
            return false;
        };
        self.reader
            .index()
            .first_row(i)
            .is_some_and(|row| row > bound)
    }

    /// The reader this cursor walks.
    #[cfg(test)]
    pub fn reader(&self) -> &Arc<SstReader> {
        &self.reader
    }

    fn invalidate(&mut self) {
        if let Some(it) = self.iter.take() {
            self.key_buf = it.into_key_buf();
        }
    }

    /// Opens block `i` (or becomes invalid past the last block).
    fn enter_block(&mut self, i: usize) -> Result<Option<&mut BlockIter>> {
        self.invalidate();
        self.block_idx = i;
        if i >= self.reader.block_count() {
            return Ok(None);
        }
        let block = self.reader.block(i, self.policy)?;
        let buf = std::mem::take(&mut self.key_buf);
        Ok(Some(self.iter.insert(BlockIter::new(block, buf))))
    }

    /// From the current (exhausted) block on, moves to the first entry of the next non-empty
    /// block, or becomes invalid.
    fn skip_exhausted(&mut self) -> Result<()> {
        while self.iter.as_ref().is_some_and(|it| !it.valid()) {
            let next = self.block_idx + 1;
            if self.past_bound(next) {
                self.invalidate();
                return Ok(());
            }
            let at = self
                .reader
                .handle(next)
                .map(|h| h.offset)
                .unwrap_or(self.reader.data_end());
            match self.enter_block(next)? {
                Some(it) => it
                    .seek_to_first()
                    .map_err(|e| block_err(self.reader.path(), at, e))?,
                None => return Ok(()),
            }
        }
        Ok(())
    }

    fn guard(&mut self, r: Result<()>) -> Result<()> {
        if r.is_err() {
            self.invalidate();
        }
        r
    }

    fn do_seek(&mut self, target: &[u8]) -> Result<()> {
        let i = self.reader.index().find(target);
        let at = self.reader.handle(i).map(|h| h.offset).unwrap_or(0);
        // Seeks within the block already held (column and row skips of a scan) need neither
        // a cache lookup nor a fetch.
        let it = match self.iter.as_mut() {
            Some(it) if self.block_idx == i => Some(it),
            _ => self.enter_block(i)?,
        };
        if let Some(it) = it {
            it.seek(target)
                .map_err(|e| block_err(self.reader.path(), at, e))?;
        }
        self.skip_exhausted()
    }

    fn do_first(&mut self) -> Result<()> {
        let at = self.reader.handle(0).map(|h| h.offset).unwrap_or(0);
        if let Some(it) = self.enter_block(0)? {
            it.seek_to_first()
                .map_err(|e| block_err(self.reader.path(), at, e))?;
        }
        self.skip_exhausted()
    }

    /// Walks the block that would hold `row`'s first cell (and earlier blocks while they hold
    /// nothing smaller) for the last key before it. Leaves the cursor's position alone.
    fn do_prev_row(&mut self, row: &[u8]) -> Result<Option<Vec<u8>>> {
        let target = crate::model::key::first_on_row(row);
        let mut i = self.reader.index().find(&target);
        if i >= self.reader.block_count() {
            return Ok(None);
        }
        let mut last: Vec<u8> = Vec::new();
        loop {
            let at = self.reader.handle(i).map_or(0, |h| h.offset);
            let block = self.reader.block(i, self.policy)?;
            let mut it = BlockIter::new(block, Vec::new());
            let err = |e| block_err(self.reader.path(), at, e);
            it.seek_to_first().map_err(err)?;
            while it.valid()
                && crate::model::key::compare_encoded(it.key(), &target) == std::cmp::Ordering::Less
            {
                last.clear();
                last.extend_from_slice(it.key());
                it.advance().map_err(err)?;
            }
            if !last.is_empty() {
                return Ok(crate::model::key::KeyRef::parse(&last).map(|k| k.row.to_vec()));
            }
            if i == 0 {
                return Ok(None);
            }
            i -= 1;
        }
    }

    #[inline]
    fn do_next(&mut self) -> Result<()> {
        let (reader, idx) = (&self.reader, self.block_idx);
        match self.iter.as_mut() {
            Some(it) if it.valid() => it.advance().map_err(|e| {
                block_err(reader.path(), reader.handle(idx).map_or(0, |h| h.offset), e)
            })?,
            _ => return Ok(()),
        }
        if self.iter.as_ref().is_some_and(BlockIter::valid) {
            return Ok(());
        }
        self.skip_exhausted()
    }
}

impl CellCursor for SstCursor {
    #[inline]
    fn valid(&self) -> bool {
        self.iter.as_ref().is_some_and(BlockIter::valid)
    }

    #[inline]
    fn key(&self) -> &[u8] {
        self.iter.as_ref().map_or(&[], BlockIter::key)
    }

    #[inline]
    fn payload(&self) -> &[u8] {
        self.iter.as_ref().map_or(&[], BlockIter::payload)
    }

    #[inline]
    fn entry(&self) -> (&[u8], &[u8]) {
        self.iter.as_ref().map_or((&[], &[]), BlockIter::entry)
    }

    fn next(&mut self) -> Result<()> {
        let r = self.do_next();
        self.guard(r)
    }

    #[inline]
    fn row_unchanged(&self) -> bool {
        self.iter.as_ref().is_some_and(BlockIter::same_row)
    }

    #[inline]
    fn shares(&self) -> u8 {
        self.iter.as_ref().map_or(0, BlockIter::shares)
    }

    fn seek(&mut self, target: &[u8]) -> Result<()> {
        let r = self.do_seek(target);
        self.guard(r)
    }

    fn seek_to_first(&mut self) -> Result<()> {
        let r = self.do_first();
        self.guard(r)
    }

    fn prev_row(&mut self, row: &[u8]) -> Result<Option<Vec<u8>>> {
        let r = self.do_prev_row(row);
        if r.is_err() {
            self.invalidate();
        }
        r
    }
}
