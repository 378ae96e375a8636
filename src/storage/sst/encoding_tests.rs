//! Tests of the suffix-delta entry encoding (DATA_BLOCK_ENCODING DIFF / FAST_DIFF; HBase's
//! `TestDataBlockEncoders` round trips every encoder over the same cells and seeks to each):
//! blocks and files round trip, every seek lands where the prefix encoding's does, the
//! cursor's `shares` stays exact, damaged blocks are errors, and randomized cells read alike in
//! both encodings.

use super::block::{Block, BlockBytes, BlockIter, SHARES_ROW};
use super::block_builder::BlockBuilder;
use super::testutil::{
    Cell, Rng, gen_cells, key, open, scan, true_shares, walk, walk_damaged, write_file,
};
use super::{CachePolicy, EntryEncoding, SstWriterConfig};
use crate::model::cursor::CellCursor;
use crate::model::key::{CellType, KeyRef, compare_encoded, first_after_row, first_on_row};
use crate::model::payload;
use crate::model::schema::{BloomType, Compression};
use std::cmp::Ordering;
use std::sync::Arc;

const DELTA: EntryEncoding = EntryEncoding::SuffixDelta;

/// A block of `cells` in the writer's row-aligned layout.
fn build(cells: &[Cell], interval: usize, encoding: EntryEncoding) -> Vec<u8> {
    let mut b = BlockBuilder::with_encoding(interval, encoding);
    let mut prev_row: Option<&[u8]> = None;
    for (k, v) in cells {
        let row = KeyRef::parse(k).unwrap().row;
        b.add_cell(k, v, prev_row != Some(row));
        prev_row = Some(row);
    }
    b.finish().clone()
}

fn cell(row: &[u8], q: &[u8], ts: i64, t: CellType, seq: u64, value: &[u8]) -> Cell {
    (key(row, b"cf", q, ts, t, seq), payload::encode(None, value))
}

fn sorted(mut cells: Vec<Cell>) -> Vec<Cell> {
    cells.sort_by(|a, b| compare_encoded(&a.0, &b.0));
    cells.dedup_by(|a, b| compare_encoded(&a.0, &b.0).is_eq());
    cells
}

/// The shapes the issue names: rows of ten cells sharing a timestamp and sequence id (one
/// Put each), many versions of one column, delete markers of every kind, per-cell TTLs,
/// timestamps and sequence ids at the i64/u64 extremes, single-cell rows.
fn shapes() -> Vec<(&'static str, Vec<Cell>)> {
    let mut out = Vec::new();
    let v = [7u8; 100];
    out.push((
        "ten-column puts",
        sorted(
            (0..200u64)
                .flat_map(|r| {
                    (0..10u8).map(move |q| {
                        cell(
                            format!("user{:08}", r * 7919 % 1000).as_bytes(),
                            &[b'f', b'0' + q],
                            1_700_000_000_000 + r as i64,
                            CellType::Put,
                            r + 1,
                            &v,
                        )
                    })
                })
                .collect(),
        ),
    ));
    out.push((
        "versions of one column",
        sorted(
            (0..500u64)
                .map(|i| {
                    cell(
                        b"counter",
                        b"n",
                        1_700_000_000_000 + (i * 1000) as i64,
                        CellType::Put,
                        i + 1,
                        &i.to_be_bytes(),
                    )
                })
                .collect(),
        ),
    ));
    out.push((
        "delete markers",
        sorted(
            (0..300u64)
                .map(|i| {
                    let t = super::testutil::TYPES[(i % 5) as usize];
                    let q: &[u8] =
                        if matches!(t, CellType::DeleteFamily | CellType::DeleteFamilyVersion) {
                            b""
                        } else {
                            b"q"
                        };
                    let value: &[u8] = if t == CellType::Put { b"v" } else { b"" };
                    cell(
                        format!("r{:03}", i / 7).as_bytes(),
                        q,
                        (i % 3) as i64 * 10,
                        t,
                        i,
                        value,
                    )
                })
                .collect(),
        ),
    ));
    out.push((
        "per-cell ttls",
        sorted(
            (0..300u64)
                .map(|i| {
                    (
                        key(
                            format!("t{:04}", i / 3).as_bytes(),
                            b"cf",
                            format!("q{}", i % 3).as_bytes(),
                            5_000 - i as i64,
                            CellType::Put,
                            i,
                        ),
                        payload::encode((i % 2 == 0).then_some(i * 1000), b"value"),
                    )
                })
                .collect(),
        ),
    ));
    let extremes = [i64::MIN, i64::MIN + 1, -1, 0, 1, i64::MAX - 1, i64::MAX];
    let seqs = [
        0u64,
        1,
        u64::MAX / 2,
        u64::MAX / 2 + 1,
        u64::MAX - 1,
        u64::MAX,
    ];
    let mut ex = Vec::new();
    for (i, ts) in extremes.iter().enumerate() {
        for (j, seq) in seqs.iter().enumerate() {
            for t in [CellType::Put, CellType::DeleteColumn] {
                ex.push(cell(
                    format!("x{}", (i + j) % 3).as_bytes(),
                    b"q",
                    *ts,
                    t,
                    *seq,
                    b"",
                ));
            }
        }
    }
    out.push(("extreme timestamps and sequence ids", sorted(ex)));
    out.push((
        "single-cell rows",
        sorted(
            (0..400u64)
                .map(|i| {
                    cell(
                        format!("{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).as_bytes(),
                        b"q",
                        1_700_000_000_000 + (i % 17) as i64,
                        CellType::Put,
                        i + 1,
                        &[1u8; 20],
                    )
                })
                .collect(),
        ),
    ));
    out
}

/// Seek targets around every key: the key, just before and just after it (same column,
/// extreme trailers), its row's first key and the key after its row.
fn targets_around(cells: &[Cell]) -> Vec<Vec<u8>> {
    let mut t = Vec::new();
    for (k, _) in cells {
        let p = KeyRef::parse(k).unwrap();
        t.push(k.clone());
        for (ts, type_code, seq) in [(i64::MAX, 255, u64::MAX), (i64::MIN, 0, 0)] {
            t.push(
                KeyRef {
                    ts,
                    type_code,
                    seq,
                    ..p
                }
                .encode(),
            );
        }
        t.push(first_on_row(p.row));
        t.push(first_after_row(p.row));
    }
    t.push(key(b"", b"", b"", i64::MAX, CellType::Put, u64::MAX));
    t.push(first_after_row(&[0xff; 20]));
    t
}

fn expected(cells: &[Cell], target: &[u8]) -> usize {
    cells.partition_point(|c| compare_encoded(&c.0, target) == Ordering::Less)
}

#[test]
fn blocks_round_trip_and_seek_like_prefix_blocks() {
    for (name, cells) in shapes() {
        for interval in [1usize, 3, 16] {
            let plain = build(&cells, interval, EntryEncoding::Prefix);
            let data = build(&cells, interval, DELTA);
            let block = Arc::new(Block::decode_with(data.clone(), DELTA).unwrap());
            assert_eq!(block.validate(), Ok(cells.len()), "{name}");
            assert_eq!(walk(block.clone()), cells, "{name} interval {interval}");
            // The same restart array: the restart layout does not depend on the encoding.
            let restarts = |d: &[u8]| u32::from_be_bytes(d[d.len() - 4..].try_into().unwrap());
            assert_eq!(restarts(&plain), restarts(&data), "{name}");
            // Read as the other encoding, the block is an error (or other data), not a panic.
            let _ = Block::decode_with(data.clone(), EntryEncoding::Prefix);
            let _ = Block::decode_with(plain.clone(), DELTA);
            let mut it = BlockIter::new(block, Vec::new());
            for t in targets_around(&cells) {
                it.seek(&t).unwrap();
                match cells.get(expected(&cells, &t)) {
                    Some(c) => assert_eq!((it.key(), it.payload()), (&c.0[..], &c.1[..]), "{name}"),
                    None => assert!(!it.valid(), "{name}"),
                }
            }
        }
    }
}

/// Suffix-delta blocks are smaller for the shapes that repeat timestamps and sequence ids or
/// change them by little.
#[test]
fn suffix_deltas_shrink_blocks() {
    for (name, cells) in shapes() {
        let plain = build(&cells, 16, EntryEncoding::Prefix).len();
        let delta = build(&cells, 16, DELTA).len();
        println!("{name}: prefix {plain} bytes, suffix delta {delta} bytes");
        if name != "extreme timestamps and sequence ids" {
            assert!(delta < plain, "{name}: {delta} >= {plain}");
        }
    }
}

/// `shares` is exact for delta entries and 0 at full entries (restart points), as for prefix
/// entries: the read path's row and column skips rely on it.
#[test]
fn shares_is_exact_for_delta_entries() {
    let mut rng = Rng::new(0x5ba7_e5d1);
    let mut cells: Vec<Cell> = Vec::new();
    for _ in 0..500 {
        let row = rng.bytes(b"ab\x00", 3);
        let family: &[u8] = [&b"f"[..], b"fg", b"g"][rng.below(3) as usize];
        let q = rng.bytes(b"pq", 2);
        let t = [CellType::Put, CellType::Delete][rng.below(2) as usize];
        cells.push((
            key(&row, family, &q, rng.below(4) as i64, t, rng.below(3)),
            payload::encode(None, &rng.bytes(b"v", 5)),
        ));
    }
    let cells = sorted(cells);
    let mut levels = [0usize; 4];
    for interval in [1usize, 3, 1 << 20] {
        let mut b = BlockBuilder::with_encoding(interval, DELTA);
        for (k, v) in &cells {
            b.add(k, v);
        }
        let block = Arc::new(Block::decode_with(b.finish().clone(), DELTA).unwrap());
        let mut it = BlockIter::new(block, Vec::new());
        it.seek_to_first().unwrap();
        assert_eq!(it.shares(), 0);
        for i in 1..cells.len() {
            it.advance().unwrap();
            let want = true_shares(&cells[i - 1].0, &cells[i].0);
            let got = it.shares();
            assert_eq!(it.same_row(), got >= SHARES_ROW);
            if interval > 1 && i % interval != 0 {
                assert_eq!(got, want, "interval {interval} entry {i}");
            } else {
                assert_eq!(got, 0, "restart entry {i}");
            }
            levels[usize::from(got)] += 1;
        }
    }
    assert!(levels.iter().all(|&n| n > 0), "{levels:?}");
}

/// Every flipped byte and truncation of a suffix-delta block: a `DecodeError` (from the full
/// check or from the cursor as it decodes), never a panic; what a cursor walks without error
/// is well formed, and a block that validates walks as the full decode does.
#[test]
fn damaged_delta_blocks_are_errors_not_panics() {
    let mut rng = Rng::new(0xdead_d1ff);
    let mut cells = gen_cells(&mut rng, 40);
    cells.extend(shapes().remove(4).1.into_iter().step_by(9));
    let cells = sorted(cells);
    let data = build(&cells, 4, DELTA);
    let open = |d: Vec<u8>| {
        Block::open(BlockBytes::Owned(d.into_boxed_slice())).map(|mut b| {
            b.set_encoding(DELTA);
            b
        })
    };
    for cut in 0..data.len() {
        let _ = Block::decode_with(data[..cut].to_vec(), DELTA);
    }
    let (mut walk_errors, mut full_errors) = (0, 0);
    for i in 0..data.len() {
        for flip in [0x01u8, 0x80, 0xff, 0x41, 0x10] {
            let mut d = data.clone();
            d[i] ^= flip;
            let Ok(b) = open(d.clone()) else { continue };
            let b = Arc::new(b);
            let full = b.validate();
            if full.is_err() {
                full_errors += 1;
            }
            match walk_damaged(&b, &cells) {
                None => {
                    walk_errors += 1;
                    assert!(
                        full.is_err(),
                        "walk failed but the block validates (flip at {i})"
                    );
                }
                Some(walked) if full.is_ok() => {
                    assert_eq!(
                        Block::decode_with(d, DELTA).map(|b| walk(Arc::new(b))),
                        Ok(walked)
                    );
                }
                Some(_) => {}
            }
        }
    }
    assert!(walk_errors > 0 && full_errors > 0);
}

fn cfg(block_size: usize, compression: Compression, encoding: EntryEncoding) -> SstWriterConfig {
    SstWriterConfig {
        block_size,
        compression,
        bloom: BloomType::Row,
        encoding,
        ..SstWriterConfig::default()
    }
}

/// Rows of `cells` in order.
fn rows_of(cells: &[Cell]) -> Vec<Vec<u8>> {
    let mut rows: Vec<Vec<u8>> = cells
        .iter()
        .map(|c| KeyRef::parse(&c.0).unwrap().row.to_vec())
        .collect();
    rows.dedup();
    rows
}

/// Writer -> reader: the file records the encoding (meta version 5), scans and verifies, every
/// seek (to each key and between keys) lands on the cell a sorted vector says, and walking
/// rows backwards (`prev_row`, the reverse scan's step) visits every row.
#[test]
fn files_round_trip_seek_and_walk_backwards() {
    let dir = tempfile::tempdir().unwrap();
    for (name, cells) in shapes() {
        for (block_size, compression) in [(256, Compression::None), (4096, Compression::Zstd)] {
            let (_, p_meta) = write_file(
                dir.path(),
                "p",
                &cells,
                cfg(block_size, compression, EntryEncoding::Prefix),
            );
            let (path, meta) =
                write_file(dir.path(), "d", &cells, cfg(block_size, compression, DELTA));
            assert_eq!((meta.version, meta.encoding), (5, DELTA), "{name}");
            assert_eq!(
                (p_meta.version, p_meta.encoding),
                (4, EntryEncoding::Prefix)
            );
            assert!(p_meta.data_blocks >= meta.data_blocks, "{name}");
            let r = open(&path).unwrap();
            assert_eq!(r.meta(), &meta);
            assert_eq!(scan(&r).unwrap(), cells, "{name}");
            r.verify().unwrap();
            let mut c = r.cursor(CachePolicy::default());
            for t in targets_around(&cells) {
                c.seek(&t).unwrap();
                let j = expected(&cells, &t);
                for x in cells.iter().skip(j).take(2) {
                    assert!(c.valid(), "{name}");
                    assert_eq!((c.key(), c.payload()), (&x.0[..], &x.1[..]), "{name}");
                    c.next().unwrap();
                }
                if j + 2 > cells.len() {
                    assert!(!c.valid(), "{name}");
                }
            }
            // Backwards, row by row, from past the last row.
            let rows = rows_of(&cells);
            let mut at = vec![0xffu8; 20];
            for want in rows.iter().rev() {
                let got = c.prev_row(&at).unwrap();
                assert_eq!(got.as_ref(), Some(want), "{name}");
                at = want.clone();
            }
            assert_eq!(c.prev_row(&at).unwrap(), None, "{name}");
        }
    }
}

/// Randomized equivalence with the prefix encoding (seeded; the seed is printed): random cells
/// of every type, value and TTL, random block sizes and restart intervals; both files scan
/// alike, verify, and answer random seeks alike.
#[test]
fn random_cells_read_alike_in_both_encodings() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(0x00e1_c0de);
    for round in 0..12 {
        let n = 50 + rng.below(700) as usize;
        let mut cells = gen_cells(&mut rng, n);
        // Some extreme trailers among them.
        for _ in 0..rng.below(20) {
            let ts = [i64::MIN, i64::MAX, -1, 0][rng.below(4) as usize];
            let seq = [0, u64::MAX, rng.next_u64()][rng.below(3) as usize];
            cells.push(cell(
                &rng.bytes(b"abxyz", 4),
                b"p",
                ts,
                CellType::Put,
                seq,
                b"v",
            ));
        }
        let cells = sorted(cells);
        let mut c = cfg(
            64 + rng.below(2000) as usize,
            Compression::ALL[rng.below(5) as usize],
            EntryEncoding::Prefix,
        );
        c.restart_interval = 1 + rng.below(20) as usize;
        let (pp, _) = write_file(dir.path(), &format!("{round}p"), &cells, c.clone());
        c.encoding = DELTA;
        let (dp, dm) = write_file(dir.path(), &format!("{round}d"), &cells, c);
        assert_eq!(dm.encoding, DELTA);
        let (p, d) = (open(&pp).unwrap(), open(&dp).unwrap());
        assert_eq!(scan(&d).unwrap(), cells, "round {round}");
        assert_eq!(scan(&p).unwrap(), cells, "round {round}");
        d.verify().unwrap();
        let (mut pc, mut dc) = (
            p.cursor(CachePolicy::default()),
            d.cursor(CachePolicy::default()),
        );
        for _ in 0..300 {
            let t = gen_cells(&mut rng, 1).remove(0).0;
            pc.seek(&t).unwrap();
            dc.seek(&t).unwrap();
            for _ in 0..3 {
                assert_eq!(pc.valid(), dc.valid(), "round {round}");
                if !pc.valid() {
                    break;
                }
                assert_eq!(pc.entry(), dc.entry(), "round {round}");
                // Never more than the keys share (blocks are cut at other places than in the
                // prefix file, so the levels at block starts differ).
                let i = expected(&cells, dc.key());
                let most = if i == 0 {
                    0
                } else {
                    true_shares(&cells[i - 1].0, dc.key())
                };
                assert!(dc.shares() <= most, "round {round}");
                pc.next().unwrap();
                dc.next().unwrap();
            }
        }
    }
}
