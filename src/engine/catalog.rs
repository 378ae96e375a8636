//! The catalog: creating, dropping, enabling and disabling tables, and the namespaces they are
//! in. Each change is one manifest edit, appended before the in-memory table map changes.

use crate::base::error::{Error, Result};
use crate::engine::Engine;
use crate::engine::region::Region;
use crate::engine::table::TableShared;
use crate::model::namespace::{
    self, DEFAULT_NAMESPACE, NamespaceDescriptor, SYSTEM_NAMESPACE, is_reserved_namespace,
};
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
        // HBase's CreateTableProcedure: the namespace must exist. `hbase` holds HBase's own
        // tables only (HBase lets a superuser create tables there; cellbase has no superuser).
        match namespace::split_table_name(desc.name()).0 {
            DEFAULT_NAMESPACE => {}
            SYSTEM_NAMESPACE => {
                return Err(Error::invalid(format!(
                    "cannot create table {}: the namespace {SYSTEM_NAMESPACE} is reserved for \
                     system tables",
                    desc.name()
                )));
            }
            ns if !m.state().namespaces.contains_key(ns) => {
                return Err(Error::NamespaceNotFound(ns.to_string()));
            }
            _ => {}
        }
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
        let now = self.clock.now_millis();
        let regions = defs
            .into_iter()
            .map(|d| {
                let r = Region::new(
                    d.id,
                    d.start,
                    d.end,
                    0,
                    BTreeMap::new(),
                    &self.memstore_bytes,
                );
                r.set_created_ms(now);
                Arc::new(r)
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

    /// Creates a namespace (HBase's `CreateNamespaceProcedure`), logged as one edit.
    pub(crate) fn create_namespace(&self, desc: NamespaceDescriptor) -> Result<()> {
        self.check_open()?;
        namespace::validate_namespace_name(desc.name())?;
        let mut m = self.manifest.lock();
        if is_reserved_namespace(desc.name()) || m.state().namespaces.contains_key(desc.name()) {
            return Err(Error::NamespaceExists(desc.name().to_string()));
        }
        m.append(&Edit::PutNamespace(desc))
    }

    /// Replaces a namespace's properties, logged as one edit. The reserved namespaces have
    /// no stored descriptor and cannot be altered.
    pub(crate) fn alter_namespace(
        &self,
        name: &str,
        change: impl FnOnce(&mut NamespaceDescriptor),
    ) -> Result<()> {
        self.check_open()?;
        let mut m = self.manifest.lock();
        if is_reserved_namespace(name) {
            return Err(Error::invalid(format!(
                "Reserved namespace {name} cannot be altered."
            )));
        }
        let mut desc = m
            .state()
            .namespaces
            .get(name)
            .cloned()
            .ok_or_else(|| Error::NamespaceNotFound(name.to_string()))?;
        change(&mut desc);
        m.append(&Edit::PutNamespace(desc))
    }

    /// A namespace's descriptor (the reserved ones have no properties).
    pub(crate) fn namespace(&self, name: &str) -> Result<NamespaceDescriptor> {
        if is_reserved_namespace(name) {
            return Ok(NamespaceDescriptor::new(name));
        }
        self.manifest
            .lock()
            .state()
            .namespaces
            .get(name)
            .cloned()
            .ok_or_else(|| Error::NamespaceNotFound(name.to_string()))
    }

    /// Every namespace name, sorted (`default` and `hbase` included).
    pub(crate) fn namespace_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .manifest
            .lock()
            .state()
            .namespaces
            .keys()
            .cloned()
            .collect();
        names.push(DEFAULT_NAMESPACE.to_string());
        names.push(SYSTEM_NAMESPACE.to_string());
        names.sort_unstable();
        names
    }

    /// The tables of a namespace, by qualifier (HBase's `listTableNamesByNamespace`, as the
    /// shell's `list_namespace_tables` shows them), sorted.
    pub(crate) fn namespace_tables(&self, ns: &str) -> Result<Vec<String>> {
        let tables = self.tables.read();
        self.namespace(ns)?;
        Ok(tables
            .keys()
            .filter_map(|t| match namespace::split_table_name(t) {
                (n, q) if n == ns => Some(q.to_string()),
                _ => None,
            })
            .collect())
    }

    /// Drops an empty namespace (HBase's `DeleteNamespaceProcedure`), logged as one edit.
    pub(crate) fn drop_namespace(&self, name: &str) -> Result<()> {
        self.check_open()?;
        // The table map's write lock keeps a table from being created in the namespace
        // meanwhile (create_table holds it while it checks the namespace).
        let tables = self.tables.write();
        let mut m = self.manifest.lock();
        if is_reserved_namespace(name) {
            return Err(Error::invalid(format!(
                "Reserved namespace {name} cannot be removed."
            )));
        }
        if !m.state().namespaces.contains_key(name) {
            return Err(Error::NamespaceNotFound(name.to_string()));
        }
        let count = tables
            .keys()
            .filter(|t| namespace::split_table_name(t).0 == name)
            .count();
        if count > 0 {
            return Err(Error::NamespaceNotEmpty {
                namespace: name.to_string(),
                tables: count,
            });
        }
        m.append(&Edit::DropNamespace {
            name: name.to_string(),
        })
    }

    /// Drops a table: logged, removed from the map, its files (recorded obsolete by the edit)
    /// deleted.
    pub(crate) fn drop_table(&self, name: &str) -> Result<()> {
        self.check_open()?;
        let name = namespace::normalize_table_name(name);
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
