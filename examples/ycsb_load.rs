//! The harness's YCSB load for cellbase, alone: `records` rows of 10 qualifiers
//! (`field0`..`field9`, 100 B values) in family `family`, rows `user` + FNV-hashed record
//! number, `Durability::SyncWal`, 64 MiB memstore flush size and block cache, 4 KiB blocks, no
//! compression, on a real temporary directory. Prints records/s, the longest put, write
//! amplification (bytes appended through the file system / user bytes, split by log, block
//! files and manifest), the peak resident set and memstore total (sampled every 10 ms), and
//! every block file written (flushes and compaction outputs). The global memstore bound is
//! 128 MiB, as in the harness (RocksDB's two write buffers of 64 MiB); 0 turns it off.
//!
//! ```text
//! cargo run --release --example ycsb_load [records=200000] [background_threads=2] [wal_segment_mib=64] [global_memstore_mib=128]
//! # instructions per record (no background threads: flushes run inline, no compactions):
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*ycsb_load::load*' \
//!     target/release/examples/ycsb_load 20000 0
//! ```
use cellbase::testing::io::{
    FileKind, FileLock, FileSystem, ReadAtFile, ReadableFile, StdFs, WritableFile,
};
use cellbase::{Compression, Db, DbOptions, Durability, FamilyDescriptor, Put, TableDescriptor};
use parking_lot::Mutex;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

static WAL_BYTES: AtomicU64 = AtomicU64::new(0);
static SST_BYTES: AtomicU64 = AtomicU64::new(0);
static OTHER_BYTES: AtomicU64 = AtomicU64::new(0);

/// Block files created: (seconds since start, path), sizes looked up at the end.
static SSTS: Mutex<Vec<(f64, PathBuf, Arc<AtomicU64>)>> = Mutex::new(Vec::new());
static START: Mutex<Option<Instant>> = Mutex::new(None);

fn is_sst(p: &Path) -> bool {
    p.parent()
        .and_then(|d| d.file_name())
        .is_some_and(|n| n == "data")
}
fn is_wal(p: &Path) -> bool {
    p.parent()
        .and_then(|d| d.file_name())
        .is_some_and(|n| n == "wal")
}

#[derive(Debug)]
struct Counting(StdFs);
struct F {
    inner: Box<dyn WritableFile>,
    counter: &'static AtomicU64,
    size: Option<Arc<AtomicU64>>,
}
impl WritableFile for F {
    fn append(&mut self, d: &[u8]) -> io::Result<()> {
        self.counter.fetch_add(d.len() as u64, Ordering::Relaxed);
        if let Some(s) = &self.size {
            s.fetch_add(d.len() as u64, Ordering::Relaxed);
        }
        self.inner.append(d)
    }
    fn sync_data(&mut self) -> io::Result<()> {
        self.inner.sync_data()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn preallocate(&mut self, len: u64) -> io::Result<()> {
        self.inner.preallocate(len)
    }
}
fn wrap(p: &Path, inner: Box<dyn WritableFile>) -> Box<dyn WritableFile> {
    let (counter, size) = if is_sst(p) {
        let size = Arc::new(AtomicU64::new(0));
        let t = START.lock().map_or(0.0, |s| s.elapsed().as_secs_f64());
        SSTS.lock().push((t, p.to_path_buf(), size.clone()));
        (&SST_BYTES, Some(size))
    } else if is_wal(p) {
        (&WAL_BYTES, None)
    } else {
        (&OTHER_BYTES, None)
    };
    Box::new(F {
        inner,
        counter,
        size,
    })
}
impl FileSystem for Counting {
    fn create_dir_all(&self, p: &Path) -> io::Result<()> {
        self.0.create_dir_all(p)
    }
    fn create(&self, p: &Path) -> io::Result<Box<dyn WritableFile>> {
        Ok(wrap(p, self.0.create(p)?))
    }
    fn open_append(&self, p: &Path) -> io::Result<Box<dyn WritableFile>> {
        Ok(wrap(p, self.0.open_append(p)?))
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

const FIELDS: [&str; 10] = [
    "field0", "field1", "field2", "field3", "field4", "field5", "field6", "field7", "field8",
    "field9",
];

/// YCSB `Utils.fnvhash64`.
fn fnvhash64(mut val: i64) -> i64 {
    let mut h: i64 = 0xCBF2_9CE4_8422_2325u64 as i64;
    for _ in 0..8 {
        let octet = val & 0xff;
        val >>= 8;
        h ^= octet;
        h = h.wrapping_mul(1_099_511_628_211);
    }
    h.wrapping_abs()
}

/// The harness's value source: a 1 MiB random printable buffer sliced at moving offsets.
struct Values {
    buf: Vec<u8>,
    pos: usize,
}
impl Values {
    fn new(seed: u64) -> Values {
        let mut s = seed ^ 0x5DEE_CE66_D1CE_4E5B;
        let mut next = || {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let buf = (0..1 << 20)
            .map(|_| b' ' + ((next() as u128 * 95) >> 64) as u8)
            .collect();
        Values { buf, pos: 0 }
    }
    fn next(&mut self, len: usize) -> &[u8] {
        if self.pos + len > self.buf.len() {
            self.pos = 0;
        }
        let s = &self.buf[self.pos..self.pos + len];
        self.pos += len;
        s
    }
}

struct Stats {
    /// The five longest puts: (duration, seconds since start when it began, record).
    top: Vec<(Duration, f64, u64)>,
    max_put: Duration,
    max_at: u64,
    over_10ms: u64,
    over_100ms: u64,
    user_bytes: u64,
}

/// The measured phase: `n` record inserts.
#[inline(never)]
fn load(t: &cellbase::Table, n: u64, st: &mut Stats) {
    let mut vals = Values::new(42 ^ 1);
    let mut fields = vec![Vec::new(); FIELDS.len()];
    for k in 0..n {
        for f in fields.iter_mut() {
            f.clear();
            f.extend_from_slice(vals.next(100));
        }
        let key = format!("user{}", fnvhash64(k as i64));
        st.user_bytes += key.len() as u64 + 10 * 106;
        let t0 = Instant::now();
        let mut p = Put::new(key.as_bytes());
        for (i, v) in fields.iter().enumerate() {
            p = p.add("family", FIELDS[i], v);
        }
        t.put(p).unwrap();
        let d = t0.elapsed();
        if st.top.len() < 5 || d > st.top[4].0 {
            let at = START.lock().map_or(0.0, |s| (t0 - s).as_secs_f64());
            st.top.push((d, at, k));
            st.top.sort_by_key(|t| std::cmp::Reverse(t.0));
            st.top.truncate(5);
        }
        if d > st.max_put {
            st.max_put = d;
            st.max_at = k;
        }
        st.over_10ms += u64::from(d > Duration::from_millis(10));
        st.over_100ms += u64::from(d > Duration::from_millis(100));
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(200_000);
    let bg: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2);
    // Optional: the log's segment size in MiB (default 64, the database default).
    let wal_mb: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(64);
    let global_mb: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(128);
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with_fs(
        dir.path(),
        DbOptions::default()
            .durability(Durability::SyncWal)
            .block_cache_size(64 << 20)
            .memstore_flush_size(64 << 20)
            .global_memstore_size(global_mb << 20)
            .background_threads(bg)
            .wal_segment_size(wal_mb << 20),
        Arc::new(Counting(StdFs)),
    )
    .unwrap();
    if std::env::var_os("NO_SPLIT").is_some() {
        db.set_split_enabled(false);
    }
    let t = db
        .create_table(
            TableDescriptor::new("usertable").family(
                FamilyDescriptor::new("family")
                    .compression(Compression::None)
                    .block_size(4 << 10),
            ),
        )
        .unwrap();
    let base = (
        WAL_BYTES.load(Ordering::Relaxed),
        SST_BYTES.load(Ordering::Relaxed),
        OTHER_BYTES.load(Ordering::Relaxed),
    );
    let mut st = Stats {
        top: Vec::new(),
        max_put: Duration::ZERO,
        max_at: 0,
        over_10ms: 0,
        over_100ms: 0,
        user_bytes: 0,
    };
    *START.lock() = Some(Instant::now());
    let sampling = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let sampler = {
        let (db, sampling) = (db.clone(), sampling.clone());
        std::thread::spawn(move || {
            let (mut rss, mut mem) = (0, 0);
            while sampling.load(Ordering::Relaxed) {
                rss = rss.max(resident_kib());
                mem = mem.max(db.metrics().memstore_bytes);
                std::thread::sleep(Duration::from_millis(10));
            }
            (rss, mem)
        })
    };
    let start = Instant::now();
    load(&t, n, &mut st);
    let secs = start.elapsed().as_secs_f64();
    let m = db.metrics();
    let files_at_end = m.store_files;
    println!(
        "blocked writes {} ({:.1} ms waiting in all), delayed writes {} ({:.1} ms asleep)",
        m.blocked_writes,
        m.blocked_nanos as f64 / 1e6,
        m.delayed_writes,
        m.delayed_nanos as f64 / 1e6
    );
    sampling.store(false, Ordering::Relaxed);
    let (peak_rss_kib, peak_mem) = sampler.join().unwrap();
    drop(t);
    let tc = Instant::now();
    db.close().unwrap();
    let close_secs = tc.elapsed().as_secs_f64();
    let wal = WAL_BYTES.load(Ordering::Relaxed) - base.0;
    let sst = SST_BYTES.load(Ordering::Relaxed) - base.1;
    let other = OTHER_BYTES.load(Ordering::Relaxed) - base.2;
    let u = st.user_bytes as f64;
    println!(
        "{n} records, {bg} bg threads: {:.1} k records/s ({secs:.2} s), close {close_secs:.2} s",
        n as f64 / secs / 1e3
    );
    println!(
        "peak RSS {:.1} MiB, peak memstore total {:.1} MiB (sampled every 10 ms during the load)",
        peak_rss_kib as f64 / 1024.0,
        peak_mem as f64 / (1 << 20) as f64
    );
    println!(
        "longest put {:.1} ms (record {}), puts > 10 ms: {}, > 100 ms: {}",
        st.max_put.as_secs_f64() * 1e3,
        st.max_at,
        st.over_10ms,
        st.over_100ms
    );
    for (d, at, k) in &st.top {
        println!(
            "  put of record {k} at {at:.3} s: {:.1} ms",
            d.as_secs_f64() * 1e3
        );
    }
    println!(
        "write amp {:.2} (log {:.2}, block files {:.2}, other {:.3}); store files at end of load: {files_at_end}",
        (wal + sst + other) as f64 / u,
        wal as f64 / u,
        sst as f64 / u,
        other as f64 / u
    );
    for (at, p, size) in SSTS.lock().iter() {
        println!(
            "  file {} created at {at:.2} s: {:.1} MB",
            p.file_name().unwrap().to_string_lossy(),
            size.load(Ordering::Relaxed) as f64 / 1e6
        );
    }
}

/// The process's resident set (`VmRSS`), KiB; 0 where `/proc` is missing.
fn resident_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}
