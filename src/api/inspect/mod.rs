//! Read-only inspection of a database's files, for operator tools (`cellbase hfile`,
//! `cellbase verify`) and programs that want to look inside without opening a [`Db`](crate::Db).
//!
//! Nothing here takes a lock, replays the log or writes a byte: every function reads files
//! (into memory, never mapped, and only regular files, so a FIFO or device in the directory
//! cannot hang or fault the caller) and returns owned values.
//!
//! - Block files: [`BlockFile`] gives a file's [trailer](BlockFile::trailer),
//!   [summary](BlockFile::info), [block index](BlockFile::index), [Bloom filter
//!   summary](BlockFile::bloom) and [cells](BlockFile::cells), and [checks every
//!   block](BlockFile::verify); [`check_block_file`] checks a file that does not even open.
//! - The manifest: [`manifest_edits`] lists its records, each edit described in words.
//! - The write-ahead log: [`wal_entries`] decodes every logged mutation with the engine's own
//!   decoder.
//! - Recorded traffic: [`read_traffic`] reads the `TRAFFIC` file a database recording its
//!   traffic wrote ([`DbOptions::traffic_recording`](crate::DbOptions::traffic_recording)).
//! - The whole database: [`check_database`] runs every check `cellbase verify` runs and
//!   returns every [`Finding`], not only the first; [`check_database_with`] also counts what
//!   was checked.
//!
//! docs/FORMAT.md describes the bytes these types are decoded from.
//!
//! # Examples
//! ```
//! use cellbase::{Db, FamilyDescriptor, Put, TableDescriptor, inspect};
//!
//! let dir = tempfile::tempdir()?;
//! let db = Db::open(dir.path())?;
//! let t = db.create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))?;
//! t.put(Put::new("row1").add("f", "q", "v"))?;
//! t.flush()?;
//! db.close()?;
//!
//! // The database is consistent...
//! assert!(inspect::check_database(dir.path())?.is_empty());
//! // ...and its one block file holds the cell written.
//! let path = std::fs::read_dir(dir.path().join("data"))?.next().unwrap()?.path();
//! let file = inspect::BlockFile::open(&path)?;
//! assert_eq!(file.info().cells, 1);
//! let cell = file.cells().next().unwrap()?;
//! assert_eq!((&cell.key.row[..], &cell.value[..]), (&b"row1"[..], &b"v"[..]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod block_check;
mod block_file;
mod check;
mod check_wal;
mod files;
mod manifest;
mod traffic;
mod wal;

pub use block_file::{
    BlockFile, BlockFileInfo, BlockFileTrailer, BlockHandle, BloomSummary, Cells, FileIdentity,
    IndexEntry,
};
pub use check::{DatabaseCheck, check_block_file, check_database, check_database_with};
pub use manifest::{ManifestRecord, ManifestRecordKind, manifest_edits};
pub use traffic::read_traffic;
pub use wal::{WalEntries, WalEntry, wal_entries};

use crate::base::error::Error;
use crate::model::key::{CellType, KeyRef};
use crate::model::payload;
use std::cmp::Ordering;
use std::fmt;
use std::path::{Path, PathBuf};

/// A cell's key as stored: row, family, qualifier, timestamp, type and sequence id.
///
/// Keys order as the engine sorts cells (HBase's order): row, family and qualifier ascending,
/// then timestamp, type code and sequence id descending.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CellKey {
    /// Row key.
    pub row: Vec<u8>,
    /// Column family.
    pub family: Vec<u8>,
    /// Qualifier (empty for family-level delete markers).
    pub qualifier: Vec<u8>,
    /// Timestamp in milliseconds.
    pub timestamp: i64,
    /// HBase's type code: 4, 8, 10, 12 or 14 for a stored cell ([`CellType::code`]); the block
    /// index may also hold a row separator, which sorts before every cell of its row (code 255,
    /// HBase's `Maximum`, with empty family and qualifier).
    pub type_code: u8,
    /// Sequence id: the write order of the mutation that wrote the cell.
    pub seq: u64,
}

impl CellKey {
    /// Decodes a key in the engine's encoding (docs/FORMAT.md, section 1); `None` when its
    /// lengths are inconsistent. The type code is not checked.
    pub fn decode(encoded: &[u8]) -> Option<CellKey> {
        KeyRef::parse(encoded).map(|k| CellKey::from_ref(&k))
    }

    /// The key in the engine's encoding; `None` when the row is longer than 65535 bytes or the
    /// family longer than 255 (the encoding cannot hold them).
    pub fn encode(&self) -> Option<Vec<u8>> {
        (self.row.len() <= usize::from(u16::MAX) && self.family.len() <= usize::from(u8::MAX))
            .then(|| self.as_ref().encode())
    }

    /// Bytes of the key in the engine's encoding.
    pub fn encoded_len(&self) -> usize {
        self.as_ref().encoded_len()
    }

    /// The cell type, or `None` for a code no stored cell carries (a row separator).
    pub fn cell_type(&self) -> Option<CellType> {
        CellType::from_code(self.type_code)
    }

    pub(crate) fn from_ref(k: &KeyRef<'_>) -> CellKey {
        CellKey {
            row: k.row.to_vec(),
            family: k.family.to_vec(),
            qualifier: k.qualifier.to_vec(),
            timestamp: k.ts,
            type_code: k.type_code,
            seq: k.seq,
        }
    }

    fn as_ref(&self) -> KeyRef<'_> {
        KeyRef {
            row: &self.row,
            family: &self.family,
            qualifier: &self.qualifier,
            ts: self.timestamp,
            type_code: self.type_code,
            seq: self.seq,
        }
    }
}

/// HBase's name of a cell type code (`KeyValue.Type`): `Put`, `DeleteColumn`, ...,
/// `Maximum` for a row separator, `UnknownType(N)` for any other code.
fn type_name(code: u8) -> String {
    match code {
        0 => "Minimum".into(),
        255 => "Maximum".into(),
        c => match CellType::from_code(c) {
            Some(CellType::Put) => "Put".into(),
            Some(CellType::Delete) => "Delete".into(),
            Some(CellType::DeleteFamilyVersion) => "DeleteFamilyVersion".into(),
            Some(CellType::DeleteColumn) => "DeleteColumn".into(),
            Some(CellType::DeleteFamily) => "DeleteFamily".into(),
            None => format!("UnknownType({c})"),
        },
    }
}

/// As HBase's `KeyValue.keyToString` writes a key: `row/family:qualifier/timestamp/Type/seqid=N`,
/// every byte string escaped as `Bytes.toStringBinary` does
/// ([`rowkey::to_string_binary`](crate::rowkey::to_string_binary)).
impl fmt::Display for CellKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::base::util::to_string_binary as esc;
        write!(
            f,
            "{}/{}:{}/{}/{}/seqid={}",
            esc(&self.row),
            esc(&self.family),
            esc(&self.qualifier),
            self.timestamp,
            type_name(self.type_code),
            self.seq
        )
    }
}

/// An encoded key as [`CellKey`]'s `Display` writes it, or `(malformed key ...)`.
pub(crate) fn key_text(encoded: &[u8]) -> String {
    match CellKey::decode(encoded) {
        Some(k) => k.to_string(),
        None => format!(
            "(malformed key {})",
            crate::base::util::to_string_binary(encoded)
        ),
    }
}

impl Ord for CellKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_ref().cmp_key(&other.as_ref())
    }
}

impl PartialOrd for CellKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A cell as a block file stores it or a WAL entry logs it: its key, value and per-cell TTL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCell {
    /// The key.
    pub key: CellKey,
    /// The value (empty for delete markers).
    pub value: Vec<u8>,
    /// The per-cell TTL in milliseconds, when the write set one.
    pub ttl_ms: Option<u64>,
}

impl StoredCell {
    /// Bytes of the key in the engine's encoding ([`CellKey::encoded_len`]).
    pub fn key_len(&self) -> usize {
        self.key.encoded_len()
    }

    /// Bytes of the payload (value and TTL) in the engine's encoding.
    pub fn payload_len(&self) -> usize {
        payload::encoded_len(self.ttl_ms, self.value.len())
    }

    pub(crate) fn from_parts(k: &KeyRef<'_>, p: &payload::PayloadRef<'_>) -> StoredCell {
        StoredCell {
            key: CellKey::from_ref(k),
            value: p.value.to_vec(),
            ttl_ms: p.ttl_ms,
        }
    }
}

/// How bad a [`Finding`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Damage or inconsistency: data is unreadable, lost or wrong, or an open would refuse the
    /// database.
    Error,
    /// Expected after a crash or while the database is open (a torn log tail, files of
    /// unfinished work); the next open repairs it.
    Warning,
}

/// One problem a check found.
///
/// Displayed as `ERROR: PATH: offset N: DETAIL` (or `WARNING: ...`; without the offset when
/// the problem has none), the line `cellbase verify` prints.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// The file concerned (or the directory).
    pub path: PathBuf,
    /// Byte offset in the file, when the problem has one.
    pub offset: Option<u64>,
    /// What is wrong.
    pub detail: String,
}

impl Finding {
    pub(crate) fn error(path: &Path, offset: Option<u64>, detail: impl Into<String>) -> Finding {
        Finding {
            severity: Severity::Error,
            path: path.to_path_buf(),
            offset,
            detail: detail.into(),
        }
    }

    pub(crate) fn warning(path: &Path, offset: Option<u64>, detail: impl Into<String>) -> Finding {
        Finding {
            severity: Severity::Warning,
            ..Finding::error(path, offset, detail)
        }
    }

    /// An engine error as an error finding: a corruption names its own file, and its detail
    /// its offset (the last "offset N" in it).
    pub(crate) fn from_engine(path: &Path, e: Error) -> Finding {
        match e {
            Error::Corruption { path: p, detail } => {
                let offset = offset_in(&detail);
                Finding::error(&p, offset, detail)
            }
            Error::UnsupportedFormat { path: p, found } => Finding::error(
                &p,
                None,
                format!("unsupported format version {found} (written by a newer cellbase?)"),
            ),
            other => Finding::error(path, None, other.to_string()),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "ERROR",
            Severity::Warning => "WARNING",
        };
        match self.offset {
            Some(o) => write!(
                f,
                "{sev}: {}: offset {o}: {}",
                self.path.display(),
                self.detail
            ),
            None => write!(f, "{sev}: {}: {}", self.path.display(), self.detail),
        }
    }
}

/// The last "offset N" in an engine error's detail.
fn offset_in(detail: &str) -> Option<u64> {
    let at = detail.rfind("offset ")?;
    let digits: String = detail[at + 7..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_found_in_engine_details() {
        assert_eq!(offset_in("data block at offset 1234: checksum"), Some(1234));
        assert_eq!(offset_in("x at offset 1 then offset 99"), Some(99));
        assert_eq!(offset_in("nothing here"), None);
    }

    #[test]
    fn keys_round_trip_and_order_as_the_engine_sorts() {
        let k = CellKey {
            row: b"r\x01".to_vec(),
            family: b"f".to_vec(),
            qualifier: b"q".to_vec(),
            timestamp: 42,
            type_code: 12,
            seq: 7,
        };
        let enc = k.encode().unwrap();
        assert_eq!(enc.len(), k.encoded_len());
        assert_eq!(CellKey::decode(&enc), Some(k.clone()));
        assert_eq!(k.cell_type(), Some(CellType::DeleteColumn));
        assert_eq!(CellKey::decode(b"xx"), None);
        assert_eq!(k.to_string(), "r\\x01/f:q/42/DeleteColumn/seqid=7");
        assert_eq!(key_text(&enc), k.to_string());
        assert!(key_text(b"xx").starts_with("(malformed key"));
        // A newer version of the same column sorts first.
        let newer = CellKey {
            timestamp: 43,
            ..k.clone()
        };
        assert!(newer < k);
        let next_row = CellKey {
            row: b"r\x02".to_vec(),
            ..k.clone()
        };
        assert!(k < next_row);
        let long = CellKey {
            family: vec![b'f'; 256],
            ..k
        };
        assert_eq!(long.encode(), None);
    }

    #[test]
    fn findings_display_as_verify_prints_them() {
        let p = Path::new("/db/data/0000000001.sst");
        assert_eq!(
            Finding::error(p, Some(12), "checksum mismatch").to_string(),
            "ERROR: /db/data/0000000001.sst: offset 12: checksum mismatch"
        );
        assert_eq!(
            Finding::warning(p, None, "unreferenced").to_string(),
            "WARNING: /db/data/0000000001.sst: unreferenced"
        );
        let f = Finding::from_engine(
            Path::new("/db"),
            Error::corruption(p, "index block at offset 77: checksum mismatch"),
        );
        assert_eq!((f.path.as_path(), f.offset), (p, Some(77)));
    }
}
