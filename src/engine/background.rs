//! Background work: a small pool of threads running flushes and compactions, and writing out
//! buffered (AsyncWal) log records every 100 ms. With zero threads nothing runs here; the write
//! path flushes inline and compactions run only when called.
//!
//! Flushes go first: a worker takes a queued flush before any compaction, and with two or more
//! workers at most all but one run compactions or splits at a time, so a flush never waits
//! behind long compactions while writers wait for memory (HBase runs flushes on their own
//! `MemStoreFlusher` threads, RocksDB in its high-priority pool).
//!
//! No failure is silent: each is logged (`warn!`, target `cellbase::background`) and counted
//! ([`crate::engine::background_errors`]). A failed flush leaves its snapshot in memory and is
//! queued again after a backoff (100 ms, doubling up to 5 s, for as long as it keeps failing),
//! so a flush that failed for a passing reason (a full disk freed meanwhile) does not wait for
//! the next write.

use crate::base::error::Error;
use crate::engine::Engine;
use crate::engine::background_errors::{BgErrorLog, BgKind};
use crate::engine::flush::FlushIf;
use crate::engine::region::{Queued, Region};
use crate::engine::table::TableShared;
use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The first delay before a failed flush is retried; each further failure doubles it.
const RETRY_FIRST: Duration = Duration::from_millis(100);
/// The longest delay between retries of a failing flush.
const RETRY_MAX: Duration = Duration::from_secs(5);

/// The delay before retry number `attempt` (0-based) of a failed flush: 100 ms doubling,
/// at most 5 s.
pub(crate) fn retry_delay(attempt: u32) -> Duration {
    RETRY_FIRST
        .saturating_mul(1u32 << attempt.min(16))
        .min(RETRY_MAX)
}

/// A unit of background work.
pub(crate) enum Job {
    Flush(Arc<TableShared>, Arc<Region>),
    Compact(Arc<TableShared>, Arc<Region>),
    /// Split at the region's split point, then compact the daughters' references away.
    Split(Arc<TableShared>, Arc<Region>),
    /// Flush the largest memstores until all memstores together are below the global lower
    /// limit ([`crate::DbOptions::global_memstore_lower_limit`]).
    GlobalFlush,
    /// A failed flush queued again: retry number `attempt` (0-based) of `job`.
    Retry {
        job: Box<Job>,
        attempt: u32,
    },
}

impl Job {
    /// A flush (memory is waiting on it), as opposed to a compaction or split.
    fn is_flush(&self) -> bool {
        match self {
            Job::Flush(..) | Job::GlobalFlush => true,
            Job::Retry { job, .. } => job.is_flush(),
            _ => false,
        }
    }

    /// The kind of work, for failure counts and log lines.
    fn kind(&self) -> BgKind {
        match self {
            Job::Flush(..) | Job::GlobalFlush => BgKind::Flush,
            Job::Compact(..) => BgKind::Compaction,
            Job::Split(..) => BgKind::Split,
            Job::Retry { job, .. } => job.kind(),
        }
    }

    /// What the job works on, in words: `table 't' region 3`, or `the largest memstores`.
    fn subject(&self) -> String {
        match self {
            Job::Flush(t, r) | Job::Compact(t, r) | Job::Split(t, r) => {
                format!("table '{}' region {}", t.name, r.id())
            }
            Job::GlobalFlush => "the largest memstores (global memory pressure)".to_string(),
            Job::Retry { job, .. } => job.subject(),
        }
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
    /// Failed flushes waiting for their backoff to pass, with the time they are due.
    delayed: Vec<(Instant, Job)>,
}

impl Queue {
    /// Moves the delayed jobs due at `now` to their queue; returns how long until the next
    /// delayed one is due.
    fn promote_due(&mut self, now: Instant) -> Option<Duration> {
        let mut i = 0;
        while i < self.delayed.len() {
            if self.delayed[i].0 <= now {
                let (_, job) = self.delayed.swap_remove(i);
                if job.is_flush() {
                    self.flushes.push_back(job);
                } else {
                    self.others.push_back(job);
                }
            } else {
                i += 1;
            }
        }
        self.delayed
            .iter()
            .map(|(due, _)| due.saturating_duration_since(now))
            .min()
    }

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
    /// Failures of background work, per kind ([`Engine::background_errors`]).
    pub errors: BgErrorLog,
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
            errors: BgErrorLog::default(),
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

    /// Queues `job` to run once `delay` passed (a retry after a failure).
    fn submit_after(&self, job: Job, delay: Duration) {
        self.queue
            .lock()
            .delayed
            .push((Instant::now() + delay, job));
        self.wake.notify_all();
    }

    /// Queue lengths now: `(flushes, compactions, splits)`, failed flushes waiting for their
    /// retry included (HBase `flushQueueLength`, `compactionQueueLength`, `splitQueueLength`).
    pub fn queue_lengths(&self) -> (u64, u64, u64) {
        let q = self.queue.lock();
        let (mut flushes, mut compactions, mut splits) = (0u64, 0u64, 0u64);
        let jobs = q
            .flushes
            .iter()
            .chain(&q.others)
            .chain(q.delayed.iter().map(|(_, j)| j));
        for j in jobs {
            match j.kind() {
                BgKind::Flush => flushes += 1,
                BgKind::Compaction => compactions += 1,
                BgKind::Split => splits += 1,
                BgKind::WalWrite => {}
            }
        }
        (flushes, compactions, splits)
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
        let mut wal_failing = false;
        loop {
            let job = {
                let mut q = self.queue.lock();
                loop {
                    if self.shutdown.load(Ordering::Acquire) {
                        return;
                    }
                    let next_due = q.promote_due(Instant::now());
                    if let Some(j) = q.take() {
                        break Some(j);
                    }
                    let tick = Duration::from_millis(100);
                    let wait = next_due.map_or(tick, |d| d.min(tick));
                    if self.wake.wait_for(&mut q, wait).timed_out() && wait == tick {
                        break None;
                    }
                }
            };
            let Some(db) = db.upgrade() else { return };
            let other = job.as_ref().is_some_and(|j| !j.is_flush());
            let (job, attempt) = match job {
                Some(Job::Retry { job, attempt }) => (Some(*job), Some(attempt)),
                j => (j, None),
            };
            // For the failure report and the retry: what ran (cheap: two `Arc` clones).
            let ran = job.as_ref().and_then(|j| match j {
                Job::Flush(t, r) => Some(Job::Flush(t.clone(), r.clone())),
                Job::GlobalFlush => Some(Job::GlobalFlush),
                Job::Compact(t, r) => Some(Job::Compact(t.clone(), r.clone())),
                Job::Split(t, r) => Some(Job::Split(t.clone(), r.clone())),
                Job::Retry { .. } => None,
            });
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
                    // The split switch may have been turned off since it was queued.
                    let res = if db.split_enabled() {
                        db.split_region(&t, &r, None)
                    } else {
                        Ok(None)
                    };
                    r.clear_queued(Queued::Split);
                    res.map(|daughters| match daughters {
                        Some(ds) => {
                            // A minor compaction: it rewrites the files the daughters share
                            // (references), not every file (docs/SEMANTICS.md).
                            for d in ds {
                                db.bg.submit(Job::Compact(t.clone(), d));
                            }
                        }
                        // No split after all: the compaction the flush skipped for it.
                        None => db.maybe_compact(&t, &r),
                    })
                }
                Some(Job::Retry { .. }) => Ok(()), // unwrapped above
                None if flushes_wal => {
                    // Noted once per run of failures: a poisoned log fails every 100 ms.
                    let res = db.flush_async_wal();
                    match &res {
                        Err(e) if !wal_failing => db.note_background_error(
                            BgKind::WalWrite,
                            "the buffered log records",
                            e,
                        ),
                        _ => {}
                    }
                    wal_failing = res.is_err();
                    res
                }
                None => Ok(()),
            };
            if let (Err(e), Some(ran)) = (&result, ran) {
                db.note_background_error(ran.kind(), &ran.subject(), e);
                if ran.is_flush() {
                    self.retry_flush(&db, ran, attempt.map_or(0, |a| a.saturating_add(1)));
                }
            }
            if other {
                self.queue.lock().busy_others -= 1;
                // Its slot is free: a worker may take the next queued compaction.
                self.wake.notify_all();
            }
            drop(db);
        }
    }

    /// Queues a failed flush again after the backoff of retry number `attempt`, unless a
    /// flush of the same region (or a global flush) is queued already or the workers stop.
    fn retry_flush(&self, db: &Engine, job: Job, attempt: u32) {
        if self.shutdown.load(Ordering::Acquire) {
            return;
        }
        let queued = match &job {
            Job::Flush(_, r) => r.try_queue(Queued::Flush),
            Job::GlobalFlush => !db.global_flush_queued.swap(true, Ordering::AcqRel),
            _ => false,
        };
        if !queued {
            return;
        }
        let delay = retry_delay(attempt);
        log::warn!(
            target: "cellbase::background",
            "retrying the flush of {} in {} ms (retry {})",
            job.subject(),
            delay.as_millis(),
            attempt + 1
        );
        self.submit_after(
            Job::Retry {
                job: Box::new(job),
                attempt,
            },
            delay,
        );
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

impl Engine {
    /// Logs and counts a failure of background work (or of a flush a writer ran after its
    /// write): `what` names the table and region.
    pub(crate) fn note_background_error(&self, kind: BgKind, what: &str, e: &Error) {
        log::warn!(
            target: "cellbase::background",
            "{} of {what} failed: {e}",
            kind.name()
        );
        self.bg.errors.record(
            kind,
            format!("{} of {what} failed: {e}", kind.name()),
            self.clock.now_millis(),
        );
    }

    /// The failures of background work so far.
    pub(crate) fn background_errors(&self) -> crate::engine::background_errors::BackgroundErrors {
        self.bg.errors.snapshot()
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

    /// A delayed job waits for its time, then goes to its queue.
    #[test]
    fn delayed_jobs_wait_for_their_time() {
        let mut q = Queue::default();
        let now = Instant::now();
        q.delayed
            .push((now + Duration::from_millis(50), Job::GlobalFlush));
        let left = q.promote_due(now).unwrap();
        assert!(left <= Duration::from_millis(50));
        assert!(q.take().is_none());
        assert!(q.promote_due(now + Duration::from_millis(60)).is_none());
        assert!(q.take().is_some());
    }

    #[test]
    fn retry_delay_doubles_up_to_five_seconds() {
        assert_eq!(retry_delay(0), Duration::from_millis(100));
        assert_eq!(retry_delay(1), Duration::from_millis(200));
        assert_eq!(retry_delay(5), Duration::from_millis(3200));
        assert_eq!(retry_delay(6), Duration::from_secs(5));
        assert_eq!(retry_delay(u32::MAX), Duration::from_secs(5));
    }
}
