//! Bloom filters over rows (ROW) or rows plus qualifiers (ROWCOL) [BLOOM-1..4].
//!
//! The filter itself is the `bloomfilter` crate's (SipHash-1-3, double hashing, ~1% false
//! positives). Keys are hashed platform-independently: [`BloomKey`]'s `Hash` feeds only raw byte
//! strings to the hasher (`Hasher::write`, never `write_usize` or a length prefix), and SipHash
//! over a byte stream does not depend on endianness or pointer width. The 32-byte seed is fixed
//! ([`FIXED_SEED`]) and checked on load.
//!
//! Block payload: `bloom_type: u8 (1 ROW, 2 ROWCOL) | key_count: u64 BE | filter`, where
//! `filter` is the crate's serialization (`Bloom::as_slice`).

use crate::codec::{self, DecodeError, Reader};
use crate::error::{Error, Result};
use crate::model::schema::BloomType;
use bloomfilter::Bloom;
use std::hash::{Hash, Hasher};

/// The fixed seed of every filter (changing it changes the format).
pub const FIXED_SEED: [u8; 32] = *b"cellbase-bloom-seed-v1-000000000";
/// Target false-positive rate [BLOOM-2].
pub const FP_RATE: f64 = 0.01;
/// Header of the crate's serialization: version (1), bitmap length (8, LE), k (4, LE), seed (32).
const CRATE_HEADER_LEN: usize = 45;
/// Most hash functions a loaded filter may use (1% needs 7).
const MAX_HASHES: u32 = 64;

/// A Bloom key: `Row(row)` hashes `row`; `RowCol(row, q)` hashes
/// `u16 BE row length ‖ row ‖ qualifier`.
#[derive(Debug, Clone, Copy)]
pub enum BloomKey<'a> {
    /// ROW key.
    Row(&'a [u8]),
    /// ROWCOL key.
    RowCol(&'a [u8], &'a [u8]),
}

impl Hash for BloomKey<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match *self {
            BloomKey::Row(row) => state.write(row),
            BloomKey::RowCol(row, q) => {
                // Rows are at most u16::MAX bytes (key encoding), so the cast is lossless.
                state.write(&(row.len() as u16).to_be_bytes());
                state.write(row);
                state.write(q);
            }
        }
    }
}

/// Stored bloom type code.
pub(crate) fn bloom_code(t: BloomType) -> u8 {
    match t {
        BloomType::None => 0,
        BloomType::Row => 1,
        BloomType::RowCol => 2,
    }
}

/// Bloom type for a stored code.
pub(crate) fn bloom_from_code(c: u8) -> Option<BloomType> {
    Some(match c {
        0 => BloomType::None,
        1 => BloomType::Row,
        2 => BloomType::RowCol,
        _ => return None,
    })
}

/// Collects the distinct keys of a file being written (cells arrive sorted, so duplicates are
/// consecutive) and builds the filter once their number is known. Memory: the distinct keys'
/// bytes plus one `usize` each.
#[derive(Debug)]
pub struct BloomBuilder {
    kind: BloomType,
    arena: Vec<u8>,
    /// `(row_len, end)` of each key in `arena`; the qualifier (ROWCOL) follows the row.
    spans: Vec<(u16, usize)>,
}

impl BloomBuilder {
    /// A builder for `kind` (`None` collects nothing).
    pub fn new(kind: BloomType) -> Self {
        BloomBuilder {
            kind,
            arena: Vec::new(),
            spans: Vec::new(),
        }
    }

    /// Number of distinct keys so far.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// True when no key was added.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    fn last(&self) -> Option<(&[u8], &[u8])> {
        let &(row_len, end) = self.spans.last()?;
        let start = match self.spans.len() {
            0 | 1 => 0,
            n => self.spans.get(n - 2).map_or(0, |s| s.1),
        };
        let k = self.arena.get(start..end)?;
        Some(k.split_at(usize::from(row_len).min(k.len())))
    }

    /// Adds the key of one cell. Rows longer than `u16::MAX` never occur (key encoding).
    pub fn add(&mut self, row: &[u8], qualifier: &[u8]) {
        let q: &[u8] = match self.kind {
            BloomType::None => return,
            BloomType::Row => b"",
            BloomType::RowCol => qualifier,
        };
        if self.last() == Some((row, q)) {
            return;
        }
        self.arena.extend_from_slice(row);
        self.arena.extend_from_slice(q);
        self.spans.push((row.len() as u16, self.arena.len()));
    }

    /// The block payload, or `None` when there is no filter (type NONE or no keys).
    ///
    /// # Errors
    /// The crate refused to size the filter (does not happen for 1..=usize::MAX keys).
    pub fn finish(self) -> Result<Option<Vec<u8>>> {
        if self.kind == BloomType::None || self.spans.is_empty() {
            return Ok(None);
        }
        let mut bloom: Bloom<BloomKey<'_>> =
            Bloom::new_for_fp_rate_with_seed(self.spans.len(), FP_RATE, &FIXED_SEED)
                .map_err(|e| Error::invalid(format!("cannot build bloom filter: {e}")))?;
        let mut start = 0;
        for &(row_len, end) in &self.spans {
            let k = self.arena.get(start..end).unwrap_or_default();
            let (row, q) = k.split_at(usize::from(row_len).min(k.len()));
            bloom.set(&match self.kind {
                BloomType::RowCol => BloomKey::RowCol(row, q),
                _ => BloomKey::Row(row),
            });
            start = end;
        }
        let mut out = Vec::with_capacity(9 + bloom.as_slice().len());
        out.push(bloom_code(self.kind));
        codec::put_u64(&mut out, self.spans.len() as u64);
        out.extend_from_slice(bloom.as_slice());
        Ok(Some(out))
    }
}

/// A loaded filter.
pub struct BloomFilter {
    kind: BloomType,
    keys: u64,
    /// Covariant in the key lifetime, so it can probe keys borrowed for any lifetime.
    bloom: Bloom<BloomKey<'static>>,
}

impl std::fmt::Debug for BloomFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BloomFilter")
            .field("kind", &self.kind)
            .field("keys", &self.keys)
            .finish()
    }
}

impl BloomFilter {
    /// Decodes and validates a bloom block payload (offsets relative to it).
    ///
    /// # Errors
    /// Unknown type, bad crate header (version, length, hash count, seed) or short data.
    pub fn decode(payload: &[u8]) -> std::result::Result<BloomFilter, DecodeError> {
        let bad = |what, offset| DecodeError { what, offset };
        let mut r = Reader::new(payload);
        let kind = match bloom_from_code(r.u8("bloom type")?) {
            Some(k @ (BloomType::Row | BloomType::RowCol)) => k,
            _ => return Err(bad("bloom type", 0)),
        };
        let keys = r.u64("bloom key count")?;
        let body_off = r.pos();
        let body = r.take(r.remaining(), "bloom filter")?;
        // Validate the crate header ourselves: `from_slice` accepts an empty bitmap, which
        // would make probes divide by zero, and an absurd hash count.
        let mut h = Reader::new(body);
        let shifted = |e: DecodeError| DecodeError {
            what: e.what,
            offset: e.offset + body_off,
        };
        let version = h.u8("bloom filter version").map_err(shifted)?;
        let len_le = h.take(8, "bloom bitmap length").map_err(shifted)?;
        let k_le = h.take(4, "bloom hash count").map_err(shifted)?;
        let seed = h.take(32, "bloom seed").map_err(shifted)?;
        let mut a8 = [0u8; 8];
        a8.copy_from_slice(len_le);
        let mut a4 = [0u8; 4];
        a4.copy_from_slice(k_le);
        let (bits_len, k) = (u64::from_le_bytes(a8), u32::from_le_bytes(a4));
        if version != 1 {
            return Err(bad("bloom filter version", body_off));
        }
        if bits_len == 0 || bits_len != h.remaining() as u64 {
            return Err(bad("bloom bitmap length", body_off + 1));
        }
        if k == 0 || k > MAX_HASHES {
            return Err(bad("bloom hash count", body_off + 9));
        }
        if seed != FIXED_SEED {
            return Err(bad("bloom seed", body_off + 13));
        }
        debug_assert_eq!(CRATE_HEADER_LEN, h.pos());
        let bloom = Bloom::from_slice(body).map_err(|_| bad("bloom filter", body_off))?;
        Ok(BloomFilter { kind, keys, bloom })
    }

    /// ROW or ROWCOL.
    pub fn kind(&self) -> BloomType {
        self.kind
    }

    /// Distinct keys the writer inserted.
    pub fn keys(&self) -> u64 {
        self.keys
    }

    /// Filter probe: false means `key` was certainly not inserted.
    pub fn contains(&self, key: BloomKey<'_>) -> bool {
        let b: &Bloom<BloomKey<'_>> = &self.bloom;
        b.check(&key)
    }

    /// [BLOOM-3]: could `row` be present? A ROWCOL filter cannot tell (true).
    pub fn may_contain_row(&self, row: &[u8]) -> bool {
        match self.kind {
            BloomType::Row => self.contains(BloomKey::Row(row)),
            _ => true,
        }
    }

    /// [BLOOM-4]: could a cell of `row`/`qualifier` be present, or a family-level delete
    /// marker of `row` (empty qualifier) that masks it?
    pub fn may_contain_column(&self, row: &[u8], qualifier: &[u8]) -> bool {
        match self.kind {
            BloomType::RowCol => {
                self.contains(BloomKey::RowCol(row, qualifier))
                    || self.contains(BloomKey::RowCol(row, b""))
            }
            BloomType::Row => self.contains(BloomKey::Row(row)),
            BloomType::None => true,
        }
    }
}

#[cfg(test)]
#[path = "bloom_tests.rs"]
mod tests;
