//! The Thrift1 gateway's `ColumnDescriptor` mapping (HBase's `ThriftUtilities.colDescFromThrift`
//! and `colDescFromHbase`): codec and Bloom filter names over the wire, against a real
//! `cellbase thrift` process.
mod thrift_common;

use cellbase_cli::thrift::protocol::{Protocol, T_STRUCT, Value};
use cellbase_cli::thrift::transport::Transport;
use thrift_common::*;

/// `ColumnDescriptor.compression` takes HBase's codec names (any case); LZO and BZIP2 are
/// stored as LZ4 and GZ, and `getColumnDescriptors` returns the codec stored; other names are
/// `IllegalArgument`.
#[test]
fn column_descriptor_compression_names() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let mut c = Client::connect(server.port, Transport::Framed, Protocol::Compact);
    let fam = |name: &str, codec: &str| Value::Struct(vec![(1, b(name)), (3, b(codec))]);
    let given = [
        ("a:", "GZ", "GZ"),
        ("b:", "lz4", "LZ4"),
        ("c:", "ZSTD", "ZSTD"),
        ("d:", "SNAPPY", "SNAPPY"),
        ("e:", "LZO", "LZ4"),
        ("f:", "BZIP2", "GZ"),
        ("g:", "NONE", "NONE"),
    ];
    c.call(
        "createTable",
        vec![
            (1, b("codecs")),
            (
                2,
                Value::List(T_STRUCT, given.iter().map(|(n, g, _)| fam(n, g)).collect()),
            ),
        ],
    )
    .void();
    let r = c.call("getColumnDescriptors", vec![(1, b("codecs"))]);
    let Value::Map(_, _, es) = r.success() else {
        panic!()
    };
    for (name, _, stored) in given {
        let (_, d) = es.iter().find(|(k, _)| *k == b(name)).unwrap();
        let Value::Struct(f) = d else { panic!() };
        assert!(f.contains(&(3, b(stored))), "{name}: {f:?}");
    }
    let r = c.call(
        "createTable",
        vec![
            (1, b("bad")),
            (2, Value::List(T_STRUCT, vec![fam("x:", "LZMA")])),
        ],
    );
    assert!(r.exception(2).contains("COMPRESSION LZMA"), "{r:?}");
}

/// [BLOOM-5] `ColumnDescriptor.bloomFilterType` (field 5) is HBase's `BloomType` name:
/// `getColumnDescriptors` names a ROWPREFIX_FIXED_LENGTH family so; `createTable` takes NONE,
/// ROW and ROWCOL, and refuses ROWPREFIX_FIXED_LENGTH as HBase does (Thrift1 has no family
/// CONFIGURATION for its prefix length, so HBase's table sanity check fails) and
/// ROWPREFIX_DELIMITED (not in HBase 2.6).
#[test]
fn column_descriptor_bloom_filter_names() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = cellbase::Db::open(dir.path()).unwrap();
        db.create_table(
            cellbase::TableDescriptor::new("pre").family(
                cellbase::FamilyDescriptor::new("p")
                    .bloom_filter(cellbase::BloomType::RowPrefixFixedLength(4)),
            ),
        )
        .unwrap();
        db.close().unwrap();
    }
    let server = Server::start(dir.path());
    let mut c = Client::binary(server.port);
    let bloom_of = |c: &mut Client, table: &str, family: &str| {
        let r = c.call("getColumnDescriptors", vec![(1, b(table))]);
        let Value::Map(_, _, es) = r.success() else {
            panic!()
        };
        let (_, d) = es.iter().find(|(k, _)| *k == b(family)).unwrap();
        let Value::Struct(f) = d else { panic!() };
        f.iter().find(|(id, _)| *id == 5).map(|(_, v)| v.clone())
    };
    assert_eq!(
        bloom_of(&mut c, "pre", "p:"),
        Some(b("ROWPREFIX_FIXED_LENGTH"))
    );
    let fam = |name: &str, bloom: &str| Value::Struct(vec![(1, b(name)), (5, b(bloom))]);
    c.call(
        "createTable",
        vec![
            (1, b("blooms")),
            (
                2,
                Value::List(
                    T_STRUCT,
                    vec![fam("a:", "NONE"), fam("b:", "row"), fam("c:", "ROWCOL")],
                ),
            ),
        ],
    )
    .void();
    for (f, want) in [("a:", "NONE"), ("b:", "ROW"), ("c:", "ROWCOL")] {
        assert_eq!(bloom_of(&mut c, "blooms", f), Some(b(want)), "{f}");
    }
    for (bloom, want) in [
        (
            "ROWPREFIX_FIXED_LENGTH",
            "RowPrefixBloomFilter.prefix_length not specified",
        ),
        ("ROWPREFIX_DELIMITED", "HBASE-21922"),
    ] {
        let r = c.call(
            "createTable",
            vec![
                (1, b("bad")),
                (2, Value::List(T_STRUCT, vec![fam("x:", bloom)])),
            ],
        );
        assert!(r.exception(2).contains(want), "{bloom}: {r:?}");
    }
}
