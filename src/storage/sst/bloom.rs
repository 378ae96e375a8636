//! Bloom filters over rows (ROW), rows plus qualifiers (ROWCOL) or row prefixes
//! (ROWPREFIX_FIXED_LENGTH) [BLOOM-1..5].
//!
//! Block payload: `bloom_type: u8 (1 ROW, 2 ROWCOL, 3 ROWPREFIX_FIXED_LENGTH) | [type 3 only:
//! prefix_length: u32 BE] | key_count: u64 BE | filter`, where the first byte of `filter` is
//! its version:
//!
//! * **3** (written since issue 27): `3 | k: u8 | bitmap_len: u64 BE | bitmap`, the bitmap a
//!   whole number of 64-byte lines. One XXH64 of the key bytes (seed 0) gives `h`; its
//!   multiply-shift range reduction picks one line, and the `k` probes all test bits of that
//!   line: one cache line per key and filter, where version 2's probes touch `k` random
//!   lines (RocksDB's "FastLocalBloom" idea).
//! * **2** (issue 6 to 26, still read): `2 | k: u8 | bitmap_len: u64 BE | bitmap`. XXH64
//!   gives `h`; probe `i` (0..k) tests bit `((h + i·rotl(h, 32)) mod 2^64) · 8·bitmap_len >> 64`
//!   (double hashing, multiply-shift range reduction).
//! * **1** (older files, still read): the `bloomfilter` crate's serialization
//!   (`Bloom::as_slice`, SipHash-1-3, fixed seed [`FIXED_SEED`]).
//!
//! Keys are byte strings, so every version is platform-independent: ROW hashes the row,
//! ROWPREFIX_FIXED_LENGTH the row's first `prefix_length` bytes (the whole row when shorter),
//! ROWCOL `u16 BE row length ‖ row ‖ qualifier` (version 1 streams the three parts into the
//! hasher with `Hasher::write`, which SipHash treats as one byte stream).

use crate::base::codec::{self, DecodeError, Reader};
use crate::base::error::Result;
use crate::model::schema::BloomType;
use bloomfilter::Bloom;
use std::hash::{Hash, Hasher};

/// The fixed seed of every filter (changing it changes the format).
pub const FIXED_SEED: [u8; 32] = *b"cellbase-bloom-seed-v1-000000000";
/// Target false-positive rate [BLOOM-2] of the version-1 and version-2 sizing (version 3's
/// shape measures ~0.9 %).
#[cfg(test)]
pub const FP_RATE: f64 = 0.01;
/// Header of the crate's serialization: version (1), bitmap length (8, LE), k (4, LE), seed (32).
const CRATE_HEADER_LEN: usize = 45;
/// Most hash functions a loaded filter may use (1% needs 7).
const MAX_HASHES: u32 = 64;
/// Filter version written by [`BloomBuilder::finish`]: XXH64, one 64-byte line per key.
pub const FILTER_VERSION: u8 = 3;
/// The filter version of issue 6 (XXH64 with double hashing over the whole bitmap), still read.
pub const FILTER_VERSION_XX: u8 = 2;
/// The oldest filter version (the `bloomfilter` crate's SipHash-1-3), still read.
pub const FILTER_VERSION_SIP: u8 = 1;
/// Bytes of a version-2 or version-3 filter before its bitmap: version (1), k (1), bitmap
/// length (8).
const V2_HEADER_LEN: usize = 10;
/// Bytes of one line of a version-3 filter: a cache line.
pub const LINE_BYTES: usize = 64;
/// Bits per key of a version-3 filter (a blocked filter needs a little more than the ~9.6 a
/// whole-bitmap filter needs for 1 %: measured ~0.9 % at 10 bits and 6 probes,
/// `false_positive_rate_matches_the_configured_rate`).
const V3_BITS_PER_KEY: usize = 10;
/// Probes per key of a version-3 filter.
const V3_PROBES: u32 = 6;
/// The multiplier that steps a version-3 probe hash (the 32-bit golden ratio, odd).
const V3_STEP: u32 = 0x9E37_79B9;

#[cfg(test)]
thread_local! {
    /// Tests only: makes this thread's builders write version-1 filters, as older cellbase
    /// versions did, to check that such files are still read.
    pub(crate) static WRITE_V1: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl BloomKey<'_> {
    /// XXH64 (seed 0) of the key's bytes: the row, or `u16 BE row length ‖ row ‖ qualifier`.
    #[inline]
    pub fn hash64(&self) -> u64 {
        match *self {
            BloomKey::Row(row) => super::xxh64::xxh64(row, 0),
            BloomKey::RowCol(row, q) => {
                let n = 2 + row.len() + q.len();
                let mut stack = [0u8; 256];
                let mut heap = Vec::new();
                let buf: &mut [u8] = match stack.get_mut(..n) {
                    Some(b) => b,
                    None => {
                        heap.resize(n, 0);
                        &mut heap
                    }
                };
                // Rows are at most u16::MAX bytes (key encoding), so the cast is lossless.
                let (len, rest) = buf.split_at_mut(2);
                len.copy_from_slice(&(row.len() as u16).to_be_bytes());
                let (r, qq) = rest.split_at_mut(row.len());
                r.copy_from_slice(row);
                qq.copy_from_slice(q);
                super::xxh64::xxh64(buf, 0)
            }
        }
    }
}

/// Bit positions of a version-2 filter with `bits` bits for the hash `h`: double hashing,
/// each step mapped into `0..bits` by a multiply-shift.
#[inline]
fn v2_positions(h: u64, k: u32, bits: u64) -> impl Iterator<Item = u64> {
    let delta = h.rotate_left(32);
    (0..u64::from(k)).map(move |i| {
        let g = h.wrapping_add(i.wrapping_mul(delta));
        ((u128::from(g) * u128::from(bits)) >> 64) as u64
    })
}

#[cfg(test)]
/// Bitmap bytes and hash count of a version-2 filter for `n` keys at [`FP_RATE`]: the
/// optimal `m = n·ln(1/p)/ln²2` bits rounded up to whole bytes, `k = round(m/n · ln 2)`.
fn v2_shape(n: usize) -> (usize, u32) {
    let ln2 = std::f64::consts::LN_2;
    let bytes = ((n as f64) * (1.0 / FP_RATE).ln() / (8.0 * ln2 * ln2)).ceil() as usize;
    let bytes = bytes.max(1);
    let k = ((bytes as f64 * 8.0 / n as f64) * ln2).round() as u32;
    (bytes, k.clamp(1, 30))
}

/// Lines and probes of a version-3 filter for `n` keys: [`V3_BITS_PER_KEY`] bits per key
/// rounded up to whole lines (at least one), [`V3_PROBES`] probes.
fn v3_shape(n: usize) -> (usize, u32) {
    let lines = n
        .saturating_mul(V3_BITS_PER_KEY)
        .div_ceil(8 * LINE_BYTES)
        .max(1);
    (lines, V3_PROBES)
}

/// The line of a version-3 filter of `lines` lines that holds hash `h`'s bits: the 128-bit
/// product's high word, so `< lines`; halving an even `lines` maps line `l` to `l / 2`.
#[inline]
fn v3_line(h: u64, lines: usize) -> usize {
    ((u128::from(h) * lines as u128) >> 64) as usize
}

/// Bit positions (0..512) within its line of hash `h`'s `k` probes: the top nine bits of the
/// low 32 bits of `h`, then of that word times [`V3_STEP`] (mod 2^32), and so on.
#[inline]
fn v3_bits(h: u64, k: u32) -> impl Iterator<Item = u32> {
    let mut g = h as u32;
    (0..k).map(move |_| {
        let b = g >> 23;
        g = g.wrapping_mul(V3_STEP);
        b
    })
}

/// One line of a version-3 filter, aligned to a cache line: bit `b` is bit `b % 64` of word
/// `b / 64`, which on disk is bit `b % 8` (LSB first) of the line's byte `b / 8` (words
/// little-endian).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[repr(C, align(64))]
pub(crate) struct Line([u64; 8]);

impl Line {
    #[inline]
    fn set(&mut self, b: u32) {
        self.0[(b >> 6) as usize & 7] |= 1 << (b & 63);
    }
    #[inline]
    fn test(&self, b: u32) -> bool {
        self.0[(b >> 6) as usize & 7] & (1 << (b & 63)) != 0
    }
    fn or(self, o: Line) -> Line {
        let mut w = self.0;
        for (a, b) in w.iter_mut().zip(o.0) {
            *a |= b;
        }
        Line(w)
    }
    fn from_bytes(b: &[u8]) -> Line {
        let mut w = [0u64; 8];
        for (x, c) in w.iter_mut().zip(b.chunks_exact(8)) {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            *x = u64::from_le_bytes(a);
        }
        Line(w)
    }
    fn put_bytes(&self, out: &mut Vec<u8>) {
        for w in self.0 {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
}

/// A Get's row for the ROW filters of several files: its XXH64 (the ROW key's hash) is
/// computed by the first filter that needs it and reused by the rest (a Get over ten files
/// hashed its row ten times).
#[derive(Debug)]
pub struct RowProbe<'a> {
    row: &'a [u8],
    hash: std::cell::OnceCell<u64>,
}

impl<'a> RowProbe<'a> {
    /// A probe for `row`, hashed on first use.
    pub fn new(row: &'a [u8]) -> RowProbe<'a> {
        RowProbe {
            row,
            hash: std::cell::OnceCell::new(),
        }
    }

    /// The row.
    pub fn row(&self) -> &'a [u8] {
        self.row
    }

    fn hash(&self) -> u64 {
        *self.hash.get_or_init(|| BloomKey::Row(self.row).hash64())
    }
}

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

/// Appends the stored Bloom type: a code byte (0 NONE, 1 ROW, 2 ROWCOL, 3
/// ROWPREFIX_FIXED_LENGTH), for code 3 followed by the prefix length (`u32` BE) [BLOOM-5].
pub(crate) fn put_bloom_type(out: &mut Vec<u8>, t: BloomType) {
    match t {
        BloomType::RowPrefixFixedLength(n) => {
            out.push(3);
            codec::put_u32(out, n);
        }
        BloomType::Row => out.push(1),
        BloomType::RowCol => out.push(2),
        _ => out.push(0),
    }
}

/// Reads what [`put_bloom_type`] wrote; an unknown code or a prefix length outside
/// 1..=32767 is an error at the code's offset.
pub(crate) fn read_bloom_type(
    r: &mut Reader<'_>,
    what: &'static str,
) -> std::result::Result<BloomType, DecodeError> {
    let at = r.pos();
    let bad = DecodeError { what, offset: at };
    Ok(match r.u8(what)? {
        0 => BloomType::None,
        1 => BloomType::Row,
        2 => BloomType::RowCol,
        3 => match r.u32(what)? {
            n @ 1..=32767 => BloomType::RowPrefixFixedLength(n),
            _ => return Err(bad),
        },
        _ => return Err(bad),
    })
}

/// Collects the distinct keys of a file being written (cells arrive sorted, so duplicates are
/// consecutive) and builds the filter once their number is known. Memory: one 64-bit hash per
/// distinct key (the filter needs only that), whatever the keys' length; a compaction of a
/// million 16-byte rows holds 8 MB instead of the keys' bytes and spans (32 MB). With a bound
/// on the key count ([`BloomBuilder::with_key_bound`]), the filter's bitmap itself, ~1.2
/// bytes per bounded key.
pub struct BloomBuilder {
    kind: BloomType,
    /// Distinct keys added.
    count: u64,
    /// [`BloomKey::hash64`] of each distinct key, in order (without a key bound).
    hashes: Vec<u64>,
    /// With a key bound ([`BloomBuilder::with_key_bound`]): the filter itself, sized for the
    /// bound and folded down to the key count's size at the end.
    sized: Option<SizedFilter>,
    /// The last key added (row ‖ qualifier) and its row's length.
    last: Vec<u8>,
    last_row_len: usize,
    /// Tests only: every distinct key's (row, qualifier), for version-1 filters.
    #[cfg(test)]
    keys: Vec<(Vec<u8>, Vec<u8>)>,
}

impl BloomBuilder {
    /// A builder for `kind` (`None` collects nothing).
    pub fn new(kind: BloomType) -> Self {
        BloomBuilder {
            kind,
            count: 0,
            hashes: Vec::new(),
            sized: None,
            last: Vec::new(),
            last_row_len: 0,
            #[cfg(test)]
            keys: Vec::new(),
        }
    }

    /// A builder for at most `max_keys` distinct keys (a compaction knows the sum of its
    /// inputs' key counts): it sets the filter's bits as keys arrive, in lines sized for
    /// `max_keys` (1.25 bytes per key), instead of keeping an 8-byte hash per key until the
    /// end, and [`BloomBuilder::finish`] folds those lines down to between one and two times
    /// the number `v3_shape` gives for the keys actually added. Probes of the folded filter are
    /// the version-3 probes of its size (readers need nothing new): with multiply-shift range
    /// reduction, halving the line count maps line `l` to `l / 2`, and a key's bits within its
    /// line do not depend on the line count, so OR-ing line pairs is exact. More keys than
    /// `max_keys` still make a valid filter, with more false positives.
    pub fn with_key_bound(kind: BloomType, max_keys: u64) -> Self {
        let mut b = BloomBuilder::new(kind);
        if kind != BloomType::None && max_keys > 0 {
            let n = usize::try_from(max_keys).unwrap_or(usize::MAX);
            let (lines, k) = v3_shape(n);
            let lines = lines.div_ceil(FOLD_GRAIN) * FOLD_GRAIN;
            b.sized = Some(SizedFilter {
                k,
                lines: vec![Line::default(); lines],
            });
        }
        b
    }

    /// Number of distinct keys so far.
    pub fn len(&self) -> usize {
        usize::try_from(self.count).unwrap_or(usize::MAX)
    }

    /// True when no key was added.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// [`BloomBuilder::add`] for a writer that knows whether the cell continues the row of
    /// the cell before (`same_row`): a ROW or ROWPREFIX_FIXED_LENGTH builder (or NONE) then
    /// has nothing to add and returns without comparing the row again.
    #[inline]
    pub fn add_next(&mut self, row: &[u8], qualifier: &[u8], same_row: bool) {
        if same_row && !matches!(self.kind, BloomType::RowCol) {
            return;
        }
        self.add(row, qualifier);
    }

    /// Adds the key of one cell. Rows longer than `u16::MAX` never occur (key encoding).
    pub fn add(&mut self, row: &[u8], qualifier: &[u8]) {
        let q: &[u8] = match self.kind {
            BloomType::RowCol => qualifier,
            BloomType::Row | BloomType::RowPrefixFixedLength(_) => b"",
            _ => return,
        };
        // [BLOOM-5] ROWPREFIX_FIXED_LENGTH keys on the row's first N bytes; sorted rows give
        // sorted prefixes, so equal ones are consecutive like equal rows.
        let row = self.kind.row_key(row);
        if self.count > 0
            && self.last_row_len == row.len()
            && self.last.len() == row.len() + q.len()
            && self.last.starts_with(row)
            && self.last.ends_with(q)
        {
            return;
        }
        self.last.clear();
        self.last.extend_from_slice(row);
        self.last.extend_from_slice(q);
        self.last_row_len = row.len();
        let key = match self.kind {
            BloomType::RowCol => BloomKey::RowCol(row, q),
            _ => BloomKey::Row(row),
        };
        self.count += 1;
        match &mut self.sized {
            Some(f) => f.set(key.hash64()),
            None => self.hashes.push(key.hash64()),
        }
        #[cfg(test)]
        self.keys.push((row.to_vec(), q.to_vec()));
    }

    /// The block payload, or `None` when there is no filter (type NONE or no keys).
    ///
    /// # Errors
    /// The crate refused to size the filter (does not happen for 1..=usize::MAX keys).
    pub fn finish(self) -> Result<Option<Vec<u8>>> {
        if self.kind == BloomType::None || self.count == 0 {
            return Ok(None);
        }
        #[cfg(test)]
        if WRITE_V1.with(std::cell::Cell::get) {
            return self.finish_v1();
        }
        let keys = self.len();
        let (lines, k) = match self.sized {
            Some(f) => f.fold_for(keys),
            None => {
                let (lines, k) = v3_shape(self.hashes.len());
                let mut f = SizedFilter {
                    k,
                    lines: vec![Line::default(); lines],
                };
                for &h in &self.hashes {
                    f.set(h);
                }
                (f.lines, k)
            }
        };
        let bytes = lines.len() * LINE_BYTES;
        let mut out = Vec::with_capacity(13 + V2_HEADER_LEN + bytes);
        put_bloom_type(&mut out, self.kind);
        codec::put_u64(&mut out, self.count);
        out.push(FILTER_VERSION);
        out.push(k as u8);
        codec::put_u64(&mut out, bytes as u64);
        for l in &lines {
            l.put_bytes(&mut out);
        }
        Ok(Some(out))
    }

    /// A version-2 payload (XXH64, double hashing over the whole bitmap), as cellbase wrote
    /// from issue 6 until filter version 3; tests use it to check that such files are still
    /// read.
    #[cfg(test)]
    pub(crate) fn finish_v2(self) -> Vec<u8> {
        let (bytes, k) = v2_shape(self.hashes.len());
        let bits = bytes as u64 * 8;
        let mut bitmap = vec![0u8; bytes];
        for &h in &self.hashes {
            for b in v2_positions(h, k, bits) {
                bitmap[(b >> 3) as usize] |= 1 << (b & 7);
            }
        }
        let mut out = Vec::new();
        put_bloom_type(&mut out, self.kind);
        codec::put_u64(&mut out, self.count);
        out.push(FILTER_VERSION_XX);
        out.push(k as u8);
        codec::put_u64(&mut out, bytes as u64);
        out.extend_from_slice(&bitmap);
        out
    }

    /// A version-1 payload (the `bloomfilter` crate's SipHash-1-3 filter), as cellbase wrote
    /// before filter version 2; tests use it to check that old files are still read.
    #[cfg(test)]
    pub(crate) fn finish_v1(self) -> Result<Option<Vec<u8>>> {
        if self.kind == BloomType::None || self.keys.is_empty() {
            return Ok(None);
        }
        let mut bloom: Bloom<BloomKey<'_>> =
            Bloom::new_for_fp_rate_with_seed(self.keys.len(), FP_RATE, &FIXED_SEED).map_err(
                |e| crate::base::error::Error::invalid(format!("cannot build bloom filter: {e}")),
            )?;
        for (row, q) in &self.keys {
            let row = self.kind.row_key(row);
            bloom.set(&match self.kind {
                BloomType::RowCol => BloomKey::RowCol(row, q),
                _ => BloomKey::Row(row),
            });
        }
        let mut out = Vec::with_capacity(13 + bloom.as_slice().len());
        put_bloom_type(&mut out, self.kind);
        codec::put_u64(&mut out, self.keys.len() as u64);
        out.extend_from_slice(bloom.as_slice());
        Ok(Some(out))
    }
}

/// A sized filter's line count is a multiple of this, so it can be halved up to six times
/// ([`SizedFilter::fold_for`]).
const FOLD_GRAIN: usize = 64;

/// A version-3 filter being filled.
struct SizedFilter {
    k: u32,
    lines: Vec<Line>,
}

impl SizedFilter {
    fn set(&mut self, h: u64) {
        let i = v3_line(h, self.lines.len());
        if let Some(line) = self.lines.get_mut(i) {
            for b in v3_bits(h, self.k) {
                line.set(b);
            }
        }
    }

    /// The lines halved while they stay at least the number `v3_shape` gives for `keys`, and
    /// the probe count. Halving ORs each pair of adjacent lines: line `l` of the larger filter
    /// is line `l / 2` of the smaller, exactly where a probe of the smaller filter looks (see
    /// [`BloomBuilder::with_key_bound`]).
    fn fold_for(self, keys: usize) -> (Vec<Line>, u32) {
        let (want, _) = v3_shape(keys);
        let mut lines = self.lines;
        while lines.len().is_multiple_of(2) && lines.len() / 2 >= want {
            lines = lines.chunks_exact(2).map(|p| p[0].or(p[1])).collect();
        }
        (lines, self.k)
    }
}

/// The probing structure of a loaded filter.
enum Filter {
    /// Version 3: XXH64, one line per key (at least one line).
    Lines { k: u32, lines: Box<[Line]> },
    /// Version 2: XXH64 and double hashing over `bitmap` (`bits = 8 · bitmap.len() > 0`).
    Xx {
        k: u32,
        bits: u64,
        bitmap: Box<[u8]>,
    },
    /// Version 1: the crate's filter. Covariant in the key lifetime, so it can probe keys
    /// borrowed for any lifetime.
    Sip(Bloom<BloomKey<'static>>),
}

/// A loaded filter.
pub struct BloomFilter {
    kind: BloomType,
    keys: u64,
    filter: Filter,
}

impl std::fmt::Debug for BloomFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BloomFilter")
            .field("kind", &self.kind)
            .field("keys", &self.keys)
            .field("version", &self.version())
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
        let kind = match read_bloom_type(&mut r, "bloom type")? {
            k @ (BloomType::Row | BloomType::RowCol | BloomType::RowPrefixFixedLength(_)) => k,
            _ => return Err(bad("bloom type", 0)),
        };
        let keys = r.u64("bloom key count")?;
        let body_off = r.pos();
        let body = r.take(r.remaining(), "bloom filter")?;
        let shifted = |e: DecodeError| DecodeError {
            what: e.what,
            offset: e.offset + body_off,
        };
        let filter = match body.first() {
            Some(&v @ (FILTER_VERSION | FILTER_VERSION_XX)) => {
                let mut h = Reader::new(body);
                h.u8("bloom filter version").map_err(shifted)?;
                let k = u32::from(h.u8("bloom hash count").map_err(shifted)?);
                let len = h.u64("bloom bitmap length").map_err(shifted)?;
                debug_assert_eq!(h.pos(), V2_HEADER_LEN);
                if k == 0 || k > MAX_HASHES {
                    return Err(bad("bloom hash count", body_off + 1));
                }
                if len == 0
                    || len != h.remaining() as u64
                    || (v == FILTER_VERSION && !len.is_multiple_of(LINE_BYTES as u64))
                {
                    return Err(bad("bloom bitmap length", body_off + 2));
                }
                let bitmap = h.take(h.remaining(), "bloom bitmap")?;
                if v == FILTER_VERSION {
                    Filter::Lines {
                        k,
                        lines: bitmap
                            .chunks_exact(LINE_BYTES)
                            .map(Line::from_bytes)
                            .collect(),
                    }
                } else {
                    Filter::Xx {
                        k,
                        bits: len * 8,
                        bitmap: bitmap.into(),
                    }
                }
            }
            Some(&FILTER_VERSION_SIP) => Filter::Sip(decode_v1(body).map_err(shifted)?),
            _ => return Err(bad("bloom filter version", body_off)),
        };
        Ok(BloomFilter { kind, keys, filter })
    }

    /// ROW, ROWCOL or ROWPREFIX_FIXED_LENGTH (with its prefix length).
    pub fn kind(&self) -> BloomType {
        self.kind
    }

    /// Distinct keys the writer inserted.
    pub fn keys(&self) -> u64 {
        self.keys
    }

    /// The filter version (3 XXH64 in lines, 2 XXH64 over the whole bitmap, 1 SipHash-1-3).
    pub fn version(&self) -> u8 {
        match self.filter {
            Filter::Lines { .. } => FILTER_VERSION,
            Filter::Xx { .. } => FILTER_VERSION_XX,
            Filter::Sip(_) => FILTER_VERSION_SIP,
        }
    }

    /// Number of hash functions (bits probed per key).
    pub fn hash_count(&self) -> u32 {
        match &self.filter {
            Filter::Lines { k, .. } | Filter::Xx { k, .. } => *k,
            Filter::Sip(b) => b.number_of_hash_functions(),
        }
    }

    /// Bytes of the bitmap.
    pub fn bitmap_bytes(&self) -> u64 {
        match &self.filter {
            Filter::Lines { lines, .. } => (lines.len() * LINE_BYTES) as u64,
            Filter::Xx { bitmap, .. } => bitmap.len() as u64,
            Filter::Sip(b) => b.as_slice().len().saturating_sub(CRATE_HEADER_LEN) as u64,
        }
    }

    /// Bits set in the bitmap.
    pub fn bits_set(&self) -> u64 {
        let ones = |b: &[u8]| b.iter().map(|x| u64::from(x.count_ones())).sum::<u64>();
        match &self.filter {
            Filter::Lines { lines, .. } => lines
                .iter()
                .flat_map(|l| l.0)
                .map(|w| u64::from(w.count_ones()))
                .sum(),
            Filter::Xx { bitmap, .. } => ones(bitmap),
            Filter::Sip(b) => ones(b.as_slice().get(CRATE_HEADER_LEN..).unwrap_or_default()),
        }
    }

    /// Filter probe: false means `key` was certainly not inserted.
    #[inline]
    pub fn contains(&self, key: BloomKey<'_>) -> bool {
        self.contains_with(key, || key.hash64())
    }

    /// [`BloomFilter::contains`] with `key`'s XXH64 from `hash` (asked only by versions 2 and
    /// 3, at most once).
    #[inline]
    fn contains_with(&self, key: BloomKey<'_>, hash: impl FnOnce() -> u64) -> bool {
        match &self.filter {
            Filter::Lines { k, lines } => {
                let h = hash();
                lines
                    .get(v3_line(h, lines.len()))
                    .is_some_and(|line| v3_bits(h, *k).all(|b| line.test(b)))
            }
            Filter::Xx { k, bits, bitmap } => v2_positions(hash(), *k, *bits).all(|b| {
                bitmap
                    .get((b >> 3) as usize)
                    .is_some_and(|byte| byte & (1 << (b & 7)) != 0)
            }),
            Filter::Sip(bloom) => {
                let b: &Bloom<BloomKey<'_>> = bloom;
                b.check(&key)
            }
        }
    }

    /// [BLOOM-3] [BLOOM-5]: could `row` be present? ROW checks the row, ROWPREFIX_FIXED_LENGTH
    /// the row's prefix; a ROWCOL filter cannot tell (true).
    pub fn may_contain_row(&self, row: &[u8]) -> bool {
        match self.kind {
            BloomType::Row | BloomType::RowPrefixFixedLength(_) => {
                self.contains(BloomKey::Row(self.kind.row_key(row)))
            }
            _ => true,
        }
    }

    /// [`BloomFilter::may_contain_row`] for `probe`'s row, whose ROW key hash `probe`
    /// computes once for every file a Get asks.
    pub fn may_contain_row_probe(&self, probe: &RowProbe<'_>) -> bool {
        match self.kind {
            BloomType::Row => self.contains_with(BloomKey::Row(probe.row), || probe.hash()),
            _ => self.may_contain_row(probe.row),
        }
    }

    /// [BLOOM-5] HBase's `StoreFileReader.passesGeneralRowPrefixBloomFilter` for a scan:
    /// `Some(answer)` when this is a ROWPREFIX_FIXED_LENGTH filter and `start` and `stop`
    /// share at least its prefix length (every row in between then has that prefix); `None`
    /// when the filter cannot tell.
    pub fn may_contain_rows_between(&self, start: &[u8], stop: &[u8]) -> Option<bool> {
        let BloomType::RowPrefixFixedLength(n) = self.kind else {
            return None;
        };
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        let common = crate::base::util::common_prefix_len(start, stop);
        (common > 0 && common >= n).then(|| self.contains(BloomKey::Row(&start[..n])))
    }

    /// [BLOOM-4]: could a cell of `row`/`qualifier` be present, or a family-level delete
    /// marker of `row` (empty qualifier) that masks it?
    pub fn may_contain_column(&self, row: &[u8], qualifier: &[u8]) -> bool {
        match self.kind {
            BloomType::RowCol => {
                self.contains(BloomKey::RowCol(row, qualifier))
                    || self.contains(BloomKey::RowCol(row, b""))
            }
            BloomType::Row | BloomType::RowPrefixFixedLength(_) => self.may_contain_row(row),
            _ => true,
        }
    }
}

/// Decodes and validates a version-1 filter (the crate's serialization; offsets relative to
/// it).
fn decode_v1(body: &[u8]) -> std::result::Result<Bloom<BloomKey<'static>>, DecodeError> {
    let bad = |what, offset| DecodeError { what, offset };
    // Validate the crate header ourselves: `from_slice` accepts an empty bitmap, which would
    // make probes divide by zero, and an absurd hash count.
    let mut h = Reader::new(body);
    let version = h.u8("bloom filter version")?;
    let len_le = h.take(8, "bloom bitmap length")?;
    let k_le = h.take(4, "bloom hash count")?;
    let seed = h.take(32, "bloom seed")?;
    let mut a8 = [0u8; 8];
    a8.copy_from_slice(len_le);
    let mut a4 = [0u8; 4];
    a4.copy_from_slice(k_le);
    let (bits_len, k) = (u64::from_le_bytes(a8), u32::from_le_bytes(a4));
    if version != FILTER_VERSION_SIP {
        return Err(bad("bloom filter version", 0));
    }
    if bits_len == 0 || bits_len != h.remaining() as u64 {
        return Err(bad("bloom bitmap length", 1));
    }
    if k == 0 || k > MAX_HASHES {
        return Err(bad("bloom hash count", 9));
    }
    if seed != FIXED_SEED {
        return Err(bad("bloom seed", 13));
    }
    debug_assert_eq!(CRATE_HEADER_LEN, h.pos());
    Bloom::from_slice(body).map_err(|_| bad("bloom filter", 0))
}

#[cfg(test)]
#[path = "bloom_tests.rs"]
mod tests;
