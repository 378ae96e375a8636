//! Table snapshots (issue 25), after HBase's TestSnapshotFromClient and
//! TestRestoreSnapshotFromClient: a snapshot is one moment of the whole table; clones are
//! independent; restores bring back schema, regions and cells after splits, merges,
//! compactions and a drop; files live while anything lists them; HBase's errors.

use cellbase::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};

fn open(dir: &std::path::Path) -> Db {
    Db::open_with(
        dir,
        DbOptions::default()
            .background_threads(0)
            .clock(ManualClock::new(1_700_000_000_000)),
    )
    .unwrap()
}

fn desc(name: &str) -> TableDescriptor {
    TableDescriptor::new(name)
        .family(FamilyDescriptor::new("f"))
        .split_keys(["m"])
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

fn fill(t: &Table, prefix: &str, n: u32, value: &str) {
    for i in 0..n {
        t.put(Put::new(format!("{prefix}{i:04}")).add("f", "q", value))
            .unwrap();
    }
}

fn sst_count(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir.join("data")).unwrap().count()
}

#[test]
fn clone_is_the_table_at_the_snapshot_and_independent() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let t = db.create_table(desc("t")).unwrap();
    fill(&t, "a", 50, "v1");
    fill(&t, "x", 50, "v1");
    t.flush().unwrap();
    fill(&t, "b", 10, "v1"); // memstore only: the snapshot flushes it
    db.snapshot("t", "s1").unwrap();
    let at_snapshot = rows(&t);
    fill(&t, "a", 50, "v2");
    let snaps = db.list_snapshots();
    assert_eq!(snaps.len(), 1);
    assert_eq!(
        (snaps[0].name.as_str(), snaps[0].table.as_str()),
        ("s1", "t")
    );
    // The snapshot's time is the database clock's.
    assert_eq!(snaps[0].created_ms, 1_700_000_000_000);
    assert_eq!(snaps[0].regions, 2);

    let c = db.clone_snapshot("s1", "t_clone").unwrap();
    assert_eq!(rows(&c), at_snapshot);
    assert_eq!(c.regions().len(), 2);
    // Writes to either never show in the other.
    c.put(Put::new("a0000").add("f", "q", "clone")).unwrap();
    t.put(Put::new("x0001").add("f", "q", "source")).unwrap();
    assert_eq!(
        c.get(Get::new("x0001")).unwrap().value("f", "q"),
        Some(&b"v1"[..])
    );
    assert_eq!(
        t.get(Get::new("a0000")).unwrap().value("f", "q"),
        Some(&b"v2"[..])
    );
    // Compactions on both sides, then a reopen: both keep their own cells.
    c.major_compact().unwrap();
    t.major_compact().unwrap();
    let (c_rows, t_rows) = (rows(&c), rows(&t));
    db.close().unwrap();
    let db = open(dir.path());
    assert_eq!(rows(&db.table("t_clone").unwrap()), c_rows);
    assert_eq!(rows(&db.table("t").unwrap()), t_rows);
    assert_eq!(db.list_snapshots().len(), 1);
    // A second clone of the same snapshot is the snapshot again.
    let c2 = db.clone_snapshot("s1", "t_clone2").unwrap();
    assert_eq!(rows(&c2), at_snapshot);
}

/// The snapshot survives the source's compactions, its drop and a reopen; a restore of the
/// dropped table re-creates it, disabled.
#[test]
fn snapshot_survives_compaction_drop_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let t = db.create_table(desc("t")).unwrap();
    fill(&t, "a", 100, "v1");
    fill(&t, "n", 100, "v1");
    db.snapshot("t", "s").unwrap();
    let at_snapshot = rows(&t);
    t.delete(Delete::new("a0001")).unwrap();
    fill(&t, "n", 100, "v2");
    t.major_compact().unwrap();
    db.disable_table("t").unwrap();
    db.drop_table("t").unwrap();
    db.close().unwrap();
    let db = open(dir.path());
    db.restore_snapshot("s").unwrap();
    assert!(
        !db.is_table_enabled("t").unwrap(),
        "a restore leaves the table disabled"
    );
    db.enable_table("t").unwrap();
    assert_eq!(rows(&db.table("t").unwrap()), at_snapshot);
}

/// Restore after splits and merges: regions, schema and cells come back as they were.
#[test]
fn restore_after_splits_merges_and_alter() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let t = db.create_table(desc("t")).unwrap();
    fill(&t, "c", 100, "v1");
    fill(&t, "p", 100, "v1");
    db.snapshot("t", "s").unwrap();
    let at_snapshot = rows(&t);
    let regions_then: Vec<(Vec<u8>, Vec<u8>)> = t
        .regions()
        .into_iter()
        .map(|r| (r.start_key, r.end_key))
        .collect();
    t.split(Some(b"c0050")).unwrap();
    t.split(Some(b"p0050")).unwrap();
    fill(&t, "c", 100, "v2");
    let r = t.regions();
    t.merge(&r[2].name, &r[3].name).unwrap();
    db.alter_family("t", FamilyDescriptor::new("g")).unwrap();
    // Restoring an enabled table is refused, as in HBase.
    match db.restore_snapshot("s") {
        Err(Error::TableNotDisabled(name)) => assert_eq!(name, "t"),
        other => panic!("restore of an enabled table: {other:?}"),
    }
    db.disable_table("t").unwrap();
    db.restore_snapshot("s").unwrap();
    db.enable_table("t").unwrap();
    let t = db.table("t").unwrap();
    assert_eq!(rows(&t), at_snapshot);
    let regions_now: Vec<(Vec<u8>, Vec<u8>)> = t
        .regions()
        .into_iter()
        .map(|r| (r.start_key, r.end_key))
        .collect();
    assert_eq!(regions_now, regions_then);
    assert_eq!(db.describe("t").unwrap().families().len(), 1);
    // Writes after the restore work and survive a reopen.
    t.put(Put::new("zz").add("f", "q", "after")).unwrap();
    db.close().unwrap();
    let db = open(dir.path());
    let t = db.table("t").unwrap();
    assert_eq!(rows(&t).len(), at_snapshot.len() + 1);
}

/// Files stay while a snapshot lists them and go when the last lister does.
#[test]
fn delete_snapshot_frees_files_only_when_nothing_lists_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let t = db.create_table(desc("t")).unwrap();
    fill(&t, "a", 100, "v1");
    t.flush().unwrap();
    fill(&t, "a", 100, "v2");
    db.snapshot("t", "s").unwrap();
    let listed = sst_count(dir.path());
    t.major_compact().unwrap();
    // The compaction's inputs are still there: the snapshot lists them.
    assert!(sst_count(dir.path()) > listed, "inputs were deleted");
    let c = db.clone_snapshot("s", "c").unwrap();
    db.delete_snapshot("s").unwrap();
    // The clone still lists them.
    assert_eq!(rows(&c).len(), 100);
    let before_drop = sst_count(dir.path());
    db.disable_table("c").unwrap();
    db.drop_table("c").unwrap();
    let after = sst_count(dir.path());
    assert!(
        after < before_drop,
        "{after} files, {before_drop} before the drop"
    );
    // Only the source's compacted file(s) remain.
    assert_eq!(
        after,
        t.regions()
            .iter()
            .map(|r| r.store_files as usize)
            .sum::<usize>()
    );
    db.close().unwrap();
    let db = open(dir.path());
    assert!(db.recovery_report().unexplained_files.is_empty());
    assert_eq!(rows(&db.table("t").unwrap()).len(), 100);
}

#[test]
fn hbase_errors_for_names_duplicates_and_unknown_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    db.create_table(desc("t")).unwrap();
    db.snapshot("t", "ok_name-1.x").unwrap();
    assert!(matches!(
        db.snapshot("t", "ok_name-1.x"),
        Err(Error::SnapshotExists(_))
    ));
    for bad in ["", ".hidden", "-dash", "sp ace", "a/b", "ns:snap"] {
        assert!(
            matches!(db.snapshot("t", bad), Err(Error::InvalidArgument(_))),
            "{bad:?} accepted"
        );
    }
    assert!(matches!(
        db.snapshot("nope", "s2"),
        Err(Error::TableNotFound(_))
    ));
    assert!(matches!(
        db.clone_snapshot("missing", "x"),
        Err(Error::SnapshotNotFound(_))
    ));
    assert!(matches!(
        db.clone_snapshot("ok_name-1.x", "t"),
        Err(Error::TableExists(_))
    ));
    assert!(matches!(
        db.restore_snapshot("missing"),
        Err(Error::SnapshotNotFound(_))
    ));
    assert!(matches!(
        db.delete_snapshot("missing"),
        Err(Error::SnapshotNotFound(_))
    ));
}

/// One moment for the whole table: a writer alternates between the two regions (row `a-i`,
/// then `z-i`). In the snapshot, `z-i` present implies `a-i` present, and `a-(i+1)` present
/// implies `z-i` present: no region is cut later than another. Each writer's rows are a prefix.
#[test]
fn a_snapshot_under_concurrent_writes_is_one_moment() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(dir.path(), DbOptions::default()).unwrap();
    let t = db.create_table(desc("t")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let go = Arc::new(Barrier::new(4));
    let writers: Vec<_> = (0..3)
        .map(|w| {
            let (t, stop, go) = (t.clone(), stop.clone(), go.clone());
            std::thread::spawn(move || {
                go.wait();
                let mut i = 0u32;
                while !stop.load(Ordering::Relaxed) {
                    for side in ["a", "z"] {
                        t.put(Put::new(format!("{side}{w}-{i:07}")).add("f", "q", "v"))
                            .unwrap();
                    }
                    i += 1;
                }
            })
        })
        .collect();
    go.wait();
    std::thread::sleep(std::time::Duration::from_millis(100));
    db.snapshot("t", "s").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
    stop.store(true, Ordering::Relaxed);
    for h in writers {
        h.join().unwrap();
    }
    let c = db.clone_snapshot("s", "c").unwrap();
    let got = rows(&c);
    for w in 0..3 {
        let count = |side: &str| -> u32 {
            let mine: Vec<u32> = got
                .iter()
                .filter_map(|(r, _)| {
                    String::from_utf8(r.clone())
                        .unwrap()
                        .strip_prefix(&format!("{side}{w}-"))
                        .map(|n| n.parse().unwrap())
                })
                .collect();
            let n = mine.len() as u32;
            assert_eq!(mine, (0..n).collect::<Vec<_>>(), "{side}{w}: not a prefix");
            n
        };
        let (a, z) = (count("a"), count("z"));
        assert!(a > 0, "writer {w} wrote nothing before the snapshot");
        assert!(
            a == z || a == z + 1,
            "writer {w}: {a} rows in region a, {z} in region z: the regions were cut at different moments"
        );
    }
}

/// The offline check (`cellbase verify`) accepts a database with snapshots and clones: files
/// only a snapshot lists, and a clone's files written for the source table.
#[test]
fn verify_accepts_snapshots_and_clones() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let t = db.create_table(desc("t")).unwrap();
    fill(&t, "a", 100, "v1");
    db.snapshot("t", "s").unwrap();
    db.clone_snapshot("s", "c").unwrap();
    fill(&t, "a", 100, "v2");
    t.major_compact().unwrap();
    db.close().unwrap();
    let findings = cellbase::inspect::check_database(dir.path()).unwrap();
    assert!(findings.is_empty(), "{findings:#?}");
}

/// Snapshots of namespaced tables: the snapshot records the table's canonical name
/// (`default:t` is `t`), a clone needs its namespace to exist.
#[test]
fn snapshots_of_namespaced_tables() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    db.create_namespace("ns").unwrap();
    let t = db
        .create_table(TableDescriptor::new("ns:t").family(FamilyDescriptor::new("f")))
        .unwrap();
    t.put(Put::new("r").add("f", "q", "v")).unwrap();
    db.snapshot("ns:t", "s1").unwrap();
    assert_eq!(db.list_snapshots()[0].table, "ns:t");
    let c = db.clone_snapshot("s1", "ns:t_copy").unwrap();
    assert!(!c.get(Get::new("r")).unwrap().is_empty());
    assert!(matches!(
        db.clone_snapshot("s1", "nope:t"),
        Err(Error::NamespaceNotFound(_))
    ));
    let p = db
        .create_table(TableDescriptor::new("plain").family(FamilyDescriptor::new("f")))
        .unwrap();
    p.put(Put::new("r").add("f", "q", "v")).unwrap();
    db.snapshot("default:plain", "s2").unwrap();
    let s2 = db
        .list_snapshots()
        .into_iter()
        .find(|s| s.name == "s2")
        .unwrap();
    assert_eq!(s2.table, "plain");
    db.clone_snapshot("s2", "default:plain2").unwrap();
    assert!(db.table("plain2").is_ok());
    db.disable_table("ns:t").unwrap();
    db.restore_snapshot("s1").unwrap();
    db.enable_table("ns:t").unwrap();
    db.disable_table("ns:t_copy").unwrap();
    db.drop_table("ns:t_copy").unwrap();
    db.disable_table("ns:t").unwrap();
    db.drop_table("ns:t").unwrap();
    db.drop_namespace("ns").unwrap();
    // The snapshot of a table whose namespace is gone cannot be restored.
    assert!(matches!(
        db.restore_snapshot("s1"),
        Err(Error::NamespaceNotFound(_))
    ));
}

/// A snapshot of a flushed table writes no data: one manifest record (an append and its sync),
/// whatever the table's size; with unflushed cells it adds the flush of exactly those cells.
#[test]
fn a_snapshot_costs_a_manifest_record_not_a_copy() {
    use cellbase::testing::io::{FaultFs, MemFs};
    let fault = FaultFs::over_mem(MemFs::new());
    let db = Db::open_with_fs(
        "/db",
        DbOptions::default()
            .background_threads(0)
            .clock(ManualClock::new(1_700_000_000_000)),
        Arc::new(fault.clone()),
    )
    .unwrap();
    let t = db.create_table(desc("t")).unwrap();
    let value = vec![b'x'; 500];
    for i in 0..4000u32 {
        t.put(
            Put::new(format!("{}{i:05}", if i % 2 == 0 { "a" } else { "x" })).add("f", "q", &value),
        )
        .unwrap();
        if i % 1000 == 999 {
            t.flush().unwrap();
        }
    }
    let (ops, appends) = (fault.mutating_ops(), fault.appends());
    db.snapshot("t", "s").unwrap();
    assert!(
        fault.mutating_ops() - ops <= 3,
        "{} mutating operations for a snapshot of a flushed 2 MB table",
        fault.mutating_ops() - ops
    );
    assert_eq!(fault.appends() - appends, 1, "one manifest record");
    let c = db.clone_snapshot("s", "c").unwrap();
    assert_eq!(c.scan(Scan::new()).unwrap().count(), 4000);
}
