//! `cellbase backup` and `cellbase restore`: a checkpoint of a database into a new directory
//! (`Db::checkpoint`: block files hard-linked where the filesystem allows, copied otherwise),
//! and back. A backup is itself a database directory: `restore` checkpoints it into the
//! target, so the backup stays usable for the next restore.

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `cellbase backup`.
#[derive(Debug, Args)]
pub struct BackupArgs {
    /// Database directory to back up (must not be open elsewhere).
    #[arg(long)]
    pub db: PathBuf,
    /// New directory for the backup (refused if it exists).
    #[arg(long)]
    pub to: PathBuf,
}

/// Arguments of `cellbase restore`.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// A backup written by `cellbase backup` (or `Db::checkpoint`).
    #[arg(long)]
    pub from: PathBuf,
    /// New database directory to restore into (refused if it exists).
    #[arg(long)]
    pub db: PathBuf,
}

fn checkpoint(from: &std::path::Path, to: &std::path::Path, what: &str) -> ExitCode {
    if !from.join("CURRENT").exists() {
        return crate::fail(format!("{} is not a cellbase database", from.display()));
    }
    let db = match cellbase::Db::open(from) {
        Ok(db) => db,
        Err(e) => return crate::fail(format!("cannot open {}: {e}", from.display())),
    };
    let info = match db.checkpoint(to) {
        Ok(i) => i,
        Err(e) => return crate::fail(format!("{what} failed: {e}")),
    };
    if let Err(e) = db.close() {
        return crate::fail(format!("closing {} failed: {e}", from.display()));
    }
    crate::stderr_line!(
        "{what} of {} written to {}: {} block files linked, {} copied, {} log segments, {} bytes written",
        from.display(),
        to.display(),
        info.files_linked,
        info.files_copied,
        info.wal_segments,
        info.bytes_written
    );
    ExitCode::SUCCESS
}

/// Runs `cellbase backup`.
pub fn run_backup(a: BackupArgs) -> ExitCode {
    checkpoint(&a.db, &a.to, "backup")
}

/// Runs `cellbase restore`.
pub fn run_restore(a: RestoreArgs) -> ExitCode {
    checkpoint(&a.from, &a.db, "restore")
}
