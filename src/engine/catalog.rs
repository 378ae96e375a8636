//! The catalog: creating, dropping, enabling and disabling tables. Each change is one manifest
//! edit, appended before the in-memory table map changes.

use crate::base::error::{Error, Result};
use crate::engine::Engine;
use crate::engine::region::Region;
use crate::engine::table::TableShared;
use crate::model::schema::TableDescriptor;
use crate::storage::manifest::{Edit, RegionDef};
use std::collections::BTreeMap;
use std::sync::Arc;

impl Engine {
    /// Creates a table with one region per range of its split keys [PRESPLIT-1], logged as one
    /// edit.
    pub(crate) fn create_table(&self, desc: TableDescriptor) -> Result<Arc<TableShared>> {
        self.check_open()?;
        desc.validate()?;
        let mut tables = self.tables.write();
        if tables.contains_key(desc.name()) {
            return Err(Error::TableExists(desc.name().to_string()));
        }
        let keys = desc.initial_split_keys()?;
        let mut m = self.manifest.lock();
        let table_id = m.next_table_id();
        // N-1 split keys give N regions ['', k1) [k1, k2) ... [kN-1, '') [PRESPLIT-1].
        let mut bounds: Vec<Vec<u8>> = vec![Vec::new()];
        bounds.extend(keys);
        bounds.push(Vec::new());
        let defs: Vec<RegionDef> = bounds
            .windows(2)
            .map(|w| RegionDef {
                id: m.next_region_id(),
                start: w[0].clone(),
                end: w[1].clone(),
            })
            .collect();
        m.append(&Edit::CreateTable {
            table_id,
            desc: desc.clone(),
            regions: defs.clone(),
        })?;
        drop(m);
        let regions = defs
            .into_iter()
            .map(|d| {
                Arc::new(Region::new(
                    d.id,
                    d.start,
                    d.end,
                    0,
                    BTreeMap::new(),
                    &self.memstore_bytes,
                ))
            })
            .collect();
        let shared = Arc::new(TableShared::new(table_id, desc.clone(), true, regions));
        tables.insert(desc.name().to_string(), shared.clone());
        Ok(shared)
    }

    /// Every table name, sorted.
    pub(crate) fn table_names(&self) -> Vec<String> {
        self.tables.read().keys().cloned().collect()
    }

    /// Drops a table: logged, removed from the map, its files (recorded obsolete by the edit)
    /// deleted.
    pub(crate) fn drop_table(&self, name: &str) -> Result<()> {
        self.check_open()?;
        let mut tables = self.tables.write();
        let t = tables
            .get(name)
            .cloned()
            .ok_or_else(|| Error::TableNotFound(name.to_string()))?;
        self.manifest
            .lock()
            .append(&Edit::DropTable { table_id: t.id })?;
        tables.remove(name);
        drop(tables);
        t.mark_dropped();
        let mut ids: Vec<u64> = t.region_list().iter().flat_map(|r| r.file_ids()).collect();
        ids.sort_unstable();
        ids.dedup();
        // Recorded obsolete by the DropTable edit; no region lists them any more.
        self.remove_unlisted_files(ids);
        self.delete_obsolete_wal()?;
        Ok(())
    }

    /// Enables or disables a table (logged first).
    pub(crate) fn set_enabled(&self, name: &str, enabled: bool) -> Result<()> {
        self.check_open()?;
        let t = self.table_shared(name)?;
        self.manifest.lock().append(&Edit::SetEnabled {
            table_id: t.id,
            enabled,
        })?;
        t.set_enabled(enabled);
        Ok(())
    }
}
