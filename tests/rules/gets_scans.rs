//! §1.9 Get and Scan.

use super::*;

fn data(t: &Table, _: &ManualClock) {
    for r in ["a", "b", "c", "d"] {
        t.put(
            Put::new(r)
                .add_at("f", "x", 1, "1")
                .add_at("f", "y", 1, "2")
                .add_at("g", "z", 1, "3"),
        )
        .unwrap();
    }
}

/// [GET-1] family/column selection narrows and widens as in HBase; an unknown family fails.
#[test]
fn column_selection_narrows_and_widens() {
    at_every_stage(
        1_000,
        || fg(1),
        data,
        |t, _, stage| {
            let q =
                |g: Get| -> Vec<String> { t.get(g).unwrap().cells().iter().map(show).collect() };
            assert_eq!(q(Get::new("a")).len(), 3, "{stage:?}");
            assert_eq!(q(Get::new("a").family("f")).len(), 2);
            assert_eq!(
                q(Get::new("a").family("f").column("f", "y")),
                ["a/f:y@1 Put=2"]
            );
            assert_eq!(q(Get::new("a").column("f", "y").family("f")).len(), 2);
            assert_eq!(q(Get::new("a").column("f", "y").column("g", "z")).len(), 2);
            assert!(matches!(
                t.get(Get::new("a").family("nope")),
                Err(Error::NoSuchFamily { .. })
            ));
            assert!(matches!(
                t.scan(Scan::new().column("nope", "q")),
                Err(Error::NoSuchFamily { .. })
            ));
        },
    );
}

/// [GET-2] a missing row is an empty result, not an error; an empty row key is rejected.
#[test]
fn missing_row_is_empty_and_empty_key_rejected() {
    at_every_stage(
        1_000,
        || fg(1),
        data,
        |t, _, stage| {
            let r = t.get(Get::new("zz")).unwrap();
            assert!(r.is_empty() && r.cells().is_empty(), "{stage:?}");
            assert!(!t.exists(Get::new("zz")).unwrap());
            assert!(t.exists(Get::new("a")).unwrap());
            assert!(matches!(
                t.get(Get::new("")),
                Err(Error::InvalidArgument(_))
            ));
        },
    );
}

/// [SCAN-1] start inclusive, stop exclusive, empty = table bounds; rows whose cells are all
/// deleted are skipped.
#[test]
fn start_inclusive_stop_exclusive_and_empty_rows_skipped() {
    at_every_stage(
        1_000,
        || fg(1),
        |t, c| {
            data(t, c);
            t.delete(Delete::new("c")).unwrap();
        },
        |t, _, stage| {
            assert_eq!(
                rows(t, Scan::new().start_row("b").stop_row("d")),
                ["b"],
                "{stage:?}"
            );
            assert_eq!(rows(t, Scan::new().start_row("b")), ["b", "d"]);
            assert_eq!(rows(t, Scan::new().stop_row("b")), ["a"]);
            assert_eq!(
                rows(t, Scan::new().start_row("").stop_row("")),
                ["a", "b", "d"]
            );
        },
    );
}

/// [SCAN-2] a prefix scan stops before the next prefix, also for trailing 0xFF bytes.
#[test]
fn prefix_scan_bounds() {
    let env = Env::new(1_000);
    let t = env.table(fg(1));
    for r in [
        &b"ab"[..],
        b"ab\xff",
        b"ab\xff\xff",
        b"ac",
        b"\xff\xff",
        b"\xff\xff\x01",
        b"aa",
    ] {
        t.put(Put::new(r).add("f", "q", "v")).unwrap();
    }
    let n = |p: &[u8]| t.scan(Scan::new().prefix(p)).unwrap().count();
    assert_eq!(n(b"ab"), 3);
    assert_eq!(n(b"ab\xff"), 2);
    assert_eq!(n(b"\xff\xff"), 2);
    assert_eq!(n(b"a"), 5);
}

/// [SCAN-REV-1] reversed: start is the high bound (inclusive; a missing start begins at the
/// closest smaller row), stop the low bound (exclusive).
#[test]
fn reversed_scan_bounds() {
    at_every_stage(
        1_000,
        || fg(1),
        data,
        |t, _, stage| {
            let s = || Scan::new().reversed(true);
            assert_eq!(rows(t, s()), ["d", "c", "b", "a"], "{stage:?}");
            assert_eq!(rows(t, s().start_row("c").stop_row("a")), ["c", "b"]);
            assert_eq!(rows(t, s().start_row("bb")), ["b", "a"]);
        },
    );
}

/// [SCAN-2b] limit counts complete rows, batched parts of a row count once.
#[test]
fn limit_counts_rows() {
    at_every_stage(
        1_000,
        || fg(1),
        data,
        |t, _, stage| {
            assert_eq!(rows(t, Scan::new().limit(2)), ["a", "b"], "{stage:?}");
            let parts = rows(t, Scan::new().limit(2).batch(2));
            assert_eq!(parts, ["a", "a", "b", "b"], "{stage:?}");
        },
    );
}

/// [SCAN-3] batch splits a row into ceil(c/b) results of b, b, …, rest cells; a batch with a
/// row-level filter is rejected.
#[test]
fn batch_splits_wide_rows() {
    at_every_stage(
        1_000,
        || fg(1),
        data,
        |t, _, stage| {
            let sizes: Vec<usize> = t
                .scan(Scan::new().start_row("a").stop_row("b").batch(2))
                .unwrap()
                .map(|r| r.unwrap().cells().len())
                .collect();
            assert_eq!(sizes, [2, 1], "{stage:?}");
            assert!(
                t.scan(Scan::new().batch(2).filter(Filter::Page(1)))
                    .is_err()
            );
        },
    );
}

/// [SCAN-RAW-1] raw returns markers, deleted and excess versions, up to the query versions
/// (markers not counted).
#[test]
fn raw_scan_contents() {
    let env = Env::new(1_000);
    let t = env.table(fg(1));
    for ts in 1..=3 {
        t.put(Put::new("r").add_at("f", "q", ts, "v")).unwrap();
    }
    t.delete(Delete::new("r").version("f", "q", 3)).unwrap();
    assert_eq!(
        scan_cells(&t, Scan::new().raw(true).max_versions(2)),
        ["r/f:q@3 D=", "r/f:q@3 Put=v", "r/f:q@2 Put=v"]
    );
    assert_eq!(get_ts(&t, Get::new("r").all_versions(), "f", "q"), [2]);
}
