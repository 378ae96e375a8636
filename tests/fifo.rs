//! FIFO compaction (issue 26), after HBase's TestFIFOCompactionPolicy: on a TTL'd family a
//! compaction deletes the files whose every cell has expired and rewrites nothing (write
//! amplification 1); a FIFO family needs a TTL and MIN_VERSIONS 0; the policy persists.

use cellbase::*;
use std::time::Duration;

const T0: i64 = 1_700_000_000_000;

fn desc(policy: CompactionPolicy) -> TableDescriptor {
    TableDescriptor::new("events").family(
        FamilyDescriptor::new("e")
            .ttl(Duration::from_secs(10))
            .compaction_policy(policy),
    )
}

/// Writes `rounds` flushed files 2 s apart (100 rows each), compacting after each flush;
/// returns the database's metrics at the end and the rows still readable.
fn ttl_workload(policy: CompactionPolicy, rounds: u32) -> (Metrics, usize, usize) {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let db = Db::open_with(
        dir.path(),
        DbOptions::default()
            .background_threads(0)
            .clock(clock.clone()),
    )
    .unwrap();
    let t = db.create_table(desc(policy)).unwrap();
    for round in 0..rounds {
        for i in 0..100 {
            t.put(Put::new(format!("r{round:03}-{i:03}")).add("e", "q", vec![b'x'; 200]))
                .unwrap();
        }
        t.flush().unwrap();
        t.compact().unwrap();
        clock.advance(Duration::from_secs(2));
    }
    let rows = t.scan(Scan::new()).unwrap().count();
    let files = t.regions().iter().map(|r| r.store_files as usize).sum();
    (db.metrics(), rows, files)
}

#[test]
fn fifo_deletes_expired_files_and_rewrites_nothing() {
    let (m, rows, files) = ttl_workload(CompactionPolicy::Fifo, 20);
    // With a 10 s TTL and a file every 2 s, the newest five files' cells are live.
    assert_eq!(rows, 500);
    assert!(files <= 6, "{files} files kept");
    assert_eq!(m.compaction_output_bytes, 0, "FIFO rewrote bytes");
    assert!(
        m.minor_compactions >= 14,
        "{} FIFO compactions",
        m.minor_compactions
    );
    // Write amplification: bytes written to block files over bytes flushed = 1.
    let wa = (m.flushed_bytes + m.compaction_output_bytes) as f64 / m.flushed_bytes as f64;
    assert_eq!(wa, 1.0);
    // The exploring policy on the same workload rewrites (the contrast the policy is for).
    let (e, rows_e, _) = ttl_workload(CompactionPolicy::Exploring, 20);
    assert_eq!(rows_e, 500);
    let wa_e = (e.flushed_bytes + e.compaction_output_bytes) as f64 / e.flushed_bytes as f64;
    assert!(wa_e > 1.2, "exploring write amplification {wa_e}");
    println!("write amplification over 20 flushes: FIFO {wa:.2}, exploring {wa_e:.2}");
}

#[test]
fn fifo_needs_a_ttl_and_no_min_versions_and_persists() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path()).unwrap();
    let no_ttl = TableDescriptor::new("a")
        .family(FamilyDescriptor::new("f").compaction_policy(CompactionPolicy::Fifo));
    let e = db.create_table(no_ttl).unwrap_err();
    assert!(
        e.to_string()
            .contains("Default TTL is not supported for FIFO compaction"),
        "{e}"
    );
    let min_versions = TableDescriptor::new("b").family(
        FamilyDescriptor::new("f")
            .ttl(Duration::from_secs(60))
            .min_versions(1)
            .compaction_policy(CompactionPolicy::Fifo),
    );
    let e = db.create_table(min_versions).unwrap_err();
    assert!(
        e.to_string().contains("MIN_VERSION > 0 is not supported"),
        "{e}"
    );
    db.create_table(desc(CompactionPolicy::Fifo)).unwrap();
    db.close().unwrap();
    let db = Db::open(dir.path()).unwrap();
    let d = db.describe("events").unwrap();
    assert_eq!(d.families()[0].compaction_policy, CompactionPolicy::Fifo);
    assert_eq!(
        CompactionPolicy::from_hbase_class(
            "org.apache.hadoop.hbase.regionserver.compactions.FIFOCompactionPolicy"
        )
        .unwrap(),
        CompactionPolicy::Fifo
    );
    assert!(CompactionPolicy::from_hbase_class("DateTieredCompactionPolicy").is_err());
}
