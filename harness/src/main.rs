//! Workload harness: cellbase against RocksDB, fjall and sled with identical operation streams.
//!
//! `cellbase-harness run` runs every (engine, workload) pair in a child process of this same
//! binary (so peak RSS, write bytes and open time are per engine and workload), then writes
//! report.md, report.json and SVG charts into `--out`. See README.md.

mod cgroup;
mod engines;
mod measure;
mod report;
mod streams;

use clap::{Parser, Subcommand};
use engines::{Config, FIELDS, Res};
use measure::{Stats, dir_bytes, parallel, peak_rss_mb, proc_io};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;
use streams::{
    KeyChooser, Rng, ScrambledZipfian, Values, Zipfian, bench_key, missing_key, ycsb_key,
};

#[derive(Parser)]
#[command(about = "cellbase vs RocksDB, fjall and sled: db_bench-style and YCSB A-F")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Runs the selected workloads on the selected engines and writes the report.
    Run(RunArgs),
    /// (internal) Runs one workload on one engine and prints its result as JSON.
    Child(ChildArgs),
    /// Re-renders report.md and the charts from an output directory's report.json.
    Report {
        /// The output directory of an earlier run.
        #[arg(long)]
        out: PathBuf,
    },
}

#[derive(Parser, Clone, Debug, Serialize, Deserialize)]
struct Common {
    /// db_bench-style key count N (16 B keys, 100 B values).
    #[arg(long, default_value_t = 5_000_000)]
    num: u64,
    /// Writes of the fillsync workloads (default N / 1000, at least 2000).
    #[arg(long)]
    sync_ops: Option<u64>,
    /// Gets of readrandom, readrandom-2t and readmissing, as db_bench's `--reads` (default
    /// N); seekrandom seeks a tenth of it. Keys are still drawn from all N, so a large N with
    /// fewer reads (the larger-than-memory run) still reads the whole key space.
    #[arg(long)]
    #[serde(default)]
    reads: Option<u64>,
    /// YCSB record count.
    #[arg(long, default_value_t = 1_000_000)]
    records: u64,
    /// YCSB operations per workload (default = records).
    #[arg(long)]
    ops: Option<u64>,
    /// Seed of every operation stream (each workload derives its own from it).
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Block cache size for every engine, MiB.
    #[arg(long, default_value_t = 64)]
    cache_mb: u64,
    /// Memtable / write buffer size for every engine, MiB.
    #[arg(long, default_value_t = 64)]
    memtable_mb: u64,
    /// Background (flush/compaction) threads for every engine.
    #[arg(long, default_value_t = 2)]
    background_threads: usize,
    /// cellbase's data block size, KiB. Default 4 KiB: the block size RocksDB and fjall use
    /// by default, so every engine reads the same amount per block (cellbase's own family
    /// default is HBase's 64 KiB).
    #[arg(long, default_value_t = 4)]
    cellbase_block_kb: u32,
    /// Block compression of cellbase and RocksDB, by HBase's name: NONE, SNAPPY, GZ, LZ4,
    /// ZSTD (LZO is taken as LZ4, BZIP2 as GZ). RocksDB gets the same codec (GZ = its zlib
    /// compression); each library runs at its default level. fjall and sled run uncompressed
    /// whatever this says.
    #[arg(long, default_value = "NONE")]
    #[serde(default = "no_compression")]
    compression: String,
    /// Fraction of each 100-byte value that is random, as db_bench's `--compression_ratio`:
    /// the rest repeats the random part, so a codec can shrink values to about this fraction
    /// (1.0 = every byte random printable ASCII, as the harness's values were before this
    /// option). Every engine gets the same values.
    #[arg(long, default_value_t = 0.5)]
    #[serde(default = "all_random")]
    compression_ratio: f64,
    /// Memory limit of each engine's processes, MiB, page cache included (0 = none): each
    /// engine runs all its workloads in its own memory cgroup (v2 `memory.max` or v1
    /// `memory.limit_in_bytes`, no swap), so reads go to storage once the data set is larger.
    /// Needs root (or a delegated cgroup). The report then adds read bytes per operation and
    /// block cache hit rates.
    #[arg(long, default_value_t = 0)]
    #[serde(default)]
    memory_limit_mib: u64,
}

fn no_compression() -> String {
    "NONE".into()
}

/// Reports written before `--compression-ratio` existed had fully random values.
fn all_random() -> f64 {
    1.0
}

impl Common {
    fn sync_ops(&self) -> u64 {
        self.sync_ops.unwrap_or((self.num / 1000).max(2000))
    }
    fn reads(&self) -> u64 {
        self.reads.unwrap_or(self.num)
    }
    fn ops(&self) -> u64 {
        self.ops.unwrap_or(self.records)
    }
    fn config(&self) -> Config {
        Config {
            cache_bytes: self.cache_mb << 20,
            memtable_bytes: self.memtable_mb << 20,
            background_threads: self.background_threads,
            cellbase_block_kb: self.cellbase_block_kb,
            compression: self.compression.clone(),
            statistics: self.memory_limit_mib > 0,
        }
    }
}

#[derive(Parser)]
struct RunArgs {
    /// Engines, comma-separated.
    #[arg(
        long,
        default_value = "cellbase,rocksdb,fjall,sled",
        value_delimiter = ','
    )]
    engines: Vec<String>,
    /// Workloads, comma-separated (`all`, `dbbench`, `ycsb`, or names; `compact` runs only when
    /// named).
    #[arg(long, default_value = "all", value_delimiter = ',')]
    workloads: Vec<String>,
    /// Output directory (report files; engine data under OUT/data, removed after each engine).
    #[arg(long, default_value = "harness-out")]
    out: PathBuf,
    #[command(flatten)]
    common: Common,
}

#[derive(Parser)]
struct ChildArgs {
    #[arg(long)]
    engine: String,
    #[arg(long)]
    workload: String,
    #[arg(long)]
    data: PathBuf,
    #[arg(long, default_value_t = 0)]
    insert_start: u64,
    #[command(flatten)]
    common: Common,
}

/// The db_bench-style workloads, in run order. The reads with the suffix `-fr` read the state
/// `fillrandom` leaves (its first open is the crash recovery); the others read the state
/// `overwrite` leaves, so each read is measured on both (issue 27).
pub const DBBENCH: [&str; 13] = [
    "fillseq",
    "fillrandom",
    "readrandom-fr",
    "readseq-fr",
    "seekrandom-fr",
    "overwrite",
    "readrandom",
    "readrandom-2t",
    "readmissing",
    "readseq",
    "seekrandom",
    "fillsync-1t",
    "fillsync-8t",
];
/// Workloads run only when named: `compact` (the memtable written out and every file
/// rewritten into one sorted run, as db_bench's `compact`; one operation, timed).
pub const EXTRA: [&str; 1] = ["compact"];
/// The YCSB workloads, in run order (YCSB's recommended order: load, A, B, C, F, D, E).
pub const YCSB: [&str; 7] = [
    "ycsb-load",
    "ycsb-a",
    "ycsb-b",
    "ycsb-c",
    "ycsb-f",
    "ycsb-d",
    "ycsb-e",
];

/// One (engine, workload) measurement.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(default)]
pub struct RunResult {
    /// Engine name.
    pub engine: String,
    /// Workload name.
    pub workload: String,
    /// Client threads.
    pub threads: usize,
    /// Operations completed.
    pub ops: u64,
    /// Wall seconds of the measured phase.
    pub secs: f64,
    /// Operations per second.
    pub ops_per_sec: f64,
    /// Latency percentiles, microseconds (0 when not measured per operation).
    pub p50_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// 99.9th percentile.
    pub p999_us: f64,
    /// Longest single operation.
    pub max_us: f64,
    /// Longest write (the longest write stall), microseconds.
    pub max_write_us: f64,
    /// Key+value bytes the workload wrote.
    pub user_bytes: u64,
    /// Bytes the process wrote to storage (/proc/self/io write_bytes - cancelled).
    pub disk_write_bytes: u64,
    /// Bytes passed to write syscalls (/proc/self/io wchar).
    pub wchar: u64,
    /// wchar / user_bytes (0 for read-only workloads).
    pub write_amp: f64,
    /// Bytes of the data directory afterwards.
    pub disk_bytes: u64,
    /// Live key+value bytes of the data set afterwards.
    pub logical_bytes: u64,
    /// disk_bytes / logical_bytes.
    pub space_amp: f64,
    /// Peak resident set of the child process, MiB (VmHWM).
    pub peak_rss_mb: f64,
    /// Time to open the engine (recovery when the previous run crashed), milliseconds.
    pub open_ms: f64,
    /// Reads that found their key (or scan entries).
    pub found: u64,
    /// YCSB: next insert key number after the run.
    pub insert_next: u64,
    /// Bytes the process read from storage during the measured phase (/proc/self/io
    /// read_bytes: page cache misses; open and close excluded).
    pub read_bytes: u64,
    /// read_bytes / ops: storage bytes read per operation (read amplification).
    pub read_bytes_per_op: f64,
    /// Block cache hits during the measured phase, where the engine counts them (cellbase:
    /// `Db::metrics`; RocksDB: data-block tickers, with `--memory-limit-mib` only).
    pub cache_hits: Option<u64>,
    /// Block cache misses during the measured phase (same engines).
    pub cache_misses: Option<u64>,
    /// cache_hits / (hits + misses); `None` when not counted or no lookup happened.
    pub cache_hit_rate: Option<f64>,
}

fn main() -> std::process::ExitCode {
    // Silent unless RUST_LOG names something (the report must not change with logging off).
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("off")).init();
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Run(a) => run(a),
        Cmd::Child(a) => child(a),
        Cmd::Report { out } => rerender(&out),
    };
    match r {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn expand(ws: &[String]) -> Res<Vec<String>> {
    let mut out = Vec::new();
    for w in ws {
        match w.as_str() {
            "all" => out.extend(DBBENCH.iter().chain(YCSB.iter()).map(|s| s.to_string())),
            "dbbench" => out.extend(DBBENCH.iter().map(|s| s.to_string())),
            "ycsb" => out.extend(YCSB.iter().map(|s| s.to_string())),
            n if DBBENCH.contains(&n) || YCSB.contains(&n) || EXTRA.contains(&n) => {
                out.push(n.to_string())
            }
            n => return Err(format!("unknown workload {n:?}").into()),
        }
    }
    Ok(out)
}

fn rerender(out: &Path) -> Res<()> {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json"))?)?;
    let c: Common = serde_json::from_value(v["parameters"].clone())?;
    let rs: Vec<RunResult> = serde_json::from_value(v["results"].clone())?;
    let mut engines: Vec<String> = Vec::new();
    let mut workloads: Vec<String> = Vec::new();
    for r in &rs {
        if !engines.contains(&r.engine) {
            engines.push(r.engine.clone());
        }
        if !workloads.contains(&r.workload) {
            workloads.push(r.workload.clone());
        }
    }
    report::write(out, &c, &c.config(), &engines, &workloads, &rs)?;
    eprintln!("report: {}", out.join("report.md").display());
    Ok(())
}

fn run(a: RunArgs) -> Res<()> {
    let workloads = expand(&a.workloads)?;
    if !(0.0..=1.0).contains(&a.common.compression_ratio) {
        return Err("--compression-ratio must be between 0 and 1".into());
    }
    cellbase::Compression::from_hbase_name(&a.common.compression)?;
    for e in &a.engines {
        if !engines::ENGINES.contains(&e.as_str()) {
            return Err(format!("unknown engine {e:?}").into());
        }
    }
    std::fs::create_dir_all(&a.out)?;
    let exe = std::env::current_exe()?;
    let cfg = a.common.config();
    eprintln!("configuration: {cfg:?}");
    for e in &a.engines {
        eprintln!("  {e}: {}", engines::describe(e, &cfg));
    }
    let mut results: Vec<RunResult> = Vec::new();
    // Workloads outer, engines inner: each workload runs for every engine back to back, so a
    // change in the machine's background load over a long run shifts every engine's figures
    // of a workload alike instead of one engine's whole series (each engine keeps its own
    // data directory and YCSB insert sequence).
    let data_of = |e: &str| a.out.join("data").join(e);
    let mut insert_next: std::collections::BTreeMap<&str, u64> = Default::default();
    // Runs whose child failed (exited non-zero or printed no result): the other runs go on
    // and the report is written, but the harness then exits non-zero.
    let mut failed: Vec<String> = Vec::new();
    // With --memory-limit-mib: one cgroup per engine for all its workloads, removed (after
    // the children have exited) when `cgroups` is dropped, on error paths too.
    let cgroups = cgroup::Cgroups::for_engines(&a.engines, a.common.memory_limit_mib)?;
    for e in &a.engines {
        let data = data_of(e);
        let _ = std::fs::remove_dir_all(&data);
        std::fs::create_dir_all(&data)?;
        insert_next.insert(e, a.common.records);
    }
    let own = a.common.cache_mb + 2 * a.common.memtable_mb;
    if a.common.memory_limit_mib > 0 && own >= a.common.memory_limit_mib {
        eprintln!(
            "warning: block cache + two memtables = {own} MiB, not below --memory-limit-mib {}: \
             expect the OOM killer (lower --cache-mb / --memtable-mb)",
            a.common.memory_limit_mib
        );
    }
    for w in &workloads {
        for e in &a.engines {
            let data = data_of(e);
            let c = &a.common;
            let mut cmd = cgroup::child_command(&exe, cgroups.get(e));
            cmd.arg("child")
                .args(["--engine", e, "--workload", w])
                .arg("--data")
                .arg(&data)
                .args(["--insert-start", &insert_next[e.as_str()].to_string()])
                .args(["--num", &c.num.to_string()])
                .args(["--sync-ops", &c.sync_ops().to_string()])
                .args(["--reads", &c.reads().to_string()])
                .args(["--records", &c.records.to_string()])
                .args(["--ops", &c.ops().to_string()])
                .args(["--seed", &c.seed.to_string()])
                .args(["--cache-mb", &c.cache_mb.to_string()])
                .args(["--memtable-mb", &c.memtable_mb.to_string()])
                .args(["--background-threads", &c.background_threads.to_string()]);
            cmd.args(["--cellbase-block-kb", &c.cellbase_block_kb.to_string()]);
            cmd.args(["--compression", &c.compression]);
            cmd.args(["--compression-ratio", &c.compression_ratio.to_string()]);
            cmd.args(["--memory-limit-mib", &c.memory_limit_mib.to_string()]);
            // Write back what earlier runs left dirty in the page cache first, so that no run
            // pays for another engine's write-back (fdatasync latency suffers most).
            let _ = std::process::Command::new("sync").status();
            eprint!("{e:>9} {w:<14} ... ");
            let out = cmd.stderr(std::process::Stdio::inherit()).output()?;
            let text = String::from_utf8_lossy(&out.stdout);
            let line = text.lines().find_map(|l| l.strip_prefix("RESULT "));
            match line.filter(|_| out.status.success()) {
                Some(l) => {
                    let r: RunResult = serde_json::from_str(l)?;
                    eprintln!(
                        "{:>12.0} ops/s  p99 {:>8.1} us  rss {:>6.1} MiB",
                        r.ops_per_sec, r.p99_us, r.peak_rss_mb
                    );
                    if w.starts_with("ycsb") {
                        insert_next.insert(e, r.insert_next);
                    }
                    results.push(r);
                }
                None => {
                    let why = if out.status.success() {
                        "no RESULT line".to_string()
                    } else if cgroups.get(e).is_some() && out.status.code().is_none() {
                        // Killed by a signal: under a memory limit most likely the OOM killer.
                        format!("{}, memory limit {} MiB", out.status, c.memory_limit_mib)
                    } else {
                        out.status.to_string()
                    };
                    eprintln!("FAILED ({why})");
                    failed.push(format!("{e} {w} ({why})"));
                }
            }
            // Write the partial report after every run: a long run can be inspected early.
            report::write(&a.out, &a.common, &cfg, &a.engines, &workloads, &results)?;
        }
    }
    for e in &a.engines {
        let _ = std::fs::remove_dir_all(data_of(e));
    }
    cgroups.remove()?;
    eprintln!("report: {}", a.out.join("report.md").display());
    if !failed.is_empty() {
        return Err(format!(
            "{} of {} runs failed: {}",
            failed.len(),
            workloads.len() * a.engines.len(),
            failed.join(", ")
        )
        .into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------

fn seed_of(base: u64, workload: &str) -> u64 {
    workload.bytes().fold(base ^ 0xA076_1D64_78BD_642F, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01B3)
    })
}

/// Distinct keys written by fillrandom (and overwrite) for N: the same streams the runs use.
fn distinct_random_keys(num: u64, seed: u64, with_overwrite: bool) -> u64 {
    let mut seen = vec![false; num as usize];
    let mut mark = |w: &str| {
        let mut rng = Rng::new(seed_of(seed, w).wrapping_add(0));
        for _ in 0..num {
            seen[rng.below(num) as usize] = true;
        }
    };
    mark("fillrandom");
    if with_overwrite {
        mark("overwrite");
    }
    seen.iter().filter(|b| **b).count() as u64
}

fn ycsb_logical(records: u64) -> u64 {
    (0..records)
        .map(|k| ycsb_key(k).len() as u64 + (FIELDS.len() as u64) * 106)
        .sum()
}

fn child(a: ChildArgs) -> Res<()> {
    let c = &a.common;
    let cfg = c.config();
    let w = a.workload.as_str();
    let seed = seed_of(c.seed, w);
    let ratio = c.compression_ratio;
    let sub = match w {
        "fillseq" => "seq",
        "fillsync-1t" => "sync1",
        "fillsync-8t" => "sync8",
        w if w.starts_with("ycsb") => "ycsb",
        _ => "random",
    };
    let dir = a.data.join(sub);
    let fresh = matches!(
        w,
        "fillseq" | "fillrandom" | "fillsync-1t" | "fillsync-8t" | "ycsb-load"
    );
    if fresh {
        let _ = std::fs::remove_dir_all(&dir);
    }
    std::fs::create_dir_all(&dir)?;
    let io0 = proc_io();
    let t_open = Instant::now();
    let db = engines::open(&a.engine, &dir, &cfg, w.starts_with("ycsb"))?;
    let open_ms = t_open.elapsed().as_secs_f64() * 1e3;
    let kv = (16 + 100) as u64;
    let num = c.num;
    // The reads named `-fr` read the state `fillrandom` left, before `overwrite`.
    let after_overwrite = !w.ends_with("-fr");
    // The measured phase's storage reads and block cache lookups: from here to the end of
    // the operations (open and close excluded).
    let run_io0 = proc_io();
    let cache0 = db.cache_counts();

    let mut r = RunResult {
        engine: a.engine.clone(),
        workload: w.to_string(),
        threads: 1,
        open_ms,
        insert_next: a.insert_start,
        ..Default::default()
    };
    let mut per_op_latency = true;
    let (stats, elapsed) = match w {
        "fillseq" => {
            r.ops = num;
            r.user_bytes = num * kv;
            r.logical_bytes = num * kv;
            parallel(&*db, 1, seed, ratio, |db, _, _, v, st| {
                for i in 0..num {
                    let t = Instant::now();
                    db.put(&bench_key(i), v.next(100), false)?;
                    st.record(t, true);
                }
                Ok(())
            })?
        }
        "fillrandom" | "overwrite" => {
            r.ops = num;
            r.user_bytes = num * kv;
            r.logical_bytes = distinct_random_keys(num, c.seed, w == "overwrite") * kv;
            parallel(&*db, 1, seed, ratio, |db, _, rng, v, st| {
                for _ in 0..num {
                    let k = bench_key(rng.below(num));
                    let t = Instant::now();
                    db.put(&k, v.next(100), false)?;
                    st.record(t, true);
                }
                Ok(())
            })?
        }
        "readrandom" | "readrandom-fr" | "readrandom-2t" | "readmissing" => {
            let threads = if w == "readrandom-2t" { 2 } else { 1 };
            r.threads = threads;
            r.logical_bytes = distinct_random_keys(num, c.seed, after_overwrite) * kv;
            let per = c.reads() / threads as u64;
            r.ops = per * threads as u64;
            let missing = w == "readmissing";
            parallel(&*db, threads, seed, ratio, |db, _, rng, _, st| {
                for _ in 0..per {
                    let k = rng.below(num);
                    let key = if missing {
                        missing_key(k)
                    } else {
                        bench_key(k)
                    };
                    let t = Instant::now();
                    let f = db.get(&key)?;
                    st.record(t, false);
                    st.found += u64::from(f.is_some());
                }
                Ok(())
            })?
        }
        "readseq" | "readseq-fr" => {
            per_op_latency = false;
            r.logical_bytes = distinct_random_keys(num, c.seed, after_overwrite) * kv;
            let res = parallel(&*db, 1, seed, ratio, |db, _, _, _, st| {
                st.found = db.scan_all()? as u64;
                Ok(())
            })?;
            r.ops = res.0.found;
            res
        }
        "compact" => {
            per_op_latency = false;
            r.ops = 1;
            r.logical_bytes = distinct_random_keys(num, c.seed, true) * kv;
            parallel(&*db, 1, seed, ratio, |db, _, _, _, _| db.compact_all())?
        }
        "seekrandom" | "seekrandom-fr" => {
            let ops = (c.reads() / 10).max(1);
            r.ops = ops;
            r.logical_bytes = distinct_random_keys(num, c.seed, after_overwrite) * kv;
            parallel(&*db, 1, seed, ratio, |db, _, rng, _, st| {
                for _ in 0..ops {
                    let key = bench_key(rng.below(num));
                    let t = Instant::now();
                    st.found += db.scan(&key, 11)? as u64;
                    st.record(t, false);
                }
                Ok(())
            })?
        }
        "fillsync-1t" | "fillsync-8t" => {
            let threads = if w == "fillsync-8t" { 8 } else { 1 };
            r.threads = threads;
            let per = c.sync_ops() / threads as u64;
            r.ops = per * threads as u64;
            r.user_bytes = r.ops * kv;
            r.logical_bytes = r.ops * kv;
            parallel(&*db, threads, seed, ratio, |db, t, _, v, st| {
                for i in 0..per {
                    let k = bench_key(i * threads as u64 + t as u64);
                    let tm = Instant::now();
                    db.put(&k, v.next(100), true)?;
                    st.record(tm, true);
                }
                Ok(())
            })?
        }
        "ycsb-load" => {
            let n = c.records;
            r.ops = n;
            r.logical_bytes = ycsb_logical(n);
            r.user_bytes = r.logical_bytes;
            r.insert_next = n;
            parallel(&*db, 1, seed, ratio, |db, _, _, v, st| {
                let mut fields = vec![Vec::new(); FIELDS.len()];
                for k in 0..n {
                    for f in fields.iter_mut() {
                        f.clear();
                        f.extend_from_slice(v.next(100));
                    }
                    let key = ycsb_key(k);
                    let t = Instant::now();
                    db.rec_insert(key.as_bytes(), &fields)?;
                    st.record(t, true);
                }
                Ok(())
            })?
        }
        _ if w.starts_with("ycsb-") => {
            let (read, update, insert, scan, rmw, dist) = match w {
                "ycsb-a" => (0.5, 0.5, 0.0, 0.0, 0.0, "zipfian"),
                "ycsb-b" => (0.95, 0.05, 0.0, 0.0, 0.0, "zipfian"),
                "ycsb-c" => (1.0, 0.0, 0.0, 0.0, 0.0, "zipfian"),
                "ycsb-d" => (0.95, 0.0, 0.05, 0.0, 0.0, "latest"),
                "ycsb-e" => (0.0, 0.0, 0.05, 0.95, 0.0, "zipfian"),
                "ycsb-f" => (0.5, 0.0, 0.0, 0.0, 0.5, "zipfian"),
                _ => return Err(format!("unknown workload {w:?}").into()),
            };
            let _ = (scan, rmw);
            let ops = c.ops();
            let start = a.insert_start; // records present before the run
            let expected_new = (ops as f64 * insert * 2.0) as u64;
            let mut chooser = match dist {
                "zipfian" => KeyChooser::Zipfian(ScrambledZipfian::new(0, start + expected_new)),
                _ => KeyChooser::Latest(Zipfian::new(0, start - 1, streams::ZIPFIAN_CONSTANT)),
            };
            r.ops = ops;
            let next_insert = std::cell::Cell::new(start);
            let user = std::cell::Cell::new(0u64);
            // One client thread: the key chooser and insert sequence are shared state.
            let mut rng = Rng::new(seed);
            let mut vals = Values::new(seed ^ 1, c.compression_ratio);
            let mut stats = Stats::new();
            let begin = Instant::now();
            {
                let (db, rng, v, st) = (&*db, &mut rng, &mut vals, &mut stats);
                let mut fields = vec![Vec::new(); FIELDS.len()];
                for _ in 0..ops {
                    let p = rng.f64();
                    let last = next_insert.get() - 1;
                    // YCSB's DiscreteGenerator order: read, update, insert, scan, rmw.
                    if p < read {
                        let key = ycsb_key(chooser.next(rng, last));
                        let t = Instant::now();
                        st.found += u64::from(db.rec_read(key.as_bytes())? > 0);
                        st.record(t, false);
                    } else if p < read + update {
                        let key = ycsb_key(chooser.next(rng, last));
                        let f = rng.below(FIELDS.len() as u64) as usize;
                        let val = v.next(100).to_vec();
                        user.set(user.get() + key.len() as u64 + 106);
                        let t = Instant::now();
                        db.rec_update(key.as_bytes(), f, &val)?;
                        st.record(t, true);
                    } else if p < read + update + insert {
                        let k = next_insert.get();
                        next_insert.set(k + 1);
                        let key = ycsb_key(k);
                        for f in fields.iter_mut() {
                            f.clear();
                            f.extend_from_slice(v.next(100));
                        }
                        user.set(user.get() + key.len() as u64 + 1060);
                        let t = Instant::now();
                        db.rec_insert(key.as_bytes(), &fields)?;
                        st.record(t, true);
                    } else if p < read + update + insert + scan {
                        let key = ycsb_key(chooser.next(rng, last));
                        let len = rng.below(100) as usize + 1;
                        let t = Instant::now();
                        st.found += db.rec_scan(key.as_bytes(), len)? as u64;
                        st.record(t, false);
                    } else {
                        let key = ycsb_key(chooser.next(rng, last));
                        let f = rng.below(FIELDS.len() as u64) as usize;
                        let val = v.next(100).to_vec();
                        user.set(user.get() + key.len() as u64 + 106);
                        let t = Instant::now();
                        st.found += u64::from(db.rec_read(key.as_bytes())? > 0);
                        db.rec_update(key.as_bytes(), f, &val)?;
                        st.record(t, true);
                    }
                }
            }
            let res = (stats, begin.elapsed());
            r.insert_next = next_insert.get();
            r.user_bytes = user.get();
            r.logical_bytes = ycsb_logical(r.insert_next);
            res
        }
        _ => return Err(format!("unknown workload {w:?}").into()),
    };
    let run_io1 = proc_io();
    r.read_bytes = run_io1.read_bytes.saturating_sub(run_io0.read_bytes);
    r.read_bytes_per_op = r.read_bytes as f64 / r.ops.max(1) as f64;
    if let (Some((h0, m0)), Some((h1, m1))) = (cache0, db.cache_counts()) {
        let (h, m) = (h1.saturating_sub(h0), m1.saturating_sub(m0));
        r.cache_hits = Some(h);
        r.cache_misses = Some(m);
        r.cache_hit_rate = (h + m > 0).then(|| h as f64 / (h + m) as f64);
    }
    r.secs = elapsed.as_secs_f64();
    r.ops_per_sec = r.ops as f64 / r.secs.max(1e-9);
    r.found = stats.found;
    if per_op_latency {
        let h = &stats.hist;
        r.p50_us = h.value_at_quantile(0.50) as f64 / 1e3;
        r.p99_us = h.value_at_quantile(0.99) as f64 / 1e3;
        r.p999_us = h.value_at_quantile(0.999) as f64 / 1e3;
        r.max_us = h.max() as f64 / 1e3;
    }
    r.max_write_us = stats.max_write_ns as f64 / 1e3;
    let crash = w == "fillrandom";
    if crash {
        // Leave without closing: the next run (overwrite) measures recovery.
        db.sync_to_os()?;
    } else {
        drop(db);
    }
    let io1 = proc_io();
    r.disk_write_bytes =
        (io1.write_bytes - io0.write_bytes).saturating_sub(io1.cancelled - io0.cancelled);
    r.wchar = io1.wchar - io0.wchar;
    if r.user_bytes > 0 {
        r.write_amp = r.wchar as f64 / r.user_bytes as f64;
    }
    r.disk_bytes = dir_bytes(&dir);
    if r.logical_bytes > 0 {
        r.space_amp = r.disk_bytes as f64 / r.logical_bytes as f64;
    }
    r.peak_rss_mb = peak_rss_mb();
    println!("RESULT {}", serde_json::to_string(&r)?);
    use std::io::Write;
    std::io::stdout().flush()?;
    if crash {
        std::process::exit(0);
    }
    Ok(())
}
