//! Storage-core benchmarks: single-thread put throughput (SkipWal, SyncWal, FsyncWal), a 10-cell
//! put (YCSB load shape), multi-thread FsyncWal puts through `Table::put` (group commit end to
//! end), Get latency from the memstore and from block files, a batch of 1,000 random Gets as
//! `get_many` against 1,000 `get`s, scan throughput, and Gets and scans of 10-column rows in
//! block files of DATA_BLOCK_ENCODING NONE and FAST_DIFF side by side.
//!
//! Run: `cargo bench --bench core`. Figures are only comparable side by side within one run.

use cellbase::{
    DataBlockEncoding, Db, DbOptions, Durability, FamilyDescriptor, Get, Put, Scan, TableDescriptor,
};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const ROWS: u64 = 100_000;

fn key(i: u64) -> Vec<u8> {
    // Scrambled 16-byte keys (db_bench style).
    format!("{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).into_bytes()
}

fn open(durability: Durability) -> (Db, cellbase::Table) {
    let db = Db::temporary_with(
        DbOptions::default()
            .durability(durability)
            .background_threads(2),
    )
    .unwrap();
    let t = db
        .create_table(TableDescriptor::new("b").family(FamilyDescriptor::new("f")))
        .unwrap();
    (db, t)
}

fn puts(c: &mut Criterion) {
    let mut g = c.benchmark_group("put");
    g.throughput(Throughput::Elements(1));
    for d in [
        Durability::SkipWal,
        Durability::SyncWal,
        Durability::FsyncWal,
    ] {
        let (_db, t) = open(d);
        let mut i = 0u64;
        g.bench_function(format!("{d:?}"), |b| {
            b.iter(|| {
                i += 1;
                t.put(Put::new(key(i)).add("f", "q", [7u8; 100])).unwrap();
            })
        });
    }
    // YCSB load shape: one row of 10 qualifiers x 100 B.
    let (_db, t) = open(Durability::SkipWal);
    let mut i = 0u64;
    g.bench_function("SkipWal-10cells", |b| {
        b.iter(|| {
            i += 1;
            let mut p = Put::new(key(i));
            for q in 0..10u8 {
                p = p.add("f", [b'q', b'0' + q], [7u8; 100]);
            }
            t.put(p).unwrap();
        })
    });
    g.finish();
}

/// FsyncWal puts of distinct rows into one region from 1 and 8 threads: the group commit of the
/// whole write path (row lock, sequence id, WAL, memstore, MVCC), not only the WAL's.
fn put_threads(c: &mut Criterion) {
    let mut g = c.benchmark_group("put_threads");
    g.throughput(Throughput::Elements(1));
    g.measurement_time(Duration::from_secs(4));
    for threads in [1usize, 8] {
        let (_db, t) = open(Durability::FsyncWal);
        let next = AtomicU64::new(0);
        g.bench_function(format!("FsyncWal/{threads}t"), |b| {
            b.iter_custom(|iters| {
                let per = iters.div_ceil(threads as u64);
                let start = Instant::now();
                std::thread::scope(|s| {
                    for _ in 0..threads {
                        s.spawn(|| {
                            for _ in 0..per {
                                let i = next.fetch_add(1, Ordering::Relaxed);
                                t.put(Put::new(key(i)).add("f", "q", [7u8; 100])).unwrap();
                            }
                        });
                    }
                });
                // Time per put across all threads (throughput = puts/s).
                start
                    .elapsed()
                    .mul_f64(iters as f64 / (per * threads as u64) as f64)
            })
        });
    }
    g.finish();
}

fn loaded(flush: bool) -> (Db, cellbase::Table) {
    let (db, t) = open(Durability::SkipWal);
    for i in 0..ROWS {
        t.put(Put::new(key(i)).add("f", "q", [7u8; 100])).unwrap();
    }
    if flush {
        t.flush().unwrap();
        t.major_compact().unwrap();
    }
    (db, t)
}

fn gets(c: &mut Criterion) {
    let mut g = c.benchmark_group("get");
    g.throughput(Throughput::Elements(1));
    for (name, flush) in [("memstore", false), ("file", true)] {
        let (_db, t) = loaded(flush);
        let mut i = 0u64;
        g.bench_function(name, |b| {
            b.iter(|| {
                i = (i + 7919) % ROWS;
                black_box(t.get(Get::new(key(i))).unwrap());
            })
        });
        g.bench_function(format!("{name}-absent"), |b| {
            b.iter(|| {
                i += 1;
                black_box(t.get(Get::new(format!("absent{i}"))).unwrap());
            })
        });
    }
    g.finish();
}

/// 1,000 random keys of a flushed, compacted table: one `get_many` against a `get` each.
fn multi_gets(c: &mut Criterion) {
    const BATCH: u64 = 1_000;
    let mut g = c.benchmark_group("get_many");
    g.throughput(Throughput::Elements(BATCH));
    let (_db, t) = loaded(true);
    let mut x = 0x1234_5678u64;
    let mut batch = move || -> Vec<Get> {
        (0..BATCH)
            .map(|_| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                Get::new(key((x >> 33) % ROWS))
            })
            .collect()
    };
    // The same key sequence for both (the closure is `Copy`).
    let mut batch2 = batch;
    g.bench_function("1000-gets", |b| {
        b.iter_batched(
            &mut batch,
            |gets| {
                for get in gets {
                    black_box(t.get(get).unwrap());
                }
            },
            BatchSize::SmallInput,
        )
    });
    g.bench_function("get_many-1000", |b| {
        b.iter_batched(
            &mut batch2,
            |gets| black_box(t.get_many(gets).unwrap()),
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn scans(c: &mut Criterion) {
    let mut g = c.benchmark_group("scan");
    g.throughput(Throughput::Elements(ROWS));
    g.sample_size(10);
    for (name, flush) in [("memstore", false), ("file", true)] {
        let (_db, t) = loaded(flush);
        g.bench_function(name, |b| {
            b.iter_batched(
                || (),
                |_| assert_eq!(t.scan(Scan::new()).unwrap().count() as u64, ROWS),
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

/// YCSB-shaped rows (10 columns of 100 bytes, one Put each) flushed and major-compacted into
/// one block file of each encoding, every block in the block cache: a Get of a random row
/// and a scan of all rows. `cargo bench --bench core -- encoding`.
fn encodings(c: &mut Criterion) {
    const YCSB_ROWS: u64 = 20_000;
    let mut g = c.benchmark_group("encoding");
    let tables: Vec<_> = [DataBlockEncoding::None, DataBlockEncoding::FastDiff]
        .into_iter()
        .map(|e| {
            let db = Db::temporary_with(
                DbOptions::default()
                    .durability(Durability::SkipWal)
                    .background_threads(0),
            )
            .unwrap();
            let t = db
                .create_table(
                    TableDescriptor::new("b")
                        .family(FamilyDescriptor::new("f").data_block_encoding(e)),
                )
                .unwrap();
            for i in 0..YCSB_ROWS {
                let mut p = Put::new(key(i));
                for q in 0..10u8 {
                    p = p.add("f", format!("field{q}"), [b'a' + q; 100]);
                }
                t.put(p).unwrap();
            }
            t.flush().unwrap();
            t.major_compact().unwrap();
            // Every block into the cache.
            assert_eq!(t.scan(Scan::new()).unwrap().count() as u64, YCSB_ROWS);
            (e, db, t)
        })
        .collect();
    g.throughput(Throughput::Elements(1));
    for (e, _, t) in &tables {
        let mut i = 0u64;
        g.bench_function(format!("get-{}", e.hbase_name()), |b| {
            b.iter(|| {
                i = (i + 7919) % YCSB_ROWS;
                let r = t.get(Get::new(key(i))).unwrap();
                assert_eq!(r.cells().len(), 10);
                black_box(r);
            })
        });
    }
    g.throughput(Throughput::Elements(YCSB_ROWS));
    g.sample_size(10);
    for (e, _, t) in &tables {
        g.bench_function(format!("scan-{}", e.hbase_name()), |b| {
            b.iter(|| assert_eq!(t.scan(Scan::new()).unwrap().count() as u64, YCSB_ROWS))
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    puts,
    put_threads,
    gets,
    multi_gets,
    scans,
    encodings
);
criterion_main!(benches);
