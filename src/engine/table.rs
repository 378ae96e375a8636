//! `TableShared`: the engine's state of one table (its schema, its regions in key order, the
//! enabled and dropped flags), shared by every handle of the table and every job on it.

use crate::engine::region::Region;
use crate::model::mutation::Durability;
use crate::model::schema::TableDescriptor;
use parking_lot::RwLock;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// State of one table shared by all its handles.
#[derive(Debug)]
pub(crate) struct TableShared {
    /// Fixed for the table's life.
    pub id: u64,
    /// Fixed for the table's life.
    pub name: String,
    desc: RwLock<Arc<TableDescriptor>>,
    /// Regions in key order, contiguous from '' to '' (changed by `replace_regions` only).
    regions: RwLock<Vec<Arc<Region>>>,
    /// Serializes splits and merges of this table.
    structure: parking_lot::Mutex<()>,
    enabled: AtomicBool,
    dropped: AtomicBool,
    /// The descriptor's `DURABILITY` ([`Durability::code`]), read by every write without
    /// taking the descriptor's lock.
    durability: AtomicU8,
}

impl TableShared {
    pub fn new(id: u64, desc: TableDescriptor, enabled: bool, regions: Vec<Arc<Region>>) -> Self {
        TableShared {
            id,
            name: desc.name().to_string(),
            durability: AtomicU8::new(Durability::code(desc.table_durability())),
            desc: RwLock::new(Arc::new(desc)),
            regions: RwLock::new(regions),
            structure: parking_lot::Mutex::new(()),
            enabled: AtomicBool::new(enabled),
            dropped: AtomicBool::new(false),
        }
    }
    pub fn desc(&self) -> TableDescriptor {
        (**self.desc.read()).clone()
    }
    pub fn desc_arc(&self) -> Arc<TableDescriptor> {
        self.desc.read().clone()
    }
    /// The memstore flush size of this table's regions: the table's own
    /// (`MEMSTORE_FLUSHSIZE`), else the database's `default`.
    pub fn flush_size(&self, default: u64) -> u64 {
        self.desc
            .read()
            .table_memstore_flush_size()
            .unwrap_or(default)
    }
    /// Updates what is cached of the descriptor; called by `alter` with the new one, under the
    /// descriptor's write lock.
    pub fn note_desc(&self, desc: &TableDescriptor) {
        self.durability
            .store(Durability::code(desc.table_durability()), Ordering::Release);
    }
    pub fn desc_lock(&self) -> &RwLock<Arc<TableDescriptor>> {
        &self.desc
    }
    /// The table's `DURABILITY`, if set.
    pub fn durability(&self) -> Option<Durability> {
        Durability::from_code(self.durability.load(Ordering::Acquire)).unwrap_or(None)
    }
    pub fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Acquire)
    }
    pub fn set_enabled(&self, yes: bool) {
        self.enabled.store(yes, Ordering::Release);
    }
    pub fn mark_dropped(&self) {
        self.dropped.store(true, Ordering::Release);
    }
    pub fn is_dropped(&self) -> bool {
        self.dropped.load(Ordering::Acquire)
    }
    /// Held by the one split or merge of this table that may run.
    pub fn structure_guard(&self) -> parking_lot::MutexGuard<'_, ()> {
        self.structure.lock()
    }

    /// How many regions the table has.
    pub fn region_count(&self) -> usize {
        self.regions.read().len()
    }

    /// A snapshot of the regions in key order (the lock is not held afterwards: work on
    /// regions must never run under it, as flushes and splits take it again).
    pub fn region_list(&self) -> Vec<Arc<Region>> {
        self.regions.read().clone()
    }

    /// Replaces the regions with ids `old` by `new` (contiguous, covering the same range).
    pub fn replace_regions(&self, old: &[u64], new: Vec<Arc<Region>>) {
        let mut regions = self.regions.write();
        regions.retain(|r| !old.contains(&r.id()));
        regions.extend(new);
        regions.sort_by(|a, b| a.start().cmp(b.start()));
        debug_assert!(
            regions.windows(2).all(|w| w[0].end() == w[1].start()),
            "regions must stay contiguous"
        );
    }

    /// The region whose `[start, end)` holds `row`.
    pub fn region_for(&self, row: &[u8]) -> Arc<Region> {
        let regions = self.regions.read();
        let i = regions.partition_point(|r| r.start() <= row);
        regions[i.saturating_sub(1)].clone()
    }
}
