//! Group commit: the leader/follower protocol of [`Wal::append_with`] (see the parent module's
//! docs), the per-thread parking slots and the precise wake-up of a finished batch.

use super::*;

impl Wal {
    /// Waits until `need` is covered, leading batches when no one else is.
    ///
    /// A waiter registers its per-thread [`Slot`] and parks; the leader that covers its need
    /// marks it [`DONE`] and unparks exactly it, and it returns without taking the state lock
    /// again, so a batch of writers wakes in parallel (a condition variable would hand them
    /// the mutex one after another). The leader marks one waiter it did not cover
    /// [`RECHECK`] and wakes it first: that waiter leads the next batch, which queued during
    /// the leader's I/O.
    pub(super) fn wait_for<'a>(&'a self, mut g: MutexGuard<'a, Shared>, need: Need) -> Result<()> {
        loop {
            if need.covered(&g) {
                return Ok(());
            }
            if let Some(reason) = &g.poisoned {
                return Err(Error::Poisoned(reason.clone()));
            }
            if !g.leader {
                let wake = self.lead(&mut g);
                if need.covered(&g) {
                    drop(g);
                    wake_all(wake);
                    return Ok(());
                }
                wake_all_locked(&mut g, wake);
                continue;
            }
            let slot = Slot::current();
            slot.set(WAITING);
            g.waiters.push((need, slot.clone()));
            drop(g);
            if slot.wait(None) == DONE {
                return Ok(());
            }
            g = self.state.lock();
        }
    }

    /// Runs one batch as the leader: takes everything pending, does the I/O without the state
    /// lock and publishes the result. Returns the waiters to wake (already marked; the first
    /// one, if marked [`RECHECK`], leads next).
    pub(super) fn lead(&self, g: &mut MutexGuard<'_, Shared>) -> Wake {
        g.leader = true;
        self.gather(g);
        let batch_fsyncs = std::mem::take(&mut g.pending_fsyncs);
        let mut batch = std::mem::take(&mut g.spare);
        std::mem::swap(&mut batch, &mut g.pending);
        let seqs = g.pending_seqs.take();
        let end = g.pending_end;
        let want_sync = g.fsync_wanted > g.synced;
        let want_roll = g.roll_wanted > g.rolled_at;
        let started = Instant::now();
        let res = MutexGuard::unlocked(g, || self.write_batch(&batch, want_sync, want_roll));
        let took = started.elapsed();
        let wake = self.publish(g, res, end, seqs, batch_fsyncs, took);
        batch.clear();
        if batch.capacity() <= SPARE_CAPACITY_LIMIT {
            g.spare = batch;
        }
        wake
    }

    /// Publishes a finished batch's outcome (or poisons the log) and takes the waiters to wake.
    pub(super) fn publish(
        &self,
        g: &mut MutexGuard<'_, Shared>,
        res: std::result::Result<BatchOutcome, String>,
        end: u64,
        seqs: Option<(u64, u64)>,
        batch_fsyncs: usize,
        took: Duration,
    ) -> Wake {
        match res {
            Ok(out) => {
                g.written = end;
                if let Some((lo, hi)) = seqs {
                    g.current.add((lo, hi));
                }
                if out.synced {
                    g.synced = end;
                    if batch_fsyncs > 0 {
                        g.last_sync_batch = batch_fsyncs;
                        g.last_sync_time = took;
                    }
                }
                if let Some(new_id) = out.rolled_to {
                    let old = std::mem::replace(&mut g.current, SegmentInfo::empty(new_id));
                    log::info!(
                        target: "cellbase::wal",
                        "rolled the log from segment {} to segment {new_id}",
                        old.id
                    );
                    g.closed_segments.push(old);
                    g.rolled_at = end;
                }
            }
            Err(reason) => {
                if g.poisoned.is_none() {
                    log::warn!(
                        target: "cellbase::wal",
                        "log write failed, refusing further writes until reopened: {reason}"
                    );
                    g.poisoned = Some(reason);
                }
            }
        }
        g.leader = false;
        self.waiters_to_wake(g)
    }

    /// Takes the waiters a finished batch released: every covered one (to be marked [`DONE`]
    /// when woken), or all of them when the log is poisoned (marked [`RECHECK`]: they return
    /// the error), and the oldest uncovered one (marked [`RECHECK`]) to lead the next batch.
    pub(super) fn waiters_to_wake(&self, g: &mut Shared) -> Wake {
        let mut wake = Wake::default();
        if g.waiters.is_empty() {
            return wake;
        }
        if g.poisoned.is_some() {
            for (_, slot) in g.waiters.drain(..) {
                slot.set(RECHECK);
                wake.first.push(slot);
            }
            return wake;
        }
        let mut next_leader = None;
        let mut kept = Vec::with_capacity(g.waiters.len());
        for (need, slot) in std::mem::take(&mut g.waiters) {
            if need.covered(g) {
                wake.done.push(slot);
            } else if next_leader.is_none() {
                slot.set(RECHECK);
                next_leader = Some(slot);
            } else {
                kept.push((need, slot));
            }
        }
        g.waiters = kept;
        wake.first.extend(next_leader);
        wake
    }

    /// Group commit across the whole write path: writers of the last synced batch come back
    /// one by one (each finishes its memstore insert and MVCC step first, on few cores), and
    /// the first one back would otherwise sync alone while the rest queue behind it. A leader
    /// about to fdatasync fewer entries than the last synced batch held waits for more (as
    /// MySQL's binlog group commit delay and PostgreSQL's commit_delay, but self-tuning: a
    /// single writer never waits, since its last batch held one entry), at most half the last
    /// sync's duration (capped at 1 ms), and only while waiting pays: while the next entry
    /// arrives within the batch's time per entry so far, `(last sync + waited) / entries`
    /// (one more entry raises the entries per unit of time exactly when it arrives sooner).
    /// The appender that completes the count wakes the leader; otherwise it wakes at that
    /// per-entry deadline and looks again.
    pub(super) fn gather(&self, g: &mut MutexGuard<'_, Shared>) {
        if g.pending_fsyncs == 0 || g.pending_fsyncs >= g.last_sync_batch {
            return;
        }
        let sync = g.last_sync_time;
        let start = Instant::now();
        let cap = start + (sync / 2).min(Duration::from_millis(1));
        let slot = Slot::current();
        loop {
            let entries = g.pending_fsyncs.max(1) as u32;
            let per_entry = (sync + start.elapsed()) / entries;
            let deadline = cap.min(g.last_fsync_append + per_entry);
            if g.pending_fsyncs >= g.last_sync_batch || Instant::now() >= deadline {
                break;
            }
            slot.set(WAITING);
            g.gatherer = Some(slot.clone());
            MutexGuard::unlocked(g, || slot.wait(Some(deadline)));
            g.gatherer = None;
        }
    }

    /// The leader's I/O: write the batch, sync when asked or before a roll, roll when the
    /// segment is full or a roll was asked for. An error is the poison reason.
    pub(super) fn write_batch(
        &self,
        batch: &[u8],
        want_sync: bool,
        want_roll: bool,
    ) -> std::result::Result<BatchOutcome, String> {
        let mut io = self.io.lock();
        let io = &mut *io;
        let id = io.id;
        let seg_path = || segment::segment_path(&self.dir, id).display().to_string();
        if let Some(reason) = self.syncer.state.lock().error.clone() {
            return Err(reason);
        }
        if !batch.is_empty() {
            self.writes.fetch_add(1, Ordering::Relaxed);
            io.unsynced = true;
            io.unsynced_bytes += batch.len() as u64;
            let end = io.file.len() + batch.len() as u64;
            if end > io.allocated
                && let Some(target) = preallocation_target(end, self.opts.segment_size)
            {
                if let Err(e) = io.file.preallocate(target) {
                    return Err(format!(
                        "preallocating WAL segment {} failed: {e}",
                        seg_path()
                    ));
                }
                io.allocated = target;
            }
            if let Err(e) = io.file.append(batch) {
                return Err(format!("write to WAL segment {} failed: {e}", seg_path()));
            }
            // Writeback of each MiB starts as it is written (RocksDB's wal_bytes_per_sync), so
            // the fdatasync of a roll, on the writer's path, finds little left to write: with
            // only the 8 MiB sync-ahead, rolls took 7-25 ms under a load's compactions, 1-2 ms
            // with it (docs/PERFORMANCE.md, "Longest writes"). Only a hint: a failure to start
            // writeback loses nothing, and the next sync reports a real I/O error.
            io.unwritten_bytes += batch.len() as u64;
            if io.unwritten_bytes >= crate::base::io::WRITEBACK_EVERY {
                io.unwritten_bytes = 0;
                let _ = io.file.start_writeback();
            }
        }
        let roll = want_roll || io.file.len() > self.opts.segment_size;
        // A segment being closed loses its preallocated zero tail first, so that its length is
        // its logical length when the successor's header records it. `truncate` syncs the
        // file (data and size), which stands in for the fdatasync below.
        if roll && io.allocated > io.file.len() {
            self.syncs.fetch_add(1, Ordering::Relaxed);
            let len = io.file.len();
            if let Err(e) = self.fs.truncate(&segment::segment_path(&self.dir, id), len) {
                return Err(format!(
                    "trimming WAL segment {} to {len} bytes failed: {e}",
                    seg_path()
                ));
            }
            io.allocated = len;
            io.unsynced = false;
            io.unsynced_bytes = 0;
        }
        // A segment is synced before it is closed, so only the newest segment can have a torn
        // tail after a power loss (replay treats damage in older segments as corruption).
        if (want_sync || roll) && io.unsynced {
            self.syncs.fetch_add(1, Ordering::Relaxed);
            let started = Instant::now();
            let synced = io.file.sync_data();
            self.sync_time.record_since(started);
            if let Err(e) = synced {
                return Err(format!(
                    "fdatasync of WAL segment {} failed: {e}",
                    seg_path()
                ));
            }
            io.unsynced = false;
            io.unsynced_bytes = 0;
        }
        let mut rolled_to = None;
        if roll {
            let new_id = io.id + 1;
            // The old segment was just synced (or had nothing unsynced), so its length is
            // durable: the new header records it and replay checks it.
            let prev = segment::PrevSegment {
                id: io.id,
                len: io.file.len(),
            };
            let f =
                segment::create_segment(&*self.fs, &self.dir, new_id, Some(prev)).map_err(|e| {
                    format!(
                        "creating WAL segment {} failed: {e}",
                        segment::segment_path(&self.dir, new_id).display()
                    )
                })?;
            if let Some(hook) = &*self.roll_hook.lock() {
                hook(new_id, prev).map_err(|e| {
                    format!(
                        "recording new WAL segment {} failed: {e}",
                        segment::segment_path(&self.dir, new_id).display()
                    )
                })?;
            }
            self.syncs.fetch_add(1, Ordering::Relaxed);
            self.rolls.fetch_add(1, Ordering::Relaxed);
            io.file = f;
            io.id = new_id;
            io.allocated = 0;
            rolled_to = Some(new_id);
        }
        if rolled_to.is_none()
            && self.opts.sync_ahead > 0
            && io.unsynced_bytes >= self.opts.sync_ahead
        {
            io.unsynced_bytes = 0;
            self.sync_in_background(io.id);
        }
        Ok(BatchOutcome {
            synced: want_sync || roll,
            rolled_to,
        })
    }
}

/// [`Slot`] state: parked until a leader releases it.
pub(super) const WAITING: u8 = 0;
/// [`Slot`] state: the waiter's need is covered; it returns without the state lock.
pub(super) const DONE: u8 = 1;
/// [`Slot`] state: the waiter takes the state lock and looks again (to lead, to return the
/// poison error, or, for a gathering leader, because the batch is complete).
pub(super) const RECHECK: u8 = 2;

/// A thread's parking place while it waits on the log (one per thread, reused).
pub(super) struct Slot {
    pub(super) state: AtomicU8,
    pub(super) thread: std::thread::Thread,
}

impl Slot {
    pub(super) fn new() -> Arc<Slot> {
        Arc::new(Slot {
            state: AtomicU8::new(WAITING),
            thread: std::thread::current(),
        })
    }

    /// This thread's slot (a fresh one while the thread's locals are being destroyed).
    pub(super) fn current() -> Arc<Slot> {
        thread_local! {
            static SLOT: Arc<Slot> = Slot::new();
        }
        SLOT.try_with(Arc::clone).unwrap_or_else(|_| Slot::new())
    }

    pub(super) fn set(&self, state: u8) {
        self.state.store(state, Ordering::Release);
    }

    /// Parks until the state leaves [`WAITING`] (or `deadline` passes); returns the state.
    pub(super) fn wait(&self, deadline: Option<Instant>) -> u8 {
        loop {
            let s = self.state.load(Ordering::Acquire);
            if s != WAITING {
                return s;
            }
            match deadline {
                None => std::thread::park(),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return s;
                    }
                    std::thread::park_timeout(d - now);
                }
            }
        }
    }
}

/// The waiters a finished batch releases.
#[derive(Default)]
pub(super) struct Wake {
    /// Already marked [`RECHECK`]: the next leader (or, after poisoning, every waiter).
    first: Vec<Arc<Slot>>,
    /// Covered waiters, marked [`DONE`] when they are woken.
    done: Vec<Arc<Slot>>,
}

impl Wake {
    pub(super) fn is_empty(&self) -> bool {
        self.first.is_empty() && self.done.is_empty()
    }

    /// Unparks the [`RECHECK`] waiters (the next leader) now.
    pub(super) fn unpark_first(&self) {
        for slot in &self.first {
            slot.thread.unpark();
        }
    }
}

/// Unparks the released waiters (the next leader first; unparking it twice is harmless).
pub(super) fn wake_all(wake: Wake) {
    wake.unpark_first();
    for slot in wake.done {
        slot.set(DONE);
        slot.thread.unpark();
    }
}

/// As [`wake_all`], for a caller that keeps the state lock afterwards.
pub(super) fn wake_all_locked(g: &mut MutexGuard<'_, Shared>, wake: Wake) {
    if !wake.is_empty() {
        MutexGuard::unlocked(g, || wake_all(wake));
    }
}
