//! `cellbase verify`: a clean database passes; every kind of damage is reported with its file
//! and offset and a non-zero exit; warnings (torn WAL tail, unreferenced files) keep exit 0;
//! nothing in the directory changes.
mod tools_common;

use cellbase::inspect::{BlockFile, BlockFileTrailer, ManifestRecordKind};
use cellbase::testing::manifest::{Edit, RECORD_EDIT, RegionDef};
use cellbase::{BloomType, Compression, Db, FamilyDescriptor, Put, TableDescriptor};
use cellbase_cli::tools::verify::{Severity, verify_dir};
use std::path::{Path, PathBuf};
use tools_common::*;

/// A database with two tables (one split, one pre-split), flushed files in several blocks
/// with ROW and ROWCOL Bloom filters (one family Snappy), and unflushed writes in the WAL.
fn build(dir: &Path) {
    // The late rows stay in the log after the close, for the tests that check or damage it.
    let db = Db::open_with(dir, cellbase::DbOptions::default().flush_on_close(false)).unwrap();
    let t = db
        .create_table(
            TableDescriptor::new("t")
                .family(
                    FamilyDescriptor::new("a")
                        .bloom_filter(BloomType::Row)
                        .block_size(1024),
                )
                .family(
                    FamilyDescriptor::new("b")
                        .bloom_filter(BloomType::RowCol)
                        .compression(Compression::Snappy)
                        .block_size(1024),
                ),
        )
        .unwrap();
    let u = db
        .create_table(
            TableDescriptor::new("u")
                .family(FamilyDescriptor::new("f"))
                .split_keys(["g", "p"]),
        )
        .unwrap();
    for i in 0..600u32 {
        let row = format!("row{i:05}");
        t.put(
            Put::new(&row)
                .add(
                    "a",
                    "x",
                    format!("value-{i}-{}", "x".repeat((i % 7) as usize)),
                )
                .add("b", "y", i.to_be_bytes()),
        )
        .unwrap();
        u.put(Put::new(format!("{}{i}", (b'a' + (i % 26) as u8) as char)).add("f", "q", "v"))
            .unwrap();
    }
    t.flush().unwrap();
    u.flush().unwrap();
    t.split(Some(b"row00300")).unwrap();
    for i in 600..700u32 {
        t.put(Put::new(format!("row{i:05}")).add("a", "x", "late"))
            .unwrap();
    }
    db.close().unwrap();
}

fn pristine() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    build(d.path());
    d
}

fn copy_of(src: &Path) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    copy_dir(src, d.path());
    d
}

fn verify(dir: &Path, extra: &[&str]) -> Out {
    let mut args: Vec<String> = vec!["verify".into(), dir.display().to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    cellbase(&args)
}

/// The output line reporting `path` (ERROR or WARNING).
fn line_for<'a>(out: &'a Out, sev: &str, path: &Path) -> &'a str {
    let p = path.display().to_string();
    out.stdout
        .lines()
        .find(|l| l.starts_with(&format!("{sev}: {p}")))
        .unwrap_or_else(|| panic!("no {sev} line for {p}:\n{out:?}"))
}

/// The largest block file with a Bloom block (several data blocks).
fn bloom_file(dir: &Path) -> (PathBuf, BlockFileTrailer) {
    let mut best: Option<(u64, PathBuf, BlockFileTrailer)> = None;
    for p in sst_files(dir) {
        let t = BlockFile::open(&p).unwrap().trailer().clone();
        if t.bloom.is_some() && best.as_ref().is_none_or(|(n, _, _)| t.file_len > *n) {
            best = Some((t.file_len, p, t));
        }
    }
    let (_, p, t) = best.expect("a block file with a bloom block");
    (p, t)
}

#[test]
fn clean_database_passes_and_counts_what_it_checked() {
    let d = pristine();
    let before = snapshot(d.path());
    let out = verify(d.path(), &["-v"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("Status: OK"), "{out:?}");
    assert!(!out.stdout.contains("ERROR"), "{out:?}");
    assert!(!out.stdout.contains("WARNING"), "{out:?}");
    let r = verify_dir(d.path()).unwrap();
    assert_eq!(r.errors() + r.warnings(), 0, "{:?}", r.findings);
    assert_eq!(r.block_files as usize, sst_files(d.path()).len());
    assert!(r.block_files >= 5, "{}", r.block_files);
    // 600 rows x 2 families of t and 600 rows of u were flushed (split shares files).
    assert_eq!(r.cells, 1800);
    assert!(r.blocks > r.block_files * 4, "several data blocks per file");
    // Every put is still in the (current, never deleted) segment: 600 x 2 + 600 + 100 cells.
    assert_eq!((r.wal_entries, r.wal_cells), (1300, 1900));
    assert_eq!((r.tables, r.regions), (2, 5));
    assert!(out.stdout.contains(&r.summary()), "{out:?}");
    // Read-only: not a byte, name or mtime changed.
    assert_eq!(before, snapshot(d.path()));
}

#[test]
fn flipped_bytes_in_every_block_kind_are_reported_with_file_and_offset() {
    let src = pristine();
    let (rel, trailer) = {
        let (p, t) = bloom_file(src.path());
        (p.strip_prefix(src.path()).unwrap().to_path_buf(), t)
    };
    let file = BlockFile::open(src.path().join(&rel)).unwrap();
    assert!(file.index().len() >= 3, "want several data blocks");
    let data1 = file.index()[1].block;
    let len = std::fs::metadata(src.path().join(&rel)).unwrap().len();
    let bloom = trailer.bloom.unwrap();
    let cases = [
        (
            "data block",
            data1.offset + u64::from(data1.size) / 2,
            Some(data1),
        ),
        ("bloom block", bloom.offset + 30, Some(bloom)),
        ("index block", trailer.index.offset + 5, Some(trailer.index)),
        ("meta block", trailer.meta.offset + 3, Some(trailer.meta)),
        ("trailer", len - 64 + 2, None),
    ];
    for (what, at, block) in cases {
        let d = copy_of(src.path());
        let path = d.path().join(&rel);
        flip(&path, at);
        let before = snapshot(d.path());
        let out = verify(d.path(), &[]);
        assert_eq!(out.code, 1, "{what}: {out:?}");
        assert!(
            out.stdout.contains("Status: INCONSISTENT"),
            "{what}: {out:?}"
        );
        let line = line_for(&out, "ERROR", &path);
        match block {
            Some(h) => {
                // The damaged block is named by its offset and byte range, which holds the flip.
                assert!(
                    line.contains(&format!("offset {}", h.offset)),
                    "{what}: {line}"
                );
                assert!(
                    line.contains(&format!("[block bytes {}..{}]", h.offset, h.end())),
                    "{what}: {line}"
                );
                assert!(h.offset <= at && at < h.end());
            }
            None => assert!(
                line.contains("trailer") && line.contains("offset"),
                "{line}"
            ),
        }
        assert!(
            out.stdout.contains("1 errors") || out.stdout.contains("2 errors"),
            "{what}: {out:?}"
        );
        assert_eq!(
            before,
            snapshot(d.path()),
            "{what}: verify changed the directory"
        );
    }
}

#[test]
fn every_data_block_is_checked_past_the_first_damage() {
    let src = pristine();
    let d = copy_of(src.path());
    let (path, _) = bloom_file(d.path());
    let file = BlockFile::open(&path).unwrap();
    let n = file.index().len();
    let (h0, hl) = (file.index()[0].block, file.index()[n - 1].block);
    drop(file);
    flip(&path, h0.offset + 1);
    flip(&path, hl.offset + 1);
    let r = verify_dir(d.path()).unwrap();
    let offs: Vec<Option<u64>> = r
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error && f.path == path)
        .map(|f| f.offset)
        .collect();
    assert_eq!(
        offs,
        vec![Some(h0.offset), Some(hl.offset)],
        "{:?}",
        r.findings
    );
}

#[test]
fn wal_damage_is_an_error_and_a_torn_tail_a_warning() {
    let src = pristine();
    let segs = wal_segments(src.path());
    let newest = segs
        .last()
        .unwrap()
        .strip_prefix(src.path())
        .unwrap()
        .to_path_buf();
    // A flipped byte in the first entry (after the 46-byte version-2 header record), followed by more
    // records: damage.
    let d = copy_of(src.path());
    let path = d.path().join(&newest);
    flip(&path, 46 + 12);
    let out = verify(d.path(), &[]);
    assert_eq!(out.code, 1, "{out:?}");
    let line = line_for(&out, "ERROR", &path);
    assert!(
        line.contains("offset 46") && line.contains("checksum"),
        "{line}"
    );

    // A cut-off final record: a warning (the engine truncates it on open); exit 0, or 1 with
    // --strict.
    let d = copy_of(src.path());
    let path = d.path().join(&newest);
    let len = std::fs::metadata(&path).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(len - 3)
        .unwrap();
    let before = snapshot(d.path());
    let out = verify(d.path(), &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let line = line_for(&out, "WARNING", &path);
    assert!(line.contains("torn tail"), "{line}");
    assert_eq!(verify(d.path(), &["--strict"]).code, 1);
    assert_eq!(
        before,
        snapshot(d.path()),
        "verify must not truncate the tail"
    );
}

#[test]
fn manifest_damage_and_missing_or_unreferenced_files() {
    let src = pristine();
    let current = std::fs::read_to_string(src.path().join("CURRENT")).unwrap();
    let manifest = current.trim().to_string();

    // A flipped byte inside the first record of the manifest (more records follow).
    let d = copy_of(src.path());
    let path = d.path().join(&manifest);
    flip(&path, 12);
    let out = verify(d.path(), &[]);
    assert_eq!(out.code, 1, "{out:?}");
    let line = line_for(&out, "ERROR", &path);
    assert!(line.contains("offset 0"), "{line}");

    // A file the manifest references is missing.
    let d = copy_of(src.path());
    let gone = sst_files(d.path())[0].clone();
    std::fs::remove_file(&gone).unwrap();
    let out = verify(d.path(), &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        line_for(&out, "ERROR", &gone).contains("missing"),
        "{out:?}"
    );

    // A file no region lists: a warning only.
    let d = copy_of(src.path());
    let stray = d.path().join("data").join("0000099999.sst");
    std::fs::copy(&sst_files(d.path())[0], &stray).unwrap();
    let out = verify(d.path(), &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(line_for(&out, "WARNING", &stray).contains("unreferenced"));

    // A file whose size disagrees with the manifest (bytes appended).
    let d = copy_of(src.path());
    let grown = sst_files(d.path())[1].clone();
    let mut b = std::fs::read(&grown).unwrap();
    b.extend_from_slice(b"junk");
    std::fs::write(&grown, b).unwrap();
    let out = verify(d.path(), &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.contains(&grown.display().to_string()), "{out:?}");

    // No CURRENT at all.
    let d = copy_of(src.path());
    std::fs::remove_file(d.path().join("CURRENT")).unwrap();
    let out = verify(d.path(), &[]);
    assert_eq!(out.code, 1, "{out:?}");

    // Not a directory: exit 2.
    assert_eq!(verify(&d.path().join("nope"), &[]).code, 2);
}

/// Writes a manifest holding `edits` and a CURRENT naming it.
fn write_manifest(dir: &Path, edits: &[Edit]) {
    let mut buf = Vec::new();
    for e in edits {
        cellbase::testing::wal::encode_record(&mut buf, RECORD_EDIT, &e.encode());
    }
    std::fs::write(dir.join("MANIFEST-000001"), buf).unwrap();
    std::fs::write(dir.join("CURRENT"), "MANIFEST-000001\n").unwrap();
}

#[test]
fn region_gaps_and_overlaps_are_reported() {
    let desc = TableDescriptor::new("g").family(FamilyDescriptor::new("f"));
    let region = |id, s: &str, e: &str| RegionDef {
        id,
        start: s.as_bytes().to_vec(),
        end: e.as_bytes().to_vec(),
    };
    let cases: [(Vec<RegionDef>, &str); 4] = [
        (vec![region(1, "", "c"), region(2, "c", "")], ""),
        (
            vec![region(1, "", "b"), region(2, "c", "")],
            "gap: no region covers ['b', 'c')",
        ),
        (vec![region(1, "", "d"), region(2, "c", "")], "overlap"),
        (vec![region(1, "", "c"), region(2, "c", "x")], "to the end"),
    ];
    for (regions, want) in cases {
        let d = tempfile::tempdir().unwrap();
        write_manifest(
            d.path(),
            &[Edit::CreateTable {
                table_id: 1,
                desc: desc.clone(),
                regions,
            }],
        );
        let r = verify_dir(d.path()).unwrap();
        if want.is_empty() {
            assert_eq!(r.errors(), 0, "{:?}", r.findings);
        } else {
            assert!(
                r.findings
                    .iter()
                    .any(|f| f.severity == Severity::Error && f.detail.contains(want)),
                "{want}: {:?}",
                r.findings
            );
        }
    }
}

#[test]
fn an_open_database_is_noted_and_checked_without_its_lock() {
    let src = pristine();
    let db = Db::open(src.path()).unwrap();
    let out = verify(src.path(), &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("NOTE:") && out.stdout.contains("open in another process"),
        "{out:?}"
    );
    db.close().unwrap();
    let out = verify(src.path(), &[]);
    assert!(!out.stdout.contains("NOTE:"), "{out:?}");
}

#[test]
fn a_cut_in_a_closed_wal_segment_is_an_error() {
    let d = tempfile::tempdir().unwrap();
    let db = Db::open_with(
        d.path(),
        cellbase::DbOptions::default()
            .wal_segment_size(4096)
            .flush_on_close(false),
    )
    .unwrap();
    let t = db
        .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))
        .unwrap();
    for i in 0..300u32 {
        t.put(Put::new(format!("row{i:05}")).add("f", "q", [b'v'; 100]))
            .unwrap();
    }
    db.close().unwrap();
    let segs = wal_segments(d.path());
    assert!(segs.len() >= 3, "{segs:?}");
    let r = verify_dir(d.path()).unwrap();
    assert_eq!((r.errors(), r.wal_entries), (0, 300), "{:?}", r.findings);
    // The same cut that is a torn tail in the newest segment is damage in an older one: the
    // writer syncs a segment before starting the next.
    let len = std::fs::metadata(&segs[0]).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&segs[0])
        .unwrap()
        .set_len(len - 3)
        .unwrap();
    let out = verify(d.path(), &[]);
    assert_eq!(out.code, 1, "{out:?}");
    let line = line_for(&out, "ERROR", &segs[0]);
    assert!(line.contains("closed segment"), "{line}");
}

#[test]
fn a_file_of_another_family_in_a_store_is_reported() {
    let src = pristine();
    let d = copy_of(src.path());
    // Find one file of family "a" and one of "b" (table t), and put b's bytes in a's place.
    let family = |p: &Path| {
        let f = BlockFile::open(p).unwrap();
        f.info().first_key.as_ref().unwrap().family.clone()
    };
    let files = sst_files(d.path());
    let a = files.iter().find(|p| family(p) == b"a").unwrap().clone();
    let b = files.iter().find(|p| family(p) == b"b").unwrap().clone();
    std::fs::copy(&b, &a).unwrap();
    let r = verify_dir(d.path()).unwrap();
    assert!(
        r.findings.iter().any(|f| f.severity == Severity::Error
            && f.path == a
            && f.detail
                .contains("family b in a file the manifest lists for family a")),
        "{:?}",
        r.findings
    );
    assert_eq!(verify(d.path(), &[]).code, 1);
}

/// Issue 21: what the open refuses, verify reports (on 4e0c3c2 it exited 0 for each): a
/// block file copied into another's place, log segments the manifest lists but are gone, and
/// damage inside the snapshot an open wrote at the start of the manifest.
#[test]
fn misplaced_files_missing_segments_and_snapshot_damage_are_errors() {
    let src = pristine();
    // Reopen once: the manifest now starts with the snapshot of every table and file.
    Db::open_with(
        src.path(),
        cellbase::DbOptions::default().flush_on_close(false),
    )
    .unwrap()
    .close()
    .unwrap();

    let d = copy_of(src.path());
    let files = sst_files(d.path());
    std::fs::copy(&files[0], &files[1]).unwrap();
    let out = verify(d.path(), &[]);
    assert_eq!(out.code, 1, "{out:?}");
    let prefix = format!("ERROR: {}", files[1].display());
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with(&prefix) && l.contains("misplaced")),
        "{out:?}"
    );

    let d = copy_of(src.path());
    let wal = d.path().join("wal");
    let mut segs: Vec<PathBuf> = std::fs::read_dir(&wal)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    segs.sort();
    let newest = segs.pop().unwrap();
    std::fs::remove_file(&newest).unwrap();
    let out = verify(d.path(), &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        line_for(&out, "ERROR", &newest).contains("missing"),
        "{out:?}"
    );

    let d = copy_of(src.path());
    let current = std::fs::read_to_string(d.path().join("CURRENT")).unwrap();
    let m = d.path().join(current.trim());
    let recs = cellbase::inspect::manifest_edits(&m).unwrap();
    let end = recs
        .iter()
        .position(|r| r.kind == ManifestRecordKind::SnapshotEnd)
        .unwrap();
    flip(&m, recs[end - 1].offset + 12);
    let out = verify(d.path(), &[]);
    assert_eq!(out.code, 1, "{out:?}");
    line_for(&out, "ERROR", &m);
}

/// `verify --repair`: a database whose CURRENT is gone is salvaged from its newest manifest;
/// the report says where the state came from and the status; afterwards verify passes and
/// nothing was deleted.
#[test]
fn repair_restores_current_and_reports_it() {
    let d = pristine();
    let before = sst_files(d.path());
    std::fs::remove_file(d.path().join("CURRENT")).unwrap();
    assert_eq!(verify(d.path(), &[]).code, 1);
    let out = verify(d.path(), &["--repair"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("manifest: salvaged from"), "{out:?}");
    assert!(out.stdout.contains("Status: REPAIRED"), "{out:?}");
    let out = verify(d.path(), &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(sst_files(d.path()), before);
    // The salvaged manifest is kept, not deleted.
    assert!(d.path().join("lost+found").read_dir().unwrap().count() >= 1);
}

/// Runs `cellbase verify DIR`, killing it and failing the test if it has not finished within
/// 20 s (a read of a FIFO never ends).
fn verify_bounded(dir: &Path) -> Out {
    use std::io::Read;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cellbase"))
        .arg("verify")
        .arg(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("cellbase verify {} still running after 20 s", dir.display());
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    // The output is small (a few findings), so the pipes could not fill while it ran.
    let (mut stdout, mut stderr) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    Out {
        code: status.code().unwrap_or(-1),
        stdout,
        stderr,
    }
}

/// Replaces `path` with a FIFO of the same name (nobody ever writes to it).
fn mkfifo_at(path: &Path) {
    let _ = std::fs::remove_file(path);
    let st = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(st.success(), "mkfifo {}", path.display());
}

#[test]
fn fifos_in_the_database_directory_are_errors_not_hangs() {
    // A FIFO at a block file's or a log segment's path blocked `verify` forever in
    // std::fs::read. Each is now an ERROR naming it, unread; the rest is still checked.
    let src = pristine();
    let d = copy_of(src.path());
    let sst = sst_files(d.path()).remove(0);
    let seg = wal_segments(d.path()).pop().unwrap();
    mkfifo_at(&sst);
    mkfifo_at(&seg);
    mkfifo_at(&d.path().join("LOCK"));
    let out = verify_bounded(d.path());
    assert_eq!(out.code, 1, "{out:?}");
    for p in [&sst, &seg] {
        let l = line_for(&out, "ERROR", p);
        assert!(
            l.contains("not a regular file") && l.contains("FIFO"),
            "{l}"
        );
    }
    assert!(!out.stdout.contains("panicked") && !out.stderr.contains("panicked"));
    // Also CURRENT and the manifest: refused, not read.
    let d = copy_of(src.path());
    let manifest = std::fs::read_to_string(d.path().join("CURRENT")).unwrap();
    mkfifo_at(&d.path().join(manifest.trim()));
    let out = verify_bounded(d.path());
    assert_eq!(out.code, 1, "{out:?}");
    let l = line_for(&out, "ERROR", &d.path().join(manifest.trim()));
    assert!(l.contains("not a regular file (a FIFO)"), "{l}");
    let d = copy_of(src.path());
    mkfifo_at(&d.path().join("CURRENT"));
    let out = verify_bounded(d.path());
    assert_eq!(out.code, 1, "{out:?}");
    let l = line_for(&out, "ERROR", &d.path().join("CURRENT"));
    assert!(l.contains("not a regular file (a FIFO)"), "{l}");
}
