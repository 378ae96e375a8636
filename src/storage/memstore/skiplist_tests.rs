//! Unit tests of the memstore skiplist (`skiplist.rs`): a differential test against a sorted
//! model, concurrent writers and readers, iteration positions, the arena's drop. The
//! concurrent differential test against crossbeam-skiplist is `skiplist_oracle.rs`, the loom
//! model `skiplist_loom.rs`.

use super::*;
use crate::model::key::{CellType, KeyRef, compare_encoded};
use std::sync::Arc;

fn key(row: u64, q: u64, ts: i64, seq: u64) -> Vec<u8> {
    KeyRef {
        row: format!("row{row:03}").as_bytes(),
        family: b"f",
        qualifier: format!("q{q}").as_bytes(),
        ts,
        type_code: CellType::Put.code(),
        seq,
    }
    .encode()
}

/// Randomized differential test against a sorted model: batches in order (the finger
/// path), out of order and with repeated keys (full searches, replacements [SORT-7]), then
/// iteration, seeks (inclusive and exclusive) and `last_below` at random probes.
#[test]
fn matches_sorted_model() {
    for seed in [1u64, 2, 3, 0x5eed_u64] {
        let mut next = crate::base::util::test_rng(seed);
        let list = SkipList::new();
        // key -> payload of the last insert.
        let mut model: std::collections::BTreeMap<Vec<u8>, Vec<u8>> = Default::default();
        let sorted = |m: &std::collections::BTreeMap<Vec<u8>, Vec<u8>>| {
            let mut v: Vec<(Vec<u8>, Vec<u8>)> =
                m.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            v.sort_by(|a, b| compare_encoded(&a.0, &b.0));
            v
        };
        for round in 0..300u64 {
            let n = 1 + next(12) as usize;
            let row = next(40);
            let mut batch: Vec<Vec<u8>> = (0..n)
                .map(|_| key(row, next(6), next(3) as i64, next(3)))
                .collect();
            match next(3) {
                0 => batch.sort_by(|a, b| compare_encoded(a, b)),
                1 => {}
                _ => batch.sort_by(|a, b| compare_encoded(b, a)),
            }
            let entries: Vec<MemEntry> = batch
                .iter()
                .enumerate()
                .map(|(i, k)| MemEntry::new(k, format!("{round}.{i}").as_bytes()))
                .collect();
            let before = model.len();
            for e in &entries {
                model.insert(e.key().to_vec(), e.payload().to_vec());
            }
            // A true hint only where the entry does sort after the previous one.
            let hinted: Vec<(MemEntry, bool)> = entries
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let after = i > 0 && entries[i - 1].cmp(e).is_lt() && next(2) == 0;
                    (e.clone(), after)
                })
                .collect();
            drop(entries);
            assert_eq!(list.insert(hinted), model.len() - before);
            assert_eq!(list.len(), model.len());
        }
        let want = sorted(&model);
        let got: Vec<(Vec<u8>, Vec<u8>)> = list
            .iter_from(Bound::Unbounded)
            .map(|e| (e.key().to_vec(), e.payload().to_vec()))
            .collect();
        assert_eq!(got, want, "seed {seed}");
        for _ in 0..500 {
            let probe = key(next(42), next(7), next(4) as i64, next(4));
            let p = MemEntry::new(&probe, b"");
            let ge = want.partition_point(|(k, _)| compare_encoded(k, &probe).is_lt());
            let gt = want.partition_point(|(k, _)| compare_encoded(k, &probe).is_le());
            let first = |it: Iter<'_>| it.take(3).map(|e| e.key().to_vec()).collect::<Vec<_>>();
            let model_from = |i: usize| {
                want[i..]
                    .iter()
                    .take(3)
                    .map(|(k, _)| k.clone())
                    .collect::<Vec<_>>()
            };
            assert_eq!(first(list.iter_from(Bound::Included(&p))), model_from(ge));
            assert_eq!(first(list.iter_from(Bound::Excluded(&p))), model_from(gt));
            assert_eq!(
                list.last_below(&p).map(|e| e.payload().to_vec()),
                ge.checked_sub(1).map(|i| want[i].1.clone())
            );
        }
    }
}

/// A position resumes an iteration where it stopped: the entries after it are those a
/// search for the last entry's key (exclusive) finds, including entries linked between
/// the position and its old successor after it was taken; a position is refused by any
/// other list, and an iterator has none before its first entry.
#[test]
fn iter_after_resumes_like_an_exclusive_search() {
    let mut next = crate::base::util::test_rng(0x9e37);
    let list = SkipList::new();
    let other = SkipList::new();
    let ins = |l: &SkipList, k: Vec<u8>| {
        l.insert([(MemEntry::new(&k, b"v"), false)]);
    };
    for i in 0..400u64 {
        ins(&list, key(i * 2, 0, 1, 1));
    }
    ins(&other, key(1, 0, 1, 1));
    assert!(list.iter_from(Bound::Unbounded).position().is_none());
    let keys = |it: Iter<'_>| it.take(5).map(|e| e.key().to_vec()).collect::<Vec<_>>();
    for round in 0..300u64 {
        let start = MemEntry::new(&key(next(820), next(2), 1, 1), b"");
        let mut it = list.iter_from(Bound::Included(&start));
        let took = 1 + next(4) as usize;
        let last = it.by_ref().take(took).last().map(|e| e.key().to_vec());
        let Some(last) = last else {
            continue;
        };
        let pos = it.position().expect("an entry was yielded");
        // Entries linked after the position was taken, some right after the last entry.
        if round % 3 == 0 {
            let k = KeyRef::parse(&last).unwrap();
            let mut q = k.qualifier.to_vec();
            q.push(b'x');
            ins(&list, KeyRef { qualifier: &q, ..k }.encode());
        }
        let probe = MemEntry::new(&last, b"");
        assert_eq!(
            keys(list.iter_after(pos).expect("its own list's position")),
            keys(list.iter_from(Bound::Excluded(&probe))),
            "round {round}"
        );
        assert!(other.iter_after(pos).is_none());
    }
}

/// Writers on several threads and readers iterating meanwhile: readers always see strictly
/// ascending keys, and at the end every key is present once.
#[test]
fn concurrent_writers_and_readers() {
    let list = Arc::new(SkipList::new());
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (list, stop) = (list.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(AtOrd::Relaxed) {
                    let mut prev: Option<Vec<u8>> = None;
                    for e in list.iter_from(Bound::Unbounded) {
                        if let Some(p) = &prev {
                            assert!(compare_encoded(p, e.key()).is_lt());
                        }
                        prev = Some(e.key().to_vec());
                    }
                }
            })
        })
        .collect();
    let writers: Vec<_> = (0..4u64)
        .map(|t| {
            let list = list.clone();
            std::thread::spawn(move || {
                for r in 0..200u64 {
                    let row = r * 4 + t;
                    list.insert(
                        (0..10).map(|q| (MemEntry::new(&key(row, q, 1, row), b"v"), false)),
                    );
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    stop.store(true, AtOrd::Relaxed);
    for r in readers {
        r.join().unwrap();
    }
    assert_eq!(list.len(), 8000);
    assert_eq!(list.iter_from(Bound::Unbounded).count(), 8000);
}

/// Dropping the list drops every entry, replaced ones included: each buffer is freed
/// once its last entry is (buffers that count their own drops).
#[test]
fn drop_releases_entries() {
    use std::sync::atomic::AtomicUsize;
    struct Owned(Vec<u8>, Arc<AtomicUsize>);
    impl AsRef<[u8]> for Owned {
        fn as_ref(&self) -> &[u8] {
            &self.0
        }
    }
    impl Drop for Owned {
        fn drop(&mut self) {
            self.1.fetch_add(1, AtOrd::SeqCst);
        }
    }
    let freed = Arc::new(AtomicUsize::new(0));
    let buffer = |k: Vec<u8>| bytes::Bytes::from_owner(Owned(k, freed.clone()));
    let entry = |b: &bytes::Bytes| MemEntry {
        buf: b.clone(),
        key_len: b.len() as u32,
        has_prefix: false,
        prefix: [0; 2],
    };
    let list = SkipList::new();
    let buf = buffer(key(1, 1, 1, 1));
    list.insert([(entry(&buf), false), (entry(&buf), false)]);
    list.insert([(entry(&buf), false)]);
    assert_eq!(list.len(), 1);
    drop(buf);
    // Enough nodes for several arena blocks, tall and short ones.
    let bufs: Vec<bytes::Bytes> = (2..20_000).map(|i| buffer(key(i, 0, 0, 0))).collect();
    list.insert(bufs.iter().map(|b| (entry(b), false)));
    drop(bufs);
    assert_eq!(
        freed.load(AtOrd::SeqCst),
        0,
        "the list still holds every buffer"
    );
    drop(list);
    assert_eq!(freed.load(AtOrd::SeqCst), 1 + 19_998);
}
