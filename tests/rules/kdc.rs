//! §1.6 KEEP_DELETED_CELLS, with §1.6.1 TestKeepDeletes scenarios.

use super::*;

fn kdc(k: KeepDeletedCells, v: u32) -> impl Fn() -> Vec<FamilyDescriptor> {
    move || {
        vec![
            FamilyDescriptor::new("f")
                .max_versions(v)
                .keep_deleted_cells(k),
            FamilyDescriptor::new("g")
                .max_versions(v)
                .keep_deleted_cells(k),
        ]
    }
}

/// [KDC-1] TestKeepDeletes#testWithoutKeepingDeletes: with FALSE a time range ending before
/// the marker still sees nothing.
#[test]
fn false_hides_deleted_cells_from_point_in_time_reads() {
    at_every_stage(
        1_000,
        kdc(KeepDeletedCells::False, 3),
        |t, _| {
            t.put(
                Put::new("r")
                    .add_at("f", "q", 100, "a")
                    .add_at("f", "q", 200, "b"),
            )
            .unwrap();
            t.delete(Delete::new("r")).unwrap(); // DF@1000 in f and g
        },
        |t, _, stage| {
            assert!(
                t.get(Get::new("r").time_range(0, 500).all_versions())
                    .unwrap()
                    .is_empty(),
                "{stage:?}"
            );
            assert!(
                t.get(Get::new("r").timestamp(100)).unwrap().is_empty(),
                "{stage:?}"
            );
        },
    );
}

/// [KDC-2] TestKeepDeletes#testBasicScenario / #testRanges: with TRUE a read honours only
/// markers inside its time range; `max = T+1` includes a marker at T.
#[test]
fn true_allows_point_in_time_reads_before_the_marker() {
    at_every_stage(
        1_000,
        kdc(KeepDeletedCells::True, 3),
        |t, _| {
            t.put(
                Put::new("r")
                    .add_at("f", "q", 100, "a")
                    .add_at("f", "q", 200, "b")
                    .add_at("g", "q", 300, "c"),
            )
            .unwrap();
            t.delete(Delete::new("r").up_to(500)).unwrap(); // DF@500 in f and g
            t.delete(Delete::new("r").version("f", "q", 100)).unwrap();
        },
        |t, _, stage| {
            assert!(
                t.get(Get::new("r").all_versions()).unwrap().is_empty(),
                "{stage:?}"
            );
            let r = t
                .get(Get::new("r").time_range(0, 500).all_versions())
                .unwrap();
            assert_eq!(
                r.cells().iter().map(show).collect::<Vec<_>>(),
                ["r/f:q@200 Put=b", "r/g:q@300 Put=c"],
                "{stage:?}: the D@100 lies inside [0, 500)"
            );
            let r = t
                .get(Get::new("r").time_range(0, 100).all_versions())
                .unwrap();
            assert_eq!(
                r.cells().iter().map(show).collect::<Vec<_>>(),
                Vec::<String>::new(),
                "{stage:?}"
            );
            assert!(
                t.get(Get::new("r").time_range(0, 501)).unwrap().is_empty(),
                "{stage:?}"
            );
            // The D@100 lies inside [100, 200).
            assert!(
                t.get(Get::new("r").time_range(100, 200))
                    .unwrap()
                    .is_empty(),
                "{stage:?}"
            );
            assert_eq!(
                get_ts(t, Get::new("r").time_range(101, 300), "f", "q"),
                [200]
            );
            let scanned = rows(t, Scan::new().time_range(0, 500));
            assert_eq!(scanned, ["r"], "{stage:?}");
        },
    );
}

/// [KDC-3] TestKeepDeletes#testBasicScenario: with TRUE flush/compaction never mask; deleted
/// cells count toward VERSIONS, so the 4th version goes at flush even though it is deleted.
#[test]
fn true_deleted_cells_count_toward_versions_in_flush() {
    at_every_stage(
        1_000,
        kdc(KeepDeletedCells::True, 3),
        |t, _| {
            for ts in 1..=3 {
                t.put(Put::new("r").add_at("f", "q", ts, ts.to_string()))
                    .unwrap();
            }
            t.delete(Delete::new("r").family_up_to("f", 3)).unwrap();
            t.put(Put::new("r").add_at("f", "q", 4, "4")).unwrap();
        },
        |t, _, stage| {
            assert_eq!(
                get_ts(t, Get::new("r").all_versions(), "f", "q"),
                [4],
                "{stage:?}"
            );
            let want: &[i64] = if stage == Stage::Memstore {
                &[2, 1]
            } else {
                &[2]
            };
            assert_eq!(
                get_ts(t, Get::new("r").time_range(0, 3).all_versions(), "f", "q"),
                want,
                "{stage:?}"
            );
        },
    );
}

/// [KDC-4] TestKeepDeletes#testDeleteMarkerExpirationEmptyStore: markers in a store without
/// any Put are kept by flush and minor compaction and all dropped by a major compaction.
#[test]
fn true_markers_without_puts_are_dropped_by_major() {
    let env = Env::new(1_000);
    let t = env.table(kdc(KeepDeletedCells::True, 1)());
    t.delete(Delete::new("r").all_versions("f", "q")).unwrap();
    t.delete(Delete::new("r").version("f", "p", 7)).unwrap();
    t.delete(Delete::new("r").family("f")).unwrap();
    t.flush().unwrap();
    t.delete(Delete::new("s").family("g")).unwrap();
    t.flush().unwrap();
    t.compact().unwrap();
    assert_eq!(raw(&t).len(), 4);
    t.major_compact().unwrap();
    assert!(raw(&t).is_empty());
}

/// [KDC-4] TestKeepDeletes#testDeleteMarkerExpiration / #testWithOldRow: a marker is kept
/// while a Put at or before it exists in the store (earliestPutTs), dropped once newer
/// versions pushed those out — unless an old unrelated row pins it forever.
#[test]
fn true_markers_expire_with_earliest_put_ts_unless_an_old_row_pins_them() {
    for old_row in [false, true] {
        let env = Env::new(1_000);
        let t = env.table(kdc(KeepDeletedCells::True, 1)());
        if old_row {
            t.put(Put::new("old").add_at("f", "x", 1, "old")).unwrap();
        }
        t.put(Put::new("r").add_at("f", "q", 500, "a")).unwrap();
        t.delete(Delete::new("r").family("f")).unwrap(); // DF@1000
        t.flush().unwrap();
        t.major_compact().unwrap();
        assert!(
            raw(&t).contains(&"r/f:@1000 DF=".to_string()),
            "old_row={old_row}"
        );
        t.put(Put::new("r").add_at("f", "q", 2_000, "b")).unwrap();
        t.flush().unwrap();
        t.major_compact().unwrap(); // pushes @500 out (V=1)
        t.major_compact().unwrap(); // earliestPutTs is now 2000 (or 1 with the old row)
        let got = raw(&t);
        assert_eq!(
            got.contains(&"r/f:@1000 DF=".to_string()),
            old_row,
            "old_row={old_row}: {got:?}"
        );
        assert!(!got.contains(&"r/f:q@500 Put=a".to_string()));
    }
}

/// [KDC-5] TestKeepDeletes#testWithTTL (m=1, KDC=TTL): an unexpired marker behaves like TRUE
/// (kept, no masking in compaction); once expired it masks at flush and major drops it.
#[test]
fn ttl_markers_behave_like_true_until_expired() {
    let now = 100_000;
    let env = Env::new(now);
    let t = env.table(vec![
        FamilyDescriptor::new("f")
            .max_versions(1000)
            .min_versions(1)
            .ttl(secs(10))
            .keep_deleted_cells(KeepDeletedCells::Ttl),
    ]);
    t.put(Put::new("r").add_at("f", "q", now - 100, "v"))
        .unwrap();
    t.delete(Delete::new("r").all_versions("f", "q")).unwrap(); // DC@now
    t.flush().unwrap();
    t.major_compact().unwrap();
    assert!(t.get(Get::new("r")).unwrap().is_empty());
    assert_eq!(
        get_ts(&t, Get::new("r").time_range(0, now), "f", "q"),
        [now - 100]
    );
    assert_eq!(
        raw(&t).len(),
        2,
        "unexpired marker kept with the deleted cell"
    );
    env.clock.set(now + 10_001);
    t.put(Put::new("r").add_at("f", "q", now - 50, "again"))
        .unwrap();
    // Reads behave like TRUE (m=1 keeps the newest expired version visible).
    assert_eq!(
        get_ts(&t, Get::new("r").time_range(0, now), "f", "q"),
        [now - 50]
    );
    t.flush().unwrap();
    // The flush sees only its snapshot: the marker is in another file.
    assert_eq!(
        get_ts(&t, Get::new("r").time_range(0, now), "f", "q"),
        [now - 50]
    );
    t.major_compact().unwrap();
    assert!(raw(&t).is_empty(), "{:?}", raw(&t));
    // Marker and put flushed together, the marker already expired: it masks at flush.
    let t1 = now - 5_000;
    t.put(Put::new("s").add_at("f", "q", t1, "x")).unwrap();
    t.delete(Delete::new("s").versions_up_to("f", "q", t1 + 1))
        .unwrap();
    assert_eq!(
        get_ts(&t, Get::new("s").time_range(0, t1 + 1), "f", "q"),
        [t1]
    );
    t.flush().unwrap();
    assert_eq!(
        raw(&t),
        [format!("s/f:q@{} DC=", t1 + 1)],
        "masked put dropped at flush"
    );
    assert!(
        t.get(Get::new("s").time_range(0, t1 + 1))
            .unwrap()
            .is_empty()
    );
    t.major_compact().unwrap();
    assert!(raw(&t).is_empty(), "{:?}", raw(&t));
}

/// [KDC-6] TestKeepDeletes#testRawScan / #testRawScanWithoutKeepingDeletes /
/// #testRawScanWithColumns: raw scans return markers and deleted cells that still exist,
/// honour the time range, and reject explicit columns but not families.
#[test]
fn raw_scans_show_markers_and_deleted_cells() {
    for k in [KeepDeletedCells::True, KeepDeletedCells::False] {
        let env = Env::new(1_000);
        let t = env.table(kdc(k, 3)());
        t.put(
            Put::new("r")
                .add_at("f", "q", 10, "a")
                .add_at("f", "q", 20, "b"),
        )
        .unwrap();
        t.delete(Delete::new("r").version("f", "q", 10)).unwrap();
        t.delete(Delete::new("r").family_up_to("f", 15)).unwrap();
        assert_eq!(
            raw(&t),
            [
                "r/f:@15 DF=",
                "r/f:q@20 Put=b",
                "r/f:q@10 D=",
                "r/f:q@10 Put=a"
            ],
            "{k:?}"
        );
        assert_eq!(
            scan_cells(&t, Scan::new().raw(true).all_versions().time_range(11, 20)),
            ["r/f:@15 DF="],
            "{k:?}"
        );
        assert_eq!(
            scan_cells(&t, Scan::new().raw(true).family("g")),
            Vec::<String>::new()
        );
        assert!(matches!(
            t.scan(Scan::new().raw(true).column("f", "q")),
            Err(Error::InvalidArgument(_))
        ));
        t.flush().unwrap();
        let want: &[&str] = match k {
            KeepDeletedCells::True => &[
                "r/f:@15 DF=",
                "r/f:q@20 Put=b",
                "r/f:q@10 D=",
                "r/f:q@10 Put=a",
            ],
            // The D@10 is redundant under the DF@15 [CMP-4].
            _ => &["r/f:@15 DF=", "r/f:q@20 Put=b"],
        };
        assert_eq!(raw(&t), want, "{k:?} after flush");
        t.major_compact().unwrap();
        let want: &[&str] = match k {
            KeepDeletedCells::True => want,
            _ => &["r/f:q@20 Put=b"],
        };
        assert_eq!(raw(&t), want, "{k:?} after major");
    }
}

/// [KDC-2] [KDC-6] TestKeepDeletes#testWithMixedCFs: row deletes and time-range scans across
/// families (V=1, TRUE).
#[test]
fn true_row_delete_across_families_with_time_range_scans() {
    at_every_stage(
        1_000,
        kdc(KeepDeletedCells::True, 1),
        |t, _| {
            t.put(
                Put::new("r1")
                    .add_at("f", "q", 100, "a")
                    .add_at("g", "q", 100, "b"),
            )
            .unwrap();
            t.put(
                Put::new("r2")
                    .add_at("f", "q", 100, "c")
                    .add_at("g", "q", 100, "d"),
            )
            .unwrap();
            t.delete(Delete::new("r1").up_to(200)).unwrap();
            t.delete(Delete::new("r2").up_to(200)).unwrap();
        },
        |t, _, stage| {
            assert!(rows(t, Scan::new()).is_empty(), "{stage:?}");
            assert_eq!(
                rows(t, Scan::new().time_range(0, 200)),
                ["r1", "r2"],
                "{stage:?}"
            );
            assert_eq!(scan_cells(t, Scan::new().time_range(0, 101)).len(), 4);
            assert!(rows(t, Scan::new().time_range(0, 201)).is_empty());
        },
    );
}
