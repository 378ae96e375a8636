//! The write path: validation [LIM-1..6] [TS-2], timestamp assignment (one `now` per
//! mutation [TS-1]), sequence ids, the WAL, the memstore, and MVCC publication [ATOM-1].
//!
//! Steps of one row mutation (docs/ARCHITECTURE.md has the full version): validate; take the
//! row lock; resolve "latest version" deletes [DEL-6]; take the region's update lock (shared);
//! take a sequence id; append to the WAL with the mutation's durability (group commit); insert
//! into the memstore; complete the sequence id (readers see the whole mutation at once);
//! release; maybe flush.

use crate::codec::{self, Reader};
use crate::db::DbInner;
use crate::error::{Error, Result};
use crate::memstore::MemStore;
use crate::model::key::KeyRef;
use crate::model::payload;
use crate::model::schema::TableDescriptor;
use crate::options::Durability;
use crate::region::Region;
use crate::table::TableShared;
use crate::wal::WalSync;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// Version byte of a WAL mutation entry.
const ENTRY_VERSION: u8 = 1;
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

/// Appends a WAL entry to `out`:
/// `version u8 | table_id varint | n varint | (key bytes, payload bytes)×n` (bytes = varint
/// length + bytes), every key carrying sequence id `seq`.
fn encode_entry_into(out: &mut Vec<u8>, table_id: u64, row: &[u8], seq: u64, cells: &[NewCell]) {
    out.push(ENTRY_VERSION);
    codec::put_varint(out, table_id);
    codec::put_varint(out, cells.len() as u64);
    for c in cells {
        let k = c.key(row, seq);
        codec::put_varint(out, k.encoded_len() as u64);
        k.encode_into(out);
        codec::put_varint(out, c.payload_len() as u64);
        payload::encode_into(out, c.ttl_ms, c.value);
    }
}

/// Upper bound of the bytes [`encode_entry_into`] appends.
fn entry_len_bound(row: &[u8], cells: &[NewCell]) -> usize {
    1 + 10
        + 10
        + cells
            .iter()
            .map(|c| c.key(row, 0).encoded_len() + c.payload_len() + 20)
            .sum::<usize>()
}

/// Replays one WAL entry into the memstores of `tables` (by table id); records of dropped
/// tables and records already in files are skipped.
pub(crate) fn replay_entry(
    tables: &BTreeMap<u64, Arc<TableShared>>,
    seq: u64,
    payload: &[u8],
) -> std::result::Result<(), String> {
    let mut r = Reader::new(payload);
    let err = |e: codec::DecodeError| format!("{} at entry offset {}", e.what, e.offset);
    if r.u8("entry version").map_err(err)? != ENTRY_VERSION {
        return Err("unknown entry version".into());
    }
    let table_id = r.varint("table id").map_err(err)?;
    let n = r.len(r.remaining(), "cell count").map_err(err)?;
    let Some(table) = tables.get(&table_id) else {
        return Ok(());
    };
    // Every cell of an entry has the entry's row: route once.
    let mut target: Option<Arc<MemStore>> = None;
    for i in 0..n {
        let key = r.bytes("key").map_err(err)?;
        let payload = r.bytes("payload").map_err(err)?;
        let k = KeyRef::parse(key).ok_or("malformed key")?;
        if k.seq != seq || k.cell_type().is_none() || payload::PayloadRef::parse(payload).is_none()
        {
            return Err("malformed cell".into());
        }
        if i == 0 {
            let region = table.region_for(k.row);
            if seq <= region.flushed_seq.load(Ordering::Acquire) {
                return Ok(()); // already in the region's files
            }
            target = Some(region.current().active.clone());
        }
        if let Some(mem) = &target {
            mem.insert(key, payload);
        }
    }
    Ok(())
}

impl DbInner {
    /// Applies one row mutation's cells atomically; `Ok(false)` (nothing written) when the
    /// region was retired by a split or merge and the caller must route the row again.
    /// REQUIRES: the caller holds the row lock and validated the cells.
    ///
    /// A logged mutation takes its sequence id inside the WAL's append lock, so the log holds
    /// entries in sequence-id order: when a group commit's `fdatasync` covers an entry, it
    /// covers every lower sequence id that was logged, and [`crate::memstore::Mvcc::complete`]
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
        let seq = match wal_sync(durability) {
            None => self.mvcc.begin(),
            Some(sync) => {
                let bound = entry_len_bound(row, cells);
                let mut taken = None;
                let res = self.wal.append_with(bound, sync, |buf| {
                    let seq = self.mvcc.begin();
                    taken = Some(seq);
                    encode_entry_into(buf, table.id, row, seq, cells);
                    seq
                });
                match res {
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
        debug_assert!(region.contains(row), "row routed outside its region");
        let active = region.current().active.clone();
        active.insert_cells(cells.iter().map(|c| (c.key(row, seq), c.ttl_ms, c.value)));
        self.mvcc.complete(seq);
        region.write_requests.fetch_add(1, Ordering::Relaxed);
        Ok(true)
    }
}
