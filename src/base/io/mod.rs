//! The filesystem seam. Every file operation of the engine goes through [`FileSystem`], so tests
//! can substitute an in-memory or fault-injecting implementation. [`StdFs`] is the real one.

#[cfg(any(test, feature = "testing"))]
mod fault_fs;
#[cfg(any(test, feature = "testing"))]
mod mem_fs;
mod std_fs;

#[cfg(any(test, feature = "testing"))]
pub use fault_fs::FaultFs;
#[cfg(any(test, feature = "testing"))]
pub use mem_fs::MemFs;
pub use std_fs::StdFs;
pub(crate) use std_fs::physical_memory;

use std::fmt::Debug;
use std::io;
use std::path::Path;
use std::sync::Arc;

/// A file opened for appending.
pub trait WritableFile: Send + Sync {
    /// Appends all of `data` (written to the OS, not necessarily to the device).
    fn append(&mut self, data: &[u8]) -> io::Result<()>;
    /// `fdatasync`: makes everything appended so far durable.
    fn sync_data(&mut self) -> io::Result<()>;
    /// Bytes appended so far: the logical end, where the next append goes. A preallocated
    /// tail ([`WritableFile::preallocate`]) is not counted.
    fn len(&self) -> u64;
    /// Grows the file to at least `len` bytes without moving its logical end: the bytes past
    /// [`WritableFile::len`] read as zeros, and later appends overwrite them in place. Appending
    /// into such room does not change the file's size, so an `fdatasync` after it need not
    /// write the inode's size (about a third of a small fdatasync's cost on ext4). The new size
    /// is durable after the next [`WritableFile::sync_data`]. A `len` at or below the current
    /// size does nothing. The default does nothing (the file grows with every append).
    fn preallocate(&mut self, len: u64) -> io::Result<()> {
        let _ = len;
        Ok(())
    }
    /// True when the file is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Asks the OS to start writing the bytes appended so far to the device, without waiting
    /// for them (Linux's `sync_file_range(SYNC_FILE_RANGE_WRITE)`, as RocksDB's
    /// `bytes_per_sync`). A large file written in one go then never holds more than a little
    /// unwritten data: its final `fdatasync`, and the WAL's syncs queued behind it in the
    /// filesystem's journal, no longer wait for the writeback of the whole file. Durability is
    /// unchanged: only [`WritableFile::sync_data`] makes bytes durable. The default does
    /// nothing.
    fn start_writeback(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Bytes appended to a block file or a WAL segment between two requests to start their
/// writeback ([`WritableFile::start_writeback`]; RocksDB's `bytes_per_sync` and
/// `wal_bytes_per_sync` of 1 MiB). A flush or compaction then keeps at most this much of its
/// output unwritten in the page cache, and a WAL segment roll, which syncs the segment on the
/// writer's path, finds at most this much left to write (docs/PERFORMANCE.md, "Longest writes").
pub const WRITEBACK_EVERY: u64 = 1 << 20;

/// An immutable file's bytes (memory-mapped for [`StdFs`]).
pub trait ReadableFile: Send + Sync + Debug {
    /// The whole file.
    fn bytes(&self) -> &[u8];

    /// Fills `buf` with the file's bytes at `offset`. The default copies from
    /// [`ReadableFile::bytes`].
    ///
    /// # Errors
    /// `UnexpectedEof` when the range passes the end of the file; the OS's error for a failed
    /// read.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let src = usize::try_from(offset)
            .ok()
            .and_then(|start| self.bytes().get(start..start.checked_add(buf.len())?))
            .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "read past end of file"))?;
        buf.copy_from_slice(src);
        Ok(())
    }

    /// True when data blocks should be read with [`ReadableFile::read_exact_at`] (a copy into
    /// the block cache) rather than used in place from [`ReadableFile::bytes`]. The real
    /// filesystem says yes: pages of a mapping that a read touched count in the process's
    /// resident set until unmapped, so reading data blocks in place would grow the process's
    /// RSS with every block ever read; with `pread` only the block cache stays resident.
    fn prefers_read(&self) -> bool {
        false
    }

    /// A hint that the pages of [`ReadableFile::bytes`] read so far will not be needed again
    /// soon: a block file's reader calls it once it has decoded its metadata (trailer, meta,
    /// index and Bloom blocks) into memory of its own. For a memory map whose data blocks are
    /// read with `pread` ([`ReadableFile::prefers_read`]) the touched pages then stop counting
    /// in the process's resident set (the page cache keeps them, and a later access maps them
    /// again with the same bytes); a file whose blocks are used in place keeps the default,
    /// which does nothing.
    fn release_pages(&self) {}
}

/// A file read with positional reads (`pread`) into the caller's buffers: no mapping, so
/// nothing but those buffers stays resident, and the file may be truncated (through
/// [`FileSystem::truncate`]) once the handle is dropped. For files read once in bounded pieces
/// (the write-ahead log's replay reads each segment through a window of a few records).
pub trait ReadAtFile: Send + Sync {
    /// The file's length when it was opened.
    fn len(&self) -> u64;
    /// True when the file was empty when it was opened.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Fills `buf` with the file's bytes at `offset`.
    ///
    /// # Errors
    /// `UnexpectedEof` when the range passes the end of the file; the OS's error for a failed
    /// read.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
}

/// Held while a directory is locked; dropping it releases the lock.
pub trait FileLock: Send + Sync + Debug {
    /// Checks that the lock still guards what it was taken on: for a lock file, that the
    /// file at its path is still the one locked (deleting or replacing the file would let
    /// another opener lock a new one). The default has nothing to check.
    fn still_held(&self) -> io::Result<()> {
        Ok(())
    }
}

/// What a path is, as [`FileSystem::kind`] tells it without opening it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A FIFO (named pipe): opening it blocks until a peer opens its other end.
    Fifo,
    /// A character or block device: reading one may never end.
    Device,
    /// A socket.
    Socket,
    /// Anything else.
    Other,
}

impl FileKind {
    /// The kind in words, as messages name it: "a regular file", "a FIFO", ...
    pub fn describe(self) -> &'static str {
        match self {
            FileKind::File => "a regular file",
            FileKind::Dir => "a directory",
            FileKind::Fifo => "a FIFO",
            FileKind::Device => "a device",
            FileKind::Socket => "a socket",
            FileKind::Other => "not a file",
        }
    }
}

/// Every filesystem operation the engine performs.
pub trait FileSystem: Send + Sync + Debug + 'static {
    /// Creates `path` and its parents (owner-only permissions).
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;
    /// Creates (or truncates) `path` for appending (owner-only permissions).
    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>>;
    /// Opens an existing file for appending at its end (its whole current size: a preallocated
    /// zero tail counts as written).
    fn open_append(&self, path: &Path) -> io::Result<Box<dyn WritableFile>>;
    /// Opens an immutable file for reading.
    fn open_read(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>>;
    /// Opens an existing file for positional reads, without mapping it (a file that may be
    /// truncated after it was read, or is too large to hold).
    /// Required, like [`FileSystem::lock_dir`], so that a wrapper cannot silently fall back to
    /// a default that bypasses what it wraps.
    fn open_read_at(&self, path: &Path) -> io::Result<Box<dyn ReadAtFile>>;
    /// Reads a whole file into memory.
    fn read_all(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// Atomically renames `from` to `to` (durable only after [`FileSystem::sync_dir`]).
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Removes a file.
    fn remove(&self, path: &Path) -> io::Result<()>;
    /// Truncates a file to `len` bytes and syncs it.
    fn truncate(&self, path: &Path, len: u64) -> io::Result<()>;
    /// Names of the entries of `dir`.
    fn list(&self, dir: &Path) -> io::Result<Vec<String>>;
    /// True when `path` exists.
    fn exists(&self, path: &Path) -> bool;
    /// Makes the directory's entries (creations, renames, removals) durable.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;
    /// Takes an exclusive lock on `path` (created if missing); fails with
    /// `io::ErrorKind::WouldBlock` when another holder has it.
    fn lock(&self, path: &Path) -> io::Result<Box<dyn FileLock>>;
    /// Takes an exclusive lock on the directory `dir` itself (not on a file in it), so no
    /// deletion of a file can release it; fails with `io::ErrorKind::WouldBlock` when another
    /// holder has it.
    /// Required, like the two below, so that a wrapper cannot silently fall back to a default
    /// that is wrong for the filesystem it wraps (a real directory is not a lockable file).
    fn lock_dir(&self, dir: &Path) -> io::Result<Box<dyn FileLock>>;
    /// What `path` is, without opening it (inspection reads only regular files: opening a
    /// FIFO blocks, reading a device may never end). `NotFound` when it does not exist.
    fn kind(&self, path: &Path) -> io::Result<FileKind>;
    /// Makes `to` a second name of the existing file `from` (a hard link: no data is copied;
    /// durable after [`FileSystem::sync_dir`] of `to`'s directory). Fails with `AlreadyExists`
    /// when `to` exists, and with the system's error where the filesystem cannot link (another
    /// device, no link support): callers that can copy instead do so.
    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Whether another holder has the lock [`FileSystem::lock`] takes on the file `path`:
    /// probed without taking the lock from anyone (an open that is refused it meanwhile
    /// retries) and without creating `path`.
    fn lock_held(&self, path: &Path) -> bool;
}
