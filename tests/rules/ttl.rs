//! §1.5 TTL, including §1.5.1 TestMinVersions replayed scenario by scenario.

use super::*;

const NOW: i64 = 100_000;
/// TestMinVersions' base timestamp: every version is already expired (TTL = 1 s).
const TS: i64 = NOW - 2_000;

fn min_versions_family(m: u32) -> Vec<FamilyDescriptor> {
    vec![
        FamilyDescriptor::new("f")
            .max_versions(1000)
            .min_versions(m)
            .ttl(secs(1)),
    ]
}

/// [TTL-1] family TTL is whole, positive seconds (default forever) and counts seconds.
#[test]
fn family_ttl_is_positive_whole_seconds() {
    let env = Env::new(NOW);
    assert_eq!(FamilyDescriptor::new("f").ttl, None, "default FOREVER");
    for bad in [Duration::ZERO, ms(1_500)] {
        assert!(
            matches!(
                env.db.create_table(
                    TableDescriptor::new("t").family(FamilyDescriptor::new("f").ttl(bad))
                ),
                Err(Error::InvalidArgument(_))
            ),
            "{bad:?}"
        );
    }
    let t = env.table(vec![FamilyDescriptor::new("f").ttl(secs(10))]);
    t.put(Put::new("r").add_at("f", "q", NOW - 9_999, "v"))
        .unwrap();
    t.put(Put::new("s").add_at("f", "q", 0, "ancient")).unwrap();
    assert_eq!(rows(&t, Scan::new()), ["r"]);
    // A FOREVER family never expires.
    let g = Env::new(i64::MAX / 2);
    let t = g.table(fg(1));
    t.put(Put::new("r").add_at("f", "q", 0, "v")).unwrap();
    assert_eq!(rows(&t, Scan::new()), ["r"]);
}

/// [TTL-2] expiry is strict (`ts < now - ttl`) and `now` is fixed when the scanner opens.
#[test]
fn expiry_is_strict_and_now_is_fixed_at_scanner_open() {
    at_every_stage(
        NOW,
        || vec![FamilyDescriptor::new("f").ttl(secs(10))],
        |t, _| {
            t.put(Put::new("a").add_at("f", "q", NOW - 10_000, "edge"))
                .unwrap();
            t.put(Put::new("b").add_at("f", "q", NOW - 10_000, "edge"))
                .unwrap();
        },
        |t, clock, stage| {
            let mut s = t.scan(Scan::new()).unwrap();
            assert_eq!(s.next().unwrap().unwrap().row(), b"a", "{stage:?}");
            clock.advance(ms(1));
            assert_eq!(
                s.next().unwrap().unwrap().row(),
                b"b",
                "{stage:?}: now fixed at open"
            );
            assert!(s.next().is_none());
            assert!(t.get(Get::new("a")).unwrap().is_empty(), "{stage:?}");
            clock.set(NOW);
        },
    );
}

/// [TTL-3] per-cell TTL in ms: expired iff `ts + ttl < now`; it cannot extend the family TTL.
#[test]
fn cell_ttl_shortens_but_never_extends_life() {
    at_every_stage(
        NOW,
        || vec![FamilyDescriptor::new("f").ttl(secs(10)).max_versions(3)],
        |t, _| {
            t.put(Put::new("short").add("f", "q", "v").ttl(ms(500)))
                .unwrap();
            t.put(Put::new("long").add("f", "q", "v").ttl(secs(100)))
                .unwrap();
        },
        |t, clock, stage| {
            clock.set(NOW + 500);
            assert_eq!(rows(t, Scan::new()), ["long", "short"], "{stage:?}");
            clock.set(NOW + 501);
            assert_eq!(rows(t, Scan::new()), ["long"], "{stage:?}");
            clock.set(NOW + 10_001);
            assert!(
                rows(t, Scan::new()).is_empty(),
                "{stage:?}: family TTL wins"
            );
            clock.set(NOW);
        },
    );
}

/// [TTL-4] MIN_VERSIONS keeps the m newest family-expired versions but not cell-expired ones.
#[test]
fn min_versions_protects_family_expiry_not_cell_ttl() {
    at_every_stage(
        NOW,
        || min_versions_family(2),
        |t, _| {
            t.put(Put::new("r").add_at("f", "q", TS - 2, "a")).unwrap();
            t.put(Put::new("r").add_at("f", "q", TS - 1, "b")).unwrap();
            t.put(Put::new("r").add_at("f", "q", TS, "c").ttl(ms(10)))
                .unwrap();
        },
        |t, _, stage| {
            assert_eq!(
                get_ts(t, Get::new("r").all_versions(), "f", "q"),
                [TS - 1, TS - 2],
                "{stage:?}"
            );
        },
    );
}

/// [TTL-5] [INC-6] expiry is visible at once; an Increment with a TTL expires and the previous
/// value reappears; flush, minor and major compactions purge expired cells.
#[test]
fn expiry_reexposes_older_versions_and_is_purged() {
    let env = Env::new(NOW);
    let t = env.table(vec![
        FamilyDescriptor::new("f").max_versions(3).ttl(secs(10)),
    ]);
    t.put(Put::new("r").add("f", "c", 5i64.to_be_bytes()))
        .unwrap();
    env.clock.advance(ms(1));
    let r = t.increment(Increment::new("r").add("f", "c", 10)).unwrap();
    assert_eq!(r.value("f", "c"), Some(&15i64.to_be_bytes()[..]));
    // [INC-6] an Increment with a TTL: its new value expires and the previous one reappears.
    env.clock.advance(ms(1));
    let r = t
        .increment(Increment::new("r").add("f", "c", 84).ttl(ms(100)))
        .unwrap();
    assert_eq!(r.value("f", "c"), Some(&99i64.to_be_bytes()[..]));
    env.clock.advance(ms(1));
    assert_eq!(
        t.get(Get::new("r")).unwrap().value("f", "c"),
        Some(&99i64.to_be_bytes()[..])
    );
    env.clock.advance(ms(101));
    assert_eq!(
        t.get(Get::new("r")).unwrap().value("f", "c"),
        Some(&15i64.to_be_bytes()[..]),
        "the previous value reappears"
    );
    assert_eq!(raw(&t).len(), 3);
    t.flush().unwrap();
    assert_eq!(raw(&t).len(), 2, "flush purged the cell-expired version");
    env.clock.advance(secs(10));
    t.put(Put::new("s").add("f", "q", "x")).unwrap();
    t.flush().unwrap();
    t.compact().unwrap();
    t.major_compact().unwrap();
    assert_eq!(
        rows(&t, Scan::new().raw(true)),
        ["s"],
        "compaction purged the expired row"
    );
}

/// [TTL-6] raw scans ignore family and cell TTL until the cells are purged.
#[test]
fn raw_scans_ignore_ttl() {
    let env = Env::new(NOW);
    let t = env.table(vec![FamilyDescriptor::new("f").ttl(secs(1))]);
    t.put(Put::new("a").add_at("f", "q", 0, "family-expired"))
        .unwrap();
    t.put(Put::new("b").add("f", "q", "cell-expired").ttl(ms(1)))
        .unwrap();
    env.clock.advance(ms(5));
    assert!(rows(&t, Scan::new()).is_empty());
    assert_eq!(rows(&t, Scan::new().raw(true)), ["a", "b"]);
    t.flush().unwrap();
    assert!(rows(&t, Scan::new().raw(true)).is_empty());
}

/// [TTL-7] with m == 0 a family-expired delete marker is dropped by the flush.
#[test]
fn expired_markers_are_dropped_at_flush() {
    let env = Env::new(NOW);
    let t = env.table(vec![FamilyDescriptor::new("f").ttl(secs(1))]);
    t.delete(Delete::new("r").family_up_to("f", NOW - 5_000))
        .unwrap();
    t.delete(Delete::new("r").version("f", "q", NOW - 5_000))
        .unwrap();
    t.delete(Delete::new("s").family("f")).unwrap();
    assert_eq!(raw(&t).len(), 3);
    t.flush().unwrap();
    assert_eq!(raw(&t), [format!("s/f:@{NOW} DF=")]);
}

/// [TTL-4] [SCAN-REV-1] TestMinVersions#testGetClosestBefore (m=1): expired rows are still found
/// by a reversed one-row scan, newest version returned.
#[test]
fn min_versions_get_closest_before() {
    at_every_stage(
        NOW,
        || min_versions_family(1),
        |t, _| {
            t.put(Put::new("r1").add_at("f", "f", TS, "v1")).unwrap();
            t.put(Put::new("r1").add_at("f", "f", TS + 1, "v2"))
                .unwrap();
            t.put(Put::new("r3").add_at("f", "f", TS, "v3")).unwrap();
        },
        |t, _, stage| {
            let r: Vec<RowResult> = t
                .scan(Scan::new().reversed(true).start_row("r2").limit(1))
                .unwrap()
                .map(|r| r.unwrap())
                .collect();
            assert_eq!(r.len(), 1, "{stage:?}");
            assert_eq!(r[0].row(), b"r1");
            assert_eq!(r[0].value("f", "f"), Some(&b"v2"[..]));
        },
    );
}

/// [TTL-4] [VER-4] TestMinVersions#testStoreMemStore (m=3): MIN_VERSIONS counts across memstore
/// and files; a duplicate timestamp counts once.
#[test]
fn min_versions_count_across_memstore_and_files() {
    at_every_stage(
        NOW,
        || min_versions_family(3),
        |t, _| {
            t.put(Put::new("r").add_at("f", "f", TS - 1, "put1"))
                .unwrap();
            t.flush().unwrap();
            t.put(Put::new("r").add_at("f", "f", TS - 3, "put2"))
                .unwrap();
            t.put(Put::new("r").add_at("f", "f", TS - 2, "put3"))
                .unwrap();
            t.put(Put::new("r").add_at("f", "f", TS - 1, "put4"))
                .unwrap();
            t.put(Put::new("r").add_at("f", "f", TS - 4, "put5"))
                .unwrap();
        },
        |t, _, stage| {
            assert_eq!(
                versions(t, "r", "f", "f"),
                [
                    (TS - 1, "put4".into()),
                    (TS - 2, "put3".into()),
                    (TS - 3, "put2".into())
                ],
                "{stage:?}"
            );
            assert_eq!(get_ts(t, Get::new("r"), "f", "f"), [TS - 1]);
        },
    );
}

/// [TTL-4] TestMinVersions#testDelete (m=3): MIN_VERSIONS never resurrects deleted versions.
#[test]
fn min_versions_do_not_resurrect_deleted_versions() {
    at_every_stage(
        NOW,
        || min_versions_family(3),
        |t, _| {
            for (ts, v) in [(TS - 2, "a"), (TS - 1, "b"), (TS, "c")] {
                t.put(Put::new("r").add_at("f", "f", ts, v)).unwrap();
            }
            t.delete(Delete::new("r").up_to(TS - 1)).unwrap();
        },
        |t, _, stage| {
            assert_eq!(versions(t, "r", "f", "f"), [(TS, "c".into())], "{stage:?}");
        },
    );
}

/// [TTL-4] [VER-7] TestMinVersions#testMemStore (m=2): after a major compaction only m
/// versions remain; a back-dated put beyond m is invisible.
#[test]
fn min_versions_keep_m_newest_and_hide_backdated_puts() {
    at_every_stage(
        NOW,
        || min_versions_family(2),
        |t, _| {
            t.put(Put::new("r").add_at("f", "f", TS - 2, "a")).unwrap();
            t.put(Put::new("r").add_at("f", "f", TS - 1, "b")).unwrap();
            t.put(Put::new("r").add_at("f", "f", TS, "c")).unwrap();
            t.put(Put::new("r").add_at("f", "f", TS - 3, "backdated"))
                .unwrap();
        },
        |t, _, stage| {
            assert_eq!(
                get_ts(t, Get::new("r").all_versions(), "f", "f"),
                [TS, TS - 1],
                "{stage:?}"
            );
            let raw_n = raw(t).len();
            assert_eq!(
                raw_n,
                if stage == Stage::Memstore { 4 } else { 2 },
                "{stage:?}"
            );
        },
    );
}

/// [TTL-4] [VER-5] TestMinVersions#testBaseCase (m=2): a time range sees versions beyond m
/// before a flush; flush/compaction remove them.
#[test]
fn min_versions_base_case() {
    at_every_stage(
        NOW,
        || min_versions_family(2),
        |t, _| {
            for ts in [TS - 3, TS - 2, TS - 1, TS] {
                t.put(Put::new("r").add_at("f", "f", ts, ts.to_string()))
                    .unwrap();
            }
        },
        |t, _, stage| {
            assert_eq!(
                get_ts(t, Get::new("r").all_versions(), "f", "f"),
                [TS, TS - 1],
                "{stage:?}"
            );
            let old = get_ts(t, Get::new("r").timestamp(TS - 2), "f", "f");
            let want: &[i64] = if stage == Stage::Memstore {
                &[TS - 2]
            } else {
                &[]
            };
            assert_eq!(old, want, "{stage:?}");
        },
    );
}

/// [TTL-4] [VER-6] [FLT-9] TestMinVersions#testFilters (m=2): with a TimestampsFilter only the
/// m newest versions are eligible.
#[test]
fn min_versions_with_timestamps_filter() {
    at_every_stage(
        NOW,
        || min_versions_family(2),
        |t, _| {
            for ts in [TS - 3, TS - 2, TS - 1, TS] {
                t.put(Put::new("r").add_at("f", "f", ts, ts.to_string()))
                    .unwrap();
            }
        },
        |t, _, stage| {
            let g = Get::new("r")
                .all_versions()
                .filter(Filter::Timestamps(vec![TS - 2, TS - 1]));
            assert_eq!(get_ts(t, g, "f", "f"), [TS - 1], "{stage:?}");
        },
    );
}

/// [TTL-4] [KDC-5] TestMinVersions#testMinVersionsWithKeepDeletedCellsTTL (m=2, V=MAX, TTL=4s,
/// KDC=TTL): nothing is purged before the TTL; after it only the m newest survive.
#[test]
fn min_versions_with_keep_deleted_cells_ttl() {
    let env = Env::new(NOW);
    let t = env.table(vec![
        FamilyDescriptor::new("f")
            .max_versions(u32::MAX)
            .min_versions(2)
            .ttl(secs(4))
            .keep_deleted_cells(KeepDeletedCells::Ttl),
    ]);
    for ts in NOW..NOW + 4 {
        t.put(Put::new("r").add_at("f", "f", ts, ts.to_string()))
            .unwrap();
    }
    t.flush().unwrap();
    t.major_compact().unwrap();
    assert_eq!(get_ts(&t, Get::new("r").all_versions(), "f", "f").len(), 4);
    assert_eq!(raw(&t).len(), 4);
    env.clock.advance(secs(5));
    assert_eq!(
        get_ts(&t, Get::new("r").all_versions(), "f", "f"),
        [NOW + 3, NOW + 2]
    );
    t.major_compact().unwrap();
    assert_eq!(raw(&t).len(), 2);
}
