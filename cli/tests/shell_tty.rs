//! The interactive shell driven through a pseudo-terminal (expectrl): it shows the prompt,
//! accepts a statement spread over several lines (continuation prompt), prints get/scan in
//! the aligned terminal layout, keeps running after an error, and saves its history.
#![cfg(unix)]

use expectrl::{Eof, Session};
use std::process::Command;
use std::time::Duration;

#[test]
fn interactive_shell_through_a_pty() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cellbase"));
    cmd.arg("shell")
        .arg("--db")
        .arg(dir.path().join("db"))
        .arg("--history")
        .arg(&history)
        .args([
            "--fixed-clock-ms",
            "1000",
            "--timestamp-format",
            "epoch",
            "--width",
            "80",
        ])
        .env("TERM", "xterm");
    let mut s = Session::spawn(cmd).expect("spawn the shell on a pty");
    s.set_expect_timeout(Some(Duration::from_secs(30)));

    s.expect("hbase:001:0> ").expect("first prompt");
    // A multi-line create: the first line ends with a comma, so the shell asks for more.
    s.send_line("create 't1',").unwrap();
    s.expect("hbase:002:0* ").expect("continuation prompt");
    s.send_line("  {NAME => 'f1', VERSIONS => 2}").unwrap();
    s.expect("Created table t1").expect("create ran");
    s.expect("=> Hbase::Table - t1").unwrap();
    s.expect("hbase:003:0> ").unwrap();

    s.send_line("put 't1', 'r1', 'f1:c1', 'v1', 7").unwrap();
    s.expect("hbase:004:0> ").unwrap();

    // Aligned layout for width 80: column one is 20 wide, column two 58, both padded.
    s.send_line("scan 't1'").unwrap();
    let header = format!("{:<20}  {:<58}", "ROW", "COLUMN+CELL");
    s.expect(header.as_str()).expect("aligned scan header");
    let row = format!(
        " {:<20} {:<58}",
        "r1", "column=f1:c1, timestamp=7, value=v1"
    );
    s.expect(row.as_str()).expect("aligned scan row");
    s.expect("1 row(s)").unwrap();
    s.expect("hbase:005:0> ").unwrap();

    s.send_line("get 't1', 'r1'").unwrap();
    let header = format!("{:<20}  {:<58}", "COLUMN", "CELL");
    s.expect(header.as_str()).expect("aligned get header");
    s.expect("1 row(s)").unwrap();

    // An error keeps the shell running.
    s.send_line("get 'nope', 'r1'").unwrap();
    s.expect("ERROR: Unknown table nope!").unwrap();
    s.expect("hbase:007:0> ").unwrap();
    s.send_line("bogus_command").unwrap();
    s.expect("NameError: undefined local variable or method `bogus_command'")
        .unwrap();
    s.expect("hbase:008:0> ").unwrap();

    // Several lines arriving at once (a paste, or typing ahead) all run, in order.
    s.send("exists 't1'\nis_enabled 't1'\n").unwrap();
    s.expect("Table t1 does exist")
        .expect("first pasted line ran");
    s.expect("hbase:009:0> ").unwrap();
    s.expect("=> true").expect("second pasted line ran");
    s.expect("hbase:010:0> ").unwrap();

    // irb's continuation prompts: bracket nesting, and the open quote inside a string.
    s.send_line("scan 't1', {COLUMNS => [").unwrap();
    s.expect("hbase:011:2* ").expect("nesting in the prompt");
    s.send_line("'f1:c1']}").unwrap();
    s.expect("1 row(s)").unwrap();
    s.expect("hbase:012:0> ").unwrap();
    s.send_line("put 't1', 'r2', 'f1:c2', 'two").unwrap();
    s.expect("hbase:013:0' ").expect("open quote in the prompt");
    s.send_line("lines'").unwrap();
    s.expect("hbase:014:0> ").unwrap();
    s.send_line("get 't1', 'r2'").unwrap();
    s.expect("value=two\\x0Alines")
        .expect("the string kept its newline");
    s.expect("hbase:015:0> ").unwrap();

    s.send_line("exit").unwrap();
    s.expect(Eof).expect("the shell exits");
    let status = s.get_process().wait().unwrap();
    assert!(
        matches!(status, expectrl::WaitStatus::Exited(_, _)),
        "status {status:?}"
    );

    let hist = std::fs::read_to_string(&history).expect("history file written");
    assert!(hist.contains("scan 't1'"), "history: {hist}");
    assert!(hist.contains("create 't1',"), "history: {hist}");
}
