//! A fixed read workload for instruction counts of the read path (docs/PERFORMANCE.md, "Read
//! path"). Run under callgrind, collecting only the measured phase:
//!
//! ```text
//! cargo build --profile bench --example readprof
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*readprof::measure*' \
//!     target/release/examples/readprof point
//! ```
//!
//! Modes: `point` (100 k rows of one 100 B cell: rows 0..50 k flushed to a file, 50 k..100 k in
//! the memstore, every 4th row overwritten in the memstore; 20 k Gets of existing rows),
//! `ycsb` (20 k rows x 10 qualifiers x 100 B, half flushed; 10 k whole-row Gets),
//! `seek` (the `point` data; 5 k scans of 10 rows from random keys),
//! `ycsbe` (the `ycsb` data; 2 k scans of 1..100 rows),
//! `memrow` (the `ycsb` data; 10 k whole-row Gets of rows in the memstore half, as YCSB D's
//! reads of recent inserts: the file's Bloom filter answers no),
//! `missing` (200 k rows of one 100 B cell in 8 flushed files of 25 k rows each, key ranges
//! overlapping; 20 k Gets of absent rows: each probes the 8 files' Bloom filters, ~240 KiB in
//! all, and reads nothing; run with callgrind's `--cache-sim=yes` to count the cache lines the
//! probes touch),
//! `hot` (the `ycsb` data, then 20 k one-field updates in the memstore skewed to a few hot
//! rows, as YCSB F's read-modify-writes leave them; 10 k whole-row Gets with the same skew).
//! `ycsb4k` and `ycsbe4k` are `ycsb` and `ycsbe` with the workload harness's 4 KiB blocks and
//! a 1 MiB block cache, so that most block reads miss the cache as in the harness's YCSB runs
//! (1 M records against a 64 MiB cache). Prints operations and rows read.

use cellbase::{Db, DbOptions, Durability, FamilyDescriptor, Get, Put, Scan, TableDescriptor};
use std::hint::black_box;

fn key(i: u64) -> Vec<u8> {
    format!("{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).into_bytes()
}

fn ycsb_key(i: u64) -> Vec<u8> {
    format!("user{:016}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 8).into_bytes()
}

fn open(small_blocks: bool) -> (Db, cellbase::Table) {
    let mut options = DbOptions::default()
        .durability(Durability::SkipWal)
        .background_threads(0);
    let mut family = FamilyDescriptor::new("f");
    if small_blocks {
        options = options.block_cache_size(1 << 20);
        family = family.block_size(4096);
    }
    let db = Db::temporary_with(options).unwrap();
    let t = db
        .create_table(TableDescriptor::new("b").family(family))
        .unwrap();
    (db, t)
}

fn load_point(t: &cellbase::Table) -> u64 {
    const N: u64 = 100_000;
    for i in 0..N {
        if i == N / 2 {
            t.flush().unwrap();
        }
        t.put(Put::new(key(i)).add("f", "q", [7u8; 100])).unwrap();
    }
    for i in (0..N).step_by(4) {
        t.put(Put::new(key(i)).add("f", "q", [8u8; 100])).unwrap();
    }
    N
}

fn load_ycsb(t: &cellbase::Table) -> u64 {
    const N: u64 = 20_000;
    for i in 0..N {
        if i == N / 2 {
            t.flush().unwrap();
        }
        let mut p = Put::new(ycsb_key(i));
        for q in 0..10 {
            p = p.add("f", format!("field{q}"), [b'a' + q as u8; 100]);
        }
        t.put(p).unwrap();
    }
    N
}

fn load_files(t: &cellbase::Table) -> u64 {
    const N: u64 = 200_000;
    for i in 0..N {
        t.put(Put::new(key(i)).add("f", "q", [7u8; 100])).unwrap();
        if (i + 1) % (N / 8) == 0 {
            t.flush().unwrap();
        }
    }
    N
}

/// A row index skewed like a zipfian: half the draws hit 8 hot rows.
fn hot_row(r: &mut Rng, n: u64) -> u64 {
    if r.next(2) == 0 { r.next(8) } else { r.next(n) }
}

/// Updates one field of skewed rows, in the memstore (YCSB F's read-modify-write shape).
fn update_hot(t: &cellbase::Table, n: u64) {
    let mut r = Rng(7);
    for _ in 0..20_000 {
        let q = r.next(10);
        t.put(Put::new(ycsb_key(hot_row(&mut r, n))).add("f", format!("field{q}"), [b'z'; 100]))
            .unwrap();
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

#[inline(never)]
fn measure(mode: &str, t: &cellbase::Table, n: u64) -> (u64, u64) {
    let mut r = Rng(42);
    let (mut ops, mut rows) = (0u64, 0u64);
    match mode {
        "point" => {
            for _ in 0..20_000 {
                let res = t.get(Get::new(key(r.next(n)))).unwrap();
                rows += u64::from(!res.is_empty());
                black_box(res);
                ops += 1;
            }
        }
        "ycsb" => {
            for _ in 0..10_000 {
                let res = t.get(Get::new(ycsb_key(r.next(n)))).unwrap();
                rows += u64::from(res.cells().len() == 10);
                black_box(res);
                ops += 1;
            }
        }
        "missing" => {
            for _ in 0..20_000 {
                // Keys of `key(i)` for i >= n: never written.
                let res = t.get(Get::new(key(n + r.next(1 << 40)))).unwrap();
                rows += u64::from(!res.is_empty());
                black_box(res);
                ops += 1;
            }
        }
        "memrow" => {
            for _ in 0..10_000 {
                let res = t.get(Get::new(ycsb_key(n / 2 + r.next(n / 2)))).unwrap();
                rows += u64::from(res.cells().len() == 10);
                black_box(res);
                ops += 1;
            }
        }
        "seek" => {
            for _ in 0..5_000 {
                let s = Scan::new().start_row(key(r.next(n))).limit(10);
                for r in t.scan(s).unwrap() {
                    black_box(r.unwrap());
                    rows += 1;
                }
                ops += 1;
            }
        }
        "hot" => {
            for _ in 0..10_000 {
                let res = t.get(Get::new(ycsb_key(hot_row(&mut r, n)))).unwrap();
                rows += u64::from(res.cells().len() == 10);
                black_box(res);
                ops += 1;
            }
        }
        "ycsbe" => {
            for _ in 0..2_000 {
                let len = 1 + r.next(100);
                let s = Scan::new().start_row(ycsb_key(r.next(n))).limit(len);
                for r in t.scan(s).unwrap() {
                    black_box(r.unwrap());
                    rows += 1;
                }
                ops += 1;
            }
        }
        _ => panic!("mode: point | ycsb | memrow | missing | seek | ycsbe | hot"),
    }
    (ops, rows)
}

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "point".into());
    let small_blocks = arg.ends_with("4k");
    let mode = arg.trim_end_matches("4k").to_string();
    let (_db, t) = open(small_blocks);
    let n = if ["ycsb", "ycsbe", "hot", "memrow"].contains(&mode.as_str()) {
        load_ycsb(&t)
    } else if mode == "missing" {
        load_files(&t)
    } else {
        load_point(&t)
    };
    if mode == "hot" {
        update_hot(&t, n);
    }
    let (ops, rows) = measure(&mode, &t, n);
    println!("{arg}: {ops} ops, {rows} rows");
}
