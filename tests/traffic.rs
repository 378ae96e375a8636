//! Traffic recording (issue 24, "Key Visualizer for a real database"): with
//! `DbOptions::traffic_recording` the engine counts each region's read and write requests per
//! interval of the database clock, exactly as the regions' own request counters count them
//! (one write per applied mutation, one read per Get and per row a scan returns, as HBase's
//! `HRegion` `readRequestsCount` / `writeRequestsCount` do), keeps a bounded ring of intervals,
//! and saves it in the directory's `TRAFFIC` file at close. Deterministic: a `ManualClock`,
//! `background_threads(0)`, a temporary directory.

use cellbase::*;
use std::time::Duration;

const T0: i64 = 1_700_000_000_000;

fn open(dir: &std::path::Path, clock: &ManualClock, max: usize) -> Db {
    Db::open_with(
        dir,
        DbOptions::default()
            .background_threads(0)
            .clock(clock.clone())
            .traffic_recording(Duration::from_secs(10), max),
    )
    .unwrap()
}

/// (table, start key, reads, writes) of every region of interval `i`.
fn cells(t: &Traffic, i: usize) -> Vec<(String, Vec<u8>, u64, u64)> {
    t.intervals[i]
        .regions
        .iter()
        .map(|r| (r.table.clone(), r.start_key.clone(), r.reads, r.writes))
        .collect()
}

#[test]
fn counts_per_region_and_interval_match_the_request_counters() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let db = open(dir.path(), &clock, 4);
    let t = db
        .create_table(
            TableDescriptor::new("t")
                .family(FamilyDescriptor::new("f"))
                .split_keys(vec![b"m".to_vec()]),
        )
        .unwrap();
    // Interval 1: 3 writes to [, m), 1 to [m, ); a Get and a 2-row scan of [, m).
    for r in ["a", "b", "c", "x"] {
        t.put(Put::new(r).add("f", "q", "v")).unwrap();
    }
    assert!(!t.get(Get::new("a")).unwrap().is_empty());
    let rows: Vec<_> = t
        .scan(Scan::new().start_row("a").stop_row("c"))
        .unwrap()
        .collect::<Result<_>>()
        .unwrap();
    assert_eq!(rows.len(), 2);
    // Interval 2 (10 s later): a delete in [m, ) and a batch of 2 Gets there (one row absent:
    // a Get counts as a read whether it finds the row or not).
    clock.advance(Duration::from_secs(10));
    t.delete(Delete::new("x")).unwrap();
    t.get_many(vec![Get::new("x"), Get::new("y")]).unwrap();

    let tr = db.traffic().expect("recording is on");
    assert_eq!(tr.interval_ms, 10_000);
    assert_eq!(tr.max_intervals, 4);
    assert_eq!(tr.intervals.len(), 2);
    assert_eq!(tr.intervals[0].start_ms, T0 - T0.rem_euclid(10_000));
    assert_eq!(tr.intervals[1].start_ms, tr.intervals[0].start_ms + 10_000);
    assert_eq!(
        cells(&tr, 0),
        vec![
            ("t".into(), b"".to_vec(), 3, 3),
            ("t".into(), b"m".to_vec(), 0, 1)
        ]
    );
    assert_eq!(cells(&tr, 1), vec![("t".into(), b"m".to_vec(), 2, 1)]);
    // The same totals as the regions' own counters.
    for reg in t.regions() {
        let (r, w) = tr
            .intervals
            .iter()
            .flat_map(|i| &i.regions)
            .filter(|x| x.start_key == reg.start_key)
            .fold((0, 0), |(r, w), x| (r + x.reads, w + x.writes));
        assert_eq!(
            (r, w),
            (reg.read_requests, reg.write_requests),
            "{}",
            reg.name
        );
    }

    // A split: the parent's counts stay in their interval, the daughters count from then on.
    clock.advance(Duration::from_secs(10));
    t.split(Some(b"b")).unwrap();
    t.put(Put::new("a2").add("f", "q", "v")).unwrap();
    t.put(Put::new("c2").add("f", "q", "v")).unwrap();
    let tr = db.traffic().unwrap();
    assert_eq!(
        cells(&tr, 2),
        vec![
            ("t".into(), b"".to_vec(), 0, 1),
            ("t".into(), b"b".to_vec(), 0, 1)
        ]
    );
    assert_eq!(tr.intervals[2].regions[0].end_key, b"b".to_vec());

    // Bounded: after a long idle gap only the ring's 4 intervals remain (the newest with
    // traffic, three empty before it).
    clock.advance(Duration::from_secs(3600));
    t.put(Put::new("z").add("f", "q", "v")).unwrap();
    let before_close = db.traffic().unwrap();
    assert_eq!(before_close.intervals.len(), 4);
    assert!(
        before_close.intervals[..3]
            .iter()
            .all(|i| i.regions.is_empty())
    );
    assert_eq!(
        cells(&before_close, 3),
        vec![("t".into(), b"m".to_vec(), 0, 1)]
    );

    // Saved at close, read back without opening the database.
    db.close().unwrap();
    assert_eq!(inspect::read_traffic(dir.path()).unwrap(), before_close);
}

#[test]
fn off_by_default_saved_on_demand_and_bad_files_are_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(dir.path(), DbOptions::default().background_threads(0)).unwrap();
    assert!(db.traffic().is_none());
    assert!(!db.save_traffic().unwrap());
    db.close().unwrap();
    assert!(matches!(
        inspect::read_traffic(dir.path()),
        Err(Error::InvalidArgument(m)) if m.contains("no recorded traffic")
    ));

    // Bad options are refused at open.
    for (interval, max) in [(Duration::ZERO, 10), (Duration::from_secs(1), 0)] {
        let e = Db::open_with(
            dir.path(),
            DbOptions::default().traffic_recording(interval, max),
        )
        .unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    }

    // Saved while open (for a reader in another process), then damaged.
    let clock = ManualClock::new(T0);
    let db = open(dir.path(), &clock, 8);
    let t = db
        .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))
        .unwrap();
    t.put(Put::new("r").add("f", "q", "v")).unwrap();
    assert!(db.save_traffic().unwrap());
    let saved = inspect::read_traffic(dir.path()).unwrap();
    assert_eq!(saved.intervals[0].regions[0].writes, 1);
    db.close().unwrap();
    let path = dir.path().join("TRAFFIC");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let e = inspect::read_traffic(dir.path()).unwrap_err();
    assert!(
        matches!(&e, Error::Corruption { detail, .. } if detail.contains("checksum")),
        "{e}"
    );
    std::fs::write(&path, b"short").unwrap();
    assert!(matches!(
        inspect::read_traffic(dir.path()),
        Err(Error::Corruption { .. })
    ));
    // The database itself still opens and verifies: the file is not part of it.
    let db = open(dir.path(), &clock, 8);
    db.close().unwrap();
    assert!(inspect::check_database(dir.path()).unwrap().is_empty());
}
