//! [`SstWriter`]: sorted cells in, one immutable block file out.
//!
//! Blocks are appended to the file as soon as they are cut; the bloom, index and meta blocks
//! and the trailer are written by [`SstWriter::finish`], which then `fdatasync`s the file. The
//! caller renames it into place and syncs the directory.

use super::block_builder::BlockBuilder;
use super::bloom::BloomBuilder;
use super::compress::BlockCompressor;
use super::encoding::EntryEncoding;
use super::frame::{self, BlockHandle, COMPRESSION_NONE};
use super::index::IndexBuilder;
use super::meta::FileIdentity;
use super::meta::FileMeta;
use super::trailer::Trailer;
use crate::base::error::{Error, Result};
use crate::base::io::{WRITEBACK_EVERY, WritableFile};
use crate::model::key::{KeyRef, first_on_row_into};
use crate::model::payload::PayloadRef;
use crate::model::schema::{BloomType, Compression};
use std::path::PathBuf;

/// Settings of one file (derived from the family descriptor).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SstWriterConfig {
    /// Target uncompressed data block size: a block is cut once it reaches this, before the
    /// next row's first cell (or at a cell once it reaches twice this size).
    pub block_size: usize,
    /// Per-block compression.
    pub compression: Compression,
    /// Bloom filter kind.
    pub bloom: BloomType,
    /// Entries between restart points in data blocks (at least 1).
    pub restart_interval: usize,
    /// How data block entries store their keys (the family's DATA_BLOCK_ENCODING,
    /// [`EntryEncoding::of`]); recorded in the meta block.
    pub encoding: EntryEncoding,
}

impl Default for SstWriterConfig {
    /// 64 KiB blocks, no compression, ROW bloom, restart every 16 entries, prefix-compressed
    /// entries.
    fn default() -> Self {
        SstWriterConfig {
            block_size: 64 << 10,
            compression: Compression::None,
            bloom: BloomType::Row,
            restart_interval: 16,
            encoding: EntryEncoding::Prefix,
        }
    }
}

/// Writes one block file. Owned by one flush or compaction job. After any error the file is
/// incomplete: discard the writer and delete the file.
pub struct SstWriter {
    file: Box<dyn WritableFile>,
    path: PathBuf,
    cfg: SstWriterConfig,
    /// Bytes appended to `file` so far.
    offset: u64,
    /// `offset` when writeback was last started ([`WRITEBACK_EVERY`]): a flush or compaction
    /// keeps at most that much of its file unwritten in the page cache, so that its final
    /// `fdatasync` is short and the WAL's syncs do not queue behind a whole file's writeback.
    written_back: u64,
    block: BlockBuilder,
    /// First key of the pending block.
    block_first_key: Vec<u8>,
    index: IndexBuilder,
    bloom: BloomBuilder,
    meta: FileMeta,
    compressor: BlockCompressor,
    scratch: Vec<u8>,
    /// Writes the layout of meta version 1 (blocks cut at any cell, index keys are first
    /// keys, restarts only by interval): old files, for compatibility tests.
    v1_layout: bool,
}

impl std::fmt::Debug for SstWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SstWriter")
            .field("path", &self.path)
            .field("offset", &self.offset)
            .finish()
    }
}

impl SstWriter {
    /// A writer appending to `file` (freshly created, empty); `path` names it in errors.
    pub fn new(file: Box<dyn WritableFile>, path: PathBuf, cfg: SstWriterConfig) -> SstWriter {
        let mut meta = FileMeta::empty(cfg.bloom, cfg.compression);
        meta.set_encoding(cfg.encoding);
        SstWriter {
            file,
            path,
            block: BlockBuilder::with_encoding(cfg.restart_interval, cfg.encoding),
            block_first_key: Vec::new(),
            index: IndexBuilder::new(),
            bloom: BloomBuilder::new(cfg.bloom),
            meta,
            compressor: BlockCompressor::default(),
            scratch: Vec::new(),
            offset: 0,
            written_back: 0,
            cfg,
            v1_layout: false,
        }
    }

    /// Bounds the distinct Bloom keys this file will hold (a compaction: the sum of its
    /// inputs' key counts), so the filter is built in place instead of from a hash per key
    /// ([`BloomBuilder::with_key_bound`]). Only before the first cell; later calls do nothing.
    pub fn bound_bloom_keys(&mut self, max_keys: u64) {
        if self.bloom.is_empty() {
            self.bloom = BloomBuilder::with_key_bound(self.cfg.bloom, max_keys);
        }
    }

    /// Writes a file as writers before meta version 2 did (tests of reading old files;
    /// prefix-compressed entries whatever the configuration); with `claim_v2` the meta block
    /// says version 2 anyway (a damaged file for `verify`).
    #[cfg(test)]
    pub(crate) fn with_v1_layout(mut self, claim_v2: bool) -> SstWriter {
        self.v1_layout = true;
        self.block = BlockBuilder::new(self.cfg.restart_interval);
        self.meta.set_encoding(EntryEncoding::Prefix);
        self.meta.version = if claim_v2 {
            super::meta::META_VERSION_V2
        } else {
            super::meta::META_VERSION_V1
        };
        self
    }

    /// Records where the file belongs in its meta block ([`FileIdentity`]), so that an open
    /// can tell a file moved into another file's place.
    pub fn with_identity(mut self, identity: FileIdentity) -> SstWriter {
        self.meta.identity = Some(identity);
        self
    }

    /// Records when the file is written (database clock, milliseconds) and whether a major
    /// compaction writes it, in its meta block (meta version 4).
    pub fn with_origin(mut self, written_ms: i64, major_compaction: bool) -> SstWriter {
        self.meta.written_ms = Some(written_ms);
        self.meta.major_compaction = major_compaction;
        self
    }

    /// Records at least `seq` as the file's largest sequence id: the outputs of one date-tiered
    /// compaction all record their inputs' largest, as HBase gives every output of a
    /// compaction the same sequence id, so they order as one file among the store's files.
    pub fn raise_max_seq(&mut self, seq: u64) {
        self.meta.max_seq = self.meta.max_seq.max(seq);
    }

    /// Appends one cell. REQUIRES: keys strictly increasing by
    /// [`crate::model::key::compare_encoded`] (checked by `debug_assert` only).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a malformed key, an unknown type code or a malformed
    /// payload (readers would reject the file); [`Error::Io`] when writing a block fails.
    pub fn add(&mut self, key: &[u8], payload: &[u8]) -> Result<()> {
        let k = KeyRef::parse(key).ok_or_else(|| Error::invalid("malformed cell key"))?;
        if PayloadRef::parse(payload).is_none() {
            return Err(Error::invalid("malformed cell payload"));
        }
        self.add_parsed(key, &k, payload)
    }

    /// [`SstWriter::add`] for a caller that has parsed the key (`k` is `key` parsed) and
    /// checked that the payload parses: a flush or compaction output parses each cell once,
    /// not once for its matcher and again here.
    ///
    /// # Errors
    /// As [`SstWriter::add`] (an unknown type code; writing a block).
    pub(crate) fn add_parsed(&mut self, key: &[u8], k: &KeyRef<'_>, payload: &[u8]) -> Result<()> {
        debug_assert!(KeyRef::parse(key).is_some_and(|p| p == *k));
        debug_assert!(PayloadRef::parse(payload).is_some());
        let t = k
            .cell_type()
            .ok_or_else(|| Error::invalid("cell key with unknown type code"))?;
        debug_assert!(
            self.meta.cell_count == 0
                || crate::model::key::compare_encoded(&self.meta.last_key, key)
                    == std::cmp::Ordering::Less,
            "SstWriter::add: keys must be strictly increasing"
        );
        // A full block is cut before the first cell of the next row, so a row lies in one
        // block and a point read fetches one block; a row that grows the block to twice the
        // block size is cut at a cell (wide rows).
        // (An encoded key starts with `row_len: u16 | row`.)
        let row_part = 2 + k.row.len();
        let same_row =
            self.meta.cell_count > 0 && self.meta.last_key.get(..row_part) == key.get(..row_part);
        let new_row = !self.v1_layout && !same_row;
        let size = self.block.estimated_size();
        if !self.block.is_empty()
            && size >= self.cfg.block_size
            && (new_row || size >= self.cfg.block_size.saturating_mul(2))
        {
            self.flush_block()?;
        }
        if self.block.is_empty() {
            self.block_first_key.clear();
            if new_row && self.meta.cell_count > 0 {
                // Index key: a separator sorting after every cell of the previous block and
                // at or before this block's first cell (docs/FORMAT.md, meta version 2).
                first_on_row_into(k.row, &mut self.block_first_key);
            } else {
                self.block_first_key.extend_from_slice(key);
            }
        }
        if self.meta.cell_count == 0 {
            self.meta.first_key.extend_from_slice(key);
        }
        self.meta.account(k, t);
        self.meta.last_key.clear();
        self.meta.last_key.extend_from_slice(key);
        self.bloom.add_next(k.row, k.qualifier, same_row);
        if self.v1_layout {
            self.block.add(key, payload);
            if self.block.estimated_size() >= self.cfg.block_size {
                self.flush_block()?;
            }
        } else {
            // A row of two or more cells starts at a restart point: a seek binary-searches
            // straight to it.
            self.block.add_cell(key, payload, new_row);
        }
        Ok(())
    }

    /// Bytes written so far plus the pending block.
    #[cfg(test)]
    pub fn estimated_size(&self) -> u64 {
        self.offset
            + if self.block.is_empty() {
                0
            } else {
                self.block.estimated_size() as u64
            }
    }

    /// Cells added so far.
    #[cfg(test)]
    pub fn cell_count(&self) -> u64 {
        self.meta.cell_count
    }

    /// Compresses (if configured and worthwhile), frames and appends the pending block.
    fn flush_block(&mut self) -> Result<()> {
        if self.block.is_empty() {
            return Ok(());
        }
        let raw = self.block.finish();
        let raw_len = raw.len();
        let handle = Self::append_block(
            &mut *self.file,
            &mut self.offset,
            &self.path,
            (&mut self.compressor, &mut self.scratch),
            self.cfg.compression,
            raw,
        )?;
        self.index.add(&self.block_first_key, handle);
        if self.offset - self.written_back >= WRITEBACK_EVERY {
            self.file.start_writeback()?;
            self.written_back = self.offset;
        }
        self.meta.data_blocks += 1;
        self.meta.raw_data_bytes += raw_len as u64;
        self.block.reset();
        Ok(())
    }

    /// Appends one framed block (`payload_len` payload bytes plus the frame trailer).
    fn append(
        file: &mut dyn WritableFile,
        offset: &mut u64,
        framed: &[u8],
        payload_len: usize,
        path: &std::path::Path,
    ) -> Result<BlockHandle> {
        let size = u32::try_from(payload_len).map_err(|_| {
            Error::invalid(format!(
                "block of {payload_len} bytes for {} exceeds 4 GiB",
                path.display()
            ))
        })?;
        let handle = BlockHandle {
            offset: *offset,
            size,
        };
        file.append(framed)?;
        *offset += framed.len() as u64;
        Ok(handle)
    }

    /// Appends a block of the file's metadata: the index compressed like the data blocks
    /// (`compress`, when that makes it smaller), the Bloom and meta blocks as they are (a
    /// filter's bits do not compress, and the meta block stays readable by any version).
    fn write_meta_block(&mut self, mut payload: Vec<u8>, compress: bool) -> Result<BlockHandle> {
        let codec = if compress {
            self.cfg.compression
        } else {
            Compression::None
        };
        Self::append_block(
            &mut *self.file,
            &mut self.offset,
            &self.path,
            (&mut self.compressor, &mut self.scratch),
            codec,
            &mut payload,
        )
    }

    /// Frames and appends one block: compressed with `codec` into the scratch buffer when
    /// that makes it smaller, else `raw` itself (which gets the frame trailer appended).
    fn append_block(
        file: &mut dyn WritableFile,
        offset: &mut u64,
        path: &std::path::Path,
        (compressor, scratch): (&mut BlockCompressor, &mut Vec<u8>),
        codec: Compression,
        raw: &mut Vec<u8>,
    ) -> Result<BlockHandle> {
        let (framed, code) = match compressor.compress(codec, raw, scratch) {
            Some(code) => (scratch, code),
            None => (raw, COMPRESSION_NONE),
        };
        let n = framed.len();
        frame::seal(framed, 0, code);
        Self::append(file, offset, framed, n, path)
    }

    /// Writes the last data block, the bloom, index and meta blocks and the trailer, then syncs
    /// the file's data (not its directory entry).
    ///
    /// # Errors
    /// [`Error::Io`] from writing or syncing.
    pub fn finish(mut self) -> Result<FileMeta> {
        self.flush_block()?;
        let bloom_payload =
            std::mem::replace(&mut self.bloom, BloomBuilder::new(BloomType::None)).finish()?;
        let bloom = match bloom_payload {
            Some(p) => Some(self.write_meta_block(p, false)?),
            None => None,
        };
        let index = std::mem::take(&mut self.index).finish();
        let index = self.write_meta_block(index, true)?;
        let mut meta_payload = Vec::new();
        self.meta.encode_into(&mut meta_payload);
        let meta = self.write_meta_block(meta_payload, false)?;
        let trailer = Trailer { bloom, index, meta }.encode();
        self.file.append(&trailer)?;
        self.offset += trailer.len() as u64;
        self.file.sync_data()?;
        self.meta.file_size = self.offset;
        Ok(self.meta)
    }
}
