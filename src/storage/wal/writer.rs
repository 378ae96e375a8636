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

mod group_commit;
mod syncer;

use group_commit::{RECHECK, Slot};
use syncer::Syncer;

use crate::base::error::{Error, Result};
use crate::base::io::{FileSystem, WritableFile};
use crate::base::stats::{Latency, LatencyRecorder};
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
    /// Entries appended since the log was created, and their framed bytes.
    appends: u64,
    appended_bytes: u64,
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
    /// Bytes written since writeback was last started ([`crate::base::io::WRITEBACK_EVERY`]),
    /// counted across syncs and rolls: a request that comes early after either costs nothing.
    unwritten_bytes: u64,
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
    /// Segment rolls since the log was created.
    rolls: AtomicU64,
    /// How long each group commit `fdatasync` took.
    sync_time: LatencyRecorder,
    /// Called with a new segment's id after the roll created it and before it takes a write
    /// ([`Wal::set_roll_hook`]).
    roll_hook: Mutex<Option<RollHook>>,
    /// See [`Wal::sealed_before`].
    sealed_before: Option<segment::PrevSegment>,
}

/// While alive, no batch is written to, synced in or rolled out of the log's segments
/// ([`Wal::pause_writes`]).
pub struct WritesPaused<'a>(#[allow(dead_code)] MutexGuard<'a, IoState>);

/// Counters of a [`Wal`] ([`Wal::stats`]).
#[derive(Debug, Clone, Default)]
pub struct WalStats {
    /// Entries appended (HBase `appendCount`).
    pub appends: u64,
    /// Bytes of those entries with their framing (HBase `AppendSize` summed).
    pub appended_bytes: u64,
    /// `write()` batches on segment files (group commit joins appends into one).
    pub writes: u64,
    /// `fdatasync` calls on segment files (HBase `SyncTime_num_ops`).
    pub syncs: u64,
    /// Segment rolls (HBase `rollRequest`).
    pub rolls: u64,
    /// How long the group commit's syncs took (HBase `SyncTime`; the background syncer's
    /// early syncs of a filling segment are counted in `syncs` only).
    pub sync_time: Latency,
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
        let prev = segment::previous_segment(&*fs, &dir, first_segment_id)?;
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
                appends: 0,
                appended_bytes: 0,
                current: SegmentInfo::empty(first_segment_id),
                closed_segments: Vec::new(),
            }),
            io: Mutex::new(IoState {
                file,
                id: first_segment_id,
                unsynced: false,
                unsynced_bytes: 0,
                unwritten_bytes: 0,
                allocated: 0,
            }),
            syncer: Arc::new(Syncer::default()),
            syncer_thread: Mutex::new(None),
            deleting: Mutex::new(()),
            syncs: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            rolls: AtomicU64::new(0),
            sync_time: LatencyRecorder::default(),
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
        g.appends += 1;
        g.appended_bytes += (record::HEADER_LEN + len) as u64;
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

    /// Holds the log's writes (the group commit's `write()`, sync and roll) until the guard
    /// is dropped, so the segment files can be read as whole records (a checkpoint copies
    /// them). Appends keep queueing meanwhile. Lock order: take this before the manifest's
    /// lock, as a roll does.
    pub fn pause_writes(&self) -> WritesPaused<'_> {
        WritesPaused(self.io.lock())
    }

    /// The log's counters since it was created.
    pub fn stats(&self) -> WalStats {
        let (appends, appended_bytes) = {
            let g = self.state.lock();
            (g.appends, g.appended_bytes)
        };
        WalStats {
            appends,
            appended_bytes,
            writes: self.writes.load(Ordering::Relaxed),
            syncs: self.syncs.load(Ordering::Relaxed),
            rolls: self.rolls.load(Ordering::Relaxed),
            sync_time: self.sync_time.snapshot(),
        }
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
