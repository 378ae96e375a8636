//! §1.9 per-family time ranges of Get and Scan [SCAN-5] (`column_family_time_range`, HBase's
//! `setColumnFamilyTimeRange`): `UserScanQueryMatcher`'s constructor takes the family's range
//! instead of the read's, and `StoreFileScanner.shouldUseScanner` chooses files by it.
//!
//! Derived from HBase's `TestScan#testGetToScan` (a Get carries the ranges as a Scan does) and
//! `TestHStoreFile#testEmptyStoreFileRestrictKeyRanges` (a file is chosen by the family's
//! range); the per-family window with these ranges is in `per_family_limits.rs`.

use super::per_family_limits::fq;
use super::*;

/// scans (forward, reversed, raw), with deletes judged against the family's range.
#[test]
fn family_time_range_overrides_the_read_range() {
    at_every_stage(
        1_000,
        || fg(5),
        |t, _| {
            for r in ["r1", "r2"] {
                let mut p = Put::new(r);
                for ts in [2, 4, 6, 8] {
                    p = p.add_at("f", "q", ts, format!("f{ts}"));
                    p = p.add_at("g", "q", ts, format!("g{ts}"));
                }
                t.put(p).unwrap();
            }
            // Masks g:q@6 and older of r2.
            t.delete(Delete::new("r2").versions_up_to("g", "q", 6))
                .unwrap();
        },
        |t, _, stage| {
            let g = || {
                Get::new("r1")
                    .all_versions()
                    .time_range(0, 5)
                    .column_family_time_range("g", 5, 10)
            };
            assert_eq!(
                fq(&t.get(g()).unwrap()),
                ["f:q@4", "f:q@2", "g:q@8", "g:q@6"],
                "{stage:?}"
            );
            // Only the family's range matters for it; other families keep the read's.
            assert_eq!(
                fq(&t
                    .get(Get::new("r1").column_family_time_range("g", 0, 3))
                    .unwrap()),
                ["f:q@8", "g:q@2"]
            );
            // The last call for a family wins (HBase's map).
            assert_eq!(
                fq(&t
                    .get(
                        Get::new("r1")
                            .family("g")
                            .column_family_time_range("g", 0, 3)
                            .column_family_time_range("g", 0, 5)
                    )
                    .unwrap()),
                ["g:q@4"]
            );
            let scan = || {
                Scan::new()
                    .all_versions()
                    .time_range(0, 5)
                    .column_family_time_range("g", 5, 10)
            };
            let mut want = vec![
                "r1/f:q@4 Put=f4",
                "r1/f:q@2 Put=f2",
                "r1/g:q@8 Put=g8",
                "r1/g:q@6 Put=g6",
                "r2/f:q@4 Put=f4",
                "r2/f:q@2 Put=f2",
                "r2/g:q@8 Put=g8",
            ];
            assert_eq!(scan_cells(t, scan()), want, "{stage:?}");
            assert_eq!(rows(t, scan().reversed(true)), ["r2", "r1"]);
            // With a window: the range decides first, then the count.
            want.retain(|c| !c.contains("@2") && !c.contains("@6"));
            assert_eq!(
                scan_cells(t, scan().max_results_per_column_family(1)),
                want,
                "{stage:?}"
            );
            if stage == Stage::Memstore {
                // Raw: the family's range applies to markers too [KDC-6] (a flush drops the
                // masked put).
                assert_eq!(
                    scan_cells(
                        t,
                        Scan::new()
                            .raw(true)
                            .all_versions()
                            .start_row("r2")
                            .family("g")
                            .column_family_time_range("g", 6, 7)
                    ),
                    ["r2/g:q@6 DC=", "r2/g:q@6 Put=g6"]
                );
            }
        },
    );
}

/// outside the family's range is not needed.
#[test]
fn files_are_chosen_by_the_family_range() {
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    t.put(
        Put::new("r")
            .add_at("f", "q", 100, "f100")
            .add_at("g", "q", 100, "g100"),
    )
    .unwrap();
    t.flush().unwrap();
    t.put(
        Put::new("r")
            .add_at("f", "q", 5, "f5")
            .add_at("g", "q", 5, "g5"),
    )
    .unwrap();
    let get = |g: Get| fq(&t.get(g).unwrap());
    assert_eq!(
        get(Get::new("r")
            .all_versions()
            .time_range(0, 10)
            .column_family_time_range("g", 50, 200)),
        ["f:q@5", "g:q@100"]
    );
    assert_eq!(
        get(Get::new("r")
            .all_versions()
            .time_range(50, 200)
            .column_family_time_range("g", 0, 10)),
        ["f:q@100", "g:q@5"]
    );
    t.flush().unwrap();
    assert_eq!(
        get(Get::new("r")
            .all_versions()
            .time_range(0, 10)
            .column_family_time_range("f", 50, 200)),
        ["f:q@100", "g:q@5"]
    );
}

/// Gets, batches and scans alike.
#[test]
fn family_time_ranges_are_validated() {
    let env = Env::new(1_000);
    let t = env.table(fg(1));
    t.put(Put::new("r").add("f", "q", "v")).unwrap();
    assert!(matches!(
        t.get(Get::new("r").column_family_time_range("nope", 0, 1)),
        Err(Error::NoSuchFamily { .. })
    ));
    assert!(matches!(
        t.scan(Scan::new().column_family_time_range("nope", 0, 1)),
        Err(Error::NoSuchFamily { .. })
    ));
    assert!(matches!(
        t.get_many(vec![
            Get::new("r"),
            Get::new("r").column_family_time_range("nope", 0, 1)
        ]),
        Err(Error::NoSuchFamily { .. })
    ));
    for (min, max) in [(5, 4), (-1, 4), (0, -1)] {
        let e = t
            .get(Get::new("r").column_family_time_range("f", min, max))
            .unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        let e = t
            .scan(Scan::new().column_family_time_range("g", min, max))
            .err()
            .unwrap();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    }
    let e = t
        .get(Get::new("r").column_family_time_range("f", 5, 4))
        .unwrap_err();
    assert!(
        e.to_string().contains("maxStamp is smaller than minStamp"),
        "{e}"
    );
    // An empty range is allowed and returns nothing of that family.
    assert!(
        t.get(Get::new("r").column_family_time_range("f", 7, 7))
            .unwrap()
            .is_empty()
    );
}
