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
//! data), see [`TailPolicy`].

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

/// Why one frame failed to parse.
struct Damage {
    what: String,
    /// The damage reaches the end of the file (the frame runs past EOF, or ends exactly at EOF
    /// with a bad checksum): a torn-tail candidate.
    at_eof: bool,
}

/// Parses the frame at `pos` (`pos < bytes.len()`); returns it and the offset after it.
fn parse_frame(bytes: &[u8], pos: usize) -> std::result::Result<(LogRecord<'_>, usize), Damage> {
    let rest = &bytes[pos..];
    let mut r = Reader::new(rest);
    let header = (r.u32("crc"), r.u32("len"), r.u8("type"));
    let (Ok(crc), Ok(len), Ok(rtype)) = header else {
        return Err(Damage {
            what: format!("truncated record header ({} bytes)", rest.len()),
            at_eof: true,
        });
    };
    let len = len as usize;
    if len > r.remaining() {
        return Err(Damage {
            what: format!(
                "record length {len} runs past end of file ({} bytes left)",
                r.remaining()
            ),
            at_eof: true,
        });
    }
    if len > MAX_RECORD_LEN {
        return Err(Damage {
            what: format!("record length {len} exceeds limit {MAX_RECORD_LEN}"),
            at_eof: false,
        });
    }
    let Ok(payload) = r.take(len, "payload") else {
        // Unreachable after the check above; reported as damage rather than a panic.
        return Err(Damage {
            what: "record payload out of bounds".into(),
            at_eof: true,
        });
    };
    let actual = codec::crc32_parts(&[&rest[4..8], &[rtype], payload]);
    let next = pos + HEADER_LEN + len;
    if actual != crc {
        return Err(Damage {
            what: format!("record checksum mismatch (stored {crc:#010x}, computed {actual:#010x})"),
            at_eof: next == bytes.len(),
        });
    }
    Ok((
        LogRecord {
            offset: pos as u64,
            rtype,
            payload,
        },
        next,
    ))
}

/// The offset of the first intact frame starting in `bytes[from..from + 64 KiB]` whose
/// payload is at most 1 MiB (the bounds keep a damaged file's scan cheap).
fn intact_frame_after(bytes: &[u8], from: usize) -> Option<usize> {
    const WINDOW: usize = 64 << 10;
    const MAX_CANDIDATE: usize = 1 << 20;
    let end = bytes.len().min(from.saturating_add(WINDOW));
    (from..end).find(|&o| {
        let Some(rest) = bytes.get(o..) else {
            return false;
        };
        let mut r = Reader::new(rest);
        let (Ok(_), Ok(len)) = (r.u32("crc"), r.u32("len")) else {
            return false;
        };
        let len = len as usize;
        len <= MAX_CANDIDATE && len < r.remaining() && parse_frame(bytes, o).is_ok()
    })
}

/// True when every non-zero byte from `pos` on lies inside the frame whose header starts at
/// `pos` (as far as its length field claims): a record torn by a crash in a preallocated file,
/// whose unwritten part and the room after it read as zeros.
fn torn_before_zeros(bytes: &[u8], pos: usize) -> bool {
    let nonzero_end = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    let claimed_end = match bytes.get(pos + 4..pos + 8) {
        Some(len) => {
            let len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
            pos.saturating_add(HEADER_LEN).saturating_add(len)
        }
        None => bytes.len(),
    };
    claimed_end >= nonzero_end
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
    let (out, pos, damage) = frames_until_damage(bytes);
    let Some(d) = damage else {
        return Ok((out, pos as u64));
    };
    let torn = d.at_eof || bytes[pos..].iter().all(|&b| b == 0);
    let torn_ok = match policy {
        TailPolicy::TornTailAllowed => torn || torn_before_zeros(bytes, pos),
        TailPolicy::TornFinalRecordOnly => {
            torn && intact_frame_after(bytes, pos.saturating_add(1)).is_none()
        }
        TailPolicy::Strict => false,
    };
    if torn_ok {
        return Ok((out, pos as u64));
    }
    Err(Error::corruption(
        path,
        format!("{} at offset {pos}", d.what),
    ))
}

/// Every intact frame from the start, up to the first damaged one: the records, where they
/// end, and the damage there (`None` when the whole file is intact).
fn frames_until_damage(bytes: &[u8]) -> (Vec<LogRecord<'_>>, usize, Option<Damage>) {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < bytes.len() {
        match parse_frame(bytes, pos) {
            Ok((rec, next)) => {
                out.push(rec);
                pos = next;
            }
            Err(d) => return (out, pos, Some(d)),
        }
    }
    (out, pos, None)
}

/// The records before the first damage, for salvage: never an error. Returns the records,
/// the length of the intact prefix and what the damage at its end is (`None` when the whole
/// file is intact).
pub fn records_before_damage(bytes: &[u8]) -> (Vec<LogRecord<'_>>, u64, Option<String>) {
    let (out, pos, damage) = frames_until_damage(bytes);
    (out, pos as u64, damage.map(|d| d.what))
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
