//! Driver for instruction counts of a compaction (callgrind): YCSB-shaped rows (ten 100-byte
//! qualifiers `field0`..`field9` under `user` + a hashed record number) loaded with an 8 MiB
//! flush size and no background threads, so the store holds several overlapping block files
//! (4 KiB blocks, no compression, as in the workload harness), then one major compaction of
//! them, the only measured phase:
//!
//! ```text
//! cargo build --release --example compact_cost
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*compact_cost::compact*' \
//!     target/release/examples/compact_cost [records=40000]
//! ```
//!
//! Prints the files and cells before and after.

use cellbase::{
    Compression, Db, DbOptions, Durability, FamilyDescriptor, Put, Table, TableDescriptor,
};

fn files(t: &Table) -> (u32, u64) {
    let r = t.regions();
    (
        r.iter().map(|r| r.store_files).sum(),
        r.iter().map(|r| r.memstore_bytes).sum(),
    )
}

#[inline(never)]
fn compact(t: &Table) {
    t.major_compact().unwrap();
}

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(40_000);
    let db = Db::temporary_with(
        DbOptions::default()
            .durability(Durability::SkipWal)
            .memstore_flush_size(8 << 20)
            .background_threads(0),
    )
    .unwrap();
    let t = db
        .create_table(
            TableDescriptor::new("usertable").family(
                FamilyDescriptor::new("family")
                    .compression(Compression::None)
                    .block_size(4 << 10),
            ),
        )
        .unwrap();
    for i in 0..n {
        let key = format!("user{:016}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 8);
        let mut p = Put::new(key);
        for q in 0..10u8 {
            p = p.add("family", format!("field{q}"), [b'a' + q; 100]);
        }
        t.put(p).unwrap();
    }
    t.flush().unwrap();
    let before = files(&t);
    compact(&t);
    let after = files(&t);
    println!(
        "{n} records, {} cells: files {} -> {} (memstore bytes {} -> {})",
        n * 10,
        before.0,
        after.0,
        before.1,
        after.1
    );
}
