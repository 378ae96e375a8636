//! The `cellbase` command.
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cellbase_cli::Cli::parse();
    cellbase_cli::init_logging(cli.verbose, cli.quiet);
    cellbase_cli::run(cli)
}
