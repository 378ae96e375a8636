//! `Metrics`: the engine's counters, gathered on demand from the pieces that own them.

use super::Engine;
use std::sync::atomic::Ordering;

/// Engine counters, from [`Db::metrics`](crate::Db::metrics).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Metrics {
    /// Data blocks fetched from the block files currently live (cache hits and misses).
    pub data_blocks_read: u64,
    /// Block cache hits since open.
    pub block_cache_hits: u64,
    /// Block cache misses since open.
    pub block_cache_misses: u64,
    /// Block files currently live.
    pub store_files: u64,
    /// Regions of all tables.
    pub regions: u64,
    /// Write-ahead-log segment files currently live.
    pub wal_segments: u64,
    /// Bytes in memstores not yet flushed: every region's active memstore and flush snapshot
    /// (the total that [`DbOptions::global_memstore_size`](crate::DbOptions::global_memstore_size) bounds; a flushed memstore a
    /// reader still holds no longer counts, as in HBase).
    pub memstore_bytes: u64,
}

impl Engine {
    /// The counters of [`Metrics`], read now.
    pub(crate) fn metrics(&self) -> Metrics {
        let mut m = Metrics {
            block_cache_hits: self.cache.hits(),
            block_cache_misses: self.cache.misses(),
            wal_segments: self.wal.segment_count() as u64,
            memstore_bytes: self.memstore_bytes.load(Ordering::Relaxed),
            ..Metrics::default()
        };
        for (_, r) in self.all_regions() {
            m.regions += 1;
            for f in r.current().files.values().flatten() {
                m.store_files += 1;
                m.data_blocks_read += f.reader.blocks_read();
            }
        }
        m
    }
}
