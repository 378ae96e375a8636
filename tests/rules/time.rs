//! §1.2 Timestamps, "now" and sequence ids.

use super::*;

/// [TS-1] a cell without a timestamp (or with LATEST_TIMESTAMP) is stamped with the clock's
/// now; all cells of one mutation share the same now.
#[test]
fn latest_timestamp_is_replaced_by_one_now_per_mutation() {
    let env = Env::new(42_000);
    let t = env.table(fg(3));
    t.put(Put::new("r").add("f", "a", "1").add("g", "b", "2").add_at(
        "f",
        "c",
        LATEST_TIMESTAMP,
        "3",
    ))
    .unwrap();
    let r = t.get(Get::new("r")).unwrap();
    let stamps: Vec<i64> = r.cells().iter().map(|c| c.timestamp()).collect();
    assert_eq!(stamps, [42_000, 42_000, 42_000]);
    assert_eq!(LATEST_TIMESTAMP, i64::MAX);
    env.clock.advance(ms(5));
    t.put(Put::new("r").add("f", "a", "4")).unwrap();
    assert_eq!(
        get_ts(&t, Get::new("r").all_versions(), "f", "a"),
        [42_005, 42_000]
    );
}

/// [TS-2] negative timestamps are rejected in puts, deletes and time ranges; nothing is
/// written.
#[test]
fn negative_timestamps_are_rejected() {
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    let bad = |r: Result<()>| assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    bad(t.put(Put::new("r").add_at("f", "q", -1, "v")));
    bad(t.delete(Delete::new("r").version("f", "q", -5)));
    bad(t.delete(Delete::new("r").up_to(-1)));
    assert!(matches!(
        t.get(Get::new("r").time_range(-1, 10)),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        t.get(Get::new("r").timestamp(-3)),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        t.scan(Scan::new().time_range(-1, 10)),
        Err(Error::InvalidArgument(_))
    ));
    assert!(raw(&t).is_empty());
}

/// [TS-3] explicit timestamps far in the past or the future are accepted as-is (no slop
/// guard), and a future-dated version shadows a current one.
#[test]
fn explicit_past_and_future_timestamps_are_accepted() {
    at_every_stage(
        1_000,
        || fg(3),
        |t, _| {
            t.put(Put::new("r").add_at("f", "q", 0, "past")).unwrap();
            t.put(Put::new("r").add("f", "q", "now")).unwrap();
            t.put(Put::new("r").add_at("f", "q", 9_000_000_000_000, "future"))
                .unwrap();
        },
        |t, _, stage| {
            assert_eq!(
                versions(t, "r", "f", "q"),
                [
                    (9_000_000_000_000, "future".into()),
                    (1_000, "now".into()),
                    (0, "past".into())
                ],
                "{stage:?}"
            );
            assert_eq!(
                t.get(Get::new("r")).unwrap().value("f", "q"),
                Some(&b"future"[..])
            );
        },
    );
}

/// [TS-4] (differs: no `Put::new(row, ts)`) the per-row default timestamp of a Delete is
/// `Delete::up_to(ts)`: it masks every family up to ts only; per-cell `add_at` is the Put
/// equivalent.
#[test]
fn row_delete_with_a_default_timestamp() {
    at_every_stage(
        1_000,
        || fg(3),
        |t, _| {
            t.put(
                Put::new("r")
                    .add_at("f", "a", 5, "5")
                    .add_at("g", "b", 6, "6")
                    .add_at("f", "a", 7, "7"),
            )
            .unwrap();
            t.delete(Delete::new("r").up_to(6)).unwrap();
        },
        |t, _, stage| {
            let r = t.get(Get::new("r").all_versions()).unwrap();
            assert_eq!(
                r.cells().iter().map(show).collect::<Vec<_>>(),
                ["r/f:a@7 Put=7"],
                "{stage:?}"
            );
        },
    );
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    assert!(matches!(
        t.delete(Delete::new("r").up_to(5).family("f")),
        Err(Error::InvalidArgument(_))
    ));
}

/// [TS-5] a time range is [min, max); `timestamp(t)` is [t, t+1); min == max is empty;
/// max < min is rejected.
#[test]
fn time_range_is_half_open() {
    at_every_stage(
        1_000,
        || fg(10),
        |t, _| {
            for ts in 1..=6 {
                t.put(Put::new("r").add_at("f", "q", ts, "v")).unwrap();
            }
        },
        |t, _, stage| {
            let g = || Get::new("r").all_versions();
            assert_eq!(
                get_ts(t, g().time_range(2, 5), "f", "q"),
                [4, 3, 2],
                "{stage:?}"
            );
            assert_eq!(get_ts(t, g().timestamp(3), "f", "q"), [3]);
            assert!(t.get(g().time_range(3, 3)).unwrap().is_empty());
            assert!(matches!(
                t.get(g().time_range(5, 2)),
                Err(Error::InvalidArgument(_))
            ));
            assert_eq!(
                get_ts(t, g().time_range(0, LATEST_TIMESTAMP), "f", "q"),
                [6, 5, 4, 3, 2, 1]
            );
            let scanned: Vec<i64> = t
                .scan(Scan::new().all_versions().time_range(2, 5))
                .unwrap()
                .flat_map(|r| {
                    r.unwrap()
                        .cells()
                        .iter()
                        .map(|c| c.timestamp())
                        .collect::<Vec<_>>()
                })
                .collect();
            assert_eq!(scanned, [4, 3, 2]);
        },
    );
}
