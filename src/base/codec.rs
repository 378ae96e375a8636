//! Byte encoding helpers: big-endian fixed-width integers, LEB128 varints, a bounds-checked
//! reader and the one CRC32 used everywhere. Decoders built on [`Reader`] never panic and never
//! index out of bounds: every short read is a [`DecodeError`].

use crate::base::error::Error;
use std::path::Path;

/// A decoding failure: what was being read and at which offset of the buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// What was being decoded.
    pub what: &'static str,
    /// Offset within the buffer being decoded.
    pub offset: usize,
}

impl DecodeError {
    /// Converts to [`Error::Corruption`] for `path`, shifting the offset by `base` (the buffer's
    /// position in the file).
    pub fn into_corruption(self, path: &Path, base: u64) -> Error {
        Error::corruption(
            path,
            format!("{} at offset {}", self.what, base + self.offset as u64),
        )
    }
}

/// CRC32 (IEEE, as computed by crc32fast) of `data`.
pub fn crc32(data: &[u8]) -> u32 {
    crc32fast::hash(data)
}

/// CRC32 of the concatenation of `parts`.
pub fn crc32_parts(parts: &[&[u8]]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    for p in parts {
        h.update(p);
    }
    h.finalize()
}

/// Appends a LEB128 varint.
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends a varint length followed by the bytes.
pub fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Appends a big-endian u16.
pub fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_be_bytes());
}

/// Appends a big-endian u32.
pub fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_be_bytes());
}

/// Appends a big-endian u64.
pub fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_be_bytes());
}

/// Appends a big-endian i64.
pub fn put_i64(out: &mut Vec<u8>, v: i64) {
    out.extend_from_slice(&v.to_be_bytes());
}

/// A bounds-checked cursor over a byte slice.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// Current offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// True when nothing is left.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    fn err(&self, what: &'static str) -> DecodeError {
        DecodeError {
            what,
            offset: self.pos,
        }
    }

    /// Takes the next `n` bytes.
    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], DecodeError> {
        let end = self.pos.checked_add(n).ok_or_else(|| self.err(what))?;
        let s = self.buf.get(self.pos..end).ok_or_else(|| self.err(what))?;
        self.pos = end;
        Ok(s)
    }

    /// Reads one byte.
    pub fn u8(&mut self, what: &'static str) -> Result<u8, DecodeError> {
        Ok(self.take(1, what)?[0])
    }

    /// Reads a big-endian u16.
    pub fn u16(&mut self, what: &'static str) -> Result<u16, DecodeError> {
        let b = self.take(2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    /// Reads a big-endian u32.
    pub fn u32(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        let mut a = [0u8; 4];
        a.copy_from_slice(self.take(4, what)?);
        Ok(u32::from_be_bytes(a))
    }

    /// Reads a big-endian u64.
    pub fn u64(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8, what)?);
        Ok(u64::from_be_bytes(a))
    }

    /// Reads a big-endian i64.
    pub fn i64(&mut self, what: &'static str) -> Result<i64, DecodeError> {
        Ok(self.u64(what)? as i64)
    }

    /// Reads a LEB128 varint (at most 10 bytes).
    pub fn varint(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        let mut v: u64 = 0;
        for i in 0..10 {
            let b = self.u8(what)?;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.err(what))
    }

    /// Reads a varint that must fit in `usize` and be at most `max`; guards allocations driven
    /// by lengths read from disk.
    pub fn len(&mut self, max: usize, what: &'static str) -> Result<usize, DecodeError> {
        let v = self.varint(what)?;
        if v > max as u64 {
            return Err(self.err(what));
        }
        Ok(v as usize)
    }

    /// Reads a varint length followed by that many bytes.
    pub fn bytes(&mut self, what: &'static str) -> Result<&'a [u8], DecodeError> {
        let n = self.len(self.remaining(), what)?;
        self.take(n, what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_round_trips_edges() {
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            let mut r = Reader::new(&b);
            assert_eq!(r.varint("v").unwrap(), v);
            assert!(r.is_empty());
        }
    }

    #[test]
    fn short_reads_are_errors_not_panics() {
        let mut r = Reader::new(&[1, 2, 3]);
        assert!(r.u32("x").is_err());
        assert!(r.take(usize::MAX, "x").is_err());
        let mut r = Reader::new(&[0xff; 11]);
        assert!(r.varint("x").is_err());
        let mut r = Reader::new(&[0x05, 1]);
        assert!(r.bytes("b").is_err());
    }
}
