//! The Thrift1 gateway's HBase semantics over the wire (thrift-gateway.md §1.5), driven by the
//! crate's own codec against a real `cellbase thrift` process.
mod thrift_common;

use cellbase_cli::thrift::protocol::{Protocol, T_STRING, T_STRUCT, Value};
use cellbase_cli::thrift::transport::Transport;
use thrift_common::*;

fn cols(list: &[&str]) -> Value {
    Value::bin_list(list.iter().map(|s| s.as_bytes()))
}

fn empty_attrs() -> Value {
    Value::Map(T_STRING, T_STRING, vec![])
}

#[test]
fn all_four_modes_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    for (i, (t, p)) in [
        (Transport::Buffered, Protocol::Binary),
        (Transport::Framed, Protocol::Binary),
        (Transport::Buffered, Protocol::Compact),
        (Transport::Framed, Protocol::Compact),
    ]
    .into_iter()
    .enumerate()
    {
        let mut c = Client::connect(server.port, t, p);
        let table = format!("t{i}");
        create_table(&mut c, &table, &[("cf", 3)]).void();
        c.call(
            "mutateRows",
            vec![
                (1, b(&table)),
                (
                    2,
                    Value::List(
                        T_STRUCT,
                        vec![batch(b"r1", vec![mutation("cf:a", Some(b"v\0"))])],
                    ),
                ),
                (3, empty_attrs()),
            ],
        )
        .void();
        // columns omitted, as happybase does for row(b'r1').
        let r = c.call(
            "getRowWithColumns",
            vec![(1, b(&table)), (2, b("r1")), (4, empty_attrs())],
        );
        let got = rows(r.success());
        assert_eq!(got.len(), 1, "{t:?}/{p:?}");
        assert_eq!(got[0].0, b"r1");
        assert_eq!(got[0].1[0].0, b"cf:a");
        assert_eq!(got[0].1[0].1, b"v\0");
        let names = c.call("getTableNames", vec![]);
        let Value::List(_, n) = names.success() else {
            panic!()
        };
        assert!(n.contains(&b(&table)));
    }
}

#[test]
fn reads_writes_and_deletes_follow_hbase() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let mut c = Client::binary(server.port);
    create_table(&mut c, "t", &[("cf1", 3), ("cf2", 3), ("cf3", 1)]).void();
    assert_eq!(
        create_table(&mut c, "t", &[("cf1", 3)]).exception(3),
        "table name already in use"
    );
    let put_ts = |c: &mut Client, row: &str, col: &str, v: &str, ts: i64| {
        c.call(
            "mutateRowsTs",
            vec![
                (1, b("t")),
                (
                    2,
                    Value::List(
                        T_STRUCT,
                        vec![batch(
                            row.as_bytes(),
                            vec![mutation(col, Some(v.as_bytes()))],
                        )],
                    ),
                ),
                (3, Value::I64(ts)),
            ],
        )
        .void()
    };
    put_ts(&mut c, "r", "cf1:a", "old", 1234);
    put_ts(&mut c, "r", "cf1:a", "mid", 3456);
    put_ts(&mut c, "r", "cf1:a", "new", 5000);
    put_ts(&mut c, "r", "cf1:", "empty-qualifier", 5000);
    put_ts(&mut c, "r", "cf2:b", "x", 5000);

    // getRowWithColumnsTs: time range [0, ts), one version.
    let r = c.call(
        "getRowWithColumnsTs",
        vec![
            (1, b("t")),
            (2, b("r")),
            (3, cols(&["cf1:a"])),
            (4, Value::I64(3456)),
        ],
    );
    assert_eq!(
        rows(r.success())[0].1,
        vec![(b"cf1:a".to_vec(), b"old".to_vec(), 1234)]
    );
    let r = c.call(
        "getRowWithColumnsTs",
        vec![(1, b("t")), (2, b("r")), (4, Value::I64(123))],
    );
    assert!(
        rows(r.success()).is_empty(),
        "nothing below 123: row omitted"
    );
    // Family-only column means the whole family; `cf1:` is the empty qualifier only.
    let r = c.call(
        "getRowWithColumns",
        vec![(1, b("t")), (2, b("r")), (3, cols(&["cf1"]))],
    );
    let got = &rows(r.success())[0].1;
    assert_eq!(got.len(), 2);
    let r = c.call(
        "getRowWithColumns",
        vec![(1, b("t")), (2, b("r")), (3, cols(&["cf1:"]))],
    );
    assert_eq!(
        rows(r.success())[0].1,
        vec![(b"cf1:".to_vec(), b"empty-qualifier".to_vec(), 5000)]
    );
    // getVer: newest first, capped by VERSIONS 3 from the descriptor.
    let r = c.call(
        "getVer",
        vec![
            (1, b("t")),
            (2, b("r")),
            (3, b("cf1:a")),
            (4, Value::I32(i32::MAX)),
        ],
    );
    assert_eq!(
        cells(r.success()),
        vec![
            (b"new".to_vec(), 5000),
            (b"mid".to_vec(), 3456),
            (b"old".to_vec(), 1234)
        ]
    );
    let r = c.call(
        "getVerTs",
        vec![
            (1, b("t")),
            (2, b("r")),
            (3, b("cf1:a")),
            (4, Value::I64(5000)),
            (5, Value::I32(10)),
        ],
    );
    assert_eq!(
        cells(r.success()),
        vec![(b"mid".to_vec(), 3456), (b"old".to_vec(), 1234)]
    );

    // A delete with ts removes versions <= ts only.
    c.call(
        "mutateRowsTs",
        vec![
            (1, b("t")),
            (
                2,
                Value::List(T_STRUCT, vec![batch(b"r", vec![mutation("cf1:a", None)])]),
            ),
            (3, Value::I64(3456)),
        ],
    )
    .void();
    let r = c.call(
        "getVer",
        vec![
            (1, b("t")),
            (2, b("r")),
            (3, b("cf1:a")),
            (4, Value::I32(10)),
        ],
    );
    assert_eq!(cells(r.success()), vec![(b"new".to_vec(), 5000)]);

    // Puts are applied before deletes in one mutateRows: put + family delete leaves nothing.
    c.call(
        "mutateRows",
        vec![
            (1, b("t")),
            (
                2,
                Value::List(
                    T_STRUCT,
                    vec![batch(
                        b"p",
                        vec![mutation("cf2", None), mutation("cf2:z", Some(b"1"))],
                    )],
                ),
            ),
        ],
    )
    .void();
    let r = c.call("getRow", vec![(1, b("t")), (2, b("p"))]);
    assert!(rows(r.success()).is_empty());

    // A put on a column without ':' in mutateRows is IllegalArgument; an unknown family IOError.
    let r = c.call(
        "mutateRows",
        vec![
            (1, b("t")),
            (
                2,
                Value::List(
                    T_STRUCT,
                    vec![batch(b"q", vec![mutation("cf1", Some(b"v"))])],
                ),
            ),
        ],
    );
    assert_eq!(r.exception(2), "Invalid famAndQf provided.");
    let r = c.call(
        "mutateRows",
        vec![
            (1, b("t")),
            (
                2,
                Value::List(
                    T_STRUCT,
                    vec![batch(b"q", vec![mutation("nope:x", Some(b"v"))])],
                ),
            ),
        ],
    );
    assert!(!r.exception(1).is_empty());
    // Unknown table: IOError.
    let r = c.call("getRow", vec![(1, b("missing")), (2, b("r"))]);
    assert!(r.exception(1).contains("missing"));

    // getRows: missing rows are omitted.
    let r = c.call(
        "getRows",
        vec![(1, b("t")), (2, Value::bin_list(["r", "nothing"]))],
    );
    assert_eq!(rows(r.success()).len(), 1);

    // Whole-row delete up to a timestamp keeps newer cells.
    c.call(
        "deleteAllRowTs",
        vec![(1, b("t")), (2, b("r")), (3, Value::I64(4999))],
    )
    .void();
    let r = c.call("getRow", vec![(1, b("t")), (2, b("r"))]);
    assert_eq!(rows(r.success())[0].1.len(), 3);
    c.call("deleteAll", vec![(1, b("t")), (2, b("r")), (3, b("cf2"))])
        .void();
    let r = c.call("getRow", vec![(1, b("t")), (2, b("r"))]);
    assert_eq!(rows(r.success())[0].1.len(), 2);
    c.call("deleteAllRow", vec![(1, b("t")), (2, b("r"))])
        .void();
    let r = c.call("getRow", vec![(1, b("t")), (2, b("r"))]);
    assert!(rows(r.success()).is_empty());
}

#[test]
fn counters_appends_and_check_and_put() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let mut c = Client::binary(server.port);
    create_table(&mut c, "t", &[("cf", 3)]).void();
    let inc = |c: &mut Client, d: i64| {
        c.call(
            "atomicIncrement",
            vec![(1, b("t")), (2, b("r")), (3, b("cf:n")), (4, Value::I64(d))],
        )
    };
    assert_eq!(inc(&mut c, 0).success(), &Value::I64(0));
    assert_eq!(inc(&mut c, 10).success(), &Value::I64(10));
    assert_eq!(inc(&mut c, -3).success(), &Value::I64(7));
    // counter_set: an 8-byte put issued after the increment is acknowledged lands on top.
    c.call(
        "mutateRows",
        vec![
            (1, b("t")),
            (
                2,
                Value::List(
                    T_STRUCT,
                    vec![batch(
                        b"r",
                        vec![mutation("cf:n", Some(&0i64.to_be_bytes()))],
                    )],
                ),
            ),
        ],
    )
    .void();
    assert_eq!(inc(&mut c, 1).success(), &Value::I64(1));
    // A non-8-byte value is not a counter.
    c.call(
        "mutateRows",
        vec![
            (1, b("t")),
            (
                2,
                Value::List(
                    T_STRUCT,
                    vec![batch(b"r", vec![mutation("cf:s", Some(b"abc"))])],
                ),
            ),
        ],
    )
    .void();
    let r = c.call(
        "atomicIncrement",
        vec![(1, b("t")), (2, b("r")), (3, b("cf:s")), (4, Value::I64(1))],
    );
    assert!(r.exception(1).contains("Field is not a long"));
    // increment(TIncrement) and incrementRows.
    let tinc = Value::Struct(vec![
        (1, b("t")),
        (2, b("r")),
        (3, b("cf:n")),
        (4, Value::I64(5)),
    ]);
    c.call("increment", vec![(1, tinc.clone())]).void();
    c.call(
        "incrementRows",
        vec![(1, Value::List(T_STRUCT, vec![tinc.clone(), tinc]))],
    )
    .void();
    let r = c.call("get", vec![(1, b("t")), (2, b("r")), (3, b("cf:n"))]);
    assert_eq!(
        cells(r.success())[0].0,
        16i64.to_be_bytes().to_vec(),
        "1 + 5 + 2 x 5"
    );
    // append
    let ap = Value::Struct(vec![
        (1, b("t")),
        (2, b("r")),
        (3, cols(&["cf:s"])),
        (4, Value::bin_list(["def"])),
    ]);
    let r = c.call("append", vec![(1, ap)]);
    assert_eq!(cells(r.success())[0].0, b"abcdef");
    // checkAndPut: value given → equals; absent → must not exist.
    let mput = mutation("cf:c", Some(b"won"));
    let r = c.call(
        "checkAndPut",
        vec![
            (1, b("t")),
            (2, b("r")),
            (3, b("cf:s")),
            (5, b("wrong")),
            (6, mput.clone()),
        ],
    );
    assert_eq!(r.success(), &Value::Bool(false));
    let r = c.call(
        "checkAndPut",
        vec![
            (1, b("t")),
            (2, b("r")),
            (3, b("cf:s")),
            (5, b("abcdef")),
            (6, mput.clone()),
        ],
    );
    assert_eq!(r.success(), &Value::Bool(true));
    let r = c.call(
        "checkAndPut",
        vec![(1, b("t")), (2, b("r")), (3, b("cf:c")), (6, mput)],
    );
    assert_eq!(r.success(), &Value::Bool(false), "cf:c exists now");
    let r = c.call("get", vec![(1, b("t")), (2, b("r")), (3, b("cf:c"))]);
    assert_eq!(cells(r.success())[0].0, b"won");
}

#[test]
fn scanners_are_global_sorted_reversed_and_filtered() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let mut c = Client::binary(server.port);
    let mut other = Client::connect(server.port, Transport::Framed, Protocol::Compact);
    create_table(&mut c, "t", &[("cf", 3)]).void();
    let batches = (0..50)
        .map(|i| {
            let row = format!("row{i:03}");
            batch(
                row.as_bytes(),
                vec![
                    mutation("cf:b", Some(format!("{i}").as_bytes())),
                    mutation("cf:a", Some(b"x")),
                ],
            )
        })
        .collect();
    c.call(
        "mutateRows",
        vec![(1, b("t")), (2, Value::List(T_STRUCT, batches))],
    )
    .void();

    // Start/stop, half-open; continue the scan on another connection.
    let scan = Value::Struct(vec![
        (1, b("row010")),
        (2, b("row020")),
        (5, Value::I32(1000)),
        (8, Value::Bool(false)),
        (9, Value::Bool(false)),
    ]);
    let id = c.call(
        "scannerOpenWithScan",
        vec![(1, b("t")), (2, scan), (3, empty_attrs())],
    );
    let id = id.success().clone();
    let first = c.call("scannerGetList", vec![(1, id.clone()), (2, Value::I32(4))]);
    let rest = other.call(
        "scannerGetList",
        vec![(1, id.clone()), (2, Value::I32(100))],
    );
    let done = other.call(
        "scannerGetList",
        vec![(1, id.clone()), (2, Value::I32(100))],
    );
    assert_eq!(rows(first.success()).len(), 4);
    let rest = rows(rest.success());
    assert_eq!(rest.len(), 6);
    assert_eq!(rest[5].0, b"row019");
    assert!(
        rows(done.success()).is_empty(),
        "exhausted scanner: empty list"
    );
    c.call("scannerClose", vec![(1, id.clone())]).void();
    assert_eq!(
        c.call("scannerGet", vec![(1, id.clone())]).exception(2),
        "scanner ID is invalid"
    );
    assert_eq!(
        c.call("scannerClose", vec![(1, id)]).exception(2),
        "scanner ID is invalid"
    );

    // Reversed with an empty start row starts at the end; sorted columns fill field 3 in order.
    let scan = Value::Struct(vec![
        (1, b("")),
        (8, Value::Bool(true)),
        (9, Value::Bool(true)),
    ]);
    let id = c
        .call("scannerOpenWithScan", vec![(1, b("t")), (2, scan)])
        .success()
        .clone();
    let got = rows(
        c.call("scannerGetList", vec![(1, id), (2, Value::I32(2))])
            .success(),
    );
    assert_eq!(got[0].0, b"row049");
    assert_eq!(got[1].0, b"row048");
    let names: Vec<_> = got[0].1.iter().map(|x| x.0.clone()).collect();
    assert_eq!(names, vec![b"cf:a".to_vec(), b"cf:b".to_vec()]);

    // A filter string goes through Filter::parse; a bad one is an IOError.
    let scan = Value::Struct(vec![(
        6,
        b("SingleColumnValueFilter ('cf', 'b', =, 'binary:7')"),
    )]);
    let id = c
        .call("scannerOpenWithScan", vec![(1, b("t")), (2, scan)])
        .success()
        .clone();
    let got = rows(
        c.call("scannerGetList", vec![(1, id), (2, Value::I32(100))])
            .success(),
    );
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, b"row007");
    let scan = Value::Struct(vec![(6, b("NoSuchFilter(("))]);
    assert!(
        !c.call("scannerOpenWithScan", vec![(1, b("t")), (2, scan)])
            .exception(1)
            .is_empty()
    );

    // timestamp 123 sees nothing; compat-0.90 openers and the prefix opener.
    let scan = Value::Struct(vec![(3, Value::I64(123))]);
    let id = c
        .call("scannerOpenWithScan", vec![(1, b("t")), (2, scan)])
        .success()
        .clone();
    assert!(
        rows(
            c.call("scannerGetList", vec![(1, id), (2, Value::I32(100))])
                .success()
        )
        .is_empty()
    );
    let count = |c: &mut Client, name: &str, args: Vec<(i16, Value)>| {
        let id = c.call(name, args).success().clone();
        rows(
            c.call("scannerGetList", vec![(1, id), (2, Value::I32(1000))])
                .success(),
        )
        .len()
    };
    assert_eq!(
        count(&mut c, "scannerOpen", vec![(1, b("t")), (2, b("row045"))]),
        5
    );
    assert_eq!(
        count(
            &mut c,
            "scannerOpenTs",
            vec![
                (1, b("t")),
                (2, b("row045")),
                (3, cols(&["cf:a"])),
                (4, Value::I64(i64::MAX))
            ]
        ),
        5
    );
    assert_eq!(
        count(
            &mut c,
            "scannerOpenWithStop",
            vec![(1, b("t")), (2, b("row001")), (3, b("row003"))]
        ),
        2
    );
    assert_eq!(
        count(
            &mut c,
            "scannerOpenWithStopTs",
            vec![
                (1, b("t")),
                (2, b("")),
                (3, b("row003")),
                (4, cols(&["cf"])),
                (5, Value::I64(1))
            ]
        ),
        0
    );
    assert_eq!(
        count(
            &mut c,
            "scannerOpenWithPrefix",
            vec![(1, b("t")), (2, b("row04"))]
        ),
        10
    );
}

#[test]
fn admin_calls_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let mut c = Client::connect(server.port, Transport::Framed, Protocol::Compact);
    create_table(&mut c, "t", &[("cf", 2)]).void();
    // Empty family name → IllegalArgument.
    let r = c.call(
        "createTable",
        vec![
            (1, b("u")),
            (
                2,
                Value::List(T_STRUCT, vec![Value::Struct(vec![(1, b(":"))])]),
            ),
        ],
    );
    assert_eq!(r.exception(2), "column name is empty");
    // Descriptors default VERSIONS 3 when maxVersions is omitted.
    let r = c.call(
        "createTable",
        vec![
            (1, b("d")),
            (
                2,
                Value::List(T_STRUCT, vec![Value::Struct(vec![(1, b("cf:"))])]),
            ),
        ],
    );
    r.void();
    let r = c.call("getColumnDescriptors", vec![(1, b("d"))]);
    let Value::Map(_, _, es) = r.success() else {
        panic!()
    };
    assert_eq!(es[0].0, b("cf:"));
    let Value::Struct(f) = &es[0].1 else { panic!() };
    assert!(f.contains(&(2, Value::I32(3))));
    assert!(f.contains(&(9, Value::I32(i32::MAX))), "TTL forever");

    assert_eq!(
        c.call("isTableEnabled", vec![(1, b("t"))]).success(),
        &Value::Bool(true)
    );
    assert!(
        c.call("deleteTable", vec![(1, b("t"))])
            .exception(1)
            .contains("TableNotDisabled")
    );
    c.call("disableTable", vec![(1, b("t"))]).void();
    assert_eq!(
        c.call("isTableEnabled", vec![(1, b("t"))]).success(),
        &Value::Bool(false)
    );
    // Reads of a disabled table fail with IOError.
    assert!(
        !c.call("getRow", vec![(1, b("t")), (2, b("r"))])
            .exception(1)
            .is_empty()
    );
    c.call("enableTable", vec![(1, b("t"))]).void();
    c.call("compact", vec![(1, b("t"))]).void();
    c.call("majorCompact", vec![(1, b("t"))]).void();

    let regions = c.call("getTableRegions", vec![(1, b("t"))]);
    let Value::List(_, rs) = regions.success() else {
        panic!()
    };
    assert_eq!(rs.len(), 1);
    let Value::Struct(ri) = &rs[0] else { panic!() };
    let Some((_, Value::Binary(name))) = ri.iter().find(|(i, _)| *i == 4) else {
        panic!()
    };
    c.call("compact", vec![(1, Value::Binary(name.clone()))])
        .void();
    assert!(
        !c.call("compact", vec![(1, b("nope"))])
            .exception(1)
            .is_empty()
    );
    let r = c.call("getRegionInfo", vec![(1, b("t,somerow,99999999999999"))]);
    let Value::Struct(f) = r.success() else {
        panic!()
    };
    assert!(f.contains(&(4, Value::Binary(name.clone()))));
    // Unknown table: an empty region list, an IOError elsewhere.
    assert_eq!(
        c.call("getTableRegions", vec![(1, b("nope"))]).success(),
        &Value::List(T_STRUCT, vec![])
    );
    assert!(
        !c.call("deleteTable", vec![(1, b("nope"))])
            .exception(1)
            .is_empty()
    );
    assert!(
        !c.call("getColumnDescriptors", vec![(1, b("nope"))])
            .exception(1)
            .is_empty()
    );

    c.call("disableTable", vec![(1, b("t"))]).void();
    c.call("deleteTable", vec![(1, b("t"))]).void();
    let names = c.call("getTableNames", vec![]);
    assert_eq!(names.success(), &Value::bin_list(["d"]));
    // Unknown method: TApplicationException UNKNOWN_METHOD, connection stays usable.
    match c.call("noSuchMethod", vec![(1, b("x"))]) {
        Reply::AppException(f) => assert!(f.contains(&(2, Value::I32(1)))),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        c.call("getThriftServerType", vec![]).success(),
        &Value::I32(1)
    );
}

#[test]
fn single_row_mutations_and_remaining_reads() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let mut c = Client::binary(server.port);
    create_table(&mut c, "t", &[("cf", 3)]).void();
    let ms = |list: Vec<Value>| Value::List(T_STRUCT, list);
    // mutateRowTs: a put at ts 100; a column without ':' is ignored here (not an error).
    c.call(
        "mutateRowTs",
        vec![
            (1, b("t")),
            (2, b("r")),
            (
                3,
                ms(vec![
                    mutation("cf:a", Some(b"100")),
                    mutation("cf", Some(b"ignored")),
                ]),
            ),
            (4, Value::I64(100)),
        ],
    )
    .void();
    c.call(
        "mutateRowTs",
        vec![
            (1, b("t")),
            (2, b("r")),
            (3, ms(vec![mutation("cf:a", Some(b"200"))])),
            (4, Value::I64(200)),
        ],
    )
    .void();
    // mutateRow: puts and deletes of one row in one call.
    c.call(
        "mutateRow",
        vec![
            (1, b("t")),
            (2, b("s")),
            (
                3,
                ms(vec![
                    mutation("cf:x", Some(b"gone")),
                    mutation("cf:y", Some(b"y")),
                ]),
            ),
        ],
    )
    .void();
    c.call(
        "mutateRow",
        vec![
            (1, b("t")),
            (2, b("s")),
            (
                3,
                ms(vec![
                    mutation("cf:z", Some(b"kept")),
                    mutation("cf:x", None),
                ]),
            ),
        ],
    )
    .void();
    let r = c.call("getRow", vec![(1, b("t")), (2, b("s"))]);
    let names: Vec<_> = rows(r.success())[0].1.iter().map(|x| x.0.clone()).collect();
    assert_eq!(names, vec![b"cf:y".to_vec(), b"cf:z".to_vec()]);
    // getRowTs / getRowsTs: [0, ts).
    let r = c.call(
        "getRowTs",
        vec![(1, b("t")), (2, b("r")), (3, Value::I64(200))],
    );
    assert_eq!(
        rows(r.success())[0].1,
        vec![(b"cf:a".to_vec(), b"100".to_vec(), 100)]
    );
    let r = c.call(
        "getRowsTs",
        vec![
            (1, b("t")),
            (2, Value::bin_list(["r", "s"])),
            (3, Value::I64(201)),
        ],
    );
    let got = rows(r.success());
    assert_eq!(got.len(), 1, "s was written now, after ts 201");
    assert_eq!(got[0].1[0].1, b"200");
    // deleteAllTs removes versions <= ts.
    c.call(
        "deleteAllTs",
        vec![
            (1, b("t")),
            (2, b("r")),
            (3, b("cf:a")),
            (4, Value::I64(100)),
        ],
    )
    .void();
    let r = c.call(
        "getVer",
        vec![(1, b("t")), (2, b("r")), (3, b("cf:a")), (4, Value::I32(5))],
    );
    assert_eq!(cells(r.success()), vec![(b"200".to_vec(), 200)]);
    // getRowOrBefore: the row itself or the one before it.
    let r = c.call(
        "getRowOrBefore",
        vec![(1, b("t")), (2, b("rz")), (3, b("cf"))],
    );
    assert_eq!(cells(r.success()), vec![(b"200".to_vec(), 200)]);
    let r = c.call(
        "getRowOrBefore",
        vec![(1, b("t")), (2, b("a")), (3, b("cf"))],
    );
    assert!(cells(r.success()).is_empty());
    // scannerGet returns one row at a time.
    let id = c
        .call("scannerOpen", vec![(1, b("t")), (2, b(""))])
        .success()
        .clone();
    assert_eq!(
        rows(c.call("scannerGet", vec![(1, id.clone())]).success()).len(),
        1
    );
    assert_eq!(
        rows(c.call("scannerGet", vec![(1, id.clone())]).success()).len(),
        1
    );
    assert!(rows(c.call("scannerGet", vec![(1, id)]).success()).is_empty());
    let r = c.call("getTableNamesWithIsTableEnabled", vec![]);
    assert_eq!(
        r.success(),
        &Value::Map(
            T_STRING,
            cellbase_cli::thrift::protocol::T_BOOL,
            vec![(b("t"), Value::Bool(true))]
        )
    );
}

/// Tables of a namespace (`ns:t`) work in every call, and `default:t` is `t` (HBase's
/// `TableName`); `getRows*` (read as one batch, `Table::get_many`) keep the request order and
/// leave out rows with nothing to return. Namespaces are made through the library: Thrift1
/// has no namespace calls.
#[test]
fn namespaced_tables_and_batch_reads() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = cellbase::Db::open(dir.path()).unwrap();
        db.create_namespace("ns").unwrap();
        db.close().unwrap();
    }
    let server = Server::start(dir.path());
    let mut c = Client::binary(server.port);
    create_table(&mut c, "ns:t", &[("cf", 1)]).void();
    create_table(&mut c, "default:plain", &[("cf", 1)]).void();
    assert_eq!(
        create_table(&mut c, "plain", &[("cf", 1)]).exception(3),
        "table name already in use"
    );
    assert!(
        create_table(&mut c, "missing:t", &[("cf", 1)])
            .exception(1)
            .contains("namespace not found: missing")
    );
    let names = c.call("getTableNames", vec![]);
    assert_eq!(names.success(), &Value::bin_list(["ns:t", "plain"]));
    for (table, row) in [("ns:t", "r1"), ("ns:t", "r3"), ("default:plain", "r2")] {
        c.call(
            "mutateRows",
            vec![
                (1, b(table)),
                (
                    2,
                    Value::List(
                        T_STRUCT,
                        vec![batch(
                            row.as_bytes(),
                            vec![mutation("cf:q", Some(table.as_bytes()))],
                        )],
                    ),
                ),
            ],
        )
        .void();
    }
    let r = c.call(
        "getRows",
        vec![(1, b("ns:t")), (2, cols(&["r3", "r2", "r1", "r3"]))],
    );
    let got: Vec<Vec<u8>> = rows(r.success()).into_iter().map(|(r, _)| r).collect();
    assert_eq!(got, [b"r3".to_vec(), b"r1".to_vec(), b"r3".to_vec()]);
    let r = c.call(
        "getRowsWithColumns",
        vec![
            (1, b("plain")),
            (2, cols(&["r1", "r2"])),
            (3, cols(&["cf:q"])),
        ],
    );
    assert_eq!(
        rows(r.success()),
        [(
            b"r2".to_vec(),
            vec![(
                b"cf:q".to_vec(),
                b"default:plain".to_vec(),
                rows(r.success())[0].1[0].2
            )]
        )]
    );
    let r = c.call("getRow", vec![(1, b("default:plain")), (2, b("r2"))]);
    assert_eq!(rows(r.success()).len(), 1);
    let id = c.call(
        "scannerOpen",
        vec![(1, b("ns:t")), (2, b("")), (3, cols(&["cf"]))],
    );
    let Value::I32(id) = *id.success() else {
        panic!("scanner id")
    };
    let r = c.call(
        "scannerGetList",
        vec![(1, Value::I32(id)), (2, Value::I32(10))],
    );
    assert_eq!(rows(r.success()).len(), 2);
    c.call("disableTable", vec![(1, b("ns:t"))]).void();
    c.call("deleteTable", vec![(1, b("ns:t"))]).void();
    c.call("disableTable", vec![(1, b("default:plain"))]).void();
    c.call("deleteTable", vec![(1, b("default:plain"))]).void();
    let names = c.call("getTableNames", vec![]);
    assert_eq!(names.success(), &Value::bin_list(Vec::<&str>::new()));
}
