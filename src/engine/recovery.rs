//! What an open decides about the files it finds before it changes anything: whether a
//! directory without `CURRENT` may become a new database, which files of `data/` it may delete
//! (only on proof), and which write-ahead log segments the manifest expects but are gone.
//!
//! The rules (docs/ARCHITECTURE.md, "Recovery"):
//! - A database is created only in a missing or empty directory, or over the remains of a
//!   creation that crashed before `CURRENT` named its manifest (no tables, no block files, no
//!   log). Anything else without `CURRENT` is refused and left as it is.
//! - A file of `data/` is deleted only when the manifest records it as obsolete (a compaction
//!   or drop replaced it) or when its number is at or above the manifest's durable next file
//!   id (the output of a flush or compaction that never reached the manifest). Every other
//!   file no region lists is kept and reported ([`RecoveryReport::unexplained_files`]).
//! - Every WAL segment the manifest records as live must exist.

use crate::base::error::{Error, Result};
use crate::base::io::{FileLock, FileSystem};
use crate::storage::manifest::ManifestState;
use crate::storage::sst::SstReader;
use crate::storage::sst::parse_sst_name;
use crate::storage::wal::segment::{parse_segment_name, segment_path};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What the last open of a database found and did beyond the ordinary: returned by
/// [`crate::Db::recovery_report`], so a program (or `cellbase verify`) can say what was dropped
/// or set aside instead of it happening silently.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecoveryReport {
    /// WAL segments the manifest recorded as holding writes not yet in block files that were
    /// missing, dropped under [`crate::WalRecovery::SkipMissingSegments`]: their writes are gone.
    pub missing_wal_segments: Vec<PathBuf>,
    /// The offset of a torn final manifest record that was dropped: an edit whose append a
    /// crash cut off, never acknowledged.
    pub dropped_manifest_tail: Option<u64>,
    /// The newest WAL segment ended in a torn record (a write a crash cut off, never
    /// acknowledged to a `SyncWal` or `FsyncWal` writer), which was cut off.
    pub torn_wal_tail: bool,
    /// Files the open deleted: block files the manifest records as obsolete, and outputs of
    /// flushes or compactions that never reached the manifest.
    pub deleted_files: Vec<PathBuf>,
    /// Files the engine cannot account for, kept as they are: block files no region lists
    /// that are neither recorded as obsolete nor numbered above the last recorded file, and
    /// files that are not the engine's at all.
    pub unexplained_files: Vec<PathBuf>,
}

/// Files in `dir` (empty when it does not exist).
fn list_or_empty(fs: &dyn FileSystem, dir: &Path) -> Result<Vec<String>> {
    if !fs.exists(dir) {
        return Ok(Vec::new());
    }
    Ok(fs.list(dir)?)
}

/// Checks that a directory without `CURRENT` may hold a new database: it is missing or empty,
/// or holds only what a creation that crashed before `CURRENT` leaves (`LOCK`, `CURRENT.tmp`,
/// `MANIFEST-n` files, empty `data/` and `wal/`).
///
/// # Errors
/// [`Error::Corruption`] naming `CURRENT` when the directory holds a database (block files or
/// log segments); [`Error::NotADatabase`] when it holds anything else.
pub(crate) fn check_new_dir(fs: &dyn FileSystem, path: &Path) -> Result<()> {
    let mut database = Vec::new();
    let mut foreign = Vec::new();
    let mut manifests = Vec::new();
    for name in list_or_empty(fs, path)? {
        let p = path.join(&name);
        match name.as_str() {
            "LOCK" | "CURRENT.tmp" => {}
            "data" | "wal" => match fs.list(&p) {
                Ok(files) => {
                    let ours = |f: &String| {
                        if name == "data" {
                            parse_sst_name(f).is_some()
                        } else {
                            parse_segment_name(f).is_some()
                        }
                    };
                    let n = files.iter().filter(|f| ours(f)).count();
                    if n > 0 {
                        let kind = if name == "data" {
                            "block files"
                        } else {
                            "log segments"
                        };
                        database.push(format!("{n} {kind} in {name}/"));
                    }
                    foreign.extend(
                        files
                            .iter()
                            .filter(|f| !ours(f))
                            .map(|f| format!("{name}/{f}")),
                    );
                }
                Err(_) => foreign.push(name),
            },
            // What a creation writes before `CURRENT` names its first manifest; without block
            // files or log segments beside it, nothing was ever acknowledged in it (every open
            // creates a log segment before it takes a write).
            n if n.starts_with("MANIFEST-") => manifests.push(name),
            _ => foreign.push(name),
        }
    }
    if !database.is_empty() {
        database.extend(manifests);
        return Err(Error::corruption(
            path.join("CURRENT"),
            format!(
                "missing, but the directory holds a database ({}): refusing to create a new \
                 database over it; restore CURRENT (it names the newest MANIFEST-n), or run \
                 `cellbase verify --repair`",
                database.join(", ")
            ),
        ));
    }
    if !foreign.is_empty() {
        foreign.sort();
        let more = foreign.len().saturating_sub(5);
        let mut found: Vec<String> = foreign.into_iter().take(5).collect();
        if more > 0 {
            found.push(format!("and {more} more"));
        }
        return Err(Error::NotADatabase {
            path: path.to_path_buf(),
            found: found.join(", "),
        });
    }
    Ok(())
}

/// What to do with the files of `data/` that no region lists.
#[derive(Debug, Default)]
pub(crate) struct DataFiles {
    /// Provably not needed: recorded obsolete, recorded as reserved for an output no edit
    /// added (unfinished work), or numbered at or above the next file id.
    pub deletable: Vec<(u64, PathBuf)>,
    /// Kept and reported.
    pub unexplained: Vec<PathBuf>,
}

/// Sorts the files of `data/` that no region lists into deletable and unexplained.
/// `ids_durable` says whether `state.next_file_id` was recorded (manifests written before it
/// was only derive it from the files they list; then only recorded-obsolete files go).
pub(crate) fn classify_data_files(
    fs: &dyn FileSystem,
    path: &Path,
    state: &ManifestState,
    ids_durable: bool,
) -> Result<DataFiles> {
    let live: BTreeSet<u64> = state.kept_files();
    let data = path.join("data");
    let mut out = DataFiles::default();
    for name in list_or_empty(fs, &data)? {
        let p = data.join(&name);
        match parse_sst_name(&name) {
            Some(id) if live.contains(&id) => {}
            Some(id)
                if state.obsolete_files.contains(&id)
                    || state.reserved_files.contains(&id)
                    || (ids_durable && id >= state.next_file_id) =>
            {
                out.deletable.push((id, p));
            }
            _ => out.unexplained.push(p),
        }
    }
    Ok(out)
}

/// Log segments present in `wal_dir`, ascending.
pub(crate) fn present_segments(fs: &dyn FileSystem, wal_dir: &Path) -> Result<BTreeSet<u64>> {
    Ok(list_or_empty(fs, wal_dir)?
        .iter()
        .filter_map(|n| parse_segment_name(n))
        .collect())
}

/// The segments the manifest records as live that are not in `present`, as paths.
pub(crate) fn missing_segments(
    state: &ManifestState,
    present: &BTreeSet<u64>,
    wal_dir: &Path,
) -> Vec<PathBuf> {
    state
        .wal_segments
        .iter()
        .flatten()
        .filter(|id| !present.contains(id))
        .map(|&id| segment_path(wal_dir, id))
        .collect()
}

/// A new database's identity: random (the standard library's per-process random hash keys,
/// with the process id), never 0.
pub(crate) fn new_db_id() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.finish().max(1)
}

/// Takes one of the database's locks (the directory's, or the `LOCK` file's). A process that
/// forks while it holds a descriptor of the lock (any fork in the embedding program, between
/// fork and exec) keeps the lock alive for a moment after the previous holder closed it, so a
/// refused lock is retried for up to half a second before the directory counts as locked by
/// someone else.
pub(crate) fn take_lock(
    path: &Path,
    lock: impl Fn() -> std::io::Result<Box<dyn FileLock>>,
) -> Result<Box<dyn FileLock>> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(500);
    loop {
        match lock() {
            Ok(l) => return Ok(l),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if std::time::Instant::now() >= deadline {
                    return Err(Error::Locked(path.to_path_buf()));
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) => return Err(Error::Io(e)),
        }
    }
}

/// Checks a block file against the manifest entry that names it: its recorded identity (meta
/// version 3; a file copied or moved into another file's place is corruption, not that file)
/// and its size.
pub(crate) fn check_listed_file(
    reader: &SstReader,
    p: &Path,
    db_id: u64,
    table_id: u64,
    f: &crate::storage::manifest::FileRef,
) -> Result<()> {
    if let Some(id) = &reader.meta().identity {
        check_identity(id, p, db_id, table_id, f)?;
    }
    if reader.meta().file_size != f.size {
        return Err(Error::corruption(
            p,
            format!(
                "file is {} bytes, the manifest recorded {}",
                reader.meta().file_size,
                f.size
            ),
        ));
    }
    Ok(())
}

fn check_identity(
    id: &crate::storage::sst::meta::FileIdentity,
    p: &Path,
    db_id: u64,
    table_id: u64,
    f: &crate::storage::manifest::FileRef,
) -> Result<()> {
    if id.file_id != f.file_id || id.table_id != table_id || id.family != f.family {
        return Err(Error::corruption(
            p,
            format!(
                "misplaced block file: it records itself as file {} of table {}, family {:?}, \
                 but the manifest lists this path as file {} of table {table_id}, family {:?}",
                id.file_id,
                id.table_id,
                String::from_utf8_lossy(&id.family),
                f.file_id,
                String::from_utf8_lossy(&f.family),
            ),
        ));
    }
    if id.db_id != db_id {
        return Err(Error::corruption(
            p,
            format!(
                "block file of another database (id {:016x}; this database is {db_id:016x})",
                id.db_id
            ),
        ));
    }
    Ok(())
}

/// Creates `path` and its missing ancestors, then syncs the parent of every directory it
/// created: a new directory entry is durable only once its parent directory is synced, so
/// without this a power loss can take a freshly created database directory (with everything
/// acknowledged in it) away.
pub(crate) fn create_dir_durably(fs: &dyn FileSystem, path: &Path) -> Result<()> {
    let missing: Vec<&Path> = path
        .ancestors()
        .filter(|a| !a.as_os_str().is_empty())
        .take_while(|a| !fs.exists(a))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    fs.create_dir_all(path)?;
    // Deepest first is fine: each directory's entries are made durable by syncing it.
    for dir in missing {
        match dir.parent() {
            Some(p) if p.as_os_str().is_empty() => fs.sync_dir(Path::new("."))?,
            Some(p) => fs.sync_dir(p)?,
            None => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sst_names_parse_exactly() {
        assert_eq!(parse_sst_name("0000000034.sst"), Some(34));
        for bad in [
            "34.sst",
            "0000000034.sst.tmp",
            "000000003a.sst",
            "x0000000034.sst",
        ] {
            assert_eq!(parse_sst_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn db_ids_differ() {
        assert_ne!(new_db_id(), new_db_id());
        assert_ne!(new_db_id(), 0);
    }
}
