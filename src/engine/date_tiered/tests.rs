//! Oracle: HBase's `TestDateTieredCompactionPolicy` and `TestDateTieredCompactionPolicyOverflow`
//! (hbase-server, regionserver package; cases and numbers from there), run against the pure
//! picker. Their store: max storefile age 100, incoming window min 3, base window 6, 4 windows
//! per tier, single output for minor compactions off; within a window the exploring policy
//! with min 2, max 12 files, ratio 1.2, min size 10 and max size 2100 (`TestCompactionPolicy`).

use super::*;

fn cfg() -> DateTieredConfig {
    DateTieredConfig::default()
        .max_storefile_age_millis(100)
        .incoming_window_min(3)
        .base_window_millis(6)
        .windows_per_tier(4)
        .single_output_for_minor(false)
}

fn window_policy() -> PickerConfig {
    PickerConfig {
        min_files: 2,
        max_files: 12,
        ratio: 1.2,
        min_size: 10,
        max_size: 2100,
    }
}

/// HBase's `sfCreate`: files oldest first by sequence id.
fn files(min_ts: &[i64], max_ts: &[i64], sizes: &[u64]) -> Vec<DtFile> {
    sizes
        .iter()
        .enumerate()
        .map(|(i, &size)| DtFile {
            size,
            min_ts: Some(min_ts[i]),
            max_ts: Some(max_ts[i]),
        })
        .collect()
}

/// HBase's `compactEquals` for a minor compaction: the sizes of the selected files and the
/// output boundaries (`needsCompaction` is "a selection exists").
fn minor(now: i64, f: &[DtFile], want_sizes: &[u64], want_boundaries: &[i64]) {
    let sel = select_minor(f, now, &cfg(), &window_policy(), false).expect("a selection");
    let sizes: Vec<u64> = f[sel.files.clone()].iter().map(|f| f.size).collect();
    assert_eq!(sizes, want_sizes, "selected files");
    assert_eq!(sel.boundaries, want_boundaries, "boundaries");
}

fn zeros(n: usize) -> Vec<i64> {
    vec![0; n]
}

/// `incomingWindow`.
#[test]
fn incoming_window() {
    let max: Vec<i64> = (1..=15).collect();
    let sizes = [30, 31, 32, 33, 34, 20, 21, 22, 23, 24, 25, 10, 11, 12, 13];
    minor(
        16,
        &files(&zeros(15), &max, &sizes),
        &[10, 11, 12, 13],
        &[i64::MIN, 12],
    );
}

/// `NotIncomingWindow`: too few files in the incoming window, the one before is compacted.
#[test]
fn not_incoming_window() {
    let max: Vec<i64> = (1..=13).collect();
    let sizes = [30, 31, 32, 33, 34, 20, 21, 22, 23, 24, 25, 10, 11];
    minor(
        16,
        &files(&zeros(13), &max, &sizes),
        &[20, 21, 22, 23, 24, 25],
        &[i64::MIN, 6],
    );
}

/// `OnUpperBoundOfIncomingWindow` and `NewerThanIncomingWindow`: files at or past the end of
/// the incoming window count in it.
#[test]
fn upper_bound_and_newer_than_incoming_window() {
    let sizes = [30, 31, 32, 33, 34, 20, 21, 22, 23, 24, 25, 10, 11, 12, 13];
    for newest in [18, 19] {
        let mut max: Vec<i64> = (1..=14).collect();
        max.push(newest);
        minor(
            16,
            &files(&zeros(15), &max, &sizes),
            &[10, 11, 12, 13],
            &[i64::MIN, 12],
        );
    }
}

/// `NoT2`: without a full first tier no second-tier window is built.
#[test]
fn no_second_tier_without_a_first() {
    minor(
        194,
        &files(
            &zeros(6),
            &[44, 60, 61, 97, 100, 193],
            &[0, 20, 21, 22, 23, 1],
        ),
        &[22, 23],
        &[i64::MIN, 96],
    );
}

/// `T1`.
#[test]
fn first_tier_window() {
    minor(
        161,
        &files(
            &zeros(11),
            &[44, 60, 61, 96, 100, 104, 120, 124, 143, 145, 157],
            &[0, 50, 51, 40, 41, 42, 30, 31, 32, 2, 1],
        ),
        &[30, 31, 32],
        &[i64::MIN, 120],
    );
}

/// `RatioT0`: the exploring ratio within a window leaves a large file out (one output).
#[test]
fn ratio_in_base_window() {
    let max: Vec<i64> = (1..=12).collect();
    minor(
        16,
        &files(
            &zeros(12),
            &max,
            &[30, 31, 32, 33, 34, 20, 21, 22, 280, 23, 24, 1],
        ),
        &[20, 21, 22],
        &[i64::MIN],
    );
}

/// `RatioT2`: the ratio applies in a higher-tier window too.
#[test]
fn ratio_in_second_tier_window() {
    minor(
        161,
        &files(
            &zeros(11),
            &[44, 60, 61, 96, 100, 104, 120, 124, 143, 145, 157],
            &[0, 50, 51, 40, 41, 42, 350, 30, 31, 2, 1],
        ),
        &[30, 31],
        &[i64::MIN],
    );
}

/// `RatioT0Next`: the call after `RatioT0`'s compaction.
#[test]
fn ratio_next_compaction() {
    minor(
        16,
        &files(
            &zeros(10),
            &[1, 2, 3, 4, 5, 8, 9, 10, 11, 12],
            &[30, 31, 32, 33, 34, 22, 280, 23, 24, 1],
        ),
        &[23, 24],
        &[i64::MIN],
    );
}

/// `olderThanMaxAge`: windows older than now - max age (161 - 100) are not compacted.
#[test]
fn older_than_max_age() {
    minor(
        161,
        &files(
            &zeros(11),
            &[44, 60, 61, 96, 100, 104, 105, 106, 113, 145, 157],
            &[0, 50, 51, 40, 41, 42, 33, 30, 31, 2, 1],
        ),
        &[40, 41, 42, 33, 30, 31],
        &[i64::MIN, 96],
    );
}

/// `outOfOrder`: a file is placed by the newest timestamp of it and every older file.
#[test]
fn out_of_order_data() {
    minor(
        16,
        &files(
            &zeros(10),
            &[0, 13, 3, 10, 11, 1, 2, 12, 14, 15],
            &[30, 31, 32, 33, 34, 22, 28, 23, 24, 1],
        ),
        &[31, 32, 33, 34, 22, 28, 23, 24, 1],
        &[i64::MIN, 12],
    );
}

/// `negativeEpochtime`.
#[test]
fn negative_epoch_time() {
    minor(
        1,
        &files(
            &[-1000; 10],
            &[-28, -11, -10, -9, -8, -7, -6, -5, -4, -3],
            &[30, 31, 32, 33, 34, 22, 25, 23, 24, 1],
        ),
        &[31, 32, 33, 34, 22, 25, 23, 24, 1],
        &[i64::MIN, -24],
    );
}

/// `majorCompation`: one output per window from the incoming one back to the oldest cell.
#[test]
fn major_compaction_boundaries() {
    let f = files(
        &zeros(11),
        &[44, 60, 61, 96, 100, 104, 105, 106, 113, 145, 157],
        &[0, 50, 51, 40, 41, 42, 33, 30, 31, 2, 1],
    );
    assert_eq!(
        major_boundaries(&f, 161, &cfg()),
        [i64::MIN, 24, 48, 72, 96, 120, 144, 150, 156]
    );
}

/// `negativeForMajor`.
#[test]
fn major_compaction_boundaries_with_negative_timestamps() {
    let f = files(
        &[
            -155, -100, -100, -100, -100, -100, -100, -100, -100, -100, -100,
        ],
        &[-8, -7, -6, -5, -4, -3, -2, -1, 0, 6, 13],
        &[0, 50, 51, 40, 41, 42, 33, 30, 31, 2, 1],
    );
    assert_eq!(
        major_boundaries(&f, 16, &cfg()),
        [i64::MIN, -144, -120, -96, -72, -48, -24, 0, 6, 12]
    );
}

/// `TestDateTieredCompactionPolicyOverflow.maxValuesForMajor`: window arithmetic at the ends
/// of the time line (base window `i64::MAX / 2`, 2 windows per tier, now `i64::MAX`).
#[test]
fn major_compaction_boundaries_at_the_ends_of_time() {
    let c = cfg().base_window_millis(i64::MAX / 2).windows_per_tier(2);
    let f = files(&[i64::MIN, -100], &[-8, i64::MAX], &[0, 1]);
    assert_eq!(
        major_boundaries(&f, i64::MAX, &c),
        [
            i64::MIN,
            -4611686018427387903,
            0,
            4611686018427387903,
            9223372036854775806
        ]
    );
}

/// Nothing to do: too few files in every window, or all older than the max age.
#[test]
fn no_selection() {
    // Two files in the incoming window (3 needed), nothing before.
    let f = files(&zeros(2), &[13, 14], &[10, 10]);
    assert_eq!(select_minor(&f, 16, &cfg(), &window_policy(), false), None);
    // Files older than now - max age are never picked.
    let old = files(&zeros(4), &[1, 2, 3, 4], &[10, 10, 10, 10]);
    assert_eq!(
        select_minor(&old, 1000, &cfg(), &window_policy(), false),
        None
    );
    assert_eq!(select_minor(&[], 16, &cfg(), &window_policy(), false), None);
}

/// A store at its blocking file count takes a window's files whatever their sizes, at most
/// `max_files` (the oldest), as HBase's `mayBeStuck` and `removeExcessFiles`.
#[test]
fn stuck_store_takes_the_window() {
    let max: Vec<i64> = (1..=12).collect();
    let f = files(
        &zeros(12),
        &max,
        &[30, 31, 32, 33, 34, 20, 21, 22, 280, 23, 24, 1],
    );
    let sel = select_minor(
        &f,
        16,
        &cfg(),
        &PickerConfig {
            max_files: 4,
            ..window_policy()
        },
        true,
    )
    .unwrap();
    assert_eq!(sel.files, 5..9);
    assert_eq!(sel.boundaries, [i64::MIN]);
}

/// The window grid itself: sizes grow by the tier factor, never across the max tier age.
#[test]
fn windows_grow_by_tiers() {
    let c = cfg();
    let mut w = Window::incoming(&c, 161);
    let mut starts = Vec::new();
    for _ in 0..8 {
        starts.push(w.start());
        w = w.earlier();
    }
    assert_eq!(starts, [156, 150, 144, 120, 96, 72, 48, 24]);
    assert_eq!(Window::incoming(&c, 161).compare(156), Ordering::Equal);
    assert_eq!(Window::incoming(&c, 161).compare(155), Ordering::Greater);
    assert_eq!(Window::incoming(&c, 161).compare(162), Ordering::Less);
}
