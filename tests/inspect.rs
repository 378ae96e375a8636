//! `cellbase::inspect`: a flushed block file reads back as written (summary, index, Bloom
//! filter, cells); the manifest lists the edits a table's creation and flush made; the log
//! holds the puts not yet flushed, decoded; a sound database has no findings, and one with two
//! injected faults has exactly those two.

use cellbase::inspect::{
    self, BlockFile, CellKey, ManifestRecordKind, Severity, StoredCell, WalEntry,
};
use cellbase::{
    BloomType, CellType, Compression, Db, DbOptions, Delete, FamilyDescriptor, ManualClock, Put,
    TableDescriptor,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

const NOW: i64 = 1_700_000_000_000;

fn opts() -> DbOptions {
    // No background threads (flushes run inline), a fixed clock, and the log kept at close.
    DbOptions::default()
        .background_threads(0)
        .clock(ManualClock::new(NOW))
        .flush_on_close(false)
}

fn table(db: &Db) -> cellbase::Table {
    db.create_table(
        TableDescriptor::new("t").family(
            FamilyDescriptor::new("f")
                .bloom_filter(BloomType::RowCol)
                .compression(Compression::Snappy)
                .block_size(1024),
        ),
    )
    .unwrap()
}

/// Block files in `dir/data`, sorted.
fn block_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("data"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sst"))
        .collect();
    v.sort();
    v
}

/// XORs one byte of a file.
fn flip(path: &Path, offset: u64) {
    let mut b = std::fs::read(path).unwrap();
    b[offset as usize] ^= 0x40;
    std::fs::write(path, b).unwrap();
}

/// `(row, qualifier, timestamp, type, value, ttl)` of a cell, without its sequence id.
type Written = (Vec<u8>, Vec<u8>, i64, CellType, Vec<u8>, Option<u64>);

fn written(c: &StoredCell) -> Written {
    (
        c.key.row.clone(),
        c.key.qualifier.clone(),
        c.key.timestamp,
        c.key.cell_type().unwrap(),
        c.value.clone(),
        c.ttl_ms,
    )
}

/// Writes 60 rows, a delete marker, a cell with a TTL and a binary row, flushes, and returns
/// the cells written in key order.
fn write_and_flush(t: &cellbase::Table) -> Vec<Written> {
    let mut cells = Vec::new();
    for i in 0..60i64 {
        let row = format!("row{i:03}").into_bytes();
        let v = format!("value-{i}-{}", "x".repeat(40)).into_bytes();
        t.put(Put::new(&row).add_at("f", "q", 100 + i, &v)).unwrap();
        cells.push((row, b"q".to_vec(), 100 + i, CellType::Put, v, None));
    }
    t.delete(Delete::new("row010").versions_up_to("f", "q", 50))
        .unwrap();
    cells.push((
        b"row010".to_vec(),
        b"q".to_vec(),
        50,
        CellType::DeleteColumn,
        vec![],
        None,
    ));
    t.put(
        Put::new("ttl")
            .add_at("f", "t", NOW, "x")
            .ttl(Duration::from_secs(60)),
    )
    .unwrap();
    cells.push((
        b"ttl".to_vec(),
        b"t".to_vec(),
        NOW,
        CellType::Put,
        b"x".to_vec(),
        Some(60_000),
    ));
    t.put(Put::new(b"bin\x00\xff".as_slice()).add_at("f", "b", 7, [0u8, 1, 2]))
        .unwrap();
    cells.push((
        b"bin\x00\xff".to_vec(),
        b"b".to_vec(),
        7,
        CellType::Put,
        vec![0, 1, 2],
        None,
    ));
    t.flush().unwrap();
    // Row and qualifier ascending, then timestamp descending (no two cells share a column
    // and timestamp here).
    cells.sort_by(|a, b| (&a.0, &a.1, -a.2).cmp(&(&b.0, &b.1, -b.2)));
    cells
}

#[test]
fn a_flushed_block_file_reads_back_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(dir.path(), opts()).unwrap();
    let want = write_and_flush(&table(&db));
    db.close().unwrap();
    let files = block_files(dir.path());
    assert_eq!(files.len(), 1);
    let file = BlockFile::open(&files[0]).unwrap();
    assert_eq!(file.path(), files[0]);

    // The trailer locates the blocks the file is made of.
    let len = std::fs::metadata(&files[0]).unwrap().len();
    let t = file.trailer();
    assert_eq!((t.file_len, t.offset), (len, len - 64));
    assert_eq!((t.format_version, &t.magic), (1, b"CELLBSST"));
    let bloom = t.bloom.expect("a ROWCOL filter");
    assert_eq!(t.data_end(), bloom.offset);
    assert_eq!(bloom.end(), t.index.offset);
    assert_eq!(t.index.end(), t.meta.offset);
    assert_eq!(t.meta.end(), t.offset);

    // The summary counts what was written.
    let info = file.info();
    assert_eq!(info.cells, want.len() as u64);
    assert_eq!((info.puts, info.deletes), (want.len() as u64 - 1, 1));
    assert_eq!((info.min_timestamp, info.max_timestamp), (7, NOW));
    assert_eq!(info.earliest_put_timestamp, 7);
    assert_eq!(info.file_size, len);
    assert_eq!(
        (info.bloom_type, info.compression),
        (BloomType::RowCol, Compression::Snappy)
    );
    let first = info.first_key.as_ref().unwrap();
    let last = info.last_key.as_ref().unwrap();
    assert_eq!(
        (&first.row[..], &last.row[..]),
        (&b"bin\x00\xff"[..], &b"ttl"[..])
    );
    let id = info
        .identity
        .as_ref()
        .expect("the file records where it belongs");
    assert_eq!(id.family, b"f");

    // One index entry per data block; the blocks tile the data region in key order.
    let index = file.index();
    assert_eq!(index.len() as u64, info.data_blocks);
    assert!(index.len() > 2, "1 KiB blocks: several");
    assert_eq!(&index[0].first_key, first);
    let mut at = 0;
    for (i, e) in index.iter().enumerate() {
        assert_eq!(e.block.offset, at, "block {i}");
        assert_eq!(e.compression, Some(Compression::Snappy));
        at = e.block.end();
        if i > 0 {
            assert!(index[i - 1].first_key < e.first_key);
        }
    }
    assert_eq!(at, t.data_end());
    assert!(info.mid_key.is_some());

    // The Bloom filter: one key per distinct row and qualifier.
    let b = file.bloom().unwrap();
    assert_eq!((b.bloom_type, b.keys), (BloomType::RowCol, 62));
    assert!(b.hash_count > 0 && b.bits() > 0 && b.bits_set > 0);
    assert!(b.fill_ratio() > 0.0 && b.fill_ratio() < 1.0);
    assert!(b.estimated_false_positive_rate() < 0.05);

    // Every cell, in order, as written; sequence ids are the writes'.
    let cells: Vec<StoredCell> = file.cells().map(Result::unwrap).collect();
    assert_eq!(cells.iter().map(written).collect::<Vec<_>>(), want);
    assert!(cells.windows(2).all(|w| w[0].key < w[1].key));
    assert!(cells.iter().all(|c| c.key.seq >= 1 && c.key.family == b"f"));
    assert_eq!(cells.iter().map(|c| c.key.seq).max(), Some(info.max_seq));
    let c = cells.iter().find(|c| c.key.row == b"ttl").unwrap();
    assert_eq!(
        c.key.to_string(),
        format!("ttl/f:t/{NOW}/Put/seqid={}", c.key.seq)
    );
    assert_eq!(
        CellKey::decode(&c.key.encode().unwrap()).as_ref(),
        Some(&c.key)
    );

    // From a row on: its cells first.
    let from: Vec<StoredCell> = file.cells_from(b"row010").map(Result::unwrap).collect();
    assert_eq!(from.len(), 51 + 1);
    assert_eq!(from[0].key.row, b"row010");
    assert_eq!(from[1].key.cell_type(), Some(CellType::DeleteColumn));

    // Every block checks out.
    assert_eq!(file.verify(), vec![]);
    assert_eq!(inspect::check_block_file(&files[0]).unwrap(), vec![]);
}

#[test]
fn damaged_block_files_are_refused_or_reported() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(dir.path(), opts()).unwrap();
    write_and_flush(&table(&db));
    db.close().unwrap();
    let path = block_files(dir.path()).remove(0);
    let file = BlockFile::open(&path).unwrap();
    let (b1, b2) = (file.index()[1].block, file.index()[2].block);
    drop(file);
    // Two damaged data blocks: the file opens (its index is sound), its cells end in an error
    // at the first damaged block, and verify names both blocks.
    flip(&path, b1.offset + 3);
    flip(&path, b2.offset + 3);
    let file = BlockFile::open(&path).unwrap();
    let cells: Vec<_> = file.cells().collect();
    assert!(cells.last().unwrap().is_err());
    assert_eq!(cells.iter().filter(|c| c.is_err()).count(), 1);
    let found = file.verify();
    let offsets: Vec<Option<u64>> = found.iter().map(|f| f.offset).collect();
    assert_eq!(offsets, vec![Some(b1.offset), Some(b2.offset)], "{found:?}");
    assert!(
        found
            .iter()
            .all(|f| f.severity == Severity::Error && f.path == path)
    );
    // A damaged trailer: the file does not open, but the check reports it.
    let len = std::fs::metadata(&path).unwrap().len();
    flip(&path, len - 20);
    assert!(BlockFile::open(&path).is_err());
    let found = inspect::check_block_file(&path).unwrap();
    assert!(found[0].detail.contains("trailer"), "{found:?}");
    // Not a regular file: an I/O error naming it.
    let e = BlockFile::open(dir.path()).unwrap_err();
    assert!(e.to_string().contains("not a regular file"), "{e}");
}

#[test]
fn the_manifest_lists_the_creation_and_the_flush() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(dir.path(), opts()).unwrap();
    let t = table(&db);
    t.put(Put::new("r").add("f", "q", "v")).unwrap();
    t.flush().unwrap();
    // Read while the database is open: no lock is taken.
    let records = inspect::manifest_edits(dir.path()).unwrap();
    let end = records
        .iter()
        .position(|r| r.kind == ManifestRecordKind::SnapshotEnd)
        .expect("every manifest starts with a snapshot");
    let after = &records[end + 1..];
    let create = after
        .iter()
        .find(|r| r.description.starts_with("create table t "))
        .unwrap_or_else(|| panic!("no create: {records:#?}"));
    assert_eq!(create.kind, ManifestRecordKind::Edit);
    let table_id = create.table_id.unwrap();
    let file_id: u64 = block_files(dir.path())[0]
        .file_stem()
        .unwrap()
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let flush = after
        .iter()
        .find(|r| r.description.starts_with("flush of table"))
        .unwrap_or_else(|| panic!("no flush: {records:#?}"));
    assert!(create.offset < flush.offset);
    assert_eq!(flush.table_id, Some(table_id));
    assert!(
        flush
            .description
            .contains(&format!("file {file_id} (family f, ")),
        "{flush}"
    );
    assert_eq!(
        flush.to_string(),
        format!("offset {}: {}", flush.offset, flush.description)
    );
    // Records tile the file.
    let len = records.iter().map(|r| r.len).sum::<u64>();
    let current = std::fs::read_to_string(dir.path().join("CURRENT")).unwrap();
    let manifest = dir.path().join(current.trim());
    assert_eq!(len, std::fs::metadata(&manifest).unwrap().len());
    assert_eq!(inspect::manifest_edits(&manifest).unwrap(), records);
    db.close().unwrap();
}

#[test]
fn the_log_holds_the_puts_not_yet_flushed() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(dir.path(), opts()).unwrap();
    let t = table(&db);
    for i in 0..5u8 {
        t.put(
            Put::new([b'r', i])
                .add_at("f", "a", 10, [i])
                .add_at("f", "b", 10, [i, i]),
        )
        .unwrap();
    }
    t.delete(Delete::new("r").versions_up_to("f", "a", 3))
        .unwrap();
    db.close().unwrap();
    let table_id = inspect::manifest_edits(dir.path())
        .unwrap()
        .iter()
        .find_map(|r| r.table_id)
        .unwrap();
    let entries: Vec<WalEntry> = inspect::wal_entries(dir.path())
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(entries.len(), 6);
    assert!(entries.windows(2).all(|w| w[0].seq < w[1].seq));
    assert!(entries.iter().all(|e| e.table_id == table_id));
    for (i, e) in entries[..5].iter().enumerate() {
        let i = i as u8;
        let cells: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> = e
            .cells
            .iter()
            .map(|c| (c.key.row.clone(), c.key.qualifier.clone(), c.value.clone()))
            .collect();
        assert_eq!(
            cells,
            vec![
                (vec![b'r', i], b"a".to_vec(), vec![i]),
                (vec![b'r', i], b"b".to_vec(), vec![i, i]),
            ]
        );
        assert!(e.cells.iter().all(|c| c.key.seq == e.seq));
    }
    let del = &entries[5].cells[0];
    assert_eq!(
        (&del.key.row[..], del.key.cell_type()),
        (&b"r"[..], Some(CellType::DeleteColumn))
    );
    // The same entries from the log directory and from its segment files.
    let segments: Vec<PathBuf> = entries.iter().map(|e| e.segment.clone()).collect();
    let again: Vec<WalEntry> = inspect::wal_entries(dir.path().join("wal"))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(again, entries);
    let one: Vec<WalEntry> = inspect::wal_entries(&segments[0])
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(one[0], entries[0]);
    assert!(inspect::wal_entries(dir.path().join("CURRENT")).is_err());
}

#[test]
fn a_sound_database_has_no_findings_and_two_faults_give_two() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(dir.path(), opts()).unwrap();
    let t = table(&db);
    write_and_flush(&t);
    t.put(Put::new("late").add("f", "q", "in the log")).unwrap();
    db.close().unwrap();
    assert_eq!(inspect::check_database(dir.path()).unwrap(), vec![]);
    let check = inspect::check_database_with(dir.path(), |_| {}).unwrap();
    assert_eq!((check.errors(), check.warnings()), (0, 0));
    assert_eq!((check.block_files, check.tables, check.regions), (1, 1, 1));
    assert_eq!(check.cells, 63);
    assert!(check.wal_entries >= 1 && check.wal_cells >= check.wal_entries);

    // Two faults: a damaged data block and a file the engine cannot account for.
    let sst = block_files(dir.path()).remove(0);
    let block = BlockFile::open(&sst).unwrap().index()[1].block;
    flip(&sst, block.offset + 3);
    let stray = dir.path().join("data").join("notes.txt");
    std::fs::write(&stray, "not a block file").unwrap();
    let mut seen = Vec::new();
    let check = inspect::check_database_with(dir.path(), |p| seen.push(p.to_path_buf())).unwrap();
    let found = &check.findings;
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!(
        (found[0].severity, &found[0].path, found[0].offset),
        (Severity::Error, &sst, Some(block.offset))
    );
    assert!(found[0].detail.contains("checksum"), "{}", found[0]);
    assert!(found[0].to_string().starts_with(&format!(
        "ERROR: {}: offset {}",
        sst.display(),
        block.offset
    )));
    assert_eq!(
        (found[1].severity, &found[1].path),
        (Severity::Warning, &stray)
    );
    assert!(found[1].detail.contains("unexplained"), "{}", found[1]);
    assert_eq!(inspect::check_database(dir.path()).unwrap(), check.findings);
    // Every block file and log segment checked was announced.
    assert!(seen.contains(&sst));
    assert_eq!(seen.len() as u64, check.block_files + check.wal_segments);
    // Not a directory: an error, not a finding.
    assert!(inspect::check_database(dir.path().join("CURRENT")).is_err());
}
