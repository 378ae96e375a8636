//! Group commit through `Table::put` on the real disk: FsyncWal puts of distinct rows (16 B
//! keys, 100 B values) from 1, 2, 4 and 8 threads, counting the log's fdatasyncs and their
//! duration, so puts per sync show how well writers share syncs. Every run opens a fresh
//! database in a temporary directory under /tmp; the thread counts alternate within a round and
//! the rounds repeat, and the summary prints medians (the disk is shared and noisy).
//!
//! ```text
//! cargo run --release --example group_commit_disk [seconds] [rounds] [threads...]
//! cargo run --release --example group_commit_disk --ops 2000 [rounds] [threads...]
//! ```
//!
//! `--ops N` runs like the harness's fillsync workloads: N puts split evenly over the threads,
//! timed from spawning the threads to joining them (default: 1 second per run, 5 rounds,
//! threads 1 2 4 8).
use cellbase::testing::io::{
    FileKind, FileLock, FileSystem, ReadAtFile, ReadableFile, StdFs, WritableFile,
};
use cellbase::{Db, DbOptions, Durability, FamilyDescriptor, Put, TableDescriptor};
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
static SYNCS: AtomicU64 = AtomicU64::new(0);
static SYNC_NS: AtomicU64 = AtomicU64::new(0);
/// Every fdatasync's duration in microseconds, for the percentiles of a run.
static SYNC_US: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());
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
        let ns = t.elapsed().as_nanos() as u64;
        SYNC_NS.fetch_add(ns, Ordering::Relaxed);
        SYNC_US.lock().unwrap().push((ns / 1000) as u32);
        r
    }
    fn len(&self) -> u64 {
        self.0.len()
    }
    fn preallocate(&mut self, len: u64) -> io::Result<()> {
        self.0.preallocate(len)
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
    fn open_read_at(&self, p: &Path) -> io::Result<Box<dyn ReadAtFile>> {
        self.0.open_read_at(p)
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
    fn lock_dir(&self, d: &Path) -> io::Result<Box<dyn FileLock>> {
        self.0.lock_dir(d)
    }
    fn kind(&self, p: &Path) -> io::Result<FileKind> {
        self.0.kind(p)
    }
    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.0.hard_link(from, to)
    }
    fn lock_held(&self, p: &Path) -> bool {
        self.0.lock_held(p)
    }
}
struct Run {
    puts_per_sec: f64,
    puts_per_sync: f64,
    avg_sync_us: f64,
    /// Median and 90th percentile fdatasync duration.
    p50_sync_us: f64,
    p90_sync_us: f64,
    /// fdatasyncs that took over 1 ms, and their total time (ms): on this shared machine,
    /// 8-thread runs have bursts of 2-4 ms syncs that 1-thread runs do not have.
    slow_syncs: usize,
    slow_sync_ms: f64,
    /// Wall time per fdatasync: the sync itself plus the time the log was not syncing.
    cycle_us: f64,
}

fn run(threads: usize, secs: f64, ops: Option<u64>) -> Run {
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
    SYNC_US.lock().unwrap().clear();
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let per_thread = ops.map(|n| n / threads as u64);
    let put = |i: u64| {
        let key = format!("{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        t.put(Put::new(key).add("f", "q", [7u8; 100])).unwrap();
    };
    let start = Instant::now();
    std::thread::scope(|s| {
        for n in 0..threads {
            let (next, stop, put) = (&next, &stop, &put);
            s.spawn(move || match per_thread {
                Some(per) => {
                    for i in 0..per {
                        put(i * threads as u64 + n as u64);
                    }
                    next.fetch_add(per, Ordering::Relaxed);
                }
                None => {
                    while !stop.load(Ordering::Relaxed) {
                        put(next.fetch_add(1, Ordering::Relaxed));
                    }
                }
            });
        }
        if per_thread.is_none() {
            std::thread::sleep(Duration::from_secs_f64(secs));
            stop.store(true, Ordering::Relaxed);
        }
    });
    let el = start.elapsed().as_secs_f64();
    let n = next.load(Ordering::Relaxed) as f64;
    let s = SYNCS.load(Ordering::Relaxed) as f64;
    let mut us = std::mem::take(&mut *SYNC_US.lock().unwrap());
    us.sort_unstable();
    let pct = |p: usize| us.get(us.len() * p / 100).copied().unwrap_or(0) as f64;
    Run {
        puts_per_sec: n / el,
        puts_per_sync: n / s.max(1.0),
        avg_sync_us: SYNC_NS.load(Ordering::Relaxed) as f64 / 1000.0 / s.max(1.0),
        p50_sync_us: pct(50),
        p90_sync_us: pct(90),
        slow_syncs: us.iter().filter(|&&u| u > 1000).count(),
        slow_sync_ms: us
            .iter()
            .filter(|&&u| u > 1000)
            .fold(0.0, |a, &u| a + u as f64 / 1000.0),
        cycle_us: el * 1e6 / s.max(1.0),
    }
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
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut ops = None;
    if args.first().map(String::as_str) == Some("--ops") {
        ops = Some(args[1].parse().expect("--ops N"));
        args.drain(..2);
    }
    let mut it = args.into_iter();
    let secs: f64 = match ops {
        Some(_) => 0.0,
        None => it.next().map_or(1.0, |a| a.parse().expect("seconds")),
    };
    let rounds: usize = it.next().map_or(5, |a| a.parse().expect("rounds"));
    let mut threads: Vec<usize> = it.map(|a| a.parse().expect("threads")).collect();
    if threads.is_empty() {
        threads = vec![1, 2, 4, 8];
    }
    let mut runs: Vec<Vec<Run>> = threads.iter().map(|_| Vec::new()).collect();
    for round in 0..rounds {
        for (i, &n) in threads.iter().enumerate() {
            let r = run(n, secs, ops);
            println!(
                "round {round} {n}t: {:.0} puts/s, {:.2} puts/sync, avg sync {:.0} us (p50 {:.0}, p90 {:.0}), cycle {:.0} us, {} syncs > 1 ms ({:.1} ms)",
                r.puts_per_sec,
                r.puts_per_sync,
                r.avg_sync_us,
                r.p50_sync_us,
                r.p90_sync_us,
                r.cycle_us,
                r.slow_syncs,
                r.slow_sync_ms
            );
            runs[i].push(r);
        }
    }
    println!("medians over {rounds} rounds:");
    for (i, &n) in threads.iter().enumerate() {
        let rs = &runs[i];
        // The ratio to the first thread count is taken per round (side by side), then the median.
        let ratio = median(
            rs.iter()
                .zip(&runs[0])
                .map(|(r, base)| r.puts_per_sec / base.puts_per_sec)
                .collect(),
        );
        println!(
            "{n}t: {:.0} puts/s ({ratio:.2}x {}t), {:.2} puts/sync, avg sync {:.0} us (p50 {:.0}), cycle {:.0} us",
            median(rs.iter().map(|r| r.puts_per_sec).collect()),
            threads[0],
            median(rs.iter().map(|r| r.puts_per_sync).collect()),
            median(rs.iter().map(|r| r.avg_sync_us).collect()),
            median(rs.iter().map(|r| r.p50_sync_us).collect()),
            median(rs.iter().map(|r| r.cycle_us).collect()),
        );
    }
}
