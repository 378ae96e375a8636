//! Progress on long work (issue 23): `import-tsv`, `export-tsv`, `verify`, `lab run` and
//! `lab compare` draw a progress line on standard error only when it is a terminal, and
//! `--quiet` / `-q` silences it. With standard error piped, as here, no progress appears and
//! the outputs are the same with and without `-q`; through a pseudo-terminal `verify` shows
//! its line, and `verify -q` does not.
mod tools_common;

use std::path::{Path, PathBuf};
use tools_common::{Out, cellbase};

/// What any progress drawing would leave on standard error: carriage returns, terminal
/// escapes, or the progress lines' own words.
fn assert_no_progress(what: &str, o: &Out) {
    for mark in [
        "\r",
        "\x1b[",
        "files checked",
        "rows written",
        "operations",
        " read (",
    ] {
        assert!(
            !o.stderr.contains(mark),
            "{what}: progress ({mark:?}) on a piped stderr:\n{o:?}"
        );
    }
    for mark in ["\r", "\x1b["] {
        assert!(
            !o.stdout.contains(mark),
            "{what}: {mark:?} on stdout:\n{o:?}"
        );
    }
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// A database with table `t` of `rows` rows imported from a TSV file (the import checked).
fn database(dir: &Path, rows: usize, quiet: bool) -> PathBuf {
    let tsv = dir.join("in.tsv");
    let text: String = (0..rows)
        .map(|i| format!("row{i:05}\tvalue-{i}\n"))
        .collect();
    std::fs::write(&tsv, text).unwrap();
    let db = dir.join(if quiet { "db-quiet" } else { "db" });
    let mut args = vec![
        "import-tsv".to_string(),
        "--db".into(),
        s(&db),
        "-Dimporttsv.columns=HBASE_ROW_KEY,f:q".into(),
    ];
    if quiet {
        args.push("-q".into());
    }
    args.extend(["t".to_string(), s(&tsv)]);
    let o = cellbase(&args);
    assert_eq!(o.code, 0, "{o:?}");
    assert_no_progress("import-tsv", &o);
    assert_eq!(o.stdout, "", "{o:?}");
    assert_eq!(
        o.stderr,
        format!(
            "import-tsv: {rows} lines read, {rows} rows imported, {rows} cells written, Bad Lines=0\n"
        ),
        "{o:?}"
    );
    db
}

#[test]
fn piped_stderr_shows_no_progress_and_quiet_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), 500, false);
    database(dir.path(), 500, true);

    // export-tsv to standard output and to a file.
    let loud = cellbase(&["export-tsv", "--db", &s(&db), "t"]);
    let quiet = cellbase(&["export-tsv", "--db", &s(&db), "-q", "t"]);
    assert_eq!(loud.code, 0, "{loud:?}");
    assert_no_progress("export-tsv", &loud);
    assert_eq!(loud.stdout.lines().count(), 500);
    assert_eq!(loud.stdout.lines().next(), Some("row00000\tvalue-0"));
    assert_eq!((loud.stdout, loud.stderr), (quiet.stdout, quiet.stderr));
    let file = dir.path().join("out.tsv");
    let o = cellbase(&["export-tsv", "--db", &s(&db), "t", &s(&file)]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_no_progress("export-tsv to a file", &o);
    assert_eq!(o.stdout, "");
    assert_eq!(std::fs::read_to_string(&file).unwrap().lines().count(), 500);

    // verify, plain and verbose.
    for extra in [&[][..], &["-v"][..]] {
        let mut args = vec!["verify"];
        args.extend_from_slice(extra);
        let db_s = s(&db);
        args.push(&db_s);
        let loud = cellbase(&args);
        args.insert(1, "--quiet");
        let quiet = cellbase(&args);
        assert_eq!(loud.code, 0, "{loud:?}");
        assert_no_progress("verify", &loud);
        assert!(loud.stdout.ends_with("Status: OK\n"), "{loud:?}");
        assert_eq!(loud.stderr, "");
        assert_eq!((loud.stdout, loud.stderr), (quiet.stdout, quiet.stderr));
    }
}

fn example(name: &str) -> String {
    s(&PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/lab")
        .join(name))
}

/// The lab's terminal summary has timings; everything else must match line for line.
fn without_timings(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| !l.contains("ops/s") && !l.contains(" ms") && !l.contains("wall"))
        .map(str::to_string)
        .collect()
}

#[test]
fn lab_runs_with_piped_stderr_show_no_progress() {
    let dir = tempfile::tempdir().unwrap();
    let out = s(&dir.path().join("report"));
    let design = example("hotspot.toml");
    let loud = cellbase(&["lab", "run", &design, "--records", "300", "--out", &out]);
    assert_eq!(loud.code, 0, "{loud:?}");
    assert_no_progress("lab run", &loud);
    assert_eq!(loud.stderr, "");
    assert!(loud.stdout.starts_with("lab: "), "{loud:?}");
    let quiet = cellbase(&[
        "lab",
        "run",
        "-q",
        &design,
        "--records",
        "300",
        "--out",
        &out,
    ]);
    assert_eq!(quiet.code, 0, "{quiet:?}");
    assert_eq!(quiet.stderr, "");
    assert_eq!(
        without_timings(&loud.stdout),
        without_timings(&quiet.stdout)
    );

    let salted = example("salted.toml");
    let o = cellbase(&[
        "lab",
        "compare",
        &design,
        &salted,
        "--records",
        "300",
        "--out",
        &out,
    ]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_no_progress("lab compare", &o);
    assert_eq!(o.stderr, "");
    assert!(o.stdout.starts_with("lab compare: "), "{o:?}");
}

/// Through a pseudo-terminal (stdout and stderr both the terminal) `verify` draws its
/// "files checked" line, clears it, and prints its report; `-q` draws nothing.
#[cfg(unix)]
#[test]
fn verify_on_a_terminal_shows_progress_unless_quiet() {
    use expectrl::{Eof, Session};
    use std::process::Command;
    use std::time::Duration;

    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), 200, false);
    let run = |quiet: bool| -> String {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cellbase"));
        cmd.arg("verify");
        if quiet {
            cmd.arg("-q");
        }
        cmd.arg(&db).env("TERM", "xterm");
        let mut p = Session::spawn(cmd).expect("spawn verify on a pty");
        p.set_expect_timeout(Some(Duration::from_secs(60)));
        let all = p.expect(Eof).expect("verify ends");
        String::from_utf8_lossy(all.as_bytes()).into_owned()
    };
    let shown = run(false);
    assert!(shown.contains("verify: "), "{shown:?}");
    assert!(shown.contains("files checked"), "{shown:?}");
    assert!(shown.contains("Status: OK"), "{shown:?}");
    let quiet = run(true);
    assert!(!quiet.contains("files checked"), "{quiet:?}");
    assert!(!quiet.contains("\x1b["), "{quiet:?}");
    assert!(quiet.contains("Status: OK"), "{quiet:?}");
}

/// Runs `cellbase ARGS` on a pseudo-terminal (stdout and stderr both the terminal) and
/// returns everything it printed.
#[cfg(unix)]
fn on_a_pty(args: &[String]) -> String {
    use expectrl::{Eof, Session};
    use std::process::Command;
    use std::time::Duration;

    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cellbase"));
    cmd.args(args).env("TERM", "xterm");
    let mut p = Session::spawn(cmd).expect("spawn on a pty");
    p.set_expect_timeout(Some(Duration::from_secs(60)));
    let all = p.expect(Eof).expect("the command ends");
    String::from_utf8_lossy(all.as_bytes()).into_owned()
}

/// On a terminal, import-tsv shows bytes read, export-tsv to a file rows written, lab run
/// its operations; export-tsv writing its rows to that same terminal shows nothing.
#[cfg(unix)]
#[test]
fn the_other_commands_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("in.tsv");
    let text: String = (0..300)
        .map(|i| format!("row{i:05}\tvalue-{i}\n"))
        .collect();
    std::fs::write(&tsv, text).unwrap();
    let db = s(&dir.path().join("db"));
    let v = |a: &[&str]| -> Vec<String> { a.iter().map(|x| x.to_string()).collect() };

    let imported = on_a_pty(&v(&[
        "import-tsv",
        "--db",
        &db,
        "-Dimporttsv.columns=HBASE_ROW_KEY,f:q",
        "t",
        &s(&tsv),
    ]));
    assert!(imported.contains("import-tsv: "), "{imported:?}");
    assert!(imported.contains(" read ("), "{imported:?}");
    assert!(imported.contains("300 rows imported"), "{imported:?}");

    let file = s(&dir.path().join("out.tsv"));
    let exported = on_a_pty(&v(&["export-tsv", "--db", &db, "t", &file]));
    assert!(exported.contains("rows written"), "{exported:?}");
    assert!(exported.contains("export-tsv: 300 rows"), "{exported:?}");
    let quiet = on_a_pty(&v(&[
        "export-tsv",
        "-q",
        "--db",
        &db,
        "t",
        &(file.clone() + "2"),
    ]));
    assert!(!quiet.contains("rows written"), "{quiet:?}");
    let to_terminal = on_a_pty(&v(&["export-tsv", "--db", &db, "t"]));
    assert!(
        to_terminal.contains("row00299\tvalue-299"),
        "{to_terminal:?}"
    );
    assert!(!to_terminal.contains("rows written"), "{to_terminal:?}");

    let out = s(&dir.path().join("report"));
    let lab = on_a_pty(&v(&[
        "lab",
        "run",
        &example("hotspot.toml"),
        "--records",
        "300",
        "--out",
        &out,
    ]));
    assert!(lab.contains("hotspot: ["), "{lab:?}");
    assert!(lab.contains("operations"), "{lab:?}");
    assert!(lab.contains("report: "), "{lab:?}");
}
