//! A flush hands the memory freed by its memstore back to the operating system (glibc keeps
//! freed memory in the arena of the thread that allocated it; `malloc_trim` after a flush
//! returns it). Its own test binary: one test, so no other test allocates meanwhile.

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn a_flush_returns_freed_memory_to_the_os() {
    use cellbase::{Db, DbOptions, FamilyDescriptor, Put, TableDescriptor};

    fn anon_kib() -> u64 {
        std::fs::read_to_string("/proc/self/status")
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("RssAnon:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap()
    }
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(dir.path(), DbOptions::default().background_threads(0)).unwrap();
    let t = db
        .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))
        .unwrap();
    // A writer thread fills the memstore (its allocations go to that thread's arena) with
    // about 60 MiB; the flush below frees all of it. Every 500 puts it also makes an
    // allocation that stays alive, so the freed memory lies between live allocations (as in a
    // running database) and freeing alone cannot shrink the arena.
    let writer = {
        let t = t.clone();
        std::thread::spawn(move || {
            let mut pins = Vec::new();
            for i in 0..200_000u32 {
                t.put(Put::new(format!("row{i:08}")).add("f", "q", [1u8; 200]))
                    .unwrap();
                if i % 500 == 0 {
                    pins.push(vec![i as u8; 64]);
                }
            }
            pins
        })
    };
    let pins = writer.join().unwrap();
    let full = db.metrics().memstore_bytes;
    assert!(full > 50 << 20, "{full}");
    let before = anon_kib();
    t.flush().unwrap();
    assert_eq!(db.metrics().memstore_bytes, 0);
    let after = anon_kib();
    println!(
        "anonymous resident memory: {before} KiB with the memstore, {after} KiB after its flush"
    );
    assert!(
        after + 40 * 1024 < before,
        "the flush freed a {full}-byte memstore but resident memory went only from {before} to {after} KiB"
    );
    // The live allocations stayed alive until after the measurement.
    assert_eq!(pins.len(), 400);
}
