use super::*;
use crate::model::key::{CellType, KeyRef};
use crate::model::payload;
use crate::storage::sst::block_builder::BlockBuilder;
use crate::storage::sst::testutil::{Cell, Rng, gen_cells, key, true_shares, walk, walk_damaged};

fn build(cells: &[Cell], interval: usize) -> Vec<u8> {
    let mut b = BlockBuilder::new(interval);
    for (k, v) in cells {
        b.add(k, v);
    }
    let out = b.finish().clone();
    b.reset();
    assert!(b.is_empty());
    out
}

/// First index whose key is >= target.
fn expected(cells: &[Cell], target: &[u8]) -> Option<usize> {
    let i = cells.partition_point(|c| compare_encoded(&c.0, target) == Ordering::Less);
    (i < cells.len()).then_some(i)
}

#[test]
fn round_trip_at_restart_interval_edges() {
    let mut rng = Rng::new(0xb10c);
    let pool = gen_cells(&mut rng, 200);
    for interval in [1usize, 2, 3, 16] {
        for n in [
            1,
            interval - 1,
            interval,
            interval + 1,
            2 * interval,
            2 * interval + 1,
            100,
        ] {
            if n == 0 {
                continue;
            }
            let cells = &pool[..n];
            let data = build(cells, interval);
            let block = Arc::new(Block::decode(data).unwrap());
            assert_eq!(block.entries(), n);
            assert_eq!(block.num_restarts, n.div_ceil(interval));
            assert_eq!(walk(block.clone()), cells, "interval {interval} n {n}");
            // Seek to every key, and to keys just before/after each.
            let mut it = BlockIter::new(block, Vec::new());
            for (i, (k, _)) in cells.iter().enumerate() {
                it.seek(k).unwrap();
                assert_eq!(it.key(), &k[..]);
                let p = KeyRef::parse(k).unwrap();
                let after = KeyRef {
                    type_code: 0,
                    seq: 0,
                    ts: i64::MIN,
                    ..p
                }
                .encode();
                it.seek(&after).unwrap();
                match expected(cells, &after) {
                    Some(j) => assert_eq!(it.key(), &cells[j].0[..]),
                    None => assert!(!it.valid(), "after cell {i}"),
                }
            }
            it.seek(&key(b"", b"", b"", i64::MAX, CellType::Put, 0))
                .unwrap();
            assert_eq!(it.key(), &cells[0].0[..]);
            it.seek(&key(&[0xff; 8], b"", b"", 0, CellType::Put, 0))
                .unwrap();
            assert!(!it.valid());
        }
    }
}

#[test]
fn empty_qualifiers_empty_and_large_values() {
    let big = vec![7u8; 200_000];
    let cells: Vec<Cell> = vec![
        (
            key(b"r", b"f", b"", 9, CellType::DeleteFamily, 1),
            payload::encode(None, b""),
        ),
        (
            key(b"r", b"f", b"", 9, CellType::Put, 1),
            payload::encode(None, b""),
        ),
        (
            key(b"r", b"f", b"a", 9, CellType::Put, 1),
            payload::encode(Some(5), &big),
        ),
        (
            key(b"r", b"f", b"b", 9, CellType::Put, 1),
            payload::encode(None, b"x"),
        ),
    ];
    for interval in [1, 16] {
        let block = Arc::new(Block::decode(build(&cells, interval)).unwrap());
        assert!(block.len() > big.len());
        assert_eq!(walk(block), cells);
    }
}

#[test]
fn random_seeks_match_a_sorted_vec() {
    let mut rng = Rng::new(0x05ee_b10c);
    let cells = gen_cells(&mut rng, 500);
    let block = Arc::new(Block::decode(build(&cells, 16)).unwrap());
    let mut it = BlockIter::new(block, Vec::new());
    for _ in 0..3000 {
        let t = gen_cells(&mut rng, 1).remove(0).0;
        it.seek(&t).unwrap();
        match expected(&cells, &t) {
            Some(j) => {
                assert_eq!(it.key(), &cells[j].0[..]);
                assert_eq!(it.payload(), &cells[j].1[..]);
                it.advance().unwrap();
                match cells.get(j + 1) {
                    Some(c) => assert_eq!(it.key(), &c.0[..]),
                    None => assert!(!it.valid()),
                }
            }
            None => assert!(!it.valid()),
        }
    }
}

#[test]
fn damaged_blocks_are_errors_not_panics() {
    let mut rng = Rng::new(0xdead);
    let cells = gen_cells(&mut rng, 40);
    let data = build(&cells, 4);
    for cut in 0..data.len() {
        let _ = Block::decode(data[..cut].to_vec());
    }
    for i in 0..data.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut d = data.clone();
            d[i] ^= flip;
            if let Ok(b) = Block::decode(d) {
                // Whatever survives validation must still be walkable without panics.
                let mut it = BlockIter::new(Arc::new(b), Vec::new());
                let _ = it.seek(&cells[20].0);
                let _ = it.seek_to_first();
                while it.valid() {
                    if it.advance().is_err() {
                        break;
                    }
                }
            }
        }
    }
    assert!(Block::decode(vec![0, 0, 0, 1]).is_err());
    assert!(Block::decode(vec![0xff, 0xff, 0xff, 0xff]).is_err());
    let empty = Block::decode(vec![0, 0, 0, 0]).unwrap();
    assert!(empty.is_empty());
}

/// The read path's cheap open: damage that survives it (a block that passed its CRC) is
/// reported by the cursor as a `DecodeError` when it decodes the damaged entry, never a panic;
/// a walk that succeeds yields only well-formed cells, and a block that validates walks
/// exactly like the full decode.
#[test]
fn opened_blocks_check_entries_as_cursors_decode_them() {
    let mut rng = Rng::new(0x0be9);
    let cells = gen_cells(&mut rng, 40);
    let data = build(&cells, 4);
    let open = |d: Vec<u8>| Block::open(BlockBytes::Owned(d.into_boxed_slice()));
    assert_eq!(walk(Arc::new(open(data.clone()).unwrap())), cells);
    for cut in 0..data.len() {
        let _ = open(data[..cut].to_vec());
    }
    let mut walk_errors = 0;
    for i in 0..data.len() {
        for flip in [0x01u8, 0x80, 0xff, 0x41] {
            let mut d = data.clone();
            d[i] ^= flip;
            let Ok(b) = open(d.clone()) else { continue };
            let b = Arc::new(b);
            let full = b.validate();
            match walk_damaged(&b, &cells) {
                None => {
                    walk_errors += 1;
                    assert!(
                        full.is_err(),
                        "walk failed but the block validates (flip at {i})"
                    );
                }
                Some(walked) if full.is_ok() => {
                    assert_eq!(Block::decode(d).map(|b| walk(Arc::new(b))), Ok(walked));
                }
                Some(_) => {}
            }
        }
    }
    assert!(walk_errors > 0);
}

/// `shares` never claims more than the keys share, and outside restart points (which share
/// nothing) it is exact; after a seek the first entry reports what it shares with the entry
/// decoded before it in the block, never with the cursor's previous position.
#[test]
fn shares_matches_key_fields() {
    let mut rng = Rng::new(0x5ba7e5);
    let mut cells: Vec<Cell> = Vec::new();
    for _ in 0..400 {
        let row = rng.bytes(b"ab\x00", 3);
        let family: &[u8] = [&b"f"[..], b"fg", b"g"][rng.below(3) as usize];
        let q = rng.bytes(b"pq", 2);
        let ts = rng.below(4) as i64;
        let t = [CellType::Put, CellType::Delete][rng.below(2) as usize];
        let v = rng.bytes(b"v", 5);
        cells.push((
            key(&row, family, &q, ts, t, rng.below(3)),
            payload::encode(None, &v),
        ));
    }
    cells.sort_by(|a, b| compare_encoded(&a.0, &b.0));
    cells.dedup_by(|a, b| compare_encoded(&a.0, &b.0).is_eq());
    let mut levels = [0usize; 4];
    for interval in [1usize, 3, 1 << 20] {
        let block = Arc::new(Block::decode(build(&cells, interval)).unwrap());
        let mut it = BlockIter::new(block.clone(), Vec::new());
        it.seek_to_first().unwrap();
        assert_eq!(it.shares(), 0);
        for i in 1..cells.len() {
            it.advance().unwrap();
            let want = true_shares(&cells[i - 1].0, &cells[i].0);
            let got = it.shares();
            assert!(got <= want, "interval {interval} entry {i}: {got} > {want}");
            assert_eq!(it.same_row(), got >= SHARES_ROW);
            if interval > 1 && i % interval != 0 {
                assert_eq!(got, want, "interval {interval} entry {i}");
            }
            levels[usize::from(got)] += 1;
        }
        // Seeks: the landing entry never claims more than it shares with its predecessor.
        for (i, (k, _)) in cells.iter().enumerate().step_by(7) {
            it.seek(k).unwrap();
            let want = if i == 0 {
                0
            } else {
                true_shares(&cells[i - 1].0, k)
            };
            assert!(it.shares() <= want, "seek to entry {i}");
        }
    }
    // The data exercises every level.
    assert!(levels.iter().all(|&n| n > 0), "{levels:?}");
}
