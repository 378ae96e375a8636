//! kill -9: a child process writes with SyncWal (while background threads flush and compact)
//! and prints each acknowledged write; the parent kills it with SIGKILL at a seeded random
//! moment, reopens, and checks that every acknowledged write is there and that the state is a
//! prefix of the workload (the child has one writer thread).

use super::*;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

const CHILD_ENV: &str = "CELLBASE_CRASH_CHILD_DIR";
const SPLITS_ENV: &str = "CELLBASE_CRASH_CHILD_SPLITS";
const TEST_NAME: &str = "crash::kill9_keeps_every_acknowledged_syncwal_write";
const SPLIT_TEST_NAME: &str = "crash::kill9_during_splits_and_merges_keeps_writes_and_layout";

fn row(i: u64) -> String {
    format!("row{i:08}")
}

fn value(i: u64) -> Vec<u8> {
    format!("value-{i}-{}", "x".repeat((i % 50) as usize)).into_bytes()
}

/// The child: continue the workload after the last row present, forever. With `splits`, the
/// table also splits automatically (tiny max_region_size) and the child splits and merges
/// regions itself.
fn child(dir: &str, splits: bool) {
    let db = Db::open_with(
        dir,
        DbOptions::default()
            .background_threads(if splits { 2 } else { 1 })
            .durability(Durability::SyncWal),
    )
    .unwrap();
    let t = match db.table("t") {
        Ok(t) => t,
        Err(_) => db
            .create_table(
                TableDescriptor::new("t")
                    .family(FamilyDescriptor::new("f").block_size(1024))
                    .memstore_flush_size(16 << 10)
                    .max_region_size(if splits { 48 << 10 } else { 10 << 30 }),
            )
            .unwrap(),
    };
    let next = t.scan(Scan::new()).unwrap().count() as u64;
    let mut out = std::io::stdout().lock();
    for i in next.. {
        t.put(Put::new(row(i)).add("f", "q", value(i))).unwrap();
        use std::io::Write;
        writeln!(out, "ACK {i}").unwrap();
        out.flush().unwrap();
        if i % 700 == 0 {
            t.compact().unwrap();
        }
        if splits && i % 300 == 150 {
            t.split(None).unwrap();
        }
        if splits && i % 900 == 450 {
            let rs = t.regions();
            if rs.len() > 2 {
                let k = (i as usize / 900) % (rs.len() - 1);
                t.merge(&rs[k].name, &rs[k + 1].name).unwrap();
            }
        }
    }
}

/// Every acknowledged SyncWal write survives kill -9, across several kill/reopen cycles.
#[test]
fn kill9_keeps_every_acknowledged_syncwal_write() {
    if let Ok(dir) = std::env::var(CHILD_ENV) {
        child(&dir, false);
        return;
    }
    run_cycles(TEST_NAME, false);
}

/// kill -9 while the table splits (automatically and by hand) and merges: nothing acknowledged
/// is lost and the region layout after reopen is contiguous and ordered.
#[test]
fn kill9_during_splits_and_merges_keeps_writes_and_layout() {
    if let Ok(dir) = std::env::var(CHILD_ENV) {
        child(&dir, std::env::var(SPLITS_ENV).is_ok());
        return;
    }
    run_cycles(SPLIT_TEST_NAME, true);
}

fn run_cycles(test_name: &str, splits: bool) {
    let seed: u64 = std::env::var("CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed);
    let cycles: u64 = std::env::var("CRASH_CYCLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    println!("crash test seed {seed}, {cycles} cycles (CRASH_SEED / CRASH_CYCLES to change)");
    let mut rng = seed;
    let mut next_rand = || {
        rng = rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let dir = tempfile::tempdir().unwrap();
    let mut last_acked: Option<u64> = None;
    for cycle in 0..cycles {
        let kill_after = 200 + next_rand() % 1500;
        let mut c = Command::new(std::env::current_exe().unwrap())
            .args([test_name, "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, dir.path())
            .env(
                if splits {
                    SPLITS_ENV
                } else {
                    "CELLBASE_CRASH_UNUSED"
                },
                "1",
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(c.stdout.take().unwrap()).lines();
        let mut acked_this_cycle = 0;
        while let Some(Ok(line)) = lines.next() {
            if let Some(n) = line.strip_prefix("ACK ") {
                last_acked = Some(n.trim().parse().unwrap());
                acked_this_cycle += 1;
                if acked_this_cycle == kill_after {
                    c.kill().unwrap(); // SIGKILL
                    break;
                }
            }
        }
        // Acknowledgements already in the pipe count too.
        for line in lines.map_while(std::result::Result::ok) {
            if let Some(n) = line.strip_prefix("ACK ") {
                last_acked = Some(n.trim().parse().unwrap());
            }
        }
        c.wait().unwrap();
        let db = Db::open_with(dir.path(), DbOptions::default().background_threads(0)).unwrap();
        let t = db.table("t").unwrap();
        let rows: Vec<RowResult> = t.scan(Scan::new()).unwrap().map(Result::unwrap).collect();
        let last = last_acked.expect("the child acknowledged writes");
        assert!(
            rows.len() as u64 > last,
            "cycle {cycle} (seed {seed}): {} rows, last acknowledged {last}",
            rows.len()
        );
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(
                r.row(),
                row(i as u64).as_bytes(),
                "cycle {cycle} (seed {seed}): not a prefix"
            );
            assert_eq!(
                r.value("f", "q"),
                Some(value(i as u64).as_slice()),
                "cycle {cycle}: row {i}"
            );
        }
        let regions = t.regions();
        for w in regions.windows(2) {
            assert_eq!(
                w[0].end_key, w[1].start_key,
                "cycle {cycle}: regions not contiguous"
            );
        }
        assert!(regions[0].start_key.is_empty() && regions[regions.len() - 1].end_key.is_empty());
        println!(
            "cycle {cycle}: killed after {acked_this_cycle} acks; {} rows recovered in {} regions",
            rows.len(),
            regions.len()
        );
    }
}

const MIXED_TEST_NAME: &str = "crash::kill9_mixed_workload_recovers_an_acknowledged_prefix";
const RESUME_ENV: &str = "CELLBASE_CRASH_CHILD_RESUME";

/// Operation `i` of the mixed workload (each touches one row, so each is atomic): deletes of
/// a row put two operations earlier, counter increments (the database's default, SyncWal),
/// puts; even puts and deletes are SyncWal, odd ones FsyncWal.
fn mixed_op(t: &Table, i: u64) -> Result<()> {
    let d = if i.is_multiple_of(2) {
        Durability::SyncWal
    } else {
        Durability::FsyncWal
    };
    match i % 10 {
        3 => t.delete(Delete::new(row(i - 2)).durability(d)),
        4 | 8 => t
            .increment(Increment::new(format!("ctr{}", i % 7)).add("f", "n", (i % 5 + 1) as i64))
            .map(drop),
        _ => t.put(Put::new(row(i)).add("f", "q", value(i)).durability(d)),
    }
}

type Mixed = std::collections::BTreeMap<Vec<u8>, (Option<Vec<u8>>, Option<i64>)>;

fn mixed_apply(m: &mut Mixed, i: u64) {
    match i % 10 {
        3 => {
            m.remove(row(i - 2).as_bytes());
        }
        4 | 8 => {
            let e = m.entry(format!("ctr{}", i % 7).into_bytes()).or_default();
            e.1 = Some(e.1.unwrap_or(0) + (i % 5 + 1) as i64);
        }
        _ => m.entry(row(i).into_bytes()).or_default().0 = Some(value(i)),
    }
}

fn mixed_state(t: &Table) -> Mixed {
    t.scan(Scan::new())
        .unwrap()
        .map(Result::unwrap)
        .map(|r| {
            let n = r
                .value("f", "n")
                .map(|b| i64::from_be_bytes(b.try_into().unwrap()));
            (r.row().to_vec(), (r.value("f", "q").map(<[u8]>::to_vec), n))
        })
        .collect()
}

fn mixed_child(dir: &str, resume: u64) {
    let db = Db::open_with(
        dir,
        DbOptions::default()
            .background_threads(1)
            .durability(Durability::SyncWal),
    )
    .unwrap();
    let t = match db.table("t") {
        Ok(t) => t,
        Err(_) => db
            .create_table(
                TableDescriptor::new("t")
                    .family(FamilyDescriptor::new("f").block_size(1024))
                    .memstore_flush_size(16 << 10)
                    .max_region_size(64 << 10),
            )
            .unwrap(),
    };
    let mut out = std::io::stdout().lock();
    for i in resume.. {
        mixed_op(&t, i).unwrap();
        use std::io::Write;
        writeln!(out, "ACK {i}").unwrap();
        out.flush().unwrap();
        if i % 400 == 399 {
            t.compact().unwrap();
        }
        if i % 500 == 250 {
            t.split(None).unwrap();
        }
    }
}

/// [issue 5, item 2] kill -9 during a mixed workload (puts, deletes, increments, SyncWal and
/// FsyncWal, flushes, compactions, automatic and explicit splits): after every kill the state
/// equals the workload's model after exactly the acknowledged operations, or one more (the
/// one in flight), and the next child resumes from there.
#[test]
fn kill9_mixed_workload_recovers_an_acknowledged_prefix() {
    if let Ok(dir) = std::env::var(CHILD_ENV) {
        let resume = std::env::var(RESUME_ENV).unwrap().parse().unwrap();
        mixed_child(&dir, resume);
        return;
    }
    let seed: u64 = std::env::var("CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed);
    let cycles: u64 = std::env::var("CRASH_CYCLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    println!("mixed crash test seed {seed}, {cycles} cycles (CRASH_SEED / CRASH_CYCLES)");
    let mut rng = seed ^ 0x006d_6978_6564;
    let mut next_rand = move || {
        rng = rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let dir = tempfile::tempdir().unwrap();
    let mut model = Mixed::new();
    let mut applied = 0u64; // operations in `model`
    for cycle in 0..cycles {
        let kill_after = 100 + next_rand() % 1500;
        let mut c = Command::new(std::env::current_exe().unwrap())
            .args([
                MIXED_TEST_NAME,
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, dir.path())
            .env(RESUME_ENV, applied.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(c.stdout.take().unwrap()).lines();
        let mut last: Option<u64> = None;
        let mut acks = 0;
        while let Some(Ok(line)) = lines.next() {
            if let Some(n) = line.strip_prefix("ACK ") {
                last = Some(n.trim().parse().unwrap());
                acks += 1;
                if acks == kill_after {
                    c.kill().unwrap(); // SIGKILL
                    break;
                }
            }
        }
        for line in lines.map_while(std::result::Result::ok) {
            if let Some(n) = line.strip_prefix("ACK ") {
                last = Some(n.trim().parse().unwrap());
            }
        }
        c.wait().unwrap();
        let acked_until = last.map_or(applied, |l| l + 1);
        while applied < acked_until {
            mixed_apply(&mut model, applied);
            applied += 1;
        }
        let db = Db::open_with(dir.path(), DbOptions::default().background_threads(0)).unwrap();
        let t = db.table("t").unwrap();
        let got = mixed_state(&t);
        if got != model {
            let mut one_more = model.clone();
            mixed_apply(&mut one_more, applied);
            assert!(
                got == one_more,
                "cycle {cycle} (seed {seed}): state is not the model after {applied} acknowledged \
                 operations (or one more); first differences: {:?}",
                model
                    .keys()
                    .chain(got.keys())
                    .filter(|k| got.get(*k) != model.get(*k))
                    .take(3)
                    .map(|k| String::from_utf8_lossy(k).into_owned())
                    .collect::<Vec<_>>()
            );
            model = one_more;
            applied += 1;
        }
        println!(
            "cycle {cycle}: killed after {acks} acks; {applied} operations recovered, {} regions",
            t.regions().len()
        );
    }
}
