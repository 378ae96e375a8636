//! Thrift's wire vocabulary, shared by the decoder and the encoder: type codes, message types,
//! the dynamic [`Value`] tree, message headers, decoding errors and the decoder's limits.
use std::fmt;

/// Thrift type code of a struct field's stop marker.
pub const T_STOP: u8 = 0;
/// Thrift type code: bool.
pub const T_BOOL: u8 = 2;
/// Thrift type code: byte (i8).
pub const T_BYTE: u8 = 3;
/// Thrift type code: double.
pub const T_DOUBLE: u8 = 4;
/// Thrift type code: i16.
pub const T_I16: u8 = 6;
/// Thrift type code: i32.
pub const T_I32: u8 = 8;
/// Thrift type code: i64.
pub const T_I64: u8 = 10;
/// Thrift type code: string / binary.
pub const T_STRING: u8 = 11;
/// Thrift type code: struct.
pub const T_STRUCT: u8 = 12;
/// Thrift type code: map.
pub const T_MAP: u8 = 13;
/// Thrift type code: set.
pub const T_SET: u8 = 14;
/// Thrift type code: list.
pub const T_LIST: u8 = 15;

/// Message type: a call.
pub const MSG_CALL: u8 = 1;
/// Message type: a reply.
pub const MSG_REPLY: u8 = 2;
/// Message type: an exception (a `TApplicationException` follows).
pub const MSG_EXCEPTION: u8 = 3;
/// Message type: a one-way call.
pub const MSG_ONEWAY: u8 = 4;

pub(super) const BINARY_VERSION_1: u32 = 0x8001_0000;
pub(super) const COMPACT_PROTOCOL_ID: u8 = 0x82;
pub(super) const COMPACT_VERSION: u8 = 1;

/// One decoded Thrift value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// bool
    Bool(bool),
    /// byte (i8)
    Byte(i8),
    /// i16
    I16(i16),
    /// i32
    I32(i32),
    /// i64
    I64(i64),
    /// double
    Double(f64),
    /// string or binary (raw bytes)
    Binary(Vec<u8>),
    /// A struct: (field id, value) in wire order.
    Struct(Vec<(i16, Value)>),
    /// A list with its element type code.
    List(u8, Vec<Value>),
    /// A set with its element type code.
    Set(u8, Vec<Value>),
    /// A map with its key and value type codes.
    Map(u8, u8, Vec<(Value, Value)>),
}

impl Value {
    /// The (binary-protocol) type code of this value.
    pub fn ttype(&self) -> u8 {
        match self {
            Value::Bool(_) => T_BOOL,
            Value::Byte(_) => T_BYTE,
            Value::I16(_) => T_I16,
            Value::I32(_) => T_I32,
            Value::I64(_) => T_I64,
            Value::Double(_) => T_DOUBLE,
            Value::Binary(_) => T_STRING,
            Value::Struct(_) => T_STRUCT,
            Value::List(..) => T_LIST,
            Value::Set(..) => T_SET,
            Value::Map(..) => T_MAP,
        }
    }

    /// A binary value from bytes.
    pub fn bin(b: impl AsRef<[u8]>) -> Value {
        Value::Binary(b.as_ref().to_vec())
    }

    /// A list of binary values.
    pub fn bin_list<I: IntoIterator<Item = B>, B: AsRef<[u8]>>(items: I) -> Value {
        Value::List(T_STRING, items.into_iter().map(Value::bin).collect())
    }
}

/// Which Thrift protocol a connection speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// TBinaryProtocol (strict on write; strict or old-style on read).
    Binary,
    /// TCompactProtocol.
    Compact,
}

/// A message header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageHeader {
    /// Method name.
    pub name: String,
    /// Message type (`MSG_*`).
    pub mtype: u8,
    /// Sequence id, echoed in the reply.
    pub seqid: i32,
}

/// Why decoding failed.
#[derive(Debug)]
pub enum ProtoError {
    /// The stream ended cleanly before the first byte of a message.
    Eof,
    /// An I/O error (including a stream that ended inside a message).
    Io(std::io::Error),
    /// The bytes are not a valid message.
    Invalid(String),
    /// A length, count, depth or the message itself exceeds a limit.
    TooLarge(String),
}

impl fmt::Display for ProtoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtoError::Eof => write!(f, "end of stream"),
            ProtoError::Io(e) => write!(f, "I/O error: {e}"),
            ProtoError::Invalid(m) => write!(f, "invalid message: {m}"),
            ProtoError::TooLarge(m) => write!(f, "limit exceeded: {m}"),
        }
    }
}

impl std::error::Error for ProtoError {}

/// Decoder limits.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Maximum bytes of one message (header and body).
    pub max_message: usize,
    /// Maximum nesting depth of structs and containers.
    pub max_depth: usize,
    /// Maximum number of values decoded in one message.
    pub max_values: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message: 64 << 20,
            max_depth: 64,
            // A 1,000-row mutateRows of 10 columns is ~50,000 values; decoded values take
            // ~64 bytes each, so this bounds one message's tree at ~64 MiB.
            max_values: 1_000_000,
        }
    }
}

/// The binary protocol's type code of a compact one.
pub(super) fn compact_to_ttype(ct: u8) -> Result<u8, ProtoError> {
    Ok(match ct {
        1 | 2 => T_BOOL,
        3 => T_BYTE,
        4 => T_I16,
        5 => T_I32,
        6 => T_I64,
        7 => T_DOUBLE,
        8 => T_STRING,
        9 => T_LIST,
        10 => T_SET,
        11 => T_MAP,
        12 => T_STRUCT,
        _ => return Err(ProtoError::Invalid(format!("unknown compact type {ct}"))),
    })
}

/// The compact protocol's type code of a binary one (bools as `true`).
pub(super) fn ttype_to_compact(t: u8) -> u8 {
    match t {
        T_BOOL => 1,
        T_BYTE => 3,
        T_I16 => 4,
        T_I32 => 5,
        T_I64 => 6,
        T_DOUBLE => 7,
        T_STRING => 8,
        T_LIST => 9,
        T_SET => 10,
        T_MAP => 11,
        _ => 12,
    }
}
