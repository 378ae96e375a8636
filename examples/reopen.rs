//! Open time after a clean close, with and without [`DbOptions::flush_on_close`]: loads N
//! puts of 16 B keys and 100 B values (AsyncWal), closes (timed), then times `Db::open` and
//! N/10 random gets after it.
//!
//! ```text
//! cargo run --release --example reopen [puts] [true|false]
//! ```

use cellbase::{Db, DbOptions, Durability, FamilyDescriptor, Get, Put, TableDescriptor};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().map_or(300_000, |s| s.parse().unwrap());
    let flush: bool = match args.next() {
        Some(s) => s.parse().unwrap(),
        None => true,
    };
    let dir = tempfile::tempdir().unwrap();
    let opts = || {
        DbOptions::default()
            .durability(Durability::AsyncWal)
            .flush_on_close(flush)
    };
    let key = |i: u64| {
        format!(
            "{:016}",
            i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % 10_000_000_000_000_000
        )
    };
    let value = vec![b'v'; 100];
    {
        let db = Db::open_with(dir.path(), opts()).unwrap();
        let t = db
            .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))
            .unwrap();
        for i in 0..n {
            t.put(Put::new(key(i)).add("f", "", value.clone())).unwrap();
        }
        let start = Instant::now();
        db.close().unwrap();
        println!(
            "flush_on_close={flush} puts={n} close: {:?}",
            start.elapsed()
        );
    }
    let start = Instant::now();
    let db = Db::open_with(dir.path(), opts()).unwrap();
    println!(
        "flush_on_close={flush} puts={n} open:  {:?}",
        start.elapsed()
    );
    let t = db.table("t").unwrap();
    let start = Instant::now();
    for i in 0..n / 10 {
        let r = t.get(Get::new(key(i * 7 % n))).unwrap();
        assert!(!r.is_empty());
    }
    println!(
        "flush_on_close={flush} gets={} after open: {:?}",
        n / 10,
        start.elapsed()
    );
    db.close().unwrap();
}
