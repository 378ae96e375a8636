//! The fixed-size trailer at the end of every block file.
//!
//! ```text
//! 0   bloom handle  (offset u64 BE, size u32 BE; (0, 0) = no bloom block)
//! 12  index handle
//! 24  meta handle
//! 36  reserved, 12 zero bytes
//! 48  crc32: u32 BE over bytes [0, 48) and [52, 64)
//! 52  format version: u32 BE (= 1)
//! 56  magic "CELLBSST"
//! ```
//!
//! Magic and version sit at the very end so a future version may change everything before
//! them. A reader checks magic, then version, then CRC, then the layout: the blocks must be
//! contiguous and in order `data* | bloom? | index | meta | trailer`.

use super::frame::{BlockHandle, HANDLE_LEN};
use crate::base::codec::{self, Reader};
use crate::base::error::{Error, Result};
use std::path::Path;

/// Trailer length in bytes.
pub const TRAILER_LEN: usize = 64;
/// Magic bytes closing every block file.
pub const MAGIC: &[u8; 8] = b"CELLBSST";
/// Current (and only) format version.
pub const FORMAT_VERSION: u32 = 1;

const CRC_AT: usize = 48;
const RESERVED_AT: usize = 3 * HANDLE_LEN;

/// Handles of the metadata blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trailer {
    /// Bloom block, `None` when the file has no filter.
    pub bloom: Option<BlockHandle>,
    /// Index block.
    pub index: BlockHandle,
    /// Meta block.
    pub meta: BlockHandle,
}

impl Trailer {
    /// The 64 trailer bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(TRAILER_LEN);
        self.bloom.unwrap_or_default().encode_into(&mut out);
        self.index.encode_into(&mut out);
        self.meta.encode_into(&mut out);
        out.resize(CRC_AT, 0);
        let mut tail = Vec::with_capacity(12);
        codec::put_u32(&mut tail, FORMAT_VERSION);
        tail.extend_from_slice(MAGIC);
        let crc = codec::crc32_parts(&[&out, &tail]);
        codec::put_u32(&mut out, crc);
        out.extend_from_slice(&tail);
        debug_assert_eq!(out.len(), TRAILER_LEN);
        out
    }

    /// Reads and validates the trailer at the end of `file` (the whole file's bytes).
    ///
    /// # Errors
    /// [`Error::UnsupportedFormat`] for another version; [`Error::Corruption`] for a short file,
    /// bad magic or CRC, nonzero reserved bytes, or handles that do not lay the blocks out
    /// contiguously before the trailer.
    pub fn decode(file: &[u8], path: &Path) -> Result<Trailer> {
        let len = file.len();
        let base = len.checked_sub(TRAILER_LEN).ok_or_else(|| {
            Error::corruption(
                path,
                format!(
                    "file of {len} bytes is shorter than the {TRAILER_LEN}-byte trailer at offset 0"
                ),
            )
        })?;
        let t = file.get(base..).unwrap_or_default();
        let bad = |at: usize, what: &str| {
            Error::corruption(path, format!("trailer {what} at offset {}", base + at))
        };
        let mut r = Reader::new(t);
        let decode_err = |e: codec::DecodeError| e.into_corruption(path, base as u64);
        let bloom = BlockHandle::decode(&mut r).map_err(decode_err)?;
        let index = BlockHandle::decode(&mut r).map_err(decode_err)?;
        let meta = BlockHandle::decode(&mut r).map_err(decode_err)?;
        let reserved = r
            .take(CRC_AT - RESERVED_AT, "trailer reserved")
            .map_err(decode_err)?;
        let crc = r.u32("trailer crc").map_err(decode_err)?;
        let version = r.u32("trailer version").map_err(decode_err)?;
        let magic = r.take(MAGIC.len(), "trailer magic").map_err(decode_err)?;
        if magic != MAGIC {
            return Err(bad(
                TRAILER_LEN - MAGIC.len(),
                "magic mismatch (not a cellbase block file)",
            ));
        }
        if version != FORMAT_VERSION {
            return Err(Error::UnsupportedFormat {
                path: path.to_path_buf(),
                found: version,
            });
        }
        let head = t.get(..CRC_AT).unwrap_or_default();
        let tail = t.get(CRC_AT + 4..).unwrap_or_default();
        if codec::crc32_parts(&[head, tail]) != crc {
            return Err(bad(CRC_AT, "checksum mismatch"));
        }
        if reserved.iter().any(|&b| b != 0) {
            return Err(bad(RESERVED_AT, "reserved bytes not zero"));
        }
        let bloom = (bloom != BlockHandle::default()).then_some(bloom);
        // Layout: data [0, data_end) | bloom? | index | meta | trailer.
        let data_end = bloom.map_or(index.offset, |b| b.offset);
        if let Some(b) = bloom
            && b.end() != index.offset
        {
            return Err(bad(0, "bloom block does not end where the index starts"));
        }
        if index.end() != meta.offset {
            return Err(bad(
                HANDLE_LEN,
                "index block does not end where the meta block starts",
            ));
        }
        if meta.end() != base as u64 {
            return Err(bad(
                2 * HANDLE_LEN,
                "meta block does not end where the trailer starts",
            ));
        }
        if data_end > index.offset {
            return Err(bad(0, "block handles out of order"));
        }
        Ok(Trailer { bloom, index, meta })
    }

    /// End of the data region (where the bloom block, or else the index block, starts).
    pub fn data_end(&self) -> u64 {
        self.bloom.map_or(self.index.offset, |b| b.offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailer_len_matches_the_documented_layout() {
        // docs/FORMAT.md (section 2): 3 handles of 12 bytes, 12 reserved, crc 4, version 4, magic 8.
        assert_eq!(TRAILER_LEN, 3 * 12 + 12 + 4 + 4 + 8);
        assert_eq!(TRAILER_LEN, 64);
        let t = Trailer {
            bloom: None,
            index: BlockHandle { offset: 0, size: 4 },
            meta: BlockHandle {
                offset: 9,
                size: 10,
            },
        };
        assert_eq!(t.encode().len(), TRAILER_LEN);
    }

    #[test]
    fn trailer_round_trip_and_errors() {
        let t = Trailer {
            bloom: Some(BlockHandle { offset: 3, size: 2 }),
            index: BlockHandle {
                offset: 10,
                size: 4,
            },
            meta: BlockHandle {
                offset: 19,
                size: 10,
            },
        };
        let mut f = vec![0u8; 34];
        f.extend_from_slice(&t.encode());
        let p = Path::new("x");
        assert_eq!(Trailer::decode(&f, p).unwrap(), t);
        assert_eq!(t.data_end(), 3);
        assert!(matches!(
            Trailer::decode(&f[1..], p),
            Err(Error::Corruption { .. })
        ));
        let mut v = f.clone();
        let n = v.len();
        v[n - 9] = 2;
        assert!(matches!(
            Trailer::decode(&v, p),
            Err(Error::UnsupportedFormat { found: 2, .. })
        ));
        for i in 34..f.len() {
            let mut c = f.clone();
            c[i] ^= 0x10;
            assert!(Trailer::decode(&c, p).is_err(), "flip at {i}");
        }
        assert!(
            Trailer::decode(&f[..10], p)
                .unwrap_err()
                .to_string()
                .contains("offset")
        );
    }
}
