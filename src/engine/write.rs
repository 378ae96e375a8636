//! The write path: validation [LIM-1..6] [TS-2], timestamp assignment (one `now` per
//! mutation [TS-1]), sequence ids, the WAL, the memstore, and MVCC publication [ATOM-1].
//!
//! Steps of one row mutation (docs/ARCHITECTURE.md has the full version): validate; take the
//! row lock; resolve "latest version" deletes [DEL-6]; take the region's update lock (shared);
//! take a sequence id; append to the WAL with the mutation's durability (group commit); insert
//! into the memstore; complete the sequence id (readers see the whole mutation at once);
//! release; maybe flush.

use crate::base::codec::Reader;
use crate::base::error::Result;
use crate::engine::Engine;
use crate::engine::background_errors::BgKind;
use crate::engine::options::Durability;
use crate::engine::region::Region;
use crate::engine::table::TableShared;
use crate::model::mutation::{NewCell, check_qualifier};
use crate::storage::wal::WalSync;
use crate::storage::wal::entry::{
    decode_entry_cells, decode_entry_header, encode_entry_into, entry_len_bound,
};
use std::collections::BTreeMap;
use std::sync::Arc;

fn wal_sync(d: Durability) -> Option<WalSync> {
    match d {
        Durability::SkipWal => None,
        Durability::AsyncWal => Some(WalSync::Buffered),
        Durability::SyncWal => Some(WalSync::Write),
        Durability::FsyncWal => Some(WalSync::Fsync),
    }
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
    if seq <= region.flushed_seq() {
        return Ok(None); // already in the region's files
    }
    let mem = region.active();
    mem.insert_cells(cells.iter().map(|(k, p)| (*k, p.ttl_ms, p.value)));
    Ok(Some((table, region)))
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
            // Back-pressure before the write [REG-2]: a writer that finds the region or all
            // memstores at their blocking bound waits, and gets the error of the flush it runs
            // itself when the background flushes do not relieve it (see `pressure.rs`).
            self.check_resources(table, &region)?;
            let done = {
                let _row = region.lock_row(row);
                op(&region)?
            };
            match done {
                Some(v) => {
                    // The mutation is applied and logged: a failing flush afterwards does not
                    // make it an error (HBase never fails a put for a flush). The snapshot stays
                    // readable and the next write or flush retries; the failure is logged and
                    // counted (`Db::background_errors`), and the next writer that finds the
                    // region at its bound gets it as an error (`check_resources`).
                    if let Err(e) = self.maybe_flush(table, &region) {
                        self.note_background_error(
                            BgKind::Flush,
                            &format!("table '{}' region {}", table.name, region.id()),
                            &e,
                        );
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
    /// covers every lower sequence id that was logged, and [`Mvcc::complete`](crate::engine::mvcc::Mvcc::complete)
    /// waits only for those writers' memstore inserts, never for a later sync.
    pub(crate) fn apply(
        &self,
        table: &TableShared,
        region: &Region,
        row: &[u8],
        cells: &[NewCell],
        durability: Option<Durability>,
    ) -> Result<bool> {
        // The mutation's own, else the table's DURABILITY, else the database's.
        let durability = durability
            .or_else(|| table.durability())
            .unwrap_or(self.opts.durability);
        for c in cells {
            check_qualifier(c.qualifier)?;
        }
        let Some(_updates) = region.begin_write() else {
            return Ok(false);
        };
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
                let res = self.wal.append_with(bound, sync, entry);
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
        let active = region.active();
        active.insert_cells(cells.iter().map(|c| (c.key(row, seq), c.ttl_ms, c.value)));
        self.mvcc.complete(seq);
        self.count_write(table, region);
        Ok(true)
    }
}
