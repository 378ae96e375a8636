//! Concurrency stress [issue 5, item 7]: writers, counter incrementers, readers, scanners
//! (forward and reversed) and an admin thread doing flushes, minor and major compactions,
//! splits and merges, all at once, with background flush and compaction threads. Checked:
//! no counter increment is lost, every put is readable afterwards, counters never go
//! backwards for a reader, a writer reads its own write (two writers use FsyncWal group commit,
//! where the batch leader applies their mutations), scans never return a row twice or out of
//! order, and the whole run finishes within a generous time bound (a deadlock fails the test
//! instead of hanging it).
//! The schedule of threads is not deterministic; the workload (rows, values, operation counts)
//! is, from `STRESS_SEED`. `STRESS_ROUNDS` scales the operation counts (long mode).

#[path = "../common/mod.rs"]
mod common;

use cellbase::{
    Db, DbOptions, Durability, FamilyDescriptor, Get, Increment, Put, Scan, Table, TableDescriptor,
};
use common::Rng;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

const COUNTERS: u64 = 8;
const DEADLOCK_BOUND: Duration = Duration::from_secs(240);

fn check_scan(t: &Table, reversed: bool) -> usize {
    let mut prev: Option<Vec<u8>> = None;
    let mut n = 0;
    for r in t.scan(Scan::new().reversed(reversed)).expect("scan") {
        let r = r.expect("scan row");
        let row = r.row().to_vec();
        if let Some(p) = &prev {
            if reversed {
                assert!(
                    row < *p,
                    "reversed scan out of order or repeated: {row:?} after {p:?}"
                );
            } else {
                assert!(
                    row > *p,
                    "scan out of order or repeated: {row:?} after {p:?}"
                );
            }
        }
        prev = Some(row);
        n += 1;
    }
    n
}

fn counter(t: &Table, i: u64) -> i64 {
    t.get(Get::new(format!("ctr{i}")))
        .expect("get counter")
        .value("f", "n")
        .map_or(0, |b| i64::from_be_bytes(b.try_into().expect("8 bytes")))
}

#[test]
fn concurrent_writers_readers_scanners_and_admin_keep_invariants() {
    let seed = common::env_u64("STRESS_SEED").unwrap_or(0x57e55);
    let rounds = common::env_u64("STRESS_ROUNDS").unwrap_or(1);
    println!("stress seed {seed}, rounds {rounds} (STRESS_SEED / STRESS_ROUNDS to change)");
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(
        dir.path(),
        DbOptions::default()
            .background_threads(2)
            .durability(Durability::SyncWal)
            .wal_segment_size(64 << 10),
    )
    .unwrap();
    let t = db
        .create_table(
            TableDescriptor::new("t")
                .family(FamilyDescriptor::new("f").block_size(1024))
                .memstore_flush_size(32 << 10)
                .max_region_size(256 << 10),
        )
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    // Writers and incrementers keep going (past their minimum) until the admin thread has done
    // its operations, so flushes, compactions, splits and merges overlap with writes.
    let admin_done = Arc::new(AtomicBool::new(false));
    let admin_ops = 25 * rounds;
    let (done_tx, done_rx) = mpsc::channel::<(String, u64)>();
    let mut handles = Vec::new();
    let spawn = |name: String, f: Box<dyn FnOnce() -> u64 + Send>, handles: &mut Vec<_>| {
        let tx = done_tx.clone();
        handles.push(std::thread::spawn(move || {
            let n = f();
            let _ = tx.send((name, n));
        }));
    };
    let writers = 3u64;
    let puts_per_writer = 600 * rounds;
    for w in 0..writers {
        let t = t.clone();
        let admin_done = admin_done.clone();
        spawn(
            format!("writer{w}"),
            Box::new(move || {
                let mut rng = Rng::new(seed ^ w);
                let mut i = 0;
                while i < puts_per_writer
                    || (!admin_done.load(Ordering::Acquire) && i < 6 * puts_per_writer)
                {
                    let v = format!("w{w}-{i}-{}", "v".repeat(rng.index(80)));
                    let row = format!("p{w}-{i:06}");
                    let mut p = Put::new(row.clone()).add("f", "q", v);
                    if w < 2 {
                        // FsyncWal group commit: the batch leader applies the mutation.
                        p = p.durability(Durability::FsyncWal);
                    }
                    t.put(p).expect("put");
                    if i % 5 == 0 {
                        // A writer reads its own write once put returns.
                        let r = t.get(Get::new(row)).expect("get");
                        assert!(
                            r.value("f", "q").is_some(),
                            "own write p{w}-{i} not visible"
                        );
                    }
                    i += 1;
                }
                i
            }),
            &mut handles,
        );
    }
    let incrementers = 3u64;
    let incs_per_thread = 500 * rounds;
    for w in 0..incrementers {
        let t = t.clone();
        let admin_done = admin_done.clone();
        spawn(
            format!("incrementer{w}"),
            Box::new(move || {
                let mut rng = Rng::new(seed ^ (100 + w));
                let mut n = 0;
                while n < incs_per_thread
                    || (!admin_done.load(Ordering::Acquire) && n < 6 * incs_per_thread)
                {
                    let c = rng.below(COUNTERS);
                    t.increment(Increment::new(format!("ctr{c}")).add("f", "n", 1))
                        .expect("increment");
                    n += 1;
                }
                n
            }),
            &mut handles,
        );
    }
    for w in 0..2u64 {
        let t = t.clone();
        let stop = stop.clone();
        spawn(
            format!("scanner{w}"),
            Box::new(move || {
                let mut scans = 0;
                while !stop.load(Ordering::Acquire) {
                    check_scan(&t, w == 1);
                    scans += 1;
                }
                scans
            }),
            &mut handles,
        );
    }
    {
        let t = t.clone();
        let stop = stop.clone();
        spawn(
            "reader".into(),
            Box::new(move || {
                let mut last = [0i64; COUNTERS as usize];
                let mut reads = 0;
                while !stop.load(Ordering::Acquire) {
                    for (i, l) in last.iter_mut().enumerate() {
                        let v = counter(&t, i as u64);
                        assert!(v >= *l, "counter ctr{i} went backwards: {v} after {l}");
                        *l = v;
                        reads += 1;
                    }
                }
                reads
            }),
            &mut handles,
        );
    }
    {
        let t = t.clone();
        let admin_done = admin_done.clone();
        spawn(
            "admin".into(),
            Box::new(move || {
                let mut rng = Rng::new(seed ^ 0xad);
                let mut ops = 0;
                let verbose = std::env::var_os("STRESS_VERBOSE").is_some();
                while ops < admin_ops {
                    let kind = rng.below(6);
                    if verbose {
                        eprintln!("admin op {ops}: kind {kind}, {} regions", t.regions().len());
                    }
                    match kind {
                        0 => t.flush().expect("flush"),
                        1 => t.compact().expect("compact"),
                        2 => t.major_compact().expect("major compact"),
                        // split(None) splits every region with a split point: keep the
                        // region count bounded (otherwise it doubles each time and every later
                        // major compaction and scan slows down accordingly).
                        3 if t.regions().len() < 24 => t.split(None).expect("split"),
                        3 => {}
                        4 => {
                            let row = format!("p{}-{:06}", rng.below(writers), rng.below(600));
                            // Refused when the row is a region's start key.
                            let _ = t.split(Some(row.as_bytes()));
                        }
                        _ => {
                            let rs = t.regions();
                            if rs.len() > 2 {
                                let k = rng.index(rs.len() - 1);
                                // Refused when a concurrent split replaced a region.
                                let _ = t.merge(&rs[k].name, &rs[k + 1].name);
                            }
                        }
                    }
                    ops += 1;
                }
                admin_done.store(true, Ordering::Release);
                ops
            }),
            &mut handles,
        );
    }
    drop(done_tx);
    // Writers and incrementers end by themselves; then stop the rest.
    let finite = (writers + incrementers + 1) as usize;
    let total = handles.len();
    let mut finished = Vec::new();
    let mut puts_done = vec![0u64; writers as usize];
    let mut increments_done = 0u64;
    while finished.len() < total {
        match done_rx.recv_timeout(DEADLOCK_BOUND) {
            Ok((name, n)) => {
                println!("{name}: {n} operations");
                if let Some(w) = name.strip_prefix("writer") {
                    puts_done[w.parse::<usize>().unwrap()] = n;
                } else if name.starts_with("incrementer") {
                    increments_done += n;
                }
                finished.push(name);
                let done_finite = finished
                    .iter()
                    .filter(|n| {
                        n.starts_with("writer") || n.starts_with("incrementer") || *n == "admin"
                    })
                    .count();
                if done_finite == finite {
                    stop.store(true, Ordering::Release);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => panic!(
                "no thread finished within {DEADLOCK_BOUND:?} (deadlock?); finished: {finished:?}"
            ),
            // A thread panicked (its sender is gone): join reports it below.
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                stop.store(true, Ordering::Release);
                break;
            }
        }
    }
    for h in handles {
        h.join().expect("a stress thread panicked");
    }
    verify(&t, &puts_done, increments_done);
    println!("regions at the end: {}", t.regions().len());
    drop(t);
    db.close().unwrap();
    // Everything is still there after a reopen.
    let db = Db::open_with(dir.path(), DbOptions::default().background_threads(0)).unwrap();
    let t = db.table("t").unwrap();
    verify(&t, &puts_done, increments_done);
}

fn verify(t: &Table, puts_done: &[u64], increments: u64) {
    let total: i64 = (0..COUNTERS).map(|i| counter(t, i)).sum();
    assert_eq!(total, increments as i64, "lost counter increments");
    for (w, &puts) in puts_done.iter().enumerate() {
        for i in (0..puts).step_by(7) {
            assert!(
                t.get(Get::new(format!("p{w}-{i:06}")))
                    .unwrap()
                    .value("f", "q")
                    .is_some(),
                "put p{w}-{i} lost"
            );
        }
    }
    let n = check_scan(t, false);
    assert_eq!(
        n as u64,
        puts_done.iter().sum::<u64>() + COUNTERS,
        "rows after the run"
    );
    assert_eq!(check_scan(t, true), n);
}
