//! How inspection reads files: through the engine's filesystem seam, whole, into memory (never
//! mapped: a file truncated or replaced meanwhile cannot fault the process), and only regular
//! files (a FIFO or device in the database directory would block a read forever, or never
//! end).

use crate::base::io::{FileKind, FileSystem, ReadableFile};
use std::io;
use std::path::Path;

/// A file's bytes held in memory, for the engine's readers.
#[derive(Debug)]
pub(crate) struct OwnedFile(pub(crate) Vec<u8>);

impl ReadableFile for OwnedFile {
    fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// Reads a file of the database (`CURRENT`, a manifest, a log segment); anything but a regular
/// file is refused unread with an [`io::ErrorKind::InvalidInput`] error naming what it is.
pub(crate) fn read_regular(fs: &dyn FileSystem, path: &Path) -> io::Result<Vec<u8>> {
    match fs.kind(path)? {
        FileKind::File => fs.read_all(path),
        k => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file ({}), not read", k.describe()),
        )),
    }
}

/// Reads a block file; every error's message starts with "cannot read PATH".
pub(crate) fn read_block_file(fs: &dyn FileSystem, path: &Path) -> io::Result<Vec<u8>> {
    let cannot =
        |e: io::Error| io::Error::new(e.kind(), format!("cannot read {}: {e}", path.display()));
    let kind = match fs.kind(path).map_err(cannot)? {
        FileKind::File => return fs.read_all(path).map_err(cannot),
        FileKind::Dir => "a directory",
        _ => "a device, FIFO or socket",
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "cannot read {}: not a regular file ({kind})",
            path.display()
        ),
    ))
}

/// Whether `path` is a directory (an error when it cannot be told, e.g. it does not exist).
pub(crate) fn is_dir(fs: &dyn FileSystem, path: &Path) -> io::Result<bool> {
    Ok(fs.kind(path)? == FileKind::Dir)
}

/// The sorted names in `dir`.
pub(crate) fn names(fs: &dyn FileSystem, dir: &Path) -> Result<Vec<String>, String> {
    let mut v = fs.list(dir).map_err(|e| format!("cannot list: {e}"))?;
    v.sort();
    Ok(v)
}
