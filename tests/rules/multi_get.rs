//! Batch reads, `Table::get_many`, after HBase's `TestMultiParallel` / `TestFromClientSide`
//! multi-get cases: results in request order, empty results for missing rows, duplicates,
//! rows across regions, per-Get columns, versions, time ranges and filters [GET-1], one
//! snapshot for the whole batch, in the memstore, after a flush and after a compaction.

use super::*;

fn val(r: &RowResult) -> Option<String> {
    r.value("f", "q")
        .map(|v| String::from_utf8_lossy(v).into_owned())
}

/// Order, empties and duplicates at every stage, against single Gets.
#[test]
fn results_in_request_order_with_empties_and_duplicates() {
    at_every_stage(
        1_000,
        || vec![FamilyDescriptor::new("f").max_versions(3)],
        |t, _| {
            for i in (0..50).step_by(2) {
                t.put(Put::new(format!("r{i:02}")).add("f", "q", format!("v{i}")))
                    .unwrap();
            }
        },
        |t, _, stage| {
            let asked = ["r10", "r03", "r00", "r10", "zz", "r48", "", "r01", "r00"];
            let gets: Vec<Get> = asked
                .iter()
                .filter(|r| !r.is_empty())
                .map(Get::new)
                .collect();
            let rows = t.get_many(gets.clone()).unwrap();
            assert_eq!(rows.len(), gets.len(), "{stage:?}");
            let got: Vec<Option<String>> = rows.iter().map(val).collect();
            assert_eq!(
                got,
                [
                    Some("v10"),
                    None,
                    Some("v0"),
                    Some("v10"),
                    None,
                    Some("v48"),
                    None,
                    Some("v0")
                ]
                .map(|v| v.map(str::to_string)),
                "{stage:?}"
            );
            for (g, r) in gets.into_iter().zip(&rows) {
                assert_eq!(&t.get(g).unwrap(), r, "{stage:?}");
            }
            assert!(rows[1].is_empty() && rows[1].row().is_empty());
            assert!(t.get_many(vec![]).unwrap().is_empty());
        },
    );
}

/// Rows in several regions (pre-split), asked in reverse key order.
#[test]
fn rows_across_regions() {
    let env = Env::new(1_000);
    let t = env
        .db
        .create_table(
            TableDescriptor::new("t")
                .family(FamilyDescriptor::new("f"))
                .split_keys(["r2", "r5", "r8"]),
        )
        .unwrap();
    for i in 0..10 {
        t.put(Put::new(format!("r{i}")).add("f", "q", format!("v{i}")))
            .unwrap();
    }
    t.flush().unwrap();
    t.put(Put::new("r7").add("f", "q", "new")).unwrap();
    let gets: Vec<Get> = (0..10).rev().map(|i| Get::new(format!("r{i}"))).collect();
    let got: Vec<Option<String>> = t.get_many(gets).unwrap().iter().map(val).collect();
    let want: Vec<Option<String>> = (0..10)
        .rev()
        .map(|i| {
            Some(if i == 7 {
                "new".into()
            } else {
                format!("v{i}")
            })
        })
        .collect();
    assert_eq!(got, want);
}

/// Each Get keeps its own columns, versions, time range and filter [GET-1].
#[test]
fn each_get_keeps_its_own_request() {
    let env = Env::new(1_000);
    let t = env.table(vec![
        FamilyDescriptor::new("f").max_versions(3),
        FamilyDescriptor::new("g"),
    ]);
    for ts in 1..=3 {
        t.put(
            Put::new("a")
                .add_at("f", "q", ts, format!("a{ts}"))
                .add_at("g", "x", ts, "gx"),
        )
        .unwrap();
        t.put(Put::new("b").add_at("f", "q", ts, format!("b{ts}")))
            .unwrap();
    }
    t.flush().unwrap();
    let gets = vec![
        Get::new("a"),
        Get::new("a").max_versions(3).column("f", "q"),
        Get::new("b").time_range(1, 2),
        Get::new("a").family("g"),
        Get::new("b")
            .filter(Filter::parse("ValueFilter(=, 'binary:b2')").unwrap())
            .max_versions(3),
        Get::new("a").filter(Filter::parse("ValueFilter(=, 'binary:nope')").unwrap()),
    ];
    let rows = t.get_many(gets.clone()).unwrap();
    for (g, r) in gets.into_iter().zip(&rows) {
        assert_eq!(&t.get(g).unwrap(), r);
    }
    assert_eq!(rows[0].cells().len(), 2);
    assert_eq!(rows[1].cells().len(), 3);
    assert_eq!(val(&rows[2]).as_deref(), Some("b1"));
    assert_eq!(rows[3].cells().len(), 1);
    assert_eq!(val(&rows[4]).as_deref(), Some("b2"));
    assert!(rows[5].is_empty());
}

/// Bad requests fail the whole batch before anything is read.
#[test]
fn a_bad_get_fails_the_batch() {
    let env = Env::new(1_000);
    let t = env.table(vec![FamilyDescriptor::new("f")]);
    assert!(matches!(
        t.get_many(vec![Get::new("a"), Get::new("b").family("nope")]),
        Err(Error::NoSuchFamily { .. })
    ));
    assert!(matches!(
        t.get_many(vec![Get::new("")]),
        Err(Error::InvalidArgument(_))
    ));
    env.db.disable_table("t").unwrap();
    assert!(matches!(
        t.get_many(vec![Get::new("a")]),
        Err(Error::TableDisabled(_))
    ));
}

/// Many rows, random order, with the block cache doing the sharing: the batch equals the
/// single Gets (rows in many blocks, some rows deleted, a memstore on top of two files).
#[test]
fn large_batch_matches_single_gets() {
    let env = Env::new(1_000);
    let t = env.table(vec![FamilyDescriptor::new("f").block_size(1024)]);
    for i in 0..2_000u32 {
        t.put(Put::new(format!("k{i:05}")).add("f", "q", format!("v{i}")))
            .unwrap();
    }
    t.flush().unwrap();
    for i in (0..2_000u32).step_by(7) {
        t.delete(Delete::new(format!("k{i:05}"))).unwrap();
    }
    t.flush().unwrap();
    for i in (0..2_000u32).step_by(11) {
        t.put(Put::new(format!("k{i:05}")).add("f", "q", "mem"))
            .unwrap();
    }
    let mut x = 12345u64;
    let gets: Vec<Get> = (0..700)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            Get::new(format!("k{:05}", (x >> 33) % 2_100))
        })
        .collect();
    let rows = t.get_many(gets.clone()).unwrap();
    for (g, r) in gets.into_iter().zip(&rows) {
        assert_eq!(&t.get(g).unwrap(), r);
    }
}
