//! The region normalizer (HBase 2.6's `SimpleRegionNormalizer`, `normalize` and
//! `normalizer_switch`; the planner's own cases are `TestSimpleRegionNormalizer`'s, in
//! src/engine/normalizer/tests.rs). A table with three tiny regions and one big one is
//! normalized: the big region is split, the tiny ones merged, and every row reads back as
//! written. The switch and the table's `NORMALIZATION_ENABLED` gate it; the table's targets
//! persist.

use cellbase::*;
use std::path::Path;
use std::time::Duration;

const T0: i64 = 1_700_000_000_000;
const DAY: Duration = Duration::from_secs(86_400);

fn open(dir: &Path, clock: &ManualClock) -> Db {
    Db::open_with(
        dir,
        DbOptions::default()
            .background_threads(0)
            .clock(clock.clone())
            .major_compaction_period(Duration::ZERO)
            // The tiny regions hold well under 1 MB: HBase's tests lower the merge minimum
            // size to 0 the same way.
            .normalizer(NormalizerConfig::default().merge_min_region_size_mb(0)),
    )
    .unwrap()
}

/// Regions [, b), [b, c), [c, d) with 5 rows each and [d, ) with 8 MB (8000 rows of 1 KiB).
fn lopsided_table(db: &Db, name: &str, normalize: bool) -> Table {
    let t = db
        .create_table(
            TableDescriptor::new(name)
                .family(FamilyDescriptor::new("f"))
                .split_keys(["b", "c", "d"])
                .normalization_enabled(normalize),
        )
        .unwrap();
    for prefix in ["a", "b", "c"] {
        for i in 0..5 {
            t.put(Put::new(format!("{prefix}{i:04}")).add("f", "q", format!("{prefix}{i}")))
                .unwrap();
        }
    }
    for i in 0..8000 {
        let mut v = format!("d{i}").into_bytes();
        v.resize(1024, b'.');
        t.put(Put::new(format!("d{i:04}")).add("f", "q", v))
            .unwrap();
    }
    t.flush().unwrap();
    t
}

fn check_rows(t: &Table) {
    let rows: Vec<RowResult> = t.scan(Scan::new()).unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 15 + 8000);
    for r in &rows {
        let key = String::from_utf8(r.row().to_vec()).unwrap();
        let n: u32 = key[1..].parse().unwrap();
        let v = r.value("f", "q").unwrap();
        let want = format!("{}{n}", &key[..1]);
        assert!(v.starts_with(want.as_bytes()), "{key}");
        if key.starts_with('d') {
            assert_eq!(v.len(), 1024, "{key}");
        }
    }
}

fn starts(t: &Table) -> Vec<Vec<u8>> {
    t.regions().into_iter().map(|r| r.start_key).collect()
}

#[test]
fn one_big_and_three_tiny_regions_are_normalized() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let db = open(dir.path(), &clock);
    let t = lopsided_table(&db, "lopsided", true);
    let sizes: Vec<u64> = t
        .regions()
        .iter()
        .map(|r| r.store_file_bytes >> 20)
        .collect();
    assert_eq!(sizes[..3], [0, 0, 0]);
    assert!(sizes[3] >= 8, "{sizes:?}");
    // Older than HBase's merge.min_region_age.days (3).
    clock.advance(4 * DAY);
    // Average 2 MB: the big region is over twice it and is split; the three tiny ones make
    // one run within the average and are merged.
    assert!(db.is_normalizer_enabled(), "on by default, as HBase's");
    assert!(db.normalize().unwrap());
    let after = starts(&t);
    assert_eq!(after.len(), 3, "{after:?}");
    assert_eq!(after[0], b"");
    assert_eq!(after[1], b"d");
    assert!(after[2].as_slice() > b"d0000".as_slice(), "{after:?}");
    check_rows(&t);
    let m = db.metrics();
    assert_eq!(
        (m.splits, m.merges),
        (1, 2),
        "one split, a merge of three regions"
    );

    // Nothing lost across a reopen either.
    drop(t);
    db.close().unwrap();
    let db = open(dir.path(), &clock);
    check_rows(&db.table("lopsided").unwrap());
}

#[test]
fn the_switch_and_the_table_flag_gate_it() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let db = open(dir.path(), &clock);
    let on = lopsided_table(&db, "on", true);
    let off = lopsided_table(&db, "off", false);
    clock.advance(4 * DAY);
    // Switch off: normalize does nothing and says so.
    assert!(db.set_normalizer_enabled(false), "previous state: on");
    assert!(!db.is_normalizer_enabled());
    assert!(!db.normalize().unwrap());
    assert_eq!(on.regions().len(), 4);
    assert!(!db.set_normalizer_enabled(true));
    // Only the named tables: "off" is named but lacks NORMALIZATION_ENABLED; unknown names
    // are passed over.
    assert!(db.normalize_tables(&["off", "nope"]).unwrap());
    assert_eq!(off.regions().len(), 4);
    assert_eq!(on.regions().len(), 4);
    assert!(db.normalize_tables(&["on"]).unwrap());
    assert_eq!(on.regions().len(), 3, "split one, merged three");
    assert_eq!(off.regions().len(), 4);
    check_rows(&on);
    check_rows(&off);
    // With the merge switch off (HBase's splitormerge_switch), only splits are planned.
    db.set_table_normalization_enabled("off", true).unwrap();
    db.set_merge_enabled(false);
    assert!(db.normalize_tables(&["off"]).unwrap());
    assert_eq!(off.regions().len(), 5);
    check_rows(&off);
}

#[test]
fn targets_are_table_attributes() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let db = open(dir.path(), &clock);
    let t = lopsided_table(&db, "targets", true);
    db.set_table_normalizer_target_region_count("targets", Some(2))
        .unwrap();
    db.set_table_normalizer_target_region_size_mb("targets", Some(64))
        .unwrap();
    assert!(
        db.set_table_normalizer_target_region_count("targets", Some(0))
            .is_err()
    );
    // A 64 MB target: nothing is over twice it, and every region fits in one run; but the
    // regions are younger than the merge minimum age (3 days): nothing yet.
    assert!(db.normalize().unwrap());
    assert_eq!(t.regions().len(), 4);
    clock.advance(4 * DAY);
    assert!(db.normalize().unwrap());
    assert_eq!(t.regions().len(), 1);
    check_rows(&t);
    drop(t);
    db.close().unwrap();
    let db = open(dir.path(), &clock);
    let d = db.describe("targets").unwrap();
    assert_eq!(d.table_normalizer_target_region_count(), Some(2));
    assert_eq!(d.table_normalizer_target_region_size_mb(), Some(64));
    assert!(d.is_normalization_enabled());
    db.set_table_normalizer_target_region_size_mb("targets", None)
        .unwrap();
    assert_eq!(
        db.describe("targets")
            .unwrap()
            .table_normalizer_target_region_size_mb(),
        None
    );
}
