//! ROWPREFIX_FIXED_LENGTH Bloom filters through the public API [BLOOM-5] [BLOOM-1], after
//! HBase's `TestRowPrefixBloomFilter` (`testRowPrefixBloomFilter`,
//! `testRowPrefixBloomFilterWithGet`, `testRowPrefixBloomFilterWithScan`): its rows (prefix
//! length 10, rows `%010d#%010d`, short rows `%08d`), spread over five block files whose key
//! ranges all overlap, so only the Bloom filters can rule a file out. Files skipped are
//! counted by `Db::metrics` (`bloom_checked`, `bloom_useful`, `data_blocks_read`); results
//! never change.

use super::*;

const FILES: i32 = 5;

/// A database without a block cache (every data block read is counted) and table `t` whose
/// family `f` has a ROWPREFIX_FIXED_LENGTH filter of 10 bytes. File `k` holds the prefixes
/// `i ≡ k (mod 5)` for even `i` below 50 (ten rows each) and the short rows `%08d(i)` for even
/// `i` in 50..100 with `i ≡ k (mod 5)`.
fn setup() -> (tempfile::TempDir, Db, Table) {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(
        dir.path(),
        DbOptions::default()
            .clock(ManualClock::new(1_000))
            .background_threads(0)
            .block_cache_size(0),
    )
    .unwrap();
    let t = db
        .create_table(
            TableDescriptor::new("t").family(
                FamilyDescriptor::new("f").bloom_filter(BloomType::RowPrefixFixedLength(10)),
            ),
        )
        .unwrap();
    for k in 0..FILES {
        for i in (0..50).filter(|i| i % 2 == 0 && i % FILES == k) {
            for j in 0..10 {
                t.put(Put::new(row(i, j)).add_at("f", "col", 1, "value"))
                    .unwrap();
            }
        }
        for i in (50..100).filter(|i| i % 2 == 0 && i % FILES == k) {
            t.put(Put::new(format!("{i:08}")).add_at("f", "col", 1, "value"))
                .unwrap();
        }
        t.flush().unwrap();
    }
    assert_eq!(t.regions()[0].store_files, FILES as u32);
    (dir, db, t)
}

fn row(i: i32, j: i32) -> String {
    format!("{i:010}#{j:010}")
}

/// `(bloom checks, files ruled out, data blocks read)` while `f` runs.
fn counted(db: &Db, f: impl FnOnce()) -> (u64, u64, u64) {
    let m = db.metrics();
    f();
    let n = db.metrics();
    (
        n.bloom_checked - m.bloom_checked,
        n.bloom_useful - m.bloom_useful,
        n.data_blocks_read - m.data_blocks_read,
    )
}

fn scan_rows(t: &Table, s: Scan) -> Vec<String> {
    t.scan(s)
        .unwrap()
        .map(|r| String::from_utf8_lossy(r.unwrap().row()).into_owned())
        .collect()
}

/// [BLOOM-5] `testRowPrefixBloomFilterWithGet`: a Get checks the row's first 10 bytes in every
/// file; a present prefix is read from its one file, an absent one from none; rows shorter than
/// the prefix are keyed whole.
#[test]
fn gets_check_the_row_prefix() {
    let (_dir, db, t) = setup();
    // A present prefix: its file answers, the other four are ruled out (barring a false
    // positive at 1 %).
    let (checked, out, blocks) = counted(&db, || {
        let r = t.get(Get::new(row(48, 3))).unwrap();
        assert_eq!(r.value("f", "col"), Some(&b"value"[..]));
    });
    assert_eq!(checked, FILES as u64);
    assert!(out >= 3, "{out} of 4 files ruled out");
    assert!(blocks <= 2, "{blocks} blocks read");
    // A row never written under a present prefix: its file may hold it (the prefix is in it).
    assert!(t.get(Get::new(row(48, 99))).unwrap().is_empty());
    // Absent prefixes inside every file's key range (file 3 starts at prefix 8): 20 Gets over
    // 5 files, at most a few false positives.
    let (checked, out, blocks) = counted(&db, || {
        for i in (11..50).step_by(2) {
            assert!(t.get(Get::new(row(i, 0))).unwrap().is_empty());
        }
    });
    assert_eq!(checked, 100);
    assert!(out >= 96, "{out} of 100 checks ruled a file out");
    assert!(blocks <= 5, "{blocks} blocks read for absent prefixes");
    // Rows shorter than the prefix: the whole row is the key. Each of the 25 present rows
    // passes the filter of its own file; every other check (files whose key range holds the
    // row) rules its file out, barring a few false positives.
    let (checked, out, _) = counted(&db, || {
        for i in 50..100 {
            let r = t.get(Get::new(format!("{i:08}"))).unwrap();
            assert_eq!(r.is_empty(), i % 2 == 1, "{i:08}");
        }
    });
    assert!(checked >= 150, "{checked} checks");
    assert!(checked - out <= 25 + 5, "{checked} checks, {out} ruled out");
    // A single-column Get uses the prefix filter too (HBase ignores the columns for it).
    let (checked, out, _) = counted(&db, || {
        assert!(
            t.get(Get::new(row(49, 0)).column("f", "col"))
                .unwrap()
                .is_empty()
        );
    });
    assert_eq!((checked, out), (5, 5));
}

/// [BLOOM-5] `testRowPrefixBloomFilterWithScan`: a scan whose start and stop rows share at
/// least 10 bytes checks that prefix and skips the files without it (forward and reversed);
/// one without a stop row, or whose rows share fewer bytes, cannot use the filter and reads
/// every file. Results are exact either way.
#[test]
fn scans_with_a_long_common_prefix_skip_files() {
    let (_dir, db, t) = setup();
    let within = |i: i32| Scan::new().start_row(row(i, 2)).stop_row(row(i, 7));
    let want: Vec<String> = (2..7).map(|j| row(24, j)).collect();
    let (checked, out, blocks) = counted(&db, || assert_eq!(scan_rows(&t, within(24)), want));
    assert_eq!(checked, FILES as u64);
    assert!(out >= 3, "{out}");
    assert!(blocks <= 2, "{blocks} blocks read");
    // Reversed: the start row is the high bound; the same prefix.
    let reversed = Scan::new()
        .reversed(true)
        .start_row(row(24, 6))
        .stop_row(row(24, 1));
    let (checked, out, _) = counted(&db, || {
        let mut rev = want.clone();
        rev.reverse();
        assert_eq!(scan_rows(&t, reversed), rev);
    });
    assert_eq!(checked, FILES as u64);
    assert!(out >= 3, "{out}");
    // An absent prefix: every file ruled out, no block read (barring false positives).
    let (checked, out, blocks) = counted(&db, || assert!(scan_rows(&t, within(25)).is_empty()));
    assert_eq!(checked, FILES as u64);
    assert!(out >= 4 && blocks <= 1, "{out} ruled out, {blocks} blocks");
    // Not answerable: no stop row; a common prefix of 9 bytes (rows 24 to 26).
    for s in [
        Scan::new().start_row(row(24, 0)).limit(3),
        Scan::new().start_row(row(24, 0)).stop_row(row(26, 0)),
    ] {
        let (checked, out, _) = counted(&db, || {
            assert_eq!(
                scan_rows(&t, s.clone())[..3],
                [row(24, 0), row(24, 1), row(24, 2)]
            );
        });
        assert_eq!((checked, out), (0, 0), "{s:?}");
    }
    // A prefix scan of exactly the prefix: its stop row is the prefix with its last byte
    // incremented, so start and stop share 9 bytes and HBase's rule does not apply; one byte
    // more and it does.
    let (checked, _, _) = counted(&db, || {
        assert_eq!(
            scan_rows(&t, Scan::new().prefix(format!("{:010}", 24))).len(),
            10
        );
    });
    assert_eq!(checked, 0);
    let (checked, out, _) = counted(&db, || {
        assert_eq!(
            scan_rows(&t, Scan::new().prefix(format!("{:010}#", 24))).len(),
            10
        );
    });
    assert_eq!(checked, FILES as u64);
    assert!(out >= 3);
}

/// [BLOOM-1] Blooms never change results: with cells also in the memstore (never filtered),
/// after an alter of the prefix length (old files keep the length they were written with,
/// new ones use the new one) and after a major compaction, every Get and every prefix-bounded
/// scan returns what a table without a filter returns.
#[test]
fn results_never_change() {
    let (_dir, db, t) = setup();
    let plain = db
        .create_table(
            TableDescriptor::new("plain")
                .family(FamilyDescriptor::new("f").bloom_filter(BloomType::None)),
        )
        .unwrap();
    for r in t.scan(Scan::new()).unwrap() {
        let r = r.unwrap();
        plain
            .put(Put::new(r.row()).add_at("f", "col", 1, "value"))
            .unwrap();
    }
    let extra = |t: &Table, i: i32| {
        t.put(Put::new(row(i, 3)).add_at("f", "col", 2, "new"))
            .unwrap();
    };
    // An absent prefix written to the memstore, then a new prefix length and a flush.
    extra(&t, 31);
    extra(&plain, 31);
    db.alter_family(
        "t",
        FamilyDescriptor::new("f").bloom_filter(BloomType::RowPrefixFixedLength(4)),
    )
    .unwrap();
    assert_eq!(
        db.describe("t").unwrap().families()[0].bloom_filter,
        BloomType::RowPrefixFixedLength(4)
    );
    extra(&t, 33);
    extra(&plain, 33);
    let compare = |stage: &str| {
        for i in 0..100 {
            for r in [row(i, 3), format!("{i:08}"), row(i, 11)] {
                assert_eq!(
                    t.get(Get::new(&r)).unwrap().cells(),
                    plain.get(Get::new(&r)).unwrap().cells(),
                    "{stage}: {r}"
                );
            }
            let s = Scan::new().start_row(row(i, 1)).stop_row(row(i, 8));
            assert_eq!(
                scan_rows(&t, s.clone()),
                scan_rows(&plain, s),
                "{stage}: {i}"
            );
        }
    };
    compare("memstore");
    t.flush().unwrap();
    compare("flushed with two prefix lengths");
    t.major_compact().unwrap();
    assert_eq!(t.regions()[0].store_files, 1);
    compare("compacted");
    let (checked, out, _) = counted(&db, || {
        assert!(t.get(Get::new(row(35, 0))).unwrap().is_empty());
    });
    assert_eq!(
        (checked, out),
        (1, 0),
        "prefix 0000 is in the compacted file"
    );
}
