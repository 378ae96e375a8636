//! Bloom filters let Gets skip files that cannot hold the row [BLOOM-1] [BLOOM-3] [BLOOM-4].

use super::*;

fn setup(bloom: BloomType) -> (tempfile::TempDir, Db, Table) {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = Db::open_with(
        dir.path(),
        DbOptions::default()
            .clock(clock)
            .background_threads(0)
            .block_cache_size(0),
    )
    .unwrap();
    let t = db
        .create_table(
            TableDescriptor::new("t").family(FamilyDescriptor::new("f").bloom_filter(bloom)),
        )
        .unwrap();
    // Five files, each spanning rows "a".."z" so key ranges cannot exclude "m..." rows.
    for file in 0..5 {
        for i in 0..200 {
            t.put(
                Put::new(format!(
                    "{}{file}{i:03}",
                    if i % 2 == 0 { "a" } else { "z" }
                ))
                .add_at("f", "q", 1, "v"),
            )
            .unwrap();
        }
        t.flush().unwrap();
    }
    (dir, db, t)
}

fn blocks_read_by(db: &Db, f: impl FnOnce()) -> u64 {
    let before = db.metrics().data_blocks_read;
    f();
    db.metrics().data_blocks_read - before
}

/// [BLOOM-3] ROW blooms: a Get of an absent row inside every file's key range reads no block.
#[test]
fn row_bloom_skips_files_for_absent_rows() {
    let (_dir, db, t) = setup(BloomType::Row);
    let n = blocks_read_by(&db, || {
        for i in 0..100 {
            assert!(t.get(Get::new(format!("m{i}"))).unwrap().is_empty());
        }
    });
    // ~1% false positives over 5 files × 100 gets: a handful of block reads at most.
    assert!(n <= 15, "{n} blocks read for absent rows");
    let n = blocks_read_by(&db, || {
        assert!(!t.get(Get::new("a0000")).unwrap().is_empty())
    });
    assert!(n >= 1);
}

/// Without a Bloom filter the same Gets read a block of every file.
#[test]
fn without_bloom_every_file_is_read() {
    let (_dir, db, t) = setup(BloomType::None);
    let n = blocks_read_by(&db, || {
        for i in 0..100 {
            assert!(t.get(Get::new(format!("m{i}"))).unwrap().is_empty());
        }
    });
    assert!(n >= 500, "{n}");
}

/// [BLOOM-4] ROWCOL blooms skip files for a Get of one absent column; a whole-row Get cannot
/// use them; results never change [BLOOM-1].
#[test]
fn rowcol_bloom_skips_single_column_gets() {
    let (_dir, db, t) = setup(BloomType::RowCol);
    let n = blocks_read_by(&db, || {
        for i in 0..50 {
            assert!(
                t.get(Get::new(format!("a0{:03}", i * 2)).column("f", "absent"))
                    .unwrap()
                    .is_empty()
            );
        }
    });
    assert!(n <= 10, "{n}");
    let r = t.get(Get::new("a0000").column("f", "q")).unwrap();
    assert_eq!(r.value("f", "q"), Some(&b"v"[..]));
    // A family marker (empty qualifier) in a newer file still masks through the ROWCOL check.
    t.delete(Delete::new("a0000").family("f")).unwrap();
    t.flush().unwrap();
    assert!(
        t.get(Get::new("a0000").column("f", "q"))
            .unwrap()
            .is_empty()
    );
}
