//! Progress on long work (issue 23): `lab run` / `lab compare`, `import-tsv`, `export-tsv` and
//! `verify` show a progress line on standard error, drawn by `indicatif`.
//!
//! The line is shown only when standard error is a terminal and `--quiet` was not given;
//! otherwise every function here returns a hidden bar, which draws nothing, so scripts,
//! pipes and tests see exactly the output they saw before. Standard output never carries
//! progress. Every bar is cleared when its work ends ([`done`]), so a terminal keeps only the
//! command's own output.
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// Whether a command should draw progress: standard error is a terminal and `--quiet` is off.
pub fn wanted(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

fn shown(len: Option<u64>, template: &str, prefix: &str) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(len, ProgressDrawTarget::stderr());
    // The templates are constants of this module: a bad one is a programming error, caught
    // by the unit test below; fall back to the default style rather than fail a command.
    if let Ok(style) = ProgressStyle::with_template(template) {
        pb.set_style(style);
    }
    pb.set_prefix(prefix.to_string());
    pb.enable_steady_tick(Duration::from_millis(200));
    // Draw at once, so even a short run shows where it is.
    pb.tick();
    pb
}

const COUNTER: &str = "{spinner} {prefix}: {human_pos} {msg} ({elapsed})";
const BAR: &str = "{prefix}: [{wide_bar}] {human_pos}/{human_len} {msg} ({elapsed}, ETA {eta})";
const BYTES: &str =
    "{prefix}: [{wide_bar}] {bytes}/{total_bytes} read ({binary_bytes_per_sec}, ETA {eta})";
const BYTES_UNKNOWN: &str = "{spinner} {prefix}: {bytes} read ({binary_bytes_per_sec}, {elapsed})";

/// A running count of `unit` (e.g. "files checked") with no known total.
pub fn counter(show: bool, prefix: &str, unit: &str) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let pb = shown(None, COUNTER, prefix);
    pb.set_message(unit.to_string());
    pb
}

/// A bar of `len` steps of `unit` (e.g. "operations").
pub fn bar(show: bool, prefix: &str, len: u64, unit: &str) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let pb = shown(Some(len), BAR, prefix);
    pb.set_message(unit.to_string());
    pb
}

/// Bytes read of an input of `len` bytes (`None`: unknown, e.g. standard input).
pub fn bytes(show: bool, prefix: &str, len: Option<u64>) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    match len {
        Some(_) => shown(len, BYTES, prefix),
        None => shown(None, BYTES_UNKNOWN, prefix),
    }
}

/// Ends a bar and clears its line.
pub fn done(pb: &ProgressBar) {
    pb.finish_and_clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_parse() {
        for t in [COUNTER, BAR, BYTES, BYTES_UNKNOWN] {
            assert!(ProgressStyle::with_template(t).is_ok(), "{t}");
        }
    }

    #[test]
    fn quiet_or_not_asked_draws_nothing() {
        assert!(!wanted(true));
        for pb in [
            counter(false, "verify", "files checked"),
            bar(false, "lab", 10, "operations"),
            bytes(false, "import-tsv", Some(10)),
            bytes(false, "import-tsv", None),
        ] {
            assert!(pb.is_hidden());
            pb.inc(3);
            done(&pb);
        }
    }
}
