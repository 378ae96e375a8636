//! Increment and Append ([INC-1]..[INC-5], [APP-1]).

use crate::*;

fn long(r: &RowResult, q: &str) -> i64 {
    i64::from_be_bytes(r.value("f", q).unwrap().try_into().unwrap())
}

/// [INC-1] [INC-5] A missing counter starts at 0; several columns at once; the result holds
/// the new values.
pub fn increment_creates_adds_and_returns_new_values(b: &Backend) {
    let t = b.table(1);
    let r = t.increment(Increment::new("r").add("f", "a", 5)).unwrap();
    assert_eq!(long(&r, "a"), 5);
    let r = t
        .increment(Increment::new("r").add("f", "a", -2).add("f", "b", 10))
        .unwrap();
    assert_eq!((long(&r, "a"), long(&r, "b")), (3, 10));
    let stored = t.get(Get::new("r")).unwrap();
    assert_eq!((long(&stored, "a"), long(&stored, "b")), (3, 10));
}

/// [INC-3] Incrementing a value that is not 8 bytes wide fails and changes nothing.
pub fn increment_of_a_non_counter_fails(b: &Backend) {
    let t = b.table(1);
    t.put(Put::new("r").add("f", "a", "text")).unwrap();
    let e = t
        .increment(Increment::new("r").add("f", "a", 1))
        .unwrap_err();
    assert!(matches!(e, Error::NotACounter { .. }), "{e:?}");
    assert_eq!(
        t.get(Get::new("r")).unwrap().value("f", "a"),
        Some(&b"text"[..])
    );
}

/// [APP-1] Append concatenates to the latest value; a missing cell starts empty.
pub fn append_concatenates(b: &Backend) {
    let t = b.table(1);
    let r = t.append(Append::new("r").add("f", "a", "ab")).unwrap();
    assert_eq!(r.value("f", "a"), Some(&b"ab"[..]));
    let r = t
        .append(Append::new("r").add("f", "a", "cd").add("f", "b", "x"))
        .unwrap();
    assert_eq!(r.value("f", "a"), Some(&b"abcd"[..]));
    assert_eq!(r.value("f", "b"), Some(&b"x"[..]));
}
