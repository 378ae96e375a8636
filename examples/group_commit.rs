//! Group commit through `Table::put` on a simulated device: an in-memory filesystem whose
//! `fdatasync` sleeps a fixed time (default 1 ms), so the result shows what the write path
//! serializes, free of the machine's disk noise. Prints FsyncWal puts/s of distinct rows into
//! one region from 1 and 8 threads.
//!
//! ```text
//! cargo run --release --example group_commit [sync-micros] [seconds]
//! ```

use cellbase::io::{FileLock, FileSystem, MemFs, ReadableFile, WritableFile};
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
}

fn run(threads: usize, delay: Duration, secs: f64) -> f64 {
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
    next.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64()
}

/// The WAL alone on the same device.
fn run_wal(threads: usize, delay: Duration, secs: f64) -> f64 {
    use cellbase::wal::{Wal, WalOptions, WalSync};
    let fs = Arc::new(SlowSync {
        inner: MemFs::new(),
        delay,
    });
    fs.create_dir_all(Path::new("/wal")).unwrap();
    let wal = Wal::create(fs, "/wal".into(), 1, WalOptions::default()).unwrap();
    let next = AtomicU64::new(1);
    let stop = AtomicBool::new(false);
    let payload = [5u8; 140];
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
    let n = next.load(Ordering::Relaxed) - 1;
    println!(
        "  WAL alone, {threads} threads: {n} appends, {} fdatasyncs",
        wal.sync_count()
    );
    n as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let us: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let secs: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(3.0);
    let delay = Duration::from_micros(us);
    let one = run(1, delay, secs);
    let eight = run(8, delay, secs);
    let (w1, w8) = (run_wal(1, delay, secs), run_wal(8, delay, secs));
    println!(
        "WAL alone, fdatasync {us} us: 1 thread {w1:.0} appends/s, 8 threads {w8:.0} appends/s ({:.2}x)",
        w8 / w1
    );
    println!(
        "fdatasync {us} us: 1 thread {one:.0} puts/s, 8 threads {eight:.0} puts/s ({:.2}x)",
        eight / one
    );
}
