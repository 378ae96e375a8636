//! Bulk load (HBase's bulk load of HFiles; RocksDB's `IngestExternalFile`): cells in any row
//! order are sorted (spilling sorted runs to temporary files past a memory budget), written
//! as block files per region and family (split at the region boundaries, Bloom filters
//! built), and made visible by one manifest record: after a crash either every file is listed
//! or none is (unlisted ones are removed as unfinished work at the next open).
//!
//! Sequence numbers: every loaded cell gets the one sequence id the load takes when it starts
//! writing, so for the same row, column and timestamp a put made before the load loses to the
//! loaded cell and one made after the load began wins (HBase assigns a bulk-loaded file's
//! sequence id at load time, `hbase.mapreduce.bulkload.assign.sequenceNumbers`). Within one
//! load, the last of several cells with the same row, column and timestamp wins.
//!
//! Scratch: spilled runs are files `DIR/tmp/bulk-SEQ-N.run` written and read through the
//! filesystem seam and removed when the load ends (finished or failed); an open removes runs
//! a crash left there (the directory holds nothing else).
//!
//! Bounds: memory is the budget (each cell counted at its encoded size plus 24 bytes of
//! bookkeeping) plus one buffered reader per spilled run; the table's splits and merges wait
//! while a load writes.

use super::Engine;
use crate::base::error::{Error, Result};
use crate::engine::output::Output;
use crate::engine::region::Region;
use crate::engine::table::TableShared;
use crate::model::key::{KeyRef, compare_encoded};
use crate::read::matcher::CompactionKind;
use crate::storage::manifest::{Edit, FileRef};
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;

/// The default memory budget of a bulk load's sort.
pub const BULK_LOAD_MEMORY: usize = 256 << 20;

/// One cell: its encoded key (with the load's sequence id) and payload.
pub(crate) type BulkCell = (Vec<u8>, Vec<u8>);

/// Where the sorted cells go: `(key, payload)`.
type Sink<'s> = dyn FnMut(&[u8], &[u8]) -> Result<()> + 's;

/// The files a load wrote into one region: `(family, file id, size)`.
type RegionFiles = (Arc<Region>, Vec<(Vec<u8>, u64, u64)>);

/// One buffered cell: where its key and payload lie in the sorter's arena, and its input
/// position (the last of equal keys wins).
#[derive(Clone, Copy)]
struct Slot {
    at: usize,
    key_len: u32,
    payload_len: u32,
    index: u64,
}

impl Slot {
    fn key<'a>(&self, arena: &'a [u8]) -> &'a [u8] {
        &arena[self.at..self.at + self.key_len as usize]
    }
    fn payload<'a>(&self, arena: &'a [u8]) -> &'a [u8] {
        let start = self.at + self.key_len as usize;
        &arena[start..start + self.payload_len as usize]
    }
}

/// Sorts the slots by key, newest input first among equal keys, and drops the older ones.
fn sort_run(arena: &[u8], slots: &mut Vec<Slot>) {
    slots.sort_unstable_by(|a, b| {
        compare_encoded(a.key(arena), b.key(arena)).then(b.index.cmp(&a.index))
    });
    slots.dedup_by(|later, earlier| {
        compare_encoded(later.key(arena), earlier.key(arena)) == Ordering::Equal
    });
}

/// A sorted run spilled to a scratch file: `[u32 key len][key][u32 payload len][payload]`,
/// read back through the filesystem seam (mapped, not copied).
struct Run {
    file: Arc<dyn crate::base::io::ReadableFile>,
    pos: usize,
    path: std::path::PathBuf,
}

impl Run {
    fn next(&mut self) -> Result<Option<BulkCell>> {
        let bytes = self.file.bytes();
        if self.pos >= bytes.len() {
            return Ok(None);
        }
        let bad = || Error::corruption(&self.path, "bulk load scratch run cut short");
        let part = |pos: &mut usize| -> Result<Vec<u8>> {
            let len_bytes: [u8; 4] = bytes
                .get(*pos..*pos + 4)
                .and_then(|b| b.try_into().ok())
                .ok_or_else(bad)?;
            let len = u32::from_be_bytes(len_bytes) as usize;
            let v = bytes
                .get(*pos + 4..*pos + 4 + len)
                .ok_or_else(bad)?
                .to_vec();
            *pos += 4 + len;
            Ok(v)
        };
        let mut pos = self.pos;
        let key = part(&mut pos)?;
        let payload = part(&mut pos)?;
        self.pos = pos;
        Ok(Some((key, payload)))
    }
}

/// The head of a run in the merge heap: smallest key first; of equal keys the newest run
/// (highest index) first.
struct Head {
    cell: BulkCell,
    run: usize,
}

impl PartialEq for Head {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Head {
    fn cmp(&self, o: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reverse the key order.
        compare_encoded(&o.cell.0, &self.cell.0).then(self.run.cmp(&o.run))
    }
}

/// Collects cells in one arena (no allocation per cell), spilling sorted runs past the
/// budget, and yields them in key order.
pub(crate) struct Sorter {
    budget: usize,
    next_index: u64,
    arena: Vec<u8>,
    slots: Vec<Slot>,
    runs: Vec<std::path::PathBuf>,
    fs: Arc<dyn crate::base::io::FileSystem>,
    /// The database's scratch directory (`DIR/tmp`) and this load's file name prefix.
    dir: std::path::PathBuf,
    prefix: String,
}

impl Drop for Sorter {
    /// The scratch runs are this load's own files: removed whether the load finished or not.
    fn drop(&mut self) {
        for p in &self.runs {
            let _ = self.fs.remove(p);
        }
    }
}

impl Sorter {
    pub(crate) fn new(
        budget: usize,
        fs: Arc<dyn crate::base::io::FileSystem>,
        dir: std::path::PathBuf,
        prefix: String,
    ) -> Sorter {
        Sorter {
            budget: budget.max(1),
            next_index: 0,
            arena: Vec::new(),
            slots: Vec::new(),
            runs: Vec::new(),
            fs,
            dir,
            prefix,
        }
    }

    /// Adds a cell: `key` appends the encoded key to the buffer it is given, then `payload`
    /// the payload.
    pub(crate) fn push_with(
        &mut self,
        key: impl FnOnce(&mut Vec<u8>),
        payload: impl FnOnce(&mut Vec<u8>),
    ) -> Result<()> {
        let at = self.arena.len();
        key(&mut self.arena);
        let key_end = self.arena.len();
        payload(&mut self.arena);
        let too_big = |n: usize| {
            u32::try_from(n).map_err(|_| Error::invalid("bulk load cell larger than 4 GiB"))
        };
        self.slots.push(Slot {
            at,
            key_len: too_big(key_end - at)?,
            payload_len: too_big(self.arena.len() - key_end)?,
            index: self.next_index,
        });
        self.next_index += 1;
        if self.arena.len() + self.slots.len() * std::mem::size_of::<Slot>() >= self.budget {
            self.spill()?;
        }
        Ok(())
    }

    fn spill(&mut self) -> Result<()> {
        sort_run(&self.arena, &mut self.slots);
        self.fs.create_dir_all(&self.dir)?;
        let path = self
            .dir
            .join(format!("{}-{:06}.run", self.prefix, self.runs.len()));
        let mut file = self.fs.create(&path)?;
        self.runs.push(path);
        let mut buf = Vec::with_capacity(1 << 20);
        for s in &self.slots {
            for part in [s.key(&self.arena), s.payload(&self.arena)] {
                buf.extend_from_slice(&(part.len() as u32).to_be_bytes());
                buf.extend_from_slice(part);
            }
            if buf.len() >= 1 << 20 {
                file.append(&buf)?;
                buf.clear();
            }
        }
        file.append(&buf)?;
        self.slots.clear();
        self.arena.clear();
        Ok(())
    }

    /// Every cell in key order (the last of equal keys), to `sink`.
    pub(crate) fn drain(mut self, sink: &mut Sink<'_>) -> Result<u64> {
        let mut n = 0;
        if self.runs.is_empty() {
            sort_run(&self.arena, &mut self.slots);
            for s in &self.slots {
                sink(s.key(&self.arena), s.payload(&self.arena))?;
                n += 1;
            }
            return Ok(n);
        }
        if !self.slots.is_empty() {
            self.spill()?;
        }
        let mut runs = Vec::with_capacity(self.runs.len());
        for p in &self.runs {
            runs.push(Run {
                file: self.fs.open_read(p)?,
                pos: 0,
                path: p.clone(),
            });
        }
        let mut heap = BinaryHeap::new();
        for (i, r) in runs.iter_mut().enumerate() {
            if let Some(cell) = r.next()? {
                heap.push(Head { cell, run: i });
            }
        }
        let mut last: Option<Vec<u8>> = None;
        while let Some(Head { cell, run }) = heap.pop() {
            if let Some(next) = runs[run].next()? {
                heap.push(Head { cell: next, run });
            }
            // Of equal keys the newest run came first: skip the older ones.
            if last
                .as_ref()
                .is_some_and(|l| compare_encoded(l, &cell.0) == Ordering::Equal)
            {
                continue;
            }
            sink(&cell.0, &cell.1)?;
            n += 1;
            last = Some(cell.0);
        }
        Ok(n)
    }
}

impl Engine {
    /// Loads the cells `sorter` holds (keys carry sequence id `seq`) into `table`.
    pub(crate) fn bulk_load(&self, table: &Arc<TableShared>, sorter: Sorter) -> Result<u64> {
        let _structure = table.structure_guard();
        if table.is_dropped() {
            return Err(Error::TableNotFound(table.name.clone()));
        }
        let regions = table.region_list();
        let desc = table.desc_arc();
        let ctx = self.file_ctx();
        // Region index -> (family -> output).
        let mut written: Vec<RegionFiles> = Vec::new();
        let mut outputs: Vec<(Vec<u8>, Output<'_>)> = Vec::new();
        let mut at: Option<usize> = None;
        let finish = |outputs: &mut Vec<(Vec<u8>, Output<'_>)>,
                      region: &Arc<Region>,
                      written: &mut Vec<RegionFiles>|
         -> Result<()> {
            let mut files = Vec::new();
            for (fam, out) in outputs.drain(..) {
                if let Some((id, meta)) = out.finish()? {
                    files.push((fam, id, meta.file_size));
                }
            }
            if !files.is_empty() {
                written.push((region.clone(), files));
            }
            Ok(())
        };
        let result = sorter.drain(&mut |key, payload| {
            let k = KeyRef::parse(key)
                .ok_or_else(|| Error::corruption(&self.path, "malformed bulk load key"))?;
            let idx = regions.partition_point(|r| !r.end().is_empty() && r.end() <= k.row);
            if at != Some(idx) {
                if let Some(prev) = at {
                    finish(&mut outputs, &regions[prev], &mut written)?;
                }
                at = Some(idx);
            }
            let fam = k.family;
            let pos = match outputs.iter().position(|(f, _)| f.as_slice() == fam) {
                Some(p) => p,
                None => {
                    let fd = desc
                        .get_family(fam)
                        .ok_or_else(|| Error::invalid("bulk load cell of an unknown family"))?;
                    outputs.push((
                        fam.to_vec(),
                        Output::new(&ctx, table.id, fd, CompactionKind::Flush, i64::MAX),
                    ));
                    outputs.len() - 1
                }
            };
            outputs[pos].1.push(key, payload)
        });
        let result = result.and_then(|n| {
            if let Some(prev) = at {
                finish(&mut outputs, &regions[prev], &mut written)?;
            }
            Ok(n)
        });
        let cleanup = |written: &[RegionFiles]| {
            // Files this load wrote and nothing lists: ours to remove.
            let ids = written
                .iter()
                .flat_map(|(_, files)| files.iter().map(|(_, id, _)| *id))
                .collect();
            crate::engine::output::discard_outputs(
                self.fs.as_ref(),
                &self.path,
                &self.manifest,
                ids,
            );
        };
        let n = match result {
            Ok(n) => n,
            Err(e) => {
                drop(outputs);
                cleanup(&written);
                return Err(e);
            }
        };
        if written.is_empty() {
            return Ok(n);
        }
        let install = (|| -> Result<()> {
            self.fs.sync_dir(&self.path.join("data"))?;
            self.manifest.lock().append(&Edit::BulkLoad {
                table_id: table.id,
                regions: written
                    .iter()
                    .map(|(r, files)| {
                        (
                            r.id(),
                            files
                                .iter()
                                .map(|(fam, id, size)| FileRef {
                                    family: fam.clone(),
                                    file_id: *id,
                                    size: *size,
                                })
                                .collect(),
                        )
                    })
                    .collect(),
            })
        })();
        if let Err(e) = install {
            cleanup(&written);
            return Err(e);
        }
        for (region, files) in &written {
            for (fam, id, _) in files {
                let f = ctx.open_new_file(fam, *id)?;
                region.replace_files(fam, &[], vec![f]);
            }
        }
        log::info!(
            target: "cellbase::bulk_load",
            "bulk load into table '{}': {n} cells, {} files in {} regions",
            table.name,
            written.iter().map(|(_, f)| f.len()).sum::<usize>(),
            written.len()
        );
        drop(_structure);
        for (region, _) in &written {
            self.maybe_compact(table, region);
        }
        Ok(n)
    }

    /// A sorter for a bulk load, spilling into the database's scratch directory `DIR/tmp`.
    pub(crate) fn bulk_sorter(&self, budget: usize, seq: u64) -> Sorter {
        Sorter::new(
            budget,
            self.fs.clone(),
            self.path.join("tmp"),
            format!("bulk-{seq:016x}"),
        )
    }

    /// A sequence id for a bulk load's cells, published at once (the cells become visible
    /// when their files are installed).
    pub(crate) fn bulk_load_seq(&self) -> u64 {
        let seq = self.mvcc.begin();
        self.mvcc.finish(seq);
        seq
    }
}
