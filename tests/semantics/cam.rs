//! CheckAndMutate [CAM-1..5] and its atomicity under concurrency [ATOM-1].

use super::*;
use std::sync::Arc;

/// [CAM-2] the operator reads `expected OP stored` — the opposite of filters [FLT-1].
#[test]
fn compare_direction_is_expected_op_stored() {
    let (_db, t, _) = setup(1_000, 3);
    t.put(Put::new("r").add("f", "q", "bbbb")).unwrap();
    let try_op = |op, v: &str| {
        t.check_and_mutate(
            CheckAndMutate::new("r")
                .if_compare("f", "q", op, v)
                .then_put(Put::new("r").add("f", "hit", "1")),
        )
        .unwrap()
    };
    assert!(try_op(CompareOp::Less, "aaaa"), "aaaa < bbbb");
    assert!(!try_op(CompareOp::Greater, "aaaa"));
    assert!(try_op(CompareOp::Greater, "cccc"));
    assert!(try_op(CompareOp::Equal, "bbbb"));
    assert!(try_op(CompareOp::NotEqual, "bbbc"));
    assert!(try_op(CompareOp::LessOrEqual, "bbbb") && try_op(CompareOp::GreaterOrEqual, "bbbb"));
}

/// [CAM-3] empty expected values: missing matches unless NotEqual; an existing cell matches iff
/// its emptiness agrees; a non-empty expected value never matches a missing cell.
#[test]
fn empty_and_missing_rules() {
    let (_db, t, _) = setup(1_000, 3);
    let put = || Put::new("r").add("f", "x", "1");
    assert!(
        t.check_and_mutate(CheckAndMutate::new("r").if_absent("f", "q").then_put(put()))
            .unwrap()
    );
    assert!(
        !t.check_and_mutate(
            CheckAndMutate::new("r")
                .if_compare("f", "q", CompareOp::NotEqual, "")
                .then_put(put())
        )
        .unwrap()
    );
    assert!(
        !t.check_and_mutate(
            CheckAndMutate::new("r")
                .if_compare("f", "q", CompareOp::NotEqual, "v")
                .then_put(put())
        )
        .unwrap()
    );
    t.put(Put::new("r").add("f", "e", "")).unwrap();
    assert!(
        t.check_and_mutate(
            CheckAndMutate::new("r")
                .if_equals("f", "e", "")
                .then_put(put())
        )
        .unwrap(),
        "empty value matches empty"
    );
    t.put(Put::new("r").add("f", "q", "v")).unwrap();
    assert!(
        !t.check_and_mutate(CheckAndMutate::new("r").if_absent("f", "q").then_put(put()))
            .unwrap()
    );
    assert!(
        t.check_and_mutate(
            CheckAndMutate::new("r")
                .if_compare("f", "q", CompareOp::NotEqual, "")
                .then_put(put())
        )
        .unwrap()
    );
}

/// [CAM-1] all conditions must hold; the put and delete apply together; [CAM-4] a put without a
/// timestamp is stamped at least at the checked cell's timestamp; [CAM-5] actions on another
/// row are rejected.
#[test]
fn conditions_actions_and_timestamps() {
    let (_db, t, _) = setup(1_000, 3);
    t.put(
        Put::new("r")
            .add_at("f", "q", 5_000, "old")
            .add("f", "gone", "x"),
    )
    .unwrap();
    let applied = t
        .check_and_mutate(
            CheckAndMutate::new("r")
                .if_equals("f", "q", "old")
                .if_absent("f", "nothing")
                .then_put(Put::new("r").add("f", "q", "new"))
                .then_delete(Delete::new("r").all_versions("f", "gone")),
        )
        .unwrap();
    assert!(applied);
    let r = t.get(Get::new("r")).unwrap();
    assert_eq!(
        (r.value("f", "q"), r.value("f", "gone")),
        (Some(&b"new"[..]), None)
    );
    assert_eq!(
        r.cells()[0].timestamp(),
        5_000,
        "max(now = 1000, checked ts = 5000)"
    );
    let failed = t
        .check_and_mutate(
            CheckAndMutate::new("r")
                .if_equals("f", "q", "old")
                .if_absent("f", "nothing")
                .then_put(Put::new("r").add("f", "z", "1")),
        )
        .unwrap();
    assert!(!failed && t.get(Get::new("r").column("f", "z")).unwrap().is_empty());
    let other = t.check_and_mutate(
        CheckAndMutate::new("r")
            .if_absent("f", "z")
            .then_put(Put::new("s").add("f", "z", "1")),
    );
    assert!(matches!(other, Err(Error::InvalidArgument(_))));
    let fam = t.check_and_mutate(
        CheckAndMutate::new("r")
            .if_absent("nope", "z")
            .then_put(Put::new("r").add("f", "z", "1")),
    );
    assert!(matches!(fam, Err(Error::NoSuchFamily { .. })));
}

/// [ATOM-1] [CAM-1] threads doing compare-and-set increments on the same rows never lose an
/// update.
#[test]
fn concurrent_check_and_mutate_loses_no_update() {
    let db = Db::temporary_with(
        DbOptions::default()
            .background_threads(1)
            .memstore_flush_size(16 << 10),
    )
    .unwrap();
    let t = Arc::new(
        db.create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))
            .unwrap(),
    );
    for r in 0..2 {
        t.put(Put::new(format!("r{r}")).add("f", "n", 0u64.to_be_bytes()))
            .unwrap();
    }
    let threads: Vec<_> = (0..4)
        .map(|w| {
            let t = t.clone();
            std::thread::spawn(move || {
                for i in 0..150 {
                    let row = format!("r{}", (i + w) % 2);
                    loop {
                        let cur = t
                            .get(Get::new(&row))
                            .unwrap()
                            .value("f", "n")
                            .unwrap()
                            .to_vec();
                        let next =
                            (u64::from_be_bytes(cur.clone().try_into().unwrap()) + 1).to_be_bytes();
                        if t.check_and_mutate(
                            CheckAndMutate::new(&row)
                                .if_equals("f", "n", &cur)
                                .then_put(Put::new(&row).add("f", "n", next)),
                        )
                        .unwrap()
                        {
                            break;
                        }
                    }
                }
            })
        })
        .collect();
    for h in threads {
        h.join().unwrap();
    }
    let total: u64 = (0..2)
        .map(|r| {
            u64::from_be_bytes(
                t.get(Get::new(format!("r{r}")))
                    .unwrap()
                    .value("f", "n")
                    .unwrap()
                    .try_into()
                    .unwrap(),
            )
        })
        .sum();
    assert_eq!(total, 600);
}
