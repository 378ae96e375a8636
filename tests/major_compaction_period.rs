//! Periodic major compaction (HBase's `hbase.hregion.majorcompaction`, default 7 days, jitter
//! `hbase.hregion.majorcompaction.jitter` 0.5; the decision is HBase's
//! `RatioBasedCompactionPolicy.shouldPerformMajorCompaction` with
//! `SortedCompactionPolicy.getNextMajorCompactTime`, after `TestMajorCompaction`'s time-based
//! cases): with the database clock moved past the period, the compaction check runs exactly
//! one major compaction per store, purging deleted and expired cells; not before; a period of
//! zero disables it; a family's own period wins over the database's.

use cellbase::inspect::BlockFile;
use cellbase::*;
use std::path::Path;
use std::time::{Duration, Instant};

const T0: i64 = 1_700_000_000_000;
const HOUR: Duration = Duration::from_secs(3600);
const DAY: Duration = Duration::from_secs(86_400);

fn open(dir: &Path, clock: &ManualClock, period: Duration, jitter: f64) -> Db {
    Db::open_with(
        dir,
        DbOptions::default()
            .background_threads(0)
            .clock(clock.clone())
            .major_compaction_period(period)
            .major_compaction_jitter(jitter),
    )
    .unwrap()
}

/// Two flushed files in every family: rows r00..r09, a delete of r03, then r10..r19.
fn two_files(t: &Table, families: &[&str]) {
    for i in 0..10 {
        let mut p = Put::new(format!("r{i:02}"));
        for f in families {
            p = p.add(*f, "q", format!("v{i}"));
        }
        t.put(p).unwrap();
    }
    t.delete(Delete::new("r03")).unwrap();
    t.flush().unwrap();
    for i in 10..20 {
        let mut p = Put::new(format!("r{i:02}"));
        for f in families {
            p = p.add(*f, "q", format!("v{i}"));
        }
        t.put(p).unwrap();
    }
    t.flush().unwrap();
}

fn majors(db: &Db) -> u64 {
    db.metrics().major_compactions
}

fn store_files(t: &Table) -> u32 {
    t.regions().iter().map(|r| r.store_files).sum()
}

#[test]
fn one_major_compaction_per_store_once_the_period_passed() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let db = open(dir.path(), &clock, DAY, 0.0);
    let t = db
        .create_table(
            TableDescriptor::new("p")
                .family(FamilyDescriptor::new("a"))
                .family(FamilyDescriptor::new("b").ttl(Duration::from_secs(12 * 3600))),
        )
        .unwrap();
    two_files(&t, &["a", "b"]);
    assert_eq!(store_files(&t), 4);
    // Not before the period.
    clock.advance(23 * HOUR);
    assert_eq!(db.run_compaction_check().unwrap(), 0);
    assert_eq!(majors(&db), 0);
    // Past it: one major compaction of each of the two stores.
    clock.advance(2 * HOUR);
    assert_eq!(
        db.run_compaction_check().unwrap(),
        1,
        "one region compacted"
    );
    assert_eq!(majors(&db), 2);
    assert_eq!(db.metrics().minor_compactions, 0);
    // The delete marker and the deleted row are gone; family b's cells outlived their
    // 12-hour TTL, so its store holds no file at all.
    assert_eq!(store_files(&t), 1);
    let raw: Vec<RowResult> = t
        .scan(Scan::new().raw(true))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(raw.len(), 19);
    assert!(raw.iter().all(|r| r.row() != b"r03"));
    assert!(
        raw.iter()
            .flat_map(|r| r.cells())
            .all(|c| c.cell_type() == CellType::Put && c.family() == b"a")
    );
    // The output records that a major compaction wrote it, and when.
    let outputs: Vec<_> = std::fs::read_dir(dir.path().join("data"))
        .unwrap()
        .map(|e| BlockFile::open(e.unwrap().path()).unwrap().info().clone())
        .collect();
    assert_eq!(outputs.len(), 1);
    assert!(outputs[0].major_compaction);
    assert_eq!(outputs[0].written_ms, Some(T0 + 25 * 3_600_000));
    // Exactly once: not again now, nor later (one major-compacted file, no TTL, is left
    // alone, as HBase's single-file rule says).
    assert_eq!(db.run_compaction_check().unwrap(), 0);
    clock.advance(10 * DAY);
    assert_eq!(db.run_compaction_check().unwrap(), 0);
    assert_eq!(majors(&db), 2);
    assert_eq!(
        t.get(Get::new("r07")).unwrap().value("a", "q"),
        Some(&b"v7"[..])
    );
}

#[test]
fn zero_disables_and_the_family_period_wins() {
    // Database period 0: only the family with its own period (1 hour) is compacted.
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let db = open(dir.path(), &clock, Duration::ZERO, 0.5);
    let t = db
        .create_table(
            TableDescriptor::new("z")
                .family(FamilyDescriptor::new("a"))
                .family(FamilyDescriptor::new("c").major_compaction_period(HOUR)),
        )
        .unwrap();
    two_files(&t, &["a", "c"]);
    clock.advance(30 * DAY);
    assert_eq!(db.run_compaction_check().unwrap(), 1);
    assert_eq!(majors(&db), 1);
    assert_eq!(store_files(&t), 3, "a keeps its two files, c has one");
    // The family's setting persists (a family attribute).
    drop(t);
    db.close().unwrap();
    let db = open(dir.path(), &clock, Duration::ZERO, 0.5);
    let d = db.describe("z").unwrap();
    assert_eq!(
        d.get_family(b"c").unwrap().major_compaction.period_millis,
        Some(3_600_000)
    );
    assert_eq!(
        d.get_family(b"a").unwrap().major_compaction.period_millis,
        None
    );
    db.close().unwrap();

    // Database period 1 day; a family whose own period is 0 never gets one.
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path(), &clock, DAY, 0.0);
    let t = db
        .create_table(
            TableDescriptor::new("y")
                .family(FamilyDescriptor::new("off").major_compaction_period(Duration::ZERO))
                .family(FamilyDescriptor::new("b")),
        )
        .unwrap();
    two_files(&t, &["off", "b"]);
    clock.advance(2 * DAY);
    assert_eq!(db.run_compaction_check().unwrap(), 1);
    assert_eq!(majors(&db), 1);
    assert_eq!(store_files(&t), 3);
}

/// HBase decides it where compactions are selected: a compaction asked as minor (after a
/// flush, or `Table::compact`) of a store whose period passed is a major one.
#[test]
fn a_minor_compaction_request_becomes_major_when_due() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let db = open(dir.path(), &clock, DAY, 0.0);
    let t = db
        .create_table(TableDescriptor::new("m").family(FamilyDescriptor::new("a")))
        .unwrap();
    two_files(&t, &["a"]);
    t.compact().unwrap();
    assert_eq!(majors(&db), 0, "two files: nothing to compact yet");
    clock.advance(2 * DAY);
    t.compact().unwrap();
    assert_eq!(majors(&db), 1);
    assert_eq!(store_files(&t), 1);
}

/// The default jitter (0.5) moves a week's period by at most 3.5 days either way.
#[test]
fn the_jitter_stays_within_half_the_period() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    // HBase's defaults: a week, jitter 0.5.
    let db = open(dir.path(), &clock, 7 * DAY, 0.5);
    let t = db
        .create_table(TableDescriptor::new("j").family(FamilyDescriptor::new("a")))
        .unwrap();
    two_files(&t, &["a"]);
    clock.advance(Duration::from_secs(84 * 3600 - 60)); // 3.5 days less a minute
    assert_eq!(db.run_compaction_check().unwrap(), 0);
    clock.advance(7 * DAY); // 10.5 days less a minute
    assert_eq!(db.run_compaction_check().unwrap(), 1);
    assert_eq!(majors(&db), 1);
    // An out-of-range jitter is refused at open.
    let e = Db::open_with(
        tempfile::tempdir().unwrap().path(),
        DbOptions::default().major_compaction_jitter(1.5),
    )
    .unwrap_err();
    assert!(e.to_string().contains("major_compaction_jitter"), "{e}");
}

/// With background threads, the checker thread (HBase's `CompactionChecker`) finds the due
/// store by itself and queues the compaction; closing the database stops it.
#[test]
fn the_checker_thread_queues_due_major_compactions() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let db = Db::open_with(
        dir.path(),
        DbOptions::default()
            .background_threads(1)
            .clock(clock.clone())
            .major_compaction_period(DAY)
            .major_compaction_jitter(0.0)
            .compaction_check_interval(Duration::from_millis(100)),
    )
    .unwrap();
    let t = db
        .create_table(TableDescriptor::new("c").family(FamilyDescriptor::new("a")))
        .unwrap();
    two_files(&t, &["a"]);
    clock.advance(2 * DAY);
    // Waits for the thread (checks every 100 ms); the deadline only keeps a broken build from
    // hanging.
    let deadline = Instant::now() + Duration::from_secs(60);
    while majors(&db) == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(majors(&db), 1);
    drop(t);
    db.close().unwrap();
}
