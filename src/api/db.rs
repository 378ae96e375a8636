//! `Db`: the handle a program holds on an open database; opening and closing. Table
//! administration is in `admin.rs`; the state behind the handle is the engine's.

use crate::api::table::Table;
use crate::base::error::Result;
use crate::base::io::{FileSystem, StdFs};
use crate::engine::Engine;
use crate::engine::options::DbOptions;
use crate::engine::recovery::RecoveryReport;
use crate::engine::table::TableShared;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use crate::base::stats::{LATENCY_BUCKETS_NANOS, LATENCY_PERCENTILES, Latency, SAMPLE_EVERY};
pub use crate::engine::background_errors::{
    BackgroundError, BackgroundErrorCount, BackgroundErrors,
};
pub use crate::engine::checkpoint::CheckpointInfo;
pub use crate::engine::metrics::{Metrics, RegionMetrics};
pub use crate::engine::snapshot::SnapshotInfo;
pub use crate::engine::stats::Operation;
pub use crate::engine::traffic::{RegionTraffic, Traffic, TrafficInterval};

/// A database: a directory of tables. Cheap to clone (an `Arc` inside).
#[derive(Clone, Debug)]
pub struct Db {
    pub(crate) inner: Arc<Engine>,
    pub(crate) open: Arc<OpenHandles>,
}

/// Shared by every user handle ([`Db`] and [`crate::Table`] clones) of one open database, and
/// by nothing else: dropped with the last of them, it closes the database right there, on the
/// dropping thread. (The [`Engine`] itself may outlive the handles for the rest of a
/// background job that holds it; a close left to the inner's own drop would then run on that
/// background thread after the user's drop returned, and a process exiting meanwhile would
/// lose the closing flush.)
#[derive(Debug)]
pub(crate) struct OpenHandles {
    inner: std::sync::Weak<Engine>,
}

impl Drop for OpenHandles {
    /// The last user handle went without [`Db::close`]: a clean close too (see
    /// [`Engine`]'s drop).
    fn drop(&mut self) {
        if let Some(inner) = self.inner.upgrade() {
            inner.close_on_drop();
        }
    }
}

impl Db {
    /// Opens (creating if missing) the database in `path` with default options.
    ///
    /// # Errors
    /// [`Error::Locked`](crate::Error::Locked) when another process or handle has it open; [`Error::Corruption`](crate::Error::Corruption) when
    /// the manifest, a block file or the log is damaged; [`Error::Io`](crate::Error::Io).
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

    /// Opens with a caller-supplied filesystem (tests: fault injection, power loss; the
    /// `testing` feature exposes the filesystem seam as `cellbase::testing::io`). Not a stable
    /// API.
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
    /// [`Error::Io`](crate::Error::Io) when the directory cannot be created.
    pub fn temporary() -> Result<Db> {
        Db::temporary_with(DbOptions::default())
    }

    /// [`Db::temporary`] with options.
    ///
    /// # Errors
    /// [`Error::Io`](crate::Error::Io) when the directory cannot be created.
    pub fn temporary_with(options: DbOptions) -> Result<Db> {
        let dir = tempfile::Builder::new().prefix("cellbase-").tempdir()?;
        Db::open_inner(
            dir.path().to_path_buf(),
            options,
            Arc::new(StdFs),
            Some(dir),
        )
    }

    fn open_inner(
        path: PathBuf,
        opts: DbOptions,
        fs: Arc<dyn FileSystem>,
        tempdir: Option<tempfile::TempDir>,
    ) -> Result<Db> {
        let inner = Engine::open(path, opts, fs, tempdir)?;
        let open = Arc::new(OpenHandles {
            inner: Arc::downgrade(&inner),
        });
        Ok(Db { inner, open })
    }

    /// Closes the database: stops background work (queued jobs do not run), writes out and
    /// syncs the log, then, unless [`DbOptions::flush_on_close`] is `false`, flushes every
    /// memstore (as HBase flushes a region when it closes cleanly) and deletes the log segments
    /// that are then in files, so the next open replays nothing. Dropping the last handle does
    /// the same (errors ignored; while panicking it only syncs the log). Other handles then get
    /// [`Error::Closed`](crate::Error::Closed).
    ///
    /// # Errors
    /// [`Error::Io`](crate::Error::Io) or [`Error::Poisoned`](crate::Error::Poisoned) when the final log sync fails; an error of a
    /// flush (the log still holds those writes; the next open replays them).
    pub fn close(self) -> Result<()> {
        self.inner.shut_down(true)
    }

    /// The directory of this database.
    pub fn path(&self) -> &Path {
        self.inner.path()
    }

    /// What this database's open found and did beyond the ordinary: log segments dropped
    /// under [`WalRecovery::SkipMissingSegments`](crate::WalRecovery::SkipMissingSegments), a torn manifest or log tail cut off, files
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
        self.inner.recovery_report()
    }

    /// Writes a consistent copy of the whole database into the new directory `dir`, which
    /// then opens as a database (RocksDB's Checkpoint), while other threads keep writing: the
    /// copy holds the database as it was at one moment between the call and its return.
    /// Block files are hard-linked (copied where the filesystem cannot link), so the cost is
    /// O(files) plus the write-ahead log written since the flush the checkpoint starts with.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) when `dir` exists (nothing is
    /// touched) or when `DIR.tmp` exists (left by a failed checkpoint); the flush's or the
    /// filesystem's errors (the partial copy is left in `DIR.tmp`, named in the error).
    ///
    /// # Examples
    /// ```
    /// # use cellbase::*;
    /// let db = Db::temporary()?;
    /// let t = db.create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))?;
    /// t.put(Put::new("r").add("f", "q", "v"))?;
    /// let dir = tempfile::tempdir()?;
    /// let copy = dir.path().join("backup");
    /// db.checkpoint(&copy)?;
    /// let restored = Db::open(&copy)?;
    /// assert!(!restored.table("t")?.get(Get::new("r"))?.is_empty());
    /// # Ok::<(), cellbase::Error>(())
    /// ```
    pub fn checkpoint(&self, dir: impl AsRef<Path>) -> Result<CheckpointInfo> {
        self.inner.checkpoint(dir.as_ref())
    }

    /// The engine's counters, gauges and latencies now (docs/OPERATIONS.md lists each).
    pub fn metrics(&self) -> Metrics {
        self.inner.metrics()
    }

    /// Failures of background work since open: failed flushes, compactions, splits and log
    /// write-outs, counted per kind, each kind with its last error and when it happened (by
    /// the database's clock). Every such failure is also logged (`warn!`, target
    /// `cellbase::background`); a failed flush is retried (docs/OPERATIONS.md).
    ///
    /// # Examples
    /// ```
    /// let db = cellbase::Db::temporary()?;
    /// let errors = db.background_errors();
    /// assert_eq!(errors.total(), 0);
    /// assert!(errors.flushes.last.is_none());
    /// # Ok::<(), cellbase::Error>(())
    /// ```
    pub fn background_errors(&self) -> BackgroundErrors {
        self.inner.background_errors()
    }

    /// The traffic recorded since open (per region, per interval: read and write requests),
    /// when [`DbOptions::traffic_recording`] turned recording on; `None` otherwise.
    pub fn traffic(&self) -> Option<Traffic> {
        self.inner.traffic()
    }

    /// Writes the recorded traffic to the database directory's `TRAFFIC` file now (a clean
    /// close writes it too), for `cellbase lab keyviz --db DIR` and
    /// [`crate::inspect::read_traffic`]; `false` when recording is off (nothing written).
    ///
    /// # Errors
    /// [`Error::Closed`](crate::Error::Closed) after close; [`Error::Io`](crate::Error::Io).
    pub fn save_traffic(&self) -> Result<bool> {
        self.inner.check_open()?;
        self.inner.save_traffic(true)
    }

    /// A table handle sharing this handle's hold on the database.
    pub(crate) fn handle(&self, shared: Arc<TableShared>) -> Table {
        Table {
            db: self.inner.clone(),
            _open: self.open.clone(),
            shared,
        }
    }
}
