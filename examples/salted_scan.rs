//! Measures `Table::scan_salted` against a plain full scan + client-side filter, the choice the
//! seed articles discuss for salted rowkeys. Loads N rows (default 1,000,000; `ROWS=n`) whose
//! keys are salted into B buckets (8 and 16), pre-split one region per bucket, then reads one
//! range of the unsalted key space (1 % of the rows) both ways and prints the times side by
//! side.
//!
//! Run: `cargo run --release --example salted_scan`
use cellbase::{Db, DbOptions, Durability, FamilyDescriptor, Put, Scan, TableDescriptor, rowkey};
use std::time::Instant;

fn main() -> cellbase::Result<()> {
    let rows: u64 = std::env::var("ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    println!("rows = {rows}, range = 1 % of the unsalted key space");
    println!("| buckets | rows returned | scan_salted | full scan + filter | speed-up |");
    println!("|---|---|---|---|---|");
    for buckets in [8u16, 16] {
        let db = Db::temporary_with(DbOptions::default().durability(Durability::SkipWal))?;
        let prefixes = rowkey::salted_prefixes(buckets);
        let t = db.create_table(
            TableDescriptor::new("events")
                .family(FamilyDescriptor::new("d"))
                .split_keys(prefixes[1..].to_vec()),
        )?;
        for i in 0..rows {
            let key = format!("event{i:09}");
            t.put(Put::new(rowkey::salt(key.as_bytes(), buckets)).add("d", "v", [7u8; 32]))?;
        }
        t.flush()?;
        t.major_compact()?;
        let (lo, hi) = (
            format!("event{:09}", rows / 2),
            format!("event{:09}", rows / 2 + rows / 100),
        );
        let start = Instant::now();
        let salted = t
            .scan_salted(Scan::new().start_row(&lo).stop_row(&hi), buckets)?
            .count();
        let salted_time = start.elapsed();
        let start = Instant::now();
        let plen = prefixes[0].len();
        let mut full = 0;
        for r in t.scan(Scan::new())? {
            let r = r?;
            let k = &r.row()[plen..];
            if k >= lo.as_bytes() && k < hi.as_bytes() {
                full += 1;
            }
        }
        let full_time = start.elapsed();
        assert_eq!(salted, full, "both ways return the same rows");
        println!(
            "| {buckets} | {salted} | {:.1} ms | {:.1} ms | {:.1}x |",
            salted_time.as_secs_f64() * 1e3,
            full_time.as_secs_f64() * 1e3,
            full_time.as_secs_f64() / salted_time.as_secs_f64()
        );
    }
    Ok(())
}
