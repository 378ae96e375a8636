//! Region splits and merges [SPLIT-1..3] [MERGE-1], and the automatic split check.
//!
//! Split steps: (1) take the table's structure lock and the region's compaction and flush
//! locks; (2) flush the region; (3) choose the split row (the caller's, or the mid-key row of
//! the largest file [SPLIT-2]); (4) retire the region under its update lock, so writers re-route
//! and wait; (5) flush what arrived meanwhile; (6) one manifest record `Split` naming both
//! daughters and the parent files each overlaps, synced; (7) install the daughters in place of
//! the parent. A crash before (6) leaves the parent (its data is in files and the WAL); after
//! it, the daughters. Daughters read the shared files clamped to their own range (half-file
//! references) until a compaction rewrites them; a file is deleted only when no region lists
//! it. A merge follows the same steps with two adjacent regions and a `Merge` record; it
//! refuses regions that hold references (the caller major-compacts them first), because the
//! merged range would expose the parts of those files outside the old ranges.

use crate::base::error::{Error, Result};
use crate::engine::Engine;
use crate::engine::background::Job;
use crate::engine::picker::COMPACTION_MIN;
use crate::engine::region::{Queued, Region, StoreFile};
use crate::engine::runs::disjoint_runs;
use crate::engine::split_policy::{
    FileSplitInfo, SplitPolicy, SplitPolicyConfig, SplitRowGrouping, choose_split_row, should_split,
};
use crate::engine::table::TableShared;
use crate::model::region_split_policy::RegionSplitPolicy;
use crate::storage::manifest::{Edit, FileRef, RegionDef};
use parking_lot::MutexGuard;
use std::collections::BTreeMap;
use std::sync::Arc;

type Files = BTreeMap<Vec<u8>, Vec<Arc<StoreFile>>>;

/// A split flushes again before retiring the region while its memstore holds at least this
/// many bytes (HBase's `hbase.hregion.preclose.flush.size` default).
const PRE_FLUSH_SIZE: u64 = 5 << 20;
/// At most this many extra flushes before retiring (each one is shorter when the flush
/// outpaces the writers; the bound keeps a split from chasing a fast writer with ever more
/// small files).
const PRE_FLUSH_ROUNDS: usize = 2;

/// A store's files (`oldest_first`) as HBase's minor compactions would have left them: each
/// run of at least [`COMPACTION_MIN`] consecutive row-disjoint files ([`crate::engine::runs`])
/// as one group (the one file a compaction would make of it; cellbase leaves such files as
/// they are), ascending by row, and every other file alone.
fn compacted_groups<'a>(oldest_first: &[&'a Arc<StoreFile>]) -> Vec<Vec<&'a Arc<StoreFile>>> {
    let mut groups = Vec::new();
    for run in disjoint_runs(oldest_first) {
        if run.len() < COMPACTION_MIN {
            groups.extend(oldest_first[run].iter().map(|f| vec![*f]));
        } else {
            let mut files = oldest_first[run].to_vec();
            files.sort_by(|a, b| a.reader.meta().first_row().cmp(b.reader.meta().first_row()));
            groups.push(files);
        }
    }
    groups
}

/// The size of the one file a compaction would make of `group`: its files' data blocks plus
/// the largest file's index, Bloom and meta (each small file of a run repeats those); a
/// single file's own size.
fn group_size(group: &[&Arc<StoreFile>]) -> u64 {
    let data: u64 = group.iter().map(|f| f.reader.data_end()).sum();
    let overhead = group
        .iter()
        .map(|f| f.size().saturating_sub(f.reader.data_end()))
        .max()
        .unwrap_or(0);
    data + overhead
}

/// What the split policy knows of a store ([`compacted_groups`], one [`FileSplitInfo`] per
/// group) [SPLIT-2]. A group's mid row is where the compacted file's middle block would start:
/// none (its first row) when its data would fit one block of `block_size`, as for one small
/// file; else the mid row of the file holding the group's middle data byte, or, when that is
/// the group's first row (a first file of one block), the next file's first row. So a store of
/// small sequential files, each of one block, can still split.
fn split_infos<'a>(oldest_first: &[&'a Arc<StoreFile>], block_size: u64) -> Vec<FileSplitInfo<'a>> {
    compacted_groups(oldest_first)
        .into_iter()
        .map(|files| {
            let first_row = files[0].reader.meta().first_row();
            let data: u64 = files.iter().map(|f| f.reader.data_end()).sum();
            let mid_row = match files.as_slice() {
                [one] => one.reader.mid_row().unwrap_or_default(),
                _ if data <= block_size => first_row,
                _ => {
                    let mut before = 0u64;
                    let at = files
                        .iter()
                        .position(|f| {
                            before += f.reader.data_end();
                            before > data / 2
                        })
                        .unwrap_or(files.len() - 1);
                    match files[at].reader.mid_row().unwrap_or_default() {
                        mid if mid == first_row && at + 1 < files.len() => {
                            files[at + 1].reader.meta().first_row()
                        }
                        mid => mid,
                    }
                }
            };
            FileSplitInfo {
                size: group_size(&files),
                first_row,
                last_row: files[files.len() - 1].reader.meta().last_row(),
                mid_row,
            }
        })
        .collect()
}

/// A store's size for the split policy [SPLIT-1]: the sizes of its [`compacted_groups`], so
/// that a store of many small row-disjoint files (which cellbase does not compact, HBase does)
/// splits when the compacted store would.
fn store_split_size(newest_first: &[Arc<StoreFile>]) -> u64 {
    let oldest_first: Vec<&Arc<StoreFile>> = newest_first.iter().rev().collect();
    compacted_groups(&oldest_first)
        .iter()
        .map(|g| group_size(g))
        .sum()
}

/// The files of `files` that hold rows in `[start, end)`.
fn overlapping(files: &Files, start: &[u8], end: &[u8]) -> Files {
    files
        .iter()
        .map(|(fam, list)| {
            let kept: Vec<_> = list
                .iter()
                .filter(|f| {
                    let m = f.reader.meta();
                    m.last_row() >= start && (end.is_empty() || m.first_row() < end)
                })
                .cloned()
                .collect();
            (fam.clone(), kept)
        })
        .filter(|(_, l)| !l.is_empty())
        .collect()
}

fn refs(files: &Files) -> Vec<FileRef> {
    files
        .iter()
        .flat_map(|(fam, list)| {
            list.iter().map(move |f| FileRef {
                family: fam.clone(),
                file_id: f.id,
                size: f.size(),
            })
        })
        .collect()
}

impl Engine {
    /// The split thresholds of a table's policy (`SPLIT_POLICY`, default Stepping [SPLIT-1]):
    /// the two prefix policies split by IncreasingToUpperBound's thresholds, as their HBase
    /// classes (subclasses of it) do.
    fn split_policy(&self, table: &TableShared) -> SplitPolicyConfig {
        let desc = table.desc_arc();
        let max = desc
            .table_max_region_size()
            .unwrap_or(self.opts.max_region_size);
        let flush = desc
            .table_memstore_flush_size()
            .unwrap_or(self.opts.memstore_flush_size);
        let policy = match desc.table_split_policy() {
            RegionSplitPolicy::ConstantSize => SplitPolicy::ConstantSize,
            RegionSplitPolicy::Stepping => SplitPolicy::Stepping,
            RegionSplitPolicy::Disabled => SplitPolicy::Disabled,
            RegionSplitPolicy::IncreasingToUpperBound
            | RegionSplitPolicy::KeyPrefix { .. }
            | RegionSplitPolicy::DelimitedKeyPrefix { .. } => SplitPolicy::IncreasingToUpperBound,
        };
        SplitPolicyConfig::new(policy, max, flush)
    }

    /// The region's split row from its files [SPLIT-2], cut back to a key prefix by the table's
    /// prefix policy: `None` while a store holds references, when the largest file's mid-key
    /// row is its first or last row, or when the cut row is the region's start.
    pub(crate) fn split_point(&self, table: &TableShared, region: &Region) -> Option<Vec<u8>> {
        let v = region.current();
        let desc = table.desc_arc();
        let stores: Vec<(bool, Vec<FileSplitInfo<'_>>)> = v
            .files
            .iter()
            .map(|(family, list)| {
                let block_size = desc
                    .get_family(family)
                    .map_or(64 << 10, |fd| u64::from(fd.block_size));
                // Oldest first, as the policy expects; a sorted run stands as one file.
                let oldest_first: Vec<&Arc<StoreFile>> = list.iter().rev().collect();
                (
                    list.iter().any(|f| region.is_reference(f)),
                    split_infos(&oldest_first, block_size),
                )
            })
            .collect();
        let grouping = match desc.table_split_policy() {
            RegionSplitPolicy::KeyPrefix { prefix_length } => {
                SplitRowGrouping::Prefix(*prefix_length as usize)
            }
            RegionSplitPolicy::DelimitedKeyPrefix { delimiter } => {
                SplitRowGrouping::Delimiter(delimiter)
            }
            _ => SplitRowGrouping::WholeRow,
        };
        choose_split_row(&stores, region.start(), region.end(), grouping)
    }

    /// After a flush or compaction (background threads only): queue a split when the policy
    /// says the region is too big and it has a split point [SPLIT-1] [SPLIT-2] (HBase's
    /// `checkSplit`). Returns whether a split is due (queued now or before).
    pub(crate) fn maybe_split(&self, table: &Arc<TableShared>, region: &Arc<Region>) -> bool {
        if self.opts.background_threads == 0 {
            return false;
        }
        if !self.wants_split(table, region) || self.split_point(table, region).is_none() {
            return false;
        }
        if region.try_queue(Queued::Split) {
            self.bg.submit(Job::Split(table.clone(), region.clone()));
        }
        true
    }

    /// The split policy's verdict on `region` now [SPLIT-1].
    fn wants_split(&self, table: &Arc<TableShared>, region: &Arc<Region>) -> bool {
        if region.is_retired() || table.is_dropped() || !self.split_enabled() {
            return false;
        }
        let cfg = self.split_policy(table);
        let v = region.current();
        let sizes: Vec<u64> = v.files.values().map(|l| store_split_size(l)).collect();
        let has_refs = v.files.values().flatten().any(|f| region.is_reference(f));
        let count = table.region_count() as u32;
        should_split(&cfg, count, &sizes, has_refs, false, 0.0)
    }

    /// The automatic split check of every region of `table`, run in the calling thread: each
    /// region the policy finds too big is split at its split point and both daughters are
    /// compacted, which rewrites the files they share (what a background thread does after a
    /// flush). Returns the split rows.
    pub(crate) fn split_check(&self, table: &Arc<TableShared>) -> Result<Vec<Vec<u8>>> {
        let mut rows = Vec::new();
        for region in table.region_list() {
            if !self.wants_split(table, &region) {
                continue;
            }
            if let Some(daughters) = self.split_region(table, &region, None)? {
                rows.push(daughters[1].start().to_vec());
                for d in &daughters {
                    self.compact_region(table, d, false)?;
                }
            }
        }
        Ok(rows)
    }

    /// Splits `region` at `at`, or at its split point. Returns the daughters, or `None` when
    /// there is no split point (or the region was already replaced).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `at` is not strictly inside the region.
    pub(crate) fn split_region(
        &self,
        table: &Arc<TableShared>,
        region: &Arc<Region>,
        at: Option<&[u8]>,
    ) -> Result<Option<[Arc<Region>; 2]>> {
        if !self.split_enabled() {
            // SplitTableRegionProcedure's check.
            return Err(Error::invalid(format!(
                "Split region {} of table {} failed due to split switch off",
                region.id(),
                table.name
            )));
        }
        let started = std::time::Instant::now();
        let _structure = table.structure_guard();
        let _compaction = region.compaction_guard();
        let _flush = region.flush_guard();
        if region.is_retired() || table.is_dropped() {
            return Ok(None);
        }
        self.flush_locked(table, region)?;
        // Writes keep arriving during that flush. Flush again while the memstore is still
        // large, so the last flush (with the region retired, writers waiting) is short: HBase
        // pre-flushes before closing a region for the same reason
        // (`hbase.hregion.preclose.flush.size`, 5 MiB).
        for _ in 0..PRE_FLUSH_ROUNDS {
            if region.active().size() < PRE_FLUSH_SIZE {
                break;
            }
            self.flush_locked(table, region)?;
        }
        let row = match at {
            Some(r) => r.to_vec(),
            None => match self.split_point(table, region) {
                Some(r) => r,
                None => return Ok(None),
            },
        };
        if row.as_slice() <= region.start()
            || (!region.end().is_empty() && row.as_slice() >= region.end())
        {
            return Err(Error::invalid(format!(
                "split row {} is not strictly inside region [{}, {})",
                crate::base::util::to_string_binary(&row),
                crate::base::util::to_string_binary(region.start()),
                crate::base::util::to_string_binary(region.end())
            )));
        }
        region.retire();
        let installed = self.install_split(table, region, row);
        if installed.is_err() {
            region.unretire();
        } else {
            self.stats.splits.add(1);
            self.stats.split_time.record_since(started);
        }
        installed.map(Some)
    }

    fn install_split(
        &self,
        table: &Arc<TableShared>,
        region: &Arc<Region>,
        row: Vec<u8>,
    ) -> Result<[Arc<Region>; 2]> {
        self.flush_locked(table, region)?;
        let v = region.current();
        let (low, high) = {
            let mut m = self.manifest.lock();
            (m.next_region_id(), m.next_region_id())
        };
        let defs = [
            RegionDef {
                id: low,
                start: region.start().to_vec(),
                end: row.clone(),
            },
            RegionDef {
                id: high,
                start: row,
                end: region.end().to_vec(),
            },
        ];
        let files: Vec<Files> = defs
            .iter()
            .map(|d| overlapping(&v.files, &d.start, &d.end))
            .collect();
        let edit = Edit::Split {
            table_id: table.id,
            parent_id: region.id(),
            daughters: defs
                .iter()
                .zip(&files)
                .map(|(d, f)| (d.clone(), refs(f)))
                .collect(),
        };
        self.manifest.lock().append(&edit)?;
        let flushed = region.flushed_seq();
        let mut files = files.into_iter();
        let [da, db] = defs.map(|d| {
            Arc::new(Region::new(
                d.id,
                d.start,
                d.end,
                flushed,
                files.next().unwrap_or_default(),
                &self.memstore_bytes,
            ))
        });
        let now = self.clock.now_millis();
        da.set_created_ms(now);
        db.set_created_ms(now);
        table.replace_regions(&[region.id()], vec![da.clone(), db.clone()]);
        log::info!(
            target: "cellbase::split",
            "split table '{}' region {} at {}: daughters {} and {}",
            table.name,
            region.id(),
            crate::base::util::to_string_binary(da.end()),
            da.id(),
            db.id()
        );
        Ok([da, db])
    }

    /// Merges two adjacent regions into one [MERGE-1].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when they are not adjacent.
    pub(crate) fn merge_regions(
        &self,
        table: &Arc<TableShared>,
        a: &Arc<Region>,
        b: &Arc<Region>,
    ) -> Result<Arc<Region>> {
        if !self.merge_enabled() {
            // MergeTableRegionsProcedure's check.
            return Err(Error::invalid(format!(
                "Merge of regions {} and {} of table {} failed because merge switch is off",
                a.id(),
                b.id(),
                table.name
            )));
        }
        let (lo, hi) = if a.end() == b.start() && !a.end().is_empty() {
            (a, b)
        } else if b.end() == a.start() && !b.end().is_empty() {
            (b, a)
        } else {
            return Err(Error::invalid("merge: the regions are not adjacent"));
        };
        let _structure = table.structure_guard();
        let locks: Vec<MutexGuard<'_, ()>> = vec![
            lo.compaction_guard(),
            hi.compaction_guard(),
            lo.flush_guard(),
            hi.flush_guard(),
        ];
        if lo.is_retired() || hi.is_retired() || table.is_dropped() {
            return Err(Error::invalid(
                "merge: a region was split or merged meanwhile",
            ));
        }
        if lo.has_references() || hi.has_references() {
            // Their files must lie inside their ranges (see `Table::merge`).
            return Err(Error::invalid(
                "merge: a region holds references; run a major compaction first",
            ));
        }
        for r in [lo, hi] {
            self.flush_locked(table, r)?;
        }
        lo.retire();
        hi.retire();
        let merged = self.install_merge(table, lo, hi);
        if merged.is_err() {
            lo.unretire();
            hi.unretire();
        }
        drop(locks);
        merged
    }

    fn install_merge(
        &self,
        table: &Arc<TableShared>,
        lo: &Arc<Region>,
        hi: &Arc<Region>,
    ) -> Result<Arc<Region>> {
        for r in [lo, hi] {
            self.flush_locked(table, r)?;
        }
        let mut files: Files = lo.current().files.clone();
        for (fam, list) in &hi.current().files {
            let into = files.entry(fam.clone()).or_default();
            for f in list {
                if !into.iter().any(|g| g.id == f.id) {
                    into.push(f.clone());
                }
            }
            crate::engine::region::sort_newest_first(into);
        }
        let id = self.manifest.lock().next_region_id();
        let def = RegionDef {
            id,
            start: lo.start().to_vec(),
            end: hi.end().to_vec(),
        };
        let edit = Edit::Merge {
            table_id: table.id,
            parent_ids: vec![lo.id(), hi.id()],
            merged: (def.clone(), refs(&files)),
        };
        self.manifest.lock().append(&edit)?;
        let flushed = lo.flushed_seq().max(hi.flushed_seq());
        let merged = Arc::new(Region::new(
            def.id,
            def.start,
            def.end,
            flushed,
            files,
            &self.memstore_bytes,
        ));
        merged.set_created_ms(self.clock.now_millis());
        table.replace_regions(&[lo.id(), hi.id()], vec![merged.clone()]);
        self.stats.merges.add(1);
        log::info!(
            target: "cellbase::split",
            "merged table '{}' regions {} and {} (at {}) into region {}",
            table.name,
            lo.id(),
            hi.id(),
            crate::base::util::to_string_binary(hi.start()),
            merged.id()
        );
        Ok(merged)
    }
}
