//! DATA_BLOCK_ENCODING through the database (HBase's `TestDataBlockEncoders` /
//! `TestEncodedSeekers` round trip every encoding through the store; cellbase's DIFF and
//! FAST_DIFF write suffix-delta entries, NONE, PREFIX and ROW_INDEX_V1 prefix-compressed ones,
//! docs/SEMANTICS.md). A FAST_DIFF family flushes and compacts into suffix-delta files, is
//! altered back to NONE, whose later files are prefix-compressed while the older ones keep
//! their encoding, and a major compaction rewrites everything as NONE. At every step, and
//! after every reopen, every read is exactly what a NONE family fed the same writes returns.

use cellbase::inspect::BlockFile;
use cellbase::{
    CellType, DataBlockEncoding, Db, DbOptions, Delete, FamilyDescriptor, Get, ManualClock, Put,
    Scan, Table, TableDescriptor,
};
use std::path::Path;
use std::time::Duration;

const NOW: i64 = 1_700_000_000_000;

fn opts(clock: &ManualClock) -> DbOptions {
    // No background threads: flushes and compactions run when the test says.
    DbOptions::default()
        .background_threads(0)
        .clock(clock.clone())
}

fn family(e: DataBlockEncoding) -> FamilyDescriptor {
    FamilyDescriptor::new("f")
        .max_versions(1000)
        .block_size(1024)
        .data_block_encoding(e)
}

/// One cell as a read returns it.
type Seen = (Vec<u8>, Vec<u8>, i64, CellType, Vec<u8>);

/// Every cell a raw scan of all versions returns (delete markers included).
fn raw_cells(t: &Table) -> Vec<Seen> {
    let mut out = Vec::new();
    for r in t
        .scan(Scan::new().raw(true).max_versions(u32::MAX))
        .unwrap()
    {
        for c in r.unwrap().cells() {
            out.push((
                c.row().to_vec(),
                c.qualifier().to_vec(),
                c.timestamp(),
                c.cell_type(),
                c.value().to_vec(),
            ));
        }
    }
    out
}

/// What a user read sees: a scan of the newest versions, a reverse scan, and Gets of some rows
/// (all versions).
fn user_reads(t: &Table) -> Vec<Seen> {
    let mut out = Vec::new();
    let mut push = |cells: &[cellbase::Cell]| {
        for c in cells {
            out.push((
                c.row().to_vec(),
                c.qualifier().to_vec(),
                c.timestamp(),
                c.cell_type(),
                c.value().to_vec(),
            ));
        }
    };
    for r in t.scan(Scan::new()).unwrap() {
        push(r.unwrap().cells());
    }
    for r in t.scan(Scan::new().reversed(true)).unwrap() {
        push(r.unwrap().cells());
    }
    for row in ["user007", "user123", "counter", "gone", "ttl03", "absent"] {
        push(t.get(Get::new(row).max_versions(u32::MAX)).unwrap().cells());
    }
    out
}

/// Writes batch `b` to both tables: rows of ten columns by one Put each (one timestamp and
/// sequence id per row), versions of a counter, delete markers of each kind, TTL'd cells.
fn write_batch(tables: [&Table; 2], b: i64, clock: &ManualClock) {
    for t in tables {
        for r in 0..150i64 {
            let mut p = Put::new(format!("user{:03}", (r * 37 + b * 11) % 200));
            for q in 0..10 {
                p = p.add(
                    "f",
                    format!("field{q}"),
                    format!("b{b} r{r} q{q} {}", "x".repeat(60)),
                );
            }
            t.put(p).unwrap();
        }
        for i in 0..100i64 {
            t.put(Put::new("counter").add_at(
                "f",
                "n",
                NOW + b * 1000 + i,
                (b * 100 + i).to_be_bytes(),
            ))
            .unwrap();
        }
        t.put(Put::new("gone").add("f", "a", "1").add("f", "b", "2"))
            .unwrap();
        // Delete, DeleteFamily, DeleteColumn, DeleteFamilyVersion markers.
        let d = match b {
            0 => Delete::new("gone").latest_version("f", "a"),
            1 => Delete::new("gone").family("f"),
            2 => Delete::new(format!("user{:03}", b * 7)).all_versions("f", "field3"),
            _ => Delete::new("counter").family_version("f", NOW + 1005),
        };
        t.delete(d).unwrap();
        for i in 0..5 {
            t.put(
                Put::new(format!("ttl{i:02}"))
                    .add("f", "v", format!("b{b}"))
                    .ttl(Duration::from_secs(60 * (i + 1))),
            )
            .unwrap();
        }
    }
    clock.advance(Duration::from_secs(45));
}

/// The encoding each of `dir`'s block files records, after checking each file's every block.
fn file_encodings(dir: &Path) -> Vec<DataBlockEncoding> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir.join("data")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "sst") {
            let f = BlockFile::open(&p).unwrap();
            assert_eq!(f.verify(), vec![], "{}", p.display());
            let info = f.info();
            let want_version = match info.data_block_encoding {
                DataBlockEncoding::FastDiff => 5,
                _ => 4,
            };
            assert_eq!(info.meta_version, want_version, "{}", p.display());
            out.push(info.data_block_encoding);
        }
    }
    out.sort_by_key(|e| e.hbase_name());
    out
}

struct Pair {
    enc: Db,
    reference: Db,
}

impl Pair {
    fn tables(&self) -> (Table, Table) {
        (
            self.enc.table("t").unwrap(),
            self.reference.table("t").unwrap(),
        )
    }

    /// Every read of the FAST_DIFF database equals the NONE database's; the counter's newest
    /// value is batch `last`'s.
    fn check(&self, last: i64, what: &str) {
        let (a, b) = self.tables();
        let raw = raw_cells(&b);
        assert!(raw.len() > 1000, "{what}: {} cells", raw.len());
        assert_eq!(raw_cells(&a), raw, "{what}: raw scan");
        assert_eq!(user_reads(&a), user_reads(&b), "{what}: reads");
        // A few exact values, not only agreement.
        let counter = a.get(Get::new("counter")).unwrap();
        assert_eq!(counter.cells().len(), 1, "{what}");
        assert_eq!(
            counter.value("f", "n").unwrap(),
            (last * 100 + 99).to_be_bytes(),
            "{what}"
        );
        let all = a.get(Get::new("counter").max_versions(u32::MAX)).unwrap();
        // Batch 3's DeleteFamilyVersion masks one version.
        let masked = i64::from(last >= 3);
        assert_eq!(
            all.cells().len() as i64,
            (last + 1) * 100 - masked,
            "{what}"
        );
    }
}

#[test]
fn fast_diff_flushes_compacts_and_alters_back_to_none() {
    let clock = ManualClock::new(NOW);
    let (enc_dir, ref_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let open = |clock: &ManualClock| Pair {
        enc: Db::open_with(enc_dir.path(), opts(clock)).unwrap(),
        reference: Db::open_with(ref_dir.path(), opts(clock)).unwrap(),
    };
    let p = open(&clock);
    p.enc
        .create_table(TableDescriptor::new("t").family(family(DataBlockEncoding::FastDiff)))
        .unwrap();
    p.reference
        .create_table(TableDescriptor::new("t").family(family(DataBlockEncoding::None)))
        .unwrap();
    // Three flushes: three FAST_DIFF files.
    for b in 0..3 {
        let (a, r) = p.tables();
        write_batch([&a, &r], b, &clock);
        a.flush().unwrap();
        r.flush().unwrap();
        p.check(b, &format!("after flush {b}"));
    }
    assert_eq!(
        file_encodings(enc_dir.path()),
        [DataBlockEncoding::FastDiff; 3]
    );
    assert_eq!(file_encodings(ref_dir.path()), [DataBlockEncoding::None; 3]);
    // Suffix deltas make smaller files of the same cells.
    let size = |d: &Path| -> u64 {
        std::fs::read_dir(d.join("data"))
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .sum()
    };
    assert!(size(enc_dir.path()) < size(ref_dir.path()));
    // A minor compaction writes a FAST_DIFF file.
    let (a, r) = p.tables();
    a.compact().unwrap();
    r.compact().unwrap();
    assert_eq!(
        file_encodings(enc_dir.path()),
        [DataBlockEncoding::FastDiff]
    );
    p.check(2, "after the minor compaction");
    drop((a, r));
    drop(p);
    let p = open(&clock);
    p.check(2, "after a reopen");
    assert_eq!(
        p.enc.describe("t").unwrap().families()[0].data_block_encoding,
        DataBlockEncoding::FastDiff
    );

    // Altered back to NONE: the next flush writes a prefix-compressed file; the older one
    // keeps its encoding.
    p.enc
        .alter_family("t", family(DataBlockEncoding::None))
        .unwrap();
    let (a, r) = p.tables();
    write_batch([&a, &r], 3, &clock);
    a.flush().unwrap();
    r.flush().unwrap();
    assert_eq!(
        file_encodings(enc_dir.path()),
        [DataBlockEncoding::FastDiff, DataBlockEncoding::None]
    );
    p.check(3, "after the alter and a flush");
    drop((a, r));
    drop(p);
    let p = open(&clock);
    p.check(3, "after the second reopen");
    assert_eq!(
        p.enc.describe("t").unwrap().families()[0].data_block_encoding,
        DataBlockEncoding::None
    );
    // A major compaction rewrites everything as NONE.
    let (a, r) = p.tables();
    a.major_compact().unwrap();
    r.major_compact().unwrap();
    assert_eq!(file_encodings(enc_dir.path()), [DataBlockEncoding::None]);
    p.check(3, "after the major compaction");
    drop((a, r));
    drop(p);
    let p = open(&clock);
    p.check(3, "after the last reopen");
}

/// PREFIX, ROW_INDEX_V1 and DIFF are kept by name in the descriptor (describe shows what was
/// set) and write the bytes of NONE, NONE and FAST_DIFF.
#[test]
fn every_hbase_name_is_kept_and_maps_to_its_format() {
    let clock = ManualClock::new(NOW);
    let dir = tempfile::tempdir().unwrap();
    for e in DataBlockEncoding::ALL {
        let sub = dir.path().join(e.hbase_name());
        {
            let db = Db::open_with(&sub, opts(&clock)).unwrap();
            let t = db
                .create_table(TableDescriptor::new("t").family(family(e)))
                .unwrap();
            t.put(Put::new("r").add("f", "a", "1").add("f", "b", "2"))
                .unwrap();
            t.flush().unwrap();
            db.close().unwrap();
        }
        let db = Db::open_with(&sub, opts(&clock)).unwrap();
        assert_eq!(
            db.describe("t").unwrap().families()[0].data_block_encoding,
            e
        );
        let want = if e.deltas_suffix() {
            DataBlockEncoding::FastDiff
        } else {
            DataBlockEncoding::None
        };
        assert_eq!(file_encodings(&sub), [want], "{e:?}");
        let got = db.table("t").unwrap().get(Get::new("r")).unwrap();
        assert_eq!(got.value("f", "b").unwrap(), b"2");
    }
}
