//! WAL segment files: naming, the segment header record and the entry record layout.
//!
//! ```text
//! segment file  = "{id:010}.log": header frame, then entry frames
//! header frame  = type 0, payload: magic "CBWALSEG" | version: u32 BE | segment id: u64 BE
//! entry frame   = type 1, payload: seq: u64 BE | the caller's payload
//! ```

use crate::codec::Reader;
use crate::error::{Error, Result};
use crate::io::{FileSystem, WritableFile};
use crate::wal::record;
use std::io;
use std::path::{Path, PathBuf};

/// Record type of the segment header (first record of every segment).
pub const REC_SEGMENT_HEADER: u8 = 0;
/// Record type of a WAL entry (sequence id plus the caller's payload).
pub const REC_ENTRY: u8 = 1;
/// Magic at the start of the segment header payload.
pub const SEGMENT_MAGIC: [u8; 8] = *b"CBWALSEG";
/// The WAL format version written by this code.
pub const WAL_FORMAT_VERSION: u32 = 1;
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

/// The framed segment header record for segment `id`.
pub fn encode_segment_header(out: &mut Vec<u8>, id: u64) {
    let mut p = Vec::with_capacity(20);
    p.extend_from_slice(&SEGMENT_MAGIC);
    p.extend_from_slice(&WAL_FORMAT_VERSION.to_be_bytes());
    p.extend_from_slice(&id.to_be_bytes());
    record::encode_record(out, REC_SEGMENT_HEADER, &p);
}

/// Checks a segment header payload found at `offset` of segment `id`'s file `path`.
pub fn check_segment_header(payload: &[u8], path: &Path, id: u64, offset: u64) -> Result<()> {
    let mut r = Reader::new(payload);
    let bad = |what: &str| Error::corruption(path, format!("{what} at offset {offset}"));
    let magic = r
        .take(8, "magic")
        .map_err(|_| bad("short segment header"))?;
    if magic != SEGMENT_MAGIC {
        return Err(bad("bad segment magic"));
    }
    let version = r.u32("version").map_err(|_| bad("short segment header"))?;
    if version != WAL_FORMAT_VERSION {
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
    Ok(())
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
/// header, then syncs the directory.
pub fn create_segment(
    fs: &dyn FileSystem,
    dir: &Path,
    id: u64,
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
    encode_segment_header(&mut h, id);
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
        encode_segment_header(&mut b, 42);
        let (recs, _) = record::read_records(&b, p, record::TailPolicy::Strict).unwrap();
        assert_eq!(recs[0].rtype, REC_SEGMENT_HEADER);
        check_segment_header(recs[0].payload, p, 42, 0).unwrap();
        assert!(matches!(
            check_segment_header(recs[0].payload, p, 43, 0),
            Err(Error::Corruption { .. })
        ));
        let mut v2 = recs[0].payload.to_vec();
        v2[11] = 2;
        assert!(matches!(
            check_segment_header(&v2, p, 42, 0),
            Err(Error::UnsupportedFormat { found: 2, .. })
        ));
        assert!(matches!(
            check_segment_header(b"CBWAL", p, 42, 0),
            Err(Error::Corruption { .. })
        ));
    }
}
