//! Date-tiered compaction selection: HBase's `DateTieredCompactionPolicy` with its default
//! `ExponentialCompactionWindowFactory`, as pure functions over the store's files (oldest
//! first by sequence id, each with its size and time range), the time now and the settings.
//! No I/O and no clock of their own.
//!
//! Time is cut into windows: the incoming window is the base window holding now; going back,
//! after `windows_per_tier` windows of one size (counted on the window grid, HBase's
//! `divPosition % windowsPerTier`) come windows `windows_per_tier` times larger, unless the
//! larger window would reach past the max tier age. A minor compaction picks the newest window
//! with enough files (the incoming window needs `incoming_window_min`, older ones the exploring
//! policy's minimum) and compacts files of it chosen by the exploring ratio; files newer than
//! `max_storefile_age` only are candidates. A major compaction compacts every file and writes
//! one output per window (HBase's `DateTieredMultiFileWriter`): the output boundaries are the
//! windows' start times.

use crate::engine::picker::{PickerConfig, pick};
use crate::model::store_config::DateTieredConfig;
use std::cmp::Ordering;
use std::ops::Range;

/// What the picker knows of one store file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DtFile {
    /// File size in bytes.
    pub size: u64,
    /// Oldest cell timestamp (`None` for a file without cells).
    pub min_ts: Option<i64>,
    /// Newest cell timestamp (`None` for a file without cells).
    pub max_ts: Option<i64>,
}

/// A compaction the picker chose: a run of the files (indices into the oldest-first list)
/// and the lower bounds of the output files' time windows, ascending, the first `i64::MIN`
/// (a cell goes to the output of the greatest bound at or below its timestamp).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DtSelection {
    /// The files to compact.
    pub files: Range<usize>,
    /// The outputs' lower bounds.
    pub boundaries: Vec<i64>,
}

/// One compaction window: timestamps `t` with `t / size == div` (negative timestamps rounded
/// down), HBase's `ExponentialCompactionWindowFactory.Window`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Window {
    size: i64,
    div: i64,
    per_tier: i64,
    /// Windows starting before this are not promoted to the next tier.
    max_tier_age_cutoff: i64,
}

impl Window {
    /// The incoming window: the base window holding `now`.
    pub(crate) fn incoming(cfg: &DateTieredConfig, now: i64) -> Window {
        let size = cfg.base_window_millis.max(1);
        Window {
            size,
            div: now / size,
            per_tier: i64::from(cfg.windows_per_tier.max(1)),
            max_tier_age_cutoff: now
                .checked_sub(cfg.effective_max_tier_age_millis())
                .unwrap_or(i64::MIN),
        }
    }

    /// Where the window lies relative to `ts`: `Equal` when it holds `ts`, `Greater` when it
    /// is newer than `ts`, `Less` when older.
    pub(crate) fn compare(&self, ts: i64) -> Ordering {
        // Division truncates toward zero: a negative timestamp is moved down first so that it
        // falls in the window below zero, not in window 0.
        let ts = if ts < 0 {
            ts.checked_sub(self.size - 1).unwrap_or(i64::MIN)
        } else {
            ts
        };
        self.div.cmp(&(ts / self.size))
    }

    /// The window just before this one: the same size while this one is not the first of its
    /// tier on the grid or the larger window would start before the max tier age cutoff, else
    /// the next tier's window (HBase's `nextEarlierWindow`; its unchecked arithmetic wraps).
    pub(crate) fn earlier(&self) -> Window {
        let promoted_start = self
            .start()
            .wrapping_sub(self.size.wrapping_mul(self.per_tier));
        if self.div % self.per_tier > 0 || promoted_start < self.max_tier_age_cutoff {
            Window {
                div: self.div - 1,
                ..*self
            }
        } else {
            Window {
                size: self.size.wrapping_mul(self.per_tier),
                div: self.div / self.per_tier - 1,
                ..*self
            }
        }
    }

    /// First timestamp of the window (`i64::MIN` on overflow).
    pub(crate) fn start(&self) -> i64 {
        self.size.checked_mul(self.div).unwrap_or(i64::MIN)
    }
}

/// The minor compaction to run, if any (HBase's `selectMinorCompaction`): `files` oldest
/// first by sequence id; `window_policy` the exploring policy's settings within a window
/// (its `min_files` applies to windows before the incoming one); `may_be_stuck` when the store
/// has reached its blocking file count (then a window's files are all taken, at most
/// `max_files` of them, the oldest).
pub(crate) fn select_minor(
    files: &[DtFile],
    now: i64,
    cfg: &DateTieredConfig,
    window_policy: &PickerConfig,
    may_be_stuck: bool,
) -> Option<DtSelection> {
    let oldest_to_compact = now
        .checked_sub(cfg.max_storefile_age_millis)
        .unwrap_or(i64::MIN);
    // Out-of-order data: a file is placed by the newest timestamp of it and every older file,
    // so timestamps and sequence ids order the files alike.
    let mut seen = i64::MIN;
    let placed: Vec<i64> = files
        .iter()
        .map(|f| {
            seen = seen.max(f.max_ts.unwrap_or(i64::MIN));
            seen
        })
        .collect();
    let mut window = Window::incoming(cfg, now);
    let mut min_threshold = cfg.incoming_window_min as usize;
    // Newest first: `end` is one past the newest file not yet placed in a window.
    let mut end = files.len();
    while end > 0 {
        if window.compare(oldest_to_compact) == Ordering::Less {
            break;
        }
        if window.compare(placed[end - 1]) == Ordering::Greater {
            // The file is older than the window: try the window before.
            window = window.earlier();
            min_threshold = window_policy.min_files;
            continue;
        }
        // Every file in this window, and newer ones (the incoming window tolerates future
        // timestamps).
        let mut start = end;
        while start > 0 && window.compare(placed[start - 1]) != Ordering::Greater {
            start -= 1;
        }
        if end - start >= min_threshold
            && let Some(sel) = select_in_window(
                files,
                start..end,
                &window,
                cfg,
                window_policy,
                min_threshold,
                may_be_stuck,
            )
        {
            return Some(sel);
        }
        end = start;
    }
    None
}

/// HBase's `generateCompactionRequest`: the exploring policy over one window's files.
fn select_in_window(
    files: &[DtFile],
    in_window: Range<usize>,
    window: &Window,
    cfg: &DateTieredConfig,
    window_policy: &PickerConfig,
    min_threshold: usize,
    may_be_stuck: bool,
) -> Option<DtSelection> {
    let chosen = if may_be_stuck {
        let n = (in_window.end - in_window.start).min(window_policy.max_files.max(1));
        in_window.start..in_window.start + n
    } else {
        let sizes: Vec<u64> = files[in_window.clone()].iter().map(|f| f.size).collect();
        let r = pick(
            &sizes,
            &PickerConfig {
                min_files: min_threshold,
                ..*window_policy
            },
        )?;
        in_window.start + r.start..in_window.start + r.end
    };
    if chosen.is_empty() {
        return None;
    }
    // A selection of part of the window writes one file; a whole window's compaction splits
    // off its cells older than the window, unless single output is configured.
    let single_output = chosen != in_window || cfg.single_output_for_minor;
    let mut boundaries = vec![i64::MIN];
    if !single_output {
        boundaries.push(window.start());
    }
    Some(DtSelection {
        files: chosen,
        boundaries,
    })
}

/// The output boundaries of a major compaction of `files` (HBase's
/// `getCompactBoundariesForMajor`): the start of every window from the incoming one back to
/// the one holding the files' oldest timestamp, ascending, after `i64::MIN`.
pub(crate) fn major_boundaries(files: &[DtFile], now: i64, cfg: &DateTieredConfig) -> Vec<i64> {
    let oldest = files
        .iter()
        .map(|f| f.min_ts.unwrap_or(i64::MAX))
        .min()
        .unwrap_or(i64::MAX);
    let mut starts = Vec::new();
    let mut window = Window::incoming(cfg, now);
    while window.compare(oldest) == Ordering::Greater {
        starts.push(window.start());
        window = window.earlier();
    }
    starts.push(i64::MIN);
    starts.reverse();
    starts
}

#[cfg(test)]
mod tests;
