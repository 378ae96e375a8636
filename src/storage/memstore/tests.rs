//! Tests of the memstore: its cursor against a sorted model, entry order, sizes and accounting.
use super::*;
use crate::model::CellType;

fn key(row: &str, ts: i64, seq: u64) -> Vec<u8> {
    KeyRef {
        row: row.as_bytes(),
        family: b"f",
        qualifier: b"q",
        ts,
        type_code: CellType::Put.code(),
        seq,
    }
    .encode()
}

/// Random seeks and steps over rows whose columns hold 1..200 versions (row refills stop
/// at a column's third version) see exactly the sorted entries at or after each target.
#[test]
fn cursor_over_many_versions_matches_sorted_model() {
    use crate::model::key::{first_on_row, last_on_column};
    let mut next = crate::base::util::test_rng(0x7665_7273_u64);
    let m = Arc::new(MemStore::new());
    let mut model: Vec<Vec<u8>> = Vec::new();
    for r in 0..6 {
        for q in 0..4 {
            let versions = [1, 2, 3, 4, 200][next(5) as usize];
            for v in 0..versions {
                let k = KeyRef {
                    row: format!("row{r}").as_bytes(),
                    family: b"f",
                    qualifier: format!("q{q}").as_bytes(),
                    ts: v as i64,
                    type_code: CellType::Put.code(),
                    seq: v,
                }
                .encode();
                m.insert(&k, b"\0v");
                model.push(k);
            }
        }
    }
    model.sort_by(|a, b| compare_encoded(a, b));
    let mut c = MemCursor::new(m);
    for _ in 0..2_000 {
        let row = format!("row{}", next(7));
        let target = match next(3) {
            0 => first_on_row(row.as_bytes()),
            1 => last_on_column(row.as_bytes(), b"f", format!("q{}", next(4)).as_bytes()),
            _ => model[next(model.len() as u64) as usize].clone(),
        };
        c.seek(&target).unwrap();
        let from = model.partition_point(|k| compare_encoded(k, &target).is_lt());
        let steps = next(300) as usize;
        for at in from..from + steps {
            match model.get(at) {
                Some(want) => assert_eq!(c.key(), &want[..]),
                None => assert!(!c.valid()),
            }
            if !c.valid() {
                break;
            }
            c.next().unwrap();
        }
    }
}

#[test]
fn cursor_iterates_in_order_across_batches_and_seeks() {
    let m = Arc::new(MemStore::new());
    for i in (0..100).rev() {
        m.insert(&key(&format!("r{i:03}"), 1, 1), b"\0v");
    }
    let mut c = MemCursor::new(m.clone());
    c.seek_to_first().unwrap();
    let mut n = 0;
    while c.valid() {
        assert_eq!(
            KeyRef::parse(c.key()).unwrap().row,
            format!("r{n:03}").as_bytes()
        );
        c.next().unwrap();
        n += 1;
    }
    assert_eq!(n, 100);
    c.seek(&key("r050", i64::MAX, u64::MAX)).unwrap();
    assert_eq!(KeyRef::parse(c.key()).unwrap().row, b"r050");
    c.seek(&key("r999", 0, 0)).unwrap();
    assert!(!c.valid());
}

/// [SORT-7] identical keys in one mutation: the last one wins.
#[test]
fn identical_key_replaces() {
    let m = MemStore::new();
    m.insert(&key("r", 1, 1), b"\0a");
    m.insert(&key("r", 1, 1), b"\0b");
    assert_eq!(m.len(), 1);
    assert_eq!(m.iter().next().unwrap().payload(), b"\0b");
}

/// A mutation's cells share one buffer: each entry still reads back its own key and
/// payload, the skiplist orders them, identical keys keep the last cell [SORT-7], and the
/// accounting charges one buffer plus one node per cell.
#[test]
fn mutation_cells_share_one_buffer() {
    let m = MemStore::new();
    let k = |q: &'static [u8], seq: u64| KeyRef {
        row: b"row",
        family: b"f",
        qualifier: q,
        ts: 5,
        type_code: CellType::Put.code(),
        seq,
    };
    m.insert_cells([
        (k(b"b", 3), None, &b"vb"[..]),
        (k(b"a", 3), Some(1000), &b"va"[..]),
        (k(b"b", 3), None, &b"vb2"[..]),
    ]);
    m.insert_cells([(k(b"c", 4), None, &b"vc"[..])]);
    let got: Vec<(Vec<u8>, Vec<u8>)> = m
        .iter()
        .map(|e| (e.key().to_vec(), e.payload().to_vec()))
        .collect();
    let want = vec![
        (
            k(b"a", 3).encode(),
            crate::model::payload::encode(Some(1000), b"va"),
        ),
        (
            k(b"b", 3).encode(),
            crate::model::payload::encode(None, b"vb2"),
        ),
        (
            k(b"c", 4).encode(),
            crate::model::payload::encode(None, b"vc"),
        ),
    ];
    assert_eq!(got, want);
    assert_eq!(m.min_seq(), 3);
    let bytes: u64 = [(b"b", 2), (b"a", 2 + 8), (b"b", 3)]
        .iter()
        .map(|(q, v)| (k(*q, 3).encoded_len() + 1 + v) as u64)
        .sum();
    let c_bytes = (k(b"c", 4).encoded_len() + 1 + 2) as u64;
    assert_eq!(
        m.size(),
        bytes + 3 * ENTRY_OVERHEAD + c_bytes + ENTRY_OVERHEAD
    );
    // Empty mutations add nothing.
    m.insert_cells(std::iter::empty());
    assert_eq!(m.len(), 3);
}

/// Randomized differential test of `insert_cells` (mutations of one row whose cells come
/// sorted, shuffled or reversed, with repeated keys [SORT-7], some rows shared with
/// earlier mutations) against a sorted model with last-wins; then cursor seeks.
#[test]
fn insert_cells_matches_model() {
    let mut next = crate::base::util::test_rng(0x1ce11_u64);
    let m = Arc::new(MemStore::new());
    let mut model: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for seq in 1..=400u64 {
        let row = format!("user{}", next(30));
        let n = 1 + next(12) as usize;
        let mut cells: Vec<(Vec<u8>, i64, u8, Vec<u8>)> = (0..n)
            .map(|i| {
                let t = [CellType::Put, CellType::Delete, CellType::DeleteColumn][next(3) as usize];
                (
                    format!("field{}", next(10)).into_bytes(),
                    next(3) as i64,
                    t.code(),
                    format!("{seq}.{i}").into_bytes(),
                )
            })
            .collect();
        let fam: &[u8] = if next(4) == 0 { b"g" } else { b"family" };
        fn kf<'k>(
            row: &'k str,
            fam: &'k [u8],
            seq: u64,
            c: &'k (Vec<u8>, i64, u8, Vec<u8>),
        ) -> KeyRef<'k> {
            KeyRef {
                row: row.as_bytes(),
                family: fam,
                qualifier: &c.0,
                ts: c.1,
                type_code: c.2,
                seq,
            }
        }
        match next(3) {
            0 => cells.sort_by(|a, b| kf(&row, fam, seq, a).cmp_key(&kf(&row, fam, seq, b))),
            1 => cells.sort_by(|a, b| kf(&row, fam, seq, b).cmp_key(&kf(&row, fam, seq, a))),
            _ => {}
        }
        m.insert_cells(
            cells
                .iter()
                .map(|c| (kf(&row, fam, seq, c), None, &c.3[..])),
        );
        for c in &cells {
            let k = kf(&row, fam, seq, c).encode();
            let p = crate::model::payload::encode(None, &c.3);
            match model.iter_mut().find(|(mk, _)| *mk == k) {
                Some(e) => e.1 = p,
                None => model.push((k, p)),
            }
        }
    }
    model.sort_by(|a, b| compare_encoded(&a.0, &b.0));
    let got: Vec<(Vec<u8>, Vec<u8>)> = m
        .iter()
        .map(|e| (e.key().to_vec(), e.payload().to_vec()))
        .collect();
    assert_eq!(got, model);
    assert_eq!(m.len(), model.len());
    let mut c = MemCursor::new(m.clone());
    for _ in 0..300 {
        let (k, p) = &model[next(model.len() as u64) as usize];
        c.seek(k).unwrap();
        assert_eq!((c.key(), c.payload()), (&k[..], &p[..]));
    }
}

/// The inline row prefix never changes the order: MemEntry's Ord equals compare_encoded on
/// rows that tie, differ inside or past the first 8 and 16 bytes, end in zero bytes, are
/// empty, and on malformed keys.
#[test]
fn entry_order_matches_compare_encoded() {
    use crate::model::key::CellType;
    let seed = 0x5eed_u64;
    println!("seed = {seed:#x}");
    let mut x = seed;
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x >> 33
    };
    let mut keys: Vec<Vec<u8>> = Vec::new();
    for _ in 0..400 {
        // Half the rows share a 14-byte stem, so they tie on the 16-byte prefix or
        // differ right at its end or past it.
        let mut row: Vec<u8> = if next() % 2 == 0 {
            b"00000000000000".to_vec()
        } else {
            Vec::new()
        };
        let len = (next() % 8) as usize;
        row.extend((0..len).map(|_| [0u8, 1, b'0', b'b', 0xff][(next() % 5) as usize]));
        keys.push(
            KeyRef {
                row: &row,
                family: b"f",
                qualifier: if next() % 2 == 0 { b"q" } else { b"" },
                ts: (next() % 3) as i64,
                type_code: CellType::Put.code(),
                seq: next() % 4,
            }
            .encode(),
        );
    }
    keys.push(vec![0, 9, 1]); // malformed
    keys.push(vec![]);
    for a in &keys {
        for b in &keys {
            let (ea, eb) = (MemEntry::new(a, b"x"), MemEntry::new(b, b""));
            assert_eq!(ea.cmp(&eb), compare_encoded(a, b), "{a:?} vs {b:?}");
        }
    }
}
