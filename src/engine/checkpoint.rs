//! `Engine::checkpoint`: a consistent copy of the whole database that opens as a database
//! (RocksDB's Checkpoint), taken while writers keep writing.
//!
//! Steps: refuse an existing target (nothing touched); flush the memstores (HBase's flush
//! snapshot), write out buffered log records, roll the log and delete the segments now in
//! files (as a clean close does: the log copy stays short); build the copy in
//! `TARGET.tmp`: with the log's writes paused and under the manifest's lock (no flush,
//! compaction, split, log roll or file deletion can change the set of live files meanwhile,
//! and the newest log segment holds whole records), hard-link every live block file
//! (copy where the filesystem cannot link), copy the live log segments, and write a fresh
//! manifest of the state the lock holds; sync everything; rename `TARGET.tmp` to `TARGET` and
//! sync its parent. The copy holds every write whose log record was written before the log
//! copy was read, and no later one: a point in time between the call and its return. Cost:
//! O(files) links plus the log's and manifest's bytes; block files are never copied on a
//! filesystem that links.

use super::Engine;
use crate::base::error::{Error, Result};
use crate::storage::manifest::Manifest;
use crate::storage::sst::sst_path;
use crate::storage::wal::segment::segment_path;
use std::path::{Path, PathBuf};

/// What a checkpoint did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CheckpointInfo {
    /// Block files hard-linked into the copy.
    pub files_linked: u64,
    /// Block files copied (the filesystem could not link them).
    pub files_copied: u64,
    /// Log segments copied.
    pub wal_segments: u64,
    /// Bytes written to the copy (copied files and log segments, the manifest, `CURRENT`).
    pub bytes_written: u64,
}

impl Engine {
    /// Writes a checkpoint of the database to `dir`, which must not exist.
    pub(crate) fn checkpoint(&self, dir: &Path) -> Result<CheckpointInfo> {
        self.check_open()?;
        if self.fs.exists(dir) {
            return Err(Error::invalid(format!(
                "checkpoint directory {} already exists (a checkpoint goes into a new directory)",
                dir.display()
            )));
        }
        let name = dir.file_name().ok_or_else(|| {
            Error::invalid(format!(
                "checkpoint directory {} has no name",
                dir.display()
            ))
        })?;
        let mut tmp_name = name.to_os_string();
        tmp_name.push(".tmp");
        let tmp = dir.with_file_name(tmp_name);
        if self.fs.exists(&tmp) {
            return Err(Error::invalid(format!(
                "{} exists (left by an earlier checkpoint that failed?): remove it first",
                tmp.display()
            )));
        }
        // Flush first, as HBase's default snapshot does: the log copy stays short.
        for (t, r) in self.all_regions() {
            if !t.is_dropped() && r.min_unflushed_seq() != u64::MAX {
                self.flush_now(&t, &r)?;
            }
        }
        // The flushed cells' log segments go, as at a clean close: the copy carries only the
        // log written since (plus records buffered under AsyncWal, written out here).
        self.wal.flush_buffered()?;
        self.wal.roll()?;
        self.delete_obsolete_wal()?;
        let info = self.fill_checkpoint(&tmp).map_err(|e| {
            Error::invalid(format!(
                "checkpoint into {} failed: {e}; the partial copy is left in {}",
                dir.display(),
                tmp.display()
            ))
        })?;
        self.fs.rename(&tmp, dir)?;
        let parent = dir
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        self.fs.sync_dir(&parent)?;
        log::info!(
            target: "cellbase::checkpoint",
            "checkpoint of {} written to {}: {} files linked, {} copied, {} log segments, {} bytes written",
            self.path.display(),
            dir.display(),
            info.files_linked,
            info.files_copied,
            info.wal_segments,
            info.bytes_written
        );
        Ok(info)
    }

    /// Builds the copy in `tmp` under the manifest's lock.
    fn fill_checkpoint(&self, tmp: &Path) -> Result<CheckpointInfo> {
        let mut info = CheckpointInfo::default();
        let data = tmp.join("data");
        let wal_dir = tmp.join("wal");
        self.fs.create_dir_all(&data)?;
        self.fs.create_dir_all(&wal_dir)?;
        // No log batch is written meanwhile, so the newest segment is copied as whole records
        // (a copy taken during a write could end in a half-copied record that the open of the
        // copy would take for damage). The log's lock first, then the manifest's: the order a
        // roll takes them in.
        let paused = self.wal.pause_writes();
        let manifest = self.manifest.lock();
        let mut state = manifest.state().clone();
        // Files a compaction or drop left behind are not copied: nothing lists them.
        state.obsolete_files.clear();
        for id in &state.kept_files() {
            let (from, to) = (sst_path(&self.path, *id), sst_path(tmp, *id));
            match self.fs.hard_link(&from, &to) {
                Ok(()) => info.files_linked += 1,
                Err(_) => {
                    info.bytes_written += self.copy_file(&from, &to)?;
                    info.files_copied += 1;
                }
            }
        }
        // The live segments (a roll must record its new segment in the manifest first, so
        // none appears while the lock is held).
        let segments: Vec<u64> = match &state.wal_segments {
            Some(ids) => ids.iter().copied().collect(),
            None => self.wal.segments().iter().map(|s| s.id).collect(),
        };
        for id in segments {
            let from = segment_path(&self.path.join("wal"), id);
            if !self.fs.exists(&from) {
                continue;
            }
            info.bytes_written += self.copy_file(&from, &segment_path(&wal_dir, id))?;
            info.wal_segments += 1;
        }
        drop(manifest);
        drop(paused);
        let m = Manifest::write_snapshot(self.fs.clone(), tmp, 1, state, &|| Ok(()))?;
        drop(m);
        for f in self.fs.list(tmp)? {
            if f.starts_with("MANIFEST") || f == "CURRENT" {
                info.bytes_written += self.fs.read_all(&tmp.join(&f))?.len() as u64;
            }
        }
        self.fs.sync_dir(&data)?;
        self.fs.sync_dir(&wal_dir)?;
        self.fs.sync_dir(tmp)?;
        Ok(info)
    }

    /// Copies `from` to the new file `to` and syncs it; returns the bytes copied.
    fn copy_file(&self, from: &Path, to: &Path) -> Result<u64> {
        let bytes = self.fs.read_all(from)?;
        let mut f = self.fs.create(to)?;
        f.append(&bytes)?;
        f.sync_data()?;
        Ok(bytes.len() as u64)
    }
}
