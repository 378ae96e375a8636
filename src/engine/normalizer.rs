//! The region normalizer (HBase 2.6's `SimpleRegionNormalizer`): it evens out a table's
//! region sizes by splitting regions much larger than the average and merging runs of adjacent
//! small ones. The planner is a pure function over the regions' sizes (MB, in key order) and
//! ages; the engine executes its plans with the ordinary split and merge.
//!
//! Planning, as HBase: the average region size is the table's `NORMALIZER_TARGET_REGION_SIZE_MB`
//! when set, else the total size over `NORMALIZER_TARGET_REGION_COUNT` when set, else over the
//! number of regions. Split plans first: every region larger than twice the average (when
//! splitting is enabled and the split switch is on). Then merge plans (when merging is enabled,
//! the merge switch is on and the table has at least `min_region_count` regions, and the
//! average, truncated to whole MB, is at least `merge_min_region_size_mb`): walking the regions
//! in key order, a run starts at any region and takes the next ones while the run's total stays
//! within the average (an empty region is always taken, and so is the second region after an
//! empty first); a region younger than `merge_min_region_age_days` or smaller than
//! `merge_min_region_size_mb` ends the run and is skipped. Every run of two or more regions is a
//! merge plan.

use crate::base::error::Result;
use crate::engine::Engine;
use crate::engine::table::TableShared;
use std::sync::Arc;

const DAY_MS: i64 = 86_400_000;

/// The normalizer's settings (HBase's `hbase.normalizer.*` configuration), for the whole
/// database ([`crate::DbOptions::normalizer`]). Build from [`NormalizerConfig::default`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct NormalizerConfig {
    /// `hbase.normalizer.split.enabled` (default true): plan splits.
    pub split_enabled: bool,
    /// `hbase.normalizer.merge.enabled` (default true): plan merges.
    pub merge_enabled: bool,
    /// `hbase.normalizer.min.region.count` (default 3; at least 1): a table with fewer
    /// regions gets no merge plan.
    pub min_region_count: u32,
    /// `hbase.normalizer.merge.min_region_age.days` (default 3): younger regions are not
    /// merged.
    pub merge_min_region_age_days: u32,
    /// `hbase.normalizer.merge.min_region_size.mb` (default 1): smaller regions are not
    /// merged, and no merge is planned when the average is smaller.
    pub merge_min_region_size_mb: u64,
}

impl Default for NormalizerConfig {
    fn default() -> Self {
        NormalizerConfig {
            split_enabled: true,
            merge_enabled: true,
            min_region_count: 3,
            merge_min_region_age_days: 3,
            merge_min_region_size_mb: 1,
        }
    }
}

impl NormalizerConfig {
    /// `hbase.normalizer.split.enabled` (builder).
    pub fn split_enabled(mut self, yes: bool) -> Self {
        self.split_enabled = yes;
        self
    }
    /// `hbase.normalizer.merge.enabled` (builder).
    pub fn merge_enabled(mut self, yes: bool) -> Self {
        self.merge_enabled = yes;
        self
    }
    /// `hbase.normalizer.min.region.count` (builder; 0 is taken as 1, as HBase does).
    pub fn min_region_count(mut self, n: u32) -> Self {
        self.min_region_count = n;
        self
    }
    /// `hbase.normalizer.merge.min_region_age.days` (builder).
    pub fn merge_min_region_age_days(mut self, days: u32) -> Self {
        self.merge_min_region_age_days = days;
        self
    }
    /// `hbase.normalizer.merge.min_region_size.mb` (builder).
    pub fn merge_min_region_size_mb(mut self, mb: u64) -> Self {
        self.merge_min_region_size_mb = mb;
        self
    }
}

/// One region as the planner sees it (the table's regions come in key order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NormRegion {
    /// Block file bytes in whole MB (HBase's `storefileSizeMB`).
    pub size_mb: u64,
    /// When the region was created (database clock, ms; HBase's region id).
    pub created_ms: i64,
}

/// A normalization plan, regions named by their index in key order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NormalizationPlan {
    /// Split the region at its split point (HBase's `SplitNormalizationPlan`).
    Split { region: usize, size_mb: u64 },
    /// Merge these adjacent regions, ascending (HBase's `MergeNormalizationPlan`).
    Merge { regions: Vec<(usize, u64)> },
}

/// What the planner is told besides the regions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PlanInput<'a> {
    pub now: i64,
    pub target_region_count: Option<u32>,
    pub target_region_size_mb: Option<u64>,
    pub cfg: &'a NormalizerConfig,
    /// The database's split and merge switches.
    pub split_switch: bool,
    pub merge_switch: bool,
}

/// HBase's `SimpleRegionNormalizer.computePlansForTable`: split plans, then merge plans.
pub(crate) fn compute_plans(
    regions: &[NormRegion],
    input: &PlanInput<'_>,
) -> Vec<NormalizationPlan> {
    let split = input.cfg.split_enabled && input.split_switch;
    let merge = input.cfg.merge_enabled && input.merge_switch;
    if regions.is_empty() || !(split || merge) {
        return Vec::new();
    }
    let avg = average_size_mb(regions, input);
    let mut plans = Vec::new();
    if split {
        for (i, r) in regions.iter().enumerate() {
            if r.size_mb as f64 > 2.0 * avg {
                plans.push(NormalizationPlan::Split {
                    region: i,
                    size_mb: r.size_mb,
                });
            }
        }
    }
    if merge {
        plans.extend(merge_plans(regions, avg, input));
    }
    plans
}

/// The target average region size in MB (HBase's `getAverageRegionSizeMb`).
fn average_size_mb(regions: &[NormRegion], input: &PlanInput<'_>) -> f64 {
    if let Some(size) = input.target_region_size_mb.filter(|&s| s > 0) {
        return size as f64;
    }
    let total: u64 = regions.iter().map(|r| r.size_mb).sum();
    let count = input
        .target_region_count
        .filter(|&c| c > 0)
        .map_or(regions.len() as f64, f64::from);
    total as f64 / count
}

/// HBase's `computeMergeNormalizationPlans`.
fn merge_plans(regions: &[NormRegion], avg: f64, input: &PlanInput<'_>) -> Vec<NormalizationPlan> {
    let cfg = input.cfg;
    if regions.len() < cfg.min_region_count.max(1) as usize {
        return Vec::new();
    }
    let avg = avg as u64; // HBase truncates to whole MB here
    if avg < cfg.merge_min_region_size_mb {
        return Vec::new();
    }
    let min_age = i64::from(cfg.merge_min_region_age_days).saturating_mul(DAY_MS);
    let skip = |r: &NormRegion| {
        input.now <= r.created_ms.saturating_add(min_age)
            || r.size_mb < cfg.merge_min_region_size_mb
    };
    let n = regions.len();
    let mut plans = Vec::new();
    let (mut range_start, mut current) = (0usize, 0usize);
    while range_start + 1 < n && current < n {
        let mut members: Vec<(usize, u64)> = Vec::new();
        let mut sum = 0u64;
        current = range_start;
        while current < n {
            let r = &regions[current];
            if skip(r) {
                range_start = current.max(range_start + 1);
                break;
            }
            if members.is_empty()
                || (members.len() == 1 && sum == 0)
                || r.size_mb == 0
                || r.size_mb.saturating_add(sum) <= avg
            {
                members.push((current, r.size_mb));
                sum = sum.saturating_add(r.size_mb);
                current += 1;
                continue;
            }
            range_start = current.max(range_start + 1);
            break;
        }
        if members.len() > 1 {
            plans.push(NormalizationPlan::Merge { regions: members });
        }
    }
    plans
}

impl Engine {
    /// HBase's `normalize`: when the normalizer switch is on, every enabled table among
    /// `tables` (every table when `None`) with `NORMALIZATION_ENABLED` is normalized now, in
    /// this thread. Returns false, doing nothing, while the switch is off.
    pub(crate) fn normalize(&self, tables: Option<&[String]>) -> Result<bool> {
        self.check_open()?;
        if !self.normalizer_enabled() {
            return Ok(false);
        }
        let names = match tables {
            Some(t) => t.to_vec(),
            None => self.table_names(),
        };
        for name in names {
            let Ok(t) = self.table_shared(&name) else {
                continue;
            };
            if t.is_dropped() || !t.is_enabled() || !t.desc_arc().is_normalization_enabled() {
                continue;
            }
            self.normalize_table(&t)?;
        }
        Ok(true)
    }

    /// Plans one table's normalization and runs the plans: splits at the regions' split
    /// points, merges left to right. A plan whose regions a plan before it replaced is
    /// skipped (HBase's merge of a region just split fails the same way). Regions holding a
    /// split's references are major-compacted first, as before any split or merge.
    fn normalize_table(&self, t: &Arc<TableShared>) -> Result<()> {
        let desc = t.desc_arc();
        let regions = t.region_list();
        let view: Vec<NormRegion> = regions
            .iter()
            .map(|r| NormRegion {
                size_mb: r
                    .current()
                    .files
                    .values()
                    .flatten()
                    .map(|f| f.size())
                    .sum::<u64>()
                    >> 20,
                created_ms: r.created_ms().unwrap_or(self.opened_ms),
            })
            .collect();
        let plans = compute_plans(
            &view,
            &PlanInput {
                now: self.clock.now_millis(),
                target_region_count: desc.table_normalizer_target_region_count(),
                target_region_size_mb: desc.table_normalizer_target_region_size_mb(),
                cfg: &self.opts.normalizer,
                split_switch: self.split_enabled(),
                merge_switch: self.merge_enabled(),
            },
        );
        for plan in plans {
            match plan {
                NormalizationPlan::Split { region, size_mb } => {
                    let r = &regions[region];
                    if r.is_retired() {
                        continue;
                    }
                    if r.has_references() {
                        self.compact_region(t, r, true)?;
                    }
                    let done = self.split_region(t, r, None)?;
                    log::info!(
                        target: "cellbase::normalizer",
                        "normalizer split of table '{}' region {} ({size_mb} MB): {}",
                        t.name,
                        r.id(),
                        if done.is_some() { "split" } else { "no split point" }
                    );
                }
                NormalizationPlan::Merge { regions: members } => {
                    let rs: Vec<_> = members.iter().map(|(i, _)| regions[*i].clone()).collect();
                    if rs.iter().any(|r| r.is_retired()) {
                        continue;
                    }
                    for r in &rs {
                        if r.has_references() {
                            self.compact_region(t, r, true)?;
                        }
                    }
                    let mut merged = rs[0].clone();
                    for r in &rs[1..] {
                        merged = self.merge_regions(t, &merged, r)?;
                    }
                    log::info!(
                        target: "cellbase::normalizer",
                        "normalizer merge of table '{}' regions {:?} ({} MB) into region {}",
                        t.name,
                        rs.iter().map(|r| r.id()).collect::<Vec<_>>(),
                        members.iter().map(|(_, s)| s).sum::<u64>(),
                        merged.id()
                    );
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
