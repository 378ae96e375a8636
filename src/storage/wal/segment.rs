//! WAL segment files: naming, the segment header record and the entry record layout.
//!
//! ```text
//! segment file  = "{id:010}.log": header frame, then entry frames
//! header frame  = type 0, payload:
//!                   magic "CBWALSEG" | version: u32 BE | segment id: u64 BE
//!                   version 2 adds: has_prev: u8 (0 or 1) | prev id: u64 BE | prev len: u64 BE
//! entry frame   = type 1, payload: seq: u64 BE | the caller's payload
//! ```
//!
//! Version 2 (the chain link): a segment records the id and final length in bytes of the
//! segment written before it, which the writer fdatasyncs before it creates the new segment.
//! Replay checks the older segment's actual length against it, so an older segment cut exactly
//! at a record boundary is [`Error::Corruption`] instead of a silently shorter log. Version 1
//! headers (no link) are still read; their predecessor is not checked.

use crate::base::codec::Reader;
use crate::base::error::{Error, Result};
use crate::base::io::{FileSystem, WritableFile};
use crate::storage::wal::record;
use std::io;
use std::path::{Path, PathBuf};

/// Record type of the segment header (first record of every segment).
pub const REC_SEGMENT_HEADER: u8 = 0;
/// Record type of a WAL entry (sequence id plus the caller's payload).
pub const REC_ENTRY: u8 = 1;
/// Magic at the start of the segment header payload.
pub const SEGMENT_MAGIC: [u8; 8] = *b"CBWALSEG";
/// The WAL format version written by this code (2: the header links to the previous segment).
pub const WAL_FORMAT_VERSION: u32 = 2;
/// The oldest WAL format version this code reads (1: header without the previous-segment link).
pub const WAL_MIN_READ_VERSION: u32 = 1;
/// Bytes of the entry header inside the frame payload (the sequence id).
pub const ENTRY_HEADER_LEN: usize = 8;
/// Largest caller payload of one WAL entry.
pub const MAX_ENTRY_PAYLOAD: usize = record::MAX_RECORD_LEN - ENTRY_HEADER_LEN;

/// File name of segment `id`: ten or more decimal digits plus `.log`.
pub fn segment_file_name(id: u64) -> String {
    format!("{id:010}.log")
}

/// The segment id of a canonical segment file name, or `None` for any other name.
pub fn parse_segment_name(name: &str) -> Option<u64> {
    let stem = name.strip_suffix(".log")?;
    if stem.len() < 10 || !stem.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let id: u64 = stem.parse().ok()?;
    (segment_file_name(id) == name).then_some(id)
}

/// Path of segment `id` in `dir`.
pub fn segment_path(dir: &Path, id: u64) -> PathBuf {
    dir.join(segment_file_name(id))
}

/// The previous segment as a version-2 segment header records it: the segment the writer
/// appended to before this one, and its final (fdatasynced) length in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrevSegment {
    /// Id of the previous segment.
    pub id: u64,
    /// Its final length in bytes (header frame included).
    pub len: u64,
}

/// Length of a version-2 segment header payload.
pub const SEGMENT_HEADER_V2_LEN: usize = 8 + 4 + 8 + 1 + 8 + 8;
/// Length of a version-1 segment header payload.
#[cfg(test)]
pub const SEGMENT_HEADER_V1_LEN: usize = 8 + 4 + 8;

/// The newest segment in `dir` older than `id`, with its length, after an `fdatasync` of it (so
/// the recorded length never claims bytes a power loss could drop). `None` when there is none.
pub(crate) fn previous_segment(
    fs: &dyn FileSystem,
    dir: &Path,
    id: u64,
) -> Result<Option<PrevSegment>> {
    let prev_id = fs
        .list(dir)?
        .iter()
        .filter_map(|n| parse_segment_name(n))
        .filter(|&p| p < id)
        .max();
    let Some(prev_id) = prev_id else {
        return Ok(None);
    };
    let mut f = fs.open_append(&segment_path(dir, prev_id))?;
    f.sync_data()?;
    Ok(Some(PrevSegment {
        id: prev_id,
        len: f.len(),
    }))
}

/// The framed (version 2) segment header record for segment `id`, linking to `prev`.
pub fn encode_segment_header(out: &mut Vec<u8>, id: u64, prev: Option<PrevSegment>) {
    let mut p = Vec::with_capacity(SEGMENT_HEADER_V2_LEN);
    p.extend_from_slice(&SEGMENT_MAGIC);
    p.extend_from_slice(&WAL_FORMAT_VERSION.to_be_bytes());
    p.extend_from_slice(&id.to_be_bytes());
    let (has, pid, plen) = match prev {
        Some(pr) => (1u8, pr.id, pr.len),
        None => (0u8, 0, 0),
    };
    p.push(has);
    p.extend_from_slice(&pid.to_be_bytes());
    p.extend_from_slice(&plen.to_be_bytes());
    record::encode_record(out, REC_SEGMENT_HEADER, &p);
}

/// The framed version-1 segment header (no previous-segment link), as older code wrote it.
/// Kept for compatibility tests.
#[cfg(test)]
pub fn encode_segment_header_v1(out: &mut Vec<u8>, id: u64) {
    let mut p = Vec::with_capacity(SEGMENT_HEADER_V1_LEN);
    p.extend_from_slice(&SEGMENT_MAGIC);
    p.extend_from_slice(&1u32.to_be_bytes());
    p.extend_from_slice(&id.to_be_bytes());
    record::encode_record(out, REC_SEGMENT_HEADER, &p);
}

/// Checks a segment header payload found at `offset` of segment `id`'s file `path` and returns
/// the previous segment it links to (`None` for a version-1 header or a segment without a
/// predecessor).
pub fn check_segment_header(
    payload: &[u8],
    path: &Path,
    id: u64,
    offset: u64,
) -> Result<Option<PrevSegment>> {
    let mut r = Reader::new(payload);
    let bad = |what: &str| Error::corruption(path, format!("{what} at offset {offset}"));
    let magic = r
        .take(8, "magic")
        .map_err(|_| bad("short segment header"))?;
    if magic != SEGMENT_MAGIC {
        return Err(bad("bad segment magic"));
    }
    let version = r.u32("version").map_err(|_| bad("short segment header"))?;
    if !(WAL_MIN_READ_VERSION..=WAL_FORMAT_VERSION).contains(&version) {
        return Err(Error::UnsupportedFormat {
            path: path.to_path_buf(),
            found: version,
        });
    }
    let found = r
        .u64("segment id")
        .map_err(|_| bad("short segment header"))?;
    if found != id {
        return Err(bad(&format!(
            "segment header names segment {found}, file name says {id}"
        )));
    }
    if version == 1 {
        return if r.is_empty() {
            Ok(None)
        } else {
            Err(bad("trailing bytes in version-1 segment header"))
        };
    }
    let has = r.u8("has_prev").map_err(|_| bad("short segment header"))?;
    let pid = r.u64("prev id").map_err(|_| bad("short segment header"))?;
    let plen = r.u64("prev len").map_err(|_| bad("short segment header"))?;
    if !r.is_empty() {
        return Err(bad("trailing bytes in segment header"));
    }
    match has {
        0 if pid == 0 && plen == 0 => Ok(None),
        1 if pid < id => Ok(Some(PrevSegment { id: pid, len: plen })),
        1 => Err(bad(&format!(
            "segment header links to segment {pid}, which is not older than {id}"
        ))),
        _ => Err(bad("bad previous-segment link in segment header")),
    }
}

/// Splits an entry payload into its sequence id and the caller's payload.
pub fn decode_entry<'a>(payload: &'a [u8], path: &Path, offset: u64) -> Result<(u64, &'a [u8])> {
    let mut r = Reader::new(payload);
    let seq = r
        .u64("entry sequence id")
        .map_err(|e| e.into_corruption(path, offset))?;
    Ok((seq, &payload[ENTRY_HEADER_LEN..]))
}

/// Creates segment `id` in `dir` (refusing to overwrite an existing file), writes and syncs its
/// header (linking to `prev`, whose bytes the caller has made durable), then syncs the
/// directory.
pub fn create_segment(
    fs: &dyn FileSystem,
    dir: &Path,
    id: u64,
    prev: Option<PrevSegment>,
) -> io::Result<Box<dyn WritableFile>> {
    let path = segment_path(dir, id);
    if fs.exists(&path) {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("WAL segment {} already exists", path.display()),
        ));
    }
    let mut f = fs.create(&path)?;
    let mut h = Vec::new();
    encode_segment_header(&mut h, id, prev);
    f.append(&h)?;
    f.sync_data()?;
    fs.sync_dir(dir)?;
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_others_are_ignored() {
        assert_eq!(segment_file_name(7), "0000000007.log");
        assert_eq!(parse_segment_name("0000000007.log"), Some(7));
        assert_eq!(
            parse_segment_name(&segment_file_name(u64::MAX)),
            Some(u64::MAX)
        );
        for bad in [
            "7.log",
            "00000000007.log",
            "000000000a.log",
            "0000000007.tmp",
            "LOCK",
            "",
        ] {
            assert_eq!(parse_segment_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn header_checks() {
        let p = Path::new("x.log");
        let mut b = Vec::new();
        encode_segment_header(&mut b, 42, None);
        let (recs, _) = record::read_records(&b, p, record::TailPolicy::Strict).unwrap();
        assert_eq!(recs[0].rtype, REC_SEGMENT_HEADER);
        assert_eq!(recs[0].payload.len(), SEGMENT_HEADER_V2_LEN);
        assert_eq!(
            check_segment_header(recs[0].payload, p, 42, 0).unwrap(),
            None
        );
        assert!(matches!(
            check_segment_header(recs[0].payload, p, 43, 0),
            Err(Error::Corruption { .. })
        ));
        let mut v2 = recs[0].payload.to_vec();
        v2[11] = 3;
        assert!(matches!(
            check_segment_header(&v2, p, 42, 0),
            Err(Error::UnsupportedFormat { found: 3, .. })
        ));
        assert!(matches!(
            check_segment_header(b"CBWAL", p, 42, 0),
            Err(Error::Corruption { .. })
        ));
    }

    #[test]
    fn header_link_round_trips_and_bad_links_are_corruption() {
        let p = Path::new("x.log");
        let prev = PrevSegment { id: 41, len: 1234 };
        let mut b = Vec::new();
        encode_segment_header(&mut b, 42, Some(prev));
        let (recs, _) = record::read_records(&b, p, record::TailPolicy::Strict).unwrap();
        let payload = recs[0].payload.to_vec();
        assert_eq!(&payload[8..12], &2u32.to_be_bytes());
        assert_eq!(payload[20], 1);
        assert_eq!(&payload[21..29], &41u64.to_be_bytes());
        assert_eq!(&payload[29..37], &1234u64.to_be_bytes());
        assert_eq!(
            check_segment_header(&payload, p, 42, 0).unwrap(),
            Some(prev)
        );
        // A link to a segment that is not older, a bad flag, a short or long payload.
        assert!(matches!(
            check_segment_header(&payload, p, 41, 0),
            Err(Error::Corruption { .. })
        ));
        let mut flag = payload.clone();
        flag[20] = 2;
        let mut short = payload.clone();
        short.pop();
        let mut long = payload.clone();
        long.push(0);
        let mut none_with_id = payload.clone();
        none_with_id[20] = 0;
        for bad in [flag, short, long, none_with_id] {
            assert!(matches!(
                check_segment_header(&bad, p, 42, 0),
                Err(Error::Corruption { .. })
            ));
        }
        // Version 1: no link, still read.
        let mut v1 = Vec::new();
        encode_segment_header_v1(&mut v1, 42);
        let (recs, _) = record::read_records(&v1, p, record::TailPolicy::Strict).unwrap();
        assert_eq!(recs[0].payload.len(), SEGMENT_HEADER_V1_LEN);
        assert_eq!(
            check_segment_header(recs[0].payload, p, 42, 0).unwrap(),
            None
        );
    }
}
