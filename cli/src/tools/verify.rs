//! `cellbase verify DIR`: an offline consistency check (HBase's `hbck` / a filesystem `fsck`).
//!
//! The checks are the engine's ([`cellbase::inspect::check_database_with`]), reading files only
//! (never opening a `Db`, which would replay the log, truncate a torn tail and rewrite the
//! manifest):
//!
//! * the manifest: `CURRENT` names it; every record's CRC; every edit decodes and replays
//!   (a torn final record is a warning: the engine drops it on open);
//! * region contiguity per table: regions cover the whole key space without gap or overlap;
//! * every block file the manifest references: exists, has the recorded size and identity, and
//!   every block (trailer, meta, index, Bloom, each data block) passes its checksum and
//!   decodes; each data block is walked (keys, payloads, order) and the file's statistics,
//!   index and Bloom filter are cross-checked against its cells; its cells belong to the
//!   recorded family;
//! * unreferenced files in `data/` (warnings: the next open deletes them, or keeps them
//!   unexplained);
//! * every WAL segment: header, every record's CRC, every entry decodes (cells well formed and
//!   carrying the entry's sequence id); a torn tail of the newest segment is a warning.
//!
//! Problems are reported with the file's path and the byte offset. No lock is taken: like hbck,
//! it may run against a live database, where in-flight work shows up as warnings; only files are
//! opened, read-only. docs/TOOLS.md has the details and exit codes.
use cellbase::inspect::{DatabaseCheck, check_database_with};
use clap::Args;
use std::io::Write;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub use cellbase::inspect::{Finding, Severity};

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

/// What `verify` checked and found: the engine's [`DatabaseCheck`] (its fields and methods
/// are reached through `Deref`), and the summary line printed from it.
#[derive(Debug, Clone, Default)]
pub struct Report(pub DatabaseCheck);

impl Deref for Report {
    type Target = DatabaseCheck;

    fn deref(&self) -> &DatabaseCheck {
        &self.0
    }
}

impl Report {
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
    check_database_with(dir, |_| {
        if let Some(p) = &progress {
            p.inc(1);
        }
    })
    .map(Report)
    .map_err(super::error_text)
}
