//! Fixed workloads for callgrind instruction counts of four operations through the public API
//! only (so the same file builds against every commit being compared: `benches/callgrind_ops.sh
//! REV` copies it into a worktree of REV before building).
//!
//! ```text
//! cargo build --release --example callgrind_ops
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='callgrind_ops::measure_put' \
//!     target/release/examples/callgrind_ops put
//! ```
//!
//! Every mode: one table, one family `f`, rows of one 100-byte cell (`f:q`) under 16-byte keys
//! (`{:016x}` of i * 0x9E3779B97F4A7C15, i < 20,000), a `ManualClock` (fixed timestamps), no
//! background threads. The operations are built before the measured function and consumed by
//! it, so the count is the engine's cost per call (argument drop and result drop included) plus
//! a loop. They are built at the start, before the database is opened, so that their heap
//! addresses do not depend on the engine's randomly seeded hash tables (glibc's memcmp costs a
//! few instructions more when an operand sits in the last 32 bytes of a page). Each mode runs a
//! warm-up outside the measured function first.
//!
//! - `put`: `Durability::SyncWal`; 1,000 warm-up puts, then 20,000 measured puts of new rows.
//! - `memget`: 20,000 rows in the memstore (nothing flushed); 20,000 Gets of random existing rows.
//! - `fileget`: the rows flushed and major-compacted to one block file (memstore empty; the
//!   file fits the default block cache and is read once before); 20,000 Gets as `memget`.
//! - `scan`: the `fileget` data; 2,000 scans of exactly 100 rows from random existing rows.
//! - `memscan`: the `memget` data; the same 2,000 scans.
//! - `runscan`: the rows written in key order and flushed every 2,500 rows, so the store holds 8
//!   block files of disjoint row ranges (a sequential load; nothing compacted); the same 2,000
//!   scans, each crossing at most one file boundary.
//!
//! Prints the mode, the number of measured operations and the rows/cells they returned.

use cellbase::{
    Db, DbOptions, Durability, FamilyDescriptor, Get, ManualClock, Put, Scan, Table,
    TableDescriptor,
};
use std::hint::black_box;

const ROWS: u64 = 20_000;
const GETS: u64 = 20_000;
const SCANS: u64 = 2_000;
const SCAN_ROWS: u64 = 100;
const WARM_PUTS: u64 = 1_000;

fn key(i: u64) -> Vec<u8> {
    format!("{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).into_bytes()
}

fn put(i: u64) -> Put {
    Put::new(key(i)).add("f", "q", [7u8; 100])
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

fn open(d: Durability) -> (Db, Table) {
    let options = DbOptions::default()
        .durability(d)
        .background_threads(0)
        .clock(ManualClock::new(1_700_000_000_000));
    let db = Db::temporary_with(options).unwrap();
    let t = db
        .create_table(TableDescriptor::new("b").family(FamilyDescriptor::new("f")))
        .unwrap();
    (db, t)
}

fn load(t: &Table) {
    for i in 0..ROWS {
        t.put(put(i)).unwrap();
    }
}

fn gets(seed: u64) -> Vec<Get> {
    let mut r = Rng(seed);
    (0..GETS).map(|_| Get::new(key(r.next(ROWS)))).collect()
}

fn scans(seed: u64) -> Vec<Scan> {
    let mut sorted: Vec<Vec<u8>> = (0..ROWS).map(key).collect();
    sorted.sort_unstable();
    let mut r = Rng(seed);
    (0..SCANS)
        .map(|_| {
            let start = &sorted[r.next(ROWS - SCAN_ROWS) as usize];
            Scan::new().start_row(start).limit(SCAN_ROWS)
        })
        .collect()
}

#[inline(never)]
fn measure_put(t: &Table, puts: Vec<Put>) -> (u64, u64) {
    let mut ops = 0;
    for p in puts {
        t.put(p).unwrap();
        ops += 1;
    }
    (ops, ops)
}

#[inline(never)]
fn measure_get(t: &Table, gets: Vec<Get>) -> (u64, u64) {
    let (mut ops, mut cells) = (0, 0);
    for g in gets {
        let res = t.get(g).unwrap();
        cells += res.cells().len() as u64;
        black_box(res);
        ops += 1;
    }
    (ops, cells)
}

#[inline(never)]
fn measure_scan(t: &Table, scans: Vec<Scan>) -> (u64, u64) {
    let (mut ops, mut rows) = (0, 0);
    for s in scans {
        for r in t.scan(s).unwrap() {
            black_box(r.unwrap());
            rows += 1;
        }
        ops += 1;
    }
    (ops, rows)
}

/// Same body as `measure_get`, a different symbol: the warm-up is not collected.
#[inline(never)]
fn warm_get(t: &Table, gets: Vec<Get>) -> u64 {
    let mut cells = 0;
    for g in gets {
        cells += t.get(g).unwrap().cells().len() as u64;
    }
    cells
}

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let (ops, out, expect, layout) = match mode.as_str() {
        "put" => {
            // The measured operations are built first, before anything whose heap use may
            // vary between runs (hash seeds), so their buffers' addresses repeat exactly.
            let puts: Vec<Put> = (0..ROWS).map(put).collect();
            let (_db, t) = open(Durability::SyncWal);
            for i in 0..WARM_PUTS {
                t.put(put(ROWS + i)).unwrap();
            }
            let (ops, n) = measure_put(&t, puts);
            (ops, n, ROWS, layout(&t))
        }
        "memget" | "fileget" => {
            let measured = gets(42);
            let (_db, t) = open(Durability::SkipWal);
            load(&t);
            if mode == "fileget" {
                t.flush().unwrap();
                t.major_compact().unwrap();
                let all: Vec<Get> = (0..ROWS).map(|i| Get::new(key(i))).collect();
                assert_eq!(warm_get(&t, all), ROWS);
            }
            assert_eq!(warm_get(&t, gets(7)), GETS);
            let (ops, cells) = measure_get(&t, measured);
            (ops, cells, GETS, layout(&t))
        }
        "scan" | "memscan" => {
            let measured = scans(42);
            let (_db, t) = open(Durability::SkipWal);
            load(&t);
            if mode == "scan" {
                t.flush().unwrap();
                t.major_compact().unwrap();
            }
            let warm: Vec<Get> = (0..ROWS).map(|i| Get::new(key(i))).collect();
            assert_eq!(warm_get(&t, warm), ROWS);
            let (ops, rows) = measure_scan(&t, measured);
            (ops, rows, SCANS * SCAN_ROWS, layout(&t))
        }
        "runscan" => {
            let measured = scans(42);
            let (_db, t) = open(Durability::SkipWal);
            let mut sorted: Vec<u64> = (0..ROWS).collect();
            sorted.sort_unstable_by_key(|&i| key(i));
            for (n, i) in sorted.into_iter().enumerate() {
                t.put(put(i)).unwrap();
                if (n as u64 + 1).is_multiple_of(ROWS / 8) {
                    t.flush().unwrap();
                }
            }
            let warm: Vec<Get> = (0..ROWS).map(|i| Get::new(key(i))).collect();
            assert_eq!(warm_get(&t, warm), ROWS);
            let (ops, rows) = measure_scan(&t, measured);
            (ops, rows, SCANS * SCAN_ROWS, layout(&t))
        }
        _ => panic!("mode: put | memget | fileget | scan | memscan | runscan"),
    };
    assert_eq!(out, expect, "{mode}: unexpected result count");
    println!("{mode}: {ops} ops, {out} cells/rows, layout {layout}");
}

/// Regions, block files and memstore bytes of the table, for the printout: `fileget` and
/// `scan` must show one region, one file and an empty memstore.
fn layout(t: &Table) -> String {
    let r = t.regions();
    let files: u32 = r.iter().map(|r| r.store_files).sum();
    let mem: u64 = r.iter().map(|r| r.memstore_bytes).sum();
    format!("regions={} files={files} memstore_bytes={mem}", r.len())
}
