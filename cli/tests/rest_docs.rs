//! Runs every `sh` block of docs/REST.md's examples, as written, against a fresh
//! `cellbase rest`, in order, with `REST` set to its address, and compares each block's output
//! with the `text` block that follows it. Skips (with a message) where curl or bash is missing.
mod rest_common;

use rest_common::*;
use std::process::Command;

/// The (script, expected output) pairs of the document's fenced `sh` blocks.
fn examples(doc: &str) -> Vec<(String, Option<String>)> {
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    let mut lines = doc.lines();
    while let Some(l) = lines.next() {
        let kind = match l.trim_end() {
            "```sh" => "sh",
            "```text" => "text",
            _ => continue,
        };
        let mut body = String::new();
        for l in lines.by_ref() {
            if l.trim_end() == "```" {
                break;
            }
            body.push_str(l);
            body.push('\n');
        }
        match kind {
            "sh" => out.push((body, None)),
            _ => {
                if let Some(last) = out.last_mut()
                    && last.1.is_none()
                {
                    last.1 = Some(body);
                }
            }
        }
    }
    out
}

fn have(cmd: &str) -> bool {
    Command::new(cmd)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

#[test]
fn every_curl_example_in_docs_rest_md_runs_as_written() {
    if !have("curl") || !have("bash") {
        println!("SKIPPED: curl or bash is not installed; docs/REST.md's examples were not run");
        return;
    }
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/REST.md"))
        .expect("read docs/REST.md");
    let blocks = examples(&doc);
    assert!(blocks.len() >= 8, "found only {} sh blocks", blocks.len());
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path());
    for (i, (script, expected)) in blocks.iter().enumerate() {
        let out = Command::new("bash")
            .args(["-euo", "pipefail", "-c", script])
            .env("REST", s.base())
            .output()
            .expect("run bash");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "example {} failed ({}):\n{script}\nstdout:\n{stdout}\nstderr:\n{}",
            i + 1,
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        if let Some(want) = expected {
            assert_eq!(
                stdout.trim_end(),
                want.trim_end(),
                "example {} printed something else:\n{script}",
                i + 1
            );
        }
        println!("example {} ok", i + 1);
    }
}
