//! Metrics (issue 23): every counter, gauge and latency of `Db::metrics` moves with the work
//! that it counts, and a scan's `Scanner::metrics` says what that scan did. Deterministic:
//! `background_threads(0)` (flushes, compactions and splits run when the test says), a
//! manual clock, a temporary directory.

use cellbase::*;

fn open(dir: &std::path::Path) -> Db {
    Db::open_with(
        dir,
        DbOptions::default()
            .background_threads(0)
            .clock(ManualClock::new(1_700_000_000_000)),
    )
    .unwrap()
}

fn put(t: &Table, i: u32) {
    t.put(Put::new(format!("row{i:04}")).add("f", "q", format!("value-{i}")))
        .unwrap();
}

#[test]
fn operations_flushes_compactions_and_splits_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let t = db
        .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))
        .unwrap();
    let m0 = db.metrics();
    assert_eq!(m0.flushes, 0);
    assert_eq!(m0.latency(Operation::Put).count, 0);

    for i in 0..100 {
        put(&t, i);
    }
    let m = db.metrics();
    assert_eq!(m.latency(Operation::Put).count, 100);
    assert_eq!(m.write_requests, 100);
    assert!(m.wal_appends >= 100, "{} appends", m.wal_appends);
    assert!(m.wal_appended_bytes > 100 * 20);
    assert!(m.memstore_bytes > 0);
    assert_eq!(m.per_region.len(), 1);
    assert_eq!(m.per_region[0].write_requests, 100);
    assert_eq!(m.per_region[0].table, "t");

    // Two flushes, then a major compaction of their two files into one.
    t.flush().unwrap();
    for i in 100..200 {
        put(&t, i);
    }
    t.flush().unwrap();
    let m = db.metrics();
    assert_eq!(m.flushes, 2);
    assert_eq!(m.flushed_cells, 200);
    assert_eq!(m.store_files, 2);
    assert_eq!(m.flushed_bytes, m.store_file_bytes);
    assert_eq!(m.flush_time.count, 2);
    assert!(m.static_index_bytes > 0);
    assert_eq!(m.memstore_bytes, 0);
    t.major_compact().unwrap();
    let m = db.metrics();
    assert_eq!(m.major_compactions, 1);
    assert_eq!(m.compacted_cells, 200);
    assert!(m.compaction_input_bytes > m.compaction_output_bytes / 2);
    assert_eq!(m.compaction_output_bytes, m.store_file_bytes);
    assert_eq!(m.compaction_time.count, 1);
    assert_eq!(m.store_files, 1);

    // Reads: Gets through the block cache, a Get of a missing row ruled out by the ROW Bloom
    // filter (BLOOM-3), a scan.
    for i in 0..10 {
        assert!(!t.get(Get::new(format!("row{i:04}"))).unwrap().is_empty());
    }
    assert!(t.get(Get::new("row0005x")).unwrap().is_empty());
    let m = db.metrics();
    assert_eq!(m.latency(Operation::Get).count, 11);
    assert!(m.block_cache_hits + m.block_cache_misses >= 10);
    assert!(m.bloom_checked >= 11, "{} checks", m.bloom_checked);
    assert!(m.bloom_useful >= 1, "the missing row was not ruled out");
    let rows = t.scan(Scan::new()).unwrap().count();
    assert_eq!(rows, 200);
    let m = db.metrics();
    assert_eq!(m.latency(Operation::Scan).count, 1);
    assert_eq!(m.read_requests, 11 + 200);

    // Counters of the other operations.
    t.increment(Increment::new("ctr").add("f", "n", 1)).unwrap();
    t.append(Append::new("ctr").add("f", "s", "x")).unwrap();
    t.delete(Delete::new("row0000")).unwrap();
    let m = db.metrics();
    for op in [Operation::Increment, Operation::Append, Operation::Delete] {
        assert_eq!(m.latency(op).count, 1, "{op:?}");
    }

    // A split: counted, timed, two regions listed.
    t.split(Some(b"row0100")).unwrap();
    let m = db.metrics();
    assert_eq!(m.splits, 1);
    assert_eq!(m.split_time.count, 1);
    assert_eq!(m.regions, 2);
    assert_eq!(m.per_region.len(), 2);
    assert_eq!(m.per_region[1].start_key, b"row0100");
    assert_eq!(m.background_errors, 0);
    let put_latency = m.latency(Operation::Put);
    assert!(put_latency.percentile(99.0) >= put_latency.percentile(50.0));
    assert!(put_latency.max_nanos >= put_latency.percentile(99.0));
    assert_eq!(put_latency.buckets.last().unwrap().1, put_latency.count);
}

#[test]
fn wal_syncs_are_counted_and_timed() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(
        dir.path(),
        DbOptions::default()
            .background_threads(0)
            .durability(Durability::FsyncWal),
    )
    .unwrap();
    let t = db
        .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))
        .unwrap();
    for i in 0..20 {
        put(&t, i);
    }
    let m = db.metrics();
    assert!(m.wal_syncs >= 20, "{} syncs", m.wal_syncs);
    assert!(m.wal_sync_time.count >= 20);
    assert!(m.wal_sync_time.min_nanos > 0);
    assert!(m.wal_writes >= 1);
}

#[test]
fn scan_metrics_count_regions_rows_filtered_rows_and_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let t = db
        .create_table(
            TableDescriptor::new("t")
                .family(FamilyDescriptor::new("f"))
                .split_keys(vec![b"row0050".to_vec()]),
        )
        .unwrap();
    for i in 0..100 {
        put(&t, i);
    }
    let mut s = t.scan(Scan::new()).unwrap();
    let mut bytes = 0u64;
    for r in s.by_ref() {
        for c in r.unwrap().cells() {
            bytes += 20
                + (c.row().len() + c.family().len() + c.qualifier().len() + c.value().len()) as u64;
        }
    }
    let m = s.metrics();
    assert_eq!(m.regions_scanned, 2);
    assert_eq!(m.rows_scanned, 100);
    assert_eq!(m.rows_filtered, 0);
    assert_eq!(m.cells_in_results, 100);
    assert_eq!(m.bytes_in_results, bytes);

    // A row filter drops rows: scanned counts them, filtered says how many.
    let f = Filter::parse("RowFilter(=, 'regexstring:row00[0-4][0-9]')").unwrap();
    let mut s = t.scan(Scan::new().filter(f)).unwrap();
    assert_eq!(s.by_ref().count(), 50);
    let m = s.metrics();
    assert_eq!(m.rows_scanned, 100);
    assert_eq!(m.rows_filtered, 50);

    // A salted scan sums its buckets' threads.
    let mut s = t.scan_salted(Scan::new(), 1).unwrap();
    let n = s.by_ref().count();
    assert_eq!(s.metrics().rows_scanned, n as u64);
}
