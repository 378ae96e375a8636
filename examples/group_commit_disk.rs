//! Group commit through `Table::put` on the real disk: FsyncWal puts of distinct rows from 1
//! and 8 threads (twice, alternating), counting the log's fdatasyncs and their duration, so
//! puts per sync show how well writers share syncs. Data in a temporary directory under /tmp.
//!
//! ```text
//! cargo run --release --example group_commit_disk
//! ```
use cellbase::io::{FileLock, FileSystem, ReadableFile, StdFs, WritableFile};
use cellbase::{Db, DbOptions, Durability, FamilyDescriptor, Put, TableDescriptor};
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
static SYNCS: AtomicU64 = AtomicU64::new(0);
static SYNC_NS: AtomicU64 = AtomicU64::new(0);
#[derive(Debug)]
struct C(StdFs);
struct F(Box<dyn WritableFile>);
impl WritableFile for F {
    fn append(&mut self, d: &[u8]) -> io::Result<()> {
        self.0.append(d)
    }
    fn sync_data(&mut self) -> io::Result<()> {
        let t = Instant::now();
        let r = self.0.sync_data();
        SYNCS.fetch_add(1, Ordering::Relaxed);
        SYNC_NS.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
        r
    }
    fn len(&self) -> u64 {
        self.0.len()
    }
}
impl FileSystem for C {
    fn create_dir_all(&self, p: &Path) -> io::Result<()> {
        self.0.create_dir_all(p)
    }
    fn create(&self, p: &Path) -> io::Result<Box<dyn WritableFile>> {
        Ok(Box::new(F(self.0.create(p)?)))
    }
    fn open_append(&self, p: &Path) -> io::Result<Box<dyn WritableFile>> {
        Ok(Box::new(F(self.0.open_append(p)?)))
    }
    fn open_read(&self, p: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        self.0.open_read(p)
    }
    fn read_all(&self, p: &Path) -> io::Result<Vec<u8>> {
        self.0.read_all(p)
    }
    fn rename(&self, a: &Path, b: &Path) -> io::Result<()> {
        self.0.rename(a, b)
    }
    fn remove(&self, p: &Path) -> io::Result<()> {
        self.0.remove(p)
    }
    fn truncate(&self, p: &Path, l: u64) -> io::Result<()> {
        self.0.truncate(p, l)
    }
    fn list(&self, d: &Path) -> io::Result<Vec<String>> {
        self.0.list(d)
    }
    fn exists(&self, p: &Path) -> bool {
        self.0.exists(p)
    }
    fn sync_dir(&self, d: &Path) -> io::Result<()> {
        self.0.sync_dir(d)
    }
    fn lock(&self, p: &Path) -> io::Result<Box<dyn FileLock>> {
        self.0.lock(p)
    }
}
fn main() {
    for threads in [1usize, 8, 1, 8] {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open_with_fs(
            dir.path(),
            DbOptions::default().durability(Durability::FsyncWal),
            Arc::new(C(StdFs)),
        )
        .unwrap();
        let t = db
            .create_table(TableDescriptor::new("b").family(FamilyDescriptor::new("f")))
            .unwrap();
        SYNCS.store(0, Ordering::Relaxed);
        SYNC_NS.store(0, Ordering::Relaxed);
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
            std::thread::sleep(Duration::from_secs(2));
            stop.store(true, Ordering::Relaxed);
        });
        let n = next.load(Ordering::Relaxed) as f64;
        let el = start.elapsed().as_secs_f64();
        let s = SYNCS.load(Ordering::Relaxed) as f64;
        println!(
            "{threads}t: {:.0} puts/s, {:.0} syncs/s, {:.2} puts/sync, avg sync {:.0} us",
            n / el,
            s / el,
            n / s.max(1.0),
            SYNC_NS.load(Ordering::Relaxed) as f64 / 1000.0 / s.max(1.0)
        );
    }
}
