//! Group commit through `Table::put` on a simulated device: an in-memory filesystem whose
//! `fdatasync` sleeps a fixed time (default 1 ms), so the result shows what the write path
//! serializes, free of the machine's disk noise. Prints FsyncWal puts/s of distinct rows into
//! one region, and puts per fdatasync, from 1, 2, 4 and 8 threads, then the same for the WAL
//! alone (`Wal::append`); the thread counts alternate within a round, the rounds repeat, and
//! the summary prints medians.
//!
//! ```text
//! cargo run --release --example group_commit [put|wal] [sync-micros] [seconds] [rounds] [threads...]
//! ```
//!
//! A leading `put` or `wal` runs only that half (e.g. under `perf stat`).

use cellbase::testing::io::{
    FileKind, FileLock, FileSystem, MemFs, ReadAtFile, ReadableFile, WritableFile,
};
use cellbase::{Db, DbOptions, Durability, FamilyDescriptor, Put, TableDescriptor};
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[derive(Debug)]
struct SlowSync {
    inner: MemFs,
    delay: Duration,
}

static SYNCS: AtomicU64 = AtomicU64::new(0);

struct SlowFile {
    inner: Box<dyn WritableFile>,
    delay: Duration,
}

impl WritableFile for SlowFile {
    fn append(&mut self, data: &[u8]) -> io::Result<()> {
        self.inner.append(data)
    }
    fn sync_data(&mut self) -> io::Result<()> {
        std::thread::sleep(self.delay);
        SYNCS.fetch_add(1, Ordering::Relaxed);
        self.inner.sync_data()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
}

impl FileSystem for SlowSync {
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        self.inner.create_dir_all(path)
    }
    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        Ok(Box::new(SlowFile {
            inner: self.inner.create(path)?,
            delay: self.delay,
        }))
    }
    fn open_append(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        Ok(Box::new(SlowFile {
            inner: self.inner.open_append(path)?,
            delay: self.delay,
        }))
    }
    fn open_read(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        self.inner.open_read(path)
    }
    fn open_read_at(&self, path: &Path) -> io::Result<Box<dyn ReadAtFile>> {
        self.inner.open_read_at(path)
    }
    fn read_all(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.inner.read_all(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.inner.rename(from, to)
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        self.inner.remove(path)
    }
    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        self.inner.truncate(path, len)
    }
    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        self.inner.list(dir)
    }
    fn exists(&self, path: &Path) -> bool {
        self.inner.exists(path)
    }
    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        self.inner.sync_dir(dir)
    }
    fn lock(&self, path: &Path) -> io::Result<Box<dyn FileLock>> {
        self.inner.lock(path)
    }
    fn lock_dir(&self, d: &Path) -> io::Result<Box<dyn FileLock>> {
        self.inner.lock_dir(d)
    }
    fn kind(&self, p: &Path) -> io::Result<FileKind> {
        self.inner.kind(p)
    }
    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.inner.hard_link(from, to)
    }
    fn lock_held(&self, p: &Path) -> bool {
        self.inner.lock_held(p)
    }
}

/// Puts/s and puts per fdatasync of `threads` writers for `secs`.
fn run(threads: usize, delay: Duration, secs: f64) -> (f64, f64) {
    let fs = Arc::new(SlowSync {
        inner: MemFs::new(),
        delay,
    });
    let db = Db::open_with_fs(
        "/db",
        DbOptions::default().durability(Durability::FsyncWal),
        fs,
    )
    .unwrap();
    let t = db
        .create_table(TableDescriptor::new("b").family(FamilyDescriptor::new("f")))
        .unwrap();
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    SYNCS.store(0, Ordering::Relaxed);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let key = format!("{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                    t.put(Put::new(key).add("f", "q", [7u8; 100])).unwrap();
                }
            });
        }
        std::thread::sleep(Duration::from_secs_f64(secs));
        stop.store(true, Ordering::Relaxed);
    });
    let n = next.load(Ordering::Relaxed) as f64;
    let syncs = SYNCS.load(Ordering::Relaxed) as f64;
    (n / start.elapsed().as_secs_f64(), n / syncs.max(1.0))
}

/// The WAL alone on the same device: appends/s and appends per fdatasync.
fn run_wal(threads: usize, delay: Duration, secs: f64) -> (f64, f64) {
    use cellbase::testing::wal::{Wal, WalOptions, WalSync};
    let fs = Arc::new(SlowSync {
        inner: MemFs::new(),
        delay,
    });
    fs.create_dir_all(Path::new("/wal")).unwrap();
    let wal = Wal::create(fs, "/wal".into(), 1, WalOptions::default()).unwrap();
    let next = AtomicU64::new(1);
    let stop = AtomicBool::new(false);
    let payload = [5u8; 140];
    let syncs_before = wal.sync_count();
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let q = next.fetch_add(1, Ordering::Relaxed);
                    wal.append(&payload, q, WalSync::Fsync).unwrap();
                }
            });
        }
        std::thread::sleep(Duration::from_secs_f64(secs));
        stop.store(true, Ordering::Relaxed);
    });
    let n = (next.load(Ordering::Relaxed) - 1) as f64;
    let syncs = (wal.sync_count() - syncs_before) as f64;
    (n / start.elapsed().as_secs_f64(), n / syncs.max(1.0))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let only = match args.peek().map(String::as_str) {
        Some(w @ ("put" | "wal")) => {
            let w = w.to_string();
            args.next();
            Some(w)
        }
        _ => None,
    };
    let us: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let secs: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1.0);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    let mut threads: Vec<usize> = args.filter_map(|a| a.parse().ok()).collect();
    if threads.is_empty() {
        threads = vec![1, 2, 4, 8];
    }
    let delay = Duration::from_micros(us);
    for (key, what, f) in [
        (
            "put",
            "Table::put",
            run as fn(usize, Duration, f64) -> (f64, f64),
        ),
        ("wal", "WAL alone", run_wal),
    ] {
        if only.as_ref().is_some_and(|o| o != key) {
            continue;
        }
        let mut runs: Vec<Vec<(f64, f64)>> = threads.iter().map(|_| Vec::new()).collect();
        for _ in 0..rounds {
            for (i, &n) in threads.iter().enumerate() {
                runs[i].push(f(n, delay, secs));
            }
        }
        println!("{what}, fdatasync {us} us, medians over {rounds} rounds:");
        for (i, &n) in threads.iter().enumerate() {
            let ratio = median(
                runs[i]
                    .iter()
                    .zip(&runs[0])
                    .map(|(r, b)| r.0 / b.0)
                    .collect(),
            );
            println!(
                "  {n}t: {:.0}/s ({ratio:.2}x {}t), {:.2} per sync",
                median(runs[i].iter().map(|r| r.0).collect()),
                threads[0],
                median(runs[i].iter().map(|r| r.1).collect()),
            );
        }
    }
}
