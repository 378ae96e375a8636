//! `cellbase thrift` (being built).
use clap::Args;
use std::process::ExitCode;

/// Arguments of `cellbase thrift`.
#[derive(Debug, Args)]
pub struct ThriftArgs {}

/// Runs `cellbase thrift`.
pub fn run(_args: ThriftArgs) -> ExitCode {
    crate::fail("cellbase thrift: not built yet")
}
