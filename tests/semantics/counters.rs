//! Increment [INC-1..5], Append [APP-1], RowMutations [RM-1], atomicity [ATOM-1].

use super::*;
use std::sync::Arc;

/// [INC-1] a missing counter starts at the delta (0 included); [INC-5] the result holds the
/// new values, 8-byte big-endian two's complement [ENC-1].
#[test]
fn increment_missing_column_starts_at_delta() {
    let (_db, t, _) = setup(1_000, 3);
    let r = t
        .increment(Increment::new("c").add("f", "n", 5).add("f", "z", 0))
        .unwrap();
    assert_eq!(counter(&r, "f", "n"), Some(5));
    assert_eq!(counter(&r, "f", "z"), Some(0));
    let r = t.increment(Increment::new("c").add("f", "n", -7)).unwrap();
    assert_eq!(counter(&r, "f", "n"), Some(-2));
    assert_eq!(counter(&t.get(Get::new("c")).unwrap(), "f", "n"), Some(-2));
}

/// [INC-2] the new cell's timestamp is max(old ts + 1, now), even when the clock goes back.
#[test]
fn increment_timestamps_are_monotonic() {
    let (_db, t, clock) = setup(1_000, 3);
    let r = t.increment(Increment::new("c").add("f", "n", 1)).unwrap();
    assert_eq!(r.cells()[0].timestamp(), 1_000);
    let r = t.increment(Increment::new("c").add("f", "n", 1)).unwrap();
    assert_eq!(r.cells()[0].timestamp(), 1_001, "same now: old ts + 1");
    clock.set(500);
    let r = t.increment(Increment::new("c").add("f", "n", 1)).unwrap();
    assert_eq!(r.cells()[0].timestamp(), 1_002, "clock went back");
    clock.set(5_000);
    let r = t.increment(Increment::new("c").add("f", "n", 1)).unwrap();
    assert_eq!(
        (r.cells()[0].timestamp(), counter(&r, "f", "n")),
        (5_000, Some(4))
    );
}

/// [INC-3] a non-8-byte value is not a counter: NotACounter, nothing written. Overflow wraps.
#[test]
fn increment_of_non_counter_fails_and_overflow_wraps() {
    let (_db, t, _) = setup(1_000, 3);
    t.put(Put::new("c").add("f", "int", 7i32.to_be_bytes()))
        .unwrap();
    let e = t
        .increment(Increment::new("c").add("f", "ok", 1).add("f", "int", 1))
        .unwrap_err();
    assert!(
        matches!(&e, Error::NotACounter { qualifier, .. } if qualifier == b"int"),
        "{e}"
    );
    assert!(
        t.get(Get::new("c").column("f", "ok")).unwrap().is_empty(),
        "nothing was written"
    );
    t.put(Put::new("m").add("f", "n", i64::MAX.to_be_bytes()))
        .unwrap();
    let r = t.increment(Increment::new("m").add("f", "n", 1)).unwrap();
    assert_eq!(counter(&r, "f", "n"), Some(i64::MIN));
}

/// [INC-4] two deltas for one column in one Increment apply once (each from the same old value).
#[test]
fn increment_same_column_twice_applies_one_delta() {
    let (_db, t, _) = setup(1_000, 3);
    t.increment(Increment::new("c").add("f", "n", 10)).unwrap();
    let r = t
        .increment(Increment::new("c").add("f", "n", 1).add("f", "n", 1))
        .unwrap();
    assert_eq!(counter(&r, "f", "n"), Some(11));
    assert_eq!(r.cells().len(), 1);
}

/// [INC-1] increments honour deletes: a deleted counter restarts from the delta; unknown
/// families are rejected [INC-5].
#[test]
fn increment_honours_deletes_and_checks_families() {
    let (_db, t, clock) = setup(1_000, 3);
    t.increment(Increment::new("c").add("f", "n", 10)).unwrap();
    t.flush().unwrap();
    clock.advance(std::time::Duration::from_millis(5));
    t.delete(Delete::new("c").all_versions("f", "n")).unwrap();
    clock.advance(std::time::Duration::from_millis(5));
    let r = t.increment(Increment::new("c").add("f", "n", 3)).unwrap();
    assert_eq!(counter(&r, "f", "n"), Some(3));
    assert!(matches!(
        t.increment(Increment::new("c").add("nope", "n", 1)),
        Err(Error::NoSuchFamily { .. })
    ));
    assert!(matches!(
        t.increment(Increment::new("c")),
        Err(Error::InvalidArgument(_))
    ));
}

/// [APP-1] append concatenates to the latest value (missing = empty), ts = max(old + 1, now);
/// [LIM-5] an oversized result is rejected.
#[test]
fn append_concatenates_and_checks_size() {
    let clock = ManualClock::new(1_000);
    let db = Db::temporary_with(
        DbOptions::default()
            .clock(clock.clone())
            .background_threads(0)
            .max_cell_size(40),
    )
    .unwrap();
    let t = db
        .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))
        .unwrap();
    let r = t.append(Append::new("r").add("f", "s", "ab")).unwrap();
    assert_eq!(r.value("f", "s"), Some(&b"ab"[..]));
    let r = t.append(Append::new("r").add("f", "s", "cd")).unwrap();
    assert_eq!(r.value("f", "s"), Some(&b"abcd"[..]));
    assert_eq!(r.cells()[0].timestamp(), 1_001);
    // 20 + 1 + 1 + 1 + 18 = 41 > 40
    let e = t
        .append(Append::new("r").add("f", "s", [b'x'; 14]))
        .unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    assert_eq!(
        t.get(Get::new("r")).unwrap().value("f", "s"),
        Some(&b"abcd"[..])
    );
}

/// [RM-1] mutate_row applies puts and deletes of one row atomically; a bad family or another
/// row rejects the whole batch and writes nothing.
#[test]
fn mutate_row_is_all_or_nothing() {
    let (_db, t, _) = setup(1_000, 3);
    t.put(Put::new("r").add("f", "old", "x")).unwrap();
    t.mutate_row(
        "r",
        vec![
            Mutation::Put(Put::new("r").add("f", "new", "y")),
            Mutation::Delete(Delete::new("r").all_versions("f", "old")),
        ],
    )
    .unwrap();
    let r = t.get(Get::new("r")).unwrap();
    assert_eq!(
        (r.value("f", "new"), r.value("f", "old")),
        (Some(&b"y"[..]), None)
    );
    let bad = t.mutate_row(
        "r",
        vec![
            Mutation::Put(Put::new("r").add("f", "a", "1")),
            Mutation::Put(Put::new("r").add("nope", "b", "2")),
        ],
    );
    assert!(matches!(bad, Err(Error::NoSuchFamily { .. })));
    let other = t.mutate_row("r", vec![Mutation::Put(Put::new("s").add("f", "a", "1"))]);
    assert!(matches!(other, Err(Error::InvalidArgument(_))));
    assert!(t.get(Get::new("r").column("f", "a")).unwrap().is_empty());
    assert!(t.get(Get::new("s")).unwrap().is_empty());
}

/// [ATOM-1] [INC-1] N threads incrementing the same counters end with exact totals.
#[test]
fn concurrent_increments_lose_no_update() {
    let db = Db::temporary_with(
        DbOptions::default()
            .background_threads(1)
            .memstore_flush_size(16 << 10),
    )
    .unwrap();
    let t = db
        .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))
        .unwrap();
    let t = Arc::new(t);
    let threads: Vec<_> = (0..4)
        .map(|w| {
            let t = t.clone();
            std::thread::spawn(move || {
                for i in 0..500 {
                    t.increment(
                        Increment::new(format!("c{}", i % 3))
                            .add("f", "n", 1)
                            .add("f", "w", w),
                    )
                    .unwrap();
                }
            })
        })
        .collect();
    for h in threads {
        h.join().unwrap();
    }
    let total: i64 = (0..3)
        .map(|i| counter(&t.get(Get::new(format!("c{i}"))).unwrap(), "f", "n").unwrap())
        .sum();
    assert_eq!(total, 2_000);
}
