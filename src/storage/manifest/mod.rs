//! The manifest: every structural change (table created, dropped or altered; files added by a
//! flush; files replaced by a compaction) is one CRC-framed record in a log, appended and synced
//! after the data it names is durable. Replaying the log rebuilds [`ManifestState`].
//!
//! On open the log is rewritten as a snapshot into a new `MANIFEST-n` file, which `CURRENT`
//! then names (write temp, sync, rename, sync directory), so the log stays short.

mod edit;
mod state;

#[cfg(test)]
use edit::IdCounters;
pub use edit::{Edit, FileRef, RECORD_EDIT, RECORD_SNAPSHOT_END, RegionDef, SnapshotDef};
pub use state::ManifestState;

use crate::base::codec::{self, Reader};
use crate::base::error::{Error, Result};
use crate::base::io::{FileSystem, WritableFile};
use crate::storage::wal::record::{TailPolicy, encode_record, read_records};
use std::path::{Path, PathBuf};

/// The open manifest log.
pub struct Manifest {
    fs: std::sync::Arc<dyn FileSystem>,
    dir: PathBuf,
    file: Box<dyn WritableFile>,
    state: ManifestState,
    /// Set when an append or sync failed: the record may or may not be durable, so the
    /// in-memory state can no longer be trusted to match the log; every later change is refused
    /// until the database is reopened (which replays what is really there).
    poisoned: Option<String>,
    /// File ids reserved since the last append: the next append writes an
    /// [`Edit::ReservedFiles`] naming them before its own edits.
    unrecorded: Vec<u64>,
}

impl std::fmt::Debug for Manifest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Manifest")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

fn manifest_name(n: u64) -> String {
    format!("MANIFEST-{n:06}")
}

/// A manifest as read from disk by [`Manifest::load`], nothing changed yet.
#[derive(Debug, Clone)]
pub struct LoadedManifest {
    /// The state it describes.
    pub state: ManifestState,
    /// The live manifest file (`CURRENT` names it).
    pub path: PathBuf,
    /// Its number (`MANIFEST-{number:06}`).
    pub number: u64,
    /// The file is empty. Only a database from before manifest snapshots had an end record
    /// can have an empty manifest (one that never created a table).
    pub empty: bool,
    /// Written before [`Edit::Ids`] and snapshot end records existed: the next file id was
    /// not recorded, and the whole file follows the older torn-final-record rule.
    pub legacy: bool,
    /// Offset of a torn final record that was dropped: an edit whose append never completed,
    /// so it was never acknowledged.
    pub dropped_tail_at: Option<u64>,
}

/// Parses the `CURRENT` file's content: the manifest's name and number.
pub(crate) fn parse_current(current: &Path, bytes: &[u8]) -> Result<(String, u64)> {
    let name = std::str::from_utf8(bytes)
        .ok()
        .map(str::trim)
        .filter(|n| n.starts_with("MANIFEST-") && !n.contains('/'))
        .ok_or_else(|| Error::corruption(current, "CURRENT does not name a manifest"))?
        .to_string();
    let number = name["MANIFEST-".len()..]
        .parse()
        .ok()
        .filter(|&n| manifest_name(n) == name)
        .ok_or_else(|| {
            Error::corruption(current, format!("bad manifest name {name:?} at offset 0"))
        })?;
    Ok((name, number))
}

/// Replays a manifest file's bytes. The snapshot a manifest starts with (every record up to
/// [`RECORD_SNAPSHOT_END`]) must be whole: `CURRENT` named the file only after it was synced,
/// so any damage there is [`Error::Corruption`] naming the file and offset. After it, only a
/// torn final record (an append cut by a crash, never acknowledged) is dropped.
pub fn replay_manifest(bytes: &[u8], path: &Path) -> Result<(ManifestState, bool, Option<u64>)> {
    let (records, valid) = read_records(bytes, path, TailPolicy::TornFinalRecordOnly)?;
    let dropped_tail_at = (valid < bytes.len() as u64).then_some(valid);
    let first_is_ids = records.first().is_some_and(|r| {
        r.rtype == RECORD_EDIT && matches!(Edit::decode(r.payload), Ok(Edit::Ids(_)))
    });
    let legacy = !records.is_empty() && !first_is_ids;
    let end = records.iter().position(|r| r.rtype == RECORD_SNAPSHOT_END);
    if !bytes.is_empty() && !legacy && end.is_none() {
        return Err(Error::corruption(
            path,
            format!(
                "the snapshot the manifest starts with has no end record: damaged or cut at \
                 offset {valid}"
            ),
        ));
    }
    let mut state = ManifestState::default();
    for (i, rec) in records.iter().enumerate() {
        match rec.rtype {
            RECORD_EDIT => {
                let edit =
                    Edit::decode(rec.payload).map_err(|e| e.into_corruption(path, rec.offset))?;
                state.apply(&edit).map_err(|m| {
                    Error::corruption(path, format!("{m} (record at offset {})", rec.offset))
                })?;
            }
            RECORD_SNAPSHOT_END if Some(i) == end && !legacy => {
                let mut r = Reader::new(rec.payload);
                let count = r
                    .varint("snapshot edit count")
                    .map_err(|e| e.into_corruption(path, rec.offset))?;
                if count != i as u64 || !r.is_empty() {
                    return Err(Error::corruption(
                        path,
                        format!(
                            "snapshot end record at offset {} counts {count} edits, {i} precede it",
                            rec.offset
                        ),
                    ));
                }
            }
            t => {
                return Err(Error::corruption(
                    path,
                    format!("unexpected record type {t} at offset {}", rec.offset),
                ));
            }
        }
    }
    Ok((state, legacy, dropped_tail_at))
}

impl Manifest {
    /// Reads the manifest `CURRENT` names, changing nothing on disk. `None` when there is no
    /// `CURRENT`.
    ///
    /// # Errors
    /// [`Error::Corruption`] naming the file and offset for a bad `CURRENT`, a missing manifest,
    /// damage in its snapshot, damage followed by further records, or an edit that does not
    /// fit the state.
    pub fn load(fs: &dyn FileSystem, dir: &Path) -> Result<Option<LoadedManifest>> {
        let current = dir.join("CURRENT");
        if !fs.exists(&current) {
            return Ok(None);
        }
        let (name, number) = parse_current(&current, &fs.read_all(&current)?)?;
        let path = dir.join(&name);
        let bytes = match fs.read_all(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::corruption(
                    &current,
                    format!("names {name}, which does not exist (offset 0)"),
                ));
            }
            Err(e) => return Err(e.into()),
        };
        let (state, legacy, dropped_tail_at) = replay_manifest(&bytes, &path)?;
        Ok(Some(LoadedManifest {
            state,
            path,
            number,
            empty: bytes.is_empty(),
            legacy,
            dropped_tail_at,
        }))
    }

    /// Replays `dir`'s manifest (if any), writes a fresh snapshot manifest and points CURRENT at
    /// it. Returns the manifest and the recovered state.
    #[cfg(any(test, feature = "testing"))]
    pub fn open(
        fs: std::sync::Arc<dyn FileSystem>,
        dir: &Path,
    ) -> Result<(Manifest, ManifestState)> {
        let loaded = Manifest::load(fs.as_ref(), dir)?;
        let (state, number, old) = match loaded {
            Some(l) => (l.state, l.number, Some(l.path)),
            None => (ManifestState::default(), 0, None),
        };
        let m = Manifest::write_snapshot(fs, dir, number + 1, state.clone(), &|| Ok(()))?;
        if let Some(p) = old {
            m.remove_replaced(&p);
        }
        Ok((m, state))
    }

    /// Removes the manifest a new snapshot replaced (`CURRENT` no longer names it). Best
    /// effort: a leftover is an older `MANIFEST-n` that nothing reads.
    pub fn remove_replaced(&self, old: &Path) {
        let _ = self.fs.remove(old);
    }

    /// Writes `state` as a new manifest `MANIFEST-{number}`: its snapshot edits, then the
    /// snapshot end record, synced; then `CURRENT.tmp` naming it (synced), `still_owner` (the
    /// caller's re-check that it still holds the database's lock), the rename over `CURRENT`
    /// and a sync of the directory. The new manifest is whole and durable before `CURRENT`
    /// names it.
    pub fn write_snapshot(
        fs: std::sync::Arc<dyn FileSystem>,
        dir: &Path,
        number: u64,
        state: ManifestState,
        still_owner: &dyn Fn() -> Result<()>,
    ) -> Result<Manifest> {
        let path = dir.join(manifest_name(number));
        let mut file = fs.create(&path)?;
        let mut buf = Vec::new();
        let edits = state.snapshot_edits();
        for e in &edits {
            encode_record(&mut buf, RECORD_EDIT, &e.encode());
        }
        let mut count = Vec::new();
        codec::put_varint(&mut count, edits.len() as u64);
        encode_record(&mut buf, RECORD_SNAPSHOT_END, &count);
        file.append(&buf)?;
        file.sync_data()?;
        let tmp = dir.join("CURRENT.tmp");
        let mut c = fs.create(&tmp)?;
        c.append(format!("{}\n", manifest_name(number)).as_bytes())?;
        c.sync_data()?;
        drop(c);
        still_owner()?;
        fs.rename(&tmp, &dir.join("CURRENT"))?;
        fs.sync_dir(dir)?;
        Ok(Manifest {
            fs,
            dir: dir.to_path_buf(),
            file,
            state,
            poisoned: None,
            unrecorded: Vec::new(),
        })
    }

    /// Appends and syncs one edit, then applies it to the in-memory state.
    ///
    /// # Errors
    /// [`Error::Poisoned`] after an earlier append or sync failed; [`Error::Io`] when this one
    /// fails (which poisons the manifest).
    pub fn append(&mut self, edit: &Edit) -> Result<()> {
        self.append_all(std::slice::from_ref(edit))
    }

    /// Appends several edits with one write and one sync (each is its own record), then
    /// applies them in order; as [`Manifest::append`] otherwise.
    ///
    /// # Errors
    /// As [`Manifest::append`].
    pub fn append_all(&mut self, edits: &[Edit]) -> Result<()> {
        if let Some(why) = &self.poisoned {
            return Err(Error::Poisoned(format!("manifest: {why}")));
        }
        let mut next = self.state.clone();
        let mut buf = Vec::new();
        // Reservations first: a durable edit that adds a file with a higher id (and so implies
        // a higher next file id) is never durable without them.
        let reserved = (!self.unrecorded.is_empty()).then(|| Edit::ReservedFiles {
            ids: self.unrecorded.clone(),
        });
        for edit in reserved.iter().chain(edits) {
            next.apply(edit).map_err(Error::InvalidArgument)?;
            encode_record(&mut buf, RECORD_EDIT, &edit.encode());
        }
        if let Err(e) = self.file.append(&buf).and_then(|()| self.file.sync_data()) {
            self.poisoned = Some(e.to_string());
            return Err(Error::Io(e));
        }
        self.state = next;
        self.unrecorded.clear();
        Ok(())
    }

    /// The state after every appended edit.
    pub fn state(&self) -> &ManifestState {
        &self.state
    }

    /// Forgets obsolete files that were deleted (in memory only: the next snapshot leaves
    /// them out; until then the manifest still names them, and a later open finds them gone).
    pub fn forget_obsolete(&mut self, ids: &[u64]) {
        for id in ids {
            self.state.obsolete_files.remove(id);
        }
    }

    /// Reserves a new file id for an output about to be written. The reservation is recorded
    /// ([`Edit::ReservedFiles`]) with the next append, before any edit that could record a
    /// higher id; the edit that adds the file ends it. So a crash that leaves the file
    /// half-written is always provable at the next open: its id is either at or above the
    /// recorded next file id, or recorded as reserved.
    pub fn next_file_id(&mut self) -> u64 {
        let id = self.state.next_file_id;
        self.state.next_file_id += 1;
        self.state.reserved_files.insert(id);
        self.unrecorded.push(id);
        id
    }

    /// Ends the reservation of a file id whose output is gone for good (a failed flush or
    /// compaction removed its own file and synced the directory): in memory, so the next
    /// snapshot leaves it out. A record already written stays and is harmless.
    pub fn release_file_id(&mut self, id: u64) {
        self.state.reserved_files.remove(&id);
    }

    /// Reserves a new table id.
    pub fn next_table_id(&mut self) -> u64 {
        let id = self.state.next_table_id;
        self.state.next_table_id += 1;
        id
    }

    /// Reserves a new region id.
    pub fn next_region_id(&mut self) -> u64 {
        let id = self.state.next_region_id;
        self.state.next_region_id += 1;
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::io::StdFs;
    use crate::model::schema::{FamilyDescriptor, TableDescriptor};
    use std::sync::Arc;

    fn desc() -> TableDescriptor {
        TableDescriptor::new("t").family(FamilyDescriptor::new("f"))
    }

    #[test]
    fn edits_round_trip() {
        let f = FileRef {
            family: b"f".to_vec(),
            file_id: 7,
            size: 100,
        };
        for e in [
            Edit::CreateTable {
                table_id: 1,
                desc: desc(),
                regions: vec![RegionDef {
                    id: 2,
                    start: vec![],
                    end: b"m".to_vec(),
                }],
            },
            Edit::DropTable { table_id: 1 },
            Edit::AlterTable {
                table_id: 1,
                desc: desc(),
            },
            Edit::Flush {
                table_id: 1,
                region_id: 2,
                flushed_seq: 9,
                files: vec![f.clone()],
            },
            Edit::Compact {
                table_id: 1,
                region_id: 2,
                removed: vec![3, 4],
                added: vec![f.clone()],
            },
            Edit::SetEnabled {
                table_id: 1,
                enabled: false,
            },
            Edit::Split {
                table_id: 1,
                parent_id: 2,
                daughters: vec![
                    (
                        RegionDef {
                            id: 3,
                            start: vec![],
                            end: b"m".to_vec(),
                        },
                        vec![f.clone()],
                    ),
                    (
                        RegionDef {
                            id: 4,
                            start: b"m".to_vec(),
                            end: vec![],
                        },
                        vec![],
                    ),
                ],
            },
            Edit::Merge {
                table_id: 1,
                parent_ids: vec![3, 4],
                merged: (
                    RegionDef {
                        id: 5,
                        start: vec![],
                        end: vec![],
                    },
                    vec![f.clone()],
                ),
            },
            Edit::Ids(IdCounters {
                db_id: 0xfeed_beef,
                next_file_id: 9,
                next_table_id: 2,
                next_region_id: 6,
                max_flushed_seq: 77,
            }),
            Edit::ObsoleteFiles { ids: vec![3, 4] },
            Edit::ReservedFiles { ids: vec![7, 9] },
            Edit::WalSegmentsAdded { ids: vec![12, 13] },
            Edit::WalSegmentsDeleted { ids: vec![12] },
            Edit::WalSegmentsSealed {
                segments: vec![(12, 4096), (13, 77)],
            },
            Edit::PutNamespace(crate::model::namespace::NamespaceDescriptor::new("ns")),
            Edit::PutNamespace(
                crate::model::namespace::NamespaceDescriptor::new("ns").property("k", "v"),
            ),
            Edit::DropNamespace { name: "ns".into() },
        ] {
            assert_eq!(Edit::decode(&e.encode()).unwrap(), e);
        }
        // A namespace edit cut anywhere is an error, never a panic.
        let e = Edit::PutNamespace(
            crate::model::namespace::NamespaceDescriptor::new("ns").property("k", "v"),
        )
        .encode();
        for cut in 0..e.len() {
            assert!(Edit::decode(&e[..cut]).is_err());
        }
        assert!(Edit::decode(&[1, 99]).is_err());
        assert!(Edit::decode(&[]).is_err());
    }

    #[test]
    fn reopen_replays_and_rewrites() {
        let dir = tempfile::tempdir().unwrap();
        let fs: Arc<dyn FileSystem> = Arc::new(StdFs);
        let (mut m, st) = Manifest::open(fs.clone(), dir.path()).unwrap();
        assert!(st.tables.is_empty());
        m.append(&Edit::CreateTable {
            table_id: 0,
            desc: desc(),
            regions: vec![RegionDef {
                id: 0,
                start: vec![],
                end: vec![],
            }],
        })
        .unwrap();
        let fid = m.next_file_id();
        m.append(&Edit::Flush {
            table_id: 0,
            region_id: 0,
            flushed_seq: 5,
            files: vec![FileRef {
                family: b"f".to_vec(),
                file_id: fid,
                size: 1,
            }],
        })
        .unwrap();
        assert!(m.append(&Edit::DropTable { table_id: 42 }).is_err());
        let expect = m.state().clone();
        drop(m);
        let (_m, st) = Manifest::open(fs.clone(), dir.path()).unwrap();
        assert_eq!(st, expect);
        assert_eq!(st.next_file_id, 1);
        assert_eq!(st.max_flushed_seq, 5);
        let names = fs.list(dir.path()).unwrap();
        assert_eq!(
            names.iter().filter(|n| n.starts_with("MANIFEST-")).count(),
            1,
            "{names:?}"
        );
    }
}
