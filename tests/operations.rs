//! Operability (issue 23): background failures are logged, counted, retried and reach blocked
//! writers as errors; flushes write a log line. One binary of its own, because a process can
//! install its `log` logger only once.

use cellbase::testing::io::{FaultFs, StdFs};
use cellbase::*;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The clock of every test database here (background failures are stamped with it).
const NOW: i64 = 1_700_000_000_000;

/// Records the log lines of cellbase's targets.
struct Recorder;

static LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());

impl log::Log for Recorder {
    fn enabled(&self, m: &log::Metadata<'_>) -> bool {
        m.target().starts_with("cellbase") && m.level() <= log::Level::Info
    }
    fn log(&self, r: &log::Record<'_>) {
        if self.enabled(r.metadata()) {
            let line = format!("{} {} {}", r.level(), r.target(), r.args());
            LINES.lock().unwrap_or_else(|e| e.into_inner()).push(line);
        }
    }
    fn flush(&self) {}
}

static RECORDER: Recorder = Recorder;

/// Installs the recorder (once per process; later calls do nothing).
fn record_logs() {
    if log::set_logger(&RECORDER).is_ok() {
        log::set_max_level(log::LevelFilter::Info);
    }
}

fn lines_matching(pred: impl Fn(&str) -> bool) -> Vec<String> {
    LINES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .filter(|l| pred(l))
        .cloned()
        .collect()
}

fn value(i: u64) -> String {
    format!("value-{i}-{}", "v".repeat(100))
}

fn row(i: u64) -> String {
    format!("row{i:05}")
}

/// A table `t` with family `f` and a 4 KiB flush size, on a database over `fs` with one
/// background thread and a manual clock.
fn open_faulty(dir: &Path, fs: &FaultFs) -> (Db, Table) {
    let opts = DbOptions::default()
        .clock(ManualClock::new(NOW))
        .background_threads(1)
        .durability(Durability::SyncWal);
    let db = Db::open_with_fs(dir, opts, Arc::new(fs.clone())).unwrap();
    let t = match db.table("t") {
        Ok(t) => t,
        Err(_) => db
            .create_table(
                TableDescriptor::new("t")
                    .family(FamilyDescriptor::new("f"))
                    .memstore_flush_size(4 << 10),
            )
            .unwrap(),
    };
    (db, t)
}

/// Polls `cond` every 10 ms for up to 20 s.
fn eventually(what: &str, cond: impl Fn() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A background flush that fails three times and then succeeds: the background thread retries
/// it without another write, every failure is counted and readable, and nothing acknowledged
/// is lost, before or after a reopen.
#[test]
fn failing_flush_is_retried_counted_and_loses_nothing() {
    record_logs();
    let dir = tempfile::tempdir().unwrap();
    let fs = FaultFs::new(Arc::new(StdFs));
    let (db, t) = open_faulty(dir.path(), &fs);
    fs.fail_creates_in(&dir.path().join("data"), 3);
    // About 6 KiB: over the flush size (one queued flush), far from the 16 KiB bound.
    let rows = 45;
    for i in 0..rows {
        t.put(Put::new(row(i)).add("f", "q", value(i))).unwrap();
    }
    // No further write: the retries alone must get the cells into a file.
    eventually("the retried flush", || db.metrics().store_files >= 1);
    assert_eq!(fs.injected(), 3);
    let errors = db.background_errors();
    assert_eq!(errors.flushes.count, 3, "{errors:?}");
    assert_eq!(errors.compactions.count, 0);
    assert_eq!(errors.splits.count, 0);
    assert_eq!(errors.total(), 3);
    let last = errors.flushes.last.as_ref().unwrap();
    assert!(last.message.contains("table 't'"), "{}", last.message);
    assert!(last.message.contains("injected fault"), "{}", last.message);
    assert_eq!(last.at_millis, NOW);
    assert_eq!(errors.last(), Some(last));
    for i in 0..rows {
        let got = t.get(Get::new(row(i))).unwrap();
        assert_eq!(got.value("f", "q"), Some(value(i).as_bytes()), "row {i}");
    }
    // The failures were logged with their table and error.
    let warned = lines_matching(|l| {
        l.starts_with("WARN cellbase::background") && l.contains("flush of table 't'")
    });
    assert!(warned.len() >= 3, "{warned:?}");
    db.close().unwrap();

    let db = Db::open_with(dir.path(), DbOptions::default().background_threads(0)).unwrap();
    let t = db.table("t").unwrap();
    for i in 0..rows {
        let got = t.get(Get::new(row(i))).unwrap();
        assert_eq!(got.value("f", "q"), Some(value(i).as_bytes()), "row {i}");
    }
    assert_eq!(
        db.background_errors().total(),
        0,
        "counts start over at open"
    );
}

/// Flushes that keep failing: a writer at the memstore bound gets an error naming the cause
/// within a bounded time (one second of waiting plus its own flush; asserted with a wide
/// margin), never hangs; the failures are reported; every acknowledged write survives.
#[test]
fn writers_at_the_bound_get_the_flush_error_when_flushes_keep_failing() {
    record_logs();
    let dir = tempfile::tempdir().unwrap();
    let fs = FaultFs::new(Arc::new(StdFs));
    let (db, t) = open_faulty(dir.path(), &fs);
    fs.fail_creates_in(&dir.path().join("data"), u64::MAX);
    let start = Instant::now();
    let mut acked = Vec::new();
    let mut failure = None;
    // 4 x 4 KiB bound: about 140 rows of ~120 bytes; far fewer than this loop allows.
    for i in 0..5_000 {
        match t.put(Put::new(row(i)).add("f", "q", value(i))) {
            Ok(()) => acked.push(i),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    let elapsed = start.elapsed();
    let e = failure.expect("no write failed although every flush fails");
    assert!(
        elapsed < Duration::from_secs(30),
        "the writer waited {elapsed:?}"
    );
    assert!(e.to_string().contains("injected fault"), "{e}");
    let errors = db.background_errors();
    assert!(errors.flushes.count >= 1, "{errors:?}");
    assert!(
        errors
            .flushes
            .last
            .as_ref()
            .unwrap()
            .message
            .contains("injected fault"),
        "{errors:?}"
    );
    // The writer's stall was logged with its cause.
    let stalls = lines_matching(|l| l.starts_with("WARN cellbase::stall"));
    assert!(
        stalls
            .iter()
            .any(|l| l.contains("table 't'") && l.contains("failed")),
        "{stalls:?}"
    );
    // The write that failed was not applied; everything acknowledged is there, and stays
    // there once the disk works again.
    fs.disarm();
    db.close().unwrap();
    let db = Db::open_with(dir.path(), DbOptions::default().background_threads(0)).unwrap();
    let t = db.table("t").unwrap();
    for &i in &acked {
        let got = t.get(Get::new(row(i))).unwrap();
        assert_eq!(got.value("f", "q"), Some(value(i).as_bytes()), "row {i}");
    }
}

/// A flush writes one `info` line (target `cellbase::flush`) with its table, region, cells,
/// bytes, files and duration; a major compaction and a split write theirs.
#[test]
fn flush_compaction_and_split_are_logged() {
    record_logs();
    let db = Db::temporary_with(DbOptions::default().background_threads(0)).unwrap();
    let t = db
        .create_table(TableDescriptor::new("logged").family(FamilyDescriptor::new("f")))
        .unwrap();
    for i in 0..10 {
        t.put(Put::new(row(i)).add("f", "q", value(i))).unwrap();
    }
    t.flush().unwrap();
    let flushes = lines_matching(|l| {
        l.starts_with("INFO cellbase::flush") && l.contains("flushed table 'logged'")
    });
    assert_eq!(flushes.len(), 1, "{flushes:?}");
    assert!(flushes[0].contains("10 cells"), "{}", flushes[0]);
    assert!(flushes[0].contains("in 1 files"), "{}", flushes[0]);
    for i in 10..20 {
        t.put(Put::new(row(i)).add("f", "q", value(i))).unwrap();
    }
    t.flush().unwrap();
    t.major_compact().unwrap();
    let compactions = lines_matching(|l| {
        l.starts_with("INFO cellbase::compaction") && l.contains("table 'logged'")
    });
    assert!(
        compactions
            .iter()
            .any(|l| l.contains("major compaction") && l.contains("2 files")),
        "{compactions:?}"
    );
    t.split(Some(b"row00010".as_slice())).unwrap();
    let splits = lines_matching(|l| {
        l.starts_with("INFO cellbase::split") && l.contains("split table 'logged'")
    });
    assert!(
        splits.iter().any(|l| l.contains("at row00010")),
        "{splits:?}"
    );
}
