//! [`wal_entries`]: the mutations logged in the write-ahead log, decoded by the engine's own
//! decoder.

use super::StoredCell;
use super::files::{is_dir, read_regular};
use crate::base::error::{Error, Result};
use crate::base::io::{FileSystem, StdFs};
use crate::storage::wal::entry::decode_entry;
use crate::storage::wal::record::{TailPolicy, read_records};
use crate::storage::wal::segment::{self, REC_ENTRY, REC_SEGMENT_HEADER};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One logged mutation: one row's cells of one table, all with the entry's sequence id.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WalEntry {
    /// The segment file it is in.
    pub segment: PathBuf,
    /// Offset of its record in the segment.
    pub offset: u64,
    /// Its sequence id.
    pub seq: u64,
    /// The table's id (the manifest names it: [`manifest_edits`](super::manifest_edits)).
    pub table_id: u64,
    /// The cells, in the order the mutation wrote them.
    pub cells: Vec<StoredCell>,
}

/// The entries of the write-ahead log, segment by segment in id order, each in file order:
/// of a database directory's `wal/`, of a `wal/` directory, or of one segment file.
///
/// As the open's replay reads the log, the newest segment (or a single segment file) may end
/// in a torn final record or in zeros (room the writer preallocated): the entries before it
/// are returned. Damage elsewhere, a bad segment header or an entry that does not decode is an
/// `Err` item, after which the entries of the next segment follow (an entry that does not
/// decode is followed by the rest of its segment).
///
/// # Errors
/// [`Error::Io`] when `path` or its directory cannot be read; [`Error::InvalidArgument`] for a
/// file whose name is not a segment's (`{id:010}.log`).
pub fn wal_entries(path: impl AsRef<Path>) -> Result<WalEntries> {
    let (fs, path): (Arc<dyn FileSystem>, _) = (Arc::new(StdFs), path.as_ref());
    let segments = if is_dir(fs.as_ref(), path)? {
        let wal = path.join("wal");
        let dir = if is_dir(fs.as_ref(), &wal).unwrap_or(false) {
            wal
        } else {
            path.to_path_buf()
        };
        let mut ids: Vec<u64> = fs
            .list(&dir)?
            .iter()
            .filter_map(|n| segment::parse_segment_name(n))
            .collect();
        ids.sort_unstable();
        ids.into_iter()
            .map(|id| (id, segment::segment_path(&dir, id)))
            .collect()
    } else {
        let id = path
            .file_name()
            .and_then(|n| segment::parse_segment_name(&n.to_string_lossy()))
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "{} is not a WAL segment (a segment is named {{id:010}}.log)",
                    path.display()
                ))
            })?;
        VecDeque::from([(id, path.to_path_buf())])
    };
    Ok(WalEntries {
        fs,
        segments,
        pending: VecDeque::new(),
    })
}

/// The entries of the write-ahead log ([`wal_entries`]).
#[derive(Debug)]
pub struct WalEntries {
    fs: Arc<dyn FileSystem>,
    /// Segments not read yet: `(id, path)`, ascending.
    segments: VecDeque<(u64, PathBuf)>,
    /// The decoded entries of the segment read last, not yet returned.
    pending: VecDeque<Result<WalEntry>>,
}

impl Iterator for WalEntries {
    type Item = Result<WalEntry>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(e) = self.pending.pop_front() {
                return Some(e);
            }
            let (id, path) = self.segments.pop_front()?;
            let newest = self.segments.is_empty();
            read_segment(self.fs.as_ref(), &path, id, newest, &mut self.pending);
        }
    }
}

/// Decodes the entries of segment `id` at `path` into `out`.
fn read_segment(
    fs: &dyn FileSystem,
    path: &Path,
    id: u64,
    newest: bool,
    out: &mut VecDeque<Result<WalEntry>>,
) {
    let bytes = match read_regular(fs, path) {
        Ok(b) => b,
        Err(e) => {
            out.push_back(Err(Error::Io(std::io::Error::new(
                e.kind(),
                format!("cannot read {}: {e}", path.display()),
            ))));
            return;
        }
    };
    let policy = if newest {
        TailPolicy::TornTailAllowed
    } else {
        TailPolicy::Strict
    };
    let records = match read_records(&bytes, path, policy) {
        Ok((r, _)) => r,
        Err(e) => {
            out.push_back(Err(e));
            return;
        }
    };
    for (j, rec) in records.iter().enumerate() {
        match (j, rec.rtype) {
            (0, REC_SEGMENT_HEADER) => {
                if let Err(e) = segment::check_segment_header(rec.payload, path, id, rec.offset) {
                    out.push_back(Err(e));
                    return;
                }
            }
            (0, t) => {
                out.push_back(Err(Error::corruption(
                    path,
                    format!("missing segment header (record type {t}) at offset 0"),
                )));
                return;
            }
            (_, REC_ENTRY) => {
                let entry = segment::decode_entry(rec.payload, path, rec.offset).and_then(
                    |(seq, payload)| {
                        let (table_id, cells) = decode_entry(payload, seq).map_err(|m| {
                            Error::corruption(
                                path,
                                format!("WAL entry at offset {}: {m}", rec.offset),
                            )
                        })?;
                        Ok(WalEntry {
                            segment: path.to_path_buf(),
                            offset: rec.offset,
                            seq,
                            table_id,
                            cells: cells
                                .iter()
                                .map(|(k, p)| StoredCell::from_parts(k, p))
                                .collect(),
                        })
                    },
                );
                out.push_back(entry);
            }
            (_, t) => out.push_back(Err(Error::corruption(
                path,
                format!("unexpected WAL record type {t} at offset {}", rec.offset),
            ))),
        }
    }
}
