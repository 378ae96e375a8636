//! Background work: a small pool of threads running flushes and compactions, and writing out
//! buffered (AsyncWal) log records every 100 ms. With zero threads nothing runs here; the write
//! path flushes inline and compactions run only when called.

use crate::db::DbInner;
use crate::region::Region;
use crate::table::TableShared;
use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

/// A unit of background work.
pub(crate) enum Job {
    Flush(Arc<TableShared>, Arc<Region>),
    Compact(Arc<TableShared>, Arc<Region>),
    /// Split at the region's split point, then compact the daughters' references away.
    Split(Arc<TableShared>, Arc<Region>),
    MajorCompact(Arc<TableShared>, Arc<Region>),
    /// Flush the largest memstores until all memstores together are below the global low
    /// mark ([`crate::DbOptions::global_memstore_size`]).
    GlobalFlush,
}

/// The worker pool.
pub(crate) struct Background {
    queue: Mutex<VecDeque<Job>>,
    wake: Condvar,
    shutdown: AtomicBool,
    threads: Mutex<Vec<JoinHandle<()>>>,
    /// The most recent background failure, for diagnostics.
    pub last_error: Mutex<Option<String>>,
}

impl std::fmt::Debug for Background {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Background").finish_non_exhaustive()
    }
}

impl Background {
    pub fn new() -> Arc<Background> {
        Arc::new(Background {
            queue: Mutex::new(VecDeque::new()),
            wake: Condvar::new(),
            shutdown: AtomicBool::new(false),
            threads: Mutex::new(Vec::new()),
            last_error: Mutex::new(None),
        })
    }

    /// Starts `n` workers serving `db`.
    ///
    /// # Errors
    /// [`crate::Error::Io`] when the operating system refuses a thread.
    pub fn start(self: &Arc<Self>, n: usize, db: Weak<DbInner>) -> crate::Result<()> {
        let mut threads = self.threads.lock();
        for i in 0..n {
            let bg = self.clone();
            let db = db.clone();
            let h = std::thread::Builder::new()
                .name(format!("cellbase-bg-{i}"))
                .spawn(move || bg.run(db, i == 0))?;
            threads.push(h);
        }
        Ok(())
    }

    pub fn submit(&self, job: Job) {
        self.queue.lock().push_back(job);
        self.wake.notify_one();
    }

    fn run(&self, db: Weak<DbInner>, flushes_wal: bool) {
        loop {
            let job = {
                let mut q = self.queue.lock();
                loop {
                    if self.shutdown.load(Ordering::Acquire) {
                        return;
                    }
                    if let Some(j) = q.pop_front() {
                        break Some(j);
                    }
                    if self
                        .wake
                        .wait_for(&mut q, Duration::from_millis(100))
                        .timed_out()
                    {
                        break None;
                    }
                }
            };
            let Some(db) = db.upgrade() else { return };
            let result = match job {
                Some(Job::Flush(t, r)) => {
                    r.flush_queued.store(false, Ordering::Release);
                    db.flush_requested(&t, &r)
                }
                Some(Job::GlobalFlush) => {
                    let res = db.flush_for_global_pressure();
                    db.global_flush_queued.store(false, Ordering::Release);
                    res
                }
                Some(Job::Compact(t, r)) => {
                    r.compact_queued.store(false, Ordering::Release);
                    db.compact_region(&t, &r, false)
                }
                Some(Job::Split(t, r)) => {
                    // The flag stays set during the split, so its own flushes do not queue it
                    // again.
                    let res = db.split_region(&t, &r, None);
                    r.split_queued.store(false, Ordering::Release);
                    res.map(|daughters| match daughters {
                        Some(ds) => {
                            for d in ds {
                                db.bg.submit(Job::MajorCompact(t.clone(), d));
                            }
                        }
                        // No split after all: the compaction the flush skipped for it.
                        None => db.maybe_compact(&t, &r),
                    })
                }
                Some(Job::MajorCompact(t, r)) => db.compact_region(&t, &r, true),
                None if flushes_wal => db.flush_async_wal(),
                None => Ok(()),
            };
            if let Err(e) = result {
                *self.last_error.lock() = Some(e.to_string());
            }
            drop(db);
        }
    }

    /// Stops the workers and waits for them (a worker calling this does not wait for itself).
    pub fn shutdown(&self) {
        self.shutdown.store(true, Ordering::Release);
        self.wake.notify_all();
        let me = std::thread::current().id();
        let threads: Vec<_> = self.threads.lock().drain(..).collect();
        for h in threads {
            if h.thread().id() != me {
                let _ = h.join();
            }
        }
    }
}
