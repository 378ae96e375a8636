//! Simulated power loss [issue 5, item 3]: a deterministic FsyncWal workload (puts, deletes,
//! increments, flushes, minor and major compactions, a split, a merge, WAL rolls, manifest
//! writes) runs on `FaultFs::over_mem`; the power is cut at its n-th mutating I/O, for every n
//! (the operation and everything after it fail), `MemFs::crash` drops everything not fsynced
//! (bytes, creations, renames, removals, directories), and then:
//!
//! - the database opens;
//! - its contents equal the workload's model after exactly the acknowledged operations, or
//!   after one more (the operation in flight when the power went may have become durable);
//! - the regions still tile the key space;
//! - the reopened database takes a write, and a clean reopen keeps it.
//!
//! Two sweeps: a clean cut (all un-synced state lost) and a torn cut (the failing append writes
//! half its bytes; each file keeps a seeded random prefix of its un-synced bytes; each
//! directory keeps all or none of its un-synced entries). `POWERLOSS_SEED` changes the torn
//! sweep's seed; `POWERLOSS_ONLY=<n>` replays one cut point.

use super::*;
use cellbase::testing::io::{FaultFs, FileSystem, MemFs};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// Row → (value of f:q, counter f:n).
type State = BTreeMap<String, (Option<Vec<u8>>, Option<i64>)>;

#[derive(Debug, Clone)]
enum Op {
    Put(String, Vec<u8>),
    Delete(String),
    Incr(String, i64),
    Flush,
    Compact,
    MajorCompact,
    Split(&'static str),
    MergeFirstTwo,
}

/// The workload: about 150 operations.
fn ops() -> Vec<Op> {
    let mut v = Vec::new();
    for i in 0..150u64 {
        let r = format!("row{:03}", (i * 37) % 61);
        v.push(match i % 9 {
            0 | 1 | 2 | 4 | 6 => Op::Put(r, format!("v{i}-{}", "p".repeat(60)).into_bytes()),
            3 | 7 => Op::Incr(format!("row{:03}", i % 13), (i % 5) as i64 + 1),
            5 => Op::Delete(r),
            _ => Op::Put(r, b"short".to_vec()),
        });
        match i {
            30 | 70 | 120 => v.push(Op::Flush),
            50 => v.push(Op::Compact),
            90 => v.push(Op::Split("row030")),
            100 => v.push(Op::MajorCompact),
            130 => v.push(Op::MergeFirstTwo),
            _ => {}
        }
    }
    v
}

fn apply(state: &mut State, op: &Op) {
    match op {
        Op::Put(r, val) => state.entry(r.clone()).or_default().0 = Some(val.clone()),
        Op::Delete(r) => {
            state.remove(r);
        }
        Op::Incr(r, d) => {
            let e = state.entry(r.clone()).or_default();
            e.1 = Some(e.1.unwrap_or(0) + d);
        }
        _ => {}
    }
}

/// Model states after 0, 1, …, n operations.
fn model_states(ops: &[Op]) -> Vec<State> {
    let mut out = vec![State::new()];
    let mut s = State::new();
    for op in ops {
        apply(&mut s, op);
        out.push(s.clone());
    }
    out
}

/// Options with `clock`, which the workload advances by 1 ms before every operation (a row
/// delete masks every cell at or below its timestamp, so equal timestamps would hide later
/// puts: HBase's rule, which this model does not model).
fn options(clock: &ManualClock) -> DbOptions {
    DbOptions::default()
        .background_threads(0)
        .durability(Durability::FsyncWal)
        .wal_segment_size(2 << 10)
        .clock(clock.clone())
}

/// A clock far after anything the workload wrote, for reopening.
fn later_clock() -> ManualClock {
    ManualClock::new(1_000_000)
}

const DB: &str = "/db";

fn run_op(t: &Table, op: &Op) -> Result<()> {
    match op {
        Op::Put(r, v) => t.put(Put::new(r).add("f", "q", v)),
        Op::Delete(r) => t.delete(Delete::new(r)),
        Op::Incr(r, d) => t.increment(Increment::new(r).add("f", "n", *d)).map(drop),
        Op::Flush => t.flush(),
        Op::Compact => t.compact(),
        Op::MajorCompact => t.major_compact(),
        Op::Split(at) => t.split(Some(at.as_bytes())),
        Op::MergeFirstTwo => {
            let rs = t.regions();
            if rs.len() < 2 {
                return Ok(());
            }
            t.merge(&rs[0].name, &rs[1].name)
        }
    }
}

/// Runs the workload until the first error; returns how many operations were acknowledged
/// (`None` when the table was never created).
fn workload(fs: Arc<dyn FileSystem>, ops: &[Op]) -> Option<usize> {
    let clock = ManualClock::new(1_000);
    let db = Db::open_with_fs(DB, options(&clock), fs).ok()?;
    let t = db
        .create_table(
            TableDescriptor::new("t")
                .family(FamilyDescriptor::new("f").block_size(1024))
                .memstore_flush_size(3 << 10),
        )
        .ok()?;
    let mut acked = 0;
    for op in ops {
        clock.advance(std::time::Duration::from_millis(1));
        if run_op(&t, op).is_err() {
            break;
        }
        acked += 1;
    }
    Some(acked)
}

fn read_state(t: &Table) -> Result<State> {
    let mut s = State::new();
    for r in t.scan(Scan::new())? {
        let r = r?;
        let q = r.value("f", "q").map(<[u8]>::to_vec);
        let n = r
            .value("f", "n")
            .map(|b| i64::from_be_bytes(b.try_into().expect("8-byte counter")));
        s.insert(String::from_utf8(r.row().to_vec()).unwrap(), (q, n));
    }
    Ok(s)
}

fn check_layout(t: &Table, what: &str) {
    let regions = t.regions();
    assert!(!regions.is_empty(), "{what}: no regions");
    assert!(regions[0].start_key.is_empty(), "{what}: first region");
    assert!(
        regions.last().unwrap().end_key.is_empty(),
        "{what}: last region"
    );
    for w in regions.windows(2) {
        assert_eq!(
            w[0].end_key, w[1].start_key,
            "{what}: regions not contiguous"
        );
    }
}

/// One cut: run with the power cut at op `n`, crash, reopen, check.
fn cut_at(n: u64, torn: Option<u64>, ops: &[Op], states: &[State]) {
    let what = format!(
        "power cut at mutating I/O {n} ({}; replay: POWERLOSS_ONLY={n}{})",
        if torn.is_some() { "torn" } else { "clean" },
        torn.map(|s| format!(" POWERLOSS_SEED={s}"))
            .unwrap_or_default()
    );
    let mem = MemFs::new();
    if let Some(seed) = torn {
        mem.set_crash_seed(seed ^ n);
    }
    let fault = FaultFs::over_mem(mem.clone());
    fault.crash_at(n, torn.is_some());
    let acked = workload(Arc::new(fault.clone()), ops);
    assert!(
        fault.power_lost(),
        "{what}: the workload ended before the cut"
    );
    fault.crash().unwrap();

    let db = Db::open_with_fs(DB, options(&later_clock()), Arc::new(mem.clone()))
        .unwrap_or_else(|e| panic!("{what}: reopen failed: {e}"));
    // [issue 21] A power cut anywhere leaves nothing the engine cannot account for: files
    // no region lists are recorded obsolete or numbered above the last recorded file.
    assert!(
        db.recovery_report().unexplained_files.is_empty(),
        "{what}: {:?}",
        db.recovery_report()
    );
    let t = match db.table("t") {
        Ok(t) => t,
        Err(Error::TableNotFound(_)) => {
            assert!(
                acked.is_none(),
                "{what}: table lost after it was acknowledged"
            );
            return;
        }
        Err(e) => panic!("{what}: {e}"),
    };
    let got = read_state(&t).unwrap_or_else(|e| panic!("{what}: scan failed: {e}"));
    let a = acked.unwrap_or(0);
    let ok = got == states[a] || states.get(a + 1).is_some_and(|s| *s == got);
    if !ok {
        let diff: Vec<_> = states[a]
            .iter()
            .filter(|(k, v)| got.get(*k) != Some(v))
            .map(|(k, v)| format!("{k}: want {v:?}, got {:?}", got.get(k)))
            .chain(
                got.keys()
                    .filter(|k| !states[a].contains_key(*k))
                    .map(|k| format!("{k}: unexpected")),
            )
            .take(5)
            .collect();
        panic!("{what}: {a} operations acknowledged, state differs (first rows): {diff:#?}");
    }
    check_layout(&t, &what);
    // The recovered database works: a new FsyncWal write survives a clean reopen.
    t.put(Put::new("zz-after").add("f", "q", "x"))
        .unwrap_or_else(|e| panic!("{what}: write after recovery: {e}"));
    drop(t);
    db.close().unwrap();
    let db = Db::open_with_fs(DB, options(&later_clock()), Arc::new(mem))
        .unwrap_or_else(|e| panic!("{what}: second reopen failed: {e}"));
    let t = db.table("t").unwrap();
    assert!(
        t.get(Get::new("zz-after"))
            .unwrap()
            .value("f", "q")
            .is_some(),
        "{what}: write after recovery lost"
    );
}

fn sweep(torn: Option<u64>) -> u64 {
    let ops = ops();
    let states = model_states(&ops);
    let probe = FaultFs::over_mem(MemFs::new());
    assert_eq!(workload(Arc::new(probe.clone()), &ops), Some(ops.len()));
    let total = probe.mutating_ops();
    assert!(total > 200, "{total} mutating operations");
    if let Some(n) = common_env("POWERLOSS_ONLY") {
        cut_at(n, torn, &ops, &states);
        return 1;
    }
    for n in 0..total {
        cut_at(n, torn, &ops, &states);
    }
    total
}

fn common_env(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| v.parse().expect(name))
}

/// [issue 5, item 3] Every cut point, clean: nothing FsyncWal-acknowledged is lost, the
/// database opens, the state is an exact prefix of the workload.
#[test]
fn power_cut_at_every_mutating_io_keeps_fsync_acknowledged_writes() {
    let n = sweep(None);
    println!("{n} power-cut points (clean)");
}

/// [issue 5, item 3] Every cut point, torn (random prefixes of un-synced bytes survive, the
/// failing append is half written, un-synced directory changes survive or not per directory).
#[test]
fn torn_power_cut_at_every_mutating_io_keeps_fsync_acknowledged_writes() {
    let seed = common_env("POWERLOSS_SEED").unwrap_or(0x7051);
    println!("torn power-cut seed {seed} (POWERLOSS_SEED to change)");
    let n = sweep(Some(seed));
    println!("{n} power-cut points (torn)");
}

/// The model's sanity: the workload really exercises every kind of operation and the final
/// state on a healthy filesystem equals the model.
#[test]
fn powerloss_workload_matches_model_without_faults() {
    let ops = ops();
    let states = model_states(&ops);
    let mem = MemFs::new();
    assert_eq!(workload(Arc::new(mem.clone()), &ops), Some(ops.len()));
    let db = Db::open_with_fs(DB, options(&later_clock()), Arc::new(mem.clone())).unwrap();
    let t = db.table("t").unwrap();
    let got = read_state(&t).unwrap();
    let want = &states[ops.len()];
    let diff: Vec<_> = want
        .keys()
        .chain(got.keys())
        .filter(|k| got.get(*k) != want.get(*k))
        .take(5)
        .map(|k| format!("{k}: want {:?}, got {:?}", want.get(k), got.get(k)))
        .collect();
    assert!(diff.is_empty(), "{diff:#?}");
    assert!(!t.regions().is_empty());
    let m = db.metrics();
    assert!(m.store_files > 0, "{m:?}");
    assert!(!mem.list(Path::new("/db/wal")).unwrap().is_empty());
}

/// [issue 21] A compaction's output half-written when the power goes, while a flush of another
/// table finished in the meantime (its edit records a higher file id than the compaction's
/// output): the next open must still prove the output is unfinished work and delete it. Before
/// file-id reservations were recorded, such a file was kept for good as "unexplained" (found
/// by the benchmark harness's crash runs: 39-45 MB left behind). The flush happens in a
/// callback right after the compaction created its file, the interleaving of two background
/// threads made deterministic.
#[test]
fn a_compaction_cut_off_after_a_later_flush_landed_leaves_no_file_behind() {
    let mem = MemFs::new();
    let fault = FaultFs::over_mem(mem.clone());
    let clock = ManualClock::new(1_000);
    let db = Db::open_with_fs(DB, options(&clock), Arc::new(fault.clone())).unwrap();
    let fam = || FamilyDescriptor::new("f").block_size(1024);
    let a = db
        .create_table(TableDescriptor::new("a").family(fam()))
        .unwrap();
    let b = db
        .create_table(TableDescriptor::new("b").family(fam()))
        .unwrap();
    for round in 0..3 {
        for i in 0..20 {
            clock.advance(std::time::Duration::from_millis(1));
            a.put(Put::new(format!("a{i:02}")).add("f", "q", format!("v{round}")))
                .unwrap();
        }
        a.flush().unwrap();
    }
    for i in 0..20 {
        b.put(Put::new(format!("b{i:02}")).add("f", "q", "w"))
            .unwrap();
    }

    let (b2, f2) = (b.clone(), fault.clone());
    fault.after_create_in(Path::new("/db/data"), move || {
        // The compaction's output exists; another thread's flush lands, then the power goes.
        b2.flush().expect("the flush of table b");
        f2.crash_at(f2.mutating_ops(), false);
    });
    assert!(
        a.major_compact().is_err(),
        "the compaction runs into the power cut"
    );
    assert!(fault.power_lost());
    drop((a, b, db));
    fault.crash().unwrap();

    let db = Db::open_with_fs(DB, options(&later_clock()), Arc::new(mem.clone())).unwrap();
    let report = db.recovery_report();
    assert!(
        report.unexplained_files.is_empty(),
        "the compaction's output must be provably unfinished: {report:?}"
    );
    assert_eq!(
        report
            .deleted_files
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "sst"))
            .count(),
        1,
        "exactly the compaction's output is deleted: {report:?}"
    );
    let (a, b) = (db.table("a").unwrap(), db.table("b").unwrap());
    assert_eq!(a.scan(Scan::new()).unwrap().count(), 20);
    assert_eq!(b.scan(Scan::new()).unwrap().count(), 20);
    for r in a.scan(Scan::new()).unwrap() {
        assert_eq!(r.unwrap().value("f", "q"), Some(&b"v2"[..]));
    }
    // Every block file left in data/ is one a region lists.
    let listed: usize = [&a, &b]
        .iter()
        .flat_map(|t| t.regions())
        .map(|r| r.store_files as usize)
        .sum();
    let on_disk = mem
        .list(Path::new("/db/data"))
        .unwrap()
        .iter()
        .filter(|n| n.ends_with(".sst"))
        .count();
    assert_eq!(on_disk, listed);
}
