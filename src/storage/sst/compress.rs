//! Block codecs: a block's payload compressed with its family's [`Compression`], and a stored
//! payload decompressed with its declared size checked against [`MAX_BLOCK_LEN`] before
//! anything is allocated.
//!
//! Stored payload by the frame's compression byte (docs/FORMAT.md, section 2, "Block framing"):
//!
//! ```text
//! 0 NONE    raw block
//! 1 SNAPPY  Snappy raw format (its header declares the raw length)
//! 2 GZ      raw_len: u32 BE | raw DEFLATE stream (RFC 1951, no zlib or gzip header)
//! 3 LZ4     raw_len: u32 BE | LZ4 block format
//! 4 ZSTD    raw_len: u32 BE | one Zstandard frame
//! ```
//!
//! The frame's CRC already covers the payload, so the codecs' own checksums (gzip's CRC, zlib's
//! Adler) are left out. A decoder writes into a buffer of exactly `raw_len` bytes and must fill
//! it exactly: a stream that would produce more or fewer bytes is corruption, and no input, however
//! hostile, makes a decoder allocate more than [`MAX_BLOCK_LEN`].

use super::frame::MAX_BLOCK_LEN;
use crate::model::schema::Compression;
use std::cell::RefCell;

/// DEFLATE level of GZ blocks (zlib's default, which HBase's GZ codec uses too).
const GZ_LEVEL: u32 = 6;
/// Zstandard level of ZSTD blocks (HBase's default, `hbase.io.compress.zstd.level`).
const ZSTD_LEVEL: i32 = 3;
/// Bytes of the `raw_len` prefix of GZ, LZ4 and ZSTD payloads.
const RAW_LEN_PREFIX: usize = 4;

thread_local! {
    /// A thread's Zstandard decompression context, made on first use (a context per block
    /// would allocate and free one on every block-cache miss).
    static ZSTD_DCTX: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { RefCell::new(None) };
}

/// The compression state one writer reuses across its blocks.
#[derive(Default)]
pub(crate) struct BlockCompressor {
    snappy: Option<snap::raw::Encoder>,
    deflate: Option<flate2::Compress>,
    zstd: Option<zstd::bulk::Compressor<'static>>,
}

impl std::fmt::Debug for BlockCompressor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BlockCompressor")
    }
}

impl BlockCompressor {
    /// Compresses `raw` with `codec` into `out` (cleared first) and returns the frame's
    /// compression byte, or `None` when the block is to be stored as it is: no codec, a block
    /// over [`MAX_BLOCK_LEN`] (readers would refuse to decompress it), or a compressed payload
    /// that is not strictly smaller than `raw`.
    pub(crate) fn compress(
        &mut self,
        codec: Compression,
        raw: &[u8],
        out: &mut Vec<u8>,
    ) -> Option<u8> {
        out.clear();
        if codec == Compression::None || raw.len() > MAX_BLOCK_LEN {
            return None;
        }
        // Room for a payload one byte shorter than the raw block: a codec that needs more
        // fails (or is cut off) and the block is stored raw.
        let room = raw.len().checked_sub(1)?;
        let n = match codec {
            Compression::None => return None,
            Compression::Snappy => {
                out.resize(snap::raw::max_compress_len(raw.len()), 0);
                let enc = self.snappy.get_or_insert_with(snap::raw::Encoder::new);
                enc.compress(raw, out).ok()?
            }
            Compression::Gz => {
                let room = room.checked_sub(RAW_LEN_PREFIX)?;
                put_raw_len(out, raw.len());
                out.reserve_exact(room);
                let d = self.deflate.get_or_insert_with(|| {
                    flate2::Compress::new(flate2::Compression::new(GZ_LEVEL), false)
                });
                d.reset();
                let status = d
                    .compress_vec(raw, out, flate2::FlushCompress::Finish)
                    .ok()?;
                // Only a finished stream within the room counts (`compress_vec` never grows
                // `out` past its capacity).
                if status != flate2::Status::StreamEnd || out.len() > RAW_LEN_PREFIX + room {
                    return None;
                }
                out.len()
            }
            Compression::Lz4 => {
                // lz4_flex wants room for its worst case up front.
                put_raw_len(out, raw.len());
                out.resize(
                    RAW_LEN_PREFIX + lz4_flex::block::get_maximum_output_size(raw.len()),
                    0,
                );
                let body = out.get_mut(RAW_LEN_PREFIX..)?;
                RAW_LEN_PREFIX + lz4_flex::block::compress_into(raw, body).ok()?
            }
            Compression::Zstd => {
                let room = room.checked_sub(RAW_LEN_PREFIX)?;
                put_raw_len(out, raw.len());
                out.resize(RAW_LEN_PREFIX + room, 0);
                if self.zstd.is_none() {
                    self.zstd = Some(zstd::bulk::Compressor::new(ZSTD_LEVEL).ok()?);
                }
                let z = self.zstd.as_mut()?;
                let body = out.get_mut(RAW_LEN_PREFIX..)?;
                RAW_LEN_PREFIX + z.compress_to_buffer(raw, body).ok()?
            }
        };
        if n >= raw.len() {
            return None;
        }
        out.truncate(n);
        Some(codec.code())
    }
}

fn put_raw_len(out: &mut Vec<u8>, n: usize) {
    // The caller checked `n <= MAX_BLOCK_LEN`, which fits in a u32.
    out.extend_from_slice(&(n as u32).to_be_bytes());
}

/// Decompresses a stored payload written with frame compression byte `code` (not 0).
///
/// # Errors
/// A description of what is wrong (the caller names the file and the block's offset): an
/// unknown code, a declared length over [`MAX_BLOCK_LEN`], or compressed data that does not
/// decode to exactly the declared length.
pub(crate) fn decompress(code: u8, payload: &[u8]) -> Result<Vec<u8>, String> {
    let codec = Compression::from_code(code)
        .filter(|c| *c != Compression::None)
        .ok_or_else(|| format!("unknown compression code {code}"))?;
    let name = codec.hbase_name();
    let (n, body) = match codec {
        Compression::Snappy => (
            snap::raw::decompress_len(payload).map_err(|e| format!("bad SNAPPY header: {e}"))?,
            payload,
        ),
        _ => {
            let (len, body) = payload
                .split_first_chunk::<RAW_LEN_PREFIX>()
                .ok_or_else(|| format!("{name} payload shorter than its length prefix"))?;
            (u32::from_be_bytes(*len) as usize, body)
        }
    };
    // Checked before the buffer is allocated: a hostile length allocates nothing.
    if n > MAX_BLOCK_LEN {
        return Err(format!(
            "{name} block declares a decompressed length of {n} bytes, over the limit of \
             {MAX_BLOCK_LEN}"
        ));
    }
    let mut out = vec![0u8; n];
    let got = match codec {
        Compression::None => 0,
        Compression::Snappy => snap::raw::Decoder::new()
            .decompress(body, &mut out)
            .map_err(|e| format!("bad SNAPPY data: {e}"))?,
        Compression::Gz => {
            let mut d = flate2::Decompress::new(false);
            let status = d
                .decompress(body, &mut out, flate2::FlushDecompress::Finish)
                .map_err(|e| format!("bad GZ data: {e}"))?;
            if status != flate2::Status::StreamEnd || d.total_in() != body.len() as u64 {
                return Err(format!(
                    "bad GZ data: the stream does not end after {n} bytes where its payload \
                     ends"
                ));
            }
            d.total_out() as usize
        }
        Compression::Lz4 => lz4_flex::block::decompress_into(body, &mut out)
            .map_err(|e| format!("bad LZ4 data: {e}"))?,
        Compression::Zstd => ZSTD_DCTX.with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.is_none() {
                *slot = Some(
                    zstd::bulk::Decompressor::new()
                        .map_err(|e| format!("cannot make a ZSTD context: {e}"))?,
                );
            }
            let Some(d) = slot.as_mut() else {
                return Err("cannot make a ZSTD context".to_string());
            };
            d.decompress_to_buffer(body, &mut out[..])
                .map_err(|e| format!("bad ZSTD data: {e}"))
        })?,
    };
    if got != n {
        return Err(format!(
            "{name} data decompressed to {got} bytes, its header said {n}"
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compressible(n: usize) -> Vec<u8> {
        (0..n).map(|i| b"cellbase-row-"[i % 13]).collect()
    }

    /// docs/FORMAT.md, section 2, "Block framing": the codes and names of the table there.
    #[test]
    fn codes_are_the_documented_ones() {
        let documented = [
            (0, "NONE"),
            (1, "SNAPPY"),
            (2, "GZ"),
            (3, "LZ4"),
            (4, "ZSTD"),
        ];
        for (c, (code, name)) in Compression::ALL.into_iter().zip(documented) {
            assert_eq!((c.code(), c.hbase_name()), (code, name));
            assert_eq!(Compression::from_code(code), Some(c));
        }
        assert_eq!(Compression::from_code(5), None);
        assert_eq!(
            super::super::frame::COMPRESSION_NONE,
            Compression::None.code()
        );
    }

    #[test]
    fn every_codec_round_trips_and_records_its_code() {
        let mut c = BlockCompressor::default();
        let mut out = Vec::new();
        for codec in Compression::ALL {
            for n in [0, 1, 5, 100, 4096, 70_000] {
                let raw = compressible(n);
                match c.compress(codec, &raw, &mut out) {
                    Some(code) => {
                        assert_eq!(code, codec.code());
                        assert!(out.len() < raw.len(), "{codec:?} {n}");
                        assert_eq!(decompress(code, &out).unwrap(), raw, "{codec:?} {n}");
                    }
                    None => assert!(
                        codec == Compression::None || n < 100,
                        "{codec:?} did not shrink {n} compressible bytes"
                    ),
                }
            }
        }
    }

    #[test]
    fn incompressible_blocks_are_stored_raw() {
        let mut c = BlockCompressor::default();
        let mut out = Vec::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let raw: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        for codec in Compression::ALL {
            assert_eq!(c.compress(codec, &raw, &mut out), None, "{codec:?}");
        }
    }

    /// A hostile declared length is refused before any allocation; a length that disagrees
    /// with the data is refused after decoding into a buffer of exactly that length.
    #[test]
    fn declared_lengths_are_bounded_and_exact() {
        let mut c = BlockCompressor::default();
        let mut out = Vec::new();
        let raw = compressible(10_000);
        for codec in [Compression::Gz, Compression::Lz4, Compression::Zstd] {
            let code = c.compress(codec, &raw, &mut out).unwrap();
            let mut huge = out.clone();
            huge[..4].copy_from_slice(&u32::MAX.to_be_bytes());
            let e = decompress(code, &huge).unwrap_err();
            assert!(e.contains("over the limit"), "{codec:?}: {e}");
            for wrong in [9_999u32, 10_001] {
                let mut w = out.clone();
                w[..4].copy_from_slice(&wrong.to_be_bytes());
                assert!(decompress(code, &w).is_err(), "{codec:?} {wrong}");
            }
            assert!(decompress(code, &out[..3]).is_err());
            assert!(
                decompress(code, &out[..out.len() - 1]).is_err(),
                "{codec:?}"
            );
        }
        // Snappy's own header: a varint of 2^32 - 1.
        let e = decompress(1, &[0xff, 0xff, 0xff, 0xff, 0x0f]).unwrap_err();
        assert!(e.contains("over the limit"), "{e}");
        assert!(decompress(0, b"x").is_err() && decompress(9, b"x").is_err());
    }

    /// Damaged compressed data (the frame CRC is bypassed here) gives an error, never a panic.
    #[test]
    fn damaged_compressed_data_never_panics() {
        let mut c = BlockCompressor::default();
        let mut out = Vec::new();
        let raw = compressible(3000);
        for codec in [
            Compression::Snappy,
            Compression::Gz,
            Compression::Lz4,
            Compression::Zstd,
        ] {
            let code = c.compress(codec, &raw, &mut out).unwrap();
            for i in 0..out.len() {
                for bit in [0x01, 0x80] {
                    let mut b = out.clone();
                    b[i] ^= bit;
                    // A flip inside a literal can decode to other bytes of the same length
                    // (the frame CRC catches it in a file); anything else is an error.
                    if let Ok(v) = decompress(code, &b) {
                        assert_eq!(v.len(), raw.len(), "{codec:?} flip at {i}");
                    }
                }
            }
        }
    }
}
