//! `cellbase hfile` (being built).
use clap::Args;
use std::process::ExitCode;

/// Arguments of `cellbase hfile`.
#[derive(Debug, Args)]
pub struct HfileArgs {}

/// Runs `cellbase hfile`.
pub fn run(_args: HfileArgs) -> ExitCode {
    crate::fail("cellbase hfile: not built yet")
}
