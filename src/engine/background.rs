//! Background work: a small pool of threads running flushes and compactions, and writing out
//! buffered (AsyncWal) log records every 100 ms. With zero threads nothing runs here; the write
//! path flushes inline and compactions run only when called.
//!
//! Flushes go first: a worker takes a queued flush before any compaction, and with two or more
//! workers at most all but one run compactions or splits at a time, so a flush never waits
//! behind long compactions while writers wait for memory (HBase runs flushes on their own
//! `MemStoreFlusher` threads, RocksDB in its high-priority pool).

use crate::engine::Engine;
use crate::engine::flush::FlushIf;
use crate::engine::region::{Queued, Region};
use crate::engine::table::TableShared;
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
    /// Flush the largest memstores until all memstores together are below the global lower
    /// limit ([`crate::DbOptions::global_memstore_lower_limit`]).
    GlobalFlush,
}

impl Job {
    /// A flush (memory is waiting on it), as opposed to a compaction or split.
    fn is_flush(&self) -> bool {
        matches!(self, Job::Flush(..) | Job::GlobalFlush)
    }
}

/// Queued jobs, flushes apart from the rest.
#[derive(Default)]
struct Queue {
    flushes: VecDeque<Job>,
    others: VecDeque<Job>,
    /// Workers running a job from `others`.
    busy_others: usize,
    /// How many workers may run jobs from `others` at once (all but one of two or more).
    max_others: usize,
}

impl Queue {
    /// The next job a free worker may take: the oldest flush, else the oldest other job if a
    /// slot for those is free (then counted in `busy_others`).
    fn take(&mut self) -> Option<Job> {
        if let Some(j) = self.flushes.pop_front() {
            return Some(j);
        }
        if self.busy_others < self.max_others {
            let j = self.others.pop_front()?;
            self.busy_others += 1;
            return Some(j);
        }
        None
    }
}

/// The worker pool.
pub(crate) struct Background {
    queue: Mutex<Queue>,
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
            queue: Mutex::new(Queue::default()),
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
    pub fn start(self: &Arc<Self>, n: usize, db: Weak<Engine>) -> crate::base::error::Result<()> {
        let mut threads = self.threads.lock();
        self.queue.lock().max_others = n.saturating_sub(1).max(1);
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
        let mut q = self.queue.lock();
        if job.is_flush() {
            q.flushes.push_back(job);
        } else {
            q.others.push_back(job);
        }
        drop(q);
        // All: a worker woken for a compaction whose slot is taken would go back to sleep.
        self.wake.notify_all();
    }

    fn run(&self, db: Weak<Engine>, flushes_wal: bool) {
        loop {
            let job = {
                let mut q = self.queue.lock();
                loop {
                    if self.shutdown.load(Ordering::Acquire) {
                        return;
                    }
                    if let Some(j) = q.take() {
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
            let other = job.as_ref().is_some_and(|j| !j.is_flush());
            let result = match job {
                Some(Job::Flush(t, r)) => {
                    r.clear_queued(Queued::Flush);
                    // A request queued while an earlier flush was running is void once that flush took
                    // the memstore, as HBase drops the flush request of a region already flushing.
                    db.flush_after_wait(&t, &r, FlushIf::Due)
                }
                Some(Job::GlobalFlush) => {
                    let res = db.flush_for_global_pressure();
                    db.global_flush_queued.store(false, Ordering::Release);
                    res
                }
                Some(Job::Compact(t, r)) => {
                    r.clear_queued(Queued::Compaction);
                    db.compact_region(&t, &r, false)
                }
                Some(Job::Split(t, r)) => {
                    // The flag stays set during the split, so its own flushes do not queue it
                    // again.
                    let res = db.split_region(&t, &r, None);
                    r.clear_queued(Queued::Split);
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
            if other {
                self.queue.lock().busy_others -= 1;
                // Its slot is free: a worker may take the next queued compaction.
                self.wake.notify_all();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Queued flushes are taken before older compactions, and with two or more workers one
    /// is always left free of compactions for them.
    #[test]
    fn flushes_go_first_and_keep_a_worker() {
        let mut q = Queue {
            max_others: 1,
            ..Queue::default()
        };
        q.others.push_back(Job::GlobalFlush); // stands in for a compaction: only its queue matters
        q.others.push_back(Job::GlobalFlush);
        q.flushes.push_back(Job::GlobalFlush);
        // The flush first, although queued last.
        assert!(q.take().is_some());
        assert!(q.flushes.is_empty());
        assert_eq!(q.others.len(), 2);
        // One compaction slot: the first compaction runs, the second waits for it.
        assert!(q.take().is_some());
        assert_eq!(q.busy_others, 1);
        assert!(q.take().is_none());
        // A flush queued meanwhile still gets the free worker.
        q.flushes.push_back(Job::GlobalFlush);
        assert!(matches!(q.take(), Some(Job::GlobalFlush)));
        q.busy_others -= 1;
        assert!(q.take().is_some());
        assert!(q.others.is_empty());
    }
}
