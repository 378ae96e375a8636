//! Data blocks: sorted cells with LevelDB-style key prefix compression and restart points.
//!
//! Uncompressed layout:
//!
//! ```text
//! entry*  where entry = shared: varint | unshared: varint | payload_len: varint
//!                       | key[shared..] (unshared bytes) | payload
//! restart: u32 BE × n | n: u32 BE
//! ```
//!
//! Every `restart_interval`-th entry (the first included) stores its whole key (`shared = 0`)
//! and its offset is listed in the restart array, so a seek binary-searches restart keys and
//! scans at most one interval.
//!
//! Validation is split by cost. The read path opens a block with [`Block::open`], which checks
//! only the restart array's shape (count in range, offsets increasing, inside the entries, the
//! first at 0): the frame's CRC already guards against damage, and a cursor checks every entry
//! it decodes (varints and lengths in range, `shared` no longer than the previous key, restart
//! entries with `shared = 0`, the key parses with a real type code, the payload parses), so a
//! malformed block that passed its CRC (a writer bug or a forged file) yields a [`DecodeError`],
//! never a panic or an out-of-bounds read. [`Block::decode`] and [`Block::validate`] walk every
//! entry up front (`cellbase verify`, `SstReader::verify`, the hfile tool).
//!
//! A block's bytes are either owned (decompressed, or decoded from a vector) or a range of the
//! memory-mapped file (uncompressed blocks: no copy).
//!
//! Files of meta version 5 may record the suffix-delta entry encoding instead
//! ([`super::encoding`]): the same restart array and restart rules, entries with a flags byte,
//! restart entries storing their whole key. The checks are the same, restart entries must be
//! full ones, and a delta entry needs the entry before it.

use super::encoding::{self, EntryEncoding};
use crate::base::codec::{DecodeError, Reader};
use crate::base::io::ReadableFile;
use crate::model::key::{KEY_TRAILER_LEN, KeySplit, compare_encoded};
use crate::model::payload::PayloadRef;
use std::cmp::Ordering;
use std::sync::Arc;

/// One decoded entry header: where the key delta and payload are.
#[derive(Debug, Clone, Copy)]
struct Entry {
    shared: usize,
    delta_start: usize,
    delta_end: usize,
    payload_end: usize,
}

/// Where a block's uncompressed bytes live.
pub enum BlockBytes {
    /// Owned by the block (decompressed, or copied).
    Owned(Box<[u8]>),
    /// `start..end` of a file (an uncompressed block read in place from the mapped file).
    Mapped {
        /// The open file.
        file: Arc<dyn ReadableFile>,
        /// First byte of the block's payload.
        start: usize,
        /// End of the block's payload.
        end: usize,
    },
}

impl std::fmt::Debug for BlockBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BlockBytes::Owned(b) => write!(f, "Owned({} bytes)", b.len()),
            BlockBytes::Mapped { start, end, .. } => write!(f, "Mapped({start}..{end})"),
        }
    }
}

/// A data block (decompressed; its restart array checked), shared by the block cache and
/// cursors.
#[derive(Debug)]
pub struct Block {
    bytes: BlockBytes,
    /// Offset where the restart array starts (= end of the entries).
    restarts_off: usize,
    num_restarts: usize,
    /// Every row with two or more cells in the block starts at a restart point (blocks of
    /// files of meta version 2): a seek for a row starts at its first restart, if any.
    rows_at_restarts: bool,
    /// How the entries store their keys (the file's, from its meta block).
    encoding: EntryEncoding,
}

impl Block {
    /// Validates `data` (an uncompressed block) entry by entry. Offsets in errors are relative
    /// to `data`.
    ///
    /// # Errors
    /// The first malformed field.
    #[cfg(any(test, feature = "testing"))]
    pub fn decode(data: Vec<u8>) -> Result<Block, DecodeError> {
        Block::decode_with(data, EntryEncoding::Prefix)
    }

    /// [`Block::decode`] of a block whose entries are `encoding`'s.
    ///
    /// # Errors
    /// The first malformed field.
    pub fn decode_with(data: Vec<u8>, encoding: EntryEncoding) -> Result<Block, DecodeError> {
        let mut block = Block::open(BlockBytes::Owned(data.into_boxed_slice()))?;
        block.set_encoding(encoding);
        block.validate()?;
        Ok(block)
    }

    /// Opens a block checking only its restart array (count in range, offsets strictly
    /// increasing inside the entries, the first at 0); entries are checked as cursors decode
    /// them. Offsets in errors are relative to the block.
    ///
    /// # Errors
    /// A malformed restart array, or a mapped range outside its file.
    pub fn open(bytes: BlockBytes) -> Result<Block, DecodeError> {
        let bad = |what, offset| DecodeError { what, offset };
        let mut block = Block {
            bytes,
            restarts_off: 0,
            num_restarts: 0,
            rows_at_restarts: false,
            encoding: EntryEncoding::Prefix,
        };
        if let BlockBytes::Mapped { file, start, end } = &block.bytes
            && file.bytes().get(*start..*end).is_none()
        {
            return Err(bad("block range outside its file", 0));
        }
        let data = block.data();
        let len = data.len();
        let n_off = len.checked_sub(4).ok_or(bad("block restart count", 0))?;
        let n = Reader::new(data.get(n_off..).unwrap_or_default()).u32("block restart count")?;
        let restarts_off = (n as usize)
            .checked_mul(4)
            .and_then(|b| n_off.checked_sub(b))
            .ok_or(bad("block restart count", n_off))?;
        if (restarts_off == 0) != (n == 0) {
            return Err(bad("block restart count", n_off));
        }
        let restarts = data
            .get(restarts_off..n_off)
            .ok_or(bad("block restarts", restarts_off))?;
        let mut prev: Option<usize> = None;
        for (i, r) in restarts.chunks_exact(4).enumerate() {
            let off = u32::from_be_bytes([r[0], r[1], r[2], r[3]]) as usize;
            let ok = match prev {
                None => off == 0,
                Some(p) => off > p && off < restarts_off,
            };
            if !ok {
                return Err(bad("restart offset not on an entry", restarts_off + 4 * i));
            }
            prev = Some(off);
        }
        block.restarts_off = restarts_off;
        block.num_restarts = n as usize;
        Ok(block)
    }

    /// Checks every entry (varints in range, keys and payloads well formed, type codes real,
    /// restart offsets exactly the entries listed, with `shared = 0`) and returns the number
    /// of entries. Offsets in errors are relative to the block.
    ///
    /// # Errors
    /// The first malformed field.
    pub fn validate(&self) -> Result<usize, DecodeError> {
        let data = self.data();
        let bad = |what, offset| DecodeError { what, offset };
        let restarts_off = self.restarts_off;
        let mut rr = Reader::new(
            data.get(restarts_off..restarts_off + 4 * self.num_restarts)
                .unwrap_or_default(),
        );
        let mut entries = 0;
        let mut key: Vec<u8> = Vec::new();
        let mut pos = 0;
        let mut plen = 0;
        let mut next_restart = if self.num_restarts > 0 {
            Some(rr.u32("block restart")? as usize)
        } else {
            None
        };
        while pos < restarts_off {
            // Where the payload is, and whether the entry stores its whole key; the key
            // rebuilt in `key`.
            let (payload, full) = match self.encoding {
                EntryEncoding::Prefix => {
                    let e = parse_entry(data, pos, restarts_off)?;
                    if e.shared > key.len() && next_restart != Some(pos) {
                        return Err(bad("shared key prefix longer than previous key", pos));
                    }
                    key.truncate(e.shared);
                    key.extend_from_slice(data.get(e.delta_start..e.delta_end).unwrap_or_default());
                    ((e.delta_end, e.payload_end), e.shared == 0)
                }
                EntryEncoding::SuffixDelta => {
                    let e = encoding::parse_delta_entry(
                        data,
                        pos,
                        restarts_off,
                        encoding::head_len(&key),
                        plen,
                    )?;
                    encoding::apply_delta_entry(&mut key, data, &e);
                    ((e.payload_start, e.payload_end), e.full())
                }
            };
            if next_restart == Some(pos) {
                if !full {
                    return Err(bad("restart entry with shared prefix", pos));
                }
                next_restart = if rr.is_empty() {
                    None
                } else {
                    Some(rr.u32("block restart")? as usize)
                };
            } else if next_restart.is_some_and(|r| r < pos) || pos == 0 {
                return Err(bad(
                    "restart offset not on an entry",
                    restarts_off + rr.pos(),
                ));
            }
            check_cell(
                &key,
                data.get(payload.0..payload.1).unwrap_or_default(),
                payload.0,
                pos,
            )?;
            plen = payload.1 - payload.0;
            pos = payload.1;
            entries += 1;
        }
        if next_restart.is_some() {
            return Err(bad(
                "restart offset not on an entry",
                restarts_off + rr.pos(),
            ));
        }
        Ok(entries)
    }

    /// The block's uncompressed bytes.
    #[inline]
    fn data(&self) -> &[u8] {
        match &self.bytes {
            BlockBytes::Owned(b) => b,
            BlockBytes::Mapped { file, start, end } => {
                file.bytes().get(*start..*end).unwrap_or_default()
            }
        }
    }

    /// Bytes of the uncompressed block.
    pub fn len(&self) -> usize {
        match &self.bytes {
            BlockBytes::Owned(b) => b.len(),
            BlockBytes::Mapped { start, end, .. } => end - start,
        }
    }

    /// True for a block without entries.
    #[cfg(any(test, feature = "testing"))]
    pub fn is_empty(&self) -> bool {
        self.restarts_off == 0
    }

    /// True when the bytes are a range of the mapped file (not a copy).
    #[cfg(test)]
    pub fn is_mapped(&self) -> bool {
        matches!(self.bytes, BlockBytes::Mapped { .. })
    }

    /// Number of cells in the block (walks and checks every entry: see
    /// [`Block::validate`]; 0 for a malformed block).
    #[cfg(test)]
    pub fn entries(&self) -> usize {
        self.validate().unwrap_or(0)
    }

    /// Declares that every row with two or more cells in this block starts at a restart point
    /// (the writer's layout since meta version 2), so seeks may skip earlier restart intervals.
    /// A block breaking this promise (damage the CRC missed) reads wrongly but never panics;
    /// `SstReader::verify` checks it.
    pub fn set_rows_at_restarts(&mut self, on: bool) {
        self.rows_at_restarts = on;
    }

    /// Declares how the block's entries store their keys (the file's entry encoding, from its
    /// meta block; prefix-compressed unless set). A block decoded with the wrong encoding
    /// reports corruption (or reads wrongly if the bytes happen to parse), never panics.
    pub fn set_encoding(&mut self, encoding: EntryEncoding) {
        self.encoding = encoding;
    }

    /// True when `pos` is a restart point's offset.
    pub fn is_restart(&self, pos: usize) -> bool {
        let (mut lo, mut hi) = (0, self.num_restarts);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.restart(mid) {
                Ok(r) if r == pos => return true,
                Ok(r) if r < pos => lo = mid + 1,
                Ok(_) => hi = mid,
                Err(_) => return false,
            }
        }
        false
    }

    fn restart(&self, i: usize) -> Result<usize, DecodeError> {
        let off = self.restarts_off + 4 * i;
        let b = self.data().get(off..).unwrap_or_default();
        Ok(Reader::new(b)
            .u32("block restart")
            .map_err(|e| shift(e, off))? as usize)
    }

    /// The full key stored at restart point `i` (restart entries share no prefix).
    fn restart_key(&self, i: usize) -> Result<&[u8], DecodeError> {
        let pos = self.restart(i)?;
        let data = self.data();
        if self.encoding == EntryEncoding::SuffixDelta {
            let e = encoding::parse_delta_entry(data, pos, self.restarts_off, None, 0)?;
            if !e.full() {
                return Err(DecodeError {
                    what: "restart entry with shared prefix",
                    offset: pos,
                });
            }
            return Ok(data.get(e.key_start..e.key_end).unwrap_or_default());
        }
        let e = parse_entry(data, pos, self.restarts_off)?;
        if e.shared != 0 {
            return Err(DecodeError {
                what: "restart entry with shared prefix",
                offset: pos,
            });
        }
        Ok(data.get(e.delta_start..e.delta_end).unwrap_or_default())
    }
}

/// Checks one decoded cell (entry at `pos`, payload at `payload_at`): the key parses with a
/// real type code and the payload parses.
#[inline]
fn check_cell(
    key: &[u8],
    payload: &[u8],
    payload_at: usize,
    pos: usize,
) -> Result<KeySplit, DecodeError> {
    // Field lengths only (no decoding): the type code is the trailer's ninth byte.
    let Some(split) = KeySplit::of(key) else {
        return Err(DecodeError {
            what: "malformed cell key",
            offset: pos,
        });
    };
    if crate::model::CellType::from_code(key[key.len() - 9]).is_none() {
        return Err(DecodeError {
            what: "unknown cell type code",
            offset: pos,
        });
    }
    if PayloadRef::parse(payload).is_none() {
        return Err(DecodeError {
            what: "malformed cell payload",
            offset: payload_at,
        });
    }
    Ok(split)
}

fn shift(e: DecodeError, by: usize) -> DecodeError {
    DecodeError {
        what: e.what,
        offset: e.offset + by,
    }
}

pub use crate::model::cursor::{SHARES_COLUMN, SHARES_FAMILY, SHARES_ROW};

/// How much of `key` (checked by `check_cell`) the entry shares with the key before it, which
/// was `prev_len` bytes long and whose first `shared` bytes `key` repeats.
#[inline]
fn shares(key: &[u8], split: KeySplit, shared: usize, prev_len: usize) -> u8 {
    let row_end = split.row_end();
    if shared < row_end {
        return 0;
    }
    let qual_start = split.qual_start();
    if shared < qual_start {
        return SHARES_ROW;
    }
    // Both keys have this row and family, so their qualifiers start at `qual_start`; the
    // qualifiers are equal when both end at the same place and `key` repeats them.
    let qual_end = key.len() - KEY_TRAILER_LEN;
    if shared >= qual_end && prev_len == key.len() {
        SHARES_COLUMN
    } else {
        SHARES_FAMILY
    }
}

/// Parses the entry header at `pos`; `limit` is the end of the entries.
#[inline]
fn parse_entry(data: &[u8], pos: usize, limit: usize) -> Result<Entry, DecodeError> {
    // Fast path: all three varints fit in one byte (keys deltas and payloads under 128 bytes).
    if let Some(&[shared, unshared, plen]) = data.get(pos..pos.wrapping_add(3))
        && (shared | unshared | plen) < 0x80
    {
        let delta_start = pos + 3;
        let delta_end = delta_start + usize::from(unshared);
        let payload_end = delta_end + usize::from(plen);
        if payload_end <= limit {
            return Ok(Entry {
                shared: usize::from(shared),
                delta_start,
                delta_end,
                payload_end,
            });
        }
    }
    parse_entry_slow(data, pos, limit)
}

#[cold]
fn parse_entry_slow(data: &[u8], pos: usize, limit: usize) -> Result<Entry, DecodeError> {
    let sub = data.get(pos..limit).ok_or(DecodeError {
        what: "block entry",
        offset: pos,
    })?;
    let mut r = Reader::new(sub);
    let read = |r: &mut Reader<'_>| -> Result<Entry, DecodeError> {
        let shared = r.len(u16::MAX as usize + 512, "entry shared length")?;
        let unshared = r.len(r.remaining(), "entry key length")?;
        let plen = r.len(r.remaining(), "entry payload length")?;
        let delta_start = r.pos();
        r.take(unshared, "entry key")?;
        r.take(plen, "entry payload")?;
        Ok(Entry {
            shared,
            delta_start,
            delta_end: delta_start + unshared,
            payload_end: r.pos(),
        })
    };
    let e = read(&mut r).map_err(|e| shift(e, pos))?;
    Ok(Entry {
        shared: e.shared,
        delta_start: e.delta_start + pos,
        delta_end: e.delta_end + pos,
        payload_end: e.payload_end + pos,
    })
}

/// The row of an encoded key (`None` when its row length prefix does not fit).
#[inline]
fn key_row(key: &[u8]) -> Option<&[u8]> {
    let len = usize::from(u16::from_be_bytes([*key.first()?, *key.get(1)?]));
    key.get(2..2 + len)
}

/// A seek target parsed once: [`SeekTarget::cmp_key`] orders exactly like
/// `compare_encoded(key, target)` without re-parsing the target for every comparison.
#[derive(Debug, Clone, Copy)]
pub struct SeekTarget<'a> {
    raw: &'a [u8],
    split: Option<KeySplit>,
}

impl<'a> SeekTarget<'a> {
    /// Locates the fields of `raw` (an encoded key; malformed targets compare bytewise, as in
    /// `compare_encoded`).
    #[inline]
    pub fn new(raw: &'a [u8]) -> Self {
        SeekTarget {
            raw,
            split: KeySplit::of(raw),
        }
    }

    /// `compare_encoded(key, target)`.
    // Always inlined into `BlockIter::seek` (about 25 calls per Get): left to the compiler it
    // was inlined or not depending on how the crate fell into codegen units, and a block-file
    // Get cost 4.5 % more instructions when it was not (docs/PERFORMANCE.md, issue 22).
    #[inline(always)]
    pub fn cmp_key(&self, key: &[u8]) -> Ordering {
        match (&self.split, KeySplit::of(key)) {
            (Some(t), Some(k)) => k.cmp_split(key, t, self.raw),
            _ => compare_encoded(key, self.raw),
        }
    }
}

/// A forward cursor over one [`Block`]. The current key is rebuilt in a reused buffer; the
/// payload is a range of the shared block bytes.
#[derive(Debug)]
pub struct BlockIter {
    block: Arc<Block>,
    key: Vec<u8>,
    payload: (usize, usize),
    /// Offset of the entry after the current one; `None` when invalid.
    next: Option<usize>,
    /// How much of its key the current entry shares with the entry decoded before it:
    /// [`SHARES_ROW`] (whole row: length prefix and bytes), [`SHARES_FAMILY`] (row and
    /// family), [`SHARES_COLUMN`] (row, family and qualifier), or 0.
    shares: u8,
}

impl BlockIter {
    /// An unpositioned cursor over `block`, reusing `key_buf`'s allocation.
    pub fn new(block: Arc<Block>, mut key_buf: Vec<u8>) -> Self {
        key_buf.clear();
        BlockIter {
            block,
            key: key_buf,
            payload: (0, 0),
            next: None,
            shares: 0,
        }
    }

    /// Gives the key buffer back (for reuse by the next block's cursor).
    pub fn into_key_buf(self) -> Vec<u8> {
        self.key
    }

    /// True when positioned on an entry.
    #[inline]
    pub fn valid(&self) -> bool {
        self.next.is_some()
    }

    /// Current key. REQUIRES: `valid()` (else empty).
    #[inline]
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// True when the current entry has the same row as the entry before it in the block (known
    /// from the shared key prefix, no comparison). False for a block's first entry, at restart
    /// points (they share nothing) and on a new row. Right after [`BlockIter::advance`], the
    /// entry before is the one the cursor was on.
    #[inline]
    pub fn same_row(&self) -> bool {
        self.shares >= SHARES_ROW
    }

    /// How much of its key the current entry shares with the entry before it (as
    /// [`BlockIter::same_row`]): [`SHARES_ROW`], [`SHARES_FAMILY`], [`SHARES_COLUMN`] or 0.
    #[inline]
    pub fn shares(&self) -> u8 {
        self.shares
    }

    /// Current key and payload. REQUIRES: `valid()` (else empty).
    #[inline]
    pub fn entry(&self) -> (&[u8], &[u8]) {
        (&self.key, self.payload())
    }

    /// Current payload. REQUIRES: `valid()` (else empty).
    #[inline]
    pub fn payload(&self) -> &[u8] {
        self.block
            .data()
            .get(self.payload.0..self.payload.1)
            .unwrap_or_default()
    }

    /// Decodes the entry at `pos` on top of the current key; at the end, becomes invalid.
    #[inline]
    fn load(&mut self, pos: usize) -> Result<(), DecodeError> {
        if pos >= self.block.restarts_off {
            self.next = None;
            return Ok(());
        }
        self.next = None;
        if self.block.encoding == EntryEncoding::SuffixDelta {
            return self.load_delta(pos);
        }
        let data = self.block.data();
        let e = parse_entry(data, pos, self.block.restarts_off)?;
        if e.shared > self.key.len() {
            return Err(DecodeError {
                what: "shared key prefix longer than previous key",
                offset: pos,
            });
        }
        let prev_len = self.key.len();
        self.key.truncate(e.shared);
        self.key
            .extend_from_slice(data.get(e.delta_start..e.delta_end).unwrap_or_default());
        let payload = data.get(e.delta_end..e.payload_end).unwrap_or_default();
        let split = match check_cell(&self.key, payload, e.delta_end, pos) {
            Ok(split) => split,
            Err(err) => {
                self.key.clear();
                return Err(err);
            }
        };
        self.payload = (e.delta_end, e.payload_end);
        self.next = Some(e.payload_end);
        self.shares = shares(&self.key, split, e.shared, prev_len);
        Ok(())
    }

    /// [`BlockIter::load`] of a suffix-delta entry: the previous key and payload length are
    /// the current entry's (the key is empty at a block's start and at a seek's restart,
    /// where only a full entry decodes).
    #[inline]
    fn load_delta(&mut self, pos: usize) -> Result<(), DecodeError> {
        let data = self.block.data();
        let prev_len = self.key.len();
        let prev_plen = self.payload.1.saturating_sub(self.payload.0);
        let e = encoding::parse_delta_entry(
            data,
            pos,
            self.block.restarts_off,
            encoding::head_len(&self.key),
            prev_plen,
        )?;
        encoding::apply_delta_entry(&mut self.key, data, &e);
        let payload = data.get(e.payload_start..e.payload_end).unwrap_or_default();
        let split = match check_cell(&self.key, payload, e.payload_start, pos) {
            Ok(split) => split,
            Err(err) => {
                self.key.clear();
                return Err(err);
            }
        };
        self.payload = (e.payload_start, e.payload_end);
        self.next = Some(e.payload_end);
        self.shares = if e.full() {
            0
        } else {
            shares(&self.key, split, e.shared, prev_len)
        };
        Ok(())
    }

    /// Offset of the entry after the current one (`None` when invalid).
    pub fn next_offset(&self) -> Option<usize> {
        self.next
    }

    /// Positions on the first entry.
    ///
    /// # Errors
    /// A malformed entry (the cursor becomes invalid).
    pub fn seek_to_first(&mut self) -> Result<(), DecodeError> {
        self.key.clear();
        self.load(0)
    }

    /// Moves to the next entry. REQUIRES: `valid()`.
    ///
    /// # Errors
    /// A malformed entry (the cursor becomes invalid).
    #[inline]
    pub fn advance(&mut self) -> Result<(), DecodeError> {
        match self.next {
            Some(pos) => self.load(pos),
            None => Ok(()),
        }
    }

    /// Positions on the first entry whose key is `>= target`; invalid if every key is smaller.
    ///
    /// # Errors
    /// A malformed entry (the cursor becomes invalid).
    pub fn seek(&mut self, target: &[u8]) -> Result<(), DecodeError> {
        self.next = None;
        let n = self.block.num_restarts;
        if n == 0 {
            return Ok(());
        }
        let t = SeekTarget::new(target);
        if self.block.rows_at_restarts
            && t.split.is_some()
            && let Some(trow) = key_row(target)
        {
            // The first restart of a row >= the target's row. A row with two or more cells in
            // the block starts at a restart, so if that restart has the target's row, no cell
            // of the row lies before it; otherwise the row has at most one cell, in the
            // interval before that restart.
            let (mut lo, mut hi) = (0usize, n);
            let mut hit = false;
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                let row = key_row(self.block.restart_key(mid)?).ok_or(DecodeError {
                    what: "malformed cell key",
                    offset: self.block.restart(mid)?,
                })?;
                match row.cmp(trow) {
                    Ordering::Less => lo = mid + 1,
                    ord => {
                        hit = ord == Ordering::Equal;
                        hi = mid;
                    }
                }
            }
            // `hit` belongs to the last `mid` that set `hi`, i.e. restart `lo` when `lo < n`.
            let start = if hit && lo < n {
                lo
            } else {
                lo.saturating_sub(1)
            };
            self.key.clear();
            self.load(self.block.restart(start)?)?;
            while self.valid() && t.cmp_key(&self.key) == Ordering::Less {
                self.advance()?;
            }
            return Ok(());
        }
        // Largest restart whose key is <= target (or 0).
        let (mut lo, mut hi) = (0usize, n - 1);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if t.cmp_key(self.block.restart_key(mid)?) == Ordering::Greater {
                hi = mid - 1;
            } else {
                lo = mid;
            }
        }
        self.key.clear();
        self.load(self.block.restart(lo)?)?;
        while self.valid() && t.cmp_key(&self.key) == Ordering::Less {
            self.advance()?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "block_tests.rs"]
mod tests;
