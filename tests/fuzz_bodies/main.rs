//! Every fuzz target's body (`cellbase::fuzzing`, shared with `fuzz/fuzz_targets/`) on a small
//! seeded corpus, so `cargo test` on stable covers them [issue 5, item 6]. The corpus: real
//! files of a small database (block file, WAL segment, manifest) and slices of them, each also
//! with seeded bit flips, byte overwrites and truncations, plus random bytes. `FUZZ_SEED` and
//! `FUZZ_CASES` change the seed and the number of generated inputs per target; a failing input
//! is printed in hex, and `FUZZ_INPUT=<hex> cargo test --test fuzz_bodies <target>` replays it.
//! `FUZZ_WRITE_CORPUS=fuzz/corpus` also writes the real files as seed corpora for `cargo fuzz`.

#[path = "../common/mod.rs"]
mod common;

use cellbase::fuzzing;
use cellbase::testing::io::{FileSystem, MemFs};
use cellbase::{Db, DbOptions, FamilyDescriptor, ManualClock, Put, TableDescriptor};
use common::Rng;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// Real files of a database: (block file, WAL segment, manifest).
fn seeds() -> &'static [Vec<u8>] {
    static SEEDS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let mem = MemFs::new();
        let db = Db::open_with_fs(
            "/db",
            DbOptions::default()
                .background_threads(0)
                .clock(ManualClock::new(5)),
            Arc::new(mem.clone()),
        )
        .unwrap();
        let t = db
            .create_table(
                TableDescriptor::new("t")
                    .family(FamilyDescriptor::new("f").block_size(1024))
                    .family(
                        FamilyDescriptor::new("g")
                            .bloom_filter(cellbase::BloomType::RowCol)
                            .block_size(1024),
                    ),
            )
            .unwrap();
        for i in 0..120 {
            t.put(
                Put::new(format!("row{i:03}"))
                    .add("f", "q", format!("v{i}"))
                    .add("g", format!("c{}", i % 3), "x".repeat(i % 40)),
            )
            .unwrap();
        }
        t.flush().unwrap();
        for i in 0..20 {
            t.put(Put::new(format!("late{i}")).add("f", "q", "w"))
                .unwrap();
        }
        drop(t);
        db.close().unwrap();
        let mut out = Vec::new();
        for dir in ["/db/data", "/db/wal", "/db"] {
            for name in mem.list(Path::new(dir)).unwrap() {
                let p = Path::new(dir).join(&name);
                if let Ok(b) = mem.read_file(&p)
                    && name != "LOCK"
                {
                    out.push(b);
                }
            }
        }
        out
    })
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

/// One generated input: a seed file or a slice of one, mutated, or random bytes.
fn input(rng: &mut Rng, max_random: usize) -> Vec<u8> {
    let seeds = seeds();
    let mut b = match rng.below(10) {
        0 | 1 => {
            let n = rng.index(max_random + 1);
            (0..n).map(|_| rng.next_u64() as u8).collect()
        }
        2..=5 => rng.pick(seeds).clone(),
        _ => {
            let s = rng.pick(seeds);
            let a = rng.index(s.len());
            let e = a + rng.index(s.len() - a + 1);
            s[a..e].to_vec()
        }
    };
    if !b.is_empty() {
        for _ in 0..rng.below(4) {
            let i = rng.index(b.len());
            match rng.below(3) {
                0 => b[i] ^= 1 << rng.below(8),
                1 => b[i] = rng.next_u64() as u8,
                _ => b.truncate(i),
            }
            if b.is_empty() {
                break;
            }
        }
    }
    b
}

fn run_target(name: &str) {
    let (_, body) = fuzzing::TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .expect("target");
    if let Ok(h) = std::env::var("FUZZ_INPUT") {
        body(&unhex(&h));
        return;
    }
    if let Ok(dir) = std::env::var("FUZZ_WRITE_CORPUS") {
        // Seed corpus for the real fuzzers: `fuzz/corpus/<target>/`.
        let d = Path::new(&dir).join(name);
        std::fs::create_dir_all(&d).unwrap();
        for (i, s) in seeds().iter().enumerate() {
            std::fs::write(d.join(format!("seed-{i}")), s).unwrap();
        }
    }
    let seed = common::env_u64("FUZZ_SEED").unwrap_or(0xf022);
    let model = name == "model";
    let cases = common::env_u64("FUZZ_CASES").unwrap_or(if model { 40 } else { 400 });
    println!("{name}: seed {seed}, {cases} inputs (FUZZ_SEED / FUZZ_CASES to change)");
    let mut rng = Rng::new(seed ^ name.len() as u64);
    // The unmodified seed files first.
    let mut inputs: Vec<Vec<u8>> = if model { Vec::new() } else { seeds().to_vec() };
    for _ in 0..cases {
        inputs.push(if model {
            let n = 20 + rng.index(300);
            (0..n).map(|_| rng.next_u64() as u8).collect()
        } else {
            input(&mut rng, 300)
        });
    }
    for data in inputs {
        let r = std::panic::catch_unwind(|| body(&data));
        if let Err(p) = r {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_string()))
                .unwrap_or_default();
            let data = shrink(*body, data);
            panic!(
                "{name} failed on an input (shrunk to {} bytes): {msg}\nreplay: FUZZ_INPUT={} cargo test --test fuzz_bodies {name}",
                data.len(),
                hex(&data)
            );
        }
    }
}

/// Removes chunks of a failing input while it still fails (any panic counts).
fn shrink(body: fn(&[u8]), mut data: Vec<u8>) -> Vec<u8> {
    let fails = |d: &[u8]| std::panic::catch_unwind(|| body(d)).is_err();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut chunk = data.len() / 2;
    while chunk >= 1 {
        let mut i = 0;
        while i + chunk <= data.len() {
            let mut d = data.clone();
            d.drain(i..i + chunk);
            if fails(&d) {
                data = d;
            } else {
                i += chunk;
            }
        }
        chunk /= 2;
    }
    std::panic::set_hook(hook);
    data
}

macro_rules! targets {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                run_target(stringify!($name));
            }
        )*
        /// Every target of `cellbase::fuzzing::TARGETS` has a test here.
        #[test]
        fn every_target_is_covered() {
            let here = [$(stringify!($name)),*];
            for (n, _) in fuzzing::TARGETS {
                assert!(here.contains(n), "fuzz target {n} has no test");
            }
        }
    };
}

targets!(
    raw_block,
    raw_index,
    raw_bloom,
    raw_trailer,
    raw_sst_open,
    raw_log_records,
    raw_wal_replay,
    raw_manifest_replay,
    raw_manifest_edit,
    raw_cell_key,
    model,
);
