//! Date-tiered compaction in the engine (HBase's `DateTieredCompactionPolicy` under the store
//! engine `DateTieredStoreEngine`; the picker's own cases are HBase's
//! `TestDateTieredCompactionPolicy`, in src/engine/date_tiered/tests.rs). A time-series table
//! written hour by hour with the database clock: minor compactions keep compacting the recent
//! windows while files older than the max storefile age are never touched again, a major
//! compaction writes one file per time window, and every read stays correct.

use cellbase::inspect::BlockFile;
use cellbase::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

const HOUR: i64 = 3_600_000;
/// A start on the 64-hour grid, so that the windows of the test are easy to read.
const T0: i64 = 1_700_064_000_000 - 1_700_064_000_000 % (64 * HOUR);

struct LiveFile {
    min_ts: i64,
    max_ts: i64,
}

/// The block files the database lists (obsolete ones are deleted at once with no scanner
/// open), by file id.
fn live_files(dir: &Path) -> BTreeMap<u64, LiveFile> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir.join("data")).unwrap() {
        let p = e.unwrap().path();
        let Some(stem) = p
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".sst"))
        else {
            continue;
        };
        let file = BlockFile::open(&p).unwrap();
        // Every output checks out (a multi-window output records its inputs' largest
        // sequence id, above its own cells').
        assert_eq!(file.verify(), vec![], "{}", p.display());
        let info = file.info().clone();
        out.insert(
            stem.parse().unwrap(),
            LiveFile {
                min_ts: info.min_timestamp,
                max_ts: info.max_timestamp,
            },
        );
    }
    out
}

fn open(dir: &Path, clock: &ManualClock) -> Db {
    Db::open_with(
        dir,
        DbOptions::default()
            .background_threads(0)
            .clock(clock.clone())
            .major_compaction_period(Duration::ZERO),
    )
    .unwrap()
}

fn table(db: &Db, cfg: DateTieredConfig) -> Table {
    db.create_table(
        TableDescriptor::new("metrics").family(
            FamilyDescriptor::new("m").compaction_policy(CompactionPolicy::DateTiered(cfg)),
        ),
    )
    .unwrap()
}

/// One hour of a time series: the clock moves an hour, 20 rows are written at that time and
/// flushed, then (with `compact`) the store is compacted as a background thread would after
/// the flush.
fn write_hour(t: &Table, clock: &ManualClock, hour: u32, compact: bool) {
    clock.advance(Duration::from_millis(HOUR as u64));
    for i in 0..20 {
        t.put(Put::new(format!("h{hour:03}-{i:02}")).add("m", "v", format!("{hour}:{i}")))
            .unwrap();
    }
    t.flush().unwrap();
    if compact {
        t.compact().unwrap();
    }
}

fn check_rows(t: &Table, hours: u32) {
    let rows: Vec<RowResult> = t.scan(Scan::new()).unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), hours as usize * 20);
    for r in &rows {
        let key = String::from_utf8(r.row().to_vec()).unwrap();
        let (h, i) = key[1..].split_once('-').unwrap();
        let want = format!(
            "{}:{}",
            h.parse::<u32>().unwrap(),
            i.parse::<u32>().unwrap()
        );
        assert_eq!(r.value("m", "v"), Some(want.as_bytes()), "{key}");
    }
}

#[test]
fn old_windows_stay_untouched_while_new_data_is_compacted() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let db = open(dir.path(), &clock);
    let cfg = DateTieredConfig::default()
        .base_window_millis(HOUR)
        .windows_per_tier(4)
        .incoming_window_min(3)
        .max_storefile_age_millis(12 * HOUR);
    let t = table(&db, cfg);
    for hour in 0..72 {
        write_hour(&t, &clock, hour, true);
    }
    let now = T0 + 72 * HOUR;
    let before = live_files(dir.path());
    // Files whose newest cell is far past the max age (12 h now, 24 h after the next 12
    // hours), beyond the largest window that can straddle the age limit then: no minor
    // compaction may touch them again.
    let old: Vec<u64> = before
        .iter()
        .filter(|(_, f)| f.max_ts < now - 36 * HOUR)
        .map(|(id, _)| *id)
        .collect();
    assert!(
        !old.is_empty(),
        "some files are past the max age: {}",
        before.len()
    );
    // Compaction kept the file count far below one file per flush.
    assert!(before.len() < 40, "{} files after 72 flushes", before.len());
    let compactions_before = db.metrics().minor_compactions + db.metrics().major_compactions;

    for hour in 72..84 {
        write_hour(&t, &clock, hour, true);
    }
    let after = live_files(dir.path());
    for id in &old {
        assert!(after.contains_key(id), "old file {id} was compacted again");
    }
    let m = db.metrics();
    assert!(
        m.minor_compactions + m.major_compactions > compactions_before,
        "the new data was compacted"
    );
    // The recent windows hold far fewer files than the 12 new flushes.
    let recent = after
        .values()
        .filter(|f| f.max_ts >= T0 + 72 * HOUR)
        .count();
    assert!(recent < 12, "{recent} files for the last 12 hours");
    check_rows(&t, 84);
    println!(
        "72 + 12 hourly flushes: {} files before, {} after, {} old files kept",
        before.len(),
        after.len(),
        old.len()
    );
}

#[test]
fn major_compaction_writes_one_file_per_window() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let db = open(dir.path(), &clock);
    // Windows of 1 h, 4 h, 16 h and 64 h (no max age: every tier is built).
    let cfg = DateTieredConfig::default()
        .base_window_millis(HOUR)
        .windows_per_tier(4)
        .incoming_window_min(100);
    let t = table(&db, cfg);
    for hour in 0..40 {
        write_hour(&t, &clock, hour, false);
    }
    // An overwrite and a delete: the major compaction resolves them across windows.
    t.put(Put::new("h003-00").add("m", "v", "3:0")).unwrap();
    t.delete(Delete::new("h005-07")).unwrap();
    t.flush().unwrap();
    assert_eq!(live_files(dir.path()).len(), 41);
    t.major_compact().unwrap();
    let files = live_files(dir.path());
    assert!(files.len() > 1, "one file per window, not one file");
    // Every output lies within one window of the grid: an aligned 1, 4, 16 or 64 hour span.
    let mut spans: Vec<(i64, i64)> = Vec::new();
    for f in files.values() {
        let size = [HOUR, 4 * HOUR, 16 * HOUR, 64 * HOUR]
            .into_iter()
            .find(|s| f.min_ts.div_euclid(*s) == f.max_ts.div_euclid(*s))
            .unwrap_or_else(|| panic!("file [{}, {}] spans windows", f.min_ts, f.max_ts));
        spans.push((f.min_ts.div_euclid(size) * size, size));
    }
    spans.sort();
    // Windows do not overlap, and they grow (or stay) going back in time.
    for w in spans.windows(2) {
        assert!(w[0].0 + w[0].1 <= w[1].0, "overlapping windows {w:?}");
        assert!(
            w[0].1 >= w[1].1,
            "older window smaller than a newer one {w:?}"
        );
    }
    assert_eq!(
        spans.last().unwrap().1,
        HOUR,
        "the newest window is a base window"
    );
    let rows: Vec<RowResult> = t.scan(Scan::new()).unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 40 * 20 - 1);
    assert!(t.get(Get::new("h005-07")).unwrap().is_empty());
    assert_eq!(
        t.get(Get::new("h003-00")).unwrap().value("m", "v"),
        Some(&b"3:0"[..])
    );
    // The layout survives a reopen (the family's settings are in the schema).
    drop(t);
    db.close().unwrap();
    let db = open(dir.path(), &clock);
    let d = db.describe("metrics").unwrap();
    assert_eq!(
        d.families()[0].compaction_policy,
        CompactionPolicy::DateTiered(
            DateTieredConfig::default()
                .base_window_millis(HOUR)
                .windows_per_tier(4)
                .incoming_window_min(100)
        )
    );
    check_rows_after_reopen(&db.table("metrics").unwrap());
}

fn check_rows_after_reopen(t: &Table) {
    let n = t.scan(Scan::new()).unwrap().count();
    assert_eq!(n, 40 * 20 - 1);
}

#[test]
fn date_tiered_needs_its_store_engine_and_valid_settings() {
    // The policy class alone is refused (HBase's default store engine cannot load it).
    let e = CompactionPolicy::from_hbase_class(
        "org.apache.hadoop.hbase.regionserver.compactions.DateTieredCompactionPolicy",
    )
    .unwrap_err();
    assert!(e.to_string().contains("hbase.hstore.engine.class"), "{e}");
    let mut f = FamilyDescriptor::new("f");
    f.set_configuration(
        "hbase.hstore.engine.class",
        "org.apache.hadoop.hbase.regionserver.DateTieredStoreEngine",
    )
    .unwrap();
    f.set_configuration(
        "hbase.hstore.compaction.date.tiered.base.window.millis",
        "60000",
    )
    .unwrap();
    assert_eq!(
        f.compaction_policy,
        CompactionPolicy::DateTiered(DateTieredConfig::default().base_window_millis(60000))
    );
    // A date-tiered setting on a family without the engine is refused.
    let mut g = FamilyDescriptor::new("g");
    assert!(
        g.set_configuration("hbase.hstore.compaction.date.tiered.windows.per.tier", "2")
            .is_err()
    );
    // Back to the default engine: the exploring policy.
    f.set_configuration(
        "hbase.hstore.engine.class",
        "org.apache.hadoop.hbase.regionserver.DefaultStoreEngine",
    )
    .unwrap();
    assert_eq!(f.compaction_policy, CompactionPolicy::Exploring);
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path()).unwrap();
    let bad = TableDescriptor::new("t").family(FamilyDescriptor::new("f").compaction_policy(
        CompactionPolicy::DateTiered(DateTieredConfig::default().base_window_millis(0)),
    ));
    let e = db.create_table(bad).unwrap_err();
    assert!(e.to_string().contains("base.window.millis"), "{e}");
}
