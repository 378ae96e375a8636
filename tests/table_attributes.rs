//! Table attributes (issue 26): `COMPACTION_ENABLED` (HBase's
//! `TableDescriptor.isCompactionEnabled`: `CompactSplit.requestCompactionInternal` does nothing
//! for such a table) and `DURABILITY` (a mutation's `USE_DEFAULT` takes the table's, whose own
//! default is the database's: HBase's `HRegion.getEffectiveDurability`). Both survive reopen
//! and `alter`.

use cellbase::*;

fn open(dir: &std::path::Path) -> Db {
    Db::open_with(dir, DbOptions::default().background_threads(0)).unwrap()
}

fn files(t: &Table) -> u64 {
    t.regions().iter().map(|r| u64::from(r.store_files)).sum()
}

/// Five flushed files; returns the table.
fn five_files(db: &Db, desc: TableDescriptor) -> Table {
    let t = db.create_table(desc).unwrap();
    for round in 0..5 {
        for i in 0..20 {
            t.put(Put::new(format!("r{i:02}")).add("f", "q", format!("v{round}")))
                .unwrap();
        }
        t.flush().unwrap();
    }
    t
}

#[test]
fn compaction_disabled_table_is_never_compacted_until_enabled_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let desc = TableDescriptor::new("t")
        .family(FamilyDescriptor::new("f"))
        .compaction_enabled(false);
    let t = five_files(&db, desc);
    t.compact().unwrap();
    t.major_compact().unwrap();
    assert_eq!(
        files(&t),
        5,
        "no compaction of a COMPACTION_ENABLED => false table"
    );
    assert_eq!(
        db.metrics().major_compactions + db.metrics().minor_compactions,
        0
    );
    // Reads see the newest version all the same.
    let r = t.get(Get::new("r07")).unwrap();
    assert_eq!(r.value("f", "q"), Some(&b"v4"[..]));
    drop(t);
    db.close().unwrap();

    // The setting is stored (descriptor encoding version 4) and comes back on open.
    let db = open(dir.path());
    assert!(!db.describe("t").unwrap().is_compaction_enabled());
    let t = db.table("t").unwrap();
    t.major_compact().unwrap();
    assert_eq!(files(&t), 5);
    db.set_table_compaction_enabled("t", true).unwrap();
    assert!(db.describe("t").unwrap().is_compaction_enabled());
    t.major_compact().unwrap();
    assert_eq!(files(&t), 1, "compactions run again once enabled");
    let rows = t.scan(Scan::new()).unwrap().count();
    assert_eq!(rows, 20);
}

#[test]
fn a_split_still_rewrites_its_references_when_compactions_are_disabled() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let desc = TableDescriptor::new("t")
        .family(FamilyDescriptor::new("f"))
        .compaction_enabled(false);
    let t = five_files(&db, desc);
    t.split(Some(b"r10")).unwrap();
    // The daughters can be split again: their references are rewritten even though the
    // table's compactions are off (docs/SEMANTICS.md: HBase would refuse the second split).
    t.split(Some(b"r05")).unwrap();
    t.split(Some(b"r15")).unwrap();
    assert_eq!(t.regions().len(), 4);
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 20);
}

#[test]
fn table_durability_applies_to_writes_that_do_not_choose_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let t = db
        .create_table(
            TableDescriptor::new("t")
                .family(FamilyDescriptor::new("f"))
                .durability(Durability::SkipWal),
        )
        .unwrap();
    let before = db.metrics().wal_appends;
    for i in 0..10 {
        t.put(Put::new(format!("r{i}")).add("f", "q", "v")).unwrap();
    }
    assert_eq!(
        db.metrics().wal_appends,
        before,
        "SKIP_WAL table: nothing logged"
    );
    // A mutation's own durability wins over the table's.
    t.put(
        Put::new("logged")
            .add("f", "q", "v")
            .durability(Durability::SyncWal),
    )
    .unwrap();
    assert_eq!(db.metrics().wal_appends, before + 1);

    // FSYNC_WAL: every write is synced.
    db.set_table_durability("t", Some(Durability::FsyncWal))
        .unwrap();
    let syncs = db.metrics().wal_syncs;
    t.put(Put::new("synced").add("f", "q", "v")).unwrap();
    assert_eq!(db.metrics().wal_appends, before + 2);
    assert!(
        db.metrics().wal_syncs > syncs,
        "FSYNC_WAL table write is synced"
    );
    assert_eq!(
        db.describe("t").unwrap().table_durability(),
        Some(Durability::FsyncWal)
    );

    // Back to USE_DEFAULT: the database's (SYNC_WAL) logs each write.
    db.set_table_durability("t", None).unwrap();
    t.put(Put::new("default").add("f", "q", "v")).unwrap();
    assert_eq!(db.metrics().wal_appends, before + 3);
    // Row mutations and counters follow the table's durability too.
    db.set_table_durability("t", Some(Durability::SkipWal))
        .unwrap();
    t.increment(Increment::new("n").add("f", "c", 1)).unwrap();
    t.mutate_row("m", vec![Mutation::Put(Put::new("m").add("f", "q", "v"))])
        .unwrap();
    assert_eq!(db.metrics().wal_appends, before + 3);
    drop(t);
    db.close().unwrap();
    let db = open(dir.path());
    assert_eq!(
        db.describe("t").unwrap().table_durability(),
        Some(Durability::SkipWal)
    );
}
