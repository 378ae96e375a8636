//! `cellbase verify DIR`: an offline consistency check (HBase's `hbck` / a filesystem `fsck`).
//!
//! Checks, reading files only (never opening a `Db`, which would replay the log, truncate a torn
//! tail and rewrite the manifest):
//!
//! * the manifest: `CURRENT` names it; every record's CRC; every edit decodes and replays
//!   (a torn final record is a warning: the engine drops it on open);
//! * region contiguity per table: regions cover the whole key space without gap or overlap;
//! * every block file the manifest references: exists, has the recorded size, and every block
//!   (trailer, meta, index, Bloom, each data block) passes its checksum and decodes; each data
//!   block is walked (keys, payloads, order) and the file's statistics, index and Bloom filter
//!   are cross-checked against its cells; its cells belong to the recorded family;
//! * unreferenced files in `data/` (warnings: the next open deletes them);
//! * every WAL segment: header, every record's CRC, every entry decodes (cells well formed and
//!   carrying the entry's sequence id); a torn tail of the newest segment is a warning.
//!
//! Problems are reported with the file's path and the byte offset. No lock is taken: like hbck,
//! it may run against a live database, where in-flight work shows up as warnings; only files are
//! opened, read-only. docs/TOOLS.md has the details and exit codes.
use super::read_file;
use cellbase::codec::Reader;
use cellbase::manifest::ManifestState;
use cellbase::model::key::{KeyRef, compare_encoded};
use cellbase::model::payload::PayloadRef;
use cellbase::sst::block::{Block, BlockIter};
use cellbase::sst::bloom::BloomFilter;
use cellbase::sst::frame;
use cellbase::sst::index::{Index, index_key_fits};
use cellbase::sst::meta::{FileMeta, MetaDecodeError};
use cellbase::sst::trailer::Trailer;
use cellbase::sst::{BlockHandle, SstReader};
use cellbase::wal::record::{TailPolicy, read_records};
use cellbase::wal::segment;
use clap::Args;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `cellbase verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The database directory.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Treat warnings (torn WAL tail, unreferenced files, ...) as problems: exit 1.
    #[arg(long)]
    pub strict: bool,
    /// Print one line per file checked.
    #[arg(short, long)]
    pub verbose: bool,
    /// No progress line on standard error (shown only when it is a terminal).
    #[arg(short, long)]
    pub quiet: bool,
    /// Salvage instead of checking (the database must be closed): rebuild the manifest from
    /// what verifies, move what cannot be placed into DIR/lost+found/ (nothing is deleted),
    /// and print what was recovered, set aside and lost.
    #[arg(long, conflicts_with = "strict")]
    pub repair: bool,
}

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Damage or inconsistency: data is unreadable, lost or wrong.
    Error,
    /// Expected after a crash or while the database is open; the next open repairs it.
    Warning,
}

/// One problem found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// The file concerned (or the directory).
    pub path: PathBuf,
    /// Byte offset in the file, when the problem has one.
    pub offset: Option<u64>,
    /// What is wrong.
    pub detail: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "ERROR",
            Severity::Warning => "WARNING",
        };
        match self.offset {
            Some(o) => write!(
                f,
                "{sev}: {}: offset {o}: {}",
                self.path.display(),
                self.detail
            ),
            None => write!(f, "{sev}: {}: {}", self.path.display(), self.detail),
        }
    }
}

/// What `verify` checked and found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Every problem, in the order found.
    pub findings: Vec<Finding>,
    /// Block files checked.
    pub block_files: u64,
    /// Blocks checked (data, Bloom, index and meta blocks, and trailers).
    pub blocks: u64,
    /// Cells read from block files.
    pub cells: u64,
    /// WAL segments checked.
    pub wal_segments: u64,
    /// WAL entries checked.
    pub wal_entries: u64,
    /// Cells in WAL entries.
    pub wal_cells: u64,
    /// Manifest records replayed.
    pub manifest_records: u64,
    /// Tables in the manifest.
    pub tables: u64,
    /// Regions in the manifest.
    pub regions: u64,
    /// Bytes read.
    pub bytes: u64,
    /// The directory lock was held by another process (the database is open).
    pub locked_by_other: bool,
    /// Per-file lines for `--verbose`.
    pub notes: Vec<String>,
    /// Progress on standard error: one step per file checked (hidden unless asked for).
    progress: Option<indicatif::ProgressBar>,
}

impl Report {
    /// Findings of severity [`Severity::Error`].
    pub fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    /// Findings of severity [`Severity::Warning`].
    pub fn warnings(&self) -> usize {
        self.count(Severity::Warning)
    }

    /// Counts one more file checked on the progress line, if one is shown.
    fn file_checked(&self) {
        if let Some(p) = &self.progress {
            p.inc(1);
        }
    }

    fn count(&self, s: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == s).count()
    }

    fn error(&mut self, path: &Path, offset: Option<u64>, detail: impl Into<String>) {
        self.push(Severity::Error, path, offset, detail);
    }

    fn warn(&mut self, path: &Path, offset: Option<u64>, detail: impl Into<String>) {
        self.push(Severity::Warning, path, offset, detail);
    }

    fn push(
        &mut self,
        severity: Severity,
        path: &Path,
        offset: Option<u64>,
        detail: impl Into<String>,
    ) {
        self.findings.push(Finding {
            severity,
            path: path.to_path_buf(),
            offset,
            detail: detail.into(),
        });
    }

    /// Records an engine error (corruption details name their offset in the text).
    fn engine(&mut self, path: &Path, e: cellbase::Error) {
        match e {
            cellbase::Error::Corruption { path: p, detail } => {
                let off = offset_in(&detail);
                self.error(&p, off, detail);
            }
            cellbase::Error::UnsupportedFormat { path: p, found } => self.error(
                &p,
                None,
                format!("unsupported format version {found} (written by a newer cellbase?)"),
            ),
            other => self.error(path, None, other.to_string()),
        }
    }

    /// The summary line.
    pub fn summary(&self) -> String {
        format!(
            "Summary: {} block files ({} blocks, {} cells), {} WAL segments ({} entries, {} cells), \
             manifest ({} records, {} tables, {} regions), {} bytes read; {} errors, {} warnings",
            self.block_files,
            self.blocks,
            self.cells,
            self.wal_segments,
            self.wal_entries,
            self.wal_cells,
            self.manifest_records,
            self.tables,
            self.regions,
            self.bytes,
            self.errors(),
            self.warnings()
        )
    }
}

/// The last "offset N" in an engine error's detail.
fn offset_in(detail: &str) -> Option<u64> {
    let at = detail.rfind("offset ")?;
    let digits: String = detail[at + 7..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Runs `cellbase verify`: exit 0 when no errors were found (warnings allowed unless
/// `--strict`), 1 when some were, 2 when the directory cannot be checked at all.
pub fn run(args: VerifyArgs) -> ExitCode {
    if args.repair {
        return super::repair::run(&args.dir);
    }
    let progress = crate::progress::counter(
        crate::progress::wanted(args.quiet),
        "verify",
        "files checked",
    );
    let report = verify_dir_with(&args.dir, Some(progress.clone()));
    crate::progress::done(&progress);
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            crate::stderr_line!("ERROR: {e}");
            return ExitCode::from(2);
        }
    };
    let mut out = crate::output::Stdout::new();
    if report.locked_by_other {
        let _ = writeln!(
            out,
            "NOTE: {} is open in another process; in-flight work (a WAL tail being written, a \
             block file being flushed) may show as warnings. Re-run on a closed database for a \
             definitive answer.",
            args.dir.display()
        );
    }
    if args.verbose {
        for n in &report.notes {
            if writeln!(out, "{n}").is_err() {
                break;
            }
        }
    }
    for f in &report.findings {
        if writeln!(out, "{f}").is_err() {
            break;
        }
    }
    let _ = writeln!(out, "{}", report.summary());
    let bad = report.errors() > 0 || (args.strict && report.warnings() > 0);
    let _ = writeln!(out, "Status: {}", if bad { "INCONSISTENT" } else { "OK" });
    out.finish(if bad {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Checks the database in `dir` (read-only).
///
/// # Errors
/// Only when `dir` is not a readable directory; every problem inside it is a [`Finding`].
pub fn verify_dir(dir: &Path) -> Result<Report, String> {
    verify_dir_with(dir, None)
}

/// [`verify_dir`], counting each block file and WAL segment checked on `progress`.
fn verify_dir_with(dir: &Path, progress: Option<indicatif::ProgressBar>) -> Result<Report, String> {
    let md = std::fs::metadata(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    if !md.is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
    }
    let mut report = Report {
        locked_by_other: lock_held(dir),
        progress,
        ..Report::default()
    };
    let state = check_manifest(dir, &mut report);
    let referenced = match &state {
        Some(s) => {
            check_regions(dir, s, &mut report);
            check_referenced_files(dir, s, &mut report)
        }
        None => BTreeSet::new(),
    };
    check_unreferenced(dir, &referenced, state.as_ref(), &mut report);
    check_wal(dir, state.as_ref(), &mut report);
    Ok(report)
}

/// Whether another process holds the directory lock. Probes with a non-blocking shared `flock`
/// on a read-only descriptor that is released at once (a concurrent `Db::open` retries a
/// refused lock for half a second, so the probe cannot make it fail). A missing `LOCK` file
/// is not created.
fn lock_held(dir: &Path) -> bool {
    let lock = dir.join("LOCK");
    if !std::fs::metadata(&lock).is_ok_and(|m| m.is_file()) {
        return false; // opening a FIFO would block
    }
    let Ok(f) = std::fs::File::open(lock) else {
        return false;
    };
    match f.try_lock_shared() {
        Ok(()) => {
            let _ = f.unlock();
            false
        }
        Err(std::fs::TryLockError::WouldBlock) => true,
        Err(_) => false,
    }
}

/// `std::fs::read`, but only of a regular file: a FIFO or device placed in the database
/// directory would block the read forever (or never end), so it is refused unread with an
/// [`std::io::ErrorKind::InvalidInput`] error naming what it is.
fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileTypeExt;
    let t = std::fs::metadata(path)?.file_type();
    if !t.is_file() {
        let kind = if t.is_fifo() {
            "a FIFO"
        } else if t.is_char_device() || t.is_block_device() {
            "a device"
        } else if t.is_socket() {
            "a socket"
        } else if t.is_dir() {
            "a directory"
        } else {
            "not a file"
        };
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("not a regular file ({kind}), not read"),
        ));
    }
    std::fs::read(path)
}

fn names(dir: &Path) -> Result<Vec<String>, String> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| format!("cannot list: {e}"))? {
        let e = e.map_err(|e| format!("cannot list: {e}"))?;
        v.push(e.file_name().to_string_lossy().into_owned());
    }
    v.sort();
    Ok(v)
}

/// Reads `CURRENT` and replays the manifest it names; `None` when there is no usable state.
fn check_manifest(dir: &Path, report: &mut Report) -> Option<ManifestState> {
    let current = dir.join("CURRENT");
    let name_bytes = match read_regular(&current) {
        Ok(b) => b,
        Err(e) => {
            report.error(
                &current,
                None,
                format!(
                    "cannot read ({e}): not a cellbase database, or its manifest pointer is lost"
                ),
            );
            return None;
        }
    };
    report.bytes += name_bytes.len() as u64;
    // As the engine reads it (Manifest::open): trimmed, "MANIFEST-<number>", no path.
    let name = std::str::from_utf8(&name_bytes)
        .ok()
        .map(str::trim)
        .filter(|n| {
            !n.contains('/')
                && n.strip_prefix("MANIFEST-")
                    .is_some_and(|d| d.parse::<u64>().is_ok())
        });
    let Some(name) = name else {
        report.error(
            &current,
            Some(0),
            "does not name a manifest (expected \"MANIFEST-<digits>\\n\")",
        );
        return None;
    };
    // Stale manifests and a leftover CURRENT.tmp (a crash between writing and renaming).
    if let Ok(all) = names(dir) {
        for n in all {
            if (n.starts_with("MANIFEST-") && n != name) || n == "CURRENT.tmp" {
                report.warn(
                    &dir.join(&n),
                    None,
                    "not named by CURRENT (left by an interrupted manifest switch; the next open \
                     replaces it)",
                );
            }
        }
    }
    let path = dir.join(name);
    let bytes = match read_regular(&path) {
        Ok(b) => b,
        Err(e) => {
            report.error(
                &path,
                None,
                format!("manifest named by CURRENT cannot be read: {e}"),
            );
            return None;
        }
    };
    report.bytes += bytes.len() as u64;
    report.notes.push(format!(
        "manifest {}: {} bytes",
        path.display(),
        bytes.len()
    ));
    if bytes.is_empty() {
        report.error(
            &path,
            Some(0),
            "the manifest is empty: every open writes a snapshot before CURRENT names it, so \
             its content is lost (tables, regions and files unknown)",
        );
        return None;
    }
    // As the engine replays it: the snapshot the manifest starts with must be whole; after
    // it, only a torn final record (an append a crash cut off) is dropped.
    let state = match cellbase::manifest::replay_manifest(&bytes, &path) {
        Ok((state, legacy, dropped)) => {
            if let Some(valid) = dropped {
                report.warn(
                    &path,
                    Some(valid),
                    format!(
                        "torn final record ({} bytes; the change it describes was never \
                         acknowledged and is dropped on open)",
                        bytes.len() as u64 - valid
                    ),
                );
            }
            if legacy {
                report.notes.push(format!(
                    "manifest {}: written by an older version (no snapshot end record); the \
                     next open rewrites it",
                    path.display()
                ));
            }
            state
        }
        Err(e) => {
            report.engine(&path, e);
            report.error(
                &path,
                None,
                "manifest not replayed past the damage: tables, regions and files unknown",
            );
            return None;
        }
    };
    if let Ok((records, _)) = read_records(&bytes, &path, TailPolicy::TornFinalRecordOnly) {
        report.manifest_records += records.len() as u64;
    }
    report.tables = state.tables.len() as u64;
    report.regions = state.tables.values().map(|t| t.regions.len() as u64).sum();
    Some(state)
}

/// Regions of every table must tile the key space: the first starts at "", each starts where
/// the previous ends, the last ends at "" (unbounded), and none is empty.
fn check_regions(dir: &Path, state: &ManifestState, report: &mut Report) {
    let path = dir.join("CURRENT");
    for (id, t) in &state.tables {
        let name = t.desc.name();
        let mut regions: Vec<_> = t.regions.values().map(|r| &r.def).collect();
        regions.sort_by(|a, b| a.start.cmp(&b.start));
        let show = |k: &[u8]| format!("'{}'", super::to_string_binary(k));
        if regions.is_empty() {
            report.error(
                &path,
                None,
                format!("table {name} (id {id}) has no regions"),
            );
            continue;
        }
        let mut expect: Vec<u8> = Vec::new();
        for (i, r) in regions.iter().enumerate() {
            if r.start != expect {
                let what = if i == 0 {
                    format!(
                        "the first region {} starts at {} instead of ''",
                        r.id,
                        show(&r.start)
                    )
                } else if r.start.as_slice() > expect.as_slice() {
                    format!(
                        "gap: no region covers [{}, {})",
                        show(&expect),
                        show(&r.start)
                    )
                } else {
                    format!(
                        "overlap: region {} starts at {}, before the previous region's end {}",
                        r.id,
                        show(&r.start),
                        show(&expect)
                    )
                };
                report.error(&path, None, format!("table {name}: {what}"));
            }
            if !r.end.is_empty() && r.end <= r.start {
                report.error(
                    &path,
                    None,
                    format!(
                        "table {name}: region {} is empty or reversed [{}, {})",
                        r.id,
                        show(&r.start),
                        show(&r.end)
                    ),
                );
            }
            if r.end.is_empty() && i + 1 != regions.len() {
                report.error(
                    &path,
                    None,
                    format!(
                        "table {name}: region {} is unbounded but is not the last region",
                        r.id
                    ),
                );
            }
            expect = r.end.clone();
        }
        if !expect.is_empty() {
            report.error(
                &path,
                None,
                format!(
                    "table {name}: gap: no region covers rows from {} to the end",
                    show(&expect)
                ),
            );
        }
    }
}

fn sst_name(id: u64) -> String {
    format!("{id:010}.sst")
}

/// Checks every block file the manifest lists (once per file id); returns the referenced names.
fn check_referenced_files(
    dir: &Path,
    state: &ManifestState,
    report: &mut Report,
) -> BTreeSet<String> {
    // file id -> (family, size, where it is listed, table id)
    let mut files: BTreeMap<u64, (Vec<u8>, u64, String, u64)> = BTreeMap::new();
    for (&table_id, t) in &state.tables {
        for r in t.regions.values() {
            for f in &r.files {
                let at = format!("table {} region {}", t.desc.name(), r.def.id);
                if let Some((fam, size, first, _)) = files.get(&f.file_id) {
                    if *fam != f.family || *size != f.size {
                        report.error(
                            &dir.join("data").join(sst_name(f.file_id)),
                            None,
                            format!("listed with different family or size by {first} and {at}"),
                        );
                    }
                } else {
                    files.insert(f.file_id, (f.family.clone(), f.size, at, table_id));
                }
            }
        }
    }
    let mut names = BTreeSet::new();
    for (id, (family, size, at, table_id)) in files {
        let path = dir.join("data").join(sst_name(id));
        names.insert(sst_name(id));
        if !path.exists() {
            let detail = format!(
                "missing: the manifest lists it for {at}, family {}",
                super::to_string_binary(&family)
            );
            if report.locked_by_other && !still_referenced(dir, id) {
                // A live database compacted it away after the manifest was read.
                report.warn(
                    &path,
                    None,
                    format!("{detail}; the open database no longer lists it (removed meanwhile)"),
                );
            } else {
                report.error(&path, None, detail);
            }
            continue;
        }
        check_sst(&path, Some((&family, size)), report);
        check_identity(&path, state.db_id, id, table_id, &family, report);
    }
    names
}

/// A block file that records where it belongs (meta version 3) must be the file the manifest
/// lists at its path: a file moved or copied into another's place is an error, as at open.
fn check_identity(
    path: &Path,
    db_id: u64,
    file_id: u64,
    table_id: u64,
    family: &[u8],
    report: &mut Report,
) {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return; // check_sst reported why (and opening a FIFO would block)
    }
    let Ok(reader) = SstReader::open(&cellbase::io::StdFs, path, file_id, None) else {
        return; // check_sst reported why
    };
    let Some(id) = &reader.meta().identity else {
        return;
    };
    if id.file_id != file_id || id.table_id != table_id || id.family != family {
        report.error(
            path,
            None,
            format!(
                "misplaced block file: it records itself as file {} of table {}, family {}, but \
                 the manifest lists this path as file {file_id} of table {table_id}, family {}",
                id.file_id,
                id.table_id,
                super::to_string_binary(&id.family),
                super::to_string_binary(family),
            ),
        );
    } else if db_id != 0 && id.db_id != db_id {
        report.error(
            path,
            None,
            format!(
                "block file of another database (id {:016x}; this database is {db_id:016x})",
                id.db_id
            ),
        );
    }
}

/// Whether the manifest, read again now, still lists file `id` (for a live database, where a
/// compaction may remove a file between reading the manifest and reading the file).
fn still_referenced(dir: &Path, id: u64) -> bool {
    let mut scratch = Report::default();
    check_manifest(dir, &mut scratch).is_none_or(|s| {
        s.tables
            .values()
            .flat_map(|t| t.regions.values())
            .flat_map(|r| r.files.iter())
            .any(|f| f.file_id == id)
    })
}

/// Checks one block file; `expect` is the family and size the manifest recorded.
pub fn check_sst(path: &Path, expect: Option<(&[u8], u64)>, report: &mut Report) {
    let errors_before = report.errors();
    let file = match read_file(path) {
        Ok(f) => f,
        Err(e) => {
            report.error(path, None, e);
            return;
        }
    };
    report.block_files += 1;
    report.file_checked();
    let bytes: &[u8] = &file.0;
    report.bytes += bytes.len() as u64;
    if let Some((_, size)) = expect
        && size != bytes.len() as u64
    {
        report.error(
            path,
            None,
            format!(
                "file is {} bytes, the manifest recorded {size}",
                bytes.len()
            ),
        );
    }
    let trailer = match Trailer::decode(bytes, path) {
        Ok(t) => t,
        Err(e) => {
            report.engine(path, e);
            report.error(
                path,
                None,
                "no block located without a valid trailer: blocks not checked",
            );
            return;
        }
    };
    report.blocks += 1;
    let data_end = trailer.data_end();
    let range = |h: BlockHandle| format!(" [block bytes {}..{}]", h.offset, h.end());
    // Meta block.
    let mut meta: Option<FileMeta> = None;
    report.blocks += 1;
    match frame::read_frame(bytes, trailer.meta, trailer.meta.end(), path, "meta block") {
        Ok(raw) => match FileMeta::decode(&raw, bytes.len() as u64) {
            Ok(m) => meta = Some(m),
            Err(MetaDecodeError::Version(v)) => report.error(
                path,
                Some(trailer.meta.offset),
                format!("meta block version {v} unsupported"),
            ),
            Err(MetaDecodeError::Malformed(e)) => report.error(
                path,
                Some(trailer.meta.offset),
                format!(
                    "meta block: {} at byte {} of the block{}",
                    e.what,
                    e.offset,
                    range(trailer.meta)
                ),
            ),
        },
        Err(e) => {
            report.engine(path, e);
            if let Some(f) = report.findings.last_mut() {
                f.detail.push_str(&range(trailer.meta));
            }
        }
    }
    // Bloom block.
    if let Some(h) = trailer.bloom {
        report.blocks += 1;
        match frame::read_frame(bytes, h, h.end(), path, "bloom block") {
            Ok(raw) => {
                if let Err(e) = BloomFilter::decode(&raw) {
                    report.error(
                        path,
                        Some(h.offset),
                        format!(
                            "bloom block: {} at byte {} of the block{}",
                            e.what,
                            e.offset,
                            range(h)
                        ),
                    );
                }
            }
            Err(e) => {
                report.engine(path, e);
                if let Some(f) = report.findings.last_mut() {
                    f.detail.push_str(&range(h));
                }
            }
        }
    }
    // Index block, then every data block it lists.
    report.blocks += 1;
    let index = match frame::read_frame(
        bytes,
        trailer.index,
        trailer.index.end(),
        path,
        "index block",
    ) {
        // A damaged meta block is reported on its own: the index is then read as the newer
        // layout allows (row separators), so the damage does not cascade.
        Ok(raw) => match Index::decode_with(
            &raw,
            data_end,
            meta.as_ref().is_none_or(FileMeta::index_separators),
        ) {
            Ok(i) => Some(i),
            Err(e) => {
                report.error(
                    path,
                    Some(trailer.index.offset),
                    format!(
                        "index block: {} at byte {} of the block{}",
                        e.what,
                        e.offset,
                        range(trailer.index)
                    ),
                );
                None
            }
        },
        Err(e) => {
            report.engine(path, e);
            if let Some(f) = report.findings.last_mut() {
                f.detail.push_str(&range(trailer.index));
            }
            None
        }
    };
    let Some(index) = index else {
        report.error(
            path,
            Some(0),
            "data blocks not checked: the index that locates them is damaged",
        );
        return;
    };
    let family = expect.map(|(f, _)| f);
    let mut prev: Vec<u8> = Vec::new();
    let mut cells = 0u64;
    for i in 0..index.len() {
        let Some(h) = index.handle(i) else { break };
        report.blocks += 1;
        let raw = match frame::read_frame(bytes, h, data_end, path, "data block") {
            Ok(r) => r,
            Err(e) => {
                report.engine(path, e);
                if let Some(f) = report.findings.last_mut() {
                    f.detail.push_str(&format!(" (data block {i}){}", range(h)));
                }
                continue;
            }
        };
        let block = match Block::decode(raw.into_owned()) {
            Ok(b) => std::sync::Arc::new(b),
            Err(e) => {
                report.error(
                    path,
                    Some(h.offset),
                    format!(
                        "data block {i}: {} at byte {} of the decoded block{}",
                        e.what,
                        e.offset,
                        range(h)
                    ),
                );
                continue;
            }
        };
        let mut it = BlockIter::new(block, Vec::new());
        let mut first = true;
        let mut r = it.seek_to_first();
        while r.is_ok() && it.valid() {
            let key = it.key();
            let separators = i > 0 && meta.as_ref().is_none_or(FileMeta::index_separators);
            if first
                && !index
                    .first_key(i)
                    .is_some_and(|k| index_key_fits(&k, key, &prev, separators))
            {
                report.error(
                    path,
                    Some(h.offset),
                    format!(
                        "data block {i}: first key disagrees with the index{}",
                        range(h)
                    ),
                );
            }
            first = false;
            if cells > 0 && compare_encoded(&prev, key) != Ordering::Less {
                report.error(
                    path,
                    Some(h.offset),
                    format!(
                        "data block {i}: key {} not after {}{}",
                        super::key_to_string(key),
                        super::key_to_string(&prev),
                        range(h)
                    ),
                );
            }
            if let (Some(fam), Some(k)) = (family, KeyRef::parse(key))
                && k.family != fam
            {
                report.error(
                    path,
                    Some(h.offset),
                    format!(
                        "data block {i}: cell of family {} in a file the manifest lists for family {}",
                        super::to_string_binary(k.family),
                        super::to_string_binary(fam)
                    ),
                );
                // One report per block is enough.
                break;
            }
            if PayloadRef::parse(it.payload()).is_none() {
                report.error(
                    path,
                    Some(h.offset),
                    format!("data block {i}: malformed payload{}", range(h)),
                );
            }
            cells += 1;
            prev.clear();
            prev.extend_from_slice(key);
            r = it.advance();
        }
        if let Err(e) = r {
            report.error(
                path,
                Some(h.offset),
                format!(
                    "data block {i}: {} at byte {} of the decoded block{}",
                    e.what,
                    e.offset,
                    range(h)
                ),
            );
        }
    }
    report.cells += cells;
    // Cross-checks of the statistics, index and Bloom filter against the cells (the engine's
    // own verification), once every block reads.
    if report.errors() == errors_before && meta.is_some() {
        match SstReader::from_file(file.clone(), path, 0, None).and_then(|r| r.verify()) {
            Ok(()) => {}
            Err(e) => report.engine(path, e),
        }
    }
    report.notes.push(format!(
        "block file {}: {} bytes, {} data blocks, {} cells{}",
        path.display(),
        bytes.len(),
        index.len(),
        cells,
        if report.errors() == errors_before {
            ", OK"
        } else {
            ", DAMAGED"
        }
    ));
}

/// Files in `data/` no manifest region lists (the next open deletes them).
fn check_unreferenced(
    dir: &Path,
    referenced: &BTreeSet<String>,
    state: Option<&ManifestState>,
    report: &mut Report,
) {
    let have_state = state.is_some();
    let data = dir.join("data");
    let list = match names(&data) {
        Ok(l) => l,
        Err(e) => {
            if data.exists() {
                report.error(&data, None, e);
            } else if have_state && !referenced.is_empty() {
                report.error(&data, None, "missing directory");
            }
            return;
        }
    };
    for n in list {
        if referenced.contains(&n) {
            continue;
        }
        let path = data.join(&n);
        if let Some(state) = state {
            // The engine's own rule (docs/ARCHITECTURE.md, "Recovery"): deleted only on proof.
            let id = n
                .strip_suffix(".sst")
                .filter(|d| d.len() == 10 && d.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|d| d.parse::<u64>().ok());
            let why = match id {
                Some(id) if state.obsolete_files.contains(&id) => {
                    "obsolete: the manifest records that a compaction or drop replaced it (the \
                     next open deletes it)"
                }
                Some(id) if id >= state.next_file_id && state.db_id != 0 => {
                    "unreferenced: numbered above every file the manifest recorded (a flush or \
                     compaction that did not finish; the next open deletes it)"
                }
                _ => {
                    "unexplained: no region lists it, and the manifest does not record it as \
                     obsolete; the engine keeps it (move it away, or restore it with `cellbase \
                     verify --repair`)"
                }
            };
            report.warn(&path, None, why);
        } else {
            // Without a manifest every file is unaccounted for: still check its blocks.
            report.warn(
                &path,
                None,
                "cannot tell whether it is referenced (no manifest)",
            );
            if n.ends_with(".sst") {
                check_sst(&path, None, report);
            }
        }
    }
}

/// Every WAL segment: frames, header, entries; and every segment the manifest records as live
/// must exist.
fn check_wal(dir: &Path, state: Option<&ManifestState>, report: &mut Report) {
    let wal = dir.join("wal");
    for id in state
        .and_then(|s| s.wal_segments.as_ref())
        .into_iter()
        .flatten()
    {
        let p = segment::segment_path(&wal, *id);
        if !p.exists() {
            report.error(
                &p,
                None,
                "missing: the manifest records this log segment as holding writes not yet in \
                 block files (acknowledged writes may be lost; the engine refuses to open \
                 without WalRecovery::SkipMissingSegments)",
            );
        }
    }
    let list = match names(&wal) {
        Ok(l) => l,
        Err(e) => {
            if wal.exists() {
                report.error(&wal, None, e);
            }
            return;
        }
    };
    let mut ids = Vec::new();
    for n in list {
        match segment::parse_segment_name(&n) {
            Some(id) => ids.push(id),
            None => report.warn(
                &wal.join(&n),
                None,
                "not a WAL segment name (ignored by the engine)",
            ),
        }
    }
    ids.sort_unstable();
    // The segment checked just before this one: (id, length in bytes).
    let mut before: Option<(u64, u64)> = None;
    for (i, &id) in ids.iter().enumerate() {
        let newest = i + 1 == ids.len();
        let mut seen = SegmentSeen::default();
        check_segment(
            &segment::segment_path(&wal, id),
            id,
            newest,
            report,
            &mut seen,
        );
        // A version-2 header records the previous segment's final length; the engine's replay
        // reports a mismatch (e.g. an older segment cut at a record boundary) as corruption.
        if let (Some(link), Some((bid, blen))) = (seen.link, before)
            && link.id == bid
            && link.len != blen
        {
            let older = segment::segment_path(&wal, bid);
            let msg = if blen < link.len {
                format!(
                    "closed segment ends at offset {blen}, but the header of {} records its \
                     length as {}: {} bytes missing",
                    segment::segment_file_name(id),
                    link.len,
                    link.len - blen
                )
            } else {
                format!(
                    "closed segment is {blen} bytes, but the header of {} records its length \
                     as {}: unexpected bytes",
                    segment::segment_file_name(id),
                    link.len
                )
            };
            report.error(&older, Some(blen.min(link.len)), msg);
        }
        before = seen.len.map(|l| (id, l));
    }
    // The manifest's record of each sealed segment's synced length catches a cut the chain
    // cannot (its successors gone), for segments nothing above reported already.
    for (id, len) in state.map(|s| &s.wal_sealed).into_iter().flatten() {
        let p = segment::segment_path(&wal, *id);
        let reported = report
            .findings
            .iter()
            .any(|f| f.severity == Severity::Error && f.path == p);
        if let Ok(md) = std::fs::metadata(&p)
            && md.len() < *len
            && !reported
        {
            report.error(
                &p,
                Some(md.len()),
                format!(
                    "log segment cut short: the manifest records it sealed at {len} bytes \
                     ({} bytes of logged writes missing)",
                    len - md.len()
                ),
            );
        }
    }
}

/// What [`check_segment`] learned about a segment for the chain check.
#[derive(Default)]
struct SegmentSeen {
    /// Its length in bytes (when it could be read).
    len: Option<u64>,
    /// The previous segment its (version 2) header links to.
    link: Option<segment::PrevSegment>,
}

fn check_segment(path: &Path, id: u64, newest: bool, report: &mut Report, seen: &mut SegmentSeen) {
    let bytes = match read_regular(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && report.locked_by_other => {
            report.warn(
                path,
                None,
                "deleted while being checked (the open database retired it)",
            );
            return;
        }
        Err(e) => {
            report.error(path, None, format!("cannot read: {e}"));
            return;
        }
    };
    report.wal_segments += 1;
    report.file_checked();
    report.bytes += bytes.len() as u64;
    seen.len = Some(bytes.len() as u64);
    let records = match read_records(&bytes, path, TailPolicy::Strict) {
        Ok((r, _)) => r,
        Err(strict_err) => {
            let torn = if newest {
                read_records(&bytes, path, TailPolicy::TornTailAllowed).ok()
            } else {
                None
            };
            match torn {
                Some((r, valid))
                    if bytes[usize::try_from(valid).unwrap_or(bytes.len())..]
                        .iter()
                        .all(|&b| b == 0) =>
                {
                    // The writer preallocates the segment it appends to: zeros after the last
                    // record are its unused room, not damage.
                    report.notes.push(format!(
                        "WAL segment {}: {} bytes of preallocated room after the last record",
                        path.display(),
                        bytes.len() as u64 - valid
                    ));
                    r
                }
                Some((r, valid)) => {
                    report.warn(
                        path,
                        Some(valid),
                        format!(
                            "torn tail: the last {} bytes are an incomplete or damaged final \
                             record (a write cut short by a crash; the next open truncates it, \
                             losing only unacknowledged or non-fsynced writes)",
                            bytes.len() as u64 - valid
                        ),
                    );
                    r
                }
                None => {
                    report.engine(path, strict_err);
                    if !newest && let Some(f) = report.findings.last_mut() {
                        f.detail
                            .push_str(" (in a closed segment, which must be complete)");
                    }
                    return;
                }
            }
        }
    };
    let mut entries = 0u64;
    for (j, rec) in records.iter().enumerate() {
        match (j, rec.rtype) {
            (0, segment::REC_SEGMENT_HEADER) => {
                match segment::check_segment_header(rec.payload, path, id, rec.offset) {
                    Ok(link) => seen.link = link,
                    Err(e) => {
                        report.engine(path, e);
                        return;
                    }
                }
            }
            (0, t) => {
                report.error(
                    path,
                    Some(0),
                    format!("missing segment header (first record has type {t})"),
                );
                return;
            }
            (_, segment::REC_ENTRY) => {
                entries += 1;
                match check_entry(rec.payload) {
                    Ok(n) => report.wal_cells += n,
                    Err(m) => report.error(path, Some(rec.offset), format!("WAL entry: {m}")),
                }
            }
            (_, t) => report.error(
                path,
                Some(rec.offset),
                format!("unexpected WAL record type {t}"),
            ),
        }
    }
    report.wal_entries += entries;
    report.notes.push(format!(
        "WAL segment {}: {} bytes, {entries} entries",
        path.display(),
        bytes.len()
    ));
}

/// Decodes one entry frame payload (`seq | version | table_id | ...`, docs/FORMAT.md 3.2–3.3:
/// version 2 `row | n | (family, qualifier, ts, type, payload) × n`, version 1
/// `n | (key, payload) × n`); returns its cell count.
fn check_entry(payload: &[u8]) -> Result<u64, String> {
    let mut r = Reader::new(payload);
    let err =
        |e: cellbase::codec::DecodeError| format!("{} at byte {} of the entry", e.what, e.offset);
    let seq = r.u64("sequence id").map_err(err)?;
    let version = r.u8("entry version").map_err(err)?;
    if version != 1 && version != 2 {
        return Err(format!("unknown entry version {version}"));
    }
    r.varint("table id").map_err(err)?;
    if version == 2 {
        let row = r.bytes("row").map_err(err)?;
        if row.len() > u16::MAX as usize {
            return Err(format!("row of {} bytes", row.len()));
        }
    }
    let n = r.len(r.remaining(), "cell count").map_err(err)?;
    let mut row: Option<&[u8]> = None;
    for i in 0..n {
        if version == 2 {
            let family = r.bytes("family").map_err(err)?;
            r.bytes("qualifier").map_err(err)?;
            r.i64("timestamp").map_err(err)?;
            let type_code = r.u8("type").map_err(err)?;
            let p = r.bytes("payload").map_err(err)?;
            if family.len() > u8::MAX as usize {
                return Err(format!("cell {i}: family of {} bytes", family.len()));
            }
            if cellbase::CellType::from_code(type_code).is_none() {
                return Err(format!("cell {i}: unknown cell type code {type_code}"));
            }
            if PayloadRef::parse(p).is_none() {
                return Err(format!("cell {i}: malformed payload"));
            }
            continue;
        }
        let key = r.bytes("key").map_err(err)?;
        let p = r.bytes("payload").map_err(err)?;
        let k = KeyRef::parse(key).ok_or(format!("cell {i}: malformed key"))?;
        if k.cell_type().is_none() {
            return Err(format!("cell {i}: unknown cell type code {}", k.type_code));
        }
        if k.seq != seq {
            return Err(format!(
                "cell {i}: sequence id {} differs from the entry's {seq}",
                k.seq
            ));
        }
        if *row.get_or_insert(k.row) != k.row {
            return Err(format!("cell {i}: row differs from the entry's first cell"));
        }
        if PayloadRef::parse(p).is_none() {
            return Err(format!("cell {i}: malformed payload"));
        }
    }
    if !r.is_empty() {
        return Err(format!("{} trailing bytes", r.remaining()));
    }
    Ok(n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_found_in_engine_details() {
        assert_eq!(offset_in("data block at offset 1234: checksum"), Some(1234));
        assert_eq!(offset_in("x at offset 1 then offset 99"), Some(99));
        assert_eq!(offset_in("nothing here"), None);
    }

    #[test]
    fn entries_decode_and_damage_is_named() {
        let key = KeyRef {
            row: b"r",
            family: b"f",
            qualifier: b"q",
            ts: 1,
            type_code: 4,
            seq: 9,
        }
        .encode();
        let mut e = 9u64.to_be_bytes().to_vec();
        e.push(1);
        cellbase::codec::put_varint(&mut e, 3);
        cellbase::codec::put_varint(&mut e, 1);
        cellbase::codec::put_bytes(&mut e, &key);
        cellbase::codec::put_bytes(&mut e, &cellbase::model::payload::encode(None, b"v"));
        assert_eq!(check_entry(&e), Ok(1));
        let mut wrong_seq = e.clone();
        wrong_seq[7] = 8;
        assert!(check_entry(&wrong_seq).unwrap_err().contains("sequence id"));
        let mut trailing = e.clone();
        trailing.push(0);
        assert!(check_entry(&trailing).is_err());
        assert!(check_entry(&e[..e.len() - 1]).is_err());
    }

    #[test]
    fn closed_segment_shorter_than_its_successor_records_is_an_error() {
        use cellbase::io::{FileSystem, StdFs};
        use cellbase::wal::{Wal, WalOptions, WalSync};
        let dir = tempfile::tempdir().unwrap();
        let wal_dir = dir.path().join("wal");
        std::fs::create_dir(&wal_dir).unwrap();
        let wal = Wal::create(
            std::sync::Arc::new(StdFs),
            wal_dir.clone(),
            1,
            WalOptions {
                segment_size: 200,
                ..WalOptions::default()
            },
        )
        .unwrap();
        for seq in 1..=12 {
            wal.append(&[7u8; 40], seq, WalSync::Write).unwrap();
        }
        wal.close().unwrap();
        assert!(wal.segment_count() >= 3);
        let chain = |r: &Report| -> Vec<Finding> {
            r.findings
                .iter()
                .filter(|f| f.detail.contains("records its length"))
                .cloned()
                .collect()
        };
        let mut clean = Report::default();
        check_wal(dir.path(), None, &mut clean);
        assert_eq!(clean.wal_segments, wal.segment_count() as u64);
        assert!(chain(&clean).is_empty(), "{:?}", clean.findings);
        // Drop the last record of segment 1 (cut exactly at a record boundary).
        let p1 = cellbase::wal::segment::segment_path(&wal_dir, 1);
        let bytes = StdFs.read_all(&p1).unwrap();
        let (recs, _) = read_records(&bytes, &p1, TailPolicy::Strict).unwrap();
        let cut = recs.last().unwrap().offset;
        std::fs::write(&p1, &bytes[..cut as usize]).unwrap();
        let mut r = Report::default();
        check_wal(dir.path(), None, &mut r);
        let found = chain(&r);
        assert_eq!(found.len(), 1, "{:?}", r.findings);
        assert_eq!(found[0].path, p1);
        assert_eq!(found[0].offset, Some(cut));
        assert_eq!(found[0].severity, Severity::Error);
    }
}
