//! Salvage for operators (`cellbase verify --repair`; HBase's `hbck`, LevelDB's and RocksDB's
//! `RepairDB`): rebuilds a database's manifest from what verifies, and moves what it cannot
//! place into `lost+found/`. It never deletes a file.
//!
//! Steps, with the database closed (it takes the same locks as an open):
//! 1. The manifest: the one `CURRENT` names when it replays; otherwise the longest intact
//!    prefix of the newest `MANIFEST-n` that has one (edits are applied until the first damaged
//!    or ill-fitting one). With no manifest at all, no table is known.
//! 2. Every listed block file is opened and fully verified (blocks, index, Bloom filter, meta,
//!    identity, size). A failing file is removed from the regions that list it and set aside;
//!    the other files stay, so one damaged file does not cost the rest.
//! 3. Block files no region lists: those the manifest records as obsolete, and outputs of
//!    unfinished work numbered above the last recorded file, stay for the next open to delete;
//!    when the manifest was salvaged (edits after the damage are lost), a file that verifies
//!    and records its table and family is attached to the regions its rows fall in. Every
//!    other file is set aside.
//! 4. Log segments: those the manifest lists but are gone are dropped from it (their writes are
//!    lost, and said so); a segment the engine's replay reports as damaged is set aside.
//! 5. A new manifest (the next number) is written and `CURRENT` switched to it; damaged
//!    manifests are set aside. Then the database is opened once to prove it opens.

use crate::base::error::{Error, Result};
use crate::base::io::{FileLock, FileSystem, StdFs};
use crate::storage::manifest::{
    Edit, FileRef, Manifest, ManifestState, RECORD_EDIT, RECORD_SNAPSHOT_END,
};
use crate::storage::sst::SstReader;
use crate::storage::sst::parse_sst_name;
use crate::storage::sst::sst_path;
use crate::storage::wal::record::records_before_damage;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where the repaired manifest's state came from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ManifestSource {
    /// The manifest `CURRENT` names replayed whole.
    Intact(PathBuf),
    /// The intact prefix of a damaged manifest, up to the offset where the damage starts
    /// (edits after it are lost).
    Salvaged {
        /// The manifest.
        path: PathBuf,
        /// The offset of the first damaged or ill-fitting record.
        damaged_at: u64,
        /// What was wrong there.
        damage: String,
    },
    /// No manifest could be read: no table is known, every block file is set aside.
    None,
}

/// A file moved to `lost+found/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAside {
    /// Where it was.
    pub from: PathBuf,
    /// Where it is now.
    pub to: PathBuf,
    /// Why it could not stay.
    pub why: String,
}

/// What [`repair`] found and did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RepairReport {
    /// Where the state came from.
    pub source: ManifestSource,
    /// The manifest written.
    pub new_manifest: PathBuf,
    /// Tables, regions and block files in the repaired state.
    pub tables: usize,
    /// See `tables`.
    pub regions: usize,
    /// See `tables`.
    pub files: usize,
    /// Block files no region listed that were attached to the regions their rows fall in.
    pub attached: Vec<PathBuf>,
    /// Files moved to `lost+found/`, with the reason.
    pub set_aside: Vec<SetAside>,
    /// Log segments the manifest listed that were gone: their writes are lost.
    pub dropped_wal_segments: Vec<PathBuf>,
    /// The database opened after the repair (`Ok`), or why not.
    pub opens: std::result::Result<(), String>,
}

/// Repairs the database in `dir` (see the module docs). The database must not be open.
///
/// # Errors
/// [`Error::Locked`] when it is open; [`Error::InvalidArgument`] when `dir` does not exist;
/// [`Error::Io`] when a file cannot be moved or written.
pub fn repair(dir: &Path) -> Result<RepairReport> {
    repair_with_fs(dir, Arc::new(StdFs))
}

/// [`repair`] over a caller-supplied filesystem (tests). Not a stable API.
///
/// # Errors
/// As [`repair`].
#[doc(hidden)]
pub fn repair_with_fs(dir: &Path, fs: Arc<dyn FileSystem>) -> Result<RepairReport> {
    if !fs.exists(dir) {
        return Err(Error::invalid(format!("{} does not exist", dir.display())));
    }
    let lock = |r: std::io::Result<Box<dyn FileLock>>| match r {
        Ok(l) => Ok(l),
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
            Err(Error::Locked(dir.to_path_buf()))
        }
        Err(e) => Err(Error::Io(e)),
    };
    let dir_lock = lock(fs.lock_dir(dir))?;
    let file_lock = lock(fs.lock(&dir.join("LOCK")))?;
    let mut r = Repair {
        fs: fs.clone(),
        dir: dir.to_path_buf(),
        set_aside: Vec::new(),
    };
    let (mut state, source, manifests) = r.find_state()?;
    if state.db_id == 0 {
        state.db_id = crate::engine::recovery::new_db_id();
    }
    let salvaged = !matches!(source, ManifestSource::Intact(_));
    r.check_listed_files(&mut state)?;
    let attached = r.place_unlisted_files(&mut state, salvaged)?;
    let dropped_wal_segments = r.check_wal(&mut state)?;

    let number = manifests.iter().map(|(n, _)| *n).max().unwrap_or(0) + 1;
    let new_manifest = dir.join(format!("MANIFEST-{number:06}"));
    let still_owner = || {
        file_lock
            .still_held()
            .map_err(|_| Error::Locked(dir.to_path_buf()))
    };
    Manifest::write_snapshot(fs.clone(), dir, number, state.clone(), &still_owner)?;
    for (_, p) in manifests {
        match &source {
            // The intact manifest was replaced: positively obsolete.
            ManifestSource::Intact(live) if *live == p => {
                let _ = fs.remove(&p);
            }
            _ => r.set_aside(&p, "a manifest the repaired one replaces")?,
        }
    }
    if !r.set_aside.is_empty() {
        for d in [dir.to_path_buf(), dir.join("data"), dir.join("wal")] {
            if fs.exists(&d) {
                fs.sync_dir(&d)?;
            }
        }
        fs.sync_dir(&dir.join("lost+found"))?;
    }
    drop(file_lock);
    drop(dir_lock);
    let opens = crate::engine::Engine::open(
        dir.to_path_buf(),
        // A check that the repaired database opens, changing no more than the open must:
        // the replayed log stays the only copy of its rows until the next open flushes them.
        crate::engine::options::DbOptions::default()
            .background_threads(0)
            .flush_on_close(false)
            .flush_after_replay(false),
        fs,
        None,
    )
    .and_then(|engine| engine.shut_down(true))
    .map_err(|e| e.to_string());
    Ok(RepairReport {
        source,
        new_manifest,
        tables: state.tables.len(),
        regions: state.tables.values().map(|t| t.regions.len()).sum(),
        files: state.live_files().len(),
        attached,
        set_aside: r.set_aside,
        dropped_wal_segments,
        opens,
    })
}

/// Every `MANIFEST-n` of the directory: (n, path), ascending.
type Manifests = Vec<(u64, PathBuf)>;

struct Repair {
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    set_aside: Vec<SetAside>,
}

impl Repair {
    /// Moves `p` into `lost+found/` (under a free name) and records why.
    fn set_aside(&mut self, p: &Path, why: impl Into<String>) -> Result<()> {
        let lost = self.dir.join("lost+found");
        if !self.fs.exists(&lost) {
            self.fs.create_dir_all(&lost)?;
        }
        let rel = p.strip_prefix(&self.dir).unwrap_or(p);
        let base = rel.to_string_lossy().replace('/', "_");
        let mut to = lost.join(&base);
        let mut n = 1;
        while self.fs.exists(&to) {
            to = lost.join(format!("{base}.{n}"));
            n += 1;
        }
        self.fs.rename(p, &to)?;
        self.set_aside.push(SetAside {
            from: p.to_path_buf(),
            to,
            why: why.into(),
        });
        Ok(())
    }

    /// Every `MANIFEST-n` in the directory, by number.
    fn manifests(&self) -> Result<Manifests> {
        let mut out: Manifests = self
            .fs
            .list(&self.dir)?
            .into_iter()
            .filter_map(|n| {
                let num = n.strip_prefix("MANIFEST-")?.parse().ok()?;
                Some((num, self.dir.join(n)))
            })
            .collect();
        out.sort();
        Ok(out)
    }

    /// The state to repair from (step 1).
    fn find_state(&self) -> Result<(ManifestState, ManifestSource, Manifests)> {
        let manifests = self.manifests()?;
        let data_files = self
            .fs
            .list(&self.dir.join("data"))
            .map(|l| l.len())
            .unwrap_or(0);
        if let Ok(Some(l)) = Manifest::load(self.fs.as_ref(), &self.dir)
            && !(l.empty && data_files > 0)
        {
            return Ok((l.state, ManifestSource::Intact(l.path), manifests));
        }
        // The newest manifest with an intact prefix that holds something.
        for (_, p) in manifests.iter().rev() {
            let Ok(bytes) = self.fs.read_all(p) else {
                continue;
            };
            let (records, valid, damage) = records_before_damage(&bytes);
            let mut state = ManifestState::default();
            let mut stop = None;
            for rec in &records {
                let applied = match rec.rtype {
                    RECORD_EDIT => Edit::decode(rec.payload)
                        .map_err(|e| format!("{} at byte {} of the edit", e.what, e.offset))
                        .and_then(|e| state.apply(&e)),
                    RECORD_SNAPSHOT_END => Ok(()),
                    t => Err(format!("unknown record type {t}")),
                };
                if let Err(why) = applied {
                    stop = Some((rec.offset, why));
                    break;
                }
            }
            if state.tables.is_empty() && state.db_id == 0 {
                continue;
            }
            let (damaged_at, damage) = match (stop, damage) {
                (Some((at, why)), _) => (at, why),
                (None, Some(why)) => (valid, why),
                (None, None) => (valid, "CURRENT does not name it".to_string()),
            };
            let source = ManifestSource::Salvaged {
                path: p.clone(),
                damaged_at,
                damage,
            };
            return Ok((state, source, manifests));
        }
        Ok((ManifestState::default(), ManifestSource::None, manifests))
    }

    /// Step 2: every listed block file verifies, or leaves its regions and is set aside.
    fn check_listed_files(&mut self, state: &mut ManifestState) -> Result<()> {
        for (id, (table_id, f)) in state.live_files() {
            let p = sst_path(&self.dir, id);
            let why = if self.fs.exists(&p) {
                self.check_file(&p, state.db_id, state.file_table(table_id, id), &f)
                    .err()
            } else {
                Some("missing".to_string())
            };
            let Some(why) = why else { continue };
            for t in state.tables.values_mut() {
                for r in t.regions.values_mut() {
                    r.files.retain(|x| x.file_id != id);
                }
            }
            if self.fs.exists(&p) {
                self.set_aside(&p, format!("listed by the manifest but {why}"))?;
            }
        }
        Ok(())
    }

    /// Opens and fully verifies a block file against what the manifest says of it.
    fn check_file(
        &self,
        p: &Path,
        db_id: u64,
        table_id: u64,
        f: &FileRef,
    ) -> std::result::Result<(), String> {
        let reader =
            SstReader::open(self.fs.as_ref(), p, f.file_id, None).map_err(|e| e.to_string())?;
        reader.verify().map_err(|e| e.to_string())?;
        // The open's own check: identity, then size.
        crate::engine::recovery::check_listed_file(&reader, p, db_id, table_id, f)
            .map_err(|e| e.to_string())
    }

    /// Step 3: files no region lists.
    fn place_unlisted_files(
        &mut self,
        state: &mut ManifestState,
        salvaged: bool,
    ) -> Result<Vec<PathBuf>> {
        let data = self.dir.join("data");
        if !self.fs.exists(&data) {
            return Ok(Vec::new());
        }
        let live: BTreeSet<u64> = state.live_files().into_keys().collect();
        let mut attached = Vec::new();
        for name in self.fs.list(&data)? {
            let p = data.join(&name);
            let Some(id) = parse_sst_name(&name) else {
                self.set_aside(&p, "not a block file name")?;
                continue;
            };
            if live.contains(&id) {
                continue;
            }
            let leftover = id >= state.next_file_id || state.reserved_files.contains(&id);
            if state.obsolete_files.contains(&id) || (leftover && !salvaged) {
                continue; // the next open deletes it, on the manifest's proof
            }
            if !salvaged {
                self.set_aside(
                    &p,
                    "no region lists it, and the intact manifest records it neither as obsolete \
                     nor as unfinished work",
                )?;
                continue;
            }
            match self.attach(state, id, &p) {
                Ok(()) => attached.push(p),
                Err(why) => self.set_aside(&p, why)?,
            }
        }
        Ok(attached)
    }

    /// Adds block file `id` to every region of its table its rows fall in, when the manifest
    /// was salvaged and the file verifies and records a known table and family.
    fn attach(
        &self,
        state: &mut ManifestState,
        id: u64,
        p: &Path,
    ) -> std::result::Result<(), String> {
        let unplaced = "no region of the salvaged manifest lists it";
        let reader = SstReader::open(self.fs.as_ref(), p, id, None).map_err(|e| e.to_string())?;
        reader.verify().map_err(|e| e.to_string())?;
        let Some(ident) = reader.meta().identity.clone() else {
            return Err(format!("{unplaced}; it records no table (an older file)"));
        };
        if ident.db_id != state.db_id || ident.file_id != id {
            return Err(format!(
                "{unplaced}; it belongs to another database or file"
            ));
        }
        let Some(table) = state.tables.get_mut(&ident.table_id) else {
            return Err(format!(
                "{unplaced}; its table {} is unknown",
                ident.table_id
            ));
        };
        if !table.desc.families().iter().any(|f| f.name == ident.family) {
            return Err(format!("{unplaced}; its family is not in the table"));
        }
        let (first, last) = (reader.meta().first_row(), reader.meta().last_row());
        let mut placed = false;
        for r in table.regions.values_mut() {
            let after_start = r.def.start.as_slice() <= last;
            let before_end = r.def.end.is_empty() || first < r.def.end.as_slice();
            if reader.meta().cell_count > 0 && after_start && before_end {
                r.files.push(FileRef {
                    family: ident.family.clone(),
                    file_id: id,
                    size: reader.meta().file_size,
                });
                placed = true;
            }
        }
        if !placed {
            return Err(format!("{unplaced}; no region of its table holds its rows"));
        }
        state.next_file_id = state.next_file_id.max(id + 1);
        Ok(())
    }

    /// Step 4: log segments.
    fn check_wal(&mut self, state: &mut ManifestState) -> Result<Vec<PathBuf>> {
        let wal = self.dir.join("wal");
        if !self.fs.exists(&wal) {
            self.fs.create_dir_all(&wal)?;
        }
        let present = crate::engine::recovery::present_segments(self.fs.as_ref(), &wal)?;
        let dropped = crate::engine::recovery::missing_segments(state, &present, &wal);
        for (&id, &len) in &state.wal_sealed.clone() {
            let p = crate::storage::wal::segment::segment_path(&wal, id);
            if present.contains(&id) && self.fs.open_read_at(&p)?.len() < len {
                self.set_aside(
                    &p,
                    format!("log segment cut short of its synced {len} bytes"),
                )?;
            }
        }
        // The engine's own replay says which segment is damaged; set it aside and try again.
        for _ in 0..=present.len() {
            match crate::storage::wal::replay(self.fs.as_ref(), &wal, |_, _| Ok(())) {
                Ok(_) => break,
                Err(Error::Corruption { path, detail })
                    if path.parent() == Some(wal.as_path()) && self.fs.exists(&path) =>
                {
                    self.set_aside(&path, format!("damaged log segment: {detail}"))?;
                }
                Err(e) => return Err(e),
            }
        }
        let present = crate::engine::recovery::present_segments(self.fs.as_ref(), &wal)?;
        // Sealed lengths are the segments' own (their successors' headers agree, or replay
        // set the segment aside): a short one was set aside above.
        state.wal_sealed.retain(|id, _| present.contains(id));
        state.wal_segments = Some(present);
        Ok(dropped)
    }
}
