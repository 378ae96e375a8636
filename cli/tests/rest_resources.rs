//! `cellbase rest` resources against a real gateway process, after HBase's own REST tests
//! (`TestVersionResource`, `TestTableResource`, `TestSchemaResource`, `TestGetAndPutResource`,
//! `TestDeleteRow`, `TestMultiRowResource`, `TestScannerResource`, `TestNamespacesResource`):
//! status codes, JSON and XML bodies with base64, RowSpec paths, versions and timestamps.
mod rest_common;

use rest_common::*;

const J: &str = "application/json";
const X: &str = "text/xml";

#[test]
fn version_and_cluster_resources() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path());
    // TestVersionResource: text, XML and JSON forms of the same model.
    let t = s.get("/version", "text/plain");
    assert_eq!(t.status, 200);
    assert!(t.text().starts_with("rest 0.0.3 [JVM: "), "{}", t.text());
    let x = s.get("/version", X);
    assert_eq!(x.header("content-type"), Some("text/xml"));
    assert!(x.text().contains("<Version REST=\"0.0.3\""), "{}", x.text());
    let j = s.get("/version", J).json();
    assert_eq!(j["REST"], "0.0.3");
    assert!(j["Server"].as_str().unwrap().starts_with("cellbase/"));
    let cv = s.get("/version/cluster", J).json();
    assert!(cv["Version"].as_str().unwrap().starts_with("2.6.0"));
    let x = s.get("/version/cluster", X).text();
    assert!(x.contains("<ClusterVersion Version=\"2.6.0"), "{x}");
    // StorageClusterStatusModel: one live node holding every region.
    create_table(&s, "t", &["f"]);
    let st = s.get("/status/cluster", J).json();
    assert_eq!(st["regions"], 1);
    assert_eq!(st["LiveNodes"].as_array().unwrap().len(), 1);
    assert_eq!(st["DeadNodes"].as_array().unwrap().len(), 0);
    let region = &st["LiveNodes"][0]["Region"][0];
    assert!(
        String::from_utf8(unb64(region["name"].as_str().unwrap()))
            .unwrap()
            .starts_with("t,")
    );
    // Protobuf is not served: 406.
    assert_eq!(s.get("/version", "application/x-protobuf").status, 406);
}

#[test]
fn table_list_schema_and_regions() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path());
    // TestSchemaResource: PUT creates (201), GET reads, POST adds a family (200), DELETE drops.
    let xml = r#"<TableSchema name="t1"><ColumnSchema name="a" VERSIONS="5" TTL="86400" BLOOMFILTER="ROWCOL"/></TableSchema>"#;
    let r = s.send("PUT", "/t1/schema", X, xml);
    assert_eq!(r.status, 201, "{}", r.text());
    let again = s.send("PUT", "/t1/schema", X, xml);
    assert_eq!(again.status, 200, "PUT on an existing table replaces it");
    let j = s.get("/t1/schema", J).json();
    assert_eq!(j["name"], "t1");
    assert_eq!(j["IS_META"], "false");
    let a = &j["ColumnSchema"][0];
    assert_eq!(a["name"], "a");
    assert_eq!(a["VERSIONS"], "5");
    assert_eq!(a["TTL"], "86400");
    assert_eq!(a["BLOOMFILTER"], "ROWCOL");
    let r = s.send(
        "POST",
        "/t1/schema",
        J,
        r#"{"name":"t1","ColumnSchema":[{"name":"b","VERSIONS":"2"}]}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let x = s.get("/t1/schema", X).text();
    assert!(x.contains(r#"<ColumnSchema name="a""#), "{x}");
    assert!(x.contains(r#"<ColumnSchema name="b""#), "{x}");
    // PUT replaces: families not named are dropped.
    let r = s.send(
        "PUT",
        "/t1/schema",
        J,
        r#"{"name":"t1","ColumnSchema":[{"name":"b"}]}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let j = s.get("/t1/schema", J).json();
    assert_eq!(j["ColumnSchema"].as_array().unwrap().len(), 1);
    assert_eq!(j["ColumnSchema"][0]["name"], "b");
    // An attribute cellbase cannot honour is refused, not dropped.
    let r = s.send(
        "POST",
        "/t1/schema",
        J,
        r#"{"name":"t1","ColumnSchema":[{"name":"b","MOB_THRESHOLD":"10"}]}"#,
    );
    assert_eq!(r.status, 400, "{}", r.text());
    // TestTableResource: the list in text, XML and JSON.
    create_table(&s, "t2", &["f"]);
    assert_eq!(s.get("/", "text/plain").text(), "t1\nt2\n");
    assert_eq!(
        s.get("/", J).json(),
        serde_json::json!({"table": [{"name": "t1"}, {"name": "t2"}]})
    );
    assert!(
        s.get("/", X)
            .text()
            .contains(r#"<TableList><table name="t1"/><table name="t2"/></TableList>"#)
    );
    // Regions: TableInfoModel with base64 keys.
    let reg = s.get("/t1/regions", J).json();
    assert_eq!(reg["name"], "t1");
    assert_eq!(reg["Region"][0]["startKey"], "");
    assert!(
        reg["Region"][0]["location"]
            .as_str()
            .unwrap()
            .starts_with("localhost:")
    );
    assert_eq!(s.get("/nope/regions", J).status, 404);
    assert_eq!(s.get("/nope/schema", J).status, 404);
    // DELETE drops the table (disabling it first, as HBase's SchemaResource does).
    assert_eq!(s.req("DELETE", "/t2/schema", &[], b"").status, 200);
    assert_eq!(s.get("/t2/schema", J).status, 404);
    assert_eq!(s.req("DELETE", "/t2/schema", &[], b"").status, 404);
}

#[test]
fn rows_put_get_delete_with_versions_and_timestamps() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path());
    create_table(&s, "t", &["a", "b"]);
    // TestGetAndPutResource: a JSON cell set with explicit timestamps.
    let body = cellset(
        "r1",
        &[
            ("a:1", Some(10), "v10"),
            ("a:1", Some(20), "v20"),
            ("b:x", Some(5), "bx"),
        ],
    );
    let r = s.send("PUT", "/t/r1", J, &body);
    assert_eq!(r.status, 200, "{}", r.text());
    // Newest version of every column by default.
    let got = cells_of(&s.get("/t/r1", J).json());
    assert_eq!(
        got,
        vec![
            ("r1".into(), "a:1".into(), 20, "v20".into()),
            ("r1".into(), "b:x".into(), 5, "bx".into()),
        ]
    );
    // ?v= versions; one column; a family.
    let got = cells_of(&s.get("/t/r1/a:1?v=2", J).json());
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].2, 20);
    assert_eq!(got[1].2, 10);
    assert_eq!(cells_of(&s.get("/t/r1/b", J).json()).len(), 1);
    // RowSpec timestamps: one timestamp is that version; `start,end` is [start, end).
    let got = cells_of(&s.get("/t/r1/a:1/10", J).json());
    assert_eq!(got, vec![("r1".into(), "a:1".into(), 10, "v10".into())]);
    let got = cells_of(&s.get("/t/r1/a:1/5,20?v=5", J).json());
    assert_eq!(got, vec![("r1".into(), "a:1".into(), 10, "v10".into())]);
    // RowSpec.hasTimestamp's quirk: a range starting at 0 is read as the exact end timestamp.
    let got = cells_of(&s.get("/t/r1/a:1/0,20?v=5", J).json());
    assert_eq!(got, vec![("r1".into(), "a:1".into(), 20, "v20".into())]);
    assert_eq!(s.get("/t/r1/a:1/15", J).status, 404);
    // XML form of the same cell set.
    let x = s.get("/t/r1/b:x", X).text();
    assert!(
        x.ends_with(&format!(
            r#"<CellSet><Row key="{}"><Cell column="{}" timestamp="5">{}</Cell></Row></CellSet>"#,
            b64(b"r1"),
            b64(b"b:x"),
            b64(b"bx")
        )),
        "{x}"
    );
    // Binary: one column's newest value raw, with X-Timestamp.
    let raw = s.get("/t/r1/a:1", "application/octet-stream");
    assert_eq!(raw.status, 200);
    assert_eq!(raw.body, b"v20");
    assert_eq!(raw.header("x-timestamp"), Some("20"));
    // Binary put: the URL names row and column, X-Timestamp the version.
    let r = s.req(
        "PUT",
        "/t/r2/a:bin",
        &[
            ("Content-Type", "application/octet-stream"),
            ("X-Timestamp", "7"),
        ],
        &[0, 1, 2, 255],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let raw = s.get("/t/r2/a:bin", "application/octet-stream");
    assert_eq!(raw.body, vec![0, 1, 2, 255]);
    assert_eq!(raw.header("x-timestamp"), Some("7"));
    // An XML cell set put (POST works as PUT), row key from the body.
    let xml = format!(
        r#"<CellSet><Row key="{}"><Cell column="{}">{}</Cell></Row></CellSet>"#,
        b64(b"r3"),
        b64(b"b:y"),
        b64(b"hello & <xml>")
    );
    assert_eq!(s.send("POST", "/t/ignored", X, &xml).status, 200);
    let got = cells_of(&s.get("/t/r3", J).json());
    assert_eq!(got[0].3, "hello & <xml>");
    // TestDeleteRow: a column's versions up to a timestamp, a column, a row.
    assert_eq!(s.req("DELETE", "/t/r1/a:1/10", &[], b"").status, 200);
    let got = cells_of(&s.get("/t/r1/a:1?v=5", J).json());
    assert_eq!(got, vec![("r1".into(), "a:1".into(), 20, "v20".into())]);
    assert_eq!(s.req("DELETE", "/t/r1/a:1", &[], b"").status, 200);
    assert_eq!(s.get("/t/r1/a:1", J).status, 404);
    assert_eq!(s.get("/t/r1", J).status, 200, "b:x is still there");
    assert_eq!(s.req("DELETE", "/t/r1", &[], b"").status, 200);
    assert_eq!(s.get("/t/r1", J).status, 404);
    // Errors (ResourceBase.processException): unknown table or family 404, no qualifier
    // 400, bad body 400, unsupported media type 415.
    assert_eq!(
        s.send("PUT", "/nope/r", J, &cellset("r", &[("a:1", None, "v")]))
            .status,
        404
    );
    assert_eq!(
        s.send("PUT", "/t/r", J, &cellset("r", &[("zz:1", None, "v")]))
            .status,
        404
    );
    assert_eq!(
        s.send("PUT", "/t/r", J, &cellset("r", &[("a", None, "v")]))
            .status,
        400
    );
    assert_eq!(s.send("PUT", "/t/r", J, "{not json").status, 400);
    assert_eq!(
        s.send("PUT", "/t/r", "application/x-protobuf", "x").status,
        415
    );
    assert_eq!(s.get("/t/r1/a:1/notanumber", J).status, 400);
}

#[test]
fn multiget_globs_and_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path());
    create_table(&s, "t", &["f"]);
    for (row, v) in [("k1", "1"), ("k2", "2"), ("k3", "3"), ("m1", "4")] {
        let r = s.send(
            "PUT",
            &format!("/t/{row}"),
            J,
            &cellset(row, &[("f:c", Some(1), v)]),
        );
        assert_eq!(r.status, 200);
    }
    // TestMultiRowResource: found rows only; none found is 404.
    let got = cells_of(&s.get("/t/multiget?row=k1&row=nope&row=m1", J).json());
    let rows: Vec<&str> = got.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(rows, ["k1", "m1"]);
    assert_eq!(s.get("/t/multiget?row=nope", J).status, 404);
    // Each `row` is a RowSpec: a column may follow.
    assert_eq!(
        cells_of(&s.get("/t/multiget?row=k2/f:c", J).json()).len(),
        1
    );
    // RowSpec's suffix glob and `start,end` range.
    let got = cells_of(&s.get("/t/k*", J).json());
    assert_eq!(
        got.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(),
        ["k1", "k2", "k3"]
    );
    let got = cells_of(&s.get("/t/k2,m1", J).json());
    assert_eq!(
        got.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(),
        ["k2", "k3"]
    );
}

#[test]
fn scanners_batch_filter_and_close() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path());
    create_table(&s, "t", &["f"]);
    for i in 0..10 {
        let row = format!("row{i}");
        let body = cellset(
            &row,
            &[("f:a", Some(1), "x"), ("f:b", Some(1), &format!("v{i}"))],
        );
        assert_eq!(s.send("PUT", &format!("/t/{row}"), J, &body).status, 200);
    }
    // TestScannerResource: batch 3 cells per GET, 204 when exhausted.
    let r = s.send("PUT", "/t/scanner", X, r#"<Scanner batch="3"/>"#);
    assert_eq!(r.status, 201, "{}", r.text());
    let loc = r.header("location").unwrap().to_string();
    let path = loc
        .split_once("127.0.0.1")
        .unwrap()
        .1
        .split_once('/')
        .unwrap()
        .1;
    let path = format!("/{path}");
    let mut total = 0;
    loop {
        let g = s.get(&path, J);
        if g.status == 204 {
            break;
        }
        assert_eq!(g.status, 200);
        let n = cells_of(&g.json()).len();
        assert!(n <= 3 && n > 0, "batch of {n}");
        total += n;
    }
    assert_eq!(total, 20);
    assert_eq!(s.req("DELETE", &path, &[], b"").status, 200);
    assert_eq!(s.get(&path, J).status, 404);
    // A JSON scanner model with a start/end row, a column and a FilterModel filter.
    let model = format!(
        r#"{{"startRow":"{}","endRow":"{}","column":["{}"],"batch":100,"filter":"{{\"type\":\"ValueFilter\",\"op\":\"NOT_EQUAL\",\"comparator\":{{\"type\":\"BinaryComparator\",\"value\":\"{}\"}}}}"}}"#,
        b64(b"row2"),
        b64(b"row6"),
        b64(b"f:b"),
        b64(b"v4")
    );
    let r = s.send("POST", "/t/scanner", J, &model);
    assert_eq!(r.status, 201, "{}", r.text());
    let loc = r.header("location").unwrap();
    let path = format!("/t/scanner/{}", loc.rsplit('/').next().unwrap());
    let got = cells_of(&s.get(&path, J).json());
    let vals: Vec<&str> = got.iter().map(|c| c.3.as_str()).collect();
    assert_eq!(vals, ["v2", "v3", "v5"]);
    assert_eq!(s.get(&path, J).status, 204);
    // ?n= limits rows per GET; the binary form returns one cell with X-Row/X-Column.
    let r = s.send("PUT", "/t/scanner", X, "<Scanner/>");
    let path = format!(
        "/t/scanner/{}",
        r.header("location").unwrap().rsplit('/').next().unwrap()
    );
    let got = cells_of(&s.get(&format!("{path}?n=2"), J).json());
    assert_eq!(got.len(), 4, "two rows of two cells");
    let b = s.get(&path, "application/octet-stream");
    assert_eq!(b.status, 200);
    assert_eq!(unb64(b.header("x-row").unwrap()), b"row2");
    assert_eq!(unb64(b.header("x-column").unwrap()), b"f:a");
    // The filter language is accepted too (a cellbase extension).
    let r = s.send(
        "PUT",
        "/t/scanner",
        X,
        "<Scanner><filter>PrefixFilter('row9')</filter></Scanner>",
    );
    let path = format!(
        "/t/scanner/{}",
        r.header("location").unwrap().rsplit('/').next().unwrap()
    );
    assert_eq!(cells_of(&s.get(&path, J).json()).len(), 2);
    // starbase's "no settings" body, a JSON empty string, is the default model.
    assert_eq!(s.send("PUT", "/t/scanner", J, "\"\"").status, 201);
    // Bad models: 400; unknown table: 404.
    assert_eq!(
        s.send("PUT", "/t/scanner", X, "<Scanner batch=\"x\"/>")
            .status,
        400
    );
    assert_eq!(
        s.send(
            "PUT",
            "/t/scanner",
            J,
            r#"{"filter":"{\"type\":\"NoSuchFilter\"}"}"#
        )
        .status,
        400
    );
    assert_eq!(s.send("PUT", "/nope/scanner", X, "<Scanner/>").status, 404);
}

#[test]
fn namespaces_and_namespaced_tables() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path());
    // TestNamespacesResource / TestNamespacesInstanceResource.
    assert_eq!(
        s.get("/namespaces", J).json(),
        serde_json::json!({"Namespace": ["default", "hbase"]})
    );
    assert_eq!(s.req("POST", "/namespaces/ns1", &[], b"").status, 201);
    assert_eq!(s.req("POST", "/namespaces/ns1", &[], b"").status, 403);
    let r = s.send(
        "PUT",
        "/namespaces/ns1",
        J,
        r#"{"properties":{"owner":"me"}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        s.get("/namespaces/ns1", J).json(),
        serde_json::json!({"properties": {"owner": "me"}})
    );
    assert!(
        s.get("/namespaces/ns1", X)
            .text()
            .contains("<entry><key>owner</key><value>me</value></entry>")
    );
    assert_eq!(s.req("PUT", "/namespaces/ns2", &[], b"").status, 403);
    assert_eq!(s.get("/namespaces/ns2", J).status, 404);
    // A namespaced table, its colon URL-encoded.
    create_table(&s, "ns1:t", &["f"]);
    assert_eq!(
        s.send(
            "PUT",
            "/ns1%3At/r",
            J,
            &cellset("r", &[("f:q", Some(3), "v")])
        )
        .status,
        200
    );
    assert_eq!(cells_of(&s.get("/ns1%3At/r", J).json())[0].3, "v");
    assert_eq!(
        s.get("/ns1:t/r", J).status,
        200,
        "an unencoded colon works too"
    );
    assert_eq!(
        s.get("/namespaces/ns1/tables", J).json(),
        serde_json::json!({"table": [{"name": "t"}]})
    );
    assert_eq!(s.get("/", "text/plain").text(), "ns1:t\n");
    // A namespace holding tables is not dropped (HBase's ConstraintException: 503).
    assert_eq!(s.req("DELETE", "/namespaces/ns1", &[], b"").status, 503);
    assert_eq!(s.req("DELETE", "/ns1%3At/schema", &[], b"").status, 200);
    assert_eq!(s.req("DELETE", "/namespaces/ns1", &[], b"").status, 200);
    assert_eq!(s.req("DELETE", "/namespaces/ns1", &[], b"").status, 404);
}

#[test]
fn check_and_put_and_check_and_delete() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path());
    create_table(&s, "t", &["f"]);
    assert_eq!(
        s.send("PUT", "/t/r", J, &cellset("r", &[("f:a", Some(1), "old")]))
            .status,
        200
    );
    // TestGetAndPutResource.testSingleCellGetPutXML's check=put: the last cell is the check.
    let wrong = cellset("r", &[("f:a", None, "new"), ("f:a", None, "nope")]);
    assert_eq!(s.send("PUT", "/t/r?check=put", J, &wrong).status, 304);
    let right = cellset("r", &[("f:a", Some(2), "new"), ("f:a", None, "old")]);
    assert_eq!(s.send("PUT", "/t/r?check=put", J, &right).status, 200);
    assert_eq!(cells_of(&s.get("/t/r/f:a", J).json())[0].3, "new");
    // The put must write the checked column.
    let other = cellset("r", &[("f:b", None, "x"), ("f:a", None, "new")]);
    assert_eq!(s.send("PUT", "/t/r?check=put", J, &other).status, 400);
    // check=delete: the check cell alone deletes its column when it matches.
    let del = cellset("r", &[("f:a", None, "nope")]);
    assert_eq!(s.send("PUT", "/t/r?check=delete", J, &del).status, 304);
    let del = cellset("r", &[("f:a", None, "new")]);
    assert_eq!(s.send("PUT", "/t/r?check=delete", J, &del).status, 200);
    assert_eq!(s.get("/t/r/f:a", J).status, 404);
    assert_eq!(s.send("PUT", "/t/r?check=increment", J, &del).status, 400);
}
