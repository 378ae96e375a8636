//! Evaluation: [`FilterRunner`] driven like HBase's `RegionScannerImpl` + per-family
//! `StoreScanner` drive a filter, table-driven per filter, with the data set and expected
//! results of HBase's `TestFilter` (hbase-server/src/test/.../filter/TestFilter.java).
//!
//! Every case runs twice: once honouring seeks (NextCol skips the column, NextRow the rest
//! of the family) and once stepping through every cell, which must give the same rows.

use crate::api::ops::Cell;
use crate::model::CellType;
use crate::read::filter::eval::{CellView, FilterRunner, ReturnCode};
use crate::read::filter::{Comparator, CompareOp, Filter};

pub(super) fn cell(row: &str, family: &str, qualifier: &str, ts: i64, value: &str) -> Cell {
    Cell::new(
        row.as_bytes(),
        family.as_bytes(),
        qualifier.as_bytes(),
        ts,
        CellType::Put,
        value.as_bytes(),
    )
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// Honour NextCol / NextRow by skipping ahead (what a seeking reader does).
    Seek,
    /// Offer every cell; the runner must answer from memory.
    Step,
}

/// One scan of `data` (any order) with `f`, rows ascending (descending when `reversed`),
/// cells of a row in [SORT-1] order. Returns the kept cells, row by row.
fn scan_mode(f: &Filter, data: &[Cell], reversed: bool, mode: Mode) -> Vec<Vec<Cell>> {
    let mut cells = data.to_vec();
    cells.sort_by(|a, b| {
        let row = if reversed {
            b.row().cmp(a.row())
        } else {
            a.row().cmp(b.row())
        };
        row.then_with(|| a.family().cmp(b.family()))
            .then_with(|| a.qualifier().cmp(b.qualifier()))
            .then_with(|| b.timestamp().cmp(&a.timestamp()))
    });
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    for c in cells {
        match rows.last_mut() {
            Some(r) if r[0].row() == c.row() => r.push(c),
            _ => rows.push(vec![c]),
        }
    }
    let mut runner = FilterRunner::new(f, reversed).unwrap();
    let mut out = Vec::new();
    // A row hint (SeekToRow): the rows before it in scan order are not read.
    let mut seek_row: Option<Vec<u8>> = None;
    for row in rows {
        if let Some(h) = &seek_row {
            let before = if reversed {
                row[0].row() > h.as_slice()
            } else {
                row[0].row() < h.as_slice()
            };
            if before {
                continue;
            }
            seek_row = None;
        }
        if runner.filter_all_remaining() {
            break;
        }
        if runner.filter_row_key(row[0].row()) {
            continue;
        }
        let mut kept = Vec::new();
        let mut i = 0;
        while i < row.len() {
            let c = &row[i];
            let view = CellView {
                row: c.row(),
                family: c.family(),
                qualifier: c.qualifier(),
                ts: c.timestamp(),
                value: c.value(),
            };
            let code = runner.filter_cell(&view);
            if matches!(code, ReturnCode::Include | ReturnCode::IncludeAndNextCol) {
                let k = match runner.transform_cell(c.value()) {
                    Some(v) => Cell::new(
                        c.row(),
                        c.family(),
                        c.qualifier(),
                        c.timestamp(),
                        c.cell_type(),
                        &v,
                    ),
                    None => c.clone(),
                };
                kept.push(k);
            }
            let same_column = |d: &Cell| d.family() == c.family() && d.qualifier() == c.qualifier();
            let same_family = |d: &Cell| d.family() == c.family();
            let mut next = i + 1;
            if mode == Mode::Seek {
                match code {
                    ReturnCode::NextCol | ReturnCode::IncludeAndNextCol => {
                        while next < row.len() && same_column(&row[next]) {
                            next += 1;
                        }
                    }
                    // HBase NEXT_ROW: the rest of the row in this family only.
                    ReturnCode::NextRow => {
                        while next < row.len() && same_family(&row[next]) {
                            next += 1;
                        }
                    }
                    ReturnCode::SeekToRow => {
                        next = row.len();
                        seek_row = Some(runner.row_hint().to_vec());
                    }
                    ReturnCode::Include | ReturnCode::Skip => {}
                }
            }
            i = next;
        }
        if runner.has_filter_row() {
            runner.filter_row_cells(&mut kept);
        }
        if !kept.is_empty() && runner.filter_row() {
            kept.clear();
        }
        if !kept.is_empty() {
            out.push(kept);
        }
    }
    out
}

pub(super) fn scan_dir(f: &Filter, data: &[Cell], reversed: bool) -> Vec<Vec<Cell>> {
    let seek = scan_mode(f, data, reversed, Mode::Seek);
    let step = scan_mode(f, data, reversed, Mode::Step);
    assert_eq!(seek, step, "seeking and stepping disagree for {f:?}");
    seek
}

pub(super) fn scan(f: &Filter, data: &[Cell]) -> Vec<Vec<Cell>> {
    scan_dir(f, data, false)
}

pub(super) fn flat(rows: &[Vec<Cell>]) -> Vec<Cell> {
    rows.iter().flatten().cloned().collect()
}

/// `(rows, cells per row)` like TestFilter#verifyScanNoEarlyOut.
pub(super) fn shape(rows: &[Vec<Cell>]) -> (usize, Vec<usize>) {
    (rows.len(), rows.iter().map(Vec::len).collect())
}

pub(super) fn bin(s: &str) -> Comparator {
    Comparator::Binary(s.as_bytes().to_vec())
}

fn regex(s: &str) -> Comparator {
    Comparator::Regex(s.into())
}

// ---- TestFilter's data set -------------------------------------------------------------

pub(super) const F: [&str; 2] = ["testFamilyOne", "testFamilyTwo"];
pub(super) const V: [&str; 2] = ["testValueOne", "testValueTwo"];

pub(super) fn row1(i: usize) -> String {
    format!("testRowOne-{i}")
}
pub(super) fn row2(i: usize) -> String {
    format!("testRowTwo-{i}")
}
pub(super) fn q1(i: usize) -> String {
    format!("testQualifierOne-{i}")
}
pub(super) fn q2(i: usize) -> String {
    format!("testQualifierTwo-{i}")
}

/// TestFilter#setUp after its deletes: rows One-{0,2,3} hold `testFamily{One,Two}:
/// testQualifierOne-{0,2,3} = testValueOne`, rows Two-{0,2,3} the same with `Two`.
pub(super) fn testfilter_data() -> Vec<Cell> {
    let mut d = Vec::new();
    for r in [0, 2, 3] {
        for f in F {
            for q in [0, 2, 3] {
                d.push(cell(&row1(r), f, &q1(q), 1, V[0]));
                d.push(cell(&row2(r), f, &q2(q), 1, V[1]));
            }
        }
    }
    d
}

/// The expected cells of group one / two rows `rs`, families `fs`, qualifiers `qs`.
pub(super) fn expect(group: usize, rs: &[usize], fs: &[usize], qs: &[usize]) -> Vec<Cell> {
    let mut out = Vec::new();
    for &r in rs {
        for &f in fs {
            for &q in qs {
                out.push(if group == 1 {
                    cell(&row1(r), F[f], &q1(q), 1, V[0])
                } else {
                    cell(&row2(r), F[f], &q2(q), 1, V[1])
                });
            }
        }
    }
    out
}

fn group_one_only(data: Vec<Cell>) -> Vec<Cell> {
    data.into_iter()
        .filter(|c| c.row() < b"testRowTwo".as_slice())
        .collect()
}

fn family_one_only(data: Vec<Cell>) -> Vec<Cell> {
    data.into_iter()
        .filter(|c| c.family() == F[0].as_bytes())
        .collect()
}

#[test]
fn testfilter_no_filter_and_prefix() {
    let d = testfilter_data();
    assert_eq!(shape(&scan(&Filter::All(vec![]), &d)), (6, vec![6; 6]));
    // TestFilter#testPrefixFilter [FLT-4]
    let f = Filter::Prefix(b"testRowOne".to_vec());
    assert_eq!(shape(&scan(&f, &d)), (3, vec![6; 3]));
}

#[test]
fn testfilter_row_filter() {
    // TestFilter#testRowFilter [FLT-1] [FLT-3]
    let d = testfilter_data();
    let cases: Vec<(CompareOp, Comparator, usize)> = vec![
        (CompareOp::Equal, bin("testRowOne-2"), 1),
        (CompareOp::Equal, regex("testRow.+-2"), 2),
        (CompareOp::Less, bin("testRowOne-2"), 1),
        (CompareOp::LessOrEqual, bin("testRowOne-2"), 2),
        (CompareOp::NotEqual, bin("testRowOne-2"), 5),
        (CompareOp::GreaterOrEqual, bin("testRowOne-2"), 5),
        (CompareOp::Greater, bin("testRowOne-2"), 4),
    ];
    for (op, c, rows) in cases {
        let f = Filter::Row(op, c);
        assert_eq!(shape(&scan(&f, &d)), (rows, vec![6; rows]), "{f:?}");
    }
    let f = Filter::Row(CompareOp::NotEqual, bin("testRowOne-2"));
    let mut want = expect(1, &[0, 3], &[0, 1], &[0, 2, 3]);
    want.extend(expect(2, &[0, 2, 3], &[0, 1], &[0, 2, 3]));
    assert_eq!(flat(&scan(&f, &d)), want);
    let f = Filter::Row(CompareOp::Equal, regex(".+-2"));
    let mut want = expect(1, &[2], &[0, 1], &[0, 2, 3]);
    want.extend(expect(2, &[2], &[0, 1], &[0, 2, 3]));
    assert_eq!(flat(&scan(&f, &d)), want);
}

#[test]
fn testfilter_qualifier_filter() {
    // TestFilter#testQualifierFilter: non-matching cells are skipped, rows keep the rest
    // [FLT-3]
    let d = testfilter_data();
    let one = group_one_only(testfilter_data());
    let q = bin("testQualifierOne-2");
    for (op, data, rows, keys) in [
        (CompareOp::Equal, &d, 3, 2),
        (CompareOp::Less, &d, 3, 2),
        (CompareOp::LessOrEqual, &d, 3, 4),
        (CompareOp::NotEqual, &one, 3, 4),
        (CompareOp::GreaterOrEqual, &one, 3, 4),
        (CompareOp::Greater, &one, 3, 2),
    ] {
        let f = Filter::Qualifier(op, q.clone());
        assert_eq!(shape(&scan(&f, data)), (rows, vec![keys; rows]), "{f:?}");
    }
    let f = Filter::Qualifier(CompareOp::NotEqual, bin(&q1(2)));
    let mut want = expect(1, &[0, 2, 3], &[0, 1], &[0, 3]);
    want.extend(expect(2, &[0, 2, 3], &[0, 1], &[0, 2, 3]));
    assert_eq!(flat(&scan(&f, &d)), want);
    let f = Filter::Qualifier(CompareOp::NotEqual, regex("test.+-2"));
    let mut want = expect(1, &[0, 2, 3], &[0, 1], &[0, 3]);
    want.extend(expect(2, &[0, 2, 3], &[0, 1], &[0, 3]));
    assert_eq!(flat(&scan(&f, &d)), want);
}

#[test]
fn testfilter_family_filter() {
    // TestFilter#testFamilyFilter: NEXT_ROW skips the rest of the family only, the next
    // family of the row is still read [FLT-3]
    let d = testfilter_data();
    let one = group_one_only(testfilter_data());
    for (op, value, data, rows, keys) in [
        (CompareOp::Equal, "testFamilyOne", &d, 6, 3),
        (CompareOp::Less, "testFamily", &d, 0, 0),
        (CompareOp::LessOrEqual, "testFamilyOne", &d, 6, 3),
        (CompareOp::NotEqual, "testFamilyOne", &one, 3, 3),
        (CompareOp::GreaterOrEqual, "testFamilyOne", &one, 3, 6),
        (CompareOp::Greater, "testFamilyOne", &one, 3, 3),
    ] {
        let f = Filter::Family(op, bin(value));
        assert_eq!(shape(&scan(&f, data)), (rows, vec![keys; rows]), "{f:?}");
    }
    let f = Filter::Family(CompareOp::NotEqual, bin(F[1]));
    let mut want = expect(1, &[0, 2, 3], &[0], &[0, 2, 3]);
    want.extend(expect(2, &[0, 2, 3], &[0], &[0, 2, 3]));
    assert_eq!(flat(&scan(&f, &d)), want);
    let f = Filter::Family(CompareOp::NotEqual, regex("test.*One"));
    let mut want = expect(1, &[0, 2, 3], &[1], &[0, 2, 3]);
    want.extend(expect(2, &[0, 2, 3], &[1], &[0, 2, 3]));
    assert_eq!(flat(&scan(&f, &d)), want);
}

#[test]
fn testfilter_value_filter() {
    // TestFilter#testValueFilter [FLT-1] [FLT-2]
    let d = testfilter_data();
    for (op, c, rows) in [
        (CompareOp::Equal, bin("testValueOne"), 3),
        (CompareOp::Equal, bin("testValueTwo"), 3),
        (CompareOp::Equal, regex("testValue((One)|(Two))"), 6),
        (CompareOp::Less, bin("testValueTwo"), 3),
        (CompareOp::LessOrEqual, bin("testValueTwo"), 6),
        (CompareOp::LessOrEqual, bin("testValueOne"), 3),
        (CompareOp::NotEqual, bin("testValueOne"), 3),
        (CompareOp::GreaterOrEqual, bin("testValueOne"), 6),
        (CompareOp::Greater, bin("testValueOne"), 3),
    ] {
        let f = Filter::Value(op, c);
        assert_eq!(shape(&scan(&f, &d)), (rows, vec![6; rows]), "{f:?}");
    }
    let f = Filter::Value(CompareOp::NotEqual, bin("testValueOne"));
    assert_eq!(
        flat(&scan(&f, &d)),
        expect(2, &[0, 2, 3], &[0, 1], &[0, 2, 3])
    );
}

#[test]
fn testfilter_filter_list() {
    // TestFilter#testFilterList [FLT-10]
    let f = Filter::All(vec![
        Filter::Row(CompareOp::Equal, regex(".+-2")),
        Filter::Qualifier(CompareOp::Equal, regex(".+-2")),
        Filter::Value(CompareOp::Equal, Comparator::Substring("One".into())),
    ]);
    let d = family_one_only(testfilter_data());
    assert_eq!(flat(&scan(&f, &d)), expect(1, &[2], &[0], &[2]));
    let f = Filter::Any(vec![
        Filter::Row(CompareOp::Equal, regex(".+Two.+")),
        Filter::Qualifier(CompareOp::Equal, regex(".+-2")),
        Filter::Value(CompareOp::Equal, Comparator::Substring("One".into())),
    ]);
    assert_eq!(shape(&scan(&f, &testfilter_data())), (6, vec![6; 6]));
}

#[test]
fn testfilter_first_key_only() {
    // TestFilter#testFirstKeyOnlyFilter [FLT-8]
    let mut want = expect(1, &[0, 2, 3], &[0], &[0]);
    want.extend(expect(2, &[0, 2, 3], &[0], &[0]));
    assert_eq!(flat(&scan(&Filter::FirstKeyOnly, &testfilter_data())), want);
}

#[test]
fn testfilter_page_filter() {
    // TestFilter#testPageFilter [FLT-7]
    let d = testfilter_data();
    let mut all = expect(1, &[0, 2, 3], &[0, 1], &[0, 2, 3]);
    all.extend(expect(2, &[0, 2, 3], &[0, 1], &[0, 2, 3]));
    for n in [6usize, 4, 2, 1] {
        let rows = scan(&Filter::Page(n as u64), &d);
        assert_eq!(shape(&rows), (n, vec![6; n]));
        assert_eq!(flat(&rows), all[..6 * n].to_vec());
    }
    assert!(scan(&Filter::Page(0), &d).is_empty());
    assert_eq!(scan(&Filter::Page(100), &d).len(), 6);
}

#[test]
fn testfilter_filter_list_with_single_column_value_filter() {
    // TestFilter#testFilterListWithSingleColumnValueFilter (HBASE-3191) [FLT-5] [FLT-10]
    let d = family_one_only(testfilter_data());
    let f1 = Filter::SingleColumnValue {
        family: F[0].into(),
        qualifier: q1(0).into_bytes(),
        op: CompareOp::Equal,
        comparator: bin(V[0]),
        filter_if_missing: true,
        latest_version_only: true,
    };
    let f2 = Filter::SingleColumnValue {
        family: F[0].into(),
        qualifier: q2(0).into_bytes(),
        op: CompareOp::Equal,
        comparator: bin(V[1]),
        filter_if_missing: true,
        latest_version_only: true,
    };
    let want1 = expect(1, &[0, 2, 3], &[0], &[0, 2, 3]);
    let want2 = expect(2, &[0, 2, 3], &[0], &[0, 2, 3]);
    assert_eq!(flat(&scan(&f1, &d)), want1);
    assert_eq!(flat(&scan(&f2, &d)), want2);
    let or = Filter::Any(vec![f1, f2]);
    let rows = scan(&or, &d);
    assert_eq!(shape(&rows), (6, vec![3; 6]));
    assert_eq!(flat(&rows), [want1, want2].concat());
}

fn scv(q: &str, value: &str, filter_if_missing: bool) -> Filter {
    Filter::SingleColumnValue {
        family: F[0].into(),
        qualifier: q.into(),
        op: CompareOp::Equal,
        comparator: bin(value),
        filter_if_missing,
        latest_version_only: true,
    }
}

#[test]
fn testfilter_single_column_value_filter() {
    // TestFilter#testSingleColumnValueFilter (HBASE-1821) [FLT-5]
    let mut d: Vec<Cell> = group_one_only(family_one_only(testfilter_data()));
    for c in d.iter_mut() {
        if c.row() == row1(2).as_bytes() && c.qualifier() == q1(2).as_bytes() {
            *c = Cell::new(
                c.row(),
                c.family(),
                c.qualifier(),
                c.timestamp(),
                c.cell_type(),
                V[1].as_bytes(),
            );
        }
    }
    let f = Filter::All(vec![scv(&q1(0), V[0], false), scv(&q1(2), V[1], false)]);
    let want = vec![
        cell(&row1(2), F[0], &q1(0), 1, V[0]),
        cell(&row1(2), F[0], &q1(2), 1, V[1]),
        cell(&row1(2), F[0], &q1(3), 1, V[0]),
    ];
    assert_eq!(flat(&scan(&f, &d)), want);

    let src = vec![
        cell("rowThree-0", F[0], &q1(0), 1, V[0]),
        cell("rowThree-1", F[0], &q1(0), 1, V[1]),
        cell("rowThree-2", F[0], &q1(1), 1, V[0]),
        cell("rowThree-3", F[0], &q1(1), 1, V[1]),
    ];
    let pick = |idx: &[usize]| idx.iter().map(|&i| src[i].clone()).collect::<Vec<_>>();
    // Rows without the column pass unless filter_if_missing.
    assert_eq!(
        flat(&scan(&scv(&q1(0), V[0], false), &src)),
        pick(&[0, 2, 3])
    );
    assert_eq!(flat(&scan(&scv(&q1(0), V[0], true), &src)), pick(&[0]));
    assert_eq!(flat(&scan(&scv(&q1(1), V[1], true), &src)), pick(&[3]));
    let mut more = src.clone();
    more.push(cell("rowThree-0", F[0], &q1(1), 1, V[0]));
    assert_eq!(flat(&scan(&scv(&q1(1), V[1], true), &more)), pick(&[3]));
}

// ---- further cases per filter ------------------------------------------------------------

fn qcells(rows: &[Vec<Cell>]) -> Vec<String> {
    flat(rows)
        .iter()
        .map(|c| {
            format!(
                "{}/{}:{}@{}={}",
                String::from_utf8_lossy(c.row()),
                String::from_utf8_lossy(c.family()),
                String::from_utf8_lossy(c.qualifier()),
                c.timestamp(),
                String::from_utf8_lossy(c.value())
            )
        })
        .collect()
}

#[test]
fn prefix_forward_and_reversed_end_the_scan() {
    // [FLT-4]
    let d: Vec<Cell> = ["a", "b", "ba", "bb", "bz", "c", "d"]
        .iter()
        .map(|r| cell(r, "f", "q", 1, "v"))
        .collect();
    let f = Filter::Prefix(b"b".to_vec());
    let row_keys = |rows: Vec<Vec<Cell>>| -> Vec<String> {
        rows.iter()
            .map(|r| String::from_utf8_lossy(r[0].row()).into_owned())
            .collect()
    };
    let rows = row_keys(scan_dir(&f, &d, false));
    assert_eq!(rows, ["b", "ba", "bb", "bz"]);
    assert_eq!(row_keys(scan_dir(&f, &d, true)), ["bz", "bb", "ba", "b"]);

    // The runner reports the end of the scan as soon as a row passes the prefix.
    let mut r = FilterRunner::new(&f, false).unwrap();
    assert!(r.filter_row_key(b"a"));
    assert!(!r.filter_all_remaining());
    assert!(!r.filter_row_key(b"ba"));
    assert!(r.filter_row_key(b"c"));
    assert!(r.filter_all_remaining());
    let mut r = FilterRunner::new(&f, true).unwrap();
    assert!(r.filter_row_key(b"c"));
    assert!(!r.filter_all_remaining());
    assert!(!r.filter_row_key(b"b"));
    assert!(r.filter_row_key(b"a"));
    assert!(r.filter_all_remaining());
    // Rows shorter than the prefix never pass and are not compared, so they do not end the
    // scan (PrefixFilter.filterRowKey's length check); longer ones do.
    let mut r = FilterRunner::new(&Filter::Prefix(b"bb".to_vec()), false).unwrap();
    assert!(r.filter_row_key(b"c"));
    assert!(!r.filter_all_remaining());
    assert!(r.filter_row_key(b"ca"));
    assert!(r.filter_all_remaining());
}

fn wide_row() -> Vec<Cell> {
    vec![
        cell("r", "f1", "a", 1, "1"),
        cell("r", "f1", "b1", 1, "2"),
        cell("r", "f1", "b2", 2, "3"),
        cell("r", "f1", "b2", 1, "4"),
        cell("r", "f1", "c", 1, "5"),
        cell("r", "f2", "a", 1, "6"),
        cell("r", "f2", "b3", 1, "7"),
        cell("r", "f2", "d", 1, "8"),
    ]
}

#[test]
fn column_prefix_across_families() {
    // [FLT-6]: past the prefix the filter answers NEXT_ROW, which only ends the family.
    let f = Filter::ColumnPrefix(b"b".to_vec());
    assert_eq!(
        qcells(&scan(&f, &wide_row())),
        ["r/f1:b1@1=2", "r/f1:b2@2=3", "r/f1:b2@1=4", "r/f2:b3@1=7"]
    );
    // A qualifier that is a proper prefix of the prefix sorts before it.
    let d = vec![
        cell("r", "f", "ab", 1, "x"),
        cell("r", "f", "abc", 1, "y"),
        cell("r", "f", "abd", 1, "z"),
    ];
    let f = Filter::ColumnPrefix(b"abc".to_vec());
    assert_eq!(qcells(&scan(&f, &d)), ["r/f:abc@1=y"]);
    assert_eq!(
        qcells(&scan(&Filter::ColumnPrefix(vec![]), &d)),
        ["r/f:ab@1=x", "r/f:abc@1=y", "r/f:abd@1=z"]
    );
}

#[test]
fn column_range_variants() {
    // [FLT-6]
    let d = wide_row();
    let range = |min: Option<&str>, mi: bool, max: Option<&str>, ma: bool| Filter::ColumnRange {
        min: min.map(|s| s.as_bytes().to_vec()),
        min_inclusive: mi,
        max: max.map(|s| s.as_bytes().to_vec()),
        max_inclusive: ma,
    };
    assert_eq!(
        qcells(&scan(&range(Some("b1"), true, Some("b3"), false), &d)),
        ["r/f1:b1@1=2", "r/f1:b2@2=3", "r/f1:b2@1=4"]
    );
    assert_eq!(
        qcells(&scan(&range(Some("b1"), false, Some("b3"), true), &d)),
        ["r/f1:b2@2=3", "r/f1:b2@1=4", "r/f2:b3@1=7"]
    );
    assert_eq!(
        qcells(&scan(&range(None, true, Some("a"), true), &d)),
        ["r/f1:a@1=1", "r/f2:a@1=6"]
    );
    assert_eq!(
        qcells(&scan(&range(Some("c"), true, None, false), &d)),
        ["r/f1:c@1=5", "r/f2:d@1=8"]
    );
    assert_eq!(scan(&range(None, true, None, true), &d).len(), 1);
    assert_eq!(flat(&scan(&range(None, true, None, true), &d)).len(), 8);
    assert!(scan(&range(Some("x"), true, None, true), &d).is_empty());
}

#[test]
fn key_only_and_first_key_only_across_families() {
    // [FLT-8]
    let rows = scan(&Filter::KeyOnly, &wide_row());
    assert_eq!(flat(&rows).len(), 8);
    assert!(flat(&rows).iter().all(|c| c.value().is_empty()));
    assert_eq!(
        qcells(&scan(&Filter::FirstKeyOnly, &wide_row())),
        ["r/f1:a@1=1"]
    );
    let f = Filter::All(vec![Filter::FirstKeyOnly, Filter::KeyOnly]);
    assert_eq!(qcells(&scan(&f, &wide_row())), ["r/f1:a@1="]);
}

#[test]
fn timestamps_filter() {
    // [FLT-9]: versions with listed timestamps; the empty list returns nothing.
    let d = vec![
        cell("r", "f", "a", 9, "a9"),
        cell("r", "f", "a", 7, "a7"),
        cell("r", "f", "a", 5, "a5"),
        cell("r", "f", "a", 3, "a3"),
        cell("r", "f", "b", 7, "b7"),
        cell("r", "f", "b", 2, "b2"),
    ];
    assert_eq!(
        qcells(&scan(&Filter::Timestamps(vec![7, 3]), &d)),
        ["r/f:a@7=a7", "r/f:a@3=a3", "r/f:b@7=b7"]
    );
    assert!(scan(&Filter::Timestamps(vec![]), &d).is_empty());
    assert!(scan(&Filter::Timestamps(vec![100]), &d).is_empty());
}

#[test]
fn single_column_value_details() {
    // [FLT-5]: the whole row (all families) passes or not; latest_version_only.
    let d = vec![
        cell("r1", "f1", "a", 1, "x"),
        cell("r1", "f1", "t", 3, "bad"),
        cell("r1", "f1", "t", 2, "good"),
        cell("r1", "f1", "z", 1, "y"),
        cell("r1", "f2", "a", 1, "w"),
        cell("r2", "f1", "t", 3, "good"),
        cell("r2", "f2", "a", 1, "v"),
        cell("r3", "f2", "a", 1, "u"),
    ];
    let f = |latest: bool, missing: bool| Filter::SingleColumnValue {
        family: b"f1".to_vec(),
        qualifier: b"t".to_vec(),
        op: CompareOp::Equal,
        comparator: bin("good"),
        filter_if_missing: missing,
        latest_version_only: latest,
    };
    let rows_of = |rows: Vec<Vec<Cell>>| -> Vec<(String, usize)> {
        rows.iter()
            .map(|r| (String::from_utf8_lossy(r[0].row()).into_owned(), r.len()))
            .collect()
    };
    // latest version of r1 is "bad": r1 dropped; r3 lacks the column and passes.
    assert_eq!(
        rows_of(scan(&f(true, false), &d)),
        [("r2".into(), 2), ("r3".into(), 1)]
    );
    assert_eq!(rows_of(scan(&f(true, true), &d)), [("r2".into(), 2)]);
    // Any version may match: r1 passes with every one of its cells.
    assert_eq!(
        rows_of(scan(&f(false, true), &d)),
        [("r1".into(), 5), ("r2".into(), 2)]
    );
    // Other comparison operators read `value OP expected` [FLT-1].
    let lt = Filter::SingleColumnValue {
        family: b"f1".to_vec(),
        qualifier: b"t".to_vec(),
        op: CompareOp::Less,
        comparator: bin("c"),
        filter_if_missing: true,
        latest_version_only: true,
    };
    assert_eq!(rows_of(scan(&lt, &d)), [("r1".into(), 5)]);
}

#[test]
fn comparators() {
    // [FLT-2]
    let d = vec![
        cell("r", "f", "a", 1, "ab"),
        cell("r", "f", "b", 1, "abc"),
        cell("r", "f", "c", 1, "abd"),
        cell("r", "f", "d", 1, "HELLO world"),
        cell("r", "f", "e", 1, "\u{e9}t\u{e9}"),
        cell("r", "f", "g", 1, "b"),
    ];
    let values = |f: Filter| -> Vec<String> {
        flat(&scan(&f, &d))
            .iter()
            .map(|c| String::from_utf8_lossy(c.value()).into_owned())
            .collect()
    };
    // BinaryPrefix compares only the first len(expected) bytes of the value.
    let bp = |op| Filter::Value(op, Comparator::BinaryPrefix(b"abc".to_vec()));
    assert_eq!(values(bp(CompareOp::Equal)), ["abc"]);
    assert_eq!(values(bp(CompareOp::Less)), ["ab", "HELLO world"]);
    assert_eq!(
        values(bp(CompareOp::Greater)),
        ["abd", "\u{e9}t\u{e9}", "b"]
    );
    // Unsigned byte order: é (0xC3..) sorts after ASCII [SORT-2].
    assert_eq!(
        values(Filter::Value(CompareOp::Greater, bin("b"))),
        ["\u{e9}t\u{e9}"]
    );
    // Substring is case-insensitive on both sides.
    let sub = |s: &str, op| Filter::Value(op, Comparator::Substring(s.into()));
    assert_eq!(values(sub("WORLD", CompareOp::Equal)), ["HELLO world"]);
    assert_eq!(values(sub("\u{c9}T", CompareOp::Equal)), ["\u{e9}t\u{e9}"]);
    assert_eq!(
        values(sub("b", CompareOp::NotEqual)),
        ["HELLO world", "\u{e9}t\u{e9}"]
    );
    // Regex: find() semantics.
    assert_eq!(
        values(Filter::Value(CompareOp::Equal, regex("b[cd]"))),
        ["abc", "abd"]
    );
    // 0/1 comparators with other operators (allowed programmatically, as in HBase):
    // a match compares as 0, a miss as 1, and `Less` keeps cells with `cell < expected`,
    // i.e. compareTo(cell) > 0: the misses.
    assert_eq!(
        values(Filter::Value(CompareOp::Less, regex("^ab"))),
        ["HELLO world", "\u{e9}t\u{e9}", "b"]
    );
    // An empty qualifier is compared too (no length check in 2.x QualifierFilter).
    let e = vec![cell("r", "f", "", 1, "x"), cell("r", "f", "q", 1, "y")];
    let f = Filter::Qualifier(CompareOp::Equal, bin(""));
    assert_eq!(qcells(&scan(&f, &e)), ["r/f:@1=x"]);
}

#[test]
fn empty_and_nested_lists() {
    // [FLT-10]: an empty list passes everything; lists nest.
    let d = testfilter_data();
    for f in [
        Filter::All(vec![]),
        Filter::Any(vec![]),
        Filter::All(vec![Filter::Any(vec![])]),
        Filter::Any(vec![Filter::All(vec![]), Filter::Any(vec![])]),
    ] {
        assert_eq!(shape(&scan(&f, &d)), (6, vec![6; 6]), "{f:?}");
    }
    // (row one-2 OR value two) AND family one
    let f = Filter::All(vec![
        Filter::Any(vec![
            Filter::Row(CompareOp::Equal, bin("testRowOne-2")),
            Filter::Value(CompareOp::Equal, bin(V[1])),
        ]),
        Filter::Family(CompareOp::Equal, bin(F[0])),
    ]);
    let mut want = expect(1, &[2], &[0], &[0, 2, 3]);
    want.extend(expect(2, &[0, 2, 3], &[0], &[0, 2, 3]));
    assert_eq!(flat(&scan(&f, &d)), want);
    // Prefix one OR prefix two: the scan goes on until both have passed.
    let f = Filter::Any(vec![
        Filter::Prefix(b"testRowOne-0".to_vec()),
        Filter::Prefix(b"testRowTwo-3".to_vec()),
    ]);
    let rows = scan(&f, &d);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1][0].row(), b"testRowTwo-3");
}

#[test]
fn or_list_transforms_only_through_including_members() {
    // FilterListBase.transformCell (HBASE-18879): only members that included the cell
    // transform it.
    let d = vec![
        cell("r", "f", "q1", 1, "x"),
        cell("r", "f", "q2", 1, "x"),
        cell("r", "f", "q3", 1, "y"),
    ];
    let f = Filter::Any(vec![
        Filter::Value(CompareOp::Equal, bin("x")),
        Filter::All(vec![
            Filter::KeyOnly,
            Filter::Qualifier(CompareOp::Equal, bin("q1")),
        ]),
    ]);
    assert_eq!(qcells(&scan(&f, &d)), ["r/f:q1@1=", "r/f:q2@1=x"]);
    let f = Filter::Any(vec![
        Filter::Value(CompareOp::Equal, bin("x")),
        Filter::KeyOnly,
    ]);
    assert_eq!(
        qcells(&scan(&f, &d)),
        ["r/f:q1@1=", "r/f:q2@1=", "r/f:q3@1="]
    );
}

#[test]
fn or_of_column_prefixes_uses_hints() {
    // MultipleColumnPrefixFilter('b','d') == Any(ColumnPrefix b, ColumnPrefix d) [FLT-6]
    let d = vec![
        cell("r", "f", "a", 1, "1"),
        cell("r", "f", "b1", 1, "2"),
        cell("r", "f", "c", 1, "3"),
        cell("r", "f", "d1", 1, "4"),
        cell("r", "f", "e", 1, "5"),
        cell("r", "g", "d2", 1, "6"),
    ];
    let f = Filter::parse("MultipleColumnPrefixFilter('d', 'b')").unwrap();
    assert_eq!(
        qcells(&scan(&f, &d)),
        ["r/f:b1@1=2", "r/f:d1@1=4", "r/g:d2@1=6"]
    );
    let f = Filter::All(vec![
        Filter::ColumnPrefix(b"d".to_vec()),
        Filter::Value(CompareOp::NotEqual, bin("4")),
    ]);
    assert_eq!(qcells(&scan(&f, &d)), ["r/g:d2@1=6"]);
}

#[test]
fn reversed_or_list_hint_quirk() {
    // HBase's FilterListWithOR compares the current cell with a member's previous seek hint
    // using FilterListBase.compareCell, which negates the comparison on reversed scans; a
    // hinting member is then not asked again for later columns of the row. Reproduced.
    let d = vec![cell("r", "f", "a", 1, "1"), cell("r", "f", "b1", 1, "2")];
    let f = Filter::Any(vec![
        Filter::ColumnPrefix(b"b".to_vec()),
        Filter::Value(CompareOp::Equal, bin("zzz")),
    ]);
    assert_eq!(qcells(&scan_dir(&f, &d, false)), ["r/f:b1@1=2"]);
    assert!(scan_dir(&f, &d, true).is_empty());
    // Alone (no list), the reversed scan is unaffected.
    assert_eq!(
        qcells(&scan_dir(&Filter::ColumnPrefix(b"b".to_vec()), &d, true)),
        ["r/f:b1@1=2"]
    );
}

#[test]
fn page_counting_inside_lists_follows_member_order() {
    // FilterListWithAND.filterRow stops at the first member that drops the row, so a Page
    // member placed first counts rows that a later member drops [FLT-7] [FLT-10].
    let d = vec![
        cell("r1", "f", "a", 1, "1"),
        cell("r1", "f", "t", 1, "bad"),
        cell("r2", "f", "a", 1, "1"),
        cell("r2", "f", "t", 1, "good"),
    ];
    let s = scv_f("good");
    let page_first = Filter::All(vec![Filter::Page(1), s.clone()]);
    assert!(scan(&page_first, &d).is_empty());
    let page_last = Filter::All(vec![s, Filter::Page(1)]);
    let rows = scan(&page_last, &d);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0][0].row(), b"r2");
}

fn scv_f(value: &str) -> Filter {
    Filter::SingleColumnValue {
        family: b"f".to_vec(),
        qualifier: b"t".to_vec(),
        op: CompareOp::Equal,
        comparator: bin(value),
        filter_if_missing: false,
        latest_version_only: true,
    }
}

#[test]
fn page_counts_only_rows_that_reach_filter_row() {
    // A row emptied by the cell filters is never offered to filterRow, so it is not counted.
    let d = vec![
        cell("r1", "f", "a", 1, "no"),
        cell("r2", "f", "a", 1, "yes"),
        cell("r3", "f", "a", 1, "yes"),
    ];
    let f = Filter::All(vec![
        Filter::Value(CompareOp::Equal, bin("yes")),
        Filter::Page(1),
    ]);
    let rows = scan(&f, &d);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0][0].row(), b"r2");
    let mut r = FilterRunner::new(&Filter::Page(0), false).unwrap();
    assert!(r.filter_all_remaining());
    assert!(r.filter_row_key(b"x"));
}

#[test]
fn runner_api() {
    assert!(
        FilterRunner::new(&Filter::Page(1), false)
            .unwrap()
            .has_filter_row()
    );
    assert!(
        !FilterRunner::new(&Filter::KeyOnly, false)
            .unwrap()
            .has_filter_row()
    );
    assert!(Filter::Any(vec![Filter::KeyOnly, scv_f("x")]).has_filter_row());
    assert!(!Filter::All(vec![Filter::FirstKeyOnly]).has_filter_row());
    // Invalid filters are refused when the runner is built.
    assert!(FilterRunner::new(&Filter::Row(CompareOp::Equal, regex("(?<=a)")), false).is_err());
    assert!(FilterRunner::new(&Filter::Timestamps(vec![1, -1]), false).is_err());
    assert!(
        Filter::All(vec![Filter::Value(CompareOp::Equal, regex("a++"))])
            .validate()
            .is_err()
    );
    // transform_cell only changes values under KeyOnly.
    let mut r = FilterRunner::new(&Filter::KeyOnly, false).unwrap();
    assert!(!r.filter_row_key(b"r"));
    let v = CellView {
        row: b"r",
        family: b"f",
        qualifier: b"q",
        ts: 1,
        value: b"abc",
    };
    assert_eq!(r.filter_cell(&v), ReturnCode::Include);
    assert_eq!(r.transform_cell(b"abc"), Some(vec![]));
    let mut r = FilterRunner::new(&Filter::All(vec![]), false).unwrap();
    assert_eq!(r.filter_cell(&v), ReturnCode::Include);
    assert_eq!(r.transform_cell(b"abc"), None);
    assert!(!r.filter_row());
    // NextRow is remembered for the rest of the family only.
    let mut r = FilterRunner::new(&Filter::FirstKeyOnly, false).unwrap();
    assert!(!r.filter_row_key(b"r"));
    assert_eq!(r.filter_cell(&v), ReturnCode::Include);
    assert_eq!(r.filter_cell(&v), ReturnCode::NextRow);
    let g = CellView { family: b"g", ..v };
    assert_eq!(r.filter_cell(&g), ReturnCode::NextRow);
    // A new row resets the per-row state.
    assert!(!r.filter_row_key(b"s"));
    assert_eq!(
        r.filter_cell(&CellView { row: b"s", ..v }),
        ReturnCode::Include
    );
}

// ---- randomized ---------------------------------------------------------------------------

/// Deterministic xorshift64* generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

const OPS: [CompareOp; 6] = [
    CompareOp::Less,
    CompareOp::LessOrEqual,
    CompareOp::Equal,
    CompareOp::NotEqual,
    CompareOp::GreaterOrEqual,
    CompareOp::Greater,
];
const QUALIFIERS: [&str; 6] = ["", "a", "ab", "b", "ba", "c"];
const VALUES: [&str; 5] = ["", "x", "y", "xy", "X"];

fn random_cells(rng: &mut Rng) -> Vec<Cell> {
    let mut d = Vec::new();
    for row in ["r1", "r2", "r3", "s1"] {
        for family in ["f1", "f2"] {
            for q in QUALIFIERS {
                if rng.below(3) == 0 {
                    continue;
                }
                for ts in 1..=4 {
                    if rng.below(2) == 0 {
                        let v = *rng.pick(&VALUES);
                        d.push(cell(row, family, q, ts, v));
                    }
                }
            }
        }
    }
    d
}

fn random_comparator(rng: &mut Rng) -> Comparator {
    let s = rng
        .pick(&["", "a", "b", "x", "xy", "f1", "f2", "r2"])
        .to_string();
    match rng.below(4) {
        0 => Comparator::Binary(s.into_bytes()),
        1 => Comparator::BinaryPrefix(s.into_bytes()),
        2 => Comparator::Substring(s),
        _ => Comparator::Regex(rng.pick(&["^x", "y$", "a|b", "f.", "^$", "X"]).to_string()),
    }
}

fn random_bytes(rng: &mut Rng) -> Vec<u8> {
    rng.pick(&QUALIFIERS).as_bytes().to_vec()
}

/// A filter whose decisions depend on the cell only (no row state).
fn random_stateless(rng: &mut Rng, depth: usize) -> Filter {
    let leaf = depth == 0 || rng.below(3) == 0;
    if !leaf {
        let n = rng.below(4);
        let kids = (0..n).map(|_| random_stateless(rng, depth - 1)).collect();
        return if rng.below(2) == 0 {
            Filter::All(kids)
        } else {
            Filter::Any(kids)
        };
    }
    match rng.below(7) {
        0 => Filter::Family(*rng.pick(&OPS), random_comparator(rng)),
        1 => Filter::Qualifier(*rng.pick(&OPS), random_comparator(rng)),
        2 => Filter::Value(*rng.pick(&OPS), random_comparator(rng)),
        3 => Filter::ColumnPrefix(random_bytes(rng)),
        4 => Filter::ColumnRange {
            min: (rng.below(3) > 0).then(|| random_bytes(rng)),
            min_inclusive: rng.below(2) == 0,
            max: (rng.below(3) > 0).then(|| random_bytes(rng)),
            max_inclusive: rng.below(2) == 0,
        },
        5 => Filter::Timestamps((0..rng.below(3)).map(|_| 1 + rng.below(4) as i64).collect()),
        _ => Filter::KeyOnly,
    }
}

/// The comparator's `compareTo(cell)`, computed independently.
fn reference_compare(c: &Comparator, cell: &[u8]) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let hit = |b: bool| {
        if b {
            Ordering::Equal
        } else {
            Ordering::Greater
        }
    };
    match c {
        Comparator::Binary(v) => v.as_slice().cmp(cell),
        Comparator::BinaryPrefix(v) => v.as_slice().cmp(&cell[..v.len().min(cell.len())]),
        Comparator::Substring(s) => hit(String::from_utf8_lossy(cell)
            .to_lowercase()
            .contains(&s.to_lowercase())),
        Comparator::Regex(p) => hit(::regex::Regex::new(p)
            .unwrap()
            .is_match(&String::from_utf8_lossy(cell))),
        Comparator::Long(_) | Comparator::Bit(..) | Comparator::Null => {
            unreachable!("not generated")
        }
    }
}

/// `cell OP expected` [FLT-1], from the comparator's view `r = expected <=> cell`.
fn reference_passes(op: CompareOp, r: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        CompareOp::Less => r == Greater,
        CompareOp::LessOrEqual => r != Less,
        CompareOp::Equal => r == Equal,
        CompareOp::NotEqual => r != Equal,
        CompareOp::GreaterOrEqual => r != Greater,
        CompareOp::Greater => r == Less,
    }
}

fn reference_keeps(f: &Filter, c: &Cell) -> bool {
    match f {
        Filter::Family(op, cmp) => reference_passes(*op, reference_compare(cmp, c.family())),
        Filter::Qualifier(op, cmp) => reference_passes(*op, reference_compare(cmp, c.qualifier())),
        Filter::Value(op, cmp) => reference_passes(*op, reference_compare(cmp, c.value())),
        Filter::ColumnPrefix(p) => c.qualifier().starts_with(p),
        Filter::ColumnRange {
            min,
            min_inclusive,
            max,
            max_inclusive,
        } => {
            let q = c.qualifier();
            let above = min.as_ref().is_none_or(|m| {
                if *min_inclusive {
                    q >= m.as_slice()
                } else {
                    q > m.as_slice()
                }
            });
            let below = max.as_ref().is_none_or(|m| {
                if *max_inclusive {
                    q <= m.as_slice()
                } else {
                    q < m.as_slice()
                }
            });
            above && below
        }
        Filter::Timestamps(ts) => ts.contains(&c.timestamp()),
        Filter::KeyOnly => true,
        Filter::All(fs) => fs.iter().all(|f| reference_keeps(f, c)),
        Filter::Any(fs) => fs.is_empty() || fs.iter().any(|f| reference_keeps(f, c)),
        other => unreachable!("not stateless: {other:?}"),
    }
}

#[test]
fn stateless_filters_are_boolean_logic_on_cells() {
    // With filters that look at single cells only, HBase's return-code merging (including
    // the seek codes and FilterListWithOR's previous-cell shortcuts) must keep exactly the
    // cells for which the AND/OR formula holds (forward scans) [FLT-1..3] [FLT-6] [FLT-9]
    // [FLT-10].
    let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
    for _ in 0..400 {
        let f = random_stateless(&mut rng, 3);
        let d = random_cells(&mut rng);
        let got = flat(&scan(&f, &d));
        let mut want: Vec<Cell> = d.into_iter().filter(|c| reference_keeps(&f, c)).collect();
        want.sort_by(|a, b| {
            (a.row(), a.family(), a.qualifier())
                .cmp(&(b.row(), b.family(), b.qualifier()))
                .then(b.timestamp().cmp(&a.timestamp()))
        });
        let got_keys: Vec<_> = got
            .iter()
            .map(|c| (c.row(), c.family(), c.qualifier(), c.timestamp()))
            .collect();
        let want_keys: Vec<_> = want
            .iter()
            .map(|c| (c.row(), c.family(), c.qualifier(), c.timestamp()))
            .collect();
        assert_eq!(got_keys, want_keys, "{f:?}");
    }
}

fn random_any(rng: &mut Rng, depth: usize) -> Filter {
    if depth > 0 && rng.below(3) == 0 {
        let n = rng.below(4);
        let kids = (0..n).map(|_| random_any(rng, depth - 1)).collect();
        return if rng.below(2) == 0 {
            Filter::All(kids)
        } else {
            Filter::Any(kids)
        };
    }
    match rng.below(7) {
        0 => Filter::Prefix(rng.pick(&[&b"r"[..], b"r2", b"s", b"", b"t"]).to_vec()),
        1 => Filter::Row(*rng.pick(&OPS), random_comparator(rng)),
        2 => Filter::SingleColumnValue {
            family: rng.pick(&[&b"f1"[..], b"f2"]).to_vec(),
            qualifier: random_bytes(rng),
            op: *rng.pick(&OPS),
            comparator: random_comparator(rng),
            filter_if_missing: rng.below(2) == 0,
            latest_version_only: rng.below(2) == 0,
        },
        3 => Filter::Page(rng.below(4) as u64),
        4 => Filter::FirstKeyOnly,
        _ => random_stateless(rng, 1),
    }
}

#[test]
fn any_filter_seeks_and_steps_alike_both_directions() {
    // No panics, and the runner's remembered seeks make a stepping reader see what a seeking
    // one sees (asserted inside `scan_dir`), forward and reversed.
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    for _ in 0..400 {
        let f = random_any(&mut rng, 3);
        let d = random_cells(&mut rng);
        scan_dir(&f, &d, false);
        scan_dir(&f, &d, true);
    }
}
