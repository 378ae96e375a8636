//! TTL wiring through the engine: family TTL in seconds, per-cell TTL in milliseconds, the
//! injected clock, and purging by compaction [TTL-1..5].

use super::*;
use std::time::Duration;

fn ttl_table(db: &Db, min_versions: u32) -> Table {
    db.create_table(
        TableDescriptor::new("t").family(
            FamilyDescriptor::new("f")
                .max_versions(5)
                .min_versions(min_versions)
                .ttl(Duration::from_secs(10)),
        ),
    )
    .unwrap()
}

/// [TTL-2] a cell expires strictly after `ts < now - ttl`: at `now - ttl` it is still visible.
#[test]
fn family_ttl_expiry_is_strict() {
    let clock = ManualClock::new(100_000);
    let db = Db::temporary_with(
        DbOptions::default()
            .clock(clock.clone())
            .background_threads(0),
    )
    .unwrap();
    let t = ttl_table(&db, 0);
    t.put(Put::new("r").add_at("f", "q", 90_000, "v")).unwrap();
    assert!(
        !t.get(Get::new("r")).unwrap().is_empty(),
        "ts == now - ttl is visible"
    );
    clock.advance(Duration::from_millis(1));
    assert!(
        t.get(Get::new("r")).unwrap().is_empty(),
        "one ms later it expired"
    );
    // Raw scans ignore TTL [TTL-6] until a compaction purges the cell [TTL-5].
    assert_eq!(t.scan(Scan::new().raw(true)).unwrap().count(), 1);
    t.flush().unwrap();
    assert_eq!(
        t.scan(Scan::new().raw(true)).unwrap().count(),
        0,
        "flush purged the expired cell"
    );
}

/// [TTL-3] a per-cell TTL (ms) shortens life; expiry of the newest version re-exposes an
/// older one [TTL-5].
#[test]
fn cell_ttl_expires_and_reexposes_older_version() {
    let clock = ManualClock::new(100_000);
    let db = Db::temporary_with(
        DbOptions::default()
            .clock(clock.clone())
            .background_threads(0),
    )
    .unwrap();
    let t = ttl_table(&db, 0);
    t.put(Put::new("r").add_at("f", "q", 99_000, "old"))
        .unwrap();
    t.put(
        Put::new("r")
            .add("f", "q", "short")
            .ttl(Duration::from_millis(500)),
    )
    .unwrap();
    assert_eq!(
        t.get(Get::new("r")).unwrap().value("f", "q"),
        Some(&b"short"[..])
    );
    clock.advance(Duration::from_millis(501));
    assert_eq!(
        t.get(Get::new("r")).unwrap().value("f", "q"),
        Some(&b"old"[..])
    );
    t.flush().unwrap();
    assert_eq!(
        t.get(Get::new("r")).unwrap().value("f", "q"),
        Some(&b"old"[..])
    );
}

/// [TTL-4] MIN_VERSIONS keeps the newest versions visible and retained past the family TTL.
#[test]
fn min_versions_survive_family_ttl_through_major_compaction() {
    let clock = ManualClock::new(100_000);
    let db = Db::temporary_with(
        DbOptions::default()
            .clock(clock.clone())
            .background_threads(0),
    )
    .unwrap();
    let t = ttl_table(&db, 2);
    for ts in 1..=4 {
        t.put(Put::new("r").add_at("f", "q", 99_000 + ts, format!("v{ts}")))
            .unwrap();
    }
    clock.advance(Duration::from_secs(60)); // everything is past the TTL
    t.flush().unwrap();
    t.major_compact().unwrap();
    let got = t.get(Get::new("r").all_versions()).unwrap();
    assert_eq!(
        got.versions("f", "q")
            .iter()
            .map(|v| v.0)
            .collect::<Vec<_>>(),
        [99_004, 99_003]
    );
    assert_eq!(
        t.scan(Scan::new().raw(true).all_versions())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .cells()
            .len(),
        2
    );
}
