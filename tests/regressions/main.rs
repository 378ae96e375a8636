//! Regression tests for engine bugs found by the model test (tests/model) and the reliability
//! rig (power-cut and corruption sweeps, tests/storage; see `reliability.rs`). One function per
//! bug; each header says what fails, how it was found, and the rule it breaks.

mod reliability;

#[path = "../common/mod.rs"]
mod common;

use cellbase::{
    Db, DbOptions, Delete, FamilyDescriptor, Get, ManualClock, Put, Scan, Scanner, Table,
    TableDescriptor,
};
use common::TempDir;

/// The model test's setup: manual clock at 1000, no background threads, no automatic flush,
/// families "a" and "b" keeping 1000 versions.
fn setup(dir: &TempDir) -> (Db, Table) {
    let clock = ManualClock::new(1000);
    let options = DbOptions::default()
        .clock(clock)
        .background_threads(0)
        .memstore_flush_size(1 << 40);
    let db = Db::open_with(dir.path(), options).unwrap();
    let t = db
        .create_table(
            TableDescriptor::new("t")
                .family(FamilyDescriptor::new("a").max_versions(1000))
                .family(FamilyDescriptor::new("b").max_versions(1000)),
        )
        .unwrap();
    (db, t)
}

/// (row, timestamp, value) of every cell a scanner returns.
fn drain(s: Scanner) -> Vec<(String, i64, String)> {
    s.map(|r| r.unwrap())
        .flat_map(|r| r.cells().to_vec())
        .map(|c| {
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            (text(c.row()), c.timestamp(), text(c.value()))
        })
        .collect()
}

/// What fails: a Scanner does not see the table as of `scan()`. It takes its MVCC read point
/// in `scan()` but opens its region reader (memstore + store files) only at the first
/// `next()`. A delete written after `scan()` is correctly ignored by the scanner (above its
/// read point), but a flush in between already dropped the Put the delete masks (flush drops
/// masked Puts [DEL-11] without regard to open scanners), so the scanner returns nothing.
/// Expected: `r1 a:q@5=v`, the row as it was when the scan was opened.
///
/// How found: model test, op `ScanInterleaved` (a scanner left open across writes, flushes and
/// compactions), seeds 4 and 9000002; shrunk by hand.
///
/// Rule: API "Scanner ... Sees the table as of scan()"; HBase opens its StoreScanners when the
/// region scanner is created and flush/compaction keep cells above the smallest read point
/// of open scanners and do not use them for masking (hbase-semantics.md §1.7 preamble,
/// `maxReadPointToTrackVersions` in `QM/MinorCompactionScanQueryMatcher.java`).
#[test]
fn open_scanner_loses_row_deleted_and_flushed_after_scan() {
    let dir = TempDir::new("regression");
    let (_db, t) = setup(&dir);
    t.put(Put::new("r1").add_at("a", "q", 5, "v")).unwrap();
    let s = t.scan(Scan::new()).unwrap();
    t.delete(Delete::new("r1").version("a", "q", 5)).unwrap();
    t.flush().unwrap();
    assert_eq!(drain(s), vec![("r1".to_string(), 5, "v".to_string())]);
}

/// What fails: same root cause as above, the other direction. A Put that is masked when the
/// scan is opened (by a marker in a store file, [DEL-1]) comes back to life in the open
/// scanner after a major compaction removes the marker (the Put itself is in the memstore,
/// which a compaction does not touch). Expected: nothing (the row was invisible at `scan()`);
/// actual: `r1 a:q@5=v`.
///
/// How found: model test, op `ScanInterleaved`, seed 4 ("returned, not expected"); shrunk by
/// hand.
///
/// Rule: API "Sees the table as of scan()"; [DEL-1] / [DEL-12]: the re-put is masked until the
/// major compaction, which happens after the scan was opened; an HBase scanner keeps reading
/// the store files it opened until it is closed.
#[test]
fn open_scanner_resurrects_put_whose_marker_major_compaction_removed() {
    let dir = TempDir::new("regression");
    let (_db, t) = setup(&dir);
    t.delete(Delete::new("r1").version("a", "q", 5)).unwrap();
    t.flush().unwrap();
    t.put(Put::new("r1").add_at("a", "q", 5, "v")).unwrap(); // masked [DEL-1]
    assert!(t.get(Get::new("r1")).unwrap().is_empty());
    let s = t.scan(Scan::new()).unwrap();
    t.major_compact().unwrap(); // removes the marker; the memstore Put stays
    assert_eq!(
        drain(s),
        vec![],
        "the scan was opened while r1 was invisible"
    );
}

/// What fails: a major compaction drops delete markers written after an open scanner's read
/// point. HBase keeps such markers (and does not use them for masking) while the scanner is
/// open (`maxReadPointToTrackVersions` = smallest read point in
/// `QM/MajorCompactionScanQueryMatcher.java#match`), so they survive this major compaction and
/// keep masking re-puts [DEL-1] until the next one [DEL-12]. Here the version delete written
/// while the scanner is open survives in HBase, so the later re-put of `a:q@5` stays invisible;
/// cellbase drops the marker and returns `a:q@5=new`.
///
/// How found: model test (seed 9, a full-table check after a flush, long after a
/// `ScanInterleaved` window whose major compaction dropped the marker); shrunk by hand.
///
/// Rule: hbase-semantics.md §1.7 preamble ("Cells whose sequence id is above the smallest
/// read point of open scanners are always kept and never used for masking"), [CMP-5], [DEL-1].
#[test]
fn major_compaction_keeps_markers_newer_than_an_open_scanner() {
    let dir = TempDir::new("regression");
    let (_db, t) = setup(&dir);
    t.put(Put::new("r1").add_at("a", "q", 5, "old")).unwrap();
    t.flush().unwrap();
    let s = t.scan(Scan::new()).unwrap();
    t.delete(Delete::new("r1").version("a", "q", 5)).unwrap(); // above the scanner's read point
    t.flush().unwrap();
    t.major_compact().unwrap(); // must keep that marker: a scanner is open
    drop(s);
    t.put(Put::new("r1").add_at("a", "q", 5, "new")).unwrap();
    let got = t.get(Get::new("r1").column("a", "q")).unwrap();
    assert_eq!(
        got.value("a", "q"),
        None,
        "the marker survived the compaction and masks the re-put"
    );
}
mod damage;
