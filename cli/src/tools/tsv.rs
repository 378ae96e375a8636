//! `cellbase export-tsv` / `import-tsv` (being built).
use clap::Args;
use std::process::ExitCode;

/// Arguments of `cellbase export-tsv`.
#[derive(Debug, Args)]
pub struct ExportArgs {}

/// Arguments of `cellbase import-tsv`.
#[derive(Debug, Args)]
pub struct ImportArgs {}

/// Runs `cellbase export-tsv`.
pub fn run_export(_args: ExportArgs) -> ExitCode {
    crate::fail("cellbase export-tsv: not built yet")
}

/// Runs `cellbase import-tsv`.
pub fn run_import(_args: ImportArgs) -> ExitCode {
    crate::fail("cellbase import-tsv: not built yet")
}
