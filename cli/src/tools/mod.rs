//! Operator tools: block file dump (`hfile`), consistency check (`verify`), TSV export/import
//! (`export-tsv`, `import-tsv`), backups (`backup`, `restore`). docs/TOOLS.md describes each one.
//!
//! Shared here: HBase's `Bytes.toStringBinary` escaping and its inverse, and the HBase-style
//! rendering of a cell key. The tools read the database's files through the engine's
//! inspection API ([`cellbase::inspect`]): in memory, without mapping or locking them.
pub mod backup;
pub mod hfile;
pub mod repair;
pub mod tsv;
pub mod verify;

use cellbase::inspect::CellKey;

/// HBase's `Bytes.toStringBinary` (the engine's [`cellbase::rowkey::to_string_binary`]).
pub use cellbase::rowkey::to_string_binary;

/// Appends one byte as `Bytes.toStringBinary` would; `also` is a further byte to escape (a TSV
/// separator that is printable).
pub(crate) fn push_binary_byte(s: &mut String, c: u8, also: Option<u8>) {
    if (0x20..=0x7E).contains(&c) && c != b'\\' && Some(c) != also {
        s.push(char::from(c));
    } else {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        s.push_str("\\x");
        s.push(char::from(HEX[usize::from(c >> 4)]));
        s.push(char::from(HEX[usize::from(c & 15)]));
    }
}

/// The strict inverse of [`to_string_binary`]: `\xHH` (either case) is one byte, any other
/// byte stands for itself; a backslash not starting a complete `\xHH` is an error (the
/// encoder never writes one), so damaged input is refused instead of guessed at.
pub fn from_string_binary(s: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let hex = |j: usize| s.get(j).and_then(|&h| char::from(h).to_digit(16));
        match (s.get(i + 1), hex(i + 2), hex(i + 3)) {
            (Some(b'x' | b'X'), Some(hi), Some(lo)) => {
                // hi, lo < 16: the byte fits.
                out.push((hi * 16 + lo) as u8);
                i += 4;
            }
            _ => return Err(format!("bad escape at byte {i} (expected \\xHH)")),
        }
    }
    Ok(out)
}

/// HBase's name of a cell type code (`KeyValue.Type`).
pub fn type_name(code: u8) -> String {
    match code {
        0 => "Minimum".into(),
        4 => "Put".into(),
        8 => "Delete".into(),
        10 => "DeleteFamilyVersion".into(),
        12 => "DeleteColumn".into(),
        14 => "DeleteFamily".into(),
        255 => "Maximum".into(),
        c => format!("UnknownType({c})"),
    }
}

/// An encoded cell key as HBase's `KeyValue.keyToString` writes it:
/// `row/family:qualifier/timestamp/Type/seqid=N` (binary-safe, [`CellKey`]'s `Display`), or
/// `(malformed key …)`.
pub fn key_to_string(key: &[u8]) -> String {
    match CellKey::decode(key) {
        Some(k) => k.to_string(),
        None => format!("(malformed key {})", to_string_binary(key)),
    }
}

/// The text of an engine error for a tool's `ERROR:` line: an I/O error's own message (those
/// of the inspection API name the file: "cannot read PATH: ..."), any other error as it
/// displays.
pub(crate) fn error_text(e: cellbase::Error) -> String {
    match e {
        cellbase::Error::Io(e) => e.to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_binary_matches_hbase_and_round_trips() {
        assert_eq!(to_string_binary(b"row-1"), "row-1");
        assert_eq!(
            to_string_binary(b"a\tb\\c\x00\xff~"),
            "a\\x09b\\x5Cc\\x00\\xFF~"
        );
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(
            from_string_binary(to_string_binary(&all).as_bytes()).unwrap(),
            all
        );
        assert_eq!(from_string_binary(b"\\xfe\\X0A").unwrap(), vec![0xfe, 0x0a]);
        for bad in [&b"\\"[..], b"\\x", b"\\x1", b"\\xg0", b"a\\nb"] {
            assert!(from_string_binary(bad).is_err(), "{bad:?}");
        }
        let mut s = String::new();
        push_binary_byte(&mut s, b',', Some(b','));
        assert_eq!(s, "\\x2C");
    }

    #[test]
    fn keys_render_like_hbase() {
        let k = CellKey {
            row: b"r\x01".to_vec(),
            family: b"f".to_vec(),
            qualifier: b"q".to_vec(),
            timestamp: 42,
            type_code: 12,
            seq: 7,
        }
        .encode()
        .unwrap();
        assert_eq!(key_to_string(&k), "r\\x01/f:q/42/DeleteColumn/seqid=7");
        assert!(key_to_string(b"xx").starts_with("(malformed key"));
    }
}
