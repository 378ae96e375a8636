//! [`RunCursor`]: one cursor over block files whose rows do not overlap (a sorted run), that
//! opens only the file it is in. A scan over a store left by a sequential load (many files,
//! one after the other, that compactions leave alone: src/engine/runs.rs) then positions one
//! file instead of every file after its start row: RocksDB's `LevelIterator` for a level.

use crate::base::error::Result;
use crate::model::cursor::CellCursor;
use crate::model::key::compare_encoded;
use crate::storage::sst::{CachePolicy, SstCursor, SstReader};
use std::cmp::Ordering;
use std::sync::Arc;

/// A cursor over files whose row ranges are disjoint, in key order.
pub(crate) struct RunCursor {
    /// The files, ascending by first key, each with its cache policy.
    files: Vec<(Arc<SstReader>, CachePolicy)>,
    /// Index of the file `cur` walks (`files.len()` when past the end).
    at: usize,
    /// The open file's cursor.
    cur: Option<SstCursor>,
    /// The last `next` moved into another file: the cell shares nothing with the one before.
    crossed: bool,
}

impl RunCursor {
    /// A cursor over `files` (rows pairwise disjoint, any order), unpositioned.
    pub(crate) fn new(mut files: Vec<(Arc<SstReader>, CachePolicy)>) -> RunCursor {
        files.sort_by(|a, b| compare_encoded(&a.0.meta().first_key, &b.0.meta().first_key));
        RunCursor {
            files,
            at: 0,
            cur: None,
            crossed: false,
        }
    }

    /// Opens file `i`, unpositioned (reusing the open cursor when it is that file's).
    fn open(&mut self, i: usize) -> Option<&mut SstCursor> {
        if self.at != i || self.cur.is_none() {
            self.at = i;
            self.cur = self
                .files
                .get(i)
                .map(|(reader, policy)| reader.cursor(*policy));
        }
        self.cur.as_mut()
    }

    /// While the open file is exhausted, moves to the first cell of the next one.
    fn skip_exhausted(&mut self) -> Result<()> {
        while self.cur.as_ref().is_some_and(|c| !c.valid()) {
            let next = self.at + 1;
            match self.open(next) {
                Some(c) => c.seek_to_first()?,
                None => self.cur = None,
            }
        }
        Ok(())
    }
}

impl CellCursor for RunCursor {
    #[inline]
    fn valid(&self) -> bool {
        self.cur.as_ref().is_some_and(|c| c.valid())
    }
    #[inline]
    fn key(&self) -> &[u8] {
        self.cur.as_ref().map_or(&[], |c| c.key())
    }
    #[inline]
    fn payload(&self) -> &[u8] {
        self.cur.as_ref().map_or(&[], |c| c.payload())
    }
    #[inline]
    fn entry(&self) -> (&[u8], &[u8]) {
        self.cur.as_ref().map_or((&[], &[]), |c| c.entry())
    }
    fn next(&mut self) -> Result<()> {
        let Some(c) = self.cur.as_mut() else {
            return Ok(());
        };
        c.next()?;
        self.crossed = !c.valid();
        self.skip_exhausted()
    }
    fn seek(&mut self, target: &[u8]) -> Result<()> {
        self.crossed = false;
        // The first file whose last key is at or after the target holds the first cell at or
        // after it (every later file starts after that file's rows).
        let i = self.files.partition_point(|(r, _)| {
            compare_encoded(&r.meta().last_key, target) == Ordering::Less
        });
        match self.open(i) {
            Some(c) => c.seek(target)?,
            None => self.cur = None,
        }
        self.skip_exhausted()
    }
    fn seek_to_first(&mut self) -> Result<()> {
        self.crossed = false;
        match self.open(0) {
            Some(c) => c.seek_to_first()?,
            None => self.cur = None,
        }
        self.skip_exhausted()
    }
    fn prev_row(&mut self, row: &[u8]) -> Result<Option<Vec<u8>>> {
        self.crossed = false;
        // The last file starting before `row` holds the largest row before it (later files
        // start at or after `row`, earlier ones end before this one starts).
        let mut i = self
            .files
            .partition_point(|(r, _)| r.meta().first_row() < row);
        while i > 0 {
            i -= 1;
            if let Some(c) = self.open(i)
                && let Some(found) = c.prev_row(row)?
            {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }
    #[inline]
    fn row_unchanged(&self) -> bool {
        !self.crossed && self.cur.as_ref().is_some_and(|c| c.row_unchanged())
    }
    #[inline]
    fn shares(&self) -> u8 {
        if self.crossed {
            0
        } else {
            self.cur.as_ref().map_or(0, |c| c.shares())
        }
    }
}
