//! Background flushes and compactions, inline flushes without background threads, and row
//! atomicity under concurrent readers [ATOM-1] [REG-2].

use super::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

fn small_table(db: &Db) -> Table {
    db.create_table(
        TableDescriptor::new("t")
            .family(FamilyDescriptor::new("f"))
            .memstore_flush_size(32 << 10),
    )
    .unwrap()
}

/// With no background threads, a write that takes the memstore past the flush size flushes
/// it inline; nothing waits for a thread.
#[test]
fn zero_background_threads_flush_inline() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(dir.path(), DbOptions::default().background_threads(0)).unwrap();
    let t = small_table(&db);
    // Rows in a scattered order, so flushed files share rows: files of ascending rows would
    // be one sorted run, which a minor compaction leaves alone (tests/storage/runs.rs).
    for i in 0..2_000 {
        let row = (i * 7_919) % 2_000;
        t.put(Put::new(format!("r{row:05}")).add("f", "q", [1u8; 100]))
            .unwrap();
    }
    let r = &t.regions()[0];
    assert!(r.store_files >= 5, "{r:?}");
    assert!(r.memstore_bytes < 64 << 10, "{r:?}");
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 2_000);
    // Minor compactions run only when called.
    let before = t.regions()[0].store_files;
    t.compact().unwrap();
    assert!(t.regions()[0].store_files < before);
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 2_000);
}

/// Background threads flush and compact while writers and readers run; everything written
/// is readable, during and after, and after a reopen.
#[test]
fn background_flush_and_compaction_under_load() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(dir.path(), DbOptions::default().background_threads(2)).unwrap();
    let t = small_table(&db);
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let t = t.clone();
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut scans = 0;
            while !stop.load(Ordering::Relaxed) {
                let rows: Vec<_> = t
                    .scan(Scan::new())
                    .unwrap()
                    .map(|r| r.unwrap().row().to_vec())
                    .collect();
                assert!(
                    rows.windows(2).all(|w| w[0] < w[1]),
                    "scan out of order or duplicated"
                );
                scans += 1;
            }
            scans
        })
    };
    let writers: Vec<_> = (0..3)
        .map(|w| {
            let t = t.clone();
            std::thread::spawn(move || {
                for i in 0..3_000 {
                    t.put(Put::new(format!("w{w}-{i:05}")).add("f", "q", [w as u8; 64]))
                        .unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    assert!(reader.join().unwrap() > 0);
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 9_000);
    let r = &t.regions()[0];
    assert!(r.store_files >= 1, "background flushes happened: {r:?}");
    assert!(
        r.store_files <= 17,
        "compactions keep the file count bounded: {r:?}"
    );
    db.close().unwrap();
    let db = Db::open(dir.path()).unwrap();
    assert_eq!(
        db.table("t").unwrap().scan(Scan::new()).unwrap().count(),
        9_000
    );
}

/// [ATOM-1] readers never see half a row mutation, across flushes.
#[test]
fn readers_never_see_half_a_mutation() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(dir.path(), DbOptions::default().background_threads(1)).unwrap();
    let t = small_table(&db);
    let stop = Arc::new(AtomicBool::new(false));
    let check = |row: &RowResult| {
        let vals: Vec<&[u8]> = ["a", "b", "c"]
            .iter()
            .map(|q| row.value("f", q).unwrap())
            .collect();
        assert!(vals.iter().all(|v| *v == vals[0]), "torn row: {row:?}");
    };
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let t = t.clone();
            let stop = stop.clone();
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let g = t.get(Get::new("hot")).unwrap();
                    if !g.is_empty() {
                        check(&g);
                    }
                    for r in t.scan(Scan::new().prefix("hot")).unwrap() {
                        check(&r.unwrap());
                    }
                }
            })
        })
        .collect();
    for i in 0..3_000u32 {
        let v = i.to_be_bytes();
        t.put(
            Put::new("hot")
                .add("f", "a", v)
                .add("f", "b", v)
                .add("f", "c", v),
        )
        .unwrap();
        t.put(Put::new(format!("filler{i}")).add("f", "a", [0u8; 200]))
            .unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.join().unwrap();
    }
    let last = t.get(Get::new("hot")).unwrap();
    assert_eq!(last.value("f", "a"), Some(&2_999u32.to_be_bytes()[..]));
}
