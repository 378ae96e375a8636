//! Component micro-benchmarks (issue 6): memstore insert and get, WAL append at each durability
//! with 1 and 8 threads, data block build and seek, Bloom probe, k-way merge, block-file point
//! read and scan, matcher throughput.
//!
//! Run: `cargo bench --bench components` (or `-- memstore` etc. to pick a group). Figures are
//! only comparable side by side within one run on one machine.

use cellbase::CellType;
use cellbase::FamilyDescriptor;
use cellbase::testing::io::{FileSystem, StdFs};
use cellbase::testing::memstore::{MemCursor, MemStore};
use cellbase::testing::model::CellCursor;
use cellbase::testing::model::{KeyRef, first_on_row};
use cellbase::testing::model::{PayloadRef, payload};
use cellbase::testing::read::MergeCursor;
use cellbase::testing::read::{ReadSpec, UserMatcher};
use cellbase::testing::sst::BlockBuilder;
use cellbase::testing::sst::{Block, BlockIter};
use cellbase::testing::sst::{BlockCache, CachePolicy, SstReader, SstWriter, SstWriterConfig};
use cellbase::testing::sst::{BloomBuilder, BloomFilter};
use cellbase::testing::wal::{Wal, WalOptions, WalSync};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// db_bench-style 16-byte row for `i`, scrambled so consecutive `i` are far apart.
fn row(i: u64) -> [u8; 16] {
    let mut out = [0u8; 16];
    let v = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for (k, b) in out.iter_mut().enumerate() {
        *b = b"0123456789abcdef"[((v >> (60 - 4 * k as u32)) & 15) as usize];
    }
    out
}

fn cell_key(row: &[u8], seq: u64) -> Vec<u8> {
    KeyRef {
        row,
        family: b"f",
        qualifier: b"q",
        ts: 1_700_000_000_000,
        type_code: CellType::Put.code(),
        seq,
    }
    .encode()
}

/// `n` cells with distinct rows, sorted.
fn sorted_cells(n: u64) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut rows: Vec<[u8; 16]> = (0..n).map(row).collect();
    rows.sort_unstable();
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            (
                cell_key(r, i as u64 + 1),
                payload::encode(None, &[7u8; 100]),
            )
        })
        .collect()
}

fn memstore(c: &mut Criterion) {
    let mut g = c.benchmark_group("memstore");
    g.throughput(Throughput::Elements(1));
    let val = payload::encode(None, &[7u8; 100]);
    let m = MemStore::new();
    let mut i = 0u64;
    g.bench_function("insert", |b| {
        b.iter(|| {
            i += 1;
            m.insert(&cell_key(&row(i), i), &val);
        })
    });
    let m = Arc::new(MemStore::new());
    const N: u64 = 200_000;
    for i in 0..N {
        m.insert(&cell_key(&row(i), i + 1), &val);
    }
    let mut cur = MemCursor::new(m.clone());
    let mut i = 0u64;
    g.bench_function("get", |b| {
        b.iter(|| {
            i = (i + 7919) % N;
            let r = row(i);
            cur.seek(&first_on_row(&r)).unwrap();
            assert!(cur.valid());
            black_box(cur.payload());
        })
    });
    g.finish();
}

fn wal(c: &mut Criterion) {
    let mut g = c.benchmark_group("wal_append");
    g.throughput(Throughput::Elements(1));
    g.measurement_time(Duration::from_secs(4));
    let payload = vec![5u8; 140];
    for (name, sync) in [
        ("AsyncWal", WalSync::Buffered),
        ("SyncWal", WalSync::Write),
        ("FsyncWal", WalSync::Fsync),
    ] {
        for threads in [1usize, 8] {
            let dir = tempfile::tempdir().unwrap();
            let fs: Arc<dyn FileSystem> = Arc::new(StdFs);
            let wal = Wal::create(fs, dir.path().to_path_buf(), 1, WalOptions::default()).unwrap();
            let seq = std::sync::atomic::AtomicU64::new(1);
            g.bench_function(format!("{name}/{threads}t"), |b| {
                b.iter_custom(|iters| {
                    let per = iters.div_ceil(threads as u64);
                    let start = Instant::now();
                    std::thread::scope(|s| {
                        for _ in 0..threads {
                            s.spawn(|| {
                                for _ in 0..per {
                                    let q = seq.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                    wal.append(&payload, q, sync).unwrap();
                                }
                            });
                        }
                    });
                    // Time per append across all threads (throughput = appends/s).
                    start
                        .elapsed()
                        .mul_f64(iters as f64 / (per * threads as u64) as f64)
                })
            });
        }
    }
    g.finish();
}

fn block(c: &mut Criterion) {
    let mut g = c.benchmark_group("block");
    let cells = sorted_cells(400); // ~64 KiB of cells: one default-size block
    g.throughput(Throughput::Elements(cells.len() as u64));
    let mut bb = BlockBuilder::new(16);
    g.bench_function("build", |b| {
        b.iter(|| {
            bb.reset();
            for (k, v) in &cells {
                bb.add(k, v);
            }
            black_box(bb.finish().len());
        })
    });
    bb.reset();
    for (k, v) in &cells {
        bb.add(k, v);
    }
    let block = Arc::new(Block::decode(bb.finish().clone()).unwrap());
    let mut it = BlockIter::new(block.clone(), Vec::new());
    let probes: Vec<Vec<u8>> = cells
        .iter()
        .map(|(k, _)| first_on_row(KeyRef::parse(k).unwrap().row))
        .collect();
    let mut i = 0usize;
    g.throughput(Throughput::Elements(1));
    g.bench_function("seek", |b| {
        b.iter(|| {
            i = (i + 37) % probes.len();
            it.seek(&probes[i]).unwrap();
            assert!(it.valid());
            black_box(it.payload());
        })
    });
    g.finish();
}

fn bloom(c: &mut Criterion) {
    let mut g = c.benchmark_group("bloom");
    g.throughput(Throughput::Elements(1));
    const N: u64 = 100_000;
    let mut bb = BloomBuilder::new(cellbase::BloomType::Row);
    for i in 0..N {
        bb.add(&row(i), b"q");
    }
    let filter = BloomFilter::decode(&bb.finish().unwrap().unwrap()).unwrap();
    let mut i = 0u64;
    g.bench_function("probe_present", |b| {
        b.iter(|| {
            i = (i + 1) % N;
            assert!(filter.may_contain_row(&row(i)));
        })
    });
    g.bench_function("probe_absent", |b| {
        b.iter(|| {
            i += 1;
            black_box(filter.may_contain_row(&row(N + i)));
        })
    });
    g.finish();
}

fn merge(c: &mut Criterion) {
    let mut g = c.benchmark_group("merge");
    const PER: u64 = 20_000;
    const K: u64 = 8;
    let val = payload::encode(None, &[7u8; 100]);
    let mems: Vec<Arc<MemStore>> = (0..K)
        .map(|k| {
            let m = Arc::new(MemStore::new());
            for i in 0..PER {
                let n = i * K + k;
                m.insert(&cell_key(&row(n), n + 1), &val);
            }
            m
        })
        .collect();
    g.throughput(Throughput::Elements(PER * K));
    g.sample_size(20);
    g.bench_function(format!("{K}way_full"), |b| {
        b.iter(|| {
            let children: Vec<Box<dyn CellCursor>> = mems
                .iter()
                .map(|m| Box::new(MemCursor::new(m.clone())) as Box<dyn CellCursor>)
                .collect();
            let mut mc = MergeCursor::new(children);
            mc.seek_to_first().unwrap();
            let mut n = 0u64;
            while mc.valid() {
                black_box(mc.key());
                mc.next().unwrap();
                n += 1;
            }
            assert_eq!(n, PER * K);
        })
    });
    g.finish();
}

fn file(c: &mut Criterion) {
    let mut g = c.benchmark_group("file");
    const N: u64 = 200_000;
    let cells = sorted_cells(N);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("1.sst");
    let mut w = SstWriter::new(
        StdFs.create(&path).unwrap(),
        path.clone(),
        SstWriterConfig::default(),
    );
    for (k, v) in &cells {
        w.add(k, v).unwrap();
    }
    w.finish().unwrap();
    let cache = Arc::new(BlockCache::new(64 << 20));
    let reader = Arc::new(SstReader::open(&StdFs, &path, 1, Some(cache)).unwrap());
    let mut cur = reader.cursor(CachePolicy::default());
    let mut i = 0u64;
    g.throughput(Throughput::Elements(1));
    g.bench_function("index_find", |b| {
        b.iter(|| {
            i = (i + 7919) % N;
            black_box(reader.index().find(&first_on_row(&row(i))))
        })
    });
    g.bench_function("point_read", |b| {
        b.iter(|| {
            i = (i + 7919) % N;
            let r = row(i);
            assert!(reader.may_contain_row(&r));
            cur.seek(&first_on_row(&r)).unwrap();
            assert!(cur.valid());
            black_box(cur.payload());
        })
    });
    g.throughput(Throughput::Elements(N));
    g.sample_size(10);
    g.bench_function("scan", |b| {
        b.iter_batched(
            || reader.cursor(CachePolicy::default()),
            |mut c| {
                c.seek_to_first().unwrap();
                let mut n = 0u64;
                while c.valid() {
                    black_box(c.payload());
                    c.next().unwrap();
                    n += 1;
                }
                assert_eq!(n, N);
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn matcher(c: &mut Criterion) {
    let mut g = c.benchmark_group("matcher");
    let cells = sorted_cells(10_000);
    let fams = [FamilyDescriptor::new("f")];
    g.throughput(Throughput::Elements(cells.len() as u64));
    g.bench_function("match_cell", |b| {
        b.iter(|| {
            let mut m = UserMatcher::new(&fams, ReadSpec::new(1_800_000_000_000));
            for (k, v) in &cells {
                let key = KeyRef::parse(k).unwrap();
                let p = PayloadRef::parse(v).unwrap();
                black_box(m.match_cell(&key, &p));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, memstore, wal, block, bloom, merge, file, matcher);
criterion_main!(benches);
