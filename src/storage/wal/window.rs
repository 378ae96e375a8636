//! A bounded window over a log file read with positional reads: replay frames each WAL segment
//! through one, so an open holds a window of the segment instead of the whole file.
//!
//! The window reads [`WINDOW_LEN`] bytes at a time (fewer at the end of the file) and serves
//! the framing's requests from them; a request it does not hold refills it from the requested
//! offset. A record longer than the window grows it to hold the whole record: the framing asks
//! for a record's bytes only after checking its length against the bytes left in the file and
//! against [`MAX_RECORD_LEN`](super::record::MAX_RECORD_LEN), so the window never passes
//! [`HEADER_LEN`](super::record::HEADER_LEN) plus that limit, the largest record the writer
//! can write. The next refill for an ordinary request shrinks it back.

use crate::base::error::Result;
use crate::base::io::ReadAtFile;
use crate::storage::wal::record::LogBytes;
use std::io;

/// Bytes a window reads at once and keeps between records (1 MiB), unless a longer record
/// needs more.
pub(crate) const WINDOW_LEN: usize = 1 << 20;

/// A window over `file` (see the module docs).
pub(crate) struct FileWindow<'f> {
    file: &'f dyn ReadAtFile,
    len: u64,
    /// The file offset of `buf[0]`.
    start: u64,
    buf: Vec<u8>,
    /// The largest the window has been, for tests.
    #[cfg(test)]
    pub(crate) peak: usize,
}

impl<'f> FileWindow<'f> {
    /// An empty window over `file` (nothing is read before the first request).
    pub(crate) fn new(file: &'f dyn ReadAtFile) -> FileWindow<'f> {
        FileWindow {
            file,
            len: file.len(),
            start: 0,
            buf: Vec::new(),
            #[cfg(test)]
            peak: 0,
        }
    }

    /// The room the window holds now.
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// Reads `want` bytes at `pos` into the window.
    fn refill(&mut self, pos: u64, want: usize) -> io::Result<()> {
        if want <= WINDOW_LEN && self.buf.capacity() > WINDOW_LEN {
            // Give back the room a long record took.
            self.buf = Vec::new();
        }
        self.buf.clear();
        self.buf.resize(want, 0);
        #[cfg(test)]
        {
            self.peak = self.peak.max(self.buf.capacity());
        }
        if let Err(e) = self.file.read_exact_at(&mut self.buf, pos) {
            self.buf.clear();
            return Err(e);
        }
        self.start = pos;
        Ok(())
    }
}

impl LogBytes for FileWindow<'_> {
    fn len(&self) -> u64 {
        self.len
    }

    fn get(&mut self, pos: u64, n: usize) -> Result<&[u8]> {
        let end = pos
            .checked_add(n as u64)
            .filter(|&e| e <= self.len)
            .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "read past end of file"))?;
        if pos < self.start || end > self.start + self.buf.len() as u64 {
            let left = usize::try_from(self.len - pos).unwrap_or(usize::MAX);
            self.refill(pos, n.max(WINDOW_LEN).min(left))?;
        }
        let off = usize::try_from(pos - self.start).unwrap_or(usize::MAX);
        self.buf.get(off..off.saturating_add(n)).ok_or_else(|| {
            io::Error::new(io::ErrorKind::UnexpectedEof, "window out of range").into()
        })
    }
}
