//! Admin: disable/enable, alter_family, describe, persisted across reopen.

use super::*;

/// disable_table makes reads and writes fail with TableDisabled; enable restores; the state
/// persists across a reopen.
#[test]
fn disable_and_enable_table() {
    let env = Env::new(1_000);
    let t = env.table(fg(1));
    t.put(Put::new("r").add("f", "q", "v")).unwrap();
    assert!(env.db.is_table_enabled("t").unwrap());
    env.db.disable_table("t").unwrap();
    assert!(!env.db.is_table_enabled("t").unwrap());
    let dis = |r: Result<()>| assert!(matches!(r, Err(Error::TableDisabled(_))), "{r:?}");
    dis(t.put(Put::new("r").add("f", "q", "w")));
    dis(t.delete(Delete::new("r")));
    assert!(matches!(t.get(Get::new("r")), Err(Error::TableDisabled(_))));
    assert!(matches!(t.scan(Scan::new()), Err(Error::TableDisabled(_))));
    assert!(matches!(
        t.increment(Increment::new("r").add("f", "c", 1)),
        Err(Error::TableDisabled(_))
    ));
    let env = env.reopen();
    assert!(!env.db.is_table_enabled("t").unwrap());
    let t = env.db.table("t").unwrap();
    assert!(matches!(t.get(Get::new("r")), Err(Error::TableDisabled(_))));
    env.db.enable_table("t").unwrap();
    assert_eq!(
        t.get(Get::new("r")).unwrap().value("f", "q"),
        Some(&b"v"[..])
    );
    let env = env.reopen();
    assert!(env.db.is_table_enabled("t").unwrap());
    assert!(matches!(
        env.db.is_table_enabled("nope"),
        Err(Error::TableNotFound(_))
    ));
}

/// describe returns what was created; alter_family changes apply to later reads and flushes
/// and survive a reopen; a new family can be added.
#[test]
fn alter_family_and_describe() {
    let env = Env::new(100_000);
    let f = FamilyDescriptor::new("f")
        .max_versions(3)
        .bloom_filter(BloomType::RowCol);
    env.db
        .create_table(TableDescriptor::new("t").family(f.clone()))
        .unwrap();
    assert_eq!(
        env.db.describe("t").unwrap().families(),
        std::slice::from_ref(&f)
    );
    let t = env.db.table("t").unwrap();
    for ts in 1..=3 {
        t.put(Put::new("r").add_at("f", "q", ts, "v")).unwrap();
    }
    let f1 = f.clone().max_versions(1);
    env.db.alter_family("t", f1.clone()).unwrap();
    assert_eq!(get_ts(&t, Get::new("r").all_versions(), "f", "q"), [3]);
    env.db
        .alter_family("t", FamilyDescriptor::new("g").ttl(secs(10)))
        .unwrap();
    t.put(
        Put::new("r")
            .add_at("g", "q", 50_000, "old")
            .add("g", "p", "new"),
    )
    .unwrap();
    assert_eq!(t.get(Get::new("r").family("g")).unwrap().cells().len(), 1);
    t.flush().unwrap();
    assert_eq!(
        raw(&t).len(),
        2,
        "the flush applies VERSIONS=1 and the TTL: {:?}",
        raw(&t)
    );
    let env = env.reopen();
    let d = env.db.describe("t").unwrap();
    assert_eq!(d.families()[0], f1);
    assert_eq!(d.families()[1].ttl, Some(secs(10)));
    assert!(matches!(
        env.db.alter_family("nope", f),
        Err(Error::TableNotFound(_))
    ));
}
