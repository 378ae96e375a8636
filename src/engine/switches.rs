//! Database-wide switches flipped at run time: HBase's split and merge switches
//! (`Admin.splitSwitch` / `mergeSwitch`, the shell's `splitormerge_switch`) and the region
//! normalizer switch (`Admin.normalizerSwitch`, the shell's `normalizer_switch`; on by
//! default, as HBase's when its state was never stored). While the split
//! switch is off no region splits, automatically or when asked (asking is an error, as in
//! HBase's `SplitTableRegionProcedure`); while the merge switch is off no merge runs
//! (`MergeTableRegionsProcedure`). Both start on at every open: unlike HBase, which keeps them
//! in ZooKeeper, they are not stored.

use crate::engine::Engine;
use std::sync::atomic::{AtomicBool, Ordering};

/// The switches' state.
#[derive(Debug)]
pub(crate) struct Switches {
    split: AtomicBool,
    merge: AtomicBool,
    normalizer: AtomicBool,
}

impl Default for Switches {
    fn default() -> Self {
        Switches {
            split: AtomicBool::new(true),
            merge: AtomicBool::new(true),
            normalizer: AtomicBool::new(true),
        }
    }
}

impl Engine {
    /// Turns splits on or off; returns the previous state.
    pub(crate) fn set_split_enabled(&self, on: bool) -> bool {
        self.switches.split.swap(on, Ordering::AcqRel)
    }
    /// Whether regions may split.
    pub(crate) fn split_enabled(&self) -> bool {
        self.switches.split.load(Ordering::Acquire)
    }
    /// Turns merges on or off; returns the previous state.
    pub(crate) fn set_merge_enabled(&self, on: bool) -> bool {
        self.switches.merge.swap(on, Ordering::AcqRel)
    }
    /// Whether regions may merge.
    pub(crate) fn merge_enabled(&self) -> bool {
        self.switches.merge.load(Ordering::Acquire)
    }
    /// Turns the region normalizer on or off; returns the previous state.
    pub(crate) fn set_normalizer_enabled(&self, on: bool) -> bool {
        self.switches.normalizer.swap(on, Ordering::AcqRel)
    }
    /// Whether the region normalizer runs when asked.
    pub(crate) fn normalizer_enabled(&self) -> bool {
        self.switches.normalizer.load(Ordering::Acquire)
    }
}
