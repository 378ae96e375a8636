//! `cellbase verify` (being built).
use clap::Args;
use std::process::ExitCode;

/// Arguments of `cellbase verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {}

/// Runs `cellbase verify`.
pub fn run(_args: VerifyArgs) -> ExitCode {
    crate::fail("cellbase verify: not built yet")
}
