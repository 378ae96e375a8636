//! Sorted runs of a store: consecutive files (in sequence order) whose row ranges do not
//! overlap and that hold nothing a minor compaction would drop. A minor compaction of such
//! files would write their cells out unchanged, one after the other, so the exploring picker
//! ([`crate::engine::picker`]) counts a run as one file and never merges a run with itself.
//! This is RocksDB's trivial move without the move: the files stay as they are. A sequential
//! load (every flush holds rows after the previous one) then writes each byte twice, to the
//! log and to its flushed file, instead of once more for every minor compaction.
//!
//! Where this differs from HBase (docs/SEMANTICS.md): HBase's `ExploringCompactionPolicy`
//! counts files, so it rewrites such files. The cells a read returns are the same either way;
//! what differs is when files are rewritten, which only the compaction counters show.

use crate::engine::region::StoreFile;
use crate::model::schema::FamilyDescriptor;
use crate::storage::sst::FileMeta;
use std::ops::Range;
use std::sync::Arc;

/// What grouping needs to know of one file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunFile<'a> {
    /// The file's first row.
    pub first_row: &'a [u8],
    /// The file's last row.
    pub last_row: &'a [u8],
    /// The file holds cells and nothing a minor compaction drops: no delete markers (which
    /// mask cells and may themselves go) and no cell past the family's TTL.
    pub clean: bool,
}

/// Groups `files` (oldest first) into runs: each range is a run of consecutive files. A clean
/// file joins the run before it when every file of that run is clean and no file of it shares
/// a row with it (rows, not keys: versions of one column never straddle two files of a run,
/// so a version limit never needs two of them at once). Any other file starts a run.
pub(crate) fn group_runs(files: &[RunFile<'_>]) -> Vec<Range<usize>> {
    let mut runs: Vec<Range<usize>> = Vec::new();
    // The current run's row ranges, sorted by first row (disjoint, so by last row too).
    let mut ranges: Vec<(&[u8], &[u8])> = Vec::new();
    let mut run_clean = false;
    for (i, f) in files.iter().enumerate() {
        let joins = run_clean && f.clean && {
            let at = ranges.partition_point(|r| r.0 < f.first_row);
            let after_prev = at == 0 || ranges[at - 1].1 < f.first_row;
            let before_next = at == ranges.len() || f.last_row < ranges[at].0;
            if after_prev && before_next {
                ranges.insert(at, (f.first_row, f.last_row));
                true
            } else {
                false
            }
        };
        if joins {
            if let Some(last) = runs.last_mut() {
                last.end = i + 1;
            }
            continue;
        }
        runs.push(i..i + 1);
        ranges.clear();
        ranges.push((f.first_row, f.last_row));
        run_clean = f.clean;
    }
    runs
}

/// [`group_runs`] over store files in the order given, with `clean` telling from a file's meta
/// whether it may join a run.
fn runs_of<'a>(
    files: impl Iterator<Item = &'a Arc<StoreFile>>,
    clean: impl Fn(&FileMeta) -> bool,
) -> Vec<Range<usize>> {
    let infos: Vec<RunFile<'a>> = files
        .map(|f| {
            let m = f.reader.meta();
            RunFile {
                first_row: m.first_row(),
                last_row: m.last_row(),
                clean: clean(m),
            }
        })
        .collect();
    group_runs(&infos)
}

/// Whether a file of family `fd` holds cells and nothing a minor compaction drops at `now`
/// ([`RunFile::clean`]).
fn clean_at(fd: &FamilyDescriptor, now: i64) -> impl Fn(&FileMeta) -> bool {
    let cutoff = fd.ttl_millis().map(|ttl| now.saturating_sub(ttl));
    move |m| m.cell_count > 0 && m.delete_count == 0 && cutoff.is_none_or(|c| m.min_ts >= c)
}

/// The runs of a store's files (`oldest_first`) of family `fd` at time `now`.
pub(crate) fn store_runs(
    oldest_first: &[Arc<StoreFile>],
    fd: &FamilyDescriptor,
    now: i64,
) -> Vec<Range<usize>> {
    runs_of(oldest_first.iter(), clean_at(fd, now))
}

/// Groups `files` (in order) into runs of consecutive row-disjoint files, whatever they hold:
/// for reads and the split policy, where only the row ranges matter.
pub(crate) fn disjoint_runs(files: &[&Arc<StoreFile>]) -> Vec<Range<usize>> {
    runs_of(files.iter().copied(), |_| true)
}

/// How many runs a store's files (newest first, as a version lists them) make.
pub(crate) fn run_count(newest_first: &[Arc<StoreFile>], fd: &FamilyDescriptor, now: i64) -> usize {
    runs_of(newest_first.iter().rev(), clean_at(fd, now)).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f<'a>(first: &'a str, last: &'a str, clean: bool) -> RunFile<'a> {
        RunFile {
            first_row: first.as_bytes(),
            last_row: last.as_bytes(),
            clean,
        }
    }

    #[test]
    fn sequential_flushes_make_one_run() {
        let files = [f("a", "c", true), f("d", "f", true), f("g", "k", true)];
        assert_eq!(group_runs(&files), vec![0..3]);
    }

    #[test]
    fn disjoint_in_any_order_joins() {
        // Flushes of a load that writes ranges out of order still never overlap.
        let files = [
            f("m", "p", true),
            f("a", "c", true),
            f("q", "z", true),
            f("d", "e", true),
        ];
        assert_eq!(group_runs(&files), vec![0..4]);
    }

    #[test]
    fn a_shared_row_starts_a_new_run() {
        // "c" is in both: versions of one column could straddle the two files.
        let files = [f("a", "c", true), f("c", "f", true), f("g", "h", true)];
        assert_eq!(group_runs(&files), vec![0..1, 1..3]);
        // Overlap with an earlier file of the run, not the last one.
        let files = [f("a", "c", true), f("x", "z", true), f("b", "b", true)];
        assert_eq!(group_runs(&files), vec![0..2, 2..3]);
    }

    #[test]
    fn a_file_with_something_to_drop_stands_alone() {
        let files = [
            f("a", "b", true),
            f("c", "d", false),
            f("e", "f", true),
            f("g", "h", true),
        ];
        assert_eq!(group_runs(&files), vec![0..1, 1..2, 2..4]);
    }

    #[test]
    fn overlapping_files_are_runs_of_one() {
        let files = [f("a", "z", true), f("a", "z", true), f("b", "y", true)];
        assert_eq!(group_runs(&files), vec![0..1, 1..2, 2..3]);
        assert!(group_runs(&[]).is_empty());
    }
}
