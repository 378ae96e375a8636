//! [`SstReader`]: an open, validated block file.
//!
//! Opening reads and checks the trailer, the meta block, the index and the Bloom filter, which
//! stay in memory. Data blocks are read from the memory-mapped file on demand, checksummed,
//! decompressed, validated and shared through the [`BlockCache`] as `Arc<Block>`.
//!
//! Thread safety: `SstReader` is `Send + Sync` and shared as `Arc<SstReader>`; each cursor is
//! owned by one thread.

use super::block::{Block, BlockBytes, BlockIter};
use super::bloom::BloomFilter;
use super::cache::{BlockCache, CachePolicy};
use super::cursor::SstCursor;
use super::frame::{self, BlockHandle};
use super::index::Index;
use super::meta::{FileMeta, MetaDecodeError};
use super::trailer::Trailer;
use crate::base::error::{Error, Result};
use crate::base::io::{FileSystem, ReadableFile};
use crate::model::key::{KeyRef, compare_encoded};
use crate::model::schema::BloomType;
use std::borrow::Cow;
use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

/// Largest frame read through a thread's kept read buffer (larger blocks get a buffer of their
/// own, so a thread never keeps more than this).
const MAX_KEPT_READ_BUF: usize = 256 * 1024;

thread_local! {
    /// A thread's buffer for `pread`s of data blocks: zero-filled once when it grows, then
    /// overwritten by each read.
    static READ_BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// An open block file.
pub struct SstReader {
    file: Arc<dyn ReadableFile>,
    path: PathBuf,
    file_id: u64,
    cache: Option<Arc<BlockCache>>,
    meta: FileMeta,
    index: Index,
    bloom: Option<BloomFilter>,
    data_end: u64,
    blocks_read: AtomicU64,
    /// Framed sizes of the index and Bloom blocks ([`SstReader::resident_bytes`]).
    index_bytes: u64,
    bloom_bytes: u64,
}

impl std::fmt::Debug for SstReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SstReader")
            .field("path", &self.path)
            .field("file_id", &self.file_id)
            .field("meta", &self.meta)
            .finish()
    }
}

impl SstReader {
    /// Opens `path` and validates its trailer, meta block, index and Bloom filter.
    /// `file_id` names the file in the block cache (unique per database).
    ///
    /// # Errors
    /// [`Error::Io`] opening the file (its message names the path; the kind is kept, e.g.
    /// `NotFound` for a missing file); [`Error::UnsupportedFormat`] for another format or meta
    /// version; [`Error::Corruption`] naming the path and offset for every failed check.
    pub fn open(
        fs: &dyn FileSystem,
        path: &Path,
        file_id: u64,
        cache: Option<Arc<BlockCache>>,
    ) -> Result<SstReader> {
        // Issue 21, item 8: a missing block file used to be reported as a bare
        // "No such file or directory (os error 2)".
        let file = fs.open_read(path).map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("cannot open block file {}: {e}", path.display()),
            )
        })?;
        Self::from_file(file, path, file_id, cache)
    }

    /// Like [`SstReader::open`] over bytes already opened (`path` only names them in errors);
    /// lets tests and fuzz targets read files held in memory.
    ///
    /// # Errors
    /// As [`SstReader::open`], without the I/O errors.
    pub fn from_file(
        file: Arc<dyn ReadableFile>,
        path: &Path,
        file_id: u64,
        cache: Option<Arc<BlockCache>>,
    ) -> Result<SstReader> {
        let bytes = file.bytes();
        let trailer = Trailer::decode(bytes, path)?;
        let data_end = trailer.data_end();

        let meta_raw =
            frame::read_frame(bytes, trailer.meta, trailer.meta.end(), path, "meta block")?;
        let meta = FileMeta::decode(&meta_raw, bytes.len() as u64).map_err(|e| match e {
            MetaDecodeError::Version(found) => Error::UnsupportedFormat {
                path: path.to_path_buf(),
                found: u32::from(found),
            },
            MetaDecodeError::Malformed(e) => block_err(path, trailer.meta.offset, e),
        })?;
        let index_raw = frame::read_frame(
            bytes,
            trailer.index,
            trailer.index.end(),
            path,
            "index block",
        )?;
        let index = Index::decode_with(&index_raw, data_end, meta.index_separators())
            .map_err(|e| block_err(path, trailer.index.offset, e))?;
        let meta_bad = |what: &str| {
            Error::corruption(
                path,
                format!("meta block at offset {}: {what}", trailer.meta.offset),
            )
        };
        if meta.data_blocks != index.len() as u64 {
            return Err(meta_bad("data block count disagrees with the index"));
        }
        if (meta.cell_count == 0) != index.is_empty() {
            return Err(meta_bad("cell count disagrees with the index"));
        }
        if let Some(first) = index.first_key(0)
            && *first != *meta.first_key
        {
            return Err(meta_bad("first key disagrees with the index"));
        }
        let bloom = match trailer.bloom {
            Some(h) => {
                let raw = frame::read_frame(bytes, h, h.end(), path, "bloom block")?;
                let b = BloomFilter::decode(&raw).map_err(|e| block_err(path, h.offset, e))?;
                if b.kind() != meta.bloom {
                    return Err(meta_bad("bloom type disagrees with the bloom block"));
                }
                Some(b)
            }
            None if meta.bloom != BloomType::None && meta.cell_count > 0 => {
                return Err(meta_bad("bloom block missing"));
            }
            None => None,
        };
        // Everything above is decoded into memory of the reader's own.
        file.release_pages();
        Ok(SstReader {
            file,
            path: path.to_path_buf(),
            file_id,
            cache,
            meta,
            index,
            bloom,
            data_end,
            blocks_read: AtomicU64::new(0),
            index_bytes: u64::from(trailer.index.size),
            bloom_bytes: trailer.bloom.map_or(0, |h| u64::from(h.size)),
        })
    }

    /// The file's summary.
    pub fn meta(&self) -> &FileMeta {
        &self.meta
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's Bloom filter: its type and the distinct keys it was built from (`None`
    /// without a filter).
    pub fn bloom_keys(&self) -> Option<(BloomType, u64)> {
        self.bloom.as_ref().map(|b| (b.kind(), b.keys()))
    }

    /// [BLOOM-3]: could the file hold cells of `row`? ROWCOL and NONE filters cannot tell
    /// (true).
    pub fn may_contain_row(&self, row: &[u8]) -> bool {
        self.bloom.as_ref().is_none_or(|b| b.may_contain_row(row))
    }

    /// [BLOOM-4]: could the file hold a cell of `row`/`qualifier`, or a family-level delete
    /// marker of `row`? ROW filters answer for the row; NONE is always true.
    pub fn may_contain_column(&self, row: &[u8], qualifier: &[u8]) -> bool {
        self.bloom
            .as_ref()
            .is_none_or(|b| b.may_contain_column(row, qualifier))
    }

    /// [`SstReader::may_contain_row`] for a Get, counted in the shared cache's Bloom
    /// statistics (a ROWCOL filter cannot answer for a row: counted as without a filter).
    pub fn get_may_contain_row(&self, row: &super::bloom::RowProbe<'_>) -> bool {
        let outcome = self
            .bloom
            .as_ref()
            .filter(|b| {
                matches!(
                    b.kind(),
                    BloomType::Row | BloomType::RowPrefixFixedLength(_)
                )
            })
            .map(|b| b.may_contain_row_probe(row));
        if let Some(c) = &self.cache {
            c.note_bloom(outcome);
        }
        outcome.unwrap_or(true)
    }

    /// [`SstReader::may_contain_column`] for a Get, counted as
    /// [`SstReader::get_may_contain_row`] is.
    pub fn get_may_contain_column(&self, row: &[u8], qualifier: &[u8]) -> bool {
        let outcome = self
            .bloom
            .as_ref()
            .map(|b| b.may_contain_column(row, qualifier));
        if let Some(c) = &self.cache {
            c.note_bloom(outcome);
        }
        outcome.unwrap_or(true)
    }

    /// [BLOOM-5] For a scan from `start` to `stop` (either order): false when the file's
    /// ROWPREFIX_FIXED_LENGTH filter rules out the prefix every row in between shares. Counted
    /// in the shared cache's Bloom statistics only when the filter can answer (HBase counts a
    /// request only when it probes the filter).
    pub fn scan_may_contain_rows(&self, start: &[u8], stop: &[u8]) -> bool {
        let Some(outcome) = self
            .bloom
            .as_ref()
            .and_then(|b| b.may_contain_rows_between(start, stop))
        else {
            return true;
        };
        if let Some(c) = &self.cache {
            c.note_bloom(Some(outcome));
        }
        outcome
    }

    /// Bytes of the index and of the Bloom filter, held in memory while the file is open
    /// (HBase's static index and Bloom sizes).
    pub fn resident_bytes(&self) -> (u64, u64) {
        (self.index_bytes, self.bloom_bytes)
    }

    /// The block index (one entry per data block).
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// Index key of the middle data block [SPLIT-2] (its first cell's key or that cell's row
    /// separator: either way its row is the block's first row); `None` for a file without
    /// cells.
    pub fn mid_key(&self) -> Option<std::borrow::Cow<'_, [u8]>> {
        self.index.mid_key()
    }

    /// Row of [`SstReader::mid_key`] (no allocation).
    pub fn mid_row(&self) -> Option<&[u8]> {
        self.index.first_row(self.index.len() / 2)
    }

    /// Data blocks fetched by this reader's cursors (cache hits plus misses).
    pub fn blocks_read(&self) -> u64 {
        self.blocks_read.load(AtomicOrdering::Relaxed)
    }

    /// A cursor over the file's cells.
    pub fn cursor(self: &Arc<Self>, policy: CachePolicy) -> SstCursor {
        SstCursor::new(Arc::clone(self), policy)
    }

    /// Number of data blocks.
    pub(super) fn block_count(&self) -> usize {
        self.index.len()
    }

    /// Where the data region ends (for error offsets past the last block): the bytes of the
    /// file's data blocks; the rest of the file is its index, Bloom, meta and trailer.
    pub(crate) fn data_end(&self) -> u64 {
        self.data_end
    }

    /// Handle of data block `i`.
    ///
    /// # Errors
    /// Corruption when the index has no such block.
    pub(super) fn handle(&self, i: usize) -> Result<BlockHandle> {
        self.index.handle(i).ok_or_else(|| {
            Error::corruption(
                &self.path,
                format!(
                    "data block {i} missing from the index at offset {}",
                    self.data_end
                ),
            )
        })
    }

    /// Reads data block `i` from the file, bypassing the cache: checks its CRC, decompresses
    /// it (an uncompressed block stays in the mapped file, uncopied) and checks its restart
    /// array; cursors check the entries they decode ([`Block::open`]).
    fn read_block(&self, i: usize) -> Result<Arc<Block>> {
        let h = self.handle(i)?;
        let bytes = if self.file.prefers_read() {
            self.read_block_bytes(h)?
        } else {
            self.mapped_block_bytes(h)?
        };
        let mut block = Block::open(bytes).map_err(|e| block_err(&self.path, h.offset, e))?;
        block.set_rows_at_restarts(self.meta.index_separators());
        block.set_encoding(self.meta.encoding);
        Ok(Arc::new(block))
    }

    /// The payload of the data block at `h`, in place in the mapped file when uncompressed.
    fn mapped_block_bytes(&self, h: BlockHandle) -> Result<BlockBytes> {
        let raw = frame::read_frame(
            self.file.bytes(),
            h,
            self.data_end,
            &self.path,
            "data block",
        )?;
        Ok(match raw {
            Cow::Borrowed(payload) => {
                // `read_frame` returns the payload in place: `size` bytes at `offset`, both
                // checked against the file's length.
                let start = h.offset as usize;
                BlockBytes::Mapped {
                    file: Arc::clone(&self.file),
                    start,
                    end: start + payload.len(),
                }
            }
            Cow::Owned(v) => BlockBytes::Owned(v.into_boxed_slice()),
        })
    }

    /// The payload of the data block at `h`, read with `pread` (see
    /// [`ReadableFile::prefers_read`]) into the thread's read buffer, checked, and copied into
    /// an exactly sized buffer of its own. The read buffer is zero-filled only when it grows:
    /// a fresh zeroed buffer per block (`calloc` + `memset`) and the shrinking `realloc` after
    /// dropping the trailer were a large part of a block-cache miss.
    fn read_block_bytes(&self, h: BlockHandle) -> Result<BlockBytes> {
        let (start, end) = frame::frame_range(
            h,
            self.data_end,
            self.file.bytes().len() as u64,
            &self.path,
            "data block",
        )?;
        let n = end - start;
        if n <= MAX_KEPT_READ_BUF {
            let kept = READ_BUF.try_with(|b| {
                let mut buf = b.try_borrow_mut().ok()?;
                if buf.len() < n {
                    buf.resize(n, 0);
                }
                Some(
                    self.read_frame(&mut buf[..n], start, h)
                        .map(|payload| BlockBytes::Owned(Box::from(payload))),
                )
            });
            if let Ok(Some(bytes)) = kept {
                return bytes;
            }
        }
        // A block too large to keep a buffer for (or the thread's buffer is unavailable): a
        // buffer of its own, the payload kept in place.
        let mut buf = vec![0u8; n];
        let payload = self.read_frame(&mut buf, start, h)?;
        Ok(match payload {
            Cow::Borrowed(p) => {
                let len = p.len();
                buf.truncate(len);
                BlockBytes::Owned(buf.into_boxed_slice())
            }
            Cow::Owned(v) => BlockBytes::Owned(v.into_boxed_slice()),
        })
    }

    /// Reads the frame at `start` into `buf` (its exact length) and returns its checked
    /// payload (decompressed when compressed).
    fn read_frame<'b>(
        &self,
        buf: &'b mut [u8],
        start: usize,
        h: BlockHandle,
    ) -> Result<Cow<'b, [u8]>> {
        let what = "data block";
        self.file
            .read_exact_at(buf, start as u64)
            .map_err(|e| match e.kind() {
                // The range was checked against the file's length at open: a short read means
                // the file shrank underneath.
                std::io::ErrorKind::UnexpectedEof => Error::corruption(
                    &self.path,
                    format!("{what} at offset {}: file truncated", h.offset),
                ),
                _ => Error::Io(e),
            })?;
        frame::check_frame(buf, h, &self.path, what)
    }

    /// Data block `i` through the cache (counted in [`SstReader::blocks_read`]).
    pub(super) fn block(&self, i: usize, policy: CachePolicy) -> Result<Arc<Block>> {
        self.blocks_read.fetch_add(1, AtomicOrdering::Relaxed);
        let Some(cache) = &self.cache else {
            return self.read_block(i);
        };
        let offset = self.handle(i)?.offset;
        if let Some(b) = cache.get(self.file_id, offset, policy) {
            return Ok(b);
        }
        let b = self.read_block(i)?;
        cache.insert(self.file_id, offset, Arc::clone(&b), policy);
        Ok(b)
    }

    /// True when block `i`'s index key fits its first cell `first` and the previous block's
    /// last cell `prev_last` (empty for block 0): see [`super::index::index_key_fits`].
    pub fn index_key_fits(&self, i: usize, first: &[u8], prev_last: &[u8]) -> bool {
        self.index.first_key(i).is_some_and(|k| {
            super::index::index_key_fits(
                &k,
                first,
                prev_last,
                i > 0 && self.meta.index_separators(),
            )
        })
    }

    /// Reads and checks every block and every cell: checksums, decoding, key order across
    /// blocks, index first keys, the meta statistics and the Bloom filter (no false negatives).
    ///
    /// # Errors
    /// The first failure, as [`Error::Corruption`].
    pub fn verify(&self) -> Result<()> {
        let mut m = FileMeta::empty(self.meta.bloom, self.meta.compression);
        m.version = self.meta.version;
        m.encoding = self.meta.encoding;
        let mut prev: Vec<u8> = Vec::new();
        for i in 0..self.index.len() {
            let at = self.handle(i)?.offset;
            let bad = |what: String| {
                Error::corruption(&self.path, format!("data block at offset {at}: {what}"))
            };
            let block = self.read_block(i)?;
            block.validate().map_err(|e| block_err(&self.path, at, e))?;
            m.raw_data_bytes += block.len() as u64;
            let mut it = BlockIter::new(Arc::clone(&block), Vec::new());
            it.seek_to_first()
                .map_err(|e| block_err(&self.path, at, e))?;
            // Offset of the current entry, the offset of its row's first entry in the block
            // and that row's cells so far (the restart check of meta version 2).
            let (mut pos, mut row_start, mut row_cells) = (0, 0, 0u64);
            if !it.valid() {
                return Err(bad("empty data block".into()));
            }
            if !self.index_key_fits(i, it.key(), &prev) {
                return Err(bad("first key disagrees with the index".into()));
            }
            while it.valid() {
                let k = KeyRef::parse(it.key()).ok_or_else(|| bad("malformed key".into()))?;
                let t = k
                    .cell_type()
                    .ok_or_else(|| bad("unknown cell type".into()))?;
                if m.cell_count > 0 && compare_encoded(&prev, it.key()) != Ordering::Less {
                    return Err(bad(format!(
                        "keys out of order after cell {}",
                        m.cell_count
                    )));
                }
                if !self.may_contain_column(k.row, k.qualifier) || !self.may_contain_row(k.row) {
                    return Err(bad(format!("bloom filter misses cell {}", m.cell_count)));
                }
                let same_row = pos > 0
                    && (it.same_row() || KeyRef::parse(&prev).is_some_and(|p| p.row == k.row));
                if same_row {
                    row_cells += 1;
                } else {
                    (row_start, row_cells) = (pos, 1);
                }
                if self.meta.index_separators()
                    && row_cells == 2
                    && row_start > 0
                    && !block.is_restart(row_start)
                {
                    return Err(bad(format!(
                        "row of two or more cells not starting at a restart point (cell {})",
                        m.cell_count
                    )));
                }
                m.account(&k, t);
                prev.clear();
                prev.extend_from_slice(it.key());
                if m.cell_count == 1 {
                    m.first_key = prev.clone();
                }
                pos = it.next_offset().unwrap_or(0);
                it.advance().map_err(|e| block_err(&self.path, at, e))?;
            }
            m.data_blocks += 1;
        }
        m.last_key = prev;
        m.file_size = self.meta.file_size;
        m.identity = self.meta.identity.clone();
        // Not derived from the cells: when and how the file was written.
        m.written_ms = self.meta.written_ms;
        m.major_compaction = self.meta.major_compaction;
        // The outputs of a multi-window date-tiered compaction record their inputs' largest
        // sequence id, which may be above their own cells' (docs/FORMAT.md, meta block).
        if self.meta.max_seq > m.max_seq && m.cell_count > 0 {
            m.max_seq = self.meta.max_seq;
        }
        if m != self.meta {
            return Err(Error::corruption(
                &self.path,
                format!(
                    "meta block at offset {} disagrees with the data it summarizes",
                    self.data_end
                ),
            ));
        }
        Ok(())
    }
}

/// A decoding failure inside the block at `offset`, as [`Error::Corruption`].
pub(super) fn block_err(path: &Path, offset: u64, e: crate::base::codec::DecodeError) -> Error {
    Error::corruption(
        path,
        format!(
            "{} at byte {} of the decoded block at offset {offset}",
            e.what, e.offset
        ),
    )
}
