//! `cellbase thrift2`: HBase 2.6's Thrift2 `THBaseService` admin over the wire (region
//! locations, tables, families, descriptors, namespaces, the 2.4+ extras), as
//! `ThriftHBaseServiceHandler` + `ThriftUtilities` run it, driven by the crate's own codec
//! against a real process. Rule IDs are /work/shared/hbase-semantics.md's.
mod thrift_common;

use cellbase_cli::thrift::protocol::{T_BOOL, T_STRING, Value};
use thrift_common::*;

#[test]
fn region_locations_name_the_gateway() {
    let (_dir, server, mut c) = start2();
    create(&mut c, "t", &[("cf", 1)], &["m"]);
    let r = c.call("getAllRegionLocations", vec![(1, b("t"))]);
    let Value::List(_, locs) = r.success() else {
        panic!()
    };
    assert_eq!(locs.len(), 2);
    for (loc, (start, end)) in locs.iter().zip([("", "m"), ("m", "")]) {
        let server_name = field(loc, 1).unwrap();
        assert_eq!(field(server_name, 1), Some(&b("127.0.0.1")));
        assert_eq!(
            field(server_name, 2),
            Some(&Value::I32(i32::from(server.port)))
        );
        let info = field(loc, 2).unwrap();
        assert_eq!(field(info, 2), Some(&b("t")));
        assert_eq!(
            (field(info, 3), field(info, 4)),
            (Some(&b(start)), Some(&b(end)))
        );
    }
    let r = c.call(
        "getRegionLocation",
        vec![(1, b("t")), (2, b("x")), (3, Value::Bool(false))],
    );
    let info = field(r.success(), 2).unwrap();
    assert_eq!(field(info, 3), Some(&b("m")));
    assert_eq!(field(info, 1), field(field(&locs[1], 2).unwrap(), 1));
}

#[test]
fn table_admin_and_descriptors() {
    let (_dir, _server, mut c) = start2();
    let name = || ttable_name("t");
    // [DESC-1] Every typed family field maps to a cellbase setting and back.
    let cf = st(vec![
        (1, b("cf")),
        (
            3,
            Value::Map(
                T_STRING,
                T_STRING,
                vec![(b("hbase.hregion.majorcompaction"), b("0"))],
            ),
        ),
        (4, Value::I32(16_384)),
        (5, Value::I32(2)),  // ROWCOL
        (6, Value::I32(1)),  // GZ
        (8, Value::I32(4)),  // FAST_DIFF
        (9, Value::I32(1)),  // KEEP_DELETED_CELLS TRUE
        (10, Value::I32(4)), // maxVersions
        (11, Value::I32(1)), // minVersions
        (13, Value::I32(86_400)),
        (14, Value::Bool(false)),
        (20, Value::Bool(true)),
    ]);
    let attrs = Value::Map(T_STRING, T_STRING, vec![(b("MAX_FILESIZE"), b("1048576"))]);
    let desc = st(vec![
        (1, name()),
        (2, list(vec![cf])),
        (3, attrs),
        (4, Value::I32(2)), // ASYNC_WAL
    ]);
    let keys = Value::bin_list(["g", "p"]);
    c.call("createTable", vec![(1, desc.clone()), (2, keys)])
        .void();
    // createTable of an existing table: a TIOError (the method declares no other).
    c.call("createTable", vec![(1, desc)]).exception(1);
    assert_eq!(
        c.call("tableExists", vec![(1, name())]).success(),
        &Value::Bool(true)
    );
    let d = c
        .call("getTableDescriptor", vec![(1, name())])
        .success()
        .clone();
    assert_eq!(
        field(&d, 1),
        Some(&st(vec![(1, b("default")), (2, b("t"))]))
    );
    assert_eq!(field(&d, 4), Some(&Value::I32(2)));
    let Some(Value::List(_, fams)) = field(&d, 2) else {
        panic!()
    };
    let f = &fams[0];
    for (id, want) in [
        (4, Value::I32(16_384)),
        (5, Value::I32(2)),
        (6, Value::I32(1)),
        (8, Value::I32(4)),
        (9, Value::I32(1)),
        (10, Value::I32(4)),
        (11, Value::I32(1)),
        (13, Value::I32(86_400)),
        (14, Value::Bool(false)),
        (20, Value::Bool(true)),
    ] {
        assert_eq!(field(f, id), Some(&want), "family field {id}");
    }
    let Some(Value::Map(_, _, conf)) = field(f, 3) else {
        panic!()
    };
    assert!(
        conf.contains(&(b("hbase.hregion.majorcompaction"), b("0"))),
        "{conf:?}"
    );
    let Some(Value::Map(_, _, attrs)) = field(&d, 3) else {
        panic!()
    };
    assert_eq!(attrs, &[(b("MAX_FILESIZE"), b("1048576"))]);
    let avail = |c: &mut Client, keys: &[&str]| {
        c.call(
            "isTableAvailableWithSplit",
            vec![(1, name()), (2, Value::bin_list(keys))],
        )
        .success()
        .clone()
    };
    assert_eq!(avail(&mut c, &["g", "p"]), Value::Bool(true));
    assert_eq!(avail(&mut c, &["g"]), Value::Bool(false));
    // Listings by pattern (a full match, as Java's Pattern.matches) and namespace.
    let names = |c: &mut Client, m: &str, arg: &str| {
        let r = c.call(m, vec![(1, b(arg)), (2, Value::Bool(false))]);
        let Value::List(_, l) = r.success() else {
            panic!()
        };
        l.len()
    };
    assert_eq!(names(&mut c, "getTableNamesByPattern", "t.*"), 1);
    assert_eq!(names(&mut c, "getTableNamesByPattern", "x"), 0);
    assert_eq!(names(&mut c, "getTableNamesByNamespace", "default"), 1);
    assert_eq!(names(&mut c, "getTableDescriptorsByPattern", "t"), 1);
    assert_eq!(
        names(&mut c, "getTableDescriptorsByNamespace", "default"),
        1
    );
    let r = c.call(
        "getTableDescriptors",
        vec![(1, list(vec![name(), ttable_name("nope")]))],
    );
    assert!(matches!(r.success(), Value::List(_, l) if l.len() == 1));
    // Families: add (not twice), modify (must exist), delete.
    let fam = |n: &str, v: i32| st(vec![(1, b(n)), (10, Value::I32(v))]);
    c.call("addColumnFamily", vec![(1, name()), (2, fam("cg", 1))])
        .void();
    let m = c
        .call("addColumnFamily", vec![(1, name()), (2, fam("cg", 1))])
        .exception(1);
    assert!(m.contains("already exists"), "{m}");
    c.call("modifyColumnFamily", vec![(1, name()), (2, fam("cg", 7))])
        .void();
    c.call("modifyColumnFamily", vec![(1, name()), (2, fam("zz", 1))])
        .exception(1);
    c.call("deleteColumnFamily", vec![(1, name()), (2, b("cg"))])
        .void();
    // modifyTable replaces the descriptor: cf goes, ch comes, the attributes and durability
    // go back to their defaults.
    let desc = st(vec![(1, name()), (2, list(vec![fam("ch", 2)]))]);
    c.call("modifyTable", vec![(1, desc)]).void();
    let d = c
        .call("getTableDescriptor", vec![(1, name())])
        .success()
        .clone();
    let Some(Value::List(_, fams)) = field(&d, 2) else {
        panic!()
    };
    assert_eq!(fams.len(), 1);
    assert_eq!(field(&fams[0], 1), Some(&b("ch")));
    assert_eq!(field(&d, 4), Some(&Value::I32(0)));
    // Enable, disable, truncate (disabled first; back enabled, splits kept or not), delete.
    put(
        &mut c,
        "t",
        tput(b"r", vec![tcolumn_value("ch", "q", b"v")]),
    );
    let is = |c: &mut Client, m: &str| c.call(m, vec![(1, name())]).success().clone();
    assert_eq!(is(&mut c, "isTableAvailable"), Value::Bool(true));
    let trunc = |c: &mut Client, keep: bool| {
        c.call("truncateTable", vec![(1, name()), (2, Value::Bool(keep))])
    };
    assert!(
        trunc(&mut c, true)
            .exception(1)
            .contains("TableNotDisabledException")
    );
    assert!(
        c.call("deleteTable", vec![(1, name())])
            .exception(1)
            .contains("disable")
    );
    c.call("disableTable", vec![(1, name())]).void();
    assert_eq!(is(&mut c, "isTableDisabled"), Value::Bool(true));
    assert_eq!(is(&mut c, "isTableAvailable"), Value::Bool(false));
    trunc(&mut c, true).void();
    assert_eq!(is(&mut c, "isTableEnabled"), Value::Bool(true));
    assert_eq!(qvt(&get(&mut c, "t", vec![(1, b("r"))])).len(), 0);
    let regions =
        |c: &mut Client| match c.call("getAllRegionLocations", vec![(1, b("t"))]).success() {
            Value::List(_, l) => l.len(),
            _ => panic!(),
        };
    assert_eq!(regions(&mut c), 3);
    c.call("disableTable", vec![(1, name())]).void();
    trunc(&mut c, false).void();
    assert_eq!(regions(&mut c), 1);
    c.call("disableTable", vec![(1, name())]).void();
    c.call("deleteTable", vec![(1, name())]).void();
    assert_eq!(is(&mut c, "tableExists"), Value::Bool(false));
    assert_eq!(is(&mut c, "isTableAvailable"), Value::Bool(false));
    c.call("isTableEnabled", vec![(1, name())]).exception(1);
}

#[test]
fn namespaces_slow_log_and_access_control() {
    let (_dir, _server, mut c) = start2();
    let conf = |kv: &[(&str, &str)]| {
        Value::Map(
            T_STRING,
            T_STRING,
            kv.iter().map(|(k, v)| (b(k), b(v))).collect(),
        )
    };
    let nsd = |kv: &[(&str, &str)]| st(vec![(1, b("ns")), (2, conf(kv))]);
    c.call("createNamespace", vec![(1, nsd(&[("k", "v")]))])
        .void();
    c.call("createNamespace", vec![(1, nsd(&[]))]).exception(1);
    let r = c.call("getNamespaceDescriptor", vec![(1, b("ns"))]);
    assert_eq!(r.success(), &nsd(&[("k", "v")]));
    // modifyNamespace replaces the configuration.
    c.call("modifyNamespace", vec![(1, nsd(&[("k2", "v2")]))])
        .void();
    let r = c.call("getNamespaceDescriptor", vec![(1, b("ns"))]);
    assert_eq!(r.success(), &nsd(&[("k2", "v2")]));
    let r = c.call("listNamespaceDescriptors", vec![]);
    assert!(matches!(r.success(), Value::List(_, l) if l.len() == 3));
    // A table in the namespace, by `ns:t` and by TTableName.
    let tn = st(vec![(1, b("ns")), (2, b("t"))]);
    let cf = st(vec![(1, b("cf"))]);
    let desc = st(vec![(1, tn.clone()), (2, list(vec![cf]))]);
    c.call("createTable", vec![(1, desc)]).void();
    put(
        &mut c,
        "ns:t",
        tput(b"r", vec![tcolumn_value("cf", "q", b"v")]),
    );
    assert_eq!(qvt(&get(&mut c, "ns:t", vec![(1, b("r"))])).len(), 1);
    let r = c.call("getTableNamesByNamespace", vec![(1, b("ns"))]);
    assert_eq!(r.success(), &list(vec![tn.clone()]));
    c.call("deleteNamespace", vec![(1, b("ns"))]).exception(1);
    c.call("disableTable", vec![(1, tn.clone())]).void();
    c.call("deleteTable", vec![(1, tn)]).void();
    c.call("deleteNamespace", vec![(1, b("ns"))]).void();
    c.call("getNamespaceDescriptor", vec![(1, b("ns"))])
        .exception(1);
    // The 2.4+ extras: no slow log; access control as on an HBase without AccessController.
    let r = c.call("getSlowLogResponses", vec![]);
    assert_eq!(r.success(), &list(vec![]));
    let r = c.call("clearSlowLogResponses", vec![]);
    assert_eq!(r.success(), &Value::List(T_BOOL, vec![Value::Bool(true)]));
    for m in ["grant", "revoke", "getUserPermission"] {
        let e = c.call(m, vec![]).exception(1);
        assert!(e.contains("AccessController is not loaded"), "{m}: {e}");
    }
}
