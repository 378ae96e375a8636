//! [`BlockFile`]: one block file opened for inspection: its trailer, summary, block index,
//! Bloom filter summary and cells, and a check of every block.

use super::block_check::check_blocks;
use super::files::{OwnedFile, read_block_file};
use super::{CellKey, Finding, StoredCell};
use crate::base::error::{Error, Result};
use crate::base::io::StdFs;
use crate::model::cursor::CellCursor;
use crate::model::key::{KeyRef, first_on_row};
use crate::model::payload::PayloadRef;
use crate::model::schema::{BloomType, Compression, DataBlockEncoding};
use crate::storage::sst::bloom::BloomFilter;
use crate::storage::sst::frame;
use crate::storage::sst::trailer::Trailer;
use crate::storage::sst::{CachePolicy, FORMAT_VERSION, MAGIC, SstCursor, SstReader, TRAILER_LEN};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a block lies in a block file: the offset of its first byte and the length of its
/// stored (possibly compressed) payload. On disk the payload is followed by a 5-byte frame
/// trailer (compression byte and CRC32).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockHandle {
    /// Offset of the block's first byte.
    pub offset: u64,
    /// Stored payload length in bytes (without the frame trailer).
    pub size: u32,
}

impl BlockHandle {
    /// Bytes the block takes on disk: its payload and the 5-byte frame trailer.
    pub fn framed_len(&self) -> u64 {
        u64::from(self.size) + frame::FRAME_TRAILER_LEN as u64
    }

    /// The offset just past the block (saturating).
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.framed_len())
    }
}

impl From<frame::BlockHandle> for BlockHandle {
    fn from(h: frame::BlockHandle) -> Self {
        BlockHandle {
            offset: h.offset,
            size: h.size,
        }
    }
}

/// The fixed-size trailer that ends every block file (docs/FORMAT.md, section 2).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BlockFileTrailer {
    /// The format version it records.
    pub format_version: u32,
    /// The magic bytes closing the file (`CELLBSST`).
    pub magic: [u8; 8],
    /// The trailer's CRC32 as stored.
    pub crc: u32,
    /// Offset of the trailer (the file's length minus its 64 bytes).
    pub offset: u64,
    /// The file's length in bytes.
    pub file_len: u64,
    /// The Bloom block, when the file has a filter.
    pub bloom: Option<BlockHandle>,
    /// The index block.
    pub index: BlockHandle,
    /// The meta block (the file's summary).
    pub meta: BlockHandle,
}

impl BlockFileTrailer {
    /// The end of the data region: the data blocks lie in `[0, data_end())`.
    pub fn data_end(&self) -> u64 {
        self.bloom.map_or(self.index.offset, |b| b.offset)
    }
}

/// Where a block file belongs, as it records it (files written since the meta block's
/// version 3): a file copied or moved into another file's place is recognized by it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileIdentity {
    /// The database's identity.
    pub db_id: u64,
    /// The file's number (`data/{file_id:010}.sst`).
    pub file_id: u64,
    /// The table's id.
    pub table_id: u64,
    /// The column family (store) it belongs to.
    pub family: Vec<u8>,
}

/// A block file's summary, from its meta block (HBase's file info).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BlockFileInfo {
    /// The meta block's version.
    pub meta_version: u8,
    /// The file's size in bytes.
    pub file_size: u64,
    /// The first cell's key (`None` for a file without cells).
    pub first_key: Option<CellKey>,
    /// The last cell's key.
    pub last_key: Option<CellKey>,
    /// The index key of the middle data block, where a split would divide the file.
    pub mid_key: Option<CellKey>,
    /// Cells in the file.
    pub cells: u64,
    /// Put cells.
    pub puts: u64,
    /// Delete markers.
    pub deletes: u64,
    /// The smallest timestamp of any cell (`i64::MAX` without cells).
    pub min_timestamp: i64,
    /// The largest timestamp of any cell (`i64::MIN` without cells).
    pub max_timestamp: i64,
    /// The smallest timestamp of any put (`i64::MAX` without puts).
    pub earliest_put_timestamp: i64,
    /// The largest sequence id of any cell.
    pub max_seq: u64,
    /// The Bloom filter's type.
    pub bloom_type: BloomType,
    /// How data blocks are compressed.
    pub compression: Compression,
    /// Data blocks.
    pub data_blocks: u64,
    /// Bytes of the data blocks before compression.
    pub raw_data_bytes: u64,
    /// Where the file belongs, when it records it.
    pub identity: Option<FileIdentity>,
    /// When the file was written (database clock, milliseconds; meta version 4).
    pub written_ms: Option<i64>,
    /// Written by a major compaction (HBase's `MAJOR_COMPACTION_KEY`; meta version 4).
    pub major_compaction: bool,
    /// How the data blocks store their cells, by the DATA_BLOCK_ENCODING name of what they do
    /// (HBase's file info `DATA_BLOCK_ENCODING`): NONE for prefix-compressed entries (what
    /// families with NONE, PREFIX or ROW_INDEX_V1 write), FAST_DIFF for entries whose
    /// timestamp, type and sequence id are deltas from the previous cell's (DIFF, FAST_DIFF;
    /// meta version 5).
    pub data_block_encoding: DataBlockEncoding,
}

/// One entry of the block index: a data block and its first key.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct IndexEntry {
    /// The data block.
    pub block: BlockHandle,
    /// How the block is stored, from its frame (`None` for an unknown compression byte).
    pub compression: Option<Compression>,
    /// Its index key: the block's first key, or a row separator of the first key's row
    /// ([`CellKey::type_code`] 255), which sorts before every cell of that row.
    pub first_key: CellKey,
}

/// The Bloom filter's parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BloomSummary {
    /// What it was built from: rows, or rows and qualifiers.
    pub bloom_type: BloomType,
    /// The filter version (1: SipHash-1-3, 2: XXH64 over the whole bit array, 3: XXH64, all of
    /// a key's bits in one 64-byte line).
    pub version: u8,
    /// Distinct keys it was built from.
    pub keys: u64,
    /// Hash functions per key.
    pub hash_count: u32,
    /// Bytes of the bit array.
    pub bitmap_bytes: u64,
    /// Bits set in the bit array.
    pub bits_set: u64,
}

impl BloomSummary {
    /// The filter version's hashing in words: `SipHash-1-3` (version 1), `XXH64` (version 2)
    /// or `XXH64, 64-byte lines` (version 3).
    pub fn hash_name(&self) -> &'static str {
        match self.version {
            1 => "SipHash-1-3",
            2 => "XXH64",
            _ => "XXH64, 64-byte lines",
        }
    }

    /// Bits in the bit array.
    pub fn bits(&self) -> u64 {
        self.bitmap_bytes * 8
    }

    /// The share of bits set, from 0 to 1 (0 for an empty bit array).
    pub fn fill_ratio(&self) -> f64 {
        let bits = self.bits() as f64;
        if bits > 0.0 {
            self.bits_set as f64 / bits
        } else {
            0.0
        }
    }

    /// The false positive rate expected from the filter's size, keys and hash count:
    /// `(1 - e^(-k·n/m))^k` for versions 1 and 2 (1 for an empty bit array); for version 3,
    /// whose keys each fill one 512-bit line, the same per line averaged over the Poisson
    /// number of keys `j` a line holds (mean `n / lines`): `Σ P(j) (1 - e^(-k·j/512))^k`.
    pub fn estimated_false_positive_rate(&self) -> f64 {
        let bits = self.bits() as f64;
        let k = self.hash_count;
        let fp =
            |keys: f64, bits: f64| (1.0 - (-(f64::from(k)) * keys / bits).exp()).powi(k as i32);
        if bits <= 0.0 {
            return 1.0;
        }
        if self.version < 3 {
            return fp(self.keys as f64, bits);
        }
        const LINE_BITS: f64 = 512.0;
        let mean = self.keys as f64 / (bits / LINE_BITS);
        // P(j) by the recurrence P(j) = P(j-1) · mean / j, summed far into the tail.
        let last = (mean + 10.0 * mean.sqrt() + 20.0) as u64;
        let mut p = (-mean).exp();
        let mut sum = 0.0;
        for j in 0..=last {
            if j > 0 {
                p *= mean / j as f64;
            }
            sum += p * fp(j as f64, LINE_BITS);
        }
        sum
    }
}

/// A block file opened for inspection: read whole into memory, its trailer, meta block, index
/// and Bloom filter checked and decoded (as an open of the database would). Data blocks are
/// read as [`BlockFile::cells`] or [`BlockFile::verify`] reach them.
pub struct BlockFile {
    path: PathBuf,
    file: Arc<OwnedFile>,
    reader: Arc<SstReader>,
    trailer: BlockFileTrailer,
    info: BlockFileInfo,
    index: Vec<IndexEntry>,
    bloom: Option<BloomSummary>,
}

impl std::fmt::Debug for BlockFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockFile")
            .field("path", &self.path)
            .field("trailer", &self.trailer)
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl BlockFile {
    /// Reads the block file at `path` (a regular file only) and checks its trailer, meta
    /// block, index and Bloom filter.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read or is not a regular file (the message starts
    /// with "cannot read PATH"); otherwise as [`BlockFile::from_bytes`].
    pub fn open(path: impl AsRef<Path>) -> Result<BlockFile> {
        let path = path.as_ref();
        Self::from_bytes(path, read_block_file(&StdFs, path)?)
    }

    /// Like [`BlockFile::open`] over a file's bytes already read (`path` names them in errors
    /// and findings).
    ///
    /// # Errors
    /// [`Error::UnsupportedFormat`] for a newer format or meta version; [`Error::Corruption`]
    /// naming the path and the offset of the first failed check.
    pub fn from_bytes(path: impl AsRef<Path>, bytes: Vec<u8>) -> Result<BlockFile> {
        let path = path.as_ref();
        let t = Trailer::decode(&bytes, path)?;
        let file = Arc::new(OwnedFile(bytes));
        let reader = Arc::new(SstReader::from_file(file.clone(), path, 0, None)?);
        let bytes = &file.0;
        let base = bytes.len() - TRAILER_LEN;
        let crc = bytes
            .get(base + 48..base + 52)
            .map_or(0, |c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]));
        let trailer = BlockFileTrailer {
            format_version: FORMAT_VERSION,
            magic: *MAGIC,
            crc,
            offset: base as u64,
            file_len: bytes.len() as u64,
            bloom: t.bloom.map(BlockHandle::from),
            index: t.index.into(),
            meta: t.meta.into(),
        };
        let meta = reader.meta();
        let key = |k: &[u8]| CellKey::decode(k);
        let info = BlockFileInfo {
            meta_version: meta.version,
            file_size: meta.file_size,
            first_key: key(&meta.first_key),
            last_key: key(&meta.last_key),
            mid_key: reader.mid_key().and_then(|k| key(&k)),
            cells: meta.cell_count,
            puts: meta.put_count,
            deletes: meta.delete_count,
            min_timestamp: meta.min_ts,
            max_timestamp: meta.max_ts,
            earliest_put_timestamp: meta.earliest_put_ts,
            max_seq: meta.max_seq,
            bloom_type: meta.bloom,
            compression: meta.compression,
            data_blocks: meta.data_blocks,
            raw_data_bytes: meta.raw_data_bytes,
            identity: meta.identity.as_ref().map(|id| FileIdentity {
                db_id: id.db_id,
                file_id: id.file_id,
                table_id: id.table_id,
                family: id.family.clone(),
            }),
            written_ms: meta.written_ms,
            major_compaction: meta.major_compaction,
            data_block_encoding: meta.encoding.data_block_encoding(),
        };
        let ix = reader.index();
        let mut index = Vec::with_capacity(ix.len());
        for i in 0..ix.len() {
            // The reader decoded and checked the index: every entry has both, and its key
            // parses.
            let (Some(h), Some(k)) = (ix.handle(i), ix.first_key(i)) else {
                break;
            };
            let first_key = CellKey::decode(&k).ok_or_else(|| {
                Error::corruption(path, format!("index block: malformed key of block {i}"))
            })?;
            let at = usize::try_from(h.offset + u64::from(h.size)).ok();
            let compression = at
                .and_then(|i| bytes.get(i))
                .and_then(|&code| Compression::from_code(code));
            index.push(IndexEntry {
                block: h.into(),
                compression,
                first_key,
            });
        }
        let bloom = match t.bloom {
            None => None,
            Some(h) => {
                let raw = frame::read_frame(bytes, h, h.end(), path, "bloom block")?;
                let f = BloomFilter::decode(&raw).map_err(|e| {
                    Error::corruption(
                        path,
                        format!(
                            "malformed bloom block at offset {}: {} at byte {}",
                            h.offset, e.what, e.offset
                        ),
                    )
                })?;
                Some(BloomSummary {
                    bloom_type: f.kind(),
                    version: f.version(),
                    keys: f.keys(),
                    hash_count: f.hash_count(),
                    bitmap_bytes: f.bitmap_bytes(),
                    bits_set: f.bits_set(),
                })
            }
        };
        Ok(BlockFile {
            path: path.to_path_buf(),
            file,
            reader,
            trailer,
            info,
            index,
            bloom,
        })
    }

    /// The path the file was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The trailer: where the Bloom, index and meta blocks lie.
    pub fn trailer(&self) -> &BlockFileTrailer {
        &self.trailer
    }

    /// The file's summary (HBase's file info).
    pub fn info(&self) -> &BlockFileInfo {
        &self.info
    }

    /// The block index: one entry per data block, in key order.
    pub fn index(&self) -> &[IndexEntry] {
        &self.index
    }

    /// The Bloom filter's parameters (`None` when the file has no filter).
    pub fn bloom(&self) -> Option<&BloomSummary> {
        self.bloom.as_ref()
    }

    /// Every cell, in key order.
    pub fn cells(&self) -> Cells {
        Cells::new(self, None)
    }

    /// The cells from the first cell of `row` on (or of the next row the file holds), in key
    /// order, to the end of the file: stop at the end of the row to read one row.
    pub fn cells_from(&self, row: &[u8]) -> Cells {
        Cells::new(self, Some(first_on_row(row)))
    }

    /// Checks every block: each data block's checksum and decoding (every block, not only up
    /// to the first damage), key order within and across blocks, index keys against the
    /// blocks' first keys; then, when every block reads, the engine's own cross-check of the
    /// meta statistics, index and Bloom filter against the cells. Returns every problem found
    /// (none for a sound file).
    pub fn verify(&self) -> Vec<Finding> {
        check_blocks(&self.path, &self.file, None, true).findings
    }
}

/// The cells of a [`BlockFile`], in key order ([`BlockFile::cells`], [`BlockFile::cells_from`]).
///
/// A damaged data block is an `Err` (a checksum mismatch, a malformed cell), after which the
/// iterator ends.
pub struct Cells {
    path: PathBuf,
    cursor: SstCursor,
    /// Where to start: the first cell, or the first at or after this key.
    start: Option<Vec<u8>>,
    started: bool,
    done: bool,
}

impl std::fmt::Debug for Cells {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cells")
            .field("path", &self.path)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl Cells {
    fn new(file: &BlockFile, start: Option<Vec<u8>>) -> Cells {
        Cells {
            path: file.path.clone(),
            cursor: file.reader.cursor(CachePolicy {
                fill: false,
                in_memory: false,
            }),
            start,
            started: false,
            done: false,
        }
    }

    fn step(&mut self) -> Result<Option<StoredCell>> {
        if self.started {
            self.cursor.next()?;
        } else {
            self.started = true;
            match &self.start {
                Some(k) => self.cursor.seek(k)?,
                None => self.cursor.seek_to_first()?,
            }
        }
        if !self.cursor.valid() {
            return Ok(None);
        }
        let key = self.cursor.key();
        let k = KeyRef::parse(key)
            .ok_or_else(|| Error::corruption(&self.path, "data block: malformed cell key"))?;
        let p = PayloadRef::parse(self.cursor.payload()).ok_or_else(|| {
            Error::corruption(
                &self.path,
                format!(
                    "data block: malformed payload of cell {}",
                    CellKey::from_ref(&k)
                ),
            )
        })?;
        Ok(Some(StoredCell::from_parts(&k, &p)))
    }
}

impl Iterator for Cells {
    type Item = Result<StoredCell>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.step() {
            Ok(Some(c)) => Some(Ok(c)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl std::iter::FusedIterator for Cells {}
