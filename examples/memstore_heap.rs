//! Measures the real memory cost of memstore cells against what `MemStore::size()` accounts:
//! inserts N cells (16-byte rows, one 2-byte qualifier, 100-byte values; or 10 cells per row
//! with `10`) and compares the growth of the resident set with the accounted size. With
//! `mutation` as the second argument each row's cells are inserted as one mutation
//! (`MemStore::insert_cells`, one shared buffer, as the write path does).
//!
//! ```text
//! cargo run --release --example memstore_heap [cells-per-row] [mutation]
//! ```

use cellbase::testing::memstore::MemStore;
use cellbase::testing::model::KeyRef;

fn rss_bytes() -> u64 {
    let s = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = s
        .split_whitespace()
        .nth(1)
        .and_then(|x| x.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

fn main() {
    let per_row: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let mutation = std::env::args().nth(2).is_some_and(|a| a == "mutation");
    let cells: u64 = 400_000;
    let mut payload = vec![0u8];
    payload.extend_from_slice(&[7u8; 100]);
    let m = MemStore::new();
    let before = rss_bytes();
    for i in 0..cells / per_row {
        let row = format!("{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let quals: Vec<[u8; 2]> = (0..per_row).map(|q| [b'q', b'0' + q as u8]).collect();
        if mutation {
            m.insert_cells(quals.iter().map(|q| {
                (
                    KeyRef {
                        row: row.as_bytes(),
                        family: b"f",
                        qualifier: q,
                        ts: 1_700_000_000_000,
                        type_code: 4,
                        seq: i + 1,
                    },
                    None,
                    &payload[1..],
                )
            }));
        } else {
            for q in &quals {
                let key = KeyRef {
                    row: row.as_bytes(),
                    family: b"f",
                    qualifier: q,
                    ts: 1_700_000_000_000,
                    type_code: 4,
                    seq: i + 1,
                }
                .encode();
                m.insert(&key, &payload);
            }
        }
    }
    let grown = rss_bytes().saturating_sub(before);
    let n = m.len() as u64;
    println!(
        "{n} cells: RSS grew {:.1} MiB = {} B/cell; size() = {:.1} MiB = {} B/cell; key+payload = {} B/cell; RSS/size = {:.2}",
        grown as f64 / (1 << 20) as f64,
        grown / n,
        m.size() as f64 / (1 << 20) as f64,
        m.size() / n,
        m.iter()
            .map(|e| e.key().len() + e.payload().len())
            .sum::<usize>() as u64
            / n,
        grown as f64 / m.size() as f64
    );
}
