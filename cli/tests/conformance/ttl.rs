//! TTL ([TTL-1]..[TTL-5]), with cells whose timestamps are hours old, so the embedded clock
//! and the gateway's agree without a manual clock.

use crate::*;
use std::time::Duration;

const HOUR: i64 = 3_600_000;

fn ttl_table(b: &Backend, min_versions: u32) -> Table {
    b.create(
        TableDescriptor::new("t").family(
            FamilyDescriptor::new("f")
                .max_versions(3)
                .min_versions(min_versions)
                .ttl(Duration::from_secs(3600)),
        ),
    )
}

/// [TTL-1] [TTL-2] [TTL-5] TTL is in seconds; a cell older than it is hidden at once.
pub fn family_ttl_hides_old_cells_at_once(b: &Backend) {
    let t = ttl_table(b, 0);
    let now = now_ms();
    t.put(Put::new("old").add_at("f", "q", now - 2 * HOUR, "v"))
        .unwrap();
    t.put(Put::new("new").add_at("f", "q", now - HOUR / 2, "v"))
        .unwrap();
    assert!(t.get(Get::new("old")).unwrap().is_empty());
    assert!(!t.get(Get::new("new")).unwrap().is_empty());
    assert_eq!(scan_rows(&t, Scan::new()), ["new"]);
    assert_eq!(
        b.db.describe(t.name())
            .unwrap()
            .get_family(b"f")
            .unwrap()
            .ttl,
        Some(Duration::from_secs(3600)),
        "the TTL is kept in the descriptor"
    );
}

/// [TTL-4] MIN_VERSIONS newest versions stay visible even when expired.
pub fn min_versions_keep_expired_versions_visible(b: &Backend) {
    let t = ttl_table(b, 1);
    let now = now_ms();
    t.put(Put::new("r").add_at("f", "q", now - 3 * HOUR, "a"))
        .unwrap();
    t.put(Put::new("r").add_at("f", "q", now - 2 * HOUR, "b"))
        .unwrap();
    let r = t.get(Get::new("r").all_versions()).unwrap();
    assert_eq!(r.versions("f", "q"), [(now - 2 * HOUR, &b"b"[..])]);
}

/// [TTL-3] A Put's own TTL (milliseconds, `Mutation.setTTL`) expires its cells.
pub fn cell_ttl_expires_a_put(b: &Backend) {
    let t = b.table(3);
    let now = now_ms();
    t.put(
        Put::new("r")
            .add_at("f", "q", now - 10_000, "v")
            .ttl(Duration::from_secs(1)),
    )
    .unwrap();
    t.put(
        Put::new("s")
            .add_at("f", "q", now - 10_000, "v")
            .ttl(Duration::from_secs(3600)),
    )
    .unwrap();
    assert!(t.get(Get::new("r")).unwrap().is_empty());
    assert!(!t.get(Get::new("s")).unwrap().is_empty());
}

/// [TTL-3] An Increment's and an Append's TTL expire the cells they write (HBase's
/// `Mutation.setTTL`): written with a 1 ms TTL, they are gone once 1 ms has passed.
pub fn increment_and_append_ttl(b: &Backend) {
    let t = b.table(1);
    t.increment(Increment::new("r").add("f", "kept", 1))
        .unwrap();
    t.increment(
        Increment::new("r")
            .add("f", "n", 1)
            .ttl(Duration::from_millis(1)),
    )
    .unwrap();
    t.append(
        Append::new("r")
            .add("f", "s", "ab")
            .ttl(Duration::from_millis(1)),
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let r = t.get(Get::new("r")).unwrap();
    assert!(r.value("f", "n").is_none() && r.value("f", "s").is_none());
    assert!(r.value("f", "kept").is_some());
}
