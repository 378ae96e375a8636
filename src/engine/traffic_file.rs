//! The `TRAFFIC` file: recorded traffic ([`Traffic`]) saved in the database directory, so
//! that `cellbase lab keyviz --db DIR` can draw it after the process that recorded it closed
//! the database (or called [`Db::save_traffic`](crate::Db::save_traffic)). docs/FORMAT.md,
//! section "TRAFFIC", describes the bytes; every decoding failure is an
//! [`Error::Corruption`] naming the file and the offset.
//!
//! Written whole (`TRAFFIC.tmp`, synced, renamed over `TRAFFIC`, directory synced), through
//! the filesystem seam; a crash leaves the old file or the new one.

use super::traffic::{MAX_INTERVALS, RegionTraffic, Traffic, TrafficInterval};
use crate::base::codec::{self, DecodeError, Reader};
use crate::base::error::{Error, Result};
use crate::base::io::FileSystem;
use std::path::Path;

/// The file's name in the database directory.
pub(crate) const TRAFFIC_FILE: &str = "TRAFFIC";
/// Its first 8 bytes.
const MAGIC: &[u8; 8] = b"CBTRAFIC";
/// The format version this build writes and reads.
const VERSION: u32 = 1;

/// The bytes of `t` (docs/FORMAT.md, "TRAFFIC").
pub(crate) fn encode(t: &Traffic) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    codec::put_u32(&mut out, VERSION);
    codec::put_u64(&mut out, t.interval_ms);
    codec::put_u32(&mut out, t.max_intervals);
    codec::put_varint(&mut out, t.intervals.len() as u64);
    for i in &t.intervals {
        codec::put_i64(&mut out, i.start_ms);
        codec::put_varint(&mut out, i.regions.len() as u64);
        for r in &i.regions {
            codec::put_bytes(&mut out, r.table.as_bytes());
            codec::put_varint(&mut out, r.region_id);
            codec::put_bytes(&mut out, &r.start_key);
            codec::put_bytes(&mut out, &r.end_key);
            codec::put_varint(&mut out, r.reads);
            codec::put_varint(&mut out, r.writes);
        }
    }
    let crc = codec::crc32(&out);
    codec::put_u32(&mut out, crc);
    out
}

/// Decodes the file's bytes; `path` names it in errors.
///
/// # Errors
/// [`Error::Corruption`] for a wrong magic, a checksum mismatch, a short or over-long file or
/// a bad value; [`Error::UnsupportedFormat`] for a version newer than this build's.
pub(crate) fn decode(bytes: &[u8], path: &Path) -> Result<Traffic> {
    let bad = |e: DecodeError| e.into_corruption(path, 0);
    if bytes.len() < MAGIC.len() + 4 + 4 || &bytes[..MAGIC.len()] != MAGIC {
        return Err(Error::corruption(
            path,
            "not a traffic file (magic \"CBTRAFIC\" missing)",
        ));
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    let stored = u32::from_be_bytes([crc[0], crc[1], crc[2], crc[3]]);
    if codec::crc32(body) != stored {
        return Err(Error::corruption(
            path,
            format!("checksum mismatch at offset {}", body.len()),
        ));
    }
    let mut r = Reader::new(body);
    r.take(MAGIC.len(), "magic").map_err(bad)?;
    let version = r.u32("version").map_err(bad)?;
    if version > VERSION {
        return Err(Error::UnsupportedFormat {
            path: path.to_path_buf(),
            found: version,
        });
    }
    if version != VERSION {
        return Err(Error::corruption(
            path,
            format!("traffic file version {version} at offset 8"),
        ));
    }
    let interval_ms = r.u64("interval length").map_err(bad)?;
    let max_intervals = r.u32("ring capacity").map_err(bad)?;
    if interval_ms == 0 || interval_ms > i64::MAX as u64 {
        return Err(Error::corruption(
            path,
            "interval length out of range at offset 12",
        ));
    }
    let n = r.len(MAX_INTERVALS, "interval count").map_err(bad)?;
    let mut intervals = Vec::with_capacity(n.min(r.remaining()));
    for _ in 0..n {
        let start_ms = r.i64("interval start").map_err(bad)?;
        // Each region entry takes at least 6 bytes: a bound on the count before allocating.
        let k = r.len(r.remaining() / 6, "region count").map_err(bad)?;
        let mut regions = Vec::with_capacity(k);
        for _ in 0..k {
            let at = r.pos();
            let table =
                String::from_utf8(r.bytes("table name").map_err(bad)?.to_vec()).map_err(|_| {
                    Error::corruption(path, format!("table name not UTF-8 at offset {at}"))
                })?;
            regions.push(RegionTraffic {
                table,
                region_id: r.varint("region id").map_err(bad)?,
                start_key: r.bytes("start key").map_err(bad)?.to_vec(),
                end_key: r.bytes("end key").map_err(bad)?.to_vec(),
                reads: r.varint("reads").map_err(bad)?,
                writes: r.varint("writes").map_err(bad)?,
            });
        }
        intervals.push(TrafficInterval { start_ms, regions });
    }
    if !r.is_empty() {
        return Err(Error::corruption(
            path,
            format!(
                "{} bytes after the last interval at offset {}",
                r.remaining(),
                r.pos()
            ),
        ));
    }
    Ok(Traffic {
        interval_ms,
        max_intervals,
        intervals,
    })
}

/// Writes `t` as `dir/TRAFFIC`: a temporary file, synced, renamed over it, the directory
/// synced.
///
/// # Errors
/// [`Error::Io`].
pub(crate) fn write(fs: &dyn FileSystem, dir: &Path, t: &Traffic) -> Result<()> {
    let tmp = dir.join(format!("{TRAFFIC_FILE}.tmp"));
    let mut f = fs.create(&tmp)?;
    f.append(&encode(t))?;
    f.sync_data()?;
    drop(f);
    fs.rename(&tmp, &dir.join(TRAFFIC_FILE))?;
    fs.sync_dir(dir)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Traffic {
        Traffic {
            interval_ms: 1000,
            max_intervals: 4,
            intervals: vec![
                TrafficInterval {
                    start_ms: 5000,
                    regions: vec![RegionTraffic {
                        table: "t".into(),
                        region_id: 7,
                        start_key: b"".to_vec(),
                        end_key: b"m".to_vec(),
                        reads: 3,
                        writes: 300,
                    }],
                },
                TrafficInterval {
                    start_ms: 6000,
                    regions: vec![],
                },
            ],
        }
    }

    #[test]
    fn round_trips_and_every_damage_is_corruption() {
        let p = Path::new("TRAFFIC");
        let b = encode(&sample());
        assert_eq!(decode(&b, p).expect("decodes"), sample());
        // Every truncation and every flipped byte is an error, never a panic.
        for n in 0..b.len() {
            assert!(
                matches!(decode(&b[..n], p), Err(Error::Corruption { .. })),
                "len {n}"
            );
        }
        for i in 0..b.len() {
            let mut d = b.clone();
            d[i] ^= 0x41;
            assert!(
                matches!(decode(&d, p), Err(Error::Corruption { .. })),
                "byte {i}"
            );
        }
        // A newer version (resealed) is unsupported, not damaged.
        let mut d = b[..b.len() - 4].to_vec();
        d[11] = 2;
        let crc = codec::crc32(&d);
        codec::put_u32(&mut d, crc);
        assert!(matches!(
            decode(&d, p),
            Err(Error::UnsupportedFormat { found: 2, .. })
        ));
    }
}
