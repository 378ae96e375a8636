//! §1.11 Limits and errors.

use super::*;

/// [LIM-1] row keys are 1..=32767 bytes for every operation.
#[test]
fn row_key_length_bounds() {
    let env = Env::new(1_000);
    let t = env.table(fg(1));
    let max = vec![b'k'; 32_767];
    let over = vec![b'k'; 32_768];
    t.put(Put::new(&max).add("f", "q", "v")).unwrap();
    assert!(!t.get(Get::new(&max)).unwrap().is_empty());
    let bad = |r: Result<()>| assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    bad(t.put(Put::new(&over).add("f", "q", "v")));
    bad(t.put(Put::new("").add("f", "q", "v")));
    bad(t.delete(Delete::new(&over)));
    bad(t.delete(Delete::new("")));
    assert!(matches!(
        t.get(Get::new(&over)),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        t.increment(Increment::new("").add("f", "q", 1)),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        t.append(Append::new(&over).add("f", "q", "x")),
        Err(Error::InvalidArgument(_))
    ));
}

/// [LIM-2] family names: 1..=127 bytes, no ':' '\\' '/' or control characters, not starting
/// with '.', not `recovered.edits`.
#[test]
fn family_name_rules() {
    let env = Env::new(1_000);
    let long = "f".repeat(127);
    env.db
        .create_table(TableDescriptor::new("ok").family(FamilyDescriptor::new(&long)))
        .unwrap();
    for bad in [
        "".to_string(),
        "f".repeat(128),
        "a:b".into(),
        "a\\b".into(),
        "a/b".into(),
        ".hidden".into(),
        "a\nb".into(),
        "recovered.edits".into(),
    ] {
        let r = env
            .db
            .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new(&bad)));
        assert!(
            matches!(r, Err(Error::InvalidArgument(_))),
            "{bad:?}: {r:?}"
        );
        assert!(matches!(
            env.db.alter_family("ok", FamilyDescriptor::new(&bad)),
            Err(Error::InvalidArgument(_))
        ));
    }
}

/// [LIM-3] [LIM-4] qualifiers may be empty or any bytes; values any size up to the cell limit,
/// including empty.
#[test]
fn qualifiers_and_values_are_arbitrary_bytes() {
    at_every_stage(
        1_000,
        || fg(1),
        |t, _| {
            t.put(
                Put::new("r")
                    .add("f", "", "")
                    .add("f", [0u8, 255, b':'], vec![7u8; 100_000]),
            )
            .unwrap();
        },
        |t, _, stage| {
            let r = t.get(Get::new("r")).unwrap();
            assert_eq!(r.value("f", ""), Some(&b""[..]), "{stage:?}");
            assert_eq!(
                r.value("f", [0u8, 255, b':']).map(|v| v.len()),
                Some(100_000)
            );
            assert_eq!(
                t.get(Get::new("r").column("f", "")).unwrap().cells().len(),
                1
            );
        },
    );
}

/// [LIM-5] a cell whose serialized size (20 + row + family + qualifier + value) exceeds
/// max_cell_size is rejected; the limit applies to Append results too.
#[test]
fn cell_size_limit() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(
        dir.path(),
        DbOptions::default()
            .background_threads(0)
            .max_cell_size(100),
    )
    .unwrap();
    let t = db
        .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))
        .unwrap();
    // 20 + 1 + 1 + 1 + 77 = 100: allowed; one more byte is not.
    t.put(Put::new("r").add("f", "q", vec![0u8; 77])).unwrap();
    assert!(matches!(
        t.put(Put::new("r").add("f", "q", vec![0u8; 78])),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        t.append(Append::new("r").add("f", "q", "x")),
        Err(Error::InvalidArgument(_))
    ));
    assert_eq!(
        t.get(Get::new("r")).unwrap().value("f", "q").unwrap().len(),
        77
    );
}

/// [LIM-6] an empty Put and unknown families in any operation are rejected; nothing is written.
#[test]
fn empty_put_and_unknown_family_rejected() {
    let env = Env::new(1_000);
    let t = env.table(fg(1));
    assert!(matches!(
        t.put(Put::new("r")),
        Err(Error::InvalidArgument(_))
    ));
    let nf = |r: Result<()>| assert!(matches!(r, Err(Error::NoSuchFamily { .. })), "{r:?}");
    nf(t.put(Put::new("r").add("f", "q", "v").add("nope", "q", "v")));
    nf(t.delete(Delete::new("r").family("nope")));
    assert!(matches!(
        t.increment(Increment::new("r").add("nope", "q", 1)),
        Err(Error::NoSuchFamily { .. })
    ));
    assert!(matches!(
        t.append(Append::new("r").add("nope", "q", "x")),
        Err(Error::NoSuchFamily { .. })
    ));
    assert!(matches!(
        t.get(Get::new("r").family("nope")),
        Err(Error::NoSuchFamily { .. })
    ));
    assert!(matches!(
        t.scan(Scan::new().family("nope")),
        Err(Error::NoSuchFamily { .. })
    ));
    assert!(raw(&t).is_empty());
}
