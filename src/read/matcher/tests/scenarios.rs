//! HBase's own scenarios replayed through the matchers: `TestKeepDeletes` (§1.6.1) and
//! `TestMinVersions` (§1.5.1). A [`Sim`] stands in for the region: writes go to a memstore,
//! `flush` runs the Flush matcher per family, `major` runs the Major matcher over all files of a
//! family with their earliest Put ts [KDC-4], reads merge everything. Families are `c0`, `c1`,
//! `c2` (HBase's `COLUMNS[0..3]`); qualifiers `c0`, `c1`. Values are `T0`..`T6` as in HBase.

use super::*;
use crate::model::schema::KeepDeletedCells as Kdc;

/// The "current time" of TestKeepDeletes' incrementing clock, well after every write.
const TS: i64 = 1_000_000;
const LATER: i64 = TS + 1000;

/// Three families like `HBaseTestingUtility.createTableDescriptor(name, m, V, ttl, kdc)`.
fn table(m: u32, v: u32, ttl: Option<u64>, kdc: Kdc) -> Vec<FamilyDescriptor> {
    ["c0", "c1", "c2"]
        .into_iter()
        .map(|n| {
            let f = fam(n)
                .max_versions(v)
                .min_versions(m)
                .keep_deleted_cells(kdc);
            match ttl {
                Some(s) => f.ttl(secs(s)),
                None => f,
            }
        })
        .collect()
}

/// `put row fam:q @ts = val`.
fn put(row: &'static str, f: &'static str, q: &'static str, ts: i64, val: &'static str) -> W {
    p(q, ts).row(row).fam(f).val(val)
}

/// Values of `row` returned by `spec`.
fn row_values(sim: &Sim, row: &str, spec: &ReadSpec) -> Vec<String> {
    sim.read(spec)
        .into_iter()
        .filter(|g| g.row == row)
        .map(|g| g.value)
        .collect()
}

/// TestKeepDeletes' `checkGet`: `Get(row).addColumn(f, q)`, all versions, `TR [0, time)`.
fn check_get(sim: &Sim, row: &str, f: &str, q: &str, time: i64, want: &[&str]) {
    let spec = at(LATER).all_versions().tr(0, time).columns(f, &[q]);
    assert_eq!(
        row_values(sim, row, &spec),
        want,
        "get {row} {f}:{q} [0,{time})"
    );
}

// ---------------------------------------------------------------- TestKeepDeletes

/// testBasicScenario: V=3, KDC=TRUE. [KDC-2] [KDC-3] [KDC-4] [DEL-12]
#[test]
fn keep_deletes_basic_scenario() {
    let mut sim = Sim::new(table(0, 3, None, Kdc::True));
    let ts = TS;
    sim.write(&[
        put("T1", "c0", "c0", ts, "T1"),
        put("T1", "c0", "c0", ts + 1, "T2"),
        put("T1", "c0", "c0", ts + 2, "T3"),
        put("T1", "c0", "c0", ts + 4, "T4"),
    ]);
    sim.delete_row("T1", ts + 2);
    assert_eq!(sim.markers(LATER), 3, "one DF per family");
    // Get before the marker sees the deleted cells.
    let g = at(LATER).all_versions().tr(0, ts + 2);
    assert_eq!(row_values(&sim, "T1", &g), ["T2", "T1"]);
    // Flush drops the 4th version even though it is deleted [KDC-3].
    sim.flush(LATER);
    assert_eq!(row_values(&sim, "T1", &g), ["T2"]);
    sim.major(LATER);
    sim.major(LATER);
    // The DFs of the empty families are gone [KDC-4].
    assert_eq!(sim.markers(LATER), 1);
    assert_eq!(row_values(&sim, "T1", &g), ["T2"]);
    // A range including the marker does not see past it.
    let g = at(LATER).all_versions().tr(0, ts + 4);
    assert!(row_values(&sim, "T1", &g).is_empty());
    // Two more puts push the older ones out; an old put again.
    sim.write(&[
        put("T1", "c0", "c0", ts + 5, "T5"),
        put("T1", "c0", "c0", ts + 6, "T6"),
        put("T1", "c0", "c0", ts, "T1"),
    ]);
    assert!(row_values(&sim, "T1", &g).is_empty());
    sim.flush(LATER);
    sim.major(LATER);
    sim.major(LATER);
    // The marker was collected: the re-put is visible [DEL-12].
    sim.write(&[put("T1", "c0", "c0", ts, "T1")]);
    assert_eq!(row_values(&sim, "T1", &g), ["T1"]);
    assert_eq!(sim.markers(LATER), 0);
}

/// testRawScanWithoutKeepingDeletes: V=3, KDC=FALSE. [SCAN-RAW-1] [DEL-11]
#[test]
fn keep_deletes_raw_scan_without_keeping_deletes() {
    let mut sim = Sim::new(table(0, 3, None, Kdc::False));
    sim.write(&[
        put("T1", "c0", "c0", TS, "T1"),
        d("c0", TS).row("T1").fam("c0"),
    ]);
    let raw = at(LATER).raw().all_versions();
    check(&sim.read(&raw), &[("c0", TS, D), ("c0", TS, P)]);
    sim.flush(LATER);
    check(&sim.read(&raw), &[("c0", TS, D)]);
    sim.major(LATER);
    check(&sim.read(&raw), &[]);
}

/// testWithoutKeepingDeletes: V=3, KDC=FALSE. [KDC-1] [DEL-11]
#[test]
fn keep_deletes_without_keeping_deletes() {
    let mut sim = Sim::new(table(0, 3, None, Kdc::False));
    sim.write(&[put("T1", "c0", "c0", TS, "T1")]);
    let g = at(LATER).all_versions().tr(0, TS + 1);
    assert_eq!(row_values(&sim, "T1", &g), ["T1"]);
    // Delete(T1, ts+2).addColumn(c0, c0, ts)
    sim.write(&[d("c0", TS).row("T1").fam("c0")]);
    assert!(
        row_values(&sim, "T1", &g).is_empty(),
        "a 'past' get does not see behind the marker"
    );
    sim.flush(LATER);
    sim.minor(LATER);
    assert_eq!(sim.markers(LATER), 1);
    sim.major(LATER);
    assert_eq!(sim.markers(LATER), 0);
}

/// testRawScan: V=3, KDC=TRUE. [SCAN-RAW-1] [KDC-6]
#[test]
fn keep_deletes_raw_scan() {
    let mut sim = Sim::new(table(0, 3, None, Kdc::True));
    let ts = TS;
    sim.write(&[
        put("T1", "c0", "c0", ts, "T1"),
        put("T1", "c0", "c0", ts + 2, "T2"),
        put("T1", "c0", "c0", ts + 4, "T3"),
    ]);
    sim.delete_row("T1", ts + 1);
    sim.write(&[
        d("c0", ts + 2).row("T1").fam("c0"),
        dc("c0", ts + 3).row("T1").fam("c0"),
    ]);
    let raw = at(LATER).raw().all_versions();
    check_full(
        &sim.read(&raw),
        &[
            ("T1", "c0", "", ts + 1, DF),
            ("T1", "c0", "c0", ts + 4, P),
            ("T1", "c0", "c0", ts + 3, DC),
            ("T1", "c0", "c0", ts + 2, D),
            ("T1", "c0", "c0", ts + 2, P),
            ("T1", "c0", "c0", ts, P),
            ("T1", "c1", "", ts + 1, DF),
            ("T1", "c2", "", ts + 1, DF),
        ],
    );
    assert!(sim.read(&raw.clone().tr(0, 1)).is_empty());
    check_full(
        &sim.read(&raw.clone().tr(0, ts + 2)),
        &[
            ("T1", "c0", "", ts + 1, DF),
            ("T1", "c0", "c0", ts, P),
            ("T1", "c1", "", ts + 1, DF),
            ("T1", "c2", "", ts + 1, DF),
        ],
    );
    check(
        &sim.read(&raw.tr(ts + 3, ts + 5)),
        &[("c0", ts + 4, P), ("c0", ts + 3, DC)],
    );
}

/// testDeleteMarkerExpirationEmptyStore: V=1, KDC=TRUE. [KDC-4]
#[test]
fn keep_deletes_marker_expiration_empty_store() {
    let mut sim = Sim::new(table(0, 1, None, Kdc::True));
    let ts = TS;
    let m = |w: W| w.row("T1").fam("c0");
    sim.write(&[
        m(dc("c0", ts)),
        m(df(ts)),
        m(d("c0", ts + 1)),
        m(d("c0", ts + 2)),
    ]);
    assert_eq!(sim.markers(LATER), 4);
    sim.flush(LATER);
    assert_eq!(sim.markers(LATER), 4);
    sim.minor(LATER);
    assert_eq!(sim.markers(LATER), 4);
    sim.major(LATER);
    assert_eq!(sim.markers(LATER), 0);
}

/// testDeleteMarkerExpiration: V=1, KDC=TRUE. [KDC-4] earliest Put rule.
#[test]
fn keep_deletes_marker_expiration() {
    let mut sim = Sim::new(table(0, 1, None, Kdc::True));
    let ts = TS;
    let m = |w: W| w.row("T1").fam("c0");
    sim.write(&[
        put("T1", "c0", "c0", ts, "T1"),
        put("T1", "c1", "c0", ts - 10, "T1"),
    ]);
    sim.write(&[
        m(dc("c0", ts)),
        m(df(ts)),
        m(d("c0", ts + 1)),
        m(d("c0", ts + 2)),
    ]);
    assert_eq!(sim.markers(LATER), 4);
    sim.flush(LATER);
    assert_eq!(sim.markers(LATER), 4);
    sim.minor(LATER);
    assert_eq!(sim.markers(LATER), 4);
    sim.write(&[put("T1", "c0", "c0", ts + 3, "T1")]);
    sim.flush(LATER);
    sim.major(LATER);
    assert_eq!(sim.markers(LATER), 4, "an affected put still exists");
    sim.major(LATER);
    assert_eq!(
        sim.markers(LATER),
        0,
        "the earliest put is now newer than every marker"
    );
}

/// testWithOldRow: V=1, KDC=TRUE. [KDC-4] an old unrelated row pins the `DF`.
#[test]
fn keep_deletes_with_old_row() {
    let mut sim = Sim::new(table(0, 1, None, Kdc::True));
    let ts = TS;
    let m = |w: W| w.row("T1").fam("c0");
    sim.write(&[
        put("T1", "c0", "c0", ts, "T1"),
        put("T2", "c0", "c0", ts - 10, "T1"),
    ]);
    sim.write(&[
        m(dc("c0", ts)),
        m(df(ts)),
        m(d("c0", ts + 1)),
        m(d("c0", ts + 2)),
    ]);
    assert_eq!(sim.markers(LATER), 4);
    sim.flush(LATER);
    assert_eq!(sim.markers(LATER), 4);
    sim.minor(LATER);
    assert_eq!(sim.markers(LATER), 4);
    sim.write(&[put("T1", "c0", "c0", ts + 3, "T1")]);
    sim.flush(LATER);
    sim.major(LATER);
    assert_eq!(sim.markers(LATER), 4);
    sim.major(LATER);
    assert_eq!(
        sim.markers(LATER),
        4,
        "the old row keeps the earliest put below the markers"
    );
    // Another put (left in the memstore) hides the column markers from the raw count, whose
    // version limit is VERSIONS; the DF stays ("THIS IS A PROBLEM").
    sim.write(&[put("T1", "c0", "c0", ts + 4, "T1")]);
    sim.major(LATER);
    assert_eq!(sim.markers(LATER), 1);
    sim.major(LATER);
    assert_eq!(sim.markers(LATER), 1);
}

/// testRanges: V=3, KDC=TRUE. [KDC-2] range boundaries per row, family and column.
#[test]
fn keep_deletes_ranges() {
    let mut sim = Sim::new(table(0, 3, None, Kdc::True));
    let ts = TS;
    for (t, v) in [(ts, "T1"), (ts + 1, "T2")] {
        for row in ["T1", "T2"] {
            sim.write(&[
                put(row, "c0", "c0", t, v),
                put(row, "c0", "c1", t, v),
                put(row, "c1", "c0", t, v),
                put(row, "c1", "c1", t, v),
            ]);
        }
    }
    sim.write(&[
        dc("c0", ts + 2).row("T1").fam("c0"),
        df(ts + 2).row("T1").fam("c1"),
        df(ts + 2).row("T2").fam("c0"),
        // an older delete, to make sure it is filtered
        df(ts - 10).row("T1").fam("c1"),
    ]);
    let both = ["T2", "T1"];
    // ts + 2 does NOT include the markers at ts + 2.
    for row in ["T1", "T2"] {
        for (f, q) in [("c0", "c0"), ("c0", "c1"), ("c1", "c0"), ("c1", "c1")] {
            check_get(&sim, row, f, q, ts + 2, &both);
        }
    }
    // ts + 3 does.
    check_get(&sim, "T1", "c0", "c0", ts + 3, &[]);
    check_get(&sim, "T1", "c0", "c1", ts + 3, &both);
    check_get(&sim, "T1", "c1", "c0", ts + 3, &[]);
    check_get(&sim, "T1", "c1", "c1", ts + 3, &[]);
    check_get(&sim, "T2", "c0", "c0", ts + 3, &[]);
    check_get(&sim, "T2", "c0", "c1", ts + 3, &[]);
    check_get(&sim, "T2", "c1", "c0", ts + 3, &both);
    check_get(&sim, "T2", "c1", "c1", ts + 3, &both);
}

/// testDeleteMarkerVersioning: V=1, KDC=TRUE. [KDC-3] [KDC-4] markers are version-counted with
/// the Puts they affect.
#[test]
fn keep_deletes_marker_versioning() {
    let mut sim = Sim::new(table(0, 1, None, Kdc::True));
    let ts = TS;
    let m = |w: W| w.row("T1").fam("c0");
    sim.write(&[
        put("T1", "c0", "c0", ts, "T1"),
        put("T1", "c0", "c1", ts - 10, "T1"),
    ]);
    // corner case: Put and DC with the same ts
    sim.write(&[m(dc("c0", ts)), m(d("c0", ts + 1)), m(d("c0", ts + 3))]);
    sim.flush(LATER);
    sim.major(LATER);
    sim.major(LATER);
    assert_eq!(sim.markers(LATER), 3);
    sim.write(&[put("T1", "c0", "c0", ts + 2, "T2")]);
    // delete, put, delete, delete, put
    assert_eq!(sim.markers(LATER), 3);
    sim.write(&[put("T1", "c0", "c0", ts + 3, "T3")]);
    // delete, put, put | delete, delete
    assert_eq!(sim.markers(LATER), 1);
    // The flush drops the 2nd put (V=1), so the markers in the files are visible again.
    sim.flush(LATER);
    assert_eq!(sim.markers(LATER), 3);
    sim.major(LATER);
    assert_eq!(sim.markers(LATER), 3);
    sim.write(&[put("T1", "c0", "c0", ts + 4, "T4")]);
    sim.flush(LATER);
    // One trailing marker remains: markers do not increase the version count.
    assert_eq!(sim.markers(LATER), 1);
    sim.major(LATER);
    sim.major(LATER);
    assert_eq!(sim.markers(LATER), 1);
}

/// testWithMixedCFs: V=1, KDC=TRUE. Row deletes and time-range scans across families [KDC-2].
#[test]
fn keep_deletes_with_mixed_cfs() {
    let mut sim = Sim::new(table(0, 1, None, Kdc::True));
    let ts = TS;
    for (row, t, v) in [("T1", ts, "T1"), ("T2", ts + 1, "T2")] {
        sim.write(&[
            put(row, "c0", "c0", t, v),
            put(row, "c0", "c1", t, v),
            put(row, "c1", "c0", t, v),
            put(row, "c1", "c1", t, v),
        ]);
    }
    sim.delete_row("T1", ts + 1);
    sim.delete_row("T2", ts + 2);
    assert_eq!(row_values(&sim, "T1", &at(LATER).tr(0, ts + 1)).len(), 4);
    assert_eq!(row_values(&sim, "T2", &at(LATER).tr(0, ts + 2)).len(), 4);
    assert!(sim.read(&at(LATER)).is_empty());
}

/// testWithMinVersions: m=3, V=1000, TTL=1s, KDC=TRUE. [TTL-4] [KDC-3] [KDC-4]
#[test]
fn keep_deletes_with_min_versions() {
    let now = TS;
    let mut sim = Sim::new(table(3, 1000, Some(1), Kdc::True));
    let ts = now - 2000;
    sim.write(&[
        put("T1", "c0", "c0", ts, "T3"),
        put("T1", "c0", "c0", ts - 1, "T2"),
        put("T1", "c0", "c0", ts - 3, "T1"),
        put("T1", "c0", "c0", ts - 4, "T0"),
    ]);
    sim.delete_row("T1", ts - 1);
    // Delete(T1, ts-2).addColumns(c0, c0, ts-1)
    sim.write(&[dc("c0", ts - 1).row("T1").fam("c0")]);
    let g = at(now).all_versions().tr(0, ts - 2);
    assert_eq!(row_values(&sim, "T1", &g), ["T1", "T0"]);
    assert_eq!(sim.markers(now), 4);
    sim.flush(now);
    assert_eq!(sim.markers(now), 4, "the flush removes no marker");
    assert_eq!(row_values(&sim, "T1", &g), ["T1"]);
    sim.write(&[put("T1", "c0", "c0", ts + 1, "T4")]);
    sim.flush(now);
    assert_eq!(sim.markers(now), 4);
    assert_eq!(row_values(&sim, "T1", &g), ["T1"]);
    // This pushes out the last put before the family delete marker.
    sim.write(&[put("T1", "c0", "c0", ts + 2, "T5")]);
    sim.flush(now);
    sim.major(now);
    assert_eq!(
        sim.markers(now),
        2,
        "the two family markers without puts are gone"
    );
    sim.major(now);
    assert_eq!(
        sim.markers(now),
        0,
        "the new earliest put ts collects the last ones"
    );
}

/// testWithTTL: m=1, V=1000, TTL=1s, KDC=TTL. [KDC-5] expired markers mask at flush and are
/// dropped by major compaction.
#[test]
fn keep_deletes_with_ttl() {
    let now = TS;
    let mut sim = Sim::new(table(1, 1000, Some(1), Kdc::Ttl));
    let ts = now - 2000;
    sim.write(&[
        put("T1", "c0", "c0", ts, "T3"),
        put("T2", "c0", "c0", ts - 10, "T1"),
    ]);
    let get = |sim: &Sim| {
        let spec = at(now).all_versions().tr(0, ts + 1).columns("c0", &["c0"]);
        row_values(sim, "T1", &spec)
    };
    assert_eq!(get(&sim), ["T3"]);
    sim.delete_row("T1", ts + 2);
    assert_eq!(get(&sim), ["T3"]);
    assert_eq!(sim.markers(now), 3);
    sim.flush(now);
    assert_eq!(sim.markers(now), 3, "the flush keeps the markers");
    assert!(get(&sim).is_empty(), "but the put is gone");
    sim.major(now);
    assert_eq!(sim.markers(now), 0);
}

// ---------------------------------------------------------------- TestMinVersions

/// TestMinVersions' family: `colfamily11`-like `c0`, VERSIONS 1000, TTL 1 s, KDC=FALSE.
fn min_versions_table(m: u32) -> Vec<FamilyDescriptor> {
    vec![fam("c0").max_versions(1000).min_versions(m).ttl(secs(1))]
}

fn c0(ts: i64, val: &'static str) -> W {
    put("T1", "c0", "c0", ts, val)
}

fn values(sim: &Sim, spec: &ReadSpec) -> Vec<String> {
    sim.read(spec).into_iter().map(|g| g.value).collect()
}

/// Wildcard and explicit-column reads must both give `want`.
fn check_both(sim: &Sim, spec: ReadSpec, want: &[&str]) {
    assert_eq!(values(sim, &spec), want, "wildcard");
    assert_eq!(values(sim, &spec.columns("c0", &["c0"])), want, "explicit");
}

/// testGetClosestBefore (as a plain Get): m=1 keeps expired rows readable, newest version first.
#[test]
fn min_versions_get_closest_before() {
    let now = TS;
    let ts = now - 2000;
    let mut sim = Sim::new(min_versions_table(1));
    sim.write(&[
        c0(ts, "T1"),
        c0(ts + 1, "T4"),
        put("T3", "c0", "c0", ts, "T3"),
    ]);
    assert_eq!(row_values(&sim, "T1", &at(now)), ["T4"]);
    assert_eq!(row_values(&sim, "T3", &at(now)), ["T3"]);
    sim.flush(now);
    sim.major(now);
    assert_eq!(row_values(&sim, "T1", &at(now)), ["T4"]);
    assert_eq!(row_values(&sim, "T3", &at(now)), ["T3"]);
}

/// testStoreMemStore: m=3. MIN_VERSIONS counts across memstore and files; a duplicate ts counts
/// once [VER-4].
#[test]
fn min_versions_store_and_memstore() {
    let now = TS;
    let ts = now - 2000;
    let mut sim = Sim::new(min_versions_table(3));
    sim.write(&[c0(ts - 1, "T2"), c0(ts - 3, "T0")]);
    sim.flush(now);
    sim.major(now);
    sim.write(&[c0(ts, "T3"), c0(ts - 2, "T1"), c0(ts - 3, "T0")]);
    check_both(&sim, at(now).all_versions(), &["T3", "T2", "T1"]);
}

/// testDelete: m=3. MIN_VERSIONS never resurrects deleted versions.
#[test]
fn min_versions_delete() {
    let now = TS;
    let ts = now - 2000;
    let mut sim = Sim::new(min_versions_table(3));
    sim.write(&[c0(ts - 2, "T1"), c0(ts - 1, "T2"), c0(ts, "T3")]);
    sim.delete_row("T1", ts - 1);
    check_both(&sim, at(now).all_versions(), &["T3"]);
    sim.flush(now);
    sim.major(now);
    check_both(&sim, at(now).all_versions(), &["T3"]);
}

/// testMemStore: m=2. After major compaction only m versions remain; a back-dated put beyond m
/// is invisible.
#[test]
fn min_versions_memstore() {
    let now = TS;
    let ts = now - 2000;
    let mut sim = Sim::new(min_versions_table(2));
    sim.write(&[c0(ts - 2, "T2"), c0(ts - 1, "T3"), c0(ts, "T4")]);
    sim.flush(now);
    sim.major(now);
    sim.write(&[c0(ts - 3, "T1")]);
    assert_eq!(values(&sim, &at(now)), ["T4"]);
    check_both(&sim, at(now).all_versions(), &["T4", "T3"]);
    sim.write(&[c0(ts + 1, "T5")]);
    check_both(&sim, at(now).all_versions(), &["T5", "T4"]);
}

/// testBaseCase: m=2. [VER-5] time ranges see versions beyond m until a flush removes them.
#[test]
fn min_versions_base_case() {
    let now = TS;
    let ts = now - 2000;
    let mut sim = Sim::new(min_versions_table(2));
    sim.write(&[
        c0(ts - 3, "T1"),
        c0(ts - 2, "T2"),
        c0(ts - 1, "T3"),
        c0(ts, "T4"),
    ]);
    assert_eq!(values(&sim, &at(now)), ["T4"]);
    assert_eq!(values(&sim, &at(now).tr(0, ts + 1)), ["T4"]);
    assert_eq!(
        values(&sim, &at(now).tr(0, ts - 2)),
        ["T1"],
        "the oldest version still exists"
    );
    check_both(&sim, at(now).all_versions(), &["T4", "T3"]);
    sim.flush(now);
    assert!(
        values(&sim, &at(now).tr(0, ts - 2)).is_empty(),
        "the flush removed it"
    );
    sim.major(now);
    assert_eq!(values(&sim, &at(now).tr(0, ts + 1)), ["T4"]);
    assert_eq!(values(&sim, &at(now).tr(0, ts)), ["T3"]);
    assert!(values(&sim, &at(now).tr(0, ts - 1)).is_empty());
}

/// testFilters: m=2. [VER-6] with a TimestampsFilter only the m newest versions are eligible
/// (explicit columns: via the [VER-8] include-and-leave).
#[test]
fn min_versions_filters() {
    let now = TS;
    let ts = now - 2000;
    let fams = vec![
        fam("c0").max_versions(1000).min_versions(2).ttl(secs(1)),
        fam("c1").max_versions(1000).min_versions(2).ttl(secs(1)),
    ];
    let mut sim = Sim::new(fams);
    for (t, v) in [(ts - 3, "T0"), (ts - 2, "T1"), (ts - 1, "T2"), (ts, "T3")] {
        sim.write(&[put("T1", "c0", "c0", t, v), put("T1", "c1", "c1", t, v)]);
    }
    let tss = |k: &KeyRef<'_>| k.ts == ts - 1 || k.ts == ts - 2;
    let get = |sim: &Sim, f: &str| {
        let spec = at(now).all_versions().filtered().columns(f, &[f]);
        sim.read_filtered(&spec, &tss)
            .into_iter()
            .map(|g| g.value)
            .collect::<Vec<_>>()
    };
    let wildcard = |sim: &Sim| {
        let spec = at(now).all_versions().filtered();
        sim.read_filtered(&spec, &tss)
            .into_iter()
            .map(|g| g.value)
            .collect::<Vec<_>>()
    };
    assert_eq!(get(&sim, "c0"), ["T2"]);
    assert_eq!(get(&sim, "c1"), ["T2"]);
    assert_eq!(wildcard(&sim), ["T2", "T2"]);
    sim.flush(now);
    sim.major(now);
    assert_eq!(get(&sim, "c0"), ["T2"]);
    assert_eq!(get(&sim, "c1"), ["T2"]);
    assert_eq!(wildcard(&sim), ["T2", "T2"]);
}

/// testMinVersionsWithKeepDeletedCellsTTL: `setVersionsWithTimeToLive(4, 2)` (TTL=4, m=2,
/// V=MAX, KDC=TTL). Nothing is purged before the TTL; afterwards only the m newest survive.
#[test]
fn min_versions_with_keep_deleted_cells_ttl() {
    let start = TS;
    let ts = start - 2000;
    let fams = vec![
        fam("c0")
            .max_versions(i32::MAX as u32)
            .min_versions(2)
            .ttl(secs(4))
            .keep_deleted_cells(Kdc::Ttl),
    ];
    let mut sim = Sim::new(fams);
    sim.write(&[
        c0(ts - 4, "T1"),
        c0(ts - 3, "T2"),
        c0(ts - 2, "T3"),
        c0(ts - 1, "T4"),
    ]);
    let get =
        |sim: &Sim, now: i64, min: i64, max: i64| values(sim, &at(now).all_versions().tr(min, max));
    assert_eq!(get(&sim, start, 0, ts), ["T4", "T3", "T2", "T1"]);
    sim.flush(start);
    sim.major(start);
    assert_eq!(get(&sim, start, 0, ts), ["T4", "T3", "T2", "T1"]);
    assert_eq!(get(&sim, start, 0, ts - 1), ["T3", "T2", "T1"]);
    assert_eq!(get(&sim, start, 0, ts - 2), ["T2", "T1"]);
    assert_eq!(get(&sim, start, 0, ts - 3), ["T1"]);
    let later = start + 4000;
    sim.flush(later);
    sim.major(later);
    assert_eq!(get(&sim, later, 0, ts), ["T4", "T3"]);
    assert_eq!(get(&sim, later, 0, ts - 1), ["T3"]);
    assert_eq!(get(&sim, later, ts - 2, ts - 1), ["T3"]);
    assert!(get(&sim, later, ts - 3, ts - 2).is_empty());
    assert!(get(&sim, later, 0, ts - 2).is_empty());
}
