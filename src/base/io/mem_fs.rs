//! An in-memory filesystem that simulates power loss (LevelDB's memenv plus a durability model).
//!
//! Every file (inode) has its *live* bytes, what reads see, and its *durable* bytes, what
//! survives a power loss: `sync_data` copies live to durable. Every directory has its *live*
//! entries and its *durable* entries: [`FileSystem::sync_dir`] copies live to durable. A created,
//! renamed or removed name is therefore durable only after the parent directory is synced, and
//! a new directory only after its own parent is synced; the root directory always exists.
//!
//! [`MemFs::crash`] is the power loss: every directory reachable from the root through durable
//! entries gets its durable entries back, every file its durable bytes, every lock is released
//! and every handle opened before the crash fails from then on. With
//! [`MemFs::set_crash_seed`], a crash also keeps a random prefix of each file's un-synced
//! appended bytes (a torn write) and, per directory, either all or none of its un-synced entry
//! changes, as real filesystems may.
//!
//! Invariant checked on every call: a file that is open for reading (memory-mapped with
//! [`super::StdFs`]) is never truncated or re-created; doing so is an error. A file open for
//! positional reads ([`FileSystem::open_read_at`], no mapping) may be: its reads see the live
//! bytes at the time of each read.

mod handles;

use super::{FileKind, FileLock, FileSystem, ReadAtFile, ReadableFile, WritableFile};
use handles::{MemLock, MemReadAt, MemReadable, MemWritable};
use parking_lot::Mutex;
use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::{Component, Path};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    File(u64),
    Dir(u64),
}

#[derive(Debug)]
struct Inode {
    data: Vec<u8>,
    durable: Vec<u8>,
    /// `data` no longer extends `durable` (the file was truncated or re-created since the last
    /// sync), so a torn crash cannot keep a prefix of the difference.
    rewritten: bool,
    /// The smallest offset written (appended, overwritten in a preallocated tail, or zero-filled
    /// by a preallocation) since the last sync; `usize::MAX` when none. Below it, `data` and
    /// `durable` agree.
    dirty_from: usize,
    /// Held by every open reader: a strong count above one means the file is mapped.
    readers: Arc<()>,
}

#[derive(Debug, Default, Clone)]
struct Dir {
    live: BTreeMap<String, Node>,
    durable: BTreeMap<String, Node>,
}

#[derive(Debug, Default)]
struct State {
    inodes: HashMap<u64, Inode>,
    dirs: HashMap<u64, Dir>,
    next_id: u64,
    /// Bumped by every crash; handles from an older epoch fail.
    epoch: u64,
    /// Locked paths and the id of the lock holding each.
    locks: HashMap<String, u64>,
    crash_rng: Option<u64>,
    crashes: u64,
}

const ROOT: u64 = 0;

impl Default for Inode {
    fn default() -> Self {
        Inode {
            data: Vec::new(),
            durable: Vec::new(),
            rewritten: false,
            dirty_from: usize::MAX,
            readers: Arc::new(()),
        }
    }
}

impl Inode {
    /// Marks `data` as changed from offset `from` on.
    fn dirty(&mut self, from: usize) {
        self.dirty_from = self.dirty_from.min(from);
    }

    /// `data` is durable now.
    fn synced(&mut self) {
        if self.rewritten || self.data.len() < self.durable.len() {
            self.durable = self.data.clone();
        } else {
            let from = self.dirty_from.min(self.durable.len());
            self.durable.truncate(from);
            self.durable.extend_from_slice(&self.data[from..]);
        }
        self.rewritten = false;
        self.dirty_from = usize::MAX;
    }
}

fn err(kind: io::ErrorKind, msg: String) -> io::Error {
    io::Error::new(kind, msg)
}

fn components(path: &Path) -> io::Result<Vec<String>> {
    let mut out = Vec::new();
    for c in path.components() {
        match c {
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
            Component::Normal(s) => out.push(
                s.to_str()
                    .ok_or_else(|| {
                        err(
                            io::ErrorKind::InvalidInput,
                            format!("non-UTF-8 path {}", path.display()),
                        )
                    })?
                    .to_string(),
            ),
            Component::ParentDir => {
                return Err(err(
                    io::ErrorKind::InvalidInput,
                    format!("'..' in path {}", path.display()),
                ));
            }
        }
    }
    Ok(out)
}

impl State {
    fn new_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn dir(&self, id: u64) -> &Dir {
        // Directory ids in entries always exist (directories are never freed).
        &self.dirs[&id]
    }

    /// The directory at `parts` (live entries).
    fn walk(&self, parts: &[String], path: &Path) -> io::Result<u64> {
        let mut cur = ROOT;
        for p in parts {
            match self.dir(cur).live.get(p) {
                Some(Node::Dir(d)) => cur = *d,
                Some(Node::File(_)) => {
                    return Err(err(
                        io::ErrorKind::NotADirectory,
                        format!("{} is not a directory", path.display()),
                    ));
                }
                None => {
                    return Err(err(
                        io::ErrorKind::NotFound,
                        format!("{} not found", path.display()),
                    ));
                }
            }
        }
        Ok(cur)
    }

    /// The parent directory id and the file name of `path`.
    fn parent(&self, path: &Path) -> io::Result<(u64, String)> {
        let mut parts = components(path)?;
        let name = parts.pop().ok_or_else(|| {
            err(
                io::ErrorKind::InvalidInput,
                format!("no file name in {}", path.display()),
            )
        })?;
        Ok((self.walk(&parts, path)?, name))
    }

    fn lookup(&self, path: &Path) -> io::Result<Node> {
        let (d, name) = self.parent(path)?;
        self.dir(d).live.get(&name).copied().ok_or_else(|| {
            err(
                io::ErrorKind::NotFound,
                format!("{} not found", path.display()),
            )
        })
    }

    fn file(&self, path: &Path) -> io::Result<u64> {
        match self.lookup(path)? {
            Node::File(i) => Ok(i),
            Node::Dir(_) => Err(err(
                io::ErrorKind::IsADirectory,
                format!("{} is a directory", path.display()),
            )),
        }
    }

    fn check_not_mapped(&self, ino: u64, path: &Path) -> io::Result<()> {
        if Arc::strong_count(&self.inodes[&ino].readers) > 1 {
            return Err(err(
                io::ErrorKind::ResourceBusy,
                format!(
                    "{} is open for reading (mapped) and cannot be truncated",
                    path.display()
                ),
            ));
        }
        Ok(())
    }

    fn next_rand(&mut self) -> Option<u64> {
        let s = self.crash_rng.as_mut()?;
        *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Some(z ^ (z >> 31))
    }
}

/// The in-memory filesystem (cheap to clone: clones share the same files).
#[derive(Debug, Clone)]
pub struct MemFs {
    state: Arc<Mutex<State>>,
}

impl Default for MemFs {
    fn default() -> Self {
        MemFs::new()
    }
}

impl MemFs {
    /// An empty filesystem with only the root directory.
    pub fn new() -> MemFs {
        let mut s = State::default();
        s.dirs.insert(ROOT, Dir::default());
        MemFs {
            state: Arc::new(Mutex::new(s)),
        }
    }

    /// Makes later crashes torn: each file keeps a random prefix (seeded by `seed`) of its
    /// un-synced appended bytes, and each directory keeps either all or none of its un-synced
    /// entry changes.
    pub fn set_crash_seed(&self, seed: u64) {
        self.state.lock().crash_rng = Some(seed);
    }

    /// Simulates a power loss: only durable state remains (see the module docs). Handles
    /// opened before the crash fail from now on; locks are released.
    pub fn crash(&self) {
        let mut s = self.state.lock();
        s.epoch += 1;
        s.crashes += 1;
        s.locks.clear();
        let mut stack = vec![ROOT];
        let mut seen = std::collections::HashSet::new();
        while let Some(d) = stack.pop() {
            if !seen.insert(d) {
                continue;
            }
            let keep_live = s.crash_rng.is_some() && s.next_rand().is_some_and(|r| r & 1 == 1);
            let dir = s.dirs.get_mut(&d).expect("directory ids in entries exist");
            if keep_live {
                dir.durable = dir.live.clone();
            } else {
                dir.live = dir.durable.clone();
            }
            let entries: Vec<Node> = dir.durable.values().copied().collect();
            for n in entries {
                match n {
                    Node::Dir(c) => stack.push(c),
                    Node::File(i) => {
                        let r = s.next_rand();
                        let ino = s.inodes.get_mut(&i).expect("inode ids in entries exist");
                        // Bytes below `common` are durable; a torn crash keeps a random prefix
                        // of the changed bytes after it (appended, or written into a
                        // preallocated tail) and the durable bytes beyond that prefix.
                        let common = ino.dirty_from.min(ino.durable.len()).min(ino.data.len());
                        let extra = if ino.rewritten || ino.data.len() <= common {
                            0
                        } else {
                            let unsynced = (ino.data.len() - common) as u64;
                            r.map_or(0, |r| (r % (unsynced + 1)) as usize)
                        };
                        if extra > 0 {
                            let cut = common + extra;
                            ino.data.truncate(cut);
                            if cut < ino.durable.len() {
                                let rest = ino.durable[cut..].to_vec();
                                ino.data.extend_from_slice(&rest);
                            }
                        } else {
                            ino.data = ino.durable.clone();
                        }
                        ino.durable = ino.data.clone();
                        ino.rewritten = false;
                        ino.dirty_from = usize::MAX;
                    }
                }
            }
        }
    }

    /// An independent copy of every file and directory (live and durable state); locks and
    /// open handles are not copied.
    pub fn deep_clone(&self) -> MemFs {
        let s = self.state.lock();
        let inodes = s
            .inodes
            .iter()
            .map(|(&k, i)| {
                (
                    k,
                    Inode {
                        data: i.data.clone(),
                        durable: i.durable.clone(),
                        rewritten: i.rewritten,
                        dirty_from: i.dirty_from,
                        readers: Arc::new(()),
                    },
                )
            })
            .collect();
        MemFs {
            state: Arc::new(Mutex::new(State {
                inodes,
                dirs: s.dirs.clone(),
                next_id: s.next_id,
                epoch: s.epoch,
                locks: HashMap::new(),
                crash_rng: s.crash_rng,
                crashes: s.crashes,
            })),
        }
    }

    /// How many times [`MemFs::crash`] ran.
    pub fn crashes(&self) -> u64 {
        self.state.lock().crashes
    }

    /// The live bytes of `path` (for tests that damage files).
    ///
    /// # Errors
    /// `NotFound` when there is no such file.
    pub fn read_file(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.read_all(path)
    }

    /// Replaces the bytes of `path`, live and durable (for tests that damage files).
    ///
    /// # Errors
    /// `NotFound` when there is no such file.
    pub fn write_file(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let mut s = self.state.lock();
        let ino = s.file(path)?;
        s.check_not_mapped(ino, path)?;
        let i = s.inodes.get_mut(&ino).expect("inode exists");
        i.data = bytes.to_vec();
        i.durable = bytes.to_vec();
        i.rewritten = false;
        i.dirty_from = usize::MAX;
        Ok(())
    }

    fn handle(&self, ino: u64, epoch: u64, pos: usize) -> MemWritable {
        MemWritable {
            state: self.state.clone(),
            ino,
            epoch,
            pos,
        }
    }
}

impl FileSystem for MemFs {
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        let parts = components(path)?;
        let mut s = self.state.lock();
        let mut cur = ROOT;
        for p in parts {
            cur = match s.dir(cur).live.get(&p) {
                Some(Node::Dir(d)) => *d,
                Some(Node::File(_)) => {
                    return Err(err(
                        io::ErrorKind::AlreadyExists,
                        format!("{} is a file", path.display()),
                    ));
                }
                None => {
                    let id = s.new_id();
                    s.dirs.insert(id, Dir::default());
                    s.dirs
                        .get_mut(&cur)
                        .expect("walked directories exist")
                        .live
                        .insert(p, Node::Dir(id));
                    id
                }
            };
        }
        Ok(())
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        let mut s = self.state.lock();
        let (d, name) = s.parent(path)?;
        let ino = match s.dir(d).live.get(&name).copied() {
            Some(Node::File(i)) => {
                s.check_not_mapped(i, path)?;
                let ino = s.inodes.get_mut(&i).expect("inode exists");
                ino.data.clear();
                ino.rewritten = true;
                i
            }
            Some(Node::Dir(_)) => {
                return Err(err(
                    io::ErrorKind::IsADirectory,
                    format!("{} is a directory", path.display()),
                ));
            }
            None => {
                let i = s.new_id();
                s.inodes.insert(i, Inode::default());
                s.dirs
                    .get_mut(&d)
                    .expect("parent exists")
                    .live
                    .insert(name, Node::File(i));
                i
            }
        };
        let epoch = s.epoch;
        Ok(Box::new(self.handle(ino, epoch, 0)))
    }

    fn open_append(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        let s = self.state.lock();
        let ino = s.file(path)?;
        let len = s.inodes[&ino].data.len();
        Ok(Box::new(self.handle(ino, s.epoch, len)))
    }

    fn open_read(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        let s = self.state.lock();
        let ino = &s.inodes[&s.file(path)?];
        Ok(Arc::new(MemReadable {
            bytes: ino.data.clone(),
            _mapped: ino.readers.clone(),
        }))
    }

    fn open_read_at(&self, path: &Path) -> io::Result<Box<dyn ReadAtFile>> {
        let s = self.state.lock();
        let ino = s.file(path)?;
        Ok(Box::new(MemReadAt {
            state: self.state.clone(),
            ino,
            epoch: s.epoch,
            len: s.inodes[&ino].data.len() as u64,
        }))
    }

    fn read_all(&self, path: &Path) -> io::Result<Vec<u8>> {
        let s = self.state.lock();
        Ok(s.inodes[&s.file(path)?].data.clone())
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut s = self.state.lock();
        let node = s.lookup(from)?;
        let (fd, fname) = s.parent(from)?;
        let (td, tname) = s.parent(to)?;
        if let Some(Node::Dir(_)) = s.dir(td).live.get(&tname) {
            return Err(err(
                io::ErrorKind::IsADirectory,
                format!("{} is a directory", to.display()),
            ));
        }
        s.dirs
            .get_mut(&fd)
            .expect("parent exists")
            .live
            .remove(&fname);
        s.dirs
            .get_mut(&td)
            .expect("parent exists")
            .live
            .insert(tname, node);
        Ok(())
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        let mut s = self.state.lock();
        s.file(path)?;
        let (d, name) = s.parent(path)?;
        s.dirs
            .get_mut(&d)
            .expect("parent exists")
            .live
            .remove(&name);
        Ok(())
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        let mut s = self.state.lock();
        let ino = s.file(path)?;
        s.check_not_mapped(ino, path)?;
        let i = s.inodes.get_mut(&ino).expect("inode exists");
        let len = usize::try_from(len).unwrap_or(usize::MAX);
        if len > i.data.len() {
            i.data.resize(len, 0);
        } else {
            i.data.truncate(len);
        }
        i.durable = i.data.clone();
        i.rewritten = false;
        i.dirty_from = usize::MAX;
        Ok(())
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let s = self.state.lock();
        let d = s.walk(&components(dir)?, dir)?;
        Ok(s.dir(d).live.keys().cloned().collect())
    }

    fn exists(&self, path: &Path) -> bool {
        let s = self.state.lock();
        match components(path) {
            Ok(p) if p.is_empty() => true,
            Ok(_) => s.lookup(path).is_ok(),
            Err(_) => false,
        }
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        let mut s = self.state.lock();
        let d = s.walk(&components(dir)?, dir)?;
        let dir = s.dirs.get_mut(&d).expect("walked directories exist");
        dir.durable = dir.live.clone();
        Ok(())
    }

    /// Locks are keyed by path here, so a directory's lock is its path's.
    fn lock_dir(&self, dir: &Path) -> io::Result<Box<dyn FileLock>> {
        self.lock(dir)
    }
    fn lock(&self, path: &Path) -> io::Result<Box<dyn FileLock>> {
        let key = components(path)?.join("/");
        if !self.exists(path) {
            self.create(path)?;
        }
        let mut s = self.state.lock();
        if s.locks.contains_key(&key) {
            return Err(err(io::ErrorKind::WouldBlock, "locked".into()));
        }
        let id = s.new_id();
        s.locks.insert(key.clone(), id);
        Ok(Box::new(MemLock {
            state: self.state.clone(),
            key,
            id,
        }))
    }

    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut s = self.state.lock();
        let ino = s.file(from)?;
        let (td, tname) = s.parent(to)?;
        if s.dir(td).live.contains_key(&tname) {
            return Err(err(
                io::ErrorKind::AlreadyExists,
                format!("{} exists", to.display()),
            ));
        }
        s.dirs
            .get_mut(&td)
            .expect("parent exists")
            .live
            .insert(tname, Node::File(ino));
        Ok(())
    }

    fn kind(&self, path: &Path) -> io::Result<FileKind> {
        let s = self.state.lock();
        if components(path)?.is_empty() {
            return Ok(FileKind::Dir);
        }
        Ok(match s.lookup(path)? {
            Node::File(_) => FileKind::File,
            Node::Dir(_) => FileKind::Dir,
        })
    }

    fn lock_held(&self, path: &Path) -> bool {
        components(path).is_ok_and(|p| self.state.lock().locks.contains_key(&p.join("/")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> &Path {
        Path::new(s)
    }

    #[test]
    fn unsynced_bytes_and_entries_vanish_on_crash() {
        let fs = MemFs::new();
        fs.create_dir_all(p("/db")).unwrap();
        fs.sync_dir(p("/")).unwrap();
        let mut f = fs.create(p("/db/a")).unwrap();
        f.append(b"synced").unwrap();
        f.sync_data().unwrap();
        f.append(b"-lost").unwrap();
        // The name is not durable yet: the whole file vanishes.
        fs.crash();
        assert!(!fs.exists(p("/db/a")));
        assert!(f.append(b"x").is_err(), "stale handle");

        let mut f = fs.create(p("/db/a")).unwrap();
        f.append(b"synced").unwrap();
        f.sync_data().unwrap();
        fs.sync_dir(p("/db")).unwrap();
        f.append(b"-lost").unwrap();
        assert_eq!(fs.read_all(p("/db/a")).unwrap(), b"synced-lost");
        fs.crash();
        assert_eq!(fs.read_all(p("/db/a")).unwrap(), b"synced");
    }

    #[test]
    fn renames_and_removes_are_durable_only_after_sync_dir() {
        let fs = MemFs::new();
        fs.create_dir_all(p("/d")).unwrap();
        fs.sync_dir(p("/")).unwrap();
        for (name, body) in [("/d/old", b"1"), ("/d/tmp", b"2")] {
            let mut f = fs.create(p(name)).unwrap();
            f.append(body).unwrap();
            f.sync_data().unwrap();
        }
        fs.sync_dir(p("/d")).unwrap();
        fs.rename(p("/d/tmp"), p("/d/old")).unwrap();
        fs.remove(p("/d/old")).unwrap_or(());
        fs.crash();
        assert_eq!(fs.list(p("/d")).unwrap(), vec!["old", "tmp"]);
        assert_eq!(fs.read_all(p("/d/old")).unwrap(), b"1");
        fs.rename(p("/d/tmp"), p("/d/old")).unwrap();
        fs.sync_dir(p("/d")).unwrap();
        fs.crash();
        assert_eq!(fs.list(p("/d")).unwrap(), vec!["old"]);
        assert_eq!(fs.read_all(p("/d/old")).unwrap(), b"2");
    }

    #[test]
    fn new_directories_need_their_parent_synced() {
        let fs = MemFs::new();
        fs.create_dir_all(p("/a/b")).unwrap();
        fs.sync_dir(p("/a")).unwrap();
        fs.crash();
        assert!(!fs.exists(p("/a")));
        fs.create_dir_all(p("/a/b")).unwrap();
        fs.sync_dir(p("/")).unwrap();
        fs.crash();
        assert!(fs.exists(p("/a")) && !fs.exists(p("/a/b")));
    }

    #[test]
    fn torn_crash_keeps_a_prefix_of_unsynced_bytes() {
        let mut lens = std::collections::BTreeSet::new();
        for seed in 0..20 {
            let fs = MemFs::new();
            fs.set_crash_seed(seed);
            let mut f = fs.create(p("/f")).unwrap();
            f.append(b"0123").unwrap();
            f.sync_data().unwrap();
            fs.sync_dir(p("/")).unwrap();
            f.append(b"456789").unwrap();
            fs.crash();
            let got = fs.read_all(p("/f")).unwrap();
            assert!(b"0123456789".starts_with(&got) && got.len() >= 4);
            lens.insert(got.len());
        }
        assert!(lens.len() > 2, "{lens:?}");
    }

    #[test]
    fn writes_into_a_preallocated_tail_are_durable_only_after_sync() {
        let fs = MemFs::new();
        fs.create_dir_all(p("/d")).unwrap();
        fs.sync_dir(p("/")).unwrap();
        let mut f = fs.create(p("/d/f")).unwrap();
        fs.sync_dir(p("/d")).unwrap();
        f.append(b"ab").unwrap();
        f.preallocate(8).unwrap();
        f.sync_data().unwrap();
        f.append(b"cd").unwrap();
        assert_eq!(f.len(), 4);
        assert_eq!(fs.read_file(p("/d/f")).unwrap(), b"abcd\0\0\0\0");
        fs.crash();
        assert_eq!(fs.read_file(p("/d/f")).unwrap(), b"ab\0\0\0\0\0\0");
        // A torn crash keeps a prefix of the overwritten bytes and the durable rest.
        let mut seen = std::collections::HashSet::new();
        for seed in 0..40 {
            let fs = MemFs::new();
            fs.set_crash_seed(seed);
            let mut f = fs.create(p("/f")).unwrap();
            fs.sync_dir(p("/")).unwrap();
            f.append(b"ab").unwrap();
            f.preallocate(6).unwrap();
            f.sync_data().unwrap();
            f.append(b"cd").unwrap();
            fs.crash();
            let got = fs.read_file(p("/f")).unwrap();
            assert!(
                [&b"ab\0\0\0\0"[..], b"abc\0\0\0", b"abcd\0\0"].contains(&&got[..]),
                "{got:?}"
            );
            seen.insert(got);
        }
        assert_eq!(seen.len(), 3);
    }

    #[test]
    fn mapped_files_cannot_be_truncated_and_locks_exclude() {
        let fs = MemFs::new();
        let mut f = fs.create(p("/f")).unwrap();
        f.append(b"abc").unwrap();
        let r = fs.open_read(p("/f")).unwrap();
        assert!(fs.truncate(p("/f"), 1).is_err());
        assert!(fs.create(p("/f")).is_err());
        drop(r);
        fs.truncate(p("/f"), 1).unwrap();
        let l = fs.lock(p("/LOCK")).unwrap();
        assert_eq!(
            fs.lock(p("/LOCK")).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        drop(l);
        let _l = fs.lock(p("/LOCK")).unwrap();
        assert!(fs.create(p("/../x")).is_err());
    }
}
