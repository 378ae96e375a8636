//! Oracle: HBase's `TestSimpleRegionNormalizer` (hbase-server, master.normalizer; cases and
//! region sizes in MB from there), against the pure planner. Its regions are 4 days old
//! (`DEFAULT_MERGE_MIN_REGION_AGE_DAYS + 1`). Not carried over: the meta table and the
//! transitioning region states (cellbase has neither), and non-adjacent regions in the list
//! (a table's regions are always contiguous here).

use super::*;
use NormalizationPlan::{Merge, Split};

const NOW: i64 = 1_700_000_000_000;

fn regions(sizes: &[u64]) -> Vec<NormRegion> {
    sizes
        .iter()
        .map(|&size_mb| NormRegion {
            size_mb,
            created_ms: NOW - 4 * DAY_MS,
        })
        .collect()
}

fn plans_with(
    sizes: &[u64],
    cfg: NormalizerConfig,
    count: Option<u32>,
    size: Option<u64>,
) -> Vec<NormalizationPlan> {
    compute_plans(
        &regions(sizes),
        &PlanInput {
            now: NOW,
            target_region_count: count,
            target_region_size_mb: size,
            cfg: &cfg,
            split_switch: true,
            merge_switch: true,
        },
    )
}

fn plans(sizes: &[u64], cfg: NormalizerConfig) -> Vec<NormalizationPlan> {
    plans_with(sizes, cfg, None, None)
}

fn split(region: usize, size_mb: u64) -> NormalizationPlan {
    Split { region, size_mb }
}

fn merge(members: &[(usize, u64)]) -> NormalizationPlan {
    Merge {
        regions: members.to_vec(),
    }
}

fn d() -> NormalizerConfig {
    NormalizerConfig::default()
}

/// `testNoNormalizationIfTooFewRegions`, `testNoNormalizationOnNormalizedCluster`.
#[test]
fn nothing_to_do() {
    assert_eq!(plans(&[10, 15], d()), vec![]);
    assert_eq!(plans(&[10, 15, 8, 10], d()), vec![]);
    assert_eq!(plans(&[], d()), vec![]);
}

/// `testMergeOfSmallRegions`.
#[test]
fn merge_of_small_regions() {
    assert_eq!(
        plans(&[15, 5, 5, 15, 16], d()),
        vec![merge(&[(1, 5), (2, 5)])]
    );
}

/// `testMergeOfSecondSmallestRegions` (HBASE-14867).
#[test]
fn merge_of_second_smallest_regions() {
    assert_eq!(
        plans(&[1, 10000, 10000, 10000, 2700, 2700], d()),
        vec![merge(&[(4, 2700), (5, 2700)])]
    );
}

/// `testMergeOfSmallNonAdjacentRegions`.
#[test]
fn small_regions_that_are_not_neighbours_stay() {
    assert_eq!(plans(&[15, 5, 16, 15, 5], d()), vec![]);
}

/// `testSplitOfLargeRegion`.
#[test]
fn split_of_large_region() {
    assert_eq!(plans(&[8, 6, 10, 30], d()), vec![split(3, 30)]);
}

/// `testWithTargetRegionSize`.
#[test]
fn target_region_size() {
    let sizes = [20, 40, 60, 80, 100, 120];
    assert_eq!(
        plans_with(&sizes, d(), None, Some(20)),
        vec![split(2, 60), split(3, 80), split(4, 100), split(5, 120)]
    );
    assert_eq!(
        plans_with(&sizes, d(), None, Some(200)),
        vec![merge(&[(0, 20), (1, 40), (2, 60), (3, 80)])]
    );
    // The size wins over a count.
    assert_eq!(
        plans_with(&sizes, d(), Some(1), Some(20)),
        plans_with(&sizes, d(), None, Some(20))
    );
}

/// `testSplitWithTargetRegionCount`.
#[test]
fn target_region_count() {
    let sizes = [20, 40, 60, 80];
    assert_eq!(
        plans_with(&sizes, d(), Some(8), None),
        vec![split(2, 60), split(3, 80)]
    );
    assert_eq!(
        plans_with(&sizes, d(), Some(3), None),
        vec![merge(&[(0, 20), (1, 40)])]
    );
}

/// `testHonorsSplitEnabled`, `testHonorsMergeEnabled`, and the database's split and merge
/// switches (HBase's `isMasterSwitchEnabled`).
#[test]
fn split_and_merge_can_be_turned_off() {
    assert_eq!(plans(&[5, 5, 20, 5, 5], d()), vec![split(2, 20)]);
    assert_eq!(plans(&[5, 5, 20, 5, 5], d().split_enabled(false)), vec![]);
    assert_eq!(
        plans(&[20, 5, 5, 20, 20], d()),
        vec![merge(&[(1, 5), (2, 5)])]
    );
    assert_eq!(plans(&[20, 5, 5, 20, 20], d().merge_enabled(false)), vec![]);
    let cfg = d();
    let off = |split_switch, merge_switch| {
        compute_plans(
            &regions(&[1, 1, 10]),
            &PlanInput {
                now: NOW,
                target_region_count: None,
                target_region_size_mb: None,
                cfg: &cfg,
                split_switch,
                merge_switch,
            },
        )
    };
    assert_eq!(off(false, true), vec![merge(&[(0, 1), (1, 1)])]);
    assert_eq!(off(true, false), vec![split(2, 10)]);
    assert_eq!(off(false, false), vec![]);
}

/// `testHonorsMinimumRegionCount`.
#[test]
fn minimum_region_count() {
    assert_eq!(
        plans(&[1, 1, 10], d().min_region_count(1)),
        vec![split(2, 10), merge(&[(0, 1), (1, 1)])]
    );
    assert_eq!(
        plans(&[1, 1, 10], d().min_region_count(4)),
        vec![split(2, 10)]
    );
    // 0 is taken as 1, as HBase's `Math.max(1, value)`.
    assert_eq!(
        plans(&[1, 1, 10], d().min_region_count(0)),
        plans(&[1, 1, 10], d().min_region_count(1))
    );
}

/// `testHonorsMergeMinRegionAge`: the regions are 4 days old.
#[test]
fn merge_min_region_age() {
    let sizes = [1, 1, 10, 10];
    let with_age = plans(&sizes, d().merge_min_region_age_days(7));
    assert!(
        with_age.iter().all(|p| matches!(p, Split { .. })),
        "{with_age:?}"
    );
    let default = plans(&sizes, d());
    assert!(!default.is_empty());
    assert!(
        default.iter().all(|p| matches!(p, Merge { .. })),
        "{default:?}"
    );
}

/// `testHonorsMergeMinRegionSize`.
#[test]
fn merge_min_region_size() {
    let sizes = [1, 2, 0, 10, 10];
    assert_eq!(
        plans(&sizes, d().split_enabled(false)),
        vec![merge(&[(0, 1), (1, 2)])]
    );
    assert_eq!(
        plans(&sizes, d().split_enabled(false).merge_min_region_size_mb(3)),
        vec![]
    );
}

/// `testMergeEmptyRegions0`, `1` and `2`.
#[test]
fn merge_of_empty_regions() {
    let cfg = d().split_enabled(false).merge_min_region_size_mb(0);
    assert_eq!(
        plans(&[0, 1, 10, 0, 9, 10, 0], cfg),
        vec![
            merge(&[(0, 0), (1, 1)]),
            merge(&[(2, 10), (3, 0)]),
            merge(&[(5, 10), (6, 0)])
        ]
    );
    assert_eq!(
        plans(&[0, 1, 10, 0, 9, 0, 10, 0], cfg),
        vec![
            merge(&[(0, 0), (1, 1)]),
            merge(&[(2, 10), (3, 0)]),
            merge(&[(4, 9), (5, 0)]),
            merge(&[(6, 10), (7, 0)])
        ]
    );
    assert_eq!(
        plans(&[0, 10, 1, 0, 9, 0, 10, 0], cfg),
        vec![
            merge(&[(0, 0), (1, 10)]),
            merge(&[(2, 1), (3, 0)]),
            merge(&[(4, 9), (5, 0)]),
            merge(&[(6, 10), (7, 0)])
        ]
    );
}

/// `testSplitAndMultiMerge`.
#[test]
fn split_and_several_merges() {
    assert_eq!(
        plans(&[3, 1, 1, 30, 9, 3, 1, 0], d().merge_min_region_size_mb(0)),
        vec![
            split(3, 30),
            merge(&[(0, 3), (1, 1), (2, 1)]),
            merge(&[(5, 3), (6, 1), (7, 0)])
        ]
    );
}

/// A region created this instant is not old enough even with a minimum age of 0 (HBase's
/// `isAfter` is strict).
#[test]
fn age_is_strict() {
    let fresh: Vec<NormRegion> = [1, 0, 0]
        .into_iter()
        .map(|size_mb| NormRegion {
            size_mb,
            created_ms: NOW,
        })
        .collect();
    let cfg = d()
        .split_enabled(false)
        .merge_min_region_age_days(0)
        .merge_min_region_size_mb(0);
    let input = PlanInput {
        now: NOW,
        target_region_count: None,
        target_region_size_mb: None,
        cfg: &cfg,
        split_switch: true,
        merge_switch: true,
    };
    assert_eq!(compute_plans(&fresh, &input), vec![]);
    assert_eq!(
        compute_plans(
            &fresh,
            &PlanInput {
                now: NOW + 1,
                ..input
            }
        ),
        vec![merge(&[(0, 1), (1, 0), (2, 0)])]
    );
}
