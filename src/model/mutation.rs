//! A cell about to be written ([`NewCell`]) and the limits every written cell is checked
//! against: row length [LIM-1], timestamps [TS-2], families [LIM-6], cell size [LIM-5].

use crate::base::error::{Error, Result};
use crate::model::key::KeyRef;
use crate::model::payload;
use crate::model::schema::TableDescriptor;

/// How far a write must get before the call returns, as HBase's `Durability`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Durability {
    /// Not logged: lost on a crash until its memstore is flushed.
    SkipWal,
    /// Logged; the log is written to the OS in the background (by the next synchronous write,
    /// the background flusher, a full buffer, a flush, or close). A crash may lose the last
    /// writes.
    AsyncWal,
    /// Written to the OS before the call returns: survives a process crash (kill -9), not a
    /// power loss.
    #[default]
    SyncWal,
    /// `fdatasync`ed before the call returns: survives power loss. Concurrent writers share one
    /// sync (group commit).
    FsyncWal,
}

impl Durability {
    /// HBase's name (`SKIP_WAL`, `ASYNC_WAL`, `SYNC_WAL`, `FSYNC_WAL`).
    pub fn hbase_name(self) -> &'static str {
        match self {
            Durability::SkipWal => "SKIP_WAL",
            Durability::AsyncWal => "ASYNC_WAL",
            Durability::SyncWal => "SYNC_WAL",
            Durability::FsyncWal => "FSYNC_WAL",
        }
    }
    /// The durability HBase names `name` (any case); `None` for `USE_DEFAULT` and unknown
    /// names (callers tell them apart with [`Durability::is_hbase_name`]).
    pub fn from_hbase_name(name: &str) -> Option<Durability> {
        match name.to_ascii_uppercase().as_str() {
            "SKIP_WAL" => Some(Durability::SkipWal),
            "ASYNC_WAL" => Some(Durability::AsyncWal),
            "SYNC_WAL" => Some(Durability::SyncWal),
            "FSYNC_WAL" => Some(Durability::FsyncWal),
            _ => None,
        }
    }
    /// Whether `name` is one of HBase's durability names, `USE_DEFAULT` included.
    pub fn is_hbase_name(name: &str) -> bool {
        name.eq_ignore_ascii_case("USE_DEFAULT") || Durability::from_hbase_name(name).is_some()
    }
    /// A one-byte code (0 is "not set").
    pub(crate) fn code(d: Option<Durability>) -> u8 {
        match d {
            None => 0,
            Some(Durability::SkipWal) => 1,
            Some(Durability::AsyncWal) => 2,
            Some(Durability::SyncWal) => 3,
            Some(Durability::FsyncWal) => 4,
        }
    }
    /// The inverse of [`Durability::code`]; `Err` for an unknown code.
    pub(crate) fn from_code(c: u8) -> std::result::Result<Option<Durability>, u8> {
        Ok(match c {
            0 => None,
            1 => Some(Durability::SkipWal),
            2 => Some(Durability::AsyncWal),
            3 => Some(Durability::SyncWal),
            4 => Some(Durability::FsyncWal),
            other => return Err(other),
        })
    }
}

/// Longest row key [LIM-1].
pub const MAX_ROW_LEN: usize = 32767;

/// Largest qualifier of a written cell: its encoded key (row, family and qualifier with their
/// lengths and the 17-byte trailer) then stays below 2 GiB, as an HBase KeyValue's key length
/// is a Java int.
pub const MAX_QUALIFIER_LEN: usize =
    i32::MAX as usize - (2 + MAX_ROW_LEN + 1 + 255 + crate::model::key::KEY_TRAILER_LEN);

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

/// Checks a written cell's qualifier against [`MAX_QUALIFIER_LEN`].
pub fn check_qualifier(qualifier: &[u8]) -> Result<()> {
    if qualifier.len() > MAX_QUALIFIER_LEN {
        return Err(Error::invalid(format!(
            "qualifier of {} bytes exceeds the limit of {MAX_QUALIFIER_LEN} bytes (a cell's key \
             must stay below 2 GiB)",
            qualifier.len()
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
