//! §1.3 Delete markers (NEW_VERSION_BEHAVIOR off).

use super::*;

/// [DEL-1] [DEL-2] a DC or DF masks Puts at or below its timestamp whether written before or
/// after it, until a major compaction removes the marker [DEL-12].
#[test]
fn deletes_mask_puts_written_after_them_until_major_compaction() {
    for stage in ALL_STAGES {
        let env = Env::new(1_000);
        let t = env.table(fg(3));
        t.put(
            Put::new("r")
                .add_at("f", "a", 10, "before")
                .add_at("f", "b", 10, "before"),
        )
        .unwrap();
        t.delete(Delete::new("r").all_versions("f", "a")).unwrap(); // DC@1000
        t.delete(Delete::new("r").family_up_to("f", 20)).unwrap(); // DF@20
        stage.apply(&t);
        // Written after the markers, at or below their timestamps: masked.
        t.put(
            Put::new("r")
                .add_at("f", "a", 1_000, "same-ts")
                .add_at("f", "b", 20, "same-ts"),
        )
        .unwrap();
        t.put(
            Put::new("r")
                .add_at("f", "a", 500, "after")
                .add_at("f", "b", 15, "after"),
        )
        .unwrap();
        let r = t.get(Get::new("r").all_versions()).unwrap();
        if stage == Stage::Compacted {
            // The markers are gone: re-puts are visible again [DEL-12].
            assert_eq!(
                r.cells().iter().map(show).collect::<Vec<_>>(),
                [
                    "r/f:a@1000 Put=same-ts",
                    "r/f:a@500 Put=after",
                    "r/f:b@20 Put=same-ts",
                    "r/f:b@15 Put=after"
                ]
            );
        } else {
            assert!(r.is_empty(), "{stage:?}: {r:?}");
        }
    }
}

/// [DEL-3] a marker affects only its own row and family; deleting a missing column or a
/// family without data leaves the others alone.
#[test]
fn markers_affect_only_their_row_and_family() {
    at_every_stage(
        1_000,
        || fg(3),
        |t, _| {
            t.put(
                Put::new("r")
                    .add_at("f", "q", 5, "f")
                    .add_at("g", "q", 5, "g"),
            )
            .unwrap();
            t.put(Put::new("s").add_at("f", "q", 5, "s")).unwrap();
            t.delete(Delete::new("r").family("f")).unwrap();
            t.delete(Delete::new("s").all_versions("g", "q")).unwrap();
            t.delete(Delete::new("s").all_versions("f", "missing"))
                .unwrap();
        },
        |t, _, stage| {
            assert_eq!(
                scan_cells(t, Scan::new()),
                ["r/g:q@5 Put=g", "s/f:q@5 Put=s"],
                "{stage:?}"
            );
        },
    );
}

/// [DEL-4] markers are not versions: not returned by Get/Scan, returned by raw scans, and do
/// not use up the version budget.
#[test]
fn markers_are_never_versions() {
    at_every_stage(
        1_000,
        || fg(2),
        |t, _| {
            t.put(
                Put::new("r")
                    .add_at("f", "q", 1, "1")
                    .add_at("f", "q", 2, "2"),
            )
            .unwrap();
            t.delete(Delete::new("r").version("f", "q", 9)).unwrap();
            t.delete(Delete::new("r").version("f", "q", 8)).unwrap();
        },
        |t, _, stage| {
            assert_eq!(
                get_ts(t, Get::new("r").all_versions(), "f", "q"),
                [2, 1],
                "{stage:?}"
            );
            let normal = scan_cells(t, Scan::new().all_versions());
            assert_eq!(normal, ["r/f:q@2 Put=2", "r/f:q@1 Put=1"]);
            let raw = raw(t);
            if stage == Stage::Compacted {
                assert_eq!(raw, normal);
            } else {
                assert_eq!(
                    raw,
                    ["r/f:q@9 D=", "r/f:q@8 D=", "r/f:q@2 Put=2", "r/f:q@1 Put=1"]
                );
            }
        },
    );
}

/// [DEL-5] tracker mechanics: a DC covers older versions of its column and a later D of the
/// same column; a D masks only its exact timestamp; DFV masks exactly its timestamp across
/// qualifiers; the newest DF is the family stamp.
#[test]
fn delete_tracker_mechanics() {
    at_every_stage(
        1_000,
        || fg(10),
        |t, _| {
            for q in ["a", "b", "c"] {
                for ts in 1..=6 {
                    t.put(Put::new("r").add_at("f", q, ts, format!("{q}{ts}")))
                        .unwrap();
                }
            }
            t.delete(Delete::new("r").versions_up_to("f", "a", 4))
                .unwrap();
            t.delete(Delete::new("r").version("f", "a", 2)).unwrap();
            t.delete(Delete::new("r").version("f", "b", 5)).unwrap();
            t.delete(Delete::new("r").version("f", "b", 3)).unwrap();
            t.delete(Delete::new("r").family_version("f", 6)).unwrap();
            t.delete(Delete::new("r").family_up_to("f", 1)).unwrap();
            t.delete(Delete::new("r").family_up_to("f", 2)).unwrap();
        },
        |t, _, stage| {
            let g = || Get::new("r").all_versions();
            assert_eq!(get_ts(t, g(), "f", "a"), [5], "{stage:?}");
            assert_eq!(get_ts(t, g(), "f", "b"), [4], "{stage:?}");
            assert_eq!(get_ts(t, g(), "f", "c"), [5, 4, 3], "{stage:?}");
        },
    );
}

/// [DEL-6] `latest_version` (addColumn without ts) deletes the newest visible version; the
/// k-th call in one Delete deletes the k-th newest; with nothing visible the marker is at now.
#[test]
fn latest_version_delete_hits_the_kth_newest_visible_version() {
    for stage in ALL_STAGES {
        let env = Env::new(1_000);
        let t = env.table(fg(5));
        for ts in 1..=4 {
            t.put(Put::new("r").add_at("f", "q", ts, ts.to_string()))
                .unwrap();
        }
        t.delete(Delete::new("r").version("f", "q", 4)).unwrap();
        stage.apply(&t);
        t.delete(Delete::new("r").latest_version("f", "q")).unwrap(); // hits 3
        assert_eq!(
            versions(&t, "r", "f", "q"),
            [(2, "2".into()), (1, "1".into())],
            "{stage:?}"
        );
        t.delete(
            Delete::new("r")
                .latest_version("f", "q")
                .latest_version("f", "q"),
        )
        .unwrap(); // hits 2 and 1
        assert!(t.get(Get::new("r")).unwrap().is_empty(), "{stage:?}");
        // Nothing visible: D at now, which masks a later put at now only.
        t.delete(Delete::new("r").latest_version("g", "q")).unwrap();
        t.put(
            Put::new("r")
                .add_at("g", "q", 1_000, "now")
                .add_at("g", "q", 999, "before"),
        )
        .unwrap();
        assert_eq!(
            versions(&t, "r", "g", "q"),
            [(999, "before".into())],
            "{stage:?}"
        );
    }
}

/// [DEL-6] DC, DF and whole-row deletes without a timestamp are stamped with now.
#[test]
fn column_family_and_row_markers_default_to_now() {
    let env = Env::new(5_000);
    let t = env.table(fg(3));
    t.delete(Delete::new("a").all_versions("f", "q")).unwrap();
    t.delete(Delete::new("b").family("f")).unwrap();
    t.delete(Delete::new("c")).unwrap();
    assert_eq!(
        raw(&t),
        [
            "a/f:q@5000 DC=",
            "b/f:@5000 DF=",
            "c/f:@5000 DF=",
            "c/g:@5000 DF="
        ]
    );
}

/// [DEL-7] `family`/`family_up_to` discard markers added earlier for that family in the same
/// Delete; later column/family-version markers are kept.
#[test]
fn family_delete_discards_earlier_markers_of_the_family() {
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    t.delete(
        Delete::new("r")
            .version("f", "a", 3)
            .all_versions("g", "b")
            .family_up_to("f", 7)
            .family_version("f", 9)
            .version("f", "c", 8),
    )
    .unwrap();
    assert_eq!(
        raw(&t),
        ["r/f:@9 DFV=", "r/f:@7 DF=", "r/f:c@8 D=", "r/g:b@1000 DC="]
    );
}

/// [DEL-8] a delete naming an unknown family fails with NoSuchFamily and writes nothing.
#[test]
fn delete_of_unknown_family_is_rejected() {
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    t.put(Put::new("r").add("f", "q", "v")).unwrap();
    for d in [
        Delete::new("r").family("nope"),
        Delete::new("r")
            .all_versions("f", "q")
            .all_versions("nope", "q"),
        Delete::new("r").family_version("nope", 3),
    ] {
        assert!(matches!(t.delete(d), Err(Error::NoSuchFamily { .. })));
    }
    assert_eq!(raw(&t), ["r/f:q@1000 Put=v"]);
}

/// [DEL-9] future-dated puts survive a row delete at now; a future-dated row delete masks
/// them.
#[test]
fn future_dated_markers_work_like_any_other() {
    let future = LATEST_TIMESTAMP - 5;
    at_every_stage(
        1_000,
        || fg(3),
        |t, _| {
            t.put(
                Put::new("r")
                    .add_at("f", "q", future, "future")
                    .add("f", "p", "now"),
            )
            .unwrap();
            t.delete(Delete::new("r")).unwrap();
        },
        |t, _, stage| {
            assert_eq!(
                scan_cells(t, Scan::new()),
                [format!("r/f:q@{future} Put=future")],
                "{stage:?}"
            );
            t.delete(Delete::new("r").up_to(LATEST_TIMESTAMP - 3))
                .unwrap();
            assert!(t.get(Get::new("r")).unwrap().is_empty(), "{stage:?}");
        },
    );
}

/// [DEL-11] flush and minor compaction keep markers but drop the Puts they mask; major
/// compaction drops both.
#[test]
fn flush_drops_masked_puts_major_drops_markers() {
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    t.put(
        Put::new("r")
            .add_at("f", "q", 10, "10")
            .add_at("f", "q", 20, "20"),
    )
    .unwrap();
    t.delete(Delete::new("r").version("f", "q", 10)).unwrap();
    assert_eq!(
        raw(&t),
        ["r/f:q@20 Put=20", "r/f:q@10 D=", "r/f:q@10 Put=10"]
    );
    t.flush().unwrap();
    assert_eq!(raw(&t), ["r/f:q@20 Put=20", "r/f:q@10 D="]);
    t.delete(Delete::new("r").family_up_to("g", 5)).unwrap();
    t.put(Put::new("s").add_at("f", "q", 1, "1")).unwrap();
    t.flush().unwrap();
    t.compact().unwrap();
    assert_eq!(
        raw(&t),
        [
            "r/f:q@20 Put=20",
            "r/f:q@10 D=",
            "r/g:@5 DF=",
            "s/f:q@1 Put=1"
        ],
        "minor compaction keeps markers"
    );
    t.major_compact().unwrap();
    assert_eq!(raw(&t), ["r/f:q@20 Put=20", "s/f:q@1 Put=1"]);
}

/// [DEL-12] after a major compaction purged a (future-dated) marker, a re-put of a masked
/// coordinate is visible again.
#[test]
fn reput_is_visible_after_major_compaction_purged_the_marker() {
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    t.put(Put::new("r").add_at("f", "q", 500, "old")).unwrap();
    t.delete(Delete::new("r").versions_up_to("f", "q", 1_000_000))
        .unwrap();
    t.put(Put::new("r").add_at("f", "q", 500, "again")).unwrap();
    assert!(t.get(Get::new("r")).unwrap().is_empty());
    t.flush().unwrap();
    assert!(t.get(Get::new("r")).unwrap().is_empty());
    t.major_compact().unwrap();
    assert!(raw(&t).is_empty(), "marker and masked puts purged");
    t.put(Put::new("r").add_at("f", "q", 500, "again")).unwrap();
    assert_eq!(versions(&t, "r", "f", "q"), [(500, "again".into())]);
}

/// [DEL-13] time.to.purge.deletes is 0 (HBase's default): a major compaction drops even a
/// marker written a millisecond ago, and a future-dated one.
#[test]
fn purge_delay_is_zero() {
    let env = Env::new(10_000);
    let t = env.table(fg(3));
    t.put(
        Put::new("r")
            .add_at("f", "q", 9_999, "v")
            .add_at("f", "p", 5, "w"),
    )
    .unwrap();
    t.delete(Delete::new("r").version("f", "q", 9_999)).unwrap();
    t.delete(Delete::new("r").family_version("f", 20_000))
        .unwrap();
    t.flush().unwrap();
    t.major_compact().unwrap();
    assert_eq!(raw(&t), ["r/f:p@5 Put=w"]);
}
