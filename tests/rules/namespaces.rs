//! Namespaces, after HBase's `TestNamespace` (hbase-server/src/test/.../TestNamespace.java):
//! create, list, drop; a non-empty namespace is not dropped; the reserved namespaces;
//! `default:t` is `t`; a table in a missing namespace is refused; everything survives a reopen.
//! docs/SEMANTICS.md, "Namespaces", lists where cellbase differs.

use super::*;

fn fam() -> FamilyDescriptor {
    FamilyDescriptor::new("f")
}

/// `TestNamespace.verifyReservedNS`: `default` and `hbase` exist, cannot be created again
/// (NamespaceExistException) or dropped ("Reserved namespace NS cannot be removed.").
#[test]
fn reserved_namespaces() {
    let env = Env::new(1_000);
    assert_eq!(env.db.list_namespaces(), ["default", "hbase"]);
    for ns in ["default", "hbase"] {
        assert!(matches!(
            env.db.create_namespace(ns),
            Err(Error::NamespaceExists(n)) if n == ns
        ));
        let e = env.db.drop_namespace(ns).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("invalid argument: Reserved namespace {ns} cannot be removed.")
        );
        assert!(
            env.db
                .describe_namespace(ns)
                .unwrap()
                .properties()
                .is_empty()
        );
        assert!(env.db.alter_namespace(ns, "k", Some("v")).is_err());
    }
    assert!(env.db.list_namespace_tables("hbase").unwrap().is_empty());
}

/// `TestNamespace.createRemoveTest` and `createDoubleTest`: create, list, describe, drop;
/// a second create fails with NamespaceExistException; operations on a missing namespace
/// fail with NamespaceNotFoundException.
#[test]
fn create_list_drop() {
    let env = Env::new(1_000);
    env.db.create_namespace("ns1").unwrap();
    assert_eq!(env.db.list_namespaces(), ["default", "hbase", "ns1"]);
    assert!(matches!(
        env.db.create_namespace("ns1"),
        Err(Error::NamespaceExists(_))
    ));
    assert_eq!(env.db.describe_namespace("ns1").unwrap().name(), "ns1");
    assert!(env.db.list_namespace_tables("ns1").unwrap().is_empty());
    env.db.drop_namespace("ns1").unwrap();
    assert_eq!(env.db.list_namespaces(), ["default", "hbase"]);
    for r in [
        env.db.drop_namespace("ns1"),
        env.db.describe_namespace("ns1").map(|_| ()),
        env.db.list_namespace_tables("ns1").map(|_| ()),
        env.db.alter_namespace("ns1", "k", None),
    ] {
        assert!(
            matches!(r, Err(Error::NamespaceNotFound(ref n)) if n == "ns1"),
            "{r:?}"
        );
    }
}

/// `TableName.isLegalNamespaceName`: `[a-zA-Z_0-9]+` (cellbase: at most 128 bytes).
#[test]
fn namespace_names_are_checked() {
    let env = Env::new(1_000);
    for bad in ["", "a-b", "a.b", "a:b", "a b", &"n".repeat(129)] {
        assert!(
            matches!(env.db.create_namespace(bad), Err(Error::InvalidArgument(_))),
            "{bad:?}"
        );
    }
    env.db.create_namespace(&"n".repeat(128)).unwrap();
    env.db.create_namespace("A_1").unwrap();
    // Table names: the namespace part follows the same rule.
    for bad in ["a-b:t", ":t", "A_1:", "A_1:.t", "A_1:t:u"] {
        let r = env.db.create_table(TableDescriptor::new(bad).family(fam()));
        assert!(matches!(r, Err(Error::InvalidArgument(_))), "{bad:?}");
    }
}

/// `TestNamespace.deleteNonEmptyNamespace`: HBase's ConstraintException text, and the count.
#[test]
fn non_empty_namespace_is_not_dropped() {
    let env = Env::new(1_000);
    env.db.create_namespace("ns").unwrap();
    env.db
        .create_table(TableDescriptor::new("ns:t1").family(fam()))
        .unwrap();
    env.db
        .create_table(TableDescriptor::new("ns:t2").family(fam()))
        .unwrap();
    let e = env.db.drop_namespace("ns").unwrap_err();
    assert!(matches!(
        e,
        Error::NamespaceNotEmpty { ref namespace, tables: 2 } if namespace == "ns"
    ));
    assert_eq!(
        e.to_string(),
        "Only empty namespaces can be removed. Namespace ns has 2 tables"
    );
    env.db.drop_table("ns:t1").unwrap();
    env.db.drop_table("ns:t2").unwrap();
    env.db.drop_namespace("ns").unwrap();
}

/// `TestNamespace.createTableTest`: a table in a missing namespace fails with
/// NamespaceNotFoundException; in an existing one it is named `ns:t` and listed by
/// `list_namespace_tables` as `t`.
#[test]
fn tables_in_namespaces() {
    let env = Env::new(1_000);
    let r = env
        .db
        .create_table(TableDescriptor::new("missing:t").family(fam()));
    assert!(
        matches!(r, Err(Error::NamespaceNotFound(ref n)) if n == "missing"),
        "{r:?}"
    );
    env.db.create_namespace("ns").unwrap();
    let t = env
        .db
        .create_table(TableDescriptor::new("ns:t").family(fam()))
        .unwrap();
    assert_eq!(t.name(), "ns:t");
    // Same qualifier, different namespaces: different tables.
    let plain = env.table(vec![fam()]);
    t.put(Put::new("r").add("f", "q", "in ns")).unwrap();
    plain
        .put(Put::new("r").add("f", "q", "in default"))
        .unwrap();
    let read = |name: &str| {
        env.db
            .table(name)
            .unwrap()
            .get(Get::new("r"))
            .unwrap()
            .value("f", "q")
            .map(<[u8]>::to_vec)
    };
    assert_eq!(read("ns:t"), Some(b"in ns".to_vec()));
    assert_eq!(read("t"), Some(b"in default".to_vec()));
    assert_eq!(env.db.table_names(), ["ns:t", "t"]);
    assert_eq!(env.db.list_namespace_tables("ns").unwrap(), ["t"]);
    assert_eq!(env.db.list_namespace_tables("default").unwrap(), ["t"]);
    assert!(env.db.describe("ns:t").is_ok());
    assert!(matches!(
        env.db.table("other:t"),
        Err(Error::TableNotFound(_))
    ));
}

/// `TestNamespace.createTableInDefaultNamespace`: `default:t` is `t`, in every call, and is
/// listed as `t` (HBase's `TableName.getNameAsString`).
#[test]
fn default_prefix_names_the_same_table() {
    let env = Env::new(1_000);
    let t = env
        .db
        .create_table(TableDescriptor::new("default:t").family(fam()))
        .unwrap();
    assert_eq!(t.name(), "t");
    assert_eq!(env.db.table_names(), ["t"]);
    assert!(matches!(
        env.db.create_table(TableDescriptor::new("t").family(fam())),
        Err(Error::TableExists(_))
    ));
    t.put(Put::new("r").add("f", "q", "v")).unwrap();
    let same = env.db.table("default:t").unwrap();
    assert_eq!(same.name(), "t");
    assert_eq!(
        same.get(Get::new("r")).unwrap().value("f", "q"),
        Some(&b"v"[..])
    );
    assert_eq!(env.db.describe("default:t").unwrap().name(), "t");
    env.db.disable_table("default:t").unwrap();
    assert!(!env.db.is_table_enabled("t").unwrap());
    env.db.enable_table("default:t").unwrap();
    env.db.drop_table("default:t").unwrap();
    assert!(env.db.table_names().is_empty());
}

/// The `hbase` namespace holds system tables only: cellbase refuses user tables there
/// (HBase lets a superuser create them; docs/SEMANTICS.md).
#[test]
fn no_user_tables_in_the_system_namespace() {
    let env = Env::new(1_000);
    let r = env
        .db
        .create_table(TableDescriptor::new("hbase:t").family(fam()));
    assert!(
        matches!(r, Err(Error::InvalidArgument(ref m)) if m.contains("reserved")),
        "{r:?}"
    );
}

/// Namespaces, their properties and their tables survive reopens (manifest edits, then the
/// manifest snapshot an open writes); a dropped namespace stays dropped.
#[test]
fn namespaces_persist_across_reopen() {
    let env = Env::new(1_000);
    env.db
        .create_namespace_with(NamespaceDescriptor::new("keep").property("owner", "me"))
        .unwrap();
    env.db.create_namespace("gone").unwrap();
    env.db.alter_namespace("keep", "quota", Some("10")).unwrap();
    env.db.alter_namespace("keep", "owner", None).unwrap();
    let t = env
        .db
        .create_table(TableDescriptor::new("keep:t").family(fam()))
        .unwrap();
    t.put(Put::new("r").add("f", "q", "v")).unwrap();
    env.db.drop_namespace("gone").unwrap();
    // Twice: the first open replays the edits, the second the snapshot the first wrote.
    let env = env.reopen().reopen();
    assert_eq!(env.db.list_namespaces(), ["default", "hbase", "keep"]);
    let d = env.db.describe_namespace("keep").unwrap();
    assert_eq!(
        d.properties().iter().collect::<Vec<_>>(),
        [(&"quota".to_string(), &"10".to_string())]
    );
    assert_eq!(env.db.list_namespace_tables("keep").unwrap(), ["t"]);
    assert_eq!(
        env.db
            .table("keep:t")
            .unwrap()
            .get(Get::new("r"))
            .unwrap()
            .value("f", "q"),
        Some(&b"v"[..])
    );
    assert!(matches!(
        env.db
            .create_table(TableDescriptor::new("gone:t").family(fam())),
        Err(Error::NamespaceNotFound(_))
    ));
}
