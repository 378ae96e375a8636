//! Issue 21: acknowledged data lost to damage or operator error. One test per case the issue
//! reproduced on 4e0c3c2; each failed there (files deleted, rows silently gone, a second
//! writer let in) and passes now. The rule each enforces: nothing acknowledged is lost
//! silently, and no file is deleted without proof that the engine owns it and no longer
//! needs it (docs/ARCHITECTURE.md, "Recovery").

use super::common::TempDir;
use cellbase::testing::wal::{TailPolicy, read_records};
use cellbase::{
    Db, DbOptions, Error, FamilyDescriptor, Get, Put, Scan, TableDescriptor, WalRecovery,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Options of these tests: no background threads, no automatic flush, a close that only
/// syncs the log (so the log is the only copy of unflushed writes, as after a kill -9), and
/// an open that keeps what it replayed in the memstores, so the log of several sessions is
/// there to damage.
fn opts() -> DbOptions {
    DbOptions::default()
        .background_threads(0)
        .memstore_flush_size(1 << 40)
        .flush_on_close(false)
        .flush_after_replay(false)
}

/// A database with table "t" (family "f", split at "m") holding `rows` rows, each flushed
/// into block files, and `unflushed` more rows only in the log.
fn populate(dir: &Path, rows: usize, unflushed: usize) {
    let db = Db::open_with(dir, opts()).unwrap();
    let t = db
        .create_table(
            TableDescriptor::new("t")
                .family(FamilyDescriptor::new("f"))
                .split_keys(vec![b"m".to_vec()]),
        )
        .unwrap();
    for i in 0..rows {
        for prefix in ["a", "n"] {
            t.put(Put::new(format!("{prefix}{i:05}")).add("f", "q", format!("value-{i:05}")))
                .unwrap();
        }
    }
    t.flush().unwrap();
    for i in 0..unflushed {
        t.put(Put::new(format!("w{i:05}")).add("f", "q", "in the log only"))
            .unwrap();
    }
    db.close().unwrap();
}

/// A database whose table "t" holds `rows` rows only in the log, in 4 KiB segments; returns
/// the segments in order.
fn log_only_rows(dir: &Path, rows: usize) -> Vec<PathBuf> {
    let db = Db::open_with(dir, opts().wal_segment_size(4096)).unwrap();
    let t = db
        .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))
        .unwrap();
    for i in 0..rows {
        t.put(Put::new(format!("r{i:05}")).add("f", "q", "x".repeat(40)))
            .unwrap();
    }
    db.close().unwrap();
    let mut segs: Vec<PathBuf> = std::fs::read_dir(dir.join("wal"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    segs.sort();
    segs
}

fn row_count(dir: &Path) -> usize {
    let db = Db::open_with(dir, opts()).unwrap();
    let n = db.table("t").unwrap().scan(Scan::new()).unwrap().count();
    db.close().unwrap();
    n
}

/// Every file under `dir` with its bytes (LOCK aside: opening creates it).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n != "LOCK") {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// Puts the directory back to `files` (removing every other file but `LOCK`).
fn restore(dir: &Path, files: &BTreeMap<PathBuf, Vec<u8>>) {
    for p in snapshot(dir).into_keys() {
        if !files.contains_key(&p) {
            std::fs::remove_file(&p).unwrap();
        }
    }
    for (p, b) in files {
        std::fs::write(p, b).unwrap();
    }
}

fn data_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("data"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

fn live_manifest(dir: &Path) -> PathBuf {
    let name = std::fs::read_to_string(dir.join("CURRENT")).unwrap();
    dir.join(name.trim())
}

fn assert_corruption(e: &Error, path_ends: &str, detail_has: &str) {
    match e {
        Error::Corruption { path, detail } => {
            assert!(
                path.to_string_lossy().ends_with(path_ends),
                "corruption names {} (wanted …{path_ends}): {detail}",
                path.display()
            );
            assert!(detail.contains(detail_has), "{detail}");
        }
        other => panic!("expected Corruption of …{path_ends}, got {other:?}"),
    }
}

/// Case 1a: `CURRENT` deleted. On 4e0c3c2 the open took the directory for a new database and
/// deleted every block file beside an intact manifest. Now: `Corruption` naming `CURRENT` and
/// what was found, and nothing on disk changes.
#[test]
fn open_without_current_refuses_and_deletes_nothing() {
    let dir = TempDir::new("dmg-current");
    populate(dir.path(), 50, 0);
    std::fs::remove_file(dir.path().join("CURRENT")).unwrap();
    let before = snapshot(dir.path());
    assert!(!data_files(dir.path()).is_empty());
    let e = Db::open_with(dir.path(), opts()).unwrap_err();
    assert_corruption(&e, "CURRENT", "holds a database");
    assert!(e.to_string().contains("MANIFEST-"), "{e}");
    assert_eq!(snapshot(dir.path()), before, "a refused open changed files");
}

/// Case 1b: a directory that is not a database (the shell's `--db` pointed at the wrong
/// place). On 4e0c3c2 every file in its `data/` was deleted. Now: `NotADatabase` naming what
/// is there; nothing is created or deleted.
#[test]
fn open_of_a_foreign_directory_refuses_and_deletes_nothing() {
    let dir = TempDir::new("dmg-foreign");
    std::fs::create_dir_all(dir.path().join("data")).unwrap();
    std::fs::write(dir.path().join("data/photo.jpg"), b"not ours").unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"mine").unwrap();
    let before = snapshot(dir.path());
    let e = Db::open_with(dir.path(), opts()).unwrap_err();
    match &e {
        Error::NotADatabase { path, found } => {
            assert_eq!(path, dir.path());
            assert!(found.contains("notes.txt"), "{found}");
        }
        other => panic!("expected NotADatabase, got {other:?}"),
    }
    assert_eq!(snapshot(dir.path()), before);
    assert!(
        !dir.path().join("LOCK").exists(),
        "LOCK was created in a foreign directory"
    );
    // An empty directory, and a missing one, still become databases.
    let empty = TempDir::new("dmg-empty");
    Db::open_with(empty.path(), opts())
        .unwrap()
        .close()
        .unwrap();
    Db::open_with(empty.path().join("sub"), opts())
        .unwrap()
        .close()
        .unwrap();
}

/// Case 1c: the live manifest truncated to 0 bytes. On 4e0c3c2 the open read it as an empty
/// database and deleted every block file. Now: `Corruption` naming the manifest.
#[test]
fn empty_manifest_is_corruption_and_deletes_nothing() {
    let dir = TempDir::new("dmg-empty-manifest");
    populate(dir.path(), 50, 0);
    let m = live_manifest(dir.path());
    std::fs::write(&m, b"").unwrap();
    let before = snapshot(dir.path());
    let e = Db::open_with(dir.path(), opts()).unwrap_err();
    assert_corruption(&e, &m.file_name().unwrap().to_string_lossy(), "empty");
    assert_eq!(snapshot(dir.path()), before);
}

/// Case 2: one byte flipped near the end of the manifest that an open wrote. On 4e0c3c2 the
/// torn-tail rule dropped the snapshot's last record: the next open lost every row of a
/// region and deleted its block files, and `verify` said OK. Now every byte of the snapshot
/// is covered: each flip is `Corruption` naming the manifest (and changes nothing), and the
/// database opens whole once the byte is restored.
#[test]
fn damaged_manifest_snapshot_is_corruption_at_every_byte() {
    let dir = TempDir::new("dmg-snapshot");
    populate(dir.path(), 200, 0);
    // The reopen writes the snapshot manifest that the flips then damage.
    assert_eq!(row_count(dir.path()), 400);
    let m = live_manifest(dir.path());
    let good = std::fs::read(&m).unwrap();
    let before = snapshot(dir.path());
    let name = m.file_name().unwrap().to_string_lossy().into_owned();
    // Where the snapshot ends: after it come the edits this session appended (the log
    // segment it started, the segments it deleted), the last of which is torn-tail-shaped.
    let (records, _) = read_records(&good, &m, TailPolicy::Strict).unwrap();
    let end = records
        .iter()
        .position(|r| r.rtype == 2)
        .expect("snapshot end record");
    let snapshot_len = records[end + 1..]
        .first()
        .map_or(good.len() as u64, |r| r.offset) as usize;
    let mut in_snapshot = 0;
    for i in 0..good.len() {
        let mut bad = good.clone();
        bad[i] ^= 0x20;
        std::fs::write(&m, &bad).unwrap();
        match Db::open_with(dir.path(), opts()) {
            Err(Error::Corruption { path, detail }) if i < snapshot_len => {
                assert!(
                    path.ends_with(&name),
                    "byte {i}: {} {detail}",
                    path.display()
                );
                in_snapshot += 1;
            }
            Err(Error::UnsupportedFormat { .. }) => {}
            // The last appended edit dropped as a torn record: what it recorded is then
            // missing from the state, which the open reports (a deleted log segment still
            // listed) or which does not matter (a segment recorded that exists anyway).
            Err(Error::Corruption { path, detail }) => {
                assert!(
                    path.ends_with(&name) || detail.contains("WAL segment missing"),
                    "byte {i}: {} {detail}",
                    path.display()
                );
            }
            Err(e) => panic!("byte {i}: unexpected error {e:?}"),
            Ok(db) if i >= snapshot_len => {
                let n = db.table("t").unwrap().scan(Scan::new()).unwrap().count();
                assert_eq!(n, 400, "byte {i} after the snapshot lost rows");
                db.close().unwrap();
                restore(dir.path(), &before);
                continue;
            }
            Ok(_) => {
                panic!("byte {i} of the {snapshot_len}-byte snapshot flipped: the open succeeded")
            }
        }
        let mut now = snapshot(dir.path());
        now.insert(m.clone(), good.clone());
        assert_eq!(now, before, "byte {i}: a refused open changed files");
    }
    assert_eq!(
        in_snapshot, snapshot_len,
        "every flip in the snapshot is corruption"
    );
    std::fs::write(&m, &good).unwrap();
    assert_eq!(row_count(dir.path()), 400);
}

/// Case 3: `LOCK` deleted while the database is open. On 4e0c3c2 a second open took a new
/// `LOCK`, switched `CURRENT` to its own manifest and made the first writer's later flushes
/// invisible (3 runs of 3 lost acknowledged puts). Now the directory itself is locked: the
/// second open gets `Locked` and changes nothing; every write of the first survives.
#[test]
fn deleting_lock_does_not_admit_a_second_writer() {
    let dir = TempDir::new("dmg-lock");
    populate(dir.path(), 10, 0);
    let db = Db::open_with(dir.path(), opts()).unwrap();
    let t = db.table("t").unwrap();
    std::fs::remove_file(dir.path().join("LOCK")).unwrap();
    let current = std::fs::read(dir.path().join("CURRENT")).unwrap();
    match Db::open_with(dir.path(), opts()) {
        Err(Error::Locked(p)) => assert_eq!(p, dir.path()),
        other => panic!("second writer: {other:?}"),
    }
    assert_eq!(std::fs::read(dir.path().join("CURRENT")).unwrap(), current);
    for i in 0..100 {
        t.put(Put::new(format!("later{i:03}")).add("f", "q", "after the lock was deleted"))
            .unwrap();
    }
    t.flush().unwrap();
    drop(t);
    db.close().unwrap();
    assert_eq!(row_count(dir.path()), 20 + 100);
}

/// Case 4: the log deleted after a crash. On 4e0c3c2 the database opened without the
/// acknowledged rows that only the log held, and `verify` said OK. Now the manifest records
/// every live segment: a missing one is `Corruption` naming it, unless the caller opts in to
/// drop it, and then `recovery_report` lists what was dropped.
#[test]
fn missing_wal_segments_are_corruption_unless_skipped() {
    for which in ["all", "newest", "oldest"] {
        let dir = TempDir::new("dmg-wal");
        populate(dir.path(), 10, 30);
        // A second session with more log-only writes: two segments hold acknowledged data.
        {
            let db = Db::open_with(dir.path(), opts()).unwrap();
            let t = db.table("t").unwrap();
            for i in 0..30 {
                t.put(Put::new(format!("x{i:05}")).add("f", "q", "second session"))
                    .unwrap();
            }
            db.close().unwrap();
        }
        let mut segs: Vec<PathBuf> = std::fs::read_dir(dir.path().join("wal"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        segs.sort();
        assert!(segs.len() >= 2, "{segs:?}");
        let gone: Vec<PathBuf> = match which {
            "all" => segs.clone(),
            "newest" => vec![segs.last().unwrap().clone()],
            _ => vec![segs[0].clone()],
        };
        for p in &gone {
            std::fs::remove_file(p).unwrap();
        }
        let before = snapshot(dir.path());
        let e = Db::open_with(dir.path(), opts()).unwrap_err();
        assert_corruption(&e, ".log", "WAL segment missing");
        assert_eq!(
            snapshot(dir.path()),
            before,
            "{which}: a refused open changed files"
        );
        // Opting in opens without them and says what it dropped.
        let db = Db::open_with(
            dir.path(),
            opts().wal_recovery(WalRecovery::SkipMissingSegments),
        )
        .unwrap();
        let dropped = &db.recovery_report().missing_wal_segments;
        for p in &gone {
            assert!(dropped.contains(p), "{which}: {p:?} not in {dropped:?}");
        }
        let t = db.table("t").unwrap();
        assert!(t.get(Get::new("a00001")).unwrap().cells().len() == 1);
        db.close().unwrap();
        // Once accepted, the loss is not reported again.
        let db = Db::open_with(dir.path(), opts()).unwrap();
        assert!(db.recovery_report().missing_wal_segments.is_empty());
        db.close().unwrap();
    }
}

/// Case 5: two block files of equal size swapped between regions. On 4e0c3c2 reads silently
/// returned no rows for a whole region and `verify` exited 0. Now every block file records
/// its identity (database, file id, table, family), checked at open: `Corruption` naming the
/// file and saying it is misplaced.
#[test]
fn swapped_block_files_are_corruption() {
    let dir = TempDir::new("dmg-swap");
    populate(dir.path(), 100, 0);
    let files = data_files(dir.path());
    assert_eq!(files.len(), 2, "{files:?}");
    let (a, b) = (&files[0], &files[1]);
    assert_eq!(
        std::fs::metadata(a).unwrap().len(),
        std::fs::metadata(b).unwrap().len(),
        "the two regions' files should be the same size"
    );
    let tmp = dir.path().join("data/swap.tmp");
    std::fs::rename(a, &tmp).unwrap();
    std::fs::rename(b, a).unwrap();
    std::fs::rename(&tmp, b).unwrap();
    let e = Db::open_with(dir.path(), opts()).unwrap_err();
    assert_corruption(&e, ".sst", "misplaced");
}

/// A block file copied in from another database (same file number) is not taken for this
/// database's file.
#[test]
fn block_file_of_another_database_is_corruption() {
    let one = TempDir::new("dmg-db1");
    let two = TempDir::new("dmg-db2");
    populate(one.path(), 100, 0);
    populate(two.path(), 100, 0);
    let (f1, f2) = (data_files(one.path()), data_files(two.path()));
    assert_eq!(
        f1.iter().map(|p| p.file_name()).collect::<Vec<_>>(),
        f2.iter().map(|p| p.file_name()).collect::<Vec<_>>()
    );
    std::fs::copy(&f2[0], &f1[0]).unwrap();
    let e = Db::open_with(one.path(), opts()).unwrap_err();
    assert_corruption(&e, ".sst", "another database");
}

/// Files an open cannot account for are kept and reported, never deleted; files the manifest
/// records as obsolete (a compaction's inputs whose unlink did not happen) are deleted.
#[test]
fn unexplained_files_are_kept_and_obsolete_ones_deleted() {
    let dir = TempDir::new("dmg-unexplained");
    populate(dir.path(), 20, 0);
    // Replace the first files (ids 0 and 1) by a major compaction; the open after it forgets
    // them (they are gone), so id 0 is a number below the next file id that nothing records.
    let db = Db::open_with(dir.path(), opts()).unwrap();
    db.table("t").unwrap().major_compact().unwrap();
    db.close().unwrap();
    Db::open_with(dir.path(), opts()).unwrap().close().unwrap();
    // A stray file with a block file's name below the next file id, and one of another name.
    let stray = dir.path().join("data/0000000000.sst");
    assert!(!stray.exists());
    std::fs::write(&stray, b"operator's copy").unwrap();
    let other = dir.path().join("data/README");
    std::fs::write(&other, b"keep me").unwrap();
    let db = Db::open_with(dir.path(), opts()).unwrap();
    let r = db.recovery_report().clone();
    assert!(r.unexplained_files.contains(&stray), "{r:?}");
    assert!(r.unexplained_files.contains(&other), "{r:?}");
    assert!(r.deleted_files.is_empty(), "{r:?}");
    // A major compaction replaces the two regions' files; their inputs become obsolete.
    let t = db.table("t").unwrap();
    let before = data_files(dir.path());
    t.put(Put::new("a99999").add("f", "q", "v")).unwrap();
    t.flush().unwrap();
    t.major_compact().unwrap();
    drop(t);
    db.close().unwrap();
    assert!(stray.exists() && other.exists());
    // Put one replaced input back, as if its unlink had not happened: recorded obsolete, so
    // the next open deletes it.
    let replaced = before
        .iter()
        .find(|p| !p.exists() && **p != stray && **p != other)
        .expect("an input was replaced")
        .clone();
    std::fs::write(&replaced, b"stale").unwrap();
    let db = Db::open_with(dir.path(), opts()).unwrap();
    assert!(
        db.recovery_report().deleted_files.contains(&replaced),
        "{:?}",
        db.recovery_report()
    );
    assert!(!replaced.exists());
    assert!(stray.exists() && other.exists());
    db.close().unwrap();
    assert_eq!(row_count(dir.path()), 41);
}

// ---- Salvage: `cellbase::repair::repair` (`cellbase verify --repair`) ----

use cellbase::repair::{ManifestSource, repair};

fn lost_and_found(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir.join("lost+found"))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The case 2 repaired: a flip near the end of the open-time snapshot. Repair
/// salvages the manifest up to the damage and attaches the block files the lost edits listed
/// (they verify and record their table and family): every row is back, and the damaged
/// manifest is kept in lost+found/.
#[test]
fn repair_salvages_a_damaged_manifest_snapshot() {
    let dir = TempDir::new("rep-snapshot");
    populate(dir.path(), 200, 0);
    assert_eq!(row_count(dir.path()), 400);
    let m = live_manifest(dir.path());
    let mut bytes = std::fs::read(&m).unwrap();
    let (records, _) = read_records(&bytes, &m, TailPolicy::Strict).unwrap();
    let end = records.iter().position(|r| r.rtype == 2).unwrap();
    // A byte inside the snapshot's last edit (a region's files).
    let at = records[end - 1].offset as usize + 12;
    bytes[at] ^= 0x01;
    std::fs::write(&m, &bytes).unwrap();
    assert!(Db::open_with(dir.path(), opts()).is_err());
    let report = repair(dir.path()).unwrap();
    assert!(
        matches!(&report.source, ManifestSource::Salvaged { path, .. } if *path == m),
        "{report:?}"
    );
    assert_eq!(report.opens, Ok(()), "{report:?}");
    assert_eq!(row_count(dir.path()), 400, "{report:?}");
    let name = m.file_name().unwrap().to_string_lossy().into_owned();
    assert!(lost_and_found(dir.path()).contains(&name), "{report:?}");
}

/// The case 1 repaired: `CURRENT` deleted. Repair finds the newest manifest and
/// points `CURRENT` at a rewrite of it: every row is back.
#[test]
fn repair_restores_a_lost_current() {
    let dir = TempDir::new("rep-current");
    populate(dir.path(), 50, 20);
    std::fs::remove_file(dir.path().join("CURRENT")).unwrap();
    let report = repair(dir.path()).unwrap();
    assert_eq!(report.opens, Ok(()), "{report:?}");
    assert_eq!(row_count(dir.path()), 120);
}

/// One damaged block file costs only its own rows: repair sets it aside (into lost+found/,
/// not deleted) and the database opens with every other file.
#[test]
fn repair_sets_aside_one_damaged_block_file_and_keeps_the_rest() {
    let dir = TempDir::new("rep-block");
    populate(dir.path(), 100, 0);
    let files = data_files(dir.path());
    assert_eq!(files.len(), 2);
    // Damage the first file's trailer: the open refuses it.
    let mut b = std::fs::read(&files[0]).unwrap();
    let n = b.len();
    b[n - 5] ^= 0xff;
    std::fs::write(&files[0], &b).unwrap();
    let e = Db::open_with(dir.path(), opts()).unwrap_err();
    assert!(matches!(e, Error::Corruption { .. }), "{e:?}");
    let report = repair(dir.path()).unwrap();
    assert_eq!(report.opens, Ok(()), "{report:?}");
    assert_eq!(report.set_aside.len(), 1, "{report:?}");
    assert_eq!(report.set_aside[0].from, files[0]);
    assert!(report.set_aside[0].to.exists());
    // The region whose file survived keeps its 100 rows.
    assert_eq!(row_count(dir.path()), 100);
}

/// Missing log segments: repair drops them from the manifest and says so; the database opens
/// with everything else.
#[test]
fn repair_drops_missing_wal_segments_and_says_so() {
    let dir = TempDir::new("rep-wal");
    populate(dir.path(), 10, 30);
    for e in std::fs::read_dir(dir.path().join("wal")).unwrap() {
        std::fs::remove_file(e.unwrap().path()).unwrap();
    }
    let report = repair(dir.path()).unwrap();
    assert!(!report.dropped_wal_segments.is_empty(), "{report:?}");
    assert_eq!(report.opens, Ok(()), "{report:?}");
    assert_eq!(row_count(dir.path()), 20);
}

/// Files the engine cannot account for are moved to lost+found/, never deleted; repair of an
/// open database is refused.
#[test]
fn repair_moves_unexplained_files_and_refuses_an_open_database() {
    let dir = TempDir::new("rep-stray");
    populate(dir.path(), 10, 0);
    std::fs::write(dir.path().join("data/notes.txt"), b"mine").unwrap();
    let db = Db::open_with(dir.path(), opts()).unwrap();
    assert!(matches!(repair(dir.path()), Err(Error::Locked(_))));
    db.close().unwrap();
    let report = repair(dir.path()).unwrap();
    assert!(
        matches!(report.source, ManifestSource::Intact(_)),
        "{report:?}"
    );
    assert_eq!(
        lost_and_found(dir.path()),
        vec!["data_notes.txt".to_string()]
    );
    assert_eq!(
        std::fs::read(dir.path().join("lost+found/data_notes.txt")).unwrap(),
        b"mine"
    );
    assert_eq!(row_count(dir.path()), 20);
}

/// Case 4, the documented gap: an older log segment cut at a record boundary (its own
/// framing cannot show it) whose successors are gone too, so no successor's header records
/// its length. The manifest records every segment's synced length when it is sealed: even
/// when the missing successors are dropped on purpose, the cut is `Corruption`.
#[test]
fn older_wal_segment_cut_without_its_successor_is_corruption() {
    let dir = TempDir::new("dmg-wal-cut");
    let small = || opts().wal_segment_size(4096);
    let segs = log_only_rows(dir.path(), 400);
    assert!(segs.len() >= 3, "{segs:?}");
    // Cut the first segment at its second record boundary; delete every later segment.
    let first = &segs[0];
    let bytes = std::fs::read(first).unwrap();
    let (recs, _) = read_records(&bytes, first, TailPolicy::Strict).unwrap();
    let cut = recs[2].offset as usize;
    std::fs::write(first, &bytes[..cut]).unwrap();
    for p in &segs[1..] {
        std::fs::remove_file(p).unwrap();
    }
    let e = Db::open_with(
        dir.path(),
        small().wal_recovery(WalRecovery::SkipMissingSegments),
    )
    .unwrap_err();
    assert_corruption(
        &e,
        &first.file_name().unwrap().to_string_lossy(),
        "cut short",
    );
}

/// Case 3's second half: an open that fails leaves the database exactly as it found it. On
/// 4e0c3c2 an open switched `CURRENT` to a new manifest before it read the log, so an open
/// failing on log damage had already rewritten the manifest (and one that was a second writer
/// made the first one's later flushes invisible). Now the log is checked read-only first.
#[test]
fn open_failing_on_log_damage_changes_nothing() {
    let dir = TempDir::new("dmg-failed-open");
    let segs = log_only_rows(dir.path(), 300);
    assert!(segs.len() >= 2, "{segs:?}");
    let mut b = std::fs::read(&segs[0]).unwrap();
    let mid = b.len() / 2;
    b[mid] ^= 0x40;
    std::fs::write(&segs[0], &b).unwrap();
    let before = snapshot(dir.path());
    let e = Db::open_with(dir.path(), opts()).unwrap_err();
    assert_corruption(
        &e,
        &segs[0].file_name().unwrap().to_string_lossy(),
        "offset",
    );
    assert_eq!(snapshot(dir.path()), before, "a failed open changed files");
}

/// Something that is not a regular file where the engine expects one of its files (a FIFO at
/// a block file's, a log segment's or `CURRENT`'s path): the open is an error naming it, never
/// a hang (opening a FIFO blocks until a writer comes). Guarded: a hang fails the test.
#[test]
fn fifos_in_place_of_files_are_errors_not_hangs() {
    for victim in ["data", "wal", "CURRENT"] {
        let dir = TempDir::new("dmg-fifo");
        populate(dir.path(), 10, 5);
        let path = match victim {
            "CURRENT" => dir.path().join("CURRENT"),
            sub => std::fs::read_dir(dir.path().join(sub))
                .unwrap()
                .map(|e| e.unwrap().path())
                .min()
                .unwrap(),
        };
        std::fs::remove_file(&path).unwrap();
        let made = std::process::Command::new("mkfifo").arg(&path).status();
        if !made.is_ok_and(|s| s.success()) {
            println!("mkfifo unavailable: skipped");
            return;
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let d = dir.path().to_path_buf();
        std::thread::spawn(move || {
            let _ = tx.send(
                Db::open_with(&d, opts())
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
            );
        });
        let got = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("{victim}: the open hangs on a FIFO"));
        let e = got.expect_err("opened with a FIFO in place of a file");
        assert!(e.contains("not a regular file"), "{victim}: {e}");
        assert!(e.contains(&path.display().to_string()), "{victim}: {e}");
    }
}
