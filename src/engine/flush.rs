//! Flush (memstore → block files) and compaction (block files → one block file), both through
//! the compaction matcher [CMP-1..6], and the flush triggers and write back-pressure [REG-2].
//!
//! Flush steps: (1) under the region's update lock, move the active memstore to the snapshot
//! and note the highest sequence id assigned; (2) write one file per family through the flush
//! matcher, `fdatasync` each, then `fsync` the data directory; (3) append and sync the manifest
//! edit; (4) install the files and drop the snapshot; (5) delete log segments no longer needed.

use crate::base::error::{Error, Result};
use crate::base::io::FileSystem;
use crate::engine::Engine;
use crate::engine::background::Job;
use crate::engine::picker::{PickerConfig, pick};
use crate::engine::region::{Queued, Region, StoreFile, sort_newest_first};
use crate::engine::table::TableShared;
use crate::model::cursor::CellCursor;
use crate::model::key::KeyRef;
use crate::model::payload::PayloadRef;
use crate::model::schema::{FamilyDescriptor, TableDescriptor};
use crate::read::matcher::{CompactionKind, CompactionMatcher, MatchCode};
use crate::read::merge::MergeCursor;
use crate::storage::manifest::{Edit, FileRef, Manifest};
use crate::storage::sst::meta::FileIdentity;
use crate::storage::sst::sst_path;
use crate::storage::sst::{
    BlockCache, CachePolicy, FileMeta, SstReader, SstWriter, SstWriterConfig,
};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Writes stores hold more files than this before flushes wait for compactions
/// (`hbase.hstore.blockingStoreFiles`).
const BLOCKING_STORE_FILES: usize = 16;
/// Writes wait while a region's memstores exceed this multiple of the flush size
/// (`hbase.hregion.memstore.block.multiplier`).
const BLOCK_MULTIPLIER: u64 = 4;

fn writer_config(f: &FamilyDescriptor) -> SstWriterConfig {
    SstWriterConfig {
        block_size: f.block_size as usize,
        compression: f.compression,
        bloom: f.bloom_filter,
        ..SstWriterConfig::default()
    }
}

/// What writing and installing a block file needs: the database's files, manifest and cache,
/// the clock for TTLs and the read point cells above which are kept. [`Engine::file_ctx`]
/// builds it for a running database; the open ([`Engine::open`]) builds one for flushes during
/// log replay, before the database's handle exists.
pub(crate) struct FileCtx<'a> {
    pub fs: &'a dyn FileSystem,
    pub path: &'a Path,
    pub manifest: &'a Mutex<Manifest>,
    pub cache: &'a Arc<BlockCache>,
    pub now: i64,
    /// Open scanners' read points (read point -> count), when scanners can be open: cells
    /// above the smallest one are kept and never mask (§1.7).
    pub scanner_points: Option<&'a Mutex<BTreeMap<u64, usize>>>,
}

/// Streams cells through a compaction matcher into a new file per family.
struct Output<'a> {
    ctx: &'a FileCtx<'a>,
    table_id: u64,
    family: &'a FamilyDescriptor,
    matcher: CompactionMatcher,
    writer: Option<(u64, SstWriter)>,
    /// Dropping the rest of this column (row, family, qualifier of the cell that said so).
    skip_column: Option<Vec<u8>>,
    /// A bound on the output's distinct Bloom keys ([`SstWriter::bound_bloom_keys`]).
    bloom_bound: Option<u64>,
}

impl<'a> Output<'a> {
    fn new(
        ctx: &'a FileCtx<'a>,
        table_id: u64,
        family: &'a FamilyDescriptor,
        kind: CompactionKind,
        earliest_put_ts: i64,
    ) -> Self {
        Output {
            ctx,
            table_id,
            family,
            matcher: CompactionMatcher::new(family, kind, ctx.now, earliest_put_ts, 0)
                .max_read_point(ctx.smallest_read_point()),
            writer: None,
            skip_column: None,
            bloom_bound: None,
        }
    }

    /// A compaction's output: its Bloom filter is built in place, sized for the sum of the
    /// inputs' key counts (an upper bound of the output's), when every input has a filter of
    /// the family's type and the sum is at most six times the largest input's count (past
    /// that, overlapping inputs would make the in-place bitmap, ~1.2 bytes per summed key,
    /// larger than the 8-byte hashes of the keys the output can have).
    fn bound_bloom_keys(mut self, inputs: &[Arc<StoreFile>]) -> Self {
        let mut sum = 0u64;
        let mut largest = 0u64;
        for f in inputs {
            match f.reader.bloom_keys() {
                Some((kind, n)) if kind == self.family.bloom_filter => {
                    // A file holds fewer distinct keys than bytes, whatever its (checksummed
                    // but not trusted) filter header says: the bitmap stays within reason.
                    let n = n.min(f.size());
                    sum = sum.saturating_add(n);
                    largest = largest.max(n);
                }
                _ => return self,
            }
        }
        if sum > 0 && sum <= largest.saturating_mul(6) {
            self.bloom_bound = Some(sum);
        }
        self
    }

    fn push(&mut self, key: &[u8], payload: &[u8]) -> Result<()> {
        let k = KeyRef::parse(key).ok_or_else(|| {
            Error::corruption(self.ctx.path, "malformed key during flush/compaction")
        })?;
        // `skip_column` holds a key parsed before, so it parses again.
        if let Some(c) = self.skip_column.as_deref().and_then(KeyRef::parse) {
            if c.same_column(&k) {
                return Ok(());
            }
            self.skip_column = None;
        }
        let p = PayloadRef::parse(payload).ok_or_else(|| {
            Error::corruption(self.ctx.path, "malformed payload during flush/compaction")
        })?;
        match self.matcher.match_cell(&k, &p) {
            MatchCode::Include => {
                if self.writer.is_none() {
                    let (id, db_id) = {
                        let mut m = self.ctx.manifest.lock();
                        (m.next_file_id(), m.state().db_id)
                    };
                    let path = sst_path(self.ctx.path, id);
                    let file = self.ctx.fs.create(&path)?;
                    let mut w = SstWriter::new(file, path, writer_config(self.family))
                        .with_identity(FileIdentity {
                            db_id,
                            file_id: id,
                            table_id: self.table_id,
                            family: self.family.name.clone(),
                        });
                    if let Some(n) = self.bloom_bound {
                        w.bound_bloom_keys(n);
                    }
                    self.writer = Some((id, w));
                }
                if let Some((_, w)) = &mut self.writer {
                    w.add(key, payload)?;
                }
            }
            MatchCode::Skip => {}
            _ => self.skip_column = Some(key.to_vec()),
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Option<(u64, FileMeta)>> {
        match self.writer.take() {
            Some((id, w)) => match w.finish() {
                Ok(meta) => Ok(Some((id, meta))),
                Err(e) => {
                    // Unfinished and named by no edit: this job's own leftover.
                    let _ = self.ctx.fs.remove(&sst_path(self.ctx.path, id));
                    Err(e)
                }
            },
            None => Ok(None),
        }
    }
}

impl Drop for Output<'_> {
    /// A flush or compaction that failed before [`Output::finish`] removes the file it was
    /// writing: no manifest edit names it, and only this job knows it is its own.
    fn drop(&mut self) {
        if let Some((id, w)) = self.writer.take() {
            drop(w);
            let _ = self.ctx.fs.remove(&sst_path(self.ctx.path, id));
        }
    }
}

impl FileCtx<'_> {
    /// The smallest read point of any open scanner (`u64::MAX` when none is open).
    pub(crate) fn smallest_read_point(&self) -> u64 {
        self.scanner_points
            .and_then(|p| p.lock().keys().next().copied())
            .unwrap_or(u64::MAX)
    }

    fn open_new_file(&self, family: &[u8], id: u64) -> Result<Arc<StoreFile>> {
        let reader = SstReader::open(
            self.fs,
            &sst_path(self.path, id),
            id,
            Some(self.cache.clone()),
        )?;
        Ok(Arc::new(StoreFile {
            id,
            family: family.to_vec(),
            reader: Arc::new(reader),
        }))
    }

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
            for (_, id, _) in &new_files {
                let _ = self.fs.remove(&sst_path(self.path, *id));
            }
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

    /// A background thread's flush request ([`Engine::maybe_flush`] queued it): flushes only
    /// when the memstore is still at the flush size (or a failed flush left a snapshot) once
    /// this flush holds the region's flush lock. A request queued while an earlier flush was
    /// running is void once that flush has taken the memstore, as HBase drops the flush
    /// request of a region that is already flushing; flushing the few writes that arrived
    /// meanwhile would only add a small file (and compactions).
    pub(crate) fn flush_requested(
        &self,
        table: &Arc<TableShared>,
        region: &Arc<Region>,
    ) -> Result<()> {
        self.flush_after_wait(table, region, FlushIf::Due)
    }

    /// Waits until the stores may take another file, then flushes under the region's flush
    /// lock if `when` still holds there.
    fn flush_after_wait(
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

    /// With background threads, flushes wait (up to 90 s, `hbase.hstore.blockingWaitTime`) while
    /// a store has too many files, compacting them first.
    fn wait_for_store_files(&self, table: &Arc<TableShared>, region: &Arc<Region>) -> Result<()> {
        if self.opts.background_threads == 0 {
            return Ok(());
        }
        let too_many = region
            .current()
            .files
            .values()
            .any(|l| l.len() > BLOCKING_STORE_FILES);
        if too_many {
            self.compact_region(table, region, false)?;
        }
        Ok(())
    }

    /// Queues a minor compaction when a store reaches the minimum file count.
    pub(crate) fn maybe_compact(&self, table: &Arc<TableShared>, region: &Arc<Region>) {
        if self.opts.background_threads == 0 {
            return;
        }
        // HBase's `needsCompaction` (at least `compaction.min` files) or `hasReferences`.
        let needs =
            region.current().files.values().any(|l| l.len() >= 3) || region.has_references();
        if needs && region.try_queue(Queued::Compaction) {
            self.bg.submit(Job::Compact(table.clone(), region.clone()));
        }
    }

    /// After a write: flush when the memstore passes the flush size (inline without background
    /// threads), and make writers wait while it exceeds 4× (only when a thread will flush);
    /// then the same for all memstores together against the global bound.
    pub(crate) fn maybe_flush(&self, table: &Arc<TableShared>, region: &Arc<Region>) -> Result<()> {
        self.maybe_flush_region(table, region)?;
        self.reclaim_memstore_memory()
    }

    /// The global bound ([`crate::DbOptions::global_memstore_size`]), as HBase's
    /// `MemStoreFlusher#reclaimMemStoreMemory`: at or above the lower limit a background
    /// thread flushes the largest memstores; at or above the bound the writer waits for it.
    /// Without background threads the writer flushes them itself. As with the per-region
    /// bound, a writer that waited a second without relief flushes itself: writes slow down,
    /// they never fail or hang.
    fn reclaim_memstore_memory(&self) -> Result<()> {
        if !self.global_pressure() {
            return Ok(());
        }
        let limit = self.opts.global_memstore_size;
        let at_bound = || self.memstore_bytes.load(Ordering::Relaxed) >= limit;
        if self.opts.background_threads == 0 {
            return if at_bound() {
                self.flush_for_global_pressure()
            } else {
                Ok(())
            };
        }
        if !self.global_flush_queued.swap(true, Ordering::AcqRel) {
            self.bg.submit(Job::GlobalFlush);
        }
        self.wait_while(at_bound, || self.flush_for_global_pressure())
    }

    /// All memstores together are at or above the global lower limit,
    /// [`crate::DbOptions::global_memstore_lower_limit`] of
    /// [`crate::DbOptions::global_memstore_size`] (HBase's
    /// `hbase.regionserver.global.memstore.size.lower.limit`); never without a bound.
    fn global_pressure(&self) -> bool {
        self.memstore_bytes.load(Ordering::Relaxed) >= self.global_low_mark
    }

    /// Flushes the region with the largest active memstore, whatever its flush size, until all
    /// memstores together are below the global lower limit (HBase's
    /// `flushOneForGlobalPressure`), at most once per region: memory a reader still holds
    /// after its memstore's flush is not the flusher's to free.
    pub(crate) fn flush_for_global_pressure(&self) -> Result<()> {
        let regions = self.all_regions();
        for _ in 0..regions.len() {
            if !self.global_pressure() {
                break;
            }
            let Some((size, t, r)) = regions
                .iter()
                .filter(|(t, r)| !t.is_dropped() && !r.is_retired())
                .map(|(t, r)| (r.current().active.size(), t, r))
                .max_by_key(|&(size, ..)| size)
            else {
                break;
            };
            if size == 0 {
                break;
            }
            self.flush_after_wait(t, r, FlushIf::GlobalPressure)?;
        }
        Ok(())
    }

    /// The per-region part of [`Engine::maybe_flush`].
    fn maybe_flush_region(&self, table: &Arc<TableShared>, region: &Arc<Region>) -> Result<()> {
        let flush_size = table.flush_size(self.opts.memstore_flush_size);
        if region.current().active.size() < flush_size {
            return Ok(());
        }
        if self.opts.background_threads == 0 {
            return self.flush_region(table, region);
        }
        if region.try_queue(Queued::Flush) {
            self.bg.submit(Job::Flush(table.clone(), region.clone()));
        }
        // Back-pressure [REG-2]: wait for the background flush while the region holds more than
        // 4 x the flush size.
        self.wait_while(
            || region.memstore_size() >= BLOCK_MULTIPLIER * flush_size,
            || self.flush_region(table, region),
        )
    }

    /// Makes a writer wait while `blocked` holds (background flushes notify `stall`). If
    /// nothing relieves it within a second (a slow or failing flush), the writer runs
    /// `relieve` itself (a flush): writes slow down, they never fail or hang.
    fn wait_while(
        &self,
        blocked: impl Fn() -> bool,
        relieve: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let deadline = std::time::Instant::now() + Duration::from_secs(1);
        let mut g = self.stall.0.lock();
        while blocked() && !self.closed.load(Ordering::Acquire) {
            if std::time::Instant::now() >= deadline {
                drop(g);
                return relieve();
            }
            self.stall.1.wait_for(&mut g, Duration::from_millis(20));
        }
        Ok(())
    }

    /// Compacts each store of a region: minor by the exploring policy, or major (every file).
    /// A minor compaction that selects every file of a store is a major one [REG-1].
    pub(crate) fn compact_region(
        &self,
        table: &Arc<TableShared>,
        region: &Arc<Region>,
        major: bool,
    ) -> Result<()> {
        let _one = region.compaction_guard();
        if table.is_dropped() || region.is_retired() {
            return Ok(());
        }
        self.compact_locked(table, region, major)
    }

    /// [`Engine::compact_region`] for a caller holding the region's compaction lock. A store
    /// holding references (shared with another region after a split or merge) is always
    /// compacted whole, which rewrites them into files of its own (as HBase forces).
    pub(crate) fn compact_locked(
        &self,
        table: &Arc<TableShared>,
        region: &Arc<Region>,
        major: bool,
    ) -> Result<()> {
        let desc: Arc<TableDescriptor> = table.desc_arc();
        let flush_size = desc
            .table_memstore_flush_size()
            .unwrap_or(self.opts.memstore_flush_size);
        // The file lists only: the version also holds the memstores, and a compaction that
        // kept them for its whole run would keep every memstore flushed meanwhile in memory
        // (measured in the harness's YCSB load: up to 130 MiB held by a 1 s compaction).
        let store_files = region.current().files.clone();
        for (family, files) in &store_files {
            let Some(fd) = desc.get_family(family) else {
                continue;
            };
            // Oldest first for the picker.
            let oldest_first: Vec<Arc<StoreFile>> = files.iter().rev().cloned().collect();
            let has_references = files.iter().any(|f| region.is_reference(f));
            let chosen: Vec<Arc<StoreFile>> = if major || has_references {
                oldest_first
            } else {
                let sizes: Vec<u64> = oldest_first.iter().map(|f| f.size()).collect();
                match pick(&sizes, &PickerConfig::with_flush_size(flush_size)) {
                    Some(r) => oldest_first[r].to_vec(),
                    None => continue,
                }
            };
            if chosen.is_empty() {
                continue;
            }
            let kind = if chosen.len() == files.len() {
                CompactionKind::Major
            } else {
                CompactionKind::Minor
            };
            self.compact_files(table, region, fd, &chosen, kind)?;
        }
        self.maybe_split(table, region);
        Ok(())
    }

    fn compact_files(
        &self,
        table: &Arc<TableShared>,
        region: &Arc<Region>,
        fd: &FamilyDescriptor,
        chosen: &[Arc<StoreFile>],
        kind: CompactionKind,
    ) -> Result<()> {
        let earliest_put_ts = chosen
            .iter()
            .map(|f| f.reader.meta().earliest_put_ts)
            .min()
            .unwrap_or(i64::MAX);
        let mut newest_first = chosen.to_vec();
        sort_newest_first(&mut newest_first);
        let no_cache = CachePolicy {
            fill: false,
            in_memory: false,
        };
        let cursors: Vec<Box<dyn CellCursor>> = newest_first
            .iter()
            .map(|f| Box::new(f.reader.cursor(no_cache)) as Box<dyn CellCursor>)
            .collect();
        let mut merge = MergeCursor::new(cursors);
        // Files shared with another region (references) hold rows outside this region: the
        // output keeps only the region's own [start, end).
        merge.seek(&crate::model::key::first_on_row(&region.start()))?;
        let ctx = self.file_ctx();
        let mut out =
            Output::new(&ctx, table.id, fd, kind, earliest_put_ts).bound_bloom_keys(chosen);
        while merge.valid() {
            if !region.end().is_empty()
                && KeyRef::parse(merge.key()).is_some_and(|k| k.row >= region.end())
            {
                break;
            }
            out.push(merge.key(), merge.payload())?;
            merge.next()?;
        }
        let result = out.finish()?;
        if result.is_some() {
            self.fs.sync_dir(&self.path.join("data"))?;
        }
        let added: Vec<FileRef> = result
            .iter()
            .map(|(id, m)| FileRef {
                family: fd.name.clone(),
                file_id: *id,
                size: m.file_size,
            })
            .collect();
        let removed: Vec<u64> = chosen.iter().map(|f| f.id).collect();
        self.manifest.lock().append(&Edit::Compact {
            table_id: table.id,
            region_id: region.id(),
            removed: removed.clone(),
            added,
        })?;
        let opened = match &result {
            Some((id, _)) => Some(ctx.open_new_file(&fd.name, *id)?),
            None => None,
        };
        region.replace_files(&fd.name, &removed, opened);
        // Open readers keep their mapping; the names go now, unless another region still lists
        // the file.
        self.remove_unlisted_files(removed);
        self.stall.1.notify_all();
        crate::base::util::release_free_memory();
        Ok(())
    }
}

/// When a flush that waited for the region's flush lock still runs.
#[derive(Clone, Copy)]
enum FlushIf {
    Always,
    /// The memstore is at its flush size, or a failed flush left a snapshot to retry.
    Due,
    /// All memstores together are still at or above the global lower limit.
    GlobalPressure,
}
