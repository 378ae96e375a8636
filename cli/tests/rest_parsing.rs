//! The REST gateway's parsers without a server: HBase's `RowSpec` path grammar (after
//! `TestRowResource`'s paths and `RowSpec`'s own rules), the scanner filter's JSON
//! `FilterModel`, and the bounded XML reader on hostile input (typed errors, never a panic).
use cellbase::{Comparator, CompareOp, Filter};
use cellbase_cli::rest::filter;
use cellbase_cli::rest::model::{Format, decode_cellset, parse_xml};
use cellbase_cli::rest::rows::RowSpec;

#[test]
fn rowspec_rows_columns_and_timestamps() {
    let s = RowSpec::parse("row1").unwrap();
    assert_eq!(s.row, b"row1");
    assert_eq!(s.end_row, None);
    assert!(s.columns.is_empty());
    assert_eq!(s.timestamp(), None);
    // Columns are decoded, sorted and deduplicated (HBase keeps them in a TreeSet).
    let s = RowSpec::parse("r/f:b,f:a,f:b,g").unwrap();
    assert_eq!(
        s.columns,
        vec![b"f:a".to_vec(), b"f:b".to_vec(), b"g".to_vec()]
    );
    // One timestamp: that version; a range: [start, end); a range from 0: exact end.
    let s = RowSpec::parse("r/f:a/42").unwrap();
    assert_eq!(s.timestamp(), Some(42));
    let s = RowSpec::parse("r/f:a/5,9").unwrap();
    assert_eq!((s.start_time, s.end_time, s.timestamp()), (5, 9, None));
    let s = RowSpec::parse("r/f:a/0,9").unwrap();
    assert_eq!(s.timestamp(), Some(9));
    // URLDecoder: %XX bytes and '+' as a space; binary keys survive.
    let s = RowSpec::parse("a%2Fb+c%00%FF").unwrap();
    assert_eq!(s.row, b"a/b c\x00\xff");
    // A range and a suffix glob.
    let s = RowSpec::parse("a,m").unwrap();
    assert_eq!(
        (s.row.as_slice(), s.end_row.as_deref()),
        (&b"a"[..], Some(&b"m"[..]))
    );
    let s = RowSpec::parse("pre*").unwrap();
    assert_eq!(s.row, b"pre");
    assert_eq!(s.end_row.as_deref(), Some(&b"pre\xff"[..]));
    // Errors, not panics.
    for bad in ["", "a*,b", "r/f:a/notanumber", "r/f:a/1,x", "r/,f:a"] {
        assert!(RowSpec::parse(bad).is_err(), "{bad:?} should be refused");
    }
}

#[test]
fn filter_models_map_onto_cellbase_filters() {
    let f = filter::parse(r#"{"type":"PrefixFilter","value":"cm93"}"#).unwrap();
    assert_eq!(f, Filter::Prefix(b"row".to_vec()));
    let f = filter::parse(
        r#"{"type":"FilterList","op":"MUST_PASS_ONE","filters":[
            {"type":"RowFilter","op":"LESS","comparator":{"type":"BinaryComparator","value":"bQ=="}},
            {"type":"ValueFilter","op":"EQUAL","comparator":{"type":"SubstringComparator","value":"x"}}]}"#,
    )
    .unwrap();
    assert_eq!(
        f,
        Filter::Any(vec![
            Filter::Row(CompareOp::Less, Comparator::Binary(b"m".to_vec())),
            Filter::Value(CompareOp::Equal, Comparator::Substring("x".into())),
        ])
    );
    // SingleColumnValueFilter's defaults: ifMissing false, latestVersion true.
    let f = filter::parse(
        r#"{"type":"SingleColumnValueFilter","op":"EQUAL","family":"Zg==","qualifier":"cQ==","comparator":{"type":"BinaryComparator","value":"MQ=="}}"#,
    )
    .unwrap();
    assert!(matches!(
        f,
        Filter::SingleColumnValue {
            filter_if_missing: false,
            latest_version_only: true,
            ..
        }
    ));
    // The filter language is accepted too.
    assert_eq!(
        filter::parse("PrefixFilter('ab')").unwrap(),
        Filter::Prefix(b"ab".to_vec())
    );
    // Bad models are errors: unknown type, bad base64, missing fields, too deep.
    for bad in [
        r#"{"type":"NoSuch"}"#,
        r#"{"type":"PrefixFilter","value":"***"}"#,
        r#"{"type":"RowFilter","op":"EQUAL"}"#,
        r#"{"type":"RowFilter","op":"SIDEWAYS","comparator":{"type":"BinaryComparator","value":""}}"#,
        r#"["not", "an", "object"]"#,
        "{",
    ] {
        assert!(filter::parse(bad).is_err(), "{bad} should be refused");
    }
    let mut deep = String::from(r#"{"type":"KeyOnlyFilter"}"#);
    for _ in 0..200 {
        deep = format!(r#"{{"type":"SkipFilter","filters":[{deep}]}}"#);
    }
    assert!(filter::parse(&deep).is_err());
}

#[test]
fn xml_reader_is_bounded_and_typed() {
    let e =
        parse_xml(br#"<CellSet><Row key="cg=="><Cell column="Zjpx">dg==</Cell></Row></CellSet>"#)
            .unwrap();
    assert_eq!(e.name, "CellSet");
    let rows = decode_cellset(
        br#"<?xml version="1.0"?><CellSet><Row key="cg=="><Cell column="Zjpx" timestamp="7">dg==</Cell></Row></CellSet>"#,
        Format::Xml,
    )
    .unwrap();
    assert_eq!(rows[0].key.as_deref(), Some(&b"r"[..]));
    assert_eq!(rows[0].cells[0].timestamp, Some(7));
    assert_eq!(rows[0].cells[0].value, b"v");
    // Hostile documents: errors, never panics or unbounded recursion.
    let deep = "<a>".repeat(10_000) + &"</a>".repeat(10_000);
    assert!(parse_xml(deep.as_bytes()).is_err());
    assert!(parse_xml(b"<!DOCTYPE x [<!ENTITY e \"boom\">]><x>&e;</x>").is_err());
    assert!(parse_xml(b"<a><b></a>").is_err());
    assert!(parse_xml(b"").is_err());
    assert!(parse_xml(b"<a/><b/>").is_err());
    assert!(decode_cellset(b"<CellSet><Row key='%%'/></CellSet>", Format::Xml).is_err());
    assert!(
        decode_cellset(b"{\"Row\":[{\"key\":1}]}", Format::Json).is_ok_and(|r| r[0].key.is_none())
    );
    assert!(decode_cellset(b"{\"Row\":\"x\"}", Format::Json).is_err());
}
