//! The message encoder: a [`Value`] tree into the binary (strict) or compact protocol.
use super::wire::{
    BINARY_VERSION_1, COMPACT_PROTOCOL_ID, COMPACT_VERSION, Protocol, T_STOP, Value,
    ttype_to_compact,
};

/// A message encoder into a byte buffer.
#[derive(Debug)]
pub struct Writer {
    proto: Protocol,
    /// The encoded bytes.
    pub buf: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub fn new(proto: Protocol) -> Self {
        Writer {
            proto,
            buf: Vec::with_capacity(256),
        }
    }

    fn varint(&mut self, mut v: u64) {
        loop {
            if v < 0x80 {
                self.buf.push(v as u8);
                return;
            }
            self.buf.push((v as u8 & 0x7f) | 0x80);
            v >>= 7;
        }
    }

    fn zigzag(&mut self, v: i64) {
        self.varint(((v << 1) ^ (v >> 63)) as u64);
    }

    fn len(&mut self, n: usize) {
        match self.proto {
            Protocol::Binary => self.buf.extend_from_slice(&(n as i32).to_be_bytes()),
            Protocol::Compact => self.varint(n as u64),
        }
    }

    /// Writes a (strict, for binary) message header.
    pub fn message_header(&mut self, name: &str, mtype: u8, seqid: i32) {
        match self.proto {
            Protocol::Binary => {
                self.buf
                    .extend_from_slice(&(BINARY_VERSION_1 | u32::from(mtype)).to_be_bytes());
                self.len(name.len());
                self.buf.extend_from_slice(name.as_bytes());
                self.buf.extend_from_slice(&seqid.to_be_bytes());
            }
            Protocol::Compact => {
                self.buf.push(COMPACT_PROTOCOL_ID);
                self.buf.push((mtype << 5) | COMPACT_VERSION);
                self.varint(u64::from(seqid as u32));
                self.len(name.len());
                self.buf.extend_from_slice(name.as_bytes());
            }
        }
    }

    /// Writes a struct's fields and its stop marker.
    pub fn write_struct(&mut self, fields: &[(i16, Value)]) {
        let mut last: i16 = 0;
        for (id, v) in fields {
            match self.proto {
                Protocol::Binary => {
                    self.buf.push(v.ttype());
                    self.buf.extend_from_slice(&id.to_be_bytes());
                    self.write_value(v);
                }
                Protocol::Compact => {
                    let ct = match v {
                        Value::Bool(true) => 1,
                        Value::Bool(false) => 2,
                        other => ttype_to_compact(other.ttype()),
                    };
                    let delta = i32::from(*id) - i32::from(last);
                    if (1..=15).contains(&delta) {
                        self.buf.push(((delta as u8) << 4) | ct);
                    } else {
                        self.buf.push(ct);
                        self.zigzag(i64::from(*id));
                    }
                    last = *id;
                    if !matches!(v, Value::Bool(_)) {
                        self.write_value(v);
                    }
                }
            }
        }
        self.buf.push(T_STOP);
    }

    /// Writes one value (as a container element or a field body).
    pub fn write_value(&mut self, v: &Value) {
        match (v, self.proto) {
            (Value::Bool(b), Protocol::Binary) => self.buf.push(u8::from(*b)),
            (Value::Bool(b), Protocol::Compact) => self.buf.push(if *b { 1 } else { 2 }),
            (Value::Byte(b), _) => self.buf.push(*b as u8),
            (Value::I16(x), Protocol::Binary) => self.buf.extend_from_slice(&x.to_be_bytes()),
            (Value::I32(x), Protocol::Binary) => self.buf.extend_from_slice(&x.to_be_bytes()),
            (Value::I64(x), Protocol::Binary) => self.buf.extend_from_slice(&x.to_be_bytes()),
            (Value::I16(x), Protocol::Compact) => self.zigzag(i64::from(*x)),
            (Value::I32(x), Protocol::Compact) => self.zigzag(i64::from(*x)),
            (Value::I64(x), Protocol::Compact) => self.zigzag(*x),
            (Value::Double(d), Protocol::Binary) => {
                self.buf.extend_from_slice(&d.to_bits().to_be_bytes())
            }
            (Value::Double(d), Protocol::Compact) => {
                self.buf.extend_from_slice(&d.to_bits().to_le_bytes())
            }
            (Value::Binary(b), _) => {
                self.len(b.len());
                self.buf.extend_from_slice(b);
            }
            (Value::Struct(f), _) => self.write_struct(f),
            (Value::List(et, items), p) | (Value::Set(et, items), p) => {
                match p {
                    Protocol::Binary => {
                        self.buf.push(*et);
                        self.buf
                            .extend_from_slice(&(items.len() as i32).to_be_bytes());
                    }
                    Protocol::Compact => {
                        let ct = ttype_to_compact(*et);
                        if items.len() < 15 {
                            self.buf.push(((items.len() as u8) << 4) | ct);
                        } else {
                            self.buf.push(0xf0 | ct);
                            self.varint(items.len() as u64);
                        }
                    }
                }
                for i in items {
                    self.write_value(i);
                }
            }
            (Value::Map(kt, vt, entries), p) => {
                match p {
                    Protocol::Binary => {
                        self.buf.push(*kt);
                        self.buf.push(*vt);
                        self.buf
                            .extend_from_slice(&(entries.len() as i32).to_be_bytes());
                    }
                    Protocol::Compact => {
                        if entries.is_empty() {
                            self.buf.push(0);
                        } else {
                            self.varint(entries.len() as u64);
                            self.buf
                                .push((ttype_to_compact(*kt) << 4) | ttype_to_compact(*vt));
                        }
                    }
                }
                for (k, v) in entries {
                    self.write_value(k);
                    self.write_value(v);
                }
            }
        }
    }
}

/// Encodes a whole message: header plus body struct.
pub fn encode_message(
    proto: Protocol,
    name: &str,
    mtype: u8,
    seqid: i32,
    body: &[(i16, Value)],
) -> Vec<u8> {
    let mut w = Writer::new(proto);
    w.message_header(name, mtype, seqid);
    w.write_struct(body);
    w.buf
}
