//! Table snapshots (HBase's `snapshot`, `list_snapshots`, `clone_snapshot`,
//! `restore_snapshot`, `delete_snapshot`): a snapshot is a manifest record of a table's
//! schema, regions and block files, taken at one moment; its files stay while any table or
//! snapshot lists them. No data is copied: block files never change once written.
//!
//! A snapshot is point in time for the whole table: with the table's structure lock (no split
//! or merge) and every region's flush lock held, all regions' writers are kept out at once
//! while their memstores are swapped, so the cut is one moment; the swapped memstores are
//! written to files and the snapshot lists the files then. A clone is a new table listing the
//! snapshot's files (files written for another table: the manifest records their origin, so
//! the open's identity check accepts them); a restore replaces a disabled table's regions
//! with the snapshot's, or re-creates a dropped table, and leaves it disabled (HBase's rule).

use super::Engine;
use crate::base::error::{Error, Result};
use crate::engine::region::{Region, StoreFile, sort_newest_first};
use crate::engine::table::TableShared;
use crate::storage::manifest::{Edit, FileRef, RegionDef, SnapshotDef};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A snapshot, from [`Db::list_snapshots`](crate::Db::list_snapshots).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SnapshotInfo {
    /// The snapshot's name.
    pub name: String,
    /// The table it was taken of.
    pub table: String,
    /// When it was taken (the database clock, ms since the epoch).
    pub created_ms: i64,
    /// Its regions.
    pub regions: u64,
    /// Its block files and their bytes.
    pub files: u64,
    /// Bytes of its block files.
    pub bytes: u64,
}

/// HBase's rule for snapshot names (a legal table qualifier): letters, digits, `_`, `-` and
/// `.`, not starting with `.` or `-`.
fn check_snapshot_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && !name.starts_with('-')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "Illegal snapshot name '{name}': only word characters, '-' and '.' are allowed, \
             and it may not start with '.' or '-'"
        )))
    }
}

impl Engine {
    /// Takes snapshot `name` of `table`.
    pub(crate) fn snapshot(&self, table: &str, name: &str) -> Result<()> {
        self.check_open()?;
        check_snapshot_name(name)?;
        let t = self.table_shared(table)?;
        if self.manifest.lock().state().snapshots.contains_key(name) {
            return Err(Error::SnapshotExists(name.to_string()));
        }
        let _structure = t.structure_guard();
        if t.is_dropped() {
            return Err(Error::TableNotFound(table.to_string()));
        }
        let regions = t.region_list();
        let _flushes: Vec<_> = regions.iter().map(|r| r.flush_guard()).collect();
        let ctx = self.file_ctx();
        // A snapshot left by a failed flush goes out first (its cut is older).
        for r in &regions {
            while r.has_flush_snapshot() {
                ctx.flush_memstore(&t, r, &|| self.mvcc.last_assigned())?;
            }
        }
        // The cut: every region's writers out at once, memstores swapped.
        let cut: Vec<_> = {
            let frozen: Vec<_> = regions.iter().map(|r| r.freeze_writers()).collect();
            regions
                .iter()
                .zip(&frozen)
                .map(|(r, g)| r.begin_flush_frozen(g, &|| self.mvcc.last_assigned()))
                .collect()
        };
        for (r, swapped) in regions.iter().zip(cut) {
            if let Some((snap, seq)) = swapped {
                ctx.write_flush(&t, r, snap, seq)?;
            }
        }
        self.stall.1.notify_all();
        let mut m = self.manifest.lock();
        let state = m.state();
        let rec = state
            .tables
            .get(&t.id)
            .ok_or_else(|| Error::TableNotFound(table.to_string()))?;
        let mut defs: Vec<(RegionDef, Vec<FileRef>)> = rec
            .regions
            .values()
            .map(|r| (r.def.clone(), r.files.clone()))
            .collect();
        defs.sort_by(|a, b| a.0.start.cmp(&b.0.start));
        let mut origins: Vec<(u64, u64)> = defs
            .iter()
            .flat_map(|(_, fs)| {
                fs.iter()
                    .map(|f| (f.file_id, state.file_table(t.id, f.file_id)))
            })
            .collect();
        origins.sort_unstable();
        origins.dedup();
        let def = SnapshotDef {
            name: name.to_string(),
            table: t.name.clone(),
            table_id: t.id,
            created_ms: self.clock.now_millis(),
            desc: rec.desc.clone(),
            regions: defs,
            origins,
        };
        m.append(&Edit::Snapshot(def))?;
        drop(m);
        log::info!(target: "cellbase::snapshot", "snapshot {name} of table '{table}' taken");
        Ok(())
    }

    /// Every snapshot, by name.
    pub(crate) fn list_snapshots(&self) -> Vec<SnapshotInfo> {
        self.manifest
            .lock()
            .state()
            .snapshots
            .values()
            .map(|d| {
                let mut ids: Vec<&FileRef> = d.regions.iter().flat_map(|(_, f)| f).collect();
                ids.sort_by_key(|f| f.file_id);
                ids.dedup_by_key(|f| f.file_id);
                SnapshotInfo {
                    name: d.name.clone(),
                    table: d.table.clone(),
                    created_ms: d.created_ms,
                    regions: d.regions.len() as u64,
                    files: ids.len() as u64,
                    bytes: ids.iter().map(|f| f.size).sum(),
                }
            })
            .collect()
    }

    /// Deletes snapshot `name`; files nothing else lists go.
    pub(crate) fn delete_snapshot(&self, name: &str) -> Result<()> {
        self.check_open()?;
        let mut m = self.manifest.lock();
        let d = m
            .state()
            .snapshots
            .get(name)
            .cloned()
            .ok_or_else(|| Error::SnapshotNotFound(name.to_string()))?;
        m.append(&Edit::DeleteSnapshot {
            name: name.to_string(),
        })?;
        drop(m);
        self.remove_unlisted_files(
            d.regions
                .iter()
                .flat_map(|(_, f)| f.iter().map(|f| f.file_id))
                .collect::<Vec<_>>(),
        );
        Ok(())
    }

    /// A new table `new_table` with the snapshot's schema, regions and files.
    pub(crate) fn clone_snapshot(&self, name: &str, new_table: &str) -> Result<Arc<TableShared>> {
        self.check_open()?;
        let new_table = crate::model::namespace::normalize_table_name(new_table);
        let mut tables = self.tables.write();
        if tables.contains_key(new_table) {
            return Err(Error::TableExists(new_table.to_string()));
        }
        let d = self.snapshot_def(name)?;
        let desc = d.desc.clone().renamed(new_table);
        desc.validate()?;
        self.check_table_namespace(new_table)?;
        let shared = self.table_from_snapshot(&d, None, desc, true)?;
        tables.insert(new_table.to_string(), shared.clone());
        Ok(shared)
    }

    /// Restores snapshot `name` over its table, which must be disabled (re-created if it was
    /// dropped); the table stays disabled.
    pub(crate) fn restore_snapshot(&self, name: &str) -> Result<()> {
        self.check_open()?;
        let mut tables = self.tables.write();
        let d = self.snapshot_def(name)?;
        let old = tables.get(&d.table).cloned();
        if let Some(t) = &old
            && t.is_enabled()
        {
            return Err(Error::TableNotDisabled(d.table.clone()));
        }
        if old.is_none() {
            // Re-creating a dropped table: its namespace must still exist.
            self.check_table_namespace(&d.table)?;
        }
        let shared =
            self.table_from_snapshot(&d, old.as_ref().map(|t| t.id), d.desc.clone(), false)?;
        tables.insert(d.table.clone(), shared);
        drop(tables);
        if let Some(old) = old {
            old.mark_dropped();
            let mut ids: Vec<u64> = old
                .region_list()
                .iter()
                .flat_map(|r| r.file_ids())
                .collect();
            ids.sort_unstable();
            ids.dedup();
            self.remove_unlisted_files(ids);
        }
        self.delete_obsolete_wal()?;
        log::info!(target: "cellbase::snapshot", "snapshot {name} restored over table '{}'", d.table);
        Ok(())
    }

    /// HBase's rule for a new table: its namespace exists, and is not `hbase`.
    fn check_table_namespace(&self, table: &str) -> Result<()> {
        use crate::model::namespace::{DEFAULT_NAMESPACE, SYSTEM_NAMESPACE, split_table_name};
        match split_table_name(table).0 {
            DEFAULT_NAMESPACE => Ok(()),
            SYSTEM_NAMESPACE => Err(Error::invalid(format!(
                "cannot create table {table}: the namespace {SYSTEM_NAMESPACE} is reserved for \
                 system tables"
            ))),
            ns if !self.manifest.lock().state().namespaces.contains_key(ns) => {
                Err(Error::NamespaceNotFound(ns.to_string()))
            }
            _ => Ok(()),
        }
    }

    fn snapshot_def(&self, name: &str) -> Result<SnapshotDef> {
        self.manifest
            .lock()
            .state()
            .snapshots
            .get(name)
            .cloned()
            .ok_or_else(|| Error::SnapshotNotFound(name.to_string()))
    }

    /// Logs a [`Edit::TableFromSnapshot`] (a new table id unless `table_id`) and opens the
    /// table it describes.
    fn table_from_snapshot(
        &self,
        d: &SnapshotDef,
        table_id: Option<u64>,
        desc: crate::model::schema::TableDescriptor,
        enabled: bool,
    ) -> Result<Arc<TableShared>> {
        let mut m = self.manifest.lock();
        let table_id = table_id.unwrap_or_else(|| m.next_table_id());
        let regions: Vec<(RegionDef, Vec<FileRef>)> = d
            .regions
            .iter()
            .map(|(def, files)| {
                (
                    RegionDef {
                        id: m.next_region_id(),
                        start: def.start.clone(),
                        end: def.end.clone(),
                    },
                    files.clone(),
                )
            })
            .collect();
        // No log record written before now replays into the new regions.
        let flushed_seq = self.mvcc.last_assigned();
        m.append(&Edit::TableFromSnapshot {
            table_id,
            desc: desc.clone(),
            enabled,
            flushed_seq,
            regions: regions.clone(),
            origins: d.origins.clone(),
        })?;
        drop(m);
        let ctx = self.file_ctx();
        let mut out = Vec::with_capacity(regions.len());
        for (def, files) in regions {
            let mut map: BTreeMap<Vec<u8>, Vec<Arc<StoreFile>>> = BTreeMap::new();
            for f in files {
                map.entry(f.family.clone())
                    .or_default()
                    .push(ctx.open_new_file(&f.family, f.file_id)?);
            }
            for list in map.values_mut() {
                sort_newest_first(list);
            }
            out.push(Arc::new(Region::new(
                def.id,
                def.start,
                def.end,
                flushed_seq,
                map,
                &self.memstore_bytes,
            )));
        }
        Ok(Arc::new(TableShared::new(table_id, desc, enabled, out)))
    }
}
