//! The cell payload: what is stored next to a key in the memstore, block files and the WAL.
//!
//! ```text
//! flags: u8 | [cell_ttl_ms: u64 if flags & 1] | value
//! ```
//!
//! `cell_ttl_ms` is the per-cell TTL of [TTL-3] (HBase keeps it in a tag).

use crate::base::codec;

const FLAG_TTL: u8 = 1;

/// Encodes a payload.
#[cfg(any(test, feature = "testing"))]
pub fn encode(ttl_ms: Option<u64>, value: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + 8 + value.len());
    encode_into(&mut out, ttl_ms, value);
    out
}

/// Appends a payload to `out`.
pub fn encode_into(out: &mut Vec<u8>, ttl_ms: Option<u64>, value: &[u8]) {
    match ttl_ms {
        Some(t) => {
            out.push(FLAG_TTL);
            codec::put_u64(out, t);
        }
        None => out.push(0),
    }
    out.extend_from_slice(value);
}

/// Length of [`encode_into`]'s output for a value of `value_len` bytes.
pub fn encoded_len(ttl_ms: Option<u64>, value_len: usize) -> usize {
    1 + if ttl_ms.is_some() { 8 } else { 0 } + value_len
}

/// A decoded payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PayloadRef<'a> {
    /// Per-cell TTL in milliseconds.
    pub ttl_ms: Option<u64>,
    /// The value bytes.
    pub value: &'a [u8],
}

impl<'a> PayloadRef<'a> {
    /// Decodes a payload; `None` when malformed (unknown flags or short).
    #[inline]
    pub fn parse(b: &'a [u8]) -> Option<PayloadRef<'a>> {
        let (&flags, rest) = b.split_first()?;
        match flags {
            0 => Some(PayloadRef {
                ttl_ms: None,
                value: rest,
            }),
            FLAG_TTL => {
                let t = rest.get(..8)?;
                let mut a = [0u8; 8];
                a.copy_from_slice(t);
                Some(PayloadRef {
                    ttl_ms: Some(u64::from_be_bytes(a)),
                    value: &rest[8..],
                })
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_len_matches_encode() {
        for ttl in [None, Some(0), Some(500)] {
            for v in [&b""[..], b"v", &[7u8; 300]] {
                assert_eq!(encoded_len(ttl, v.len()), encode(ttl, v).len());
            }
        }
    }

    #[test]
    fn round_trip() {
        let p = encode(Some(500), b"v");
        assert_eq!(
            PayloadRef::parse(&p),
            Some(PayloadRef {
                ttl_ms: Some(500),
                value: b"v"
            })
        );
        let p = encode(None, b"");
        assert_eq!(
            PayloadRef::parse(&p),
            Some(PayloadRef {
                ttl_ms: None,
                value: b""
            })
        );
        assert_eq!(PayloadRef::parse(&[]), None);
        assert_eq!(PayloadRef::parse(&[1, 0]), None);
        assert_eq!(PayloadRef::parse(&[7]), None);
    }
}
