//! The block cache: decompressed, validated data blocks keyed by `(file_id, block offset)`,
//! shared by every reader of a database.
//!
//! Two partitions, as HBase's LruBlockCache has priorities: a general one (75% of the capacity)
//! and an IN_MEMORY one (25%) for families marked IN_MEMORY, so a scan of ordinary data cannot
//! evict them. Each partition is a `quick_cache` sharded S3-FIFO cache weighted by block bytes.
//!
//! Thread safety: all methods take `&self`; quick_cache shards its locks, the counters are
//! relaxed atomics (statistics only).

use super::block::Block;
use quick_cache::Weighter;
use quick_cache::sync::Cache;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// How cursors of one family use the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CachePolicy {
    /// BLOCKCACHE: insert blocks read from disk (lookups happen regardless).
    pub fill: bool,
    /// IN_MEMORY: use the in-memory partition.
    pub in_memory: bool,
}

impl Default for CachePolicy {
    /// HBase's defaults: BLOCKCACHE true, IN_MEMORY false.
    fn default() -> Self {
        CachePolicy {
            fill: true,
            in_memory: false,
        }
    }
}

/// Fixed per-entry overhead charged on top of the block bytes.
const ENTRY_OVERHEAD: u64 = 96;
/// Typical block size, used only to size the caches' hash tables.
const TYPICAL_BLOCK: u64 = 16 << 10;

#[derive(Clone, Copy, Debug)]
struct BlockWeighter;

impl Weighter<(u64, u64), Arc<Block>> for BlockWeighter {
    fn weight(&self, _key: &(u64, u64), block: &Arc<Block>) -> u64 {
        block.len() as u64 + ENTRY_OVERHEAD
    }
}

type Partition = Cache<(u64, u64), Arc<Block>, BlockWeighter>;

fn partition(capacity: u64) -> Option<Partition> {
    (capacity > 0).then(|| {
        let items = (capacity / TYPICAL_BLOCK).clamp(16, 1 << 24) as usize;
        Cache::with_weighter(items, capacity, BlockWeighter)
    })
}

/// A sharded cache of decompressed data blocks.
pub struct BlockCache {
    general: Option<Partition>,
    in_memory: Option<Partition>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl std::fmt::Debug for BlockCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockCache")
            .field("capacity", &self.capacity())
            .field("hits", &self.hits())
            .field("misses", &self.misses())
            .finish()
    }
}

impl BlockCache {
    /// A cache holding up to `capacity_bytes` of blocks (25% reserved for IN_MEMORY
    /// families); 0 disables caching.
    pub fn new(capacity_bytes: u64) -> BlockCache {
        let in_memory = capacity_bytes / 4;
        BlockCache {
            general: partition(capacity_bytes - in_memory),
            in_memory: partition(in_memory),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// Configured capacity in bytes (both partitions).
    pub fn capacity(&self) -> u64 {
        [&self.general, &self.in_memory]
            .iter()
            .filter_map(|p| p.as_ref())
            .map(|p| p.capacity())
            .sum()
    }

    /// Bytes currently charged (both partitions).
    pub fn used(&self) -> u64 {
        [&self.general, &self.in_memory]
            .iter()
            .filter_map(|p| p.as_ref())
            .map(|p| p.weight())
            .sum()
    }

    /// Bytes currently charged to the IN_MEMORY partition.
    pub fn in_memory_used(&self) -> u64 {
        self.in_memory.as_ref().map_or(0, |p| p.weight())
    }

    /// Lookups that found their block.
    pub fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// Lookups that did not.
    pub fn misses(&self) -> u64 {
        self.misses.load(Ordering::Relaxed)
    }

    fn parts(&self, in_memory: bool) -> [Option<&Partition>; 2] {
        let (a, b) = if in_memory {
            (&self.in_memory, &self.general)
        } else {
            (&self.general, &self.in_memory)
        };
        [a.as_ref(), b.as_ref()]
    }

    /// Looks a block up (the policy's partition first) and counts a hit or a miss.
    pub(crate) fn get(&self, file_id: u64, offset: u64, policy: CachePolicy) -> Option<Arc<Block>> {
        let key = (file_id, offset);
        let found = self
            .parts(policy.in_memory)
            .into_iter()
            .flatten()
            .find_map(|p| p.get(&key));
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Inserts a block into the policy's partition (a no-op when `!policy.fill` or disabled).
    pub(crate) fn insert(&self, file_id: u64, offset: u64, block: Arc<Block>, policy: CachePolicy) {
        if !policy.fill {
            return;
        }
        if let Some(p) = self.parts(policy.in_memory)[0] {
            p.insert((file_id, offset), block);
        }
    }

    /// Drops every block of `file_id` (for example after the file was deleted).
    pub fn evict_file(&self, file_id: u64) {
        for p in [&self.general, &self.in_memory].into_iter().flatten() {
            p.retain(|k, _| k.0 != file_id);
        }
    }
}
