//! Writing block files: the context a flush or compaction writes with ([`FileCtx`]) and the
//! stream of cells through a compaction matcher into one new file per family (`Output`), or
//! one per time window for a date-tiered compaction (HBase's `DateTieredMultiFileWriter`).

use crate::base::error::{Error, Result};
use crate::base::io::FileSystem;
use crate::engine::region::StoreFile;
use crate::engine::stats::EngineStats;
use crate::model::key::KeyRef;
use crate::model::payload::PayloadRef;
use crate::model::schema::FamilyDescriptor;
use crate::read::matcher::{CompactionKind, CompactionMatcher, MatchCode};
use crate::storage::manifest::Manifest;
use crate::storage::sst::EntryEncoding;
use crate::storage::sst::meta::FileIdentity;
use crate::storage::sst::sst_path;
use crate::storage::sst::{BlockCache, FileMeta, SstReader, SstWriter, SstWriterConfig};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

fn writer_config(f: &FamilyDescriptor) -> SstWriterConfig {
    SstWriterConfig {
        block_size: f.block_size as usize,
        compression: f.compression,
        bloom: f.bloom_filter,
        // New files use the family's current encoding; files written before an `alter` keep
        // theirs (recorded in each file's meta block) until a compaction rewrites them.
        encoding: EntryEncoding::of(f.data_block_encoding),
        ..SstWriterConfig::default()
    }
}

/// What writing and installing a block file needs: the database's files, manifest and cache,
/// the clock for TTLs and the read point cells above which are kept. [`Engine::file_ctx`]
/// builds it for a running database; the open ([`Engine::open`]) builds one for flushes during
/// log replay, before the database's handle exists.
pub(crate) struct FileCtx<'a> {
    pub fs: &'a dyn FileSystem,
    pub path: &'a Path,
    pub manifest: &'a Mutex<Manifest>,
    pub cache: &'a Arc<BlockCache>,
    pub now: i64,
    /// Open scanners' read points (read point -> count), when scanners can be open: cells
    /// above the smallest one are kept and never mask (§1.7).
    pub scanner_points: Option<&'a Mutex<BTreeMap<u64, usize>>>,
    /// Where flushes count themselves (none during replay at open).
    pub stats: Option<&'a EngineStats>,
}

/// Streams cells through a compaction matcher into a new file per family, or per time window.
pub(crate) struct Output<'a> {
    ctx: &'a FileCtx<'a>,
    table_id: u64,
    family: &'a FamilyDescriptor,
    matcher: CompactionMatcher,
    /// Lower bounds of the outputs' time windows, ascending, the first `i64::MIN`: a cell the
    /// matcher keeps goes to the output of the greatest bound at or below its timestamp. One
    /// window (one output) unless [`Output::with_boundaries`] set more.
    boundaries: Vec<i64>,
    /// One writer per window, created with the window's first cell.
    writers: Vec<Option<(u64, SstWriter)>>,
    /// With several windows: the inputs' largest sequence id, recorded by every output.
    inputs_max_seq: u64,
    /// A major compaction writes the files (recorded in their meta block).
    major: bool,
    /// Dropping the rest of this column (row, family, qualifier of the cell that said so).
    skip_column: Option<Vec<u8>>,
    /// A bound on the output's distinct Bloom keys ([`SstWriter::bound_bloom_keys`]).
    bloom_bound: Option<u64>,
}

impl<'a> Output<'a> {
    pub(crate) fn new(
        ctx: &'a FileCtx<'a>,
        table_id: u64,
        family: &'a FamilyDescriptor,
        kind: CompactionKind,
        earliest_put_ts: i64,
    ) -> Self {
        Output {
            ctx,
            table_id,
            family,
            matcher: CompactionMatcher::new(family, kind, ctx.now, earliest_put_ts, 0)
                .max_read_point(ctx.smallest_read_point()),
            boundaries: vec![i64::MIN],
            writers: vec![None],
            inputs_max_seq: 0,
            major: kind == CompactionKind::Major,
            skip_column: None,
            bloom_bound: None,
        }
    }

    /// A compaction's output: its Bloom filter is built in place, sized for the sum of the
    /// inputs' key counts (an upper bound of the output's), when every input has a filter of
    /// the family's type and the sum is at most six times the largest input's count (past
    /// that, overlapping inputs would make the in-place bitmap, ~1.2 bytes per summed key,
    /// larger than the 8-byte hashes of the keys the output can have).
    pub(crate) fn bound_bloom_keys(mut self, inputs: &[Arc<StoreFile>]) -> Self {
        let mut sum = 0u64;
        let mut largest = 0u64;
        for f in inputs {
            match f.reader.bloom_keys() {
                Some((kind, n)) if kind == self.family.bloom_filter => {
                    // A file holds fewer distinct keys than bytes, whatever its (checksummed
                    // but not trusted) filter header says: the bitmap stays within reason.
                    let n = n.min(f.size());
                    sum = sum.saturating_add(n);
                    largest = largest.max(n);
                }
                _ => return self,
            }
        }
        if sum > 0 && sum <= largest.saturating_mul(6) {
            self.bloom_bound = Some(sum);
        }
        self
    }

    /// Writes one file per time window: `boundaries` are the windows' lower bounds, ascending
    /// (the first is taken as `i64::MIN`). The matcher still sees the one merged stream, so
    /// versions and delete markers are decided across windows before cells are routed. With
    /// more than one window every output records `inputs_max_seq` as its largest sequence id
    /// ([`SstWriter::raise_max_seq`]).
    pub(crate) fn with_boundaries(mut self, mut boundaries: Vec<i64>, inputs_max_seq: u64) -> Self {
        if boundaries.first() != Some(&i64::MIN) {
            boundaries.insert(0, i64::MIN);
        }
        if boundaries.len() > 1 {
            self.inputs_max_seq = inputs_max_seq;
        }
        self.writers = boundaries.iter().map(|_| None).collect();
        self.boundaries = boundaries;
        self
    }

    pub(crate) fn push(&mut self, key: &[u8], payload: &[u8]) -> Result<()> {
        let k = KeyRef::parse(key).ok_or_else(|| {
            Error::corruption(self.ctx.path, "malformed key during flush/compaction")
        })?;
        // `skip_column` holds a key parsed before, so it parses again.
        if let Some(c) = self.skip_column.as_deref().and_then(KeyRef::parse) {
            if c.same_column(&k) {
                return Ok(());
            }
            self.skip_column = None;
        }
        let p = PayloadRef::parse(payload).ok_or_else(|| {
            Error::corruption(self.ctx.path, "malformed payload during flush/compaction")
        })?;
        match self.matcher.match_cell(&k, &p) {
            MatchCode::Include => {
                let window = self
                    .boundaries
                    .partition_point(|&b| b <= k.ts)
                    .saturating_sub(1);
                if self.writers[window].is_none() {
                    let (id, db_id) = {
                        let mut m = self.ctx.manifest.lock();
                        (m.next_file_id(), m.state().db_id)
                    };
                    let path = sst_path(self.ctx.path, id);
                    let file = self.ctx.fs.create(&path)?;
                    let mut w = SstWriter::new(file, path, writer_config(self.family))
                        .with_identity(FileIdentity {
                            db_id,
                            file_id: id,
                            table_id: self.table_id,
                            family: self.family.name.clone(),
                        })
                        .with_origin(self.ctx.now, self.major);
                    if let Some(n) = self.bloom_bound {
                        w.bound_bloom_keys(n);
                    }
                    w.raise_max_seq(self.inputs_max_seq);
                    self.writers[window] = Some((id, w));
                }
                if let Some((_, w)) = &mut self.writers[window] {
                    w.add_parsed(key, &k, payload)?;
                }
            }
            MatchCode::Skip => {}
            _ => self.skip_column = Some(key.to_vec()),
        }
        Ok(())
    }

    /// Finishes the one output (flushes and single-window compactions): `None` when no cell
    /// was kept.
    pub(crate) fn finish(self) -> Result<Option<(u64, FileMeta)>> {
        Ok(self.finish_all()?.into_iter().next())
    }

    /// Finishes every window's output, oldest window first. On an error, every file of this
    /// output is removed (finished or not, no manifest edit names them).
    pub(crate) fn finish_all(mut self) -> Result<Vec<(u64, FileMeta)>> {
        let mut done: Vec<(u64, FileMeta)> = Vec::new();
        let writers = std::mem::take(&mut self.writers);
        let mut failure = None;
        let mut unfinished = Vec::new();
        for (id, w) in writers.into_iter().flatten() {
            if failure.is_some() {
                drop(w);
                unfinished.push(id);
                continue;
            }
            match w.finish() {
                Ok(meta) => done.push((id, meta)),
                Err(e) => {
                    // Unfinished and named by no edit: this job's own leftover.
                    unfinished.push(id);
                    failure = Some(e);
                }
            }
        }
        if let Some(e) = failure {
            unfinished.extend(done.iter().map(|(id, _)| *id));
            discard_outputs(self.ctx.fs, self.ctx.path, self.ctx.manifest, unfinished);
            return Err(e);
        }
        Ok(done)
    }
}

impl Drop for Output<'_> {
    /// A flush or compaction that failed before [`Output::finish`] removes the files it was
    /// writing: no manifest edit names them, and only this job knows they are its own.
    fn drop(&mut self) {
        let mut ids = Vec::new();
        for (id, w) in std::mem::take(&mut self.writers).into_iter().flatten() {
            drop(w);
            ids.push(id);
        }
        if !ids.is_empty() {
            discard_outputs(self.ctx.fs, self.ctx.path, self.ctx.manifest, ids);
        }
    }
}

/// Removes output block files a failed job wrote and no edit names (its own: their ids were
/// reserved for it), best effort. When every removal and the directory sync succeed, the
/// reservations end ([`Manifest::release_file_id`]); otherwise they stay recorded, so the
/// next open deletes whatever is left on the manifest's proof. Never waits for the manifest:
/// a caller holding it keeps the reservations (harmless).
pub(crate) fn discard_outputs(
    fs: &dyn FileSystem,
    path: &Path,
    manifest: &Mutex<Manifest>,
    ids: Vec<u64>,
) {
    let removed = ids.iter().all(|&id| match fs.remove(&sst_path(path, id)) {
        Ok(()) => true,
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    });
    if removed
        && fs.sync_dir(&path.join("data")).is_ok()
        && let Some(mut m) = manifest.try_lock()
    {
        for id in ids {
            m.release_file_id(id);
        }
    }
}

impl FileCtx<'_> {
    /// The smallest read point of any open scanner (`u64::MAX` when none is open).
    pub(crate) fn smallest_read_point(&self) -> u64 {
        self.scanner_points
            .and_then(|p| p.lock().keys().next().copied())
            .unwrap_or(u64::MAX)
    }

    pub(crate) fn open_new_file(&self, family: &[u8], id: u64) -> Result<Arc<StoreFile>> {
        let reader = SstReader::open(
            self.fs,
            &sst_path(self.path, id),
            id,
            Some(self.cache.clone()),
        )?;
        Ok(Arc::new(StoreFile {
            id,
            family: family.to_vec(),
            reader: Arc::new(reader),
        }))
    }
}
