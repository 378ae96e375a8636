//! Block framing shared by every block of a block file: `payload | compression: u8 | crc32: u32`,
//! and the [`BlockHandle`] that locates one.
//!
//! The CRC (IEEE, [`codec::crc32`]) covers the payload and the compression byte and is checked
//! before anything in the payload is parsed. Compressed payloads are decompressed
//! (`compress.rs`) only after their declared length has been checked against
//! [`MAX_BLOCK_LEN`].

use crate::base::codec::{self, DecodeError, Reader};
use crate::base::error::{Error, Result};
use std::borrow::Cow;
use std::path::Path;

/// Bytes after a block's payload: compression (1) and CRC32 (4).
pub const FRAME_TRAILER_LEN: usize = 5;
/// Encoded size of a [`BlockHandle`]: offset (8) and size (4).
pub const HANDLE_LEN: usize = 12;
/// Largest decompressed block a reader accepts (guards allocations driven by disk bytes).
pub const MAX_BLOCK_LEN: usize = 64 << 20;

/// Compression byte: payload stored as is.
pub const COMPRESSION_NONE: u8 = 0;
// The other compression bytes are `Compression::code`'s (docs/FORMAT.md, section 2).

/// Where a block lives: the offset of its first payload byte and the payload's stored
/// (possibly compressed) length, not counting the 5-byte frame trailer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockHandle {
    /// Offset of the block's first byte in the file.
    pub offset: u64,
    /// Stored payload length in bytes.
    pub size: u32,
}

impl BlockHandle {
    /// Offset just past the block's frame trailer (saturating: a corrupt handle near
    /// `u64::MAX` yields `u64::MAX`, which no layout check accepts).
    pub fn end(&self) -> u64 {
        self.offset
            .saturating_add(u64::from(self.size) + FRAME_TRAILER_LEN as u64)
    }

    /// Appends `offset: u64 BE | size: u32 BE`.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        codec::put_u64(out, self.offset);
        codec::put_u32(out, self.size);
    }

    /// Decodes a handle written by [`BlockHandle::encode_into`].
    ///
    /// # Errors
    /// A short read.
    pub fn decode(r: &mut Reader<'_>) -> std::result::Result<BlockHandle, DecodeError> {
        let offset = r.u64("block handle offset")?;
        let size = r.u32("block handle size")?;
        Ok(BlockHandle { offset, size })
    }
}

/// Appends the frame trailer (compression byte and CRC over `payload ‖ compression`) to `out`,
/// whose last `payload_len` bytes are the payload.
pub(crate) fn seal(out: &mut Vec<u8>, payload_start: usize, compression: u8) {
    out.push(compression);
    let crc = codec::crc32(out.get(payload_start..).unwrap_or_default());
    codec::put_u32(out, crc);
}

/// Reads, checksums and (if needed) decompresses the block at `h`. `limit` is the first file
/// offset the block may not reach (its region's end). `what` names the block kind for errors.
///
/// # Errors
/// [`Error::Corruption`] naming the block offset: out of range, CRC mismatch, unknown
/// compression, bad or oversized compressed data.
pub fn read_frame<'a>(
    file: &'a [u8],
    h: BlockHandle,
    limit: u64,
    path: &Path,
    what: &str,
) -> Result<Cow<'a, [u8]>> {
    let (start, end) = frame_range(h, limit, file.len() as u64, path, what)?;
    let frame = file.get(start..end).ok_or_else(|| {
        Error::corruption(
            path,
            format!("{what} at offset {}: block out of range", h.offset),
        )
    })?;
    check_frame(frame, h, path, what)
}

/// The byte range `start..end` of the frame `h` points at (payload, compression byte, CRC),
/// checked to lie below `limit` and inside a file of `file_len` bytes.
///
/// # Errors
/// [`Error::Corruption`] naming `what` and the frame's offset.
pub fn frame_range(
    h: BlockHandle,
    limit: u64,
    file_len: u64,
    path: &Path,
    what: &str,
) -> Result<(usize, usize)> {
    let end = h
        .offset
        .checked_add(u64::from(h.size) + FRAME_TRAILER_LEN as u64)
        .filter(|&e| e <= limit && e <= file_len)
        .ok_or_else(|| {
            Error::corruption(
                path,
                format!(
                    "{what} at offset {}: block of {} bytes exceeds its region ending at {limit}",
                    h.offset, h.size
                ),
            )
        })?;
    // Both bounds were checked against the file's length, which fits in memory.
    Ok((h.offset as usize, end as usize))
}

/// Checks one frame's bytes (`frame_range`'s range, read into `frame`) and returns its payload
/// (decompressed when compressed).
///
/// # Errors
/// [`Error::Corruption`] for a bad checksum, compression code or compressed data.
pub fn check_frame<'a>(
    frame: &'a [u8],
    h: BlockHandle,
    path: &Path,
    what: &str,
) -> Result<Cow<'a, [u8]>> {
    let bad = |detail: String| {
        Error::corruption(path, format!("{what} at offset {}: {detail}", h.offset))
    };
    let body_len = h.size as usize;
    let (body, tail) = frame
        .split_at_checked(body_len + 1)
        .ok_or_else(|| bad("short block".into()))?;
    let mut r = Reader::new(tail);
    let stored = r
        .u32("crc")
        .map_err(|e| e.into_corruption(path, h.offset + body_len as u64 + 1))?;
    let actual = codec::crc32(body);
    if stored != actual {
        return Err(bad(format!(
            "checksum mismatch (stored {stored:#010x}, computed {actual:#010x})"
        )));
    }
    let (&compression, payload) = body.split_last().ok_or_else(|| bad("short block".into()))?;
    if compression == COMPRESSION_NONE {
        return Ok(Cow::Borrowed(payload));
    }
    super::compress::decompress(compression, payload)
        .map(Cow::Owned)
        .map_err(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_round_trip_and_checks() {
        let mut f = b"xx".to_vec();
        let start = f.len();
        f.extend_from_slice(b"hello");
        seal(&mut f, start, COMPRESSION_NONE);
        let h = BlockHandle { offset: 2, size: 5 };
        let p = Path::new("t");
        assert_eq!(
            &*read_frame(&f, h, f.len() as u64, p, "b").unwrap(),
            b"hello"
        );
        assert!(read_frame(&f, h, f.len() as u64 - 1, p, "b").is_err());
        let mut bad = f.clone();
        bad[3] ^= 1;
        let e = read_frame(&bad, h, f.len() as u64, p, "b")
            .unwrap_err()
            .to_string();
        assert!(e.contains("offset 2"), "{e}");
        let huge = BlockHandle {
            offset: u64::MAX - 2,
            size: u32::MAX,
        };
        assert!(read_frame(&f, huge, u64::MAX, p, "b").is_err());
    }
}
