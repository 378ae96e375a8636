//! Versions across the memstore and several files [VER-1..5], [SORT-6], [CMP-2].

use super::*;

fn v(list: &[(i64, &str)]) -> Vec<(i64, String)> {
    list.iter().map(|(t, s)| (*t, s.to_string())).collect()
}

/// [VER-2] [SORT-1] versions spread over the memstore and three files merge newest first, and a
/// query gets min(query versions, VERSIONS).
#[test]
fn versions_merge_across_memstore_and_files() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = open(dir.path(), &clock);
    let t = table(&db, 3);
    for (ts, flush) in [(1, true), (4, true), (2, true), (3, false)] {
        t.put(Put::new("r").add_at("f", "q", ts, format!("v{ts}")))
            .unwrap();
        if flush {
            t.flush().unwrap();
        }
    }
    assert_eq!(t.regions()[0].store_files, 3);
    assert_eq!(
        versions(&t, "r", "f", "q"),
        v(&[(4, "v4"), (3, "v3"), (2, "v2")])
    );
    let one = t.get(Get::new("r")).unwrap();
    assert_eq!(one.value("f", "q"), Some(&b"v4"[..]));
    let two = t.get(Get::new("r").max_versions(2)).unwrap();
    assert_eq!(two.versions("f", "q").len(), 2);
    // After a major compaction only VERSIONS = 3 remain physically [VER-7].
    t.flush().unwrap();
    t.major_compact().unwrap();
    assert_eq!(t.regions()[0].store_files, 1);
    assert_eq!(
        versions(&t, "r", "f", "q"),
        v(&[(4, "v4"), (3, "v3"), (2, "v2")])
    );
    assert!(
        t.get(Get::new("r").time_range(0, 2)).unwrap().is_empty(),
        "v1 was purged"
    );
}

/// [SORT-6] [VER-4] the same coordinates written twice: the newest write wins, in the memstore,
/// across files and after compaction.
#[test]
fn duplicate_timestamp_newest_write_wins() {
    at_every_stage(
        3,
        |t| {
            t.put(Put::new("r").add_at("f", "q", 7, "old")).unwrap();
            t.flush().unwrap();
            t.put(Put::new("r").add_at("f", "q", 7, "new")).unwrap();
        },
        |t, stage| assert_eq!(versions(t, "r", "f", "q"), v(&[(7, "new")]), "{stage:?}"),
    );
}

/// [VER-3] a deleted newer version re-exposes an older one that is still physically present;
/// after a flush prunes to VERSIONS, it is gone [VER-7].
#[test]
fn deleting_newest_version_reexposes_older_until_pruned() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = open(dir.path(), &clock);
    let t = table(&db, 1);
    t.put(Put::new("r").add_at("f", "q", 1, "one")).unwrap();
    t.put(Put::new("r").add_at("f", "q", 2, "two")).unwrap();
    t.delete(Delete::new("r").version("f", "q", 2)).unwrap();
    assert_eq!(
        versions(&t, "r", "f", "q"),
        v(&[(1, "one")]),
        "memstore still holds @1"
    );
    let dir2 = tempfile::tempdir().unwrap();
    let db2 = open(dir2.path(), &clock);
    let t2 = table(&db2, 1);
    t2.put(Put::new("r").add_at("f", "q", 1, "one")).unwrap();
    t2.put(Put::new("r").add_at("f", "q", 2, "two")).unwrap();
    t2.flush().unwrap(); // keeps only @2 (VERSIONS = 1)
    t2.delete(Delete::new("r").version("f", "q", 2)).unwrap();
    assert!(versions(&t2, "r", "f", "q").is_empty());
}

/// [VER-5] time range applies before version counting; [TS-5] timestamp = [ts, ts+1).
#[test]
fn time_range_applies_before_version_counting() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = open(dir.path(), &clock);
    let t = table(&db, 3);
    for ts in 1..=8 {
        t.put(Put::new("r").add_at("f", "q", ts, format!("v{ts}")))
            .unwrap();
    }
    let r = t
        .get(Get::new("r").time_range(0, 5).max_versions(3))
        .unwrap();
    assert_eq!(
        r.versions("f", "q").iter().map(|x| x.0).collect::<Vec<_>>(),
        [4, 3, 2]
    );
    let r = t.get(Get::new("r").timestamp(6)).unwrap();
    assert_eq!(r.value("f", "q"), Some(&b"v6"[..]));
    t.flush().unwrap(); // keeps @8, @7, @6
    assert!(
        t.get(Get::new("r").time_range(0, 5).max_versions(3))
            .unwrap()
            .is_empty()
    );
}

/// [TS-1] cells without a timestamp get the clock's now; one `now` per mutation.
#[test]
fn puts_without_timestamp_use_the_clock() {
    let clock = ManualClock::new(42_000);
    let db = Db::temporary_with(
        DbOptions::default()
            .clock(clock.clone())
            .background_threads(0),
    )
    .unwrap();
    let t = table(&db, 3);
    t.put(Put::new("r").add("f", "a", "1").add("g", "b", "2"))
        .unwrap();
    let r = t.get(Get::new("r")).unwrap();
    assert!(r.cells().iter().all(|c| c.timestamp() == 42_000), "{r:?}");
}

/// [LIM-1] [LIM-5] [LIM-6] [TS-2] bad puts are rejected and write nothing.
#[test]
fn bad_puts_are_rejected_and_write_nothing() {
    let db = Db::temporary_with(DbOptions::default().max_cell_size(100)).unwrap();
    let t = table(&db, 1);
    assert!(matches!(
        t.put(Put::new("").add("f", "q", "v")),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        t.put(Put::new(vec![b'r'; 32768]).add("f", "q", "v")),
        Err(Error::InvalidArgument(_))
    ));
    let big = table(&Db::temporary().unwrap(), 1);
    big.put(Put::new(vec![b'r'; 32767]).add("f", "q", "v"))
        .unwrap();
    assert!(matches!(
        t.put(Put::new("r")),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        t.put(Put::new("r").add_at("f", "q", -1, "v")),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        t.put(Put::new("r").add("f", "q", "v").add("zz", "q", "v")),
        Err(Error::NoSuchFamily { .. })
    ));
    // 20 + 1 + 1 + 1 + 78 = 101 > 100
    assert!(matches!(
        t.put(Put::new("r").add("f", "q", vec![0u8; 78])),
        Err(Error::InvalidArgument(_))
    ));
    t.put(Put::new("s").add("f", "q", vec![0u8; 77])).unwrap();
    assert!(
        t.get(Get::new("r")).unwrap().is_empty(),
        "failed puts wrote nothing"
    );
    assert!(matches!(
        t.get(Get::new("r").max_versions(0)),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        t.get(Get::new("r").family("zz")),
        Err(Error::NoSuchFamily { .. })
    ));
    assert!(matches!(
        t.get(Get::new("r").time_range(5, 1)),
        Err(Error::InvalidArgument(_))
    ));
}

/// [SCAN-1] [SCAN-2] [SCAN-2b] scans: start inclusive, stop exclusive, prefix, limit, column
/// selection [GET-1], and rows whose cells are all deleted are skipped.
#[test]
fn scans_respect_range_prefix_limit_and_columns() {
    at_every_stage(
        3,
        |t| {
            for r in ["a1", "a2", "b1", "b2", "c1"] {
                t.put(Put::new(r).add_at("f", "x", 1, r).add_at("g", "y", 1, r))
                    .unwrap();
            }
            t.delete(Delete::new("b1")).unwrap();
        },
        |t, stage| {
            let rows = |s: Scan| -> Vec<String> {
                t.scan(s)
                    .unwrap()
                    .map(|r| String::from_utf8(r.unwrap().row().to_vec()).unwrap())
                    .collect()
            };
            assert_eq!(rows(Scan::new()), ["a1", "a2", "b2", "c1"], "{stage:?}");
            assert_eq!(
                rows(Scan::new().start_row("a2").stop_row("c1")),
                ["a2", "b2"]
            );
            assert_eq!(rows(Scan::new().prefix("b")), ["b2"]);
            assert_eq!(rows(Scan::new().limit(2)), ["a1", "a2"]);
            let r: Vec<RowResult> = t
                .scan(Scan::new().column("g", "y"))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            assert!(
                r.iter()
                    .all(|row| row.cells().len() == 1 && row.cells()[0].family() == b"g")
            );
            assert!(t.regions()[0].read_requests > 0);
        },
    );
}
