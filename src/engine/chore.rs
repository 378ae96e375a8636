//! The compaction checker (HBase's `CompactionChecker` chore): one background thread that,
//! every [`crate::DbOptions::compaction_check_interval`], looks at every store of every
//! enabled table and queues a compaction for the regions whose stores need one, minor or
//! periodic major ([`Engine::compaction_check`]). It runs only with background threads (the
//! queued compactions are theirs to run); without them, [`crate::Db::run_compaction_check`]
//! runs the same check in the caller's thread.
//!
//! Bounds: the interval is at least 100 ms; one check reads only in-memory file lists (no I/O)
//! and queues at most one compaction per region (a region already queued is skipped). The
//! thread holds the engine only while a check runs, and stops when the database closes: the
//! close wakes it and waits for it, at most one check long.

use crate::engine::Engine;
use crate::engine::major_compaction::CheckMode;
use parking_lot::{Condvar, Mutex};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

/// The shortest interval between two checks.
const MIN_INTERVAL: Duration = Duration::from_millis(100);

/// The running checker thread.
pub(crate) struct Chore {
    /// Set (under the mutex) to stop the thread; the condvar wakes it.
    stop: Arc<(Mutex<bool>, Condvar)>,
    handle: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Chore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chore").finish_non_exhaustive()
    }
}

impl Chore {
    /// Starts the thread: a check every `interval` (at least 100 ms) on `db`, until
    /// [`Chore::stop`] or until the engine is gone.
    ///
    /// # Errors
    /// [`crate::Error::Io`] when the operating system refuses a thread.
    pub(crate) fn start(interval: Duration, db: Weak<Engine>) -> crate::base::error::Result<Chore> {
        let interval = interval.max(MIN_INTERVAL);
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let flag = stop.clone();
        let handle = std::thread::Builder::new()
            .name("cellbase-compaction-checker".to_string())
            .spawn(move || {
                loop {
                    {
                        let mut stopped = flag.0.lock();
                        if !*stopped {
                            flag.1.wait_for(&mut stopped, interval);
                        }
                        if *stopped {
                            return;
                        }
                    }
                    let Some(db) = db.upgrade() else { return };
                    if db.check_open().is_err() {
                        return;
                    }
                    if let Err(e) = db.compaction_check(CheckMode::Queue) {
                        log::warn!(
                            target: "cellbase::background",
                            "compaction check failed: {e}"
                        );
                    }
                }
            })?;
        Ok(Chore {
            stop,
            handle: Some(handle),
        })
    }

    /// Stops the thread and waits for it (unless called from the thread itself, which then
    /// ends after its current check).
    pub(crate) fn stop(mut self) {
        *self.stop.0.lock() = true;
        self.stop.1.notify_all();
        if let Some(h) = self.handle.take()
            && h.thread().id() != std::thread::current().id()
        {
            let _ = h.join();
        }
    }
}
