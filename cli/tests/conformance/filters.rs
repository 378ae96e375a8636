//! Filters ([FLT-1]..[FLT-10]): remotely they travel as HBase's filter language.

use crate::*;

fn rows(t: &Table) {
    for (row, v) in [("a1", "1"), ("a2", "5"), ("b1", "9"), ("b2", "x")] {
        t.put(
            Put::new(row)
                .add_at("f", "q", 1, v)
                .add_at("f", "p", 1, "p")
                .add_at("g", "c1", 1, "c"),
        )
        .unwrap();
    }
}

fn bin(s: &str) -> Comparator {
    Comparator::Binary(s.as_bytes().to_vec())
}

/// [FLT-1] [FLT-2] [FLT-3] Compare filters read `cell OP expected`.
pub fn compare_filters_read_cell_op_expected(b: &Backend) {
    let t = b.table(1);
    rows(&t);
    let s = |f: Filter| scan_rows(&t, Scan::new().filter(f));
    assert_eq!(s(Filter::Row(CompareOp::Less, bin("b"))), ["a1", "a2"]);
    assert_eq!(
        s(Filter::Row(
            CompareOp::Equal,
            Comparator::Regex("^b".into())
        )),
        ["b1", "b2"]
    );
    let cells = scan_cells(
        &t,
        Scan::new().filter(Filter::Value(CompareOp::Greater, bin("4"))),
    );
    assert_eq!(cells, cells_gt_4());
    assert_eq!(
        a1_cells(&t, Filter::Family(CompareOp::Equal, bin("g"))),
        ["a1/g:c1@1=c"]
    );
}

/// The cells of row `a1` a filter lets through.
fn a1_cells(t: &Table, f: Filter) -> Vec<String> {
    scan_cells(t, Scan::new().start_row("a1").stop_row("a2").filter(f))
}

/// Cells with a value above "4" in [`rows`], in scan order.
fn cells_gt_4() -> Vec<String> {
    [
        "a1/f:p@1=p",
        "a1/g:c1@1=c",
        "a2/f:p@1=p",
        "a2/f:q@1=5",
        "a2/g:c1@1=c",
        "b1/f:p@1=p",
        "b1/f:q@1=9",
        "b1/g:c1@1=c",
        "b2/f:p@1=p",
        "b2/f:q@1=x",
        "b2/g:c1@1=c",
    ]
    .map(str::to_string)
    .to_vec()
}

/// [FLT-5] SingleColumnValueFilter: rows without the column pass unless filter-if-missing.
pub fn single_column_value_filter_defaults(b: &Backend) {
    let t = b.table(1);
    rows(&t);
    t.put(Put::new("c0").add_at("f", "p", 1, "p")).unwrap();
    let scv = |missing: bool| Filter::SingleColumnValue {
        family: b"f".to_vec(),
        qualifier: b"q".to_vec(),
        op: CompareOp::GreaterOrEqual,
        comparator: bin("5"),
        filter_if_missing: missing,
        latest_version_only: true,
    };
    assert_eq!(
        scan_rows(&t, Scan::new().filter(scv(false))),
        ["a2", "b1", "b2", "c0"]
    );
    assert_eq!(
        scan_rows(&t, Scan::new().filter(scv(true))),
        ["a2", "b1", "b2"]
    );
}

/// [FLT-4] [FLT-6] [FLT-7] [FLT-8] Prefix, page, column prefix, first-key-only, key-only.
pub fn prefix_page_and_column_filters(b: &Backend) {
    let t = b.table(1);
    rows(&t);
    assert_eq!(
        scan_rows(&t, Scan::new().filter(Filter::Prefix(b"b".to_vec()))),
        ["b1", "b2"]
    );
    assert_eq!(
        scan_rows(&t, Scan::new().filter(Filter::Page(3))),
        ["a1", "a2", "b1"]
    );
    assert_eq!(
        a1_cells(&t, Filter::ColumnPrefix(b"c".to_vec())),
        ["a1/g:c1@1=c"]
    );
    assert_eq!(a1_cells(&t, Filter::FirstKeyOnly), ["a1/f:p@1=p"]);
    assert_eq!(
        a1_cells(
            &t,
            Filter::All(vec![Filter::KeyOnly, Filter::ColumnPrefix(b"q".to_vec())])
        ),
        ["a1/f:q@1="]
    );
    let g = t
        .get(Get::new("a2").filter(Filter::Qualifier(CompareOp::Equal, bin("q"))))
        .unwrap();
    assert_eq!(
        g.cells().iter().map(show).collect::<Vec<_>>(),
        ["a2/f:q@1=5"]
    );
}

/// [FLT-9] [FLT-10] AND / OR lists, SKIP and WHILE.
pub fn filter_lists_skip_and_while(b: &Backend) {
    let t = b.table(1);
    rows(&t);
    let any = Filter::Any(vec![
        Filter::Prefix(b"a1".to_vec()),
        Filter::Prefix(b"b2".to_vec()),
    ]);
    assert_eq!(scan_rows(&t, Scan::new().filter(any)), ["a1", "b2"]);
    let skip = Filter::Skip(Box::new(Filter::Value(CompareOp::NotEqual, bin("9"))));
    // SKIP drops every row holding a cell the inner filter refuses: b1 (its f:q is "9").
    assert_eq!(scan_rows(&t, Scan::new().filter(skip)), ["a1", "a2", "b2"]);
    let while_ = Filter::WhileMatch(Box::new(Filter::Row(CompareOp::Less, bin("b2"))));
    assert_eq!(
        scan_rows(&t, Scan::new().filter(while_)),
        ["a1", "a2", "b1"]
    );
}

/// The filters HBase offers only through its Java API run embedded (remotely they are
/// `Unsupported`: `not_remote.rs`).
pub fn api_only_filters_work_embedded(b: &Backend) {
    let t = b.table(1);
    rows(&t);
    let f = Filter::MultiRowRange(vec![RowRange::new("a2", true, "b1", true)]);
    match t.scan(Scan::new().filter(f)) {
        Ok(s) => {
            assert!(!b.remote);
            let rows: Vec<_> = s.map(|r| r.unwrap().row().to_vec()).collect();
            assert_eq!(rows, [b"a2".to_vec(), b"b1".to_vec()]);
        }
        Err(e) => assert!(b.remote && matches!(e, Error::Unsupported(_)), "{e:?}"),
    }
}
