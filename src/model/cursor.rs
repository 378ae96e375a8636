//! The internal cursor protocol every sorted source of cells implements (memstore, block file,
//! merge).

use crate::base::error::Result;

/// A forward cursor over cells in [SORT-1] order. Keys are encoded as in [`crate::model::key`],
/// payloads as in [`crate::model::payload`].
///
/// A new cursor is unpositioned (`valid()` is false) until `seek` or `seek_to_first` is called.
pub trait CellCursor: Send {
    /// True when positioned on a cell.
    fn valid(&self) -> bool;
    /// The current cell's encoded key. REQUIRES: `valid()`.
    fn key(&self) -> &[u8];
    /// The current cell's encoded payload. REQUIRES: `valid()`.
    fn payload(&self) -> &[u8];
    /// The current cell's key and payload together (one dispatch instead of two for readers
    /// that need both). REQUIRES: `valid()`.
    #[inline]
    fn entry(&self) -> (&[u8], &[u8]) {
        (self.key(), self.payload())
    }
    /// Moves to the next cell (becomes invalid past the end). REQUIRES: `valid()`.
    fn next(&mut self) -> Result<()>;
    /// Positions at the first cell whose key is `>=` `target` (an encoded key).
    fn seek(&mut self, target: &[u8]) -> Result<()>;
    /// Positions at the first cell.
    fn seek_to_first(&mut self) -> Result<()>;
    /// The row of the last cell sorting before every cell of `row` (the largest row `< row`),
    /// for reversed scans; `None` when there is none. May leave the cursor unpositioned.
    fn prev_row(&mut self, row: &[u8]) -> Result<Option<Vec<u8>>>;
    /// How many `next` steps a merge tries before a forward `seek` of this cursor: for sources
    /// where a step is much cheaper than a seek and targets are usually a cell or two ahead
    /// (the next column after one older version). 0 = always seek.
    fn steps_before_seek(&self) -> usize {
        0
    }
    /// True only if the last `next` kept the cursor on the row it was on before (a cheap
    /// hint: `false` is always allowed). Lets a merge skip comparisons while one source walks
    /// a row no other source has reached.
    fn row_unchanged(&self) -> bool {
        false
    }
    /// How much of its key the current cell shares with the cell before it, known without a
    /// comparison after a `next`: [`SHARES_ROW`], [`SHARES_FAMILY`],
    /// [`SHARES_COLUMN`], or 0
    /// (always allowed; `SHARES_ROW` or more only if [`CellCursor::row_unchanged`]).
    fn shares(&self) -> u8 {
        u8::from(self.row_unchanged())
    }
}

/// [`CellCursor::shares`]: the current cell shares its row with the cell before it.
pub const SHARES_ROW: u8 = 1;
/// [`CellCursor::shares`]: the current cell shares its row and family with the cell before.
pub const SHARES_FAMILY: u8 = 2;
/// [`CellCursor::shares`]: the current cell shares its row, family and qualifier with the
/// cell before it.
pub const SHARES_COLUMN: u8 = 3;

impl<C: CellCursor + ?Sized> CellCursor for Box<C> {
    #[inline]
    fn valid(&self) -> bool {
        (**self).valid()
    }
    #[inline]
    fn key(&self) -> &[u8] {
        (**self).key()
    }
    #[inline]
    fn payload(&self) -> &[u8] {
        (**self).payload()
    }
    #[inline]
    fn entry(&self) -> (&[u8], &[u8]) {
        (**self).entry()
    }
    fn next(&mut self) -> Result<()> {
        (**self).next()
    }
    fn seek(&mut self, target: &[u8]) -> Result<()> {
        (**self).seek(target)
    }
    fn seek_to_first(&mut self) -> Result<()> {
        (**self).seek_to_first()
    }
    fn prev_row(&mut self, row: &[u8]) -> Result<Option<Vec<u8>>> {
        (**self).prev_row(row)
    }
    fn steps_before_seek(&self) -> usize {
        (**self).steps_before_seek()
    }
    fn row_unchanged(&self) -> bool {
        (**self).row_unchanged()
    }
    fn shares(&self) -> u8 {
        (**self).shares()
    }
}
