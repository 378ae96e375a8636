//! The block cache: decompressed, validated data blocks keyed by `(file_id, block offset)`,
//! shared by every reader of a database.
//!
//! Two partitions, as HBase's LruBlockCache has priorities: a general one and an IN_MEMORY one
//! (at most 25% of the capacity) for families marked IN_MEMORY, so a scan of ordinary data
//! cannot evict them. As in HBase, the shares only steer eviction, they reserve nothing: the
//! general partition may use whatever the IN_MEMORY blocks do not occupy (all of the capacity
//! when no family is IN_MEMORY); IN_MEMORY inserts shrink it, evictions of IN_MEMORY blocks
//! give the space back (rebalanced in steps of 1/64 of the capacity). Each partition is a
//! `quick_cache` sharded S3-FIFO cache weighted by block bytes.
//!
//! Thread safety: all methods take `&self`; quick_cache shards its locks, the counters are
//! relaxed atomics (statistics, and the flag that lets lookups skip the empty IN_MEMORY
//! partition).

use super::block::Block;
use quick_cache::Weighter;
use quick_cache::sync::Cache;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

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
/// Typical block size, used to size the caches' hash tables and their ghost queues (S3-FIFO
/// remembers recently evicted keys for half this many items).
const TYPICAL_BLOCK: u64 = 4 << 10;

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
    capacity: u64,
    general: Option<Partition>,
    in_memory: Option<Partition>,
    /// Set by the first IN_MEMORY insert: until then lookups skip the IN_MEMORY partition.
    in_memory_active: AtomicBool,
    hits: AtomicU64,
    misses: AtomicU64,
    /// Bloom filter checks of Gets (files with a filter of the asked kind) and of scans a
    /// ROWPREFIX_FIXED_LENGTH filter can answer [BLOOM-5], the checks that
    /// ruled the file out, and the Gets that found no usable filter: HBase's
    /// `bloomFilterRequestsCount`, `bloomFilterNegativeResultsCount`,
    /// `bloomFilterEligibleRequestsCount`. Kept here because every reader of the database
    /// shares the cache.
    bloom_checked: AtomicU64,
    bloom_negative: AtomicU64,
    bloom_eligible: AtomicU64,
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
    /// A cache holding up to `capacity_bytes` of blocks (IN_MEMORY families' blocks up to
    /// 25% of it, ordinary blocks the rest, all of it while nothing is IN_MEMORY); 0 disables
    /// caching.
    pub fn new(capacity_bytes: u64) -> BlockCache {
        BlockCache {
            capacity: capacity_bytes,
            general: partition(capacity_bytes),
            in_memory: partition(capacity_bytes / 4),
            in_memory_active: AtomicBool::new(false),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            bloom_checked: AtomicU64::new(0),
            bloom_negative: AtomicU64::new(0),
            bloom_eligible: AtomicU64::new(0),
        }
    }

    /// Configured capacity in bytes (both partitions together).
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Capacity the general partition currently has (the configured capacity minus what
    /// IN_MEMORY blocks occupy, rounded to the rebalancing step).
    #[cfg(test)]
    pub fn general_capacity(&self) -> u64 {
        self.general.as_ref().map_or(0, |p| p.capacity())
    }

    /// Gives the general partition the capacity the IN_MEMORY blocks leave free, when it is
    /// off by a rebalancing step (1/64 of the capacity) or more.
    fn rebalance(&self) {
        let (Some(g), Some(m)) = (&self.general, &self.in_memory) else {
            return;
        };
        let step = (self.capacity / 64).max(1);
        // Round IN_MEMORY usage up to a step, so the total stays within the capacity.
        let used = m.weight().div_ceil(step).saturating_mul(step);
        let want = self.capacity.saturating_sub(used).max(step);
        if g.capacity().abs_diff(want) >= step {
            g.set_capacity(want);
        }
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
    #[cfg(test)]
    pub fn in_memory_used(&self) -> u64 {
        self.in_memory.as_ref().map_or(0, |p| p.weight())
    }

    /// Blocks currently cached (both partitions).
    pub fn block_count(&self) -> u64 {
        [&self.general, &self.in_memory]
            .iter()
            .filter_map(|p| p.as_ref())
            .map(|p| p.len() as u64)
            .sum()
    }

    /// Notes a Bloom filter check of a Get: `Some(passed)` when the file had a filter to ask,
    /// `None` when it had none that could answer.
    pub(crate) fn note_bloom(&self, outcome: Option<bool>) {
        match outcome {
            Some(passed) => {
                self.bloom_checked.fetch_add(1, Ordering::Relaxed);
                if !passed {
                    self.bloom_negative.fetch_add(1, Ordering::Relaxed);
                }
            }
            None => {
                self.bloom_eligible.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// `(checked, negative, eligible without a filter)` Bloom counts since open.
    pub fn bloom_counts(&self) -> (u64, u64, u64) {
        (
            self.bloom_checked.load(Ordering::Relaxed),
            self.bloom_negative.load(Ordering::Relaxed),
            self.bloom_eligible.load(Ordering::Relaxed),
        )
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

    /// Looks a block up (the policy's partition first; the IN_MEMORY partition only once it
    /// was ever filled) and counts a hit or a miss.
    pub(crate) fn get(&self, file_id: u64, offset: u64, policy: CachePolicy) -> Option<Arc<Block>> {
        let key = (file_id, offset);
        let found = if !policy.in_memory && !self.in_memory_active.load(Ordering::Relaxed) {
            self.general.as_ref().and_then(|p| p.get(&key))
        } else {
            self.parts(policy.in_memory)
                .into_iter()
                .flatten()
                .find_map(|p| p.get(&key))
        };
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
            if policy.in_memory {
                if !self.in_memory_active.load(Ordering::Relaxed) {
                    self.in_memory_active.store(true, Ordering::Relaxed);
                }
                self.rebalance();
            }
        }
    }

    /// Drops every block of `file_id` (for example after the file was deleted).
    #[cfg(test)]
    pub fn evict_file(&self, file_id: u64) {
        for p in [&self.general, &self.in_memory].into_iter().flatten() {
            p.retain(|k, _| k.0 != file_id);
        }
        self.rebalance();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::key::CellType;
    use crate::model::payload;
    use crate::storage::sst::block_builder::BlockBuilder;
    use crate::storage::sst::testutil::key;

    /// A one-cell block of about `bytes` bytes.
    fn block(bytes: usize) -> Arc<Block> {
        let mut b = BlockBuilder::new(16);
        b.add(
            &key(b"r", b"f", b"q", 1, CellType::Put, 1),
            &payload::encode(None, &vec![7u8; bytes - 60]),
        );
        Arc::new(Block::decode(b.finish().clone()).unwrap())
    }

    const ORDINARY: CachePolicy = CachePolicy {
        fill: true,
        in_memory: false,
    };
    const IN_MEMORY: CachePolicy = CachePolicy {
        fill: true,
        in_memory: true,
    };

    /// Without IN_MEMORY families, ordinary blocks may use the whole capacity (HBase's
    /// LruBlockCache: priorities steer eviction, nothing is reserved).
    #[test]
    fn ordinary_blocks_use_the_whole_capacity() {
        let cap = 4 << 20;
        let c = BlockCache::new(cap);
        assert_eq!((c.capacity(), c.general_capacity()), (cap, cap));
        let b = block(16 << 10);
        for i in 0..1000 {
            c.insert(1, i, b.clone(), ORDINARY);
        }
        // S3-FIFO keeps a little slack per shard; well above the old 75 %.
        assert!(c.used() > cap * 9 / 10, "used {} of {cap}", c.used());
        assert!(c.used() <= cap);
        assert_eq!(c.in_memory_used(), 0);
    }

    /// IN_MEMORY blocks take space from ordinary ones (up to 25 % of the capacity) and a flood
    /// of ordinary blocks does not evict them; the total stays within the capacity.
    #[test]
    fn in_memory_blocks_keep_their_priority_and_share_the_capacity() {
        let cap = 4 << 20;
        let c = BlockCache::new(cap);
        let b = block(16 << 10);
        for i in 0..1000 {
            c.insert(1, i, b.clone(), ORDINARY);
        }
        for i in 0..40 {
            c.insert(2, i, b.clone(), IN_MEMORY);
        }
        let im = c.in_memory_used();
        assert!(im > 0 && im <= cap / 4, "{im}");
        assert!(c.general_capacity() <= cap - im, "{}", c.general_capacity());
        for i in 1000..3000 {
            c.insert(1, i, b.clone(), ORDINARY);
        }
        assert!(c.used() <= cap + cap / 64, "used {}", c.used());
        let kept = (0..40)
            .filter(|&i| c.get(2, i, IN_MEMORY).is_some())
            .count();
        assert!(kept >= 30, "only {kept} of 40 IN_MEMORY blocks survived");
        // An IN_MEMORY flood is capped at a quarter of the capacity.
        for i in 40..1000 {
            c.insert(2, i, b.clone(), IN_MEMORY);
        }
        assert!(c.in_memory_used() <= cap / 4);
        // Dropping the IN_MEMORY file gives its space back to ordinary blocks.
        c.evict_file(2);
        assert_eq!(c.in_memory_used(), 0);
        assert_eq!(c.general_capacity(), cap);
        // A lookup of an ordinary family still finds a block cached under IN_MEMORY (the
        // family's setting may have changed since).
        c.insert(3, 0, b.clone(), IN_MEMORY);
        assert!(c.get(3, 0, ORDINARY).is_some());
    }
}
