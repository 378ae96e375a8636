//! The write-ahead log writer: segment files, group commit, rolling, obsolete-segment deletion
//! and poisoning.
//!
//! # Group commit
//!
//! Appenders write their record straight into the shared `pending` buffer under the state mutex
//! (payload, sequence id and checksum are produced there, [`Wal::append_with`]; the write path
//! takes its sequence id there too, so the log is in sequence-id order) and take a *ticket*: the
//! logical log position just after their record (positions count frame bytes appended since the
//! `Wal` was created, across segments). `written` and `synced` are the logical positions already written to the OS
//! and covered by `fdatasync`. A caller that must wait loops:
//!
//! 1. if its ticket is covered (`written >= ticket`, or `synced >= ticket` for Fsync), return;
//! 2. if the WAL is poisoned, return [`Error::Poisoned`];
//! 3. if no leader is active, become the leader: take the whole pending buffer, note whether any
//!    waiter wants a sync (`fsync_wanted > synced`) or a roll, release the mutex, `write()` the
//!    batch (plus `fdatasync` when wanted, plus a segment roll when the segment is full), re-lock,
//!    publish `written` / `synced` and clear the leader flag;
//! 4. otherwise register in `waiters` and park.
//!
//! The finishing leader wakes precisely: first the oldest waiter its batch did not cover (it
//! leads the next batch, which queued during the I/O), then, in arrival order, every waiter it
//! covered; those return after reading their slot, without taking the mutex again. A condition
//! variable's `notify_all` would hand the mutex to all waiters one after another, covered or
//! not, with the next leader somewhere in that chain.
//!
//! The mutex is never held during I/O; appenders keep queueing while the leader writes, and the
//! next leader takes all of them in one write and one sync.
//!
//! # Preallocation and sync-ahead
//!
//! The current segment is grown ahead of the appends ([`WritableFile::preallocate`], see
//! `preallocation_target`), so an fdatasync'd append does not change the file's size; a segment
//! is trimmed to its last record when it is rolled (before the successor's header records its
//! length) or the log is closed. Once [`WalOptions::sync_ahead`] bytes were written without a
//! sync, a background thread fdatasyncs the segment, so a roll never syncs a whole segment
//! while writers wait.

use crate::base::error::{Error, Result};
use crate::base::io::{FileSystem, WritableFile};
use crate::storage::wal::record;
use crate::storage::wal::segment::{self, ENTRY_HEADER_LEN, MAX_ENTRY_PAYLOAD, REC_ENTRY};
use parking_lot::{Mutex, MutexGuard};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How far an [`Wal::append`] goes before it returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalSync {
    /// AsyncWal: queued in memory; lost if the process dies before a later write.
    Buffered,
    /// SyncWal: written to the OS (survives a process crash, not a power loss).
    Write,
    /// FsyncWal: covered by `fdatasync` (survives a power loss).
    Fsync,
}

/// WAL tuning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalOptions {
    /// Roll to a new segment once the current one passes this many bytes (default 64 MiB).
    pub segment_size: u64,
    /// Buffered appends write inline once this many bytes are queued (default 256 KiB).
    pub async_buffer_limit: usize,
    /// Once this many bytes were written to the current segment since its last fdatasync, a
    /// background thread fdatasyncs it, so a roll (which must sync the old segment before the
    /// new one exists) finds little unsynced data and writers do not wait for a whole
    /// segment's writeback (default 8 MiB; 0 turns it off).
    pub sync_ahead: u64,
}

impl Default for WalOptions {
    fn default() -> Self {
        WalOptions {
            segment_size: 64 << 20,
            async_buffer_limit: 256 << 10,
            sync_ahead: 8 << 20,
        }
    }
}

/// Sequence-id bookkeeping of one segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentInfo {
    /// Segment id (file `{id:010}.log`).
    pub id: u64,
    /// Smallest sequence id written to the segment (`u64::MAX` when it holds no entry).
    pub min_seq: u64,
    /// Largest sequence id written to the segment (0 when it holds no entry).
    pub max_seq: u64,
}

impl SegmentInfo {
    fn empty(id: u64) -> Self {
        SegmentInfo {
            id,
            min_seq: u64::MAX,
            max_seq: 0,
        }
    }

    fn add(&mut self, (min, max): (u64, u64)) {
        self.min_seq = self.min_seq.min(min);
        self.max_seq = self.max_seq.max(max);
    }
}

/// Spare batch buffers larger than this are dropped instead of reused.
const SPARE_CAPACITY_LIMIT: usize = 4 << 20;

/// State shared by appenders; guarded by `Wal::state`.
struct Shared {
    /// Framed records not yet taken by a leader.
    pending: Vec<u8>,
    /// (min, max) sequence id in `pending`.
    pending_seqs: Option<(u64, u64)>,
    /// A cleared buffer to swap in for `pending` (keeps its allocation).
    spare: Vec<u8>,
    /// Logical position after the last byte appended to `pending`.
    pending_end: u64,
    /// Logical position written to the OS.
    written: u64,
    /// Logical position covered by fdatasync.
    synced: u64,
    /// Logical position at which the last segment roll happened.
    rolled_at: u64,
    /// Largest ticket whose owner needs fdatasync.
    fsync_wanted: u64,
    /// Largest ticket whose owner asked for a roll ([`Wal::roll`]).
    roll_wanted: u64,
    /// A leader is doing I/O.
    leader: bool,
    /// Entries in `pending` whose owners wait for an fdatasync.
    pending_fsyncs: usize,
    /// Fsync'd entries in the last synced batch: how many writers were committing together.
    last_sync_batch: usize,
    /// How long the last synced batch's I/O took.
    last_sync_time: Duration,
    /// When the newest entry whose owner waits for an fdatasync was appended.
    last_fsync_append: Instant,
    /// The leader waiting for the writers of the last batch to append again, woken when
    /// `pending_fsyncs` reaches `last_sync_batch`.
    gatherer: Option<Arc<Slot>>,
    /// Callers waiting for their need to be covered, in arrival order.
    waiters: Vec<(Need, Arc<Slot>)>,
    poisoned: Option<String>,
    closed: bool,
    /// The segment being appended to.
    current: SegmentInfo,
    /// Closed (and adopted) segments, ascending id.
    closed_segments: Vec<SegmentInfo>,
}

/// State only the active leader touches (its mutex is therefore uncontended).
struct IoState {
    file: Box<dyn WritableFile>,
    id: u64,
    /// Bytes were written to `file` since its last fdatasync.
    unsynced: bool,
    /// Bytes written to `file` since its last fdatasync or background sync request.
    unsynced_bytes: u64,
    /// The size `file` was preallocated to ([`WritableFile::preallocate`]); at or below
    /// `file.len()` when it has no zero tail.
    allocated: u64,
}

/// What a leader's batch did.
struct BatchOutcome {
    synced: bool,
    /// The segment was rolled: the new segment's id.
    rolled_to: Option<u64>,
}

#[derive(Clone, Copy)]
enum Need {
    Written(u64),
    Synced(u64),
    Rolled(u64),
}

impl Need {
    fn covered(self, s: &Shared) -> bool {
        match self {
            Need::Written(t) => s.written >= t,
            Need::Synced(t) => s.synced >= t,
            Need::Rolled(t) => s.rolled_at >= t,
        }
    }
}

/// The write-ahead log of one database: a directory of segment files written with group commit.
/// `Send + Sync`; share it through an `Arc`.
pub struct Wal {
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    opts: WalOptions,
    state: Mutex<Shared>,
    io: Mutex<IoState>,
    /// Serializes [`Wal::delete_obsolete`] calls.
    deleting: Mutex<()>,
    /// Requests to the background sync thread ([`WalOptions::sync_ahead`]).
    syncer: Arc<Syncer>,
    /// The background sync thread, started on its first request.
    syncer_thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    syncs: AtomicU64,
    writes: AtomicU64,
    /// Called with a new segment's id after the roll created it and before it takes a write
    /// ([`Wal::set_roll_hook`]).
    roll_hook: Mutex<Option<RollHook>>,
    /// See [`Wal::sealed_before`].
    sealed_before: Option<segment::PrevSegment>,
}

/// What a roll tells its owner: the id of the segment it created, and the segment it closed
/// with the length it was synced at. An error poisons the WAL.
pub type RollHook = Box<dyn Fn(u64, segment::PrevSegment) -> Result<()> + Send + Sync>;

impl std::fmt::Debug for Wal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wal")
            .field("dir", &self.dir)
            .field("opts", &self.opts)
            .finish()
    }
}

impl Wal {
    /// Creates segment `first_segment_id` in `dir` (which must exist; the segment file must not),
    /// writes and syncs its header and syncs the directory. The header links to the newest
    /// older segment in `dir`, if any, recording its length after an `fdatasync` of it. Recover an existing log with
    /// [`crate::storage::wal::replay`] first and pass `last_segment_id + 1`.
    pub fn create(
        fs: Arc<dyn FileSystem>,
        dir: PathBuf,
        first_segment_id: u64,
        opts: WalOptions,
    ) -> Result<Wal> {
        if opts.segment_size == 0 {
            return Err(Error::invalid("WalOptions::segment_size must be positive"));
        }
        let prev = previous_segment(&*fs, &dir, first_segment_id)?;
        let file = segment::create_segment(&*fs, &dir, first_segment_id, prev)?;
        let sealed_before = prev;
        Ok(Wal {
            fs,
            dir,
            opts,
            state: Mutex::new(Shared {
                pending: Vec::new(),
                pending_seqs: None,
                spare: Vec::new(),
                pending_end: 0,
                written: 0,
                synced: 0,
                rolled_at: 0,
                fsync_wanted: 0,
                roll_wanted: 0,
                leader: false,
                pending_fsyncs: 0,
                last_sync_batch: 0,
                last_sync_time: Duration::ZERO,
                last_fsync_append: Instant::now(),
                gatherer: None,
                waiters: Vec::new(),
                poisoned: None,
                closed: false,
                current: SegmentInfo::empty(first_segment_id),
                closed_segments: Vec::new(),
            }),
            io: Mutex::new(IoState {
                file,
                id: first_segment_id,
                unsynced: false,
                unsynced_bytes: 0,
                allocated: 0,
            }),
            syncer: Arc::new(Syncer::default()),
            syncer_thread: Mutex::new(None),
            deleting: Mutex::new(()),
            syncs: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            roll_hook: Mutex::new(None),
            sealed_before,
        })
    }

    /// The segment that was newest when this WAL was created, with the length it was synced
    /// at (its successor's header records the same).
    pub fn sealed_before(&self) -> Option<segment::PrevSegment> {
        self.sealed_before
    }

    /// Sets what a roll calls with the new segment's id, after creating (and syncing) the
    /// segment and before any entry goes into it: the database records the segment in its
    /// manifest, so a segment lost from the end of the log is noticed at the next open. A
    /// failing hook poisons the WAL.
    pub fn set_roll_hook(&self, hook: RollHook) {
        *self.roll_hook.lock() = Some(hook);
    }

    /// Appends one entry carrying sequence id `seq` and returns once `sync` is satisfied:
    /// [`WalSync::Buffered`] after queueing in memory (the queue is written by a later
    /// Write/Fsync append, [`Wal::flush_buffered`], or inline by the appender that pushes it past
    /// `async_buffer_limit`); [`WalSync::Write`] after `write()`; [`WalSync::Fsync`] after
    /// `fdatasync`. Concurrent callers share writes and syncs (group commit).
    ///
    /// Entries reach the file in the order their appends took the internal lock, which need not
    /// be `seq` order when callers assign `seq` before calling concurrently.
    #[cfg(any(test, feature = "testing"))]
    pub fn append(&self, payload: &[u8], seq: u64, sync: WalSync) -> Result<()> {
        if payload.len() > MAX_ENTRY_PAYLOAD {
            return Err(too_long(payload.len()));
        }
        self.append_with(payload.len(), sync, |buf| {
            buf.extend_from_slice(payload);
            seq
        })
        .map(|_| ())
    }

    /// As [`Wal::append`], but the entry is produced under the log's lock: `entry` appends the
    /// entry's payload (about `len_hint` bytes) to the buffer it is given and returns the
    /// entry's sequence id. The payload is written once, in place, and framed there; an
    /// entry produced by one call reaches the file before the entries of every later call, so
    /// sequence ids taken inside `entry` are logged in ascending order. `entry` runs with the
    /// lock held: it must be short and must not call into the WAL. Returns the sequence id.
    ///
    /// # Errors
    /// As [`Wal::append`]; an oversized payload is removed again and not logged. `entry` has not
    /// run when the WAL is closed or poisoned on entry; it ran for every other error.
    pub fn append_with(
        &self,
        len_hint: usize,
        sync: WalSync,
        entry: impl FnOnce(&mut Vec<u8>) -> u64,
    ) -> Result<u64> {
        let mut g = self.state.lock();
        check_open(&g)?;
        let start = g.pending.len();
        let body = start + record::HEADER_LEN;
        g.pending
            .reserve(record::HEADER_LEN + ENTRY_HEADER_LEN + len_hint);
        g.pending
            .extend_from_slice(&[0u8; record::HEADER_LEN + ENTRY_HEADER_LEN]);
        let seq = entry(&mut g.pending);
        let len = g.pending.len() - body;
        if len - ENTRY_HEADER_LEN > MAX_ENTRY_PAYLOAD {
            g.pending.truncate(start);
            return Err(too_long(len - ENTRY_HEADER_LEN));
        }
        g.pending[body..body + ENTRY_HEADER_LEN].copy_from_slice(&seq.to_be_bytes());
        let header = record::frame_header(REC_ENTRY, &g.pending[body..], &[]);
        g.pending[start..body].copy_from_slice(&header);
        g.pending_end += (record::HEADER_LEN + len) as u64;
        g.pending_seqs = Some(match g.pending_seqs {
            Some((lo, hi)) => (lo.min(seq), hi.max(seq)),
            None => (seq, seq),
        });
        let ticket = g.pending_end;
        let need = match sync {
            WalSync::Buffered if g.pending.len() <= self.opts.async_buffer_limit => {
                return Ok(seq);
            }
            WalSync::Buffered | WalSync::Write => Need::Written(ticket),
            WalSync::Fsync => {
                g.fsync_wanted = g.fsync_wanted.max(ticket);
                g.pending_fsyncs += 1;
                g.last_fsync_append = Instant::now();
                if g.pending_fsyncs >= g.last_sync_batch
                    && let Some(leader) = g.gatherer.take()
                {
                    leader.set(RECHECK);
                    leader.thread.unpark();
                }
                Need::Synced(ticket)
            }
        };
        self.wait_for(g, need).map(|()| seq)
    }

    /// Writes every queued (Buffered) entry to the OS.
    pub fn flush_buffered(&self) -> Result<()> {
        let g = self.state.lock();
        let t = g.pending_end;
        self.wait_for(g, Need::Written(t))
    }

    /// Makes every entry appended so far (including queued Buffered ones) durable with
    /// `fdatasync`.
    pub fn sync(&self) -> Result<()> {
        let mut g = self.state.lock();
        let t = g.pending_end;
        g.fsync_wanted = g.fsync_wanted.max(t);
        self.wait_for(g, Need::Synced(t))
    }

    /// Closes the current segment and starts a new one, unless nothing was appended since the
    /// last roll. Entries appended before the call end up in closed segments, which
    /// [`Wal::delete_obsolete`] can delete once they are flushed.
    pub fn roll(&self) -> Result<()> {
        let mut g = self.state.lock();
        let t = g.pending_end;
        g.roll_wanted = g.roll_wanted.max(t);
        self.wait_for(g, Need::Rolled(t))
    }

    /// Hands the segments of a recovered log (`(segment id, max seq)`, as
    /// [`crate::storage::wal::ReplayInfo::segments`] lists them) to this WAL, so that
    /// [`Wal::delete_obsolete`] deletes them once their entries are flushed. Their ids must be
    /// below this WAL's current segment id.
    pub fn adopt_segments(&self, segments: Vec<(u64, u64)>) -> Result<()> {
        let mut g = self.state.lock();
        if let Some(&(id, _)) = segments.iter().find(|&&(id, _)| id >= g.current.id) {
            return Err(Error::invalid(format!(
                "adopted WAL segment {id} is not older than the current segment {}",
                g.current.id
            )));
        }
        for (id, max_seq) in segments {
            if g.closed_segments.iter().any(|s| s.id == id) {
                continue;
            }
            let min_seq = if max_seq == 0 { u64::MAX } else { 0 };
            g.closed_segments.push(SegmentInfo {
                id,
                min_seq,
                max_seq,
            });
        }
        g.closed_segments.sort_by_key(|s| s.id);
        Ok(())
    }

    /// Deletes closed segments whose max sequence id is below `min_unflushed_seq` (every entry
    /// in them is already in block files); segments without entries count as max seq 0. Never
    /// deletes the current segment. Syncs the directory after deleting. Returns how many
    /// segments were deleted.
    #[cfg(test)]
    pub fn delete_obsolete(&self, min_unflushed_seq: u64) -> Result<usize> {
        self.delete_obsolete_with(min_unflushed_seq, &|_| Ok(()))
    }

    /// [`Wal::delete_obsolete`], calling `before_delete` with the ids it is about to delete
    /// first (the database records them in its manifest); its error deletes nothing.
    pub fn delete_obsolete_with(
        &self,
        min_unflushed_seq: u64,
        before_delete: &dyn Fn(&[u64]) -> Result<()>,
    ) -> Result<usize> {
        let _serial = self.deleting.lock();
        let victims: Vec<u64> = {
            let g = self.state.lock();
            g.closed_segments
                .iter()
                .filter(|s| s.max_seq < min_unflushed_seq)
                .map(|s| s.id)
                .collect()
        };
        if victims.is_empty() {
            return Ok(0);
        }
        before_delete(&victims)?;
        let mut gone = Vec::new();
        let mut first_err = None;
        for id in victims {
            match self.fs.remove(&segment::segment_path(&self.dir, id)) {
                Ok(()) => gone.push(id),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => gone.push(id),
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
        if !gone.is_empty() {
            self.state
                .lock()
                .closed_segments
                .retain(|s| !gone.contains(&s.id));
            self.fs.sync_dir(&self.dir)?;
        }
        match first_err {
            Some(e) => Err(e.into()),
            None => Ok(gone.len()),
        }
    }

    /// Number of live segment files (closed, adopted and the current one).
    pub fn segment_count(&self) -> usize {
        self.state.lock().closed_segments.len() + 1
    }

    /// Bookkeeping of every live segment, ascending id; the last one is the current segment.
    #[cfg(test)]
    pub fn segments(&self) -> Vec<SegmentInfo> {
        let g = self.state.lock();
        let mut v = g.closed_segments.clone();
        v.push(g.current);
        v
    }

    /// Id of the segment being appended to.
    #[cfg(test)]
    pub fn current_segment_id(&self) -> u64 {
        self.state.lock().current.id
    }

    /// Flushes queued entries and fsyncs; later appends return [`Error::Closed`]. Calling it
    /// again returns `Ok`.
    pub fn close(&self) -> Result<()> {
        let mut g = self.state.lock();
        g.closed = true;
        let t = g.pending_end;
        g.fsync_wanted = g.fsync_wanted.max(t);
        self.wait_for(g, Need::Synced(t))?;
        // No append follows: trim the preallocated zero tail so that the closed log takes only
        // the space it uses (replay would accept the tail, and cut it, too).
        let mut io = self.io.lock();
        let len = io.file.len();
        if io.allocated > len {
            let path = segment::segment_path(&self.dir, io.id);
            if let Err(e) = self.fs.truncate(&path, len) {
                let reason = format!("trimming WAL segment {} failed: {e}", path.display());
                self.state.lock().poisoned.get_or_insert(reason.clone());
                return Err(Error::Poisoned(reason));
            }
            io.allocated = len;
        }
        Ok(())
    }

    /// True after a failed write or sync; every later append returns [`Error::Poisoned`].
    #[cfg(test)]
    pub fn is_poisoned(&self) -> bool {
        self.state.lock().poisoned.is_some()
    }

    /// How many `fdatasync` calls the WAL made on segment files (for tests and metrics).
    #[cfg(any(test, feature = "testing"))]
    pub fn sync_count(&self) -> u64 {
        self.syncs.load(Ordering::Relaxed)
    }

    /// How many `write()` calls (batches) the WAL made on segment files.
    #[cfg(test)]
    pub fn write_count(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }

    /// Waits until `need` is covered, leading batches when no one else is.
    ///
    /// A waiter registers its per-thread [`Slot`] and parks; the leader that covers its need
    /// marks it [`DONE`] and unparks exactly it, and it returns without taking the state lock
    /// again, so a batch of writers wakes in parallel (a condition variable would hand them
    /// the mutex one after another). The leader marks one waiter it did not cover
    /// [`RECHECK`] and wakes it first: that waiter leads the next batch, which queued during
    /// the leader's I/O.
    fn wait_for<'a>(&'a self, mut g: MutexGuard<'a, Shared>, need: Need) -> Result<()> {
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
    fn lead(&self, g: &mut MutexGuard<'_, Shared>) -> Wake {
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
    fn publish(
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
                    g.closed_segments.push(old);
                    g.rolled_at = end;
                }
            }
            Err(reason) => {
                if g.poisoned.is_none() {
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
    fn waiters_to_wake(&self, g: &mut Shared) -> Wake {
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
    fn gather(&self, g: &mut MutexGuard<'_, Shared>) {
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
    fn write_batch(
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
            if let Err(e) = io.file.sync_data() {
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

impl Wal {
    /// Asks the background sync thread (started on first use) to fdatasync segment `id`.
    fn sync_in_background(&self, id: u64) {
        {
            let mut st = self.syncer.state.lock();
            st.request = Some(id);
        }
        self.syncer.cv.notify_one();
        let mut t = self.syncer_thread.lock();
        if t.is_none() {
            let (syncer, fs, dir) = (self.syncer.clone(), self.fs.clone(), self.dir.clone());
            match std::thread::Builder::new()
                .name("cellbase-wal-sync".into())
                .spawn(move || syncer.run(&*fs, &dir))
            {
                Ok(h) => *t = Some(h),
                // No thread: the roll syncs everything, as without sync-ahead.
                Err(_) => self.syncer.state.lock().request = None,
            }
        }
    }
}

/// The background sync thread's mailbox.
#[derive(Default)]
struct Syncer {
    state: Mutex<SyncerState>,
    cv: parking_lot::Condvar,
}

#[derive(Default)]
struct SyncerState {
    /// The segment to fdatasync next.
    request: Option<u64>,
    stop: bool,
    /// A failed background fdatasync: the WAL's next batch fails with it (poisoning the WAL),
    /// as a failed fdatasync by the leader would.
    error: Option<String>,
}

impl Syncer {
    /// Serves requests until told to stop: opens the segment (a second handle of the same
    /// file; `fdatasync` makes the file's data durable whichever handle wrote it) and syncs it.
    /// A segment that is gone (deleted once flushed) needs nothing.
    fn run(&self, fs: &dyn FileSystem, dir: &Path) {
        loop {
            let id = {
                let mut st = self.state.lock();
                loop {
                    if st.stop {
                        return;
                    }
                    if let Some(id) = st.request.take() {
                        break id;
                    }
                    self.cv.wait(&mut st);
                }
            };
            let path = segment::segment_path(dir, id);
            let res = fs.open_append(&path).and_then(|mut f| f.sync_data());
            match res {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    let mut st = self.state.lock();
                    st.error.get_or_insert_with(|| {
                        format!(
                            "background fdatasync of WAL segment {} failed: {e}",
                            path.display()
                        )
                    });
                }
            }
        }
    }
}

/// [`Slot`] state: parked until a leader releases it.
const WAITING: u8 = 0;
/// [`Slot`] state: the waiter's need is covered; it returns without the state lock.
const DONE: u8 = 1;
/// [`Slot`] state: the waiter takes the state lock and looks again (to lead, to return the
/// poison error, or, for a gathering leader, because the batch is complete).
const RECHECK: u8 = 2;

/// A thread's parking place while it waits on the log (one per thread, reused).
struct Slot {
    state: AtomicU8,
    thread: std::thread::Thread,
}

impl Slot {
    fn new() -> Arc<Slot> {
        Arc::new(Slot {
            state: AtomicU8::new(WAITING),
            thread: std::thread::current(),
        })
    }

    /// This thread's slot (a fresh one while the thread's locals are being destroyed).
    fn current() -> Arc<Slot> {
        thread_local! {
            static SLOT: Arc<Slot> = Slot::new();
        }
        SLOT.try_with(Arc::clone).unwrap_or_else(|_| Slot::new())
    }

    fn set(&self, state: u8) {
        self.state.store(state, Ordering::Release);
    }

    /// Parks until the state leaves [`WAITING`] (or `deadline` passes); returns the state.
    fn wait(&self, deadline: Option<Instant>) -> u8 {
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
struct Wake {
    /// Already marked [`RECHECK`]: the next leader (or, after poisoning, every waiter).
    first: Vec<Arc<Slot>>,
    /// Covered waiters, marked [`DONE`] when they are woken.
    done: Vec<Arc<Slot>>,
}

impl Wake {
    fn is_empty(&self) -> bool {
        self.first.is_empty() && self.done.is_empty()
    }

    /// Unparks the [`RECHECK`] waiters (the next leader) now.
    fn unpark_first(&self) {
        for slot in &self.first {
            slot.thread.unpark();
        }
    }
}

/// Unparks the released waiters (the next leader first; unparking it twice is harmless).
fn wake_all(wake: Wake) {
    wake.unpark_first();
    for slot in wake.done {
        slot.set(DONE);
        slot.thread.unpark();
    }
}

/// As [`wake_all`], for a caller that keeps the state lock afterwards.
fn wake_all_locked(g: &mut MutexGuard<'_, Shared>, wake: Wake) {
    if !wake.is_empty() {
        MutexGuard::unlocked(g, || wake_all(wake));
    }
}

/// Preallocation of the current segment: when an append would pass the preallocated size, the
/// segment grows (with [`WritableFile::preallocate`]) to `end` plus a quarter of `end`, at least
/// 256 KiB and at most 4 MiB more, capped at the segment size. Appends into that room do not
/// change the file's size, so their fdatasync skips the inode size update (measured on ext4:
/// 51-57 us against 70-84 us per small fdatasync). Growing in chunks proportional to the log
/// keeps a small database's WAL small on disk (at most 256 KiB or a quarter more than it holds)
/// while a large segment grows only a few dozen times. `None` when `end` already passes the
/// segment size (the segment rolls after this batch).
pub(super) fn preallocation_target(end: u64, segment_size: u64) -> Option<u64> {
    const MIN_CHUNK: u64 = 256 << 10;
    const MAX_CHUNK: u64 = 4 << 20;
    if end >= segment_size {
        return None;
    }
    let chunk = (end / 4).clamp(MIN_CHUNK, MAX_CHUNK);
    Some(end.saturating_add(chunk).min(segment_size))
}

/// The newest segment in `dir` older than `id`, with its length, after an `fdatasync` of it (so
/// the recorded length never claims bytes a power loss could drop). `None` when there is none.
fn previous_segment(
    fs: &dyn FileSystem,
    dir: &Path,
    id: u64,
) -> Result<Option<segment::PrevSegment>> {
    let prev_id = fs
        .list(dir)?
        .iter()
        .filter_map(|n| segment::parse_segment_name(n))
        .filter(|&p| p < id)
        .max();
    let Some(prev_id) = prev_id else {
        return Ok(None);
    };
    let mut f = fs.open_append(&segment::segment_path(dir, prev_id))?;
    f.sync_data()?;
    Ok(Some(segment::PrevSegment {
        id: prev_id,
        len: f.len(),
    }))
}

fn too_long(len: usize) -> Error {
    Error::invalid(format!(
        "WAL entry of {len} bytes exceeds the limit of {MAX_ENTRY_PAYLOAD}"
    ))
}

fn check_open(g: &Shared) -> Result<()> {
    if let Some(reason) = &g.poisoned {
        return Err(Error::Poisoned(reason.clone()));
    }
    if g.closed {
        return Err(Error::Closed);
    }
    Ok(())
}

impl Drop for Wal {
    /// Best effort: writes queued Buffered entries to the OS unless closed or poisoned. Stops
    /// the background sync thread.
    fn drop(&mut self) {
        let g = self.state.get_mut();
        if !g.closed && g.poisoned.is_none() && !g.pending.is_empty() {
            let _ = self.flush_buffered();
        }
        self.syncer.state.lock().stop = true;
        self.syncer.cv.notify_all();
        if let Some(t) = self.syncer_thread.get_mut().take() {
            let _ = t.join();
        }
    }
}
