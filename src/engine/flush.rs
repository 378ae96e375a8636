//! Flush: memstore → block files through the flush matcher [CMP-1], and the flush triggers.
//!
//! Steps: (1) under the region's update lock, move the active memstore to the snapshot and note
//! the highest sequence id assigned ([`Region::begin_flush`]); (2) write one file per family
//! through the flush matcher, `fdatasync` each, then `fsync` the data directory; (3) append and
//! sync the manifest edit; (4) install the files and drop the snapshot
//! ([`Region::finish_flush`]); (5) delete log segments no longer needed.

use crate::base::error::{Error, Result};
use crate::engine::Engine;
use crate::engine::output::{FileCtx, Output};
use crate::engine::region::Region;
use crate::engine::table::TableShared;
use crate::model::key::KeyRef;
use crate::read::matcher::CompactionKind;
use crate::storage::manifest::{Edit, FileRef};
use std::collections::BTreeMap;
use std::sync::Arc;

impl FileCtx<'_> {
    /// Flush steps (1) to (4) for a caller holding the region's flush lock: moves the active
    /// memstore to the snapshot (a snapshot left by a failed flush is retried first), writes
    /// one file per family, records them in the manifest and installs them. `last_seq` is
    /// read under the region's update lock: the highest sequence id whose mutation can be in
    /// the memstore. Returns the flushed sequence id, or `None` when the memstore was empty.
    pub(crate) fn flush_memstore(
        &self,
        table: &TableShared,
        region: &Region,
        last_seq: &dyn Fn() -> u64,
    ) -> Result<Option<u64>> {
        // (1) Swap memstores; a snapshot left by a failed flush is retried first.
        let Some((snapshot, flush_seq)) = region.begin_flush(last_seq) else {
            return Ok(None);
        };
        self.write_flush(table, region, snapshot, flush_seq)
    }

    /// Flush steps (2) to (4) for a memstore snapshot already swapped out (by
    /// [`FileCtx::flush_memstore`] or a table snapshot's frozen cut).
    pub(crate) fn write_flush(
        &self,
        table: &TableShared,
        region: &Region,
        snapshot: Arc<crate::storage::memstore::MemStore>,
        flush_seq: u64,
    ) -> Result<Option<u64>> {
        let start = std::time::Instant::now();
        let snapshot_bytes = snapshot.size();
        let mut cells = 0u64;
        // (2) One file per family through the flush matcher [CMP-1].
        let desc = table.desc_arc();
        let mut outputs: BTreeMap<Vec<u8>, Output<'_>> = BTreeMap::new();
        for f in desc.families() {
            outputs.insert(
                f.name.clone(),
                Output::new(self, table.id, f, CompactionKind::Flush, i64::MAX),
            );
        }
        for e in snapshot.iter() {
            let Some(k) = KeyRef::parse(e.key()) else {
                continue;
            };
            if let Some(out) = outputs.get_mut(k.family) {
                out.push(e.key(), e.payload())?;
                cells += 1;
            }
        }
        drop(snapshot);
        let mut new_files = Vec::new();
        let finished = outputs.into_iter().try_for_each(|(fam, out)| {
            if let Some((id, meta)) = out.finish()? {
                new_files.push((fam, id, meta));
            }
            Ok::<(), Error>(())
        });
        let synced = finished.and_then(|()| {
            if !new_files.is_empty() {
                self.fs.sync_dir(&self.path.join("data"))?;
            }
            Ok(())
        });
        if let Err(e) = synced {
            // No edit names the files already finished: this flush's own leftovers (its
            // unfinished outputs removed themselves). The snapshot stays for the retry.
            let ids = new_files.iter().map(|(_, id, _)| *id).collect();
            crate::engine::output::discard_outputs(self.fs, self.path, self.manifest, ids);
            return Err(e);
        }
        // (3) Manifest.
        let refs = new_files
            .iter()
            .map(|(f, id, m)| FileRef {
                family: f.clone(),
                file_id: *id,
                size: m.file_size,
            })
            .collect();
        self.manifest.lock().append(&Edit::Flush {
            table_id: table.id,
            region_id: region.id(),
            flushed_seq: flush_seq,
            files: refs,
        })?;
        // (4) Install.
        let mut opened = Vec::new();
        for (fam, id, _) in &new_files {
            opened.push(self.open_new_file(fam, *id)?);
        }
        // Its cells are in files now: the global total stops counting the snapshot, as HBase
        // decrements its memstore size when a flush completes.
        region.finish_flush(opened, flush_seq);
        let bytes: u64 = new_files.iter().map(|(_, _, m)| m.file_size).sum();
        if let Some(s) = self.stats {
            s.flushes.add(1);
            s.flushed_cells.add(cells);
            s.flushed_bytes.add(bytes);
            let took = start.elapsed();
            s.flush_time.record(took);
            s.note_flush_rate(snapshot_bytes, took);
        }
        log::info!(
            target: "cellbase::flush",
            "flushed table '{}' region {}: {cells} cells, {} bytes in {} files, up to sequence \
             id {flush_seq}, in {} ms",
            table.name,
            region.id(),
            bytes,
            new_files.len(),
            start.elapsed().as_millis()
        );
        // The snapshot's memory is free now (unless a reader still holds it): every flush,
        // the running database's, replay's and the closing one, hands it back.
        crate::base::util::release_free_memory();
        Ok(Some(flush_seq))
    }
}

impl Engine {
    /// The context flushes and compactions write files with.
    pub(crate) fn file_ctx(&self) -> FileCtx<'_> {
        FileCtx {
            fs: self.fs.as_ref(),
            path: &self.path,
            manifest: &self.manifest,
            cache: &self.cache,
            now: self.clock.now_millis(),
            scanner_points: Some(&self.scanner_points),
            stats: Some(&self.stats),
        }
    }

    /// Flushes a region's memstore (no-op when empty).
    pub(crate) fn flush_region(
        &self,
        table: &Arc<TableShared>,
        region: &Arc<Region>,
    ) -> Result<()> {
        self.flush_after_wait(table, region, FlushIf::Always)
    }

    /// Waits until the stores may take another file, then flushes under the region's flush
    /// lock if `when` still holds there.
    pub(crate) fn flush_after_wait(
        &self,
        table: &Arc<TableShared>,
        region: &Arc<Region>,
        when: FlushIf,
    ) -> Result<()> {
        if table.is_dropped() || region.is_retired() {
            return Ok(());
        }
        self.wait_for_store_files(table, region)?;
        let _one = region.flush_guard();
        if region.is_retired() {
            return Ok(());
        }
        match when {
            FlushIf::Always => {}
            FlushIf::Due => {
                let flush_size = table.flush_size(self.opts.memstore_flush_size);
                let v = region.current();
                if v.snapshot.is_none() && v.active.size() < flush_size {
                    return Ok(());
                }
            }
            // The flush this one waited for may have relieved the pressure.
            FlushIf::GlobalPressure => {
                if !self.global_pressure() {
                    return Ok(());
                }
            }
        }
        self.flush_locked(table, region)
    }

    /// [`Engine::flush_region`] without waiting for a compaction to bring the store's file
    /// count down (the closing flush: no compaction runs any more).
    pub(crate) fn flush_now(&self, table: &Arc<TableShared>, region: &Arc<Region>) -> Result<()> {
        let _one = region.flush_guard();
        // A split or merge may have replaced the region meanwhile (it flushed it first).
        if region.is_retired() {
            return Ok(());
        }
        self.flush_locked(table, region)
    }

    /// [`Engine::flush_region`] for a caller holding the region's flush lock.
    pub(crate) fn flush_locked(
        &self,
        table: &Arc<TableShared>,
        region: &Arc<Region>,
    ) -> Result<()> {
        let ctx = self.file_ctx();
        if ctx
            .flush_memstore(table, region, &|| self.mvcc.last_assigned())?
            .is_none()
        {
            return Ok(());
        }
        self.stall.1.notify_all();
        // (5) Log segments fully in files.
        self.delete_obsolete_wal()?;
        // As HBase's MemStoreFlusher: a region due for a split is split, not compacted (the
        // daughters' compactions rewrite its files anyway); otherwise compact if needed.
        if !self.maybe_split(table, region) {
            self.maybe_compact(table, region);
        }
        Ok(())
    }
}

/// When a flush that waited for the region's flush lock still runs.
#[derive(Clone, Copy)]
pub(crate) enum FlushIf {
    Always,
    /// The memstore is at its flush size, or a failed flush left a snapshot to retry: a
    /// background thread's request ([`Engine::maybe_flush`] queued it), void once an earlier
    /// flush took the memstore (flushing the few writes that arrived meanwhile would only add a
    /// small file, and compactions).
    Due,
    /// All memstores together are still at or above the global lower limit.
    GlobalPressure,
}
