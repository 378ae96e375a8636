//! Fault injection: fail the n-th mutating I/O of a workload, for every n. The failing call
//! returns an error (never a panic); after a failed log write the database refuses further
//! writes; reopening (on the real filesystem) loses nothing that was acknowledged.

use super::*;
use cellbase::io::{FaultFs, FileSystem, StdFs};
use std::sync::Arc;

const ROWS: u64 = 90;

fn value(i: u64) -> String {
    format!("value-{i}-{}", "z".repeat(40))
}

/// Runs the workload; returns the rows whose puts were acknowledged.
fn workload(dir: &std::path::Path, fs: Arc<dyn FileSystem>) -> Vec<u64> {
    let mut acked = Vec::new();
    let opts = DbOptions::default()
        .background_threads(0)
        .durability(Durability::SyncWal);
    let Ok(db) = Db::open_with_fs(dir, opts, fs) else {
        return acked;
    };
    let desc = TableDescriptor::new("t")
        .family(FamilyDescriptor::new("f").block_size(1024))
        .memstore_flush_size(4 << 10);
    let Ok(t) = db.create_table(desc) else {
        return acked;
    };
    let mut refused = false;
    for i in 0..ROWS {
        match t.put(Put::new(format!("row{i:04}")).add("f", "q", value(i))) {
            Ok(()) => {
                assert!(
                    !refused,
                    "a write was acknowledged after an earlier write failed"
                );
                acked.push(i);
            }
            Err(_) => refused = true,
        }
        if i == 45 {
            let _ = t.compact();
            let _ = t.split(Some(b"row0020".as_slice()));
        }
    }
    let _ = t.flush();
    let _ = db.close();
    acked
}

/// [issue 5, item 4] every single mutating I/O failure: no panic, no acknowledged write lost.
#[test]
fn every_single_io_failure_keeps_acknowledged_writes() {
    let probe_dir = tempfile::tempdir().unwrap();
    let probe = FaultFs::new(Arc::new(StdFs));
    let all = workload(probe_dir.path(), Arc::new(probe.clone()));
    assert_eq!(all.len() as u64, ROWS);
    let total = probe.mutating_ops();
    assert!(total > 100, "{total} mutating operations");
    for n in 0..total {
        let dir = tempfile::tempdir().unwrap();
        let fs = FaultFs::new(Arc::new(StdFs));
        fs.fail_at(n);
        let acked = workload(dir.path(), Arc::new(fs));
        let db = Db::open_with(dir.path(), DbOptions::default().background_threads(0))
            .unwrap_or_else(|e| panic!("failure at op {n}: reopen failed: {e}"));
        let Ok(t) = db.table("t") else {
            assert!(
                acked.is_empty(),
                "failure at op {n}: table lost with acknowledged writes"
            );
            continue;
        };
        for i in acked {
            let got = t.get(Get::new(format!("row{i:04}"))).unwrap();
            assert_eq!(
                got.value("f", "q"),
                Some(value(i).as_bytes()),
                "failure at op {n}: row {i} lost"
            );
        }
    }
    println!("{total} failure points covered");
}
