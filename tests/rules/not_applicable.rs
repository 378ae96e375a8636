//! Rules with nothing (or only something partial) to observe in an embedded engine, or that
//! cellbase deliberately does differently (docs/SEMANTICS.md). Each still has a test where
//! something observable exists.
//!
//! | rule | why |
//! |---|---|
//! | TS-4 | no `Put::new(row, ts)`; `Delete::up_to` is the row default (time.rs) |
//! | DEL-10 | shell mapping, not part of the library API |
//! | DEL-13 | purge delay fixed at 0 (deletes.rs::purge_delay_is_zero) |
//! | SCAN-4 | no RPC caching / max result size: nothing to configure |
//! | LIM-7 | no tags; writes never fail for a full memstore (they flush inline) |

use super::*;

/// [SCAN-4] results never depend on chunking: batches and limits of every size deliver the
/// same cells in the same order.
#[test]
fn results_do_not_depend_on_chunking() {
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    for i in 0..20 {
        t.put(
            Put::new(format!("r{i:02}"))
                .add("f", "a", "1")
                .add("f", "b", "2")
                .add("g", "c", "3"),
        )
        .unwrap();
    }
    let all = scan_cells(&t, Scan::new());
    for b in 1..5 {
        assert_eq!(scan_cells(&t, Scan::new().batch(b)), all, "batch {b}");
    }
}

/// [LIM-7] a memstore far over its flush size never fails a write (no RegionTooBusy): with no
/// background threads it flushes inline.
#[test]
fn full_memstore_never_fails_writes() {
    let env = Env::new(1_000);
    let t = env
        .db
        .create_table(
            TableDescriptor::new("t")
                .family(FamilyDescriptor::new("f"))
                .memstore_flush_size(1024),
        )
        .unwrap();
    for i in 0..200 {
        t.put(Put::new(format!("r{i:03}")).add("f", "q", vec![0u8; 100]))
            .unwrap();
    }
    assert!(t.regions()[0].store_files > 0);
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 200);
}

/// [DEL-10] not in the library API: the closest library operations (the
/// shell's `delete 't','r','f'` = a DFV, `deleteall 't','r','f:q'` = a DC) behave as the shell
/// mapping says.
#[test]
fn shell_delete_mapping_equivalents() {
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    t.put(
        Put::new("r")
            .add_at("f", "a", 5, "x")
            .add_at("f", "b", 5, "y")
            .add_at("f", "b", 4, "z"),
    )
    .unwrap();
    t.delete(Delete::new("r").family_version("f", 5)).unwrap();
    assert_eq!(
        scan_cells(&t, Scan::new().all_versions()),
        ["r/f:b@4 Put=z"]
    );
    t.delete(Delete::new("r").all_versions("f", "b")).unwrap();
    assert!(t.get(Get::new("r")).unwrap().is_empty());
}
