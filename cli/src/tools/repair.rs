//! `cellbase verify --repair DIR`: the engine's salvage ([`cellbase::repair`]) with a printed
//! account of what it recovered and what it set aside.

use cellbase::repair::{ManifestSource, RepairReport};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Repairs `dir` and prints the report. Exit 0 when the repaired database opens, 1 when it
/// does not, 2 when the repair could not run (the database is open, the directory is missing,
/// a file could not be moved).
pub fn run(dir: &Path) -> ExitCode {
    let report = match cellbase::repair::repair(dir) {
        Ok(r) => r,
        Err(e) => {
            crate::stderr_line!("ERROR: repair of {} failed: {e}", dir.display());
            return ExitCode::from(2);
        }
    };
    let code = if report.opens.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    };
    // A closed pipe ends quietly (141), a full device with a message (1): crate::output.
    let mut out = crate::output::Stdout::new();
    let _ = print(&mut out, &report);
    out.finish(code)
}

/// The report, one fact per line.
pub fn print(out: &mut impl Write, r: &RepairReport) -> std::io::Result<()> {
    match &r.source {
        ManifestSource::Intact(p) => writeln!(out, "manifest: {} (intact)", p.display())?,
        ManifestSource::Salvaged {
            path,
            damaged_at,
            damage,
        } => writeln!(
            out,
            "manifest: salvaged from {} up to offset {damaged_at} ({damage}); edits after it \
             are lost",
            path.display()
        )?,
        ManifestSource::None => writeln!(
            out,
            "manifest: none could be read; no table is known, block files are set aside"
        )?,
        other => writeln!(out, "manifest: {other:?}")?,
    }
    writeln!(out, "new manifest: {}", r.new_manifest.display())?;
    writeln!(
        out,
        "recovered: {} tables, {} regions, {} block files",
        r.tables, r.regions, r.files
    )?;
    for p in &r.attached {
        writeln!(
            out,
            "attached: {} (no region listed it; it verifies)",
            p.display()
        )?;
    }
    for s in &r.set_aside {
        writeln!(
            out,
            "set aside: {} -> {}: {}",
            s.from.display(),
            s.to.display(),
            s.why
        )?;
    }
    for p in &r.dropped_wal_segments {
        writeln!(
            out,
            "LOST: log segment {} was missing; the writes it held are gone",
            p.display()
        )?;
    }
    match &r.opens {
        Ok(()) => writeln!(out, "Status: REPAIRED (the database opens)"),
        Err(e) => writeln!(
            out,
            "Status: NOT REPAIRED (the database does not open: {e})"
        ),
    }
}
