//! Filters through the engine [FLT-1..10], [VER-6], [SCAN-3], and the filter language.

use super::*;

fn load(t: &Table) {
    for (row, name, age) in [
        ("r1", "ann", "30"),
        ("r2", "bob", "25"),
        ("r3", "cyd", "41"),
        ("r4", "dan", ""),
    ] {
        let mut p = Put::new(row)
            .add_at("f", "name", 1, name)
            .add_at("g", "x", 1, "gx");
        if !age.is_empty() {
            p = p.add_at("f", "age", 1, age);
        }
        t.put(p).unwrap();
    }
}

fn rows(t: &Table, s: Scan) -> Vec<String> {
    t.scan(s)
        .unwrap()
        .map(|r| String::from_utf8(r.unwrap().row().to_vec()).unwrap())
        .collect()
}

/// [FLT-1] [FLT-3] compare filters read `cell OP value`; Row decides per row, Value per cell.
#[test]
fn compare_filters() {
    let (_db, t, _) = setup(1_000, 3);
    load(&t);
    t.flush().unwrap();
    let f = Filter::Row(CompareOp::Less, Comparator::Binary(b"r3".to_vec()));
    assert_eq!(rows(&t, Scan::new().filter(f)), ["r1", "r2"]);
    let f = Filter::Value(CompareOp::Equal, Comparator::Substring("O".into()));
    let r: Vec<RowResult> = t
        .scan(Scan::new().filter(f))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].cells().len(), 1, "only the matching cell of the row");
    assert_eq!(r[0].value("f", "name"), Some(&b"bob"[..]));
    let f = Filter::Qualifier(CompareOp::Equal, Comparator::Regex("^a".into()));
    assert_eq!(rows(&t, Scan::new().filter(f)), ["r1", "r2", "r3"]);
}

/// [FLT-5] SingleColumnValue: the whole row passes or not; rows missing the column pass unless
/// filter_if_missing; [SCAN-3] it cannot be batched.
#[test]
fn single_column_value_filter() {
    let (_db, t, _) = setup(1_000, 3);
    load(&t);
    let scv = |missing| Filter::SingleColumnValue {
        family: b"f".to_vec(),
        qualifier: b"age".to_vec(),
        op: CompareOp::GreaterOrEqual,
        comparator: Comparator::Binary(b"30".to_vec()),
        filter_if_missing: missing,
        latest_version_only: true,
    };
    assert_eq!(rows(&t, Scan::new().filter(scv(false))), ["r1", "r3", "r4"]);
    assert_eq!(rows(&t, Scan::new().filter(scv(true))), ["r1", "r3"]);
    let whole = t
        .scan(Scan::new().filter(scv(true)))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(
        whole.cells().len(),
        3,
        "all selected columns of a passing row"
    );
    assert!(matches!(
        t.scan(Scan::new().filter(scv(true)).batch(1)),
        Err(Error::InvalidArgument(_))
    ));
}

/// [FLT-7] Page, [FLT-8] FirstKeyOnly and KeyOnly, [FLT-4] Prefix (also reversed), [FLT-10]
/// lists.
#[test]
fn page_firstkey_keyonly_prefix_lists() {
    let (_db, t, _) = setup(1_000, 3);
    load(&t);
    assert_eq!(rows(&t, Scan::new().filter(Filter::Page(2))), ["r1", "r2"]);
    let first = t
        .scan(Scan::new().filter(Filter::FirstKeyOnly))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(first.cells().len(), 1);
    assert_eq!(first.cells()[0].qualifier(), b"age");
    let keys = t
        .scan(Scan::new().filter(Filter::KeyOnly))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert!(keys.cells().iter().all(|c| c.value().is_empty()) && keys.cells().len() == 3);
    t.put(Put::new("q9").add("f", "name", "x")).unwrap();
    assert_eq!(
        rows(&t, Scan::new().filter(Filter::Prefix(b"r".to_vec()))),
        ["r1", "r2", "r3", "r4"]
    );
    assert_eq!(
        rows(
            &t,
            Scan::new()
                .reversed(true)
                .filter(Filter::Prefix(b"r".to_vec()))
        ),
        ["r4", "r3", "r2", "r1"]
    );
    let any = Filter::Any(vec![
        Filter::Row(CompareOp::Equal, Comparator::Binary(b"r1".to_vec())),
        Filter::Row(CompareOp::Equal, Comparator::Binary(b"r3".to_vec())),
    ]);
    assert_eq!(rows(&t, Scan::new().filter(any)), ["r1", "r3"]);
    let all = Filter::All(vec![
        Filter::Prefix(b"r".to_vec()),
        Filter::Row(CompareOp::Greater, Comparator::Binary(b"r2".to_vec())),
    ]);
    assert_eq!(rows(&t, Scan::new().filter(all)), ["r3", "r4"]);
    assert_eq!(
        rows(&t, Scan::new().filter(Filter::All(vec![]))).len(),
        5,
        "an empty list passes everything"
    );
}

/// [FLT-3] a FamilyFilter drops one family and keeps the next (NEXT_ROW is per family).
#[test]
fn family_filter_keeps_other_families() {
    let (_db, t, _) = setup(1_000, 3);
    load(&t);
    let f = Filter::Family(CompareOp::Equal, Comparator::Binary(b"g".to_vec()));
    let r: Vec<RowResult> = t
        .scan(Scan::new().filter(f))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(r.len(), 4);
    assert!(
        r.iter()
            .all(|row| row.cells().len() == 1 && row.cells()[0].family() == b"g")
    );
}

/// [VER-6] [FLT-9] with a filter, up to VERSIONS versions reach it and an older version can
/// surface; never one beyond VERSIONS; an empty Timestamps list returns nothing.
#[test]
fn filters_reach_up_to_family_versions() {
    let (_db, t, _) = setup(1_000, 3);
    for ts in 1..=5 {
        t.put(Put::new("r").add_at("f", "q", ts, format!("v{ts}")))
            .unwrap();
    }
    t.flush().unwrap(); // keeps @5, @4, @3
    let g = |f: Filter| {
        t.get(Get::new("r").filter(f))
            .unwrap()
            .versions("f", "q")
            .iter()
            .map(|v| v.0)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        g(Filter::Timestamps(vec![3])),
        [3],
        "an older version surfaces through the filter"
    );
    assert!(
        g(Filter::Timestamps(vec![2])).is_empty(),
        "beyond VERSIONS (and flushed away)"
    );
    assert!(g(Filter::Timestamps(vec![])).is_empty());
    let all = t
        .get(
            Get::new("r")
                .all_versions()
                .filter(Filter::Timestamps(vec![3, 5])),
        )
        .unwrap();
    assert_eq!(
        all.versions("f", "q")
            .iter()
            .map(|v| v.0)
            .collect::<Vec<_>>(),
        [5, 3]
    );
}

/// The filter language end to end; unknown filters are rejected, not ignored.
#[test]
fn filter_language_through_scans() {
    let (_db, t, _) = setup(1_000, 3);
    load(&t);
    let f = Filter::parse(
        "PrefixFilter('r') AND SingleColumnValueFilter('f', 'age', >=, 'binary:30', true, true)",
    )
    .unwrap();
    assert_eq!(rows(&t, Scan::new().filter(f)), ["r1", "r3"]);
    let f = Filter::parse("RowFilter(=, 'binary:r2') OR ValueFilter(=, 'substring:CYD')").unwrap();
    assert_eq!(rows(&t, Scan::new().filter(f)), ["r2", "r3"]);
    assert!(matches!(
        Filter::parse("NoSuchFilter('x')"),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        Filter::parse("PrefixFilter('x'"),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        t.scan(Scan::new().filter(Filter::Value(
            CompareOp::Equal,
            Comparator::Regex("(".into())
        ))),
        Err(Error::InvalidArgument(_))
    ));
}

fn cells_of(t: &Table, s: Scan) -> Vec<String> {
    t.scan(s)
        .unwrap()
        .flat_map(|r| {
            let r = r.unwrap();
            r.cells()
                .iter()
                .map(|c| {
                    format!(
                        "{}/{}:{}",
                        String::from_utf8_lossy(c.row()),
                        String::from_utf8_lossy(c.family()),
                        String::from_utf8_lossy(c.qualifier())
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

fn numbered(t: &Table, n: usize) {
    for i in 0..n {
        t.put(Put::new(format!("n{i:03}")).add_at("f", "q", 1, "v"))
            .unwrap();
    }
}

/// MultiRowRangeFilter (API only): rows in the merged ranges, forward and reversed, from the
/// memstore and from files (TestMultiRowRangeFilter#testMultiRowRangeFilterWithRangeOverlap,
/// #testReverse...).
#[test]
fn multi_row_range_filter_through_scans() {
    let (_db, t, _) = setup(1_000, 3);
    numbered(&t, 60);
    let f = Filter::MultiRowRange(vec![
        RowRange::new("n040", true, "n043", false),
        RowRange::new("n005", false, "n008", true),
        RowRange::new("n041", true, "n045", false),
        RowRange::new("n058", true, "", false),
    ]);
    let want = [
        "n006", "n007", "n008", "n040", "n041", "n042", "n043", "n044", "n058", "n059",
    ];
    for flushed in [false, true] {
        if flushed {
            t.flush().unwrap();
        }
        assert_eq!(rows(&t, Scan::new().filter(f.clone())), want);
        let mut rev: Vec<&str> = want.to_vec();
        rev.reverse();
        assert_eq!(rows(&t, Scan::new().filter(f.clone()).reversed(true)), rev);
        // With the scan's own bounds.
        assert_eq!(
            rows(
                &t,
                Scan::new()
                    .start_row("n007")
                    .stop_row("n042")
                    .filter(f.clone())
            ),
            ["n007", "n008", "n040", "n041"]
        );
    }
    assert!(matches!(
        t.scan(Scan::new().filter(Filter::MultiRowRange(vec![]))),
        Err(Error::InvalidArgument(_))
    ));
}

/// FuzzyRowFilter (API only): fixed bytes must match; free bytes are anything; forward and
/// reversed (TestFuzzyRowFilterEndToEnd).
#[test]
fn fuzzy_row_filter_through_scans() {
    let (_db, t, _) = setup(1_000, 3);
    numbered(&t, 120);
    t.flush().unwrap();
    // n?3? : the tens digit is 3.
    let f = Filter::FuzzyRow(vec![(b"n030".to_vec(), vec![0, 1, 0, 1])]);
    let want: Vec<String> = (0..120)
        .filter(|i| i / 10 % 10 == 3)
        .map(|i| format!("n{i:03}"))
        .collect();
    assert_eq!(rows(&t, Scan::new().filter(f.clone())), want);
    let mut rev = want.clone();
    rev.reverse();
    assert_eq!(rows(&t, Scan::new().filter(f.clone()).reversed(true)), rev);
    // In a filter list with another filter (HBASE-26967).
    let both = Filter::All(vec![f.clone(), Filter::Prefix(b"n0".to_vec())]);
    assert_eq!(rows(&t, Scan::new().filter(both)), want[..10]);
    let either = Filter::Any(vec![
        f,
        Filter::Row(CompareOp::Equal, Comparator::Binary(b"n001".to_vec())),
    ]);
    let mut with_one = vec!["n001".to_string()];
    with_one.extend(want.iter().cloned());
    assert_eq!(rows(&t, Scan::new().filter(either)), with_one);
}

/// InclusiveStopFilter, SKIP and WHILE through scans, from the filter language [FLT-10].
#[test]
fn inclusive_stop_skip_and_while_through_scans() {
    let (_db, t, _) = setup(1_000, 3);
    load(&t);
    let s = |text: &str| rows(&t, Scan::new().filter(Filter::parse(text).unwrap()));
    assert_eq!(s("InclusiveStopFilter('r2')"), ["r1", "r2"]);
    let rev = rows(
        &t,
        Scan::new()
            .filter(Filter::parse("InclusiveStopFilter('r3')").unwrap())
            .reversed(true),
    );
    assert_eq!(rev, ["r4", "r3"]);
    // SKIP: rows where every cell passes (r4 has no age; the others have a `g` cell "gx").
    assert_eq!(s("SKIP ValueFilter(!=, 'binary:bob')"), ["r1", "r3", "r4"]);
    // WHILE: the scan ends at the first rejected cell.
    assert_eq!(s("WHILE RowFilter(<, 'binary:r3')"), ["r1", "r2"]);
    // Precedence: SKIP binds tighter than AND, AND tighter than OR.
    assert_eq!(
        s("RowFilter(=, 'binary:r4') OR SKIP ValueFilter(!=, 'binary:bob') AND PrefixFilter('r1')"),
        ["r1", "r4"]
    );
    assert!(Filter::parse("SKIP ValueFilter(=,'binary:x')").is_ok());
}

/// The column filters of the language: ColumnPaginationFilter, ColumnCountGetFilter,
/// SingleColumnValueExcludeFilter [FLT-5], ColumnValueFilter, DependentColumnFilter,
/// KeyOnlyFilter(true) [FLT-8].
#[test]
fn column_filters_through_scans() {
    let (_db, t, _) = setup(1_000, 3);
    load(&t);
    t.flush().unwrap();
    let s = |text: &str| cells_of(&t, Scan::new().filter(Filter::parse(text).unwrap()));
    // Columns per row: f:age, f:name, g:x (r4: f:name, g:x).
    assert_eq!(
        s("ColumnPaginationFilter(1, 1) AND PrefixFilter('r1')"),
        ["r1/f:name"]
    );
    assert_eq!(
        s("ColumnPaginationFilter(2, 1)"),
        [
            "r1/f:name",
            "r1/g:x",
            "r2/f:name",
            "r2/g:x",
            "r3/f:name",
            "r3/g:x",
            "r4/g:x"
        ]
    );
    assert_eq!(
        cells_of(
            &t,
            Scan::new().filter(Filter::ColumnPaginationFrom {
                limit: 1,
                column_offset: b"b".to_vec()
            })
        ),
        ["r1/f:name", "r2/f:name", "r3/f:name", "r4/f:name"]
    );
    // A Get of one row: the first two columns.
    let g = t
        .get(Get::new("r1").filter(Filter::parse("ColumnCountGetFilter(2)").unwrap()))
        .unwrap();
    assert_eq!(g.cells().len(), 2);
    assert_eq!(
        s("SingleColumnValueExcludeFilter('f', 'age', >=, 'binary:30', true, true)"),
        ["r1/f:name", "r1/g:x", "r3/f:name", "r3/g:x"]
    );
    assert_eq!(
        s("ColumnValueFilter('f', 'age', <, 'binary:30')"),
        ["r2/f:age"]
    );
    assert_eq!(
        s("DependentColumnFilter('f', 'age', true) AND PrefixFilter('r2')"),
        ["r2/f:name", "r2/g:x"]
    );
    let r = t
        .scan(Scan::new().filter(Filter::parse("KeyOnlyFilter(true)").unwrap()))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(r.value("f", "name"), Some(&3u32.to_be_bytes()[..]));
}

/// The API-only comparators through a scan [FLT-2].
#[test]
fn long_bit_and_null_comparators_through_scans() {
    let (_db, t, _) = setup(1_000, 3);
    for (r, n) in [("a", 5i64), ("b", -7), ("c", 300)] {
        t.put(Put::new(r).add_at("f", "n", 1, n.to_be_bytes()))
            .unwrap();
    }
    t.put(Put::new("d").add_at("f", "n", 1, "text")).unwrap();
    let s = |f: Filter| rows(&t, Scan::new().filter(f));
    assert_eq!(
        s(Filter::Value(CompareOp::Greater, Comparator::Long(0))),
        ["a", "c"]
    );
    assert_eq!(
        s(Filter::Value(CompareOp::NotEqual, Comparator::Long(5))),
        ["b", "c"],
        "a value that is not 8 bytes never passes"
    );
    assert_eq!(
        s(Filter::Value(
            CompareOp::Equal,
            Comparator::Bit(256i64.to_be_bytes().to_vec(), BitOp::And)
        )),
        ["b", "c"],
        "300 has bit 8 set, and -7 every high bit"
    );
    assert!(s(Filter::Value(CompareOp::Equal, Comparator::Null)).is_empty());
    assert_eq!(
        s(Filter::Value(CompareOp::NotEqual, Comparator::Null)).len(),
        4
    );
}
