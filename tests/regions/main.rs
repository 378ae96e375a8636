//! Regions: pre-split tables [PRESPLIT-*], routing [REG-*], splits [SPLIT-*], merges
//! [MERGE-1], metrics.

use cellbase::*;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

mod split_policy;

fn fam() -> FamilyDescriptor {
    FamilyDescriptor::new("f").max_versions(3)
}

fn db0() -> Db {
    Db::temporary_with(DbOptions::default().background_threads(0)).unwrap()
}

fn starts(t: &Table) -> Vec<Vec<u8>> {
    t.regions().into_iter().map(|r| r.start_key).collect()
}

/// Regions are ordered, contiguous, from '' to ''.
fn assert_contiguous(t: &Table) {
    let rs = t.regions();
    assert!(
        rs[0].start_key.is_empty() && rs[rs.len() - 1].end_key.is_empty(),
        "{rs:?}"
    );
    for w in rs.windows(2) {
        assert_eq!(w[0].end_key, w[1].start_key, "{rs:?}");
        assert!(w[0].start_key < w[1].start_key);
    }
    let names: std::collections::BTreeSet<_> = rs.iter().map(|r| r.name.clone()).collect();
    assert_eq!(names.len(), rs.len(), "region names are unique");
}

fn all_rows(t: &Table) -> Vec<(Vec<u8>, Vec<u8>)> {
    t.scan(Scan::new())
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            (r.row().to_vec(), r.value("f", "q").unwrap().to_vec())
        })
        .collect()
}

/// [PRESPLIT-2] [PRESPLIT-3] pre-split tables get exactly HBase's boundaries for every
/// algorithm and N = 2, 3, 4, 10, 16; `rowkey::split_keys` returns the same keys.
#[test]
fn pre_split_boundaries_match_hbase() {
    let db = db0();
    for alg in [
        SplitAlgorithm::HexString,
        SplitAlgorithm::DecimalString,
        SplitAlgorithm::Uniform,
    ] {
        for n in [2u32, 3, 4, 10, 16] {
            let name = format!("t_{alg:?}_{n}");
            let t = db
                .create_table(TableDescriptor::new(&name).family(fam()).pre_split(alg, n))
                .unwrap();
            let keys = rowkey::split_keys(alg, n);
            assert_eq!(keys.len(), n as usize - 1);
            let mut expect = vec![Vec::new()];
            expect.extend(keys);
            assert_eq!(starts(&t), expect, "{alg:?} {n}");
            assert_contiguous(&t);
        }
    }
    // Spot checks against the worked values.
    assert_eq!(
        rowkey::split_keys(SplitAlgorithm::HexString, 10)[0],
        b"19999999"
    );
    assert_eq!(
        rowkey::split_keys(SplitAlgorithm::HexString, 10)[8],
        b"e6666661"
    );
    assert_eq!(
        rowkey::split_keys(SplitAlgorithm::DecimalString, 4),
        [
            b"25000000".to_vec(),
            b"50000000".to_vec(),
            b"75000000".to_vec()
        ]
    );
    assert_eq!(
        rowkey::split_keys(SplitAlgorithm::Uniform, 10)[2],
        [0x4C, 0xCC, 0xCC, 0xCC, 0xCC, 0xCC, 0xCC, 0xCB]
    );
    assert!(rowkey::split_keys(SplitAlgorithm::Uniform, 1).is_empty());
}

/// [PRESPLIT-1] explicit split keys are sorted; empty or duplicate keys are rejected; N-1 keys
/// give N regions; combining with pre_split is rejected.
#[test]
fn explicit_split_keys() {
    let db = db0();
    let t = db
        .create_table(
            TableDescriptor::new("t")
                .family(fam())
                .split_keys(["3", "1", "2"]),
        )
        .unwrap();
    assert_eq!(
        starts(&t),
        [b"".to_vec(), b"1".to_vec(), b"2".to_vec(), b"3".to_vec()]
    );
    let bad = |keys: Vec<&str>| {
        db.create_table(TableDescriptor::new("bad").family(fam()).split_keys(keys))
    };
    assert!(matches!(bad(vec!["a", ""]), Err(Error::InvalidArgument(_))));
    assert!(matches!(
        bad(vec!["a", "a"]),
        Err(Error::InvalidArgument(_))
    ));
    let both = TableDescriptor::new("bad")
        .family(fam())
        .split_keys(["a"])
        .pre_split(SplitAlgorithm::HexString, 4);
    assert!(matches!(
        db.create_table(both),
        Err(Error::InvalidArgument(_))
    ));
    let one = TableDescriptor::new("bad")
        .family(fam())
        .pre_split(SplitAlgorithm::HexString, 1);
    assert!(matches!(
        db.create_table(one),
        Err(Error::InvalidArgument(_))
    ));
    assert_eq!(db.table_names(), ["t"]);
}

/// [REG-*] every mutation and Get goes to the region whose [start, end) holds its row: counted
/// by write/read requests, and visible to scans bounded by region keys.
#[test]
fn routing_puts_rows_in_their_regions() {
    let db = db0();
    let t = db
        .create_table(
            TableDescriptor::new("t")
                .family(fam())
                .split_keys(["b", "d"]),
        )
        .unwrap();
    for row in ["a", "a1", "b", "c", "c9", "d", "zz"] {
        t.put(Put::new(row).add("f", "q", row)).unwrap();
    }
    t.get(Get::new("c")).unwrap();
    let rs = t.regions();
    assert_eq!(
        rs.iter().map(|r| r.write_requests).collect::<Vec<_>>(),
        [2, 3, 2]
    );
    assert_eq!(
        rs.iter().map(|r| r.read_requests).collect::<Vec<_>>(),
        [0, 1, 0]
    );
    for r in &rs {
        let rows: Vec<Vec<u8>> = t
            .scan(Scan::new().start_row(&r.start_key).stop_row(&r.end_key))
            .unwrap()
            .map(|x| x.unwrap().row().to_vec())
            .collect();
        assert_eq!(rows.len() as u64, r.write_requests, "{r:?}");
    }
    // One read request per row a scan returns, counted by the serving region.
    let after = t.regions();
    assert_eq!(
        after.iter().map(|r| r.read_requests).collect::<Vec<_>>(),
        [2, 4, 2]
    );
    // Reversed scans cross regions too.
    let rev: Vec<Vec<u8>> = t
        .scan(Scan::new().reversed(true))
        .unwrap()
        .map(|x| x.unwrap().row().to_vec())
        .collect();
    assert_eq!(
        rev,
        [
            b"zz".to_vec(),
            b"d".to_vec(),
            b"c9".to_vec(),
            b"c".to_vec(),
            b"b".to_vec(),
            b"a1".to_vec(),
            b"a".to_vec()
        ]
    );
}

/// [SPLIT-2] [SPLIT-3] a manual split: daughters share the parent's file until a major
/// compaction rewrites it, then the parent file is deleted; data stays readable throughout.
#[test]
fn split_then_major_compaction_removes_references() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(dir.path(), DbOptions::default().background_threads(0)).unwrap();
    let t = db
        .create_table(TableDescriptor::new("t").family(fam().block_size(1024)))
        .unwrap();
    for i in 0..1000 {
        t.put(Put::new(format!("r{i:04}")).add("f", "q", format!("v{i}")))
            .unwrap();
    }
    let before = all_rows(&t);
    assert!(matches!(
        t.split(Some(b"".as_slice())),
        Err(Error::InvalidArgument(_))
    ));
    t.split(Some(b"r0500".as_slice())).unwrap();
    assert_eq!(starts(&t), [b"".to_vec(), b"r0500".to_vec()]);
    assert_eq!(all_rows(&t), before);
    let files = |d: &std::path::Path| std::fs::read_dir(d.join("data")).unwrap().count();
    assert_eq!(
        files(dir.path()),
        1,
        "both daughters reference the parent's one file"
    );
    assert_eq!(
        t.regions()
            .iter()
            .map(|r| r.store_files)
            .collect::<Vec<_>>(),
        [1, 1]
    );
    // A region still holding references has no split point [SPLIT-2] until compacted; a manual
    // split compacts it first.
    t.major_compact().unwrap();
    assert_eq!(
        files(dir.path()),
        2,
        "each daughter has its own file; the parent file is gone"
    );
    assert_eq!(all_rows(&t), before);
    assert!(
        matches!(
            t.split(Some(b"r0500".as_slice())),
            Err(Error::InvalidArgument(_))
        ),
        "row equals a region start"
    );
    t.split(None).unwrap();
    assert_eq!(
        t.regions().len(),
        4,
        "each region split at its file's mid-key"
    );
    assert_contiguous(&t);
    assert_eq!(all_rows(&t), before);
}

/// [MERGE-1] merging adjacent regions keeps every row; non-adjacent or unknown regions are
/// rejected.
#[test]
fn merge_adjacent_regions() {
    let db = db0();
    let t = db
        .create_table(
            TableDescriptor::new("t")
                .family(fam())
                .split_keys(["b", "c", "d"]),
        )
        .unwrap();
    for row in ["a", "b", "bb", "c", "d", "e"] {
        t.put(Put::new(row).add("f", "q", row)).unwrap();
    }
    t.flush().unwrap();
    t.put(Put::new("b2").add("f", "q", "b2")).unwrap(); // memstore data at merge time
    let before = all_rows(&t);
    let rs = t.regions();
    assert!(matches!(
        t.merge(&rs[0].name, &rs[2].name),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        t.merge(&rs[0].name, "nope"),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        t.merge(&rs[1].name, &rs[1].name),
        Err(Error::InvalidArgument(_))
    ));
    t.merge(&rs[2].name, &rs[1].name).unwrap(); // either order
    assert_eq!(starts(&t), [b"".to_vec(), b"b".to_vec(), b"d".to_vec()]);
    assert_eq!(all_rows(&t), before);
    t.put(Put::new("c5").add("f", "q", "c5")).unwrap();
    assert_eq!(t.regions()[1].write_requests, 1);
    assert_eq!(
        t.get(Get::new("c5")).unwrap().value("f", "q"),
        Some(&b"c5"[..])
    );
}

/// Splits, merges, flushes and reopens in many orders keep every row and every version.
#[test]
fn split_merge_reopen_in_any_order_keep_all_data() {
    let dir = tempfile::tempdir().unwrap();
    let mut expect: BTreeMap<Vec<u8>, Vec<(i64, Vec<u8>)>> = BTreeMap::new();
    let mut seed = 17u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..12 {
        let db = Db::open_with(dir.path(), DbOptions::default().background_threads(0)).unwrap();
        let t = if round == 0 {
            db.create_table(TableDescriptor::new("t").family(fam()))
                .unwrap()
        } else {
            db.table("t").unwrap()
        };
        for _ in 0..150 {
            let row = format!("k{:03}", rnd() % 400).into_bytes();
            let ts = (rnd() % 1000) as i64 + 1;
            let v = format!("v{}", rnd() % 1000).into_bytes();
            t.put(Put::new(&row).add_at("f", "q", ts, &v)).unwrap();
            let vs = expect.entry(row).or_default();
            vs.retain(|(t0, _)| *t0 != ts);
            vs.push((ts, v));
            vs.sort_by_key(|v| std::cmp::Reverse(v.0));
        }
        match rnd() % 4 {
            0 => t.split(None).unwrap(),
            1 => {
                let rs = t.regions();
                if rs.len() > 1 {
                    let i = (rnd() as usize) % (rs.len() - 1);
                    t.merge(&rs[i].name, &rs[i + 1].name).unwrap();
                }
            }
            2 => t.major_compact().unwrap(),
            _ => t.flush().unwrap(),
        }
        assert_contiguous(&t);
        if round % 3 == 2 {
            drop(t);
            db.close().unwrap();
        }
    }
    let db = Db::open_with(dir.path(), DbOptions::default().background_threads(0)).unwrap();
    let t = db.table("t").unwrap();
    assert_contiguous(&t);
    let got: BTreeMap<Vec<u8>, Vec<(i64, Vec<u8>)>> = t
        .scan(Scan::new().all_versions())
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            (
                r.row().to_vec(),
                r.versions("f", "q")
                    .into_iter()
                    .map(|(ts, v)| (ts, v.to_vec()))
                    .collect(),
            )
        })
        .collect();
    let want: BTreeMap<Vec<u8>, Vec<(i64, Vec<u8>)>> = expect
        .into_iter()
        .map(|(k, mut v)| {
            v.truncate(3);
            (k, v)
        })
        .collect();
    assert_eq!(got, want);
}

/// [SPLIT-1] Automatic splits (background threads, tiny max_region_size): every row is readable with
/// the right versions, regions stay contiguous and ordered, and no region grows unbounded.
#[test]
fn automatic_splits_under_load() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(dir.path(), DbOptions::default().background_threads(2)).unwrap();
    let t = db
        .create_table(
            TableDescriptor::new("t")
                .family(fam())
                .memstore_flush_size(32 << 10)
                .max_region_size(64 << 10),
        )
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let scanner = {
        let t = t.clone();
        let stop = stop.clone();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let rows: Vec<Vec<u8>> = t
                    .scan(Scan::new())
                    .unwrap()
                    .map(|r| r.unwrap().row().to_vec())
                    .collect();
                assert!(
                    rows.windows(2).all(|w| w[0] < w[1]),
                    "a scan during splits repeated or reordered rows"
                );
            }
        })
    };
    for i in 0..6000u64 {
        let row = format!("{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        t.put(Put::new(&row).add_at("f", "q", 1, format!("a{i}")).add_at(
            "f",
            "q",
            2,
            format!("b{i}"),
        ))
        .unwrap();
    }
    // Let background splits and compactions settle.
    for _ in 0..200 {
        std::thread::sleep(std::time::Duration::from_millis(20));
        t.flush().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    scanner.join().unwrap();
    assert_contiguous(&t);
    let rs = t.regions();
    assert!(
        rs.len() >= 4,
        "{} regions after 6000 rows with 64 KiB max_region_size",
        rs.len()
    );
    let biggest = rs.iter().map(|r| r.store_file_bytes).max().unwrap();
    assert!(biggest < 1 << 20, "a region grew to {biggest} bytes");
    let rows: Vec<RowResult> = t
        .scan(Scan::new().all_versions())
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(rows.len(), 6000);
    for r in &rows {
        let v = r.versions("f", "q");
        assert_eq!(v.len(), 2, "{r:?}");
        assert!(v[0].1.starts_with(b"b") && v[1].1.starts_with(b"a"));
    }
    drop(t);
    db.close().unwrap();
    let db = Db::open(dir.path()).unwrap();
    let t = db.table("t").unwrap();
    assert_contiguous(&t);
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 6000);
}

/// `scan_salted` returns exactly the rows of the unsalted range, in unsalted order (forward and
/// reversed), keeping their salted keys; `limit` counts merged rows.
#[test]
fn scan_salted_merges_buckets_in_unsalted_order() {
    let db = db0();
    let buckets = 8u16;
    let prefixes = rowkey::salted_prefixes(buckets);
    let splits: Vec<Vec<u8>> = prefixes[1..].to_vec();
    let t = db
        .create_table(TableDescriptor::new("t").family(fam()).split_keys(splits))
        .unwrap();
    let keys: Vec<String> = (0..500)
        .map(|i| format!("user{:04}", (i * 37) % 1000))
        .collect();
    for k in &keys {
        t.put(Put::new(rowkey::salt(k.as_bytes(), buckets)).add("f", "q", k))
            .unwrap();
    }
    let unsalt = |r: &RowResult| r.row()[1..].to_vec();
    let mut want: Vec<Vec<u8>> = keys
        .iter()
        .map(|k| k.clone().into_bytes())
        .filter(|k| k.as_slice() >= &b"user0200"[..] && k.as_slice() < &b"user0600"[..])
        .collect();
    want.sort();
    want.dedup();
    let got: Vec<RowResult> = t
        .scan_salted(
            Scan::new().start_row("user0200").stop_row("user0600"),
            buckets,
        )
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(got.iter().map(unsalt).collect::<Vec<_>>(), want);
    for r in &got {
        assert_eq!(
            r.row(),
            rowkey::salt(&r.row()[1..], buckets).as_slice(),
            "rows keep their salted keys"
        );
    }
    let rev: Vec<Vec<u8>> = t
        .scan_salted(
            Scan::new()
                .start_row("user0599")
                .stop_row("user0199")
                .reversed(true),
            buckets,
        )
        .unwrap()
        .map(|r| unsalt(&r.unwrap()))
        .collect();
    let mut want_rev = want.clone();
    want_rev.reverse();
    assert_eq!(rev, want_rev);
    let limited: Vec<Vec<u8>> = t
        .scan_salted(Scan::new().limit(5), buckets)
        .unwrap()
        .map(|r| unsalt(&r.unwrap()))
        .collect();
    let mut all: Vec<Vec<u8>> = keys.iter().map(|k| k.clone().into_bytes()).collect();
    all.sort();
    all.dedup();
    assert_eq!(limited, all[..5].to_vec());
    assert_eq!(
        t.scan_salted(Scan::new().prefix("user09"), buckets)
            .unwrap()
            .count(),
        all.iter().filter(|k| k.starts_with(b"user09")).count()
    );
    // Every bucket's region served reads.
    assert!(t.regions().iter().all(|r| r.read_requests > 0));
}

/// A scanner sees the table as of `scan()` in every region, also in regions it reaches after
/// later writes, flushes, compactions and splits (one read point for the whole scan).
#[test]
fn scanner_sees_one_snapshot_across_regions() {
    let db = db0();
    let t = db
        .create_table(TableDescriptor::new("t").family(fam()).split_keys(["m"]))
        .unwrap();
    for row in ["a", "b", "n", "o"] {
        t.put(Put::new(row).add_at("f", "q", 1, "old")).unwrap();
    }
    let mut s = t.scan(Scan::new()).unwrap();
    assert_eq!(s.next().unwrap().unwrap().row(), b"a");
    // Later writes in the region the scanner has not reached yet.
    t.put(Put::new("n").add_at("f", "q", 2, "new")).unwrap();
    t.put(Put::new("p").add_at("f", "q", 1, "added")).unwrap();
    t.delete(Delete::new("o")).unwrap();
    t.flush().unwrap();
    t.major_compact().unwrap();
    t.split(Some(b"o".as_slice())).unwrap();
    let rest: Vec<(Vec<u8>, Vec<u8>)> = s
        .map(|r| {
            let r = r.unwrap();
            (r.row().to_vec(), r.value("f", "q").unwrap().to_vec())
        })
        .collect();
    assert_eq!(
        rest,
        [
            (b"b".to_vec(), b"old".to_vec()),
            (b"n".to_vec(), b"old".to_vec()),
            (b"o".to_vec(), b"old".to_vec())
        ]
    );
}

/// The snapshot holds in regions a scan reaches later even when a major compaction there
/// removes a delete marker (from files) while the put it masks stays in the memstore: the put
/// was invisible when the scan opened and stays invisible to it [DEL-1] [DEL-12].
#[test]
fn later_region_compaction_does_not_resurrect_for_an_open_scanner() {
    let db = db0();
    let t = db
        .create_table(TableDescriptor::new("t").family(fam()).split_keys(["m"]))
        .unwrap();
    t.put(Put::new("a").add_at("f", "q", 1, "a")).unwrap();
    t.delete(Delete::new("z").version("f", "q", 5)).unwrap();
    t.flush().unwrap();
    t.put(Put::new("z").add_at("f", "q", 5, "masked")).unwrap(); // masked, in the memstore
    let s = t.scan(Scan::new()).unwrap();
    t.major_compact().unwrap(); // drops the marker from region [m, '')
    let rows: Vec<Vec<u8>> = s.map(|r| r.unwrap().row().to_vec()).collect();
    assert_eq!(rows, [b"a".to_vec()], "the open scan keeps its snapshot");
    // A new scan sees the re-put, as HBase does after the marker is gone [DEL-12].
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 2);
}
