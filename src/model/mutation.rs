//! A cell about to be written ([`NewCell`]) and the limits every written cell is checked
//! against: row length [LIM-1], timestamps [TS-2], families [LIM-6], cell size [LIM-5].

use crate::base::error::{Error, Result};
use crate::model::key::KeyRef;
use crate::model::payload;
use crate::model::schema::TableDescriptor;

/// Longest row key [LIM-1].
pub const MAX_ROW_LEN: usize = 32767;

/// One cell about to be written (timestamps resolved, no sequence id yet). It borrows its
/// parts from the caller's mutation: the key and payload are encoded once, straight into the
/// WAL's buffer and into the memstore entry.
#[derive(Clone, Copy, Debug)]
pub struct NewCell<'a> {
    pub family: &'a [u8],
    pub qualifier: &'a [u8],
    pub ts: i64,
    pub type_code: u8,
    /// Per-cell TTL of the payload.
    pub ttl_ms: Option<u64>,
    pub value: &'a [u8],
}

impl NewCell<'_> {
    /// The cell's key with sequence id `seq`.
    pub fn key<'k>(&'k self, row: &'k [u8], seq: u64) -> KeyRef<'k> {
        KeyRef {
            row,
            family: self.family,
            qualifier: self.qualifier,
            ts: self.ts,
            type_code: self.type_code,
            seq,
        }
    }

    /// Bytes of the encoded payload ([`payload::encode_into`]).
    pub fn payload_len(&self) -> usize {
        payload::encoded_len(self.ttl_ms, self.value.len())
    }
}

/// Checks a row key [LIM-1].
pub fn check_row(row: &[u8]) -> Result<()> {
    if row.is_empty() {
        return Err(Error::invalid("row length is 0"));
    }
    if row.len() > MAX_ROW_LEN {
        return Err(Error::invalid(format!(
            "row length {} is > {MAX_ROW_LEN}",
            row.len()
        )));
    }
    Ok(())
}

/// Checks a timestamp given by the client [TS-2].
pub fn check_ts(ts: i64) -> Result<()> {
    if ts < 0 {
        return Err(Error::invalid(format!(
            "timestamp cannot be negative: ts={ts}"
        )));
    }
    Ok(())
}

/// Checks that `family` exists [LIM-6] [DEL-8].
pub fn check_family(desc: &TableDescriptor, family: &[u8]) -> Result<()> {
    if desc.get_family(family).is_none() {
        return Err(Error::NoSuchFamily {
            table: desc.name().to_string(),
            family: String::from_utf8_lossy(family).into_owned(),
        });
    }
    Ok(())
}

/// Checks HBase's serialized cell size against the limit [LIM-5].
pub fn check_cell_size(
    limit: u64,
    row: &[u8],
    family: &[u8],
    qualifier: &[u8],
    value: &[u8],
) -> Result<()> {
    let size = 20 + row.len() + family.len() + qualifier.len() + value.len();
    if limit > 0 && size as u64 > limit {
        return Err(Error::invalid(format!(
            "KeyValue size too large: cell of {size} bytes exceeds the limit of {limit} bytes"
        )));
    }
    Ok(())
}
