//! Behaviour of `cellbase shell` beyond the golden scripts: failed commands write nothing,
//! garbage input never panics, timestamps in both formats, and the -e / -n / stdin modes.

use cellbase::{Db, DbOptions, ManualClock, Scan};
use cellbase_cli::shell::commands::Session;
use cellbase_cli::shell::format::TsFormat;
use cellbase_cli::shell::{Flow, Shell, ruby};
use std::io::Write;
use std::process::{Command, Stdio};

/// xorshift64*: a tiny seeded generator (no rand dependency needed).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn shell(dir: &std::path::Path) -> Shell {
    let clock = ManualClock::new(1_000_000);
    let db = Db::open_with(dir, DbOptions::default().clock(clock.clone())).unwrap();
    Shell::new(Session::new(db, Some(clock), TsFormat::Epoch, 0), false)
}

fn feed(sh: &mut Shell, text: &str) -> String {
    let mut out = Vec::new();
    sh.feed_all(text.as_bytes(), &mut out);
    String::from_utf8(out).unwrap()
}

/// (row, family, qualifier, timestamp, value).
type CellTuple = (Vec<u8>, Vec<u8>, Vec<u8>, i64, Vec<u8>);

fn all_cells(db: &Db, table: &str) -> Vec<CellTuple> {
    let t = db.table(table).unwrap();
    let mut v = Vec::new();
    for r in t.scan(Scan::new().all_versions()).unwrap() {
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
    v
}

#[test]
fn failed_commands_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut sh = shell(dir.path());
    let out = feed(
        &mut sh,
        "create 't', {NAME => 'f', VERSIONS => 3}\n\
         put 't', 'r1', 'f:q', 'good', 10\n\
         put 't', 'c', 'f:n', \"\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x05\"\n",
    );
    assert!(out.contains("Created table t"), "{out}");
    assert_eq!(sh.failures, 0, "{out}");
    let db = sh.session.db.clone();
    let before_cells = all_cells(&db, "t");
    let before_desc = db.describe("t").unwrap();
    let before_tables = db.table_names();

    let bad = [
        "put 't', 'r2', 'nofam:q', 'x'",                    // unknown family
        "put 't', 'r2', 'f:q', 'x', 'not-a-ts'",            // bad timestamp argument
        "put 't', 'r2', 'f:q', 'x', 5, {ATTRIBUTES => {}}", // unsupported option
        "put 't', 'r2', 'f:q'",                             // wrong arity
        "put 't', '', 'f:q', 'x'",                          // empty row key
        "put 't', 'r2', 'f:q', 'x', -5",                    // negative timestamp
        "put 'nope', 'r2', 'f:q', 'x'",                     // unknown table
        "incr 't', 'r1', 'f:q', 1",                         // not a counter
        "incr 't', 'c', 'nofam:n', 1",                      // unknown family
        "delete 't', 'r1'",                                 // delete needs a column
        "deleteall 't', 'r1', 'nofam'",                     // unknown family
        "deleteall 't', {BOGUS => 'r'}",                    // prefix form without prefix
        "create 'u', {NAME => 'f', VERSIONS => 'x'}",       // bad family option
        "create 'u', 'f', {NUMREGIONS => 3}",               // NUMREGIONS without SPLITALGO
        "create 'u', 'f', SPLITS => ['a', 'a']",            // duplicate split keys
        "create 'u', 'f', 'f'",                             // duplicate family
        "alter 't', {NAME => 'f', MIN_VERSIONS => 9}",      // MIN_VERSIONS > VERSIONS
        "alter 't', 'g', {NAME => 'f', TTL => -1}",         // second family bad: first not applied
        "alter 't', NAME => 'f', METHOD => 'delete'",       // unsupported
        "drop 't'",                                         // enabled
        "truncate 'nope'",                                  // unknown table
        "split 't', ''",                                    // empty split key
        "merge_region 't,,0', 't,zz,1'",                    // unknown region
        "put 't', 'r2', 'f:q', 'x'; put 't', 'r3', }",      // syntax error: whole line refused
        "put 't', 'r2', 'f:q', undefined_name",             // NameError
    ];
    for cmd in bad {
        let failures = sh.failures;
        let out = feed(&mut sh, &format!("{cmd}\n"));
        assert!(
            sh.failures > failures,
            "expected a failure for {cmd:?}, got:\n{out}"
        );
        assert!(
            out.contains("ERROR: ") || out.contains("SyntaxError: ") || out.contains("NameError: "),
            "{cmd:?}: {out}"
        );
        assert_eq!(
            all_cells(&db, "t"),
            before_cells,
            "cells changed by {cmd:?}"
        );
        assert_eq!(
            db.describe("t").unwrap(),
            before_desc,
            "schema changed by {cmd:?}"
        );
        assert_eq!(db.table_names(), before_tables, "tables changed by {cmd:?}");
    }
    // And the shell is still working.
    let out = feed(&mut sh, "get_counter 't', 'c', 'f:n'\n");
    assert!(out.contains("COUNTER VALUE = 5"), "{out}");
}

#[test]
fn parser_never_panics_on_random_input() {
    let seed = 0x5eed_cafe_u64;
    println!("seed = {seed:#x}");
    let mut rng = Rng(seed);
    let alphabet: &[&[u8]] = &[
        b"'",
        b"\"",
        b"\\",
        b"\\x",
        b"\\u{",
        b"#",
        b"#{",
        b"[",
        b"]",
        b"{",
        b"}",
        b"(",
        b")",
        b",",
        b"=>",
        b"=",
        b";",
        b"\n",
        b" ",
        b"-",
        b"+",
        b"0x",
        b"1",
        b"99999999999999999999",
        b"1.5",
        b"e",
        b"put",
        b"NAME",
        b"true",
        b"nil",
        b"x.y",
        b"\x00",
        b"\xff",
        b"\xe4\xb8",
    ];
    for i in 0..20_000 {
        let mut src = Vec::new();
        let n = rng.below(40);
        for _ in 0..n {
            if i % 2 == 0 {
                src.push(rng.next() as u8);
            } else {
                src.extend_from_slice(alphabet[rng.below(alphabet.len())]);
            }
        }
        // Must return, never panic; errors carry an in-range position.
        if let Err(e) = ruby::parse(&src) {
            assert!(e.pos <= src.len(), "position out of range for {src:?}");
        }
    }
}

#[test]
fn random_garbage_into_the_shell_never_panics() {
    let seed = 0x0bad_f00d_u64;
    println!("seed = {seed:#x}");
    let mut rng = Rng(seed);
    let dir = tempfile::tempdir().unwrap();
    let mut sh = shell(dir.path());
    feed(&mut sh, "create 't', 'f'\nput 't', 'r', 'f:q', 'v'\n");
    let words: &[&str] = &[
        "get",
        "scan",
        "put",
        "create",
        "alter",
        "count",
        "incr",
        "delete",
        "deleteall",
        "list_regions",
        "split",
        "truncate",
        "describe",
        "'t'",
        "'r'",
        "'f:q'",
        "'f'",
        "1",
        "-1",
        ",",
        "{",
        "}",
        "[",
        "]",
        "=>",
        "FILTER",
        "\"PrefixFilter('r')\"",
        "LIMIT",
        "VERSIONS",
        "COLUMNS",
        "\n",
        "'\\x00'",
        "\"\\xff\"",
        "nil",
        "true",
        "RAW",
        "REVERSED",
    ];
    for i in 0..300 {
        let mut input = Vec::new();
        for _ in 0..rng.below(30) {
            if i % 3 == 0 {
                input.push(rng.next() as u8);
            } else {
                input.extend_from_slice(words[rng.below(words.len())].as_bytes());
                input.push(b' ');
            }
        }
        input.push(b'\n');
        let mut out = Vec::new();
        let flow = sh.feed_all(&input, &mut out);
        assert!(matches!(flow, Flow::Continue | Flow::Exit));
        String::from_utf8(out).expect("shell output stays UTF-8");
    }
    // Still alive and the table is intact (random commands could only add or delete cells).
    let out = feed(&mut sh, "exists 't'\n");
    assert!(
        out.contains("Table t does exist") || out.contains("does not exist"),
        "{out}"
    );
}

fn run_bin(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> (String, String, i32) {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cellbase"));
    cmd.arg("shell")
        .arg("--db")
        .arg(dir.path())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn binary_garbage_on_stdin_gives_errors_and_the_shell_keeps_running() {
    let mut input = b"create 't', 'f'\n".to_vec();
    input.extend_from_slice(b"\x00\xff\xfe\x01garbage\x7f\n");
    input.extend_from_slice(b"\xe4\xb8\xad\xe6\x96\x87 'x'\n");
    input.extend_from_slice(b"put 't', \"\xff\x00\", 'f:q', '\x01\x02'\n");
    input.extend_from_slice(b"scan 't'\n");
    let (out, err, code) = run_bin(
        &["--timestamp-format", "epoch", "--fixed-clock-ms", "5"],
        &input,
        &[],
    );
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(code, 1, "failures give a non-zero exit status");
    assert!(
        out.contains("SyntaxError: (hbase):2: unexpected character \\x00"),
        "{out}"
    );
    assert!(
        out.contains("SyntaxError: (hbase):3: invalid multibyte char (UTF-8)"),
        "{out}"
    );
    assert!(
        out.contains(" \\xFF\\x00 column=f:q, timestamp=6, value=\\x01\\x02\n1 row(s)\n"),
        "{out}"
    );
}

#[test]
fn timestamps_iso_by_default_epoch_by_flag() {
    let script = b"create 't', 'f'\n\
        put 't', 'a', 'f:q', 'v', 1700000000000\n\
        put 't', 'b', 'f:q', 'v', 1700000000123\n\
        put 't', 'c', 'f:q', 'v', 1699999980000\n\
        scan 't'\n";
    let (out, _, code) = run_bin(&[], script, &[("TZ", "UTC")]);
    assert_eq!(code, 0, "{out}");
    // Java's LocalDateTime.toString(): zero seconds and milliseconds are dropped.
    assert!(
        out.contains(" a column=f:q, timestamp=2023-11-14T22:13:20, value=v"),
        "{out}"
    );
    assert!(
        out.contains(" b column=f:q, timestamp=2023-11-14T22:13:20.123, value=v"),
        "{out}"
    );
    assert!(
        out.contains(" c column=f:q, timestamp=2023-11-14T22:13, value=v"),
        "{out}"
    );
    let (out, _, _) = run_bin(
        &["-D", "hbase.shell.timestamp.format.epoch=true"],
        script,
        &[],
    );
    assert!(
        out.contains(" a column=f:q, timestamp=1700000000000, value=v"),
        "{out}"
    );
    let (out, _, _) = run_bin(&["--timestamp-format", "epoch"], script, &[]);
    assert!(
        out.contains(" b column=f:q, timestamp=1700000000123, value=v"),
        "{out}"
    );
}

#[test]
fn execute_flag_noninteractive_flag_and_exit() {
    let (out, _, code) = run_bin(
        &[
            "-e",
            "create 't', 'f'; put 't', 'r', 'f:q', 'v', 1",
            "-e",
            "get 't', 'r'",
            "--timestamp-format",
            "epoch",
        ],
        b"",
        &[],
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("COLUMN  CELL\n f:q timestamp=1, value=v\n1 row(s)\n"),
        "{out}"
    );

    // -n: stop at the first failure with a non-zero status; later commands do not run.
    let (out, _, code) = run_bin(
        &["-n"],
        b"list\nget 'nope', 'r'\ncreate 'later', 'f'\n",
        &[],
    );
    assert_eq!(code, 1);
    assert!(out.contains("ERROR: Unknown table nope!"), "{out}");
    assert!(!out.contains("Created table later"), "{out}");

    // exit stops reading stdin.
    let (out, _, code) = run_bin(&[], b"exit\ncreate 'later', 'f'\n", &[]);
    assert_eq!(code, 0);
    assert!(!out.contains("Created table"), "{out}");

    // A statement left open at end of input is a syntax error, not a hang.
    let (out, _, code) = run_bin(&[], b"create 't', {NAME => 'f',\n", &[]);
    assert_eq!(code, 1);
    assert!(
        out.contains("syntax error, unexpected end-of-input"),
        "{out}"
    );
}

/// Issue 23: `status` in HBase's three forms, and `METRICS` on scan and get (HBase's scan
/// metrics table after the rows), with the numbers the reads produced.
#[test]
fn status_and_scan_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let mut sh = shell(dir.path());
    let out = feed(
        &mut sh,
        "create 't', 'f', SPLITS => ['m']\nput 't', 'a', 'f:q', 'v1'\nput 't', 'z', 'f:q', 'v2'\n\
         status\n",
    );
    assert!(
        out.contains("1 active master, 0 backup masters, 1 servers, 0 dead, 2.0000 average load\n"),
        "{out}"
    );
    let out = feed(&mut sh, "status 'simple'\n");
    assert!(out.contains("numberOfOnlineRegions=2"), "{out}");
    assert!(out.contains("writeRequestsCount=2"), "{out}");
    assert!(out.contains("Aggregate load: 2, regions: 2\n"), "{out}");
    let out = feed(&mut sh, "status 'detailed'\n");
    assert!(out.contains("\"t,m,1\"\n"), "{out}");
    let out = feed(&mut sh, "status 'bogus'\n");
    assert!(out.contains("status format must be one of"), "{out}");

    let out = feed(
        &mut sh,
        "scan 't', {FILTER => \"RowFilter(=, 'binary:a')\", METRICS => true}\n",
    );
    let metric = |out: &str, k: &str| -> u64 {
        out.lines()
            .find_map(|l| l.trim().strip_prefix(k).map(|v| v.trim().parse().unwrap()))
            .unwrap_or_else(|| panic!("{k} missing in {out}"))
    };
    assert!(out.contains("METRIC "), "{out}");
    assert_eq!(metric(&out, "ROWS_SCANNED"), 2);
    assert_eq!(metric(&out, "ROWS_FILTERED"), 1);
    assert_eq!(metric(&out, "REGIONS_SCANNED"), 2);
    // KeyValue bytes of (a, f, q, v1): 20 + 1 + 1 + 1 + 2.
    assert_eq!(metric(&out, "BYTES_IN_RESULTS"), 25);
    let out = feed(&mut sh, "get 't', 'z', {METRICS => ['ROWS_SCANNED']}\n");
    assert!(out.contains("value=v2"), "{out}");
    assert_eq!(metric(&out, "ROWS_SCANNED"), 1);
    assert!(!out.contains("BYTES_IN_RESULTS"), "{out}");
    let out = feed(&mut sh, "scan 't', {METRICS => ['NO_SUCH']}\n");
    assert!(out.contains("unknown scan metric NO_SUCH"), "{out}");
}

/// Issue 25: the snapshot commands with HBase's output and errors.
#[test]
fn snapshot_commands() {
    let dir = tempfile::tempdir().unwrap();
    let mut sh = shell(dir.path());
    let out = feed(
        &mut sh,
        "create 't', 'f'\nput 't', 'r1', 'f:q', 'v1'\nsnapshot 't', 's1'\n\
         put 't', 'r1', 'f:q', 'v2'\nlist_snapshots\n",
    );
    assert!(out.contains("SNAPSHOT"), "{out}");
    assert!(out.contains(" s1 t ("), "{out}");
    assert!(out.contains("1 row(s)\n"), "{out}");
    assert!(out.contains("=> [\"s1\"]"), "{out}");
    let out = feed(&mut sh, "list_table_snapshots 'x.*'\n");
    assert!(out.contains("0 row(s)"), "{out}");
    let out = feed(&mut sh, "clone_snapshot 's1', 'c'\nget 'c', 'r1'\n");
    assert!(out.contains("value=v1"), "{out}");
    let out = feed(&mut sh, "restore_snapshot 's1'\n");
    assert!(out.contains("table is not disabled: t"), "{out}");
    let out = feed(
        &mut sh,
        "disable 't'\nrestore_snapshot 's1'\nenable 't'\nget 't', 'r1'\n",
    );
    assert!(out.contains("value=v1"), "{out}");
    let out = feed(&mut sh, "delete_snapshot 's1'\ndelete_snapshot 's1'\n");
    assert!(out.contains("snapshot 's1' doesn't exist"), "{out}");
}

/// Issue 26: get_splits, locate_region and append in HBase's output.
#[test]
fn get_splits_locate_region_and_append() {
    let dir = tempfile::tempdir().unwrap();
    let mut sh = shell(dir.path());
    let out = feed(
        &mut sh,
        "create 't', 'f', SPLITS => ['g', 'p']\nget_splits 't'\nlocate_region 't', 'h'\n\
         append 't', 'r', 'f:q', 'ab'\nappend 't', 'r', 'f:q', 'cd'\n",
    );
    assert!(out.contains("Total number of splits = 3\ng\np\n"), "{out}");
    assert!(out.contains("=> [\"g\", \"p\"]"), "{out}");
    assert!(out.contains("STARTKEY => 'g', ENDKEY => 'p'}"), "{out}");
    assert!(out.contains("CURRENT VALUE = ab\n"), "{out}");
    assert!(out.contains("CURRENT VALUE = abcd\n"), "{out}");
}

/// Issue 26: a family's CONFIGURATION selects HBase's FIFOCompactionPolicy; describe shows
/// it; HBase's checks refuse it without a TTL.
#[test]
fn fifo_compaction_policy_in_create_and_describe() {
    let dir = tempfile::tempdir().unwrap();
    let mut sh = shell(dir.path());
    let fifo = "org.apache.hadoop.hbase.regionserver.compactions.FIFOCompactionPolicy";
    let out = feed(
        &mut sh,
        &format!(
            "create 'ev', {{NAME => 'e', TTL => 10, CONFIGURATION => \
             {{'hbase.hstore.defaultengine.compactionpolicy.class' => '{fifo}'}}}}\n\
             describe 'ev'\n\
             create 'x', {{NAME => 'e', CONFIGURATION => \
             {{'hbase.hstore.defaultengine.compactionpolicy.class' => '{fifo}'}}}}\n"
        ),
    );
    assert!(
        out.contains(&format!(
            "CONFIGURATION => {{'hbase.hstore.defaultengine.compactionpolicy.class' => '{fifo}'}}}}"
        )),
        "{out}"
    );
    assert!(
        out.contains("Default TTL is not supported for FIFO compaction"),
        "{out}"
    );
}

/// Issue 25: `get 't', ['r1', ...]` reads the rows as one `Table::get_many` batch, prints them
/// in request order in scan's form and leaves out rows that do not exist.
#[test]
fn get_of_several_rows_is_one_batch_in_request_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut sh = shell(dir.path());
    let out = feed(
        &mut sh,
        "create 't', 'f', SPLITS => ['m']\nput 't', 'z', 'f:q', 'vz'\nput 't', 'a', 'f:q', 'va'\n\
         put 't', 'a', 'f:r', 'wa'\n\
         get 't', ['z', 'nope', 'a'], {COLUMN => 'f:q'}\n\
         get 't', ['a', 'z'], {METRICS => true}\n",
    );
    let z = out.find(" z ").expect(&out);
    let a = out.find(" a ").expect(&out);
    assert!(z < a, "request order: {out}");
    assert!(
        out.contains("column=f:q") && out.contains("value=vz"),
        "{out}"
    );
    assert!(
        !out.contains("value=wa"),
        "the COLUMN option applies to every row: {out}"
    );
    assert!(!out.contains("nope"), "{out}");
    assert!(out.contains("2 row(s)"), "{out}");
    assert!(out.contains("METRICS applies to a get of one row"), "{out}");
}

/// Issue 26: the table attributes COMPACTION_ENABLED and DURABILITY in create, alter
/// (`table_att_unset` too) and describe, as HBase's admin.rb takes them.
#[test]
fn compaction_enabled_and_durability_table_attributes() {
    let dir = tempfile::tempdir().unwrap();
    let mut sh = shell(dir.path());
    let out = feed(
        &mut sh,
        "create 't', 'f', {COMPACTION_ENABLED => false, DURABILITY => 'ASYNC_WAL'}\n\
         describe 't'\n\
         alter 't', DURABILITY => 'FSYNC_WAL'\n\
         describe 't'\n\
         alter 't', METHOD => 'table_att_unset', NAME => 'COMPACTION_ENABLED'\n\
         alter 't', DURABILITY => 'USE_DEFAULT'\n\
         describe 't'\n\
         alter 't', DURABILITY => 'SOMETIMES'\n",
    );
    assert!(
        out.contains(
            "t, {TABLE_ATTRIBUTES => {COMPACTION_ENABLED => 'false', DURABILITY => 'ASYNC_WAL'}}"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "t, {TABLE_ATTRIBUTES => {COMPACTION_ENABLED => 'false', DURABILITY => 'FSYNC_WAL'}}"
        ),
        "{out}"
    );
    assert!(
        out.contains("No enum constant org.apache.hadoop.hbase.client.Durability.SOMETIMES"),
        "{out}"
    );
    let d = sh.session.db.describe("t").unwrap();
    assert!(d.is_compaction_enabled());
    assert_eq!(d.table_durability(), None);
}

/// Issue 26: flush and compactions of one region or family, compaction_state,
/// truncate_region, merge_region of several regions, the split/merge switches and
/// clone_table_schema, as HBase 2.6's shell commands.
#[test]
fn region_tools_switches_and_clone_table_schema() {
    let dir = tempfile::tempdir().unwrap();
    let mut sh = shell(dir.path());
    let mut script = String::from("create 't', 'f', 'g', SPLITS => ['h', 'p']\n");
    for round in 0..2 {
        for row in ["a", "j", "q"] {
            script.push_str(&format!(
                "put 't', '{row}', 'f:q', 'v{round}'\nput 't', '{row}', 'g:q', 'w{round}'\n"
            ));
        }
        script.push_str("flush 't'\n");
    }
    let out = feed(&mut sh, &script);
    assert!(!out.contains("ERROR"), "{out}");
    let regions = |sh: &Shell| sh.session.db.table("t").unwrap().regions();
    let files = |sh: &Shell| -> Vec<u32> { regions(sh).iter().map(|r| r.store_files).collect() };
    assert_eq!(files(&sh), [4, 4, 4]);
    let r0 = regions(&sh)[0].name.clone();
    let r1 = regions(&sh)[1].name.clone();
    let r2 = regions(&sh)[2].name.clone();
    let out = feed(
        &mut sh,
        &format!(
            "major_compact '{r0}'\nmajor_compact '{r1}', 'g'\nmajor_compact 't', 'nope'\n\
             compaction_state 't'\ntruncate_region '{r2}'\nget 't', 'q'\n"
        ),
    );
    assert_eq!(files(&sh), [2, 3, 0], "{out}");
    assert!(
        out.contains("Unknown column family! Valid column names: f:*, g:*"),
        "{out}"
    );
    assert!(out.contains("=> NONE"), "{out}");
    assert!(out.contains("COLUMN  CELL\n0 row(s)"), "{out}");

    let out = feed(
        &mut sh,
        &format!(
            "splitormerge_switch 'MERGE', false\nsplitormerge_enabled 'MERGE'\n\
             merge_region ['{r0}', '{r1}', '{r2}']\nsplitormerge_switch 'MERGE', true\n\
             merge_region ['{r0}', '{r2}']\n\
             merge_region ['{r0}', '{r1}', '{r2}'], true\nsplitormerge_enabled 'BOTH'\n"
        ),
    );
    assert!(out.contains("merge switch is off"), "{out}");
    assert!(
        out.contains("Unable to merge non-adjacent regions"),
        "{out}"
    );
    assert!(
        out.contains("No enum constant org.apache.hadoop.hbase.client.MasterSwitchType.BOTH"),
        "{out}"
    );
    assert_eq!(
        regions(&sh).len(),
        1,
        "three regions merged into one: {out}"
    );
    assert!(out.starts_with("true\n"), "previous state: {out}");

    let out = feed(
        &mut sh,
        "clone_table_schema 't', 'copy'\ndescribe 'copy'\ncount 'copy'\n\
         clone_table_schema 't', 'copy'\n",
    );
    assert!(out.contains("COLUMN FAMILIES DESCRIPTION"), "{out}");
    assert!(out.contains("0 row(s)"), "{out}");
    assert!(out.contains("Table already exists: copy!"), "{out}");
}

/// disable_all / enable_all / drop_all list the matching tables, ask y/n (the answer is the
/// next input line, as Ruby's `gets`), then act, counting failures as admin.rb does.
#[test]
fn disable_enable_and_drop_all_ask_first() {
    let dir = tempfile::tempdir().unwrap();
    let mut sh = shell(dir.path());
    let out = feed(
        &mut sh,
        "create 't1', 'f'\ncreate 't2', 'f'\ncreate 'x', 'f'\ndisable 't2'\n\
         disable_all 't.*'\nn\nlist\n\
         disable_all 't.*'\ny\n\
         drop_all 'nothing.*'\n",
    );
    assert!(
        out.contains("t1\nt2\n\nDisable the above 2 tables (y/n)?\n"),
        "{out}"
    );
    assert!(
        out.contains("table:t2, error:org.apache.hadoop.hbase.TableNotEnabledException: t2"),
        "{out}"
    );
    assert!(
        out.contains(
            "1 tables successfully disabled\n1 tables not disabled due to an exception: t2"
        ),
        "{out}"
    );
    assert!(
        out.contains("No tables matched the regex (?-mix:^nothing.*$)"),
        "{out}"
    );
    let db = &sh.session.db;
    assert!(!db.is_table_enabled("t1").unwrap() && db.is_table_enabled("x").unwrap());
    let out = feed(&mut sh, "drop_all 't.*'\nyes\nenable_all 'x'\ny\n");
    assert!(out.contains("2 tables successfully dropped"), "{out}");
    assert!(out.contains("TableNotDisabledException: x"), "{out}");
    assert_eq!(sh.session.db.table_names(), ["x"]);
}

/// Issue 26, [BLOOM-5]: `BLOOMFILTER => 'ROWPREFIX_FIXED_LENGTH'` with the prefix length in
/// the family's CONFIGURATION (HBase's `RowPrefixBloomFilter.prefix_length`); describe shows
/// both as HBase does; alter changes the length or the type; HBase's
/// `BloomFilterUtil.getBloomFilterParam` errors; ROWPREFIX_DELIMITED (gone from HBase 2.6) is
/// refused. Refused commands create nothing.
#[test]
fn row_prefix_bloom_in_create_alter_and_describe() {
    let dir = tempfile::tempdir().unwrap();
    let mut sh = shell(dir.path());
    let key = "RowPrefixBloomFilter.prefix_length";
    let out = feed(
        &mut sh,
        &format!(
            "create 'p', {{NAME => 'f', BLOOMFILTER => 'ROWPREFIX_FIXED_LENGTH', \
             CONFIGURATION => {{'{key}' => '4'}}}}\n\
             describe 'p'\n"
        ),
    );
    assert!(
        out.contains("{NAME => 'f', BLOOMFILTER => 'ROWPREFIX_FIXED_LENGTH', IN_MEMORY => 'false'")
            && out.contains(&format!(
                "REPLICATION_SCOPE => '0', CONFIGURATION => {{'{key}' => '4'}}}}"
            )),
        "{out}"
    );
    let bloom = |sh: &Shell| sh.session.db.describe("p").unwrap().families()[0].bloom_filter;
    assert_eq!(bloom(&sh), cellbase::BloomType::RowPrefixFixedLength(4));
    // The same through alter: a new length, an integer value, then another type.
    feed(
        &mut sh,
        &format!("alter 'p', {{NAME => 'f', CONFIGURATION => {{'{key}' => '8'}}}}\n"),
    );
    assert_eq!(bloom(&sh), cellbase::BloomType::RowPrefixFixedLength(8));
    feed(&mut sh, "alter 'p', {NAME => 'f', VERSIONS => 3}\n");
    assert_eq!(
        bloom(&sh),
        cellbase::BloomType::RowPrefixFixedLength(8),
        "kept"
    );
    feed(&mut sh, "alter 'p', {NAME => 'f', BLOOMFILTER => 'ROW'}\n");
    assert_eq!(bloom(&sh), cellbase::BloomType::Row);
    let out = feed(&mut sh, "describe 'p'\n");
    assert!(!out.contains(key), "{out}");
    feed(
        &mut sh,
        &format!(
            "alter 'p', {{NAME => 'f', BLOOMFILTER => 'rowprefix_fixed_length', \
             CONFIGURATION => {{'{key}' => 6}}}}\n"
        ),
    );
    assert_eq!(bloom(&sh), cellbase::BloomType::RowPrefixFixedLength(6));
    // Reads and writes go on through the filter.
    let out = feed(
        &mut sh,
        "put 'p', 'abcdef', 'f:q', 'v'\nflush 'p'\nget 'p', 'abcdef'\nget 'p', 'abcxyz'\n",
    );
    assert!(out.contains("value=v") && out.contains("0 row(s)"), "{out}");
    // HBase's errors, and nothing created.
    for (cmd, want) in [
        (
            "create 'x1', {NAME => 'f', BLOOMFILTER => 'ROWPREFIX_FIXED_LENGTH'}".to_string(),
            format!("Bloom filter type is ROWPREFIX_FIXED_LENGTH, {key} not specified."),
        ),
        (
            format!(
                "create 'x2', {{NAME => 'f', BLOOMFILTER => 'ROWPREFIX_FIXED_LENGTH', \
                 CONFIGURATION => {{'{key}' => '0'}}}}"
            ),
            format!("the value of {key} must >=0 and < 32767"),
        ),
        (
            format!(
                "create 'x3', {{NAME => 'f', BLOOMFILTER => 'ROWPREFIX_FIXED_LENGTH', \
                 CONFIGURATION => {{'{key}' => 'four'}}}}"
            ),
            format!("Number format exception when parsing {key}"),
        ),
        (
            format!(
                "create 'x4', {{NAME => 'f', BLOOMFILTER => 'ROWPREFIX_DELIMITED', \
                 CONFIGURATION => {{'{key}' => '4'}}}}"
            ),
            "ROWPREFIX_DELIMITED does not exist in HBase 2.6".to_string(),
        ),
        (
            format!("create 'x5', {{NAME => 'f', CONFIGURATION => {{'{key}' => '4'}}}}"),
            format!("{key} applies only with BLOOMFILTER => 'ROWPREFIX_FIXED_LENGTH'"),
        ),
    ] {
        let out = feed(&mut sh, &format!("{cmd}\n"));
        assert!(out.contains(&want), "{cmd}: {out}");
    }
    let names = sh.session.db.table_names();
    assert!(names.iter().all(|n| !n.starts_with('x')), "{names:?}");
}
