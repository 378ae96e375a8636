//! Schema changes beyond adding or changing a family (HBase `alter`): deleting a family and
//! setting or unsetting the table attributes the engine honours per table (`MAX_FILESIZE`,
//! `MEMSTORE_FLUSHSIZE`).

use crate::db::{Db, DbInner};
use crate::error::{Error, Result};
use crate::manifest::Edit;
use crate::model::schema::TableDescriptor;
use crate::region::Region;
use crate::table::TableShared;
use std::sync::Arc;

impl Db {
    /// Deletes a column family with its data (HBase `alter 't', 'delete' => 'f'`). The schema
    /// change is logged first, so the family's cells are unreadable from then on (reads only
    /// see described families) and writes to it fail; then every region is flushed (a flush
    /// writes only described families, so the family's memstore cells are dropped and its log
    /// records are covered) and the family's block files are removed from every region. A
    /// family added later under the same name starts empty.
    ///
    /// # Errors
    /// [`Error::TableNotFound`]; [`Error::NoSuchFamily`]; [`Error::InvalidArgument`] when it
    /// is the table's only family; [`Error::Io`] from the log, the flush or the file removal
    /// (the schema change stands once logged; a later flush or compaction finishes the rest).
    pub fn delete_family(&self, table: &str, family: &[u8]) -> Result<()> {
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
        self.inner.clear_undescribed_family(&t, family)
    }

    /// Sets (`Some`) or unsets (`None`, back to [`crate::DbOptions::max_region_size`]) the
    /// table's split threshold (HBase `MAX_FILESIZE`). Applies from the next split check.
    ///
    /// # Errors
    /// [`Error::TableNotFound`]; [`Error::InvalidArgument`] for 0.
    pub fn set_table_max_region_size(&self, table: &str, bytes: Option<u64>) -> Result<()> {
        self.alter_desc(table, |d| {
            d.set_max_region_size(bytes);
            Ok(())
        })
        .map(|_| ())
    }

    /// Sets (`Some`) or unsets (`None`, back to [`crate::DbOptions::memstore_flush_size`]) the
    /// table's memstore flush size (HBase `MEMSTORE_FLUSHSIZE`). Applies from the next write.
    ///
    /// # Errors
    /// [`Error::TableNotFound`]; [`Error::InvalidArgument`] for 0.
    pub fn set_table_memstore_flush_size(&self, table: &str, bytes: Option<u64>) -> Result<()> {
        self.alter_desc(table, |d| {
            d.set_memstore_flush_size(bytes);
            Ok(())
        })
        .map(|_| ())
    }

    /// Applies `change` to a copy of the table's schema, validates it, logs it and installs it.
    pub(crate) fn alter_desc(
        &self,
        table: &str,
        change: impl FnOnce(&mut TableDescriptor) -> Result<()>,
    ) -> Result<Arc<TableShared>> {
        self.inner.check_open()?;
        let t = self.inner.table_shared(table)?;
        {
            let mut desc = t.desc_lock().write();
            let mut next = (**desc).clone();
            change(&mut next)?;
            next.validate()?;
            self.inner.manifest.lock().append(&Edit::AlterTable {
                table_id: t.id,
                desc: next.clone(),
            })?;
            *desc = Arc::new(next);
        }
        Ok(t)
    }
}

impl DbInner {
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
        let _one = region.compact_lock.lock();
        if table.is_dropped() || region.is_retired() {
            return Ok(());
        }
        let removed: Vec<u64> = match region.current().files.get(family) {
            Some(files) if !files.is_empty() => files.iter().map(|f| f.id).collect(),
            _ => return Ok(()),
        };
        self.manifest.lock().append(&Edit::Compact {
            table_id: table.id,
            region_id: region.id,
            removed: removed.clone(),
            added: Vec::new(),
        })?;
        {
            let mut v = region.version.write();
            let mut files = v.files.clone();
            files.remove(family);
            *v = v.with_files(files);
        }
        self.remove_unlisted_files(removed);
        Ok(())
    }
}
