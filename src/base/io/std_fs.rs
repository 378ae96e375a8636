//! The real filesystem. The only module that calls `std::fs`.

use super::{FileKind, FileLock, FileSystem, ReadAtFile, ReadableFile, WritableFile};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

/// The operating system's filesystem. Files are created with owner-only permissions (0600,
/// directories 0700) and immutable files are read through `mmap`.
#[derive(Debug, Default, Clone, Copy)]
pub struct StdFs;

/// A file written at its logical end `len` (the file's cursor). It is not opened with
/// `O_APPEND`, so a preallocated tail (`set_len` past `len`) is overwritten in place instead of
/// appended after.
struct StdWritable {
    file: File,
    len: u64,
    /// Where [`WritableFile::start_writeback`] last started writeback up to.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    written_back: u64,
}

impl WritableFile for StdWritable {
    fn append(&mut self, data: &[u8]) -> io::Result<()> {
        self.file.write_all(data)?;
        self.len += data.len() as u64;
        Ok(())
    }

    fn sync_data(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn preallocate(&mut self, len: u64) -> io::Result<()> {
        // `set_len` leaves the cursor (the logical end) where it is. A sparse extension rather
        // than `fallocate`: measured on ext4, fdatasync after a 150-byte write into either costs
        // about the same (51-57 us against 54-60 us; 70-84 us when the write grows the file).
        if len > self.file.metadata()?.len() {
            self.file.set_len(len)?;
        }
        Ok(())
    }

    #[cfg(target_os = "linux")]
    fn start_writeback(&mut self) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        let (Ok(from), Ok(n)) = (
            i64::try_from(self.written_back),
            i64::try_from(self.len - self.written_back),
        ) else {
            return Ok(());
        };
        if n == 0 {
            return Ok(());
        }
        // Measured need (docs/PERFORMANCE.md, "Longest writes"): without it a compaction's
        // output sat in the page cache until its final fdatasync (the kernel starts writeback
        // only past 10 % of RAM), and WAL syncs waited behind that writeback in ext4's
        // journal. Neither std, rustix nor nix offers sync_file_range.
        // SAFETY: `sync_file_range` takes no pointers: a descriptor this file owns (open for
        // the call's duration), a byte range inside it and a flag; it only starts writeback.
        // Exercised by std_fs's `start_writeback_keeps_the_bytes` and every block file
        // written through StdFs past 1 MiB.
        #[expect(unsafe_code, reason = "sync_file_range has no safe wrapper")]
        let r = unsafe {
            libc::sync_file_range(self.file.as_raw_fd(), from, n, libc::SYNC_FILE_RANGE_WRITE)
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        self.written_back = self.len;
        Ok(())
    }
}

#[derive(Debug)]
enum Mapped {
    /// The mapping (for the small metadata blocks read at open) and the file (`pread` of
    /// data blocks: see [`ReadableFile::prefers_read`]).
    Map(memmap2::Mmap, File),
    Empty,
}

impl ReadableFile for Mapped {
    fn bytes(&self) -> &[u8] {
        match self {
            Mapped::Map(m, _) => m,
            Mapped::Empty => &[],
        }
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        match self {
            #[cfg(unix)]
            Mapped::Map(_, f) => std::os::unix::fs::FileExt::read_exact_at(f, buf, offset),
            #[cfg(not(unix))]
            Mapped::Map(m, _) => {
                let src = usize::try_from(offset)
                    .ok()
                    .and_then(|s| m.get(s..s.checked_add(buf.len())?))
                    .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
                buf.copy_from_slice(src);
                Ok(())
            }
            Mapped::Empty if buf.is_empty() => Ok(()),
            Mapped::Empty => Err(io::Error::from(io::ErrorKind::UnexpectedEof)),
        }
    }

    fn prefers_read(&self) -> bool {
        cfg!(unix) && matches!(self, Mapped::Map(..))
    }

    fn release_pages(&self) {
        #[cfg(unix)]
        if let Mapped::Map(m, _) = self {
            // Measured need: the index and Bloom pages a reader's open touched stayed mapped
            // beside their decoded copies, 14 MiB of RSS for 1 M YCSB records
            // (docs/PERFORMANCE.md, "Mapped metadata pages"). memmap2's caution concerns
            // private or anonymous mappings, whose dropped pages come back as file or zeros.
            #[expect(unsafe_code, reason = "madvise(MADV_DONTNEED) of a file mapping")]
            // SAFETY: a shared, read-only mapping of an immutable block file (`open_read`):
            // MADV_DONTNEED only unmaps its pages from this process, and the next access maps
            // the same page-cache pages again, so any borrow of the map reads the same bytes.
            let _ = unsafe { m.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }
}

/// A file read with `pread` (no mapping), its length taken when it was opened.
struct StdReadAt {
    file: File,
    len: u64,
}

impl ReadAtFile for StdReadAt {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        #[cfg(unix)]
        {
            std::os::unix::fs::FileExt::read_exact_at(&self.file, buf, offset)
        }
        #[cfg(not(unix))]
        {
            use std::io::{Read, Seek};
            let mut f = &self.file;
            f.seek(io::SeekFrom::Start(offset))?;
            f.read_exact(buf)
        }
    }
}

#[derive(Debug)]
struct StdLock {
    file: File,
    /// The locked file's path, re-checked by [`FileLock::still_held`]; `None` for a locked
    /// directory (a directory cannot be removed while it holds the database's files).
    path: Option<std::path::PathBuf>,
}

impl FileLock for StdLock {
    fn still_held(&self) -> io::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let replaced = || {
            io::Error::other(format!(
                "lock file {} was deleted or replaced while locked",
                path.display()
            ))
        };
        let on_disk = std::fs::metadata(path).map_err(|_| replaced())?;
        let held = self.file.metadata()?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if (on_disk.dev(), on_disk.ino()) != (held.dev(), held.ino()) {
                return Err(replaced());
            }
        }
        #[cfg(not(unix))]
        let _ = (on_disk, held);
        Ok(())
    }
}

/// Refuses a path that exists and is not a regular file (a FIFO, a device, a directory, a
/// socket) before it is opened: opening a FIFO blocks until a peer opens its other end, and
/// reading a device may never end. Every file the engine opens is one it wrote, so anything
/// else at its path was put there from outside. A missing path passes (the open reports it).
fn regular_or_missing(path: &Path) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(md) if !md.is_file() => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        )),
        _ => Ok(()),
    }
}

/// Takes `file`'s exclusive `flock`, or `WouldBlock`.
fn try_lock(file: File, path: Option<std::path::PathBuf>) -> io::Result<Box<dyn FileLock>> {
    match file.try_lock() {
        Ok(()) => Ok(Box::new(StdLock { file, path })),
        Err(std::fs::TryLockError::WouldBlock) => {
            Err(io::Error::new(io::ErrorKind::WouldBlock, "locked"))
        }
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

fn options() -> OpenOptions {
    let mut o = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o
}

impl FileSystem for StdFs {
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        let mut b = std::fs::DirBuilder::new();
        b.recursive(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            b.mode(0o700);
        }
        b.create(path)
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        regular_or_missing(path)?;
        let file = options()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        Ok(Box::new(StdWritable {
            file,
            len: 0,
            written_back: 0,
        }))
    }

    fn open_append(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        regular_or_missing(path)?;
        let mut file = options().write(true).open(path)?;
        let len = std::io::Seek::seek(&mut file, io::SeekFrom::End(0))?;
        Ok(Box::new(StdWritable {
            file,
            len,
            written_back: len,
        }))
    }

    fn open_read(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        regular_or_missing(path)?;
        let file = File::open(path)?;
        if file.metadata()?.len() == 0 {
            return Ok(Arc::new(Mapped::Empty));
        }
        // SAFETY: cellbase maps only immutable files it wrote itself (block files), which are
        // never modified or truncated after they are synced; they are only unlinked, which keeps
        // the mapping valid. Another process modifying them would break that (as for every
        // mmap-based engine); the directory lock keeps other cellbase instances away.
        #[expect(unsafe_code, reason = "memory-mapped reads of immutable block files")]
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(Arc::new(Mapped::Map(map, file)))
    }

    fn open_read_at(&self, path: &Path) -> io::Result<Box<dyn ReadAtFile>> {
        regular_or_missing(path)?;
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(Box::new(StdReadAt { file, len }))
    }

    fn read_all(&self, path: &Path) -> io::Result<Vec<u8>> {
        regular_or_missing(path)?;
        std::fs::read(path)
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        let f = OpenOptions::new().write(true).open(path)?;
        f.set_len(len)?;
        f.sync_all()
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir)? {
            let e = e?;
            if let Some(n) = e.file_name().to_str() {
                out.push(n.to_string());
            }
        }
        out.sort();
        Ok(out)
    }

    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        File::open(dir)?.sync_all()
    }

    fn lock(&self, path: &Path) -> io::Result<Box<dyn FileLock>> {
        regular_or_missing(path)?;
        let file = options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        try_lock(file, Some(path.to_path_buf()))
    }

    fn lock_dir(&self, dir: &Path) -> io::Result<Box<dyn FileLock>> {
        // A directory opens read-only; `flock` works on its descriptor like on a file's.
        try_lock(File::open(dir)?, None)
    }

    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::hard_link(from, to)
    }

    fn kind(&self, path: &Path) -> io::Result<FileKind> {
        let t = std::fs::metadata(path)?.file_type();
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if t.is_fifo() {
                return Ok(FileKind::Fifo);
            } else if t.is_char_device() || t.is_block_device() {
                return Ok(FileKind::Device);
            } else if t.is_socket() {
                return Ok(FileKind::Socket);
            }
        }
        Ok(if t.is_file() {
            FileKind::File
        } else if t.is_dir() {
            FileKind::Dir
        } else {
            FileKind::Other
        })
    }

    fn lock_held(&self, path: &Path) -> bool {
        // A shared `flock` on a read-only descriptor, released at once: it cannot make an open
        // fail (an open retries a refused lock), and nothing is created or written.
        if !matches!(self.kind(path), Ok(FileKind::File)) {
            return false; // missing, or opening it would block (a FIFO)
        }
        let Ok(f) = File::open(path) else {
            return false;
        };
        match f.try_lock_shared() {
            Ok(()) => {
                let _ = f.unlock();
                false
            }
            Err(std::fs::TryLockError::WouldBlock) => true,
            Err(_) => false,
        }
    }
}

/// The machine's memory (`MemTotal` of `/proc/meminfo`), where it can be read: the default
/// of [`crate::DbOptions::global_memstore_size`] derives from it. Read here, at the I/O seam,
/// like every other file the engine opens.
pub(crate) fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The global memstore bound's default is 40 % of the machine's memory (Linux reads it).
    #[test]
    #[cfg(target_os = "linux")]
    fn physical_memory_is_read_and_sets_the_default_global_bound() {
        let m = physical_memory().expect("/proc/meminfo has MemTotal");
        assert!(m >= 64 << 20, "{m}");
        let dbg = format!("{:?}", crate::DbOptions::default());
        assert!(
            dbg.contains(&format!("global_memstore_size: {}", m / 10 * 4)),
            "{dbg}"
        );
    }

    #[test]
    fn write_sync_map_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let mut w = StdFs.create(&p).unwrap();
        w.append(b"hello").unwrap();
        w.append(b" world").unwrap();
        w.sync_data().unwrap();
        assert_eq!(w.len(), 11);
        let r = StdFs.open_read(&p).unwrap();
        assert_eq!(r.bytes(), b"hello world");
        let e = dir.path().join("empty");
        StdFs.create(&e).unwrap();
        assert_eq!(StdFs.open_read(&e).unwrap().bytes(), b"");
    }

    /// `release_pages` unmaps the pages a read of the mapping touched (on Linux the
    /// process's file-backed resident set falls by them), and the bytes read through the map
    /// afterwards, and through a slice borrowed before, are the file's bytes.
    #[test]
    fn release_pages_unmaps_touched_pages_and_keeps_the_bytes() {
        fn rss_file_kib() -> Option<u64> {
            let status = std::fs::read_to_string("/proc/self/status").ok()?;
            let line = status.lines().find(|l| l.starts_with("RssFile:"))?;
            line.split_whitespace().nth(1)?.parse().ok()
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let data: Vec<u8> = (0..(16u32 << 20)).map(|i| (i % 253) as u8).collect();
        std::fs::write(&p, &data).unwrap();
        let f = StdFs.open_read(&p).unwrap();
        let before = rss_file_kib();
        let borrowed = f.bytes();
        // Touch every page.
        let sum: u64 = borrowed.iter().step_by(4096).map(|&b| u64::from(b)).sum();
        let touched = rss_file_kib();
        f.release_pages();
        let released = rss_file_kib();
        assert_eq!(borrowed, &data[..], "a borrow taken before the release");
        assert_eq!(f.bytes(), &data[..], "the mapping after the release");
        assert!(sum > 0);
        if cfg!(target_os = "linux")
            && let (Some(b), Some(t), Some(r)) = (before, touched, released)
        {
            // 16 MiB touched; other threads of the test binary move RssFile a little.
            assert!(t >= b + 12 * 1024, "touching the map: {b} -> {t} KiB");
            assert!(r + 12 * 1024 <= t, "release_pages: {t} -> {r} KiB");
        }
    }

    /// Starting writeback (sync_file_range on Linux) moves nothing: the bytes, the length and
    /// later appends are as without it, and each call covers only what was appended since
    /// the last one (an appended-to file starts at its old end).
    #[test]
    fn start_writeback_keeps_the_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let chunk: Vec<u8> = (0..(1u32 << 20)).map(|i| (i % 251) as u8).collect();
        let file = options()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&p)
            .unwrap();
        let mut w = StdWritable {
            file,
            len: 0,
            written_back: 0,
        };
        w.start_writeback().unwrap(); // nothing appended yet
        for i in 0..3u64 {
            w.append(&chunk).unwrap();
            w.start_writeback().unwrap();
            if cfg!(target_os = "linux") {
                assert_eq!(w.written_back, (i + 1) << 20);
            }
        }
        w.append(b"tail").unwrap();
        w.sync_data().unwrap();
        drop(w);
        let mut w = StdFs.open_append(&p).unwrap();
        assert_eq!(w.len(), (3 << 20) + 4);
        w.append(b"more").unwrap();
        w.start_writeback().unwrap();
        w.sync_data().unwrap();
        let all = std::fs::read(&p).unwrap();
        assert_eq!(all.len(), (3 << 20) + 8);
        for i in 0..3 {
            assert_eq!(&all[i << 20..(i + 1) << 20], &chunk[..], "MiB {i}");
        }
        assert_eq!(&all[3 << 20..], b"tailmore");
    }

    #[test]
    fn positional_reads_need_no_mapping_and_survive_truncation() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let mut w = StdFs.create(&p).unwrap();
        w.append(b"0123456789").unwrap();
        let r = StdFs.open_read_at(&p).unwrap();
        assert_eq!((r.len(), r.is_empty()), (10, false));
        let mut buf = [0u8; 4];
        r.read_exact_at(&mut buf, 6).unwrap();
        assert_eq!(&buf, b"6789");
        let e = r.read_exact_at(&mut buf, 7).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        // The handle holds no mapping: the file can be truncated under it.
        StdFs.truncate(&p, 3).unwrap();
        r.read_exact_at(&mut buf[..3], 0).unwrap();
        assert_eq!(&buf[..3], b"012");
        assert!(StdFs.open_read_at(&dir.path().join("missing")).is_err());
        assert!(StdFs.open_read_at(dir.path()).is_err());
    }

    #[test]
    fn preallocated_room_is_overwritten_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let mut w = StdFs.create(&p).unwrap();
        w.append(b"head").unwrap();
        w.preallocate(100).unwrap();
        w.preallocate(50).unwrap();
        assert_eq!(w.len(), 4);
        w.append(b"tail").unwrap();
        w.sync_data().unwrap();
        assert_eq!(w.len(), 8);
        let bytes = StdFs.read_all(&p).unwrap();
        assert_eq!(bytes.len(), 100);
        assert_eq!(&bytes[..8], b"headtail");
        assert!(bytes[8..].iter().all(|&b| b == 0));
        // Reopened for appending, the file's whole size counts as written.
        let mut a = StdFs.open_append(&p).unwrap();
        assert_eq!(a.len(), 100);
        a.append(b"!").unwrap();
        assert_eq!(StdFs.read_all(&p).unwrap()[100], b'!');
    }

    #[test]
    fn second_lock_is_refused_until_released() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("LOCK");
        let l = StdFs.lock(&p).unwrap();
        let e = StdFs.lock(&p).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
        drop(l);
        StdFs.lock(&p).unwrap();
    }
}
