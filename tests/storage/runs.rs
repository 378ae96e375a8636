//! Sorted runs (src/engine/runs.rs): consecutive files whose rows do not overlap and that
//! hold nothing a minor compaction drops count as one file for the exploring policy [REG-1];
//! a minor compaction never rewrites a run into itself. After a split, a minor compaction
//! rewrites only the files shared with the other daughter (docs/SEMANTICS.md).

use super::open;
use cellbase::*;
use std::time::Duration;

/// A database in a new directory, its clock at `now_ms`, holding table "t" of `family`
/// (bind the directory to a named variable: it is removed when dropped).
fn fixture(now_ms: i64, family: FamilyDescriptor) -> (tempfile::TempDir, ManualClock, Db, Table) {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(now_ms);
    let db = open(dir.path(), &clock);
    let t = db
        .create_table(TableDescriptor::new("t").family(family))
        .unwrap();
    (dir, clock, db, t)
}

/// Writes rows `{prefix}0`..`{prefix}4` and flushes: one file holding only those rows.
fn flush_rows(t: &Table, prefix: &str, value: &str) {
    for i in 0..5 {
        t.put(Put::new(format!("{prefix}{i}")).add("f", "q", value))
            .unwrap();
    }
    t.flush().unwrap();
}

fn files(t: &Table) -> u32 {
    t.regions().iter().map(|r| r.store_files).sum()
}

fn value(t: &Table, row: &str) -> Option<Vec<u8>> {
    t.get(Get::new(row).column("f", "q"))
        .unwrap()
        .value("f", "q")
        .map(<[u8]>::to_vec)
}

#[test]
fn files_of_disjoint_rows_are_one_run_that_compact_leaves_alone() {
    let (_dir, _clock, db, t) = fixture(1_000, FamilyDescriptor::new("f"));
    // A sequential load: each flush holds rows after the previous one's.
    for p in ["a", "b", "c", "d", "e", "f"] {
        flush_rows(&t, p, "v1");
    }
    assert_eq!(files(&t), 6);
    t.compact().unwrap();
    let m = db.metrics();
    assert_eq!(files(&t), 6, "one run: nothing to compact");
    assert_eq!(
        (
            m.minor_compactions,
            m.major_compactions,
            m.compaction_input_bytes
        ),
        (0, 0, 0),
        "no byte rewritten"
    );
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 30);
    assert_eq!(value(&t, "c3").as_deref(), Some(&b"v1"[..]));

    // A file sharing a row with the run is a run of its own: two runs, still nothing to do.
    t.put(Put::new("b2").add("f", "q", "v2")).unwrap();
    t.flush().unwrap();
    t.compact().unwrap();
    assert_eq!(files(&t), 7, "two runs: below compaction.min (3)");
    // A file of a row no other file holds joins the run before it (the second one).
    t.put(Put::new("e9").add("f", "q", "v3")).unwrap();
    t.flush().unwrap();
    t.compact().unwrap();
    assert_eq!(files(&t), 8, "still two runs");
    // A third run: every run qualifies, so every file is compacted (a major compaction).
    t.put(Put::new("e9").add("f", "q", "v4")).unwrap();
    t.flush().unwrap();
    t.compact().unwrap();
    assert_eq!(files(&t), 1);
    let m = db.metrics();
    assert_eq!(m.major_compactions, 1);
    assert!(m.compaction_input_bytes > 0);
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 31);
    assert_eq!(value(&t, "b2").as_deref(), Some(&b"v2"[..]));
    assert_eq!(value(&t, "e9").as_deref(), Some(&b"v4"[..]));
    assert_eq!(value(&t, "a0").as_deref(), Some(&b"v1"[..]));
}

/// A file holding a delete marker has something a compaction drops (the cells it masks, and
/// itself in a major one [DEL-11]): it never joins a run.
#[test]
fn a_file_with_a_delete_marker_is_a_run_of_its_own() {
    let (_dir, _clock, _db, t) = fixture(1_000, FamilyDescriptor::new("f"));
    flush_rows(&t, "a", "v1");
    for i in 0..5 {
        t.put(Put::new(format!("b{i}")).add("f", "q", "v1"))
            .unwrap();
    }
    t.delete(Delete::new("b1")).unwrap();
    t.flush().unwrap();
    flush_rows(&t, "c", "v1");
    assert_eq!(files(&t), 3);
    t.compact().unwrap();
    assert_eq!(files(&t), 1, "three runs: compacted");
    assert_eq!(value(&t, "b1"), None);
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 14);
    // The major compaction dropped the marker with the Put it masked [DEL-11].
    let raw = t.scan(Scan::new().raw(true)).unwrap().count();
    assert_eq!(raw, 14);
}

/// A file holding a cell past the family's TTL has something a compaction drops [TTL-5]: it
/// never joins a run.
#[test]
fn a_file_with_expired_cells_is_a_run_of_its_own() {
    let (_dir, clock, _db, t) = fixture(
        1_000_000,
        FamilyDescriptor::new("f").ttl(Duration::from_secs(10)),
    );
    flush_rows(&t, "a", "v1");
    // The middle file's cells are older: they expire first.
    for i in 0..5 {
        t.put(Put::new(format!("b{i}")).add_at("f", "q", 995_000, "old"))
            .unwrap();
    }
    t.flush().unwrap();
    flush_rows(&t, "c", "v1");
    t.compact().unwrap();
    assert_eq!(files(&t), 3, "nothing expired yet: one run");
    clock.advance(Duration::from_secs(6));
    t.compact().unwrap();
    assert_eq!(
        files(&t),
        1,
        "the middle file's cells expired: three runs, compacted"
    );
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 10);
    assert_eq!(value(&t, "b0"), None);
}

/// After a split, each daughter's minor compaction rewrites only the file the daughters
/// share (the one holding the split row); the files wholly on one side stay as they are.
#[test]
fn after_a_split_only_the_shared_file_is_rewritten() {
    let (_dir, _clock, db, t) = fixture(1_000, FamilyDescriptor::new("f"));
    flush_rows(&t, "a", "v1");
    flush_rows(&t, "b", "v1");
    let before_c = t.regions()[0].store_file_bytes;
    flush_rows(&t, "c", "v1");
    let c_bytes = t.regions()[0].store_file_bytes - before_c;
    flush_rows(&t, "d", "v1");
    t.split(Some(b"c2")).unwrap();
    let regions = t.regions();
    assert_eq!(regions.len(), 2);
    // Left: a, b and the shared c; right: the shared c and d.
    assert_eq!(
        regions.iter().map(|r| r.store_files).collect::<Vec<_>>(),
        [3, 2]
    );
    t.compact().unwrap();
    let m = db.metrics();
    assert_eq!(
        m.compaction_input_bytes,
        2 * c_bytes,
        "each daughter read only the shared file"
    );
    assert_eq!(
        (m.minor_compactions, m.major_compactions),
        (2, 0),
        "each daughter: a minor compaction of 1 of its files"
    );
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 20);
    for row in ["a0", "b4", "c0", "c1", "c2", "c4", "d3"] {
        assert_eq!(value(&t, row).as_deref(), Some(&b"v1"[..]), "{row}");
    }
    // No references are left: the daughters can split again.
    t.split(Some(b"a3")).unwrap();
    assert_eq!(t.regions().len(), 3);
}

/// A scan walks a run with one cursor that opens only the file it is in: a short scan reads
/// the blocks of one file, not one block of every file after its start row. Forward,
/// reversed, bounded and over a memstore and an overlapping file, it returns what a scan of
/// a single file would (checked against the rows written).
#[test]
fn scans_walk_a_run_one_file_at_a_time() {
    let (_dir, _clock, db, t) = fixture(1_000, FamilyDescriptor::new("f"));
    let prefixes = ["a", "b", "c", "d", "e", "f", "g", "h"];
    for p in prefixes {
        flush_rows(&t, p, "v1");
    }
    assert_eq!(files(&t), 8);
    let before = db.metrics().data_blocks_read;
    let rows: Vec<Vec<u8>> = t
        .scan(Scan::new().start_row("b3").limit(3))
        .unwrap()
        .map(|r| r.unwrap().row().to_vec())
        .collect();
    assert_eq!(rows, [&b"b3"[..], b"b4", b"c0"]);
    let read = db.metrics().data_blocks_read - before;
    assert!(read <= 2, "{read} data blocks read for 3 rows in 2 files");

    // Rows of a memstore and of a file overlapping the run are merged in.
    t.put(Put::new("c2").add("f", "q", "v2")).unwrap();
    t.put(Put::new("e9").add("f", "q", "v2")).unwrap();
    t.flush().unwrap();
    t.put(Put::new("d0").add("f", "q", "v3")).unwrap();
    t.put(Put::new("a9").add("f", "q", "v3")).unwrap();
    let mut expected: Vec<(String, String)> = Vec::new();
    for p in prefixes {
        for i in 0..5 {
            expected.push((format!("{p}{i}"), "v1".into()));
        }
    }
    for (row, v) in [("c2", "v2"), ("e9", "v2"), ("d0", "v3"), ("a9", "v3")] {
        match expected.iter_mut().find(|(r, _)| r == row) {
            Some(e) => e.1 = v.into(),
            None => expected.push((row.into(), v.into())),
        }
    }
    expected.sort();
    let got = |scan: Scan| -> Vec<(String, String)> {
        t.scan(scan)
            .unwrap()
            .map(|r| {
                let r = r.unwrap();
                (
                    String::from_utf8(r.row().to_vec()).unwrap(),
                    String::from_utf8(r.value("f", "q").unwrap().to_vec()).unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(got(Scan::new()), expected);
    let mut reversed = expected.clone();
    reversed.reverse();
    assert_eq!(got(Scan::new().reversed(true)), reversed);
    let from_c1: Vec<_> = expected
        .iter()
        .filter(|(r, _)| r.as_str() >= "c1")
        .cloned()
        .collect();
    assert_eq!(got(Scan::new().start_row("c1")), from_c1);
    let c1_to_f2: Vec<_> = from_c1
        .iter()
        .filter(|(r, _)| r.as_str() < "f2")
        .cloned()
        .collect();
    assert_eq!(got(Scan::new().start_row("c1").stop_row("f2")), c1_to_f2);
    // Reversed from a row between two files of the run, and from one inside a file.
    let down_from: Vec<_> = reversed
        .iter()
        .filter(|(r, _)| r.as_str() <= "e5")
        .cloned()
        .collect();
    assert_eq!(got(Scan::new().reversed(true).start_row("e5")), down_from);
    let down_from: Vec<_> = reversed
        .iter()
        .filter(|(r, _)| r.as_str() <= "b2")
        .cloned()
        .collect();
    assert_eq!(got(Scan::new().reversed(true).start_row("b2")), down_from);
    assert_eq!(got(Scan::new().start_row("z")), Vec::new());
}

/// A store of small sequential files (one block each, so each file's own mid-key is its first
/// row) still offers a split point: the run stands as the one file a compaction would have made
/// of it, and its mid row is the middle of the run by size [SPLIT-2]. Data that would fit one
/// block after that compaction offers none, as one small file offers none.
#[test]
fn a_run_of_one_block_files_still_splits_in_its_middle() {
    // Each file's five cells fit one 1 KiB block; the eight files' would need two.
    let (_dir, _clock, _db, t) = fixture(1_000, FamilyDescriptor::new("f").block_size(1024));
    let prefixes = ["a", "b", "c", "d", "e", "f", "g", "h"];
    for p in prefixes {
        flush_rows(&t, p, "v1");
    }
    assert_eq!(files(&t), 8);
    t.split(None).unwrap();
    let regions = t.regions();
    assert_eq!(regions.len(), 2, "{regions:?}");
    let boundary = regions[1].start_key.clone();
    assert!(
        [&b"d0"[..], b"e0"].contains(&boundary.as_slice()),
        "split at {:?}, not the middle of the run",
        String::from_utf8_lossy(&boundary)
    );
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 40);
}

/// The same run with the default 64 KiB blocks: compacted, its 40 small cells would be one
/// block, whose mid-key is its first key: no split point, as HBase's one compacted file.
#[test]
fn a_run_that_would_compact_into_one_block_does_not_split() {
    let (_dir, _clock, _db, t) = fixture(1_000, FamilyDescriptor::new("f"));
    for p in ["a", "b", "c", "d", "e", "f", "g", "h"] {
        flush_rows(&t, p, "v1");
    }
    t.split(None).unwrap();
    assert_eq!(t.regions().len(), 1);
}
