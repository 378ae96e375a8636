//! Damaged block files are reported as `Error::Corruption` naming the file, never a panic or
//! wrong data.

use super::*;

fn sst_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir.join("data"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

fn build(dir: &std::path::Path, clock: &ManualClock) {
    let db = open(dir, clock);
    let t = db
        .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f").block_size(1024)))
        .unwrap();
    for i in 0..2000 {
        t.put(Put::new(format!("row{i:05}")).add_at(
            "f",
            "q",
            1,
            format!("value-{i}-{}", "x".repeat(40)),
        ))
        .unwrap();
    }
    t.flush().unwrap();
    db.close().unwrap();
}

/// A flipped byte inside a data block: opening works (the block is read lazily), reading the
/// block returns `Error::Corruption` naming the file and offset.
#[test]
fn corrupted_data_block_is_reported_on_read() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    build(dir.path(), &clock);
    let file = sst_files(dir.path()).pop().unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    let at = bytes.len() / 3; // well inside the data blocks
    bytes[at] ^= 0x01;
    std::fs::write(&file, &bytes).unwrap();
    let db = open(dir.path(), &clock);
    let t = db.table("t").unwrap();
    let results: Vec<Result<RowResult>> = t.scan(Scan::new()).unwrap().collect();
    let err = results
        .into_iter()
        .find_map(|r| r.err())
        .expect("the scan hits the damaged block");
    match &err {
        Error::Corruption { path, detail } => {
            assert_eq!(path, &file);
            assert!(detail.contains("offset"), "{detail}");
        }
        other => panic!("expected corruption, got {other}"),
    }
}

/// Damage to the trailer or index is found when the database opens.
#[test]
fn corrupted_file_tail_fails_open_with_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    build(dir.path(), &clock);
    let file = sst_files(dir.path()).pop().unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    let n = bytes.len();
    for i in [n - 1, n - 20, n - 70] {
        bytes[i] ^= 0xff;
    }
    std::fs::write(&file, &bytes).unwrap();
    let err = Db::open_with(
        dir.path(),
        DbOptions::default()
            .clock(clock.clone())
            .background_threads(0),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Corruption { .. } | Error::UnsupportedFormat { .. }
        ),
        "{err}"
    );
}

/// A truncated block file is corruption.
#[test]
fn truncated_file_fails_open() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    build(dir.path(), &clock);
    let file = sst_files(dir.path()).pop().unwrap();
    let len = std::fs::metadata(&file).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let err = Db::open_with(
        dir.path(),
        DbOptions::default()
            .clock(clock.clone())
            .background_threads(0),
    )
    .unwrap_err();
    assert!(matches!(err, Error::Corruption { .. }), "{err}");
}

/// Every single-byte flip of a small file: never a panic, never wrong data.
#[test]
fn every_byte_flip_is_detected_or_harmless() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    {
        let db = open(dir.path(), &clock);
        let t = db
            .create_table(
                TableDescriptor::new("t").family(FamilyDescriptor::new("f").block_size(1024)),
            )
            .unwrap();
        for i in 0..40 {
            t.put(Put::new(format!("r{i:02}")).add_at(
                "f",
                "q",
                1,
                format!("v{i:02}-{}", "y".repeat(30)),
            ))
            .unwrap();
        }
        t.flush().unwrap();
        db.close().unwrap();
    }
    let file = sst_files(dir.path()).pop().unwrap();
    let original = std::fs::read(&file).unwrap();
    let expected: Vec<(Vec<u8>, Vec<u8>)> = (0..40)
        .map(|i| {
            (
                format!("r{i:02}").into_bytes(),
                format!("v{i:02}-{}", "y".repeat(30)).into_bytes(),
            )
        })
        .collect();
    let step = (original.len() / 400).max(1);
    let mut detected = 0;
    for i in (0..original.len()).step_by(step) {
        let mut bytes = original.clone();
        bytes[i] ^= 0x20;
        std::fs::write(&file, &bytes).unwrap();
        let db = match Db::open_with(
            dir.path(),
            DbOptions::default()
                .clock(clock.clone())
                .background_threads(0),
        ) {
            Ok(db) => db,
            Err(Error::Corruption { .. } | Error::UnsupportedFormat { .. }) => {
                detected += 1;
                continue;
            }
            Err(e) => panic!("byte {i}: unexpected error {e}"),
        };
        let t = db.table("t").unwrap();
        let mut got = Vec::new();
        let mut failed = false;
        let scanner = match t.scan(Scan::new()) {
            Ok(s) => s,
            // The scanner opens its first region (and reads its first block) in scan().
            Err(Error::Corruption { .. }) => {
                detected += 1;
                continue;
            }
            Err(e) => panic!("byte {i}: unexpected error {e}"),
        };
        for r in scanner {
            match r {
                Ok(r) => got.push((
                    r.row().to_vec(),
                    r.value("f", "q").unwrap_or_default().to_vec(),
                )),
                Err(Error::Corruption { .. }) => {
                    failed = true;
                    break;
                }
                Err(e) => panic!("byte {i}: unexpected error {e}"),
            }
        }
        if failed {
            detected += 1;
        } else {
            assert_eq!(
                got, expected,
                "byte {i} flipped: wrong data returned silently"
            );
        }
    }
    std::fs::write(&file, &original).unwrap();
    assert!(detected > 0);
}
