//! §1.4 Versions: VERSIONS, MIN_VERSIONS, query versions, time ranges.

use super::*;

/// [VER-1] VERSIONS >= 1 and MIN_VERSIONS <= VERSIONS are enforced at create and alter;
/// VERSIONS newest versions are visible and kept.
#[test]
fn family_versions_are_validated_and_bound_reads() {
    let env = Env::new(1_000);
    for bad in [
        FamilyDescriptor::new("f").max_versions(0),
        FamilyDescriptor::new("f").max_versions(2).min_versions(3),
    ] {
        assert!(matches!(
            env.db
                .create_table(TableDescriptor::new("t").family(bad.clone())),
            Err(Error::InvalidArgument(_))
        ));
    }
    let t = env.table(fg(2));
    assert!(matches!(
        env.db.alter_family(
            "t",
            FamilyDescriptor::new("f").max_versions(1).min_versions(2)
        ),
        Err(Error::InvalidArgument(_))
    ));
    assert_eq!(
        FamilyDescriptor::new("x").max_versions,
        1,
        "default VERSIONS"
    );
    assert_eq!(
        FamilyDescriptor::new("x").min_versions,
        0,
        "default MIN_VERSIONS"
    );
    for ts in 1..=4 {
        t.put(Put::new("r").add_at("f", "q", ts, "v")).unwrap();
    }
    for stage in [Stage::Flushed, Stage::Compacted] {
        stage.apply(&t);
        assert_eq!(get_ts(&t, Get::new("r").all_versions(), "f", "q"), [4, 3]);
        assert_eq!(
            scan_cells(&t, Scan::new().raw(true).all_versions()).len(),
            2,
            "{stage:?}: only VERSIONS kept"
        );
    }
}

/// [VER-2] default query versions is 1; a normal read returns min(query, V); zero versions
/// is rejected; a raw scan is capped by the query versions, not by V.
#[test]
fn query_versions_capped_by_family_versions_except_raw() {
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    for ts in 1..=5 {
        t.put(Put::new("r").add_at("f", "q", ts, "v")).unwrap();
    }
    assert_eq!(get_ts(&t, Get::new("r"), "f", "q"), [5]);
    assert_eq!(get_ts(&t, Get::new("r").max_versions(2), "f", "q"), [5, 4]);
    assert_eq!(
        get_ts(&t, Get::new("r").max_versions(10), "f", "q"),
        [5, 4, 3]
    );
    assert_eq!(
        get_ts(&t, Get::new("r").all_versions(), "f", "q"),
        [5, 4, 3]
    );
    assert!(matches!(
        t.get(Get::new("r").max_versions(0)),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        t.scan(Scan::new().max_versions(0)),
        Err(Error::InvalidArgument(_))
    ));
    assert_eq!(
        scan_cells(&t, Scan::new().raw(true).max_versions(4)).len(),
        4
    );
    assert_eq!(
        scan_cells(&t, Scan::new().raw(true).all_versions()).len(),
        5
    );
    assert_eq!(scan_cells(&t, Scan::new().raw(true)).len(), 1);
}

/// [VER-3] deleted versions do not consume versions: deleting the newest exposes an older
/// one that has not been physically dropped — "major compactions change query results".
#[test]
fn deleting_the_newest_exposes_an_older_version_until_dropped() {
    at_every_stage(
        1_000,
        || fg(1),
        |t, _| {
            t.put(Put::new("r").add_at("f", "q", 1, "one")).unwrap();
            t.put(Put::new("r").add_at("f", "q", 2, "two")).unwrap();
        },
        |t, _, stage| {
            t.delete(Delete::new("r").version("f", "q", 2)).unwrap();
            let want: Vec<(i64, String)> = match stage {
                Stage::Memstore => vec![(1, "one".into())],
                _ => vec![],
            };
            assert_eq!(versions(t, "r", "f", "q"), want, "{stage:?}");
        },
    );
}

/// [VER-4] duplicate versions (same ts) are returned once — the newest write — and do not
/// count as separate versions, across memstore and files.
#[test]
fn duplicate_timestamps_count_once() {
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    t.put(Put::new("r").add_at("f", "q", 3, "a")).unwrap();
    t.put(Put::new("r").add_at("f", "q", 2, "b")).unwrap();
    t.flush().unwrap();
    t.put(Put::new("r").add_at("f", "q", 3, "c")).unwrap();
    t.put(Put::new("r").add_at("f", "q", 1, "d")).unwrap();
    t.flush().unwrap();
    t.put(Put::new("r").add_at("f", "q", 2, "e")).unwrap();
    let want = vec![(3, "c".to_string()), (2, "e".into()), (1, "d".into())];
    assert_eq!(versions(&t, "r", "f", "q"), want);
    t.flush().unwrap();
    assert_eq!(versions(&t, "r", "f", "q"), want);
    t.major_compact().unwrap();
    assert_eq!(versions(&t, "r", "f", "q"), want);
}

/// [VER-5] the spec's example: V=3, puts @1..@8 in the memstore, `TR [0,5) versions=3` →
/// [4,3,2]; after a flush (which keeps @8,@7,@6) → [].
#[test]
fn time_range_applies_before_version_counting() {
    at_every_stage(
        1_000,
        || fg(3),
        |t, _| {
            for ts in 1..=8 {
                t.put(Put::new("r").add_at("f", "q", ts, "v")).unwrap();
            }
        },
        |t, _, stage| {
            let got = get_ts(t, Get::new("r").time_range(0, 5).max_versions(3), "f", "q");
            let want: &[i64] = if stage == Stage::Memstore {
                &[4, 3, 2]
            } else {
                &[]
            };
            assert_eq!(got, want, "{stage:?}");
            assert_eq!(get_ts(t, Get::new("r").all_versions(), "f", "q"), [8, 7, 6]);
        },
    );
}

/// [VER-6] with a filter up to V versions reach it and at most min(query, V) included cells
/// are returned: an older version can come back when newer ones are filtered, never one
/// beyond the V newest.
#[test]
fn filter_sees_up_to_family_versions() {
    at_every_stage(
        1_000,
        || fg(3),
        |t, _| {
            for ts in 1..=5 {
                t.put(Put::new("r").add_at("f", "q", ts, format!("v{ts}")))
                    .unwrap();
            }
        },
        |t, _, stage| {
            let g = Get::new("r").filter(Filter::Value(
                CompareOp::Equal,
                Comparator::Binary(b"v3".to_vec()),
            ));
            assert_eq!(
                get_ts(t, g, "f", "q"),
                [3],
                "{stage:?}: 3rd newest of V=3 reaches"
            );
            let g = Get::new("r").filter(Filter::Value(
                CompareOp::Equal,
                Comparator::Binary(b"v2".to_vec()),
            ));
            assert!(t.get(g).unwrap().is_empty(), "{stage:?}: beyond V");
            let g = Get::new("r")
                .max_versions(1)
                .filter(Filter::Timestamps(vec![3, 4, 5]));
            assert_eq!(get_ts(t, g, "f", "q"), [5], "{stage:?}");
            let g = Get::new("r").max_versions(2).filter(Filter::Value(
                CompareOp::LessOrEqual,
                Comparator::Binary(b"v4".to_vec()),
            ));
            assert_eq!(get_ts(t, g, "f", "q"), [4, 3], "{stage:?}");
        },
    );
}

/// [VER-6] raw scan with a filter: unlimited reach, query versions returned.
#[test]
fn raw_scan_with_filter_reaches_every_version() {
    let env = Env::new(1_000);
    let t = env.table(fg(2));
    for ts in 1..=5 {
        t.put(Put::new("r").add_at("f", "q", ts, format!("v{ts}")))
            .unwrap();
    }
    let s = Scan::new().raw(true).max_versions(2).filter(Filter::Value(
        CompareOp::LessOrEqual,
        Comparator::Binary(b"v2".to_vec()),
    ));
    assert_eq!(scan_cells(&t, s), ["r/f:q@2 Put=v2", "r/f:q@1 Put=v1"]);
}

/// [VER-7] excess versions are dropped by a flush only within the flushed snapshot, by a
/// minor compaction within its files, by a major compaction everywhere; until then a time
/// range still sees them.
#[test]
fn excess_versions_are_dropped_per_flush_and_compaction_scope() {
    let env = Env::new(1_000);
    let t = env.table(fg(1));
    t.put(Put::new("r").add_at("f", "q", 1, "1")).unwrap();
    t.flush().unwrap();
    t.put(Put::new("r").add_at("f", "q", 2, "2")).unwrap();
    t.put(Put::new("r").add_at("f", "q", 3, "3")).unwrap();
    assert_eq!(get_ts(&t, Get::new("r").time_range(0, 3), "f", "q"), [2]);
    t.flush().unwrap();
    // @2 was excess within the snapshot; @1 is in another file.
    assert_eq!(get_ts(&t, Get::new("r").time_range(0, 3), "f", "q"), [1]);
    assert_eq!(raw(&t), ["r/f:q@3 Put=3", "r/f:q@1 Put=1"]);
    t.major_compact().unwrap();
    assert!(t.get(Get::new("r").time_range(0, 3)).unwrap().is_empty());
    assert_eq!(raw(&t), ["r/f:q@3 Put=3"]);
}

/// [VER-8] explicit-column quirk: m=1, TTL=1s, versions @now and @now-5000, a wildcard Get
/// returns only @now, an explicit column Get also the first expired version (memstore).
#[test]
fn explicit_column_tracker_includes_first_expired_version() {
    let env = Env::new(100_000);
    let t = env.table(vec![
        FamilyDescriptor::new("f")
            .max_versions(10)
            .min_versions(1)
            .ttl(secs(1)),
    ]);
    t.put(Put::new("r").add_at("f", "q", 100_000, "fresh"))
        .unwrap();
    t.put(Put::new("r").add_at("f", "q", 95_000, "expired"))
        .unwrap();
    assert_eq!(
        get_ts(&t, Get::new("r").max_versions(10), "f", "q"),
        [100_000]
    );
    assert_eq!(
        get_ts(
            &t,
            Get::new("r").column("f", "q").max_versions(10),
            "f",
            "q"
        ),
        [100_000, 95_000]
    );
    t.flush().unwrap();
    assert_eq!(
        get_ts(
            &t,
            Get::new("r").column("f", "q").max_versions(10),
            "f",
            "q"
        ),
        [100_000],
        "the flush dropped the expired version beyond m"
    );
}
