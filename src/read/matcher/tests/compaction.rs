//! Flush and compaction retention: 1.7 [CMP-1..6] with [KDC-3..5] [TTL-5] [TTL-7] [DEL-11..13].

use super::*;
use crate::model::schema::KeepDeletedCells as Kdc;
use CompactionKind::{Flush, Major, Minor};

const NOW: i64 = 1_000_000;

fn kept(f: &FamilyDescriptor, kind: CompactionKind, now: i64, ws: &[W]) -> Vec<Got> {
    got_all(&compact(f, kind, now, &cells(ws)))
}

/// [CMP-2] (a) [TTL-5]: cell-TTL-expired cells are dropped (MIN_VERSIONS does not help).
#[test]
fn cmp2a_cell_ttl_expired_cells_dropped() {
    let f = fam("f").max_versions(3).min_versions(1).ttl(secs(3600));
    let ws = [p("a", 1000).ttl(100), p("a", 900), p("b", 1000).ttl(1000)];
    for kind in [Flush, Minor, Major] {
        check(&kept(&f, kind, 2000, &ws), &[("a", 900, P), ("b", 1000, P)]);
    }
}

/// [CMP-2] (b) [TTL-2] [TTL-7]: with m == 0, family-expired cells (markers too) are dropped;
/// the boundary `ts == now - ttl` survives.
#[test]
fn cmp2b_family_expired_cells_and_markers_dropped() {
    let f = fv(3).ttl(secs(1));
    let ws = [
        p("a", 9500),
        p("a", 8000),
        df(8999),
        dc("b", 9000),
        p("b", 8999),
        d("c", 8000),
    ];
    for kind in [Flush, Minor, Major] {
        let want: &[_] = if kind == Major {
            &[("a", 9500, P)]
        } else {
            &[("a", 9500, P), ("b", 9000, DC)]
        };
        check(&kept(&f, kind, 10_000, &ws), want);
    }
}

/// [CMP-2] (c) [DEL-11]: flush and minor compaction (KDC=FALSE) drop masked Puts and keep the
/// markers.
#[test]
fn cmp2c_flush_drops_masked_puts_keeps_markers() {
    let f = fv(3);
    let ws = [
        p("a", 1),
        p("a", 2),
        p("a", 3),
        d("a", 2),
        p("b", 4),
        dc("b", 5),
        p("b", 6),
        dfv(1),
    ];
    for kind in [Flush, Minor] {
        check(
            &kept(&f, kind, NOW, &ws),
            &[
                ("", 1, DFV),
                ("a", 3, P),
                ("a", 2, D),
                ("b", 6, P),
                ("b", 5, DC),
            ],
        );
    }
}

/// [CMP-2] (d) [VER-4] [VER-7]: versions beyond VERSIONS and duplicates are dropped.
#[test]
fn cmp2d_excess_versions_and_duplicates_dropped() {
    let f = fv(2);
    let ws = [
        p("a", 1),
        p("a", 2),
        p("a", 3),
        p("a", 4).val("old"),
        p("a", 4).val("new"),
        p("b", 1),
    ];
    for kind in [Flush, Minor, Major] {
        let got = kept(&f, kind, NOW, &ws);
        check(&got, &[("a", 4, P), ("a", 3, P), ("b", 1, P)]);
        check_values(&got, &["new", "a@3", "b@1"]);
    }
}

/// [CMP-2] (d) [TTL-4]: with MIN_VERSIONS, the m newest survive expiry, expired ones beyond m
/// are dropped.
#[test]
fn cmp2d_min_versions_and_expiry() {
    let f = fam("f").max_versions(10).min_versions(2).ttl(secs(1));
    let ws = [
        p("a", 1),
        p("a", 2),
        p("a", 3),
        p("a", 4),
        p("a", 5),
        p("a", 9500),
        p("b", 1),
    ];
    for kind in [Flush, Minor, Major] {
        check(
            &kept(&f, kind, 10_000, &ws),
            &[("a", 9500, P), ("a", 5, P), ("b", 1, P)],
        );
    }
}

/// [CMP-3] [KDC-3]: KDC=TRUE never masks in flush/compaction; deleted cells count toward
/// VERSIONS ("never more than VERSIONS deleted cells").
#[test]
fn kdc3_true_deleted_cells_count_toward_versions() {
    let f = fv(2).keep_deleted_cells(Kdc::True);
    let ws = [
        p("a", 1),
        p("a", 2),
        p("a", 3),
        dc("a", 3),
        d("b", 1),
        p("b", 1),
        df(0),
    ];
    for kind in [Flush, Minor] {
        check(
            &kept(&f, kind, NOW, &ws),
            &[
                ("", 0, DF),
                ("a", 3, DC),
                ("a", 3, P),
                ("a", 2, P),
                ("b", 1, D),
                ("b", 1, P),
            ],
        );
    }
    // Major (earliest Put 1): markers at or above it are kept too.
    check(
        &kept(&f, Major, NOW, &ws),
        &[
            ("a", 3, DC),
            ("a", 3, P),
            ("a", 2, P),
            ("b", 1, D),
            ("b", 1, P),
        ],
    );
}

/// [CMP-3] [KDC-5]: KDC=TTL masks only with family-expired markers.
#[test]
fn cmp3_kdc_ttl_only_expired_markers_mask() {
    let f = fam("f")
        .max_versions(10)
        .min_versions(1)
        .ttl(secs(1))
        .keep_deleted_cells(Kdc::Ttl);
    let ws = [
        df(5000).row("r1"),
        p("a", 4000).row("r1"),
        p("b", 6000).row("r1"),
        df(9800).row("r2"),
        p("a", 9700).row("r2"),
    ];
    for kind in [Flush, Minor] {
        check_full(
            &kept(&f, kind, 10_000, &ws),
            &[
                ("r1", "f", "", 5000, DF),
                ("r1", "f", "b", 6000, P),
                ("r2", "f", "", 9800, DF),
                ("r2", "f", "a", 9700, P),
            ],
        );
    }
}

/// [CMP-4] (HBASE-30036): flush drops markers made redundant by a tracked newer marker.
#[test]
fn cmp4_flush_drops_redundant_markers() {
    let ws = [
        dfv(12),
        df(10),
        dfv(9),
        df(8),
        dc("a", 7),
        d("b", 10),
        dc("c", 15),
        d("c", 14),
        dc("c", 13),
        d("d", 14),
        d("e", 16),
        dc("e", 15),
    ];
    let want = [
        ("", 12, DFV),
        ("", 10, DF),
        ("c", 15, DC),
        ("d", 14, D),
        ("e", 16, D),
        ("e", 15, DC),
    ];
    for kind in [Flush, Minor] {
        check(&kept(&fv(3), kind, NOW, &ws), &want);
    }
    // [CMP-3]: under KDC=TRUE nothing is tracked, so nothing is redundant.
    let all = kept(&fv(3).keep_deleted_cells(Kdc::True), Flush, NOW, &ws);
    assert_eq!(all.len(), ws.len());
}

/// [CMP-5] [DEL-11]: major compaction with KDC=FALSE drops every marker and what it masks.
#[test]
fn cmp5_major_false_drops_markers_and_masked_puts() {
    let ws = [
        p("a", 1),
        p("a", 2),
        p("a", 3),
        d("a", 2),
        p("b", 4),
        dc("b", 5),
        p("b", 6),
        dfv(1),
        df(0),
        p("c", 0),
    ];
    // a@2 by the D, a@1 by the DFV, b@4 by the DC, c@0 by the DF.
    check(&kept(&fv(3), Major, NOW, &ws), &[("a", 3, P), ("b", 6, P)]);
}

/// [SORT-5] HBASE-18471 in compaction: an excess empty-qualifier Put must not hide the `DF`
/// behind it.
#[test]
fn cmp5_major_false_df_behind_empty_qualifier_puts() {
    let ws = [p("", 9), p("", 7), df(5), p("a", 4), p("a", 6)];
    check(&kept(&fv(1), Major, NOW, &ws), &[("", 9, P), ("a", 6, P)]);
    check(
        &kept(&fv(1), Flush, NOW, &ws),
        &[("", 9, P), ("", 5, DF), ("a", 6, P)],
    );
}

/// [DEL-13] [CMP-5]: `time.to.purge.deletes` keeps recent (and future) markers through major
/// compaction; they still mask. Without it, future markers are purged [DEL-12].
#[test]
fn del13_purge_delay_keeps_recent_markers() {
    let now = 10_000;
    let cs = cells(&[
        dc("a", 9500),
        p("a", 9000),
        dc("b", 8000),
        p("b", 7000),
        p("b", 8500),
        dc("c", 20_000),
        p("c", 100),
    ]);
    let f = fv(3);
    let eput = earliest_put(&cs);
    check(
        &got_all(&compact_with(&f, Major, now, eput, 1000, &cs)),
        &[("a", 9500, DC), ("b", 8500, P), ("c", 20_000, DC)],
    );
    check(
        &got_all(&compact_with(&f, Major, now, eput, 0, &cs)),
        &[("b", 8500, P)],
    );
}

/// [KDC-4]: KDC=TRUE major compaction drops a marker older than the earliest Put of the whole
/// compaction (with the rest of its column).
#[test]
fn kdc4_major_true_earliest_put_rule() {
    let f = fv(3).keep_deleted_cells(Kdc::True);
    let cs = cells(&[p("a", 6), dc("a", 5), d("b", 2), d("b", 1), df(4)]);
    let run = |eput| got_all(&compact_with(&f, Major, NOW, eput, 0, &cs));
    check(&run(6), &[("a", 6, P)]);
    check(&run(5), &[("a", 6, P), ("a", 5, DC)]);
    check(
        &run(2),
        &[("", 4, DF), ("a", 6, P), ("a", 5, DC), ("b", 2, D)],
    );
    check(
        &run(1),
        &[
            ("", 4, DF),
            ("a", 6, P),
            ("a", 5, DC),
            ("b", 2, D),
            ("b", 1, D),
        ],
    );
}

/// [KDC-4]: KDC=TRUE major compaction keeps a marker sorted before the (V+1)-th Put of its
/// column and drops it after.
#[test]
fn kdc4_major_true_versions_rule() {
    let f = fv(1).keep_deleted_cells(Kdc::True);
    let cs = cells(&[
        p("a", 6),
        d("a", 6),
        d("a", 5),
        p("a", 5),
        d("a", 4),
        dc("a", 3),
    ]);
    check(
        &got_all(&compact_with(&f, Major, NOW, 0, 0, &cs)),
        &[("a", 6, D), ("a", 6, P), ("a", 5, D)],
    );
}

/// [KDC-4] [CMP-5]: KDC=TRUE major compaction drops an expired marker once more than m Puts
/// precede it.
#[test]
fn kdc4_major_true_expired_marker_after_min_versions() {
    let f = fam("f")
        .max_versions(10)
        .min_versions(1)
        .ttl(secs(1))
        .keep_deleted_cells(Kdc::True);
    let cs = cells(&[
        p("a", 9500),
        p("a", 8000),
        dc("a", 7000),
        p("b", 8000),
        dc("b", 7000),
        p("c", 9800),
        p("c", 9600),
        dc("c", 5000),
    ]);
    check(
        &got_all(&compact_with(&f, Major, 10_000, 0, 0, &cs)),
        &[
            ("a", 9500, P),
            ("b", 8000, P),
            ("b", 7000, DC),
            ("c", 9800, P),
            ("c", 9600, P),
        ],
    );
}

/// [KDC-5] [CMP-5]: KDC=TTL major compaction: expired markers mask and are dropped, unexpired
/// ones follow the TRUE rules.
#[test]
fn kdc5_major_ttl_markers() {
    let f = fam("f")
        .max_versions(10)
        .min_versions(1)
        .ttl(secs(1))
        .keep_deleted_cells(Kdc::Ttl);
    let ws = [
        df(5000).row("r1"),
        p("a", 4000).row("r1"),
        p("b", 6000).row("r1"),
        df(9500).row("r2"),
        p("a", 9400).row("r2"),
    ];
    check_full(
        &kept(&f, Major, 10_000, &ws),
        &[
            ("r1", "f", "b", 6000, P),
            ("r2", "f", "", 9500, DF),
            ("r2", "f", "a", 9400, P),
        ],
    );
}

/// [TTL-7]: with m == 0, even KDC=TTL/TRUE markers are dropped by flush once expired.
#[test]
fn ttl7_expired_markers_dropped_without_min_versions() {
    for kdc in [Kdc::True, Kdc::Ttl, Kdc::False] {
        let f = fv(3).ttl(secs(1)).keep_deleted_cells(kdc);
        check(
            &kept(&f, Flush, 10_000, &[df(8000), dc("a", 8500), p("a", 9500)]),
            &[("a", 9500, P)],
        );
    }
}

/// [CMP-1]: flush = minor rules; state resets per row.
#[test]
fn cmp1_flush_equals_minor_and_resets_per_row() {
    let f = fv(2);
    let ws = [
        dc("a", 5).row("r1"),
        p("a", 4).row("r1"),
        p("a", 4).row("r2"),
        p("a", 3).row("r2"),
        p("a", 2).row("r2"),
        df(9).row("r3"),
    ];
    let want = [
        ("r1", "f", "a", 5, DC),
        ("r2", "f", "a", 4, P),
        ("r2", "f", "a", 3, P),
        ("r3", "f", "", 9, DF),
    ];
    check_full(&kept(&f, Flush, NOW, &ws), &want);
    check_full(&kept(&f, Minor, NOW, &ws), &want);
}

/// [DEL-1] [DEL-12]: a re-put under a marker is invisible until a major compaction removes the
/// marker; then it is visible again.
#[test]
fn del12_reput_visible_after_major_compaction() {
    let mut sim = Sim::new(vec![fv(3)]);
    sim.write(&[p("a", 5), dc("a", 5)]);
    sim.flush(NOW);
    sim.write(&[p("a", 5).val("again")]);
    check(&sim.read(&at(NOW)), &[]);
    sim.flush(NOW);
    sim.minor(NOW);
    check(&sim.read(&at(NOW)), &[]);
    sim.major(NOW);
    check(&sim.read(&at(NOW)), &[]);
    sim.write(&[p("a", 5).val("third")]);
    check_values(&sim.read(&at(NOW)), &["third"]);
}
