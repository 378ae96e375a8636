//! Minor compaction selection: HBase's `ExploringCompactionPolicy` [REG-1], as a pure function
//! over file sizes.

use std::ops::Range;

/// Files a minor compaction takes at least (`hbase.hstore.compaction.min`, HBase's default).
pub(crate) const COMPACTION_MIN: usize = 3;

/// Compaction selection settings (`hbase.hstore.compaction.*`).
#[derive(Debug, Clone, Copy)]
pub struct PickerConfig {
    /// `compaction.min` (files per minor compaction, at least 2).
    pub min_files: usize,
    /// `compaction.max`.
    pub max_files: usize,
    /// `compaction.ratio`.
    pub ratio: f64,
    /// `compaction.min.size`: runs smaller than this skip the ratio test.
    pub min_size: u64,
    /// `compaction.max.size`: runs larger than this are never selected.
    pub max_size: u64,
}

impl PickerConfig {
    /// HBase's defaults with `min_size` = the memstore flush size.
    pub fn with_flush_size(flush_size: u64) -> Self {
        PickerConfig {
            min_files: COMPACTION_MIN,
            max_files: 10,
            ratio: 1.2,
            min_size: flush_size,
            max_size: u64::MAX,
        }
    }
}

/// Picks a contiguous run of files (`sizes` ordered oldest to newest) to compact: among runs of
/// `min_files..=max_files` files whose total is below `min_size` or whose every file is at most
/// `ratio` times the sum of the others, the run with the most files, ties broken by the
/// smallest total. `None` when no run qualifies.
pub fn pick(sizes: &[u64], cfg: &PickerConfig) -> Option<Range<usize>> {
    let min_files = cfg.min_files.max(2);
    let mut best: Option<(Range<usize>, u64)> = None;
    for start in 0..sizes.len() {
        let max_end = (start + cfg.max_files).min(sizes.len());
        for end in (start + min_files)..=max_end {
            let run = &sizes[start..end];
            let total: u64 = run.iter().sum();
            if total > cfg.max_size {
                continue;
            }
            let ok = total < cfg.min_size
                || run
                    .iter()
                    .all(|&f| (f as f64) <= cfg.ratio * (total - f) as f64);
            if !ok {
                continue;
            }
            let better = match &best {
                None => true,
                Some((r, t)) => run.len() > r.len() || (run.len() == r.len() && total < *t),
            };
            if better {
                best = Some((start..end, total));
            }
        }
    }
    best.map(|(r, _)| r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> PickerConfig {
        PickerConfig {
            min_files: 3,
            max_files: 10,
            ratio: 1.2,
            min_size: 10,
            max_size: u64::MAX,
        }
    }

    /// [REG-1]
    #[test]
    fn exploring_policy_choices() {
        assert_eq!(pick(&[100, 100], &cfg()), None, "fewer than min files");
        assert_eq!(pick(&[100, 100, 100], &cfg()), Some(0..3));
        // One huge old file fails the ratio test: the newer similar files are chosen.
        assert_eq!(pick(&[10_000, 100, 100, 100], &cfg()), Some(1..4));
        // Tiny files below min_size always qualify.
        assert_eq!(pick(&[1, 1, 5], &cfg()), Some(0..3));
        // At most max_files.
        let many = vec![50u64; 15];
        assert_eq!(pick(&many, &cfg()).map(|r| r.len()), Some(10));
        // Ties on count: smallest total wins.
        assert_eq!(
            pick(
                &[300, 300, 300, 100, 100, 100],
                &PickerConfig {
                    max_files: 3,
                    ..cfg()
                }
            ),
            Some(3..6)
        );
    }
}
