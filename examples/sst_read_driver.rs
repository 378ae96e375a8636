//! Point-read driver over one block file larger than the block cache, for callgrind
//! instruction counts of the file read path (Bloom probe, index search, block fetch through
//! the cache, block seek, reading one row's cells).
//!
//! ```text
//! cargo run --release --example sst_read_driver -- write DIR ROWS BLOCK_KB
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*read_rows*' \
//!     target/release/examples/sst_read_driver read DIR GETS CACHE_KB
//! ```
//!
//! `write` stores ROWS rows of 10 qualifiers x 100 B (YCSB's record shape) with BLOCK_KB data
//! blocks and a ROW Bloom filter in DIR/1.sst. `read` opens it with a CACHE_KB block cache and
//! reads GETS random rows (half of them absent, so the Bloom filter answers), after a warm-up
//! of GETS rows outside the measured function.
use cellbase::CellType;
use cellbase::testing::io::{FileSystem, StdFs};
use cellbase::testing::model::CellCursor;
use cellbase::testing::model::payload;
use cellbase::testing::model::{KeyRef, first_on_row};
use cellbase::testing::sst::{BlockCache, CachePolicy, SstReader, SstWriter, SstWriterConfig};
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

fn row(i: u64) -> Vec<u8> {
    format!("user{:016}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 8).into_bytes()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize| -> u64 { args[i].parse().expect("number") };
    let dir = Path::new(&args[2]);
    let path = dir.join("1.sst");
    match args[1].as_str() {
        "write" => {
            let (rows, block_kb) = (arg(3), arg(4));
            let mut keys: Vec<Vec<u8>> = (0..rows).map(row).collect();
            keys.sort_unstable();
            let cfg = SstWriterConfig {
                block_size: block_kb as usize * 1024,
                ..SstWriterConfig::default()
            };
            std::fs::create_dir_all(dir).unwrap();
            let mut w = SstWriter::new(StdFs.create(&path).unwrap(), path.clone(), cfg);
            let value = payload::encode(None, &[7u8; 100]);
            let mut seq = 0;
            for r in &keys {
                for q in 0..10u8 {
                    seq += 1;
                    let k = KeyRef {
                        row: r,
                        family: b"f",
                        qualifier: &[b'f', b'0' + q],
                        ts: 1_700_000_000_000,
                        type_code: CellType::Put.code(),
                        seq,
                    }
                    .encode();
                    w.add(&k, &value).unwrap();
                }
            }
            w.finish().unwrap();
        }
        "read" => {
            let (gets, cache_kb) = (arg(3), arg(4));
            let cache = Arc::new(BlockCache::new(cache_kb * 1024));
            let reader = Arc::new(SstReader::open(&StdFs, &path, 1, Some(cache.clone())).unwrap());
            let rows = reader.meta().cell_count / 10;
            let found = read_warm(&reader, rows, gets, 1);
            let found2 = read_rows(&reader, rows, gets, 2);
            println!(
                "rows {rows} gets {gets} found {found}/{found2} cache hits {} misses {}",
                cache.hits(),
                cache.misses()
            );
        }
        _ => panic!("usage: write DIR ROWS BLOCK_KB | read DIR GETS CACHE_KB"),
    }
}

#[inline(never)]
fn read_warm(reader: &Arc<SstReader>, rows: u64, gets: u64, salt: u64) -> u64 {
    read_rows_impl(reader, rows, gets, salt)
}

#[inline(never)]
fn read_rows(reader: &Arc<SstReader>, rows: u64, gets: u64, salt: u64) -> u64 {
    read_rows_impl(reader, rows, gets, salt)
}

fn read_rows_impl(reader: &Arc<SstReader>, rows: u64, gets: u64, salt: u64) -> u64 {
    let mut found = 0;
    let mut x = salt.wrapping_mul(0x2545_F491_4F6C_DD1D);
    for _ in 0..gets {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // Half the rows exist (i < rows), half do not.
        let r = row(x % (2 * rows));
        if !reader.may_contain_row(&r) {
            continue;
        }
        let mut c = reader.cursor(CachePolicy::default());
        c.seek(&first_on_row(&r)).unwrap();
        while c.valid() {
            let k = KeyRef::parse(c.key()).unwrap();
            if k.row != r.as_slice() {
                break;
            }
            found += 1;
            black_box(c.payload());
            c.next().unwrap();
        }
    }
    found
}
