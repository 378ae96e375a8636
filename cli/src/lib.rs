//! The `cellbase` command: an HBase-shell-compatible shell, operator tools (block file dump,
//! verify, TSV import/export), the rowkey lab and the HBase Thrift1 gateway.
//!
//! Each subcommand lives in its own module; `main.rs` only parses arguments and dispatches.
use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// `eprintln!` that does not panic when stderr cannot be written (a closed pipe, a full
/// device): the line is dropped instead. Every diagnostic of the CLI goes through it.
#[macro_export]
macro_rules! stderr_line {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

pub mod completions;
pub mod lab;
pub mod output;
pub mod progress;
pub mod shell;
pub mod thrift;
pub mod tools;

/// Command-line arguments of `cellbase`.
#[derive(Debug, Parser)]
#[command(
    name = "cellbase",
    version,
    propagate_version = true,
    about = "cellbase: an embedded HBase-model storage engine"
)]
pub struct Cli {
    /// The subcommand to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands of `cellbase`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// An HBase-shell-compatible shell over a local database directory.
    Shell(shell::ShellArgs),
    /// Print a block file's trailer, file info, index and Bloom summary (like `hbase hfile`).
    Hfile(tools::hfile::HfileArgs),
    /// Check every checksum, the manifest against the files and region contiguity.
    Verify(tools::verify::VerifyArgs),
    /// Export a table as ImportTsv-compatible TSV.
    ExportTsv(tools::tsv::ExportArgs),
    /// Import ImportTsv-format TSV into a table.
    ImportTsv(tools::tsv::ImportArgs),
    /// Serve the HBase Thrift1 `Hbase` service.
    Thrift(thrift::ThriftArgs),
    /// The rowkey lab: replay rowkey designs against real regions.
    Lab(lab::LabArgs),
    /// Print a shell completion script (bash, zsh or fish) on standard output.
    Completions(completions::CompletionsArgs),
}

/// Runs a parsed command line and returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Shell(a) => shell::run(a),
        Command::Hfile(a) => tools::hfile::run(a),
        Command::Verify(a) => tools::verify::run(a),
        Command::ExportTsv(a) => tools::tsv::run_export(a),
        Command::ImportTsv(a) => tools::tsv::run_import(a),
        Command::Thrift(a) => thrift::run(a),
        Command::Lab(a) => lab::run(a),
        Command::Completions(a) => completions::run(a),
    }
}

/// Prints `msg` as `ERROR: msg` on stderr and returns a failing exit code.
///
/// A closed or full stderr is ignored (the exit code still says what happened): unlike
/// `eprintln!`, this never panics.
pub fn fail(msg: impl std::fmt::Display) -> ExitCode {
    stderr_line!("ERROR: {msg}");
    ExitCode::FAILURE
}
