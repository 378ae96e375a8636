//! What a child run measures: per-thread latency statistics and the timed parallel run, and
//! what the process reads about itself from /proc (its storage I/O counters, its peak resident
//! set), and the bytes of a data directory.

use crate::engines::{Engine, Res};
use crate::streams::{Rng, Values};
use hdrhistogram::Histogram;
use std::path::Path;
use std::time::{Duration, Instant};

/// The counters of /proc/self/io the harness uses (bytes since the process started).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Io {
    /// Bytes the process caused to be read from storage (`read_bytes`: page cache misses,
    /// not the bytes passed to read calls).
    pub read_bytes: u64,
    /// Bytes the process caused to be written to storage (`write_bytes`).
    pub write_bytes: u64,
    /// Written bytes that were truncated or deleted before write-back
    /// (`cancelled_write_bytes`).
    pub cancelled: u64,
    /// Bytes passed to write calls (`wchar`).
    pub wchar: u64,
}

/// Parses the text of /proc/PID/io; a field that is missing or not a number counts as 0.
pub fn parse_io(s: &str) -> Io {
    let field = |n: &str| {
        s.lines()
            .find_map(|l| l.strip_prefix(n))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(0)
    };
    Io {
        read_bytes: field("read_bytes:"),
        write_bytes: field("write_bytes:"),
        cancelled: field("cancelled_write_bytes:"),
        wchar: field("wchar:"),
    }
}

/// This process's I/O counters (all 0 where /proc/self/io cannot be read).
pub fn proc_io() -> Io {
    parse_io(&std::fs::read_to_string("/proc/self/io").unwrap_or_default())
}

/// Peak resident set of this process, MiB (VmHWM).
pub fn peak_rss_mb() -> f64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

/// Bytes of the files under `p`.
pub fn dir_bytes(p: &Path) -> u64 {
    let mut total = 0;
    if let Ok(rd) = std::fs::read_dir(p) {
        for e in rd.flatten() {
            match e.metadata() {
                Ok(m) if m.is_dir() => total += dir_bytes(&e.path()),
                Ok(m) => total += m.len(),
                Err(_) => {}
            }
        }
    }
    total
}

/// Per-thread measurements, merged after the run.
pub struct Stats {
    /// Latency of each operation, nanoseconds.
    pub hist: Histogram<u64>,
    /// Longest write, nanoseconds.
    pub max_write_ns: u64,
    /// Reads that found their key (or scan entries).
    pub found: u64,
}

impl Stats {
    /// Empty statistics.
    pub fn new() -> Stats {
        Stats {
            hist: Histogram::new_with_bounds(1, 60_000_000_000, 3).expect("histogram bounds"),
            max_write_ns: 0,
            found: 0,
        }
    }
    /// Records one operation started at `t`.
    pub fn record(&mut self, t: Instant, write: bool) {
        let ns = t.elapsed().as_nanos().min(u64::MAX as u128) as u64;
        self.hist.saturating_record(ns.max(1));
        if write {
            self.max_write_ns = self.max_write_ns.max(ns);
        }
    }
    /// Adds another thread's statistics.
    pub fn merge(&mut self, o: Stats) {
        let _ = self.hist.add(&o.hist);
        self.max_write_ns = self.max_write_ns.max(o.max_write_ns);
        self.found += o.found;
    }
}

/// Runs `per_thread` operations on each of `threads` threads; `op(engine, rng, values, stats)`.
pub fn parallel<F>(
    db: &dyn Engine,
    threads: usize,
    seed: u64,
    compression_ratio: f64,
    op: F,
) -> Res<(Stats, Duration)>
where
    F: Fn(&dyn Engine, usize, &mut Rng, &mut Values, &mut Stats) -> Res<()> + Sync,
{
    // Each thread builds its generators and histogram (a 1 MiB value buffer: milliseconds)
    // before the clock starts; all threads then start together at the barrier, so the time
    // covers the operations only (as db_bench starts its per-thread stats after setup).
    let ready = std::sync::Barrier::new(threads + 1);
    let mut start = Instant::now();
    let results: Vec<Res<Stats>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                let (op, ready) = (&op, &ready);
                s.spawn(move || -> Res<Stats> {
                    let mut rng = Rng::new(seed.wrapping_add(t as u64 * 7919));
                    let mut vals = Values::new(seed ^ (t as u64 + 1), compression_ratio);
                    let mut st = Stats::new();
                    ready.wait();
                    op(db, t, &mut rng, &mut vals, &mut st)?;
                    Ok(st)
                })
            })
            .collect();
        ready.wait();
        start = Instant::now();
        hs.into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("worker panicked".into())))
            .collect()
    });
    let elapsed = start.elapsed();
    let mut total = Stats::new();
    for r in results {
        total.merge(r?);
    }
    Ok((total, elapsed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_proc_self_io() {
        // The layout of /proc/PID/io (Documentation/filesystems/proc.rst).
        let text = "rchar: 323934931\nwchar: 323929600\nsyscr: 632687\nsyscw: 632675\n\
                    read_bytes: 4096\nwrite_bytes: 323932160\ncancelled_write_bytes: 8192\n";
        let io = parse_io(text);
        assert_eq!(
            io,
            Io {
                read_bytes: 4096,
                write_bytes: 323_932_160,
                cancelled: 8192,
                wchar: 323_929_600,
            }
        );
        // `write_bytes:` must not match inside `cancelled_write_bytes:`, nor `read_bytes:`
        // anything but its own line.
        let io = parse_io("cancelled_write_bytes: 5\nwrite_bytes: 7\n");
        assert_eq!((io.write_bytes, io.cancelled, io.read_bytes), (7, 5, 0));
        assert_eq!(parse_io(""), Io::default());
        assert_eq!(parse_io("read_bytes: x\n").read_bytes, 0);
    }

    #[test]
    fn reads_this_process() {
        // Present on every Linux kernel with task I/O accounting (the harness's platform).
        let s = std::fs::read_to_string("/proc/self/io").unwrap();
        assert!(s.contains("read_bytes:"), "{s}");
        assert!(peak_rss_mb() > 0.0);
    }
}
