//! The rest of HBase 2.6's filters, evaluated like `eval.rs` (seeking and stepping must agree),
//! with cases from HBase's `TestFilter`, `TestColumnPaginationFilter`,
//! `TestSingleColumnValueExcludeFilter`, `TestDependentColumnFilter`,
//! `TestInclusiveStopFilter`, `TestMultiRowRangeFilter`, `TestFuzzyRowFilter`,
//! `TestRandomRowFilter` and `TestComparators` / `TestBitComparator` / `TestNullComparator` /
//! `TestLongComparator`.

use super::eval::{
    F, V, bin, cell, expect, flat, q1, q2, row1, row2, scan, scan_dir, shape, testfilter_data,
};
use crate::api::ops::Cell;
use crate::read::filter::compare::Compare;
use crate::read::filter::eval::{CellView, FilterRunner, ReturnCode};
use crate::read::filter::{BitOp, Comparator, CompareOp, Filter, RowRange};

fn rows_of(out: &[Vec<Cell>]) -> Vec<String> {
    out.iter()
        .map(|r| String::from_utf8(r[0].row().to_vec()).unwrap())
        .collect()
}

fn view(c: &Cell) -> CellView<'_> {
    CellView {
        row: c.row(),
        family: c.family(),
        qualifier: c.qualifier(),
        ts: c.timestamp(),
        value: c.value(),
    }
}

#[test]
fn column_pagination_by_offset() {
    // TestFilter#testColumnPaginationFilter: columns counted across both families, in
    // [SORT-1] order (F0 q0 q2 q3, F1 q0 q2 q3).
    let d = testfilter_data();
    let page = |limit, offset| Filter::ColumnPagination { limit, offset };
    let mut want = expect(1, &[0, 2, 3], &[0], &[0]);
    want.extend(expect(2, &[0, 2, 3], &[0], &[0]));
    assert_eq!(flat(&scan(&page(1, 0), &d)), want);
    assert_eq!(shape(&scan(&page(1, 2), &d)), (6, vec![1; 6]));
    assert_eq!(scan(&page(1, 2), &d)[0], expect(1, &[0], &[0], &[3]));
    let rows = scan(&page(2, 2), &d);
    assert_eq!(shape(&rows), (6, vec![2; 6]));
    let mut want = expect(1, &[0], &[0], &[3]);
    want.extend(expect(1, &[0], &[1], &[0]));
    assert_eq!(rows[0], want);
    assert_eq!(scan(&page(20, 140), &d), Vec::<Vec<Cell>>::new());
    assert_eq!(shape(&scan(&page(0, 0), &d)).0, 0);
}

#[test]
fn column_pagination_counts_columns_not_versions() {
    // TestColumnPaginationFilter: only the newest version of each column is counted and
    // returned (INCLUDE_AND_NEXT_COL).
    let d = vec![
        cell("r", "f", "a", 2, "a2"),
        cell("r", "f", "a", 1, "a1"),
        cell("r", "f", "b", 2, "b2"),
        cell("r", "f", "b", 1, "b1"),
        cell("r", "f", "c", 1, "c1"),
    ];
    let f = Filter::ColumnPagination {
        limit: 2,
        offset: 1,
    };
    assert_eq!(
        flat(&scan(&f, &d)),
        [cell("r", "f", "b", 2, "b2"), cell("r", "f", "c", 1, "c1")]
    );
}

#[test]
fn column_pagination_by_column_offset() {
    // TestFilter#testColumnPaginationFilterColumnOffset: the first column at or after the
    // offset, then `limit` columns; a seek to the offset.
    let d = testfilter_data();
    let f = Filter::ColumnPaginationFrom {
        limit: 1,
        column_offset: q1(0).into_bytes(),
    };
    let mut want = expect(1, &[0, 2, 3], &[0], &[0]);
    want.extend(expect(2, &[0, 2, 3], &[0], &[0]));
    assert_eq!(flat(&scan(&f, &d)), want);
    let f = Filter::ColumnPaginationFrom {
        limit: 3,
        column_offset: q1(2).into_bytes(),
    };
    let rows = scan(&f, &d);
    let mut want = expect(1, &[0], &[0], &[2, 3]);
    want.extend(expect(1, &[0], &[1], &[0]));
    assert_eq!(rows[0], want);
    // Group two's qualifiers all sort after the offset.
    assert_eq!(rows[3], expect(2, &[0], &[0], &[0, 2, 3]));
}

#[test]
fn column_count_get_ends_the_scan_after_an_overfull_row() {
    // ColumnCountGetFilter: INCLUDE_AND_NEXT_COL up to the limit, then filterAllRemaining.
    let d = testfilter_data();
    assert_eq!(
        shape(&scan(&Filter::ColumnCountGet(6), &d)),
        (6, vec![6; 6])
    );
    let rows = scan(&Filter::ColumnCountGet(2), &d);
    assert_eq!(rows, [expect(1, &[0], &[0], &[0, 2])]);
    assert_eq!(shape(&scan(&Filter::ColumnCountGet(5), &d)), (1, vec![5]));
}

#[test]
fn single_column_value_exclude_drops_the_tested_column() {
    // TestSingleColumnValueExcludeFilter#testFilterCell, TestFilter's SCVEF cases [FLT-5]
    let d = vec![
        cell("r1", "f", "a", 1, "1"),
        cell("r1", "f", "b", 1, "x"),
        cell("r2", "f", "a", 1, "2"),
        cell("r2", "f", "b", 1, "y"),
        cell("r3", "f", "b", 1, "z"),
        cell("r4", "f", "a", 1, "1"),
    ];
    let f = |missing| Filter::SingleColumnValueExclude {
        family: b"f".to_vec(),
        qualifier: b"a".to_vec(),
        op: CompareOp::Equal,
        comparator: bin("1"),
        filter_if_missing: missing,
        latest_version_only: true,
    };
    // r4 has only the tested column: nothing is left of it.
    assert_eq!(
        scan(&f(false), &d),
        [
            vec![cell("r1", "f", "b", 1, "x")],
            vec![cell("r3", "f", "b", 1, "z")]
        ]
    );
    assert_eq!(scan(&f(true), &d), [vec![cell("r1", "f", "b", 1, "x")]]);
    assert!(f(false).has_filter_row());
}

#[test]
fn dependent_column_keeps_cells_with_a_reference_timestamp() {
    // TestDependentColumnFilter#testScans / #testFilterDropping
    let d = vec![
        cell("r", "f", "ref", 2, "b"),
        cell("r", "f", "ref", 1, "a"),
        cell("r", "g", "x", 1, "gx"),
        cell("r", "g", "y", 3, "gy"),
        cell("r", "g", "z", 2, "gz"),
    ];
    let f = |drop, value| Filter::DependentColumn {
        family: b"f".to_vec(),
        qualifier: b"ref".to_vec(),
        drop_dependent_column: drop,
        value,
    };
    assert_eq!(
        flat(&scan(&f(false, None), &d)),
        [
            cell("r", "f", "ref", 2, "b"),
            cell("r", "f", "ref", 1, "a"),
            cell("r", "g", "x", 1, "gx"),
            cell("r", "g", "z", 2, "gz"),
        ]
    );
    assert_eq!(
        flat(&scan(&f(true, None), &d)),
        [cell("r", "g", "x", 1, "gx"), cell("r", "g", "z", 2, "gz")]
    );
    assert_eq!(
        flat(&scan(&f(false, Some((CompareOp::Equal, bin("b")))), &d)),
        [cell("r", "f", "ref", 2, "b"), cell("r", "g", "z", 2, "gz")]
    );
    // A row without the reference column keeps nothing.
    let other = vec![cell("s", "g", "x", 1, "gx")];
    assert!(scan(&f(false, None), &other).is_empty());
}

#[test]
fn column_value_returns_only_the_matching_cells() {
    // TestFilter#testColumnValueFilter: unlike SingleColumnValueFilter, only the cell.
    let d = testfilter_data();
    let f = |op| Filter::ColumnValue {
        family: F[0].as_bytes().to_vec(),
        qualifier: q1(0).into_bytes(),
        op,
        comparator: bin(V[0]),
    };
    assert_eq!(
        flat(&scan(&f(CompareOp::Equal), &d)),
        expect(1, &[0, 2, 3], &[0], &[0])
    );
    assert!(scan(&f(CompareOp::NotEqual), &d).is_empty());
    assert_eq!(
        flat(&scan(&f(CompareOp::GreaterOrEqual), &d)),
        expect(1, &[0, 2, 3], &[0], &[0])
    );
}

#[test]
fn multiple_column_prefix_seeks_between_prefixes() {
    // TestMultipleColumnPrefixFilter#testMultipleColumnPrefixFilter [FLT-6]
    let mut d = Vec::new();
    for q in ["a1", "a2", "b1", "b2", "c1", "d1", "p", "q"] {
        d.push(cell("r", "f", q, 1, q));
        d.push(cell("r", "g", q, 1, q));
    }
    let f = Filter::MultipleColumnPrefix(vec![b"c".to_vec(), b"a".to_vec(), b"q".to_vec()]);
    let kept: Vec<String> = flat(&scan(&f, &d))
        .iter()
        .map(|c| String::from_utf8(c.qualifier().to_vec()).unwrap())
        .collect();
    assert_eq!(kept, ["a1", "a2", "c1", "q", "a1", "a2", "c1", "q"]);
    assert_eq!(
        flat(&scan(&Filter::MultipleColumnPrefix(vec![]), &d)).len(),
        16
    );
    let dup = Filter::MultipleColumnPrefix(vec![b"a".to_vec(), b"a".to_vec()]);
    assert!(dup.validate().unwrap_err().to_string().contains("distinct"));
}

#[test]
fn key_only_with_value_length() {
    // TestFilter#testKeyOnlyFilter (lenAsVal) [FLT-8]
    let d = vec![cell("r", "f", "q", 1, "testValueOne")];
    let rows = scan(&Filter::KeyOnlyValueLength, &d);
    assert_eq!(rows[0][0].value(), &[0, 0, 0, 12]);
    assert_eq!(scan(&Filter::KeyOnly, &d)[0][0].value(), b"");
}

#[test]
fn inclusive_stop_includes_the_stop_row_and_ends_the_scan() {
    // TestFilter#testInclusiveStopFilter, TestInclusiveStopFilter [FLT-10]
    let d = testfilter_data();
    let f = Filter::InclusiveStop(row1(2).into_bytes());
    assert_eq!(rows_of(&scan(&f, &d)), [row1(0), row1(2)]);
    let f = Filter::InclusiveStop(row1(3).into_bytes());
    assert_eq!(rows_of(&scan(&f, &d)), [row1(0), row1(2), row1(3)]);
    // Reversed: down to the stop row.
    let f = Filter::InclusiveStop(row2(2).into_bytes());
    assert_eq!(rows_of(&scan_dir(&f, &d, true)), [row2(3), row2(2)]);
    // After the stop row, everything remaining is filtered.
    let mut r = FilterRunner::new(&Filter::InclusiveStop(b"b".to_vec()), false).unwrap();
    assert!(!r.filter_row_key(b"b"));
    assert!(r.filter_row_key(b"b\0"));
    assert!(r.filter_all_remaining());
}

fn numbered_rows(n: usize) -> Vec<Cell> {
    (0..n)
        .map(|i| cell(&format!("row-{i:02}"), "f", "q", 1, "v"))
        .collect()
}

fn range(start: &str, si: bool, stop: &str, so: bool) -> RowRange {
    RowRange::new(start, si, stop, so)
}

#[test]
fn multi_row_range_returns_the_ranges_rows() {
    // TestMultiRowRangeFilter#testMultiRowRangeFilterWithRangeOverlap /
    // #testMultiRowRangeFilterWithExclusive / #testReverse...
    let d = numbered_rows(20);
    let f = Filter::MultiRowRange(vec![
        range("row-10", true, "row-12", true),
        range("row-02", true, "row-05", false),
        range("row-15", false, "", false),
        range("row-03", true, "row-04", true),
    ]);
    let want: Vec<String> = [2, 3, 4, 10, 11, 12, 16, 17, 18, 19]
        .iter()
        .map(|i| format!("row-{i:02}"))
        .collect();
    assert_eq!(rows_of(&scan(&f, &d)), want);
    let mut reversed = want.clone();
    reversed.reverse();
    assert_eq!(rows_of(&scan_dir(&f, &d, true)), reversed);
    // An unbounded start; a range ending in the middle of the data ends the scan.
    let f = Filter::MultiRowRange(vec![range("", true, "row-01", true)]);
    assert_eq!(rows_of(&scan(&f, &d)), ["row-00", "row-01"]);
    assert_eq!(rows_of(&scan_dir(&f, &d, true)), ["row-01", "row-00"]);
    // Two ranges that touch at an excluded row stay apart.
    let f = Filter::MultiRowRange(vec![
        range("row-01", true, "row-03", false),
        range("row-03", false, "row-05", false),
    ]);
    assert_eq!(rows_of(&scan(&f, &d)), ["row-01", "row-02", "row-04"]);
    assert_eq!(
        rows_of(&scan_dir(&f, &d, true)),
        ["row-04", "row-02", "row-01"]
    );
}

#[test]
fn multi_row_range_seeks_to_the_next_range_and_stops_after_the_last() {
    let f = Filter::MultiRowRange(vec![
        range("row-02", true, "row-03", false),
        range("row-10", true, "row-11", false),
    ]);
    let d = numbered_rows(20);
    let mut r = FilterRunner::new(&f, false).unwrap();
    assert!(!r.filter_row_key(b"row-00"));
    assert_eq!(r.filter_cell(&view(&d[0])), ReturnCode::SeekToRow);
    assert_eq!(r.row_hint(), b"row-02");
    assert!(!r.filter_row_key(b"row-02"));
    assert_eq!(r.filter_cell(&view(&d[2])), ReturnCode::Include);
    assert!(!r.filter_row_key(b"row-03"));
    assert_eq!(r.filter_cell(&view(&d[3])), ReturnCode::SeekToRow);
    assert_eq!(r.row_hint(), b"row-10");
    r.filter_row_key(b"row-11");
    assert!(r.filter_all_remaining(), "after the last range");
    // Reversed: to the previous range's stop row.
    let mut r = FilterRunner::new(&f, true).unwrap();
    assert!(!r.filter_row_key(b"row-19"));
    assert_eq!(r.filter_cell(&view(&d[19])), ReturnCode::SeekToRow);
    assert_eq!(r.row_hint(), b"row-11");
    r.filter_row_key(b"row-01");
    assert!(r.filter_all_remaining());
}

#[test]
fn multi_row_range_checks_its_ranges() {
    // MultiRowRangeFilter's constructor: no ranges, or an invalid one, is an error.
    assert!(Filter::MultiRowRange(vec![]).validate().is_err());
    let bad = Filter::MultiRowRange(vec![range("b", true, "a", true)]);
    assert!(
        bad.validate()
            .unwrap_err()
            .to_string()
            .contains("invalid range")
    );
    let same = Filter::MultiRowRange(vec![range("a", true, "a", false)]);
    assert!(same.validate().is_err());
    let point = Filter::MultiRowRange(vec![range("a", true, "a", true)]);
    assert!(point.validate().is_ok());
}

fn fuzzy_data() -> Vec<Cell> {
    let mut d = Vec::new();
    for a in 0..4u8 {
        for b in 0..4u8 {
            for c in 0..4u8 {
                let row = [a, b, c];
                d.push(Cell::new(
                    &row[..],
                    b"f",
                    b"q",
                    1,
                    crate::model::CellType::Put,
                    b"v",
                ));
            }
        }
    }
    d
}

#[test]
fn fuzzy_row_matches_fixed_bytes() {
    // TestFuzzyRowFilterEndToEnd's shape: fixed and free positions, several keys, both
    // directions.
    let d = fuzzy_data();
    let f = Filter::FuzzyRow(vec![(vec![0, 2, 0], vec![1, 0, 1])]);
    let rows = scan(&f, &d);
    assert_eq!(rows.len(), 16);
    assert!(rows.iter().all(|r| r[0].row()[1] == 2));
    assert_eq!(scan_dir(&f, &d, true).len(), 16);
    let f = Filter::FuzzyRow(vec![
        (vec![0, 2, 0], vec![1, 0, 1]),
        (vec![3, 0, 1], vec![0, 1, 0]),
    ]);
    let got: Vec<Vec<u8>> = scan(&f, &d).iter().map(|r| r[0].row().to_vec()).collect();
    let want: Vec<Vec<u8>> = d
        .iter()
        .map(|c| c.row().to_vec())
        .filter(|r| r[1] == 2 || (r[0] == 3 && r[2] == 1))
        .collect();
    assert_eq!(got, want);
    let mut rev: Vec<Vec<u8>> = scan_dir(&f, &d, true)
        .iter()
        .map(|r| r[0].row().to_vec())
        .collect();
    rev.reverse();
    assert_eq!(rev, want);
}

#[test]
fn fuzzy_row_seeks_to_the_next_possible_match() {
    let f = Filter::FuzzyRow(vec![(vec![0, 2, 0], vec![1, 0, 1])]);
    let d = fuzzy_data();
    let mut r = FilterRunner::new(&f, false).unwrap();
    assert!(!r.filter_row_key(d[0].row()));
    assert_eq!(r.filter_cell(&view(&d[0])), ReturnCode::SeekToRow);
    assert_eq!(r.row_hint(), [0, 2]);
    // [0, 3, x] is past [?, 2, ?] for a = 0: on to [1, 2].
    let c = cell("\u{0}\u{3}\u{0}", "f", "q", 1, "v");
    r.filter_row_key(c.row());
    assert_eq!(r.filter_cell(&view(&c)), ReturnCode::SeekToRow);
    assert_eq!(r.row_hint(), [1, 2]);
    // Nothing can match after [0xff, 3]: everything remaining is filtered.
    let last = Cell::new(
        &[0xff, 3][..],
        b"f",
        b"q",
        1,
        crate::model::CellType::Put,
        b"v",
    );
    r.filter_row_key(last.row());
    r.filter_cell(&view(&last));
    assert!(r.filter_all_remaining());
    // Keys and masks must agree.
    assert!(
        Filter::FuzzyRow(vec![(vec![1, 2], vec![0])])
            .validate()
            .is_err()
    );
    assert!(
        Filter::FuzzyRow(vec![(vec![1], vec![2])])
            .validate()
            .is_err()
    );
}

#[test]
fn random_row_is_reproducible_with_a_seed() {
    // TestRandomRowFilter#testBasics: about `chance` of the rows pass.
    let d = numbered_rows(20);
    let many: Vec<Cell> = (0..1000)
        .map(|i| cell(&format!("row-{i:04}"), "f", "q", 1, "v"))
        .collect();
    let f = |chance, seed| Filter::RandomRow { chance, seed };
    let half = scan(&f(0.5, Some(7)), &many).len();
    assert!((400..600).contains(&half), "{half}");
    assert_eq!(scan(&f(0.5, Some(7)), &many), scan(&f(0.5, Some(7)), &many));
    assert_ne!(scan(&f(0.5, Some(7)), &many), scan(&f(0.5, Some(8)), &many));
    assert!(scan(&f(-1.0, None), &d).is_empty());
    assert!(scan(&f(0.0, Some(1)), &d).is_empty());
    assert_eq!(scan(&f(1.5, None), &d).len(), 20);
    assert!(scan(&f(f32::NAN, None), &d).is_empty());
    // Unseeded: a fresh seed per read, about half the rows all the same.
    let mut r = FilterRunner::new(&f(0.5, None), false).unwrap();
    let unseeded = (0..1000u32)
        .filter(|i| !r.filter_row_key(&i.to_be_bytes()))
        .count();
    assert!((400..600).contains(&unseeded), "{unseeded}");
}

#[test]
fn skip_drops_rows_with_a_rejected_cell() {
    // TestFilter#testSkipFilter [FLT-10]
    let d = testfilter_data();
    let f = Filter::Skip(Box::new(Filter::Qualifier(
        CompareOp::NotEqual,
        bin(&q1(2)),
    )));
    assert_eq!(
        flat(&scan(&f, &d)),
        expect(2, &[0, 2, 3], &[0, 1], &[0, 2, 3])
    );
    assert!(f.has_filter_row());
}

#[test]
fn while_match_ends_the_scan_at_the_first_rejection() {
    // TestFilter#testWhileMatchFilterWithFilterRowKey: group one only.
    let d = testfilter_data();
    let f = Filter::WhileMatch(Box::new(Filter::Prefix(b"testRowOne".to_vec())));
    assert_eq!(rows_of(&scan(&f, &d)), [row1(0), row1(2), row1(3)]);
    let mut r = FilterRunner::new(&f, false).unwrap();
    assert!(r.filter_row_key(row2(0).as_bytes()));
    assert!(r.filter_all_remaining());
    // #testWhileMatchFilterWithFilterKeyValue: the first rejected cell ends the scan.
    let f = Filter::WhileMatch(Box::new(Filter::SingleColumnValue {
        family: F[0].as_bytes().to_vec(),
        qualifier: q1(0).into_bytes(),
        op: CompareOp::Equal,
        comparator: bin("foo"),
        filter_if_missing: false,
        latest_version_only: true,
    }));
    assert!(scan(&f, &d).is_empty());
    // Values: group one's all pass, group two's first cell ends the scan.
    let f = Filter::WhileMatch(Box::new(Filter::Value(CompareOp::Equal, bin(V[0]))));
    assert_eq!(shape(&scan(&f, &d)), (3, vec![6; 3]));
    // #testWhileMatchFilterWithFilterRow: a dropped row ends the scan (Page counts rows).
    let f = Filter::WhileMatch(Box::new(Filter::Page(2)));
    assert_eq!(rows_of(&scan(&f, &d)), [row1(0), row1(2)]);
    let _ = q2(0);
}

fn out(c: &Comparator, op: CompareOp, value: &[u8]) -> bool {
    Compare::new(op, c).unwrap().filters_out(value)
}

#[test]
fn long_comparator() {
    // TestComparators#testCellFieldsCompare (LongComparator), TestLongComparator [FLT-2]
    let c = Comparator::Long(5);
    let v = |n: i64| n.to_be_bytes();
    assert!(!out(&c, CompareOp::Equal, &v(5)));
    assert!(out(&c, CompareOp::Equal, &v(6)));
    assert!(!out(&c, CompareOp::Greater, &v(6)));
    assert!(!out(&c, CompareOp::Less, &v(-1)), "signed: -1 < 5");
    assert!(out(&c, CompareOp::Greater, &v(i64::MIN)));
    // Not 8 bytes: HBase throws; the cell does not pass, whatever the operator.
    for op in [CompareOp::Equal, CompareOp::NotEqual, CompareOp::Less] {
        assert!(out(&c, op, b"5"));
    }
}

#[test]
fn bit_comparator() {
    // TestBitComparator#testANDOperation / #testOROperation / #testXOROperation
    let zeros = [0u8; 6];
    let ones = [1u8; 6];
    let data0 = [0u8, 1, 2, 4, 8, 15];
    let data1 = [15u8; 6];
    let data2 = [15u8; 5];
    let eq = |data: &[u8], with: &[u8], op| {
        !out(&Comparator::Bit(with.to_vec(), op), CompareOp::Equal, data)
    };
    assert!(!eq(&zeros, &ones, BitOp::And));
    assert!(eq(&data1, &data0, BitOp::And));
    assert!(!eq(&data2, &data1, BitOp::And), "lengths differ");
    assert!(eq(&ones, &zeros, BitOp::Or));
    assert!(eq(&data1, &data0, BitOp::Or));
    assert!(!eq(&data2, &data1, BitOp::Or));
    assert!(!eq(&zeros, &zeros, BitOp::Or));
    assert!(eq(&ones, &zeros, BitOp::Xor));
    assert!(eq(&data1, &data0, BitOp::Xor));
    assert!(!eq(&data1, &data1, BitOp::Xor));
    assert!(!eq(&data2, &data1, BitOp::Xor));
}

#[test]
fn null_comparator() {
    // TestNullComparator: every (non-null) value compares as 1, the empty one too.
    for v in [&b""[..], b"\0", b"x"] {
        assert!(out(&Comparator::Null, CompareOp::Equal, v));
        assert!(!out(&Comparator::Null, CompareOp::NotEqual, v));
    }
    let d = testfilter_data();
    let f = Filter::Value(CompareOp::NotEqual, Comparator::Null);
    assert_eq!(flat(&scan(&f, &d)).len(), d.len());
}
