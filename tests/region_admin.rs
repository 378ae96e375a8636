//! Region-level administration (issue 26): the split and merge switches (HBase's
//! `splitSwitch` / `mergeSwitch`, `SplitTableRegionProcedure` / `MergeTableRegionsProcedure`
//! refuse while off), flush of one region, compaction of one family or one region,
//! `truncate_region` (HBase 2.6's `TruncateRegionProcedure`), `clone_table_schema`
//! (`Admin.cloneTableSchema`, after `TestCloneTableSchema...`-style cases) and the compaction
//! state.

use cellbase::*;

fn open(dir: &std::path::Path, bg: usize) -> Db {
    Db::open_with(dir, DbOptions::default().background_threads(bg)).unwrap()
}

fn two_families(name: &str) -> TableDescriptor {
    TableDescriptor::new(name)
        .family(FamilyDescriptor::new("f"))
        .family(FamilyDescriptor::new("g"))
        .split_keys(["m"])
}

/// Three flushed files per family in each region.
fn three_rounds(t: &Table) {
    for round in 0..3 {
        for row in ["a", "b", "x", "y"] {
            t.put(Put::new(row).add("f", "q", format!("f{round}")).add(
                "g",
                "q",
                format!("g{round}"),
            ))
            .unwrap();
        }
        t.flush().unwrap();
    }
}

fn rows(t: &Table) -> Vec<String> {
    t.scan(Scan::new())
        .unwrap()
        .map(|r| String::from_utf8(r.unwrap().row().to_vec()).unwrap())
        .collect()
}

#[test]
fn split_and_merge_switches() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path(), 0);
    let t = db
        .create_table(
            TableDescriptor::new("t")
                .family(FamilyDescriptor::new("f").block_size(1024))
                .max_region_size(64 << 10)
                .split_policy(RegionSplitPolicy::ConstantSize),
        )
        .unwrap();
    assert!(db.is_split_enabled() && db.is_merge_enabled());
    assert!(db.set_split_enabled(false), "returns the previous state");
    assert!(!db.set_split_enabled(false));
    assert!(!db.is_split_enabled());
    // Far past the split threshold: no automatic split while the switch is off.
    for i in 0..4000 {
        t.put(Put::new(format!("row{i:05}")).add("f", "q", [b'v'; 100]))
            .unwrap();
    }
    t.flush().unwrap();
    assert!(t.run_split_check().unwrap().is_empty());
    assert_eq!(t.regions().len(), 1);
    let e = t.split(Some(b"row02000")).unwrap_err();
    assert!(
        e.to_string().contains("failed due to split switch off"),
        "{e}"
    );
    assert_eq!(t.regions().len(), 1);

    db.set_split_enabled(true);
    assert!(
        !t.run_split_check().unwrap().is_empty(),
        "splits again once on"
    );
    let regions = t.regions();
    assert!(regions.len() >= 2);
    assert!(db.set_merge_enabled(false));
    let e = t.merge(&regions[0].name, &regions[1].name).unwrap_err();
    assert!(e.to_string().contains("merge switch is off"), "{e}");
    assert_eq!(t.regions().len(), regions.len());
    db.set_merge_enabled(true);
    t.merge(&regions[0].name, &regions[1].name).unwrap();
    assert_eq!(t.regions().len(), regions.len() - 1);
    assert_eq!(rows(&t).len(), 4000);
}

#[test]
fn compaction_of_one_family_or_one_region() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path(), 0);
    let t = db.create_table(two_families("t")).unwrap();
    three_rounds(&t);
    let store_files =
        |t: &Table| -> Vec<u32> { t.regions().iter().map(|r| r.store_files).collect() };
    assert_eq!(store_files(&t), [6, 6]);

    t.compact_family(b"f", true).unwrap();
    assert_eq!(
        store_files(&t),
        [4, 4],
        "only f's stores: 3 files -> 1 in each region"
    );
    assert!(matches!(
        t.compact_family(b"nope", true),
        Err(Error::NoSuchFamily { .. })
    ));

    let second = t.regions()[1].name.clone();
    t.compact_region(&second, None, true).unwrap();
    assert_eq!(store_files(&t), [4, 2], "only the second region");
    let first = t.regions()[0].name.clone();
    t.compact_region(&first, Some(b"g"), true).unwrap();
    assert_eq!(store_files(&t), [2, 2]);
    assert!(t.compact_region("t,zz,999", None, true).is_err());
    assert_eq!(t.compaction_state(), CompactionState::None);
    assert_eq!(
        CompactionState::MajorAndMinor.hbase_name(),
        "MAJOR_AND_MINOR"
    );
    let r = t.get(Get::new("x")).unwrap();
    assert_eq!(r.value("f", "q"), Some(&b"f2"[..]));
    assert_eq!(r.value("g", "q"), Some(&b"g2"[..]));
}

#[test]
fn flush_of_one_region() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path(), 0);
    let t = db.create_table(two_families("t")).unwrap();
    for row in ["a", "x"] {
        t.put(Put::new(row).add("f", "q", "v")).unwrap();
    }
    let second = t.regions()[1].name.clone();
    t.flush_region(&second).unwrap();
    let r = t.regions();
    assert!(r[0].memstore_bytes > 0 && r[0].store_files == 0);
    assert!(r[1].memstore_bytes == 0 && r[1].store_files == 1);
}

#[test]
fn truncate_region_empties_one_region_for_good() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = open(dir.path(), 0);
        let t = db.create_table(two_families("t")).unwrap();
        three_rounds(&t);
        // Some cells only in the memstore (and the log).
        t.put(Put::new("z").add("f", "q", "memstore")).unwrap();
        t.put(Put::new("c").add("f", "q", "memstore")).unwrap();
        let second = t.regions()[1].name.clone();
        t.truncate_region(&second).unwrap();
        assert_eq!(rows(&t), ["a", "b", "c"]);
        assert_eq!(t.regions().len(), 2, "the region keeps its range");
        assert_eq!(t.regions()[1].store_files, 0);
        // The region takes writes again.
        t.put(Put::new("y").add("f", "q", "new")).unwrap();
        db.close().unwrap();
    }
    // Nothing comes back from the log or the files after reopen.
    let db = open(dir.path(), 0);
    let t = db.table("t").unwrap();
    assert_eq!(rows(&t), ["a", "b", "c", "y"]);
    let r = t.get(Get::new("y")).unwrap();
    assert_eq!(r.value("f", "q"), Some(&b"new"[..]));
    assert!(t.truncate_region("t,nope,1").is_err());
}

#[test]
fn clone_table_schema_with_and_without_splits() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path(), 0);
    let t = db
        .create_table(
            two_families("src")
                .compaction_enabled(false)
                .memstore_flush_size(1 << 20),
        )
        .unwrap();
    three_rounds(&t);
    t.split(Some(b"x")).unwrap();
    let starts =
        |t: &Table| -> Vec<Vec<u8>> { t.regions().into_iter().map(|r| r.start_key).collect() };
    assert_eq!(starts(&t), [b"".to_vec(), b"m".to_vec(), b"x".to_vec()]);

    let kept = db.clone_table_schema("src", "kept", true).unwrap();
    assert_eq!(
        starts(&kept),
        starts(&t),
        "preserve_splits: the source's current regions"
    );
    assert!(rows(&kept).is_empty(), "schema only, no data");
    let d = db.describe("kept").unwrap();
    assert_eq!(d.families().len(), 2);
    assert!(!d.is_compaction_enabled());
    assert_eq!(d.table_memstore_flush_size(), Some(1 << 20));

    let one = db.clone_table_schema("src", "default:one", false).unwrap();
    assert_eq!(one.name(), "one");
    assert_eq!(one.regions().len(), 1);
    one.put(Put::new("a").add("f", "q", "only here")).unwrap();
    assert_eq!(
        t.get(Get::new("a")).unwrap().value("f", "q"),
        Some(&b"f2"[..]),
        "independent tables"
    );
    assert!(matches!(
        db.clone_table_schema("src", "kept", true),
        Err(Error::TableExists(_))
    ));
    assert!(matches!(
        db.clone_table_schema("nope", "x", true),
        Err(Error::TableNotFound(_))
    ));
}
