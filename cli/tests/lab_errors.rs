//! Bad design files get a clear error naming the file, the line and the field; nothing panics.
use cellbase_cli::lab::design;
use std::path::Path;
use std::process::Command;

const GOOD: &str = r#"name = "t"
seed = 1

[table]
family = [{ name = "d" }]
max_region_size = "64KiB"

[rowkey]
parts = [
  { salt = 4 },
  { field = "ts", as = "u64" },
  { sep = "|" },
  { field = "user" },
]

[[field]]
name = "ts"
gen = "timestamp"

[[field]]
name = "user"
gen = "id"
len = 6
distinct = 100

[workload]
records = 100

[[workload.op]]
kind = "put"
weight = 9

[[workload.op]]
kind = "prefix_scan"
fields = ["user"]
weight = 1
"#;

fn err(text: &str) -> String {
    let e = design::parse(text, Path::new("bad.toml")).expect_err("must be rejected");
    println!("{e}");
    e.to_string()
}

#[test]
fn the_good_design_parses() {
    let d = design::parse(GOOD, Path::new("good.toml")).expect("parses");
    assert_eq!(d.fields.len(), 2);
    assert_eq!(d.records().len(), 100);
}

#[test]
fn errors_name_line_and_field() {
    // (replace this, with this, expected line, expected text in the message)
    let cases: &[(&str, &str, usize, &str)] = &[
        (
            r#"{ field = "user" },"#,
            r#"{ field = "usr" },"#,
            0,
            "rowkey.parts[3].field",
        ),
        (
            r#"{ field = "user" },"#,
            r#"{ field = "user", salt = 3 },"#,
            0,
            "exactly one of",
        ),
        (
            r#"{ sep = "|" },"#,
            r#"{ sep = "|", hex = true },"#,
            0,
            "parts[2].hex",
        ),
        (
            r#"{ field = "ts", as = "u64" },"#,
            r#"{ field = "ts", as = "u128" },"#,
            0,
            "parts[1].as",
        ),
        (r#"{ salt = 4 },"#, r#"{ salt = 1 },"#, 0, "parts[0].salt"),
        (
            r#"{ salt = 4 },"#,
            r#"{ salt = 4, colour = 1 },"#,
            0,
            "colour",
        ),
        (
            r#"gen = "timestamp""#,
            r#"gen = "clock""#,
            0,
            "field[0].gen",
        ),
        (
            r#"max_region_size = "64KiB""#,
            r#"max_region_size = "lots""#,
            0,
            "table.max_region_size",
        ),
        (
            r#"fields = ["user"]"#,
            r#"fields = ["nobody"]"#,
            0,
            "workload.op[1].fields[0]",
        ),
        (
            r#"kind = "prefix_scan""#,
            r#"kind = "delete_all""#,
            0,
            "workload.op[1].kind",
        ),
        ("records = 100", "records = 0", 0, "workload.records"),
        ("records = 100", "records = \"many\"", 0, "records"),
        ("[workload]", "[workload", 0, ""),
        (
            "weight = 1\n",
            "weight = 1\nvia = \"nowhere\"\n",
            1,
            "workload.op[1].via",
        ),
        (
            "distinct = 100",
            "distinct = 100\ndist = \"pareto\"",
            1,
            "field[1].dist",
        ),
        (
            "[table]\n",
            "[table]\npre_split = { algorithm = \"NoSuchSplit\", regions = 4 }\n",
            1,
            "table.pre_split.algorithm",
        ),
        (
            "[table]\n",
            "[table]\npre_split = { keys = [\"a\"], regions = 4, salt_buckets = 2 }\n",
            1,
            "exactly one",
        ),
        // Issue 24's operations and key parts.
        (
            r#"{ sep = "|" },"#,
            r#"{ salt = 4, random = true },"#,
            0,
            "a random salt is the first part",
        ),
        (
            r#"{ salt = 4 },"#,
            r#"{ salt = 4, random = true, of = ["user"] },"#,
            0,
            "parts[0].random",
        ),
        (
            r#"{ sep = "|" },"#,
            r#"{ sep = "|", random = true },"#,
            0,
            "parts[2].random",
        ),
        (
            r#"kind = "prefix_scan""#,
            r#"kind = "latest_n""#,
            0,
            "workload.op[1].by",
        ),
        (
            r#"kind = "prefix_scan""#,
            "kind = \"latest_n\"\nby = \"ts\"\nn = 0",
            0,
            "workload.op[1].n",
        ),
        (
            r#"kind = "prefix_scan""#,
            r#"kind = "get_missing""#,
            0,
            "workload.op[1].fields",
        ),
        (
            "records = 100",
            "records = 100\nfamilies = \"some\"",
            1,
            "workload.families",
        ),
        (
            r#"family = [{ name = "d" }]"#,
            r#"family = [{ name = "d", ttl = 0 }]"#,
            0,
            "table.family[0].ttl",
        ),
    ];
    for (from, to, offset, what) in cases {
        assert!(GOOD.contains(from), "{from}");
        let line = GOOD[..GOOD.find(from).unwrap_or(0)].matches('\n').count() + 1 + offset;
        let msg = err(&GOOD.replacen(from, to, 1));
        assert!(
            msg.starts_with(&format!("bad.toml:{line}:")),
            "{to}: expected line {line}: {msg}"
        );
        assert!(msg.contains(what), "{to}: expected {what}: {msg}");
    }
}

#[test]
fn missing_sections_and_files() {
    let no_workload = GOOD.split("[workload]").next().unwrap_or_default();
    assert!(err(no_workload).contains("workload"));
    let csv = GOOD.replace(
        "[[field]]\nname = \"ts\"",
        "[source]\npath = \"missing.csv\"\n\n[[field]]\nname = \"ts\"",
    );
    let msg = err(&csv);
    assert!(
        msg.contains("source.path") && msg.contains("missing.csv"),
        "{msg}"
    );
    assert!(err("").contains("missing field"));
    assert!(err("\u{0}\u{1}garbage = = =").contains("bad.toml"));
}

#[test]
fn a_csv_source_provides_fields() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("calls.tsv"),
        "caller\tts\n13800000001\t1000\n13800000002\t2000\n13800000001\t3000\n",
    )
    .expect("write");
    let text = r#"
[table]
[rowkey]
parts = [{ reverse = "caller" }, { reverse_ts = "ts" }]
[source]
path = "calls.tsv"
[workload]
records = 10
[[workload.op]]
kind = "put"
weight = 1
"#;
    let p = dir.path().join("d.toml");
    let d = design::parse(text, &p).expect("parses");
    assert_eq!(d.workload.records, 3, "capped at the file's rows");
    let recs = d.records();
    assert_eq!(recs[2][0].text(), "13800000001");
    let bad = dir.path().join("bad.tsv");
    std::fs::write(&bad, "a\tb\n1\n").expect("write");
    let e = design::parse(&text.replace("calls.tsv", "bad.tsv"), &p).expect_err("ragged");
    assert!(e.to_string().contains("line 2"), "{e}");
}

#[test]
fn the_command_fails_cleanly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("bad.toml");
    std::fs::write(&p, GOOD.replace("\"user\" },", "\"usr\" },")).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_cellbase"))
        .args(["lab", "run"])
        .arg(&p)
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("ERROR:") && stderr.contains(":13: rowkey.parts[3].field"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"));
}

#[test]
fn extreme_values_do_not_panic() {
    let text = r#"
[table]
[rowkey]
parts = [
  { field = "a", as = "i64" }, { field = "b", as = "decimal", width = 19 },
  { time_bucket = "c", seconds = 1000000000 }, { reverse_ts = "c" }, { field = "e" },
]
[[field]]
name = "a"
gen = "uniform"
min = -9223372036854775808
max = 9223372036854775807
[[field]]
name = "b"
gen = "sequence"
start = 9223372036854775800
step = 3
[[field]]
name = "c"
gen = "timestamp"
rate = 1e-300
jitter_ms = 9223372036854775807
[[field]]
name = "e"
gen = "choice"
values = [""]
[workload]
records = 20
[[workload.op]]
kind = "put"
weight = 5
[[workload.op]]
kind = "time_scan"
range = "c"
span_ms = 9223372036854775807
weight = 1
[[workload.op]]
kind = "prefix_scan"
fields = ["a", "e"]
weight = 1
"#;
    let d = design::parse(text, Path::new("x.toml")).expect("parses");
    let r = cellbase_cli::lab::run_design(&d, None).expect("runs");
    assert_eq!(r.summary.puts, 20);
    for q in &r.queries {
        assert_eq!(q.missed, 0, "{}", q.name);
    }
}

/// Issue 24: the `[cluster]` section (servers, balancer period, RPC cost) is checked like the
/// rest, and `--servers` overrides it from the command line.
#[test]
fn cluster_section_and_servers_flag() {
    let d = design::parse(GOOD, Path::new("good.toml")).expect("parses");
    assert_eq!(d.cluster.servers, 5, "default: a small cluster of 5");
    assert_eq!(d.cluster.balance_every, 5);
    assert!((d.cluster.rpc_ms - 0.5).abs() < 1e-12);
    let with = format!("{GOOD}\n[cluster]\nservers = 8\nbalance_every = 0\nrpc_ms = 1.5\n");
    let d = design::parse(&with, Path::new("good.toml")).expect("parses");
    assert_eq!(
        (d.cluster.servers, d.cluster.balance_every, d.cluster.rpc_ms),
        (8, 0, 1.5)
    );
    let line = GOOD.lines().count() + 3;
    for (bad, what) in [
        ("servers = 0", "cluster.servers"),
        ("rpc_ms = -1.0", "cluster.rpc_ms"),
        ("servrs = 3", "unknown field"),
    ] {
        let msg = err(&format!("{GOOD}\n[cluster]\n{bad}\n"));
        assert!(msg.contains(what), "{bad}: {msg}");
        assert!(msg.starts_with(&format!("bad.toml:{line}")), "{bad}: {msg}");
    }

    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("good.toml");
    std::fs::write(&p, GOOD).expect("write");
    let run = |servers: &str| {
        Command::new(env!("CARGO_BIN_EXE_cellbase"))
            .args(["lab", "run", "-q", "--servers", servers])
            .arg(&p)
            .arg("--out")
            .arg(dir.path().join("out"))
            .output()
            .expect("runs")
    };
    let out = run("3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out/t.json")).expect("json"),
    )
    .expect("valid");
    assert_eq!(json["cluster"]["servers"], 3);
    assert_eq!(
        json["cluster"]["server_writes"].as_array().map(Vec::len),
        Some(3)
    );
    let out = run("0");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--servers must be between 1 and"));
}
