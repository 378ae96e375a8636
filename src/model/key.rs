//! The cell key, its byte encoding and its total order [SORT-1..6].
//!
//! Encoding (all integers big-endian), shared by the memstore, block files and the WAL:
//!
//! ```text
//! row_len: u16 | row | family_len: u8 | family | qualifier | ts: i64 | type: u8 | seq: u64
//! ```
//!
//! The qualifier length is implied: `len - 2 - row_len - 1 - family_len - 17`. Keys compare by
//! row, family, qualifier ascending (unsigned bytes [SORT-2]), then timestamp, type code and
//! sequence id descending [SORT-1], [SORT-3], [SORT-4], [SORT-6].

use crate::base::codec;
use std::cmp::Ordering;

/// Bytes after the qualifier: timestamp (8), type (1), sequence id (8).
pub const KEY_TRAILER_LEN: usize = 17;
/// Smallest possible encoded key (empty row, family and qualifier).
pub const MIN_KEY_LEN: usize = 2 + 1 + KEY_TRAILER_LEN;
/// Type code that sorts before every real type at equal coordinates (`KeyValue.Type.Maximum`).
pub const TYPE_MAXIMUM: u8 = 255;
/// Type code that sorts after every real type at equal coordinates (`KeyValue.Type.Minimum`).
pub const TYPE_MINIMUM: u8 = 0;

/// The kind of a stored cell, with HBase's type codes [SORT-4].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CellType {
    /// A value (code 4).
    Put,
    /// Masks one version of a column: exactly its timestamp (code 8).
    Delete,
    /// Masks all versions of a column at or below its timestamp (code 12).
    DeleteColumn,
    /// Masks every column of the family at or below its timestamp (code 14).
    DeleteFamily,
    /// Masks every column of the family at exactly its timestamp (code 10).
    DeleteFamilyVersion,
}

impl CellType {
    /// HBase's `KeyValue.Type` code.
    pub fn code(self) -> u8 {
        match self {
            CellType::Put => 4,
            CellType::Delete => 8,
            CellType::DeleteFamilyVersion => 10,
            CellType::DeleteColumn => 12,
            CellType::DeleteFamily => 14,
        }
    }

    /// The type for an HBase code, or `None` for codes no stored cell may carry.
    pub fn from_code(code: u8) -> Option<CellType> {
        Some(match code {
            4 => CellType::Put,
            8 => CellType::Delete,
            10 => CellType::DeleteFamilyVersion,
            12 => CellType::DeleteColumn,
            14 => CellType::DeleteFamily,
            _ => return None,
        })
    }

    /// True for the four delete-marker types.
    pub fn is_delete(self) -> bool {
        self != CellType::Put
    }
}

/// A borrowed, decoded view of an encoded key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyRef<'a> {
    /// Row key.
    pub row: &'a [u8],
    /// Column family.
    pub family: &'a [u8],
    /// Qualifier (empty for family-level markers [SORT-5]).
    pub qualifier: &'a [u8],
    /// Timestamp in milliseconds.
    pub ts: i64,
    /// Raw type code (4, 8, 10, 12, 14 for stored cells; 0 and 255 in seek keys).
    pub type_code: u8,
    /// Sequence id (write order).
    pub seq: u64,
}

impl<'a> KeyRef<'a> {
    /// Decodes `b`; `None` if the lengths are inconsistent. Does not validate the type code.
    #[inline]
    pub fn parse(b: &'a [u8]) -> Option<KeyRef<'a>> {
        if b.len() < MIN_KEY_LEN {
            return None;
        }
        let row_len = u16::from_be_bytes([b[0], b[1]]) as usize;
        let fam_len_pos = 2 + row_len;
        let fam_len = *b.get(fam_len_pos)? as usize;
        let fam_start = fam_len_pos + 1;
        let qual_start = fam_start + fam_len;
        let trailer = b.len() - KEY_TRAILER_LEN;
        if qual_start > trailer {
            return None;
        }
        let t = &b[trailer..];
        let mut ts = [0u8; 8];
        ts.copy_from_slice(&t[0..8]);
        let mut seq = [0u8; 8];
        seq.copy_from_slice(&t[9..17]);
        Some(KeyRef {
            row: &b[2..fam_len_pos],
            family: &b[fam_start..qual_start],
            qualifier: &b[qual_start..trailer],
            ts: i64::from_be_bytes(ts),
            type_code: t[8],
            seq: u64::from_be_bytes(seq),
        })
    }

    /// The cell type, if the code is one a stored cell may carry.
    pub fn cell_type(&self) -> Option<CellType> {
        CellType::from_code(self.type_code)
    }

    /// Length of the encoding.
    pub fn encoded_len(&self) -> usize {
        2 + self.row.len() + 1 + self.family.len() + self.qualifier.len() + KEY_TRAILER_LEN
    }

    /// Appends the encoding. REQUIRES: row <= 65535 bytes, family <= 255 bytes (callers validate
    /// the tighter HBase limits [LIM-1], [LIM-2] before building keys).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        debug_assert!(self.row.len() <= u16::MAX as usize && self.family.len() <= 255);
        codec::put_u16(out, self.row.len() as u16);
        out.extend_from_slice(self.row);
        out.push(self.family.len() as u8);
        out.extend_from_slice(self.family);
        out.extend_from_slice(self.qualifier);
        codec::put_i64(out, self.ts);
        out.push(self.type_code);
        codec::put_u64(out, self.seq);
    }

    /// The encoding as a new vector.
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.encoded_len());
        self.encode_into(&mut v);
        v
    }

    /// Compares by HBase's order [SORT-1].
    #[inline]
    pub fn cmp_key(&self, o: &KeyRef<'_>) -> Ordering {
        self.row
            .cmp(o.row)
            .then_with(|| self.family.cmp(o.family))
            .then_with(|| self.qualifier.cmp(o.qualifier))
            .then_with(|| o.ts.cmp(&self.ts))
            .then_with(|| o.type_code.cmp(&self.type_code))
            .then_with(|| o.seq.cmp(&self.seq))
    }

    /// True when both name the same row, family and qualifier.
    pub fn same_column(&self, o: &KeyRef<'_>) -> bool {
        self.row == o.row && self.family == o.family && self.qualifier == o.qualifier
    }
}

/// Compares two encoded keys by HBase's order. Malformed keys (never produced by cellbase's
/// own encoders; decoders reject them) fall back to plain byte order so the comparison stays
/// total.
///
/// The hot comparison of every merge, skiplist and block search: it locates the fields of both
/// keys (`KeySplit`) and compares field by field, reading the timestamp, type and sequence id
/// only when row, family and qualifier are equal. Same result as parsing both keys and calling
/// [`KeyRef::cmp_key`] (tested against it).
#[inline]
pub fn compare_encoded(a: &[u8], b: &[u8]) -> Ordering {
    // Keys of equal length whose rows and families have equal lengths have qualifiers of
    // equal length too: their row, family and qualifier then order as their bytes after the
    // row length do, so one comparison replaces three (versions and neighbouring columns of
    // one row, as a memstore search among a hot row's versions compares them). The checks
    // are `KeySplit::of`'s for `a` alone (`b` then splits alike); calling it for both keys
    // here cost readprof `hot` 3 % more instructions and a put 1 %.
    let n = a.len();
    if n == b.len() && n >= MIN_KEY_LEN && a[..2] == b[..2] {
        let row_end = 2 + u16::from_be_bytes([a[0], a[1]]) as usize;
        let body = n - KEY_TRAILER_LEN;
        if row_end < body && a[row_end] == b[row_end] && row_end + 1 + a[row_end] as usize <= body {
            return a[2..body]
                .cmp(&b[2..body])
                .then_with(|| cmp_trailers(a, body, b, body));
        }
    }
    match (KeySplit::of(a), KeySplit::of(b)) {
        (Some(x), Some(y)) => x.cmp_split(a, &y, b),
        _ => a.cmp(b),
    }
}

/// [`compare_encoded`], also telling whether the rows differ (`false` for malformed keys, which
/// compare bytewise).
#[inline]
pub(crate) fn compare_encoded_rows(a: &[u8], b: &[u8]) -> (Ordering, bool) {
    match (KeySplit::of(a), KeySplit::of(b)) {
        (Some(x), Some(y)) => {
            let rows = a[2..x.row_end].cmp(&b[2..y.row_end]);
            if rows != Ordering::Equal {
                return (rows, true);
            }
            (x.cmp_after_row(a, &y, b), false)
        }
        _ => (a.cmp(b), false),
    }
}

/// Where the fields of a valid encoded key lie: the row is `2..row_end`, the family
/// `row_end + 1..qual_start`, the qualifier `qual_start..len - KEY_TRAILER_LEN`. Locating them
/// costs two length reads; [`KeyRef::parse`] also copies the trailer out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KeySplit {
    row_end: usize,
    qual_start: usize,
}

impl KeySplit {
    /// The fields of `b`, or `None` when its lengths are inconsistent (exactly when
    /// [`KeyRef::parse`] fails).
    #[inline]
    pub(crate) fn of(b: &[u8]) -> Option<KeySplit> {
        if b.len() < MIN_KEY_LEN {
            return None;
        }
        let row_end = 2 + u16::from_be_bytes([b[0], b[1]]) as usize;
        let fam_len = *b.get(row_end)? as usize;
        let qual_start = row_end + 1 + fam_len;
        if qual_start > b.len() - KEY_TRAILER_LEN {
            return None;
        }
        Some(KeySplit {
            row_end,
            qual_start,
        })
    }

    /// End of the row (where the family length byte is).
    #[inline]
    pub(crate) fn row_end(&self) -> usize {
        self.row_end
    }

    /// Start of the qualifier (end of the family).
    #[inline]
    pub(crate) fn qual_start(&self) -> usize {
        self.qual_start
    }

    /// Orders `a` (split as `self`) against `b` (split as `o`) by [SORT-1]: row, family,
    /// qualifier ascending, then timestamp, type and sequence id descending.
    // Always inlined, like `SeekTarget::cmp_key` which calls it (see there).
    #[inline(always)]
    pub(crate) fn cmp_split(&self, a: &[u8], o: &KeySplit, b: &[u8]) -> Ordering {
        let ord = a[2..self.row_end].cmp(&b[2..o.row_end]);
        if ord != Ordering::Equal {
            return ord;
        }
        self.cmp_after_row(a, o, b)
    }

    /// [`KeySplit::cmp_split`] for keys whose rows are known to be equal: family, qualifier,
    /// then the descending trailer.
    #[inline]
    fn cmp_after_row(&self, a: &[u8], o: &KeySplit, b: &[u8]) -> Ordering {
        let ord = a[self.row_end + 1..self.qual_start].cmp(&b[o.row_end + 1..o.qual_start]);
        if ord != Ordering::Equal {
            return ord;
        }
        let (ta, tb) = (a.len() - KEY_TRAILER_LEN, b.len() - KEY_TRAILER_LEN);
        let ord = a[self.qual_start..ta].cmp(&b[o.qual_start..tb]);
        if ord != Ordering::Equal {
            return ord;
        }
        cmp_trailers(a, ta, b, tb)
    }
}

/// Orders the trailers of `a` (at `ta`) and `b` (at `tb`): timestamp, type and sequence id,
/// each descending [SORT-1].
#[inline]
fn cmp_trailers(a: &[u8], ta: usize, b: &[u8], tb: usize) -> Ordering {
    // Descending trailer: b's fields against a's. The timestamp is signed: flipping its sign
    // bit makes its big-endian bytes order as the signed values do.
    let word = |k: &[u8], at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&k[at..at + 8]);
        u64::from_be_bytes(w)
    };
    const SIGN: u64 = 1 << 63;
    (word(b, tb) ^ SIGN)
        .cmp(&(word(a, ta) ^ SIGN))
        .then_with(|| b[tb + 8].cmp(&a[ta + 8]))
        .then_with(|| word(b, tb + 9).cmp(&word(a, ta + 9)))
}

/// The smallest key of `row`: sorts before every cell of the row.
pub fn first_on_row(row: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    first_on_row_into(row, &mut out);
    out
}

/// Appends [`first_on_row`]`(row)` to `out`.
pub fn first_on_row_into(row: &[u8], out: &mut Vec<u8>) {
    KeyRef {
        row,
        family: b"",
        qualifier: b"",
        ts: i64::MAX,
        type_code: TYPE_MAXIMUM,
        seq: u64::MAX,
    }
    .encode_into(out);
}

/// The smallest key of `row`/`family`.
pub fn first_on_family(row: &[u8], family: &[u8]) -> Vec<u8> {
    KeyRef {
        row,
        family,
        qualifier: b"",
        ts: i64::MAX,
        type_code: TYPE_MAXIMUM,
        seq: u64::MAX,
    }
    .encode()
}

/// The smallest key of a column.
#[cfg(test)]
pub fn first_on_column(row: &[u8], family: &[u8], qualifier: &[u8]) -> Vec<u8> {
    KeyRef {
        row,
        family,
        qualifier,
        ts: i64::MAX,
        type_code: TYPE_MAXIMUM,
        seq: u64::MAX,
    }
    .encode()
}

/// A key sorting after every cell of the column and before the next column.
pub fn last_on_column(row: &[u8], family: &[u8], qualifier: &[u8]) -> Vec<u8> {
    KeyRef {
        row,
        family,
        qualifier,
        ts: i64::MIN,
        type_code: TYPE_MINIMUM,
        seq: 0,
    }
    .encode()
}

/// The smallest key of the first row after `row`.
pub fn first_after_row(row: &[u8]) -> Vec<u8> {
    let mut next = Vec::with_capacity(row.len() + 1);
    next.extend_from_slice(row);
    next.push(0);
    first_on_row(&next)
}

/// The smallest key of the first family after `family` in `row`.
pub fn first_after_family(row: &[u8], family: &[u8]) -> Vec<u8> {
    let mut next = Vec::with_capacity(family.len() + 1);
    next.extend_from_slice(family);
    next.push(0);
    first_on_family(row, &next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(row: &str, fam: &str, q: &str, ts: i64, t: CellType, seq: u64) -> Vec<u8> {
        KeyRef {
            row: row.as_bytes(),
            family: fam.as_bytes(),
            qualifier: q.as_bytes(),
            ts,
            type_code: t.code(),
            seq,
        }
        .encode()
    }

    #[test]
    fn round_trip() {
        let e = k("row", "f", "qual", 42, CellType::DeleteColumn, 7);
        let p = KeyRef::parse(&e).unwrap();
        assert_eq!(p.row, b"row");
        assert_eq!(p.family, b"f");
        assert_eq!(p.qualifier, b"qual");
        assert_eq!(
            (p.ts, p.cell_type(), p.seq),
            (42, Some(CellType::DeleteColumn), 7)
        );
        assert!(KeyRef::parse(&[0xff, 0xff, 0, 0]).is_none());
        assert!(KeyRef::parse(&[0xff, 0xff, 0, 0]).is_none());
    }

    /// [SORT-1] [SORT-4] [SORT-5] [SORT-6]: the worked order.
    #[test]
    fn hbase_total_order() {
        use CellType::*;
        let ordered = vec![
            k("r", "f", "", 9, Put, 1), // empty-qualifier put, newer than the DF
            k("r", "f", "", 5, DeleteFamily, 1), // [SORT-5] family marker in column ""
            k("r", "f", "", 5, DeleteFamilyVersion, 1),
            k("r", "f", "a", 5, DeleteFamily, 1), // (not a real placement; type order check)
            k("r", "f", "a", 5, DeleteColumn, 1),
            k("r", "f", "a", 5, DeleteFamilyVersion, 1),
            k("r", "f", "a", 5, Delete, 1),
            k("r", "f", "a", 5, Put, 3), // [SORT-6] newer seq first
            k("r", "f", "a", 5, Put, 2),
            k("r", "f", "a", 4, Put, 9), // [SORT-3] ts desc
            k("r", "f", "b", 100, Put, 1),
            k("r", "g", "", 1, Put, 1),
            k("r\x00", "f", "a", 1, Put, 1),
            k("r\u{e1}", "f", "a", 1, Put, 1), // [SORT-2] unsigned (UTF-8 0xC3..)
        ];
        for w in ordered.windows(2) {
            assert_eq!(
                compare_encoded(&w[0], &w[1]),
                Ordering::Less,
                "{:?} < {:?}",
                KeyRef::parse(&w[0]),
                KeyRef::parse(&w[1])
            );
        }
    }

    /// The split comparison equals parsing both keys and comparing the parts, on random keys
    /// with shared prefixes, every type code, extreme timestamps and malformed encodings.
    #[test]
    fn compare_encoded_matches_parsed_order() {
        let mut next = crate::base::util::test_rng(0x5eed_c0de_u64);
        let pick = |r: u64, opts: &[&'static [u8]]| opts[r as usize % opts.len()];
        let rows: &[&[u8]] = &[b"", b"r", b"r\0", b"ra", b"rb", b"user0001", b"user00010"];
        let fams: &[&[u8]] = &[b"", b"f", b"f\0", b"g", b"family"];
        let quals: &[&[u8]] = &[b"", b"a", b"a\0", b"b", b"field0", b"field1"];
        let tss = [i64::MIN, -1, 0, 1, 5, i64::MAX];
        let codes = [0u8, 4, 8, 10, 12, 14, 255];
        let seqs = [0u64, 1, 2, u64::MAX];
        let mut keys: Vec<Vec<u8>> = Vec::new();
        for _ in 0..400 {
            let mut key = KeyRef {
                row: pick(next(64), rows),
                family: pick(next(64), fams),
                qualifier: pick(next(64), quals),
                ts: tss[next(tss.len() as u64) as usize],
                type_code: codes[next(codes.len() as u64) as usize],
                seq: seqs[next(seqs.len() as u64) as usize],
            }
            .encode();
            match next(10) {
                // Malformed: truncated, or a family length running into the trailer.
                0 => key.truncate(next(key.len() as u64) as usize),
                1 => {
                    let fam_len_at = key[1] as usize + 2;
                    key[fam_len_at] = 200;
                }
                _ => {}
            }
            keys.push(key);
        }
        let parsed = |a: &[u8], b: &[u8]| match (KeyRef::parse(a), KeyRef::parse(b)) {
            (Some(x), Some(y)) => x.cmp_key(&y),
            _ => a.cmp(b),
        };
        for a in &keys {
            assert_eq!(
                KeySplit::of(a).is_some(),
                KeyRef::parse(a).is_some(),
                "{a:?}"
            );
            for b in &keys {
                assert_eq!(compare_encoded(a, b), parsed(a, b), "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn seek_keys_bracket_cells() {
        let cell = k("r", "f", "q", 0, CellType::Put, 0);
        assert_eq!(compare_encoded(&first_on_row(b"r"), &cell), Ordering::Less);
        assert_eq!(
            compare_encoded(&first_on_column(b"r", b"f", b"q"), &cell),
            Ordering::Less
        );
        assert_eq!(
            compare_encoded(&last_on_column(b"r", b"f", b"q"), &cell),
            Ordering::Greater
        );
        assert_eq!(
            compare_encoded(
                &last_on_column(b"r", b"f", b"q"),
                &k("r", "f", "q\0", 9, CellType::Put, 0)
            ),
            Ordering::Less
        );
        assert_eq!(
            compare_encoded(&first_after_row(b"r"), &cell),
            Ordering::Greater
        );
        assert_eq!(
            compare_encoded(
                &first_after_row(b"r"),
                &k("r\0", "", "", 0, CellType::Put, 0)
            ),
            Ordering::Less
        );
        assert_eq!(
            compare_encoded(&first_after_family(b"r", b"f"), &cell),
            Ordering::Greater
        );
        assert_eq!(
            compare_encoded(
                &first_after_family(b"r", b"f"),
                &k("r", "g", "", 0, CellType::Put, 0)
            ),
            Ordering::Less
        );
    }
}
