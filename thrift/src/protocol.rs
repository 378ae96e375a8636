//! Thrift binary (strict and old non-strict) and compact protocols, decoded into a small
//! dynamic [`Value`] tree and encoded from one.
//!
//! The reader is length-checked: every read is charged against a per-message byte budget, so a
//! lying length prefix fails with [`ProtoError::TooLarge`] before anything of that size is
//! allocated; container counts are checked against the remaining budget, nesting depth and the
//! number of decoded values are capped. Strings are read incrementally, never preallocated from
//! a length the peer sent.
//!
//! The wire vocabulary lives in `wire.rs` and the encoder in `encode.rs`; both are re-exported
//! here, so this module is the codec's one public face.
pub use super::encode::{Writer, encode_message};
use super::memory::{Reservation, VALUE_BYTES};
use super::wire::{BINARY_VERSION_1, COMPACT_PROTOCOL_ID, COMPACT_VERSION, compact_to_ttype};
pub use super::wire::{
    Limits, MSG_CALL, MSG_EXCEPTION, MSG_ONEWAY, MSG_REPLY, MessageHeader, ProtoError, Protocol,
    T_BOOL, T_BYTE, T_DOUBLE, T_I16, T_I32, T_I64, T_LIST, T_MAP, T_SET, T_STOP, T_STRING,
    T_STRUCT, Value,
};
use std::io::Read;

/// A message decoder over any byte source.
pub struct Reader<R: Read> {
    r: R,
    proto: Protocol,
    budget: usize,
    values: usize,
    limits: Limits,
    started: bool,
    meter: Reservation,
}

impl<R: Read> Reader<R> {
    /// A reader for one message: at most `budget` bytes (and `limits.max_message`) are read.
    pub fn new(r: R, proto: Protocol, budget: usize, limits: Limits) -> Self {
        Reader {
            r,
            proto,
            budget: budget.min(limits.max_message),
            values: 0,
            limits,
            started: false,
            meter: Reservation::unmetered(),
        }
    }

    /// Charges every string's bytes (before they are allocated) and [`VALUE_BYTES`] per
    /// decoded value to `meter` (the gateway's `--max-request-memory-mib` budget).
    pub fn metered(mut self, meter: Reservation) -> Self {
        self.meter = meter;
        self
    }

    /// The reservation charged so far (it holds the decoded message's bytes until dropped).
    pub fn into_meter(self) -> Reservation {
        self.meter
    }

    fn charge(&mut self, n: usize) -> Result<(), ProtoError> {
        if n > self.budget {
            return Err(ProtoError::TooLarge(format!(
                "{n} more bytes needed but only {} left in the message budget",
                self.budget
            )));
        }
        self.budget -= n;
        Ok(())
    }

    fn fixed<const N: usize>(&mut self) -> Result<[u8; N], ProtoError> {
        let mut b = [0u8; N];
        if !self.started {
            // Distinguish a clean close between messages from a truncated message.
            let n = loop {
                match self.r.read(&mut b) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(ProtoError::Io(e)),
                }
            };
            if n == 0 {
                return Err(ProtoError::Eof);
            }
            self.started = true;
            self.charge(N)?;
            self.r.read_exact(&mut b[n..]).map_err(ProtoError::Io)?;
            return Ok(b);
        }
        self.charge(N)?;
        self.r.read_exact(&mut b).map_err(ProtoError::Io)?;
        Ok(b)
    }

    fn u8(&mut self) -> Result<u8, ProtoError> {
        Ok(self.fixed::<1>()?[0])
    }

    fn bytes(&mut self, n: usize) -> Result<Vec<u8>, ProtoError> {
        self.charge(n)?;
        self.meter.charge(n)?;
        let mut v = Vec::with_capacity(n.min(64 * 1024));
        (&mut self.r)
            .take(n as u64)
            .read_to_end(&mut v)
            .map_err(ProtoError::Io)?;
        if v.len() != n {
            return Err(ProtoError::Io(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "stream ended inside a string",
            )));
        }
        Ok(v)
    }

    fn varint(&mut self) -> Result<u64, ProtoError> {
        let mut out: u64 = 0;
        for i in 0..10 {
            let b = self.u8()?;
            out |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(out);
            }
        }
        Err(ProtoError::Invalid("varint longer than 10 bytes".into()))
    }

    fn zigzag64(&mut self) -> Result<i64, ProtoError> {
        let u = self.varint()?;
        Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
    }

    fn zigzag32(&mut self) -> Result<i32, ProtoError> {
        let v = self.zigzag64()?;
        i32::try_from(v).map_err(|_| ProtoError::Invalid(format!("i32 out of range: {v}")))
    }

    fn length(&mut self, what: &str) -> Result<usize, ProtoError> {
        let n: i64 = match self.proto {
            Protocol::Binary => i64::from(i32::from_be_bytes(self.fixed()?)),
            Protocol::Compact => {
                let u = self.varint()?;
                i64::try_from(u).unwrap_or(i64::MAX)
            }
        };
        if n < 0 {
            return Err(ProtoError::Invalid(format!("negative {what} length {n}")));
        }
        if n as u64 > self.budget as u64 {
            return Err(ProtoError::TooLarge(format!(
                "{what} length {n} exceeds the {} bytes left in the message",
                self.budget
            )));
        }
        Ok(n as usize)
    }

    /// Reads a message header. A stream that ends before its first byte gives [`ProtoError::Eof`].
    pub fn read_message_header(&mut self) -> Result<MessageHeader, ProtoError> {
        match self.proto {
            Protocol::Binary => {
                let sz = i32::from_be_bytes(self.fixed()?);
                if sz < 0 {
                    let v = sz as u32;
                    if v & 0xffff_0000 != BINARY_VERSION_1 {
                        return Err(ProtoError::Invalid(format!(
                            "bad binary protocol version {:#x}",
                            v & 0xffff_0000
                        )));
                    }
                    let mtype = (v & 0xff) as u8;
                    let name = self.name(None)?;
                    let seqid = i32::from_be_bytes(self.fixed()?);
                    Ok(MessageHeader { name, mtype, seqid })
                } else {
                    // Old non-strict form: name length, name, type byte, seqid.
                    let name = self.name(Some(sz as usize))?;
                    let mtype = self.u8()?;
                    let seqid = i32::from_be_bytes(self.fixed()?);
                    Ok(MessageHeader { name, mtype, seqid })
                }
            }
            Protocol::Compact => {
                let id = self.u8()?;
                if id != COMPACT_PROTOCOL_ID {
                    return Err(ProtoError::Invalid(format!(
                        "bad compact protocol id {id:#x}"
                    )));
                }
                let tv = self.u8()?;
                if tv & 0x1f != COMPACT_VERSION {
                    return Err(ProtoError::Invalid(format!(
                        "bad compact protocol version {}",
                        tv & 0x1f
                    )));
                }
                let mtype = tv >> 5;
                let seqid = self.varint()? as u32 as i32;
                let name = self.name(None)?;
                Ok(MessageHeader { name, mtype, seqid })
            }
        }
    }

    fn name(&mut self, known_len: Option<usize>) -> Result<String, ProtoError> {
        let n = match known_len {
            Some(n) => n,
            None => self.length("method name")?,
        };
        if n > 4096 {
            return Err(ProtoError::TooLarge(format!("method name of {n} bytes")));
        }
        let b = self.bytes(n)?;
        String::from_utf8(b).map_err(|_| ProtoError::Invalid("method name is not UTF-8".into()))
    }

    /// Reads a struct (the arguments of a call, or any struct).
    pub fn read_struct(&mut self) -> Result<Vec<(i16, Value)>, ProtoError> {
        self.struct_at(0)
    }

    fn count_value(&mut self) -> Result<(), ProtoError> {
        self.values += 1;
        if self.values > self.limits.max_values {
            return Err(ProtoError::TooLarge(format!(
                "more than {} values in one message",
                self.limits.max_values
            )));
        }
        self.meter.charge(VALUE_BYTES)
    }

    fn struct_at(&mut self, depth: usize) -> Result<Vec<(i16, Value)>, ProtoError> {
        if depth > self.limits.max_depth {
            return Err(ProtoError::TooLarge(format!(
                "nesting deeper than {}",
                self.limits.max_depth
            )));
        }
        let mut fields = Vec::new();
        let mut last_id: i16 = 0;
        loop {
            match self.proto {
                Protocol::Binary => {
                    let t = self.u8()?;
                    if t == T_STOP {
                        return Ok(fields);
                    }
                    let id = i16::from_be_bytes(self.fixed()?);
                    let v = self.value(t, depth + 1)?;
                    fields.push((id, v));
                }
                Protocol::Compact => {
                    let b = self.u8()?;
                    if b == 0 {
                        return Ok(fields);
                    }
                    let ct = b & 0x0f;
                    let delta = b >> 4;
                    let id = if delta == 0 {
                        let v = self.zigzag64()?;
                        i16::try_from(v)
                            .map_err(|_| ProtoError::Invalid(format!("field id {v}")))?
                    } else {
                        last_id.wrapping_add(i16::from(delta))
                    };
                    last_id = id;
                    let v = match ct {
                        1 | 2 => {
                            self.count_value()?;
                            Value::Bool(ct == 1)
                        }
                        _ => self.value(compact_to_ttype(ct)?, depth + 1)?,
                    };
                    fields.push((id, v));
                }
            }
        }
    }

    fn elem_type(&mut self, ct: u8) -> Result<u8, ProtoError> {
        match self.proto {
            Protocol::Binary => match ct {
                T_BOOL | T_BYTE | T_DOUBLE | T_I16 | T_I32 | T_I64 | T_STRING | T_STRUCT
                | T_MAP | T_SET | T_LIST => Ok(ct),
                _ => Err(ProtoError::Invalid(format!("unknown type code {ct}"))),
            },
            Protocol::Compact => compact_to_ttype(ct),
        }
    }

    fn check_count(&self, n: usize) -> Result<(), ProtoError> {
        // Every element takes at least one byte on the wire, except empty-struct-free types
        // never do less; a count above the bytes left cannot be honest.
        if n > self.budget {
            return Err(ProtoError::TooLarge(format!(
                "container of {n} elements with only {} bytes left",
                self.budget
            )));
        }
        Ok(())
    }

    fn value(&mut self, t: u8, depth: usize) -> Result<Value, ProtoError> {
        self.count_value()?;
        if depth > self.limits.max_depth {
            return Err(ProtoError::TooLarge(format!(
                "nesting deeper than {}",
                self.limits.max_depth
            )));
        }
        Ok(match t {
            T_BOOL => Value::Bool(match self.proto {
                Protocol::Binary => self.u8()? != 0,
                Protocol::Compact => self.u8()? == 1,
            }),
            T_BYTE => Value::Byte(self.u8()? as i8),
            T_I16 => Value::I16(match self.proto {
                Protocol::Binary => i16::from_be_bytes(self.fixed()?),
                Protocol::Compact => {
                    let v = self.zigzag64()?;
                    i16::try_from(v).map_err(|_| ProtoError::Invalid(format!("i16 {v}")))?
                }
            }),
            T_I32 => Value::I32(match self.proto {
                Protocol::Binary => i32::from_be_bytes(self.fixed()?),
                Protocol::Compact => self.zigzag32()?,
            }),
            T_I64 => Value::I64(match self.proto {
                Protocol::Binary => i64::from_be_bytes(self.fixed()?),
                Protocol::Compact => self.zigzag64()?,
            }),
            T_DOUBLE => Value::Double(match self.proto {
                Protocol::Binary => f64::from_bits(u64::from_be_bytes(self.fixed()?)),
                Protocol::Compact => f64::from_bits(u64::from_le_bytes(self.fixed()?)),
            }),
            T_STRING => {
                let n = self.length("string")?;
                Value::Binary(self.bytes(n)?)
            }
            T_STRUCT => Value::Struct(self.struct_at(depth)?),
            T_LIST | T_SET => {
                let (et, n) = match self.proto {
                    Protocol::Binary => {
                        let et = self.u8()?;
                        let n = i32::from_be_bytes(self.fixed()?);
                        if n < 0 {
                            return Err(ProtoError::Invalid(format!("negative list size {n}")));
                        }
                        (self.elem_type(et)?, n as usize)
                    }
                    Protocol::Compact => {
                        let b = self.u8()?;
                        let mut n = u64::from(b >> 4);
                        if n == 15 {
                            n = self.varint()?;
                        }
                        let n = usize::try_from(n).unwrap_or(usize::MAX);
                        (self.elem_type(b & 0x0f)?, n)
                    }
                };
                self.check_count(n)?;
                let mut items = Vec::with_capacity(n.min(1024));
                for _ in 0..n {
                    items.push(self.value(et, depth + 1)?);
                }
                if t == T_LIST {
                    Value::List(et, items)
                } else {
                    Value::Set(et, items)
                }
            }
            T_MAP => {
                let (kt, vt, n) = match self.proto {
                    Protocol::Binary => {
                        let kt = self.u8()?;
                        let vt = self.u8()?;
                        let n = i32::from_be_bytes(self.fixed()?);
                        if n < 0 {
                            return Err(ProtoError::Invalid(format!("negative map size {n}")));
                        }
                        let n = n as usize;
                        if n == 0 {
                            (kt, vt, 0)
                        } else {
                            (self.elem_type(kt)?, self.elem_type(vt)?, n)
                        }
                    }
                    Protocol::Compact => {
                        let n = usize::try_from(self.varint()?).unwrap_or(usize::MAX);
                        if n == 0 {
                            (T_STRING, T_STRING, 0)
                        } else {
                            self.check_count(n)?;
                            let kv = self.u8()?;
                            (self.elem_type(kv >> 4)?, self.elem_type(kv & 0x0f)?, n)
                        }
                    }
                };
                self.check_count(n)?;
                let mut entries = Vec::with_capacity(n.min(1024));
                for _ in 0..n {
                    let k = self.value(kt, depth + 1)?;
                    let v = self.value(vt, depth + 1)?;
                    entries.push((k, v));
                }
                Value::Map(kt, vt, entries)
            }
            other => return Err(ProtoError::Invalid(format!("unknown type code {other}"))),
        })
    }

    /// Bytes left in this message's budget.
    pub fn budget_left(&self) -> usize {
        self.budget
    }
}

/// Decodes a whole message held in `bytes`.
pub fn decode_message(
    proto: Protocol,
    bytes: &[u8],
) -> Result<(MessageHeader, Vec<(i16, Value)>), ProtoError> {
    let mut r = Reader::new(bytes, proto, bytes.len(), Limits::default());
    let h = r.read_message_header()?;
    let body = r.read_struct()?;
    Ok((h, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<(i16, Value)> {
        vec![
            (1, Value::bin("table")),
            (2, Value::Bool(true)),
            (3, Value::Bool(false)),
            (4, Value::Byte(-7)),
            (5, Value::I16(-300)),
            (6, Value::I32(i32::MIN)),
            (7, Value::I64(i64::MAX)),
            (8, Value::Double(-1.5)),
            (
                20,
                Value::List(
                    T_STRING,
                    (0..20).map(|i| Value::bin(format!("c{i}"))).collect(),
                ),
            ),
            (
                21,
                Value::List(T_BOOL, vec![Value::Bool(true), Value::Bool(false)]),
            ),
            (22, Value::Map(T_STRING, T_STRING, vec![])),
            (
                23,
                Value::Map(
                    T_STRING,
                    T_STRUCT,
                    vec![(
                        Value::bin("cf:a"),
                        Value::Struct(vec![(1, Value::bin("v")), (2, Value::I64(5))]),
                    )],
                ),
            ),
            (-3, Value::Set(T_I32, vec![Value::I32(1), Value::I32(-1)])),
            (300, Value::Struct(vec![])),
            (0, Value::List(T_STRUCT, vec![])),
        ]
    }

    #[test]
    fn round_trip_both_protocols() {
        for proto in [Protocol::Binary, Protocol::Compact] {
            let bytes = encode_message(proto, "mutateRows", MSG_CALL, 7, &sample());
            let (h, body) = decode_message(proto, &bytes).unwrap();
            assert_eq!(h.name, "mutateRows");
            assert_eq!(h.mtype, MSG_CALL);
            assert_eq!(h.seqid, 7);
            assert_eq!(body, sample(), "{proto:?}");
        }
    }

    #[test]
    fn golden_bytes_from_happybase() {
        // thrift-gateway.md §1.6: tables() in binary and compact.
        let mut bin = vec![0x80, 1, 0, 1, 0, 0, 0, 13];
        bin.extend_from_slice(b"getTableNames");
        bin.extend_from_slice(&[0, 0, 0, 0, 0]);
        assert_eq!(
            encode_message(Protocol::Binary, "getTableNames", MSG_CALL, 0, &[]),
            bin
        );
        let mut compact = vec![0x82, 0x21, 0, 13];
        compact.extend_from_slice(b"getTableNames");
        compact.push(0);
        assert_eq!(
            encode_message(Protocol::Compact, "getTableNames", MSG_CALL, 0, &[]),
            compact
        );
        // The reply to getTableNames ["t"] with seqid 7.
        let mut reply = vec![0x80, 1, 0, 2, 0, 0, 0, 13];
        reply.extend_from_slice(b"getTableNames");
        reply.extend_from_slice(&[0, 0, 0, 7]);
        reply.extend_from_slice(&[0x0f, 0, 0, 0x0b, 0, 0, 0, 1, 0, 0, 0, 1, b't', 0]);
        assert_eq!(
            encode_message(
                Protocol::Binary,
                "getTableNames",
                MSG_REPLY,
                7,
                &[(0, Value::bin_list(["t"]))]
            ),
            reply
        );
    }

    #[test]
    fn old_non_strict_header_is_accepted() {
        let mut b = vec![0, 0, 0, 3];
        b.extend_from_slice(b"abc");
        b.push(MSG_CALL);
        b.extend_from_slice(&[0, 0, 0, 9, 0]);
        let (h, body) = decode_message(Protocol::Binary, &b).unwrap();
        assert_eq!((h.name.as_str(), h.seqid), ("abc", 9));
        assert!(body.is_empty());
    }

    #[test]
    fn lying_lengths_are_rejected_without_allocating() {
        // A string claiming 2 GiB inside a 30-byte message.
        let mut b = encode_message(Protocol::Binary, "get", MSG_CALL, 0, &[]);
        b.pop();
        b.extend_from_slice(&[T_STRING, 0, 1, 0x7f, 0xff, 0xff, 0xff, b'x']);
        assert!(matches!(
            decode_message(Protocol::Binary, &b),
            Err(ProtoError::TooLarge(_))
        ));
        // A list claiming 1e9 elements.
        let mut b = encode_message(Protocol::Binary, "get", MSG_CALL, 0, &[]);
        b.pop();
        b.extend_from_slice(&[T_LIST, 0, 1, T_I64, 0x3b, 0x9a, 0xca, 0x00]);
        assert!(matches!(
            decode_message(Protocol::Binary, &b),
            Err(ProtoError::TooLarge(_))
        ));
        // Compact: a varint length far beyond the budget.
        let mut b = encode_message(Protocol::Compact, "get", MSG_CALL, 0, &[]);
        b.pop();
        b.extend_from_slice(&[0x18, 0xff, 0xff, 0xff, 0xff, 0x0f]);
        assert!(matches!(
            decode_message(Protocol::Compact, &b),
            Err(ProtoError::TooLarge(_))
        ));
    }

    #[test]
    fn deep_nesting_is_capped() {
        let mut b = encode_message(Protocol::Binary, "get", MSG_CALL, 0, &[]);
        b.pop();
        for _ in 0..200 {
            b.extend_from_slice(&[T_STRUCT, 0, 1]);
        }
        b.extend(std::iter::repeat_n(0u8, 201));
        assert!(matches!(
            decode_message(Protocol::Binary, &b),
            Err(ProtoError::TooLarge(_))
        ));
    }

    #[test]
    fn truncated_and_garbage_input_errors() {
        let full = encode_message(Protocol::Compact, "mutateRows", MSG_CALL, 3, &sample());
        for cut in 0..full.len() {
            assert!(
                decode_message(Protocol::Compact, &full[..cut]).is_err(),
                "cut {cut}"
            );
        }
        let full = encode_message(Protocol::Binary, "mutateRows", MSG_CALL, 3, &sample());
        for cut in 0..full.len() {
            assert!(
                decode_message(Protocol::Binary, &full[..cut]).is_err(),
                "cut {cut}"
            );
        }
        assert!(matches!(
            decode_message(Protocol::Binary, &[]),
            Err(ProtoError::Eof)
        ));
        // Seeded pseudo-random bytes never panic.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for len in 0..2000usize {
            let bytes: Vec<u8> = (0..len % 97)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            let _ = decode_message(Protocol::Binary, &bytes);
            let _ = decode_message(Protocol::Compact, &bytes);
        }
    }
}
