//! `cellbase thrift2`: HBase 2.6's Thrift2 `THBaseService` semantics over the wire
//! (`ThriftHBaseServiceHandler` + `ThriftUtilities`), driven by the crate's own codec against
//! a real process. Rule IDs are /work/shared/hbase-semantics.md's.
mod thrift_common;

use cellbase_cli::thrift::protocol::{Protocol, T_BOOL, T_STRING, T_STRUCT, Value};
use cellbase_cli::thrift::transport::Transport;
use thrift_common::*;

#[test]
fn all_four_modes_answer_thbaseservice() {
    let dir = tempfile::tempdir().unwrap();
    let server = Gw::Thrift2.start(dir.path());
    for (t, p) in [
        (Transport::Buffered, Protocol::Binary),
        (Transport::Framed, Protocol::Binary),
        (Transport::Buffered, Protocol::Compact),
        (Transport::Framed, Protocol::Compact),
    ] {
        let mut c = Client::connect(server.port, t, p);
        // TThriftServerType.TWO.
        let r = c.call("getThriftServerType", vec![]);
        assert_eq!(r.success(), &Value::I32(2), "{t:?}/{p:?}");
        // An unknown method: TApplicationException UNKNOWN_METHOD; the connection stays up.
        match c.call("scannerOpen", vec![]) {
            Reply::AppException(f) => assert!(f.contains(&(2, Value::I32(1)))),
            other => panic!("{other:?}"),
        }
        let r = c.call("listNamespaces", vec![]);
        assert_eq!(r.success(), &Value::bin_list(["default", "hbase"]));
    }
}

#[test]
fn tput_timestamps_tget_versions_time_ranges_and_missing_rows() {
    let (_dir, _server, mut c) = start2();
    create(&mut c, "t", &[("cf", 3)], &[]);
    // [TS-1] TPut.timestamp stamps the cells without their own (ThriftUtilities.putFromThrift).
    let p = st(vec![
        (1, b("r")),
        (
            2,
            list(vec![
                cv_at("cf", "a", "v1", 10),
                tcolumn_value("cf", "b", b"x"),
            ]),
        ),
        (3, Value::I64(5)),
        (6, Value::I32(1)), // SKIP_WAL
    ]);
    put(&mut c, "t", p);
    put(&mut c, "t", tput(b"r", vec![cv_at("cf", "a", "v2", 20)]));
    let r = get(&mut c, "t", vec![(1, b("r"))]);
    assert_eq!(field(&r, 1), Some(&b("r")));
    assert_eq!(
        qvt(&r),
        [("a".into(), "v2".into(), 20), ("b".into(), "x".into(), 5)]
    );
    // resultFromHBase: every TColumnValue carries the cell type byte (Put = 4); stale and
    // partial are false.
    let Some(Value::List(_, cvs)) = field(&r, 2) else {
        panic!()
    };
    assert!(cvs.iter().all(|v| field(v, 6) == Some(&Value::Byte(4))));
    assert_eq!(field(&r, 3), Some(&Value::Bool(false)));
    // [VER-2] maxVersions; [GET-1] a column.
    let r = get(
        &mut c,
        "t",
        vec![
            (1, b("r")),
            (2, list(vec![col("cf", Some("a"), None)])),
            (5, Value::I32(5)),
        ],
    );
    assert_eq!(
        qvt(&r),
        [("a".into(), "v2".into(), 20), ("a".into(), "v1".into(), 10)]
    );
    // [TS-5] The timestamp wins over a time range (getFromThrift).
    let range = |min: i64, max: i64| st(vec![(1, Value::I64(min)), (2, Value::I64(max))]);
    let r = get(
        &mut c,
        "t",
        vec![
            (1, b("r")),
            (3, Value::I64(10)),
            (4, range(0, 100)),
            (5, Value::I32(5)),
        ],
    );
    assert_eq!(qvt(&r), [("a".into(), "v1".into(), 10)]);
    let r = get(
        &mut c,
        "t",
        vec![(1, b("r")), (4, range(0, 15)), (5, Value::I32(5))],
    );
    assert_eq!(qvt(&r).len(), 2);
    // [GET-1] A family alone is the whole family.
    let r = get(
        &mut c,
        "t",
        vec![(1, b("r")), (2, list(vec![col("cf", None, None)]))],
    );
    assert_eq!(qvt(&r).len(), 2);
    // A missing row: no row field, an empty list.
    let r = get(&mut c, "t", vec![(1, b("zz"))]);
    assert_eq!(field(&r, 1), None);
    assert_eq!(field(&r, 2), Some(&list(vec![])));
    // maxVersions must be positive; an unknown table is a TIOError.
    let m = c
        .call(
            "get",
            vec![(1, b("t")), (2, st(vec![(1, b("r")), (5, Value::I32(0))]))],
        )
        .exception(1);
    assert!(m.contains("maxVersions must be positive"), "{m}");
    c.call("get", vec![(1, b("nope")), (2, st(vec![(1, b("r"))]))])
        .exception(1);
}

#[test]
fn get_multiple_exists_store_limits_and_filters() {
    let (_dir, _server, mut c) = start2();
    create(&mut c, "t", &[("cf", 1), ("cg", 1)], &[]);
    let puts = list(vec![
        tput(
            b"a",
            vec![
                tcolumn_value("cf", "q1", b"1"),
                tcolumn_value("cf", "q2", b"2"),
                tcolumn_value("cf", "q3", b"3"),
                tcolumn_value("cg", "q1", b"4"),
            ],
        ),
        tput(b"b", vec![tcolumn_value("cf", "q1", b"5")]),
    ]);
    c.call("putMultiple", vec![(1, b("t")), (2, puts)]).void();
    let tget = |row: &str| st(vec![(1, b(row))]);
    let r = c.call(
        "getMultiple",
        vec![
            (1, b("t")),
            (2, list(vec![tget("a"), tget("zz"), tget("b")])),
        ],
    );
    let Value::List(_, rs) = r.success() else {
        panic!()
    };
    assert_eq!(
        rs.iter()
            .map(|r| tresult_cells(r).len())
            .collect::<Vec<_>>(),
        [4, 0, 1]
    );
    assert_eq!(field(&rs[1], 1), None);
    let r = c.call("exists", vec![(1, b("t")), (2, tget("a"))]);
    assert_eq!(r.success(), &Value::Bool(true));
    let r = c.call(
        "existsAll",
        vec![(1, b("t")), (2, list(vec![tget("zz"), tget("b")]))],
    );
    assert_eq!(
        r.success(),
        &Value::List(T_BOOL, vec![Value::Bool(false), Value::Bool(true)])
    );
    // existence_only: HBase's Result carries only the exists flag: no row, no cells.
    let r = get(&mut c, "t", vec![(1, b("a")), (14, Value::Bool(true))]);
    assert_eq!((field(&r, 1), qvt(&r).len()), (None, 0));
    // [GET-3] storeLimit / storeOffset per family.
    let r = get(
        &mut c,
        "t",
        vec![(1, b("a")), (12, Value::I32(1)), (13, Value::I32(1))],
    );
    assert_eq!(
        qvt(&r).iter().map(|x| x.1.as_str()).collect::<Vec<_>>(),
        ["2"]
    );
    let r = get(&mut c, "t", vec![(1, b("a")), (12, Value::I32(1))]);
    assert_eq!(
        qvt(&r).iter().map(|x| x.1.as_str()).collect::<Vec<_>>(),
        ["1", "4"]
    );
    // filterString through the filter language; filterBytes (a Java filter) is refused.
    let r = get(
        &mut c,
        "t",
        vec![(1, b("a")), (6, b("QualifierFilter(=, 'binary:q3')"))],
    );
    assert_eq!(
        qvt(&r).iter().map(|x| x.1.as_str()).collect::<Vec<_>>(),
        ["3"]
    );
    let m = c
        .call(
            "get",
            vec![(1, b("t")), (2, st(vec![(1, b("a")), (15, b("\x08\x01"))]))],
        )
        .exception(1);
    assert!(m.contains("filterBytes"), "{m}");
}

#[test]
fn tdelete_types_follow_delete_from_thrift() {
    let (_dir, _server, mut c) = start2();
    create(&mut c, "t", &[("cf", 5)], &[]);
    for ts in 1..=3 {
        let cells = ["a", "b", "c"]
            .iter()
            .map(|q| cv_at("cf", q, &format!("{q}{ts}"), ts))
            .collect();
        put(&mut c, "t", tput(b"r", cells));
    }
    let versions = |c: &mut Client, q: &str| -> Vec<i64> {
        let r = get(
            c,
            "t",
            vec![
                (1, b("r")),
                (2, list(vec![col("cf", Some(q), None)])),
                (5, Value::I32(5)),
            ],
        );
        qvt(&r).into_iter().map(|x| x.2).collect()
    };
    let delete = |c: &mut Client, columns: Vec<Value>, kind: i32| {
        let d = st(vec![(1, b("r")), (2, list(columns)), (4, Value::I32(kind))]);
        c.call("deleteSingle", vec![(1, b("t")), (2, d)])
    };
    // [DEL-6] DELETE_COLUMN: the latest version, or exactly the given one.
    delete(&mut c, vec![col("cf", Some("a"), None)], 0).void();
    assert_eq!(versions(&mut c, "a"), [2, 1]);
    delete(&mut c, vec![col("cf", Some("a"), Some(1))], 0).void();
    assert_eq!(versions(&mut c, "a"), [2]);
    // DELETE_COLUMNS: every version up to the timestamp; absent deleteType is DELETE_COLUMNS
    // (the IDL default).
    let d = st(vec![
        (1, b("r")),
        (2, list(vec![col("cf", Some("b"), Some(2))])),
    ]);
    c.call("deleteSingle", vec![(1, b("t")), (2, d)]).void();
    assert_eq!(versions(&mut c, "b"), [3]);
    // DELETE_FAMILY_VERSION needs a timestamp, and masks every column at exactly it.
    let m = delete(&mut c, vec![col("cf", None, None)], 3).exception(1);
    assert_eq!(
        m,
        "Timestamp is required for TDelete with DeleteFamilyVersion type"
    );
    delete(&mut c, vec![col("cf", None, Some(3))], 3).void();
    assert_eq!(
        (
            versions(&mut c, "a"),
            versions(&mut c, "b"),
            versions(&mut c, "c")
        ),
        (vec![2], vec![], vec![2, 1])
    );
    // [DEL-7] DELETE_FAMILY up to a timestamp.
    delete(&mut c, vec![col("cf", None, Some(1))], 2).void();
    assert_eq!(versions(&mut c, "c"), [2]);
    // No columns: the whole row, up to the top-level timestamp.
    put(
        &mut c,
        "t",
        tput(
            b"s",
            vec![cv_at("cf", "a", "old", 5), cv_at("cf", "b", "new", 50)],
        ),
    );
    let d = st(vec![(1, b("s")), (3, Value::I64(10))]);
    c.call("deleteSingle", vec![(1, b("t")), (2, d)]).void();
    let r = get(&mut c, "t", vec![(1, b("s"))]);
    assert_eq!(qvt(&r), [("b".into(), "new".into(), 50)]);
    // deleteMultiple: HBase 2 answers an empty list (failures throw).
    let ds = list(vec![st(vec![(1, b("r"))]), st(vec![(1, b("s"))])]);
    let r = c.call("deleteMultiple", vec![(1, b("t")), (2, ds)]);
    assert_eq!(r.success(), &list(vec![]));
    assert_eq!(qvt(&get(&mut c, "t", vec![(1, b("s"))])).len(), 0);
}

#[test]
fn check_and_mutate_increment_append_and_mutate_row() {
    let (_dir, _server, mut c) = start2();
    create(&mut c, "t", &[("cf", 3)], &[]);
    let check_and_put = |c: &mut Client, value: Option<&str>, new: &str| {
        let mut args = vec![(1, b("t")), (2, b("r")), (3, b("cf")), (4, b("q"))];
        if let Some(v) = value {
            args.push((5, b(v)));
        }
        args.push((
            6,
            tput(b"r", vec![tcolumn_value("cf", "q", new.as_bytes())]),
        ));
        c.call("checkAndPut", args).success().clone()
    };
    // [CAM-3] No value: the cell must be absent (ifNotExists).
    assert_eq!(check_and_put(&mut c, None, "1"), Value::Bool(true));
    assert_eq!(check_and_put(&mut c, None, "x"), Value::Bool(false));
    assert_eq!(check_and_put(&mut c, Some("2"), "x"), Value::Bool(false));
    assert_eq!(check_and_put(&mut c, Some("1"), "2"), Value::Bool(true));
    // [CAM-2] checkAndMutate compares the given value with the stored one ("1" < "2"), then
    // applies the row mutations [RM-1].
    let rm = st(vec![
        (1, b("r")),
        (
            2,
            list(vec![
                st(vec![(1, tput(b"r", vec![tcolumn_value("cf", "p", b"x")]))]),
                st(vec![(
                    2,
                    st(vec![
                        (1, b("r")),
                        (2, list(vec![col("cf", Some("q"), None)])),
                    ]),
                )]),
            ]),
        ),
    ]);
    let cam = |c: &mut Client, op: i32| {
        c.call(
            "checkAndMutate",
            vec![
                (1, b("t")),
                (2, b("r")),
                (3, b("cf")),
                (4, b("q")),
                (5, Value::I32(op)),
                (6, b("1")),
                (7, rm.clone()),
            ],
        )
    };
    assert_eq!(cam(&mut c, 5).success(), &Value::Bool(false)); // GREATER
    assert!(cam(&mut c, 6).exception(1).contains("NO_OP"));
    assert_eq!(cam(&mut c, 0).success(), &Value::Bool(true)); // LESS
    let r = get(&mut c, "t", vec![(1, b("r"))]);
    assert_eq!(
        qvt(&r).iter().map(|x| x.0.as_str()).collect::<Vec<_>>(),
        ["p"]
    );
    // checkAndDelete.
    let del = st(vec![
        (1, b("r")),
        (2, list(vec![col("cf", Some("p"), None)])),
    ]);
    let cad = |c: &mut Client, v: &str| {
        c.call(
            "checkAndDelete",
            vec![
                (1, b("t")),
                (2, b("r")),
                (3, b("cf")),
                (4, b("p")),
                (5, b(v)),
                (6, del.clone()),
            ],
        )
        .success()
        .clone()
    };
    assert_eq!(cad(&mut c, "y"), Value::Bool(false));
    assert_eq!(cad(&mut c, "x"), Value::Bool(true));
    assert_eq!(qvt(&get(&mut c, "t", vec![(1, b("r"))])).len(), 0);
    // [INC-1] increment: the new value, 8 bytes big-endian; amount defaults to 1; without
    // returnResults an empty TResult.
    let inc = |c: &mut Client, amount: Option<i64>, ret: Option<bool>| {
        let mut ci = vec![(1, b("cf")), (2, b("n"))];
        if let Some(a) = amount {
            ci.push((3, Value::I64(a)));
        }
        let mut ti = vec![(1, b("c")), (2, list(vec![st(ci)]))];
        if let Some(r) = ret {
            ti.push((7, Value::Bool(r)));
        }
        c.call("increment", vec![(1, b("t")), (2, st(ti))])
            .success()
            .clone()
    };
    let r = inc(&mut c, Some(5), None);
    assert_eq!(tresult_cells(&r)[0].2, 5i64.to_be_bytes());
    let r = inc(&mut c, None, None);
    assert_eq!(tresult_cells(&r)[0].2, 6i64.to_be_bytes());
    let r = inc(&mut c, Some(-2), Some(false));
    assert_eq!((field(&r, 1), tresult_cells(&r).len()), (None, 0));
    let r = get(&mut c, "t", vec![(1, b("c"))]);
    assert_eq!(tresult_cells(&r)[0].2, 4i64.to_be_bytes());
    // [APP-1] append, with and without returnResults.
    let app = |c: &mut Client, v: &str, ret: bool| {
        let ta = st(vec![
            (1, b("s")),
            (2, list(vec![tcolumn_value("cf", "s", v.as_bytes())])),
            (6, Value::Bool(ret)),
        ]);
        c.call("append", vec![(1, b("t")), (2, ta)])
            .success()
            .clone()
    };
    assert_eq!(qvt(&app(&mut c, "ab", true))[0].1, "ab");
    assert_eq!(qvt(&app(&mut c, "cd", false)).len(), 0);
    assert_eq!(qvt(&get(&mut c, "t", vec![(1, b("s"))]))[0].1, "abcd");
    // [RM-1] mutateRow.
    let rm = st(vec![
        (1, b("m")),
        (
            2,
            list(vec![st(vec![(
                1,
                tput(
                    b"m",
                    vec![
                        tcolumn_value("cf", "a", b"1"),
                        tcolumn_value("cf", "b", b"2"),
                    ],
                ),
            )])]),
        ),
    ]);
    c.call("mutateRow", vec![(1, b("t")), (2, rm)]).void();
    assert_eq!(qvt(&get(&mut c, "t", vec![(1, b("m"))])).len(), 2);
}

#[test]
fn scanners_and_scan_options() {
    let (_dir, _server, mut c) = start2();
    create(&mut c, "t", &[("cf", 3), ("cg", 3)], &[]);
    let puts = (0..10)
        .map(|i| {
            tput(
                format!("r{i}").as_bytes(),
                vec![
                    cv_at("cf", "a", &i.to_string(), 100 + i),
                    tcolumn_value("cf", "b", b"x"),
                    tcolumn_value("cg", "c", b"y"),
                ],
            )
        })
        .collect();
    c.call("putMultiple", vec![(1, b("t")), (2, list(puts))])
        .void();
    let rows_of = |r: &Value| -> Vec<String> {
        let Value::List(_, rs) = r else { panic!() };
        rs.iter()
            .map(|r| match field(r, 1) {
                Some(Value::Binary(b)) => String::from_utf8(b.clone()).unwrap(),
                other => panic!("{other:?}"),
            })
            .collect()
    };
    // [SCAN-1] start inclusive, stop exclusive; rows in batches of numRows.
    let scan = st(vec![
        (1, b("r2")),
        (2, b("r7")),
        (3, list(vec![col("cf", Some("a"), None)])),
    ]);
    let id = c
        .call("openScanner", vec![(1, b("t")), (2, scan)])
        .success()
        .clone();
    let next = |c: &mut Client, n: i32| {
        c.call("getScannerRows", vec![(1, id.clone()), (2, Value::I32(n))])
    };
    assert_eq!(rows_of(next(&mut c, 3).success()), ["r2", "r3", "r4"]);
    assert_eq!(rows_of(next(&mut c, 10).success()), ["r5", "r6"]);
    assert!(rows_of(next(&mut c, 10).success()).is_empty());
    c.call("closeScanner", vec![(1, id.clone())]).void();
    // An unknown scanner: TIllegalArgument (field 2) for getScannerRows; closeScanner only
    // logs it (HBase 2.6's handler).
    assert_eq!(next(&mut c, 1).exception(2), "Invalid scanner Id");
    c.call("closeScanner", vec![(1, id.clone())]).void();
    c.call("closeScanner", vec![(1, Value::I32(987_654))])
        .void();
    let results = |c: &mut Client, scan: Vec<(i16, Value)>, n: i32| {
        c.call(
            "getScannerResults",
            vec![(1, b("t")), (2, st(scan)), (3, Value::I32(n))],
        )
        .success()
        .clone()
    };
    // [SCAN-REV-1] reversed, [SCAN-2b] limit.
    let r = results(
        &mut c,
        vec![(11, Value::Bool(true)), (15, Value::I32(2))],
        10,
    );
    assert_eq!(rows_of(&r), ["r9", "r8"]);
    let r = results(&mut c, vec![(7, b("PrefixFilter('r3')"))], 10);
    assert_eq!(rows_of(&r), ["r3"]);
    // [TS-5] a time range applies only with both stamps.
    let range = |min: i64, max: i64| st(vec![(1, Value::I64(min)), (2, Value::I64(max))]);
    let r = results(
        &mut c,
        vec![
            (3, list(vec![col("cf", Some("a"), None)])),
            (6, range(103, 105)),
        ],
        10,
    );
    assert_eq!(rows_of(&r), ["r3", "r4"]);
    // [SCAN-3] batchSize cuts a row into parts.
    let r = results(
        &mut c,
        vec![(1, b("r1")), (2, b("r2")), (8, Value::I32(2))],
        10,
    );
    let Value::List(_, parts) = &r else { panic!() };
    assert_eq!(
        parts
            .iter()
            .map(|p| tresult_cells(p).len())
            .collect::<Vec<_>>(),
        [2, 1]
    );
    // [SCAN-5] colFamTimeRangeMap.
    let tr = Value::Map(T_STRING, T_STRUCT, vec![(b("cf"), range(0, 102))]);
    let r = results(&mut c, vec![(1, b("r1")), (2, b("r2")), (13, tr)], 10);
    let Value::List(_, rs) = &r else { panic!() };
    assert_eq!(
        qvt(&rs[0]).iter().map(|x| x.0.as_str()).collect::<Vec<_>>(),
        ["a", "c"]
    );
    // numRows bounds the rows; an unknown table is a TIOError.
    assert_eq!(rows_of(&results(&mut c, vec![], 1)), ["r0"]);
    c.call("openScanner", vec![(1, b("nope")), (2, st(vec![]))])
        .exception(1);
}
