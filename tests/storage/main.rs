//! Storage-core integration tests: delete masking, versions, flush/compaction, recovery,
//! corruption detection and Bloom filters. Each test names the HBase rule it checks.

mod bloom;
mod bloom_prefix;
mod concurrency;
mod corruption;
mod corruption_sweep;
mod crash;
mod deletes;
mod faults;
mod global_memstore;
mod powerloss;
mod recovery;
mod runs;
mod ttl;
mod versions;

use cellbase::*;
use std::path::Path;

/// A database in `dir` with a manual clock at `now` and no background threads.
pub fn open(dir: &Path, clock: &ManualClock) -> Db {
    Db::open_with(
        dir,
        DbOptions::default()
            .clock(clock.clone())
            .background_threads(0),
    )
    .unwrap()
}

/// A table `t` with families `f` and `g`, VERSIONS = `versions`.
pub fn table(db: &Db, versions: u32) -> Table {
    db.create_table(
        TableDescriptor::new("t")
            .family(FamilyDescriptor::new("f").max_versions(versions))
            .family(FamilyDescriptor::new("g").max_versions(versions)),
    )
    .unwrap()
}

/// `(timestamp, value)` of every returned version of `f:q`, as strings.
pub fn versions(t: &Table, row: &str, f: &str, q: &str) -> Vec<(i64, String)> {
    t.get(Get::new(row).column(f, q).all_versions())
        .unwrap()
        .versions(f, q)
        .into_iter()
        .map(|(ts, v)| (ts, String::from_utf8_lossy(v).into_owned()))
        .collect()
}

/// The stages at which a scenario is checked: memstore only, after a flush, after a major
/// compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Only the memstore holds the cells.
    Memstore,
    /// After a flush.
    Flushed,
    /// After a flush and a major compaction.
    Compacted,
}

/// Runs `check` at every stage: it receives the table after `setup` ran in a fresh database,
/// then flushed, then major-compacted.
pub fn at_every_stage(versions_kept: u32, setup: impl Fn(&Table), check: impl Fn(&Table, Stage)) {
    for stage in [Stage::Memstore, Stage::Flushed, Stage::Compacted] {
        let dir = tempfile::tempdir().unwrap();
        let clock = ManualClock::new(1_000);
        let db = open(dir.path(), &clock);
        let t = table(&db, versions_kept);
        setup(&t);
        if stage != Stage::Memstore {
            t.flush().unwrap();
        }
        if stage == Stage::Compacted {
            t.major_compact().unwrap();
        }
        check(&t, stage);
    }
}
