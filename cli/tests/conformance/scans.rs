//! Scans and multi-row calls ([SCAN-1]..[SCAN-5], [SCAN-REV-1], [GET-1]).

use crate::*;

fn ten(t: &Table) {
    let puts = (0..10).map(|i| {
        Put::new(format!("r{i}"))
            .add_at("f", "a", 1, format!("{i}"))
            .add_at("f", "b", 1, "b")
            .add_at("g", "c", 1, "c")
    });
    t.put_all(puts).unwrap();
}

/// [SCAN-1] [SCAN-2] Start inclusive, stop exclusive; a prefix scan.
pub fn start_stop_and_prefix(b: &Backend) {
    let t = b.table(1);
    ten(&t);
    t.put(Put::new("s").add_at("f", "a", 1, "s")).unwrap();
    assert_eq!(
        scan_rows(&t, Scan::new().start_row("r3").stop_row("r6")),
        ["r3", "r4", "r5"]
    );
    assert_eq!(scan_rows(&t, Scan::new().prefix("r")).len(), 10);
    assert_eq!(scan_rows(&t, Scan::new().start_row("r9")), ["r9", "s"]);
}

/// [SCAN-REV-1] A reversed scan returns rows descending from its (inclusive) start.
pub fn reversed_scans(b: &Backend) {
    let t = b.table(1);
    ten(&t);
    assert_eq!(
        scan_rows(
            &t,
            Scan::new().reversed(true).start_row("r5").stop_row("r2")
        ),
        ["r5", "r4", "r3"]
    );
    assert_eq!(
        scan_rows(&t, Scan::new().reversed(true).limit(2)),
        ["r9", "r8"]
    );
}

/// [SCAN-2] [SCAN-REV-1] A reversed prefix scan returns the prefix's rows, descending, and
/// nothing outside it (not the row equal to the prefix's stop row either).
pub fn reversed_prefix_scans(b: &Backend) {
    let t = b.table(1);
    for row in ["a", "a1", "b", "b1", "b2", "bz", "c", "c1"] {
        t.put(Put::new(row).add_at("f", "a", 1, row)).unwrap();
    }
    assert_eq!(
        scan_rows(&t, Scan::new().prefix("b").reversed(true)),
        ["bz", "b2", "b1", "b"]
    );
    assert_eq!(
        scan_rows(&t, Scan::new().prefix("b").reversed(true).limit(2)),
        ["bz", "b2"]
    );
    assert_eq!(
        scan_rows(&t, Scan::new().prefix("c1").reversed(true)),
        ["c1"]
    );
    assert!(scan_rows(&t, Scan::new().prefix("d").reversed(true)).is_empty());
}

/// [SCAN-3] [SCAN-4] Limits, batches of cells, and scans longer than one round trip.
pub fn limit_batch_and_caching(b: &Backend) {
    let t = b.table(1);
    ten(&t);
    // Remotely, 3 rows per round trip (Backend::remote): ten rows take four.
    assert_eq!(scan_rows(&t, Scan::new()).len(), 10);
    assert_eq!(
        scan_rows(&t, Scan::new().limit(4)),
        ["r0", "r1", "r2", "r3"]
    );
    let batched: Vec<usize> = t
        .scan(Scan::new().start_row("r0").stop_row("r2").batch(2))
        .unwrap()
        .map(|r| r.unwrap().cells().len())
        .collect();
    assert_eq!(batched, [2, 1, 2, 1]);
}

/// Row `r` with `f:a` and `g:c` at timestamps 1, 2 and 3.
fn three_versions(t: &Table) {
    for ts in 1..=3 {
        t.put(
            Put::new("r")
                .add_at("f", "a", ts, "v")
                .add_at("g", "c", ts, "v"),
        )
        .unwrap();
    }
}

/// [GET-1] [SCAN-5] Columns, versions and time ranges on scans.
pub fn columns_versions_and_time_ranges(b: &Backend) {
    let t = b.table(3);
    three_versions(&t);
    assert_eq!(scan_cells(&t, Scan::new().column("f", "a")), ["r/f:a@3=v"]);
    assert_eq!(
        scan_cells(&t, Scan::new().family("g").max_versions(2)),
        ["r/g:c@3=v", "r/g:c@2=v"]
    );
    assert_eq!(
        scan_cells(
            &t,
            Scan::new().column("f", "a").all_versions().time_range(1, 3)
        ),
        ["r/f:a@2=v", "r/f:a@1=v"]
    );
}

/// [SCAN-5] A family's own time range replaces the scan's for that family.
pub fn per_family_time_ranges(b: &Backend) {
    let t = b.table(3);
    three_versions(&t);
    assert_eq!(
        scan_cells(
            &t,
            Scan::new()
                .all_versions()
                .time_range(3, 4)
                .column_family_time_range("g", 1, 2)
        ),
        ["r/f:a@3=v", "r/g:c@1=v"]
    );
}

/// A multi-get answers in request order, with an empty result for a missing row.
pub fn get_many_in_request_order(b: &Backend) {
    let t = b.table(1);
    ten(&t);
    let rs = t
        .get_many(vec![
            Get::new("r7"),
            Get::new("nope"),
            Get::new("r1").column("f", "a"),
        ])
        .unwrap();
    assert_eq!(rs.len(), 3);
    assert_eq!(rs[0].value("f", "a"), Some(&b"7"[..]));
    assert!(rs[1].is_empty());
    assert_eq!(rs[2].cells().len(), 1);
    assert!(t.exists(Get::new("r3")).unwrap());
    assert!(!t.exists(Get::new("nope")).unwrap());
}

/// A row mutation applies puts and deletes of one row together; `put_all` writes many rows.
pub fn mutate_row_and_put_all(b: &Backend) {
    let t = b.table(1);
    t.put(Put::new("r").add_at("f", "old", 1, "v")).unwrap();
    t.mutate_row(
        "r",
        vec![
            Mutation::Put(Put::new("r").add_at("f", "new", 2, "v")),
            Mutation::Delete(Delete::new("r").all_versions("f", "old")),
        ],
    )
    .unwrap();
    let r = t.get(Get::new("r")).unwrap();
    assert_eq!(
        r.cells().iter().map(show).collect::<Vec<_>>(),
        ["r/f:new@2=v"]
    );
    assert!(matches!(
        t.mutate_row(
            "r",
            vec![Mutation::Put(Put::new("other").add("f", "q", "v"))]
        ),
        Err(Error::InvalidArgument(_))
    ));
}
