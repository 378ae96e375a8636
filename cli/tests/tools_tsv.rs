//! `cellbase export-tsv` / `import-tsv`: round trips into a fresh table are exact (latest
//! versions; with `--timestamps` their timestamps too), in plain ImportTsv format and escaped;
//! rows plain TSV cannot hold are skipped and counted; bad input lines are counted and skipped.
mod tools_common;

use cellbase::{Db, FamilyDescriptor, Put, Scan, TableDescriptor};
use std::path::Path;
use tools_common::*;

/// (row, family, qualifier, timestamp, value) of every visible cell (latest versions).
type Cells = Vec<(Vec<u8>, Vec<u8>, Vec<u8>, i64, Vec<u8>)>;

fn cells_of(dir: &Path, table: &str) -> Cells {
    let db = Db::open(dir).unwrap();
    let t = db.table(table).unwrap();
    let mut v = Vec::new();
    for r in t.scan(Scan::new()).unwrap() {
        for c in r.unwrap().cells() {
            v.push((
                c.row().to_vec(),
                c.family().to_vec(),
                c.qualifier().to_vec(),
                c.timestamp(),
                c.value().to_vec(),
            ));
        }
    }
    db.close().unwrap();
    v
}

/// Random bytes of length `1..=max`, avoiding `banned`.
fn bytes(rng: &mut Rng, max: u64, banned: &[u8]) -> Vec<u8> {
    let n = 1 + rng.below(max);
    let mut v = Vec::new();
    while (v.len() as u64) < n {
        let b = rng.below(256) as u8;
        if !banned.contains(&b) {
            v.push(b);
        }
    }
    v
}

/// A table `src` with families a, b, c (c has two qualifiers), `rows` sparse rows, two versions
/// of some cells, part flushed. Row keys and values avoid `banned`; with `empty_values` some
/// values are empty; `q2` names the second qualifier of c.
fn build(dir: &Path, seed: u64, rows: u64, banned: &[u8], empty_values: bool, q2: &[u8]) {
    println!("seed {seed}");
    let mut rng = Rng::new(seed);
    let db = Db::open(dir).unwrap();
    let t = db
        .create_table(
            TableDescriptor::new("src")
                .family(FamilyDescriptor::new("a"))
                .family(FamilyDescriptor::new("b").max_versions(3))
                .family(FamilyDescriptor::new("c")),
        )
        .unwrap();
    let cols: [(&str, &[u8]); 4] = [("a", b"x"), ("b", b"y"), ("c", b"q1"), ("c", q2)];
    for i in 0..rows {
        // Unique rows: a random part then the index (the index never holds banned bytes).
        let mut row = bytes(&mut rng, 12, banned);
        row.extend_from_slice(format!("#{i}").as_bytes());
        let mut p = Put::new(&row);
        let mut any = false;
        for (j, (f, q)) in cols.iter().enumerate() {
            if rng.below(10) < 7 || (!any && j == cols.len() - 1) {
                any = true;
                let ts = 1 + rng.below(1_000_000_000_000) as i64;
                let v = if empty_values && rng.below(8) == 0 {
                    Vec::new()
                } else {
                    bytes(&mut rng, 24, banned)
                };
                if rng.below(4) == 0 {
                    // An older version that the export must not pick.
                    t.put(Put::new(&row).add_at(f, q, ts - 1, b"older"))
                        .unwrap();
                }
                p = p.add_at(f, q, ts, v);
            }
        }
        t.put(p).unwrap();
        if i == rows / 2 {
            t.flush().unwrap();
        }
    }
    db.close().unwrap();
}

/// The column spec export-tsv printed on stderr.
fn spec_of(stderr: &str) -> String {
    let at = stderr.find("-Dimporttsv.columns=").expect("spec printed") + 20;
    let end = at + stderr[at..].find('\'').unwrap();
    stderr[at..end].to_string()
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn plain_round_trip_with_timestamps_is_exact() {
    let d = tempfile::tempdir().unwrap();
    let (src, dst, file) = (
        d.path().join("src"),
        d.path().join("dst"),
        d.path().join("out.tsv"),
    );
    build(&src, 0x5eed_0001, 3000, b"\t\n\r", false, b"q:2");
    let out = cellbase(&[
        "export-tsv",
        "--db",
        &s(&src),
        "--timestamps",
        "src",
        &s(&file),
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let spec = spec_of(&out.stderr);
    assert_eq!(spec, "HBASE_ROW_KEY,HBASE_TS_KEY,a:x,b:y,c:q1,c:q:2");
    let out = cellbase(&[
        "import-tsv".to_string(),
        "--db".into(),
        s(&dst),
        format!("-Dimporttsv.columns={spec}"),
        "-Dimporttsv.skip.empty.columns=true".into(),
        "copy".into(),
        s(&file),
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("Bad Lines=0"), "{out:?}");
    let (a, b) = (cells_of(&src, "src"), cells_of(&dst, "copy"));
    assert!(a.len() > 6000, "{}", a.len());
    assert_eq!(a, b);
}

#[test]
fn plain_round_trip_without_timestamps_keeps_every_value() {
    let d = tempfile::tempdir().unwrap();
    let (src, dst, file) = (
        d.path().join("src"),
        d.path().join("dst"),
        d.path().join("out.tsv"),
    );
    build(&src, 0x5eed_0002, 1500, b"\t\n\r", false, b"\xc3\xa9");
    let out = cellbase(&["export-tsv", "--db", &s(&src), "src", &s(&file)]);
    assert_eq!(out.code, 0, "{out:?}");
    let lines = std::fs::read(&file)
        .unwrap()
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    assert_eq!(lines, 1500, "one line per row");
    // The exported file refuses to be overwritten.
    assert_eq!(
        cellbase(&["export-tsv", "--db", &s(&src), "src", &s(&file)]).code,
        1
    );
    let spec = spec_of(&out.stderr);
    let out = cellbase(&[
        "import-tsv".to_string(),
        "--db".into(),
        s(&dst),
        "--columns".into(),
        spec,
        "-Dimporttsv.skip.empty.columns=true".into(),
        "-Dimporttsv.timestamp=4242".into(),
        "copy".into(),
        s(&file),
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let strip =
        |c: Cells| -> Vec<_> { c.into_iter().map(|(r, f, q, _, v)| (r, f, q, v)).collect() };
    let b = cells_of(&dst, "copy");
    assert!(b.iter().all(|c| c.3 == 4242));
    assert_eq!(strip(cells_of(&src, "src")), strip(b));
}

#[test]
fn escaped_round_trip_holds_every_byte_and_plain_export_counts_what_it_cannot() {
    let d = tempfile::tempdir().unwrap();
    let (src, dst, file) = (
        d.path().join("src"),
        d.path().join("dst"),
        d.path().join("out.tsv"),
    );
    // Any byte, separators and line breaks included, and empty values.
    build(&src, 0x5eed_0003, 1200, b"", true, b"q,\x002");
    let out = cellbase(&[
        "export-tsv",
        "--db",
        &s(&src),
        "--escaped",
        "--timestamps",
        "-Dimporttsv.separator=,",
        "src",
        &s(&file),
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let spec = spec_of(&out.stderr);
    assert_eq!(
        spec,
        "HBASE_ROW_KEY,HBASE_TS_KEY,a:x,b:y,c:q\\x2C\\x002,c:q1"
    );
    let text = std::fs::read(&file).unwrap();
    assert!(
        text.iter()
            .all(|&b| (0x20..0x7f).contains(&b) || b == b'\n'),
        "escaped output is printable"
    );
    let out = cellbase(&[
        "import-tsv".to_string(),
        "--db".into(),
        s(&dst),
        "--escaped".into(),
        "--separator".into(),
        ",".into(),
        format!("-Dimporttsv.columns={spec}"),
        "copy".into(),
        s(&file),
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let a = cells_of(&src, "src");
    assert!(a.iter().any(|c| c.4.is_empty()), "some empty values");
    assert_eq!(a, cells_of(&dst, "copy"));

    // Plain: column c:"q,\x002" cannot be named in importtsv.columns: refused.
    let plain = d.path().join("plain.tsv");
    let out = cellbase(&["export-tsv", "--db", &s(&src), "src", &s(&plain)]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("--escaped"), "{out:?}");
    // Plain, without that column: rows with a tab, line break or empty value are skipped,
    // counted, exit 3; the rest round-trip.
    let _ = std::fs::remove_file(&plain);
    let out = cellbase(&[
        "export-tsv",
        "--db",
        &s(&src),
        "--timestamps",
        "--columns",
        "HBASE_ROW_KEY,a:x,b:y,c:q1",
        "src",
        &s(&plain),
    ]);
    assert_eq!(out.code, 3, "{out:?}");
    let a: Cells = a.into_iter().filter(|c| c.2 != b"q,\x002").collect();
    let bad_row = |row: &[u8]| {
        a.iter()
            .filter(|c| c.0 == row)
            .any(|c| c.4.is_empty() || c.4.iter().chain(row).any(|b| b"\t\n\r".contains(b)))
    };
    let mut rows: Vec<&Vec<u8>> = a.iter().map(|c| &c.0).collect();
    rows.dedup();
    let skipped = rows.iter().filter(|r| bad_row(r)).count();
    assert!(skipped > 0 && skipped < rows.len());
    assert!(
        out.stderr.contains(&format!("{skipped} rows skipped")),
        "want {skipped}: {out:?}"
    );
    let dst2 = d.path().join("dst2");
    let out = cellbase(&[
        "import-tsv".to_string(),
        "--db".into(),
        s(&dst2),
        format!("-Dimporttsv.columns={}", spec_of(&out.stderr)),
        "-Dimporttsv.skip.empty.columns=true".into(),
        "copy".into(),
        s(&plain),
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let kept: Cells = a.iter().filter(|c| !bad_row(&c.0)).cloned().collect();
    assert_eq!(kept, cells_of(&dst2, "copy"));
}

#[test]
fn bad_lines_are_counted_and_skipped() {
    let d = tempfile::tempdir().unwrap();
    let (db, input) = (d.path().join("db"), d.path().join("in"));
    std::fs::create_dir(&input).unwrap();
    std::fs::write(
        input.join("part-00000"),
        b"good1\tx\t100\r\n\
          \tx\t100\n\
          good2\tx\tnotanumber\n\
          good3\tx\t100\textra\n\
          good4\n\
          good5\ty\t-5\n\
          \n\
          good6\tz\t200\n\
          good7\t\t300\n\
          good8\tlast\t400",
    )
    .unwrap();
    // Hadoop-style markers are skipped.
    std::fs::write(
        input.join("_SUCCESS"),
        b"garbage\tgarbage\tgarbage\tgarbage\n",
    )
    .unwrap();
    let spec = "-Dimporttsv.columns=HBASE_ROW_KEY,f:a,HBASE_TS_KEY";
    let out = cellbase(&["import-tsv", "--db", &s(&db), spec, "t", &s(&input)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr
            .contains("10 lines read, 4 rows imported, 4 cells written, Bad Lines=6"),
        "{out:?}"
    );
    for (line, why) in [
        (2, "empty row key"),
        (3, "invalid timestamp"),
        (4, "Excessive columns"),
        (5, "No timestamp"),
        (6, "line 6"),
        (7, "empty row key"),
    ] {
        assert!(
            out.stderr
                .lines()
                .any(|l| l.contains(&format!("line {line}:")) && l.contains(why)),
            "line {line} ({why}): {out:?}"
        );
    }
    let got = cells_of(&db, "t");
    let want: Cells = vec![
        (
            b"good1".to_vec(),
            b"f".to_vec(),
            b"a".to_vec(),
            100,
            b"x".to_vec(),
        ),
        (
            b"good6".to_vec(),
            b"f".to_vec(),
            b"a".to_vec(),
            200,
            b"z".to_vec(),
        ),
        // importtsv.skip.empty.columns is false by default: an empty value is put.
        (
            b"good7".to_vec(),
            b"f".to_vec(),
            b"a".to_vec(),
            300,
            b"".to_vec(),
        ),
        (
            b"good8".to_vec(),
            b"f".to_vec(),
            b"a".to_vec(),
            400,
            b"last".to_vec(),
        ),
    ];
    assert_eq!(got, want);

    // With importtsv.skip.bad.lines=false the first bad line stops the import.
    let out = cellbase(&[
        "import-tsv",
        "--db",
        &s(&d.path().join("db2")),
        spec,
        "-Dimporttsv.skip.bad.lines=false",
        "t",
        &s(&input.join("part-00000")),
    ]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("bad line 2"), "{out:?}");
}

#[test]
fn usage_errors_are_refused_before_anything_is_written() {
    let d = tempfile::tempdir().unwrap();
    let (db, input) = (d.path().join("db"), d.path().join("in.tsv"));
    std::fs::write(&input, b"r\tv\n").unwrap();
    let run = |extra: &[&str]| {
        let mut a = vec!["import-tsv".to_string(), "--db".into(), s(&db)];
        a.extend(extra.iter().map(|x| x.to_string()));
        a.push("t".into());
        a.push(s(&input));
        cellbase(&a)
    };
    assert_eq!(run(&[]).code, 2, "no spec");
    assert_eq!(run(&["-Dimporttsv.columns=f:a,f:b"]).code, 2, "no row key");
    assert_eq!(
        run(&["-Dimporttsv.columns=HBASE_ROW_KEY"]).code,
        2,
        "no cell column"
    );
    assert_eq!(
        run(&[
            "-Dimporttsv.columns=HBASE_ROW_KEY,f:a",
            "-Dimporttsv.separator=::"
        ])
        .code,
        2,
        "multi-byte separator"
    );
    assert!(!db.exists(), "nothing created by refused commands");
    // An existing table without the family: refused.
    assert_eq!(run(&["-Dimporttsv.columns=HBASE_ROW_KEY,f:a"]).code, 0);
    let out = run(&["-Dimporttsv.columns=HBASE_ROW_KEY,g:a"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("[g]"), "{out:?}");
    // A missing table with create.table=no: refused.
    let mut a = vec!["import-tsv".to_string(), "--db".into(), s(&db)];
    a.extend([
        "-Dimporttsv.columns=HBASE_ROW_KEY,f:a".into(),
        "-Dcreate.table=no".into(),
    ]);
    a.extend(["other".into(), s(&input)]);
    assert_eq!(cellbase(&a).code, 1);
    // Export: no database there, no such table.
    let out = cellbase(&["export-tsv", "--db", &s(&d.path().join("none")), "t"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(!d.path().join("none").exists());
    assert_eq!(cellbase(&["export-tsv", "--db", &s(&db), "nope"]).code, 1);
    // Export to stdout.
    let out = cellbase(&["export-tsv", "--db", &s(&db), "t"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, "r\tv\n"), "{out:?}");
}

#[test]
fn library_import_applies_cell_ttl_and_escaped_absent_cells() {
    use cellbase::{DbOptions, ManualClock};
    use cellbase_cli::tools::tsv::{TsvOptions, import, parse_columns};
    let clock = ManualClock::new(1_000_000);
    let db = Db::temporary_with(DbOptions::default().clock(clock.clone())).unwrap();
    let opts = TsvOptions {
        columns: Some(
            parse_columns("HBASE_ROW_KEY,f:a,f:b,HBASE_TS_KEY,HBASE_CELL_TTL", true).unwrap(),
        ),
        escaped: true,
        ..TsvOptions::default()
    };
    let input =
        b"r1\tx\t\\N\t1000000\t500\nr2\t\t\\x00\\x5C\t1000000\t\n\\N\tv\tw\t1\t\nr3\tv\\q\t\t1\t\n";
    let st = import(&db, "t", &input[..], &opts).unwrap();
    assert_eq!(
        (st.lines, st.imported, st.cells, st.bad_lines),
        (4, 2, 3, 2),
        "{st:?}"
    );
    assert!(st.bad_examples[0].1.contains("empty row key"), "{st:?}");
    assert!(st.bad_examples[1].1.contains("escape"), "{st:?}");
    let t = db.table("t").unwrap();
    let get = |row: &str| t.get(cellbase::Get::new(row)).unwrap();
    let r1 = get("r1");
    assert_eq!(r1.value("f", "a"), Some(&b"x"[..]));
    assert_eq!(r1.value("f", "b"), None, "\\N is no cell");
    let r2 = get("r2");
    assert_eq!(
        r2.value("f", "a"),
        Some(&b""[..]),
        "an empty escaped field is an empty value"
    );
    assert_eq!(r2.value("f", "b"), Some(&b"\x00\\"[..]));
    // r1's cell TTL (500 ms) expires; r2 has none.
    clock.advance(std::time::Duration::from_millis(600));
    assert!(get("r1").is_empty());
    assert_eq!(get("r2").cells().len(), 2);
}

#[test]
fn import_reads_standard_input() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("db");
    let mut child = Command::new(env!("CARGO_BIN_EXE_cellbase"))
        .args([
            "import-tsv",
            "--db",
            &s(&db),
            "-Dimporttsv.columns=HBASE_ROW_KEY,f:a",
            "-Dimporttsv.separator=|",
            "t",
            "-",
        ])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"r1|one\nr2|two|extra\nr3|three\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("3 lines read, 2 rows imported, 2 cells written, Bad Lines=1"),
        "{err}"
    );
    let got: Vec<Vec<u8>> = cells_of(&db, "t").into_iter().map(|c| c.4).collect();
    assert_eq!(got, vec![b"one".to_vec(), b"three".to_vec()]);
}

/// Issue 25: `-Dimporttsv.bulk.output=...` (or `--bulk`) loads through `Table::bulk_load`;
/// the round trip is as exact as with puts.
#[test]
fn bulk_round_trip_with_timestamps_is_exact() {
    let d = tempfile::tempdir().unwrap();
    let (src, dst, dst2, file) = (
        d.path().join("src"),
        d.path().join("dst"),
        d.path().join("dst2"),
        d.path().join("out.tsv"),
    );
    build(&src, 0x5eed_0003, 2000, b"\t\n\r", false, b"q:2");
    let out = cellbase(&[
        "export-tsv",
        "--db",
        &s(&src),
        "--timestamps",
        "src",
        &s(&file),
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let spec = spec_of(&out.stderr);
    for (db, flag) in [
        (&dst, "-Dimporttsv.bulk.output=/ignored"),
        (&dst2, "--bulk"),
    ] {
        let out = cellbase(&[
            "import-tsv".to_string(),
            "--db".into(),
            s(db),
            format!("-Dimporttsv.columns={spec}"),
            "-Dimporttsv.skip.empty.columns=true".into(),
            flag.into(),
            "copy".into(),
            s(&file),
        ]);
        assert_eq!(out.code, 0, "{out:?}");
        assert!(out.stderr.contains("Bad Lines=0"), "{out:?}");
        assert_eq!(cells_of(&src, "src"), cells_of(db, "copy"), "{flag}");
    }
}
