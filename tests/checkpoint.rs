//! Checkpoints (RocksDB's Checkpoint; issue 25): a copy that opens as a database, taken while
//! writers keep writing, holding the database as it was at one moment between the call and
//! its return; an existing target is refused untouched; block files are linked, not copied.

use cellbase::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};

fn desc() -> TableDescriptor {
    TableDescriptor::new("t").family(FamilyDescriptor::new("f"))
}

fn rows(t: &Table) -> Vec<(Vec<u8>, Vec<u8>)> {
    t.scan(Scan::new())
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            (r.row().to_vec(), r.cells()[0].value().to_vec())
        })
        .collect()
}

#[test]
fn a_checkpoint_opens_as_the_database_and_is_independent() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path().join("db")).unwrap();
    let t = db.create_table(desc()).unwrap();
    for i in 0..500 {
        t.put(Put::new(format!("r{i:04}")).add("f", "q", format!("v{i}")))
            .unwrap();
        if i == 200 {
            t.flush().unwrap();
        }
    }
    t.delete(Delete::new("r0007")).unwrap();
    let before = rows(&t);
    let copy = dir.path().join("copy");
    let info = db.checkpoint(&copy).unwrap();
    assert!(info.files_linked >= 1, "{info:?}");
    // Writes after the checkpoint stay out of it.
    t.put(Put::new("after").add("f", "q", "x")).unwrap();
    let c = Db::open(&copy).unwrap();
    let ct = c.table("t").unwrap();
    assert_eq!(rows(&ct), before);
    assert!(ct.get(Get::new("r0007")).unwrap().is_empty());
    // Independent: writes to either never show in the other.
    ct.put(Put::new("only-in-copy").add("f", "q", "y")).unwrap();
    ct.flush().unwrap();
    ct.major_compact().unwrap();
    assert!(t.get(Get::new("only-in-copy")).unwrap().is_empty());
    assert!(ct.get(Get::new("after")).unwrap().is_empty());
    t.major_compact().unwrap();
    c.close().unwrap();
    db.close().unwrap();
    // Both reopen with their own contents.
    let c = Db::open(&copy).unwrap();
    assert_eq!(rows(&c.table("t").unwrap()).len(), before.len() + 1);
    let db = Db::open(dir.path().join("db")).unwrap();
    assert_eq!(rows(&db.table("t").unwrap()).len(), before.len() + 1);
}

#[test]
fn an_existing_target_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path().join("db")).unwrap();
    db.create_table(desc()).unwrap();
    let target = dir.path().join("target");
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("keep"), b"mine").unwrap();
    let e = db.checkpoint(&target).unwrap_err();
    assert!(e.to_string().contains("already exists"), "{e}");
    let names: Vec<_> = std::fs::read_dir(&target)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("keep")]);
    assert_eq!(std::fs::read(target.join("keep")).unwrap(), b"mine");
    assert!(!dir.path().join("target.tmp").exists());
}

/// Block files are hard links of the database's own (same inode): no data is copied, and the
/// bytes written stay small (the log since the checkpoint's flush, the manifest) however large
/// the database is.
#[cfg(unix)]
#[test]
fn block_files_are_linked_not_copied() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(
        dir.path().join("db"),
        DbOptions::default().background_threads(0),
    )
    .unwrap();
    let t = db.create_table(desc()).unwrap();
    let value = vec![b'x'; 1000];
    for i in 0..8_000 {
        t.put(Put::new(format!("r{i:05}")).add("f", "q", &value))
            .unwrap();
        if i % 2_000 == 1_999 {
            t.flush().unwrap();
        }
    }
    let data_bytes: u64 = std::fs::read_dir(dir.path().join("db/data"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(data_bytes > 4_000_000, "{data_bytes}");
    let copy = dir.path().join("copy");
    let info = db.checkpoint(&copy).unwrap();
    assert_eq!(info.files_copied, 0, "{info:?}");
    assert!(info.files_linked >= 4, "{info:?}");
    assert!(
        info.bytes_written < 2 << 20,
        "{} bytes written for a {data_bytes}-byte database",
        info.bytes_written
    );
    for e in std::fs::read_dir(copy.join("data")).unwrap() {
        let e = e.unwrap();
        let orig = dir.path().join("db/data").join(e.file_name());
        assert_eq!(
            e.metadata().unwrap().ino(),
            std::fs::metadata(&orig).unwrap().ino(),
            "{:?} is not a link",
            e.file_name()
        );
    }
    let c = Db::open(&copy).unwrap();
    assert_eq!(rows(&c.table("t").unwrap()).len(), 8_000);
}

/// Model check: four writers each write their own rows in order while a checkpoint runs. In
/// the copy, each writer's rows are a prefix of what it wrote, at least everything it had
/// acknowledged when the checkpoint began and nothing it wrote after the checkpoint returned.
#[test]
fn a_checkpoint_under_concurrent_writes_is_a_point_in_time() {
    for durability in [Durability::SyncWal, Durability::AsyncWal] {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open_with(
            dir.path().join("db"),
            DbOptions::default()
                .durability(durability)
                .memstore_flush_size(64 << 10),
        )
        .unwrap();
        let t = db.create_table(desc()).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let acked: Arc<Vec<AtomicU64>> = Arc::new((0..4).map(|_| AtomicU64::new(0)).collect());
        let go = Arc::new(Barrier::new(5));
        let writers: Vec<_> = (0..4)
            .map(|w| {
                let (t, stop, acked, go) = (t.clone(), stop.clone(), acked.clone(), go.clone());
                std::thread::spawn(move || {
                    go.wait();
                    let mut i = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        t.put(Put::new(format!("w{w}-{i:07}")).add("f", "q", "v"))
                            .unwrap();
                        i += 1;
                        acked[w].store(i, Ordering::Release);
                    }
                })
            })
            .collect();
        go.wait();
        std::thread::sleep(std::time::Duration::from_millis(100));
        let lo: Vec<u64> = acked.iter().map(|a| a.load(Ordering::Acquire)).collect();
        let copy = dir.path().join("copy");
        db.checkpoint(&copy).unwrap();
        let hi: Vec<u64> = acked.iter().map(|a| a.load(Ordering::Acquire)).collect();
        std::thread::sleep(std::time::Duration::from_millis(50));
        stop.store(true, Ordering::Relaxed);
        for h in writers {
            h.join().unwrap();
        }
        let c = Db::open(&copy).unwrap();
        let got = rows(&c.table("t").unwrap());
        for w in 0..4 {
            let mine: Vec<u64> = got
                .iter()
                .filter_map(|(r, _)| {
                    let r = String::from_utf8(r.clone()).unwrap();
                    r.strip_prefix(&format!("w{w}-"))
                        .map(|n| n.parse().unwrap())
                })
                .collect();
            let k = mine.len() as u64;
            assert_eq!(
                mine,
                (0..k).collect::<Vec<_>>(),
                "{durability:?}: writer {w}'s rows are not a prefix"
            );
            // AsyncWal acknowledges before the log write; the checkpoint writes buffered
            // records out first, so the lower bound holds for both.
            assert!(
                (lo[w]..=hi[w] + 1).contains(&k),
                "{durability:?}: writer {w}: {k} rows in the copy, acknowledged {} at the start and {} at the return",
                lo[w],
                hi[w]
            );
        }
    }
}

/// A power cut at every mutating I/O of a checkpoint (fault filesystem over the in-memory one):
/// the source reopens with everything it had, and the target is either absent (the rename
/// never became durable; a `.tmp` may be left) or a whole database equal to the source.
#[test]
fn a_power_cut_anywhere_in_a_checkpoint_leaves_the_source_whole_and_the_copy_all_or_nothing() {
    use cellbase::testing::io::{FaultFs, FileSystem, MemFs};
    let opts = || {
        DbOptions::default()
            .background_threads(0)
            .durability(Durability::FsyncWal)
            .clock(ManualClock::new(1_700_000_000_000))
    };
    let prepare = |fs: Arc<dyn FileSystem>| -> Db {
        let db = Db::open_with_fs("/db", opts(), fs).unwrap();
        let t = db.create_table(desc()).unwrap();
        for i in 0..60 {
            t.put(Put::new(format!("r{i:03}")).add("f", "q", "v"))
                .unwrap();
            if i == 30 {
                t.flush().unwrap();
            }
        }
        db
    };
    let probe = FaultFs::over_mem(MemFs::new());
    let db = prepare(Arc::new(probe.clone()));
    let before = probe.mutating_ops();
    db.checkpoint("/copy").unwrap();
    let total = probe.mutating_ops();
    assert!(total > before + 5, "{before}..{total}");
    drop(db);
    for n in before..total {
        let mem = MemFs::new();
        let fault = FaultFs::over_mem(mem.clone());
        let db = prepare(Arc::new(fault.clone()));
        fault.crash_at(n, false);
        let _ = db.checkpoint("/copy");
        assert!(
            fault.power_lost(),
            "cut {n}: the checkpoint ended before the cut"
        );
        drop(db);
        fault.crash().unwrap();
        let src = Db::open_with_fs("/db", opts(), Arc::new(mem.clone()))
            .unwrap_or_else(|e| panic!("cut {n}: the source does not reopen: {e}"));
        assert_eq!(rows(&src.table("t").unwrap()).len(), 60, "cut {n}: source");
        src.close().unwrap();
        if mem.exists(std::path::Path::new("/copy")) {
            let copy = Db::open_with_fs("/copy", opts(), Arc::new(mem))
                .unwrap_or_else(|e| panic!("cut {n}: the copy exists but does not open: {e}"));
            assert_eq!(rows(&copy.table("t").unwrap()).len(), 60, "cut {n}: copy");
        }
    }
}
