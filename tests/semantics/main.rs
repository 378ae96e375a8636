//! HBase semantics beyond the storage core: counters, appends, row mutations, conditional
//! writes, admin. Each test names the rule it checks (shared/hbase-semantics.md).

mod cam;
mod counters;
mod filters;
mod scans;

use cellbase::*;

/// A database with a manual clock at `now` and no background threads, and a table `t` with
/// families `f` and `g` keeping `versions` versions.
pub fn setup(now: i64, versions: u32) -> (Db, Table, ManualClock) {
    let clock = ManualClock::new(now);
    let db = Db::temporary_with(
        DbOptions::default()
            .clock(clock.clone())
            .background_threads(0),
    )
    .unwrap();
    let t = db
        .create_table(
            TableDescriptor::new("t")
                .family(FamilyDescriptor::new("f").max_versions(versions))
                .family(FamilyDescriptor::new("g").max_versions(versions)),
        )
        .unwrap();
    (db, t, clock)
}

/// The i64 counter value of `f:q` in a result.
pub fn counter(r: &RowResult, f: &str, q: &str) -> Option<i64> {
    r.value(f, q)
        .map(|v| i64::from_be_bytes(v.try_into().unwrap()))
}
