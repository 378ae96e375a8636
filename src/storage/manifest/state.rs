//! [`ManifestState`]: what the manifest describes, and how each edit changes it.

use super::edit::{Edit, FileRef, IdCounters, RegionDef, SnapshotDef};
use crate::model::namespace::NamespaceDescriptor;
use crate::model::schema::TableDescriptor;
use std::collections::{BTreeMap, BTreeSet};

/// A region as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionRecord {
    /// Range.
    pub def: RegionDef,
    /// Highest sequence id already in the region's files.
    pub flushed_seq: u64,
    /// Files, oldest first.
    pub files: Vec<FileRef>,
}

/// A table as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRecord {
    /// Schema.
    pub desc: TableDescriptor,
    /// Enabled (reads and writes allowed).
    pub enabled: bool,
    /// Regions by id.
    pub regions: BTreeMap<u64, RegionRecord>,
    /// Files written for another table (a clone's or a restore's, from a snapshot): file id ->
    /// the table id the file records in its identity.
    pub linked: BTreeMap<u64, u64>,
}

/// Everything the manifest describes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ManifestState {
    /// Tables by id.
    pub tables: BTreeMap<u64, TableRecord>,
    /// Next unused file id.
    pub next_file_id: u64,
    /// Next unused table id.
    pub next_table_id: u64,
    /// Next unused region id.
    pub next_region_id: u64,
    /// Highest sequence id recorded by any flush.
    pub max_flushed_seq: u64,
    /// The database's identity (0 in a manifest written before identities existed).
    pub db_id: u64,
    /// Block files the manifest listed once and no region lists any more: the only files of
    /// `data/` below `next_file_id` that an open may delete.
    pub obsolete_files: BTreeSet<u64>,
    /// File ids reserved for outputs that no edit has added yet ([`Edit::ReservedFiles`]): a
    /// file of `data/` with such an id that no region lists is the output of unfinished work.
    pub reserved_files: BTreeSet<u64>,
    /// WAL segments that must exist (created and not yet deleted as flushed); `None` in a
    /// manifest written before the log was tracked.
    pub wal_segments: Option<BTreeSet<u64>>,
    /// Live WAL segments closed for good, with their synced length.
    pub wal_sealed: BTreeMap<u64, u64>,
    /// Snapshots by name; their files stay while they are listed here.
    pub snapshots: BTreeMap<String, SnapshotDef>,
    /// Namespaces created by users, by name (`default` and `hbase` always exist and are
    /// never recorded).
    pub namespaces: BTreeMap<String, NamespaceDescriptor>,
}

impl ManifestState {
    /// True when some region lists block file `id`.
    pub fn references(&self, id: u64) -> bool {
        self.tables
            .values()
            .flat_map(|t| t.regions.values())
            .any(|r| r.files.iter().any(|f| f.file_id == id))
            || self
                .snapshots
                .values()
                .flat_map(|s| s.regions.iter().flat_map(|(_, f)| f))
                .any(|f| f.file_id == id)
    }

    /// The table id block file `file_id` of table `table_id` records in its identity: its
    /// own, or for a file a clone or restore took from a snapshot, the table it was written
    /// for.
    pub fn file_table(&self, table_id: u64, file_id: u64) -> u64 {
        self.tables
            .get(&table_id)
            .and_then(|t| t.linked.get(&file_id))
            .copied()
            .unwrap_or(table_id)
    }

    /// Block files some snapshot lists.
    pub fn snapshot_files(&self) -> BTreeSet<u64> {
        self.snapshots
            .values()
            .flat_map(|s| {
                s.regions
                    .iter()
                    .flat_map(|(_, f)| f.iter().map(|f| f.file_id))
            })
            .collect()
    }

    /// Block files that must exist: those a region lists and those a snapshot lists.
    pub fn kept_files(&self) -> BTreeSet<u64> {
        let mut ids: BTreeSet<u64> = self.live_files().into_keys().collect();
        ids.extend(self.snapshot_files());
        ids
    }

    /// Every block file some region lists, with the table that lists it (a file is shared
    /// by the regions of one table only).
    pub fn live_files(&self) -> BTreeMap<u64, (u64, FileRef)> {
        let mut out = BTreeMap::new();
        for (&table_id, t) in &self.tables {
            for r in t.regions.values() {
                for f in &r.files {
                    out.insert(f.file_id, (table_id, f.clone()));
                }
            }
        }
        out
    }

    /// Files of `candidates` that no region lists any more become obsolete.
    fn mark_obsolete(&mut self, candidates: impl IntoIterator<Item = u64>) {
        for id in candidates {
            if !self.references(id) {
                self.obsolete_files.insert(id);
            }
        }
    }

    fn region_mut(&mut self, table_id: u64, region_id: u64) -> Option<&mut RegionRecord> {
        self.tables.get_mut(&table_id)?.regions.get_mut(&region_id)
    }

    /// Applies an edit; an edit that does not fit the state is an error (the caller reports it
    /// as corruption of the manifest).
    pub fn apply(&mut self, e: &Edit) -> std::result::Result<(), String> {
        match e {
            Edit::CreateTable {
                table_id,
                desc,
                regions,
            } => {
                if self.tables.contains_key(table_id) {
                    return Err(format!("table id {table_id} created twice"));
                }
                let mut map = BTreeMap::new();
                for r in regions {
                    self.next_region_id = self.next_region_id.max(r.id + 1);
                    map.insert(
                        r.id,
                        RegionRecord {
                            def: r.clone(),
                            flushed_seq: 0,
                            files: vec![],
                        },
                    );
                }
                self.next_table_id = self.next_table_id.max(table_id + 1);
                self.tables.insert(
                    *table_id,
                    TableRecord {
                        desc: desc.clone(),
                        enabled: true,
                        regions: map,
                        linked: BTreeMap::new(),
                    },
                );
            }
            Edit::DropTable { table_id } => {
                let t = self
                    .tables
                    .remove(table_id)
                    .ok_or(format!("drop of unknown table {table_id}"))?;
                self.mark_obsolete(
                    t.regions
                        .values()
                        .flat_map(|r| r.files.iter().map(|f| f.file_id)),
                );
            }
            Edit::AlterTable { table_id, desc } => {
                let t = self
                    .tables
                    .get_mut(table_id)
                    .ok_or(format!("alter of unknown table {table_id}"))?;
                t.desc = desc.clone();
            }
            Edit::Split {
                table_id,
                parent_id,
                daughters,
            } => {
                let t = self
                    .tables
                    .get_mut(table_id)
                    .ok_or(format!("split in unknown table {table_id}"))?;
                let parent = t
                    .regions
                    .remove(parent_id)
                    .ok_or(format!("split of unknown region {parent_id}"))?;
                for (def, files) in daughters {
                    self.next_region_id = self.next_region_id.max(def.id + 1);
                    t.regions.insert(
                        def.id,
                        RegionRecord {
                            def: def.clone(),
                            flushed_seq: parent.flushed_seq,
                            files: files.clone(),
                        },
                    );
                }
            }
            Edit::Merge {
                table_id,
                parent_ids,
                merged,
            } => {
                let t = self
                    .tables
                    .get_mut(table_id)
                    .ok_or(format!("merge in unknown table {table_id}"))?;
                let mut flushed_seq = 0;
                for id in parent_ids {
                    let p = t
                        .regions
                        .remove(id)
                        .ok_or(format!("merge of unknown region {id}"))?;
                    flushed_seq = flushed_seq.max(p.flushed_seq);
                }
                self.next_region_id = self.next_region_id.max(merged.0.id + 1);
                t.regions.insert(
                    merged.0.id,
                    RegionRecord {
                        def: merged.0.clone(),
                        flushed_seq,
                        files: merged.1.clone(),
                    },
                );
            }
            Edit::SetEnabled { table_id, enabled } => {
                let t = self
                    .tables
                    .get_mut(table_id)
                    .ok_or(format!("enable of unknown table {table_id}"))?;
                t.enabled = *enabled;
            }
            Edit::Flush {
                table_id,
                region_id,
                flushed_seq,
                files,
            } => {
                for f in files {
                    self.next_file_id = self.next_file_id.max(f.file_id + 1);
                    self.reserved_files.remove(&f.file_id);
                }
                self.max_flushed_seq = self.max_flushed_seq.max(*flushed_seq);
                let r = self
                    .region_mut(*table_id, *region_id)
                    .ok_or(format!("flush of unknown region {table_id}/{region_id}"))?;
                r.flushed_seq = r.flushed_seq.max(*flushed_seq);
                r.files.extend(files.iter().cloned());
            }
            Edit::Compact {
                table_id,
                region_id,
                removed,
                added,
            } => {
                for f in added {
                    self.next_file_id = self.next_file_id.max(f.file_id + 1);
                    self.reserved_files.remove(&f.file_id);
                }
                let r = self.region_mut(*table_id, *region_id).ok_or(format!(
                    "compaction of unknown region {table_id}/{region_id}"
                ))?;
                for id in removed {
                    let before = r.files.len();
                    r.files.retain(|f| f.file_id != *id);
                    if r.files.len() == before {
                        return Err(format!("compaction removes unknown file {id}"));
                    }
                }
                r.files.extend(added.iter().cloned());
                self.mark_obsolete(removed.iter().copied());
            }
            Edit::Ids(ids) => {
                if self.db_id != 0 && self.db_id != ids.db_id {
                    return Err(format!(
                        "database id {:016x} where {:016x} was recorded",
                        ids.db_id, self.db_id
                    ));
                }
                self.db_id = ids.db_id;
                self.next_file_id = self.next_file_id.max(ids.next_file_id);
                self.next_table_id = self.next_table_id.max(ids.next_table_id);
                self.next_region_id = self.next_region_id.max(ids.next_region_id);
                self.max_flushed_seq = self.max_flushed_seq.max(ids.max_flushed_seq);
            }
            Edit::ReservedFiles { ids } => {
                for &id in ids {
                    self.next_file_id = self.next_file_id.max(id.saturating_add(1));
                    self.reserved_files.insert(id);
                }
            }
            Edit::ObsoleteFiles { ids } => {
                for id in ids {
                    if self.references(*id) {
                        return Err(format!("file {id} is listed and obsolete at once"));
                    }
                    self.obsolete_files.insert(*id);
                }
            }
            Edit::WalSegmentsAdded { ids } => {
                self.wal_segments.get_or_insert_default().extend(ids);
            }
            Edit::WalSegmentsDeleted { ids } => {
                if let Some(live) = &mut self.wal_segments {
                    for id in ids {
                        live.remove(id);
                    }
                }
                for id in ids {
                    self.wal_sealed.remove(id);
                }
            }
            Edit::WalSegmentsSealed { segments } => {
                self.wal_sealed.extend(segments.iter().copied());
            }
            Edit::Snapshot(d) => {
                if self.snapshots.contains_key(&d.name) {
                    return Err(format!("snapshot {} recorded twice", d.name));
                }
                for (_, files) in &d.regions {
                    for f in files {
                        if self.obsolete_files.contains(&f.file_id) {
                            return Err(format!(
                                "snapshot {} lists obsolete file {}",
                                d.name, f.file_id
                            ));
                        }
                    }
                }
                self.snapshots.insert(d.name.clone(), d.clone());
            }
            Edit::TableFromSnapshot {
                table_id,
                desc,
                enabled,
                flushed_seq,
                regions,
                origins,
            } => {
                let old = self.tables.remove(table_id);
                let mut map = BTreeMap::new();
                for (def, files) in regions {
                    self.next_region_id = self.next_region_id.max(def.id + 1);
                    for f in files {
                        if self.obsolete_files.contains(&f.file_id) {
                            return Err(format!(
                                "table {table_id} from a snapshot lists obsolete file {}",
                                f.file_id
                            ));
                        }
                    }
                    map.insert(
                        def.id,
                        RegionRecord {
                            def: def.clone(),
                            flushed_seq: *flushed_seq,
                            files: files.clone(),
                        },
                    );
                }
                self.next_table_id = self.next_table_id.max(table_id + 1);
                self.max_flushed_seq = self.max_flushed_seq.max(*flushed_seq);
                self.tables.insert(
                    *table_id,
                    TableRecord {
                        desc: desc.clone(),
                        enabled: *enabled,
                        regions: map,
                        linked: origins.iter().copied().collect(),
                    },
                );
                if let Some(old) = old {
                    self.mark_obsolete(
                        old.regions
                            .values()
                            .flat_map(|r| r.files.iter().map(|f| f.file_id))
                            .collect::<Vec<_>>(),
                    );
                }
            }
            Edit::BulkLoad { table_id, regions } => {
                for (region_id, files) in regions {
                    for f in files {
                        self.next_file_id = self.next_file_id.max(f.file_id + 1);
                        self.reserved_files.remove(&f.file_id);
                    }
                    let r = self
                        .region_mut(*table_id, *region_id)
                        .ok_or_else(|| format!("bulk load into unknown region {region_id}"))?;
                    r.files.extend(files.iter().cloned());
                }
            }
            Edit::LinkedFiles { table_id, origins } => {
                let Some(t) = self.tables.get_mut(table_id) else {
                    return Err(format!("linked files of unknown table {table_id}"));
                };
                t.linked.extend(origins.iter().copied());
            }
            Edit::DeleteSnapshot { name } => {
                let Some(d) = self.snapshots.remove(name) else {
                    return Err(format!("deleting unknown snapshot {name}"));
                };
                self.mark_obsolete(
                    d.regions
                        .iter()
                        .flat_map(|(_, f)| f.iter().map(|f| f.file_id))
                        .collect::<Vec<_>>(),
                );
            }
            Edit::PutNamespace(ns) => {
                self.namespaces.insert(ns.name().to_string(), ns.clone());
            }
            Edit::DropNamespace { name } => {
                self.namespaces
                    .remove(name)
                    .ok_or(format!("drop of unknown namespace {name}"))?;
            }
        }
        Ok(())
    }

    /// The edits that rebuild this state from nothing: [`Edit::Ids`] first.
    pub fn snapshot_edits(&self) -> Vec<Edit> {
        let mut out = vec![Edit::Ids(IdCounters {
            db_id: self.db_id,
            next_file_id: self.next_file_id,
            next_table_id: self.next_table_id,
            next_region_id: self.next_region_id,
            max_flushed_seq: self.max_flushed_seq,
        })];
        // Namespaces before the tables in them.
        out.extend(self.namespaces.values().cloned().map(Edit::PutNamespace));
        for (&table_id, t) in &self.tables {
            out.push(Edit::CreateTable {
                table_id,
                desc: t.desc.clone(),
                regions: t.regions.values().map(|r| r.def.clone()).collect(),
            });
            if !t.enabled {
                out.push(Edit::SetEnabled {
                    table_id,
                    enabled: false,
                });
            }
            if !t.linked.is_empty() {
                out.push(Edit::LinkedFiles {
                    table_id,
                    origins: t.linked.iter().map(|(&f, &o)| (f, o)).collect(),
                });
            }
            for r in t.regions.values() {
                out.push(Edit::Flush {
                    table_id,
                    region_id: r.def.id,
                    flushed_seq: r.flushed_seq,
                    files: r.files.clone(),
                });
            }
        }
        for d in self.snapshots.values() {
            out.push(Edit::Snapshot(d.clone()));
        }
        if !self.reserved_files.is_empty() {
            out.push(Edit::ReservedFiles {
                ids: self.reserved_files.iter().copied().collect(),
            });
        }
        if !self.obsolete_files.is_empty() {
            out.push(Edit::ObsoleteFiles {
                ids: self.obsolete_files.iter().copied().collect(),
            });
        }
        if let Some(live) = &self.wal_segments {
            out.push(Edit::WalSegmentsAdded {
                ids: live.iter().copied().collect(),
            });
        }
        if !self.wal_sealed.is_empty() {
            out.push(Edit::WalSegmentsSealed {
                segments: self.wal_sealed.iter().map(|(&i, &l)| (i, l)).collect(),
            });
        }
        out
    }
}
