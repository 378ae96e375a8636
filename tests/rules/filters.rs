//! §1.10 Filters and comparators, through Get/Scan at every stage.

use super::*;

fn data(t: &Table, _: &ManualClock) {
    for (r, v) in [
        ("row-1", "apple"),
        ("row-2", "Banana"),
        ("row-3", "cherry"),
        ("x-4", "date"),
    ] {
        t.put(
            Put::new(r)
                .add_at("f", "name", 1, v)
                .add_at("f", "other", 1, "zz")
                .add_at("g", "k", 1, "g"),
        )
        .unwrap();
    }
    t.put(Put::new("row-5").add_at("g", "k", 1, "g")).unwrap();
}

fn bin(s: &str) -> Comparator {
    Comparator::Binary(s.as_bytes().to_vec())
}

/// [FLT-1] [FLT-2] [FLT-3] compare filters read naturally (`cell OP value`); comparators;
/// row filters decide per row, qualifier/value per cell, family per family.
#[test]
fn compare_filters_and_comparators() {
    at_every_stage(
        1_000,
        || fg(1),
        data,
        |t, _, stage| {
            let s = |f: Filter| rows(t, Scan::new().filter(f));
            assert_eq!(
                s(Filter::Row(CompareOp::Less, bin("row-2"))),
                ["row-1"],
                "{stage:?}"
            );
            assert_eq!(
                s(Filter::Row(
                    CompareOp::Equal,
                    Comparator::BinaryPrefix(b"x".to_vec())
                )),
                ["x-4"]
            );
            assert_eq!(
                s(Filter::Value(
                    CompareOp::Equal,
                    Comparator::Substring("BANANA".into())
                )),
                ["row-2"]
            );
            assert_eq!(
                s(Filter::Value(
                    CompareOp::Equal,
                    Comparator::Regex("err".into())
                )),
                ["row-3"]
            );
            let cells = scan_cells(
                t,
                Scan::new().filter(Filter::Qualifier(CompareOp::Equal, bin("name"))),
            );
            assert_eq!(cells.len(), 4, "{stage:?}: one cell per row, row-5 omitted");
            let cells = scan_cells(
                t,
                Scan::new().filter(Filter::Family(CompareOp::Equal, bin("g"))),
            );
            assert_eq!(cells.len(), 5);
        },
    );
}

/// [FLT-4] [FLT-6] prefix filter (also reversed), column prefix and column range.
#[test]
fn prefix_and_column_filters() {
    at_every_stage(
        1_000,
        || fg(1),
        data,
        |t, _, stage| {
            let f = Filter::Prefix(b"row-".to_vec());
            assert_eq!(rows(t, Scan::new().filter(f.clone())).len(), 4, "{stage:?}");
            assert_eq!(
                rows(t, Scan::new().reversed(true).filter(f)),
                ["row-5", "row-3", "row-2", "row-1"]
            );
            let c = scan_cells(t, Scan::new().filter(Filter::ColumnPrefix(b"na".to_vec())));
            assert_eq!(c.len(), 4);
            let range = Filter::ColumnRange {
                min: Some(b"k".to_vec()),
                min_inclusive: false,
                max: Some(b"other".to_vec()),
                max_inclusive: true,
            };
            assert_eq!(scan_cells(t, Scan::new().filter(range)).len(), 8);
        },
    );
}

/// [FLT-5] single column value filter: whole row on match, dropped on mismatch, returned when
/// missing unless filter_if_missing.
#[test]
fn single_column_value_filter() {
    at_every_stage(
        1_000,
        || fg(1),
        data,
        |t, _, stage| {
            let scvf = |missing: bool| Filter::SingleColumnValue {
                family: b"f".to_vec(),
                qualifier: b"name".to_vec(),
                op: CompareOp::Equal,
                comparator: bin("apple"),
                filter_if_missing: missing,
                latest_version_only: true,
            };
            assert_eq!(
                rows(t, Scan::new().filter(scvf(false))),
                ["row-1", "row-5"],
                "{stage:?}"
            );
            assert_eq!(rows(t, Scan::new().filter(scvf(true))), ["row-1"]);
            assert_eq!(scan_cells(t, Scan::new().filter(scvf(true))).len(), 3);
        },
    );
}

/// [FLT-7] [FLT-8] [FLT-9] [FLT-10] page, first-key-only, key-only, timestamps, filter lists
/// and the filter language.
#[test]
fn page_keyonly_timestamps_and_lists() {
    at_every_stage(
        1_000,
        || fg(3),
        data,
        |t, _, stage| {
            assert_eq!(
                rows(t, Scan::new().filter(Filter::Page(2))),
                ["row-1", "row-2"],
                "{stage:?}"
            );
            assert_eq!(
                scan_cells(t, Scan::new().filter(Filter::FirstKeyOnly))[0],
                "row-1/f:name@1 Put=apple"
            );
            assert!(
                scan_cells(t, Scan::new().filter(Filter::KeyOnly))
                    .iter()
                    .all(|c| c.ends_with('='))
            );
            assert!(rows(t, Scan::new().filter(Filter::Timestamps(vec![]))).is_empty());
            assert_eq!(
                rows(t, Scan::new().filter(Filter::Timestamps(vec![1]))).len(),
                5
            );
            assert_eq!(rows(t, Scan::new().filter(Filter::All(vec![]))).len(), 5);
            let or = Filter::Any(vec![
                Filter::Prefix(b"x".to_vec()),
                Filter::Row(CompareOp::Equal, bin("row-1")),
            ]);
            assert_eq!(rows(t, Scan::new().filter(or)), ["row-1", "x-4"]);
            let parsed = Filter::parse("PrefixFilter('row-') AND PageFilter(1)").unwrap();
            assert_eq!(rows(t, Scan::new().filter(parsed)), ["row-1"]);
        },
    );
}
