//! The CRC-framed record log shared by the write-ahead log and the manifest.
//!
//! ```text
//! frame = crc32: u32 BE | len: u32 BE | type: u8 | payload[len]
//! crc32 = codec::crc32 over (len BE bytes | type | payload)
//! ```
//!
//! The checksum covers the length and type, so an all-zero region never validates (CRC32 of
//! five zero bytes is not zero). [`read_records`] separates a *torn tail* (damage confined to the
//! end of the file, as a crash mid-append leaves it) from corruption (damage followed by more
//! data), see [`TailPolicy`]. [`for_each_record`] does the same over a file read in pieces (WAL
//! replay's window): both run the one framing implementation below over [`LogBytes`].

use crate::base::codec::{self, Reader};
use crate::base::error::{Error, Result};
use std::path::Path;

/// Bytes of the frame header (crc32, len, type).
pub const HEADER_LEN: usize = 9;

/// Largest payload a frame may carry (256 MiB). Longer length fields are corruption.
pub const MAX_RECORD_LEN: usize = 256 << 20;

/// One record parsed from a log file; `payload` borrows from the file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogRecord<'a> {
    /// Byte offset of the frame (its crc field) in the file.
    pub offset: u64,
    /// The record type byte.
    pub rtype: u8,
    /// The payload.
    pub payload: &'a [u8],
}

/// How [`read_records`] treats damage at the end of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TailPolicy {
    /// Damage confined to the end of the file is a torn tail: the records before it and the
    /// length of the good prefix are returned.
    TornTailAllowed,
    /// As [`TailPolicy::TornTailAllowed`] for logs whose every append is one record, synced
    /// before the next (the manifest): a crash can tear only that record, so damage followed by
    /// an intact record (searched for in the next 64 KiB, for example after a bit flip grew a
    /// length field past the end of the file) is corruption, not a torn tail.
    TornFinalRecordOnly,
    /// Any damage is [`Error::Corruption`].
    Strict,
}

/// Builds the 9-byte frame header for a record whose payload is `a` followed by `b` (two parts
/// so callers can frame a small header plus a borrowed body without copying them together).
///
/// # Panics
/// If `a.len() + b.len()` exceeds [`MAX_RECORD_LEN`]; callers validate sizes first.
pub fn frame_header(rtype: u8, a: &[u8], b: &[u8]) -> [u8; HEADER_LEN] {
    let len = a.len() + b.len();
    assert!(
        len <= MAX_RECORD_LEN,
        "record payload of {len} bytes exceeds MAX_RECORD_LEN"
    );
    let len_be = (len as u32).to_be_bytes();
    let crc = codec::crc32_parts(&[&len_be, &[rtype], a, b]);
    let mut h = [0u8; HEADER_LEN];
    h[..4].copy_from_slice(&crc.to_be_bytes());
    h[4..8].copy_from_slice(&len_be);
    h[8] = rtype;
    h
}

/// Appends one framed record to `out`.
///
/// # Panics
/// If `payload` is longer than [`MAX_RECORD_LEN`].
pub fn encode_record(out: &mut Vec<u8>, rtype: u8, payload: &[u8]) {
    encode_record_parts(out, rtype, payload, &[]);
}

/// Appends one framed record whose payload is `a` followed by `b`.
///
/// # Panics
/// If `a.len() + b.len()` exceeds [`MAX_RECORD_LEN`].
pub fn encode_record_parts(out: &mut Vec<u8>, rtype: u8, a: &[u8], b: &[u8]) {
    let h = frame_header(rtype, a, b);
    out.reserve(HEADER_LEN + a.len() + b.len());
    out.extend_from_slice(&h);
    out.extend_from_slice(a);
    out.extend_from_slice(b);
}

/// A log file's bytes as the framing reads them: the whole file in memory ([`read_records`]),
/// or a bounded window over a file read with positional reads (replay's
/// [`FileWindow`](super::window::FileWindow)). One framing implementation serves both.
pub(crate) trait LogBytes {
    /// The file's length.
    fn len(&self) -> u64;
    /// The `n` bytes at `pos`. The framing asks only for bytes inside the file, and for a
    /// record's bytes only once its length is checked against the file and [`MAX_RECORD_LEN`].
    fn get(&mut self, pos: u64, n: usize) -> Result<&[u8]>;
}

/// A whole file in memory.
struct InMemory<'a>(&'a [u8]);

impl LogBytes for InMemory<'_> {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn get(&mut self, pos: u64, n: usize) -> Result<&[u8]> {
        usize::try_from(pos)
            .ok()
            .and_then(|p| self.0.get(p..p.checked_add(n)?))
            .ok_or_else(|| {
                std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "read past end of file")
                    .into()
            })
    }
}

/// Why one frame failed to parse.
struct Damage {
    what: String,
    /// The damage reaches the end of the file (the frame runs past EOF, or ends exactly at EOF
    /// with a bad checksum): a torn-tail candidate.
    at_eof: bool,
}

/// An intact frame: its offset, type and payload length (the payload follows its
/// [`HEADER_LEN`]-byte header).
#[derive(Clone, Copy)]
struct Frame {
    offset: u64,
    rtype: u8,
    len: usize,
}

impl Frame {
    /// The offset after the frame.
    fn end(self) -> u64 {
        self.offset + (HEADER_LEN + self.len) as u64
    }
}

/// Bytes the scans after a damage point read at once.
const SCAN_CHUNK: usize = 64 << 10;

/// The length field of the frame header at `pos` (the file holds its four bytes).
fn length_field(src: &mut dyn LogBytes, pos: u64) -> Result<u64> {
    Ok(Reader::new(src.get(pos + 4, 4)?)
        .u32("len")
        .map_or(0, u64::from))
}

/// Parses the frame at `pos` (`pos < src.len()`). The length field is checked against the
/// bytes left in the file and against [`MAX_RECORD_LEN`] before the record's bytes are asked
/// for, so a damaged length never makes a reader allocate.
fn parse_frame(src: &mut dyn LogBytes, pos: u64) -> Result<std::result::Result<Frame, Damage>> {
    let rest = src.len().saturating_sub(pos);
    let truncated = || Damage {
        what: format!("truncated record header ({rest} bytes)"),
        at_eof: true,
    };
    if rest < HEADER_LEN as u64 {
        return Ok(Err(truncated()));
    }
    let mut r = Reader::new(src.get(pos, HEADER_LEN)?);
    let (Ok(crc), Ok(len), Ok(rtype)) = (r.u32("crc"), r.u32("len"), r.u8("type")) else {
        return Ok(Err(truncated()));
    };
    let remaining = rest - HEADER_LEN as u64;
    if u64::from(len) > remaining {
        return Ok(Err(Damage {
            what: format!("record length {len} runs past end of file ({remaining} bytes left)"),
            at_eof: true,
        }));
    }
    let len = len as usize;
    if len > MAX_RECORD_LEN {
        return Ok(Err(Damage {
            what: format!("record length {len} exceeds limit {MAX_RECORD_LEN}"),
            at_eof: false,
        }));
    }
    let frame = Frame {
        offset: pos,
        rtype,
        len,
    };
    // The checksum covers the length, the type and the payload: the frame after its crc.
    let bytes = src.get(pos, HEADER_LEN + len)?;
    let actual = codec::crc32(bytes.get(4..).unwrap_or_default());
    if actual != crc {
        return Ok(Err(Damage {
            what: format!("record checksum mismatch (stored {crc:#010x}, computed {actual:#010x})"),
            at_eof: frame.end() == src.len(),
        }));
    }
    Ok(Ok(frame))
}

/// True when every byte from `pos` to the end of the file is zero (read in bounded pieces).
pub(crate) fn zeros_from(src: &mut dyn LogBytes, mut pos: u64) -> Result<bool> {
    while pos < src.len() {
        let n = usize::try_from(src.len() - pos).map_or(SCAN_CHUNK, |left| left.min(SCAN_CHUNK));
        if src.get(pos, n)?.iter().any(|&b| b != 0) {
            return Ok(false);
        }
        pos += n as u64;
    }
    Ok(true)
}

/// The offset of the first intact frame starting in `[from, from + 64 KiB)` whose payload is
/// at most 1 MiB (the bounds keep a damaged file's scan cheap).
fn intact_frame_after(src: &mut dyn LogBytes, from: u64) -> Result<Option<u64>> {
    const WINDOW: u64 = 64 << 10;
    const MAX_CANDIDATE: u64 = 1 << 20;
    let end = src.len().min(from.saturating_add(WINDOW));
    for o in from..end {
        let Some(remaining) = src.len().checked_sub(o + 8) else {
            break; // no room for a crc and a length from here on
        };
        let len = length_field(src, o)?;
        if len <= MAX_CANDIDATE && len < remaining && parse_frame(src, o)?.is_ok() {
            return Ok(Some(o));
        }
    }
    Ok(None)
}

/// True when every non-zero byte from `pos` on lies inside the frame whose header starts at
/// `pos` (as far as its length field claims): a record torn by a crash in a preallocated file,
/// whose unwritten part and the room after it read as zeros.
fn torn_before_zeros(src: &mut dyn LogBytes, pos: u64) -> Result<bool> {
    let claimed_end = if src.len().saturating_sub(pos) >= 8 {
        let len = length_field(src, pos)?;
        pos.saturating_add(HEADER_LEN as u64).saturating_add(len)
    } else {
        src.len()
    };
    // The frame claims everything before `claimed_end` (at least its header): every non-zero
    // byte lies inside it when the bytes from there to the end are zeros.
    zeros_from(src, claimed_end)
}

/// Whether damage `d` at `pos` is a torn tail under `policy`: then the length of the good
/// prefix (`pos`), else [`Error::Corruption`] naming `path` and the offset.
fn judge_damage(
    src: &mut dyn LogBytes,
    path: &Path,
    policy: TailPolicy,
    pos: u64,
    d: Damage,
) -> Result<u64> {
    let torn_ok = match policy {
        TailPolicy::TornTailAllowed => {
            d.at_eof || zeros_from(src, pos)? || torn_before_zeros(src, pos)?
        }
        TailPolicy::TornFinalRecordOnly => {
            (d.at_eof || zeros_from(src, pos)?)
                && intact_frame_after(src, pos.saturating_add(1))?.is_none()
        }
        TailPolicy::Strict => false,
    };
    if torn_ok {
        return Ok(pos);
    }
    Err(Error::corruption(
        path,
        format!("{} at offset {pos}", d.what),
    ))
}

/// Every intact frame from the start, in order, up to the first damaged one: `each` gets each
/// record (its payload borrowed from `src` for the call). Returns where the intact frames end
/// and the damage there (`None` when the whole file is intact).
fn frames_until_damage(
    src: &mut dyn LogBytes,
    each: &mut dyn FnMut(LogRecord<'_>),
) -> Result<(u64, Option<Damage>)> {
    let mut pos = 0u64;
    while pos < src.len() {
        match parse_frame(src, pos)? {
            Ok(f) => {
                let payload = src.get(f.offset + HEADER_LEN as u64, f.len)?;
                each(LogRecord {
                    offset: f.offset,
                    rtype: f.rtype,
                    payload,
                });
                pos = f.end();
            }
            Err(d) => return Ok((pos, Some(d))),
        }
    }
    Ok((pos, None))
}

/// The records of `bytes` that [`frames_until_damage`] found, borrowing from `bytes`.
fn records_at(bytes: &[u8], found: Vec<(u64, u8, usize)>) -> Vec<LogRecord<'_>> {
    found
        .into_iter()
        .map(|(offset, rtype, len)| {
            let start = offset as usize + HEADER_LEN;
            LogRecord {
                offset,
                rtype,
                payload: bytes.get(start..start + len).unwrap_or_default(),
            }
        })
        .collect()
}

/// Parses every record of a log file's bytes.
///
/// With [`TailPolicy::TornTailAllowed`], damage confined to the END of the file is a torn tail:
/// a record whose header or payload runs past EOF, a final record (ending exactly at EOF) with a
/// bad checksum, zero bytes up to EOF, or a bad record with only zero bytes after it (a record
/// torn inside a preallocated, zero-filled tail: every non-zero byte after its start lies within
/// the length its header claims). Then the records before it
/// are returned with `valid_len`, the byte length of the good prefix. Any bad record followed by
/// further (non-zero) data is [`Error::Corruption`] naming `path` and the offset. With
/// [`TailPolicy::Strict`], any damage is corruption. Returns `(records, valid_len)`; without
/// damage `valid_len == bytes.len()`.
///
/// Nothing is allocated by a length read from the file (payloads borrow from `bytes`).
///
/// Known limit of any length-prefixed format: a bit flip that grows the length field of a record
/// so that it runs past EOF is indistinguishable from a torn final record.
pub fn read_records<'a>(
    bytes: &'a [u8],
    path: &Path,
    policy: TailPolicy,
) -> Result<(Vec<LogRecord<'a>>, u64)> {
    let mut src = InMemory(bytes);
    let mut found = Vec::new();
    let (pos, damage) = frames_until_damage(&mut src, &mut |r| {
        found.push((r.offset, r.rtype, r.payload.len()));
    })?;
    let valid_len = match damage {
        None => pos,
        Some(d) => judge_damage(&mut src, path, policy, pos, d)?,
    };
    Ok((records_at(bytes, found), valid_len))
}

/// As [`read_records`], over bytes read in pieces (replay reads each WAL segment through a
/// bounded window): `each` gets every record in file order, its payload borrowed for the call
/// only, instead of a list. Returns `valid_len`, the byte length of the good prefix, with the
/// same verdict on damage as [`read_records`].
///
/// Errors come in the order [`read_records`] and then a loop over its records would give
/// them: the framing's corruption first, then the first error of `each`. After `each` fails,
/// it is not called again but the rest of the file is still framed. Unlike that loop, `each`
/// has already seen the records before a damage point that turns out to be corruption.
pub(crate) fn for_each_record(
    src: &mut dyn LogBytes,
    path: &Path,
    policy: TailPolicy,
    mut each: impl FnMut(LogRecord<'_>) -> Result<()>,
) -> Result<u64> {
    let mut failed = None;
    let (pos, damage) = frames_until_damage(src, &mut |r| {
        if failed.is_none()
            && let Err(e) = each(r)
        {
            failed = Some(e);
        }
    })?;
    let valid_len = match damage {
        None => pos,
        Some(d) => judge_damage(src, path, policy, pos, d)?,
    };
    match failed {
        Some(e) => Err(e),
        None => Ok(valid_len),
    }
}

/// The records before the first damage, for salvage: never an error. Returns the records,
/// the length of the intact prefix and what the damage at its end is (`None` when the whole
/// file is intact).
pub fn records_before_damage(bytes: &[u8]) -> (Vec<LogRecord<'_>>, u64, Option<String>) {
    let mut found = Vec::new();
    let framed = frames_until_damage(&mut InMemory(bytes), &mut |r| {
        found.push((r.offset, r.rtype, r.payload.len()));
    });
    match framed {
        Ok((pos, damage)) => (records_at(bytes, found), pos, damage.map(|d| d.what)),
        // Bytes in memory cannot fail to read; were it ever so, nothing is salvaged.
        Err(e) => (Vec::new(), 0, Some(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("test.log")
    }

    /// Three records: empty payload, short, longer. Returns the bytes and each record's end.
    fn three() -> (Vec<u8>, Vec<usize>) {
        let mut b = Vec::new();
        let mut ends = Vec::new();
        encode_record(&mut b, 1, b"");
        ends.push(b.len());
        encode_record(&mut b, 2, b"hello");
        ends.push(b.len());
        encode_record_parts(&mut b, 3, b"0123456789", &[0xab; 40]);
        ends.push(b.len());
        (b, ends)
    }

    fn corruption_detail(e: Error) -> String {
        match e {
            Error::Corruption { path, detail } => {
                assert_eq!(path, p());
                detail
            }
            other => panic!("expected corruption, got {other:?}"),
        }
    }

    #[test]
    fn round_trip() {
        let (b, ends) = three();
        for policy in [TailPolicy::Strict, TailPolicy::TornTailAllowed] {
            let (recs, valid) = read_records(&b, p(), policy).unwrap();
            assert_eq!(valid, b.len() as u64);
            assert_eq!(recs.len(), 3);
            assert_eq!(
                (recs[0].offset, recs[0].rtype, recs[0].payload),
                (0, 1, &b""[..])
            );
            assert_eq!(recs[1].offset, ends[0] as u64);
            assert_eq!((recs[1].rtype, recs[1].payload), (2, &b"hello"[..]));
            assert_eq!(recs[2].offset, ends[1] as u64);
            let mut want = b"0123456789".to_vec();
            want.extend_from_slice(&[0xab; 40]);
            assert_eq!((recs[2].rtype, recs[2].payload), (3, &want[..]));
        }
        assert_eq!(read_records(&[], p(), TailPolicy::Strict).unwrap().1, 0);
    }

    #[test]
    fn every_truncation_is_a_torn_tail() {
        let (b, ends) = three();
        for cut in 0..=b.len() {
            let (recs, valid) = read_records(&b[..cut], p(), TailPolicy::TornTailAllowed).unwrap();
            let whole = ends.iter().filter(|&&e| e <= cut).count();
            assert_eq!(recs.len(), whole, "cut {cut}");
            let want_valid = if whole == 0 { 0 } else { ends[whole - 1] };
            assert_eq!(valid, want_valid as u64, "cut {cut}");
            let strict = read_records(&b[..cut], p(), TailPolicy::Strict);
            assert_eq!(strict.is_ok(), cut == want_valid, "cut {cut}");
        }
    }

    #[test]
    fn bit_flip_in_middle_record_is_corruption_with_offset() {
        let (b, ends) = three();
        let mid = ends[0]..ends[1];
        for byte in mid.clone() {
            for bit in 0..8 {
                let mut d = b.clone();
                d[byte] ^= 1 << bit;
                let res = read_records(&d, p(), TailPolicy::TornTailAllowed);
                if (ends[0] + 4..ends[0] + 8).contains(&byte) {
                    // A damaged length field either fails the checksum (corruption) or makes the
                    // record run past EOF (indistinguishable from a torn tail).
                    match res {
                        Ok((recs, valid)) => {
                            assert_eq!(recs.len(), 1);
                            assert_eq!(valid, ends[0] as u64);
                        }
                        Err(e) => {
                            let detail = corruption_detail(e);
                            assert!(detail.contains(&format!("offset {}", ends[0])), "{detail}");
                        }
                    }
                } else {
                    let detail = corruption_detail(res.unwrap_err());
                    assert!(detail.contains(&format!("offset {}", ends[0])), "{detail}");
                }
            }
        }
    }

    #[test]
    fn bad_final_record_ending_at_eof_is_torn() {
        let (mut b, ends) = three();
        let last = b.len() - 1;
        b[last] ^= 0x40;
        let (recs, valid) = read_records(&b, p(), TailPolicy::TornTailAllowed).unwrap();
        assert_eq!(recs.len(), 2);
        assert_eq!(valid, ends[1] as u64);
        let detail = corruption_detail(read_records(&b, p(), TailPolicy::Strict).unwrap_err());
        assert!(detail.contains(&format!("offset {}", ends[1])), "{detail}");
    }

    #[test]
    fn zero_filled_tail_is_torn_but_zeros_before_data_are_not() {
        let (b, _) = three();
        for zeros in [1usize, 8, 9, 10, 100, 4096] {
            let mut d = b.clone();
            d.resize(b.len() + zeros, 0);
            let (recs, valid) = read_records(&d, p(), TailPolicy::TornTailAllowed).unwrap();
            assert_eq!(recs.len(), 3);
            assert_eq!(valid, b.len() as u64);
            corruption_detail(read_records(&d, p(), TailPolicy::Strict).unwrap_err());
        }
        // Zeros followed by a valid record: the damage is not confined to the tail.
        let mut d = b.clone();
        d.resize(b.len() + 64, 0);
        encode_record(&mut d, 1, b"after the hole");
        let detail =
            corruption_detail(read_records(&d, p(), TailPolicy::TornTailAllowed).unwrap_err());
        assert!(detail.contains(&format!("offset {}", b.len())), "{detail}");
    }

    #[test]
    fn huge_length_field_does_not_allocate_or_panic() {
        let (b, _) = three();
        let mut d = b.clone();
        d.extend_from_slice(&[0x12, 0x34, 0x56, 0x78, 0xff, 0xff, 0xff, 0xff, 1]);
        d.extend_from_slice(b"some bytes");
        let (recs, valid) = read_records(&d, p(), TailPolicy::TornTailAllowed).unwrap();
        assert_eq!((recs.len(), valid), (3, b.len() as u64));
        let detail = corruption_detail(read_records(&d, p(), TailPolicy::Strict).unwrap_err());
        assert!(detail.contains("runs past end of file"), "{detail}");
    }

    #[test]
    fn garbage_never_panics() {
        // splitmix64-driven random bytes and random mutations of a valid log.
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let (b, _) = three();
        for _ in 0..2000 {
            let mut d = b.clone();
            let n = (next() % 4) as usize;
            for _ in 0..=n {
                let i = (next() % d.len() as u64) as usize;
                d[i] = next() as u8;
            }
            let cut = (next() % (d.len() as u64 + 1)) as usize;
            for policy in [TailPolicy::Strict, TailPolicy::TornTailAllowed] {
                match read_records(&d[..cut], p(), policy) {
                    Ok((recs, valid)) => assert!(valid as usize <= cut && recs.len() <= 3),
                    Err(e) => drop(corruption_detail(e)),
                }
            }
        }
    }

    #[test]
    fn torn_final_record_only_rejects_damage_followed_by_intact_records() {
        let (b, ends) = three();
        // A grown length field in the first record runs past EOF: a torn tail for the WAL
        // policy, corruption for the manifest's (intact records follow it).
        let mut d = b.clone();
        d[4] ^= 0x10;
        let (recs, valid) = read_records(&d, p(), TailPolicy::TornTailAllowed).unwrap();
        assert_eq!((recs.len(), valid), (0, 0));
        let detail =
            corruption_detail(read_records(&d, p(), TailPolicy::TornFinalRecordOnly).unwrap_err());
        assert!(detail.contains("offset 0"), "{detail}");
        // A really torn final record is still a torn tail.
        for cut in ends[1] + 1..b.len() {
            let (recs, valid) =
                read_records(&b[..cut], p(), TailPolicy::TornFinalRecordOnly).unwrap();
            assert_eq!((recs.len(), valid), (2, ends[1] as u64), "cut {cut}");
        }
    }
}
