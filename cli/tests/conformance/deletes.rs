//! Delete markers ([DEL-1]..[DEL-8]).

use crate::*;

fn five(t: &Table) {
    for ts in 1..=5 {
        t.put(
            Put::new("r")
                .add_at("f", "q", ts, "v")
                .add_at("f", "p", ts, "v"),
        )
        .unwrap();
    }
}

/// [DEL-2] `version(f, q, ts)` masks exactly `ts` (and the same-timestamp Put).
pub fn a_version_marker_masks_exactly_its_timestamp(b: &Backend) {
    let t = b.table(5);
    five(&t);
    t.delete(Delete::new("r").version("f", "q", 3)).unwrap();
    assert_eq!(
        get_ts(&t, Get::new("r").all_versions(), "f", "q"),
        [5, 4, 2, 1]
    );
    assert_eq!(get_ts(&t, Get::new("r").all_versions(), "f", "p").len(), 5);
}

/// [DEL-5] `versions_up_to(f, q, ts)` masks every version at or before `ts`.
pub fn a_column_marker_masks_every_version_at_or_before_it(b: &Backend) {
    let t = b.table(5);
    five(&t);
    t.delete(Delete::new("r").versions_up_to("f", "q", 3))
        .unwrap();
    assert_eq!(get_ts(&t, Get::new("r").all_versions(), "f", "q"), [5, 4]);
    t.delete(Delete::new("r").all_versions("f", "p")).unwrap();
    assert!(get_ts(&t, Get::new("r").all_versions(), "f", "p").is_empty());
}

/// [DEL-6] `latest_version` twice in one Delete hits the two newest versions.
pub fn latest_version_deletes_hit_successive_versions(b: &Backend) {
    let t = b.table(5);
    five(&t);
    t.delete(Delete::new("r").latest_version("f", "q")).unwrap();
    assert_eq!(
        get_ts(&t, Get::new("r").all_versions(), "f", "q"),
        [4, 3, 2, 1]
    );
    t.delete(
        Delete::new("r")
            .latest_version("f", "q")
            .latest_version("f", "q"),
    )
    .unwrap();
    assert_eq!(get_ts(&t, Get::new("r").all_versions(), "f", "q"), [2, 1]);
}

/// [DEL-3] A family marker masks that family of that row only.
pub fn a_family_marker_masks_the_family_only(b: &Backend) {
    let t = b.table(3);
    t.put(
        Put::new("r")
            .add_at("f", "q", 1, "v")
            .add_at("g", "q", 1, "v"),
    )
    .unwrap();
    t.put(Put::new("s").add_at("f", "q", 1, "v")).unwrap();
    t.delete(Delete::new("r").family("f")).unwrap();
    let r = t.get(Get::new("r")).unwrap();
    assert!(r.value("f", "q").is_none());
    assert!(r.value("g", "q").is_some());
    assert!(t.get(Get::new("s")).unwrap().value("f", "q").is_some());
    // family_up_to: only cells at or before the timestamp.
    t.put(
        Put::new("r")
            .add_at("g", "a", 5, "v")
            .add_at("g", "b", 9, "v"),
    )
    .unwrap();
    t.delete(Delete::new("r").family_up_to("g", 5)).unwrap();
    let r = t.get(Get::new("r")).unwrap();
    assert_eq!(
        r.cells().iter().map(show).collect::<Vec<_>>(),
        ["r/g:b@9=v"]
    );
}

/// [DEL-2] `family_version(f, ts)` masks every column of the family at exactly `ts`.
pub fn a_family_version_marker_masks_one_timestamp(b: &Backend) {
    let t = b.table(5);
    five(&t);
    t.delete(Delete::new("r").family_version("f", 4)).unwrap();
    assert_eq!(
        get_ts(&t, Get::new("r").all_versions(), "f", "q"),
        [5, 3, 2, 1]
    );
    assert_eq!(
        get_ts(&t, Get::new("r").all_versions(), "f", "p"),
        [5, 3, 2, 1]
    );
}

/// [DEL-7] A whole-row delete up to a timestamp masks every family at or before it.
pub fn a_whole_row_delete_up_to_a_timestamp(b: &Backend) {
    let t = b.table(5);
    t.put(
        Put::new("r")
            .add_at("f", "q", 2, "v")
            .add_at("g", "q", 8, "v"),
    )
    .unwrap();
    t.delete(Delete::new("r").up_to(5)).unwrap();
    let r = t.get(Get::new("r").all_versions()).unwrap();
    assert_eq!(
        r.cells().iter().map(show).collect::<Vec<_>>(),
        ["r/g:q@8=v"]
    );
    t.delete(Delete::new("r")).unwrap();
    assert!(t.get(Get::new("r")).unwrap().is_empty());
}

/// [DEL-1] Masking ignores write order: a Put written after a marker, with an older
/// timestamp, stays masked.
pub fn markers_mask_puts_written_after_them(b: &Backend) {
    let t = b.table(5);
    t.delete(Delete::new("r").versions_up_to("f", "q", 10))
        .unwrap();
    t.put(Put::new("r").add_at("f", "q", 5, "old")).unwrap();
    t.put(Put::new("r").add_at("f", "q", 11, "new")).unwrap();
    assert_eq!(get_ts(&t, Get::new("r").all_versions(), "f", "q"), [11]);
}

/// One Delete with several marker kinds applies them all, atomically.
pub fn one_delete_mixing_marker_kinds_is_atomic(b: &Backend) {
    let t = b.table(5);
    five(&t);
    t.put(Put::new("r").add_at("g", "x", 1, "v")).unwrap();
    t.delete(
        Delete::new("r")
            .version("f", "q", 5)
            .versions_up_to("f", "p", 2)
            .family("g"),
    )
    .unwrap();
    let r = t.get(Get::new("r").all_versions()).unwrap();
    assert_eq!(ts_of(&r, "f", "q"), [4, 3, 2, 1]);
    assert_eq!(ts_of(&r, "f", "p"), [5, 4, 3]);
    assert!(r.value("g", "x").is_none());
}

/// [DEL-8] A Delete naming a family the table does not have fails.
pub fn a_delete_naming_an_unknown_family_fails(b: &Backend) {
    let t = b.table(1);
    t.put(Put::new("r").add_at("f", "q", 1, "v")).unwrap();
    let e = t.delete(Delete::new("r").family("nope")).unwrap_err();
    assert!(matches!(e, Error::NoSuchFamily { .. }), "{e:?}");
    assert!(!t.get(Get::new("r")).unwrap().is_empty());
}
