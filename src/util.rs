//! Small shared helpers.

/// HBase's `Bytes.toStringBinary`: printable ASCII as is, everything else as `\xNN` (upper-case
/// hex).
pub fn to_string_binary(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len());
    for &c in b {
        if (b' '..=b'~').contains(&c) && c != b'\\' {
            s.push(c as char);
        } else {
            s.push_str(&format!("\\x{c:02X}"));
        }
    }
    s
}

/// A seeded generator for randomized unit tests (printed seeds make failures replayable):
/// `next(n)` is uniform enough in `0..n` for test data. REQUIRES: `n > 0`.
#[cfg(test)]
pub(crate) fn test_rng(seed: u64) -> impl FnMut(u64) -> u64 {
    println!("seed {seed}");
    let mut s = seed;
    move |n: u64| {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 33) % n
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn string_binary() {
        assert_eq!(super::to_string_binary(b"a\x00\xff~"), "a\\x00\\xFF~");
    }
}
