//! [`manifest_edits`]: the records of a manifest, each edit described in words.

use super::files::{is_dir, read_regular};
use crate::base::codec::Reader;
use crate::base::error::Result;
use crate::base::io::StdFs;
use crate::base::util::to_string_binary;
use crate::storage::manifest::{
    Edit, FileRef, RECORD_EDIT, RECORD_SNAPSHOT_END, RegionDef, parse_current,
};
use crate::storage::wal::record::{HEADER_LEN, TailPolicy, read_records};
use std::fmt;
use std::path::Path;

/// What a manifest record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ManifestRecordKind {
    /// An edit: one structural change (a table created, a flush's files, a split, ...).
    Edit,
    /// The end of the snapshot every manifest starts with: every record before it was written
    /// when the manifest was created.
    SnapshotEnd,
    /// A record type this version does not know (its type byte).
    Unknown(u8),
}

/// One record of a manifest.
///
/// Displayed as `offset N: DESCRIPTION`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ManifestRecord {
    /// Offset of the record's frame in the manifest file.
    pub offset: u64,
    /// Bytes of the record's frame (header and payload).
    pub len: u64,
    /// What it is.
    pub kind: ManifestRecordKind,
    /// The table the edit changes, when it changes one.
    pub table_id: Option<u64>,
    /// The edit in words, e.g. `flush of table 1, region 2, up to sequence id 600: file 7
    /// (family a, 4242 bytes)`.
    pub description: String,
}

impl fmt::Display for ManifestRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "offset {}: {}", self.offset, self.description)
    }
}

/// The records of a manifest, in file order: of the manifest `CURRENT` names when `path` is a
/// database directory, or of the manifest file `path`. A torn final record (an append a crash
/// cut off, which an open drops) is left out.
///
/// # Errors
/// [`Error::Io`](crate::Error::Io) when a file cannot be read (only regular files are read);
/// [`Error::Corruption`](crate::Error::Corruption) naming the file and offset when `CURRENT` names no manifest, a
/// record is damaged (other than a torn final one) or an edit does not decode.
pub fn manifest_edits(path: impl AsRef<Path>) -> Result<Vec<ManifestRecord>> {
    let (fs, path) = (&StdFs, path.as_ref());
    let manifest = if is_dir(fs, path)? {
        let current = path.join("CURRENT");
        let (name, _) = parse_current(&current, &read_regular(fs, &current)?)?;
        path.join(name)
    } else {
        path.to_path_buf()
    };
    let bytes = read_regular(fs, &manifest)?;
    let (records, _) = read_records(&bytes, &manifest, TailPolicy::TornFinalRecordOnly)?;
    let mut out = Vec::with_capacity(records.len());
    for rec in records {
        let (kind, table_id, description) = match rec.rtype {
            RECORD_EDIT => {
                let edit = Edit::decode(rec.payload)
                    .map_err(|e| e.into_corruption(&manifest, rec.offset))?;
                (ManifestRecordKind::Edit, table_of(&edit), describe(&edit))
            }
            RECORD_SNAPSHOT_END => {
                let n = Reader::new(rec.payload)
                    .varint("snapshot edit count")
                    .map_err(|e| e.into_corruption(&manifest, rec.offset))?;
                (
                    ManifestRecordKind::SnapshotEnd,
                    None,
                    format!("end of the snapshot ({n} edits)"),
                )
            }
            t => (
                ManifestRecordKind::Unknown(t),
                None,
                format!("record of unknown type {t}"),
            ),
        };
        out.push(ManifestRecord {
            offset: rec.offset,
            len: (HEADER_LEN + rec.payload.len()) as u64,
            kind,
            table_id,
            description,
        });
    }
    Ok(out)
}

fn table_of(e: &Edit) -> Option<u64> {
    match e {
        Edit::CreateTable { table_id, .. }
        | Edit::DropTable { table_id }
        | Edit::AlterTable { table_id, .. }
        | Edit::Flush { table_id, .. }
        | Edit::Compact { table_id, .. }
        | Edit::Split { table_id, .. }
        | Edit::Merge { table_id, .. }
        | Edit::SetEnabled { table_id, .. } => Some(*table_id),
        Edit::Ids(_)
        | Edit::ReservedFiles { .. }
        | Edit::ObsoleteFiles { .. }
        | Edit::WalSegmentsAdded { .. }
        | Edit::WalSegmentsDeleted { .. }
        | Edit::WalSegmentsSealed { .. }
        | Edit::PutNamespace(_)
        | Edit::DropNamespace { .. }
        | Edit::Snapshot(_)
        | Edit::DeleteSnapshot { .. } => None,
        Edit::TableFromSnapshot { table_id, .. }
        | Edit::LinkedFiles { table_id, .. }
        | Edit::BulkLoad { table_id, .. } => Some(*table_id),
    }
}

fn list<T>(items: &[T], f: impl Fn(&T) -> String) -> String {
    items.iter().map(f).collect::<Vec<_>>().join(", ")
}

fn ids(ids: &[u64]) -> String {
    list(ids, u64::to_string)
}

fn files(files: &[FileRef]) -> String {
    if files.is_empty() {
        return "no files".into();
    }
    let one = |f: &FileRef| {
        format!(
            "{} (family {}, {} bytes)",
            f.file_id,
            to_string_binary(&f.family),
            f.size
        )
    };
    let s = if files.len() == 1 { "" } else { "s" };
    format!("file{s} {}", list(files, one))
}

fn region(r: &RegionDef) -> String {
    format!(
        "{} ['{}', '{}')",
        r.id,
        to_string_binary(&r.start),
        to_string_binary(&r.end)
    )
}

fn families(desc: &crate::model::schema::TableDescriptor) -> String {
    list(desc.families(), |f| to_string_binary(f.name()))
}

/// An edit in words.
fn describe(e: &Edit) -> String {
    match e {
        Edit::CreateTable {
            table_id,
            desc,
            regions,
        } => format!(
            "create table {} (id {table_id}), families {}, regions {}",
            desc.name(),
            families(desc),
            list(regions, region)
        ),
        Edit::DropTable { table_id } => format!("drop table {table_id}"),
        Edit::AlterTable { table_id, desc } => format!(
            "alter table {} (id {table_id}), families {}",
            desc.name(),
            families(desc)
        ),
        Edit::Flush {
            table_id,
            region_id,
            flushed_seq,
            files: f,
        } => format!(
            "flush of table {table_id}, region {region_id}, up to sequence id {flushed_seq}: {}",
            files(f)
        ),
        Edit::Compact {
            table_id,
            region_id,
            removed,
            added,
        } => format!(
            "compaction of table {table_id}, region {region_id}: files {} replaced by {}",
            ids(removed),
            files(added)
        ),
        Edit::Split {
            table_id,
            parent_id,
            daughters,
        } => format!(
            "split of table {table_id}, region {parent_id} into {}",
            list(daughters, |(r, f)| format!(
                "{} with {}",
                region(r),
                files(f)
            ))
        ),
        Edit::Merge {
            table_id,
            parent_ids,
            merged: (r, f),
        } => format!(
            "merge of table {table_id}, regions {} into {} with {}",
            ids(parent_ids),
            region(r),
            files(f)
        ),
        Edit::SetEnabled {
            table_id,
            enabled: true,
        } => format!("enable table {table_id}"),
        Edit::SetEnabled {
            table_id,
            enabled: false,
        } => format!("disable table {table_id}"),
        Edit::Ids(c) => format!(
            "database {:016x}: next file id {}, next table id {}, next region id {}, highest \
             flushed sequence id {}",
            c.db_id, c.next_file_id, c.next_table_id, c.next_region_id, c.max_flushed_seq
        ),
        Edit::ReservedFiles { ids: i } => format!("block file ids reserved {}", ids(i)),
        Edit::ObsoleteFiles { ids: i } => format!("obsolete block files {}", ids(i)),
        Edit::WalSegmentsAdded { ids: i } => format!("log segments added: {}", ids(i)),
        Edit::WalSegmentsDeleted { ids: i } => format!("log segments deleted: {}", ids(i)),
        Edit::WalSegmentsSealed { segments } => format!(
            "log segments sealed: {}",
            list(segments, |(id, len)| format!("{id} at {len} bytes"))
        ),
        Edit::Snapshot(d) => format!(
            "snapshot {} of table {} at {} ms, regions {}",
            d.name,
            d.table,
            d.created_ms,
            list(&d.regions, |(r, f)| format!("{}: {}", region(r), files(f)))
        ),
        Edit::DeleteSnapshot { name } => format!("delete snapshot {name}"),
        Edit::TableFromSnapshot {
            table_id,
            desc,
            enabled,
            regions,
            ..
        } => format!(
            "table {} (id {table_id}) from a snapshot, {}, regions {}",
            desc.name(),
            if *enabled { "enabled" } else { "disabled" },
            list(regions, |(r, f)| format!("{}: {}", region(r), files(f)))
        ),
        Edit::BulkLoad { table_id, regions } => format!(
            "bulk load into table {table_id}: {}",
            list(regions, |(r, f)| format!("region {r}: {}", files(f)))
        ),
        Edit::LinkedFiles { table_id, origins } => format!(
            "files of table {table_id} written for other tables: {}",
            list(origins, |(f, t)| format!("{f} (table {t})"))
        ),
        Edit::PutNamespace(ns) if ns.properties().is_empty() => {
            format!("namespace {}", ns.name())
        }
        Edit::PutNamespace(ns) => format!(
            "namespace {} with {}",
            ns.name(),
            ns.properties()
                .iter()
                .map(|(k, v)| format!("{k} => {v:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Edit::DropNamespace { name } => format!("drop namespace {name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::schema::{FamilyDescriptor, TableDescriptor};

    #[test]
    fn edits_are_described() {
        let desc = TableDescriptor::new("t")
            .family(FamilyDescriptor::new("a"))
            .family(FamilyDescriptor::new("b"));
        let r = |id, s: &str, e: &str| RegionDef {
            id,
            start: s.as_bytes().to_vec(),
            end: e.as_bytes().to_vec(),
        };
        let f = |id| FileRef {
            family: b"a".to_vec(),
            file_id: id,
            size: 100,
        };
        let cases = [
            (
                Edit::CreateTable {
                    table_id: 1,
                    desc,
                    regions: vec![r(1, "", "m"), r(2, "m", "")],
                },
                "create table t (id 1), families a, b, regions 1 ['', 'm'), 2 ['m', '')",
            ),
            (
                Edit::Flush {
                    table_id: 1,
                    region_id: 2,
                    flushed_seq: 9,
                    files: vec![f(7)],
                },
                "flush of table 1, region 2, up to sequence id 9: file 7 (family a, 100 bytes)",
            ),
            (
                Edit::Compact {
                    table_id: 1,
                    region_id: 2,
                    removed: vec![7, 8],
                    added: vec![],
                },
                "compaction of table 1, region 2: files 7, 8 replaced by no files",
            ),
            (
                Edit::WalSegmentsSealed {
                    segments: vec![(3, 4096)],
                },
                "log segments sealed: 3 at 4096 bytes",
            ),
            (
                Edit::PutNamespace(
                    crate::model::namespace::NamespaceDescriptor::new("ns").property("k", "v"),
                ),
                "namespace ns with k => \"v\"",
            ),
            (
                Edit::DropNamespace { name: "ns".into() },
                "drop namespace ns",
            ),
        ];
        for (e, want) in cases {
            assert_eq!(describe(&e), want);
        }
    }
}
