//! §1.1 Cell layout, key comparison and sort order.

use super::*;

/// [SORT-1] [SORT-9] cells of a row come family asc, qualifier asc, timestamp desc, with
/// families interleaved in byte order whatever the write order; `value` is the newest.
#[test]
fn cells_of_a_row_are_in_key_order_at_every_stage() {
    at_every_stage(
        1_000,
        || fg(3),
        |t, _| {
            t.put(Put::new("r").add_at("g", "b", 1, "g-b1")).unwrap();
            t.put(Put::new("r").add_at("g", "a", 2, "g-a2")).unwrap();
            t.put(Put::new("r").add_at("f", "b", 5, "f-b5")).unwrap();
            t.put(Put::new("r").add_at("f", "a", 3, "f-a3")).unwrap();
            t.put(Put::new("r").add_at("f", "a", 7, "f-a7")).unwrap();
        },
        |t, _, stage| {
            let r = t.get(Get::new("r").all_versions()).unwrap();
            let cells: Vec<String> = r.cells().iter().map(show).collect();
            assert_eq!(
                cells,
                [
                    "r/f:a@7 Put=f-a7",
                    "r/f:a@3 Put=f-a3",
                    "r/f:b@5 Put=f-b5",
                    "r/g:a@2 Put=g-a2",
                    "r/g:b@1 Put=g-b1"
                ],
                "{stage:?}"
            );
            assert_eq!(r.value("f", "a"), Some(&b"f-a7"[..]), "{stage:?}");
            assert_eq!(scan_cells(t, Scan::new().all_versions()), cells);
        },
    );
}

/// [SORT-2] rows and qualifiers compare as unsigned bytes; a prefix sorts before its
/// extensions; 0xE1 sorts after 0x61.
#[test]
fn keys_compare_as_unsigned_bytes() {
    at_every_stage(
        1_000,
        || fg(1),
        |t, _| {
            for row in [&b"\xe1"[..], b"a", b"ab", b"abc", b"\x00", b"B"] {
                t.put(Put::new(row).add("f", "q", "v")).unwrap();
            }
            t.put(
                Put::new("q")
                    .add("f", b"\xe1", "x")
                    .add("f", "a", "y")
                    .add("f", "", "z"),
            )
            .unwrap();
        },
        |t, _, stage| {
            let rows: Vec<Vec<u8>> = t
                .scan(Scan::new())
                .unwrap()
                .map(|r| r.unwrap().row().to_vec())
                .collect();
            let want: Vec<Vec<u8>> = [&b"\x00"[..], b"B", b"a", b"ab", b"abc", b"q", b"\xe1"]
                .iter()
                .map(|r| r.to_vec())
                .collect();
            assert_eq!(rows, want, "{stage:?}");
            let quals: Vec<Vec<u8>> = t
                .get(Get::new("q"))
                .unwrap()
                .cells()
                .iter()
                .map(|c| c.qualifier().to_vec())
                .collect();
            assert_eq!(quals, [b"".to_vec(), b"a".to_vec(), b"\xe1".to_vec()]);
        },
    );
}

/// [SORT-3] timestamps compare as signed 64-bit integers, larger first, over the whole
/// non-negative range; negative ones are rejected [TS-2].
#[test]
fn timestamps_sort_descending_over_the_full_range() {
    at_every_stage(
        1_000,
        || fg(5),
        |t, _| {
            for ts in [0, i64::MAX - 1, 1 << 40, 1, 255, 256] {
                t.put(Put::new("r").add_at("f", "q", ts, ts.to_string()))
                    .unwrap();
            }
        },
        |t, _, stage| {
            assert_eq!(
                get_ts(t, Get::new("r").all_versions(), "f", "q"),
                [i64::MAX - 1, 1 << 40, 256, 255, 1],
                "{stage:?}: 5 newest of V=5"
            );
            assert!(matches!(
                t.put(Put::new("r").add_at("f", "q", -1, "neg")),
                Err(Error::InvalidArgument(_))
            ));
        },
    );
}

/// [SORT-4] at identical coordinates and timestamp the raw order is DF, DC, DFV, D, Put;
/// kept as such by a flush when markers are not used for masking (KDC=TRUE).
#[test]
fn delete_types_sort_before_a_put_at_the_same_coordinates() {
    for stage in [Stage::Memstore, Stage::Flushed] {
        let env = Env::new(1_000);
        let t = env.table(vec![
            FamilyDescriptor::new("f")
                .max_versions(3)
                .keep_deleted_cells(KeepDeletedCells::True),
        ]);
        t.put(Put::new("r").add_at("f", "", 5, "p")).unwrap();
        t.delete(Delete::new("r").version("f", "", 5)).unwrap();
        t.delete(Delete::new("r").family_version("f", 5)).unwrap();
        t.delete(Delete::new("r").versions_up_to("f", "", 5))
            .unwrap();
        t.delete(Delete::new("r").family_up_to("f", 5)).unwrap();
        stage.apply(&t);
        assert_eq!(
            raw(&t),
            [
                "r/f:@5 DF=",
                "r/f:@5 DC=",
                "r/f:@5 DFV=",
                "r/f:@5 D=",
                "r/f:@5 Put=p"
            ],
            "{stage:?}"
        );
        assert!(t.get(Get::new("r")).unwrap().is_empty(), "{stage:?}");
    }
}

/// [SORT-5] family markers have an empty qualifier: a DF sorts before every non-empty
/// qualifier, but an empty-qualifier Put with a larger timestamp sorts before it (and is not
/// masked).
#[test]
fn family_marker_sorts_in_the_empty_qualifier_column() {
    at_every_stage(
        1_000,
        || fg(3),
        |t, _| {
            t.put(
                Put::new("r")
                    .add_at("f", "", 10, "empty10")
                    .add_at("f", "a", 3, "a3"),
            )
            .unwrap();
            t.put(Put::new("r").add_at("f", "a", 20, "a20")).unwrap();
            t.delete(Delete::new("r").family_up_to("f", 5)).unwrap();
        },
        |t, _, stage| {
            let want_raw: &[&str] = match stage {
                Stage::Compacted => &["r/f:@10 Put=empty10", "r/f:a@20 Put=a20"],
                _ => &[
                    "r/f:@10 Put=empty10",
                    "r/f:@5 DF=",
                    "r/f:a@20 Put=a20",
                    "r/f:a@3 Put=a3",
                ][..],
            };
            let mut got = raw(t);
            if stage == Stage::Flushed {
                // A flush drops the Put the DF masks [DEL-11].
                assert_eq!(got, want_raw[..3], "{stage:?}");
                got.push("r/f:a@3 Put=a3".into());
            } else {
                assert_eq!(got, want_raw, "{stage:?}");
            }
            let r = t.get(Get::new("r").all_versions()).unwrap();
            assert_eq!(
                r.cells().iter().map(show).collect::<Vec<_>>(),
                ["r/f:@10 Put=empty10", "r/f:a@20 Put=a20"],
                "{stage:?}"
            );
        },
    );
}

/// [SORT-6] for identical coordinates, timestamp and type the most recent write wins, whether
/// both are in the memstore, in different files, or compacted together.
#[test]
fn most_recent_write_wins_for_identical_keys() {
    for flush_between in [false, true] {
        at_every_stage(
            1_000,
            || fg(3),
            |t, _| {
                t.put(Put::new("r").add_at("f", "q", 5, "first")).unwrap();
                if flush_between {
                    t.flush().unwrap();
                }
                t.put(Put::new("r").add_at("f", "q", 5, "second")).unwrap();
            },
            |t, _, stage| {
                assert_eq!(
                    versions(t, "r", "f", "q"),
                    [(5, "second".to_string())],
                    "{stage:?} flush_between={flush_between}"
                );
            },
        );
    }
}

/// [SORT-7] two cells with the same key in one mutation: the last one added wins.
#[test]
fn last_identical_cell_in_one_mutation_wins() {
    at_every_stage(
        1_000,
        || fg(3),
        |t, _| {
            t.put(
                Put::new("r")
                    .add_at("f", "q", 5, "a")
                    .add_at("f", "q", 5, "b"),
            )
            .unwrap();
            t.mutate_row(
                "s",
                vec![
                    Mutation::Put(Put::new("s").add_at("f", "q", 5, "x")),
                    Mutation::Put(Put::new("s").add_at("f", "q", 5, "y")),
                ],
            )
            .unwrap();
        },
        |t, _, stage| {
            assert_eq!(versions(t, "r", "f", "q"), [(5, "b".into())], "{stage:?}");
            assert_eq!(versions(t, "s", "f", "q"), [(5, "y".into())], "{stage:?}");
        },
    );
}

/// [SORT-8] [SCAN-REV-1] a reversed scan reverses rows only; cells inside a row stay in
/// forward order, with cells spread over memstore and files and over two families.
#[test]
fn reversed_scan_reverses_rows_only() {
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    t.put(
        Put::new("r1")
            .add_at("g", "b", 1, "1")
            .add_at("f", "a", 1, "1"),
    )
    .unwrap();
    t.put(Put::new("r2").add_at("f", "b", 1, "1")).unwrap();
    t.flush().unwrap();
    t.put(
        Put::new("r1")
            .add_at("f", "a", 2, "2")
            .add_at("f", "c", 1, "1"),
    )
    .unwrap();
    t.put(
        Put::new("r3")
            .add_at("g", "a", 1, "1")
            .add_at("f", "z", 1, "1"),
    )
    .unwrap();
    let got = scan_cells(&t, Scan::new().reversed(true).all_versions());
    assert_eq!(
        got,
        [
            "r3/f:z@1 Put=1",
            "r3/g:a@1 Put=1",
            "r2/f:b@1 Put=1",
            "r1/f:a@2 Put=2",
            "r1/f:a@1 Put=1",
            "r1/f:c@1 Put=1",
            "r1/g:b@1 Put=1"
        ]
    );
}
