//! A filesystem wrapper that fails the n-th mutating operation (create, append, sync, rename,
//! remove, truncate, directory sync), for fault-injection tests: every such failure must reach
//! the caller as an error, never a panic, and must never lose acknowledged data.

use super::{FileLock, FileSystem, ReadableFile, WritableFile};
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Debug)]
struct Counter {
    ops: AtomicU64,
    fail_at: AtomicU64,
}

impl Counter {
    fn tick(&self, what: &str) -> io::Result<()> {
        let n = self.ops.fetch_add(1, Ordering::SeqCst);
        if n == self.fail_at.load(Ordering::SeqCst) {
            return Err(io::Error::other(format!(
                "injected fault at mutating operation {n} ({what})"
            )));
        }
        Ok(())
    }
}

/// Wraps a filesystem and fails one chosen mutating operation.
#[derive(Debug, Clone)]
pub struct FaultFs {
    inner: Arc<dyn FileSystem>,
    counter: Arc<Counter>,
}

impl FaultFs {
    /// A wrapper that fails nothing until [`FaultFs::fail_at`] is set.
    pub fn new(inner: Arc<dyn FileSystem>) -> FaultFs {
        FaultFs {
            inner,
            counter: Arc::new(Counter {
                ops: AtomicU64::new(0),
                fail_at: AtomicU64::new(u64::MAX),
            }),
        }
    }

    /// Fails the mutating operation with this index (0-based, counted from creation).
    pub fn fail_at(&self, n: u64) {
        self.counter.fail_at.store(n, Ordering::SeqCst);
    }

    /// Mutating operations performed so far.
    pub fn mutating_ops(&self) -> u64 {
        self.counter.ops.load(Ordering::SeqCst)
    }
}

struct FaultWritable {
    inner: Box<dyn WritableFile>,
    counter: Arc<Counter>,
}

impl WritableFile for FaultWritable {
    fn append(&mut self, data: &[u8]) -> io::Result<()> {
        self.counter.tick("append")?;
        self.inner.append(data)
    }
    fn sync_data(&mut self) -> io::Result<()> {
        self.counter.tick("sync")?;
        self.inner.sync_data()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
}

impl FileSystem for FaultFs {
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        self.counter.tick("create_dir_all")?;
        self.inner.create_dir_all(path)
    }
    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        self.counter.tick("create")?;
        let inner = self.inner.create(path)?;
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
    fn read_all(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.inner.read_all(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.counter.tick("rename")?;
        self.inner.rename(from, to)
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        self.counter.tick("remove")?;
        self.inner.remove(path)
    }
    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        self.counter.tick("truncate")?;
        self.inner.truncate(path, len)
    }
    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        self.inner.list(dir)
    }
    fn exists(&self, path: &Path) -> bool {
        self.inner.exists(path)
    }
    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        self.counter.tick("sync_dir")?;
        self.inner.sync_dir(dir)
    }
    fn lock(&self, path: &Path) -> io::Result<Box<dyn FileLock>> {
        self.inner.lock(path)
    }
}
