//! Tables, families and namespaces through the same `Db` calls.

use crate::*;

/// Create, describe, alter a family (modify and add), delete a family, drop.
pub fn tables_describe_alter_and_drop(b: &Backend) {
    let t = b.create(
        TableDescriptor::new("t").family(
            FamilyDescriptor::new("f")
                .max_versions(4)
                .bloom_filter(BloomType::RowCol)
                .compression(Compression::Snappy)
                .in_memory(true),
        ),
    );
    let name = t.name().to_string();
    assert!(b.db.table_names().contains(&name));
    assert!(matches!(
        b.db.create_table(TableDescriptor::new(&name).family(FamilyDescriptor::new("f"))),
        Err(Error::TableExists(_))
    ));
    let d = b.db.describe(&name).unwrap();
    let f = d.get_family(b"f").unwrap();
    assert_eq!(
        (f.max_versions, f.bloom_filter, f.compression, f.in_memory),
        (4, BloomType::RowCol, Compression::Snappy, true)
    );
    b.db.alter_family(&name, FamilyDescriptor::new("f").max_versions(2))
        .unwrap();
    b.db.alter_family(&name, FamilyDescriptor::new("g"))
        .unwrap();
    let d = b.db.describe(&name).unwrap();
    assert_eq!(d.get_family(b"f").unwrap().max_versions, 2);
    assert!(d.get_family(b"g").is_some());
    b.db.delete_family(&name, b"g").unwrap();
    assert!(b.db.describe(&name).unwrap().get_family(b"g").is_none());
    b.db.disable_table(&name).unwrap();
    b.db.drop_table(&name).unwrap();
    assert!(matches!(b.db.table(&name), Err(Error::TableNotFound(_))));
    assert!(!b.db.table_names().contains(&name));
}

/// Namespaces: create with properties, describe, alter, list tables, drop.
pub fn namespaces(b: &Backend) {
    let ns = b.name("ns").replace('_', "");
    b.db.create_namespace_with(NamespaceDescriptor::new(&ns).property("owner", "ada"))
        .unwrap();
    assert!(b.db.list_namespaces().contains(&ns));
    assert!(matches!(
        b.db.create_namespace(&ns),
        Err(Error::NamespaceExists(_))
    ));
    assert_eq!(
        b.db.describe_namespace(&ns)
            .unwrap()
            .properties()
            .get("owner"),
        Some(&"ada".to_string())
    );
    b.db.alter_namespace(&ns, "owner", Some("grace")).unwrap();
    assert_eq!(
        b.db.describe_namespace(&ns)
            .unwrap()
            .properties()
            .get("owner"),
        Some(&"grace".to_string())
    );
    let t = b
        .db
        .create_table(TableDescriptor::new(&format!("{ns}:t")).family(FamilyDescriptor::new("f")))
        .unwrap();
    t.put(Put::new("r").add("f", "q", "v")).unwrap();
    assert_eq!(b.db.list_namespace_tables(&ns).unwrap(), ["t"]);
    assert!(matches!(
        b.db.drop_namespace(&ns),
        Err(Error::NamespaceNotEmpty { .. })
    ));
    b.db.disable_table(&format!("{ns}:t")).unwrap();
    b.db.drop_table(&format!("{ns}:t")).unwrap();
    b.db.drop_namespace(&ns).unwrap();
    assert!(matches!(
        b.db.describe_namespace(&ns),
        Err(Error::NamespaceNotFound(_))
    ));
}

/// A disabled table refuses reads and writes; a missing one is `TableNotFound`.
pub fn disabled_and_missing_tables(b: &Backend) {
    let t = b.table(1);
    t.put(Put::new("r").add("f", "q", "v")).unwrap();
    b.db.disable_table(t.name()).unwrap();
    assert!(!b.db.is_table_enabled(t.name()).unwrap());
    assert!(matches!(t.get(Get::new("r")), Err(Error::TableDisabled(_))));
    assert!(matches!(
        t.put(Put::new("r").add("f", "q", "v")),
        Err(Error::TableDisabled(_))
    ));
    b.db.enable_table(t.name()).unwrap();
    assert!(b.db.is_table_enabled(t.name()).unwrap());
    assert!(!t.get(Get::new("r")).unwrap().is_empty());
    assert!(matches!(
        b.db.table(&b.name("missing")),
        Err(Error::TableNotFound(_))
    ));
    let e = t.get(Get::new("r").family("nope")).unwrap_err();
    assert!(matches!(e, Error::NoSuchFamily { .. }), "{e:?}");
}

/// A pre-split table's regions, as the server locates them.
pub fn pre_split_regions(b: &Backend) {
    let t = b.create(
        TableDescriptor::new("t")
            .family(FamilyDescriptor::new("f"))
            .split_keys(["g", "p"]),
    );
    let starts: Vec<Vec<u8>> = t.regions().into_iter().map(|r| r.start_key).collect();
    assert_eq!(starts, [b"".to_vec(), b"g".to_vec(), b"p".to_vec()]);
}
