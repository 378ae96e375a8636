//! The whole-database check ([`check_database`]): what `cellbase verify` reports (HBase's
//! `hbck`, a filesystem's `fsck`), with the engine's own rules.
//!
//! It reads files only (never opening the database, which would replay the log, truncate a
//! torn tail and rewrite the manifest), takes no lock, and goes on past every problem:
//!
//! * the manifest: `CURRENT` names it; every record's CRC; every edit decodes and replays as an
//!   open replays it (a torn final record is a warning: the open drops it); without `CURRENT`,
//!   the open's own verdict on the directory;
//! * region contiguity per table: regions cover the whole key space without gap or overlap;
//! * every block file the manifest lists: exists, has the recorded size and identity (as the
//!   open checks them), and every block passes its checksum and decodes, its cells in order and
//!   of the recorded family, its statistics, index and Bloom filter agreeing with its cells;
//! * files in `data/` no region lists, sorted by the open's rule into those it deletes
//!   (warnings) and those it keeps unexplained (warnings);
//! * the write-ahead log: every segment the manifest records as live exists; every segment's
//!   header, records and entries (decoded by the engine's decoder); the chain of segment
//!   lengths; a torn tail of the newest segment is a warning (check_wal.rs).
//!
//! On a database open in another process in-flight work can show as warnings;
//! [`DatabaseCheck::locked_by_other`] says so.

use super::block_check::check_blocks;
use super::files::{OwnedFile, is_dir, names, read_block_file, read_regular};
use super::{Finding, Severity};
use crate::base::error::{Error, Result};
use crate::base::io::{FileSystem, StdFs};
use crate::base::util::to_string_binary;
use crate::engine::recovery::{check_listed_file, check_new_dir, classify_data_files};
use crate::storage::manifest::{FileRef, ManifestState, replay_manifest};
use crate::storage::sst::{SstReader, sst_path};
use crate::storage::wal::record::{TailPolicy, read_records};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What [`check_database_with`] checked and found.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct DatabaseCheck {
    /// Every problem, in the order found.
    pub findings: Vec<Finding>,
    /// Block files checked.
    pub block_files: u64,
    /// Blocks checked (data, Bloom, index and meta blocks, and trailers).
    pub blocks: u64,
    /// Cells read from block files.
    pub cells: u64,
    /// WAL segments checked.
    pub wal_segments: u64,
    /// WAL entries checked.
    pub wal_entries: u64,
    /// Cells in WAL entries.
    pub wal_cells: u64,
    /// Manifest records replayed.
    pub manifest_records: u64,
    /// Tables in the manifest.
    pub tables: u64,
    /// Regions in the manifest.
    pub regions: u64,
    /// Bytes read.
    pub bytes: u64,
    /// The directory's lock was held by another process (the database is open there).
    pub locked_by_other: bool,
    /// One line per file checked (`cellbase verify --verbose` prints them).
    pub notes: Vec<String>,
}

impl DatabaseCheck {
    /// Findings of severity [`Severity::Error`].
    pub fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    /// Findings of severity [`Severity::Warning`].
    pub fn warnings(&self) -> usize {
        self.count(Severity::Warning)
    }

    fn count(&self, s: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == s).count()
    }
}

/// Checks the database in `dir` (read-only) and returns every problem found: errors (damage,
/// or what an open would refuse) and warnings (what a crash or a running database leaves and
/// the next open cleans up). Empty for a sound, closed database.
///
/// # Errors
/// Only when `dir` is not a readable directory ([`Error::Io`]); every problem inside it is a
/// [`Finding`].
pub fn check_database(dir: impl AsRef<Path>) -> Result<Vec<Finding>> {
    Ok(check_database_with(dir, |_| {})?.findings)
}

/// [`check_database`], also counting what was checked; `on_file` is called with each block
/// file and WAL segment as it is read (for a progress display).
///
/// # Errors
/// As [`check_database`].
pub fn check_database_with(
    dir: impl AsRef<Path>,
    mut on_file: impl FnMut(&Path),
) -> Result<DatabaseCheck> {
    let (fs, dir) = (&StdFs, dir.as_ref());
    let is_dir = is_dir(fs, dir).map_err(|e| {
        std::io::Error::new(e.kind(), format!("cannot read {}: {e}", dir.display()))
    })?;
    if !is_dir {
        return Err(Error::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is not a directory", dir.display()),
        )));
    }
    let mut c = Checker {
        fs,
        dir,
        out: DatabaseCheck {
            // The database is open in another process (its `LOCK` is held): in-flight work
            // may show as warnings.
            locked_by_other: fs.lock_held(&dir.join("LOCK")),
            ..DatabaseCheck::default()
        },
        on_file: &mut on_file,
    };
    let manifest = c.check_manifest();
    let referenced = match &manifest {
        Some((state, _)) => {
            c.check_regions(state);
            c.check_listed_files(state)
        }
        None => BTreeSet::new(),
    };
    c.check_unlisted(&referenced, manifest.as_ref());
    c.check_wal(manifest.as_ref().map(|(s, _)| s));
    Ok(c.out)
}

/// Checks one block file (a regular file only) block by block, as [`check_database`] checks
/// the block files of a database: unlike [`BlockFile::open`](super::BlockFile::open) it
/// reports a file whose trailer, meta block or index is damaged, and every damaged block in it.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read.
pub fn check_block_file(path: impl AsRef<Path>) -> Result<Vec<Finding>> {
    let path = path.as_ref();
    let file = Arc::new(OwnedFile(read_block_file(&StdFs, path)?));
    Ok(check_blocks(path, &file, None, true).findings)
}

/// The check in progress.
pub(super) struct Checker<'a> {
    pub(super) fs: &'a dyn FileSystem,
    pub(super) dir: &'a Path,
    pub(super) out: DatabaseCheck,
    pub(super) on_file: &'a mut dyn FnMut(&Path),
}

/// A listed block file: its family, recorded size, where it is listed and its table.
struct Listed {
    file: FileRef,
    at: String,
    table_id: u64,
}

impl Checker<'_> {
    pub(super) fn error(&mut self, path: &Path, offset: Option<u64>, detail: impl Into<String>) {
        self.out.findings.push(Finding::error(path, offset, detail));
    }

    pub(super) fn warn(&mut self, path: &Path, offset: Option<u64>, detail: impl Into<String>) {
        self.out
            .findings
            .push(Finding::warning(path, offset, detail));
    }

    /// Records an engine error (corruption details name their offset in the text).
    pub(super) fn engine(&mut self, path: &Path, e: Error) {
        self.out.findings.push(Finding::from_engine(path, e));
    }

    /// One more file checked.
    pub(super) fn file_checked(&mut self, path: &Path) {
        (self.on_file)(path);
    }

    /// Reads `CURRENT` and replays the manifest it names: the state and whether the manifest
    /// is of the older layout; `None` when there is no usable state.
    fn check_manifest(&mut self) -> Option<(ManifestState, bool)> {
        let dir = self.dir;
        let current = dir.join("CURRENT");
        let name_bytes = match read_regular(self.fs, &current) {
            Ok(b) => b,
            Err(e) => {
                self.no_current(&current, e);
                return None;
            }
        };
        self.out.bytes += name_bytes.len() as u64;
        // As the engine reads it (Manifest::load): trimmed, "MANIFEST-<number>", no path.
        let name = std::str::from_utf8(&name_bytes)
            .ok()
            .map(str::trim)
            .filter(|n| {
                !n.contains('/')
                    && n.strip_prefix("MANIFEST-")
                        .is_some_and(|d| d.parse::<u64>().is_ok())
            });
        let Some(name) = name else {
            self.error(
                &current,
                Some(0),
                "does not name a manifest (expected \"MANIFEST-<digits>\\n\")",
            );
            return None;
        };
        // Stale manifests and a leftover CURRENT.tmp (a crash between writing and renaming).
        if let Ok(all) = names(self.fs, dir) {
            for n in all {
                if (n.starts_with("MANIFEST-") && n != name) || n == "CURRENT.tmp" {
                    self.warn(
                        &dir.join(&n),
                        None,
                        "not named by CURRENT (left by an interrupted manifest switch; the next \
                         open replaces it)",
                    );
                }
            }
        }
        let path = dir.join(name);
        let bytes = match read_regular(self.fs, &path) {
            Ok(b) => b,
            Err(e) => {
                self.error(
                    &path,
                    None,
                    format!("manifest named by CURRENT cannot be read: {e}"),
                );
                return None;
            }
        };
        self.out.bytes += bytes.len() as u64;
        self.out.notes.push(format!(
            "manifest {}: {} bytes",
            path.display(),
            bytes.len()
        ));
        if bytes.is_empty() {
            self.error(
                &path,
                Some(0),
                "the manifest is empty: every open writes a snapshot before CURRENT names it, so \
                 its content is lost (tables, regions and files unknown)",
            );
            return None;
        }
        // As the engine replays it: the snapshot the manifest starts with must be whole; after
        // it, only a torn final record (an append a crash cut off) is dropped.
        let (state, legacy) = match replay_manifest(&bytes, &path) {
            Ok((state, legacy, dropped)) => {
                if let Some(valid) = dropped {
                    self.warn(
                        &path,
                        Some(valid),
                        format!(
                            "torn final record ({} bytes; the change it describes was never \
                             acknowledged and is dropped on open)",
                            bytes.len() as u64 - valid
                        ),
                    );
                }
                if legacy {
                    self.out.notes.push(format!(
                        "manifest {}: written by an older version (no snapshot end record); the \
                         next open rewrites it",
                        path.display()
                    ));
                }
                (state, legacy)
            }
            Err(e) => {
                self.engine(&path, e);
                self.error(
                    &path,
                    None,
                    "manifest not replayed past the damage: tables, regions and files unknown",
                );
                return None;
            }
        };
        if let Ok((records, _)) = read_records(&bytes, &path, TailPolicy::TornFinalRecordOnly) {
            self.out.manifest_records += records.len() as u64;
        }
        self.out.tables = state.tables.len() as u64;
        self.out.regions = state.tables.values().map(|t| t.regions.len() as u64).sum();
        Some((state, legacy))
    }

    /// `CURRENT` cannot be read. When it is missing, the open's own verdict on the directory
    /// says what is there: a database whose `CURRENT` is lost, or files that are no database.
    fn no_current(&mut self, current: &Path, e: std::io::Error) {
        if e.kind() == std::io::ErrorKind::NotFound {
            match check_new_dir(self.fs, self.dir) {
                Err(Error::Corruption { path, detail }) => {
                    self.error(&path, None, detail);
                    return;
                }
                Err(Error::NotADatabase { path, found }) => {
                    self.error(
                        &path,
                        None,
                        format!(
                            "not a cellbase database: no CURRENT, and it holds files no \
                             database has (found {found})"
                        ),
                    );
                    return;
                }
                _ => {}
            }
        }
        self.error(
            current,
            None,
            format!("cannot read ({e}): not a cellbase database, or its manifest pointer is lost"),
        );
    }

    /// Regions of every table must tile the key space: the first starts at "", each starts
    /// where the previous ends, the last ends at "" (unbounded), and none is empty.
    fn check_regions(&mut self, state: &ManifestState) {
        let path = self.dir.join("CURRENT");
        let show = |k: &[u8]| format!("'{}'", to_string_binary(k));
        for (id, t) in &state.tables {
            let name = t.desc.name();
            let mut regions: Vec<_> = t.regions.values().map(|r| &r.def).collect();
            regions.sort_by(|a, b| a.start.cmp(&b.start));
            if regions.is_empty() {
                self.error(
                    &path,
                    None,
                    format!("table {name} (id {id}) has no regions"),
                );
                continue;
            }
            let mut expect: Vec<u8> = Vec::new();
            for (i, r) in regions.iter().enumerate() {
                if r.start != expect {
                    let what = if i == 0 {
                        format!(
                            "the first region {} starts at {} instead of ''",
                            r.id,
                            show(&r.start)
                        )
                    } else if r.start.as_slice() > expect.as_slice() {
                        format!(
                            "gap: no region covers [{}, {})",
                            show(&expect),
                            show(&r.start)
                        )
                    } else {
                        format!(
                            "overlap: region {} starts at {}, before the previous region's end {}",
                            r.id,
                            show(&r.start),
                            show(&expect)
                        )
                    };
                    self.error(&path, None, format!("table {name}: {what}"));
                }
                if !r.end.is_empty() && r.end <= r.start {
                    self.error(
                        &path,
                        None,
                        format!(
                            "table {name}: region {} is empty or reversed [{}, {})",
                            r.id,
                            show(&r.start),
                            show(&r.end)
                        ),
                    );
                }
                if r.end.is_empty() && i + 1 != regions.len() {
                    self.error(
                        &path,
                        None,
                        format!(
                            "table {name}: region {} is unbounded but is not the last region",
                            r.id
                        ),
                    );
                }
                expect = r.end.clone();
            }
            if !expect.is_empty() {
                self.error(
                    &path,
                    None,
                    format!(
                        "table {name}: gap: no region covers rows from {} to the end",
                        show(&expect)
                    ),
                );
            }
        }
    }

    /// Checks every block file the manifest lists (once per file id); returns their ids.
    fn check_listed_files(&mut self, state: &ManifestState) -> BTreeSet<u64> {
        let dir = self.dir;
        let mut files: BTreeMap<u64, Listed> = BTreeMap::new();
        for (&table_id, t) in &state.tables {
            for r in t.regions.values() {
                for f in &r.files {
                    let at = format!("table {} region {}", t.desc.name(), r.def.id);
                    if let Some(first) = files.get(&f.file_id) {
                        if first.file.family != f.family || first.file.size != f.size {
                            let detail = format!(
                                "listed with different family or size by {} and {at}",
                                first.at
                            );
                            self.error(&sst_path(dir, f.file_id), None, detail);
                        }
                    } else {
                        let file = f.clone();
                        let table_id = state.file_table(table_id, f.file_id);
                        files.insert(f.file_id, Listed { file, at, table_id });
                    }
                }
            }
        }
        // Files only snapshots list must exist and check out too.
        for d in state.snapshots.values() {
            let origins: BTreeMap<u64, u64> = d.origins.iter().copied().collect();
            for (r, fs) in &d.regions {
                for f in fs {
                    files.entry(f.file_id).or_insert_with(|| Listed {
                        file: f.clone(),
                        at: format!("snapshot {} (table {}) region {}", d.name, d.table, r.id),
                        table_id: origins.get(&f.file_id).copied().unwrap_or(d.table_id),
                    });
                }
            }
        }
        for (&id, l) in &files {
            let path = sst_path(dir, id);
            if !self.fs.exists(&path) {
                let detail = format!(
                    "missing: the manifest lists it for {}, family {}",
                    l.at,
                    to_string_binary(&l.file.family)
                );
                if self.out.locked_by_other && !self.still_listed(id) {
                    // A live database compacted it away after the manifest was read.
                    self.warn(
                        &path,
                        None,
                        format!(
                            "{detail}; the open database no longer lists it (removed meanwhile)"
                        ),
                    );
                } else {
                    self.error(&path, None, detail);
                }
                continue;
            }
            let Some(file) = self.check_block_file(&path, Some((&l.file.family, l.file.size)))
            else {
                continue;
            };
            // Where it belongs, as the open checks it (its size was checked above, so it is
            // taken as it is here).
            let Ok(reader) = SstReader::from_file(file, &path, id, None) else {
                continue; // the block check reported why
            };
            let listed = FileRef {
                size: reader.meta().file_size,
                ..l.file.clone()
            };
            if let Err(e) = check_listed_file(&reader, &path, state.db_id, l.table_id, &listed) {
                self.engine(&path, e);
            }
        }
        files.into_keys().collect()
    }

    /// Whether the manifest, read again now, still lists file `id` (for a live database, where
    /// a compaction may remove a file between reading the manifest and reading the file).
    fn still_listed(&self, id: u64) -> bool {
        let mut scratch = Checker {
            fs: self.fs,
            dir: self.dir,
            out: DatabaseCheck::default(),
            on_file: &mut |_| {},
        };
        scratch
            .check_manifest()
            .is_none_or(|(s, _)| s.references(id))
    }

    /// Checks one block file; `expect` is the family and size the manifest recorded. Returns
    /// its bytes when they could be read.
    fn check_block_file(
        &mut self,
        path: &Path,
        expect: Option<(&[u8], u64)>,
    ) -> Option<Arc<OwnedFile>> {
        let file = match read_block_file(self.fs, path) {
            Ok(b) => Arc::new(OwnedFile(b)),
            Err(e) => {
                self.error(path, None, e.to_string());
                return None;
            }
        };
        self.out.block_files += 1;
        self.file_checked(path);
        let len = file.0.len() as u64;
        self.out.bytes += len;
        let size_ok = expect.is_none_or(|(_, size)| size == len);
        if let Some((_, size)) = expect
            && !size_ok
        {
            self.error(
                path,
                None,
                format!("file is {len} bytes, the manifest recorded {size}"),
            );
        }
        let check = check_blocks(path, &file, expect.map(|(f, _)| f), size_ok);
        self.out.blocks += check.blocks;
        self.out.cells += check.cells;
        let sound = size_ok && check.findings.is_empty();
        self.out.findings.extend(check.findings);
        if let Some(n) = check.data_blocks {
            self.out.notes.push(format!(
                "block file {}: {len} bytes, {n} data blocks, {} cells{}",
                path.display(),
                check.cells,
                if sound { ", OK" } else { ", DAMAGED" }
            ));
        }
        Some(file)
    }

    /// Files in `data/` no region lists: what the next open deletes (recorded obsolete, or
    /// numbered above every file the manifest recorded) and what it keeps unexplained.
    fn check_unlisted(&mut self, listed: &BTreeSet<u64>, manifest: Option<&(ManifestState, bool)>) {
        let data = self.dir.join("data");
        let list = match names(self.fs, &data) {
            Ok(l) => l,
            Err(e) => {
                if self.fs.exists(&data) {
                    self.error(&data, None, e);
                } else if manifest.is_some() && !listed.is_empty() {
                    self.error(&data, None, "missing directory");
                }
                return;
            }
        };
        let Some((state, legacy)) = manifest else {
            // Without a manifest every file is unaccounted for: still check its blocks.
            for n in list {
                let path = data.join(&n);
                self.warn(
                    &path,
                    None,
                    "cannot tell whether it is referenced (no manifest)",
                );
                if n.ends_with(".sst") {
                    self.check_block_file(&path, None);
                }
            }
            return;
        };
        // The engine's own rule (docs/ARCHITECTURE.md, "Recovery"): deleted only on proof.
        let sorted = match classify_data_files(self.fs, self.dir, state, !legacy) {
            Ok(s) => s,
            Err(e) => {
                self.engine(&data, e);
                return;
            }
        };
        let mut unlisted: Vec<(PathBuf, &str)> = sorted
            .deletable
            .into_iter()
            .map(|(id, p)| {
                let why = if state.obsolete_files.contains(&id) {
                    "obsolete: the manifest records that a compaction or drop replaced it (the \
                     next open deletes it)"
                } else {
                    "unreferenced: numbered above every file the manifest recorded (a flush or \
                     compaction that did not finish; the next open deletes it)"
                };
                (p, why)
            })
            .chain(sorted.unexplained.into_iter().map(|p| {
                let why = "unexplained: no region lists it, and the manifest does not record it \
                           as obsolete; the engine keeps it (move it away, or restore it with \
                           `cellbase verify --repair`)";
                (p, why)
            }))
            .collect();
        unlisted.sort();
        for (p, why) in unlisted {
            self.warn(&p, None, why);
        }
    }
}
