//! `Db`: opening, recovery, table administration and the engine state every handle shares.
//!
//! Recovery order (see docs/ARCHITECTURE.md): lock the directory, replay and rewrite the
//! manifest, open every block file it names, delete orphan files, replay the WAL from each
//! region's flushed sequence id (flushing a memstore that reaches its flush size), start a new
//! WAL segment, start background threads.

use crate::background::Background;
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::flush::FileCtx;
use crate::io::{FileLock, FileSystem, StdFs};
use crate::manifest::{Edit, Manifest, ManifestState, RegionDef};
use crate::memstore::Mvcc;
use crate::model::schema::{FamilyDescriptor, TableDescriptor};
use crate::options::{DbOptions, WalRecovery};
use crate::recovery::{RecoveryReport, check_listed_file, create_dir_durably, take_lock};
use crate::region::{Region, StoreFile};
use crate::sst::{BlockCache, SstReader};
use crate::table::{Table, TableShared};
use crate::wal::{Wal, WalOptions};
use parking_lot::{Condvar, Mutex, RwLock};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A database: a directory of tables. Cheap to clone (an `Arc` inside).
#[derive(Clone, Debug)]
pub struct Db {
    pub(crate) inner: Arc<DbInner>,
    pub(crate) open: Arc<OpenHandles>,
}

/// Shared by every user handle ([`Db`] and [`crate::Table`] clones) of one open database, and
/// by nothing else: dropped with the last of them, it closes the database right there, on the
/// dropping thread. (The [`DbInner`] itself may outlive the handles for the rest of a
/// background job that holds it; a close left to the inner's own drop would then run on that
/// background thread after the user's drop returned, and a process exiting meanwhile would
/// lose the closing flush.)
#[derive(Debug)]
pub(crate) struct OpenHandles {
    inner: std::sync::Weak<DbInner>,
}

impl Drop for OpenHandles {
    /// The last user handle went without [`Db::close`]: a clean close too (see
    /// [`DbInner`]'s drop).
    fn drop(&mut self) {
        if let Some(inner) = self.inner.upgrade() {
            inner.close_on_drop();
        }
    }
}

/// The database's two locks: on the directory itself, and on its `LOCK` file (which older
/// versions of the engine lock).
type DirLocks = (Box<dyn FileLock>, Box<dyn FileLock>);

/// State shared by every handle of one open database.
pub(crate) struct DbInner {
    pub path: PathBuf,
    pub fs: Arc<dyn FileSystem>,
    pub opts: DbOptions,
    pub clock: Arc<dyn Clock>,
    pub wal: Arc<Wal>,
    pub manifest: Arc<Mutex<Manifest>>,
    pub tables: RwLock<BTreeMap<String, Arc<TableShared>>>,
    pub mvcc: Arc<Mvcc>,
    pub cache: Arc<BlockCache>,
    pub bg: Arc<Background>,
    pub closed: AtomicBool,
    /// Read points of open scanners (read point -> count); flushes and compactions keep every
    /// cell above the smallest one.
    pub scanner_points: Mutex<BTreeMap<u64, usize>>,
    /// Writers waiting for a flush to bring memstores under the blocking limit.
    pub stall: (Mutex<()>, Condvar),
    /// Bytes in every memstore of the database not yet flushed: active memstores and flush
    /// snapshots ([`DbOptions::global_memstore_size`]).
    pub memstore_bytes: Arc<AtomicU64>,
    /// A [`crate::background::Job::GlobalFlush`] is queued.
    pub global_flush_queued: AtomicBool,
    /// The global lower limit in bytes ([`DbOptions::global_memstore_lower_limit`] of
    /// [`DbOptions::global_memstore_size`]), computed once at open; `u64::MAX` without a bound.
    pub global_low_mark: u64,
    /// What the open found and did beyond the ordinary ([`Db::recovery_report`]).
    pub recovery: RecoveryReport,
    /// Released by `close` so the directory can be reopened while stale handles remain.
    pub(crate) lock: Mutex<Option<DirLocks>>,
    /// Last field: the temporary directory outlives everything that has files in it.
    _tempdir: Option<tempfile::TempDir>,
}

impl std::fmt::Debug for DbInner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Drop for DbInner {
    /// Dropping the last handle without [`Db::close`] is a clean close too (flushes the
    /// memstores as [`DbOptions::flush_on_close`] says, errors ignored); while panicking, only
    /// the log is synced, and a [`Db::temporary`] one flushes nothing (its directory goes next).
    fn drop(&mut self) {
        self.close_on_drop();
    }
}

impl DbInner {
    /// The close of a database whose handles were dropped without [`Db::close`].
    fn close_on_drop(&self) {
        if self.closed.load(Ordering::Acquire) {
            return;
        }
        let flush = !std::thread::panicking() && self._tempdir.is_none();
        let _ = self.shut_down(flush);
    }
}

/// Path of block file `id`.
pub(crate) fn sst_path(dir: &Path, id: u64) -> PathBuf {
    dir.join("data").join(format!("{id:010}.sst"))
}

impl Db {
    /// Opens (creating if missing) the database in `path` with default options.
    ///
    /// # Errors
    /// [`Error::Locked`] when another process or handle has it open; [`Error::Corruption`] when
    /// the manifest, a block file or the log is damaged; [`Error::Io`].
    pub fn open(path: impl AsRef<Path>) -> Result<Db> {
        Db::open_with(path, DbOptions::default())
    }

    /// Opens (creating if missing) the database in `path`.
    ///
    /// # Errors
    /// As [`Db::open`].
    pub fn open_with(path: impl AsRef<Path>, options: DbOptions) -> Result<Db> {
        Db::open_inner(path.as_ref().to_path_buf(), options, Arc::new(StdFs), None)
    }

    /// Opens with a caller-supplied filesystem (tests: fault injection). Not a stable API.
    ///
    /// # Errors
    /// As [`Db::open`].
    #[doc(hidden)]
    pub fn open_with_fs(
        path: impl AsRef<Path>,
        options: DbOptions,
        fs: Arc<dyn FileSystem>,
    ) -> Result<Db> {
        Db::open_inner(path.as_ref().to_path_buf(), options, fs, None)
    }

    /// A database in a new temporary directory, removed when the last handle is dropped.
    ///
    /// # Errors
    /// [`Error::Io`] when the directory cannot be created.
    pub fn temporary() -> Result<Db> {
        Db::temporary_with(DbOptions::default())
    }

    /// [`Db::temporary`] with options.
    ///
    /// # Errors
    /// [`Error::Io`] when the directory cannot be created.
    pub fn temporary_with(options: DbOptions) -> Result<Db> {
        let dir = tempfile::Builder::new().prefix("cellbase-").tempdir()?;
        Db::open_inner(
            dir.path().to_path_buf(),
            options,
            Arc::new(StdFs),
            Some(dir),
        )
    }

    pub(crate) fn open_inner(
        path: PathBuf,
        opts: DbOptions,
        fs: Arc<dyn FileSystem>,
        tempdir: Option<tempfile::TempDir>,
    ) -> Result<Db> {
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
            crate::recovery::check_new_dir(fs.as_ref(), &path)?;
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
            state.db_id = crate::recovery::new_db_id();
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
                    check_listed_file(&reader, &p, state.db_id, table_id, f)?;
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
                    crate::flush::sort_newest_first(list);
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
            regions.sort_by(|a, b| a.start.cmp(&b.start));
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
        let present = crate::recovery::present_segments(fs.as_ref(), &wal_dir)?;
        let missing = crate::recovery::missing_segments(&state, &present, &wal_dir);
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
            let p = crate::wal::segment::segment_path(&wal_dir, id);
            if !present.contains(&id) {
                continue;
            }
            let actual = fs.open_read(&p)?.bytes().len() as u64;
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
        crate::wal::check_log(fs.as_ref(), &wal_dir)?;

        // (3) Files no region lists: deleted only on proof (recorded obsolete, or numbered
        // above the last recorded file: a flush or compaction that crashed before its edit),
        // before replay's flushes allocate file ids. The rest is kept and reported.
        let data_files =
            crate::recovery::classify_data_files(fs.as_ref(), &path, &state, ids_durable)?;
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
        // holds entries in sequence-id order), so replay never holds more than the memstores
        // the running database would.
        let manifest = Arc::new(Mutex::new(manifest));
        let by_id: BTreeMap<u64, Arc<TableShared>> =
            tables.values().map(|t| (t.id, t.clone())).collect();
        let discard_manifest = manifest.clone();
        let mut discard = move |id: u64| {
            discard_manifest
                .lock()
                .append(&Edit::WalSegmentsDeleted { ids: vec![id] })
        };
        let info =
            crate::wal::replay_discarding(fs.as_ref(), &wal_dir, &mut discard, |seq, payload| {
                max_seq = max_seq.max(seq);
                let touched = crate::write::replay_entry(&by_id, seq, payload).map_err(|m| {
                    Error::corruption(&wal_dir, format!("log record with sequence id {seq}: {m}"))
                })?;
                if let Some((table, region)) = touched
                    && region.current().active.size() >= table.flush_size(opts.memstore_flush_size)
                {
                    let ctx = FileCtx {
                        fs: fs.as_ref(),
                        path: &path,
                        manifest: &manifest,
                        cache: &cache,
                        now: opts.clock.now_millis(),
                        scanner_points: None,
                    };
                    ctx.flush_memstore(table, &region, &|| seq)?;
                }
                Ok(())
            })?;
        report.torn_wal_tail = info.torn_tail_truncated;
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
        let sealed_and_added = |sealed: Option<crate::wal::segment::PrevSegment>, id: u64| {
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

        let inner = Arc::new(DbInner {
            path,
            fs,
            clock: opts.clock.clone(),
            wal: Arc::new(wal),
            manifest,
            tables: RwLock::new(tables),
            mvcc: Arc::new(Mvcc::new(max_seq)),
            cache,
            bg: Background::new(),
            closed: AtomicBool::new(false),
            scanner_points: Mutex::new(BTreeMap::new()),
            stall: (Mutex::new(()), Condvar::new()),
            memstore_bytes,
            global_flush_queued: AtomicBool::new(false),
            global_low_mark,
            opts,
            recovery: report,
            lock: Mutex::new(Some((dir_lock, file_lock))),
            _tempdir: tempdir,
        });
        inner
            .bg
            .start(inner.opts.background_threads, Arc::downgrade(&inner))?;
        // Drop log segments whose records all reached files already.
        inner.delete_obsolete_wal()?;
        // Memstores refilled by replay may already be over their flush size. Then, as HBase's
        // `HRegionServer#postOpenDeployTasks` does for every opened region, queue a compaction
        // for stores that need one (enough files, or files shared after a split or merge): the
        // files of the last session's closing flushes would otherwise wait for the next flush.
        for (t, r) in inner.all_regions() {
            inner.maybe_flush(&t, &r)?;
            inner.maybe_compact(&t, &r);
        }
        let open = Arc::new(OpenHandles {
            inner: Arc::downgrade(&inner),
        });
        Ok(Db { inner, open })
    }

    /// Creates a table with one region covering every row.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a bad name, no or duplicate families or bad family
    /// settings; [`Error::TableExists`].
    pub fn create_table(&self, desc: TableDescriptor) -> Result<Table> {
        self.inner.check_open()?;
        desc.validate()?;
        let mut tables = self.inner.tables.write();
        if tables.contains_key(desc.name()) {
            return Err(Error::TableExists(desc.name().to_string()));
        }
        let keys = desc.initial_split_keys()?;
        let mut m = self.inner.manifest.lock();
        let table_id = m.next_table_id();
        // N-1 split keys give N regions ['', k1) [k1, k2) ... [kN-1, '') [PRESPLIT-1].
        let mut bounds: Vec<Vec<u8>> = vec![Vec::new()];
        bounds.extend(keys);
        bounds.push(Vec::new());
        let defs: Vec<RegionDef> = bounds
            .windows(2)
            .map(|w| RegionDef {
                id: m.next_region_id(),
                start: w[0].clone(),
                end: w[1].clone(),
            })
            .collect();
        m.append(&Edit::CreateTable {
            table_id,
            desc: desc.clone(),
            regions: defs.clone(),
        })?;
        drop(m);
        let regions = defs
            .into_iter()
            .map(|d| {
                Arc::new(Region::new(
                    d.id,
                    d.start,
                    d.end,
                    0,
                    BTreeMap::new(),
                    &self.inner.memstore_bytes,
                ))
            })
            .collect();
        let shared = Arc::new(TableShared::new(table_id, desc.clone(), true, regions));
        tables.insert(desc.name().to_string(), shared.clone());
        Ok(Table {
            db: self.inner.clone(),
            _open: self.open.clone(),
            shared,
        })
    }

    /// A handle to an existing table.
    ///
    /// # Errors
    /// [`Error::TableNotFound`].
    pub fn table(&self, name: &str) -> Result<Table> {
        self.inner.check_open()?;
        Ok(Table {
            db: self.inner.clone(),
            _open: self.open.clone(),
            shared: self.inner.table_shared(name)?,
        })
    }

    /// Every table name, sorted.
    pub fn table_names(&self) -> Vec<String> {
        self.inner.tables.read().keys().cloned().collect()
    }

    /// The table's schema as created or last altered.
    ///
    /// # Errors
    /// [`Error::TableNotFound`].
    pub fn describe(&self, name: &str) -> Result<TableDescriptor> {
        Ok(self.inner.table_shared(name)?.desc())
    }

    /// Adds a family or changes an existing family's settings. New settings apply to later
    /// flushes, compactions and reads. A new family starts empty: the table is flushed and
    /// anything a deleted family of that name left behind is removed first
    /// ([`Db::delete_family`]).
    ///
    /// # Errors
    /// [`Error::TableNotFound`]; [`Error::InvalidArgument`] for bad settings; [`Error::Io`]
    /// from that flush.
    pub fn alter_family(&self, table: &str, family: FamilyDescriptor) -> Result<()> {
        self.inner.check_open()?;
        family.validate()?;
        let t = self.inner.table_shared(table)?;
        if t.desc_arc().get_family(&family.name).is_none() {
            // A new family starts empty, whatever a deleted one of that name left behind.
            self.inner.clear_undescribed_family(&t, &family.name)?;
        }
        self.alter_desc(table, |d| {
            d.upsert_family(family);
            Ok(())
        })
        .map(|_| ())
    }

    /// Drops a table and deletes its files (enabled or not).
    ///
    /// # Errors
    /// [`Error::TableNotFound`].
    pub fn drop_table(&self, name: &str) -> Result<()> {
        self.inner.check_open()?;
        let mut tables = self.inner.tables.write();
        let t = tables
            .get(name)
            .cloned()
            .ok_or_else(|| Error::TableNotFound(name.to_string()))?;
        self.inner
            .manifest
            .lock()
            .append(&Edit::DropTable { table_id: t.id })?;
        tables.remove(name);
        drop(tables);
        t.mark_dropped();
        let mut ids: Vec<u64> = t
            .regions
            .read()
            .iter()
            .flat_map(|r| {
                r.current()
                    .files
                    .values()
                    .flatten()
                    .map(|f| f.id)
                    .collect::<Vec<_>>()
            })
            .collect();
        ids.sort_unstable();
        ids.dedup();
        // Recorded obsolete by the DropTable edit; no region lists them any more.
        self.inner.remove_unlisted_files(ids);
        self.inner.delete_obsolete_wal()?;
        Ok(())
    }

    /// Disables a table: reads and writes then fail with [`Error::TableDisabled`].
    ///
    /// # Errors
    /// [`Error::TableNotFound`].
    pub fn disable_table(&self, name: &str) -> Result<()> {
        self.set_enabled(name, false)
    }

    /// Enables a disabled table.
    ///
    /// # Errors
    /// [`Error::TableNotFound`].
    pub fn enable_table(&self, name: &str) -> Result<()> {
        self.set_enabled(name, true)
    }

    /// True unless the table is disabled.
    ///
    /// # Errors
    /// [`Error::TableNotFound`].
    pub fn is_table_enabled(&self, name: &str) -> Result<bool> {
        Ok(self.inner.table_shared(name)?.is_enabled())
    }

    fn set_enabled(&self, name: &str, enabled: bool) -> Result<()> {
        self.inner.check_open()?;
        let t = self.inner.table_shared(name)?;
        self.inner.manifest.lock().append(&Edit::SetEnabled {
            table_id: t.id,
            enabled,
        })?;
        t.set_enabled(enabled);
        Ok(())
    }

    /// Closes the database: stops background work (queued jobs do not run), writes out and
    /// syncs the log, then, unless [`DbOptions::flush_on_close`] is `false`, flushes every
    /// memstore (as HBase flushes a region when it closes cleanly) and deletes the log segments
    /// that are then in files, so the next open replays nothing. Dropping the last handle does
    /// the same (errors ignored; while panicking it only syncs the log). Other handles then get
    /// [`Error::Closed`].
    ///
    /// # Errors
    /// [`Error::Io`] or [`Error::Poisoned`] when the final log sync fails; an error of a
    /// flush (the log still holds those writes; the next open replays them).
    pub fn close(self) -> Result<()> {
        self.inner.shut_down(true)
    }

    /// The directory of this database.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// What this database's open found and did beyond the ordinary: log segments dropped
    /// under [`WalRecovery::SkipMissingSegments`], a torn manifest or log tail cut off, files
    /// deleted as obsolete or as leftovers of unfinished flushes and compactions, and files
    /// kept because the engine cannot account for them.
    ///
    /// # Examples
    /// ```
    /// let db = cellbase::Db::temporary()?;
    /// assert!(db.recovery_report().missing_wal_segments.is_empty());
    /// # Ok::<(), cellbase::Error>(())
    /// ```
    pub fn recovery_report(&self) -> &RecoveryReport {
        &self.inner.recovery
    }

    /// Engine counters.
    pub fn metrics(&self) -> Metrics {
        let mut m = Metrics {
            block_cache_hits: self.inner.cache.hits(),
            block_cache_misses: self.inner.cache.misses(),
            wal_segments: self.inner.wal.segment_count() as u64,
            memstore_bytes: self.inner.memstore_bytes.load(Ordering::Relaxed),
            ..Metrics::default()
        };
        for (_, r) in self.inner.all_regions() {
            {
                m.regions += 1;
                for f in r.current().files.values().flatten() {
                    m.store_files += 1;
                    m.data_blocks_read += f.reader.blocks_read();
                }
            }
        }
        m
    }
}

/// Engine counters, from [`Db::metrics`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Metrics {
    /// Data blocks fetched from the block files currently live (cache hits and misses).
    pub data_blocks_read: u64,
    /// Block cache hits since open.
    pub block_cache_hits: u64,
    /// Block cache misses since open.
    pub block_cache_misses: u64,
    /// Block files currently live.
    pub store_files: u64,
    /// Regions of all tables.
    pub regions: u64,
    /// Write-ahead-log segment files currently live.
    pub wal_segments: u64,
    /// Bytes in memstores not yet flushed: every region's active memstore and flush snapshot
    /// (the total that [`DbOptions::global_memstore_size`] bounds; a flushed memstore a
    /// reader still holds no longer counts, as in HBase).
    pub memstore_bytes: u64,
}
