//! Concurrent differential test of the memstore skiplist against `crossbeam_skiplist::SkipSet`
//! (the reference ordered set; a dev-dependency for this test only).
//!
//! Writer threads insert random mutations (batches of cells, mostly of one row, sorted or not,
//! with finger hints where true, many duplicate keys and rows that tie on the 16-byte inline
//! prefix) into both sets, while reader threads seek, iterate and call `last_below`. Each cell
//! goes first into `announced` (a crossbeam set of every key a writer is about to insert, never
//! replaced), then into our list, then into the oracle. So for a read of our list:
//!
//! - every key the oracle held before the read began is in our list: the read must see it;
//! - every key the read returns was announced before the read ended;
//! - what it returns is strictly ascending, each payload belongs to its key (a reader never
//!   sees a partly written entry), and seeks and `last_below` lie between the oracle's answer
//!   before the read and `announced`'s answer after it.
//!
//! At the end both sets hold the same keys in the same order, the visible payload of each key
//! is the last one a writer inserted for it (one of the writers' last ones, when several
//! threads inserted the key), and seeks and `last_below` at random probes equal the oracle's
//! `lower_bound` / `upper_bound`.
//!
//! `SKIPLIST_ORACLE_SEED=<n>` replays a seed (printed), `SKIPLIST_ORACLE_BATCHES=<n>` sets the
//! batches per writer.

use super::MemEntry;
use super::skiplist::SkipList;
use crate::model::key::{CellType, KeyRef};
use crossbeam_skiplist::SkipSet;
use std::collections::HashMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

const WRITERS: u64 = 3;
const READERS: u64 = 2;
/// Entries a ranged read takes.
const SPAN: usize = 24;

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| {
        v.parse()
            .unwrap_or_else(|_| panic!("{name} must be a number"))
    })
}

/// A row: short ones, ones that extend others (`r1`, `r1\0`, `r10`: equal inline prefixes
/// after zero padding) and long ones sharing their first 16 bytes (compared out of line).
fn row(next: &mut impl FnMut(u64) -> u64) -> Vec<u8> {
    match next(4) {
        0 | 1 => format!("r{}", next(300)).into_bytes(),
        2 => {
            let mut r = format!("r{}", next(5)).into_bytes();
            r.extend(std::iter::repeat_n(0u8, next(3) as usize));
            r
        }
        _ => format!("sixteen-byte-pfx{}", next(100)).into_bytes(),
    }
}

fn key(row: &[u8], next: &mut impl FnMut(u64) -> u64) -> Vec<u8> {
    KeyRef {
        row,
        family: if next(8) == 0 { b"g" } else { b"f" },
        qualifier: format!("q{}", next(4)).as_bytes(),
        ts: next(3) as i64,
        type_code: if next(6) == 0 {
            CellType::Delete.code()
        } else {
            CellType::Put.code()
        },
        seq: next(3),
    }
    .encode()
}

/// The payload of a cell: writer, batch, and a checksum of the key (so a reader can tell the
/// payload belongs to the key it read it with).
fn payload(writer: u64, batch: u64, key: &[u8]) -> Vec<u8> {
    let mut p = vec![writer as u8];
    p.extend_from_slice(&(batch as u32).to_le_bytes());
    p.extend_from_slice(&crc32fast::hash(key).to_le_bytes());
    p
}

/// Checks that an entry's payload was made for its key.
fn check_whole(e: &MemEntry) {
    let p = e.payload();
    assert_eq!(p.len(), 9, "payload {p:?}");
    assert!(u64::from(p[0]) < WRITERS, "payload {p:?}");
    assert_eq!(
        p[5..9],
        crc32fast::hash(e.key()).to_le_bytes(),
        "payload does not belong to its key"
    );
}

/// A probe key (any row and column, empty payload).
fn probe(next: &mut impl FnMut(u64) -> u64) -> MemEntry {
    let r = row(next);
    MemEntry::new(&key(&r, next), b"")
}

fn keys<'a>(it: impl Iterator<Item = &'a MemEntry>) -> Vec<Vec<u8>> {
    it.map(|e| e.key().to_vec()).collect()
}

/// Compares two optional entries by key (`None` last: "no such entry" lies past the end).
fn key_cmp(a: Option<&MemEntry>, b: Option<&MemEntry>) -> std::cmp::Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.cmp(b),
        (a, b) => b.is_some().cmp(&a.is_some()),
    }
}

#[test]
fn concurrent_inserts_and_reads_match_crossbeam() {
    let seed = env_u64("SKIPLIST_ORACLE_SEED").unwrap_or(0x0a5c_1e5e);
    let batches = env_u64("SKIPLIST_ORACLE_BATCHES").unwrap_or(6000);
    // Prints the seed; each thread derives its own generator from it.
    drop(crate::base::util::test_rng(seed));
    let start = Instant::now();
    let list = SkipList::new();
    let oracle: SkipSet<MemEntry> = SkipSet::new();
    let announced: SkipSet<MemEntry> = SkipSet::new();
    let writing = AtomicBool::new(true);
    let cells = AtomicU64::new(0);
    let reads = AtomicU64::new(0);
    let scanned = AtomicU64::new(0);
    let per_writer: Vec<HashMap<Vec<u8>, Vec<u8>>> = std::thread::scope(|s| {
        let readers: Vec<_> = (0..READERS)
            .map(|t| {
                let (list, oracle, announced) = (&list, &oracle, &announced);
                let (writing, reads, scanned) = (&writing, &reads, &scanned);
                s.spawn(move || {
                    let mut next = seeded(seed, 100 + t);
                    let mut last_full = 0;
                    while writing.load(Ordering::Acquire) {
                        if next(64) == 0 {
                            last_full = full_read(list, oracle, announced);
                            scanned.fetch_add(last_full as u64, Ordering::Relaxed);
                        } else {
                            ranged_read(list, oracle, announced, &probe(&mut next));
                        }
                        reads.fetch_add(1, Ordering::Relaxed);
                    }
                    last_full
                })
            })
            .collect();
        let writers: Vec<_> = (0..WRITERS)
            .map(|t| {
                let (list, oracle, announced, cells) = (&list, &oracle, &announced, &cells);
                s.spawn(move || write(t, seeded(seed, t), batches, list, oracle, announced, cells))
            })
            .collect();
        let done: Vec<_> = writers.into_iter().map(|w| w.join().unwrap()).collect();
        writing.store(false, Ordering::Release);
        for r in readers {
            r.join().unwrap();
        }
        done
    });

    // Quiescent: same keys in the same order, each key's payload a writer's last for it.
    let ours: Vec<&MemEntry> = list.iter_from(Bound::Unbounded).collect();
    let theirs: Vec<_> = oracle.iter().collect();
    assert_eq!(ours.len(), theirs.len(), "seed {seed}");
    assert_eq!(list.len(), theirs.len(), "seed {seed}");
    assert_eq!(
        keys(ours.iter().copied()),
        keys(theirs.iter().map(|e| e.value())),
        "seed {seed}"
    );
    assert!(ours.windows(2).all(|w| w[0] < w[1]), "seed {seed}");
    let mut shared = 0;
    for (o, c) in ours.iter().zip(&theirs) {
        check_whole(o);
        let lasts: Vec<&Vec<u8>> = per_writer.iter().filter_map(|m| m.get(o.key())).collect();
        for p in [o.payload(), c.value().payload()] {
            assert!(lasts.iter().any(|l| l[..] == *p), "seed {seed}");
        }
        if lasts.len() == 1 {
            assert_eq!(o.payload(), c.value().payload(), "seed {seed}");
        } else {
            shared += 1;
        }
    }
    let mut next = seeded(seed, 1000);
    for _ in 0..3000 {
        let p = probe(&mut next);
        let ge = oracle.lower_bound(Bound::Included(&p));
        let gt = oracle.lower_bound(Bound::Excluded(&p));
        let lt = oracle.upper_bound(Bound::Excluded(&p));
        let ours_ge = list.iter_from(Bound::Included(&p)).next();
        let ours_gt = list.iter_from(Bound::Excluded(&p)).next();
        assert_eq!(
            ours_ge.map(|e| e.key()),
            ge.as_ref().map(|e| e.value().key())
        );
        assert_eq!(
            ours_gt.map(|e| e.key()),
            gt.as_ref().map(|e| e.value().key())
        );
        assert_eq!(
            list.last_below(&p).map(|e| e.key()),
            lt.as_ref().map(|e| e.value().key())
        );
    }
    println!(
        "skiplist oracle: seed {seed:#x}, {WRITERS} writers x {batches} batches = {} cells, {} \
         distinct keys ({shared} written by several writers), {READERS} readers: {} checked \
         reads ({} entries in full scans), 3000 final probes, {:.1} s",
        cells.load(Ordering::Relaxed),
        ours.len(),
        reads.load(Ordering::Relaxed),
        scanned.load(Ordering::Relaxed),
        start.elapsed().as_secs_f64()
    );
}

/// Thread `t`'s generator for `seed`.
fn seeded(seed: u64, t: u64) -> impl FnMut(u64) -> u64 {
    let mut mix = crate::base::util::test_rng(seed ^ t.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    // Skip the first outputs (similar seeds start alike).
    for _ in 0..4 {
        mix(2);
    }
    mix
}

/// Writer `t`: `batches` random mutations into announced, then our list, then the oracle.
/// Returns the last payload it inserted for each key.
fn write(
    t: u64,
    mut next: impl FnMut(u64) -> u64,
    batches: u64,
    list: &SkipList,
    oracle: &SkipSet<MemEntry>,
    announced: &SkipSet<MemEntry>,
    cells: &AtomicU64,
) -> HashMap<Vec<u8>, Vec<u8>> {
    let mut last = HashMap::new();
    for b in 0..batches {
        let n = 1 + next(8) as usize;
        let r = row(&mut next);
        let mut batch: Vec<Vec<u8>> = (0..n)
            .map(|_| {
                if next(8) == 0 {
                    key(&row(&mut next), &mut next)
                } else {
                    key(&r, &mut next)
                }
            })
            .collect();
        if next(3) != 0 {
            batch.sort_by(|a, b| crate::model::key::compare_encoded(a, b));
        }
        let entries: Vec<MemEntry> = batch
            .iter()
            .map(|k| MemEntry::new(k, &payload(t, b, k)))
            .collect();
        // A true hint only where the entry does sort after the previous one.
        let hinted: Vec<(MemEntry, bool)> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.clone(), i > 0 && entries[i - 1] < *e && next(4) != 0))
            .collect();
        for e in &entries {
            // Not `insert`: crossbeam's replacing insert unlinks the old entry before it links
            // the new one, so a concurrent `contains` may miss the key meanwhile.
            announced.get_or_insert(e.clone());
        }
        list.insert(hinted);
        for e in entries {
            last.insert(e.key().to_vec(), e.payload().to_vec());
            oracle.insert(e);
        }
        cells.fetch_add(n as u64, Ordering::Relaxed);
    }
    last
}

/// A seek from `p` taking [`SPAN`] entries, an exclusive seek and a `last_below`, each checked
/// against the oracle before and `announced` after.
fn ranged_read(
    list: &SkipList,
    oracle: &SkipSet<MemEntry>,
    announced: &SkipSet<MemEntry>,
    p: &MemEntry,
) {
    let before: Vec<MemEntry> = oracle
        .range((Bound::Included(p), Bound::Unbounded))
        .take(SPAN)
        .map(|e| e.value().clone())
        .collect();
    let gt_before = oracle
        .lower_bound(Bound::Excluded(p))
        .map(|e| e.value().clone());
    let lt_before = oracle
        .upper_bound(Bound::Excluded(p))
        .map(|e| e.value().clone());

    let got: Vec<&MemEntry> = list.iter_from(Bound::Included(p)).take(SPAN).collect();
    let gt = list.iter_from(Bound::Excluded(p)).next();
    let lt = list.last_below(p);

    for e in got.iter().copied().chain(gt).chain(lt) {
        check_whole(e);
    }
    assert!(got.first().is_none_or(|e| *e >= p), "seek below its key");
    assert!(
        got.windows(2).all(|w| w[0] < w[1]),
        "not strictly ascending"
    );
    // The oracle's keys up to where the read stopped were in our list before it began.
    let end = if got.len() == SPAN {
        got.last().copied()
    } else {
        None
    };
    for e in &before {
        if end.is_some_and(|end| e > end) {
            break;
        }
        assert!(
            got.binary_search_by(|g| (*g).cmp(e)).is_ok(),
            "inserted before the read, not seen: {:?}",
            e.key()
        );
    }
    for e in &got {
        assert!(announced.contains(*e), "never inserted: {:?}", e.key());
    }
    // Exclusive seek: after p, no later than the oracle's answer before the read, and an
    // announced key.
    assert!(gt.is_none_or(|e| e > p));
    assert!(key_cmp(gt, gt_before.as_ref()).is_le());
    assert!(gt.is_none_or(|e| announced.contains(e)));
    // last_below: below p, no earlier than the oracle's answer before, and announced.
    assert!(lt.is_none_or(|e| e < p));
    match (lt, &lt_before) {
        (Some(l), Some(b)) => assert!(l >= b, "last_below went back"),
        (None, Some(b)) => panic!("last_below lost {:?}", b.key()),
        _ => {}
    }
    assert!(lt.is_none_or(|e| announced.contains(e)));
}

/// A full iteration, checked like [`ranged_read`]; returns the entries seen.
fn full_read(list: &SkipList, oracle: &SkipSet<MemEntry>, announced: &SkipSet<MemEntry>) -> usize {
    let before: Vec<MemEntry> = oracle.iter().map(|e| e.value().clone()).collect();
    let got: Vec<&MemEntry> = list.iter_from(Bound::Unbounded).collect();
    assert!(
        got.windows(2).all(|w| w[0] < w[1]),
        "not strictly ascending"
    );
    let mut i = 0;
    for e in &before {
        while i < got.len() && got[i] < e {
            i += 1;
        }
        assert!(
            i < got.len() && got[i] == e,
            "inserted before the scan, not seen: {:?}",
            e.key()
        );
    }
    let after: Vec<MemEntry> = announced.iter().map(|e| e.value().clone()).collect();
    let mut j = 0;
    for e in &got {
        check_whole(e);
        while j < after.len() && after[j] < **e {
            j += 1;
        }
        assert!(
            j < after.len() && after[j] == **e,
            "never inserted: {:?}",
            e.key()
        );
    }
    got.len()
}
