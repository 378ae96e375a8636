//! The payload of a WAL mutation entry (docs/FORMAT.md section 3.3): one row's cells for one
//! table, encoded once by the write path straight into the log's buffer and decoded by replay
//! and by the inspection API.

use crate::base::codec::{self, Reader};
use crate::model::key::KeyRef;
use crate::model::mutation::NewCell;
use crate::model::payload;

/// Version byte of the WAL mutation entries written now (docs/FORMAT.md section 3.3): the row
/// and sequence id once per entry, then each cell's family, qualifier, timestamp, type and
/// payload.
pub const ENTRY_VERSION: u8 = 2;
/// Version byte of the first entry format (every cell as a full key and payload), still
/// replayed.
pub const ENTRY_VERSION_1: u8 = 1;
/// Appends a WAL entry (version 2) to `out`:
/// `version u8 | table_id varint | row bytes | n varint | (family bytes, qualifier bytes,
/// ts i64, type u8, payload bytes)×n` (bytes = varint length + bytes). The sequence id is the
/// record's (replay gives every cell's key the record's sequence id).
pub fn encode_entry_into(out: &mut Vec<u8>, table_id: u64, row: &[u8], cells: &[NewCell]) {
    out.push(ENTRY_VERSION);
    codec::put_varint(out, table_id);
    codec::put_bytes(out, row);
    codec::put_varint(out, cells.len() as u64);
    for c in cells {
        codec::put_bytes(out, c.family);
        codec::put_bytes(out, c.qualifier);
        codec::put_i64(out, c.ts);
        out.push(c.type_code);
        codec::put_varint(out, c.payload_len() as u64);
        payload::encode_into(out, c.ttl_ms, c.value);
    }
}

/// Upper bound of the bytes [`encode_entry_into`] appends.
pub fn entry_len_bound(row: &[u8], cells: &[NewCell]) -> usize {
    1 + 10
        + 10
        + row.len()
        + 10
        + cells
            .iter()
            .map(|c| 10 + c.family.len() + 10 + c.qualifier.len() + 9 + 10 + c.payload_len())
            .sum::<usize>()
}

/// One cell of a decoded WAL entry.
pub type EntryCell<'a> = (KeyRef<'a>, payload::PayloadRef<'a>);

/// Decodes the header of a WAL entry: its version and table id.
pub fn decode_entry_header(r: &mut Reader<'_>) -> std::result::Result<(u8, u64), String> {
    let err = |e: codec::DecodeError| format!("{} at entry offset {}", e.what, e.offset);
    let version = r.u8("entry version").map_err(err)?;
    if version != ENTRY_VERSION && version != ENTRY_VERSION_1 {
        return Err("unknown entry version".into());
    }
    Ok((version, r.varint("table id").map_err(err)?))
}

/// Decodes the cells of a WAL entry (after [`decode_entry_header`]) with sequence id `seq`
/// into `out`, checking every key and payload.
///
/// # Errors
/// A message naming what is damaged: the cell's index and what is wrong with it, or the
/// offset inside the entry where it ends early.
pub fn decode_entry_cells<'a>(
    r: &mut Reader<'a>,
    version: u8,
    seq: u64,
    out: &mut Vec<EntryCell<'a>>,
) -> std::result::Result<(), String> {
    let err = |e: codec::DecodeError| format!("{} at entry offset {}", e.what, e.offset);
    let row = if version == ENTRY_VERSION {
        let row = r.bytes("row").map_err(err)?;
        if row.len() > u16::MAX as usize {
            return Err(format!("row of {} bytes", row.len()));
        }
        row
    } else {
        &[]
    };
    let n = r.len(r.remaining(), "cell count").map_err(err)?;
    for i in 0..n {
        let k = if version == ENTRY_VERSION {
            let family = r.bytes("family").map_err(err)?;
            let qualifier = r.bytes("qualifier").map_err(err)?;
            let ts = r.i64("timestamp").map_err(err)?;
            let type_code = r.u8("type").map_err(err)?;
            if family.len() > u8::MAX as usize {
                return Err(format!("cell {i}: family of {} bytes", family.len()));
            }
            KeyRef {
                row,
                family,
                qualifier,
                ts,
                type_code,
                seq,
            }
        } else {
            KeyRef::parse(r.bytes("key").map_err(err)?)
                .ok_or_else(|| format!("cell {i}: malformed key"))?
        };
        let p = payload::PayloadRef::parse(r.bytes("payload").map_err(err)?)
            .ok_or_else(|| format!("cell {i}: malformed payload"))?;
        if k.cell_type().is_none() {
            return Err(format!("cell {i}: unknown cell type code {}", k.type_code));
        }
        if k.seq != seq {
            return Err(format!(
                "cell {i}: sequence id {} differs from the entry's {seq}",
                k.seq
            ));
        }
        out.push((k, p));
    }
    Ok(())
}

/// Decodes a whole entry with sequence id `seq`: its table id and cells, every key and payload
/// checked, every cell of one row (as the write path logs a row's mutation), no bytes after
/// the last cell.
///
/// # Errors
/// A message naming what is damaged and the offset inside the entry.
pub fn decode_entry(
    entry: &[u8],
    seq: u64,
) -> std::result::Result<(u64, Vec<EntryCell<'_>>), String> {
    let mut r = Reader::new(entry);
    let (version, table_id) = decode_entry_header(&mut r)?;
    let mut out = Vec::new();
    decode_entry_cells(&mut r, version, seq, &mut out)?;
    if let Some(i) = out.iter().position(|(k, _)| k.row != out[0].0.row) {
        return Err(format!("cell {i}: row differs from the entry's first cell"));
    }
    if !r.is_empty() {
        return Err(format!("{} trailing bytes", r.remaining()));
    }
    Ok((table_id, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CellType;

    fn cells() -> Vec<NewCell<'static>> {
        vec![
            NewCell {
                family: b"family",
                qualifier: b"field0",
                ts: 1_700_000_000_000,
                type_code: CellType::Put.code(),
                ttl_ms: None,
                value: b"v0",
            },
            NewCell {
                family: b"f",
                qualifier: b"",
                ts: 7,
                type_code: CellType::DeleteFamily.code(),
                ttl_ms: None,
                value: b"",
            },
            NewCell {
                family: b"family",
                qualifier: b"field1",
                ts: 0,
                type_code: CellType::Put.code(),
                ttl_ms: Some(60_000),
                value: &[0u8; 300],
            },
        ]
    }

    /// The version 1 entry (every cell a full key and payload), as written before version 2.
    fn encode_v1(table_id: u64, row: &[u8], seq: u64, cells: &[NewCell]) -> Vec<u8> {
        let mut out = vec![ENTRY_VERSION_1];
        codec::put_varint(&mut out, table_id);
        codec::put_varint(&mut out, cells.len() as u64);
        for c in cells {
            codec::put_bytes(&mut out, &c.key(row, seq).encode());
            codec::put_bytes(&mut out, &payload::encode(c.ttl_ms, c.value));
        }
        out
    }

    fn decode(entry: &[u8], seq: u64) -> std::result::Result<(u64, Vec<EntryCell<'_>>), String> {
        decode_entry(entry, seq)
    }

    /// Version 2 entries and the version 1 entries of older logs decode to the same cells.
    #[test]
    fn entry_versions_decode_to_the_same_cells() {
        let (row, seq) = (&b"user1234567890123456789"[..], 42);
        let cs = cells();
        let mut v2 = Vec::new();
        encode_entry_into(&mut v2, 7, row, &cs);
        assert!(v2.len() <= entry_len_bound(row, &cs));
        let v1 = encode_v1(7, row, seq, &cs);
        assert!(v2.len() < v1.len());
        let expected: Vec<EntryCell> = cs
            .iter()
            .map(|c| {
                (
                    c.key(row, seq),
                    payload::PayloadRef {
                        ttl_ms: c.ttl_ms,
                        value: c.value,
                    },
                )
            })
            .collect();
        assert_eq!(decode(&v2, seq).unwrap(), (7, expected.clone()));
        assert_eq!(decode(&v1, seq).unwrap(), (7, expected));
        // A version 1 key with another sequence id is malformed.
        assert!(decode(&v1, seq + 1).is_err());
    }

    /// The sizes docs/FORMAT.md gives for a YCSB record.
    #[test]
    fn ycsb_record_entry_sizes() {
        let row = b"user1234567890123456789";
        let quals: Vec<String> = (0..10).map(|i| format!("field{i}")).collect();
        let cs: Vec<NewCell> = quals
            .iter()
            .map(|q| NewCell {
                family: b"family",
                qualifier: q.as_bytes(),
                ts: 1_700_000_000_000,
                type_code: CellType::Put.code(),
                ttl_ms: None,
                value: &[7u8; 100],
            })
            .collect();
        let mut v2 = Vec::new();
        encode_entry_into(&mut v2, 1, row, &cs);
        assert_eq!(v2.len(), 1277);
        assert_eq!(encode_v1(1, row, 5, &cs).len(), 1583);
    }

    /// What is wrong with a damaged entry is named: a cell logged with another sequence id
    /// than its entry's, bytes after the last cell, an entry cut short.
    #[test]
    fn entries_decode_and_damage_is_named() {
        let key = KeyRef {
            row: b"r",
            family: b"f",
            qualifier: b"q",
            ts: 1,
            type_code: 4,
            seq: 9,
        }
        .encode();
        let mut e = vec![ENTRY_VERSION_1];
        codec::put_varint(&mut e, 3);
        codec::put_varint(&mut e, 1);
        codec::put_bytes(&mut e, &key);
        codec::put_bytes(&mut e, &payload::encode(None, b"v"));
        assert_eq!(decode(&e, 9).map(|(t, c)| (t, c.len())), Ok((3, 1)));
        assert!(decode(&e, 8).unwrap_err().contains("sequence id"));
        let mut trailing = e.clone();
        trailing.push(0);
        assert!(decode(&trailing, 9).is_err());
        assert!(decode(&e[..e.len() - 1], 9).is_err());
        // A version 1 entry whose cells are of two rows is not a row's mutation.
        let other = KeyRef {
            row: b"s",
            ..KeyRef::parse(&key).unwrap()
        }
        .encode();
        let mut two = vec![ENTRY_VERSION_1];
        codec::put_varint(&mut two, 3);
        codec::put_varint(&mut two, 2);
        for k in [&key, &other] {
            codec::put_bytes(&mut two, k);
            codec::put_bytes(&mut two, &payload::encode(None, b"v"));
        }
        assert!(decode(&two, 9).unwrap_err().contains("row differs"));
    }

    /// Damaged entries are errors, never panics: every truncation, an unknown version, a bad
    /// cell type.
    #[test]
    fn damaged_entries_are_errors() {
        let (row, seq) = (&b"r"[..], 1);
        let mut v2 = Vec::new();
        encode_entry_into(&mut v2, 1, row, &cells());
        for n in 0..v2.len() {
            assert!(decode(&v2[..n], seq).is_err(), "truncated to {n}");
        }
        let mut bad = v2.clone();
        bad[0] = 3;
        assert_eq!(decode(&bad, seq).unwrap_err(), "unknown entry version");
        // The first cell's type byte: after version, table id, row, count, family, qualifier, ts.
        let type_at = 1 + 1 + 2 + 1 + 7 + 7 + 8;
        assert_eq!(v2[type_at], CellType::Put.code());
        let mut bad = v2;
        bad[type_at] = 0xEE;
        assert!(decode(&bad, seq).is_err());
    }
}
