//! `cellbase lab` (being built).
use clap::Args;
use std::process::ExitCode;

/// Arguments of `cellbase lab`.
#[derive(Debug, Args)]
pub struct LabArgs {}

/// Runs `cellbase lab`.
pub fn run(_args: LabArgs) -> ExitCode {
    crate::fail("cellbase lab: not built yet")
}
