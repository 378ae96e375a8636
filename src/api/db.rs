//! `Db`: the handle a program holds on an open database; opening and closing. Table
//! administration is in `admin.rs`; the state behind the handle is the engine's.

use crate::api::remote::{RemoteDb, RemoteOptions};
use crate::api::table::LocalTable;
use crate::api::table_handle::{Table, TableImp};
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

/// A database: a directory of tables ([`Db::open`]), or a connection to an HBase Thrift2
/// server that the same calls go to ([`Db::connect`]). Cheap to clone (an `Arc` inside).
#[derive(Clone, Debug)]
pub struct Db {
    pub(crate) imp: DbImp,
}

/// Where a database's calls go.
#[derive(Clone, Debug)]
pub(crate) enum DbImp {
    /// The embedded engine.
    Local(LocalDb),
    /// An HBase Thrift2 server.
    Remote(RemoteDb),
}

/// An open embedded database.
#[derive(Clone, Debug)]
pub(crate) struct LocalDb {
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
        Ok(Db {
            imp: DbImp::Local(LocalDb { inner, open }),
        })
    }

    /// Connects to an HBase Thrift2 server (`hbase thrift2`, or `cellbase thrift2`):
    /// `thrift2://HOST:PORT`. Tables, Gets, Puts, Scans, Deletes, counters, check-and-mutate
    /// and filters then work as on an embedded database; what Thrift2 cannot express (flushes,
    /// compactions, snapshots, ...) fails with [`Error::Unsupported`](crate::Error::Unsupported)
    /// naming the call. docs/REMOTE.md lists every call and what differs.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a malformed address;
    /// [`Error::Io`](crate::Error::Io) when no connection can be made.
    pub fn connect(url: &str) -> Result<Db> {
        Db::connect_with(url, RemoteOptions::default())
    }

    /// [`Db::connect`] with connection-pool, timeout, retry and scanner-caching settings.
    ///
    /// # Errors
    /// As [`Db::connect`].
    pub fn connect_with(url: &str, options: RemoteOptions) -> Result<Db> {
        Ok(Db {
            imp: DbImp::Remote(RemoteDb::connect(url, options)?),
        })
    }

    /// True for a database reached through [`Db::connect`].
    pub fn is_remote(&self) -> bool {
        matches!(self.imp, DbImp::Remote(_))
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
        match self.imp {
            DbImp::Local(x) => x.close(),
            DbImp::Remote(x) => x.close(),
        }
    }
}

impl LocalDb {
    pub(crate) fn close(self) -> Result<()> {
        self.inner.shut_down(true)
    }

    pub(crate) fn path(&self) -> &Path {
        self.inner.path()
    }

    pub(crate) fn recovery_report(&self) -> &RecoveryReport {
        self.inner.recovery_report()
    }

    pub(crate) fn checkpoint(&self, dir: impl AsRef<Path>) -> Result<CheckpointInfo> {
        self.inner.checkpoint(dir.as_ref())
    }

    pub(crate) fn metrics(&self) -> Metrics {
        self.inner.metrics()
    }

    pub(crate) fn background_errors(&self) -> BackgroundErrors {
        self.inner.background_errors()
    }

    pub(crate) fn traffic(&self) -> Option<Traffic> {
        self.inner.traffic()
    }

    pub(crate) fn save_traffic(&self) -> Result<bool> {
        self.inner.check_open()?;
        self.inner.save_traffic(true)
    }

    /// A table handle sharing this handle's hold on the database.
    pub(crate) fn handle(&self, shared: Arc<TableShared>) -> Table {
        Table {
            imp: TableImp::Local(LocalTable {
                db: self.inner.clone(),
                _open: self.open.clone(),
                shared,
            }),
        }
    }
}
