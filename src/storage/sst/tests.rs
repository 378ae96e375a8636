//! Writer → reader round trips, seeks, corruption and cache behaviour.

use super::testutil::{Cell, Rng, gen_cells, key, open, scan, write_file};
use super::*;
use crate::base::io::{FileSystem, StdFs};
use crate::model::cursor::CellCursor;
use crate::model::key::{CellType, KeyRef, compare_encoded, first_after_row, first_on_row};
use crate::model::payload;
use crate::model::schema::{BloomType, Compression};
use std::cmp::Ordering;
use std::sync::Arc;

fn cfg(block_size: usize, compression: Compression, bloom: BloomType) -> SstWriterConfig {
    SstWriterConfig {
        block_size,
        compression,
        bloom,
        restart_interval: 16,
        ..SstWriterConfig::default()
    }
}

/// Recomputes what the meta block must say about `cells`.
fn check_meta(m: &FileMeta, cells: &[Cell]) {
    assert_eq!(m.cell_count, cells.len() as u64);
    let keys: Vec<KeyRef<'_>> = cells.iter().map(|c| KeyRef::parse(&c.0).unwrap()).collect();
    let puts: Vec<&KeyRef<'_>> = keys
        .iter()
        .filter(|k| k.type_code == CellType::Put.code())
        .collect();
    assert_eq!(m.put_count, puts.len() as u64);
    assert_eq!(m.delete_count, (cells.len() - puts.len()) as u64);
    assert_eq!(
        m.earliest_put_ts,
        puts.iter().map(|k| k.ts).min().unwrap_or(i64::MAX)
    );
    assert_eq!(
        m.min_ts,
        keys.iter().map(|k| k.ts).min().unwrap_or(i64::MAX)
    );
    assert_eq!(
        m.max_ts,
        keys.iter().map(|k| k.ts).max().unwrap_or(i64::MIN)
    );
    assert_eq!(m.max_seq, keys.iter().map(|k| k.seq).max().unwrap_or(0));
    assert_eq!(
        m.first_key,
        cells.first().map(|c| c.0.clone()).unwrap_or_default()
    );
    assert_eq!(
        m.last_key,
        cells.last().map(|c| c.0.clone()).unwrap_or_default()
    );
}

#[test]
fn round_trips_for_every_size_compression_and_bloom() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(0x5511);
    let many = gen_cells(&mut rng, 3000);
    for n in [0usize, 1, 2, 17, 3000] {
        for compression in Compression::ALL {
            for bloom in [BloomType::None, BloomType::Row, BloomType::RowCol] {
                for block_size in [256usize, 64 << 10] {
                    let cells = &many[..n];
                    let name = format!("f-{n}-{compression:?}-{bloom:?}-{block_size}");
                    let (path, meta) = write_file(
                        dir.path(),
                        &name,
                        cells,
                        cfg(block_size, compression, bloom),
                    );
                    check_meta(&meta, cells);
                    assert_eq!((meta.bloom, meta.compression), (bloom, compression));
                    let r = open(&path).unwrap();
                    assert_eq!(r.meta(), &meta, "{name}");
                    assert_eq!(meta.file_size, std::fs::metadata(&path).unwrap().len());
                    assert_eq!(scan(&r).unwrap(), cells, "{name}");
                    r.verify().unwrap();
                    if n == 3000 && block_size == 256 {
                        assert!(meta.data_blocks > 50, "{name}: {} blocks", meta.data_blocks);
                    }
                    if n == 0 {
                        assert!(r.mid_key().is_none());
                        assert_eq!(meta.first_row(), b"");
                    }
                    for c in cells.iter().step_by(7) {
                        let k = KeyRef::parse(&c.0).unwrap();
                        assert!(
                            r.may_contain_row(k.row) && r.may_contain_column(k.row, k.qualifier)
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn snappy_shrinks_compressible_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let cells: Vec<Cell> = (0..2000u32)
        .map(|i| {
            (
                key(
                    format!("row{i:06}").as_bytes(),
                    b"f",
                    b"q",
                    1,
                    CellType::Put,
                    1,
                ),
                payload::encode(None, &[b'a'; 100]),
            )
        })
        .collect();
    let (_, plain) = write_file(
        dir.path(),
        "plain",
        &cells,
        cfg(4096, Compression::None, BloomType::Row),
    );
    let (p, snappy) = write_file(
        dir.path(),
        "snappy",
        &cells,
        cfg(4096, Compression::Snappy, BloomType::Row),
    );
    assert_eq!(plain.raw_data_bytes, snappy.raw_data_bytes);
    assert!(
        snappy.file_size * 3 < plain.file_size,
        "{} vs {}",
        snappy.file_size,
        plain.file_size
    );
    assert_eq!(scan(&open(&p).unwrap()).unwrap(), cells);
}

/// Every codec round-trips every block kind the format compresses: data blocks and the index
/// block carry the codec's byte in their frames (docs/FORMAT.md, section 2, "Block framing");
/// the Bloom and meta blocks are stored uncompressed whatever the codec.
#[test]
fn every_codec_compresses_data_and_index_blocks() {
    use super::trailer::Trailer;
    let dir = tempfile::tempdir().unwrap();
    let cells: Vec<Cell> = (0..3000u32)
        .map(|i| {
            let v = format!("value-{}-{}", i % 7, "abc".repeat(30));
            (
                key(
                    format!("row{i:06}").as_bytes(),
                    b"f",
                    b"qual",
                    1,
                    CellType::Put,
                    1,
                ),
                payload::encode(None, v.as_bytes()),
            )
        })
        .collect();
    let mut plain_size = 0;
    for codec in Compression::ALL {
        let name = format!("k-{codec:?}");
        let (path, m) = write_file(
            dir.path(),
            &name,
            &cells,
            cfg(1024, codec, BloomType::RowCol),
        );
        assert_eq!(m.compression, codec);
        let bytes = std::fs::read(&path).unwrap();
        let code_at = |h: frame::BlockHandle| bytes[(h.offset + u64::from(h.size)) as usize];
        let t = Trailer::decode(&bytes, &path).unwrap();
        let r = open(&path).unwrap();
        assert!(r.index().len() > 50, "{name}");
        for i in 0..r.index().len() {
            assert_eq!(
                code_at(r.index().handle(i).unwrap()),
                codec.code(),
                "{name}: block {i}"
            );
        }
        assert_eq!(code_at(t.index), codec.code(), "{name}: index block");
        assert_eq!(code_at(t.bloom.unwrap()), 0, "{name}: bloom block");
        assert_eq!(code_at(t.meta), 0, "{name}: meta block");
        assert_eq!(scan(&r).unwrap(), cells, "{name}");
        r.verify().unwrap();
        assert_eq!(r.meta().raw_data_bytes, m.raw_data_bytes);
        if codec == Compression::None {
            plain_size = m.file_size;
        } else {
            assert!(
                m.file_size * 2 < plain_size,
                "{name}: {} of {plain_size}",
                m.file_size
            );
        }
        for c in cells.iter().step_by(37) {
            let mut cur = r.cursor(CachePolicy::default());
            cur.seek(&c.0).unwrap();
            assert_eq!(cur.key(), &c.0[..], "{name}");
        }
    }
}

#[test]
fn large_values_get_their_own_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let big = vec![3u8; 100_000];
    let cells: Vec<Cell> = (0..5u8)
        .map(|i| {
            (
                key(&[b'r', i], b"f", b"", 1, CellType::Put, 1),
                payload::encode(None, &big),
            )
        })
        .collect();
    for c in Compression::ALL {
        let (p, m) = write_file(dir.path(), "big", &cells, cfg(4096, c, BloomType::Row));
        assert_eq!(m.data_blocks, 5);
        let r = open(&p).unwrap();
        assert_eq!(scan(&r).unwrap(), cells);
        // The middle block starts row 2: its index key is that row's separator.
        let mid_key = r.mid_key().unwrap();
        let mid = KeyRef::parse(&mid_key).unwrap();
        assert_eq!(mid.row, KeyRef::parse(&cells[2].0).unwrap().row);
        assert_eq!(mid.encode(), first_on_row(mid.row));
    }
}

#[test]
fn seeks_match_a_sorted_vec() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(0x5eec);
    let cells = gen_cells(&mut rng, 4000);
    for compression in Compression::ALL {
        let (path, m) = write_file(
            dir.path(),
            "s",
            &cells,
            cfg(512, compression, BloomType::Row),
        );
        assert!(m.data_blocks > 20);
        let r = open(&path).unwrap();
        let mut c = r.cursor(CachePolicy::default());
        let mut targets: Vec<Vec<u8>> = (0..3000)
            .map(|_| gen_cells(&mut rng, 1).remove(0).0)
            .collect();
        // Before the first, after the last, exactly at and just around every block boundary.
        targets.push(key(b"", b"", b"", i64::MAX, CellType::Put, u64::MAX));
        targets.push(first_on_row(b""));
        targets.push(first_after_row(&[0xff; 10]));
        targets.push(cells.last().unwrap().0.clone());
        for i in 0..m.data_blocks as usize {
            let k = c.reader().index().first_key(i).unwrap().to_vec();
            let p = KeyRef::parse(&k).unwrap();
            targets.push(
                KeyRef {
                    type_code: 255,
                    seq: u64::MAX,
                    ts: i64::MAX,
                    ..p
                }
                .encode(),
            );
            targets.push(
                KeyRef {
                    type_code: 0,
                    seq: 0,
                    ts: i64::MIN,
                    ..p
                }
                .encode(),
            );
            targets.push(k);
        }
        for t in &targets {
            c.seek(t).unwrap();
            let j = cells.partition_point(|x| compare_encoded(&x.0, t) == Ordering::Less);
            for step in 0..3 {
                match cells.get(j + step) {
                    Some(x) => {
                        assert!(c.valid());
                        assert_eq!((c.key(), c.payload()), (&x.0[..], &x.1[..]));
                        c.next().unwrap();
                    }
                    None => {
                        assert!(!c.valid());
                        break;
                    }
                }
            }
        }
    }
}

#[test]
fn mid_key_is_the_first_key_of_the_middle_block() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(0x111d);
    let cells = gen_cells(&mut rng, 2000);
    let (path, m) = write_file(
        dir.path(),
        "m",
        &cells,
        cfg(1024, Compression::None, BloomType::Row),
    );
    let r = open(&path).unwrap();
    let mid = r.mid_key().unwrap().to_vec();
    let mut c = r.cursor(CachePolicy::default());
    c.seek(&mid).unwrap();
    // The index key is the block's first cell or (a block starting a row) its row separator.
    assert!(c.key() == &mid[..] || mid == first_on_row(KeyRef::parse(c.key()).unwrap().row));
    assert_eq!(r.index().find(&mid), m.data_blocks as usize / 2);
}

#[test]
fn bloom_lets_a_get_skip_the_file_and_blocks_read_counts_fetches() {
    let dir = tempfile::tempdir().unwrap();
    let cells: Vec<Cell> = (0..500u32)
        .map(|i| {
            (
                key(
                    format!("r{i:04}").as_bytes(),
                    b"f",
                    b"q",
                    1,
                    CellType::Put,
                    1,
                ),
                payload::encode(None, b"v"),
            )
        })
        .collect();
    let (path, _) = write_file(
        dir.path(),
        "b",
        &cells,
        cfg(512, Compression::None, BloomType::Row),
    );
    let r = open(&path).unwrap();
    let absent: Vec<String> = (0..200).map(|i| format!("zz{i}")).collect();
    let skipped = absent
        .iter()
        .filter(|a| !r.may_contain_row(a.as_bytes()))
        .count();
    assert!(
        skipped >= 190,
        "bloom skipped only {skipped} of 200 absent rows"
    );
    assert_eq!(r.blocks_read(), 0);
    let mut c = r.cursor(CachePolicy::default());
    c.seek(&first_on_row(b"r0100")).unwrap();
    assert_eq!(r.blocks_read(), 1);
    // A seek inside the block the cursor holds fetches nothing.
    let (a, b) = (first_on_row(b"r0100"), first_on_row(b"r0101"));
    assert_eq!(r.index().find(&a), r.index().find(&b));
    c.seek(&b).unwrap();
    c.seek(&a).unwrap();
    assert_eq!(r.blocks_read(), 1);
    c.seek(&first_on_row(b"r0400")).unwrap();
    assert_eq!(r.blocks_read(), 2);
}

#[test]
fn block_cache_counts_hits_and_honours_policies() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(0xcac4e);
    let cells = gen_cells(&mut rng, 1000);
    let (path, m) = write_file(
        dir.path(),
        "c",
        &cells,
        cfg(1024, Compression::Snappy, BloomType::Row),
    );
    let blocks = m.data_blocks;

    let cache = Arc::new(BlockCache::new(64 << 20));
    let r = Arc::new(SstReader::open(&StdFs, &path, 7, Some(cache.clone())).unwrap());
    assert_eq!(scan(&r).unwrap(), cells);
    assert_eq!((cache.hits(), cache.misses()), (0, blocks));
    assert_eq!(scan(&r).unwrap(), cells);
    assert_eq!((cache.hits(), cache.misses()), (blocks, blocks));
    assert_eq!(r.blocks_read(), 2 * blocks);
    assert_eq!(cache.in_memory_used(), 0);
    cache.evict_file(7);
    assert_eq!(cache.used(), 0);

    // IN_MEMORY families fill the in-memory partition.
    let mut c = r.cursor(CachePolicy {
        fill: true,
        in_memory: true,
    });
    c.seek_to_first().unwrap();
    assert!(cache.in_memory_used() > 0);

    // BLOCKCACHE false: lookups, no fills.
    let cache = Arc::new(BlockCache::new(64 << 20));
    let r = Arc::new(SstReader::open(&StdFs, &path, 8, Some(cache.clone())).unwrap());
    let mut c = r.cursor(CachePolicy {
        fill: false,
        in_memory: false,
    });
    for _ in 0..2 {
        c.seek_to_first().unwrap();
        while c.valid() {
            c.next().unwrap();
        }
    }
    assert_eq!((cache.hits(), cache.used()), (0, 0));

    // Capacity 0 disables caching.
    let cache = Arc::new(BlockCache::new(0));
    assert_eq!(cache.capacity(), 0);
    let r = Arc::new(SstReader::open(&StdFs, &path, 9, Some(cache.clone())).unwrap());
    assert_eq!(scan(&r).unwrap(), cells);
    assert_eq!(scan(&r).unwrap(), cells);
    assert_eq!((cache.hits(), cache.used()), (0, 0));
}

#[test]
fn writer_rejects_malformed_cells_and_reports_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w");
    let mut w = SstWriter::new(
        crate::base::io::FileSystem::create(&StdFs, &path).unwrap(),
        path.clone(),
        SstWriterConfig::default(),
    );
    assert!(w.add(b"short", &payload::encode(None, b"")).is_err());
    let mut k = key(b"r", b"f", b"q", 1, CellType::Put, 1);
    let n = k.len();
    k[n - 9] = 5; // not a cell type
    assert!(w.add(&k, &payload::encode(None, b"")).is_err());
    assert!(
        w.add(&key(b"r", b"f", b"q", 1, CellType::Put, 1), &[9])
            .is_err()
    );
    assert_eq!((w.cell_count(), w.estimated_size()), (0, 0));
    w.add(
        &key(b"r", b"f", b"q", 1, CellType::Put, 1),
        &payload::encode(None, b"v"),
    )
    .unwrap();
    assert_eq!(w.cell_count(), 1);
    assert!(w.estimated_size() > 0);
    let m = w.finish().unwrap();
    assert_eq!(m.file_size, std::fs::metadata(&path).unwrap().len());
}

/// A flush or compaction output asks for writeback of each MiB of data as it goes (as
/// RocksDB's bytes_per_sync), so that its final fdatasync, and the WAL syncs queued behind it,
/// never wait for the writeback of a whole file: the requests come at least `WRITEBACK_EVERY`
/// bytes apart, and no more than `WRITEBACK_EVERY` plus one block is left unrequested before the
/// metadata blocks.
#[test]
fn writer_starts_writeback_every_mib() {
    use crate::base::io::WRITEBACK_EVERY;
    struct Recording {
        inner: Box<dyn crate::base::io::WritableFile>,
        requests: Arc<parking_lot::Mutex<Vec<u64>>>,
    }
    impl crate::base::io::WritableFile for Recording {
        fn append(&mut self, data: &[u8]) -> std::io::Result<()> {
            self.inner.append(data)
        }
        fn sync_data(&mut self) -> std::io::Result<()> {
            self.inner.sync_data()
        }
        fn len(&self) -> u64 {
            self.inner.len()
        }
        fn start_writeback(&mut self) -> std::io::Result<()> {
            self.requests.lock().push(self.inner.len());
            self.inner.start_writeback()
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w");
    let requests = Arc::new(parking_lot::Mutex::new(Vec::new()));
    let block_size = 64 << 10;
    let mut w = SstWriter::new(
        Box::new(Recording {
            inner: StdFs.create(&path).unwrap(),
            requests: requests.clone(),
        }),
        path.clone(),
        cfg(block_size, Compression::None, BloomType::Row),
    );
    let value = vec![b'v'; 1000];
    for i in 0..4000u32 {
        let row = format!("row{i:08}");
        w.add(
            &key(row.as_bytes(), b"f", b"q", 1, CellType::Put, 1),
            &payload::encode(None, &value),
        )
        .unwrap();
    }
    let m = w.finish().unwrap();
    let r = requests.lock().clone();
    println!(
        "writeback requested at {r:?}; file of {} bytes",
        m.file_size
    );
    assert!(r.len() >= 3, "{r:?}");
    let mut last = 0;
    for &at in &r {
        assert!(at - last >= WRITEBACK_EVERY, "{r:?}");
        assert!(at - last < WRITEBACK_EVERY + 2 * block_size as u64, "{r:?}");
        last = at;
    }
    let data_end = m.file_size - (64 << 10); // the metadata blocks are far smaller than a block
    assert!(
        data_end - last < WRITEBACK_EVERY + 2 * block_size as u64,
        "{r:?}"
    );
    let reader = open(&path).unwrap();
    assert_eq!(scan(&reader).unwrap().len(), 4000);
}

/// Throughput probe, not a correctness test: `cargo test --release --lib sst::tests::perf_probe
/// -- --ignored --nocapture`.
#[test]
#[ignore = "performance probe"]
fn perf_probe() {
    use std::time::Instant;
    let dir = tempfile::tempdir().unwrap();
    let n = 1_000_000u32;
    let value = [b'v'; 100];
    let cells: Vec<Cell> = (0..n)
        .map(|i| {
            let row = format!("user{:012}", i.wrapping_mul(2_654_435_761) % n);
            (row, i)
        })
        .collect::<std::collections::BTreeMap<_, _>>()
        .into_iter()
        .map(|(row, i)| {
            (
                key(row.as_bytes(), b"f", b"q", 1, CellType::Put, u64::from(i)),
                payload::encode(None, &value),
            )
        })
        .collect();
    for compression in Compression::ALL {
        let t = Instant::now();
        let (path, m) = write_file(
            dir.path(),
            "p",
            &cells,
            cfg(64 << 10, compression, BloomType::Row),
        );
        println!(
            "{compression:?}: write {:?} ({} MiB, {} blocks)",
            t.elapsed(),
            m.file_size >> 20,
            m.data_blocks
        );
        let cache = Arc::new(BlockCache::new(1 << 30));
        let r = Arc::new(SstReader::open(&StdFs, &path, 1, Some(cache)).unwrap());
        let passes: u32 = std::env::var("SCANS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(2);
        for pass in 0..passes {
            let t = Instant::now();
            let mut c = r.cursor(CachePolicy::default());
            c.seek_to_first().unwrap();
            let mut k = 0usize;
            while c.valid() {
                k += c.key().len();
                c.next().unwrap();
            }
            std::hint::black_box(k);
            println!(
                "  scan pass {pass}: {:?} ({:.0} ns/cell)",
                t.elapsed(),
                t.elapsed().as_nanos() as f64 / f64::from(n)
            );
        }
        let mut rng = Rng::new(7);
        let mut c = r.cursor(CachePolicy::default());
        let t = Instant::now();
        let seeks: u32 = std::env::var("SEEKS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(200_000);
        for _ in 0..seeks {
            let row = format!("user{:012}", rng.below(u64::from(n)));
            c.seek(&first_on_row(row.as_bytes())).unwrap();
            assert!(c.valid());
        }
        println!(
            "  cached random seek: {:.0} ns/seek",
            t.elapsed().as_nanos() as f64 / f64::from(seeks)
        );
        let t = Instant::now();
        let mut hits = 0;
        for i in 0..seeks {
            hits += usize::from(r.may_contain_row(format!("absent{i}").as_bytes()));
        }
        println!(
            "  bloom probe: {:.0} ns ({hits} fp)",
            t.elapsed().as_nanos() as f64 / f64::from(seeks)
        );
    }
}

#[test]
fn rowcol_file_never_skips_a_column_masked_by_a_family_marker() {
    let dir = tempfile::tempdir().unwrap();
    let cells: Vec<Cell> = vec![
        (
            key(b"r1", b"f", b"", 5, CellType::DeleteFamily, 3),
            payload::encode(None, b""),
        ),
        (
            key(b"r2", b"f", b"", 5, CellType::DeleteFamilyVersion, 3),
            payload::encode(None, b""),
        ),
        (
            key(b"r3", b"f", b"a", 5, CellType::Put, 3),
            payload::encode(None, b"v"),
        ),
    ];
    let (path, m) = write_file(
        dir.path(),
        "rc",
        &cells,
        cfg(4096, Compression::None, BloomType::RowCol),
    );
    assert_eq!((m.put_count, m.delete_count, m.earliest_put_ts), (1, 2, 5));
    let r = open(&path).unwrap();
    for q in [&b"a"[..], b"b", b"some-column"] {
        assert!(r.may_contain_column(b"r1", q) && r.may_contain_column(b"r2", q));
    }
    assert!(r.may_contain_column(b"r3", b"a"));
    assert!(
        r.may_contain_row(b"anything"),
        "ROWCOL cannot answer row-only questions"
    );
    let absent = (0..100)
        .filter(|i| r.may_contain_column(b"r3", format!("q{i}").as_bytes()))
        .count();
    assert!(
        absent < 10,
        "{absent} of 100 absent columns passed the filter"
    );
}

#[test]
fn handles_are_send_and_sync() {
    fn send<T: Send>() {}
    fn sync<T: Sync>() {}
    send::<SstWriter>();
    send::<SstCursor>();
    send::<Arc<SstReader>>();
    sync::<SstReader>();
    sync::<BlockCache>();
}

/// Files whose Bloom block holds a version-1 (SipHash-1-3) filter, as written before filter
/// version 2, open, answer Bloom probes without false negatives and verify.
#[test]
fn files_with_version_1_bloom_filters_are_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let cells = gen_cells(&mut Rng::new(0x01d_b100), 800);
    for bloom in [BloomType::Row, BloomType::RowCol] {
        super::bloom::WRITE_V1.with(|v| v.set(true));
        let (path, _) = write_file(
            dir.path(),
            &format!("v1-{bloom:?}"),
            &cells,
            cfg(512, Compression::None, bloom),
        );
        super::bloom::WRITE_V1.with(|v| v.set(false));
        let r = open(&path).unwrap();
        let t = super::trailer::Trailer::decode(&std::fs::read(&path).unwrap(), &path).unwrap();
        let raw = std::fs::read(&path).unwrap();
        let h = t.bloom.unwrap();
        assert_eq!(
            raw[h.offset as usize + 9],
            super::bloom::FILTER_VERSION_SIP,
            "{bloom:?}"
        );
        assert_eq!(scan(&r).unwrap(), cells);
        r.verify().unwrap();
        for c in &cells {
            let k = KeyRef::parse(&c.0).unwrap();
            assert!(r.may_contain_row(k.row) && r.may_contain_column(k.row, k.qualifier));
        }
    }
}

/// Where a block's bytes live: files that prefer reads (the real filesystem) give blocks of
/// their own, read with `pread`, so touched file pages do not stay in the process's resident
/// set; other files (in memory) serve uncompressed blocks in place. Compressed blocks are owned.
#[test]
fn block_bytes_in_place_or_read() {
    let dir = tempfile::tempdir().unwrap();
    let cells = gen_cells(&mut Rng::new(0x3a9), 300);
    for compression in Compression::ALL {
        let (path, _) = write_file(
            dir.path(),
            &format!("m-{compression:?}"),
            &cells,
            cfg(512, compression, BloomType::Row),
        );
        let on_disk = open(&path).unwrap();
        let in_memory = super::testutil::open_bytes(std::fs::read(&path).unwrap()).unwrap();
        for (r, real) in [(&on_disk, true), (&in_memory, false)] {
            let b = r.block(1, CachePolicy::default()).unwrap();
            if real {
                assert!(
                    !b.is_mapped(),
                    "{compression:?}: real files are read, not mapped"
                );
            } else if compression == Compression::None {
                assert!(
                    b.is_mapped(),
                    "in-memory uncompressed blocks are used in place"
                );
            }
            // A codec may leave an incompressible block uncompressed: the in-memory
            // compressed cases are not checked strictly.
            assert!(b.validate().unwrap() > 0);
            assert_eq!(scan(r).unwrap(), cells);
            r.verify().unwrap();
        }
    }
}

/// [SORT-6] The merge over block-file cursors (whose steps report an unchanged row without a
/// comparison) and a memstore yields the stable sort of all their cells: rows of several cells,
/// rows spread over several sources, equal keys in several sources (the lower-indexed source
/// first), small blocks and restart intervals so rows cross block and restart boundaries.
#[test]
fn merge_of_file_cursors_matches_stable_sort() {
    use crate::read::merge::MergeCursor;
    use crate::read::source::SourceCursor;
    use crate::storage::memstore::{MemCursor, MemStore};
    let seed = 0x6d72_6731_u64;
    println!("seed {seed}");
    let mut rng = Rng::new(seed);
    let dir = tempfile::tempdir().unwrap();
    for round in 0..40 {
        let files = 1 + rng.below(4) as usize;
        let mut all: Vec<(Vec<u8>, Vec<u8>, usize)> = Vec::new();
        let mut children = Vec::new();
        // Child 0: a memstore with a few cells (its steps never claim an unchanged row).
        let mem = Arc::new(MemStore::new());
        let mut per_source: Vec<Vec<Cell>> = vec![Vec::new(); files + 1];
        for (src, cells) in per_source.iter_mut().enumerate() {
            let rows = if src == 0 { 3 } else { 30 };
            let start = rng.below(40);
            for r in start..start + rng.below(rows) {
                let row = format!("row{r:03}");
                for q in 0..1 + rng.below(6) {
                    let k = key(
                        row.as_bytes(),
                        b"f",
                        format!("q{q}").as_bytes(),
                        rng.below(3) as i64,
                        CellType::Put,
                        rng.below(2),
                    );
                    cells.push((k, payload::encode(None, &[src as u8])));
                }
            }
            cells.sort_by(|a, b| compare_encoded(&a.0, &b.0));
            cells.dedup_by(|a, b| compare_encoded(&a.0, &b.0).is_eq());
            for (k, v) in cells.iter() {
                all.push((k.clone(), v.clone(), src));
            }
        }
        for (k, v) in &per_source[0] {
            mem.insert(k, v);
        }
        children.push(SourceCursor::Mem(MemCursor::new(mem)));
        for (src, cells) in per_source.iter().enumerate().skip(1) {
            let c = SstWriterConfig {
                block_size: 64 + rng.below(300) as usize,
                compression: Compression::None,
                bloom: BloomType::None,
                restart_interval: 1 + rng.below(5) as usize,
                encoding: [EntryEncoding::Prefix, EntryEncoding::SuffixDelta]
                    [rng.below(2) as usize],
            };
            let (path, _) = write_file(dir.path(), &format!("{round}-{src}.sst"), cells, c);
            children.push(SourceCursor::File(
                open(&path).unwrap().cursor(Default::default()),
            ));
        }
        all.sort_by(|a, b| compare_encoded(&a.0, &b.0).then(a.2.cmp(&b.2)));
        let mut m = MergeCursor::new(children);
        m.seek_to_first().unwrap();
        let mut got = Vec::new();
        while m.valid() {
            let src = payload::PayloadRef::parse(m.payload()).unwrap().value[0] as usize;
            got.push((m.key().to_vec(), m.payload().to_vec(), src));
            m.next().unwrap();
        }
        assert_eq!(got.len(), all.len(), "round {round}");
        assert!(got == all, "round {round}: merge order differs");
    }
}

/// Data blocks read with `pread` through the thread's reused read buffer: files with different
/// block sizes (one with blocks above the kept-buffer limit), compressed or not, read
/// interleaved on one thread return exactly their cells (nothing of an earlier, larger read
/// leaks into a later block).
#[test]
fn pread_blocks_through_the_reused_buffer() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(11);
    let big: Vec<Cell> = (0..300u32)
        .map(|i| {
            let k = key(
                format!("big{i:05}").as_bytes(),
                b"cf",
                b"q",
                1,
                CellType::Put,
                1,
            );
            let v = vec![b'a' + (i % 26) as u8; 3000];
            (k, payload::encode(None, &v))
        })
        .collect();
    let layouts = [
        (64 << 10, Compression::None, gen_cells(&mut rng, 3000)),
        (1 << 10, Compression::None, gen_cells(&mut rng, 3000)),
        (512 << 10, Compression::None, big),
        (4 << 10, Compression::Snappy, gen_cells(&mut rng, 3000)),
        (2 << 10, Compression::Zstd, gen_cells(&mut rng, 1000)),
        (2 << 10, Compression::Gz, gen_cells(&mut rng, 1000)),
        (2 << 10, Compression::Lz4, gen_cells(&mut rng, 1000)),
        (256, Compression::None, gen_cells(&mut rng, 3000)),
    ];
    let files: Vec<(Arc<SstReader>, Vec<Cell>)> = layouts
        .into_iter()
        .enumerate()
        .map(|(i, (bs, comp, cells))| {
            let (path, _) = write_file(
                dir.path(),
                &format!("{i}.sst"),
                &cells,
                cfg(bs, comp, BloomType::Row),
            );
            (open(&path).unwrap(), cells)
        })
        .collect();
    let mut cursors: Vec<_> = files
        .iter()
        .map(|(r, _)| {
            let mut c = r.cursor(CachePolicy::default());
            c.seek_to_first().unwrap();
            c
        })
        .collect();
    let mut got = vec![Vec::new(); files.len()];
    loop {
        let mut any = false;
        for (i, c) in cursors.iter_mut().enumerate() {
            if c.valid() {
                got[i].push((c.key().to_vec(), c.payload().to_vec()));
                c.next().unwrap();
                any = true;
            }
        }
        if !any {
            break;
        }
    }
    for (i, (r, cells)) in files.iter().enumerate() {
        assert_eq!(&got[i], cells, "file {i}");
        assert!(r.blocks_read() > 0);
    }
}

/// Rows of 1..40 cells (some wider than two blocks), written with the current layout (meta
/// version 2: blocks cut between rows, row-separator index keys, every row at a restart) and
/// with the old one (meta version 1, still read): seeks, row-bounded cursors and `verify`
/// agree with a sorted list for both.
#[test]
fn row_layouts_old_and_new_read_alike() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(0x000a_119e);
    let mut cells: Vec<Cell> = Vec::new();
    for r in 0..300u32 {
        let row = format!("row{:05}", r * 7 + rng.below(7) as u32);
        let n = match r % 50 {
            7 => 200,
            _ if r % 3 == 0 => 1,
            _ => 1 + rng.below(40),
        };
        for q in 0..n {
            let k = key(
                row.as_bytes(),
                b"cf",
                format!("q{q:03}").as_bytes(),
                rng.below(100) as i64,
                CellType::Put,
                rng.below(1000),
            );
            cells.push((k, payload::encode(None, &rng.bytes(b"value", 60))));
        }
    }
    cells.sort_by(|a, b| compare_encoded(&a.0, &b.0));
    cells.dedup_by(|a, b| compare_encoded(&a.0, &b.0).is_eq());
    for v1 in [false, true] {
        let name = if v1 { "v1" } else { "v2" };
        let path = dir.path().join(name);
        let f = StdFs.create(&path).unwrap();
        let mut w = SstWriter::new(
            f,
            path.clone(),
            cfg(1024, Compression::None, BloomType::Row),
        );
        if v1 {
            w = w.with_v1_layout(false);
        }
        for (k, v) in &cells {
            w.add(k, v).unwrap();
        }
        let m = w.finish().unwrap();
        assert_eq!(
            m.version,
            if v1 {
                1
            } else {
                crate::storage::sst::meta::META_VERSION
            },
            "{name}"
        );
        // The old layout under a version-2 meta block breaks the v2 promises: verify says so.
        if v1 {
            let bad = dir.path().join("v1-claiming-v2");
            let f = StdFs.create(&bad).unwrap();
            let mut w =
                SstWriter::new(f, bad.clone(), cfg(1024, Compression::None, BloomType::Row))
                    .with_v1_layout(true);
            for (k, v) in &cells {
                w.add(k, v).unwrap();
            }
            w.finish().unwrap();
            let e = open(&bad).unwrap().verify().unwrap_err();
            assert!(
                matches!(e, crate::base::error::Error::Corruption { .. }),
                "{e:?}"
            );
        }
        let r = open(&path).unwrap();
        r.verify().unwrap();
        assert_eq!(scan(&r).unwrap(), cells, "{name}");
        // Layout: with v2, a block that starts a row has that row's separator as index key.
        let mut separators = 0;
        for i in 1..r.index().len() {
            let key = r.index().first_key(i).unwrap();
            let k = KeyRef::parse(&key).unwrap();
            if crate::storage::sst::index::is_row_separator(&k) {
                separators += 1;
            }
        }
        assert_eq!(separators == 0, v1, "{name}: {separators} separators");
        // Every seek target shape around every row.
        let mut c = r.cursor(CachePolicy::default());
        let rows: Vec<Vec<u8>> = {
            let mut v: Vec<Vec<u8>> = cells
                .iter()
                .map(|x| KeyRef::parse(&x.0).unwrap().row.to_vec())
                .collect();
            v.dedup();
            v
        };
        let mut targets: Vec<Vec<u8>> = Vec::new();
        for row in &rows {
            targets.push(first_on_row(row));
            targets.push(first_after_row(row));
            targets.push(key(row, b"cf", b"q010", 50, CellType::Put, 5));
            targets.push(key(row, b"cf", b"q999", i64::MIN, CellType::Put, 0));
        }
        targets.push(first_on_row(b"a"));
        targets.push(first_on_row(b"zzz"));
        for t in &targets {
            c.seek(t).unwrap();
            let j = cells.partition_point(|x| compare_encoded(&x.0, t) == Ordering::Less);
            for step in 0..3 {
                match cells.get(j + step) {
                    Some(x) => {
                        assert!(c.valid(), "{name}");
                        assert_eq!((c.key(), c.payload()), (&x.0[..], &x.1[..]), "{name}");
                        c.next().unwrap();
                    }
                    None => {
                        assert!(!c.valid(), "{name}");
                        break;
                    }
                }
            }
        }
        // A cursor bounded to a row returns exactly the row's cells from its first cell on.
        for row in &rows {
            let mut b = r.cursor(CachePolicy::default());
            b.bound_to_row(Arc::from(row.as_slice()));
            b.seek(&first_on_row(row)).unwrap();
            let want: Vec<&Cell> = cells
                .iter()
                .filter(|x| KeyRef::parse(&x.0).unwrap().row == row.as_slice())
                .collect();
            for x in want {
                assert!(b.valid(), "{name}");
                assert_eq!(b.key(), &x.0[..], "{name}");
                b.next().unwrap();
            }
            assert!(
                !b.valid() || KeyRef::parse(b.key()).unwrap().row > row.as_slice(),
                "{name}"
            );
        }
    }
}

#[test]
fn issue21_missing_block_file_error_names_its_path() {
    // Issue 21, item 8: a missing block file was reported as a bare
    // "No such file or directory (os error 2)", without saying which file.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("0000000042.sst");
    let e = SstReader::open(&StdFs, &path, 42, None).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains(&path.display().to_string()) && msg.contains("os error 2"),
        "{msg}"
    );
    // The kind is kept for callers that match on it.
    assert!(matches!(&e, crate::Error::Io(io) if io.kind() == std::io::ErrorKind::NotFound));
}
