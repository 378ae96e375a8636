//! Bulk load (issue 25), after HBase's TestLoadIncrementalHFiles / BulkLoadHFiles tests: cells
//! in any order across region boundaries, sorted with spills past the memory budget, visible
//! all at once; ordering against puts by the load's sequence id; a power cut at every I/O of
//! a load leaves all of it or none of it.

use cellbase::testing::io::{FaultFs, MemFs};
use cellbase::*;
use std::sync::Arc;

const NOW: i64 = 1_700_000_000_000;

fn desc() -> TableDescriptor {
    TableDescriptor::new("t")
        .family(FamilyDescriptor::new("f").bloom_filter(BloomType::Row))
        .family(FamilyDescriptor::new("g"))
        .split_keys(["r0250", "r0500", "r0750"])
}

/// A permutation of 0..n from a seeded generator (printed on failure via the seed).
fn shuffled(n: u32, seed: u64) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n).collect();
    let mut x = seed;
    for i in (1..v.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.swap(i, (x % (i as u64 + 1)) as usize);
    }
    v
}

#[test]
fn unsorted_cells_across_region_boundaries_with_spills() {
    let seed = 0x5eed_u64;
    println!("seed {seed}");
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(
        dir.path(),
        DbOptions::default()
            .background_threads(0)
            .clock(ManualClock::new(NOW)),
    )
    .unwrap();
    let t = db.create_table(desc()).unwrap();
    let puts = shuffled(1000, seed).into_iter().map(|i| {
        Put::new(format!("r{i:04}"))
            .add("f", "q", format!("v{i}"))
            .add("g", "h", format!("w{i}"))
    });
    // A 16 KiB budget: many spilled runs merged.
    let n = t.bulk_load_with_memory(puts, 16 << 10).unwrap();
    assert_eq!(n, 2000);
    // The sort spilled runs into DIR/tmp through the filesystem seam and removed them.
    let scratch: Vec<_> = std::fs::read_dir(dir.path().join("tmp"))
        .expect("the sort spilled")
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(scratch.is_empty(), "{scratch:?}");
    let rows: Vec<RowResult> = t.scan(Scan::new()).unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 1000);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.row(), format!("r{i:04}").as_bytes());
        assert_eq!(r.value("f", "q"), Some(format!("v{i}").as_bytes()));
        // Cells without a timestamp take the database's clock.
        assert_eq!(r.cells()[0].timestamp(), NOW);
    }
    // One file per region and family, every region loaded.
    for r in t.regions() {
        assert_eq!(r.store_files, 2, "{}", r.name);
    }
    // The ROW Bloom filters were built: a Get of a missing row is ruled out without blocks.
    let before = db.metrics().bloom_useful;
    assert!(t.get(Get::new("r0100x")).unwrap().is_empty());
    assert!(db.metrics().bloom_useful > before);
    db.close().unwrap();
    let db = Db::open(dir.path()).unwrap();
    assert_eq!(
        db.table("t").unwrap().scan(Scan::new()).unwrap().count(),
        1000
    );
}

#[test]
fn ordering_against_puts_and_duplicates_in_one_load() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(dir.path(), DbOptions::default().background_threads(0)).unwrap();
    let t = db.create_table(desc()).unwrap();
    // A put before the load, same row, column and timestamp: the load's later sequence id
    // wins.
    t.put(Put::new("a").add_at("f", "q", 100, "put-before"))
        .unwrap();
    let n = t
        .bulk_load(vec![
            Put::new("a").add_at("f", "q", 100, "first"),
            Put::new("a").add_at("f", "q", 100, "loaded"),
            Put::new("b").add_at("f", "q", 100, "loaded"),
        ])
        .unwrap();
    // The last of equal cells in one load counts once and wins.
    assert_eq!(n, 2);
    assert_eq!(
        t.get(Get::new("a")).unwrap().value("f", "q"),
        Some(&b"loaded"[..])
    );
    // A put after the load wins over the loaded cell.
    t.put(Put::new("b").add_at("f", "q", 100, "put-after"))
        .unwrap();
    assert_eq!(
        t.get(Get::new("b")).unwrap().value("f", "q"),
        Some(&b"put-after"[..])
    );
    // Invalid input loads nothing.
    let bad = t.bulk_load(vec![
        Put::new("c").add("f", "q", "ok"),
        Put::new("d").add("nope", "q", "x"),
    ]);
    assert!(matches!(bad, Err(Error::NoSuchFamily { .. })), "{bad:?}");
    assert!(t.get(Get::new("c")).unwrap().is_empty());
}

/// A power cut at every mutating I/O of a bulk load: after the reopen either every loaded
/// cell is there or none is, and nothing unexplained is left in the directory.
#[test]
fn a_power_cut_anywhere_in_a_load_leaves_all_or_nothing() {
    const DIR: &str = "/db";
    let opts = || {
        DbOptions::default()
            .background_threads(0)
            .durability(Durability::FsyncWal)
            .clock(ManualClock::new(NOW))
    };
    let load = |t: &Table| {
        t.bulk_load(
            (0..200u32)
                .rev()
                .map(|i| Put::new(format!("r{:04}", i * 5)).add("f", "q", "v")),
        )
    };
    let prepare = |fs: Arc<dyn cellbase::testing::io::FileSystem>| -> Option<Table> {
        let db = Db::open_with_fs(DIR, opts(), fs).ok()?;
        let t = db.create_table(desc()).ok()?;
        t.put(Put::new("base").add("f", "q", "v")).ok()?;
        Some(t)
    };
    // How many mutating operations a whole load takes.
    let probe = FaultFs::over_mem(MemFs::new());
    let t = prepare(Arc::new(probe.clone())).unwrap();
    let before = probe.mutating_ops();
    load(&t).unwrap();
    let total = probe.mutating_ops();
    assert!(total > before + 4, "{before}..{total}");
    drop(t);
    for n in before..total {
        let mem = MemFs::new();
        let fault = FaultFs::over_mem(mem.clone());
        let t = prepare(Arc::new(fault.clone())).expect("setup before the cut");
        fault.crash_at(n, false);
        let acked = load(&t).is_ok();
        assert!(fault.power_lost(), "cut {n}: the load ended before the cut");
        drop(t);
        fault.crash().unwrap();
        let db = Db::open_with_fs(DIR, opts(), Arc::new(mem))
            .unwrap_or_else(|e| panic!("cut {n}: reopen failed: {e}"));
        assert!(
            db.recovery_report().unexplained_files.is_empty(),
            "cut {n}: {:?}",
            db.recovery_report()
        );
        let t = db.table("t").unwrap();
        let loaded = t
            .scan(Scan::new())
            .unwrap()
            .filter(|r| r.as_ref().unwrap().row() != b"base")
            .count();
        assert!(
            loaded == 0 || loaded == 200,
            "cut {n}: {loaded} of 200 loaded cells after the reopen"
        );
        assert!(
            !acked || loaded == 200,
            "cut {n}: an acknowledged load was lost"
        );
        assert!(!t.get(Get::new("base")).unwrap().is_empty(), "cut {n}");
    }
}
