//! [`SourceCursor`]: the concrete cursors a region read merges, as one enum instead of boxed
//! trait objects (no allocation per source, static dispatch in the merge).

use crate::base::error::Result;
use crate::model::cursor::CellCursor;
use crate::read::run_cursor::RunCursor;
use crate::storage::memstore::MemCursor;
use crate::storage::sst::SstCursor;

/// A cursor over one data source of a region: a memstore or a block file.
pub(crate) enum SourceCursor {
    /// The active memstore or its flushing snapshot.
    Mem(MemCursor),
    /// One block file.
    File(SstCursor),
    /// Block files whose rows do not overlap, one open at a time (a scan's sorted run). Boxed:
    /// unboxed, it made every source larger, which cost a Get on one file 3.5 % more
    /// instructions (callgrind, benches/callgrind_ops.sh).
    Run(Box<RunCursor>),
}

impl CellCursor for SourceCursor {
    #[inline]
    fn valid(&self) -> bool {
        match self {
            SourceCursor::Mem(c) => c.valid(),
            SourceCursor::File(c) => c.valid(),
            SourceCursor::Run(c) => c.valid(),
        }
    }
    #[inline]
    fn key(&self) -> &[u8] {
        match self {
            SourceCursor::Mem(c) => c.key(),
            SourceCursor::File(c) => c.key(),
            SourceCursor::Run(c) => c.key(),
        }
    }
    #[inline]
    fn payload(&self) -> &[u8] {
        match self {
            SourceCursor::Mem(c) => c.payload(),
            SourceCursor::File(c) => c.payload(),
            SourceCursor::Run(c) => c.payload(),
        }
    }
    #[inline]
    fn entry(&self) -> (&[u8], &[u8]) {
        match self {
            SourceCursor::Mem(c) => c.entry(),
            SourceCursor::File(c) => c.entry(),
            SourceCursor::Run(c) => c.entry(),
        }
    }
    #[inline]
    fn next(&mut self) -> Result<()> {
        match self {
            SourceCursor::Mem(c) => c.next(),
            SourceCursor::File(c) => c.next(),
            SourceCursor::Run(c) => c.next(),
        }
    }
    fn seek(&mut self, target: &[u8]) -> Result<()> {
        match self {
            SourceCursor::Mem(c) => c.seek(target),
            SourceCursor::File(c) => c.seek(target),
            SourceCursor::Run(c) => c.seek(target),
        }
    }
    fn seek_to_first(&mut self) -> Result<()> {
        match self {
            SourceCursor::Mem(c) => c.seek_to_first(),
            SourceCursor::File(c) => c.seek_to_first(),
            SourceCursor::Run(c) => c.seek_to_first(),
        }
    }
    fn prev_row(&mut self, row: &[u8]) -> Result<Option<Vec<u8>>> {
        match self {
            SourceCursor::Mem(c) => c.prev_row(row),
            SourceCursor::File(c) => c.prev_row(row),
            SourceCursor::Run(c) => c.prev_row(row),
        }
    }
    #[inline]
    fn row_unchanged(&self) -> bool {
        match self {
            SourceCursor::Mem(_) => false,
            SourceCursor::File(c) => c.row_unchanged(),
            SourceCursor::Run(c) => c.row_unchanged(),
        }
    }
    #[inline]
    fn shares(&self) -> u8 {
        match self {
            SourceCursor::Mem(_) => 0,
            SourceCursor::File(c) => c.shares(),
            SourceCursor::Run(c) => c.shares(),
        }
    }
    /// A block file step decodes one entry; a seek searches the index and the block's restart
    /// points. (A memstore seek inside the held batch is already cheap.)
    fn steps_before_seek(&self) -> usize {
        match self {
            SourceCursor::Mem(_) => 0,
            SourceCursor::File(_) | SourceCursor::Run(_) => FILE_STEPS_BEFORE_SEEK,
        }
    }
}

/// `next` steps a merge tries on a block file cursor before seeking it forward.
const FILE_STEPS_BEFORE_SEEK: usize = 2;
