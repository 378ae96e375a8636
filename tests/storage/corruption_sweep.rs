//! Corruption sweeps over every file kind [issue 5, item 5]: block files, WAL segments (older
//! and newest), the manifest and CURRENT. For each file, bits are flipped and the file is
//! truncated at many positions (on an in-memory copy of a database, so each case starts from
//! the same bytes); then the database is opened and fully scanned.
//!
//! Allowed outcomes:
//! - `Error::Corruption` naming the damaged file (and, for record and block files, the offset)
//!   or `Error::UnsupportedFormat`, at open or while reading;
//! - the damage is harmless: every row comes back with its value;
//! - the damage has the shape of a torn write, which is indistinguishable from one: it lies in
//!   the last record of the newest WAL segment or of the manifest, or the file is cut short
//!   there. Then rows may be missing (those records are dropped), but no row is ever wrong.
//!
//! An older WAL segment is never a torn tail: every truncation of it, including a cut exactly
//! at a record boundary (caught by the length its successor's version-2 header records), must
//! be `Error::Corruption` naming it or harmless. The truncation sweep cuts every older segment
//! at every record boundary in addition to the sampled positions.
//!
//! Never a panic, never a wrong value, never an unexpected row. `CORRUPTION_STEP=1` tries every
//! byte (the default samples).

use super::*;
use cellbase::testing::io::{FileSystem, MemFs};
use cellbase::testing::wal::{TailPolicy, read_records};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const ROWS: u64 = 260;
const FLUSHED: u64 = 180;

fn value(i: u64) -> Vec<u8> {
    format!("value-{i}-{}", "c".repeat((i % 23) as usize)).into_bytes()
}

fn row(i: u64) -> String {
    format!("row{i:04}")
}

fn opts() -> DbOptions {
    DbOptions::default()
        .background_threads(0)
        .wal_segment_size(2 << 10)
        .clock(ManualClock::new(1_000))
        // The sweep damages the log segments a clean close leaves behind.
        .flush_on_close(false)
}

/// A database with two block files, a manifest with a few edits, and several WAL segments
/// holding the unflushed rows.
fn build() -> MemFs {
    build_with(Compression::None)
}

/// [`build`] with the family's blocks compressed by `codec`.
fn build_with(codec: Compression) -> MemFs {
    build_family(
        FamilyDescriptor::new("f")
            .block_size(1024)
            .compression(codec),
    )
}

/// [`build`] with the family `f`.
fn build_family(f: FamilyDescriptor) -> MemFs {
    let mem = MemFs::new();
    {
        let db = Db::open_with_fs("/db", opts(), Arc::new(mem.clone())).unwrap();
        let t = db
            .create_table(TableDescriptor::new("t").family(f))
            .unwrap();
        for i in 0..ROWS {
            t.put(Put::new(row(i)).add("f", "q", value(i))).unwrap();
            if i == FLUSHED / 2 || i == FLUSHED - 1 {
                t.flush().unwrap();
            }
        }
        db.close().unwrap();
    }
    mem
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Block,
    OldWal,
    NewestWal,
    Manifest,
    Current,
}

/// The block files of the database in `mem`.
fn block_files(mem: &MemFs) -> Vec<PathBuf> {
    files(mem)
        .into_iter()
        .filter(|(_, k)| *k == Kind::Block)
        .map(|(p, _)| p)
        .collect()
}

fn files(mem: &MemFs) -> Vec<(PathBuf, Kind)> {
    let mut out = Vec::new();
    for name in mem.list(Path::new("/db/data")).unwrap() {
        out.push((Path::new("/db/data").join(name), Kind::Block));
    }
    let wal = mem.list(Path::new("/db/wal")).unwrap();
    for (i, name) in wal.iter().enumerate() {
        let k = if i + 1 == wal.len() {
            Kind::NewestWal
        } else {
            Kind::OldWal
        };
        out.push((Path::new("/db/wal").join(name), k));
    }
    for name in mem.list(Path::new("/db")).unwrap() {
        if name.starts_with("MANIFEST-") {
            out.push((Path::new("/db").join(name), Kind::Manifest));
        } else if name == "CURRENT" {
            out.push((Path::new("/db").join(name), Kind::Current));
        }
    }
    out
}

#[derive(Default, Debug)]
struct Tally {
    cases: u64,
    detected: u64,
    harmless: u64,
    torn: u64,
    /// Older-WAL truncations exactly at a record boundary (each must be detected or harmless).
    old_wal_boundary_cuts: u64,
}

enum Outcome {
    Detected,
    Rows(BTreeMap<String, Vec<u8>>),
}

fn run(mem: MemFs, damaged: &Path, what: &str) -> Outcome {
    let check_err = |e: Error| -> Outcome {
        match &e {
            // A manifest that lost trailing edits to the damage (a cut at a record boundary
            // looks like a shorter log) can still list log segments its lost edits recorded
            // as deleted: the open then reports the first such segment missing, which is a
            // detection too (the manifest's record of the log disagrees with the log).
            Error::Corruption { path, detail }
                if path != damaged
                    && detail.starts_with("WAL segment missing")
                    && damaged
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("MANIFEST-")) =>
            {
                Outcome::Detected
            }
            Error::Corruption { path, detail } => {
                assert_eq!(
                    path, damaged,
                    "{what}: corruption reported for another file: {detail}"
                );
                Outcome::Detected
            }
            Error::UnsupportedFormat { path, .. } => {
                assert_eq!(path, damaged, "{what}: {e}");
                Outcome::Detected
            }
            other => panic!("{what}: expected Corruption or UnsupportedFormat, got {other:?}"),
        }
    };
    let db = match Db::open_with_fs("/db", opts(), Arc::new(mem)) {
        Ok(db) => db,
        Err(e) => return check_err(e),
    };
    let t = match db.table("t") {
        Ok(t) => t,
        // The manifest lost the edit creating it: every row is missing (checked by the caller).
        Err(Error::TableNotFound(_)) => return Outcome::Rows(BTreeMap::new()),
        Err(e) => panic!("{what}: {e}"),
    };
    let scanner = match t.scan(Scan::new()) {
        Ok(s) => s,
        Err(e) => return check_err(e),
    };
    let mut rows = BTreeMap::new();
    for r in scanner {
        match r {
            Ok(r) => {
                rows.insert(
                    String::from_utf8(r.row().to_vec()).unwrap(),
                    r.value("f", "q").unwrap_or_default().to_vec(),
                );
            }
            Err(e) => return check_err(e),
        }
    }
    Outcome::Rows(rows)
}

/// May this damage lose rows without being reported? Only when it has the shape of a torn
/// write, which no reader can tell from one (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MayLose {
    No,
    /// The record reader stops at the damage and treats the rest as a torn tail (damage in the
    /// final record, a length field grown past the end of the file, or a cut file).
    TornTail,
}

/// Where the snapshot a manifest starts with ends (every byte before it was synced before
/// `CURRENT` named the file: damage there is never a torn tail).
fn snapshot_len(manifest: &[u8], path: &Path) -> usize {
    let (recs, _) = read_records(manifest, path, TailPolicy::TornFinalRecordOnly).unwrap();
    recs.iter()
        .find(|r| r.rtype == cellbase::testing::manifest::RECORD_SNAPSHOT_END)
        .map_or(0, |r| r.offset as usize + 9 + r.payload.len())
}

fn may_lose(
    kind: Kind,
    damaged: &[u8],
    truncated: bool,
    path: &Path,
    at: usize,
    snap: usize,
) -> MayLose {
    if kind == Kind::Manifest && at < snap {
        return MayLose::No;
    }
    match kind {
        Kind::Block | Kind::Current => MayLose::No,
        Kind::NewestWal | Kind::Manifest => {
            let policy = if kind == Kind::Manifest {
                TailPolicy::TornFinalRecordOnly
            } else {
                TailPolicy::TornTailAllowed
            };
            match read_records(damaged, path, policy) {
                Ok((_, valid)) if truncated || valid < damaged.len() as u64 => MayLose::TornTail,
                _ => MayLose::No,
            }
        }
        // Older segments are complete on disk, and their successor's header records their
        // length: any damage, a cut at a record boundary included, must be reported.
        Kind::OldWal => MayLose::No,
    }
}

/// Damages one copy of the database and checks the outcome.
#[allow(clippy::too_many_arguments)]
fn case(
    base: &MemFs,
    path: &Path,
    kind: Kind,
    bytes: Vec<u8>,
    truncated: bool,
    at: usize,
    what: &str,
    tally: &mut Tally,
) {
    let snap = if kind == Kind::Manifest {
        snapshot_len(&base.read_file(path).unwrap(), path)
    } else {
        0
    };
    let allowed = may_lose(kind, &bytes, truncated, path, at, snap);
    let mem = base.deep_clone();
    mem.write_file(path, &bytes).unwrap();
    tally.cases += 1;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(mem, path, what)))
        .unwrap_or_else(|p| {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_string()))
                .unwrap_or_default();
            panic!("{what}: panicked: {msg}")
        });
    let rows = match outcome {
        Outcome::Detected => {
            tally.detected += 1;
            return;
        }
        Outcome::Rows(rows) => rows,
    };
    for (k, v) in &rows {
        let i: u64 = k
            .strip_prefix("row")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{what}: unexpected row {k:?}"));
        assert!(i < ROWS, "{what}: unexpected row {k}");
        assert_eq!(
            v,
            &value(i),
            "{what}: wrong value returned silently for {k}"
        );
    }
    if rows.len() as u64 == ROWS {
        tally.harmless += 1;
        return;
    }
    assert!(
        allowed != MayLose::No,
        "{what}: {} of {ROWS} rows silently lost",
        ROWS - rows.len() as u64
    );
    if matches!(kind, Kind::NewestWal | Kind::OldWal) {
        // Log damage loses only records after it: the rows the flushed files hold plus a
        // prefix of the logged ones are all there.
        let missing: Vec<u64> = (0..ROWS).filter(|i| !rows.contains_key(&row(*i))).collect();
        let first = missing[0];
        assert!(first >= FLUSHED, "{what}: flushed row {first} lost");
        if kind == Kind::NewestWal {
            assert!(
                missing.iter().copied().eq(first..ROWS),
                "{what}: rows lost from the middle of the log"
            );
        }
    }
    tally.torn += 1;
}

fn step() -> usize {
    std::env::var("CORRUPTION_STEP")
        .ok()
        .map_or(0, |s| s.parse().expect("CORRUPTION_STEP"))
}

fn sweep(truncate: bool) -> Tally {
    sweep_base(&build(), truncate, |_| true)
}

/// The database of [`build`], opened once more: its manifest starts with the snapshot that
/// open wrote (every table, region and file), followed by the edits of that session.
fn build_reopened() -> MemFs {
    let mem = build();
    Db::open_with_fs("/db", opts(), Arc::new(mem.clone()))
        .unwrap()
        .close()
        .unwrap();
    mem
}

fn sweep_base(base: &MemFs, truncate: bool, only: impl Fn(Kind) -> bool) -> Tally {
    let base = base.clone();
    let mut tally = Tally::default();
    for (path, kind) in files(&base) {
        if !only(kind) {
            continue;
        }
        let original = base.read_file(&path).unwrap();
        let n = original.len();
        let step = match step() {
            0 => (n / 150).max(1),
            s => s,
        };
        let mut positions: Vec<usize> = (0..n).step_by(step).collect();
        // Always include the last bytes (trailers, final records).
        positions.extend(n.saturating_sub(24)..n);
        // Every record boundary of an older WAL segment (the cut its own framing cannot reveal).
        let mut boundaries = Vec::new();
        if truncate && kind == Kind::OldWal {
            let (recs, _) = read_records(&original, &path, TailPolicy::Strict).unwrap();
            boundaries = recs
                .iter()
                .map(|r| r.offset as usize + 9 + r.payload.len())
                .filter(|&end| end < n)
                .collect();
            positions.extend(&boundaries);
        }
        positions.sort_unstable();
        positions.dedup();
        for &pos in &positions {
            if boundaries.contains(&pos) {
                tally.old_wal_boundary_cuts += 1;
            }
            if truncate {
                let what = format!(
                    "{} ({kind:?}) truncated to {pos} of {n} bytes",
                    path.display()
                );
                case(
                    &base,
                    &path,
                    kind,
                    original[..pos].to_vec(),
                    true,
                    pos,
                    &what,
                    &mut tally,
                );
            } else {
                let bit = (pos * 7) % 8;
                let mut b = original.clone();
                b[pos] ^= 1 << bit;
                let what = format!(
                    "{} ({kind:?}) bit {bit} of byte {pos} of {n} flipped",
                    path.display()
                );
                case(&base, &path, kind, b, false, pos, &what, &mut tally);
            }
        }
    }
    tally
}

/// [issue 5, item 5] Bit flips in every file kind.
#[test]
fn bit_flips_in_every_file_kind_are_detected_or_harmless() {
    let t = sweep(false);
    println!("bit flips: {t:?}");
    assert!(t.detected > t.cases / 2, "{t:?}");
}

/// [issue 5, item 5] with every codec: bit flips and truncations of block files whose data and
/// index blocks are compressed are all `Corruption` naming the file (the frame CRC is checked
/// before a payload is decompressed, and a cut file fails the trailer and layout checks).
#[test]
fn damage_to_compressed_block_files_is_detected_for_every_codec() {
    for codec in [
        Compression::Snappy,
        Compression::Gz,
        Compression::Lz4,
        Compression::Zstd,
    ] {
        let base = build_with(codec);
        let blocks = block_files(&base);
        assert_eq!(blocks.len(), 2, "{codec:?}");
        for p in &blocks {
            let f =
                cellbase::inspect::BlockFile::from_bytes(p, base.read_file(p).unwrap()).unwrap();
            assert_eq!(f.info().compression, codec);
            assert!(
                f.index().iter().any(|e| e.compression == Some(codec)),
                "{codec:?}: {} has no compressed block",
                p.display()
            );
        }
        for truncate in [false, true] {
            let t = sweep_base(&base, truncate, |k| k == Kind::Block);
            println!("{codec:?} block files, truncate {truncate}: {t:?}");
            assert!(t.cases > 100, "{codec:?}: {t:?}");
            assert_eq!(t.detected, t.cases, "{codec:?}: {t:?}");
        }
    }
}

/// [issue 5, item 5] with DATA_BLOCK_ENCODING FAST_DIFF: bit flips and truncations of block
/// files of suffix-delta entries, uncompressed and ZSTD-compressed, are all `Corruption`
/// naming the file.
#[test]
fn damage_to_fast_diff_block_files_is_detected() {
    for codec in [Compression::None, Compression::Zstd] {
        let base = build_family(
            FamilyDescriptor::new("f")
                .block_size(1024)
                .compression(codec)
                .data_block_encoding(DataBlockEncoding::FastDiff),
        );
        let blocks = block_files(&base);
        assert_eq!(blocks.len(), 2, "{codec:?}");
        for p in &blocks {
            let f =
                cellbase::inspect::BlockFile::from_bytes(p, base.read_file(p).unwrap()).unwrap();
            assert_eq!(f.info().data_block_encoding, DataBlockEncoding::FastDiff);
        }
        for truncate in [false, true] {
            let t = sweep_base(&base, truncate, |k| k == Kind::Block);
            println!("FAST_DIFF {codec:?} block files, truncate {truncate}: {t:?}");
            assert!(t.cases > 100, "{codec:?}: {t:?}");
            assert_eq!(t.detected, t.cases, "{codec:?}: {t:?}");
        }
    }
}

/// [issue 5, item 5] Truncations of every file kind.
#[test]
fn truncations_of_every_file_kind_are_detected_or_torn_tails() {
    let t = sweep(true);
    println!("truncations: {t:?}");
    assert!(t.detected > t.cases / 3, "{t:?}");
    assert!(
        t.old_wal_boundary_cuts > 0,
        "no older WAL segment was cut: {t:?}"
    );
}

/// [issue 21, case 2] The snapshot an open writes at the start of the manifest: every bit flip
/// and every truncation inside it is `Corruption` naming the manifest (it was synced before
/// `CURRENT` named the file, so it is never a torn tail); damage after it follows the torn
/// final record rule. Every byte by default.
#[test]
fn open_time_manifest_snapshot_damage_is_never_a_torn_tail() {
    let base = build_reopened();
    let (path, _) = files(&base)
        .into_iter()
        .find(|(_, k)| *k == Kind::Manifest)
        .unwrap();
    let bytes = base.read_file(&path).unwrap();
    let snap = snapshot_len(&bytes, &path);
    assert!(
        snap > 100,
        "the snapshot holds the tables and files: {snap} bytes"
    );
    let mut tally = Tally::default();
    for truncate in [false, true] {
        for pos in 0..bytes.len() {
            let (b, what) = if truncate {
                (
                    bytes[..pos].to_vec(),
                    format!("manifest truncated to {pos}"),
                )
            } else {
                let mut b = bytes.clone();
                b[pos] ^= 1 << ((pos * 7) % 8);
                (b, format!("manifest byte {pos} flipped"))
            };
            let before = tally.detected;
            case(
                &base,
                &path,
                Kind::Manifest,
                b,
                truncate,
                pos,
                &what,
                &mut tally,
            );
            if pos < snap {
                assert_eq!(
                    tally.detected,
                    before + 1,
                    "{what}: inside the snapshot, not detected"
                );
            }
        }
    }
    println!(
        "open-time snapshot ({snap} of {} bytes): {tally:?}",
        bytes.len()
    );
}

/// Every file of the database, with its bytes.
fn contents(mem: &MemFs) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for (p, _) in files(mem) {
        out.insert(p.clone(), mem.read_file(&p).unwrap());
    }
    out
}

/// [issue 21, case 1] Without `CURRENT` the open refuses (`Corruption` naming it) and every
/// other file stays as it was.
#[test]
fn missing_current_is_refused_and_nothing_is_deleted() {
    for base in [build(), build_reopened()] {
        let mem = base.deep_clone();
        mem.remove(Path::new("/db/CURRENT")).unwrap();
        let before = contents(&mem);
        match Db::open_with_fs("/db", opts(), Arc::new(mem.clone())) {
            Err(Error::Corruption { path, .. }) => assert_eq!(path, Path::new("/db/CURRENT")),
            other => panic!("open without CURRENT: {other:?}"),
        }
        assert_eq!(contents(&mem), before);
    }
}

/// [issue 21, case 4] Log segments deleted: each one alone, and every run of the newest ones
/// (the end of the log). Each open is `Corruption` naming a deleted segment; nothing else
/// changes.
#[test]
fn missing_wal_segments_anywhere_are_reported() {
    let base = build();
    let segs: Vec<PathBuf> = files(&base)
        .into_iter()
        .filter(|(_, k)| matches!(k, Kind::OldWal | Kind::NewestWal))
        .map(|(p, _)| p)
        .collect();
    assert!(segs.len() >= 3, "{segs:?}");
    let mut sets: Vec<Vec<PathBuf>> = segs.iter().map(|p| vec![p.clone()]).collect();
    for k in 2..=segs.len() {
        sets.push(segs[segs.len() - k..].to_vec());
    }
    let mut cases = 0;
    for gone in sets {
        let mem = base.deep_clone();
        for p in &gone {
            mem.remove(p).unwrap();
        }
        let before = contents(&mem);
        match Db::open_with_fs("/db", opts(), Arc::new(mem.clone())) {
            Err(Error::Corruption { path, detail }) => {
                assert!(
                    gone.contains(&path),
                    "{gone:?}: {} {detail}",
                    path.display()
                );
            }
            other => panic!("{gone:?} deleted: {other:?}"),
        }
        assert_eq!(contents(&mem), before, "{gone:?}");
        cases += 1;
    }
    println!("missing-segment cases: {cases}");
}

/// [issue 21, case 5] A block file replaced by another block file of the database (moved or
/// copied into its place): `Corruption` naming the replaced file, never its rows read as the
/// other's.
#[test]
fn misplaced_block_files_are_reported() {
    let base = build_reopened();
    let blocks = block_files(&base);
    assert!(blocks.len() >= 2, "{blocks:?}");
    let mut tally = Tally::default();
    for a in &blocks {
        for b in &blocks {
            if a == b {
                continue;
            }
            let bytes = base.read_file(a).unwrap();
            let what = format!("{} copied over {}", a.display(), b.display());
            let before = tally.detected;
            case(&base, b, Kind::Block, bytes, false, 0, &what, &mut tally);
            assert_eq!(tally.detected, before + 1, "{what}: not detected");
        }
    }
    println!("misplaced block files: {tally:?}");
}
