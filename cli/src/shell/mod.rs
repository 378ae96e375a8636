//! `cellbase shell` (being built).
use clap::Args;
use std::process::ExitCode;

/// Arguments of `cellbase shell`.
#[derive(Debug, Args)]
pub struct ShellArgs {}

/// Runs `cellbase shell`.
pub fn run(_args: ShellArgs) -> ExitCode {
    crate::fail("cellbase shell: not built yet")
}
