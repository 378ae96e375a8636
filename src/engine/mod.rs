//! Layer 4, `engine`: the owner of the database's state. One [`Engine`] holds the WAL, the
//! manifest, MVCC, the block cache and the tables with their regions; the write path, flush,
//! compaction, split and merge, alter, background work and memory pressure are modules of it,
//! each changing state only through the methods of the piece it owns. Its fields are private to
//! this folder: the API layer reaches the engine through methods only. Imports every lower
//! layer, never `api`.

pub(crate) mod alter;
pub(crate) mod background;
pub(crate) mod background_errors;
pub(crate) mod bulk_load;
pub(crate) mod catalog;
pub(crate) mod checkpoint;
pub(crate) mod chore;
pub(crate) mod compaction;
pub(crate) mod date_tiered;
pub(crate) mod flush;
pub(crate) mod lifecycle;
pub(crate) mod major_compaction;
pub(crate) mod metrics;
pub(crate) mod mvcc;
pub(crate) mod normalizer;
pub(crate) mod open;
pub(crate) mod options;
pub(crate) mod output;
pub(crate) mod picker;
pub(crate) mod pressure;
pub(crate) mod read;
pub(crate) mod recovery;
pub(crate) mod region;
pub mod repair;
pub(crate) mod runs;
pub(crate) mod snapshot;
pub(crate) mod split;
pub(crate) mod split_policy;
pub(crate) mod stats;
pub(crate) mod switches;
pub(crate) mod table;
pub(crate) mod traffic;
pub(crate) mod traffic_file;
pub(crate) mod write;

use crate::base::clock::Clock;
use crate::base::io::{FileLock, FileSystem};
use crate::engine::background::Background;
use crate::engine::mvcc::Mvcc;
use crate::engine::options::DbOptions;
use crate::engine::recovery::RecoveryReport;
use crate::engine::table::TableShared;
use crate::storage::manifest::Manifest;
use crate::storage::sst::BlockCache;
use crate::storage::wal::Wal;
use parking_lot::{Condvar, Mutex, RwLock};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The database's two locks: on the directory itself, and on its `LOCK` file (which older
/// versions of the engine lock).
type DirLocks = (Box<dyn FileLock>, Box<dyn FileLock>);

/// State shared by every handle of one open database.
pub(crate) struct Engine {
    path: PathBuf,
    fs: Arc<dyn FileSystem>,
    opts: DbOptions,
    clock: Arc<dyn Clock>,
    wal: Arc<Wal>,
    manifest: Arc<Mutex<Manifest>>,
    tables: RwLock<BTreeMap<String, Arc<TableShared>>>,
    mvcc: Arc<Mvcc>,
    cache: Arc<BlockCache>,
    bg: Arc<Background>,
    /// Counters and latencies of operations, flushes, compactions, splits and stalls.
    stats: stats::EngineStats,
    closed: AtomicBool,
    /// Read points of open scanners (read point -> count); flushes and compactions keep every
    /// cell above the smallest one.
    scanner_points: Mutex<BTreeMap<u64, usize>>,
    /// Writers waiting for a flush to bring memstores under the blocking limit.
    stall: (Mutex<()>, Condvar),
    /// Bytes in every memstore of the database not yet flushed: active memstores and flush
    /// snapshots ([`DbOptions::global_memstore_size`]).
    memstore_bytes: Arc<AtomicU64>,
    /// A [`crate::engine::background::Job::GlobalFlush`] is queued.
    global_flush_queued: AtomicBool,
    /// The write controller's token bucket (`pressure.rs`).
    write_delay: pressure::WriteDelay,
    /// The split and merge switches.
    switches: switches::Switches,
    /// The global lower limit in bytes ([`DbOptions::global_memstore_lower_limit`] of
    /// [`DbOptions::global_memstore_size`]), computed once at open; `u64::MAX` without a bound.
    global_low_mark: u64,
    /// The database clock when the open began: the write time of block files that do not
    /// record theirs (meta versions before 4), for the periodic major compaction.
    opened_ms: i64,
    /// The compaction checker thread, while it runs ([`DbOptions::compaction_check_interval`]).
    chore: Mutex<Option<chore::Chore>>,
    /// The traffic recorder, when on ([`DbOptions::traffic_recording`]).
    traffic: Option<traffic::TrafficRecorder>,
    /// What the open found and did beyond the ordinary ([`Db::recovery_report`]).
    recovery: RecoveryReport,
    /// Released by `close` so the directory can be reopened while stale handles remain.
    lock: Mutex<Option<DirLocks>>,
    /// Last field: the temporary directory outlives everything that has files in it.
    _tempdir: Option<tempfile::TempDir>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Drop for Engine {
    /// Dropping the last handle without [`Db::close`](crate::Db::close) is a clean close too (flushes the
    /// memstores as [`DbOptions::flush_on_close`] says, errors ignored); while panicking, only
    /// the log is synced, and a [`Db::temporary`](crate::Db::temporary) one flushes nothing (its directory goes next).
    fn drop(&mut self) {
        self.close_on_drop();
    }
}

impl Engine {
    /// The close of a database whose handles were dropped without [`Db::close`](crate::Db::close).
    pub(crate) fn close_on_drop(&self) {
        if self.closed.load(Ordering::Acquire) {
            return;
        }
        let flush = !std::thread::panicking() && self._tempdir.is_none();
        let _ = self.shut_down(flush);
    }
}

impl Engine {
    /// The database's directory.
    pub(crate) fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// The options the database was opened with.
    pub(crate) fn options(&self) -> &DbOptions {
        &self.opts
    }

    /// The clock every timestamp and TTL is read from.
    pub(crate) fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    /// What the open found and did beyond the ordinary.
    pub(crate) fn recovery_report(&self) -> &RecoveryReport {
        &self.recovery
    }
}

impl Engine {
    /// The read point: the highest sequence id whose write, and every earlier one, is visible.
    pub(crate) fn read_point(&self) -> u64 {
        self.mvcc.read_point()
    }
}
