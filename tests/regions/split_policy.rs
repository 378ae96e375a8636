//! A table's `SPLIT_POLICY` [SPLIT-1] [SPLIT-2], end to end (no background threads: flushes,
//! split checks and reopens happen when the test says, on a manual clock): the key-prefix
//! policies split only at prefix-group boundaries, the policy persists across reopen and
//! `Db::set_table_split_policy`, Disabled never splits by itself.

use super::*;

const GROUPS: usize = 12;
const ROWS_PER_GROUP: usize = 60;

fn opts() -> DbOptions {
    DbOptions::default()
        .background_threads(0)
        .clock(ManualClock::new(1_700_000_000_000))
}

/// Rows `gNNN-row-MMMM`: twelve groups sharing the 4-byte prefix `gNNN`.
fn row(g: usize, i: usize) -> String {
    format!("g{g:03}-row-{i:04}")
}

fn fill(t: &Table) {
    for g in 0..GROUPS {
        for i in 0..ROWS_PER_GROUP {
            t.put(Put::new(row(g, i)).add("f", "q", "v".repeat(40)))
                .unwrap();
        }
    }
    t.flush().unwrap();
}

fn table(db: &Db, policy: RegionSplitPolicy) -> Table {
    db.create_table(
        TableDescriptor::new("t")
            .family(FamilyDescriptor::new("f").block_size(1024))
            .max_region_size(8 << 10)
            .split_policy(policy),
    )
    .unwrap()
}

/// Runs the split check until it splits nothing more (bounded); returns every split row.
fn split_until_stable(t: &Table) -> Vec<Vec<u8>> {
    let mut rows = Vec::new();
    for _ in 0..20 {
        let got = t.run_split_check().unwrap();
        if got.is_empty() {
            return rows;
        }
        rows.extend(got);
    }
    panic!("the split check kept splitting: {rows:?}");
}

/// Every group's rows lie in one region.
fn assert_groups_whole(t: &Table) {
    let rs = t.regions();
    for g in 0..GROUPS {
        let region_of = |r: &str| {
            rs.iter()
                .position(|x| {
                    x.start_key.as_slice() <= r.as_bytes()
                        && (x.end_key.is_empty() || r.as_bytes() < x.end_key.as_slice())
                })
                .unwrap()
        };
        let first = region_of(&row(g, 0));
        for i in 1..ROWS_PER_GROUP {
            assert_eq!(region_of(&row(g, i)), first, "group {g} split: {rs:?}");
        }
    }
}

/// [SPLIT-2] KeyPrefixRegionSplitPolicy with prefix_length 4: every split row is a 4-byte
/// group prefix, so no group is ever divided; all rows stay readable, also after a reopen,
/// which keeps the policy.
#[test]
fn key_prefix_policy_splits_at_group_boundaries() {
    let dir = tempfile::tempdir().unwrap();
    let policy = RegionSplitPolicy::KeyPrefix { prefix_length: 4 };
    {
        let db = Db::open_with(dir.path(), opts()).unwrap();
        let t = table(&db, policy.clone());
        fill(&t);
        let rows = split_until_stable(&t);
        assert!(rows.len() >= 2, "{rows:?}");
        for r in &rows {
            assert_eq!(r.len(), 4, "split row {:?}", String::from_utf8_lossy(r));
            assert!(r.starts_with(b"g"));
        }
        assert_contiguous(&t);
        assert_groups_whole(&t);
        assert_eq!(all_rows(&t).len(), GROUPS * ROWS_PER_GROUP);
        // An explicit split without a row takes the policy's split point too.
        let before = t.regions().len();
        t.split(None).unwrap();
        assert!(t.regions().len() >= before);
        assert_groups_whole(&t);
        db.close().unwrap();
    }
    let db = Db::open_with(dir.path(), opts()).unwrap();
    assert_eq!(db.describe("t").unwrap().table_split_policy(), &policy);
    let t = db.table("t").unwrap();
    assert_groups_whole(&t);
    assert_eq!(all_rows(&t).len(), GROUPS * ROWS_PER_GROUP);
}

/// ConstantSize splits the same data at whole rows inside groups; the delimiter policy at the
/// part before the first `-`.
#[test]
fn constant_size_splits_inside_groups_and_the_delimiter_policy_does_not() {
    let db = Db::temporary_with(opts()).unwrap();
    let t = table(&db, RegionSplitPolicy::ConstantSize);
    fill(&t);
    let rows = split_until_stable(&t);
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r.len() > 4), "{rows:?}");

    let db = Db::temporary_with(opts()).unwrap();
    let t = table(
        &db,
        RegionSplitPolicy::DelimitedKeyPrefix {
            delimiter: b"-".to_vec(),
        },
    );
    fill(&t);
    let rows = split_until_stable(&t);
    assert!(rows.len() >= 2, "{rows:?}");
    assert!(rows.iter().all(|r| r.len() == 4), "{rows:?}");
    assert_groups_whole(&t);
}

/// `Db::set_table_split_policy` (the shell's `alter 't', SPLIT_POLICY => ...`) persists and
/// applies from the next check: Disabled stops automatic splits, explicit ones still work;
/// invalid settings are refused.
#[test]
fn altering_the_policy() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open_with(dir.path(), opts()).unwrap();
        let t = table(&db, RegionSplitPolicy::Stepping);
        db.set_table_split_policy("t", RegionSplitPolicy::Disabled)
            .unwrap();
        fill(&t);
        assert!(t.run_split_check().unwrap().is_empty());
        assert_eq!(t.regions().len(), 1);
        t.split(Some(b"g006")).unwrap();
        assert_eq!(t.regions().len(), 2);
        // Rewrite the daughters' halves of the parent's file (references block splits).
        t.major_compact().unwrap();
        assert!(
            db.set_table_split_policy("t", RegionSplitPolicy::KeyPrefix { prefix_length: 0 })
                .is_err()
        );
        db.close().unwrap();
    }
    let db = Db::open_with(dir.path(), opts()).unwrap();
    assert_eq!(
        db.describe("t").unwrap().table_split_policy(),
        &RegionSplitPolicy::Disabled
    );
    db.set_table_split_policy("t", RegionSplitPolicy::KeyPrefix { prefix_length: 4 })
        .unwrap();
    let t = db.table("t").unwrap();
    let rows = split_until_stable(&t);
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r.len() == 4), "{rows:?}");
    assert_groups_whole(&t);
}
