//! A filesystem wrapper for fault-injection tests (compiled with the `testing` feature).
//!
//! It counts mutating operations (create, append, preallocate, sync, rename, remove, truncate,
//! directory creation and sync) and can:
//!
//! - [`FaultFs::fail_at`]: fail the n-th mutating operation (and only it);
//! - [`FaultFs::fail_sync_at`]: fail the n-th sync (`sync_data` or `sync_dir`) only;
//! - [`FaultFs::tear_append_at`]: make the n-th append write only the first half of its bytes
//!   and then fail (a short write);
//! - [`FaultFs::fail_creates_in`]: fail the next `times` file creations in one directory (a
//!   flush or compaction that cannot create its block file, repeatedly);
//! - [`FaultFs::after_create_in`]: run a callback once, right after the next file creation in
//!   one directory (work of another thread that happens while a flush or compaction is
//!   writing its block file, made deterministic);
//! - [`FaultFs::crash_at`]: cut the power at the n-th mutating operation: it and every later
//!   one fail (optionally after half-applying it, when it is an append), as if the machine died;
//!   [`FaultFs::crash`] then drops everything not made durable (over a [`MemFs`] only);
//! - [`FaultFs::fail_read_at`]: fail the n-th positional read (of a file opened with
//!   [`FileSystem::open_read_at`]), as a disk read error would. Reads are not mutating
//!   operations: they are counted apart ([`FaultFs::positional_reads`]), with the largest
//!   ([`FaultFs::largest_positional_read`]), so a test can bound a reader's buffers.
//!
//! Every such failure must reach the caller as an error, never a panic, and must never lose
//! acknowledged data.

use super::{FileKind, FileLock, FileSystem, MemFs, ReadAtFile, ReadableFile, WritableFile};
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

const NEVER: u64 = u64::MAX;

#[derive(Debug)]
struct Counter {
    ops: AtomicU64,
    syncs: AtomicU64,
    appends: AtomicU64,
    fail_at: AtomicU64,
    fail_sync_at: AtomicU64,
    tear_append_at: AtomicU64,
    crash_at: AtomicU64,
    reads: AtomicU64,
    largest_read: AtomicU64,
    fail_read_at: AtomicU64,
    crash_tears: AtomicBool,
    crashed: AtomicBool,
    injected: AtomicU64,
    /// Writeback requests ([`WritableFile::start_writeback`]) through this wrapper.
    writebacks: AtomicU64,
    /// Creations in this directory fail while the count is above zero (each failure takes one).
    create_faults: std::sync::Mutex<Option<(std::path::PathBuf, u64)>>,
    /// Run once after the next creation in this directory.
    after_create: std::sync::Mutex<Option<(std::path::PathBuf, AfterCreate)>>,
}

/// A callback of [`FaultFs::after_create_in`].
struct AfterCreate(Box<dyn FnOnce() + Send>);

impl std::fmt::Debug for AfterCreate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AfterCreate(<callback>)")
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Append,
    Sync,
    Other,
}

/// What the wrapper does with one operation.
enum Verdict {
    Proceed,
    Fail(io::Error),
    /// Write half the bytes, then fail.
    Tear(io::Error),
}

impl Counter {
    fn tick(&self, what: &str, op: Op) -> Verdict {
        let n = self.ops.fetch_add(1, Ordering::SeqCst);
        let fail = |why: String| {
            self.injected.fetch_add(1, Ordering::SeqCst);
            io::Error::other(format!(
                "injected fault: {why} (mutating operation {n}, {what})"
            ))
        };
        if self.crashed.load(Ordering::SeqCst) {
            return Verdict::Fail(fail("power lost earlier".into()));
        }
        if n == self.crash_at.load(Ordering::SeqCst) {
            self.crashed.store(true, Ordering::SeqCst);
            let e = fail("power lost".into());
            if op == Op::Append && self.crash_tears.load(Ordering::SeqCst) {
                return Verdict::Tear(e);
            }
            return Verdict::Fail(e);
        }
        if n == self.fail_at.load(Ordering::SeqCst) {
            return Verdict::Fail(fail("failed operation".into()));
        }
        if op == Op::Sync {
            let k = self.syncs.fetch_add(1, Ordering::SeqCst);
            if k == self.fail_sync_at.load(Ordering::SeqCst) {
                return Verdict::Fail(fail(format!("failed sync {k}")));
            }
        }
        if op == Op::Append {
            let k = self.appends.fetch_add(1, Ordering::SeqCst);
            if k == self.tear_append_at.load(Ordering::SeqCst) {
                return Verdict::Tear(fail(format!("torn append {k}")));
            }
        }
        Verdict::Proceed
    }

    fn simple(&self, what: &str, op: Op) -> io::Result<()> {
        match self.tick(what, op) {
            Verdict::Proceed => Ok(()),
            Verdict::Fail(e) | Verdict::Tear(e) => Err(e),
        }
    }
}

/// Wraps a filesystem and injects faults (see the module docs).
#[derive(Debug, Clone)]
pub struct FaultFs {
    inner: Arc<dyn FileSystem>,
    mem: Option<MemFs>,
    counter: Arc<Counter>,
}

impl FaultFs {
    /// A wrapper that fails nothing until a fault is armed.
    pub fn new(inner: Arc<dyn FileSystem>) -> FaultFs {
        FaultFs {
            inner,
            mem: None,
            counter: Arc::new(Counter {
                ops: AtomicU64::new(0),
                syncs: AtomicU64::new(0),
                appends: AtomicU64::new(0),
                fail_at: AtomicU64::new(NEVER),
                fail_sync_at: AtomicU64::new(NEVER),
                tear_append_at: AtomicU64::new(NEVER),
                crash_at: AtomicU64::new(NEVER),
                reads: AtomicU64::new(0),
                largest_read: AtomicU64::new(0),
                fail_read_at: AtomicU64::new(NEVER),
                crash_tears: AtomicBool::new(false),
                crashed: AtomicBool::new(false),
                injected: AtomicU64::new(0),
                writebacks: AtomicU64::new(0),
                create_faults: std::sync::Mutex::new(None),
                after_create: std::sync::Mutex::new(None),
            }),
        }
    }

    /// A wrapper over an in-memory filesystem, which makes [`FaultFs::crash`] available.
    pub fn over_mem(mem: MemFs) -> FaultFs {
        let mut f = FaultFs::new(Arc::new(mem.clone()));
        f.mem = Some(mem);
        f
    }

    /// Fails the mutating operation with this index (0-based, counted from creation).
    pub fn fail_at(&self, n: u64) {
        self.counter.fail_at.store(n, Ordering::SeqCst);
    }

    /// Fails the sync (`sync_data` or `sync_dir`) with this index (0-based).
    pub fn fail_sync_at(&self, n: u64) {
        self.counter.fail_sync_at.store(n, Ordering::SeqCst);
    }

    /// Makes the append with this index (0-based) write only the first half of its bytes and
    /// fail.
    pub fn tear_append_at(&self, n: u64) {
        self.counter.tear_append_at.store(n, Ordering::SeqCst);
    }

    /// Fails the next `times` file creations in directory `dir` (`u64::MAX`: every one until
    /// [`FaultFs::disarm`]); other operations are unaffected.
    pub fn fail_creates_in(&self, dir: &Path, times: u64) {
        let mut g = self
            .counter
            .create_faults
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        *g = Some((dir.to_path_buf(), times));
    }

    /// Runs `f` once, right after the next file creation in directory `dir` succeeded and
    /// before the creating caller gets its file: what another thread could do at that moment
    /// (e.g. a flush that finishes while a compaction is writing its output), made
    /// deterministic. `f` runs on the creating thread, without any lock of the wrapper held.
    pub fn after_create_in(&self, dir: &Path, f: impl FnOnce() + Send + 'static) {
        *self
            .counter
            .after_create
            .lock()
            .unwrap_or_else(|e| e.into_inner()) =
            Some((dir.to_path_buf(), AfterCreate(Box::new(f))));
    }

    /// Cuts the power at the mutating operation with this index: it and every later mutating
    /// operation fail. With `tear`, an append at that index first writes half its bytes.
    pub fn crash_at(&self, n: u64, tear: bool) {
        self.counter.crash_tears.store(tear, Ordering::SeqCst);
        self.counter.crash_at.store(n, Ordering::SeqCst);
    }

    /// Fails the positional read ([`ReadAtFile::read_exact_at`] of a file opened with
    /// [`FileSystem::open_read_at`]) with this index (0-based, counted from creation).
    pub fn fail_read_at(&self, n: u64) {
        self.counter.fail_read_at.store(n, Ordering::SeqCst);
    }

    /// Positional reads performed (or failed) so far.
    pub fn positional_reads(&self) -> u64 {
        self.counter.reads.load(Ordering::SeqCst)
    }

    /// The most bytes one positional read asked for so far.
    pub fn largest_positional_read(&self) -> u64 {
        self.counter.largest_read.load(Ordering::SeqCst)
    }

    /// True once the power was cut by [`FaultFs::crash_at`].
    pub fn power_lost(&self) -> bool {
        self.counter.crashed.load(Ordering::SeqCst)
    }

    /// Simulates the power loss on the underlying [`MemFs`] (everything not durable is
    /// dropped) and disarms every fault, so the filesystem can be reopened.
    ///
    /// # Errors
    /// `Unsupported` when the wrapper is not over a [`MemFs`] ([`FaultFs::over_mem`]).
    pub fn crash(&self) -> io::Result<()> {
        let mem = self.mem.as_ref().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::Unsupported,
                "FaultFs::crash needs FaultFs::over_mem",
            )
        })?;
        mem.crash();
        self.disarm();
        Ok(())
    }

    /// Disarms every fault (the counters keep counting).
    pub fn disarm(&self) {
        let c = &self.counter;
        for a in [
            &c.fail_at,
            &c.fail_sync_at,
            &c.tear_append_at,
            &c.crash_at,
            &c.fail_read_at,
        ] {
            a.store(NEVER, Ordering::SeqCst);
        }
        c.crashed.store(false, Ordering::SeqCst);
        *c.create_faults.lock().unwrap_or_else(|e| e.into_inner()) = None;
        *c.after_create.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// Mutating operations performed so far.
    pub fn mutating_ops(&self) -> u64 {
        self.counter.ops.load(Ordering::SeqCst)
    }

    /// Syncs (`sync_data`, `sync_dir`) performed so far.
    pub fn syncs(&self) -> u64 {
        self.counter.syncs.load(Ordering::SeqCst)
    }

    /// Appends performed so far.
    pub fn appends(&self) -> u64 {
        self.counter.appends.load(Ordering::SeqCst)
    }

    /// Requests to start writeback ([`WritableFile::start_writeback`]) so far.
    pub fn writebacks(&self) -> u64 {
        self.counter.writebacks.load(Ordering::SeqCst)
    }

    /// Faults injected so far.
    pub fn injected(&self) -> u64 {
        self.counter.injected.load(Ordering::SeqCst)
    }
}

struct FaultWritable {
    inner: Box<dyn WritableFile>,
    counter: Arc<Counter>,
}

impl WritableFile for FaultWritable {
    fn append(&mut self, data: &[u8]) -> io::Result<()> {
        match self.counter.tick("append", Op::Append) {
            Verdict::Proceed => self.inner.append(data),
            Verdict::Fail(e) => Err(e),
            Verdict::Tear(e) => {
                let half = data.get(..data.len() / 2).unwrap_or_default();
                let _ = self.inner.append(half);
                Err(e)
            }
        }
    }
    fn sync_data(&mut self) -> io::Result<()> {
        self.counter.simple("sync", Op::Sync)?;
        self.inner.sync_data()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn preallocate(&mut self, len: u64) -> io::Result<()> {
        self.counter.simple("preallocate", Op::Other)?;
        self.inner.preallocate(len)
    }
    /// Counted apart from the operations a fault schedule numbers: it changes nothing a
    /// crash could observe.
    fn start_writeback(&mut self) -> io::Result<()> {
        self.counter.writebacks.fetch_add(1, Ordering::SeqCst);
        self.inner.start_writeback()
    }
}

struct FaultReadAt {
    inner: Box<dyn ReadAtFile>,
    counter: Arc<Counter>,
}

impl ReadAtFile for FaultReadAt {
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let c = &self.counter;
        let k = c.reads.fetch_add(1, Ordering::SeqCst);
        c.largest_read.fetch_max(buf.len() as u64, Ordering::SeqCst);
        if k == c.fail_read_at.load(Ordering::SeqCst) {
            c.injected.fetch_add(1, Ordering::SeqCst);
            return Err(io::Error::other(format!(
                "injected fault: failed read {k} ({} bytes at offset {offset})",
                buf.len()
            )));
        }
        self.inner.read_exact_at(buf, offset)
    }
}

impl FileSystem for FaultFs {
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        self.counter.simple("create_dir_all", Op::Other)?;
        self.inner.create_dir_all(path)
    }
    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        self.counter.simple("create", Op::Other)?;
        {
            let mut g = self
                .counter
                .create_faults
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if let Some((dir, left)) = g.as_mut()
                && *left > 0
                && path.parent() == Some(dir.as_path())
            {
                if *left != u64::MAX {
                    *left -= 1;
                }
                self.counter.injected.fetch_add(1, Ordering::SeqCst);
                return Err(io::Error::other(format!(
                    "injected fault: failed creation of {}",
                    path.display()
                )));
            }
        }
        let inner = self.inner.create(path)?;
        let hook = {
            let mut g = self
                .counter
                .after_create
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            match g.take() {
                Some((dir, f)) if path.parent() == Some(dir.as_path()) => Some(f),
                other => {
                    *g = other;
                    None
                }
            }
        };
        if let Some(AfterCreate(f)) = hook {
            f();
        }
        Ok(Box::new(FaultWritable {
            inner,
            counter: self.counter.clone(),
        }))
    }
    fn open_append(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        let inner = self.inner.open_append(path)?;
        Ok(Box::new(FaultWritable {
            inner,
            counter: self.counter.clone(),
        }))
    }
    fn open_read(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        self.inner.open_read(path)
    }
    fn open_read_at(&self, path: &Path) -> io::Result<Box<dyn ReadAtFile>> {
        Ok(Box::new(FaultReadAt {
            inner: self.inner.open_read_at(path)?,
            counter: self.counter.clone(),
        }))
    }
    fn read_all(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.inner.read_all(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.counter.simple("rename", Op::Other)?;
        self.inner.rename(from, to)
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        self.counter.simple("remove", Op::Other)?;
        self.inner.remove(path)
    }
    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        self.counter.simple("truncate", Op::Other)?;
        self.inner.truncate(path, len)
    }
    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        self.inner.list(dir)
    }
    fn exists(&self, path: &Path) -> bool {
        self.inner.exists(path)
    }
    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        self.counter.simple("sync_dir", Op::Sync)?;
        self.inner.sync_dir(dir)
    }
    fn lock(&self, path: &Path) -> io::Result<Box<dyn FileLock>> {
        self.inner.lock(path)
    }
    fn lock_dir(&self, dir: &Path) -> io::Result<Box<dyn FileLock>> {
        self.inner.lock_dir(dir)
    }
    fn kind(&self, path: &Path) -> io::Result<FileKind> {
        self.inner.kind(path)
    }
    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.counter.simple("hard_link", Op::Other)?;
        self.inner.hard_link(from, to)
    }
    fn lock_held(&self, path: &Path) -> bool {
        self.inner.lock_held(path)
    }
}
