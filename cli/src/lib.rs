//! The `cellbase` command: an HBase-shell-compatible shell, operator tools (block file dump,
//! verify, TSV import/export), the rowkey lab, the HBase Thrift1 and Thrift2 gateways and the REST gateway.
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
pub(crate) mod conn_slots;
pub mod info;
pub mod lab;
pub mod output;
pub mod progress;
pub mod rest;
pub mod shell;
pub mod thrift;
pub mod thrift2;
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
    /// Show more of the engine's log on standard error: `-v` adds flushes, compactions,
    /// splits, log rolls and recovery (info), `-vv` the compaction picker's decisions (debug).
    /// Give it before the subcommand; `RUST_LOG` overrides it.
    #[arg(short = 'v', long = "verbose", action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Show only errors of the engine's log on standard error (default: warnings too: write
    /// stalls and failed background work). Give it before the subcommand; `RUST_LOG`
    /// overrides it.
    #[arg(short = 'q', long = "quiet", conflicts_with = "verbose")]
    pub quiet: bool,
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
    /// Write a consistent copy of a database into a new directory (a checkpoint).
    Backup(tools::backup::BackupArgs),
    /// Restore a backup into a new database directory.
    Restore(tools::backup::RestoreArgs),
    /// Serve the HBase Thrift1 `Hbase` service.
    Thrift(thrift::ThriftArgs),
    /// Serve HBase 2.6's Thrift2 `THBaseService` (the flags, limits and defaults of `thrift`).
    Thrift2(thrift::ThriftArgs),
    /// Serve HBase's REST API ("Stargate": /version, /TABLE/schema, /TABLE/ROW, scanners, ...).
    Rest(rest::RestArgs),
    /// The rowkey lab: replay rowkey designs against real regions.
    Lab(lab::LabArgs),
    /// Print a shell completion script (bash, zsh or fish) on standard output.
    Completions(completions::CompletionsArgs),
}

/// The level of the engine's log lines shown on standard error: `warn` by default, `info`
/// with one `-v`, `debug` with two or more, `error` with `-q`.
pub fn log_level(verbose: u8, quiet: bool) -> log::LevelFilter {
    match (quiet, verbose) {
        (true, _) => log::LevelFilter::Error,
        (false, 0) => log::LevelFilter::Warn,
        (false, 1) => log::LevelFilter::Info,
        (false, _) => log::LevelFilter::Debug,
    }
}

/// Installs the logger of the `cellbase` command: the engine's log lines on standard error at
/// [`log_level`], unless `RUST_LOG` is set (then its directives decide, as `env_logger`
/// reads them). Does nothing when a logger is already installed.
pub fn init_logging(verbose: u8, quiet: bool) {
    let mut b = env_logger::Builder::new();
    b.target(env_logger::Target::Stderr)
        .filter_level(log_level(verbose, quiet));
    if let Ok(spec) = std::env::var("RUST_LOG") {
        b.parse_filters(&spec);
    }
    let _ = b.try_init();
}

/// Runs a parsed command line and returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Shell(a) => shell::run(a),
        Command::Hfile(a) => tools::hfile::run(a),
        Command::Verify(a) => tools::verify::run(a),
        Command::ExportTsv(a) => tools::tsv::run_export(a),
        Command::ImportTsv(a) => tools::tsv::run_import(a),
        Command::Backup(a) => tools::backup::run_backup(a),
        Command::Restore(a) => tools::backup::run_restore(a),
        Command::Thrift(a) => thrift::run(a),
        Command::Thrift2(a) => thrift2::run(a),
        Command::Rest(a) => rest::run(a),
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

/// A `u64` count or size from the command line as a `usize` (saturating).
pub(crate) fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// The gateways' check that a memory bound holds at least one message or reply: `Err` with the
/// failure exit when `--TOTAL` (`total`) is below `--PART` (`part`).
pub(crate) fn at_least(
    total_flag: &str,
    total: u64,
    part_flag: &str,
    part: u64,
) -> Result<(), ExitCode> {
    if total < part {
        return Err(fail(format!(
            "--{total_flag} ({total}) must be at least --{part_flag} ({part})"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbosity_flags_set_the_log_level() {
        let level = |args: &[&str]| {
            let cli = Cli::try_parse_from(args).unwrap();
            log_level(cli.verbose, cli.quiet)
        };
        assert_eq!(
            level(&["cellbase", "completions", "bash"]),
            log::LevelFilter::Warn
        );
        assert_eq!(
            level(&["cellbase", "-v", "completions", "bash"]),
            log::LevelFilter::Info
        );
        assert_eq!(
            level(&["cellbase", "-vv", "completions", "bash"]),
            log::LevelFilter::Debug
        );
        assert_eq!(
            level(&["cellbase", "-q", "completions", "bash"]),
            log::LevelFilter::Error
        );
        assert!(Cli::try_parse_from(["cellbase", "-q", "-v", "completions", "bash"]).is_err());
        // The subcommands' own -v and -q stay theirs.
        let cli = Cli::try_parse_from(["cellbase", "verify", "-v", "-q", "dir"]).unwrap();
        assert_eq!(log_level(cli.verbose, cli.quiet), log::LevelFilter::Warn);
    }
}
