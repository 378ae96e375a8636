//! The harness exits non-zero when a child run failed, after finishing the other runs and
//! writing the report. A build without the `rocksdb` feature has a child that always fails
//! (`--engines rocksdb`), which makes the case deterministic; with RocksDB built in there is
//! no such child, so this test is compiled only without the feature:
//! `cargo test --no-default-features`.
#![cfg(not(feature = "rocksdb"))]

use std::process::Command;

fn harness(args: &[&str]) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_cellbase-harness"))
        .args(args)
        .output()
        .expect("run the harness");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn a_failed_child_run_makes_the_harness_fail() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    let (code, stderr) = harness(&[
        "run",
        "--engines",
        "rocksdb,cellbase",
        "--workloads",
        "fillseq",
        "--num",
        "1000",
        "--out",
        out,
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("FAILED (exit status: 1)"), "{stderr}");
    assert!(
        stderr.contains("error: 1 of 2 runs failed: rocksdb fillseq (exit status: 1)"),
        "{stderr}"
    );
    // The run that worked is still measured and reported.
    let report = std::fs::read_to_string(dir.path().join("out/report.json")).unwrap();
    assert!(
        report.contains("\"engine\": \"cellbase\"") || report.contains("\"engine\":\"cellbase\"")
    );

    let (code, stderr) = harness(&[
        "run",
        "--engines",
        "cellbase",
        "--workloads",
        "fillseq",
        "--num",
        "1000",
        "--out",
        out,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("FAILED"), "{stderr}");
}
