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

#[cfg(test)]
mod tests {
    #[test]
    fn string_binary() {
        assert_eq!(super::to_string_binary(b"a\x00\xff~"), "a\\x00\\xFF~");
    }
}
