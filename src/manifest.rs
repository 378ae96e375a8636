//! The manifest: every structural change (table created, dropped or altered; files added by a
//! flush; files replaced by a compaction) is one CRC-framed record in a log, appended and synced
//! after the data it names is durable. Replaying the log rebuilds [`ManifestState`].
//!
//! On open the log is rewritten as a snapshot into a new `MANIFEST-n` file, which `CURRENT`
//! then names (write temp, sync, rename, sync directory), so the log stays short.

use crate::codec::{self, DecodeError, Reader};
use crate::error::{Error, Result};
use crate::io::{FileSystem, WritableFile};
use crate::model::schema::TableDescriptor;
use crate::wal::record::{TailPolicy, encode_record, read_records};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Record type of an edit in the manifest log.
pub const RECORD_EDIT: u8 = 1;
/// Record type of the end of the snapshot that every manifest starts with (payload: the number
/// of edit records before it, a varint). Every record up to it was synced before `CURRENT`
/// named the file, so damage anywhere before it is corruption, never a torn tail.
pub const RECORD_SNAPSHOT_END: u8 = 2;
/// Encoding version of edits, first byte of every edit record.
const EDIT_VERSION: u8 = 1;

/// A block file of a store as the manifest knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRef {
    /// The family (store) it belongs to.
    pub family: Vec<u8>,
    /// File id: the file is `data/{id:010}.sst`.
    pub file_id: u64,
    /// Size in bytes, checked when the file is opened.
    pub size: u64,
}

/// A region's key range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionDef {
    /// Region id, unique in the database.
    pub id: u64,
    /// Start key, inclusive; empty = unbounded.
    pub start: Vec<u8>,
    /// End key, exclusive; empty = unbounded.
    pub end: Vec<u8>,
}

/// One atomic structural change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// A table and its initial regions.
    CreateTable {
        /// Table id.
        table_id: u64,
        /// Its schema.
        desc: TableDescriptor,
        /// Its regions in key order.
        regions: Vec<RegionDef>,
    },
    /// A table removed with all its regions and files.
    DropTable {
        /// Table id.
        table_id: u64,
    },
    /// A table's new schema.
    AlterTable {
        /// Table id.
        table_id: u64,
        /// The new schema.
        desc: TableDescriptor,
    },
    /// A flush: new files, and every WAL record of the region up to `flushed_seq` is in files.
    Flush {
        /// Table id.
        table_id: u64,
        /// Region id.
        region_id: u64,
        /// Highest sequence id covered by the region's files.
        flushed_seq: u64,
        /// The new files (at most one per family).
        files: Vec<FileRef>,
    },
    /// A compaction: `removed` replaced by `added`.
    Compact {
        /// Table id.
        table_id: u64,
        /// Region id.
        region_id: u64,
        /// Ids of the input files.
        removed: Vec<u64>,
        /// The output files (none when everything was purged).
        added: Vec<FileRef>,
    },
    /// A region replaced by two daughters `[start, split)` and `[split, end)` that list the
    /// parent's files they overlap (reads clamp them to their own range) [SPLIT-3].
    Split {
        /// Table id.
        table_id: u64,
        /// The region split.
        parent_id: u64,
        /// The daughters, low first, with their files.
        daughters: Vec<(RegionDef, Vec<FileRef>)>,
    },
    /// Two adjacent regions replaced by one listing both parents' files [MERGE-1].
    Merge {
        /// Table id.
        table_id: u64,
        /// The merged regions.
        parent_ids: Vec<u64>,
        /// The new region and its files.
        merged: (RegionDef, Vec<FileRef>),
    },
    /// Table enabled or disabled.
    SetEnabled {
        /// Table id.
        table_id: u64,
        /// New state.
        enabled: bool,
    },
    /// The database's identity and id counters: the first edit of every snapshot, so the next
    /// file id is durable even when the files with the highest ids are gone (a file numbered at
    /// or above it can only be the output of unfinished work).
    Ids(IdCounters),
    /// Block files no region lists any more that were not yet deleted (in a snapshot).
    ObsoleteFiles {
        /// Their file ids.
        ids: Vec<u64>,
    },
    /// WAL segments created: each must exist until a [`Edit::WalSegmentsDeleted`] names it.
    WalSegmentsAdded {
        /// Segment ids.
        ids: Vec<u64>,
    },
    /// WAL segments about to be deleted (every record in them is in block files).
    WalSegmentsDeleted {
        /// Segment ids.
        ids: Vec<u64>,
    },
    /// WAL segments closed for good, each with the length it was synced at: a shorter file is
    /// a log cut short, whatever its own framing shows.
    WalSegmentsSealed {
        /// `(segment id, length in bytes)`.
        segments: Vec<(u64, u64)>,
    },
}

/// The database's identity and id counters, as [`Edit::Ids`] records them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdCounters {
    /// The database's identity (random, fixed when it was created); block files record it.
    pub db_id: u64,
    /// Next unused file id.
    pub next_file_id: u64,
    /// Next unused table id.
    pub next_table_id: u64,
    /// Next unused region id.
    pub next_region_id: u64,
    /// Highest sequence id recorded by any flush.
    pub max_flushed_seq: u64,
}

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
    /// WAL segments that must exist (created and not yet deleted as flushed); `None` in a
    /// manifest written before the log was tracked.
    pub wal_segments: Option<BTreeSet<u64>>,
    /// Live WAL segments closed for good, with their synced length.
    pub wal_sealed: BTreeMap<u64, u64>,
}

impl ManifestState {
    /// True when some region lists block file `id`.
    pub fn references(&self, id: u64) -> bool {
        self.tables
            .values()
            .flat_map(|t| t.regions.values())
            .any(|r| r.files.iter().any(|f| f.file_id == id))
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
            for r in t.regions.values() {
                out.push(Edit::Flush {
                    table_id,
                    region_id: r.def.id,
                    flushed_seq: r.flushed_seq,
                    files: r.files.clone(),
                });
            }
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

fn put_file(out: &mut Vec<u8>, f: &FileRef) {
    codec::put_bytes(out, &f.family);
    codec::put_varint(out, f.file_id);
    codec::put_varint(out, f.size);
}

fn put_ids(out: &mut Vec<u8>, ids: &[u64]) {
    codec::put_varint(out, ids.len() as u64);
    ids.iter().for_each(|id| codec::put_varint(out, *id));
}

fn get_ids(r: &mut Reader<'_>) -> std::result::Result<Vec<u64>, DecodeError> {
    let n = r.len(r.remaining(), "id count")?;
    let mut ids = Vec::with_capacity(n.min(4096));
    for _ in 0..n {
        ids.push(r.varint("id")?);
    }
    Ok(ids)
}

fn put_files(out: &mut Vec<u8>, files: &[FileRef]) {
    codec::put_varint(out, files.len() as u64);
    files.iter().for_each(|f| put_file(out, f));
}

fn put_region(out: &mut Vec<u8>, d: &RegionDef) {
    codec::put_varint(out, d.id);
    codec::put_bytes(out, &d.start);
    codec::put_bytes(out, &d.end);
}

fn get_region(r: &mut Reader<'_>) -> std::result::Result<RegionDef, DecodeError> {
    Ok(RegionDef {
        id: r.varint("region id")?,
        start: r.bytes("start key")?.to_vec(),
        end: r.bytes("end key")?.to_vec(),
    })
}

fn get_files(r: &mut Reader<'_>) -> std::result::Result<Vec<FileRef>, DecodeError> {
    let n = r.len(r.remaining(), "file count")?;
    let mut files = Vec::with_capacity(n.min(4096));
    for _ in 0..n {
        files.push(get_file(r)?);
    }
    Ok(files)
}

fn get_file(r: &mut Reader<'_>) -> std::result::Result<FileRef, DecodeError> {
    Ok(FileRef {
        family: r.bytes("family")?.to_vec(),
        file_id: r.varint("file id")?,
        size: r.varint("file size")?,
    })
}

impl Edit {
    /// Encodes the edit (record payload).
    pub fn encode(&self) -> Vec<u8> {
        let mut o = vec![EDIT_VERSION];
        match self {
            Edit::CreateTable {
                table_id,
                desc,
                regions,
            } => {
                o.push(1);
                codec::put_varint(&mut o, *table_id);
                desc.encode_into(&mut o);
                codec::put_varint(&mut o, regions.len() as u64);
                for r in regions {
                    codec::put_varint(&mut o, r.id);
                    codec::put_bytes(&mut o, &r.start);
                    codec::put_bytes(&mut o, &r.end);
                }
            }
            Edit::DropTable { table_id } => {
                o.push(2);
                codec::put_varint(&mut o, *table_id);
            }
            Edit::AlterTable { table_id, desc } => {
                o.push(3);
                codec::put_varint(&mut o, *table_id);
                desc.encode_into(&mut o);
            }
            Edit::Flush {
                table_id,
                region_id,
                flushed_seq,
                files,
            } => {
                o.push(4);
                codec::put_varint(&mut o, *table_id);
                codec::put_varint(&mut o, *region_id);
                codec::put_varint(&mut o, *flushed_seq);
                put_files(&mut o, files);
            }
            Edit::Compact {
                table_id,
                region_id,
                removed,
                added,
            } => {
                o.push(5);
                codec::put_varint(&mut o, *table_id);
                codec::put_varint(&mut o, *region_id);
                put_ids(&mut o, removed);
                put_files(&mut o, added);
            }
            Edit::Split {
                table_id,
                parent_id,
                daughters,
            } => {
                o.push(7);
                codec::put_varint(&mut o, *table_id);
                codec::put_varint(&mut o, *parent_id);
                codec::put_varint(&mut o, daughters.len() as u64);
                for (def, files) in daughters {
                    put_region(&mut o, def);
                    put_files(&mut o, files);
                }
            }
            Edit::Merge {
                table_id,
                parent_ids,
                merged,
            } => {
                o.push(8);
                codec::put_varint(&mut o, *table_id);
                put_ids(&mut o, parent_ids);
                put_region(&mut o, &merged.0);
                put_files(&mut o, &merged.1);
            }
            Edit::SetEnabled { table_id, enabled } => {
                o.push(6);
                codec::put_varint(&mut o, *table_id);
                o.push(u8::from(*enabled));
            }
            Edit::Ids(ids) => {
                o.push(9);
                codec::put_u64(&mut o, ids.db_id);
                for v in [
                    ids.next_file_id,
                    ids.next_table_id,
                    ids.next_region_id,
                    ids.max_flushed_seq,
                ] {
                    codec::put_varint(&mut o, v);
                }
            }
            Edit::ObsoleteFiles { ids } => {
                o.push(10);
                put_ids(&mut o, ids);
            }
            Edit::WalSegmentsAdded { ids } => {
                o.push(11);
                put_ids(&mut o, ids);
            }
            Edit::WalSegmentsDeleted { ids } => {
                o.push(12);
                put_ids(&mut o, ids);
            }
            Edit::WalSegmentsSealed { segments } => {
                o.push(13);
                codec::put_varint(&mut o, segments.len() as u64);
                for (id, len) in segments {
                    codec::put_varint(&mut o, *id);
                    codec::put_varint(&mut o, *len);
                }
            }
        }
        o
    }

    /// Decodes an edit.
    pub fn decode(b: &[u8]) -> std::result::Result<Edit, DecodeError> {
        let mut r = Reader::new(b);
        if r.u8("edit version")? != EDIT_VERSION {
            return Err(DecodeError {
                what: "unknown edit version",
                offset: 0,
            });
        }
        let tag = r.u8("edit type")?;
        let e = match tag {
            1 => {
                let table_id = r.varint("table id")?;
                let desc = TableDescriptor::decode(&mut r)?;
                let n = r.len(r.remaining(), "region count")?;
                let mut regions = Vec::with_capacity(n.min(4096));
                for _ in 0..n {
                    regions.push(RegionDef {
                        id: r.varint("region id")?,
                        start: r.bytes("start key")?.to_vec(),
                        end: r.bytes("end key")?.to_vec(),
                    });
                }
                Edit::CreateTable {
                    table_id,
                    desc,
                    regions,
                }
            }
            2 => Edit::DropTable {
                table_id: r.varint("table id")?,
            },
            3 => Edit::AlterTable {
                table_id: r.varint("table id")?,
                desc: TableDescriptor::decode(&mut r)?,
            },
            4 => {
                let table_id = r.varint("table id")?;
                let region_id = r.varint("region id")?;
                let flushed_seq = r.varint("flushed seq")?;
                let files = get_files(&mut r)?;
                Edit::Flush {
                    table_id,
                    region_id,
                    flushed_seq,
                    files,
                }
            }
            5 => {
                let table_id = r.varint("table id")?;
                let region_id = r.varint("region id")?;
                let removed = get_ids(&mut r)?;
                let added = get_files(&mut r)?;
                Edit::Compact {
                    table_id,
                    region_id,
                    removed,
                    added,
                }
            }
            6 => Edit::SetEnabled {
                table_id: r.varint("table id")?,
                enabled: r.u8("enabled")? != 0,
            },
            7 => {
                let table_id = r.varint("table id")?;
                let parent_id = r.varint("parent id")?;
                let n = r.len(r.remaining(), "daughter count")?;
                let mut daughters = Vec::with_capacity(n.min(16));
                for _ in 0..n {
                    let def = get_region(&mut r)?;
                    daughters.push((def, get_files(&mut r)?));
                }
                Edit::Split {
                    table_id,
                    parent_id,
                    daughters,
                }
            }
            8 => {
                let table_id = r.varint("table id")?;
                let parent_ids = get_ids(&mut r)?;
                let def = get_region(&mut r)?;
                Edit::Merge {
                    table_id,
                    parent_ids,
                    merged: (def, get_files(&mut r)?),
                }
            }
            9 => Edit::Ids(IdCounters {
                db_id: r.u64("database id")?,
                next_file_id: r.varint("next file id")?,
                next_table_id: r.varint("next table id")?,
                next_region_id: r.varint("next region id")?,
                max_flushed_seq: r.varint("max flushed seq")?,
            }),
            10 => Edit::ObsoleteFiles {
                ids: get_ids(&mut r)?,
            },
            11 => Edit::WalSegmentsAdded {
                ids: get_ids(&mut r)?,
            },
            12 => Edit::WalSegmentsDeleted {
                ids: get_ids(&mut r)?,
            },
            13 => {
                let n = r.len(r.remaining(), "segment count")?;
                let mut segments = Vec::with_capacity(n.min(4096));
                for _ in 0..n {
                    segments.push((r.varint("segment id")?, r.varint("segment length")?));
                }
                Edit::WalSegmentsSealed { segments }
            }
            _ => {
                return Err(DecodeError {
                    what: "unknown edit type",
                    offset: 1,
                });
            }
        };
        if !r.is_empty() {
            return Err(DecodeError {
                what: "trailing bytes after edit",
                offset: r.pos(),
            });
        }
        Ok(e)
    }
}

/// The open manifest log.
pub struct Manifest {
    fs: std::sync::Arc<dyn FileSystem>,
    dir: PathBuf,
    file: Box<dyn WritableFile>,
    state: ManifestState,
    /// Set when an append or sync failed: the record may or may not be durable, so the
    /// in-memory state can no longer be trusted to match the log; every later change is refused
    /// until the database is reopened (which replays what is really there).
    poisoned: Option<String>,
}

impl std::fmt::Debug for Manifest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Manifest")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

fn manifest_name(n: u64) -> String {
    format!("MANIFEST-{n:06}")
}

/// A manifest as read from disk by [`Manifest::load`], nothing changed yet.
#[derive(Debug, Clone)]
pub struct LoadedManifest {
    /// The state it describes.
    pub state: ManifestState,
    /// The live manifest file (`CURRENT` names it).
    pub path: PathBuf,
    /// Its number (`MANIFEST-{number:06}`).
    pub number: u64,
    /// The file is empty. Only a database from before manifest snapshots had an end record
    /// can have an empty manifest (one that never created a table).
    pub empty: bool,
    /// Written before [`Edit::Ids`] and snapshot end records existed: the next file id was
    /// not recorded, and the whole file follows the older torn-final-record rule.
    pub legacy: bool,
    /// Offset of a torn final record that was dropped: an edit whose append never completed,
    /// so it was never acknowledged.
    pub dropped_tail_at: Option<u64>,
}

/// Parses the `CURRENT` file's content: the manifest's name and number.
fn parse_current(current: &Path, bytes: &[u8]) -> Result<(String, u64)> {
    let name = std::str::from_utf8(bytes)
        .ok()
        .map(str::trim)
        .filter(|n| n.starts_with("MANIFEST-") && !n.contains('/'))
        .ok_or_else(|| Error::corruption(current, "CURRENT does not name a manifest"))?
        .to_string();
    let number = name["MANIFEST-".len()..]
        .parse()
        .ok()
        .filter(|&n| manifest_name(n) == name)
        .ok_or_else(|| {
            Error::corruption(current, format!("bad manifest name {name:?} at offset 0"))
        })?;
    Ok((name, number))
}

/// Replays a manifest file's bytes. The snapshot a manifest starts with (every record up to
/// [`RECORD_SNAPSHOT_END`]) must be whole: `CURRENT` named the file only after it was synced,
/// so any damage there is [`Error::Corruption`] naming the file and offset. After it, only a
/// torn final record (an append cut by a crash, never acknowledged) is dropped.
pub fn replay_manifest(bytes: &[u8], path: &Path) -> Result<(ManifestState, bool, Option<u64>)> {
    let (records, valid) = read_records(bytes, path, TailPolicy::TornFinalRecordOnly)?;
    let dropped_tail_at = (valid < bytes.len() as u64).then_some(valid);
    let first_is_ids = records.first().is_some_and(|r| {
        r.rtype == RECORD_EDIT && matches!(Edit::decode(r.payload), Ok(Edit::Ids(_)))
    });
    let legacy = !records.is_empty() && !first_is_ids;
    let end = records.iter().position(|r| r.rtype == RECORD_SNAPSHOT_END);
    if !bytes.is_empty() && !legacy && end.is_none() {
        return Err(Error::corruption(
            path,
            format!(
                "the snapshot the manifest starts with has no end record: damaged or cut at \
                 offset {valid}"
            ),
        ));
    }
    let mut state = ManifestState::default();
    for (i, rec) in records.iter().enumerate() {
        match rec.rtype {
            RECORD_EDIT => {
                let edit =
                    Edit::decode(rec.payload).map_err(|e| e.into_corruption(path, rec.offset))?;
                state.apply(&edit).map_err(|m| {
                    Error::corruption(path, format!("{m} (record at offset {})", rec.offset))
                })?;
            }
            RECORD_SNAPSHOT_END if Some(i) == end && !legacy => {
                let mut r = Reader::new(rec.payload);
                let count = r
                    .varint("snapshot edit count")
                    .map_err(|e| e.into_corruption(path, rec.offset))?;
                if count != i as u64 || !r.is_empty() {
                    return Err(Error::corruption(
                        path,
                        format!(
                            "snapshot end record at offset {} counts {count} edits, {i} precede it",
                            rec.offset
                        ),
                    ));
                }
            }
            t => {
                return Err(Error::corruption(
                    path,
                    format!("unexpected record type {t} at offset {}", rec.offset),
                ));
            }
        }
    }
    Ok((state, legacy, dropped_tail_at))
}

impl Manifest {
    /// Reads the manifest `CURRENT` names, changing nothing on disk. `None` when there is no
    /// `CURRENT`.
    ///
    /// # Errors
    /// [`Error::Corruption`] naming the file and offset for a bad `CURRENT`, a missing manifest,
    /// damage in its snapshot, damage followed by further records, or an edit that does not
    /// fit the state.
    pub fn load(fs: &dyn FileSystem, dir: &Path) -> Result<Option<LoadedManifest>> {
        let current = dir.join("CURRENT");
        if !fs.exists(&current) {
            return Ok(None);
        }
        let (name, number) = parse_current(&current, &fs.read_all(&current)?)?;
        let path = dir.join(&name);
        let bytes = match fs.read_all(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::corruption(
                    &current,
                    format!("names {name}, which does not exist (offset 0)"),
                ));
            }
            Err(e) => return Err(e.into()),
        };
        let (state, legacy, dropped_tail_at) = replay_manifest(&bytes, &path)?;
        Ok(Some(LoadedManifest {
            state,
            path,
            number,
            empty: bytes.is_empty(),
            legacy,
            dropped_tail_at,
        }))
    }

    /// Replays `dir`'s manifest (if any), writes a fresh snapshot manifest and points CURRENT at
    /// it. Returns the manifest and the recovered state.
    pub fn open(
        fs: std::sync::Arc<dyn FileSystem>,
        dir: &Path,
    ) -> Result<(Manifest, ManifestState)> {
        let loaded = Manifest::load(fs.as_ref(), dir)?;
        let (state, number, old) = match loaded {
            Some(l) => (l.state, l.number, Some(l.path)),
            None => (ManifestState::default(), 0, None),
        };
        let m = Manifest::write_snapshot(fs, dir, number + 1, state.clone(), &|| Ok(()))?;
        if let Some(p) = old {
            m.remove_replaced(&p);
        }
        Ok((m, state))
    }

    /// Removes the manifest a new snapshot replaced (`CURRENT` no longer names it). Best
    /// effort: a leftover is an older `MANIFEST-n` that nothing reads.
    pub fn remove_replaced(&self, old: &Path) {
        let _ = self.fs.remove(old);
    }

    /// Writes `state` as a new manifest `MANIFEST-{number}`: its snapshot edits, then the
    /// snapshot end record, synced; then `CURRENT.tmp` naming it (synced), `still_owner` (the
    /// caller's re-check that it still holds the database's lock), the rename over `CURRENT`
    /// and a sync of the directory. The new manifest is whole and durable before `CURRENT`
    /// names it.
    pub fn write_snapshot(
        fs: std::sync::Arc<dyn FileSystem>,
        dir: &Path,
        number: u64,
        state: ManifestState,
        still_owner: &dyn Fn() -> Result<()>,
    ) -> Result<Manifest> {
        let path = dir.join(manifest_name(number));
        let mut file = fs.create(&path)?;
        let mut buf = Vec::new();
        let edits = state.snapshot_edits();
        for e in &edits {
            encode_record(&mut buf, RECORD_EDIT, &e.encode());
        }
        let mut count = Vec::new();
        codec::put_varint(&mut count, edits.len() as u64);
        encode_record(&mut buf, RECORD_SNAPSHOT_END, &count);
        file.append(&buf)?;
        file.sync_data()?;
        let tmp = dir.join("CURRENT.tmp");
        let mut c = fs.create(&tmp)?;
        c.append(format!("{}\n", manifest_name(number)).as_bytes())?;
        c.sync_data()?;
        drop(c);
        still_owner()?;
        fs.rename(&tmp, &dir.join("CURRENT"))?;
        fs.sync_dir(dir)?;
        Ok(Manifest {
            fs,
            dir: dir.to_path_buf(),
            file,
            state,
            poisoned: None,
        })
    }

    /// Appends and syncs one edit, then applies it to the in-memory state.
    ///
    /// # Errors
    /// [`Error::Poisoned`] after an earlier append or sync failed; [`Error::Io`] when this one
    /// fails (which poisons the manifest).
    pub fn append(&mut self, edit: &Edit) -> Result<()> {
        self.append_all(std::slice::from_ref(edit))
    }

    /// Appends several edits with one write and one sync (each is its own record), then
    /// applies them in order; as [`Manifest::append`] otherwise.
    ///
    /// # Errors
    /// As [`Manifest::append`].
    pub fn append_all(&mut self, edits: &[Edit]) -> Result<()> {
        if let Some(why) = &self.poisoned {
            return Err(Error::Poisoned(format!("manifest: {why}")));
        }
        let mut next = self.state.clone();
        let mut buf = Vec::new();
        for edit in edits {
            next.apply(edit).map_err(Error::InvalidArgument)?;
            encode_record(&mut buf, RECORD_EDIT, &edit.encode());
        }
        if let Err(e) = self.file.append(&buf).and_then(|()| self.file.sync_data()) {
            self.poisoned = Some(e.to_string());
            return Err(Error::Io(e));
        }
        self.state = next;
        Ok(())
    }

    /// The state after every appended edit.
    pub fn state(&self) -> &ManifestState {
        &self.state
    }

    /// Forgets obsolete files that were deleted (in memory only: the next snapshot leaves
    /// them out; until then the manifest still names them, and a later open finds them gone).
    pub fn forget_obsolete(&mut self, ids: &[u64]) {
        for id in ids {
            self.state.obsolete_files.remove(id);
        }
    }

    /// Reserves a new file id (recorded durably by the edit that adds the file).
    pub fn next_file_id(&mut self) -> u64 {
        let id = self.state.next_file_id;
        self.state.next_file_id += 1;
        id
    }

    /// Reserves a new table id.
    pub fn next_table_id(&mut self) -> u64 {
        let id = self.state.next_table_id;
        self.state.next_table_id += 1;
        id
    }

    /// Reserves a new region id.
    pub fn next_region_id(&mut self) -> u64 {
        let id = self.state.next_region_id;
        self.state.next_region_id += 1;
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::StdFs;
    use crate::model::schema::FamilyDescriptor;
    use std::sync::Arc;

    fn desc() -> TableDescriptor {
        TableDescriptor::new("t").family(FamilyDescriptor::new("f"))
    }

    #[test]
    fn edits_round_trip() {
        let f = FileRef {
            family: b"f".to_vec(),
            file_id: 7,
            size: 100,
        };
        for e in [
            Edit::CreateTable {
                table_id: 1,
                desc: desc(),
                regions: vec![RegionDef {
                    id: 2,
                    start: vec![],
                    end: b"m".to_vec(),
                }],
            },
            Edit::DropTable { table_id: 1 },
            Edit::AlterTable {
                table_id: 1,
                desc: desc(),
            },
            Edit::Flush {
                table_id: 1,
                region_id: 2,
                flushed_seq: 9,
                files: vec![f.clone()],
            },
            Edit::Compact {
                table_id: 1,
                region_id: 2,
                removed: vec![3, 4],
                added: vec![f.clone()],
            },
            Edit::SetEnabled {
                table_id: 1,
                enabled: false,
            },
            Edit::Split {
                table_id: 1,
                parent_id: 2,
                daughters: vec![
                    (
                        RegionDef {
                            id: 3,
                            start: vec![],
                            end: b"m".to_vec(),
                        },
                        vec![f.clone()],
                    ),
                    (
                        RegionDef {
                            id: 4,
                            start: b"m".to_vec(),
                            end: vec![],
                        },
                        vec![],
                    ),
                ],
            },
            Edit::Merge {
                table_id: 1,
                parent_ids: vec![3, 4],
                merged: (
                    RegionDef {
                        id: 5,
                        start: vec![],
                        end: vec![],
                    },
                    vec![f.clone()],
                ),
            },
            Edit::Ids(IdCounters {
                db_id: 0xfeed_beef,
                next_file_id: 9,
                next_table_id: 2,
                next_region_id: 6,
                max_flushed_seq: 77,
            }),
            Edit::ObsoleteFiles { ids: vec![3, 4] },
            Edit::WalSegmentsAdded { ids: vec![12, 13] },
            Edit::WalSegmentsDeleted { ids: vec![12] },
            Edit::WalSegmentsSealed {
                segments: vec![(12, 4096), (13, 77)],
            },
        ] {
            assert_eq!(Edit::decode(&e.encode()).unwrap(), e);
        }
        assert!(Edit::decode(&[1, 99]).is_err());
        assert!(Edit::decode(&[]).is_err());
    }

    #[test]
    fn reopen_replays_and_rewrites() {
        let dir = tempfile::tempdir().unwrap();
        let fs: Arc<dyn FileSystem> = Arc::new(StdFs);
        let (mut m, st) = Manifest::open(fs.clone(), dir.path()).unwrap();
        assert!(st.tables.is_empty());
        m.append(&Edit::CreateTable {
            table_id: 0,
            desc: desc(),
            regions: vec![RegionDef {
                id: 0,
                start: vec![],
                end: vec![],
            }],
        })
        .unwrap();
        let fid = m.next_file_id();
        m.append(&Edit::Flush {
            table_id: 0,
            region_id: 0,
            flushed_seq: 5,
            files: vec![FileRef {
                family: b"f".to_vec(),
                file_id: fid,
                size: 1,
            }],
        })
        .unwrap();
        assert!(m.append(&Edit::DropTable { table_id: 42 }).is_err());
        let expect = m.state().clone();
        drop(m);
        let (_m, st) = Manifest::open(fs.clone(), dir.path()).unwrap();
        assert_eq!(st, expect);
        assert_eq!(st.next_file_id, 1);
        assert_eq!(st.max_flushed_seq, 5);
        let names = fs.list(dir.path()).unwrap();
        assert_eq!(
            names.iter().filter(|n| n.starts_with("MANIFEST-")).count(),
            1,
            "{names:?}"
        );
    }
}
