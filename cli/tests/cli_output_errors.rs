//! Issue 21, item 8: every command ends quietly when its standard output is a closed pipe
//! (exit 141, nothing on stderr but what it would print anyway, never a panic) and fails with a
//! clear message when the device is full; `hfile` refuses what is not a regular file; absurd
//! region counts and zero gateway limits are refused with clear errors.
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const EXIT_BROKEN_PIPE: i32 = 141;

fn cellbase() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cellbase"))
}

/// Runs `cmd` with its stdout the write end of a pipe whose read end is already closed, so
/// every write fails with EPIPE (`cmd | head -0`, deterministically).
fn into_closed_pipe(mut cmd: Command) -> Output {
    let (r, w) = std::io::pipe().unwrap();
    drop(r);
    cmd.stdout(w).stderr(Stdio::piped()).output().unwrap()
}

/// Runs `cmd` with its stdout on /dev/full (every write fails with ENOSPC).
fn into_full_device(mut cmd: Command) -> Output {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    cmd.stdout(full).stderr(Stdio::piped()).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn assert_quiet_broken_pipe(o: &Output, what: &str) {
    let err = stderr(o);
    assert_eq!(
        o.status.code(),
        Some(EXIT_BROKEN_PIPE),
        "{what}: status {:?}, stderr {err}",
        o.status
    );
    assert!(
        !err.contains("panicked") && !err.contains("Broken pipe"),
        "{what}: {err}"
    );
}

fn assert_full_device_reported(o: &Output, what: &str) {
    let err = stderr(o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{what}: {:?}, stderr {err}",
        o.status
    );
    assert!(
        err.contains("cannot write standard output") && err.contains("No space left"),
        "{what}: {err}"
    );
    assert!(!err.contains("panicked"), "{what}: {err}");
}

/// A database with table `t` (a few rows, flushed) and the path of one of its block files.
fn database(dir: &Path) -> PathBuf {
    let mut script = String::from("create 't', 'f'\n");
    for i in 0..50 {
        script.push_str(&format!("put 't', 'r{i:02}', 'f:q', 'value {i}'\n"));
    }
    script.push_str("flush 't'\n");
    let o = cellbase()
        .args(["shell", "-n", "--db"])
        .arg(dir)
        .args(["-e", &script])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    let data = dir.join("data");
    let mut files: Vec<PathBuf> = walk(&data)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "sst"))
        .collect();
    files.sort();
    files.pop().expect("a block file after the flush")
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn issue21_verify_and_hfile_into_a_closed_pipe_exit_quietly() {
    // `cellbase verify -v DIR | head -1` panicked (println! to a closed pipe, exit 101).
    let dir = tempfile::tempdir().unwrap();
    let sst = database(dir.path());
    let mut verify = cellbase();
    verify.args(["verify", "-v"]).arg(dir.path());
    assert_quiet_broken_pipe(&into_closed_pipe(verify), "verify -v");
    let mut hfile = cellbase();
    hfile.args(["hfile", "-p"]).arg(&sst);
    assert_quiet_broken_pipe(&into_closed_pipe(hfile), "hfile -p");
    let mut export = cellbase();
    export.args(["export-tsv", "--db"]).arg(dir.path()).arg("t");
    assert_quiet_broken_pipe(&into_closed_pipe(export), "export-tsv");
    let mut shell = cellbase();
    shell
        .args(["shell", "--db"])
        .arg(dir.path())
        .args(["-e", "scan 't'"]);
    assert_quiet_broken_pipe(&into_closed_pipe(shell), "shell -e scan");
}

#[test]
fn issue21_output_to_a_full_device_fails_with_a_message() {
    // `cellbase shell -e list > /dev/full` exited 0.
    let dir = tempfile::tempdir().unwrap();
    let sst = database(dir.path());
    let mut shell = cellbase();
    shell
        .args(["shell", "--db"])
        .arg(dir.path())
        .args(["-e", "list"]);
    assert_full_device_reported(&into_full_device(shell), "shell -e list");
    let mut verify = cellbase();
    verify.arg("verify").arg(dir.path());
    assert_full_device_reported(&into_full_device(verify), "verify");
    let mut hfile = cellbase();
    hfile.arg("hfile").arg(&sst);
    assert_full_device_reported(&into_full_device(hfile), "hfile");
    let mut export = cellbase();
    export.args(["export-tsv", "--db"]).arg(dir.path()).arg("t");
    assert_full_device_reported(&into_full_device(export), "export-tsv");
    // The gateway cannot announce its port: it exits instead of serving unseen.
    let mut thrift = cellbase();
    thrift
        .args(["thrift", "--port", "0", "--db"])
        .arg(dir.path().join("gw"));
    assert_full_device_reported(&into_full_device(thrift), "thrift");
}

#[test]
fn issue21_hfile_refuses_what_is_not_a_regular_file() {
    // `cellbase hfile /dev/zero` read forever.
    let dir = tempfile::tempdir().unwrap();
    for (path, kind) in [
        (PathBuf::from("/dev/zero"), "device"),
        (dir.path().to_path_buf(), "directory"),
    ] {
        let o = cellbase().arg("hfile").arg(&path).output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&path.display().to_string())
                && err.contains("not a regular file")
                && err.contains(kind),
            "{err}"
        );
    }
}

#[test]
fn issue21_shell_refuses_an_absurd_numregions() {
    // `NUMREGIONS => 2000000` was accepted; every later open took 10 s and 2.6 GB.
    let dir = tempfile::tempdir().unwrap();
    let o = cellbase()
        .args(["shell", "-n", "--db"])
        .arg(dir.path())
        .args([
            "-e",
            "create 't', 'f', {NUMREGIONS => 2000000, SPLITALGO => 'HexStringSplit'}",
        ])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success(), "{out}");
    assert!(
        out.contains("at most 10000 regions") && out.contains("2000000"),
        "{out}"
    );
}

#[test]
fn issue21_shell_filter_nested_10000_deep_is_an_error_not_an_abort() {
    // The shell's FILTER aborted the process at 10,000 levels (stack overflow).
    let dir = tempfile::tempdir().unwrap();
    database(dir.path());
    let mut f = "(".repeat(10_000);
    f.push_str("PrefixFilter('r')");
    for _ in 0..10_000 {
        f.push_str(" AND PrefixFilter('r'))");
    }
    // 230 KB: too long for one command-line argument, so through a script file.
    let script = dir.path().join("deep.rb");
    std::fs::write(&script, format!("scan 't', {{FILTER => \"{f}\"}}\nlist\n")).unwrap();
    let o = cellbase()
        .args(["shell", "--db"])
        .arg(dir.path())
        .arg("-f")
        .arg(&script)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(out.contains("deeper than 100 levels"), "{out}");
    // The shell went on to the next command.
    assert!(out.contains("1 row(s)"), "{out}");
}

#[test]
fn issue21_gateway_limits_cannot_be_zero() {
    for flag in [
        "--max-reply-mib",
        "--max-reply-memory-mib",
        "--max-request-memory-mib",
        "--max-scanners",
        "--max-scanners-per-connection",
        "--max-connections",
        "--max-connections-per-client",
        "--message-deadline-secs",
        "--max-message-mib",
        "--scanner-idle-secs",
    ] {
        let o = cellbase()
            .args(["thrift", "--port", "0", flag, "0"])
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{flag}: {err}");
        assert!(err.contains(flag) && err.contains("0"), "{flag}: {err}");
    }
    // The request budget must hold at least one message.
    let o = cellbase()
        .args(["thrift", "--port", "0", "--max-request-memory-mib", "16"])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--max-request-memory-mib (16) must be at least --max-message-mib (64)"),
        "{err}"
    );
}

/// Issue 21, item 1 at the CLI: `cellbase shell --db DIR` on an existing directory that is
/// not a database deleted every file in `DIR/data/` on 4e0c3c2. Now the shell reports the
/// engine's refusal, exits non-zero, and every file is as it was (no `LOCK` is created either).
#[test]
fn issue21_shell_on_a_directory_that_is_not_a_database_deletes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    std::fs::write(dir.path().join("data/holiday.jpg"), b"precious").unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"mine").unwrap();
    let before = walk(dir.path());
    let out = cellbase()
        .args(["shell", "--db"])
        .arg(dir.path())
        .args(["-e", "list"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    assert!(
        stderr(&out).contains("not a cellbase database"),
        "{}",
        stderr(&out)
    );
    assert_eq!(walk(dir.path()), before);
    assert_eq!(
        std::fs::read(dir.path().join("data/holiday.jpg")).unwrap(),
        b"precious"
    );
}

/// Runs `cmd` with its stderr the write end of a pipe whose read end is already closed.
fn stderr_into_closed_pipe(mut cmd: Command) -> Output {
    let (r, w) = std::io::pipe().unwrap();
    drop(r);
    cmd.stdout(Stdio::piped()).stderr(w).output().unwrap()
}

#[test]
fn failing_commands_with_stderr_a_closed_pipe_do_not_panic() {
    // `eprintln!` panics (exit 101) when stderr cannot be written; the CLI's diagnostics go
    // through `stderr_line!`, which drops the line instead: the exit code still says what
    // happened.
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let mut hfile = cellbase();
    hfile.arg("hfile").arg(&missing);
    let mut verify = cellbase();
    verify.arg("verify").arg(&missing);
    let mut thrift = cellbase();
    thrift.args(["thrift", "--port", "0", "--max-request-memory-mib", "16"]);
    let mut lab = cellbase();
    lab.args(["lab", "run"]).arg(&missing);
    let mut import = cellbase();
    import
        .args(["import-tsv", "--db"])
        .arg(dir.path().join("db"))
        .args(["-Dimporttsv.columns=HBASE_ROW_KEY,f:q", "t"])
        .arg(&missing);
    for (cmd, what) in [
        (hfile, "hfile"),
        (verify, "verify"),
        (thrift, "thrift"),
        (lab, "lab run"),
        (import, "import-tsv"),
    ] {
        let o = stderr_into_closed_pipe(cmd);
        assert_ne!(o.status.code(), Some(101), "{what}: panicked");
        assert!(
            matches!(o.status.code(), Some(1 | 2)),
            "{what}: {:?}, stdout {}",
            o.status,
            String::from_utf8_lossy(&o.stdout)
        );
    }
}

/// `cellbase lab run` of the `event` example on 200 records (a fraction of a second).
fn lab_run(out: &Path) -> Command {
    let design = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/lab/event.toml");
    let mut cmd = cellbase();
    cmd.args(["lab", "run"])
        .arg(design)
        .args(["--records", "200", "--out"])
        .arg(out);
    cmd
}

#[test]
fn lab_output_into_a_closed_pipe_or_a_full_device() {
    let dir = tempfile::tempdir().unwrap();
    // The command itself works (and prints its summary).
    let o = lab_run(&dir.path().join("ok")).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("report: "));
    // `cellbase lab run … | head -0`: quiet, exit 141.
    let o = into_closed_pipe(lab_run(&dir.path().join("pipe")));
    assert_quiet_broken_pipe(&o, "lab run");
    // `cellbase lab run … > /dev/full`: a message and exit 1.
    let o = into_full_device(lab_run(&dir.path().join("full")));
    assert_full_device_reported(&o, "lab run");
    let compare = |out: &Path| {
        let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/lab");
        let mut cmd = cellbase();
        cmd.args(["lab", "compare"])
            .arg(ex.join("hotspot.toml"))
            .arg(ex.join("salted.toml"))
            .args(["--records", "200", "--out"])
            .arg(out);
        cmd
    };
    assert_quiet_broken_pipe(
        &into_closed_pipe(compare(&dir.path().join("cpipe"))),
        "lab compare",
    );
    assert_full_device_reported(
        &into_full_device(compare(&dir.path().join("cfull"))),
        "lab compare",
    );
}
