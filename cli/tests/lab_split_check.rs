//! `Table::run_split_check`, the engine hook the lab drives splits with: without background
//! threads nothing splits by itself; the check splits exactly the regions the policy finds too
//! big, at their own split points, and keeps every row readable.
use cellbase::{Db, DbOptions, Durability, FamilyDescriptor, Get, Put, Scan, TableDescriptor};

#[test]
fn split_check_splits_only_big_regions() {
    let db = Db::temporary_with(
        DbOptions::default()
            .background_threads(0)
            .durability(Durability::SkipWal)
            .memstore_flush_size(8 << 10)
            .max_region_size(32 << 10),
    )
    .expect("db");
    // Two regions: everything is written to the upper one.
    let t = db
        .create_table(
            TableDescriptor::new("t")
                .family(FamilyDescriptor::new("d").block_size(4096))
                .split_keys(["m"]),
        )
        .expect("table");
    assert!(
        t.run_split_check().expect("check").is_empty(),
        "empty regions never split"
    );
    for i in 0..3000u32 {
        t.put(Put::new(format!("x{i:06}")).add("d", "v", [7u8; 40]))
            .expect("put");
    }
    assert_eq!(
        t.regions().len(),
        2,
        "no split without the check (no background threads)"
    );
    // Flush-sized files of one block each have no split point (HBase's rule); a compaction
    // gives the region a file with a mid-key, as the lab's window close does.
    t.major_compact().expect("compact");
    let mut rows = Vec::new();
    for _ in 0..10 {
        let r = t.run_split_check().expect("check");
        if r.is_empty() {
            break;
        }
        rows.extend(r);
    }
    let regions = t.regions();
    println!("split rows: {rows:?}, {} regions", regions.len());
    assert!(!rows.is_empty());
    assert_eq!(regions.len(), 2 + rows.len());
    // The lower region got nothing and was never split; bounds stay contiguous.
    assert_eq!(regions[0].end_key, b"m");
    for w in regions.windows(2) {
        assert_eq!(w[0].end_key, w[1].start_key);
    }
    for row in &rows {
        assert!(row.as_slice() > b"x000000".as_slice() && row.as_slice() < b"x003000".as_slice());
    }
    // Once under the threshold, nothing more to split; every row still reads back.
    assert!(t.run_split_check().expect("check").is_empty());
    assert_eq!(t.scan(Scan::new()).expect("scan").count(), 3000);
    assert!(!t.get(Get::new("x001234")).expect("get").is_empty());
}
