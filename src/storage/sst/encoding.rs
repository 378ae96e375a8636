//! Data block entry encodings: how a data block's entries store their keys. Recorded per file
//! (meta version 5, [`super::meta`]); docs/FORMAT.md, section 2, "Data block entry encodings"
//! has every byte.
//!
//! * [`EntryEncoding::Prefix`]: LevelDB-style prefix compression of the whole key (the format
//!   of every file before meta version 5; [`super::block`]).
//! * [`EntryEncoding::SuffixDelta`]: the key's `row | family | qualifier` part ("head")
//!   prefix-compressed against the previous key's head, and its 17-byte `ts | type | seq`
//!   suffix coded against the previous key's suffix (HBase's FAST_DIFF idea,
//!   `FastDiffDeltaEncoder`): a flags byte says which fields repeat, the others follow as
//!   zigzag varint deltas (the type as its byte). Restart entries store the whole key, so a
//!   seek reads a restart key in place, as with prefix entries.
//!
//! ```text
//! full entry  = flags (= FULL) | key_len: varint | payload_len: varint | key | payload
//! delta entry = flags | shared: varint | unshared: varint | [payload_len: varint]
//!               | head[shared..] (unshared bytes) | [ts delta: varint] | [type: u8]
//!               | [seq delta: varint] | payload
//! ```
//!
//! Decoding allocates nothing: [`parse_delta_entry`] returns where the parts are and the
//! deltas; [`apply_delta_entry`] rebuilds the key in the cursor's reused buffer.

use crate::base::codec::{self, DecodeError};
use crate::model::block_encoding::DataBlockEncoding;
use crate::model::key::KEY_TRAILER_LEN;

/// How a block file's data block entries store their keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum EntryEncoding {
    /// Prefix-compressed keys (families with DATA_BLOCK_ENCODING NONE, PREFIX, ROW_INDEX_V1;
    /// every file before meta version 5). Code 0.
    #[default]
    Prefix,
    /// Prefix-compressed heads and delta-coded suffixes (DIFF, FAST_DIFF). Code 1.
    SuffixDelta,
}

impl EntryEncoding {
    /// The entry encoding a family's DATA_BLOCK_ENCODING writes.
    pub fn of(e: DataBlockEncoding) -> EntryEncoding {
        if e.deltas_suffix() {
            EntryEncoding::SuffixDelta
        } else {
            EntryEncoding::Prefix
        }
    }

    /// The byte recording it in the meta block (0 prefix, 1 suffix delta).
    pub fn code(self) -> u8 {
        match self {
            EntryEncoding::Prefix => 0,
            EntryEncoding::SuffixDelta => 1,
        }
    }

    /// The encoding recorded as `code`; `None` for an unknown byte.
    pub fn from_code(code: u8) -> Option<EntryEncoding> {
        match code {
            0 => Some(EntryEncoding::Prefix),
            1 => Some(EntryEncoding::SuffixDelta),
            _ => None,
        }
    }

    /// The DATA_BLOCK_ENCODING that names what the entries do, for tools (HBase's file info
    /// `DATA_BLOCK_ENCODING`): NONE for prefix-compressed entries (what NONE, PREFIX and
    /// ROW_INDEX_V1 families write), FAST_DIFF for suffix-delta entries (DIFF, FAST_DIFF).
    pub fn data_block_encoding(self) -> DataBlockEncoding {
        match self {
            EntryEncoding::Prefix => DataBlockEncoding::None,
            EntryEncoding::SuffixDelta => DataBlockEncoding::FastDiff,
        }
    }
}

/// Flags bit: the entry stores its whole key (restart entries; no other bit set).
pub const FULL: u8 = 0x01;
/// Flags bit: the timestamp equals the previous key's (no delta follows).
pub const SAME_TS: u8 = 0x02;
/// Flags bit: the type code equals the previous key's (no type byte follows).
pub const SAME_TYPE: u8 = 0x04;
/// Flags bit: the sequence id equals the previous key's (no delta follows).
pub const SAME_SEQ: u8 = 0x08;
/// Flags bit: the payload length equals the previous entry's (no length follows).
pub const SAME_PLEN: u8 = 0x10;
/// The bits a delta entry may set.
const DELTA_BITS: u8 = SAME_TS | SAME_TYPE | SAME_SEQ | SAME_PLEN;
/// A suffix equal to the previous key's.
const SAME_SUFFIX: u8 = SAME_TS | SAME_TYPE | SAME_SEQ;

fn zigzag(d: i64) -> u64 {
    ((d << 1) ^ (d >> 63)) as u64
}

fn unzigzag(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

fn word(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_be_bytes(w)
}

fn varint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

/// Appends a full entry: `key` whole (a restart point, or a key whose deltas would not be
/// shorter).
pub fn put_full_entry(out: &mut Vec<u8>, key: &[u8], payload: &[u8]) {
    out.push(FULL);
    codec::put_varint(out, key.len() as u64);
    codec::put_varint(out, payload.len() as u64);
    out.extend_from_slice(key);
    out.extend_from_slice(payload);
}

/// Appends the entry of `key` after `prev` (the previous entry's key, whose payload was
/// `prev_plen` bytes): a delta entry, or a full entry when that is no longer (huge deltas) or
/// either key is too short to hold a suffix (never for cells the writer checked).
pub fn put_entry_after(
    out: &mut Vec<u8>,
    prev: &[u8],
    prev_plen: usize,
    key: &[u8],
    payload: &[u8],
) {
    let (Some(ph_len), Some(kh_len)) = (
        prev.len().checked_sub(KEY_TRAILER_LEN),
        key.len().checked_sub(KEY_TRAILER_LEN),
    ) else {
        put_full_entry(out, key, payload);
        return;
    };
    let (ph, ps) = prev.split_at(ph_len);
    let (kh, ks) = key.split_at(kh_len);
    let shared = crate::base::util::common_prefix_len(ph, kh);
    let mut flags = 0u8;
    let dts = word(&ks[0..]).wrapping_sub(word(&ps[0..])) as i64;
    let dseq = word(&ks[9..]).wrapping_sub(word(&ps[9..])) as i64;
    let mut size = 1 + varint_len(shared as u64) + varint_len((kh_len - shared) as u64);
    size += kh_len - shared;
    if dts == 0 {
        flags |= SAME_TS;
    } else {
        size += varint_len(zigzag(dts));
    }
    if ks[8] == ps[8] {
        flags |= SAME_TYPE;
    } else {
        size += 1;
    }
    if dseq == 0 {
        flags |= SAME_SEQ;
    } else {
        size += varint_len(zigzag(dseq));
    }
    if payload.len() == prev_plen {
        flags |= SAME_PLEN;
    } else {
        size += varint_len(payload.len() as u64);
    }
    let full = 1 + varint_len(key.len() as u64) + varint_len(payload.len() as u64) + key.len();
    if size >= full {
        put_full_entry(out, key, payload);
        return;
    }
    out.push(flags);
    codec::put_varint(out, shared as u64);
    codec::put_varint(out, (kh_len - shared) as u64);
    if flags & SAME_PLEN == 0 {
        codec::put_varint(out, payload.len() as u64);
    }
    out.extend_from_slice(&kh[shared..]);
    if flags & SAME_TS == 0 {
        codec::put_varint(out, zigzag(dts));
    }
    if flags & SAME_TYPE == 0 {
        out.push(ks[8]);
    }
    if flags & SAME_SEQ == 0 {
        codec::put_varint(out, zigzag(dseq));
    }
    out.extend_from_slice(payload);
}

/// One decoded suffix-delta entry: where its key bytes and payload are, and (delta entries)
/// how much of the previous key's head it repeats and its suffix fields that differ.
#[derive(Debug, Clone, Copy)]
pub struct DeltaEntry {
    /// The flags byte ([`FULL`], or the SAME_* bits of a delta entry).
    pub flags: u8,
    /// Bytes of the previous key's head the key repeats (0 for a full entry).
    pub shared: usize,
    /// The whole key (full entry) or the head's unshared bytes (delta entry).
    pub key_start: usize,
    /// End of those bytes.
    pub key_end: usize,
    /// The timestamp's delta (two's complement, wrapping; 0 under SAME_TS).
    pub ts_delta: u64,
    /// The type code (unused under SAME_TYPE).
    pub type_code: u8,
    /// The sequence id's delta (wrapping; 0 under SAME_SEQ).
    pub seq_delta: u64,
    /// Start of the payload.
    pub payload_start: usize,
    /// End of the payload (= the next entry's offset).
    pub payload_end: usize,
}

impl DeltaEntry {
    /// True for a full entry (its whole key at `key_start..key_end`).
    #[inline]
    pub fn full(&self) -> bool {
        self.flags == FULL
    }
}

/// Reads entries' fields within `data` (the block's entries only), reporting the field's
/// offset on failure.
struct Fields<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Fields<'_> {
    #[inline(always)]
    fn byte(&mut self, what: &'static str) -> Result<u8, DecodeError> {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(DecodeError {
                what,
                offset: self.pos,
            }),
        }
    }

    /// A varint of at most 10 bytes whose value fits in 64 bits.
    #[inline(always)]
    fn varint(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        let b = self.byte(what)?;
        if b < 0x80 {
            return Ok(u64::from(b));
        }
        self.varint_rest(u64::from(b & 0x7f), what)
    }

    #[cold]
    #[inline(never)]
    fn varint_rest(&mut self, mut v: u64, what: &'static str) -> Result<u64, DecodeError> {
        let start = self.pos - 1;
        let bad = || DecodeError {
            what,
            offset: start,
        };
        for i in 1..10 {
            let b = self.byte(what).map_err(|_| bad())?;
            // The tenth byte holds bit 63 only.
            if i == 9 && b > 1 {
                return Err(bad());
            }
            v |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(bad())
    }

    /// A varint length that fits in the entries.
    #[inline(always)]
    fn len(&mut self, what: &'static str) -> Result<usize, DecodeError> {
        let at = self.pos;
        let v = self.varint(what)?;
        if v > self.data.len() as u64 {
            return Err(DecodeError { what, offset: at });
        }
        Ok(v as usize)
    }

    /// Skips `n` bytes (checked against the entries' end) and returns where they started.
    #[inline(always)]
    fn take(&mut self, n: usize, what: &'static str) -> Result<usize, DecodeError> {
        let start = self.pos;
        match self.data.len().checked_sub(start) {
            Some(room) if n <= room => {
                self.pos = start + n;
                Ok(start)
            }
            _ => Err(DecodeError {
                what,
                offset: start,
            }),
        }
    }
}

/// Parses the suffix-delta entry at `pos` (`limit` = end of the entries) that follows an
/// entry whose key's head was `prev_head` bytes long (`None`: no previous entry, at a block's
/// start or a seek's restart) and whose payload was `prev_plen` bytes. Every varint and length
/// is checked; a delta entry needs a previous key and may repeat at most its head.
///
/// # Errors
/// The first malformed field, with its offset.
#[inline(always)]
pub fn parse_delta_entry(
    data: &[u8],
    pos: usize,
    limit: usize,
    prev_head: Option<usize>,
    prev_plen: usize,
) -> Result<DeltaEntry, DecodeError> {
    let bad = |what, offset| DecodeError { what, offset };
    let data = data.get(..limit).ok_or(bad("block entry", pos))?;
    // Fast path: a delta entry whose shared and unshared lengths fit one byte each (nearly
    // all: heads of a few hundred bytes at most).
    if let Some(&[flags, shared, unshared]) = data.get(pos..pos.wrapping_add(3))
        && flags & !DELTA_BITS == 0
        && (shared | unshared) < 0x80
        && let Some(prev_head) = prev_head
        && usize::from(shared) <= prev_head
    {
        let mut f = Fields { data, pos: pos + 3 };
        let plen = if flags & SAME_PLEN != 0 {
            prev_plen
        } else {
            f.len("entry payload length")?
        };
        return delta_rest(f, flags, usize::from(shared), usize::from(unshared), plen);
    }
    let mut f = Fields { data, pos };
    let flags = f.byte("entry flags")?;
    if flags == FULL {
        let klen = f.len("entry key length")?;
        let plen = f.len("entry payload length")?;
        let key_start = f.take(klen, "entry key")?;
        let payload_start = f.take(plen, "entry payload")?;
        return Ok(DeltaEntry {
            flags,
            shared: 0,
            key_start,
            key_end: payload_start,
            ts_delta: 0,
            type_code: 0,
            seq_delta: 0,
            payload_start,
            payload_end: f.pos,
        });
    }
    if flags & !DELTA_BITS != 0 {
        return Err(bad("unknown entry flags", pos));
    }
    let Some(prev_head) = prev_head else {
        return Err(bad("delta entry without a previous key", pos));
    };
    let at = f.pos;
    let shared = f.varint("entry shared length")?;
    if shared > prev_head as u64 {
        return Err(bad("shared key prefix longer than previous key", at));
    }
    let unshared = f.len("entry key length")?;
    let plen = if flags & SAME_PLEN != 0 {
        prev_plen
    } else {
        f.len("entry payload length")?
    };
    delta_rest(f, flags, shared as usize, unshared, plen)
}

/// The rest of a delta entry after its lengths: the head's unshared bytes, the suffix fields
/// that differ, the payload.
#[inline(always)]
fn delta_rest(
    mut f: Fields<'_>,
    flags: u8,
    shared: usize,
    unshared: usize,
    plen: usize,
) -> Result<DeltaEntry, DecodeError> {
    let key_start = f.take(unshared, "entry key")?;
    let key_end = f.pos;
    let mut e = DeltaEntry {
        flags,
        shared,
        key_start,
        key_end,
        ts_delta: 0,
        type_code: 0,
        seq_delta: 0,
        payload_start: 0,
        payload_end: 0,
    };
    if flags & SAME_TS == 0 {
        e.ts_delta = unzigzag(f.varint("entry timestamp delta")?) as u64;
    }
    if flags & SAME_TYPE == 0 {
        e.type_code = f.byte("entry type")?;
    }
    if flags & SAME_SEQ == 0 {
        e.seq_delta = unzigzag(f.varint("entry sequence id delta")?) as u64;
    }
    e.payload_start = f.take(plen, "entry payload")?;
    e.payload_end = f.pos;
    Ok(e)
}

/// Rebuilds in `key` (holding the previous entry's key, whose head is `e.shared` bytes or
/// longer; any content for a full entry) the key of `e`, parsed from `data`: the shared head,
/// the unshared bytes and the previous suffix with `e`'s deltas applied, or the whole key.
#[inline(always)]
pub fn apply_delta_entry(key: &mut Vec<u8>, data: &[u8], e: &DeltaEntry) {
    let bytes = data.get(e.key_start..e.key_end).unwrap_or_default();
    if e.full() {
        key.clear();
        key.extend_from_slice(bytes);
        return;
    }
    let Some(head) = head_len(key) else {
        return;
    };
    if e.shared + bytes.len() == head {
        // A head of the previous head's length (the next column of a row, a version of the
        // same column, a row key of the same length): the suffix stays where it is and is
        // patched in place.
        if let Some(d) = key.get_mut(e.shared..head) {
            d.copy_from_slice(bytes);
        }
        if let Some(suffix) = key.get_mut(head..) {
            patch_suffix(suffix, e);
        }
        return;
    }
    let mut suffix = [0u8; KEY_TRAILER_LEN];
    if let Some(prev) = key.get(head..) {
        suffix.copy_from_slice(prev);
    }
    patch_suffix(&mut suffix, e);
    key.truncate(e.shared);
    key.reserve(bytes.len() + KEY_TRAILER_LEN);
    key.extend_from_slice(bytes);
    key.extend_from_slice(&suffix);
}

/// Applies `e`'s suffix fields to `suffix` (the previous key's 17 bytes).
#[inline(always)]
fn patch_suffix(suffix: &mut [u8], e: &DeltaEntry) {
    if e.flags & SAME_SUFFIX == SAME_SUFFIX || suffix.len() != KEY_TRAILER_LEN {
        return;
    }
    if e.flags & SAME_TS == 0 {
        let ts = word(&suffix[0..]).wrapping_add(e.ts_delta);
        suffix[..8].copy_from_slice(&ts.to_be_bytes());
    }
    if e.flags & SAME_TYPE == 0 {
        suffix[8] = e.type_code;
    }
    if e.flags & SAME_SEQ == 0 {
        let seq = word(&suffix[9..]).wrapping_add(e.seq_delta);
        suffix[9..].copy_from_slice(&seq.to_be_bytes());
    }
}

/// The length of the head of `key` (the previous entry's key), or `None` when there is no
/// previous key (empty) or it is too short to have a suffix.
#[inline(always)]
pub fn head_len(key: &[u8]) -> Option<usize> {
    key.len().checked_sub(KEY_TRAILER_LEN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::key::{CellType, KeyRef};

    fn k(q: &[u8], ts: i64, t: CellType, seq: u64) -> Vec<u8> {
        KeyRef {
            row: b"row",
            family: b"f",
            qualifier: q,
            ts,
            type_code: t.code(),
            seq,
        }
        .encode()
    }

    /// Encodes `keys` as one chain of entries and decodes them back.
    fn chain(keys: &[Vec<u8>]) -> (Vec<u8>, Vec<Vec<u8>>) {
        let mut out = Vec::new();
        let mut prev: &[u8] = &[];
        for (i, key) in keys.iter().enumerate() {
            let payload = vec![i as u8; i % 3];
            if i == 0 {
                put_full_entry(&mut out, key, &payload);
            } else {
                put_entry_after(&mut out, prev, (i - 1) % 3, key, &payload);
            }
            prev = key;
        }
        let mut got = Vec::new();
        let (mut pos, mut cur, mut plen) = (0, Vec::new(), 0);
        while pos < out.len() {
            let e = parse_delta_entry(&out, pos, out.len(), head_len(&cur), plen).unwrap();
            apply_delta_entry(&mut cur, &out, &e);
            plen = e.payload_end - e.payload_start;
            assert_eq!(plen, got.len() % 3);
            got.push(cur.clone());
            pos = e.payload_end;
        }
        (out, got)
    }

    #[test]
    fn deltas_round_trip_at_the_extremes() {
        let keys = vec![
            k(b"a", i64::MAX, CellType::Put, u64::MAX),
            k(b"a", i64::MIN, CellType::Put, 0),
            k(b"a", i64::MIN, CellType::Delete, 0),
            k(b"b", i64::MAX, CellType::DeleteColumn, u64::MAX),
            k(b"b", -1, CellType::DeleteColumn, 1),
            k(b"bb", 0, CellType::DeleteFamily, u64::MAX / 2 + 1),
            k(b"", 0, CellType::DeleteFamily, u64::MAX / 2),
            k(b"", 0, CellType::DeleteFamily, u64::MAX / 2),
        ];
        let (_, got) = chain(&keys);
        assert_eq!(got, keys);
        for (d, zz) in [
            (0i64, 0u64),
            (-1, 1),
            (1, 2),
            (i64::MIN, u64::MAX),
            (i64::MAX, u64::MAX - 1),
        ] {
            assert_eq!(zigzag(d), zz);
            assert_eq!(unzigzag(zz), d);
        }
    }

    /// Cells of one Put (same timestamp and sequence id) cost the flags byte, three one-byte
    /// lengths and the qualifier's unshared bytes: no suffix byte.
    #[test]
    fn repeated_suffix_fields_cost_nothing() {
        let a = k(b"q0", 1_700_000_000_000, CellType::Put, 42);
        let b = k(b"q1", 1_700_000_000_000, CellType::Put, 42);
        let mut out = Vec::new();
        put_entry_after(&mut out, &a, 10, &b, &[0; 10]);
        assert_eq!(out[0], SAME_TS | SAME_TYPE | SAME_SEQ | SAME_PLEN);
        // flags, shared, unshared, 1 qualifier byte, 10 payload bytes.
        assert_eq!(out.len(), 1 + 1 + 1 + 1 + 10);
    }

    #[test]
    fn malformed_entries_are_errors() {
        let a = k(b"a", 5, CellType::Put, 5);
        let b = k(b"b", 4, CellType::Put, 9);
        let mut out = Vec::new();
        put_entry_after(&mut out, &a, 0, &b, b"\x00x");
        let ok = parse_delta_entry(&out, 0, out.len(), head_len(&a), 0).unwrap();
        assert!(!ok.full());
        // No previous key, unknown flag bits, every truncation.
        assert!(parse_delta_entry(&out, 0, out.len(), None, 0).is_err());
        let mut flagged = out.clone();
        flagged[0] |= 0x20;
        assert!(parse_delta_entry(&flagged, 0, out.len(), head_len(&a), 0).is_err());
        let mut both = out.clone();
        both[0] = FULL | SAME_TS;
        assert!(parse_delta_entry(&both, 0, out.len(), head_len(&a), 0).is_err());
        for cut in 0..out.len() {
            assert!(
                parse_delta_entry(&out, 0, cut, head_len(&a), 0).is_err(),
                "cut {cut}"
            );
        }
        // Shared longer than the previous head.
        let mut long = out.clone();
        long[1] = 100;
        assert!(parse_delta_entry(&long, 0, long.len(), head_len(&a), 0).is_err());
        // A varint with bits past 64, and one of 11 bytes.
        let mut wide = vec![FULL];
        wide.extend_from_slice(&[0xff; 9]);
        wide.push(0x02);
        assert!(parse_delta_entry(&wide, 0, wide.len(), None, 0).is_err());
        let mut eleven = vec![FULL];
        eleven.extend_from_slice(&[0x80; 10]);
        eleven.push(0);
        assert!(parse_delta_entry(&eleven, 0, eleven.len(), None, 0).is_err());
    }

    /// A key after a key whose deltas would cost more than the whole key is written whole.
    #[test]
    fn huge_deltas_fall_back_to_a_full_entry() {
        let a = k(b"", 0, CellType::Put, 0);
        // Deltas of 2^62 take ten varint bytes each.
        let b = KeyRef {
            row: b"x",
            family: b"f",
            qualifier: b"",
            ts: 1 << 62,
            type_code: CellType::Delete.code(),
            seq: 1 << 62,
        }
        .encode();
        let mut out = Vec::new();
        put_entry_after(&mut out, &a, 3, &b, b"\x00");
        assert_eq!(out[0], FULL);
        let e = parse_delta_entry(&out, 0, out.len(), head_len(&a), 3).unwrap();
        let mut key = a.clone();
        apply_delta_entry(&mut key, &out, &e);
        assert_eq!(key, b);
        assert_eq!(
            EntryEncoding::of(DataBlockEncoding::FastDiff),
            EntryEncoding::SuffixDelta
        );
        assert_eq!(
            EntryEncoding::of(DataBlockEncoding::RowIndexV1),
            EntryEncoding::Prefix
        );
        for e in [EntryEncoding::Prefix, EntryEncoding::SuffixDelta] {
            assert_eq!(EntryEncoding::from_code(e.code()), Some(e));
        }
        assert_eq!(EntryEncoding::from_code(2), None);
        for d in DataBlockEncoding::ALL {
            let e = EntryEncoding::of(d);
            assert_eq!(EntryEncoding::of(e.data_block_encoding()), e);
        }
    }
}
