//! Compaction: a store's block files → one block file through the compaction matcher
//! [CMP-1..6], minor by the exploring policy ([`crate::engine::picker`]) or major [REG-1]; for
//! a date-tiered family, files of one time window ([`crate::engine::date_tiered`]) and, for a
//! major compaction, one output file per window; for a FIFO family, whole expired files
//! deleted.

use crate::base::error::Result;
use crate::engine::Engine;
use crate::engine::background::Job;
use crate::engine::date_tiered::{DtFile, major_boundaries, select_minor};
use crate::engine::output::Output;
use crate::engine::picker::{COMPACTION_MIN, PickerConfig, pick};
use crate::engine::region::{
    COMPACTING_MAJOR, COMPACTING_MINOR, Queued, Region, StoreFile, sort_newest_first,
};
use crate::engine::runs::{run_count, store_runs};
use crate::engine::table::TableShared;
use crate::model::cursor::CellCursor;
use crate::model::key::KeyRef;
use crate::model::schema::CompactionPolicy;
use crate::model::schema::{FamilyDescriptor, TableDescriptor};
use crate::read::matcher::CompactionKind;
use crate::read::merge::MergeCursor;
use crate::storage::manifest::{Edit, FileRef};
use crate::storage::sst::CachePolicy;
use std::sync::Arc;

impl Engine {
    /// Queues a minor compaction when a store reaches the minimum file count.
    pub(crate) fn maybe_compact(&self, table: &Arc<TableShared>, region: &Arc<Region>) {
        if self.opts.background_threads == 0 {
            return;
        }
        // HBase's `needsCompaction` (at least `compaction.min` files) or `hasReferences`; a
        // FIFO store needs one when a file has expired whole.
        let desc = table.desc_arc();
        if !desc.is_compaction_enabled() && !region.has_references() {
            return;
        }
        let now = self.clock.now_millis();
        let flush_size = desc
            .table_memstore_flush_size()
            .unwrap_or(self.opts.memstore_flush_size);
        let needs = region.current().files.iter().any(|(fam, l)| {
            desc.get_family(fam).is_some_and(|fd| {
                needs_minor(fd, l, now, flush_size) || self.periodic_major_due(fd, l, now)
            })
        }) || region.has_references();
        if needs && region.try_queue(Queued::Compaction) {
            self.bg.submit(Job::Compact(table.clone(), region.clone()));
        }
    }

    /// Compacts each store of a region, one compaction of the region at a time: minor by the
    /// exploring policy, or major (every file). A minor compaction that selects every file of a
    /// store is a major one [REG-1]. A store holding references (shared with another region
    /// after a split or merge) is always compacted whole, which rewrites them into files of its
    /// own (as HBase forces).
    pub(crate) fn compact_region(
        &self,
        table: &Arc<TableShared>,
        region: &Arc<Region>,
        major: bool,
    ) -> Result<()> {
        self.compact_stores(table, region, major, None)
    }

    /// [`Engine::compact_region`] of one family's store only (`Some`), or of every store.
    pub(crate) fn compact_stores(
        &self,
        table: &Arc<TableShared>,
        region: &Arc<Region>,
        major: bool,
        only: Option<&[u8]>,
    ) -> Result<()> {
        let _one = region.compaction_guard();
        if table.is_dropped() || region.is_retired() {
            return Ok(());
        }
        let desc: Arc<TableDescriptor> = table.desc_arc();
        // COMPACTION_ENABLED => false: no compaction runs (HBase's
        // `CompactSplit.requestCompactionInternal` returns early), except the rewrite of
        // references a split or merge left, which further splits and merges need.
        if !desc.is_compaction_enabled() && !region.has_references() {
            return Ok(());
        }
        let flush_size = desc
            .table_memstore_flush_size()
            .unwrap_or(self.opts.memstore_flush_size);
        // The file lists only: the version also holds the memstores, and a compaction that
        // kept them for its whole run would keep every memstore flushed meanwhile in memory
        // (measured in the harness's YCSB load: up to 130 MiB held by a 1 s compaction).
        let store_files = region.current().files.clone();
        for (family, files) in &store_files {
            if only.is_some_and(|f| f != family.as_slice()) {
                continue;
            }
            let Some(fd) = desc.get_family(family) else {
                continue;
            };
            // Oldest first for the picker.
            let oldest_first: Vec<Arc<StoreFile>> = files.iter().rev().cloned().collect();
            let has_references = files.iter().any(|f| region.is_reference(f));
            // HBase's `selectCompaction`: a compaction asked as minor is a major one when the
            // store's periodic major compaction is due (`hbase.hregion.majorcompaction`).
            let periodic = !major && self.periodic_major_due(fd, files, self.clock.now_millis());
            if periodic {
                log::info!(
                    target: "cellbase::compaction",
                    "periodic major compaction due for table '{}' region {} family {}",
                    table.name,
                    region.id(),
                    crate::base::util::to_string_binary(family)
                );
            }
            let major = major || periodic;
            if fd.compaction_policy == CompactionPolicy::Fifo && !has_references {
                // HBase's FIFOCompactionPolicy: minor or major, only whole expired files go,
                // deleted without a byte rewritten.
                let expired = fifo_expired(fd, files, self.clock.now_millis());
                if !expired.is_empty() {
                    self.drop_expired_files(table, region, fd, &expired)?;
                }
                continue;
            }
            if let CompactionPolicy::DateTiered(cfg) = &fd.compaction_policy {
                // HBase's DateTieredCompactionPolicy: a major compaction (or the rewrite of
                // references) writes one file per window; a minor one compacts in one window.
                let oldest_first = dt_order(oldest_first);
                let dt = dt_files(&oldest_first);
                let now = self.clock.now_millis();
                let (range, boundaries) = if major || has_references {
                    (0..dt.len(), major_boundaries(&dt, now, cfg))
                } else {
                    let stuck = files.len() >= crate::engine::pressure::BLOCKING_STORE_FILES;
                    let picker = PickerConfig::with_flush_size(flush_size);
                    match select_minor(&dt, now, cfg, &picker, stuck) {
                        Some(sel) => (sel.files, sel.boundaries),
                        None => continue,
                    }
                };
                log::debug!(
                    target: "cellbase::compaction",
                    "date-tiered picker for table '{}' region {} family {}: files {}..{} of {} \
                     (oldest first), output window starts {:?}",
                    table.name,
                    region.id(),
                    crate::base::util::to_string_binary(family),
                    range.start,
                    range.end,
                    dt.len(),
                    &boundaries[1..]
                );
                let chosen = &oldest_first[range];
                let kind = if chosen.len() == files.len() {
                    CompactionKind::Major
                } else {
                    CompactionKind::Minor
                };
                self.compact_files(table, region, fd, chosen, kind, boundaries)?;
                continue;
            }
            let chosen: Vec<Arc<StoreFile>> = if major {
                oldest_first
            } else if has_references {
                // Only the files a split or merge shares with another region are rewritten
                // (into files of this region's own rows); HBase rewrites the whole store, which
                // after a split of a sequentially loaded region rewrites every byte of it
                // (docs/SEMANTICS.md).
                oldest_first
                    .into_iter()
                    .filter(|f| region.is_reference(f))
                    .collect()
            } else {
                // The picker counts a sorted run as one file ([`crate::engine::runs`]).
                let runs = store_runs(&oldest_first, fd, self.clock.now_millis());
                let sizes: Vec<u64> = runs
                    .iter()
                    .map(|r| oldest_first[r.clone()].iter().map(|f| f.size()).sum())
                    .collect();
                let picked = pick(&sizes, &PickerConfig::with_flush_size(flush_size))
                    .map(|p| runs[p.start].start..runs[p.end - 1].end);
                log::debug!(
                    target: "cellbase::compaction",
                    "picker for table '{}' region {} family {}: run sizes (oldest first) \
                     {sizes:?} of runs {runs:?} -> {}",
                    table.name,
                    region.id(),
                    crate::base::util::to_string_binary(family),
                    match &picked {
                        Some(r) => format!("files {}..{} selected", r.start, r.end),
                        None => "nothing selected".to_string(),
                    }
                );
                match picked {
                    Some(r) => oldest_first[r].to_vec(),
                    None => continue,
                }
            };
            if chosen.is_empty() {
                continue;
            }
            let kind = if chosen.len() == files.len() {
                CompactionKind::Major
            } else {
                CompactionKind::Minor
            };
            self.compact_files(table, region, fd, &chosen, kind, vec![i64::MIN])?;
        }
        self.maybe_split(table, region);
        Ok(())
    }

    /// Removes whole expired files of a FIFO store: one manifest edit, no output file.
    fn drop_expired_files(
        &self,
        table: &Arc<TableShared>,
        region: &Arc<Region>,
        fd: &FamilyDescriptor,
        expired: &[Arc<StoreFile>],
    ) -> Result<()> {
        let _running = region.compacting(COMPACTING_MINOR);
        let removed: Vec<u64> = expired.iter().map(|f| f.id).collect();
        self.manifest.lock().append(&Edit::Compact {
            table_id: table.id,
            region_id: region.id(),
            removed: removed.clone(),
            added: Vec::new(),
        })?;
        region.replace_files(&fd.name, &removed, Vec::new());
        self.stats.minor_compactions.add(1);
        self.stats
            .compaction_input_bytes
            .add(expired.iter().map(|f| f.size()).sum::<u64>());
        log::info!(
            target: "cellbase::compaction",
            "FIFO compaction of table '{}' region {} family {}: {} expired files ({} bytes) \
             deleted, nothing rewritten",
            table.name,
            region.id(),
            crate::base::util::to_string_binary(&fd.name),
            removed.len(),
            expired.iter().map(|f| f.size()).sum::<u64>()
        );
        self.remove_unlisted_files(removed);
        self.stall.1.notify_all();
        Ok(())
    }

    /// Compacts `chosen` files of a store into one file per window of `boundaries` (the
    /// windows' lower bounds, ascending, the first `i64::MIN`: one window for every policy
    /// but date-tiered).
    fn compact_files(
        &self,
        table: &Arc<TableShared>,
        region: &Arc<Region>,
        fd: &FamilyDescriptor,
        chosen: &[Arc<StoreFile>],
        kind: CompactionKind,
        boundaries: Vec<i64>,
    ) -> Result<()> {
        let _running = region.compacting(match kind {
            CompactionKind::Major => COMPACTING_MAJOR,
            _ => COMPACTING_MINOR,
        });
        let start = std::time::Instant::now();
        let earliest_put_ts = chosen
            .iter()
            .map(|f| f.reader.meta().earliest_put_ts)
            .min()
            .unwrap_or(i64::MAX);
        let mut newest_first = chosen.to_vec();
        sort_newest_first(&mut newest_first);
        let no_cache = CachePolicy {
            fill: false,
            in_memory: false,
        };
        let cursors: Vec<Box<dyn CellCursor>> = newest_first
            .iter()
            .map(|f| Box::new(f.reader.cursor(no_cache)) as Box<dyn CellCursor>)
            .collect();
        let mut merge = MergeCursor::new(cursors);
        // Files shared with another region (references) hold rows outside this region: the
        // output keeps only the region's own [start, end).
        merge.seek(&crate::model::key::first_on_row(region.start()))?;
        let ctx = self.file_ctx();
        let mut out = Output::new(&ctx, table.id, fd, kind, earliest_put_ts)
            .bound_bloom_keys(chosen)
            .with_boundaries(
                boundaries,
                chosen
                    .iter()
                    .map(|f| f.reader.meta().max_seq)
                    .max()
                    .unwrap_or(0),
            );
        let mut cells = 0u64;
        while merge.valid() {
            if !region.end().is_empty()
                && KeyRef::parse(merge.key()).is_some_and(|k| k.row >= region.end())
            {
                break;
            }
            out.push(merge.key(), merge.payload())?;
            cells += 1;
            merge.next()?;
        }
        let result = out.finish_all()?;
        if !result.is_empty() {
            self.fs.sync_dir(&self.path.join("data"))?;
        }
        let added: Vec<FileRef> = result
            .iter()
            .map(|(id, m)| FileRef {
                family: fd.name.clone(),
                file_id: *id,
                size: m.file_size,
            })
            .collect();
        let removed: Vec<u64> = chosen.iter().map(|f| f.id).collect();
        self.manifest.lock().append(&Edit::Compact {
            table_id: table.id,
            region_id: region.id(),
            removed: removed.clone(),
            added,
        })?;
        let opened = result
            .iter()
            .map(|(id, _)| ctx.open_new_file(&fd.name, *id))
            .collect::<Result<Vec<_>>>()?;
        region.replace_files(&fd.name, &removed, opened);
        let s = &self.stats;
        match kind {
            CompactionKind::Major => s.major_compactions.add(1),
            _ => s.minor_compactions.add(1),
        }
        s.compacted_cells.add(cells);
        s.compaction_input_bytes
            .add(chosen.iter().map(|f| f.size()).sum::<u64>());
        let output_bytes: u64 = result.iter().map(|(_, m)| m.file_size).sum();
        s.compaction_output_bytes.add(output_bytes);
        s.compaction_time.record_since(start);
        log::info!(
            target: "cellbase::compaction",
            "{} compaction of table '{}' region {} family {}: {} files ({} bytes) -> {} \
             ({} bytes) in {} ms",
            match kind {
                CompactionKind::Major => "major",
                _ => "minor",
            },
            table.name,
            region.id(),
            crate::base::util::to_string_binary(&fd.name),
            chosen.len(),
            chosen.iter().map(|f| f.size()).sum::<u64>(),
            match result.as_slice() {
                [] => "no file".to_string(),
                [(id, _)] => format!("file {id}"),
                many => format!(
                    "files {}",
                    many.iter()
                        .map(|(id, _)| id.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            output_bytes,
            start.elapsed().as_millis()
        );
        // Open readers keep their mapping; the names go now, unless another region still lists
        // the file.
        self.remove_unlisted_files(removed);
        self.stall.1.notify_all();
        crate::base::util::release_free_memory();
        Ok(())
    }
}

/// Whether a store needs a minor compaction (HBase's `needsCompaction`): a FIFO store when a
/// file has expired whole, a date-tiered one when its picker selects files, any other with at
/// least `compaction.min` (3) sorted runs ([`crate::engine::runs`]). `files` newest first.
pub(crate) fn needs_minor(
    fd: &FamilyDescriptor,
    files: &[Arc<StoreFile>],
    now: i64,
    flush_size: u64,
) -> bool {
    match &fd.compaction_policy {
        CompactionPolicy::Fifo => !fifo_expired(fd, files, now).is_empty(),
        CompactionPolicy::DateTiered(cfg) => {
            let oldest_first = dt_order(files.iter().rev().cloned().collect());
            let stuck = files.len() >= crate::engine::pressure::BLOCKING_STORE_FILES;
            let picker = PickerConfig::with_flush_size(flush_size);
            select_minor(&dt_files(&oldest_first), now, cfg, &picker, stuck).is_some()
        }
        _ => files.len() >= COMPACTION_MIN && run_count(files, fd, now) >= COMPACTION_MIN,
    }
}

/// A date-tiered store's files oldest first by sequence id, then newest timestamp (HBase's
/// `StoreFileComparators.SEQ_ID_MAX_TIMESTAMP`: the outputs of one date-tiered compaction share
/// their sequence id and order by time).
pub(crate) fn dt_order(mut files: Vec<Arc<StoreFile>>) -> Vec<Arc<StoreFile>> {
    files.sort_by_key(|f| {
        let m = f.reader.meta();
        (m.max_seq, m.max_ts, f.id)
    });
    files
}

/// What the date-tiered picker knows of each file: size and time range (every meta version
/// records the time range; a file without cells has none).
pub(crate) fn dt_files(oldest_first: &[Arc<StoreFile>]) -> Vec<DtFile> {
    oldest_first
        .iter()
        .map(|f| {
            let m = f.reader.meta();
            let has_cells = m.cell_count > 0;
            DtFile {
                size: m.file_size,
                min_ts: has_cells.then_some(m.min_ts),
                max_ts: has_cells.then_some(m.max_ts),
            }
        })
        .collect()
}

/// The files of a FIFO store whose every cell has expired: newest timestamp older than the
/// family's TTL (HBase's `FIFOCompactionPolicy.getExpiredStores`).
fn fifo_expired(fd: &FamilyDescriptor, files: &[Arc<StoreFile>], now: i64) -> Vec<Arc<StoreFile>> {
    let Some(ttl) = fd.ttl else {
        return Vec::new();
    };
    let ttl_ms = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
    let cutoff = now.saturating_sub(ttl_ms);
    files
        .iter()
        .filter(|f| f.reader.meta().max_ts < cutoff)
        .cloned()
        .collect()
}
