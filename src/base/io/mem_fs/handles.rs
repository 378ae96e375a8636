//! The open-file handles of [`MemFs`](super::MemFs): writable and readable files and locks,
//! each checking on every call that no crash happened since it was opened.

use super::*;

pub(super) struct MemWritable {
    pub(super) state: Arc<Mutex<State>>,
    pub(super) ino: u64,
    pub(super) epoch: u64,
    /// The logical end: where the next append goes (before a preallocated tail).
    pub(super) pos: usize,
}

impl MemWritable {
    fn with<T>(&self, f: impl FnOnce(&mut Inode) -> T) -> io::Result<T> {
        let mut s = self.state.lock();
        if s.epoch != self.epoch {
            return Err(err(
                io::ErrorKind::BrokenPipe,
                "file handle opened before a simulated crash".into(),
            ));
        }
        Ok(f(s.inodes.get_mut(&self.ino).expect("open inodes exist")))
    }
}

impl WritableFile for MemWritable {
    fn append(&mut self, data: &[u8]) -> io::Result<()> {
        let pos = self.pos;
        let end = pos + data.len();
        self.with(|i| {
            if end > i.data.len() {
                i.data.resize(end, 0);
            }
            i.data[pos..end].copy_from_slice(data);
            i.dirty(pos);
        })?;
        self.pos = end;
        Ok(())
    }

    fn sync_data(&mut self) -> io::Result<()> {
        self.with(Inode::synced)
    }

    fn len(&self) -> u64 {
        self.pos as u64
    }

    fn preallocate(&mut self, len: u64) -> io::Result<()> {
        let len = usize::try_from(len)
            .map_err(|_| err(io::ErrorKind::InvalidInput, format!("length {len}")))?;
        self.with(|i| {
            if len > i.data.len() {
                let old = i.data.len();
                i.data.resize(len, 0);
                i.dirty(old);
            }
        })
    }
}

#[derive(Debug)]
pub(super) struct MemReadable {
    pub(super) bytes: Vec<u8>,
    pub(super) _mapped: Arc<()>,
}

impl ReadableFile for MemReadable {
    fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

#[derive(Debug)]
pub(super) struct MemLock {
    pub(super) state: Arc<Mutex<State>>,
    pub(super) key: String,
    pub(super) id: u64,
}

impl FileLock for MemLock {}

impl Drop for MemLock {
    fn drop(&mut self) {
        let mut s = self.state.lock();
        if s.locks.get(&self.key) == Some(&self.id) {
            s.locks.remove(&self.key);
        }
    }
}
