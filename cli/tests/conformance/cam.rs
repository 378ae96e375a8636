//! CheckAndMutate ([CAM-1]..[CAM-5]).

use crate::*;

/// [CAM-2] The operator reads `expected OP stored`.
pub fn check_and_mutate_compares_expected_op_stored(b: &Backend) {
    let t = b.table(1);
    t.put(Put::new("r").add("f", "q", "5")).unwrap();
    // expected "3" < stored "5": true.
    let ok = t
        .check_and_mutate(
            CheckAndMutate::new("r")
                .if_compare("f", "q", CompareOp::Less, "3")
                .then_put(Put::new("r").add("f", "a", "1")),
        )
        .unwrap();
    assert!(ok);
    // expected "7" < stored "5": false, nothing applied.
    let ok = t
        .check_and_mutate(
            CheckAndMutate::new("r")
                .if_compare("f", "q", CompareOp::Less, "7")
                .then_put(Put::new("r").add("f", "b", "1")),
        )
        .unwrap();
    assert!(!ok);
    let r = t.get(Get::new("r")).unwrap();
    assert!(r.value("f", "a").is_some() && r.value("f", "b").is_none());
    assert!(
        t.check_and_mutate(
            CheckAndMutate::new("r")
                .if_equals("f", "q", "5")
                .then_put(Put::new("r").add("f", "q", "6"))
        )
        .unwrap()
    );
    assert_eq!(
        t.get(Get::new("r")).unwrap().value("f", "q"),
        Some(&b"6"[..])
    );
}

/// [CAM-3] An empty expected value matches a missing cell (`ifNotExists`).
pub fn missing_or_empty_expected_value(b: &Backend) {
    let t = b.table(1);
    let put = || Put::new("r").add("f", "q", "v");
    assert!(
        t.check_and_mutate(CheckAndMutate::new("r").if_absent("f", "q").then_put(put()))
            .unwrap()
    );
    assert!(
        !t.check_and_mutate(CheckAndMutate::new("r").if_absent("f", "q").then_put(put()))
            .unwrap()
    );
}

/// [CAM-1] A successful check applies every mutation of the list: puts and deletes.
pub fn check_and_delete_and_mutation_lists(b: &Backend) {
    let t = b.table(1);
    t.put(Put::new("r").add("f", "q", "v").add("f", "x", "gone"))
        .unwrap();
    let ok = t
        .check_and_mutate(
            CheckAndMutate::new("r")
                .if_equals("f", "q", "v")
                .then_delete(Delete::new("r").all_versions("f", "x"))
                .then_put(Put::new("r").add("f", "y", "new")),
        )
        .unwrap();
    assert!(ok);
    let r = t.get(Get::new("r")).unwrap();
    assert!(r.value("f", "x").is_none());
    assert_eq!(r.value("f", "y"), Some(&b"new"[..]));
}
