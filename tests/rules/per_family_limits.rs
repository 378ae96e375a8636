//! §1.9 per-family limits of Get and Scan [GET-3] (`max_results_per_column_family`,
//! `row_offset_per_column_family`; HBase's `StoreScanner.next` with `storeLimit`,
//! `storeOffset` and `countPerRow`), alone and with per-family time ranges [SCAN-5] (whose own
//! tests are in `per_family_time_ranges.rs`).
//!
//! Derived from HBase's `TestScannersFromClientSide` (`testGetMaxResults`,
//! `testScanMaxResults`, `testGetRowOffset`), `TestIntraRowPagination#testScanLimitAndOffset`
//! and `TestScan#testGetToScan` (a Get carries the settings as a Scan does). Each scenario
//! runs with the cells in the memstore, after a flush and after a major compaction, and some
//! with cells split between a file and the memstore.

use super::*;

/// Qualifiers as HBase's `HTestConst.makeNAscii` builds them: `q0`, `q1`, … unpadded, so
/// they sort `q0, q1, q10, q11, …, q19, q2, …`.
fn q(i: usize) -> String {
    format!("q{i}")
}

/// Puts `f:q0 .. f:q(n-1)` at ts 1 in `row`.
fn put_columns(t: &Table, row: &str, f: &str, n: usize) {
    let mut p = Put::new(row);
    for i in 0..n {
        p = p.add_at(f, q(i), 1, "v");
    }
    t.put(p).unwrap();
}

/// A row's cells as `family:qualifier@ts`.
pub fn fq(r: &RowResult) -> Vec<String> {
    r.cells()
        .iter()
        .map(|c| {
            format!(
                "{}:{}@{}",
                String::from_utf8_lossy(c.family()),
                String::from_utf8_lossy(c.qualifier()),
                c.timestamp()
            )
        })
        .collect()
}

/// `family:q<i>@1` for each `i`.
fn cols(f: &str, is: impl IntoIterator<Item = usize>) -> Vec<String> {
    is.into_iter().map(|i| format!("{f}:{}@1", q(i))).collect()
}

fn families3() -> Vec<FamilyDescriptor> {
    ["f0", "f1", "f2"]
        .into_iter()
        .map(FamilyDescriptor::new)
        .collect()
}

fn range(min: &str, max: Option<&str>) -> Filter {
    Filter::ColumnRange {
        min: Some(min.as_bytes().to_vec()),
        min_inclusive: true,
        max: max.map(|m| m.as_bytes().to_vec()),
        max_inclusive: true,
    }
}

/// [GET-3] after `TestScannersFromClientSide#testGetMaxResults`: the limit holds per family,
/// counts the cells a filter lets through (ColumnRangeFilter, ColumnPrefixFilter), and a
/// family with fewer cells is returned whole.
#[test]
fn get_max_results_per_family() {
    at_every_stage(
        1_000,
        families3,
        |t, _| {
            put_columns(t, "r", "f0", 10);
            put_columns(t, "r", "f2", 20);
            put_columns(t, "r", "f1", 10);
        },
        |t, _, stage| {
            let get = |g: Get| fq(&t.get(g).unwrap());
            let f0 = || Get::new("r").family("f0");
            assert_eq!(get(f0()), cols("f0", 0..10), "{stage:?}");
            assert_eq!(get(f0().max_results_per_column_family(2)), cols("f0", 0..2));
            assert_eq!(
                get(f0()
                    .max_results_per_column_family(5)
                    .filter(range("q2", Some("q5")))),
                cols("f0", 2..6),
                "single family with ColumnRangeFilter"
            );
            // f1 has 10 columns, f2 20: f2's first 12 in key order are q0, q1, q10 .. q19.
            let mut want = cols("f1", 0..10);
            want.extend(cols("f2", [0, 1]));
            want.extend(cols("f2", 10..20));
            assert_eq!(
                get(Get::new("r")
                    .family("f1")
                    .family("f2")
                    .max_results_per_column_family(12)),
                want,
                "{stage:?}"
            );
            let mut want = Vec::new();
            for f in ["f0", "f1", "f2"] {
                want.extend(cols(f, 2..5));
            }
            assert_eq!(
                get(Get::new("r")
                    .max_results_per_column_family(3)
                    .filter(range("q2", None))),
                want,
                "every family with ColumnRangeFilter"
            );
            let mut want = cols("f0", [1]);
            want.extend(cols("f1", [1]));
            want.extend(cols("f2", [1]));
            want.extend(cols("f2", 10..16));
            assert_eq!(
                get(Get::new("r")
                    .max_results_per_column_family(7)
                    .filter(Filter::ColumnPrefix(b"q1".to_vec()))),
                want,
                "every family with ColumnPrefixFilter"
            );
        },
    );
}

/// [GET-3] after `TestScannersFromClientSide#testGetRowOffset`: the offset skips the first
/// cells of each family, an offset past the row returns nothing, offset and limit combine,
/// the offset counts after the filter, and both hold per family.
#[test]
fn get_row_offset_per_family() {
    at_every_stage(
        1_000,
        families3,
        |t, _| {
            for f in ["f0", "f1", "f2"] {
                put_columns(t, "r", f, 10);
            }
        },
        |t, _, stage| {
            let get = |g: Get| fq(&t.get(g).unwrap());
            let f0 = || Get::new("r").family("f0");
            assert_eq!(
                get(f0().row_offset_per_column_family(2)),
                cols("f0", 2..10),
                "{stage:?}"
            );
            assert!(get(f0().row_offset_per_column_family(20)).is_empty());
            assert!(
                t.get(f0().row_offset_per_column_family(20))
                    .unwrap()
                    .is_empty()
            );
            assert_eq!(
                get(f0()
                    .row_offset_per_column_family(4)
                    .max_results_per_column_family(5)),
                cols("f0", 4..9)
            );
            assert_eq!(
                get(f0()
                    .row_offset_per_column_family(1)
                    .filter(range("q2", Some("q5")))),
                cols("f0", 3..6),
                "the offset counts the cells the filter kept"
            );
            let mut want = cols("f1", 4..6);
            want.extend(cols("f2", 4..6));
            assert_eq!(
                get(Get::new("r")
                    .family("f1")
                    .family("f2")
                    .row_offset_per_column_family(4)
                    .max_results_per_column_family(2)),
                want,
                "{stage:?}"
            );
        },
    );
}

/// [GET-3] after `TestIntraRowPagination#testScanLimitAndOffset` and
/// `TestScannersFromClientSide#testScanMaxResults`: a scan applies the window to every row
/// and family; reversed scans too (`ReversedStoreScanner` shares `StoreScanner.next`), and
/// batching splits the windowed row without restarting the count (HBase keeps
/// `countPerRow` across the batches of a row).
#[test]
fn scan_limit_and_offset_per_row_and_family() {
    at_every_stage(
        1_000,
        families3,
        |t, _| {
            for r in ["r0", "r1"] {
                for f in ["f0", "f1", "f2"] {
                    put_columns(t, r, f, 10);
                }
            }
        },
        |t, _, stage| {
            let window = || {
                Scan::new()
                    .row_offset_per_column_family(1)
                    .max_results_per_column_family(3)
            };
            // In key order q1, q2, q3 (q10 .. q19 do not exist here).
            let mut row = Vec::new();
            for f in ["f0", "f1", "f2"] {
                row.extend(cols(f, 1..4));
            }
            let rows_of = |s: Scan| -> Vec<(String, Vec<String>)> {
                t.scan(s)
                    .unwrap()
                    .map(|r| {
                        let r = r.unwrap();
                        (String::from_utf8_lossy(r.row()).into_owned(), fq(&r))
                    })
                    .collect()
            };
            let got = rows_of(window());
            assert_eq!(
                got,
                [
                    ("r0".to_string(), row.clone()),
                    ("r1".to_string(), row.clone())
                ],
                "{stage:?}"
            );
            let reversed = rows_of(window().reversed(true));
            assert_eq!(
                reversed,
                [
                    ("r1".to_string(), row.clone()),
                    ("r0".to_string(), row.clone())
                ],
                "reversed {stage:?}"
            );
            // Batches of 4 over the 9 windowed cells: 4, 4, 1 per row.
            let parts: Vec<Vec<String>> = t
                .scan(window().batch(4))
                .unwrap()
                .map(|r| fq(&r.unwrap()))
                .collect();
            assert_eq!(
                parts.iter().map(Vec::len).collect::<Vec<_>>(),
                [4, 4, 1, 4, 4, 1],
                "batch {stage:?}"
            );
            assert_eq!(parts[..3].concat(), row);
            // Limit only, as testScanMaxResults: the first 4 of each family.
            let mut four = Vec::new();
            for f in ["f0", "f1", "f2"] {
                four.extend(cols(f, 0..4));
            }
            let all: Vec<String> = t
                .scan(Scan::new().max_results_per_column_family(4))
                .unwrap()
                .flat_map(|r| fq(&r.unwrap()))
                .collect();
            assert_eq!(all, [four.clone(), four].concat(), "{stage:?}");
            // A scan row range and a row limit combine with the window.
            let one = rows(t, window().start_row("r1").limit(1));
            assert_eq!(one, ["r1"]);
        },
    );
}

/// [GET-3] [VER-2] [VER-5] each returned version is a cell of the count; versions beyond the
/// query's, cells outside the time range and deleted cells are never counted (the matcher
/// decides before `countPerRow`).
#[test]
fn versions_time_range_and_deletes_come_before_the_count() {
    at_every_stage(
        1_000,
        || fg(3),
        |t, _| {
            t.put(
                Put::new("r")
                    .add_at("f", "a", 1, "a1")
                    .add_at("f", "a", 2, "a2")
                    .add_at("f", "a", 3, "a3")
                    .add_at("f", "b", 1, "b1")
                    .add_at("f", "b", 2, "b2")
                    .add_at("f", "c", 1, "c1")
                    .add_at("g", "x", 1, "x1")
                    .add_at("g", "x", 2, "x2"),
            )
            .unwrap();
            // Half of it in a file, the rest (and the deletes) in the memstore.
            t.flush().unwrap();
            t.put(Put::new("r").add_at("f", "d", 1, "d1")).unwrap();
            t.delete(Delete::new("r").version("f", "b", 2)).unwrap();
        },
        |t, _, stage| {
            let get = |g: Get| fq(&t.get(g).unwrap());
            let all = || Get::new("r").all_versions();
            assert_eq!(
                get(all().max_results_per_column_family(4)),
                ["f:a@3", "f:a@2", "f:a@1", "f:b@1", "g:x@2", "g:x@1"],
                "{stage:?}"
            );
            assert_eq!(
                get(all()
                    .row_offset_per_column_family(2)
                    .max_results_per_column_family(2)),
                ["f:a@1", "f:b@1"],
                "the deleted f:b@2 is not counted"
            );
            assert_eq!(
                get(Get::new("r")
                    .max_versions(2)
                    .row_offset_per_column_family(1)
                    .max_results_per_column_family(3)),
                ["f:a@2", "f:b@1", "f:c@1", "g:x@1"],
                "{stage:?}"
            );
            assert_eq!(
                get(all()
                    .time_range(1, 2)
                    .row_offset_per_column_family(1)
                    .max_results_per_column_family(2)),
                ["f:b@1", "f:c@1"],
                "only cells in the time range are counted"
            );
            t.delete(Delete::new("r").all_versions("f", "a")).unwrap();
            assert_eq!(
                get(all().max_results_per_column_family(2)),
                ["f:b@1", "f:c@1", "g:x@2", "g:x@1"],
                "{stage:?}"
            );
        },
    );
}

/// [GET-3] [FLT-5] the window applies after the filter's cell decisions and before its row
/// decision: a SingleColumnValueFilter that never saw its column (the limit left the family
/// before it) drops the row when `filter_if_missing`, and a tested cell skipped by the offset
/// still counts as found.
#[test]
fn row_filters_decide_on_the_window() {
    at_every_stage(
        1_000,
        || fg(1),
        |t, _| {
            t.put(
                Put::new("r")
                    .add_at("f", "a", 1, "1")
                    .add_at("f", "b", 1, "x"),
            )
            .unwrap();
        },
        |t, _, stage| {
            let scvf = |q: &str, v: &str| Filter::SingleColumnValue {
                family: b"f".to_vec(),
                qualifier: q.as_bytes().to_vec(),
                op: CompareOp::Equal,
                comparator: Comparator::Binary(v.as_bytes().to_vec()),
                filter_if_missing: true,
                latest_version_only: true,
            };
            let get = |g: Get| fq(&t.get(g).unwrap());
            assert_eq!(get(Get::new("r").filter(scvf("b", "x"))).len(), 2);
            assert!(
                get(Get::new("r")
                    .filter(scvf("b", "x"))
                    .max_results_per_column_family(1))
                .is_empty(),
                "{stage:?}"
            );
            assert_eq!(
                get(Get::new("r")
                    .filter(scvf("a", "1"))
                    .row_offset_per_column_family(1)),
                ["f:b@1"],
                "{stage:?}"
            );
        },
    );
}

/// [GET-3] [SCAN-RAW-1] a raw scan counts what it returns, delete markers included
/// (`RawScanQueryMatcher` answers inside the same `StoreScanner.next` loop).
#[test]
fn raw_scans_count_markers() {
    for stage in [Stage::Memstore, Stage::Flushed] {
        let env = Env::new(1_000);
        let t = env.table(fg(3));
        t.put(
            Put::new("r")
                .add_at("f", "a", 1, "1")
                .add_at("f", "b", 1, "2")
                .add_at("f", "c", 1, "3"),
        )
        .unwrap();
        // A marker that masks nothing, so a flush keeps every cell.
        t.delete(Delete::new("r").version("f", "a", 2)).unwrap();
        stage.apply(&t);
        let raw = || Scan::new().raw(true).all_versions();
        assert_eq!(
            scan_cells(&t, raw()),
            [
                "r/f:a@2 D=",
                "r/f:a@1 Put=1",
                "r/f:b@1 Put=2",
                "r/f:c@1 Put=3"
            ],
            "{stage:?}"
        );
        assert_eq!(
            scan_cells(&t, raw().max_results_per_column_family(2)),
            ["r/f:a@2 D=", "r/f:a@1 Put=1"],
            "{stage:?}"
        );
        assert_eq!(
            scan_cells(
                &t,
                raw()
                    .row_offset_per_column_family(1)
                    .max_results_per_column_family(2)
            ),
            ["r/f:a@1 Put=1", "r/f:b@1 Put=2"],
            "{stage:?}"
        );
    }
}

/// [GET-3] HBase checks the limit only after it took a cell past the offset, so a limit of 0
/// returns one cell per row and family.
#[test]
fn a_limit_of_zero_returns_one_cell_per_family() {
    let env = Env::new(1_000);
    let t = env.table(fg(1));
    put_columns(&t, "r", "f", 3);
    put_columns(&t, "r", "g", 3);
    assert_eq!(
        fq(&t
            .get(Get::new("r").max_results_per_column_family(0))
            .unwrap()),
        ["f:q0@1", "g:q0@1"]
    );
    assert_eq!(
        fq(&t
            .get(
                Get::new("r")
                    .row_offset_per_column_family(2)
                    .max_results_per_column_family(0)
            )
            .unwrap()),
        ["f:q2@1", "g:q2@1"]
    );
}

/// [GET-3] [SCAN-5] `get_many`: each Get keeps its own window and family ranges (Gets asking
/// differently are not read as one group), and the results equal single Gets.
#[test]
fn get_many_keeps_each_gets_window_and_ranges() {
    at_every_stage(
        1_000,
        || fg(3),
        |t, _| {
            for r in ["a", "b", "c"] {
                for ts in 1..=3 {
                    t.put(
                        Put::new(r)
                            .add_at("f", "x", ts, "v")
                            .add_at("f", "y", ts, "v")
                            .add_at("g", "z", ts, "v"),
                    )
                    .unwrap();
                }
            }
        },
        |t, _, stage| {
            let gets = vec![
                Get::new("a"),
                Get::new("a").max_results_per_column_family(1),
                Get::new("b").all_versions().row_offset_per_column_family(2),
                Get::new("c").all_versions().time_range(3, 4),
                Get::new("c")
                    .all_versions()
                    .time_range(3, 4)
                    .column_family_time_range("g", 1, 3),
                Get::new("b"),
            ];
            let many = t.get_many(gets.clone()).unwrap();
            for (g, r) in gets.into_iter().zip(&many) {
                assert_eq!(&t.get(g).unwrap(), r, "{stage:?}");
            }
            assert_eq!(fq(&many[1]), ["f:x@3", "g:z@3"]);
            assert_eq!(fq(&many[2]), ["f:x@1", "f:y@3", "f:y@2", "f:y@1", "g:z@1"]);
            assert_eq!(fq(&many[4]), ["f:x@3", "f:y@3", "g:z@2", "g:z@1"]);
        },
    );
}

/// [SCAN-5] a family's own time range replaces the read's for that family only, on Gets and
/// [SCAN-5] a block file is chosen by the family's own range (HBase's
/// `StoreFileScanner.shouldUseScanner`, `TestHStoreFile#testEmptyStoreFileRestrictKeyRanges`):
/// a file wholly outside the read's range but inside the family's is still read, and one
/// [SCAN-5] [TS-5] validation: a family the table lacks is `NoSuchFamily` (as a Get of it);
/// `max < min` or a negative bound is `InvalidArgument` (HBase's `TimeRange` checks), for
/// A small seeded generator (splitmix64) for the differential test below.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }
}

/// The window applied by hand to an unwindowed read's cells (in read order): per (row,
/// family), drop `offset`, keep `limit` (0 keeps one, as HBase).
fn apply_window(cells: &[Cell], offset: u32, limit: Option<u32>) -> Vec<String> {
    let mut out = Vec::new();
    let mut at: Option<(Vec<u8>, Vec<u8>)> = None;
    let mut n = 0u32;
    for c in cells {
        let here = (c.row().to_vec(), c.family().to_vec());
        if at.as_ref() != Some(&here) {
            at = Some(here);
            n = 0;
        }
        n += 1;
        let keep = n > offset && limit.is_none_or(|l| n - offset <= l.max(1));
        if keep {
            out.push(show(c));
        }
    }
    out
}

/// [GET-3] [SCAN-5] seeded differential test (seed printed; `PER_FAMILY_SEED` replays one):
/// over random puts, deletes and flushes (cells split between files and the memstore), every
/// windowed Get and Scan (forward and reversed, versions, time ranges, a family's own range)
/// returns exactly the unwindowed read's cells with the window applied per (row, family).
#[test]
fn windowed_reads_equal_the_window_applied_afterwards() {
    let seed = std::env::var("PER_FAMILY_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_0003_u64);
    println!("PER_FAMILY_SEED={seed}");
    let mut r = Rng(seed);
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    let fams = ["f", "g"];
    let quals = ["a", "b", "c", "d", "e"];
    for _ in 0..400 {
        let row = format!("r{}", r.below(6));
        let f = fams[r.below(2) as usize];
        let q = quals[r.below(5) as usize];
        let ts = 1 + r.below(9) as i64;
        match r.below(20) {
            0 => t.delete(Delete::new(&row).version(f, q, ts)).unwrap(),
            1 => t
                .delete(Delete::new(&row).versions_up_to(f, q, ts))
                .unwrap(),
            2 => t.delete(Delete::new(&row).family_up_to(f, ts)).unwrap(),
            3 => t.flush().unwrap(),
            _ => t
                .put(Put::new(&row).add_at(f, q, ts, format!("{row}{f}{q}{ts}")))
                .unwrap(),
        }
    }
    for i in 0..300 {
        let offset = r.below(4) as u32;
        let limit = if r.below(3) == 0 {
            None
        } else {
            Some(r.below(5) as u32)
        };
        let versions = [1, 2, u32::MAX][r.below(3) as usize];
        let lo = r.below(6) as i64;
        let tr = (lo, lo + 1 + r.below(10) as i64);
        let g_range = (r.below(2) == 0).then(|| {
            let lo = r.below(6) as i64;
            (lo, lo + 1 + r.below(10) as i64)
        });
        let ctx = format!(
            "query {i}: offset {offset} limit {limit:?} versions {versions} tr {tr:?} g {g_range:?}"
        );
        if r.below(2) == 0 {
            let row = format!("r{}", r.below(6));
            let mut plain = Get::new(&row).max_versions(versions).time_range(tr.0, tr.1);
            if let Some((a, b)) = g_range {
                plain = plain.column_family_time_range("g", a, b);
            }
            let mut windowed = plain.clone().row_offset_per_column_family(offset);
            if let Some(l) = limit {
                windowed = windowed.max_results_per_column_family(l);
            }
            let want = apply_window(t.get(plain).unwrap().cells(), offset, limit);
            let got: Vec<String> = t.get(windowed).unwrap().cells().iter().map(show).collect();
            assert_eq!(got, want, "{ctx} row {row} (seed {seed})");
        } else {
            let reversed = r.below(2) == 0;
            let mut plain = Scan::new()
                .max_versions(versions)
                .time_range(tr.0, tr.1)
                .reversed(reversed);
            if let Some((a, b)) = g_range {
                plain = plain.column_family_time_range("g", a, b);
            }
            let mut windowed = plain.clone().row_offset_per_column_family(offset);
            if let Some(l) = limit {
                windowed = windowed.max_results_per_column_family(l);
            }
            let all: Vec<Cell> = t
                .scan(plain)
                .unwrap()
                .flat_map(|x| x.unwrap().cells().to_vec())
                .collect();
            let want = apply_window(&all, offset, limit);
            assert_eq!(
                scan_cells(&t, windowed),
                want,
                "{ctx} reversed {reversed} (seed {seed})"
            );
        }
    }
}
