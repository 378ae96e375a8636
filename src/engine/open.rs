//! Opening a database: lock the directory, replay and rewrite the manifest, open every block
//! file it names, delete files it proves obsolete, replay the WAL from each region's flushed
//! sequence id (flushing a memstore that reaches its flush size or the global lower limit,
//! then every memstore it refilled), start a new WAL segment,
//! start background threads (docs/ARCHITECTURE.md, "Recovery").

use super::Engine;
use crate::base::error::{Error, Result};
use crate::base::io::FileSystem;
use crate::engine::background::Background;
use crate::engine::mvcc::Mvcc;
use crate::engine::options::{DbOptions, WalRecovery};
use crate::engine::output::FileCtx;
use crate::engine::recovery::{RecoveryReport, check_listed_file, create_dir_durably, take_lock};
use crate::engine::region::{Region, StoreFile};
use crate::engine::table::TableShared;
use crate::storage::manifest::{Edit, Manifest, ManifestState};
use crate::storage::sst::{BlockCache, SstReader, sst_path};
use crate::storage::wal::{Wal, WalOptions};
use parking_lot::{Condvar, Mutex, RwLock};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

impl Engine {
    /// Opens (creating if missing) the database in `path`; `tempdir`, when given, is removed
    /// after everything else of the engine is dropped.
    pub(crate) fn open(
        path: PathBuf,
        opts: DbOptions,
        fs: Arc<dyn FileSystem>,
        tempdir: Option<tempfile::TempDir>,
    ) -> Result<Arc<Engine>> {
        if opts.memstore_flush_size == 0 || opts.max_region_size == 0 {
            return Err(Error::invalid(
                "memstore_flush_size and max_region_size must be > 0",
            ));
        }
        let lower = opts.global_memstore_lower_limit;
        if !(lower > 0.0 && lower <= 1.0) {
            return Err(Error::invalid(format!(
                "global_memstore_lower_limit must be in (0, 1], got {lower}"
            )));
        }
        let jitter = opts.major_compaction_jitter;
        if !(0.0..=1.0).contains(&jitter) {
            return Err(Error::invalid(format!(
                "major_compaction_jitter must be in [0, 1], got {jitter}"
            )));
        }
        if let Some((interval, max)) = opts.traffic
            && (interval.as_millis() < 1
                || !(1..=crate::engine::traffic::MAX_INTERVALS).contains(&max))
        {
            return Err(Error::invalid(format!(
                "traffic_recording needs an interval of at least 1 ms and 1 to {} intervals, got {interval:?} and {max}",
                crate::engine::traffic::MAX_INTERVALS
            )));
        }
        // Exact for every bound below 2^53 bytes.
        let global_low_mark = match opts.global_memstore_size {
            0 => u64::MAX,
            bound => (bound as f64 * lower) as u64,
        };
        // (1) Lock the directory itself before reading anything in it (deleting the `LOCK`
        // file cannot let a second writer in), then decide whether it is, or may become, a
        // database; only then create anything in it.
        create_dir_durably(fs.as_ref(), &path)?;
        let dir_lock = take_lock(&path, || fs.lock_dir(&path))?;
        let loaded = Manifest::load(fs.as_ref(), &path)?;
        if loaded.is_none() {
            crate::engine::recovery::check_new_dir(fs.as_ref(), &path)?;
        }
        // `LOCK` too, for older versions of the engine, which lock only the file.
        let file_lock = take_lock(&path, || fs.lock(&path.join("LOCK")))?;
        create_dir_durably(fs.as_ref(), &path.join("data"))?;
        create_dir_durably(fs.as_ref(), &path.join("wal"))?;
        let mut report = RecoveryReport::default();
        let (mut state, number, old_manifest, ids_durable) = match loaded {
            Some(l) => {
                if l.empty && !fs.list(&path.join("data"))?.is_empty() {
                    return Err(Error::corruption(
                        &l.path,
                        "the manifest is empty (0 bytes) but data/ holds block files",
                    ));
                }
                report.dropped_manifest_tail = l.dropped_tail_at;
                (l.state, l.number, Some(l.path), !l.legacy && !l.empty)
            }
            None => (ManifestState::default(), 0, None, true),
        };
        if state.db_id == 0 {
            state.db_id = crate::engine::recovery::new_db_id();
        }
        let cache = Arc::new(BlockCache::new(opts.block_cache_size));
        let memstore_bytes = Arc::new(AtomicU64::new(0));

        let mut tables = BTreeMap::new();
        let mut max_seq = state.max_flushed_seq;
        for (&table_id, rec) in &state.tables {
            let mut regions = Vec::new();
            for r in rec.regions.values() {
                let mut files: BTreeMap<Vec<u8>, Vec<Arc<StoreFile>>> = BTreeMap::new();
                for f in &r.files {
                    let p = sst_path(&path, f.file_id);
                    let reader = SstReader::open(fs.as_ref(), &p, f.file_id, Some(cache.clone()))?;
                    check_listed_file(
                        &reader,
                        &p,
                        state.db_id,
                        state.file_table(table_id, f.file_id),
                        f,
                    )?;
                    max_seq = max_seq.max(reader.meta().max_seq);
                    files
                        .entry(f.family.clone())
                        .or_default()
                        .push(Arc::new(StoreFile {
                            id: f.file_id,
                            family: f.family.clone(),
                            reader: Arc::new(reader),
                        }));
                }
                for list in files.values_mut() {
                    crate::engine::region::sort_newest_first(list);
                }
                regions.push(Arc::new(Region::new(
                    r.def.id,
                    r.def.start.clone(),
                    r.def.end.clone(),
                    r.flushed_seq,
                    files,
                    &memstore_bytes,
                )));
            }
            regions.sort_by(|a, b| a.start().cmp(b.start()));
            let t = Arc::new(TableShared::new(
                table_id,
                rec.desc.clone(),
                rec.enabled,
                regions,
            ));
            tables.insert(rec.desc.name().to_string(), t);
        }

        // (2) Every log segment the manifest records as live must be there.
        let wal_dir = path.join("wal");
        let present = crate::engine::recovery::present_segments(fs.as_ref(), &wal_dir)?;
        let missing = crate::engine::recovery::missing_segments(&state, &present, &wal_dir);
        if let Some(first) = missing.first() {
            if opts.wal_recovery == WalRecovery::Strict {
                return Err(Error::corruption(
                    first,
                    format!(
                        "WAL segment missing ({} of the {} segments the manifest records as \
                         holding writes not yet in block files are gone); acknowledged writes \
                         may be in it. Restore it, or open with \
                         DbOptions::wal_recovery(WalRecovery::SkipMissingSegments) to drop them",
                        missing.len(),
                        state.wal_segments.as_ref().map_or(0, BTreeSet::len),
                    ),
                ));
            }
            report.missing_wal_segments = missing;
        }
        // A sealed segment shorter than it was synced at lost acknowledged records, whatever
        // its own framing shows (a cut at a record boundary reads as a clean end).
        for (&id, &len) in &state.wal_sealed {
            let p = crate::storage::wal::segment::segment_path(&wal_dir, id);
            if !present.contains(&id) {
                continue;
            }
            let actual = fs.open_read_at(&p)?.len();
            if actual < len {
                return Err(Error::corruption(
                    &p,
                    format!(
                        "WAL segment cut short: it was synced at {len} bytes and closed, it now \
                         ends at offset {actual} ({} bytes of logged writes missing)",
                        len - actual
                    ),
                ));
            }
        }
        let last_recorded_segment = state
            .wal_segments
            .iter()
            .flatten()
            .chain(&present)
            .max()
            .copied()
            .unwrap_or(0);
        state.wal_sealed.retain(|id, _| present.contains(id));
        state.wal_segments = Some(present);

        // The log as replay will read it, read-only: damage in it refuses the open before
        // anything on disk changed.
        crate::storage::wal::check_log(fs.as_ref(), &wal_dir)?;

        // (3) Files no region lists: deleted only on proof (recorded obsolete, or recorded as
        // reserved for an output, or numbered above the last recorded file: a flush,
        // compaction or bulk load that crashed before its edit), before replay's flushes
        // allocate file ids. The rest is kept and reported.
        let data_files =
            crate::engine::recovery::classify_data_files(fs.as_ref(), &path, &state, ids_durable)?;
        for (id, p) in data_files.deletable {
            match fs.remove(&p) {
                Ok(()) => report.deleted_files.push(p),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e.into()),
            }
            state.obsolete_files.remove(&id);
        }
        if !report.deleted_files.is_empty() {
            fs.sync_dir(&path.join("data"))?;
        }
        // A bulk load's sort runs left by a crash: `DIR/tmp` is the engine's scratch directory
        // and `bulk-*.run` its names; nothing there is data.
        let scratch = path.join("tmp");
        if fs.exists(&scratch) {
            for name in fs.list(&scratch)? {
                if name.starts_with("bulk-") && name.ends_with(".run") {
                    let p = scratch.join(&name);
                    match fs.remove(&p) {
                        Ok(()) => report.deleted_files.push(p),
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        Err(e) => return Err(e.into()),
                    }
                }
            }
        }
        // Obsolete files that are gone already need no record.
        let gone: Vec<u64> = state
            .obsolete_files
            .iter()
            .copied()
            .filter(|&id| !fs.exists(&sst_path(&path, id)))
            .collect();
        for id in gone {
            state.obsolete_files.remove(&id);
        }
        // No output of the crashed process is in flight any more: every reserved id is now
        // listed, deleted above, or was never created.
        state.reserved_files.clear();
        report.unexplained_files = data_files.unexplained;

        // (4) The replayed state as a new manifest, complete and synced before CURRENT names
        // it, and only while this open still holds the lock file.
        let manifest =
            Manifest::write_snapshot(fs.clone(), &path, number + 1, state.clone(), &|| {
                file_lock
                    .still_held()
                    .map_err(|_| Error::Locked(path.clone()))
            })?;
        if let Some(old) = old_manifest {
            manifest.remove_replaced(&old);
        }

        // WAL replay: every record above its region's flushed sequence id goes back into the
        // memstore. As HBase's `HRegion#replayRecoveredEdits`, a region whose memstore reaches
        // its flush size is flushed right away (its flushed sequence id is the entry's: the log
        // holds entries in sequence-id order); so is the largest replayed memstore whenever
        // all of them together reach the global lower limit (`flushOneForGlobalPressure`), so
        // replay never holds more than the memstores the running database would.
        let manifest = Arc::new(Mutex::new(manifest));
        let by_id: BTreeMap<u64, Arc<TableShared>> =
            tables.values().map(|t| (t.id, t.clone())).collect();
        let discard_manifest = manifest.clone();
        let mut discard = move |id: u64| {
            discard_manifest
                .lock()
                .append(&Edit::WalSegmentsDeleted { ids: vec![id] })
        };
        let replay_start = std::time::Instant::now();
        let mut entries_read = 0u64;
        let mut replayed_into: BTreeMap<(u64, u64), (&TableShared, Arc<Region>)> = BTreeMap::new();
        let mut entries_replayed = 0u64;
        let flush_ctx = || FileCtx {
            fs: fs.as_ref(),
            path: &path,
            manifest: &manifest,
            cache: &cache,
            now: opts.clock.now_millis(),
            scanner_points: None,
            stats: None,
        };
        let info = crate::storage::wal::replay_discarding(
            fs.as_ref(),
            &wal_dir,
            &mut discard,
            |seq, payload| {
                max_seq = max_seq.max(seq);
                entries_read += 1;
                let touched =
                    crate::engine::write::replay_entry(&by_id, seq, payload).map_err(|m| {
                        Error::corruption(
                            &wal_dir,
                            format!("log record with sequence id {seq}: {m}"),
                        )
                    })?;
                let Some((table, region)) = touched else {
                    return Ok(());
                };
                entries_replayed += 1;
                if region.active().size() >= table.flush_size(opts.memstore_flush_size) {
                    flush_ctx().flush_memstore(table, &region, &|| seq)?;
                }
                replayed_into
                    .entry((table.id, region.id()))
                    .or_insert((table, region));
                if memstore_bytes.load(Ordering::Relaxed) >= global_low_mark
                    && let Some((t, r)) = replayed_into
                        .values()
                        .max_by_key(|(_, r)| r.active().size())
                    && r.active().size() > 0
                {
                    flush_ctx().flush_memstore(t, r, &|| seq)?;
                }
                Ok(())
            },
        )?;
        // Then (unless `flush_after_replay(false)`) every memstore replay refilled is flushed
        // before the database opens, as HBase's
        // `HRegion#replayRecoveredEditsIfAny` flushes the edits it replayed (and RocksDB its
        // recovered memtables): reads after a crash find files with Bloom filters rather than
        // one large memstore, and the memory replay took is returned before the first write.
        // Every entry of the log up to `max_seq` is in these memstores or in files.
        let replay_flush_start = std::time::Instant::now();
        let mut replay_flushes = 0usize;
        if opts.flush_after_replay {
            for (t, r) in replayed_into.values() {
                if flush_ctx().flush_memstore(t, r, &|| max_seq)?.is_some() {
                    replay_flushes += 1;
                }
            }
        }
        let replay_flush_ms = replay_flush_start.elapsed().as_millis();
        report.torn_wal_tail = info.torn_tail_truncated;
        log::info!(
            target: "cellbase::recovery",
            "opened {}: {} tables, {} regions; log replay read {} segments, {entries_read} \
             entries, replayed {entries_replayed} into {} regions of {} tables in {} ms, then \
             flushed {replay_flushes} memstores in {replay_flush_ms} ms{}",
            path.display(),
            tables.len(),
            tables.values().map(|t| t.region_count()).sum::<usize>(),
            info.segments.len(),
            replayed_into.len(),
            replayed_into
                .keys()
                .map(|&(t, _)| t)
                .collect::<BTreeSet<_>>()
                .len(),
            (replay_flush_start - replay_start).as_millis(),
            if info.torn_tail_truncated {
                "; a torn tail was cut off the newest segment"
            } else {
                ""
            }
        );
        // (5) A new segment, recorded in the manifest before it takes a write; so is every
        // later one (the roll hook), so a segment deleted from the end of the log is missed.
        let first_segment = info.last_segment_id.max(last_recorded_segment) + 1;
        let wal = Wal::create(
            fs.clone(),
            wal_dir,
            first_segment,
            WalOptions {
                segment_size: opts.wal_segment_size,
                ..WalOptions::default()
            },
        )?;
        let sealed_and_added = |sealed: Option<crate::storage::wal::segment::PrevSegment>,
                                id: u64| {
            let sealed = sealed.map(|p| Edit::WalSegmentsSealed {
                segments: vec![(p.id, p.len)],
            });
            let added = Edit::WalSegmentsAdded { ids: vec![id] };
            sealed.into_iter().chain([added]).collect::<Vec<_>>()
        };
        manifest
            .lock()
            .append_all(&sealed_and_added(wal.sealed_before(), first_segment))?;
        let roll_manifest = manifest.clone();
        wal.set_roll_hook(Box::new(move |id, sealed| {
            roll_manifest
                .lock()
                .append_all(&sealed_and_added(Some(sealed), id))
        }));
        wal.adopt_segments(info.segments.clone())?;

        let inner = Arc::new(Engine {
            path,
            fs,
            clock: opts.clock.clone(),
            wal: Arc::new(wal),
            manifest,
            tables: RwLock::new(tables),
            mvcc: Arc::new(Mvcc::new(max_seq)),
            cache,
            bg: Background::new(),
            stats: Default::default(),
            closed: AtomicBool::new(false),
            scanner_points: Mutex::new(BTreeMap::new()),
            stall: (Mutex::new(()), Condvar::new()),
            memstore_bytes,
            global_flush_queued: AtomicBool::new(false),
            write_delay: crate::engine::pressure::WriteDelay::new(),
            switches: Default::default(),
            opened_ms: opts.clock.now_millis(),
            chore: Mutex::new(None),
            traffic: opts.traffic.map(|(interval, max)| {
                crate::engine::traffic::TrafficRecorder::new(
                    i64::try_from(interval.as_millis()).unwrap_or(i64::MAX),
                    max,
                )
            }),
            global_low_mark,
            opts,
            recovery: report,
            lock: Mutex::new(Some((dir_lock, file_lock))),
            _tempdir: tempdir,
        });
        inner
            .bg
            .start(inner.opts.background_threads, Arc::downgrade(&inner))?;
        if inner.opts.background_threads > 0 && !inner.opts.compaction_check_interval.is_zero() {
            let chore = crate::engine::chore::Chore::start(
                inner.opts.compaction_check_interval,
                Arc::downgrade(&inner),
            )?;
            *inner.chore.lock() = Some(chore);
        }
        // Drop log segments whose records all reached files already.
        inner.delete_obsolete_wal()?;
        // As HBase's `HRegionServer#postOpenDeployTasks` does for every opened region, queue a
        // compaction for stores that need one (enough files, or files shared after a split or
        // merge): the files of the last session's closing flushes, and of replay's, would
        // otherwise wait for the next flush.
        for (t, r) in inner.all_regions() {
            inner.maybe_flush(&t, &r)?;
            inner.maybe_compact(&t, &r);
        }
        Ok(inner)
    }
}
