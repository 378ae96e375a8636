//! DATA_BLOCK_ENCODING NONE against FAST_DIFF (docs/PERFORMANCE.md, "Data block encoding"):
//! block-file bytes of two tables, and fixed Get and scan workloads for callgrind instruction
//! counts (`benches/callgrind_ops.sh` with `ENCODINGS=1` runs them).
//!
//! ```text
//! cargo run --release --example block_encoding sizes
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='block_encoding::measure_get' \
//!     target/release/examples/block_encoding get FAST_DIFF
//! ```
//!
//! The tables (one family `f`, flushed and major-compacted into one block file, 64 KiB blocks,
//! no compression; a `ManualClock` advanced 1 ms per write, as a steady stream of writes):
//!
//! - `ycsb`: 20,000 rows (`user` + 12 scrambled digits) of ten columns `field0`..`field9` of
//!   100-byte values, each row written by one Put (one timestamp and sequence id per row).
//! - `counter`: 1,000 counters (`counter` + 6 digits) of one column, 100 versions each of an
//!   8-byte value (`VERSIONS => 100`), written round by round.
//!
//! Modes: `sizes` prints both tables' block-file bytes for both encodings; `get ENC` measures
//! 20,000 Gets of random `ycsb` rows (ten cells each) and `scan ENC` 1,000 scans of 100 rows,
//! with every block in the block cache (read once before).

use cellbase::inspect::BlockFile;
use cellbase::{
    DataBlockEncoding, Db, DbOptions, FamilyDescriptor, Get, ManualClock, Put, Scan, Table,
    TableDescriptor,
};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

const ROWS: u64 = 20_000;
const GETS: u64 = 20_000;
const SCANS: u64 = 1_000;
const SCAN_ROWS: u64 = 100;
const COUNTERS: u64 = 1_000;
const VERSIONS: u32 = 100;

fn row(i: u64) -> Vec<u8> {
    format!(
        "user{:012}",
        i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % 1_000_000_000_000
    )
    .into_bytes()
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

fn open(dir: &Path, family: FamilyDescriptor) -> (Db, Table, ManualClock) {
    let clock = ManualClock::new(1_700_000_000_000);
    let db = Db::open_with(
        dir,
        DbOptions::default()
            .background_threads(0)
            .clock(clock.clone()),
    )
    .unwrap();
    let t = db
        .create_table(TableDescriptor::new("t").family(family))
        .unwrap();
    (db, t, clock)
}

fn ycsb(dir: &Path, e: DataBlockEncoding) -> (Db, Table) {
    let (db, t, clock) = open(dir, FamilyDescriptor::new("f").data_block_encoding(e));
    for i in 0..ROWS {
        let mut p = Put::new(row(i));
        for q in 0..10u8 {
            p = p.add("f", format!("field{q}"), [b'a' + q; 100]);
        }
        t.put(p).unwrap();
        clock.advance(Duration::from_millis(1));
    }
    t.flush().unwrap();
    t.major_compact().unwrap();
    (db, t)
}

fn counters(dir: &Path, e: DataBlockEncoding) -> (Db, Table) {
    let (db, t, clock) = open(
        dir,
        FamilyDescriptor::new("f")
            .data_block_encoding(e)
            .max_versions(VERSIONS),
    );
    for v in 0..u64::from(VERSIONS) {
        for c in 0..COUNTERS {
            t.put(Put::new(format!("counter{c:06}")).add("f", "n", (v * 7 + c).to_be_bytes()))
                .unwrap();
            clock.advance(Duration::from_millis(1));
        }
    }
    t.flush().unwrap();
    t.major_compact().unwrap();
    (db, t)
}

/// Block files' bytes and their data blocks' uncompressed bytes.
fn file_bytes(dir: &Path) -> (u64, u64, u64) {
    let (mut file, mut raw, mut cells) = (0, 0, 0);
    for e in std::fs::read_dir(dir.join("data")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "sst") {
            let f = BlockFile::open(&p).unwrap();
            file += f.info().file_size;
            raw += f.info().raw_data_bytes;
            cells += f.info().cells;
        }
    }
    (file, raw, cells)
}

fn encoding(arg: Option<String>) -> DataBlockEncoding {
    DataBlockEncoding::from_hbase_name(&arg.unwrap_or_default())
        .expect("an encoding: NONE or FAST_DIFF")
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
    let (mut ops, mut cells) = (0, 0);
    for s in scans {
        for r in t.scan(s).unwrap() {
            cells += black_box(r.unwrap()).cells().len() as u64;
        }
        ops += 1;
    }
    (ops, cells)
}

/// Every row read once, outside the measured functions: all blocks in the cache.
#[inline(never)]
fn warm(t: &Table) -> u64 {
    t.scan(Scan::new())
        .unwrap()
        .map(|r| r.unwrap().cells().len() as u64)
        .sum()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_default();
    let dir = tempfile::tempdir().unwrap();
    match mode.as_str() {
        "sizes" => {
            println!("| table | encoding | cells | block file bytes | data block bytes |");
            println!("|---|---|---:|---:|---:|");
            for (name, load) in [
                ("ycsb", ycsb as fn(&Path, DataBlockEncoding) -> (Db, Table)),
                ("counter", counters),
            ] {
                for e in [DataBlockEncoding::None, DataBlockEncoding::FastDiff] {
                    let sub = dir.path().join(format!("{name}-{}", e.hbase_name()));
                    let (db, _t) = load(&sub, e);
                    db.close().unwrap();
                    let (file, raw, cells) = file_bytes(&sub);
                    println!("| {name} | {} | {cells} | {file} | {raw} |", e.hbase_name());
                }
            }
        }
        "get" | "scan" => {
            let e = encoding(args.next());
            // The measured operations are built before the database opens (stable heap
            // addresses between runs, as in examples/callgrind_ops.rs).
            let mut r = Rng(42);
            let gets: Vec<Get> = (0..GETS).map(|_| Get::new(row(r.next(ROWS)))).collect();
            let mut sorted: Vec<Vec<u8>> = (0..ROWS).map(row).collect();
            sorted.sort_unstable();
            let scans: Vec<Scan> = (0..SCANS)
                .map(|_| {
                    let start = &sorted[r.next(ROWS - SCAN_ROWS) as usize];
                    Scan::new().start_row(start).limit(SCAN_ROWS)
                })
                .collect();
            let (_db, t) = ycsb(dir.path(), e);
            assert_eq!(warm(&t), ROWS * 10);
            let (ops, cells) = if mode == "get" {
                measure_get(&t, gets)
            } else {
                measure_scan(&t, scans)
            };
            let expect = if mode == "get" {
                GETS * 10
            } else {
                SCANS * SCAN_ROWS * 10
            };
            assert_eq!(cells, expect);
            println!("{mode}: {ops} ops, {cells} cells, {}", e.hbase_name());
        }
        _ => panic!("mode: sizes | get NONE|FAST_DIFF | scan NONE|FAST_DIFF"),
    }
}
