//! Schema changes beyond adding or changing a family (HBase `alter`): deleting a family and
//! setting or unsetting the table attributes the engine honours per table (`MAX_FILESIZE`,
//! `MEMSTORE_FLUSHSIZE`).

use crate::base::error::{Error, Result};
use crate::engine::Engine;
use crate::engine::region::Region;
use crate::engine::table::TableShared;
use crate::model::schema::{FamilyDescriptor, TableDescriptor};
use crate::storage::manifest::Edit;
use std::sync::Arc;

impl Engine {
    /// Adds a family or changes an existing one's settings (a new family starts empty).
    pub(crate) fn alter_family(&self, table: &str, family: FamilyDescriptor) -> Result<()> {
        self.check_open()?;
        family.validate()?;
        let t = self.table_shared(table)?;
        if t.desc_arc().get_family(&family.name).is_none() {
            // A new family starts empty, whatever a deleted one of that name left behind.
            self.clear_undescribed_family(&t, &family.name)?;
        }
        self.alter_desc(table, |d| {
            d.upsert_family(family);
            Ok(())
        })
        .map(|_| ())
    }

    /// Deletes a family with its data: the schema change is logged first, then its memstore
    /// cells and files are removed from every region.
    pub(crate) fn delete_family(&self, table: &str, family: &[u8]) -> Result<()> {
        let t = self.alter_desc(table, |d| {
            if d.get_family(family).is_none() {
                return Err(Error::NoSuchFamily {
                    table: table.to_string(),
                    family: String::from_utf8_lossy(family).into_owned(),
                });
            }
            if d.families().len() == 1 {
                return Err(Error::invalid(format!(
                    "family {} is the only column family of table {table}, so it cannot be deleted",
                    String::from_utf8_lossy(family)
                )));
            }
            d.remove_family(family);
            Ok(())
        })?;
        self.clear_undescribed_family(&t, family)
    }

    /// Applies `change` to a copy of the table's schema, validates it, logs it and installs it.
    pub(crate) fn alter_desc(
        &self,
        table: &str,
        change: impl FnOnce(&mut TableDescriptor) -> Result<()>,
    ) -> Result<Arc<TableShared>> {
        self.check_open()?;
        let t = self.table_shared(table)?;
        {
            let mut desc = t.desc_lock().write();
            let mut next = (**desc).clone();
            change(&mut next)?;
            next.validate()?;
            self.manifest.lock().append(&Edit::AlterTable {
                table_id: t.id,
                desc: next.clone(),
            })?;
            t.note_desc(&next);
            *desc = Arc::new(next);
        }
        Ok(t)
    }

    /// Removes what a family the schema no longer describes left behind: its memstore cells
    /// and log records (a flush writes only described families and covers the log) and its
    /// files. Run by [`Db::delete_family`], and before a family is added, so that a delete cut
    /// short by a failure or a crash never lets old cells reappear.
    pub(crate) fn clear_undescribed_family(
        &self,
        table: &Arc<TableShared>,
        family: &[u8],
    ) -> Result<()> {
        for r in table.region_list() {
            self.flush_region(table, &r)?;
        }
        for r in table.region_list() {
            self.purge_family(table, &r, family)?;
        }
        Ok(())
    }

    /// Empties one region (HBase 2.6's `truncate_region`, `TruncateRegionProcedure`): its
    /// memstore is flushed (so the log no longer holds its cells), then every file of every
    /// store is removed from it by one compaction record with no output per family. The
    /// region keeps its range. Writes that land between the flush and the removal stay (HBase
    /// takes the region offline meanwhile and refuses them).
    pub(crate) fn truncate_region(
        &self,
        table: &Arc<TableShared>,
        region: &Arc<Region>,
    ) -> Result<()> {
        self.check_open()?;
        self.flush_region(table, region)?;
        let families: Vec<Vec<u8>> = region.current().files.keys().cloned().collect();
        for f in families {
            self.purge_family(table, region, &f)?;
        }
        Ok(())
    }

    /// Removes a deleted family's files from a region: logged as a compaction with no output,
    /// then the files no region lists any more are deleted.
    fn purge_family(
        &self,
        table: &Arc<TableShared>,
        region: &Arc<Region>,
        family: &[u8],
    ) -> Result<()> {
        // No compaction of this region runs meanwhile (one that started before the schema
        // change could otherwise add a file for the family after this purge).
        let _one = region.compaction_guard();
        if table.is_dropped() || region.is_retired() {
            return Ok(());
        }
        let removed: Vec<u64> = match region.current().files.get(family) {
            Some(files) if !files.is_empty() => files.iter().map(|f| f.id).collect(),
            _ => return Ok(()),
        };
        self.manifest.lock().append(&Edit::Compact {
            table_id: table.id,
            region_id: region.id(),
            removed: removed.clone(),
            added: Vec::new(),
        })?;
        region.drop_family_files(family);
        self.remove_unlisted_files(removed);
        Ok(())
    }
}
