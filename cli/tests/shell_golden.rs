//! Golden tests of `cellbase shell`: each `tests/golden/NAME.hbase` script runs
//! non-interactively (`-f`) against a fresh database with a fixed clock and epoch timestamps;
//! its standard output, with `Took N.NNNN seconds` lines normalized, must equal
//! `tests/golden/NAME.out` byte for byte.
//!
//! The expected files follow hbase-shell.md §4.2–4.4. To regenerate them after an intended
//! change, run with `CELLBASE_BLESS=1` and review the diff by hand. Scripts run with
//! `tests/golden` as the working directory (for `SPLITS_FILE => 'splits.txt'`).

use std::path::{Path, PathBuf};
use std::process::Command;

const CLOCK_MS: &str = "1700000000000";

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Replaces the digits of every `Took X.XXXX seconds` line (keeping the padding that the
/// aligned layout adds after it).
fn normalize(s: &str) -> String {
    s.lines()
        .map(|l| {
            let text = l.trim_end_matches(' ');
            if text.starts_with("Took ") && text.ends_with(" seconds") && text.len() == 19 {
                format!("Took N.NNNN seconds{}", &l[text.len()..])
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn run_script(name: &str, extra: &[&str]) -> (String, i32) {
    let dir = tempfile::tempdir().unwrap();
    let script = golden_dir().join(format!("{name}.hbase"));
    let out = Command::new(env!("CARGO_BIN_EXE_cellbase"))
        .arg("shell")
        .arg("--db")
        .arg(dir.path())
        .args(["--fixed-clock-ms", CLOCK_MS, "--timestamp-format", "epoch"])
        .args(extra)
        .arg("-f")
        .arg(&script)
        .current_dir(golden_dir()) // SPLITS_FILE paths are relative to it
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"),
        "{name}: panic on stderr:\n{stderr}"
    );
    (
        normalize(&String::from_utf8(out.stdout).expect("shell output is UTF-8")),
        out.status.code().unwrap_or(-1),
    )
}

fn check(name: &str, extra: &[&str], want_status: i32) {
    let (got, status) = run_script(name, extra);
    let path = golden_dir().join(format!("{name}.out"));
    if std::env::var_os("CELLBASE_BLESS").is_some() {
        std::fs::write(&path, &got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if got != want {
        let first = got
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(got.lines().count().min(want.lines().count()));
        panic!(
            "{name}: output differs from {} at line {}:\n  got:  {:?}\n  want: {:?}\n--- full output ---\n{got}",
            path.display(),
            first + 1,
            got.lines().nth(first),
            want.lines().nth(first)
        );
    }
    assert_eq!(status, want_status, "{name}: exit status");
}

#[test]
fn golden_ddl() {
    check("ddl", &[], 1); // one deliberate error: drop of an enabled table
}

#[test]
fn golden_dml() {
    check("dml", &[], 0);
}

#[test]
fn golden_admin() {
    check("admin", &[], 0);
}

/// The namespace commands, `ns:t` tables in the table commands, and their errors (six
/// deliberate ones).
#[test]
fn golden_namespace() {
    check("namespace", &[], 1);
}

#[test]
fn golden_errors() {
    check("errors", &[], 1);
}

#[test]
fn golden_tty_layout() {
    // The script ends with a failing `drop`, so the exit status is 1.
    check("tty", &["--layout", "tty", "--width", "60"], 1);
}
