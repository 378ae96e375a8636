//! The open database's housekeeping ([`Engine`]): the clean close, the tables and regions it
//! holds, block files and log segments that are no longer needed (deleted on the manifest's
//! record), and the read points of open scanners.

use crate::base::error::{Error, Result};
use crate::engine::Engine;
use crate::engine::region::Region;
use crate::engine::table::TableShared;
use crate::storage::manifest::Edit;
use crate::storage::sst::sst_path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

impl Engine {
    /// The clean close shared by [`Db::close`] and the drop of the last handle: refuses new
    /// work, stops background threads, drains writers, syncs the log, then (when `flush`)
    /// flushes each non-empty memstore and deletes the log segments whose records all reached
    /// files. A failing flush stops the flushing: its writes stay in the log, which is synced
    /// before any flush, so an error never loses data. Releases the directory lock last.
    pub(crate) fn shut_down(&self, flush: bool) -> Result<()> {
        // Once only: a later close (from a clone of the handle) must not flush into a
        // directory whose lock is released and which may be open elsewhere by now.
        if self.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        let chore = self.chore.lock().take();
        if let Some(c) = chore {
            c.stop();
        }
        self.bg.shutdown();
        // Writers that passed the open check before `closed` was set may still be finishing;
        // the update locks of every region drain them.
        for (_, r) in self.all_regions() {
            r.drain_writers();
        }
        let mut result = self.wal.sync();
        if flush && self.opts.flush_on_close && result.is_ok() {
            result = self.flush_on_close();
        }
        let closed = self.wal.close();
        // Recorded traffic, while the directory is still this process's.
        let traffic = match &self.traffic {
            Some(_) if self._tempdir.is_none() => self.save_traffic(false).map(|_| ()),
            _ => Ok(()),
        };
        self.lock.lock().take();
        result.and(closed).and(traffic)
    }

    /// Flushes every region holding unflushed cells (without the compaction a flush may wait
    /// for; the splits and compactions it may queue never run), then rolls the log and deletes
    /// the segments now in files.
    fn flush_on_close(&self) -> Result<()> {
        for (t, r) in self.all_regions() {
            if !t.is_dropped() && r.min_unflushed_seq() != u64::MAX {
                self.flush_now(&t, &r)?;
            }
        }
        // A no-op when nothing was logged since the last roll.
        self.wal.roll()?;
        self.delete_obsolete_wal()
    }

    pub fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            Err(Error::Closed)
        } else {
            Ok(())
        }
    }

    pub fn table_shared(&self, name: &str) -> Result<Arc<TableShared>> {
        self.tables
            .read()
            .get(crate::model::namespace::normalize_table_name(name))
            .cloned()
            .ok_or_else(|| Error::TableNotFound(name.to_string()))
    }

    /// A snapshot of every region of every table (no lock held afterwards).
    pub fn all_regions(&self) -> Vec<(Arc<TableShared>, Arc<Region>)> {
        let tables: Vec<Arc<TableShared>> = self.tables.read().values().cloned().collect();
        tables
            .into_iter()
            .flat_map(|t| t.region_list().into_iter().map(move |r| (t.clone(), r)))
            .collect()
    }

    /// Removes the named block files that no region lists any more (readers that have them
    /// open keep their mapping). Best effort: the manifest records them as obsolete, so a
    /// file left behind is removed at the next open.
    pub fn remove_unlisted_files(&self, ids: impl IntoIterator<Item = u64>) {
        let live = self.live_file_ids();
        let mut removed = Vec::new();
        for id in ids {
            if !live.contains(&id) {
                match self.fs.remove(&sst_path(&self.path, id)) {
                    Ok(()) => removed.push(id),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => removed.push(id),
                    Err(_) => {}
                }
            }
        }
        self.manifest.lock().forget_obsolete(&removed);
    }

    /// Ids of the block files some region or snapshot lists (files are shared between the
    /// regions of a split or merge until compactions rewrite them, and with snapshots and
    /// their clones).
    pub fn live_file_ids(&self) -> std::collections::BTreeSet<u64> {
        let mut ids: std::collections::BTreeSet<u64> = self
            .all_regions()
            .iter()
            .flat_map(|(_, r)| r.file_ids())
            .collect();
        // Snapshots keep their files too.
        ids.extend(self.manifest.lock().state().snapshot_files());
        ids
    }

    /// Deletes log segments every record of which is in block files.
    pub fn delete_obsolete_wal(&self) -> Result<()> {
        // A mutation in flight has its log record written but may not be in a memstore yet;
        // its sequence id is above the read point, so the read point bounds it.
        let mut min = self.mvcc.read_point() + 1;
        for (_, r) in self.all_regions() {
            min = min.min(r.min_unflushed_seq());
        }
        self.wal.delete_obsolete_with(min, &|ids| {
            self.manifest
                .lock()
                .append(&Edit::WalSegmentsDeleted { ids: ids.to_vec() })
        })?;
        Ok(())
    }

    /// Takes the current read point and registers it as an open scanner's, atomically with
    /// respect to [`crate::engine::flush::FileCtx::smallest_read_point`].
    pub fn register_scanner(&self) -> u64 {
        let mut points = self.scanner_points.lock();
        let rp = self.mvcc.read_point();
        *points.entry(rp).or_insert(0) += 1;
        rp
    }

    /// Forgets an open scanner's read point.
    pub fn unregister_scanner(&self, rp: u64) {
        let mut points = self.scanner_points.lock();
        if let Some(n) = points.get_mut(&rp) {
            *n -= 1;
            if *n == 0 {
                points.remove(&rp);
            }
        }
    }

    /// Writes buffered AsyncWal records to the OS.
    pub fn flush_async_wal(&self) -> Result<()> {
        self.wal.flush_buffered()
    }
}
