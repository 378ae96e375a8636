//! Reopen, WAL replay and torn log tails.

use super::*;
use std::io::Write;

/// [`open`]'s options with `flush_on_close(false)`: a drop or close leaves the unflushed
/// writes in the log, for the tests that replay or damage it.
fn keeping_log(clock: &ManualClock) -> DbOptions {
    DbOptions::default()
        .clock(clock.clone())
        .background_threads(0)
        .flush_on_close(false)
}

/// [`open`] with [`keeping_log`]'s options.
fn open_keeping_log(dir: &std::path::Path, clock: &ManualClock) -> Db {
    Db::open_with(dir, keeping_log(clock)).unwrap()
}

/// Writes that were never flushed come back from the log after a reopen.
#[test]
fn reopen_replays_unflushed_writes() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    {
        let db = open_keeping_log(dir.path(), &clock);
        let t = table(&db, 3);
        for i in 0..100 {
            t.put(Put::new(format!("r{i:03}")).add_at("f", "q", 1, format!("v{i}")))
                .unwrap();
        }
        t.delete(Delete::new("r050")).unwrap();
        // Dropped without flushing (flush_on_close(false)); the SyncWal records are in the
        // OS.
    }
    let db = open(dir.path(), &clock);
    let t = db.table("t").unwrap();
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 99);
    assert_eq!(
        t.get(Get::new("r007")).unwrap().value("f", "q"),
        Some(&b"v7"[..])
    );
    assert!(t.get(Get::new("r050")).unwrap().is_empty());
}

/// A full cycle: put, delete, flush, compact, reopen (several times) keeps exactly the data.
#[test]
fn put_delete_flush_compact_reopen_cycle_keeps_data() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let mut expected = std::collections::BTreeMap::new();
    for round in 0..4 {
        let db = open(dir.path(), &clock);
        let t = if round == 0 {
            table(&db, 2)
        } else {
            db.table("t").unwrap()
        };
        for i in 0..50 {
            let row = format!("r{:02}", (i * 7 + round) % 40);
            let val = format!("{round}-{i}");
            // At `now`: a later round's put must not sit under an earlier round's whole-row
            // delete, which would mask it [DEL-1].
            t.put(Put::new(&row).add("f", "q", &val)).unwrap();
            expected.insert(row, val);
        }
        let victim = format!("r{:02}", round * 3);
        t.delete(Delete::new(&victim)).unwrap();
        expected.remove(&victim);
        clock.advance(std::time::Duration::from_secs(1));
        match round % 3 {
            0 => t.flush().unwrap(),
            1 => {
                t.flush().unwrap();
                t.major_compact().unwrap()
            }
            _ => {}
        }
        db.close().unwrap();
    }
    let db = open(dir.path(), &clock);
    let t = db.table("t").unwrap();
    let got: std::collections::BTreeMap<String, String> = t
        .scan(Scan::new())
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            (
                String::from_utf8(r.row().to_vec()).unwrap(),
                String::from_utf8(r.value("f", "q").unwrap().to_vec()).unwrap(),
            )
        })
        .collect();
    assert_eq!(got, expected);
}

/// Schemas, drops and alters survive reopen.
#[test]
fn schema_changes_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    {
        let db = open(dir.path(), &clock);
        table(&db, 3);
        db.create_table(TableDescriptor::new("gone").family(FamilyDescriptor::new("f")))
            .unwrap();
        db.drop_table("gone").unwrap();
        db.alter_family("t", FamilyDescriptor::new("h").max_versions(7))
            .unwrap();
        assert!(matches!(
            db.create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f"))),
            Err(Error::TableExists(_))
        ));
        db.close().unwrap();
    }
    let db = open(dir.path(), &clock);
    assert_eq!(db.table_names(), ["t"]);
    let d = db.describe("t").unwrap();
    assert_eq!(
        d.families()
            .iter()
            .map(|f| f.name().to_vec())
            .collect::<Vec<_>>(),
        [b"f".to_vec(), b"g".to_vec(), b"h".to_vec()]
    );
    assert_eq!(d.families()[2].max_versions, 7);
    assert!(matches!(db.table("gone"), Err(Error::TableNotFound(_))));
}

/// A second opener of the same directory gets a clear error.
#[test]
fn second_open_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let _db = open(dir.path(), &clock);
    let err = Db::open(dir.path()).unwrap_err();
    assert!(matches!(err, Error::Locked(_)), "{err}");
}

fn wal_segments(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir.join("wal"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// A torn final log record (a crash in the middle of a write) is dropped; everything before it
/// is recovered.
#[test]
fn torn_final_wal_record_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    {
        let db = open_keeping_log(dir.path(), &clock);
        let t = table(&db, 3);
        for i in 0..10 {
            t.put(Put::new(format!("r{i}")).add_at("f", "q", 1, "v"))
                .unwrap();
        }
    }
    let seg = wal_segments(dir.path()).pop().unwrap();
    let len = std::fs::metadata(&seg).unwrap().len();
    // Cut the last record in half.
    let f = std::fs::OpenOptions::new().write(true).open(&seg).unwrap();
    f.set_len(len - 10).unwrap();
    drop(f);
    let db = open(dir.path(), &clock);
    let t = db.table("t").unwrap();
    let rows: Vec<_> = t
        .scan(Scan::new())
        .unwrap()
        .map(|r| r.unwrap().row().to_vec())
        .collect();
    assert_eq!(
        rows.len(),
        9,
        "the torn last put is gone, the rest survived"
    );
    assert!(t.get(Get::new("r9")).unwrap().is_empty());
    // The torn tail was cut off: writing and reopening again works.
    t.put(Put::new("r9").add_at("f", "q", 1, "again")).unwrap();
    drop(t);
    drop(db);
    let db = open(dir.path(), &clock);
    assert_eq!(
        db.table("t").unwrap().scan(Scan::new()).unwrap().count(),
        10
    );
}

/// Damage in the middle of the log is corruption, not silently skipped data.
#[test]
fn corrupted_wal_middle_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    {
        let db = open_keeping_log(dir.path(), &clock);
        let t = table(&db, 3);
        for i in 0..10 {
            t.put(Put::new(format!("r{i}")).add_at("f", "q", 1, "some value bytes"))
                .unwrap();
        }
    }
    let seg = wal_segments(dir.path()).pop().unwrap();
    let mut bytes = std::fs::read(&seg).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    std::fs::File::create(&seg)
        .unwrap()
        .write_all(&bytes)
        .unwrap();
    let err = Db::open_with(
        dir.path(),
        DbOptions::default()
            .clock(clock.clone())
            .background_threads(0),
    )
    .unwrap_err();
    assert!(matches!(err, Error::Corruption { .. }), "{err}");
    assert!(err.to_string().contains("offset"), "{err}");
}

/// Log segments are deleted once their records are flushed.
#[test]
fn flushed_wal_segments_are_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = Db::open_with(
        dir.path(),
        DbOptions::default()
            .clock(clock.clone())
            .background_threads(0)
            .wal_segment_size(4096),
    )
    .unwrap();
    let t = table(&db, 1);
    for i in 0..500 {
        t.put(Put::new(format!("r{i:04}")).add("f", "q", [7u8; 64]))
            .unwrap();
    }
    let before = wal_segments(dir.path()).len();
    assert!(before > 3, "{before} segments");
    t.flush().unwrap();
    let after = wal_segments(dir.path()).len();
    assert!(
        after <= 2,
        "{before} segments before the flush, {after} after"
    );
    drop(t);
    drop(db);
    let db = open(dir.path(), &clock);
    assert_eq!(
        db.table("t").unwrap().scan(Scan::new()).unwrap().count(),
        500
    );
}

/// `close` releases the directory even while table handles remain; they then fail with
/// `Error::Closed`, and a reopen sees every write.
#[test]
fn close_releases_the_directory_and_stale_handles_fail() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = open(dir.path(), &clock);
    let t = table(&db, 1);
    t.put(Put::new("r").add("f", "q", "v")).unwrap();
    db.close().unwrap();
    assert!(matches!(
        t.put(Put::new("r").add("f", "q", "w")),
        Err(Error::Closed)
    ));
    assert!(matches!(t.get(Get::new("r")), Err(Error::Closed)));
    let db = open(dir.path(), &clock);
    assert_eq!(
        db.table("t")
            .unwrap()
            .get(Get::new("r"))
            .unwrap()
            .value("f", "q"),
        Some(&b"v"[..])
    );
}

/// A flush that fails leaves its snapshot readable and in the log; the retry flushes only that
/// snapshot and must not mark later writes (in the new memstore) as flushed. Regression test:
/// the retry once recorded the newest sequence id as flushed, so a reopen skipped the log
/// records of the later writes and lost them.
#[test]
fn failed_flush_retry_does_not_lose_later_writes() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    {
        let db = open_keeping_log(dir.path(), &clock);
        let t = table(&db, 1);
        t.put(Put::new("a").add("f", "q", "before")).unwrap();
        let data = dir.path().join("data");
        std::fs::rename(&data, dir.path().join("data.away")).unwrap();
        std::fs::write(&data, b"not a directory").unwrap();
        assert!(t.flush().is_err(), "creating the block file fails");
        assert_eq!(
            t.get(Get::new("a")).unwrap().value("f", "q"),
            Some(&b"before"[..])
        );
        t.put(Put::new("b").add("f", "q", "after")).unwrap();
        std::fs::remove_file(&data).unwrap();
        std::fs::rename(dir.path().join("data.away"), &data).unwrap();
        t.flush().unwrap(); // flushes the old snapshot ("a") only
        assert_eq!(t.regions()[0].store_files, 1);
        // Dropped without flushing "b" (flush_on_close(false)): it lives only in the log.
    }
    let db = open(dir.path(), &clock);
    let t = db.table("t").unwrap();
    assert_eq!(
        t.get(Get::new("a")).unwrap().value("f", "q"),
        Some(&b"before"[..])
    );
    assert_eq!(
        t.get(Get::new("b")).unwrap().value("f", "q"),
        Some(&b"after"[..])
    );
}

/// Log records (of any type) in the segments of `dir`.
fn wal_record_count(dir: &std::path::Path) -> usize {
    use cellbase::testing::wal::{TailPolicy, read_records};
    wal_segments(dir)
        .iter()
        .map(|p| {
            let bytes = std::fs::read(p).unwrap();
            // The live segment ends in preallocated zero bytes.
            read_records(&bytes, p, TailPolicy::TornTailAllowed)
                .unwrap()
                .0
                .len()
        })
        .sum()
}

/// A clean close flushes every memstore and trims the log, as HBase flushes a region it
/// closes; with `flush_on_close(false)` it only syncs the log, which the next open replays.
/// Both reopen with exactly the data, and a drop of the last handle behaves as `close`.
#[test]
fn clean_close_flushes_memstores_unless_disabled() {
    for (flush, by_drop) in [(true, false), (true, true), (false, false), (false, true)] {
        let dir = tempfile::tempdir().unwrap();
        let clock = ManualClock::new(1_000);
        let opts = || {
            DbOptions::default()
                .clock(clock.clone())
                .background_threads(0)
                .flush_on_close(flush)
        };
        let db = Db::open_with(dir.path(), opts()).unwrap();
        let t = table(&db, 3);
        for i in 0..100 {
            t.put(Put::new(format!("r{i:03}")).add_at("f", "q", 1, format!("v{i}")))
                .unwrap();
        }
        t.delete(Delete::new("r050")).unwrap();
        let logged = wal_record_count(dir.path());
        assert!(logged >= 101, "{logged} records");
        drop(t);
        if by_drop {
            drop(db);
        } else {
            db.close().unwrap();
        }
        let files = std::fs::read_dir(dir.path().join("data")).unwrap().count();
        let left = wal_record_count(dir.path());
        if flush {
            assert!(files > 0, "flush={flush} drop={by_drop}: no block file");
            assert!(
                left < wal_segments(dir.path()).len() + 1 && left < 5,
                "flush={flush} drop={by_drop}: {left} log records left of {logged}"
            );
        } else {
            assert_eq!(files, 0, "flush={flush} drop={by_drop}");
            assert!(
                left >= logged,
                "flush={flush} drop={by_drop}: {left} < {logged}"
            );
        }
        let db = Db::open_with(dir.path(), opts()).unwrap();
        let t = db.table("t").unwrap();
        assert_eq!(t.scan(Scan::new()).unwrap().count(), 99);
        assert_eq!(
            t.get(Get::new("r007")).unwrap().value("f", "q"),
            Some(&b"v7"[..])
        );
        assert!(t.get(Get::new("r050")).unwrap().is_empty());
    }
}

/// Dropping the last handles while background flushes and compactions run closes the database
/// before the drop returns (on the dropping thread, waiting for the running job): the log is
/// trimmed, the directory is free to reopen at once, and nothing is lost. Regression: a
/// background job holding the shared state made the last drop a no-op, the close then ran on
/// the background thread after the job, and a process exiting right after its drop lost the
/// closing flush (the next open replayed the whole log).
#[test]
fn drop_while_background_jobs_run_closes_before_returning() {
    for round in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let opts = || {
            DbOptions::default()
                .background_threads(2)
                .memstore_flush_size(64 << 10)
        };
        let db = Db::open_with(dir.path(), opts()).unwrap();
        let t = table(&db, 1);
        for i in 0..4_000u32 {
            t.put(
                Put::new(format!("r{:08}", i.wrapping_mul(2_654_435_761))).add(
                    "f",
                    "q",
                    vec![b'v'; 100],
                ),
            )
            .unwrap();
        }
        drop(t);
        drop(db);
        let left = wal_record_count(dir.path());
        assert!(
            left < 5,
            "round {round}: {left} log records left after the drop"
        );
        let db = Db::open_with(dir.path(), opts()).expect("reopen right after the drop");
        assert_eq!(
            db.table("t").unwrap().scan(Scan::new()).unwrap().count(),
            4_000
        );
        db.close().unwrap();
    }
}

/// As HBase's `postOpenDeployTasks`: opening a database queues a compaction for stores that
/// need one, without waiting for a write. Three files left by the last session (its flushes
/// and its closing flush; with background threads off then, nothing compacted them) are
/// compacted after the reopen alone.
#[test]
fn open_queues_the_compactions_stores_need() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open_with(dir.path(), DbOptions::default().background_threads(0)).unwrap();
        let t = table(&db, 1);
        for i in 0..3 {
            // Every file holds row "z" too: files of disjoint rows would be one sorted run,
            // which needs no compaction (tests/storage/runs.rs).
            t.put(Put::new(format!("r{i}")).add("f", "q", "v")).unwrap();
            t.put(Put::new("z").add("f", "q", format!("v{i}"))).unwrap();
            if i < 2 {
                t.flush().unwrap();
            }
        }
        db.close().unwrap(); // the third file: the closing flush
    }
    let db = Db::open_with(dir.path(), DbOptions::default().background_threads(1)).unwrap();
    let t = db.table("t").unwrap();
    // Waits for the background job (not a timing assertion: the bound only ends a hang).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while t.regions()[0].store_files > 1 {
        assert!(
            std::time::Instant::now() < deadline,
            "no compaction after the open: {} files",
            t.regions()[0].store_files
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 4);
}

/// Replay flushes a region whose memstore reaches the flush size, as HBase's
/// `HRegion#replayRecoveredEdits` does, so an open never holds more log in memory than the
/// running database would. The flushed sequence id is exact: a second replay neither loses
/// nor repeats a version.
#[test]
fn replay_flushes_at_the_flush_size() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let opts = |flush: u64| keeping_log(&clock).memstore_flush_size(flush);
    // 3 versions of 200 rows x 2 families, 1 KiB values: about 1.2 MiB of log, never flushed.
    {
        let db = Db::open_with(dir.path(), opts(64 << 20)).unwrap();
        let t = table(&db, 3);
        for ts in 1..=3 {
            for i in 0..200 {
                let v = format!("{ts}-{i}-{}", "x".repeat(1024));
                t.put(
                    Put::new(format!("r{i:03}"))
                        .add_at("f", "q", ts, v.clone())
                        .add_at("g", "q", ts, v),
                )
                .unwrap();
            }
        }
        assert_eq!(t.regions()[0].store_files, 0);
    }
    let check = |t: &Table| {
        for i in [0, 57, 199] {
            for f in ["f", "g"] {
                let got: Vec<i64> = versions(t, &format!("r{i:03}"), f, "q")
                    .into_iter()
                    .map(|(ts, v)| {
                        assert!(v.starts_with(&format!("{ts}-{i}-")), "{v:.20}");
                        ts
                    })
                    .collect();
                assert_eq!(got, vec![3, 2, 1], "row {i} family {f}");
            }
        }
        assert_eq!(t.scan(Scan::new()).unwrap().count(), 200);
    };
    // Reopen with a 256 KiB flush size: replay flushes several times on the way.
    {
        let db = Db::open_with(dir.path(), opts(256 << 10)).unwrap();
        let t = db.table("t").unwrap();
        let r = &t.regions()[0];
        assert!(
            r.store_files >= 8,
            "replay flushed {} files (2 families, ~1.2 MiB at 256 KiB)",
            r.store_files
        );
        // What replay left below the flush size was flushed before the open returned.
        assert_eq!(r.memstore_bytes, 0, "left in the memstore after the open");
        check(&t);
        // Dropped without flushing again: the open flushed everything, so the next open
        // replays nothing.
    }
    // The replayed records are gone; what is left is the new segment's own (as after a
    // clean close, `clean_close_flushes_memstores_unless_disabled`).
    let left = wal_record_count(dir.path());
    assert!(left < 5, "{left} log records left");
    let db = Db::open_with(dir.path(), opts(64 << 20)).unwrap();
    let t = db.table("t").unwrap();
    assert_eq!(t.regions()[0].memstore_bytes, 0);
    check(&t);
}

/// Replay keeps all replayed memstores together below the global lower limit, flushing the
/// largest as the running database would (HBase's `flushOneForGlobalPressure`), and flushes
/// every memstore it refilled before the open returns (HBase's
/// `HRegion#replayRecoveredEditsIfAny`, RocksDB's recovery flush): reads after a crash find
/// files, the replay's memory is returned, and the log is trimmed. Nothing is lost or
/// repeated.
#[test]
fn replay_flushes_at_the_global_limit_and_before_the_open_returns() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let opts = |global: u64| {
        keeping_log(&clock)
            .memstore_flush_size(64 << 20)
            .global_memstore_size(global)
            .global_memstore_lower_limit(0.5)
    };
    // 4 regions, 400 rows of 2 KiB: about 1 MiB of log, never flushed.
    {
        let db = Db::open_with(dir.path(), opts(64 << 20)).unwrap();
        let t = db
            .create_table(
                TableDescriptor::new("t")
                    .family(FamilyDescriptor::new("f"))
                    .split_keys(["r1", "r2", "r3"]),
            )
            .unwrap();
        for i in 0..400 {
            let row = format!("r{}{i:03}", i % 4);
            t.put(Put::new(row).add_at("f", "q", 1, format!("{i}-{}", "x".repeat(2048))))
                .unwrap();
        }
        assert!(t.regions().iter().all(|r| r.store_files == 0));
        assert!(wal_record_count(dir.path()) >= 400);
    }
    // Reopen with a 256 KiB global bound: replay may hold 128 KiB (the lower limit) at once.
    let db = Db::open_with(dir.path(), opts(256 << 10)).unwrap();
    let t = db.table("t").unwrap();
    let regions = t.regions();
    assert_eq!(regions.len(), 4);
    let files: u32 = regions.iter().map(|r| r.store_files).sum();
    // ~1 MiB through a 128 KiB limit: at least 6 flushes on the way, then one per region.
    assert!(files >= 10, "{files} files after replay");
    for r in &regions {
        assert_eq!(
            r.memstore_bytes, 0,
            "region {} kept its replayed memstore",
            r.name
        );
        assert!(r.store_files >= 1, "region {} has no file", r.name);
    }
    let left = wal_record_count(dir.path());
    assert!(left < 5, "{left} log records left after the open");
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 400);
    for i in [0, 1, 2, 3, 199, 399] {
        let row = format!("r{}{i:03}", i % 4);
        let got = t.get(Get::new(row.as_str())).unwrap();
        let v = got.value("f", "q").unwrap_or_else(|| panic!("{row} lost"));
        assert!(v.starts_with(format!("{i}-").as_bytes()), "{row}");
        assert_eq!(got.versions("f", "q").len(), 1, "{row} repeated");
    }
}

/// `flush_after_replay(false)` (RocksDB's `avoid_flush_during_recovery`) keeps what the open
/// replayed in the memstores and the log, so the next open replays it again; the default
/// flushes it before the open returns.
#[test]
fn flush_after_replay_false_keeps_replayed_cells_in_memory_and_log() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let opts =
        |flush_after_replay: bool| keeping_log(&clock).flush_after_replay(flush_after_replay);
    {
        let db = Db::open_with(dir.path(), opts(true)).unwrap();
        let t = table(&db, 3);
        for i in 0..50 {
            t.put(Put::new(format!("r{i:03}")).add_at("f", "q", 1, format!("v{i}")))
                .unwrap();
        }
    }
    for (flush, memstore_kept) in [(false, true), (false, true), (true, false)] {
        let db = Db::open_with(dir.path(), opts(flush)).unwrap();
        let t = db.table("t").unwrap();
        let r = &t.regions()[0];
        assert_eq!(
            r.memstore_bytes > 0,
            memstore_kept,
            "flush_after_replay({flush})"
        );
        assert_eq!(
            r.store_files,
            u32::from(!memstore_kept),
            "flush_after_replay({flush})"
        );
        assert_eq!(t.scan(Scan::new()).unwrap().count(), 50);
        let logged = wal_record_count(dir.path());
        if memstore_kept {
            assert!(
                logged >= 50,
                "{logged} log records: the replayed ones must stay"
            );
        } else {
            assert!(logged < 5, "{logged} log records left");
        }
    }
}
