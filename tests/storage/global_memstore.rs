//! The bound on all memstores of a database together (`DbOptions::global_memstore_size`, HBase's
//! `hbase.regionserver.global.memstore.size` with its lower limit, 95 % unless
//! `DbOptions::global_memstore_lower_limit` sets it), beside the per-region
//! flush size and blocking multiplier [REG-2].

use super::*;

const LIMIT: u64 = 256 << 10;

/// Four regions whose own flush size (64 MiB) no test write reaches: only the global bound
/// flushes them.
fn four_regions(db: &Db) -> Table {
    db.create_table(
        TableDescriptor::new("t")
            .family(FamilyDescriptor::new("f"))
            .split_keys(["r1", "r2", "r3"])
            .memstore_flush_size(64 << 20),
    )
    .unwrap()
}

/// Row `i`, spread round-robin over the four regions.
fn row(i: u32) -> String {
    format!("r{}-{i:06}", i % 4)
}

fn files(t: &Table) -> u32 {
    t.regions().iter().map(|r| r.store_files).sum()
}

fn region_memstores(t: &Table) -> u64 {
    t.regions().iter().map(|r| r.memstore_bytes).sum()
}

/// Options with `background` threads and the global bound `limit`.
fn bounded(background: usize, limit: u64) -> DbOptions {
    DbOptions::default()
        .background_threads(background)
        .global_memstore_size(limit)
}

/// A database with `background` threads and the global bound `limit`.
fn open_bounded(dir: &std::path::Path, background: usize, limit: u64) -> Db {
    Db::open_with(dir, bounded(background, limit)).unwrap()
}

/// Without background threads the writer that takes the total to the bound flushes the
/// largest memstores itself, down below 95 % of it: the total never stays at or above the
/// bound after a write returns, and every cell stays readable.
#[test]
fn the_global_bound_flushes_the_largest_memstores_inline() {
    let dir = tempfile::tempdir().unwrap();
    let db = open_bounded(dir.path(), 0, LIMIT);
    let t = four_regions(&db);
    let mut peak = 0;
    for i in 0..5_000 {
        t.put(Put::new(row(i)).add("f", "q", [7u8; 100])).unwrap();
        let total = db.metrics().memstore_bytes;
        assert!(total < LIMIT, "write {i}: {total} bytes in memstores");
        peak = peak.max(total);
        assert_eq!(total, region_memstores(&t), "write {i}");
    }
    // The bound was reached (and relieved) many times, each time by flushing regions whose
    // own flush size was far away.
    assert!(peak >= LIMIT / 20 * 19 - (1 << 10), "peak {peak}");
    let flushed = files(&t);
    assert!(flushed >= 8, "{flushed} files");
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 5_000);
    t.flush().unwrap();
    assert_eq!(db.metrics().memstore_bytes, 0);
}

/// A lower limit of 0.5 (HBase's `hbase.regionserver.global.memstore.size.lower.limit`):
/// without background threads the writer reaching the bound flushes the largest memstores
/// until the total is below half the bound, so each relief leaves at most half the bound in
/// memory; the bound itself is unchanged.
#[test]
fn a_lower_limit_sets_how_far_global_flushes_go() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(
        dir.path(),
        bounded(0, LIMIT).global_memstore_lower_limit(0.5),
    )
    .unwrap();
    let t = four_regions(&db);
    let (mut prev, mut reliefs, mut peak) = (0, 0, 0);
    for i in 0..4_000 {
        t.put(Put::new(row(i)).add("f", "q", [7u8; 100])).unwrap();
        let total = db.metrics().memstore_bytes;
        assert!(total < LIMIT, "write {i}: {total} bytes in memstores");
        peak = peak.max(total);
        if total < prev {
            reliefs += 1;
            assert!(
                total < LIMIT / 2,
                "write {i}: {total} bytes left after a flush"
            );
        }
        prev = total;
    }
    assert!(reliefs >= 4, "{reliefs} reliefs");
    assert!(peak >= LIMIT - (1 << 10), "peak {peak}");
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 4_000);
}

/// A lower limit outside (0, 1] is refused at open with a typed error.
#[test]
fn a_lower_limit_outside_zero_to_one_is_refused() {
    for bad in [0.0, -0.5, 1.01, f64::NAN, f64::INFINITY] {
        let dir = tempfile::tempdir().unwrap();
        let opts = DbOptions::default().global_memstore_lower_limit(bad);
        match Db::open_with(dir.path(), opts) {
            Err(Error::InvalidArgument(m)) => assert!(m.contains("lower_limit"), "{m}"),
            other => panic!("{bad}: {:?}", other.map(|_| ())),
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let opts = DbOptions::default().global_memstore_lower_limit(1.0);
    Db::open_with(dir.path(), opts).unwrap();
}

/// `global_memstore_size(0)` is no bound: the same writes stay in the memstores.
#[test]
fn a_zero_global_bound_is_no_bound() {
    let dir = tempfile::tempdir().unwrap();
    let db = open_bounded(dir.path(), 0, 0);
    let t = four_regions(&db);
    for i in 0..4_000 {
        t.put(Put::new(row(i)).add("f", "q", [7u8; 100])).unwrap();
    }
    assert_eq!(files(&t), 0);
    let total = db.metrics().memstore_bytes;
    assert!(total > 2 * LIMIT, "{total}");
    assert_eq!(total, region_memstores(&t));
}

/// With background threads, a writer waits while the total is at the bound, and a background
/// thread flushes; after each write returns the total is below the bound, and the data is all
/// there, also after a reopen.
#[test]
fn writers_wait_for_background_flushes_at_the_global_bound() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = open_bounded(dir.path(), 2, LIMIT);
        let t = four_regions(&db);
        for i in 0..4_000 {
            t.put(Put::new(row(i)).add("f", "q", [7u8; 100])).unwrap();
            let total = db.metrics().memstore_bytes;
            assert!(total < LIMIT, "write {i}: {total} bytes in memstores");
        }
        assert!(files(&t) >= 4, "{} files", files(&t));
        assert_eq!(t.scan(Scan::new()).unwrap().count(), 4_000);
        db.close().unwrap();
    }
    let db = Db::open(dir.path()).unwrap();
    let t = db.table("t").unwrap();
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 4_000);
    assert_eq!(db.metrics().memstore_bytes, 0);
}

/// A reader holding a flushed memstore does not keep it in the total (HBase counts a memstore
/// as freed when its flush completes), and a dropped table's memstores leave the total.
#[test]
fn flushed_and_dropped_memstores_leave_the_total() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(dir.path(), DbOptions::default().background_threads(0)).unwrap();
    let t = four_regions(&db);
    for i in 0..100 {
        t.put(Put::new(row(i)).add("f", "q", [7u8; 100])).unwrap();
    }
    let before = db.metrics().memstore_bytes;
    assert!(before > 100 * 100, "{before}");
    let mut scanner = t.scan(Scan::new()).unwrap();
    assert!(scanner.next().is_some());
    t.flush().unwrap();
    assert_eq!(db.metrics().memstore_bytes, 0);
    assert_eq!(scanner.count(), 99);
    for i in 0..100 {
        t.put(Put::new(row(i)).add("f", "q", [8u8; 100])).unwrap();
    }
    assert!(db.metrics().memstore_bytes > 100 * 100);
    drop(t);
    db.disable_table("t").ok();
    db.drop_table("t").unwrap();
    assert_eq!(db.metrics().memstore_bytes, 0);
}
