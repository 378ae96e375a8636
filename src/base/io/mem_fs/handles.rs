//! The open-file handles of [`MemFs`](super::MemFs): writable and readable (mapped or
//! positional) files and locks, each checking on every call that no crash happened since it
//! was opened.

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

/// A file open for positional reads: it copies the live bytes at each read, and fails once a
/// crash happened since it was opened. It does not count as a mapping.
pub(super) struct MemReadAt {
    pub(super) state: Arc<Mutex<State>>,
    pub(super) ino: u64,
    pub(super) epoch: u64,
    pub(super) len: u64,
}

impl ReadAtFile for MemReadAt {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let s = self.state.lock();
        if s.epoch != self.epoch {
            return Err(err(
                io::ErrorKind::BrokenPipe,
                "file handle opened before a simulated crash".into(),
            ));
        }
        let data = &s.inodes.get(&self.ino).expect("open inodes exist").data;
        let src = usize::try_from(offset)
            .ok()
            .and_then(|start| data.get(start..start.checked_add(buf.len())?))
            .ok_or_else(|| err(io::ErrorKind::UnexpectedEof, "read past end of file".into()))?;
        buf.copy_from_slice(src);
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::super::MemFs;
    use super::*;

    #[test]
    fn positional_reads_see_live_bytes_allow_truncation_and_fail_after_a_crash() {
        let fs = MemFs::new();
        let p = Path::new("/f");
        let mut w = fs.create(p).unwrap();
        w.append(b"0123456789").unwrap();
        w.sync_data().unwrap();
        fs.sync_dir(Path::new("/")).unwrap();
        let r = fs.open_read_at(p).unwrap();
        assert_eq!(r.len(), 10);
        let mut buf = [0u8; 4];
        r.read_exact_at(&mut buf, 6).unwrap();
        assert_eq!(&buf, b"6789");
        let e = r.read_exact_at(&mut buf, 7).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        // Not a mapping: truncation is allowed, and reads see it.
        fs.truncate(p, 5).unwrap();
        let e = r.read_exact_at(&mut buf, 2).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        r.read_exact_at(&mut buf[..3], 2).unwrap();
        assert_eq!(&buf[..3], b"234");
        fs.crash();
        let e = r.read_exact_at(&mut buf[..1], 0).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(fs.open_read_at(p).unwrap().len(), 5);
        assert!(fs.open_read_at(Path::new("/missing")).is_err());
    }
}
