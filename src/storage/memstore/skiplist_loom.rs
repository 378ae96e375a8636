//! A loom model of the skiplist's publish/read protocol (`skiplist.rs`, module comment): one
//! writer at a time under the writer lock, lock-free readers, nodes fully written before the
//! `Release` stores that link them (or hang them off a replaced node, `over`), links loaded
//! with `Acquire`.
//!
//! Only in `RUSTFLAGS="--cfg loom"` builds: the skiplist's atomics, its writer lock and the
//! reads of node entries then come from loom (the shim at the top of `skiplist.rs`), so these
//! models run the real code under the interleavings of the threads (up to the preemption
//! bound) and the values each load may return under the C++ memory model. Besides the
//! assertions below, loom itself fails a model when a thread reads a node's entry, or loads
//! one of its links, without the node's writes happening-before the access: a node reachable
//! before it was fully initialized. Run (docs/TESTING.md, "Verifying the memstore skiplist"):
//!
//! `RUSTFLAGS="--cfg loom" cargo test --release --lib skiplist_loom -- --nocapture`
//!
//! `LOOM_MAX_PREEMPTIONS=<n>` overrides each model's preemption bound.
//!
//! Readers read twice: once at a point the scheduler chooses, and once after seeing the
//! writers' `Progress` counter move. The counter is `Relaxed` on both sides, so it creates no
//! happens-before edge (the read after it still depends on the skiplist's own `Release` /
//! `Acquire` pairs for what it may see); it only steers the reader behind the writers' stores.
//! That second read is needed: loom's partial-order reduction does not reorder a reader's load
//! after a writer's store to the same link when the writer loaded that link first (the
//! predecessor walk does; tokio-rs/loom issues 166 and 392), so without it no reader ever
//! reached a new node and a `Relaxed` publishing store went unnoticed.

use super::MemEntry;
use super::skiplist::SkipList;
use crate::model::key::{CellType, KeyRef};
use loom::sync::Arc;
use loom::sync::atomic::AtomicUsize as LoomUsize;
use loom::thread;
use std::ops::Bound;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The encoded key of cell `i`: one row, qualifiers `q0`, `q1`, ... (adjacent keys).
fn key(i: u8) -> Vec<u8> {
    KeyRef {
        row: b"row",
        family: b"f",
        qualifier: &[b'q', b'0' + i],
        ts: 1,
        type_code: CellType::Put.code(),
        seq: 1,
    }
    .encode()
}

/// Cell `i` with a payload naming its key and its writer.
fn cell(i: u8, writer: u8) -> MemEntry {
    MemEntry::new(&key(i), &[i, writer])
}

/// A probe for seeks to cell `i`.
fn probe(i: u8) -> MemEntry {
    MemEntry::new(&key(i), b"")
}

/// The cell index and writer of an entry (checks the payload belongs to the key: a reader
/// sees whole entries).
fn parse(e: &MemEntry) -> (u8, u8) {
    let p = e.payload();
    assert_eq!(p.len(), 2, "payload of {:?}", e.key());
    assert_eq!(
        e.key(),
        &key(p[0])[..],
        "payload does not belong to its key"
    );
    (p[0], p[1])
}

/// The cells from `from`, checked strictly ascending.
fn read(list: &SkipList, from: Bound<&MemEntry>) -> Vec<(u8, u8)> {
    let got: Vec<(u8, u8)> = list.iter_from(from).map(parse).collect();
    assert!(
        got.windows(2).all(|w| w[0].0 < w[1].0),
        "not strictly ascending: {got:?}"
    );
    got
}

/// A count of finished writer steps, `Relaxed` on both sides: no happens-before, only a way
/// to make a reader wait until the stores it is about are done (see the module comment).
#[derive(Clone)]
struct Progress(Arc<LoomUsize>);

impl Progress {
    fn new() -> Progress {
        Progress(Arc::new(LoomUsize::new(0)))
    }

    fn step(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    fn wait(&self, n: usize) {
        while self.0.load(Ordering::Relaxed) < n {
            thread::yield_now();
        }
    }
}

/// Checks `f` under loom with a default preemption bound of `bound` (unless
/// `LOOM_MAX_PREEMPTIONS` is set) and prints the number of executions explored.
fn check(name: &str, bound: usize, f: impl Fn() + Sync + Send + 'static) {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = builder.preemption_bound.or(Some(bound));
    let start = Instant::now();
    let before = RUNS.load(Ordering::Relaxed);
    builder.check(move || {
        RUNS.fetch_add(1, Ordering::Relaxed);
        f()
    });
    // Loom runs one model at a time (a global lock), but RUNS is shared by the models.
    println!(
        "loom {name}: {} executions, preemption bound {:?}, {:.1} s",
        RUNS.load(Ordering::Relaxed) - before,
        builder.preemption_bound,
        start.elapsed().as_secs_f64()
    );
}

/// Two writers insert concurrently while a reader iterates and seeks: writer 1 inserts cells
/// 0 and 2 in one call (the second with the finger, hinted `after`), writer 2 inserts cell 1,
/// which lands between them (and the third node made is two levels tall, so a tower above
/// level 0 is published too). The reader sees whole entries, strictly ascending, never fewer
/// than before; a seek returns the first cell at or after its key; after the joins every cell
/// is there.
#[test]
fn two_writers_and_a_reader() {
    check("two_writers_and_a_reader", 3, || {
        let list = Arc::new(SkipList::new());
        let progress = Progress::new();
        let w1 = {
            let (list, progress) = (list.clone(), progress.clone());
            thread::spawn(move || {
                list.insert([(cell(0, 1), false), (cell(2, 1), true)]);
                progress.step();
            })
        };
        let w2 = {
            let (list, progress) = (list.clone(), progress.clone());
            thread::spawn(move || {
                list.insert([(cell(1, 2), false)]);
                progress.step();
            })
        };
        let first = read(&list, Bound::Unbounded);
        progress.wait(1);
        let from1 = read(&list, Bound::Included(&probe(1)));
        progress.wait(2);
        let second = read(&list, Bound::Unbounded);
        // Cells are never removed: what a read saw, later reads see again.
        for c in &first {
            assert!(second.contains(c), "lost {c:?}: {first:?} then {second:?}");
            assert!(c.0 < 1 || from1.contains(c), "seek lost {c:?}: {from1:?}");
        }
        assert!(from1.first().is_none_or(|c| c.0 >= 1), "{from1:?}");
        let below = list.last_below(&probe(2)).map(parse);
        assert!(below.is_none_or(|b| b.0 < 2), "{below:?}");
        w1.join().unwrap();
        w2.join().unwrap();
        assert_eq!(read(&list, Bound::Unbounded), [(0, 1), (1, 2), (2, 1)]);
        assert_eq!(list.len(), 3);
        assert_eq!(list.last_below(&probe(1)).map(parse), Some((0, 1)));
        assert_eq!(read(&list, Bound::Excluded(&probe(1))), [(2, 1)]);
    });
}

/// Two writers insert the same key (the second replaces the first [SORT-7]: a node hung off
/// the first with a `Release` store of `over`), writer 2 also the adjacent cell 1 with the
/// finger, while a reader seeks to cell 0. The reader finds whole versions of cell 0 (cell 1
/// is inserted after a version of cell 0, so never without it) and never loses it again;
/// after the joins the visible version is the one inserted last (each writer seeks cell 0
/// after its insert: if it finds the other's version, that one came later).
#[test]
fn equal_and_adjacent_keys_race() {
    check("equal_and_adjacent_keys_race", 3, || {
        let list = Arc::new(SkipList::new());
        let progress = Progress::new();
        let first = |list: &SkipList| read(list, Bound::Included(&probe(0))).first().copied();
        let w1 = {
            let (list, progress) = (list.clone(), progress.clone());
            thread::spawn(move || {
                list.insert([(cell(0, 1), false)]);
                progress.step();
                first(&list).unwrap().1
            })
        };
        let w2 = {
            let (list, progress) = (list.clone(), progress.clone());
            thread::spawn(move || {
                list.insert([(cell(0, 2), false), (cell(1, 2), true)]);
                progress.step();
                first(&list).unwrap().1
            })
        };
        let r1 = first(&list);
        progress.wait(1);
        let r2 = first(&list);
        progress.wait(2);
        let r3 = first(&list);
        assert!(r1.is_none() || r2.is_some(), "{r1:?} then {r2:?}");
        assert!(r2.is_none() || r3.is_some(), "{r2:?} then {r3:?}");
        for r in [r1, r2, r3].into_iter().flatten() {
            assert_eq!(r.0, 0, "{r:?}");
        }
        let seen1 = w1.join().unwrap();
        let seen2 = w2.join().unwrap();
        let last = read(&list, Bound::Unbounded);
        assert_eq!(last.len(), 2, "{last:?}");
        assert_eq!(last[1], (1, 2));
        let winner = last[0].1;
        // A writer that found the other's version after its own insert was replaced by it.
        if seen1 == 2 {
            assert_eq!(winner, 2);
        }
        if seen2 == 1 {
            assert_eq!(winner, 1);
        }
        assert_eq!(list.len(), 2);
        assert_eq!(list.last_below(&probe(1)).map(parse), Some(last[0]));
        assert!(list.last_below(&probe(0)).is_none());
    });
}

/// Three writers, one cell each (cells 2, 0, 1: the middle one lands between the others),
/// and the main thread reading with `last_below` and iterating meanwhile. Ordered, whole,
/// complete after the joins.
#[test]
fn three_writers_one_cell_each() {
    check("three_writers_one_cell_each", 2, || {
        let list = Arc::new(SkipList::new());
        let progress = Progress::new();
        let writers: Vec<_> = [2u8, 0, 1]
            .into_iter()
            .map(|i| {
                let (list, progress) = (list.clone(), progress.clone());
                thread::spawn(move || {
                    list.insert([(cell(i, i), false)]);
                    progress.step();
                })
            })
            .collect();
        let below = list.last_below(&probe(2)).map(parse);
        let first = read(&list, Bound::Unbounded);
        if let Some(b) = below {
            assert!(b.0 < 2 && first.contains(&b), "{below:?} then {first:?}");
        }
        progress.wait(3);
        let second = read(&list, Bound::Unbounded);
        assert!(
            first.iter().all(|c| second.contains(c)),
            "{first:?} then {second:?}"
        );
        for w in writers {
            w.join().unwrap();
        }
        assert_eq!(read(&list, Bound::Unbounded), [(0, 0), (1, 1), (2, 2)]);
        assert_eq!(list.len(), 3);
    });
}
