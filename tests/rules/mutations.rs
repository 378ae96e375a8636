//! §1.8 Increment, Append, CheckAndMutate, RowMutations, atomicity.

use super::*;

fn long(v: i64) -> [u8; 8] {
    v.to_be_bytes()
}

/// [INC-1] [INC-2] increment reads the latest visible value (honouring deletes and TTL) from
/// memstore or files; a missing column starts at the delta (0 too); the new ts is
/// max(current + 1, now).
#[test]
fn increment_reads_current_value_at_every_stage() {
    at_every_stage(
        1_000,
        || fg(3),
        |t, _| {
            t.put(
                Put::new("r")
                    .add_at("f", "c", 5_000, long(10))
                    .add_at("f", "d", 1, long(7)),
            )
            .unwrap();
            t.put(Put::new("r").add_at("f", "d", 2, long(99))).unwrap();
            t.delete(Delete::new("r").version("f", "d", 2)).unwrap();
        },
        |t, _, stage| {
            let r = t
                .increment(
                    Increment::new("r")
                        .add("f", "c", 1)
                        .add("f", "d", 1)
                        .add("f", "z", 0),
                )
                .unwrap();
            assert_eq!(r.value("f", "c"), Some(&long(11)[..]), "{stage:?}");
            assert_eq!(r.value("f", "d"), Some(&long(8)[..]), "{stage:?}");
            assert_eq!(r.value("f", "z"), Some(&long(0)[..]), "{stage:?}");
            assert_eq!(get_ts(t, Get::new("r").column("f", "c"), "f", "c"), [5_001]);
            assert_eq!(get_ts(t, Get::new("r").column("f", "z"), "f", "z"), [1_000]);
        },
    );
}

/// [INC-3] [INC-4] [INC-5] a non-8-byte value fails with NotACounter; two deltas for one
/// column apply once; the result holds the new cells.
#[test]
fn increment_errors_and_same_column_deltas() {
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    t.put(Put::new("r").add("f", "s", 5i32.to_be_bytes()))
        .unwrap();
    t.flush().unwrap();
    assert!(matches!(
        t.increment(Increment::new("r").add("f", "s", 1)),
        Err(Error::NotACounter { .. })
    ));
    let r = t
        .increment(Increment::new("r").add("f", "c", 1).add("f", "c", 1))
        .unwrap();
    assert_eq!(r.value("f", "c"), Some(&long(1)[..]));
    assert_eq!(r.cells().len(), 1);
    t.put(Put::new("r").add("g", "m", long(i64::MAX))).unwrap();
    let r = t.increment(Increment::new("r").add("g", "m", 1)).unwrap();
    assert_eq!(r.value("g", "m"), Some(&long(i64::MIN)[..]), "wraps");
}

/// [APP-1] append concatenates onto the latest visible value (flushed too); ts rule as INC-2.
#[test]
fn append_concatenates_at_every_stage() {
    at_every_stage(
        1_000,
        || fg(3),
        |t, _| {
            t.put(Put::new("r").add_at("f", "q", 3_000, "ab")).unwrap();
        },
        |t, _, stage| {
            let r = t
                .append(Append::new("r").add("f", "q", "cd").add("f", "n", "new"))
                .unwrap();
            assert_eq!(r.value("f", "q"), Some(&b"abcd"[..]), "{stage:?}");
            assert_eq!(r.value("f", "n"), Some(&b"new"[..]));
            assert_eq!(get_ts(t, Get::new("r").column("f", "q"), "f", "q"), [3_001]);
        },
    );
}

/// [CAM-1] [CAM-2] [CAM-3] the check reads the latest visible version (deleted cells do not
/// count); `expected OP stored`; empty expected matches a missing cell.
#[test]
fn check_and_mutate_reads_latest_visible_version() {
    at_every_stage(
        1_000,
        || fg(3),
        |t, _| {
            t.put(
                Put::new("r")
                    .add_at("f", "q", 1, "old")
                    .add_at("f", "q", 2, "bbbb"),
            )
            .unwrap();
        },
        |t, _, stage| {
            let cm = |c: CheckAndMutate| {
                t.check_and_mutate(c.then_put(Put::new("r").add("g", "x", "1")))
                    .unwrap()
            };
            assert!(
                cm(CheckAndMutate::new("r").if_compare("f", "q", CompareOp::Less, "aaaa")),
                "{stage:?}"
            );
            assert!(!cm(CheckAndMutate::new("r").if_compare(
                "f",
                "q",
                CompareOp::Greater,
                "aaaa"
            )));
            assert!(!cm(CheckAndMutate::new("r").if_equals("f", "q", "old")));
            t.delete(Delete::new("r").version("f", "q", 2)).unwrap();
            assert!(
                cm(CheckAndMutate::new("r").if_equals("f", "q", "old")),
                "{stage:?}"
            );
            assert!(cm(CheckAndMutate::new("r").if_equals("f", "missing", "")));
            assert!(cm(CheckAndMutate::new("r").if_absent("f", "missing")));
            assert!(!cm(CheckAndMutate::new("r").if_compare(
                "f",
                "missing",
                CompareOp::NotEqual,
                ""
            )));
            assert!(!cm(CheckAndMutate::new("r").if_equals("f", "missing", "x")));
        },
    );
}

/// [CAM-4] [CAM-5] a put in a successful check-and-mutate is not eclipsed by a future-dated
/// checked cell; mutations for another row or an unknown family fail.
#[test]
fn check_and_mutate_timestamps_and_row_checks() {
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    t.put(Put::new("r").add_at("f", "q", 5_000, "v")).unwrap();
    assert!(
        t.check_and_mutate(
            CheckAndMutate::new("r")
                .if_equals("f", "q", "v")
                .then_put(Put::new("r").add("f", "q", "w"))
        )
        .unwrap()
    );
    assert_eq!(versions(&t, "r", "f", "q")[0], (5_000, "w".into()));
    assert!(
        t.check_and_mutate(
            CheckAndMutate::new("r")
                .if_equals("f", "q", "w")
                .then_put(Put::new("s").add("f", "q", "x"))
        )
        .is_err()
    );
    assert!(
        t.check_and_mutate(
            CheckAndMutate::new("r")
                .if_absent("nope", "q")
                .then_put(Put::new("r").add("f", "q", "x"))
        )
        .is_err()
    );
}

/// [RM-1] [ATOM-1] mutate_row applies in order and atomically; an unknown family or another
/// row fails the whole batch; a scanner opened before sees none of it.
#[test]
fn row_mutations_are_atomic_and_ordered() {
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    t.put(Put::new("r").add("f", "a", "1").add("g", "b", "2"))
        .unwrap();
    t.put(Put::new("s").add("f", "a", "1")).unwrap();
    let mut before = t.scan(Scan::new()).unwrap();
    t.mutate_row(
        "r",
        vec![
            Mutation::Delete(Delete::new("r").family("f")),
            Mutation::Put(Put::new("r").add_at("f", "c", 2_000, "3")),
            Mutation::Put(Put::new("r").add("g", "b", "4")),
        ],
    )
    .unwrap();
    let first = before.next().unwrap().unwrap();
    assert_eq!(
        first.value("g", "b"),
        Some(&b"2"[..]),
        "snapshot at scanner open"
    );
    assert_eq!(first.value("f", "a"), Some(&b"1"[..]));
    let r = t.get(Get::new("r")).unwrap();
    assert_eq!(
        r.cells().iter().map(show).collect::<Vec<_>>(),
        ["r/f:c@2000 Put=3", "r/g:b@1000 Put=4"]
    );
    for ms_ in [
        vec![
            Mutation::Put(Put::new("r").add("f", "x", "1")),
            Mutation::Put(Put::new("r").add("nope", "x", "1")),
        ],
        vec![
            Mutation::Put(Put::new("r").add("f", "x", "1")),
            Mutation::Put(Put::new("s").add("f", "x", "1")),
        ],
    ] {
        assert!(t.mutate_row("r", ms_).is_err());
    }
    assert_eq!(
        t.get(Get::new("r").column("f", "x")).unwrap().cells().len(),
        0
    );
}
