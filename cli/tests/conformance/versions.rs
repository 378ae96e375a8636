//! Versions ([VER-1]..[VER-5]).

use crate::*;

/// [VER-1] VERSIONS newest versions are visible; VERSIONS 0 is refused at create.
pub fn family_versions_bound_reads(b: &Backend) {
    assert!(matches!(
        b.db.create_table(
            TableDescriptor::new(&b.name("bad")).family(FamilyDescriptor::new("f").max_versions(0))
        ),
        Err(Error::InvalidArgument(_))
    ));
    let t = b.table(2);
    for ts in 1..=4 {
        t.put(Put::new("r").add_at("f", "q", ts, format!("v{ts}")))
            .unwrap();
    }
    assert_eq!(get_ts(&t, Get::new("r").all_versions(), "f", "q"), [4, 3]);
    assert_eq!(
        t.get(Get::new("r")).unwrap().value("f", "q"),
        Some(&b"v4"[..])
    );
}

/// [VER-2] A read returns one version unless asked; min(query, VERSIONS); zero is refused.
pub fn query_versions_default_to_one_and_zero_is_refused(b: &Backend) {
    let t = b.table(3);
    for ts in 1..=5 {
        t.put(Put::new("r").add_at("f", "q", ts, "v")).unwrap();
    }
    assert_eq!(get_ts(&t, Get::new("r"), "f", "q"), [5]);
    assert_eq!(get_ts(&t, Get::new("r").max_versions(2), "f", "q"), [5, 4]);
    assert_eq!(
        get_ts(&t, Get::new("r").max_versions(10), "f", "q"),
        [5, 4, 3]
    );
    assert!(matches!(
        t.get(Get::new("r").max_versions(0)),
        Err(Error::InvalidArgument(_))
    ));
}

/// [VER-5] The time range is applied before versions are counted; a timestamp is [ts, ts+1).
pub fn time_range_applies_before_version_counting(b: &Backend) {
    let t = b.table(3);
    for ts in 1..=5 {
        t.put(Put::new("r").add_at("f", "q", ts, "v")).unwrap();
    }
    let g = Get::new("r").time_range(1, 4).max_versions(2);
    assert_eq!(get_ts(&t, g, "f", "q"), [3, 2]);
    assert_eq!(get_ts(&t, Get::new("r").timestamp(4), "f", "q"), [4]);
    assert_eq!(
        get_ts(&t, Get::new("r").timestamp(9), "f", "q"),
        Vec::<i64>::new()
    );
}

/// [VER-4] The same column and timestamp written twice is one version: the newest write.
pub fn duplicate_timestamps_return_the_newest_write(b: &Backend) {
    let t = b.table(3);
    t.put(Put::new("r").add_at("f", "q", 7, "first")).unwrap();
    t.put(Put::new("r").add_at("f", "q", 7, "second")).unwrap();
    let r = t.get(Get::new("r").all_versions()).unwrap();
    assert_eq!(r.versions("f", "q"), [(7, &b"second"[..])]);
}
