//! One or more integration tests for every rule of shared/hbase-semantics.md §1.1–1.11
//! (NEW_VERSION_BEHAVIOR excluded), through the public API only. Each test cites the rule IDs
//! it checks in its doc comment. Where a rule says the storage state matters, the scenario is
//! replayed with the cells in the memstore only, after `flush()` and after `major_compact()`.
//!
//! Rules with nothing observable in an embedded engine, or deliberately different in cellbase
//! (docs/SEMANTICS.md), are listed with the reason in `not_applicable.rs`.

mod admin;
mod compaction;
mod deletes;
mod filters;
mod gets_scans;
mod kdc;
mod limits;
mod multi_get;
mod mutations;
mod namespaces;
mod not_applicable;
mod order;
mod per_family_limits;
mod per_family_time_ranges;
mod time;
mod ttl;
mod versions;

use cellbase::*;
use std::time::Duration;

/// A database in its own temporary directory with a manual clock and no background threads.
pub struct Env {
    /// The database.
    pub db: Db,
    /// Its clock.
    pub clock: ManualClock,
    /// Its directory.
    pub dir: tempfile::TempDir,
}

impl Env {
    /// A fresh database whose clock reads `now`.
    pub fn new(now: i64) -> Env {
        let dir = tempfile::tempdir().unwrap();
        let clock = ManualClock::new(now);
        let db = open(dir.path(), &clock);
        Env { db, clock, dir }
    }

    /// Closes and reopens the database in the same directory (same clock).
    pub fn reopen(self) -> Env {
        let Env { db, clock, dir } = self;
        db.close().unwrap();
        let db = open(dir.path(), &clock);
        Env { db, clock, dir }
    }

    /// Creates table `t` with the given families.
    pub fn table(&self, families: Vec<FamilyDescriptor>) -> Table {
        let mut d = TableDescriptor::new("t");
        for f in families {
            d = d.family(f);
        }
        self.db.create_table(d).unwrap()
    }
}

fn open(dir: &std::path::Path, clock: &ManualClock) -> Db {
    Db::open_with(
        dir,
        DbOptions::default()
            .clock(clock.clone())
            .background_threads(0),
    )
    .unwrap()
}

/// Families `f` and `g` keeping `v` versions.
pub fn fg(v: u32) -> Vec<FamilyDescriptor> {
    vec![
        FamilyDescriptor::new("f").max_versions(v),
        FamilyDescriptor::new("g").max_versions(v),
    ]
}

/// The stages at which a scenario is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Only the memstore holds the cells.
    Memstore,
    /// After a flush.
    Flushed,
    /// After a flush and a major compaction.
    Compacted,
}

/// Memstore, flushed, compacted.
pub const ALL_STAGES: [Stage; 3] = [Stage::Memstore, Stage::Flushed, Stage::Compacted];

impl Stage {
    /// Brings `t` to this stage.
    pub fn apply(self, t: &Table) {
        if self != Stage::Memstore {
            t.flush().unwrap();
        }
        if self == Stage::Compacted {
            t.major_compact().unwrap();
        }
    }
}

/// Runs `setup` in a fresh database at clock `now` with table `t` of `families`, brings it to
/// every stage in turn and runs `check`.
pub fn at_every_stage(
    now: i64,
    families: impl Fn() -> Vec<FamilyDescriptor>,
    setup: impl Fn(&Table, &ManualClock),
    check: impl Fn(&Table, &ManualClock, Stage),
) {
    for stage in ALL_STAGES {
        let env = Env::new(now);
        let t = env.table(families());
        setup(&t, &env.clock);
        stage.apply(&t);
        check(&t, &env.clock, stage);
    }
}

/// Timestamps of the versions of `f:q` in `r`.
pub fn ts_of(r: &RowResult, f: &str, q: &str) -> Vec<i64> {
    r.versions(f, q).into_iter().map(|(ts, _)| ts).collect()
}

/// Timestamps returned by `get` (all versions of `f:q` unless the Get says otherwise).
pub fn get_ts(t: &Table, g: Get, f: &str, q: &str) -> Vec<i64> {
    ts_of(&t.get(g).unwrap(), f, q)
}

/// `(timestamp, value)` of every version of `f:q` a Get of all versions returns.
pub fn versions(t: &Table, row: &str, f: &str, q: &str) -> Vec<(i64, String)> {
    t.get(Get::new(row).column(f, q).all_versions())
        .unwrap()
        .versions(f, q)
        .into_iter()
        .map(|(ts, v)| (ts, String::from_utf8_lossy(v).into_owned()))
        .collect()
}

/// Short text for a cell: `row/fam:qual@ts type=value`.
pub fn show(c: &Cell) -> String {
    let ty = match c.cell_type() {
        CellType::Put => "Put",
        CellType::Delete => "D",
        CellType::DeleteColumn => "DC",
        CellType::DeleteFamily => "DF",
        CellType::DeleteFamilyVersion => "DFV",
    };
    format!(
        "{}/{}:{}@{} {}={}",
        String::from_utf8_lossy(c.row()),
        String::from_utf8_lossy(c.family()),
        String::from_utf8_lossy(c.qualifier()),
        c.timestamp(),
        ty,
        String::from_utf8_lossy(c.value())
    )
}

/// Every cell of a scan, as `show` text.
pub fn scan_cells(t: &Table, s: Scan) -> Vec<String> {
    t.scan(s)
        .unwrap()
        .flat_map(|r| r.unwrap().cells().iter().map(show).collect::<Vec<_>>())
        .collect()
}

/// Every cell of a raw scan of all versions.
pub fn raw(t: &Table) -> Vec<String> {
    scan_cells(t, Scan::new().raw(true).all_versions())
}

/// Row keys returned by a scan, as strings.
pub fn rows(t: &Table, s: Scan) -> Vec<String> {
    t.scan(s)
        .unwrap()
        .map(|r| String::from_utf8_lossy(r.unwrap().row()).into_owned())
        .collect()
}

/// Seconds as a Duration.
pub fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// Milliseconds as a Duration.
pub fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}
