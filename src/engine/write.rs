//! The write path: validation [LIM-1..6] [TS-2], timestamp assignment (one `now` per
//! mutation [TS-1]), sequence ids, the WAL, the memstore, and MVCC publication [ATOM-1].
//!
//! Steps of one row mutation (docs/ARCHITECTURE.md has the full version): validate; take the
//! row lock; resolve "latest version" deletes [DEL-6]; take the region's update lock (shared);
//! take a sequence id; append to the WAL with the mutation's durability (group commit); insert
//! into the memstore; complete the sequence id (readers see the whole mutation at once);
//! release; maybe flush.

use crate::base::codec::{self, Reader};
use crate::base::error::{Error, Result};
use crate::engine::Engine;
use crate::engine::mvcc::Mvcc;
use crate::engine::options::Durability;
use crate::engine::region::Region;
use crate::engine::table::TableShared;
use crate::model::key::KeyRef;
use crate::model::payload;
use crate::model::schema::TableDescriptor;
use crate::storage::memstore::MemStore;
use crate::storage::wal::ApplyJob;
use crate::storage::wal::WalSync;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// Version byte of the WAL mutation entries written now (docs/FORMAT.md section 3.3): the row
/// and sequence id once per entry, then each cell's family, qualifier, timestamp, type and
/// payload.
const ENTRY_VERSION: u8 = 2;
/// Version byte of the first entry format (every cell as a full key and payload), still
/// replayed.
const ENTRY_VERSION_1: u8 = 1;
/// Longest row key [LIM-1].
pub(crate) const MAX_ROW_LEN: usize = 32767;

/// One cell about to be written (timestamps resolved, no sequence id yet). It borrows its
/// parts from the caller's mutation: the key and payload are encoded once, straight into the
/// WAL's buffer and into the memstore entry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NewCell<'a> {
    pub family: &'a [u8],
    pub qualifier: &'a [u8],
    pub ts: i64,
    pub type_code: u8,
    /// Per-cell TTL of the payload.
    pub ttl_ms: Option<u64>,
    pub value: &'a [u8],
}

impl NewCell<'_> {
    /// The cell's key with sequence id `seq`.
    pub(crate) fn key<'k>(&'k self, row: &'k [u8], seq: u64) -> KeyRef<'k> {
        KeyRef {
            row,
            family: self.family,
            qualifier: self.qualifier,
            ts: self.ts,
            type_code: self.type_code,
            seq,
        }
    }

    /// Bytes of the encoded payload ([`payload::encode_into`]).
    fn payload_len(&self) -> usize {
        payload::encoded_len(self.ttl_ms, self.value.len())
    }
}

/// Checks a row key [LIM-1].
pub(crate) fn check_row(row: &[u8]) -> Result<()> {
    if row.is_empty() {
        return Err(Error::invalid("row length is 0"));
    }
    if row.len() > MAX_ROW_LEN {
        return Err(Error::invalid(format!(
            "row length {} is > {MAX_ROW_LEN}",
            row.len()
        )));
    }
    Ok(())
}

/// Checks a timestamp given by the client [TS-2].
pub(crate) fn check_ts(ts: i64) -> Result<()> {
    if ts < 0 {
        return Err(Error::invalid(format!(
            "timestamp cannot be negative: ts={ts}"
        )));
    }
    Ok(())
}

/// Checks that `family` exists [LIM-6] [DEL-8].
pub(crate) fn check_family(desc: &TableDescriptor, family: &[u8]) -> Result<()> {
    if desc.get_family(family).is_none() {
        return Err(Error::NoSuchFamily {
            table: desc.name().to_string(),
            family: String::from_utf8_lossy(family).into_owned(),
        });
    }
    Ok(())
}

/// Checks HBase's serialized cell size against the limit [LIM-5].
pub(crate) fn check_cell_size(
    limit: u64,
    row: &[u8],
    family: &[u8],
    qualifier: &[u8],
    value: &[u8],
) -> Result<()> {
    let size = 20 + row.len() + family.len() + qualifier.len() + value.len();
    if limit > 0 && size as u64 > limit {
        return Err(Error::invalid(format!(
            "KeyValue size too large: cell of {size} bytes exceeds the limit of {limit} bytes"
        )));
    }
    Ok(())
}

fn wal_sync(d: Durability) -> Option<WalSync> {
    match d {
        Durability::SkipWal => None,
        Durability::AsyncWal => Some(WalSync::Buffered),
        Durability::SyncWal => Some(WalSync::Write),
        Durability::FsyncWal => Some(WalSync::Fsync),
    }
}

/// Appends a WAL entry (version 2) to `out`:
/// `version u8 | table_id varint | row bytes | n varint | (family bytes, qualifier bytes,
/// ts i64, type u8, payload bytes)×n` (bytes = varint length + bytes). The sequence id is the
/// record's (replay gives every cell's key the record's sequence id).
fn encode_entry_into(out: &mut Vec<u8>, table_id: u64, row: &[u8], cells: &[NewCell]) {
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
fn entry_len_bound(row: &[u8], cells: &[NewCell]) -> usize {
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
type EntryCell<'a> = (KeyRef<'a>, payload::PayloadRef<'a>);

/// Decodes the header of a WAL entry: its version and table id.
fn decode_entry_header(r: &mut Reader<'_>) -> std::result::Result<(u8, u64), String> {
    let err = |e: codec::DecodeError| format!("{} at entry offset {}", e.what, e.offset);
    let version = r.u8("entry version").map_err(err)?;
    if version != ENTRY_VERSION && version != ENTRY_VERSION_1 {
        return Err("unknown entry version".into());
    }
    Ok((version, r.varint("table id").map_err(err)?))
}

/// Decodes the cells of a WAL entry (after [`decode_entry_header`]) with sequence id `seq`
/// into `out`, checking every key and payload.
fn decode_entry_cells<'a>(
    r: &mut Reader<'a>,
    version: u8,
    seq: u64,
    out: &mut Vec<EntryCell<'a>>,
) -> std::result::Result<(), String> {
    let err = |e: codec::DecodeError| format!("{} at entry offset {}", e.what, e.offset);
    let row = if version == ENTRY_VERSION {
        let row = r.bytes("row").map_err(err)?;
        if row.len() > u16::MAX as usize {
            return Err("malformed cell".into());
        }
        row
    } else {
        &[]
    };
    let n = r.len(r.remaining(), "cell count").map_err(err)?;
    for _ in 0..n {
        let k = if version == ENTRY_VERSION {
            let family = r.bytes("family").map_err(err)?;
            let qualifier = r.bytes("qualifier").map_err(err)?;
            let ts = r.i64("timestamp").map_err(err)?;
            let type_code = r.u8("type").map_err(err)?;
            if family.len() > u8::MAX as usize {
                return Err("malformed cell".into());
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
            KeyRef::parse(r.bytes("key").map_err(err)?).ok_or("malformed key")?
        };
        let p = payload::PayloadRef::parse(r.bytes("payload").map_err(err)?);
        match p {
            Some(p) if k.seq == seq && k.cell_type().is_some() => out.push((k, p)),
            _ => return Err("malformed cell".into()),
        }
    }
    Ok(())
}

/// Replays one WAL entry into the memstores of `tables` (by table id); records of dropped
/// tables and records already in files are skipped. Returns the table and region whose
/// memstore took the entry.
pub(crate) fn replay_entry<'t>(
    tables: &'t BTreeMap<u64, Arc<TableShared>>,
    seq: u64,
    payload: &[u8],
) -> std::result::Result<Option<(&'t TableShared, Arc<Region>)>, String> {
    let mut r = Reader::new(payload);
    let (version, table_id) = decode_entry_header(&mut r)?;
    let Some(table) = tables.get(&table_id) else {
        return Ok(None);
    };
    let mut cells = Vec::new();
    decode_entry_cells(&mut r, version, seq, &mut cells)?;
    // Every cell of an entry has the entry's row: route once.
    let Some((first, _)) = cells.first() else {
        return Ok(None);
    };
    let region = table.region_for(first.row);
    if seq <= region.flushed_seq.load(Ordering::Acquire) {
        return Ok(None); // already in the region's files
    }
    let mem = region.current().active.clone();
    mem.insert_cells(cells.iter().map(|(k, p)| (*k, p.ttl_ms, p.value)));
    Ok(Some((table, region)))
}

/// Inserts a logged entry (its WAL payload, as [`encode_entry_into`] wrote it) into `mem` and
/// finishes its sequence id: the group commit leader's job for an FsyncWal writer.
fn apply_logged(mem: &MemStore, mvcc: &Mvcc, seq: u64, entry: &[u8]) {
    let mut r = Reader::new(entry);
    let mut cells = Vec::new();
    let res = decode_entry_header(&mut r)
        .and_then(|(version, _)| decode_entry_cells(&mut r, version, seq, &mut cells));
    // The entry was encoded by this process a moment ago: it always decodes.
    debug_assert!(res.is_ok(), "own WAL entry does not decode: {res:?}");
    if res.is_ok() {
        mem.insert_cells(cells.iter().map(|(k, p)| (*k, p.ttl_ms, p.value)));
    }
    mvcc.finish(seq);
}

impl Engine {
    /// Runs `op` under the row lock of the region holding `row`; `op` returns `None` when the
    /// region was retired by a split or merge meanwhile, and runs again on the new region. Then
    /// triggers a flush if one is due.
    pub(crate) fn with_row<T>(
        &self,
        table: &Arc<TableShared>,
        row: &[u8],
        mut op: impl FnMut(&Arc<Region>) -> Result<Option<T>>,
    ) -> Result<T> {
        loop {
            let region = table.region_for(row);
            let done = {
                let _row = region.lock_row(row);
                op(&region)?
            };
            match done {
                Some(v) => {
                    // The mutation is applied and logged: a failing flush afterwards does not
                    // make it an error (HBase never fails a put for a flush). The snapshot stays
                    // readable and the next write or flush retries.
                    if let Err(e) = self.maybe_flush(table, &region) {
                        *self.bg.last_error.lock() = Some(e.to_string());
                    }
                    return Ok(v);
                }
                // The split or merge installs the new regions shortly.
                None => std::thread::sleep(std::time::Duration::from_micros(200)),
            }
        }
    }

    /// Applies one row mutation's cells atomically; `Ok(false)` (nothing written) when the
    /// region was retired by a split or merge and the caller must route the row again.
    /// REQUIRES: the caller holds the row lock and validated the cells.
    ///
    /// A logged mutation takes its sequence id inside the WAL's append lock, so the log holds
    /// entries in sequence-id order: when a group commit's `fdatasync` covers an entry, it
    /// covers every lower sequence id that was logged, and [`crate::storage::memstore::Mvcc::complete`]
    /// waits only for those writers' memstore inserts, never for a later sync.
    pub(crate) fn apply(
        &self,
        table: &TableShared,
        region: &Region,
        row: &[u8],
        cells: &[NewCell],
        durability: Option<Durability>,
    ) -> Result<bool> {
        let durability = durability.unwrap_or(self.opts.durability);
        let _updates = region.updates.read();
        if region.is_retired() {
            return Ok(false);
        }
        debug_assert!(region.contains(row), "row routed outside its region");
        let seq = match wal_sync(durability) {
            None => self.mvcc.begin(),
            Some(sync) => {
                let bound = entry_len_bound(row, cells);
                let mut taken = None;
                let entry = |buf: &mut Vec<u8>| {
                    let seq = self.mvcc.begin();
                    taken = Some(seq);
                    encode_entry_into(buf, table.id, row, cells);
                    seq
                };
                let res = if sync == WalSync::Fsync {
                    // The group commit leader inserts the entry (decoded from the log's
                    // buffer) and publishes its sequence id once the batch is durable
                    // [ATOM-1]; this writer holds the update lock until then, so the active
                    // memstore is still this one.
                    let active = region.current().active.clone();
                    let mvcc = self.mvcc.clone();
                    let job: ApplyJob =
                        Box::new(move |seq, entry| apply_logged(&active, &mvcc, seq, entry));
                    self.wal.append_with_job(bound, entry, job).inspect(|&seq| {
                        // Applied by the leader: wait until readers see it (every lower
                        // sequence id is applied too), so the writer reads its own write.
                        self.mvcc.wait_visible(seq);
                    })
                } else {
                    self.wal.append_with(bound, sync, entry)
                };
                match res {
                    Ok(_) if sync == WalSync::Fsync => {
                        region.write_requests.fetch_add(1, Ordering::Relaxed);
                        return Ok(true);
                    }
                    Ok(seq) => seq,
                    Err(e) => {
                        // Nothing was inserted: publish the (empty) sequence id, if one was
                        // taken, so readers move on.
                        if let Some(seq) = taken {
                            self.mvcc.complete(seq);
                        }
                        return Err(e);
                    }
                }
            }
        };
        let active = region.current().active.clone();
        active.insert_cells(cells.iter().map(|c| (c.key(row, seq), c.ttl_ms, c.value)));
        self.mvcc.complete(seq);
        region.write_requests.fetch_add(1, Ordering::Relaxed);
        Ok(true)
    }
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
        let mut r = Reader::new(entry);
        let (version, table_id) = decode_entry_header(&mut r)?;
        let mut out = Vec::new();
        decode_entry_cells(&mut r, version, seq, &mut out)?;
        Ok((table_id, out))
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
