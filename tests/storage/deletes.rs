//! Delete markers [DEL-1..8] in the memstore, after a flush and after a major compaction.

use super::*;

fn put(t: &Table, row: &str, q: &str, ts: i64, v: &str) {
    t.put(Put::new(row).add_at("f", q, ts, v)).unwrap();
}

fn v(list: &[(i64, &str)]) -> Vec<(i64, String)> {
    list.iter().map(|(t, s)| (*t, s.to_string())).collect()
}

/// [DEL-1] a Delete (one version) masks exactly its timestamp; [DEL-2] same timestamp.
#[test]
fn delete_version_masks_exactly_one_timestamp() {
    at_every_stage(
        5,
        |t| {
            for ts in 1..=3 {
                put(t, "r", "q", ts, &format!("v{ts}"));
            }
            t.delete(Delete::new("r").version("f", "q", 2)).unwrap();
        },
        |t, stage| {
            assert_eq!(
                versions(t, "r", "f", "q"),
                v(&[(3, "v3"), (1, "v1")]),
                "{stage:?}"
            )
        },
    );
}

/// [DEL-1] a DeleteColumn masks every version at or below its timestamp, including puts written
/// after it ("deletes mask puts"), until a major compaction removes it [DEL-12].
#[test]
fn delete_column_masks_older_versions_and_later_puts_until_major_compaction() {
    at_every_stage(
        5,
        |t| {
            put(t, "r", "q", 1, "a");
            put(t, "r", "q", 5, "b");
            t.delete(Delete::new("r").versions_up_to("f", "q", 3))
                .unwrap();
            put(t, "r", "q", 2, "late"); // written after the marker, still masked
        },
        |t, stage| assert_eq!(versions(t, "r", "f", "q"), v(&[(5, "b")]), "{stage:?}"),
    );
    // After the major compaction dropped the marker, a re-put is visible again [DEL-12].
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = open(dir.path(), &clock);
    let t = table(&db, 5);
    put(&t, "r", "q", 1, "a");
    t.delete(Delete::new("r").versions_up_to("f", "q", 3))
        .unwrap();
    t.flush().unwrap();
    t.major_compact().unwrap();
    put(&t, "r", "q", 1, "again");
    assert_eq!(versions(&t, "r", "f", "q"), v(&[(1, "again")]));
}

/// [DEL-3] [SORT-5] a DeleteFamily masks every qualifier (including the empty one) of its family
/// at or below its timestamp, and nothing in other families.
#[test]
fn delete_family_masks_all_qualifiers_of_that_family_only() {
    at_every_stage(
        5,
        |t| {
            put(t, "r", "", 2, "empty-q");
            put(t, "r", "a", 2, "a2");
            put(t, "r", "b", 4, "b4");
            t.put(Put::new("r").add_at("g", "a", 1, "other-family"))
                .unwrap();
            t.delete(Delete::new("r").family_up_to("f", 3)).unwrap();
            put(t, "r", "", 9, "newer-empty-q"); // empty qualifier, newer than the marker
        },
        |t, stage| {
            let r = t.get(Get::new("r").all_versions()).unwrap();
            let cells: Vec<_> = r
                .cells()
                .iter()
                .map(|c| {
                    (
                        String::from_utf8_lossy(c.family()).into_owned(),
                        String::from_utf8_lossy(c.qualifier()).into_owned(),
                        c.timestamp(),
                    )
                })
                .collect();
            let expect: Vec<(String, String, i64)> = vec![
                ("f".into(), "".into(), 9),
                ("f".into(), "b".into(), 4),
                ("g".into(), "a".into(), 1),
            ];
            assert_eq!(cells, expect, "{stage:?}");
        },
    );
}

/// [DEL-1] a DeleteFamilyVersion masks every column of the family at exactly its timestamp.
#[test]
fn delete_family_version_masks_exact_timestamp_across_columns() {
    at_every_stage(
        5,
        |t| {
            put(t, "r", "a", 2, "a2");
            put(t, "r", "a", 3, "a3");
            put(t, "r", "b", 2, "b2");
            t.delete(Delete::new("r").family_version("f", 2)).unwrap();
        },
        |t, stage| {
            assert_eq!(versions(t, "r", "f", "a"), v(&[(3, "a3")]), "{stage:?}");
            assert!(versions(t, "r", "f", "b").is_empty(), "{stage:?}");
        },
    );
}

/// [DEL-6] `latest_version` deletes the newest visible version; twice in one Delete deletes the
/// two newest; with nothing visible the marker is placed at now.
#[test]
fn latest_version_delete_targets_newest_visible_versions() {
    at_every_stage(
        5,
        |t| {
            for ts in 1..=4 {
                put(t, "r", "q", ts, &format!("v{ts}"));
            }
            t.delete(Delete::new("r").latest_version("f", "q")).unwrap();
        },
        |t, stage| {
            assert_eq!(
                versions(t, "r", "f", "q"),
                v(&[(3, "v3"), (2, "v2"), (1, "v1")]),
                "{stage:?}"
            );
            t.delete(
                Delete::new("r")
                    .latest_version("f", "q")
                    .latest_version("f", "q"),
            )
            .unwrap();
            assert_eq!(versions(t, "r", "f", "q"), v(&[(1, "v1")]), "{stage:?}");
        },
    );
    // Nothing visible: the marker goes to `now` (1000) and masks only that timestamp.
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = open(dir.path(), &clock);
    let t = table(&db, 5);
    t.delete(Delete::new("r").latest_version("f", "q")).unwrap();
    put(&t, "r", "q", 1_000, "at-now");
    put(&t, "r", "q", 999, "before");
    assert_eq!(versions(&t, "r", "f", "q"), v(&[(999, "before")]));
}

/// [DEL-6] a whole-row delete places a DeleteFamily at now in every family; `up_to(ts)` at ts.
#[test]
fn whole_row_delete_masks_every_family_up_to_now_or_ts() {
    at_every_stage(
        5,
        |t| {
            t.put(
                Put::new("r")
                    .add_at("f", "a", 1, "1")
                    .add_at("g", "b", 1, "1"),
            )
            .unwrap();
            t.put(
                Put::new("s")
                    .add_at("f", "a", 5, "5")
                    .add_at("f", "a", 9, "9"),
            )
            .unwrap();
            t.delete(Delete::new("r")).unwrap();
            t.delete(Delete::new("s").up_to(5)).unwrap();
            t.put(Put::new("r").add_at("f", "a", 2_000, "future"))
                .unwrap(); // [DEL-9] future ts survives
        },
        |t, stage| {
            let r = t.get(Get::new("r").all_versions()).unwrap();
            assert_eq!(r.cells().len(), 1, "{stage:?}: {r:?}");
            assert_eq!(r.value("f", "a"), Some(&b"future"[..]));
            assert_eq!(versions(t, "s", "f", "a"), v(&[(9, "9")]), "{stage:?}");
        },
    );
}

/// [DEL-7] `family(f)` discards markers added earlier to the same Delete for `f`.
#[test]
fn family_delete_discards_earlier_markers_of_the_family() {
    at_every_stage(
        5,
        |t| {
            put(t, "r", "q", 10, "ten");
            // version(f,q,10) is discarded by family_up_to(f, 5): the put at 10 survives.
            t.delete(Delete::new("r").version("f", "q", 10).family_up_to("f", 5))
                .unwrap();
        },
        |t, stage| assert_eq!(versions(t, "r", "f", "q"), v(&[(10, "ten")]), "{stage:?}"),
    );
}

/// [DEL-8] a delete naming an unknown family fails and writes nothing; `up_to` with a column is
/// rejected; negative timestamps are rejected [TS-2].
#[test]
fn bad_deletes_are_rejected() {
    let t = Db::temporary()
        .unwrap()
        .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))
        .unwrap();
    assert!(matches!(
        t.delete(Delete::new("r").family("nope")),
        Err(Error::NoSuchFamily { .. })
    ));
    assert!(matches!(
        t.delete(Delete::new("r").up_to(5).family("f")),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        t.delete(Delete::new("r").version("f", "q", -1)),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        t.delete(Delete::new("")),
        Err(Error::InvalidArgument(_))
    ));
}

/// [DEL-11] flush drops the puts a marker masks but keeps the marker; major compaction drops
/// both (checked through the number and size of files).
#[test]
fn major_compaction_purges_markers_and_masked_cells() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = open(dir.path(), &clock);
    let t = table(&db, 3);
    put(&t, "r", "q", 1, "x");
    t.flush().unwrap();
    t.delete(Delete::new("r").all_versions("f", "q")).unwrap();
    t.flush().unwrap();
    assert_eq!(t.regions()[0].store_files, 2);
    t.major_compact().unwrap();
    // Everything in family f was a marker or masked: no file remains.
    assert_eq!(t.regions()[0].store_files, 0);
    assert!(t.get(Get::new("r")).unwrap().is_empty());
}
