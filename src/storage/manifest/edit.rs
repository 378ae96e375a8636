//! Manifest edits: one atomic structural change each, and their byte encoding
//! (docs/FORMAT.md, section 4).

use crate::base::codec::{self, DecodeError, Reader};
use crate::model::namespace::NamespaceDescriptor;
use crate::model::schema::TableDescriptor;

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
    /// File ids reserved for the outputs of flushes, compactions and bulk loads that no edit
    /// has added yet. Written before (in the same write as) the first edit after the
    /// reservation, so whenever a durable edit implies a next file id above a reserved id, the
    /// reservation is durable too: an open that finds such a file listed by no region knows it
    /// is the output of unfinished work and deletes it.
    ReservedFiles {
        /// Their file ids.
        ids: Vec<u64>,
    },
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
    /// A snapshot of a table taken: its schema, regions and the files they listed. The files
    /// stay until no table and no snapshot lists them.
    Snapshot(SnapshotDef),
    /// A snapshot deleted: files only it listed become obsolete.
    DeleteSnapshot {
        /// The snapshot's name.
        name: String,
    },
    /// A table made from a snapshot (clone, or restore over the table with this id): its
    /// schema, regions and files replace whatever the id held; the files it replaced that
    /// nothing lists any more become obsolete.
    TableFromSnapshot {
        /// Table id (new for a clone, the table's own for a restore).
        table_id: u64,
        /// The schema (the snapshot's, renamed for a clone).
        desc: TableDescriptor,
        /// Whether the table is enabled (a restore leaves it disabled).
        enabled: bool,
        /// Every region's flushed sequence id: the database's last one, so no older log
        /// record replays into the new regions.
        flushed_seq: u64,
        /// Regions in key order with their files.
        regions: Vec<(RegionDef, Vec<FileRef>)>,
        /// `(file id, table id the file records)` of the files written for another table.
        origins: Vec<(u64, u64)>,
    },
    /// A bulk load: new files for several regions of one table, visible together (one record:
    /// after a crash all of them or none).
    BulkLoad {
        /// Table id.
        table_id: u64,
        /// `(region id, its new files)`.
        regions: Vec<(u64, Vec<FileRef>)>,
    },
    /// Files of a table written for another table (in a manifest snapshot, after the
    /// table's `CreateTable`).
    LinkedFiles {
        /// Table id.
        table_id: u64,
        /// `(file id, table id the file records)`.
        origins: Vec<(u64, u64)>,
    },
    /// A namespace created, or its properties replaced (`alter_namespace`). A manifest
    /// written before namespaces existed has none: only `default` and `hbase`, which are
    /// never recorded.
    PutNamespace(NamespaceDescriptor),
    /// A namespace dropped (it held no tables).
    DropNamespace {
        /// The namespace name.
        name: String,
    },
}

fn put_pairs(out: &mut Vec<u8>, pairs: &[(u64, u64)]) {
    codec::put_varint(out, pairs.len() as u64);
    for (a, b) in pairs {
        codec::put_varint(out, *a);
        codec::put_varint(out, *b);
    }
}

fn get_pairs(r: &mut Reader<'_>) -> std::result::Result<Vec<(u64, u64)>, DecodeError> {
    let n = r.len(r.remaining(), "pair count")?;
    let mut v = Vec::with_capacity(n.min(4096));
    for _ in 0..n {
        v.push((r.varint("file id")?, r.varint("table id")?));
    }
    Ok(v)
}

fn put_region_files(out: &mut Vec<u8>, regions: &[(RegionDef, Vec<FileRef>)]) {
    codec::put_varint(out, regions.len() as u64);
    for (def, files) in regions {
        put_region(out, def);
        put_files(out, files);
    }
}

fn get_region_files(
    r: &mut Reader<'_>,
) -> std::result::Result<Vec<(RegionDef, Vec<FileRef>)>, DecodeError> {
    let n = r.len(r.remaining(), "region count")?;
    let mut regions = Vec::with_capacity(n.min(4096));
    for _ in 0..n {
        let def = get_region(r)?;
        regions.push((def, get_files(r)?));
    }
    Ok(regions)
}

/// A snapshot as the manifest records it (HBase's snapshot manifest: schema, regions, store
/// files).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotDef {
    /// The snapshot's name (unique in the database).
    pub name: String,
    /// The table's name when the snapshot was taken.
    pub table: String,
    /// The table's id then.
    pub table_id: u64,
    /// When it was taken (the database clock, ms).
    pub created_ms: i64,
    /// The table's schema then.
    pub desc: TableDescriptor,
    /// Its regions in key order, each with its files (oldest first).
    pub regions: Vec<(RegionDef, Vec<FileRef>)>,
    /// `(file id, table id the file records)` for every file of the snapshot.
    pub origins: Vec<(u64, u64)>,
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
            Edit::ReservedFiles { ids } => {
                o.push(25);
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
            Edit::Snapshot(d) => {
                o.push(20);
                codec::put_bytes(&mut o, d.name.as_bytes());
                codec::put_bytes(&mut o, d.table.as_bytes());
                codec::put_varint(&mut o, d.table_id);
                codec::put_u64(&mut o, d.created_ms as u64);
                d.desc.encode_into(&mut o);
                put_region_files(&mut o, &d.regions);
                put_pairs(&mut o, &d.origins);
            }
            Edit::TableFromSnapshot {
                table_id,
                desc,
                enabled,
                flushed_seq,
                regions,
                origins,
            } => {
                o.push(22);
                codec::put_varint(&mut o, *table_id);
                desc.encode_into(&mut o);
                o.push(u8::from(*enabled));
                codec::put_varint(&mut o, *flushed_seq);
                put_region_files(&mut o, regions);
                put_pairs(&mut o, origins);
            }
            Edit::BulkLoad { table_id, regions } => {
                o.push(24);
                codec::put_varint(&mut o, *table_id);
                codec::put_varint(&mut o, regions.len() as u64);
                for (id, files) in regions {
                    codec::put_varint(&mut o, *id);
                    put_files(&mut o, files);
                }
            }
            Edit::LinkedFiles { table_id, origins } => {
                o.push(23);
                codec::put_varint(&mut o, *table_id);
                put_pairs(&mut o, origins);
            }
            Edit::DeleteSnapshot { name } => {
                o.push(21);
                codec::put_bytes(&mut o, name.as_bytes());
            }
            Edit::WalSegmentsSealed { segments } => {
                o.push(13);
                codec::put_varint(&mut o, segments.len() as u64);
                for (id, len) in segments {
                    codec::put_varint(&mut o, *id);
                    codec::put_varint(&mut o, *len);
                }
            }
            Edit::PutNamespace(ns) => {
                o.push(14);
                ns.encode_into(&mut o);
            }
            Edit::DropNamespace { name } => {
                o.push(15);
                codec::put_bytes(&mut o, name.as_bytes());
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
            25 => Edit::ReservedFiles {
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
            20 => {
                let text = |r: &mut Reader<'_>, what: &'static str| {
                    let b = r.bytes(what)?;
                    String::from_utf8(b.to_vec()).map_err(|_| DecodeError {
                        what: "snapshot or table name is not UTF-8",
                        offset: r.pos(),
                    })
                };
                let name = text(&mut r, "snapshot name")?;
                let table = text(&mut r, "table name")?;
                let table_id = r.varint("table id")?;
                let created_ms = r.u64("snapshot time")? as i64;
                let desc = TableDescriptor::decode(&mut r)?;
                let regions = get_region_files(&mut r)?;
                let origins = get_pairs(&mut r)?;
                Edit::Snapshot(SnapshotDef {
                    name,
                    table,
                    table_id,
                    created_ms,
                    desc,
                    regions,
                    origins,
                })
            }
            22 => {
                let table_id = r.varint("table id")?;
                let desc = TableDescriptor::decode(&mut r)?;
                let enabled = r.u8("enabled")? != 0;
                let flushed_seq = r.varint("flushed seq")?;
                let regions = get_region_files(&mut r)?;
                let origins = get_pairs(&mut r)?;
                Edit::TableFromSnapshot {
                    table_id,
                    desc,
                    enabled,
                    flushed_seq,
                    regions,
                    origins,
                }
            }
            24 => {
                let table_id = r.varint("table id")?;
                let n = r.len(r.remaining(), "region count")?;
                let mut regions = Vec::with_capacity(n.min(4096));
                for _ in 0..n {
                    let id = r.varint("region id")?;
                    regions.push((id, get_files(&mut r)?));
                }
                Edit::BulkLoad { table_id, regions }
            }
            23 => Edit::LinkedFiles {
                table_id: r.varint("table id")?,
                origins: get_pairs(&mut r)?,
            },
            21 => {
                let b = r.bytes("snapshot name")?;
                Edit::DeleteSnapshot {
                    name: String::from_utf8(b.to_vec()).map_err(|_| DecodeError {
                        what: "snapshot name is not UTF-8",
                        offset: r.pos(),
                    })?,
                }
            }
            14 => Edit::PutNamespace(NamespaceDescriptor::decode(&mut r)?),
            15 => {
                let at = r.pos();
                Edit::DropNamespace {
                    name: std::str::from_utf8(r.bytes("namespace name")?)
                        .map_err(|_| DecodeError {
                            what: "namespace name not UTF-8",
                            offset: at,
                        })?
                        .to_string(),
                }
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
