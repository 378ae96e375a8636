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
