//! The block index: one entry per data block, in file order.
//!
//! Payload: `count: u32 BE | entry × count` where
//! `entry = first_key_len: varint | first_key | offset: u64 BE | size: u32 BE`.
//! An entry's key sorts after every cell of the previous block and at or before the block's
//! first cell: the first cell's key, or (files of meta version 2) a row separator.
//!
//! Invariants checked on load: first keys are well-formed cell keys in strictly increasing
//! [SORT-1] order, and the data blocks tile the data region exactly (the first starts at 0, each
//! starts where the previous one's frame ends, the last ends where the bloom or index block
//! starts).

use super::block::SeekTarget;
use super::frame::{BlockHandle, FRAME_TRAILER_LEN, HANDLE_LEN};
use crate::base::codec::{self, DecodeError, Reader};
use crate::model::key::{KeyRef, MIN_KEY_LEN, compare_encoded, first_on_row};
use std::borrow::Cow;
use std::cmp::Ordering;

/// Accumulates index entries while data blocks are written.
#[derive(Debug, Default)]
pub struct IndexBuilder {
    entries: Vec<u8>,
    count: u32,
}

impl IndexBuilder {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a data block whose first key is `first_key`.
    pub fn add(&mut self, first_key: &[u8], handle: BlockHandle) {
        codec::put_bytes(&mut self.entries, first_key);
        handle.encode_into(&mut self.entries);
        self.count += 1;
    }

    /// The block payload.
    pub fn finish(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 + self.entries.len());
        codec::put_u32(&mut out, self.count);
        out.extend_from_slice(&self.entries);
        out
    }
}

/// The loaded block index: index keys in one contiguous buffer (binary searches touch few
/// cache lines), block offsets alongside.
///
/// Memory per block (about 40 bytes for YCSB rows, half the plain layout): a row separator is
/// kept as its row alone (its 18-byte constant suffix is rebuilt on demand), key ends are
/// `u32`, and handles are derived from consecutive block offsets (the blocks tile the data
/// region, checked on load).
#[derive(Debug, Clone, Default)]
pub struct Index {
    /// Index key `i` as stored: the whole key, or only the row for a row separator.
    keys: Vec<u8>,
    /// End of key `i` in `keys` (key `i` starts where key `i - 1` ends), with [`SEPARATOR`]
    /// set when key `i` is a row separator kept as its row.
    ends: Vec<u32>,
    /// Offset of each block, then the end of the data region (`len() + 1` entries): block
    /// `i` spans `offsets[i]..offsets[i + 1]`, frame trailer included.
    offsets: Vec<u64>,
    /// [`row_word`] of each first key: most binary-search steps compare these eight bytes in
    /// one small array instead of reading the key (8 bytes per block of memory).
    row_words: Vec<u64>,
    /// The prefix every block's row shares (the common prefix of the first and the last
    /// index key's rows: the keys are sorted), left out of the row words so they hold
    /// distinguishing bytes (YCSB rows all start with "user").
    word_prefix: Vec<u8>,
    /// Every [`TOP_STRIDE`]-th row word: a search narrows to one stride through this small
    /// array (a few cache lines) before it touches `row_words`.
    top_words: Vec<u64>,
}

/// Flag bit in [`Index`]'s key ends: the key is a row separator stored as its row. Key
/// buffers stay far below 2 GiB (an index block is at most `MAX_BLOCK_LEN` bytes).
const SEPARATOR: u32 = 1 << 31;

/// Blocks per entry of [`Index`]'s top-level row words.
const TOP_STRIDE: usize = 32;

/// The first eight bytes of `row`, zero-padded, as a big-endian word. For two rows, unequal
/// words order as the rows do: at the first differing byte either both rows have a byte, or
/// the shorter row is padded with 0 and is a prefix of the other (so it sorts first).
#[inline]
fn row_word(row: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    let n = row.len().min(8);
    w[..n].copy_from_slice(&row[..n]);
    u64::from_be_bytes(w)
}

/// True for a row separator index key: [`crate::model::key::first_on_row`] of a row, which
/// sorts before every cell of the row. Files of meta version 2 use one as block `i`'s index key
/// when block `i` starts a row that block `i - 1` does not hold (docs/FORMAT.md).
pub fn is_row_separator(k: &KeyRef<'_>) -> bool {
    k.type_code == crate::model::key::TYPE_MAXIMUM
        && k.family.is_empty()
        && k.qualifier.is_empty()
        && k.ts == i64::MAX
        && k.seq == u64::MAX
}

/// True when `index_key` is a valid index key for a block whose first cell is `first`, the
/// previous block's last cell being `prev_last`: the first cell's key itself or, when
/// `separators` (a block after the first of a file of meta version 2), the row separator of
/// `first`'s row when `prev_last`'s row differs (not checked when `prev_last` does not parse,
/// e.g. empty because the previous block could not be read).
pub fn index_key_fits(index_key: &[u8], first: &[u8], prev_last: &[u8], separators: bool) -> bool {
    if index_key == first {
        return true;
    }
    let (Some(key), Some(cell)) = (KeyRef::parse(index_key), KeyRef::parse(first)) else {
        return false;
    };
    separators
        && is_row_separator(&key)
        && key.row == cell.row
        && KeyRef::parse(prev_last).is_none_or(|prev| prev.row != cell.row)
}

impl Index {
    /// Decodes and validates an index payload; `data_end` is where the data region ends.
    /// Offsets in errors are relative to the payload.
    ///
    /// # Errors
    /// Short data, malformed or unordered keys, blocks that do not tile `[0, data_end)`.
    #[cfg(any(test, feature = "testing"))]
    pub fn decode(payload: &[u8], data_end: u64) -> Result<Index, DecodeError> {
        Self::decode_with(payload, data_end, false)
    }

    /// As [`Index::decode`]; with `separators` (files of meta version 2) an entry after the
    /// first may also be a row separator ([`is_row_separator`]) instead of a cell key.
    ///
    /// # Errors
    /// As [`Index::decode`].
    pub fn decode_with(
        payload: &[u8],
        data_end: u64,
        separators: bool,
    ) -> Result<Index, DecodeError> {
        let mut r = Reader::new(payload);
        let count = r.u32("index entry count")? as usize;
        // Each entry takes at least 1 + MIN_KEY_LEN + HANDLE_LEN bytes: bounds the allocation.
        if count > r.remaining() / (1 + MIN_KEY_LEN + HANDLE_LEN) {
            return Err(DecodeError {
                what: "index entry count",
                offset: 0,
            });
        }
        let mut index = Index {
            keys: Vec::with_capacity(r.remaining()),
            ends: Vec::with_capacity(count),
            offsets: Vec::with_capacity(count + 1),
            row_words: Vec::new(),
            word_prefix: Vec::new(),
            top_words: Vec::new(),
        };
        let mut expect_offset = 0u64;
        let mut prev: &[u8] = &[];
        // Where each key's row lies in `index.keys`, for the row words below.
        let mut rows: Vec<std::ops::Range<usize>> = Vec::with_capacity(count);
        for i in 0..count {
            let at = r.pos();
            let bad = |what| DecodeError { what, offset: at };
            let key = r.bytes("index key")?;
            let parsed = KeyRef::parse(key).ok_or(bad("malformed index key"))?;
            let separator = separators && i > 0 && is_row_separator(&parsed);
            if parsed.cell_type().is_none() && !separator {
                return Err(bad("unknown cell type in index key"));
            }
            if i > 0 && compare_encoded(prev, key) != Ordering::Less {
                return Err(bad("index keys out of order"));
            }
            prev = key;
            let handle = BlockHandle::decode(&mut r)?;
            if handle.offset != expect_offset {
                return Err(bad("data block not contiguous with the previous one"));
            }
            expect_offset = handle.end();
            if expect_offset > data_end {
                return Err(bad("data block beyond the data region"));
            }
            // A separator keeps its row only; a whole key's row follows `row_len: u16`.
            let (stored, row_at) = if separator {
                (parsed.row, index.keys.len())
            } else {
                (key, index.keys.len() + 2)
            };
            rows.push(row_at..row_at + parsed.row.len());
            index.keys.extend_from_slice(stored);
            let end = u32::try_from(index.keys.len())
                .ok()
                .filter(|&e| e < SEPARATOR)
                .ok_or(bad("index keys too large"))?;
            index
                .ends
                .push(if separator { end | SEPARATOR } else { end });
            index.offsets.push(handle.offset);
        }
        if expect_offset != data_end {
            return Err(DecodeError {
                what: "data blocks do not fill the data region",
                offset: r.pos(),
            });
        }
        if !r.is_empty() {
            return Err(DecodeError {
                what: "trailing bytes after index",
                offset: r.pos(),
            });
        }
        index.offsets.push(data_end);
        // The buffer was sized for the whole payload (handles, length prefixes and
        // separator suffixes included).
        index.keys.shrink_to_fit();
        let row = |range: &std::ops::Range<usize>| &index.keys[range.clone()];
        let prefix = match (rows.first(), rows.last()) {
            (Some(first), Some(last)) => {
                let (first, last) = (row(first), row(last));
                let p = crate::base::util::common_prefix_len(first, last);
                first[..p].to_vec()
            }
            _ => Vec::new(),
        };
        let words: Vec<u64> = rows
            .iter()
            .map(|range| row_word(row(range).get(prefix.len()..).unwrap_or_default()))
            .collect();
        index.top_words = words.iter().step_by(TOP_STRIDE).copied().collect();
        index.row_words = words;
        index.word_prefix = prefix;
        Ok(index)
    }

    /// Number of data blocks.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True for a file without data blocks.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Stored bytes of key `i` (the row alone for a separator) and whether it is a separator.
    #[inline]
    fn stored(&self, i: usize) -> Option<(&[u8], bool)> {
        let start = match i {
            0 => 0,
            _ => (*self.ends.get(i - 1)? & !SEPARATOR) as usize,
        };
        let end = *self.ends.get(i)?;
        let bytes = self.keys.get(start..(end & !SEPARATOR) as usize)?;
        Some((bytes, end & SEPARATOR != 0))
    }

    /// Index key of block `i`: its first cell's key or, in files of meta version 2, possibly a
    /// row separator of that cell's row (block 0 always has its first cell's key). A
    /// separator is rebuilt from its row (an allocation); [`Index::first_row`] is cheaper when
    /// the row is enough.
    #[inline]
    pub fn first_key(&self, i: usize) -> Option<Cow<'_, [u8]>> {
        let (bytes, separator) = self.stored(i)?;
        Some(if separator {
            Cow::Owned(first_on_row(bytes))
        } else {
            Cow::Borrowed(bytes)
        })
    }

    /// Row of block `i`'s index key.
    #[inline]
    pub fn first_row(&self, i: usize) -> Option<&[u8]> {
        let (bytes, separator) = self.stored(i)?;
        if separator {
            Some(bytes)
        } else {
            KeyRef::parse(bytes).map(|k| k.row)
        }
    }

    /// Handle of block `i`.
    #[inline]
    pub fn handle(&self, i: usize) -> Option<BlockHandle> {
        let offset = *self.offsets.get(i)?;
        let end = *self.offsets.get(i.checked_add(1)?)?;
        // Checked on load: each block's framed length came from a `u32` size.
        let size = end.checked_sub(offset + FRAME_TRAILER_LEN as u64)?;
        Some(BlockHandle {
            offset,
            size: u32::try_from(size).ok()?,
        })
    }

    /// Heap bytes this index holds (capacity of its buffers).
    #[cfg(test)]
    fn heap_size(&self) -> usize {
        self.keys.capacity()
            + self.ends.capacity() * std::mem::size_of::<u32>()
            + self.offsets.capacity() * std::mem::size_of::<u64>()
            + self.row_words.capacity() * std::mem::size_of::<u64>()
            + self.word_prefix.capacity()
            + self.top_words.capacity() * std::mem::size_of::<u64>()
    }

    /// The block that may hold the first key `>= target`: the last block whose first key is
    /// `<= target`, or block 0 when `target` sorts before every block.
    pub fn find(&self, target: &[u8]) -> usize {
        let t = SeekTarget::new(target);
        let target_row = KeyRef::parse(target).map(|k| k.row);
        // A target row outside the shared prefix compares by key (it sorts before or after
        // every block's row).
        let tw =
            target_row.and_then(|row| row.strip_prefix(self.word_prefix.as_slice()).map(row_word));
        let (mut lo, mut hi) = (0, self.len());
        if let Some(tw) = tw {
            // Sampled words narrow the range: a smaller word starts before the target, a
            // larger one after it (equal words leave the boundary to the loop below).
            let below = self.top_words.partition_point(|&w| w < tw);
            let not_above = self.top_words.partition_point(|&w| w <= tw);
            if below > 0 {
                lo = (below - 1) * TOP_STRIDE + 1;
            }
            if not_above < self.top_words.len() {
                hi = not_above * TOP_STRIDE;
            }
        }
        // Invariant: blocks before `lo` start <= target, blocks from `hi` start > target.
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            // Unequal row words decide without the key (a malformed target has no word).
            let le = match (tw, self.row_words.get(mid)) {
                (Some(tw), Some(&w)) if w != tw => w < tw,
                _ => self.stored(mid).is_some_and(|(k, separator)| {
                    if !separator {
                        t.cmp_key(k) != Ordering::Greater
                    } else if let Some(row) = target_row {
                        // A separator sorts before every other key of its row [SORT-1].
                        k <= row
                    } else {
                        t.cmp_key(&first_on_row(k)) != Ordering::Greater
                    }
                }),
            };
            if le {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo.saturating_sub(1)
    }

    /// First key of the middle data block (entry `n/2`) [SPLIT-2].
    pub fn mid_key(&self) -> Option<Cow<'_, [u8]>> {
        self.first_key(self.len() / 2)
    }
}

/// Bytes a data block occupies on disk, frame trailer included.
#[cfg(test)]
pub fn framed_len(h: BlockHandle) -> u64 {
    u64::from(h.size) + FRAME_TRAILER_LEN as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::key::{CellType, KeyRef};

    fn key(row: &str) -> Vec<u8> {
        KeyRef {
            row: row.as_bytes(),
            family: b"f",
            qualifier: b"q",
            ts: 1,
            type_code: CellType::Put.code(),
            seq: 1,
        }
        .encode()
    }

    #[test]
    fn index_round_trip_find_and_mid_key() {
        let mut b = IndexBuilder::new();
        let mut off = 0;
        for (i, r) in ["b", "d", "f", "h"].iter().enumerate() {
            let h = BlockHandle {
                offset: off,
                size: 10 + i as u32,
            };
            off += framed_len(h);
            b.add(&key(r), h);
        }
        let payload = b.finish();
        let idx = Index::decode(&payload, off).unwrap();
        assert_eq!(idx.len(), 4);
        assert_eq!(idx.find(&key("a")), 0);
        assert_eq!(idx.find(&key("b")), 0);
        assert_eq!(idx.find(&key("c")), 0);
        assert_eq!(idx.find(&key("d")), 1);
        assert_eq!(idx.find(&key("z")), 3);
        assert_eq!(idx.mid_key().as_deref(), Some(&key("f")[..]));
        assert_eq!(idx.first_key(3).as_deref(), Some(&key("h")[..]));
        assert_eq!(
            idx.handle(1),
            Some(BlockHandle {
                offset: 15,
                size: 11
            })
        );
        assert!(idx.first_key(4).is_none() && idx.handle(4).is_none());
        assert!(Index::decode(&payload, off + 1).is_err());
        assert!(Index::decode(&payload[..payload.len() - 1], off).is_err());
        let empty = IndexBuilder::new().finish();
        let idx = Index::decode(&empty, 0).unwrap();
        assert!(idx.is_empty() && idx.mid_key().is_none());
        assert!(Index::decode(&[0xff, 0xff, 0xff, 0xff], 0).is_err());
    }

    /// `find` with row words equals a plain binary search over the first keys, for rows that
    /// share 8-byte prefixes, are shorter than 8 bytes, end in zero bytes, and for targets of
    /// every kind (before, between, on and after the first keys; malformed).
    #[test]
    fn find_matches_plain_search() {
        let mut next = crate::base::util::test_rng(0x1d_5eed_u64);
        let row = |next: &mut dyn FnMut(u64) -> u64| -> Vec<u8> {
            let stem: &[u8] =
                [&b"user0000"[..], b"user", b"u", b"", b"user00000000"][next(5) as usize];
            let mut r = stem.to_vec();
            for _ in 0..next(4) {
                r.push([0u8, b'0', b'5', 0xff][next(4) as usize]);
            }
            r
        };
        // The second half gives every block row a long shared prefix (left out of the row
        // words); targets have it or not.
        for round in 0..100 {
            let pre: &[u8] = if round >= 50 { b"user12" } else { b"" };
            let prefixed = |next: &mut dyn FnMut(u64) -> u64, always: bool| -> Vec<u8> {
                let mut r = if always || next(2) == 0 {
                    pre.to_vec()
                } else {
                    Vec::new()
                };
                r.extend_from_slice(&row(next));
                r
            };
            let mut keys: Vec<Vec<u8>> = (0..1 + next(300))
                .map(|_| {
                    KeyRef {
                        row: &prefixed(&mut next, true),
                        family: b"f",
                        qualifier: b"q",
                        ts: next(3) as i64,
                        type_code: CellType::Put.code(),
                        seq: 1,
                    }
                    .encode()
                })
                .collect();
            keys.sort_by(|a, b| compare_encoded(a, b));
            keys.dedup();
            let mut b = IndexBuilder::new();
            let mut off = 0;
            for k in &keys {
                let h = BlockHandle {
                    offset: off,
                    size: 10,
                };
                off += framed_len(h);
                b.add(k, h);
            }
            let idx = Index::decode(&b.finish(), off).unwrap();
            for _ in 0..200 {
                let target = match next(4) {
                    0 => keys[next(keys.len() as u64) as usize].clone(),
                    1 => vec![0xff, 0xff, 1],
                    _ => KeyRef {
                        row: &prefixed(&mut next, false),
                        family: b"f",
                        qualifier: b"q",
                        ts: next(4) as i64 - 1,
                        type_code: CellType::Put.code(),
                        seq: next(3),
                    }
                    .encode(),
                };
                let plain = keys
                    .partition_point(|k| compare_encoded(k, &target) != Ordering::Greater)
                    .saturating_sub(1);
                assert_eq!(idx.find(&target), plain, "{target:?}");
            }
        }
    }

    fn encode_index(entries: &[Vec<u8>]) -> (Vec<u8>, u64) {
        let mut b = IndexBuilder::new();
        let mut off = 0;
        for (i, k) in entries.iter().enumerate() {
            let h = BlockHandle {
                offset: off,
                size: 7 + i as u32 % 5,
            };
            off += framed_len(h);
            b.add(k, h);
        }
        (b.finish(), off)
    }

    fn row_of(k: &[u8]) -> &[u8] {
        KeyRef::parse(k).unwrap().row
    }

    /// With row separators stored as rows: `find` equals a plain binary search over the full
    /// index keys, and `first_key`, `first_row`, `handle`, `mid_key` give back what was
    /// written, for rows that are prefixes of others, rows over several blocks, empty and
    /// one-block indexes, and targets of every kind (separators, cells, malformed).
    #[test]
    fn separators_find_and_round_trip() {
        let mut next = crate::base::util::test_rng(0x5e9a_u64);
        let row = |next: &mut dyn FnMut(u64) -> u64| -> Vec<u8> {
            let stem: &[u8] = [&b"user0000"[..], b"user", b"u", b"", b"usex"][next(5) as usize];
            let mut r = stem.to_vec();
            for _ in 0..next(4) {
                r.push([0u8, b'0', b'5', 0xff][next(4) as usize]);
            }
            r
        };
        for round in 0..200 {
            let n = [0, 1, 2, 3, 40, 300][round % 6];
            let mut cells: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    KeyRef {
                        row: &row(&mut next),
                        family: [&b"f"[..], b""][next(2) as usize],
                        qualifier: [&b"q"[..], b""][next(2) as usize],
                        ts: [1, i64::MAX, 0][next(3) as usize],
                        type_code: CellType::Put.code(),
                        seq: [1, u64::MAX][next(2) as usize],
                    }
                    .encode()
                })
                .collect();
            cells.sort_by(|a, b| compare_encoded(a, b));
            cells.dedup();
            // Block i's index key: its first cell, or that cell's row separator when the
            // previous block ends in another row.
            let entries: Vec<Vec<u8>> = cells
                .iter()
                .enumerate()
                .map(|(i, k)| {
                    let new_row = i > 0 && row_of(&cells[i - 1]) != row_of(k);
                    if new_row && next(4) != 0 {
                        first_on_row(row_of(k))
                    } else {
                        k.clone()
                    }
                })
                .collect();
            let (payload, end) = encode_index(&entries);
            let idx = Index::decode_with(&payload, end, true).unwrap();
            assert_eq!(idx.len(), entries.len());
            let mut off = 0;
            for (i, e) in entries.iter().enumerate() {
                assert_eq!(idx.first_key(i).as_deref(), Some(&e[..]));
                assert_eq!(idx.first_row(i), Some(row_of(e)));
                let h = idx.handle(i).unwrap();
                assert_eq!((h.offset, h.size), (off, 7 + i as u32 % 5));
                off += framed_len(h);
            }
            assert!(idx.first_key(n).is_none() && idx.handle(entries.len()).is_none());
            assert_eq!(
                idx.mid_key().as_deref(),
                entries.get(entries.len() / 2).map(|e| &e[..])
            );
            for _ in 0..200 {
                let target = match next(5) {
                    0 if !entries.is_empty() => {
                        entries[next(entries.len() as u64) as usize].clone()
                    }
                    1 if !cells.is_empty() => cells[next(cells.len() as u64) as usize].clone(),
                    2 => first_on_row(&row(&mut next)),
                    3 => vec![0xff, 0xff, 1],
                    _ => KeyRef {
                        row: &row(&mut next),
                        family: b"f",
                        qualifier: b"",
                        ts: next(4) as i64 - 1,
                        type_code: CellType::Put.code(),
                        seq: next(3),
                    }
                    .encode(),
                };
                let plain = entries
                    .partition_point(|k| compare_encoded(k, &target) != Ordering::Greater)
                    .saturating_sub(1);
                assert_eq!(idx.find(&target), plain, "{target:?}");
            }
            // The same payload without separator support: separators are rejected.
            if entries
                .iter()
                .skip(1)
                .any(|e| KeyRef::parse(e).unwrap().cell_type().is_none())
            {
                assert!(Index::decode(&payload, end).is_err());
            }
        }
    }

    /// Heap bytes per block for a YCSB-like file: rows "user" + 19 digits of 10 cells
    /// ("family":"field0".."field9", 100-byte values), 4 KiB blocks cut at row starts, so
    /// every block after the first has a row separator as index key.
    #[test]
    fn ycsb_index_memory_per_block() {
        let mut next = crate::base::util::test_rng(0x9c5b_u64);
        let mut rows: Vec<Vec<u8>> = (0..30_000)
            .map(|_| format!("user{:019}", next(u64::MAX >> 1)).into_bytes())
            .collect();
        rows.sort();
        rows.dedup();
        // A row of 10 cells with 100-byte values is ~1.4 KiB: a 4 KiB block holds 3 rows.
        let entries: Vec<Vec<u8>> = rows
            .chunks(3)
            .enumerate()
            .map(|(i, c)| {
                if i == 0 {
                    KeyRef {
                        row: &c[0],
                        family: b"family",
                        qualifier: b"field0",
                        ts: 1,
                        type_code: CellType::Put.code(),
                        seq: 1,
                    }
                    .encode()
                } else {
                    first_on_row(&c[0])
                }
            })
            .collect();
        let (payload, end) = encode_index(&entries);
        let idx = Index::decode_with(&payload, end, true).unwrap();
        let n = idx.len();
        // The plain layout: a key buffer sized to the payload, `usize` ends, 16-byte handles
        // and the row words.
        let plain = payload.len() - 4 + n * (8 + 16 + 8) + idx.top_words.capacity() * 8;
        let now = idx.heap_size();
        println!(
            "index heap per block: {:.1} B (plain layout {:.1} B)",
            now as f64 / n as f64,
            plain as f64 / n as f64
        );
        assert!(now * 2 <= plain + n * 4, "{now} vs {plain}");
    }
}
