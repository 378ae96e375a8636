//! Reversed scans [SCAN-REV-1] [SORT-8], batching [SCAN-3], raw scans [SCAN-RAW-1].

use super::*;

fn rows(t: &Table, s: Scan) -> Vec<String> {
    t.scan(s)
        .unwrap()
        .map(|r| String::from_utf8(r.unwrap().row().to_vec()).unwrap())
        .collect()
}

fn load(t: &Table) {
    for (i, r) in ["a", "b", "c", "d", "e"].iter().enumerate() {
        t.put(
            Put::new(r)
                .add_at("g", "y", 1, "g")
                .add_at("f", "x", 1, "f"),
        )
        .unwrap();
        if i == 2 {
            t.flush().unwrap();
        }
    }
    t.delete(Delete::new("d")).unwrap(); // every cell of d is masked
}

/// [SCAN-REV-1] rows descend; start is the inclusive high end, stop the exclusive low end; a
/// missing start row begins at the closest smaller row; deleted rows are skipped; cells inside
/// a row stay in forward order [SORT-8].
#[test]
fn reversed_scans_descend_with_swapped_bounds() {
    let (_db, t, _) = setup(1_000, 3);
    load(&t);
    assert_eq!(rows(&t, Scan::new().reversed(true)), ["e", "c", "b", "a"]);
    assert_eq!(
        rows(&t, Scan::new().reversed(true).start_row("c").stop_row("a")),
        ["c", "b"]
    );
    assert_eq!(
        rows(&t, Scan::new().reversed(true).start_row("bb")),
        ["b", "a"]
    );
    assert_eq!(rows(&t, Scan::new().reversed(true).limit(2)), ["e", "c"]);
    let r = t
        .scan(Scan::new().reversed(true).start_row("a"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let fams: Vec<&[u8]> = r.cells().iter().map(|c| c.family()).collect();
    assert_eq!(
        fams,
        [b"f".as_slice(), b"g".as_slice()],
        "forward order inside the row"
    );
    // A prefix keeps meaning "rows starting with it" in both directions.
    t.put(Put::new("cc").add("f", "x", "1")).unwrap();
    t.put(Put::new("cz").add("f", "x", "1")).unwrap();
    assert_eq!(
        rows(&t, Scan::new().prefix("c").reversed(true)),
        ["cz", "cc", "c"]
    );
    assert_eq!(rows(&t, Scan::new().prefix("c")), ["c", "cc", "cz"]);
    t.flush().unwrap();
    t.major_compact().unwrap();
    assert_eq!(
        rows(&t, Scan::new().reversed(true)),
        ["e", "cz", "cc", "c", "b", "a"]
    );
}

/// [SCAN-3] batch splits a wide row into parts of at most `b` cells; [SCAN-2b] parts of one row
/// count as one row for the limit.
#[test]
fn batch_splits_wide_rows() {
    let (_db, t, _) = setup(1_000, 3);
    let mut p = Put::new("wide");
    for q in 0..7 {
        p = p.add("f", format!("q{q}"), "v");
    }
    t.put(p).unwrap();
    t.put(Put::new("x").add("f", "q", "v")).unwrap();
    let parts: Vec<usize> = t
        .scan(Scan::new().batch(3))
        .unwrap()
        .map(|r| r.unwrap().cells().len())
        .collect();
    assert_eq!(parts, [3, 3, 1, 1]);
    let parts: Vec<usize> = t
        .scan(Scan::new().batch(3).limit(1))
        .unwrap()
        .map(|r| r.unwrap().cells().len())
        .collect();
    assert_eq!(parts, [3, 3, 1]);
    assert!(matches!(
        t.scan(Scan::new().batch(0)),
        Err(Error::InvalidArgument(_))
    ));
}

/// [SCAN-RAW-1] [KDC-6] raw scans return markers (empty values) and masked cells until a major
/// compaction; explicit columns are rejected at `scan()`.
#[test]
fn raw_scans_show_markers_until_major_compaction() {
    let (_db, t, _) = setup(1_000, 3);
    t.put(Put::new("r").add_at("f", "q", 5, "v")).unwrap();
    t.delete(Delete::new("r").versions_up_to("f", "q", 5))
        .unwrap();
    let types = |t: &Table| -> Vec<CellType> {
        t.scan(Scan::new().raw(true))
            .unwrap()
            .flat_map(|r| {
                r.unwrap()
                    .cells()
                    .iter()
                    .map(Cell::cell_type)
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    assert_eq!(types(&t), [CellType::DeleteColumn, CellType::Put]);
    t.flush().unwrap(); // drops the masked put, keeps the marker [DEL-11]
    assert_eq!(types(&t), [CellType::DeleteColumn]);
    t.major_compact().unwrap();
    assert!(types(&t).is_empty());
    assert!(matches!(
        t.scan(Scan::new().raw(true).column("f", "q")),
        Err(Error::InvalidArgument(_))
    ));
    t.scan(Scan::new().raw(true).family("f")).unwrap();
}
