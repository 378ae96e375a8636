//! Driver for instruction counts of the put path (callgrind):
//!
//! ```text
//! cargo build --release --example put_cost
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*Table::put*' \
//!     target/release/examples/put_cost 1    # or 10 (cells per put)
//! ```
//!
//! Puts 20 000 rows of 16-byte keys with AsyncWal (the WAL encoding and buffering are counted;
//! the write syscalls are not user-space instructions) into one region.

use cellbase::{Db, DbOptions, Durability, FamilyDescriptor, Put, TableDescriptor};

fn main() {
    let cells: u8 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let n: u64 = 20_000;
    let db = Db::temporary_with(DbOptions::default().durability(Durability::AsyncWal)).unwrap();
    let t = db
        .create_table(TableDescriptor::new("b").family(FamilyDescriptor::new("f")))
        .unwrap();
    for i in 0..n {
        let key = format!("{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut p = Put::new(key);
        for q in 0..cells {
            p = p.add("f", [b'q', b'0' + q], [7u8; 100]);
        }
        t.put(p).unwrap();
    }
    println!("{n} puts of {cells} cells");
}
