//! Issue 24 ("operations and designs the seeds teach"): the example pairs in
//! examples/lab/pairs/, run small, show the seed articles' lessons in the measured numbers —
//! random salting makes a Get by the natural key try every bucket, a reverse timestamp makes
//! "the newest N" one region, a ROW Bloom filter makes a Get of an absent row read no data
//! block (HBase's `BloomType.ROW`, [BLOOM-3]), wide rows hold many records per row — and the
//! lab's expectations of TTL [TTL-2] and deletes agree with what the engine returns.
use cellbase_cli::lab::{self, Design, RunResult, runner::QueryStats};
use std::path::{Path, PathBuf};

fn pair(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/lab/pairs")
        .join(name)
}

/// Small regions and memstores, so that a few thousand records make store files and splits.
fn shrink(mut d: Design, records: u64) -> Design {
    d.workload.records = records;
    d.table.max_region_size = 64 << 10;
    d.table.memstore_flush_size = 16 << 10;
    println!("design {}: seed {}, {records} records", d.name, d.seed);
    d
}

fn small(name: &str, records: u64) -> Design {
    shrink(
        lab::load(&pair(name), None).expect("pair design loads"),
        records,
    )
}

fn query<'a>(r: &'a RunResult, name: &str) -> &'a QueryStats {
    r.queries
        .iter()
        .find(|q| q.name == name)
        .unwrap_or_else(|| panic!("{}: no query {name}: {:?}", r.design, r.queries))
}

fn show(r: &RunResult) {
    for q in &r.queries {
        println!(
            "{} / {}: plan {} probes {:.2} regions {:.2}/{:.2} rows {:.2} matched {:.2} blocks {:.2} missed {}",
            r.design,
            q.name,
            q.plan,
            q.mean_probes,
            q.mean_regions_touched,
            q.mean_regions_total,
            q.mean_rows_examined,
            q.mean_rows_matched,
            q.mean_blocks_read,
            q.missed
        );
        assert_eq!(q.missed, 0, "{}: {} missed rows", r.design, q.name);
    }
}

#[test]
fn random_salt_gets_touch_every_bucket_hashed_salt_one() {
    let runs = lab::compare(&[
        small("salt-random.toml", 2000),
        small("salt-hashed.toml", 2000),
    ])
    .expect("runs");
    let [random, hashed] = [&runs[0], &runs[1]];
    show(random);
    show(hashed);
    // Both spread writes over the 4 pre-split buckets.
    for r in &runs {
        assert_eq!(r.summary.time_over_half, 0.0, "{}", r.design);
    }
    let g = query(random, "get by natural key");
    assert!(g.plan.contains("random salt: 4 buckets"), "{}", g.plan);
    assert_eq!(g.mean_probes, 4.0, "one Get per bucket");
    // One region per bucket: each bucket's region, or, once a bucket's region has split (the
    // run ends right at the split size, so it may), the one holding the key.
    assert_eq!(g.mean_regions_touched, 4.0);
    assert!(g.mean_regions_total >= 4.0);
    // Every Get still found its row (in exactly one of the buckets it tried).
    assert_eq!(g.mean_rows_matched, 1.0);
    let h = query(hashed, "get by natural key");
    assert_eq!((h.plan.as_str(), h.mean_probes), ("get", 1.0));
    assert_eq!(h.mean_regions_touched, 1.0);
    assert_eq!(h.mean_rows_examined, 1.0);
    assert_eq!(g.mean_rows_examined, 4.0);
    let finding = random
        .findings
        .iter()
        .find(|f| f.starts_with("Random salt") && f.contains("get by natural key"))
        .unwrap_or_else(|| panic!("no random-salt finding: {:?}", random.findings));
    assert!(finding.contains("4.0 Gets"), "{finding}");
    assert!(!hashed.findings.iter().any(|f| f.starts_with("Random salt")));
}

/// The phone design with a forward timestamp: a number's rows oldest first.
fn phone_forward(records: u64) -> Design {
    let path = pair("phone-reversed.toml");
    let text = std::fs::read_to_string(&path)
        .expect("reads")
        .replace(
            r#"{ reverse_ts = "ts" },"#,
            r#"{ field = "ts", as = "u64" },"#,
        )
        .replace(r#"name = "phone-reversed""#, r#"name = "phone-forward-ts""#);
    shrink(
        lab::design::parse(&text, Path::new("phone-forward-ts.toml")).expect("parses"),
        records,
    )
}

#[test]
fn latest_n_on_reverse_timestamp_keys_reads_one_region() {
    let runs =
        lab::compare(&[small("phone-reversed.toml", 3000), phone_forward(3000)]).expect("runs");
    let [rev, fwd] = [&runs[0], &runs[1]];
    show(rev);
    show(fwd);
    let q = query(rev, "a number's newest 10");
    assert!(q.plan.contains("newest first: limit 10"), "{}", q.plan);
    assert_eq!(q.mean_regions_touched, 1.0, "one region on reverse-ts keys");
    assert_eq!(q.max_regions_touched, 1);
    assert!(q.mean_rows_examined <= 10.0);
    assert!(
        rev.findings
            .iter()
            .any(|f| f.starts_with("Reverse timestamp") && f.contains("from 1.0 region")),
        "{:?}",
        rev.findings
    );
    // Forward timestamps: the newest rows are at the end of the number's range, so the client
    // reads all of them; it still returns the same newest 10 (missed is 0 in both).
    let f = query(fwd, "a number's newest 10");
    assert!(f.plan.contains("all rows read"), "{}", f.plan);
    assert!(
        f.mean_rows_examined > q.mean_rows_examined,
        "forward {} vs reverse {}",
        f.mean_rows_examined,
        q.mean_rows_examined
    );
    assert_eq!(f.mean_rows_matched, q.mean_rows_matched);
    assert!(
        fwd.findings
            .iter()
            .any(|f| f.starts_with("No reverse timestamp"))
    );
}

#[test]
fn get_missing_reads_no_block_with_a_row_bloom_filter() {
    let runs = lab::compare(&[
        small("bloom-none.toml", 3000),
        small("bloom-row.toml", 3000),
    ])
    .expect("runs");
    let [none, row] = [&runs[0], &runs[1]];
    show(none);
    show(row);
    assert!(
        none.summary.store_files > 4,
        "the Gets have files to look into"
    );
    let n = query(none, "is this post id taken?");
    let r = query(row, "is this post id taken?");
    assert!(n.plan.ends_with("(Bloom NONE)"), "{}", n.plan);
    assert!(r.plan.ends_with("(Bloom ROW)"), "{}", r.plan);
    // No row came back (missed == 0 in show) and the Bloom filter kept the engine out of files.
    assert!(
        n.mean_blocks_read >= 1.0,
        "without Bloom: {}",
        n.mean_blocks_read
    );
    assert!(
        r.mean_blocks_read < 0.05,
        "with ROW Bloom: {}",
        r.mean_blocks_read
    );
    for (run, q) in [(none, n), (row, r)] {
        let bloom = if run.design == "bloom-row" {
            "ROW"
        } else {
            "NONE"
        };
        let want = format!(
            "Bloom {bloom}: a Get of an absent row ({}) read {:.2} data blocks",
            q.name, q.mean_blocks_read
        );
        assert!(
            run.findings.iter().any(|f| f.starts_with(&want)),
            "{want}: {:?}",
            run.findings
        );
    }
    // Two families per put, and the deletes ran.
    assert_eq!(row.row_shape.families, 2);
    assert!(query(row, "delete a post").count > 0);
}

#[test]
fn ttl_and_deletes_hide_rows_as_the_lab_expects() {
    // One family with a 2 s TTL (2000 operations of the lab's clock) and deletes: Gets of old
    // or deleted records find nothing, scans skip them, and the lab's expectation agrees with
    // the engine on every read (missed == 0).
    let path = pair("bloom-row.toml");
    let text = std::fs::read_to_string(&path)
        .expect("reads")
        .replace(
            r#"family = [{ name = "d", bloom = "ROW" }, { name = "m", bloom = "ROW", ttl = 10 }]"#,
            r#"family = [{ name = "d", ttl = 2 }]"#,
        )
        .replace(r#"families = "all""#, r#"families = "first""#);
    let d = shrink(
        lab::design::parse(&text, Path::new("ttl.toml")).expect("parses"),
        4000,
    );
    let r = lab::run_design(&d, None).expect("runs");
    show(&r);
    let g = query(&r, "get");
    assert!(
        g.mean_rows_matched < 0.9,
        "some Gets hit expired or deleted records: {}",
        g.mean_rows_matched
    );
    assert!(g.mean_rows_matched > 0.0);
    assert!(query(&r, "delete a post").count > 0);
}

#[test]
fn wide_rows_answer_a_time_range_from_few_rows() {
    let runs = lab::compare(&[small("tsdb-tall.toml", 3000), small("tsdb-wide.toml", 3000)])
        .expect("runs");
    let [tall, wide] = [&runs[0], &runs[1]];
    show(tall);
    show(wide);
    assert_eq!(tall.row_shape.rows, tall.row_shape.cells);
    assert!(
        wide.row_shape.cells >= 10 * wide.row_shape.rows,
        "{:?}",
        wide.row_shape
    );
    let t = query(tall, "a metric over 10 minutes");
    let w = query(wide, "a metric over 10 minutes");
    // The same data points come back; the wide design reads far fewer rows for them.
    assert_eq!(t.mean_rows_matched, w.mean_rows_matched);
    assert!(w.mean_rows_examined * 10.0 < t.mean_rows_examined);
    assert!(wide.findings.iter().any(|f| f.starts_with("Wide rows")));
    assert!(!tall.findings.iter().any(|f| f.starts_with("Wide rows")));
    // A data point is one cell of a wide row: still one Get, one region.
    assert_eq!(query(wide, "a data point").mean_regions_touched, 1.0);
    assert_eq!(query(wide, "a data point").mean_rows_matched, 1.0);
}
