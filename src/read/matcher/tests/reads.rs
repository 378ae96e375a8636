//! User reads: 1.4.1 steps 1-8, [DEL-*], [VER-*], [TTL-*], [KDC-1/2/5], [SCAN-RAW-1], [GET-1].

use super::*;
use crate::model::schema::KeepDeletedCells as Kdc;

const NOW: i64 = 1_000_000;

/// A read at `NOW` of `v` versions (0 = all versions).
fn all(v: u32) -> ReadSpec {
    at(NOW).versions(if v == 0 { u32::MAX } else { v })
}

// ---------------------------------------------------------------- delete markers [DEL-1..5]

/// [DEL-1] `D` masks exactly one timestamp of its column.
#[test]
fn del1_delete_masks_exactly_its_version() {
    let cs = cells(&[p("a", 1), p("a", 2), p("a", 3), d("a", 2), p("b", 2)]);
    check(
        &read(&[fv(3)], &all(0), &cs),
        &[("a", 3, P), ("a", 1, P), ("b", 2, P)],
    );
}

/// [DEL-1] [VER-4] `D` masks every duplicate at its timestamp.
#[test]
fn del1_delete_masks_all_duplicates_at_its_ts() {
    let cs = cells(&[p("a", 2), p("a", 2), d("a", 2), p("a", 1)]);
    check(&read(&[fv(3)], &all(0), &cs), &[("a", 1, P)]);
}

/// [DEL-1] `DC` masks every version at or below its timestamp, only in its column.
#[test]
fn del1_delete_column_masks_older_versions() {
    let cs = cells(&[
        p("a", 1),
        p("a", 2),
        p("a", 3),
        p("a", 4),
        dc("a", 3),
        p("b", 1),
    ]);
    check(&read(&[fv(5)], &all(0), &cs), &[("a", 4, P), ("b", 1, P)]);
}

/// [DEL-1] `DF` masks every qualifier at or below its timestamp (the empty qualifier too).
#[test]
fn del1_delete_family_masks_all_columns() {
    let cs = cells(&[
        p("", 2),
        p("", 6),
        p("a", 1),
        p("a", 3),
        p("b", 2),
        p("b", 5),
        p("c", 4),
        df(3),
    ]);
    check(
        &read(&[fv(3)], &all(0), &cs),
        &[("", 6, P), ("b", 5, P), ("c", 4, P)],
    );
}

/// [DEL-1] `DFV` masks exactly its timestamp in every column.
#[test]
fn del1_delete_family_version_masks_exact_ts_everywhere() {
    let cs = cells(&[p("a", 1), p("a", 2), p("b", 2), p("b", 3), dfv(2)]);
    check(&read(&[fv(3)], &all(0), &cs), &[("a", 1, P), ("b", 3, P)]);
}

/// [DEL-1] "Deletes mask Puts": a marker masks matching Puts written AFTER it.
#[test]
fn del1_markers_mask_puts_written_later() {
    let cs = cells(&[
        dc("a", 5),
        d("b", 3),
        df(1),
        p("a", 4),
        p("a", 5),
        p("a", 6),
        p("b", 3),
        p("c", 1),
    ]);
    check(&read(&[fv(3)], &all(0), &cs), &[("a", 6, P)]);
}

/// [DEL-2] [SORT-4] Every marker type masks a Put with the same timestamp, whatever the order
/// of writing.
#[test]
fn del2_every_marker_masks_equal_ts() {
    let cs = cells(&[
        d("a", 5).row("r1"),
        p("a", 5).row("r1"),
        p("a", 5).row("r2"),
        dc("a", 5).row("r2"),
        df(5).row("r3"),
        p("a", 5).row("r3"),
        p("a", 5).row("r4"),
        dfv(5).row("r4"),
        p("a", 6).row("r4"),
    ]);
    check_full(&read(&[fv(3)], &all(0), &cs), &[("r4", "f", "a", 6, P)]);
}

/// [DEL-5] 2: a `D` after a `DC` of the same qualifier is ignored; it must not replace the `DC`
/// (which would let `a@3` through).
#[test]
fn del5_delete_after_delete_column_is_ignored() {
    let cs = cells(&[dc("a", 5), d("a", 4), p("a", 6), p("a", 4), p("a", 3)]);
    check(&read(&[fv(5)], &all(0), &cs), &[("a", 6, P)]);
}

/// [DEL-5] 3: the pending `D` is discarded once an older Put of its column appears; a newer `D`
/// is replaced by an older one.
#[test]
fn del5_pending_delete_is_spent_by_older_put() {
    let cs = cells(&[d("a", 5), p("a", 5), p("a", 4), p("a", 3)]);
    check(&read(&[fv(5)], &all(0), &cs), &[("a", 4, P), ("a", 3, P)]);
    let cs = cells(&[
        d("a", 5),
        d("a", 3),
        p("a", 5),
        p("a", 4),
        p("a", 3),
        p("a", 2),
    ]);
    check(&read(&[fv(5)], &all(0), &cs), &[("a", 4, P), ("a", 2, P)]);
}

/// [DEL-5] 2: a `DC` after a `D` of the same qualifier replaces it.
#[test]
fn del5_delete_column_after_delete_takes_over() {
    let cs = cells(&[
        d("a", 5),
        dc("a", 3),
        p("a", 6),
        p("a", 5),
        p("a", 4),
        p("a", 3),
        p("a", 2),
    ]);
    check(&read(&[fv(5)], &all(0), &cs), &[("a", 6, P), ("a", 4, P)]);
}

/// [DEL-5] 1: only the newest `DF` matters, and markers at or below it add nothing.
#[test]
fn del5_newest_delete_family_wins() {
    let cs = cells(&[
        df(5),
        df(3),
        dfv(7),
        dfv(4),
        p("a", 7),
        p("a", 6),
        p("a", 5),
        p("a", 4),
    ]);
    check(&read(&[fv(5)], &all(0), &cs), &[("a", 6, P)]);
}

/// [SORT-5] A `DF` sorts into the empty-qualifier column: a newer empty-qualifier Put precedes
/// it, older ones follow it; the `DF` still masks later qualifiers, also when only those are
/// requested.
#[test]
fn sort5_delete_family_and_empty_qualifier_puts() {
    let cs = cells(&[p("", 10), p("", 3), df(5), p("a", 4), p("a", 6)]);
    let fams = [fv(3)];
    check(&read(&fams, &all(0), &cs), &[("", 10, P), ("a", 6, P)]);
    check(
        &read(&fams, &all(0).columns("f", &[""]), &cs),
        &[("", 10, P)],
    );
    check(
        &read(&fams, &all(0).columns("f", &["a"]), &cs),
        &[("a", 6, P)],
    );
}

// ---------------------------------------------------------------- versions [VER-1..8]

/// [VER-2] Get/Scan default: one version.
#[test]
fn ver2_default_reads_one_version() {
    let cs = cells(&[p("a", 1), p("a", 2), p("a", 3), p("b", 1)]);
    check(&read(&[fv(3)], &at(NOW), &cs), &[("a", 3, P), ("b", 1, P)]);
}

/// [VER-2] A normal read returns at most min(query versions, VERSIONS) per column.
#[test]
fn ver2_query_versions_capped_by_family_versions() {
    let cs = cells(&[p("a", 1), p("a", 2), p("a", 3), p("a", 4)]);
    check(
        &read(&[fv(2)], &at(NOW).versions(10), &cs),
        &[("a", 4, P), ("a", 3, P)],
    );
    check(
        &read(&[fv(5)], &at(NOW).versions(3), &cs),
        &[("a", 4, P), ("a", 3, P), ("a", 2, P)],
    );
}

/// [VER-3] Deleted versions do not count: deleting the newest re-exposes an older, not yet
/// compacted version.
#[test]
fn ver3_deleting_newest_reexposes_older_versions() {
    let cs = cells(&[p("a", 1), p("a", 2), p("a", 3), d("a", 3)]);
    check(&read(&[fv(2)], &all(2), &cs), &[("a", 2, P), ("a", 1, P)]);
    check(&read(&[fv(2)], &at(NOW), &cs), &[("a", 2, P)]);
}

/// [VER-4] [SORT-6] Duplicates (same ts and type) are returned once: the newest write.
#[test]
fn ver4_duplicates_return_newest_write_once() {
    let cs = cells(&[
        p("a", 5).val("old"),
        p("a", 5).val("new"),
        p("a", 4).val("four"),
    ]);
    let got = read(&[fv(3)], &all(0), &cs);
    check(&got, &[("a", 5, P), ("a", 4, P)]);
    check_values(&got, &["new", "four"]);
}

/// [VER-4] A duplicate does not count as a version (wildcard and explicit trackers).
#[test]
fn ver4_duplicates_are_not_counted() {
    let cs = cells(&[p("a", 5), p("a", 5), p("a", 5), p("a", 4), p("a", 3)]);
    check(&read(&[fv(2)], &all(2), &cs), &[("a", 5, P), ("a", 4, P)]);
    check(
        &read(&[fv(2)], &all(2).columns("f", &["a"]), &cs),
        &[("a", 5, P), ("a", 4, P)],
    );
}

/// [VER-5] The time range applies before version counting: versions beyond VERSIONS still in
/// the memstore are visible to a time-range read until a flush drops them.
#[test]
fn ver5_time_range_before_version_counting() {
    let ws: Vec<W> = (1..=8).map(|t| p("a", t)).collect();
    let cs = cells(&ws);
    let spec = at(NOW).tr(0, 5).versions(3);
    check(
        &read(&[fv(3)], &spec, &cs),
        &[("a", 4, P), ("a", 3, P), ("a", 2, P)],
    );
    let flushed = compact(&fv(3), CompactionKind::Flush, NOW, &cs);
    check(&got_all(&flushed), &[("a", 8, P), ("a", 7, P), ("a", 6, P)]);
    check(&read(&[fv(3)], &spec, &flushed), &[]);
}

/// [TS-5] [VER-5] The range is `[min, max)`; cells outside it are not counted.
#[test]
fn ver5_time_range_bounds() {
    let cs = cells(&[p("a", 1), p("a", 2), p("a", 3)]);
    let fams = [fv(3)];
    check(&read(&fams, &at(NOW).tr(0, 3), &cs), &[("a", 2, P)]);
    check(&read(&fams, &at(NOW).tr(2, 3), &cs), &[("a", 2, P)]);
    check(&read(&fams, &at(NOW).tr(3, 3), &cs), &[]);
    check(
        &read(&fams, &all(0).tr(2, i64::MAX), &cs),
        &[("a", 3, P), ("a", 2, P)],
    );
}

/// [VER-6] With a filter, up to VERSIONS versions reach the filter: an older version can be
/// returned when newer ones are filtered out, never one beyond the V newest.
#[test]
fn ver6_filter_reaches_family_versions() {
    let ws: Vec<W> = (1..=5).map(|t| p("a", t)).collect();
    let cs = cells(&ws);
    let fams = [fv(3)];
    let spec = at(NOW).filtered(); // query versions 1
    let only = |t: i64| move |k: &KeyRef<'_>| k.ts == t;
    check(
        &read_filtered(&fams, &spec, &cs, Some(&only(3))),
        &[("a", 3, P)],
    );
    check(&read_filtered(&fams, &spec, &cs, Some(&only(2))), &[]);
    check(
        &read_filtered(&fams, &spec, &cs, Some(&|_: &KeyRef<'_>| true)),
        &[("a", 5, P)],
    );
}

/// [VER-6] At most min(query versions, VERSIONS) filter-included cells per column.
#[test]
fn ver6_filter_output_capped() {
    let ws: Vec<W> = (1..=5)
        .map(|t| p("a", t))
        .chain((1..=5).map(|t| p("b", t)))
        .collect();
    let cs = cells(&ws);
    let odd = |k: &KeyRef<'_>| k.ts % 2 == 1;
    let fams = [fv(3)];
    check(
        &read_filtered(&fams, &at(NOW).versions(2).filtered(), &cs, Some(&odd)),
        &[("a", 5, P), ("a", 3, P), ("b", 5, P), ("b", 3, P)],
    );
    check(
        &read_filtered(&fams, &at(NOW).versions(1).filtered(), &cs, Some(&odd)),
        &[("a", 5, P), ("b", 5, P)],
    );
    // Explicit columns behave the same.
    check(
        &read_filtered(
            &fams,
            &at(NOW).versions(2).filtered().columns("f", &["b"]),
            &cs,
            Some(&odd),
        ),
        &[("b", 5, P), ("b", 3, P)],
    );
}

/// [VER-6] Raw scan with a filter: unlimited reach, query versions returned.
#[test]
fn ver6_raw_filter_unlimited_reach() {
    let ws: Vec<W> = (1..=5).map(|t| p("a", t)).collect();
    let cs = cells(&ws);
    let old = |k: &KeyRef<'_>| k.ts <= 2;
    let spec = at(NOW).raw().versions(2).filtered();
    check(
        &read_filtered(&[fv(1)], &spec, &cs, Some(&old)),
        &[("a", 2, P), ("a", 1, P)],
    );
}

/// [VER-8] (HBase quirk) Explicit columns + MIN_VERSIONS + TTL: the first expired version after
/// `m` is included; the wildcard tracker excludes it.
#[test]
fn ver8_explicit_tracker_includes_first_expired_version() {
    let now = 100_000;
    let fams = [fam("f").max_versions(10).min_versions(1).ttl(secs(1))];
    let cs = cells(&[p("a", now), p("a", now - 5000), p("a", now - 6000)]);
    check(&read(&fams, &at(now).versions(10), &cs), &[("a", now, P)]);
    check(
        &read(&fams, &at(now).versions(10).columns("f", &["a"]), &cs),
        &[("a", now, P), ("a", now - 5000, P)],
    );
}

// ---------------------------------------------------------------- columns [GET-1]

/// [GET-1] Explicit qualifiers select columns; the empty qualifier is a qualifier.
#[test]
fn get1_explicit_columns_select_qualifiers() {
    let cs = cells(&[
        p("", 1),
        p("a", 1),
        p("b", 1),
        p("b", 2),
        p("c", 1),
        p("d", 1),
    ]);
    let fams = [fv(3)];
    check(
        &read(&fams, &all(0).columns("f", &["b", "d"]), &cs),
        &[("b", 2, P), ("b", 1, P), ("d", 1, P)],
    );
    check(
        &read(&fams, &all(0).columns("f", &["", "c", "zz"]), &cs),
        &[("", 1, P), ("c", 1, P)],
    );
}

/// [GET-1] Per family: explicit qualifiers in one, the whole of another, nothing of a third.
#[test]
fn get1_selection_per_family() {
    let cs = cells(&[
        p("a", 1).fam("f"),
        p("b", 1).fam("f"),
        p("a", 1).fam("g"),
        p("b", 1).fam("g"),
        p("a", 1).fam("h"),
    ]);
    let fams = [fam("f"), fam("g"), fam("h")];
    let spec = at(NOW).columns("f", &["b"]).family("g");
    check_full(
        &read(&fams, &spec, &cs),
        &[
            ("r", "f", "b", 1, P),
            ("r", "g", "a", 1, P),
            ("r", "g", "b", 1, P),
        ],
    );
}

/// [GET-1] Explicit columns across rows: the tracker restarts for each row.
#[test]
fn get1_explicit_columns_restart_per_row() {
    let cs = cells(&[
        p("a", 1).row("r1"),
        p("b", 1).row("r1"),
        p("a", 2).row("r2"),
        p("c", 2).row("r2"),
        p("b", 3).row("r3"),
    ]);
    check_full(
        &read(&[fv(1)], &at(NOW).columns("f", &["b"]), &cs),
        &[("r1", "f", "b", 1, P), ("r3", "f", "b", 3, P)],
    );
}

// ---------------------------------------------------------------- TTL [TTL-2..6]

/// [TTL-2] Family expiry is strict: `ts == now - ttl` is still visible.
#[test]
fn ttl2_expiry_boundary() {
    let now = 10_000;
    let fams = [fv(3).ttl(secs(1))];
    let cs = cells(&[p("a", 9000), p("a", 8999), p("b", 8999)]);
    check(
        &read(&fams, &at(now).all_versions(), &cs),
        &[("a", 9000, P)],
    );
    check(&read(&fams, &at(now + 1).all_versions(), &cs), &[]);
}

/// [TTL-3] Cell TTL: expired iff `ts + ttl < now`.
#[test]
fn ttl3_cell_ttl_boundary() {
    let cs = cells(&[p("a", 1000).ttl(500)]);
    check(&read(&[fv(1)], &at(1500), &cs), &[("a", 1000, P)]);
    check(&read(&[fv(1)], &at(1501), &cs), &[]);
}

/// [TTL-3] A cell TTL cannot extend the family TTL.
#[test]
fn ttl3_cell_ttl_cannot_extend_family_ttl() {
    let cs = cells(&[p("a", 1000).ttl(1_000_000)]);
    let fams = [fv(1).ttl(secs(1))];
    check(&read(&fams, &at(2000), &cs), &[("a", 1000, P)]);
    check(&read(&fams, &at(2001), &cs), &[]);
}

/// [TTL-5] An expired newer version does not count: the previous value reappears.
#[test]
fn ttl5_cell_expiry_reexposes_older_version() {
    let cs = cells(&[p("a", 1000), p("a", 2000).ttl(100)]);
    check(&read(&[fv(3)], &at(2100), &cs), &[("a", 2000, P)]);
    check(&read(&[fv(3)], &at(2101), &cs), &[("a", 1000, P)]);
}

/// [TTL-4] MIN_VERSIONS keeps the m newest versions visible although family-expired.
#[test]
fn ttl4_min_versions_protect_against_family_ttl() {
    let fams = [fam("f").max_versions(5).min_versions(2).ttl(secs(1))];
    let cs = cells(&[
        p("a", 1),
        p("a", 2),
        p("a", 3),
        p("a", 4),
        p("b", 9500),
        p("b", 3),
    ]);
    check(
        &read(&fams, &at(10_000).all_versions(), &cs),
        &[("a", 4, P), ("a", 3, P), ("b", 9500, P), ("b", 3, P)],
    );
    check(
        &read(&fams, &at(10_000), &cs),
        &[("a", 4, P), ("b", 9500, P)],
    );
}

/// [TTL-4] MIN_VERSIONS does not protect cell-TTL-expired cells (they are not counted either).
#[test]
fn ttl4_min_versions_do_not_protect_cell_ttl() {
    let fams = [fam("f").max_versions(5).min_versions(1).ttl(secs(1))];
    let cs = cells(&[p("a", 5).ttl(1), p("a", 4), p("a", 3)]);
    check(
        &read(&fams, &at(10_000).all_versions(), &cs),
        &[("a", 4, P)],
    );
}

/// [TTL-4] MIN_VERSIONS counts within the time range [VER-5].
#[test]
fn ttl4_min_versions_within_time_range() {
    let fams = [fam("f").max_versions(10).min_versions(2).ttl(secs(1))];
    let ws: Vec<W> = (1..=6).map(|t| p("a", t)).collect();
    let cs = cells(&ws);
    check(
        &read(&fams, &at(10_000).all_versions().tr(0, 4), &cs),
        &[("a", 3, P), ("a", 2, P)],
    );
}

/// [TTL-6] Raw scans ignore family and cell TTL.
#[test]
fn ttl6_raw_scan_ignores_ttl() {
    let fams = [fv(1).ttl(secs(1))];
    let cs = cells(&[p("a", 1).ttl(1), p("a", 2)]);
    check(
        &read(&fams, &at(100_000).raw().all_versions(), &cs),
        &[("a", 2, P), ("a", 1, P)],
    );
    check(&read(&fams, &at(100_000).all_versions(), &cs), &[]);
}

// ---------------------------------------------------------------- KEEP_DELETED_CELLS reads

/// [KDC-1] FALSE: a marker after the end of the time range still masks.
#[test]
fn kdc1_false_markers_beyond_range_still_mask() {
    let cs = cells(&[
        p("a", 1),
        p("a", 2),
        dc("a", 5),
        p("b", 1),
        d("b", 1),
        p("c", 4),
        df(3),
    ]);
    let fams = [fv(3)];
    check(&read(&fams, &all(0).tr(0, 3), &cs), &[]);
    check(&read(&fams, &all(0).tr(4, 10), &cs), &[("c", 4, P)]);
}

/// [KDC-2] TRUE: only markers inside `[min, max)` are honoured (point-in-time reads); a range
/// ending at T+1 includes a marker at T.
#[test]
fn kdc2_true_point_in_time_reads() {
    let fams = [fv(3).keep_deleted_cells(Kdc::True)];
    let cs = cells(&[
        p("a", 1),
        p("a", 2),
        dc("a", 3),
        p("a", 4),
        p("b", 2),
        df(5),
        p("b", 6),
    ]);
    check(
        &read(&fams, &all(0).tr(0, 3), &cs),
        &[("a", 2, P), ("a", 1, P), ("b", 2, P)],
    );
    check(&read(&fams, &all(0).tr(0, 4), &cs), &[("b", 2, P)]);
    check(&read(&fams, &all(0).tr(0, 6), &cs), &[]);
    check(&read(&fams, &all(0), &cs), &[("b", 6, P)]);
}

/// [KDC-2] TRUE: a marker below the range start is not honoured; here it matters for a `DF`
/// whose masked Puts lie inside the range only if it were (it is not).
#[test]
fn kdc2_true_versus_false_with_marker_beyond_range() {
    let cs = cells(&[
        p("a", 1),
        d("a", 1),
        p("b", 1),
        dc("b", 7),
        dfv(9),
        p("c", 9),
    ]);
    let t = [fv(3).keep_deleted_cells(Kdc::True)];
    let f = [fv(3)];
    check(&read(&t, &all(0).tr(0, 5), &cs), &[("b", 1, P)]);
    check(&read(&f, &all(0).tr(0, 5), &cs), &[]);
    check(&read(&t, &all(0), &cs), &[]);
}

/// [KDC-5] TTL: reads behave like TRUE.
#[test]
fn kdc5_ttl_reads_like_true() {
    let fams = [fv(3).keep_deleted_cells(Kdc::Ttl).ttl(secs(3600))];
    let now = 1_000_000;
    let cs = cells(&[p("a", now - 3), p("a", now - 2), dc("a", now - 1)]);
    check(
        &read(&fams, &at(now).all_versions().tr(0, now - 1), &cs),
        &[("a", now - 2, P), ("a", now - 3, P)],
    );
    check(&read(&fams, &at(now).all_versions(), &cs), &[]);
}

// ---------------------------------------------------------------- raw [SCAN-RAW-1]

/// [SCAN-RAW-1] [KDC-6] Raw scans return markers and masked cells, in [SORT-1] order, whatever
/// KDC says.
#[test]
fn raw_returns_markers_and_deleted_cells_in_order() {
    let cs = cells(&[
        p("a", 1),
        p("a", 3),
        p("a", 5),
        df(2),
        d("a", 3),
        dc("a", 4),
    ]);
    let want = [
        ("", 2, DF),
        ("a", 5, P),
        ("a", 4, DC),
        ("a", 3, D),
        ("a", 3, P),
        ("a", 1, P),
    ];
    check(&read(&[fv(3)], &at(NOW).raw().all_versions(), &cs), &want);
    check(
        &read(
            &[fv(3).keep_deleted_cells(Kdc::True)],
            &at(NOW).raw().all_versions(),
            &cs,
        ),
        &want,
    );
}

/// [SCAN-RAW-1] [KDC-6] The time range applies to markers too.
#[test]
fn raw_time_range_applies_to_markers() {
    let cs = cells(&[
        p("a", 1),
        p("a", 3),
        p("a", 5),
        df(2),
        d("a", 3),
        dc("a", 4),
    ]);
    let fams = [fv(3)];
    check(
        &read(&fams, &at(NOW).raw().all_versions().tr(0, 3), &cs),
        &[("", 2, DF), ("a", 1, P)],
    );
    check(
        &read(&fams, &at(NOW).raw().all_versions().tr(3, 6), &cs),
        &[("a", 5, P), ("a", 4, DC), ("a", 3, D), ("a", 3, P)],
    );
    check(
        &read(&fams, &at(NOW).raw().all_versions().tr(0, 1), &cs),
        &[],
    );
}

/// [SCAN-RAW-1] [VER-2] Raw scans are not capped by VERSIONS, only by the query versions.
#[test]
fn raw_uncapped_by_family_versions() {
    let cs = cells(&[p("a", 1), p("a", 2), p("a", 3), p("a", 4)]);
    check(
        &read(&[fv(1)], &at(NOW).raw().versions(3), &cs),
        &[("a", 4, P), ("a", 3, P), ("a", 2, P)],
    );
    check(&read(&[fv(1)], &at(NOW).raw(), &cs), &[("a", 4, P)]);
}

/// [SCAN-RAW-1] Markers are not counted, but the column stops once more than the query versions
/// of Puts were seen.
#[test]
fn raw_markers_not_counted_column_stops_after_query_versions() {
    let cs = cells(&[
        d("a", 5),
        p("a", 5),
        d("a", 4),
        p("a", 4),
        dc("a", 3),
        p("b", 1),
    ]);
    check(
        &read(&[fv(1)], &at(NOW).raw(), &cs),
        &[("a", 5, D), ("a", 5, P), ("a", 4, D), ("b", 1, P)],
    );
}

/// [SCAN-RAW-1] [VER-4] Raw duplicates (Puts or markers of the same ts and type) appear once.
#[test]
fn raw_duplicates_appear_once() {
    let cs = cells(&[p("a", 5), p("a", 5), d("a", 5), d("a", 5), dfv(2), dfv(2)]);
    check(
        &read(&[fv(3)], &at(NOW).raw().all_versions(), &cs),
        &[("", 2, DFV), ("a", 5, D), ("a", 5, P)],
    );
}

/// [KDC-6] HBase rejects explicit columns in raw scans; if given anyway, other qualifiers
/// (family markers included) are skipped.
#[test]
fn raw_with_explicit_columns_only_named_qualifiers() {
    let cs = cells(&[df(9), p("a", 1), d("a", 1), p("b", 1)]);
    check(
        &read(
            &[fv(3)],
            &at(NOW).raw().all_versions().columns("f", &["a"]),
            &cs,
        ),
        &[("a", 1, D), ("a", 1, P)],
    );
}

/// [DEL-9] Future-dated cells and markers work like any other; timestamps near `i64::MAX` do
/// not overflow the TTL arithmetic [TTL-3].
#[test]
fn del9_future_dated_markers_and_overflow_safety() {
    let max = i64::MAX;
    let cs = cells(&[p("a", max - 5), p("b", max - 5).ttl(u64::MAX), df(max - 6)]);
    let fams = [fv(1).ttl(secs(1))];
    check(
        &read(&fams, &at(NOW), &cs),
        &[("a", max - 5, P), ("b", max - 5, P)],
    );
    let cs = cells(&[p("a", max - 5), df(max - 3)]);
    check(&read(&fams, &at(NOW), &cs), &[]);
    let kept = compact(
        &fams[0],
        CompactionKind::Major,
        NOW,
        &cells(&[p("a", max - 5).ttl(u64::MAX)]),
    );
    assert_eq!(kept.len(), 1);
}
