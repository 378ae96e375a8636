//! Block compression through the database: a family's codec can be altered any number of times
//! and every block file keeps the codec it was written with (recorded in each block's frame),
//! so files of every codec stay readable side by side, after a reopen and through a compaction
//! that rewrites them with the current codec (docs/FORMAT.md, section 2, "Block framing").

use cellbase::inspect::BlockFile;
use cellbase::{
    Compression, Db, DbOptions, FamilyDescriptor, Get, ManualClock, Put, Scan, TableDescriptor,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn opts() -> DbOptions {
    // No background threads: flushes and compactions run when the test says.
    DbOptions::default()
        .background_threads(0)
        .clock(ManualClock::new(1_700_000_000_000))
}

fn family(c: Compression) -> FamilyDescriptor {
    FamilyDescriptor::new("f").compression(c).block_size(1024)
}

fn value(batch: usize, i: usize) -> String {
    format!("batch {batch} value {i} {}", "compressible ".repeat(8))
}

/// Block files in `dir/data` with the codec their meta block records and the codecs their
/// data blocks' frames carry.
fn files(dir: &Path) -> BTreeMap<PathBuf, (Compression, Vec<Option<Compression>>)> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir.join("data")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "sst") {
            let f = BlockFile::open(&p).unwrap();
            let frames = f.index().iter().map(|e| e.compression).collect();
            out.insert(p, (f.info().compression, frames));
        }
    }
    out
}

/// Every row holds the value of the batch that wrote it.
fn check_all(db: &Db, batches: usize, rows: usize, what: &str) {
    let t = db.table("t").unwrap();
    let mut n = 0;
    for r in t.scan(Scan::new()).unwrap() {
        let r = r.unwrap();
        let row = String::from_utf8(r.row().to_vec()).unwrap();
        let (b, i): (usize, usize) = {
            let mut it = row[1..].split('-').map(|x| x.parse().unwrap());
            (it.next().unwrap(), it.next().unwrap())
        };
        assert_eq!(
            r.value("f", "q").unwrap(),
            value(b, i).as_bytes(),
            "{what}: {row}"
        );
        n += 1;
    }
    assert_eq!(n, batches * rows, "{what}: row count");
    for b in 0..batches {
        let row = format!("r{b}-{:04}", rows / 2);
        let got = t.get(Get::new(&row)).unwrap();
        assert_eq!(
            got.value("f", "q").unwrap(),
            value(b, rows / 2).as_bytes(),
            "{what}: get {row}"
        );
    }
}

/// Each codec in turn (and back to NONE): a flush per codec, each file written with the codec
/// the family had then; all of them read together, after a reopen, and after a major
/// compaction, whose one output is written with the last codec.
#[test]
fn altering_the_codec_keeps_every_older_file_readable() {
    const ROWS: usize = 300;
    let chain = [
        Compression::None,
        Compression::Snappy,
        Compression::Gz,
        Compression::Lz4,
        Compression::Zstd,
        Compression::Gz,
        Compression::None,
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut written: Vec<Compression> = Vec::new();
    {
        let db = Db::open_with(dir.path(), opts()).unwrap();
        let t = db
            .create_table(TableDescriptor::new("t").family(family(chain[0])))
            .unwrap();
        for (b, &codec) in chain.iter().enumerate() {
            if b > 0 {
                db.alter_family("t", family(codec)).unwrap();
            }
            assert_eq!(db.describe("t").unwrap().families()[0].compression, codec);
            for i in 0..ROWS {
                t.put(Put::new(format!("r{b}-{i:04}")).add("f", "q", value(b, i)))
                    .unwrap();
            }
            t.flush().unwrap();
            written.push(codec);
            check_all(&db, b + 1, ROWS, &format!("after flush {b} ({codec:?})"));
        }
        db.close().unwrap();
    }
    // One file per flush, each recording its own codec, in every data block's frame too.
    let before = files(dir.path());
    let mut codecs: Vec<Compression> = before.values().map(|(c, _)| *c).collect();
    let mut want = written.clone();
    codecs.sort_by_key(|c| c.hbase_name());
    want.sort_by_key(|c| c.hbase_name());
    assert_eq!(codecs, want);
    for (p, (c, frames)) in &before {
        assert!(frames.len() > 5, "{}", p.display());
        assert!(
            frames.iter().all(|f| *f == Some(*c)),
            "{}: {c:?} file with frames {frames:?}",
            p.display()
        );
    }

    let db = Db::open_with(dir.path(), opts()).unwrap();
    check_all(&db, chain.len(), ROWS, "after reopen");
    // The last alter: ZSTD, then a major compaction rewrites everything with it.
    db.alter_family("t", family(Compression::Zstd)).unwrap();
    check_all(&db, chain.len(), ROWS, "after the last alter");
    db.table("t").unwrap().major_compact().unwrap();
    let after = files(dir.path());
    assert_eq!(after.len(), 1, "{after:?}");
    let (c, frames) = after.values().next().unwrap();
    assert_eq!(*c, Compression::Zstd);
    assert!(frames.iter().all(|f| *f == Some(Compression::Zstd)));
    check_all(&db, chain.len(), ROWS, "after major compaction");
    db.close().unwrap();
    let db = Db::open_with(dir.path(), opts()).unwrap();
    check_all(&db, chain.len(), ROWS, "after the last reopen");
}

/// HBase's names, as the shell and the Thrift gateway take them: case-insensitive; LZO and
/// BZIP2 are stored as LZ4 and GZ (flagged so the caller can warn); other names are refused.
#[test]
fn hbase_codec_names() {
    for c in Compression::ALL {
        assert_eq!(
            Compression::from_hbase_name(c.hbase_name()).unwrap(),
            (c, false)
        );
        let lower = c.hbase_name().to_ascii_lowercase();
        assert_eq!(Compression::from_hbase_name(&lower).unwrap(), (c, false));
    }
    assert_eq!(
        Compression::from_hbase_name("LZO").unwrap(),
        (Compression::Lz4, true)
    );
    assert_eq!(
        Compression::from_hbase_name("bzip2").unwrap(),
        (Compression::Gz, true)
    );
    for bad in ["", "GZIP", "LZMA", "BROTLI", "snappy2"] {
        assert!(
            matches!(
                Compression::from_hbase_name(bad),
                Err(cellbase::Error::InvalidArgument(_))
            ),
            "{bad}"
        );
    }
}
