//! A gateway process for integration tests (`cellbase thrift`, `cellbase rest`): started on a
//! free port over a database directory, its port read from the `listening on ADDR` line,
//! killed on drop. Included by `thrift_common` and `rest_common`.
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A running gateway process, killed on drop.
pub struct Server {
    pub child: Child,
    pub port: u16,
}

/// Starts `cellbase SUBCOMMAND --port 0 --db DIR EXTRA...` and reads its port from the first
/// stdout line.
pub fn spawn(subcommand: &str, dir: &Path, extra: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cellbase"))
        .args([subcommand, "--port", "0", "--db"])
        .arg(dir)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn cellbase {subcommand}: {e}"));
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .expect("read the listening line");
    let port = line
        .trim()
        .strip_prefix("listening on ")
        .and_then(|a| a.rsplit(':').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    Server { child, port }
}

impl Server {
    /// A `VmXXX:` line of the process's /proc/PID/status, in KiB.
    pub fn status_kib(&self, key: &str) -> u64 {
        let pid = self.child.id();
        let s = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("read /proc status");
        s.lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or_else(|| panic!("no {key} in /proc/{pid}/status"))
    }

    /// Sends `signal` (e.g. `-TERM`) with `kill` and waits, at most 30 s, for the exit code.
    pub fn stop_with(&mut self, signal: &str) -> Option<i32> {
        let status = std::process::Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            if let Some(s) = self.child.try_wait().expect("wait") {
                return s.code();
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the gateway did not stop within 30 s"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Kills the process (SIGKILL) and waits for it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// After a stop by `signal`: the directory verifies clean with nothing left in the log to
/// replay (the close flushed the memstores and trimmed the log), and table `t` holds its 50
/// rows.
pub fn closed_cleanly_with_50_rows(dir: &Path, signal: &str) {
    let report = cellbase_cli::tools::verify::verify_dir(dir).unwrap();
    assert_eq!(report.errors(), 0, "{signal}: {:?}", report.findings);
    assert_eq!(
        report.wal_entries, 0,
        "{signal}: log entries left to replay"
    );
    let db = cellbase::Db::open(dir).unwrap();
    let rows = db
        .table("t")
        .unwrap()
        .scan(cellbase::Scan::new())
        .unwrap()
        .count();
    assert_eq!(rows, 50, "{signal}");
    db.close().unwrap();
}
