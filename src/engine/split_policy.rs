//! Automatic region split decisions ([SPLIT-1], [SPLIT-2] in `hbase-semantics.md`) as pure
//! functions over sizes and store-file summaries: no I/O, no clock, no randomness of their own
//! (the caller passes the jitter draw), so the regions engine, a simulator and the tests all get
//! the same answers.
//!
//! Mirrors HBase's `RegionSplitPolicy` family (`hbase-server/.../regionserver/`):
//! `ConstantSizeRegionSplitPolicy`, `IncreasingToUpperBoundRegionSplitPolicy`,
//! `SteppingSplitPolicy` (HBase's default since 2.0, and cellbase's), `DisabledRegionSplitPolicy`,
//! and the two that keep rows of a key prefix in one region, `KeyPrefixRegionSplitPolicy` and
//! `DelimitedKeyPrefixRegionSplitPolicy` (IncreasingToUpperBound thresholds, a split row cut
//! back to its prefix: [`SplitRowGrouping`]); the split point comes from `RegionSplitPolicy#getSplitPoint`, `HStore#getSplitPoint` and
//! `StoreUtils#getFileSplitPoint`, validated like `HRegion#checkSplit` and
//! `SplitTableRegionProcedure#checkSplittable`.

/// Which rule decides that a region is big enough to split
/// (`hbase.regionserver.region.split.policy`).
///
/// HBase's default since 2.0 is [`SplitPolicy::Stepping`]; cellbase uses the same default
/// ([`SplitPolicy::default`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SplitPolicy {
    /// `IncreasingToUpperBoundRegionSplitPolicy` (HBase's default in 0.94–1.x): threshold
    /// `min(max_file_size, initial_size × R³)` for a table with `R` regions, so young tables
    /// split early and the threshold climbs to `max_file_size`.
    IncreasingToUpperBound,
    /// `SteppingSplitPolicy`, HBase's default since 2.0: `initial_size` while the table has
    /// exactly one region, `max_file_size` afterwards.
    #[default]
    Stepping,
    /// `ConstantSizeRegionSplitPolicy`: always `max_file_size`.
    ConstantSize,
    /// `DisabledRegionSplitPolicy`: never split automatically (explicit splits still work).
    Disabled,
}

/// HBase's `hbase.hregion.max.filesize` default: 10 GiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 10 << 30;

/// HBase's `hbase.hregion.memstore.flush.size` default: 128 MiB.
pub const DEFAULT_FLUSH_SIZE: u64 = 128 << 20;

/// HBase's `hbase.hregion.max.filesize.jitter` default.
#[cfg_attr(not(test), allow(dead_code))]
pub const HBASE_DEFAULT_JITTER: f64 = 0.25;

/// The default for the `overall` argument of [`should_split`]:
/// `hbase.hregion.split.overallfiles`, which is `false` on HBase 2.x (2.6 included) and `true`
/// on 3.x/master.
///
/// cellbase follows HBase 2.6, so by default a region splits when ANY single store (column
/// family) exceeds the threshold, not when the stores' sum does. The per-store rule also keeps
/// the split point meaningful: [`choose_split_row`] takes it from the largest store, which is
/// the one that crossed the threshold.
#[cfg_attr(not(test), allow(dead_code))]
pub const DEFAULT_OVERALL_FILES: bool = false;

/// Settings of the split decision, resolved from the table descriptor and the database options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplitPolicyConfig {
    /// The rule.
    pub policy: SplitPolicy,
    /// `MAX_FILESIZE` / `hbase.hregion.max.filesize`, before jitter. cellbase allows tiny
    /// values (even 0: any data splits) so that small experiments split.
    pub max_file_size: u64,
    /// The first step of `IncreasingToUpperBound` and `Stepping`
    /// (`hbase.increasing.policy.initial.size`); HBase uses `2 × memstore flush size` unless it is
    /// set, and so does [`SplitPolicyConfig::new`]. Used as given here (0 means 0).
    pub initial_size: u64,
    /// `hbase.hregion.max.filesize.jitter`: `max_file_size` is multiplied by
    /// `1 + (jitter_rand - 0.5) × jitter`. HBase uses 0.25 (±12.5 %) so that regions of a
    /// uniformly loaded table do not all split at once; cellbase defaults to 0.0 so that split
    /// timing is deterministic and reproducible in tests (set [`HBASE_DEFAULT_JITTER`] to get
    /// HBase's spread). A non-finite value counts as 0.
    pub jitter: f64,
}

impl SplitPolicyConfig {
    /// `policy` with `max_file_size`, `initial_size = 2 × flush_size` (HBase's fallback when
    /// `hbase.increasing.policy.initial.size` is unset) and no jitter.
    pub fn new(policy: SplitPolicy, max_file_size: u64, flush_size: u64) -> SplitPolicyConfig {
        SplitPolicyConfig {
            policy,
            max_file_size,
            initial_size: flush_size.saturating_mul(2),
            jitter: 0.0,
        }
    }

    /// HBase's stock settings: Stepping, 10 GiB, 256 MiB initial size, jitter 0.25.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn hbase_defaults() -> SplitPolicyConfig {
        SplitPolicyConfig {
            jitter: HBASE_DEFAULT_JITTER,
            ..SplitPolicyConfig::default()
        }
    }

    /// `max_file_size` with the jitter applied, as `ConstantSizeRegionSplitPolicy` computes its
    /// `desiredMaxFileSize`: `jitterValue = trunc(max × (rand - 0.5) × jitter)`, added to `max`,
    /// saturating at `u64::MAX` (HBase: `Long.MAX_VALUE`) and at 0.
    pub fn jittered_max_file_size(&self, jitter_rand: f64) -> u64 {
        let jitter = if self.jitter.is_finite() {
            self.jitter
        } else {
            0.0
        };
        let rand = if jitter_rand.is_nan() {
            0.5
        } else {
            jitter_rand.clamp(0.0, 1.0)
        };
        let rate = (rand - 0.5) * jitter;
        // f64 → i128 truncates toward zero and saturates, like Java's (long) cast.
        let jitter_value = (self.max_file_size as f64 * rate) as i128;
        let total = i128::from(self.max_file_size) + jitter_value;
        total.clamp(0, i128::from(u64::MAX)) as u64
    }
}

impl Default for SplitPolicyConfig {
    /// cellbase's defaults: Stepping, HBase's sizes (10 GiB, 2 × 128 MiB), no jitter.
    fn default() -> SplitPolicyConfig {
        SplitPolicyConfig::new(
            SplitPolicy::default(),
            DEFAULT_MAX_FILE_SIZE,
            DEFAULT_FLUSH_SIZE,
        )
    }
}

/// [SPLIT-1] The size a store (or, with `overall`, the region) must exceed before a region of a
/// table that currently has `table_regions` regions splits (`getSizeToCheck`). `jitter_rand` is
/// the caller's draw from `[0, 1)` (seeded in tests; values outside are clamped).
///
/// * `ConstantSize`: `max` = [`SplitPolicyConfig::jittered_max_file_size`].
/// * `IncreasingToUpperBound`: `max` when `R == 0` or `R > 100` (HBase's overflow guard), else
///   `min(max, initial_size × R³)`. With HBase's defaults: R=1 256 MiB, R=2 2 GiB,
///   R=3 6.75 GiB, R≥4 10 GiB.
/// * `Stepping`: `initial_size` (not jittered, not capped) when `R == 1`, else `max`.
/// * `Disabled`: `u64::MAX`.
///
/// `R` counts the table's regions including this one (HBase counts those on the same region
/// server; in an embedded engine that is all of them).
pub fn size_to_check(cfg: &SplitPolicyConfig, table_regions: u32, jitter_rand: f64) -> u64 {
    let max = || cfg.jittered_max_file_size(jitter_rand);
    match cfg.policy {
        SplitPolicy::ConstantSize => max(),
        SplitPolicy::IncreasingToUpperBound => {
            if table_regions == 0 || table_regions > 100 {
                max()
            } else {
                let r = u64::from(table_regions);
                max().min(cfg.initial_size.saturating_mul(r * r * r))
            }
        }
        SplitPolicy::Stepping => {
            if table_regions == 1 {
                cfg.initial_size
            } else {
                max()
            }
        }
        SplitPolicy::Disabled => u64::MAX,
    }
}

/// [SPLIT-1] Should a region split now (`shouldSplit`)?
///
/// * `store_sizes`: total store-file bytes of each store (column family); memstore contents do
///   not count.
/// * `has_references`: some store still holds reference (half) files from an earlier split;
///   such a region cannot split until compaction has rewritten them (`canSplit`).
/// * `overall`: `true` compares the SUM of the stores with the threshold (HBase 3.x/master),
///   `false` compares EACH store (HBase 2.x); cellbase passes [`DEFAULT_OVERALL_FILES`] (`false`).
///
/// The comparison is strict (`size > threshold`); a region without stores never splits, and
/// neither does any region under [`SplitPolicy::Disabled`].
pub fn should_split(
    cfg: &SplitPolicyConfig,
    table_regions: u32,
    store_sizes: &[u64],
    has_references: bool,
    overall: bool,
    jitter_rand: f64,
) -> bool {
    if cfg.policy == SplitPolicy::Disabled || has_references {
        return false;
    }
    let threshold = size_to_check(cfg, table_regions, jitter_rand);
    if overall {
        let sum = store_sizes
            .iter()
            .fold(0u64, |acc, &size| acc.saturating_add(size));
        sum > threshold
    } else {
        store_sizes.iter().any(|&size| size > threshold)
    }
}

/// What [`choose_split_row`] needs to know about one store file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileSplitInfo<'a> {
    /// File length in bytes.
    pub size: u64,
    /// Row of the file's first cell.
    pub first_row: &'a [u8],
    /// Row of the file's last cell.
    pub last_row: &'a [u8],
    /// Row of the file's mid-key: the first key of the middle data block of its block index,
    /// approximately the middle of the file.
    pub mid_row: &'a [u8],
}

/// The split point a store offers (`HStore#getSplitPoint` + `StoreUtils#getSplitPoint`): the
/// mid-row of its largest file (the first of equal largest, as Java's `Stream.max` keeps), or
/// nothing when that row is the file's first or last row (the file is essentially one row and
/// can never be split) or the store has no files.
fn store_split_point<'a>(files: &[FileSplitInfo<'a>]) -> Option<&'a [u8]> {
    let mut largest: Option<&FileSplitInfo<'a>> = None;
    for file in files {
        if largest.is_none_or(|l| file.size > l.size) {
            largest = Some(file);
        }
    }
    let file = largest?;
    if file.mid_row == file.first_row || file.mid_row == file.last_row {
        return None;
    }
    Some(file.mid_row)
}

/// How a split row is cut back so that rows sharing a key prefix stay in one region
/// (`KeyPrefixRegionSplitPolicy#getSplitPoint`, `DelimitedKeyPrefixRegionSplitPolicy#getSplitPoint`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SplitRowGrouping<'a> {
    /// The row itself (every policy but the two prefix ones).
    #[default]
    WholeRow,
    /// Its first `n` bytes (the whole row when shorter).
    Prefix(usize),
    /// The bytes before the first occurrence of the delimiter (the whole row when the
    /// delimiter does not occur; an empty row, which never splits, when the row starts with it).
    Delimiter(&'a [u8]),
}

/// The split row `row` cut back by `grouping`. Rows at or after the result that share its
/// prefix all sort at or after it, so the prefix group lands in the upper daughter whole.
pub fn group_split_row<'r>(row: &'r [u8], grouping: SplitRowGrouping<'_>) -> &'r [u8] {
    match grouping {
        SplitRowGrouping::WholeRow => row,
        SplitRowGrouping::Prefix(n) => row.get(..n).unwrap_or(row),
        SplitRowGrouping::Delimiter(d) if !d.is_empty() => row
            .windows(d.len())
            .position(|w| w == d)
            .and_then(|i| row.get(..i))
            .unwrap_or(row),
        SplitRowGrouping::Delimiter(_) => row,
    }
}

/// [SPLIT-2] The row at which to split the region `[region_start, region_end)` (empty end =
/// unbounded), or `None` when it cannot split.
///
/// `stores` gives, per store (column family), whether it holds reference files and its files,
/// listed oldest first (HBase's store-file order; ties between equally large files go to the
/// first listed). The rules:
///
/// 1. If any store has references, `None`: the region is not splittable (`canSplit`; HBase's
///    per-store `getSplitPoint` skips such a store, but the master's `checkSplittable` then
///    refuses the whole split, so the net result is the same).
/// 2. Each store offers the mid-row of its LARGEST file, unless that row equals the file's
///    first or last row.
/// 3. Among the stores that offer a row, the one with the largest total file size wins (the
///    first listed on ties; a store of total size 0 never wins, as in HBase's strict `<`).
/// 4. The row must lie strictly inside the region: not empty, not equal to `region_start`,
///    `>= region_start`, and `< region_end` unless the end is unbounded (`HRegion#checkRow`,
///    "Split row is equal to startkey"); otherwise `None`.
///
/// Between 3 and 4, the row is cut back by `grouping` (the prefix policies): a cut row equal
/// to the region's start (the region holds one prefix group from its start) does not split.
///
/// The result is always a whole row, so a row is never split across regions (nor, with a
/// grouping, a prefix group).
pub fn choose_split_row(
    stores: &[(bool, Vec<FileSplitInfo<'_>>)],
    region_start: &[u8],
    region_end: &[u8],
    grouping: SplitRowGrouping<'_>,
) -> Option<Vec<u8>> {
    if stores.iter().any(|(has_references, _)| *has_references) {
        return None;
    }
    let mut best: Option<&[u8]> = None;
    let mut best_size = 0u64;
    for (_, files) in stores {
        let Some(row) = store_split_point(files) else {
            continue;
        };
        let store_size = files.iter().fold(0u64, |acc, f| acc.saturating_add(f.size));
        if best_size < store_size {
            best = Some(row);
            best_size = store_size;
        }
    }
    let row = group_split_row(best?, grouping);
    let inside = !row.is_empty()
        && row != region_start
        && row >= region_start
        && (region_end.is_empty() || row < region_end);
    inside.then(|| row.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`super::choose_split_row`] without a grouping (every policy but the prefix ones).
    fn choose_split_row(
        stores: &[(bool, Vec<FileSplitInfo<'_>>)],
        region_start: &[u8],
        region_end: &[u8],
    ) -> Option<Vec<u8>> {
        super::choose_split_row(stores, region_start, region_end, SplitRowGrouping::WholeRow)
    }

    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;

    fn cfg(policy: SplitPolicy) -> SplitPolicyConfig {
        SplitPolicyConfig {
            policy,
            ..SplitPolicyConfig::default()
        }
    }

    #[test]
    fn defaults() {
        let d = SplitPolicyConfig::default();
        assert_eq!(d.policy, SplitPolicy::Stepping);
        assert_eq!(d.max_file_size, 10 * GIB);
        assert_eq!(d.initial_size, 256 * MIB);
        assert_eq!(d.jitter, 0.0);
        let h = SplitPolicyConfig::hbase_defaults();
        assert_eq!(h.jitter, 0.25);
        assert_eq!(
            (h.policy, h.max_file_size, h.initial_size),
            (d.policy, d.max_file_size, d.initial_size)
        );
        const { assert!(!DEFAULT_OVERALL_FILES) };
    }

    /// [SPLIT-1] TestRegionSplitPolicy's numbers: 256 MiB, 2 GiB, 6.75 GiB, then the max.
    #[test]
    fn increasing_to_upper_bound_sizes() {
        let c = cfg(SplitPolicy::IncreasingToUpperBound);
        assert_eq!(size_to_check(&c, 1, 0.5), 256 * MIB);
        assert_eq!(size_to_check(&c, 2, 0.5), 2 * GIB);
        assert_eq!(size_to_check(&c, 3, 0.5), 6 * GIB + 3 * GIB / 4); // 6.75 GiB
        for r in [4, 5, 10, 100] {
            assert_eq!(size_to_check(&c, r, 0.5), 10 * GIB, "R={r}");
        }
        // R == 0 (no region server services in HBase's tests) and R > 100: the max.
        assert_eq!(size_to_check(&c, 0, 0.5), 10 * GIB);
        assert_eq!(size_to_check(&c, 101, 0.5), 10 * GIB);
        assert_eq!(size_to_check(&c, u32::MAX, 0.5), 10 * GIB);
        // Huge initial size: no overflow.
        let big = SplitPolicyConfig {
            initial_size: u64::MAX / 2,
            ..c
        };
        assert_eq!(size_to_check(&big, 100, 0.5), 10 * GIB);
    }

    #[test]
    fn stepping_and_constant_sizes() {
        let s = cfg(SplitPolicy::Stepping);
        assert_eq!(size_to_check(&s, 1, 0.5), 256 * MIB);
        for r in [0, 2, 3, 50, 1000] {
            assert_eq!(size_to_check(&s, r, 0.5), 10 * GIB, "R={r}");
        }
        // R == 1 uses initial_size even when it exceeds max_file_size (HBase does not cap it).
        let tiny = SplitPolicyConfig {
            max_file_size: MIB,
            ..s
        };
        assert_eq!(size_to_check(&tiny, 1, 0.5), 256 * MIB);
        assert_eq!(size_to_check(&tiny, 2, 0.5), MIB);
        let c = cfg(SplitPolicy::ConstantSize);
        for r in [0, 1, 2, 1000] {
            assert_eq!(size_to_check(&c, r, 0.5), 10 * GIB);
        }
        assert_eq!(size_to_check(&cfg(SplitPolicy::Disabled), 1, 0.5), u64::MAX);
    }

    #[test]
    fn jitter_bounds() {
        let c = SplitPolicyConfig {
            policy: SplitPolicy::ConstantSize,
            max_file_size: 1024,
            initial_size: 256,
            jitter: 0.25,
        };
        // ±12.5 %: rand 0 → 1024 - 128, rand → 1 → 1024 + 128 (exclusive), 0.5 → no change.
        assert_eq!(size_to_check(&c, 1, 0.0), 896);
        assert_eq!(size_to_check(&c, 1, 0.5), 1024);
        assert_eq!(size_to_check(&c, 1, 0.999_999), 1151);
        assert_eq!(size_to_check(&c, 1, 1.0), 1152); // clamped input
        assert_eq!(size_to_check(&c, 1, -3.0), 896);
        assert_eq!(size_to_check(&c, 1, f64::NAN), 1024);
        // Truncation toward zero like Java's (long) cast: 1024 × (0.3 - 0.5) × 0.25 = -51.2.
        assert_eq!(size_to_check(&c, 1, 0.3), 973);
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..1000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let rand = (x >> 11) as f64 / (1u64 << 53) as f64;
            let s = size_to_check(&c, 1, rand);
            // TestRegionSplitPolicy#assertWithinJitter bounds (0.75 .. 1.25 of the max).
            assert!((768..=1280).contains(&s), "{rand} → {s}");
            assert!((896..1152).contains(&s), "{rand} → {s}");
        }
        // Stepping's first step is not jittered.
        let stepping = SplitPolicyConfig {
            policy: SplitPolicy::Stepping,
            ..c
        };
        assert_eq!(size_to_check(&stepping, 1, 0.0), 256);
        assert_eq!(size_to_check(&stepping, 2, 0.0), 896);
        // Max-size tables with positive jitter saturate instead of overflowing
        // (TestRegionSplitPolicy#testConstantSizePolicyWithJitter).
        let huge = SplitPolicyConfig {
            max_file_size: u64::MAX,
            ..c
        };
        assert_eq!(size_to_check(&huge, 1, 0.99), u64::MAX);
        assert!(!should_split(&huge, 1, &[2000], false, false, 0.99));
        // Non-finite jitter counts as none.
        let inf = SplitPolicyConfig {
            jitter: f64::INFINITY,
            ..c
        };
        assert_eq!(size_to_check(&inf, 1, 0.9), 1024);
    }

    /// TestRegionSplitPolicy#testIncreasingToUpperBoundRegionSplitPolicy with its numbers:
    /// max 1024, flush size 128 (initial 256).
    #[test]
    fn should_split_increasing_like_hbase_test() {
        let c = SplitPolicyConfig {
            jitter: 0.25,
            ..SplitPolicyConfig::new(SplitPolicy::IncreasingToUpperBound, 1024, 128)
        };
        for rand in [0.0, 0.5, 0.999] {
            // No regions counted: acts like ConstantSize. No stores → no split.
            assert!(!should_split(&c, 0, &[], false, false, rand));
            assert!(should_split(&c, 0, &[2000], false, false, rand));
            assert!(!should_split(&c, 0, &[2000], true, false, rand));
            assert!(!should_split(&c, 0, &[100], false, false, rand));
            // One region: threshold 2 × flush size.
            assert!(!should_split(&c, 1, &[128], false, false, rand));
            assert!(!should_split(&c, 1, &[256], false, false, rand));
            assert!(should_split(&c, 1, &[257], false, false, rand));
            // Two regions: the threshold is max(±jitter) now.
            assert!(!should_split(&c, 2, &[257], false, false, rand));
            assert!(should_split(&c, 2, &[1281], false, false, rand));
        }
    }

    #[test]
    fn should_split_rules() {
        let c = SplitPolicyConfig::new(SplitPolicy::ConstantSize, 1024, 128);
        // Strictly greater.
        assert!(!should_split(&c, 1, &[1024], false, false, 0.5));
        assert!(should_split(&c, 1, &[1025], false, false, 0.5));
        // References block any split.
        assert!(!should_split(&c, 1, &[1 << 40], true, false, 0.5));
        assert!(!should_split(&c, 1, &[1 << 40], true, true, 0.5));
        // TestRegionSplitPolicy#testIsExceedSize: per store vs sum.
        assert!(!should_split(&c, 1, &[100, 924], false, true, 0.5));
        assert!(should_split(&c, 1, &[100, 925], false, true, 0.5));
        assert!(!should_split(&c, 1, &[100, 925], false, false, 0.5));
        assert!(should_split(&c, 1, &[100, 1025], false, false, 0.5));
        assert!(should_split(&c, 1, &[u64::MAX, u64::MAX], false, true, 0.5));
        // Disabled never splits.
        let d = SplitPolicyConfig::new(SplitPolicy::Disabled, 0, 0);
        assert!(!should_split(&d, 1, &[u64::MAX], false, false, 0.5));
        assert!(!should_split(&d, 1, &[u64::MAX], false, true, 0.5));
        // Stepping with HBase's defaults: 256 MiB for the first region, 10 GiB after.
        let s = SplitPolicyConfig::default();
        assert!(should_split(&s, 1, &[256 * MIB + 1], false, false, 0.5));
        assert!(!should_split(&s, 2, &[256 * MIB + 1], false, false, 0.5));
        assert!(should_split(&s, 2, &[10 * GIB + 1], false, false, 0.5));
        // Tiny sizes are allowed: max 0 splits on any byte.
        let z = SplitPolicyConfig::new(SplitPolicy::ConstantSize, 0, 0);
        assert!(!should_split(&z, 1, &[0], false, false, 0.5));
        assert!(should_split(&z, 1, &[1], false, false, 0.5));
    }

    fn file<'a>(size: u64, first: &'a str, mid: &'a str, last: &'a str) -> FileSplitInfo<'a> {
        FileSplitInfo {
            size,
            first_row: first.as_bytes(),
            last_row: last.as_bytes(),
            mid_row: mid.as_bytes(),
        }
    }

    fn row(s: &str) -> Option<Vec<u8>> {
        Some(s.as_bytes().to_vec())
    }

    #[test]
    fn split_row_largest_file_of_largest_store() {
        // One store: the largest file's mid row.
        let stores = vec![(
            false,
            vec![
                file(10, "a", "c", "e"),
                file(30, "b", "m", "z"),
                file(20, "a", "k", "y"),
            ],
        )];
        assert_eq!(choose_split_row(&stores, b"", b""), row("m"));
        // TestRegionSplitPolicy#testGetSplitPoint: the bigger store wins.
        let stores = vec![
            (false, vec![file(2000, "a", "store 1 split", "zz")]),
            (false, vec![file(4000, "a", "store 2 split", "zz")]),
        ];
        assert_eq!(choose_split_row(&stores, b"", b""), row("store 2 split"));
        // Store size is the sum of its files, not its largest file.
        let stores = vec![
            (false, vec![file(50, "a", "one", "z")]),
            (
                false,
                vec![file(30, "a", "two", "z"), file(30, "a", "two-b", "z")],
            ),
        ];
        assert_eq!(choose_split_row(&stores, b"", b""), row("two"));
        // Equal stores: the first listed wins; equal files: the first listed (oldest) wins.
        let stores = vec![
            (false, vec![file(10, "a", "first", "z")]),
            (false, vec![file(10, "a", "second", "z")]),
        ];
        assert_eq!(choose_split_row(&stores, b"", b""), row("first"));
        let stores = vec![(
            false,
            vec![file(10, "a", "old", "z"), file(10, "a", "new", "z")],
        )];
        assert_eq!(choose_split_row(&stores, b"", b""), row("old"));
    }

    #[test]
    fn split_row_edge_cases() {
        // No stores, no files.
        assert_eq!(choose_split_row(&[], b"", b""), None);
        assert_eq!(choose_split_row(&[(false, vec![])], b"", b""), None);
        // A single-row file: mid == first == last.
        let single = vec![(false, vec![file(1 << 30, "r", "r", "r")])];
        assert_eq!(choose_split_row(&single, b"", b""), None);
        // mid equal to the first or the last row.
        let at_first = vec![(false, vec![file(100, "a", "a", "z")])];
        assert_eq!(choose_split_row(&at_first, b"", b""), None);
        let at_last = vec![(false, vec![file(100, "a", "z", "z")])];
        assert_eq!(choose_split_row(&at_last, b"", b""), None);
        // The largest file decides even if a smaller one could split.
        let stores = vec![(
            false,
            vec![file(100, "r", "r", "r"), file(10, "a", "m", "z")],
        )];
        assert_eq!(choose_split_row(&stores, b"", b""), None);
        // ... but then a smaller store that can offer a point is used.
        let stores = vec![
            (false, vec![file(100, "r", "r", "r")]),
            (false, vec![file(10, "a", "m", "z")]),
        ];
        assert_eq!(choose_split_row(&stores, b"", b""), row("m"));
        // References anywhere: None.
        let refs = vec![
            (false, vec![file(100, "a", "m", "z")]),
            (true, vec![file(10, "a", "c", "z")]),
        ];
        assert_eq!(choose_split_row(&refs, b"", b""), None);
        let refs = vec![(true, vec![file(100, "a", "m", "z")])];
        assert_eq!(choose_split_row(&refs, b"", b""), None);
        // A zero-size store never wins (HBase's strict comparison with 0).
        let empty = vec![(false, vec![file(0, "a", "m", "z")])];
        assert_eq!(choose_split_row(&empty, b"", b""), None);
    }

    #[test]
    fn split_row_must_be_inside_region() {
        let stores = vec![(false, vec![file(100, "k", "m", "p")])];
        assert_eq!(choose_split_row(&stores, b"", b""), row("m"));
        assert_eq!(choose_split_row(&stores, b"k", b"p"), row("m"));
        assert_eq!(choose_split_row(&stores, b"l", b"m\x00"), row("m"));
        // Equal to the region start.
        assert_eq!(choose_split_row(&stores, b"m", b""), None);
        // Equal to or past the (exclusive) end, or before the start.
        assert_eq!(choose_split_row(&stores, b"", b"m"), None);
        assert_eq!(choose_split_row(&stores, b"", b"l"), None);
        assert_eq!(choose_split_row(&stores, b"n", b""), None);
        // An empty mid row can never split (it equals the unbounded start).
        let stores = vec![(false, vec![file(100, "", "", "z")])];
        assert_eq!(choose_split_row(&stores, b"", b""), None);
    }

    /// TestRegionSplitPolicy#testCustomPolicy and #testDelimitedKeyPrefixRegionSplitPolicy:
    /// the store's split row cut to the prefix, or before the first delimiter.
    #[test]
    fn prefix_groupings_cut_the_split_row() {
        use SplitRowGrouping::{Delimiter, Prefix, WholeRow};
        assert_eq!(group_split_row(b"abcd", Prefix(2)), b"ab");
        assert_eq!(group_split_row(b"efgh", Prefix(2)), b"ef");
        assert_eq!(group_split_row(b"ab,cd", Delimiter(b",")), b"ab");
        assert_eq!(group_split_row(b"efg,h", Delimiter(b",")), b"efg");
        // No delimiter: the whole row (HBase warns and uses it).
        assert_eq!(group_split_row(b"ijk", Delimiter(b",")), b"ijk");
        // Only the first occurrence counts; a delimiter of several bytes.
        assert_eq!(group_split_row(b"u1__e__9", Delimiter(b"__")), b"u1");
        assert_eq!(group_split_row(b"u1_e", Delimiter(b"__")), b"u1_e");
        // A prefix longer than the row: the row (Math.min(prefixLength, length)).
        assert_eq!(group_split_row(b"ab", Prefix(4)), b"ab");
        assert_eq!(group_split_row(b"abcd", WholeRow), b"abcd");
        // A row starting with the delimiter cuts to nothing (never a split row).
        assert_eq!(group_split_row(b",x", Delimiter(b",")), b"");
    }

    /// TestKeyPrefixRegionSplitPolicy's intent through the whole choice: the cut row must still
    /// lie strictly inside the region, so a region that starts at a prefix group and holds only
    /// that group does not split.
    #[test]
    fn grouped_split_rows_stay_inside_the_region() {
        use SplitRowGrouping::{Delimiter, Prefix};
        let stores = vec![(false, vec![file(100, "aaaa0001", "bbbb0500", "cccc0900")])];
        let choose = |s: &[u8], e: &[u8], g| super::choose_split_row(&stores, s, e, g);
        assert_eq!(choose(b"", b"", Prefix(4)), row("bbbb"));
        assert_eq!(choose(b"aaaa", b"", Prefix(4)), row("bbbb"));
        // The region starts at the group: cutting gives its start, no split.
        assert_eq!(choose(b"bbbb", b"", Prefix(4)), None);
        // A region [bbbb0100, ...) can split at bbbb? No: bbbb sorts before its start.
        assert_eq!(choose(b"bbbb0100", b"", Prefix(4)), None);
        let stores = vec![(false, vec![file(100, "u1_a", "u2_e_3", "u3_z")])];
        let choose = |s: &[u8], g| super::choose_split_row(&stores, s, b"", g);
        assert_eq!(choose(b"", Delimiter(b"_")), row("u2"));
        assert_eq!(choose(b"u2", Delimiter(b"_")), None);
        // References still forbid any split.
        let refs = vec![(true, vec![file(100, "a", "m", "z")])];
        assert_eq!(super::choose_split_row(&refs, b"", b"", Prefix(1)), None);
    }
}
