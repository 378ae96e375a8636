//! The shipped example designs, run small, show what the seed articles predict — asserted on
//! the measured metrics (never on report text).
use cellbase_cli::lab::{self, Design, RunResult};
use std::path::PathBuf;

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/lab")
        .join(name)
}

/// A shipped design with a small record count and small regions, so that a debug build
/// finishes in seconds and the unsplit table still splits.
fn small(name: &str, records: u64) -> Design {
    let mut d = lab::load(&example(name), Some(records)).expect("example design loads");
    d.table.max_region_size = 64 << 10;
    d.table.memstore_flush_size = 16 << 10;
    for ix in &mut d.indexes {
        ix.max_region_size = 64 << 10;
    }
    println!("design {name}: seed {}, {records} records", d.seed);
    d
}

fn query<'a>(r: &'a RunResult, name: &str) -> &'a lab::runner::QueryStats {
    r.queries
        .iter()
        .find(|q| q.name == name)
        .unwrap_or_else(|| panic!("{}: no query {name}: {:?}", r.design, r.queries))
}

#[test]
fn hotspot_salted_hashed() {
    let designs = vec![
        small("hotspot.toml", 3000),
        small("salted.toml", 3000),
        small("hashed.toml", 3000),
    ];
    let runs = lab::compare(&designs).expect("runs");
    let [hot, salted, hashed] = [&runs[0], &runs[1], &runs[2]];
    for r in &runs {
        println!(
            "{}: share {:.3} ratio {:.2} (max {:.2}) gini {:.3} over-half {:.2} splits {} regions {}",
            r.design,
            r.summary.mean_hottest_share,
            r.summary.mean_hottest_ratio,
            r.summary.max_hottest_ratio,
            r.summary.mean_gini,
            r.summary.time_over_half,
            r.summary.splits,
            r.summary.final_regions
        );
        assert_eq!(r.summary.puts, 3000);
        for q in &r.queries {
            assert_eq!(q.missed, 0, "{}: {} missed matching rows", r.design, q.name);
        }
    }

    // Timestamp-first: the table splits, yet nearly every write of a window goes to one region.
    assert!(hot.summary.splits >= 2, "the hot table splits");
    assert!(hot.summary.final_regions >= 3);
    assert!(hot.summary.mean_hottest_share > 0.95);
    assert!(hot.summary.time_over_half > 0.95);
    // ... and once split, the hot region takes many times its fair share.
    let multi: Vec<_> = hot.windows.iter().filter(|w| w.regions >= 3).collect();
    assert!(!multi.is_empty());
    assert!(multi.iter().all(|w| w.hottest_ratio > 2.5));
    // Its time-range scan is one short range: one or two regions.
    let scan = query(hot, "events in 2 s");
    assert_eq!(scan.plan, "range");
    assert!(scan.mean_regions_touched <= 2.0);

    // Salted: within a small factor of the fair share, never one region with half the writes.
    assert!(
        salted.summary.mean_hottest_ratio < 2.5,
        "{}",
        salted.summary.mean_hottest_ratio
    );
    assert_eq!(salted.summary.time_over_half, 0.0);
    assert!(salted.summary.mean_gini < hot.summary.mean_gini || hot.summary.mean_gini == 0.0);
    // ... while its range scans fan out to every bucket.
    let scan = query(salted, "events in 2 s");
    assert_eq!(scan.plan, "salted range");
    assert!(scan.mean_regions_touched >= 16.0);
    assert!(scan.mean_regions_touched > 8.0 * query(hot, "events in 2 s").mean_regions_touched);

    // Hashed: writes spread too, and the range scan has to read every region.
    assert!(hashed.summary.mean_hottest_ratio < 2.5);
    assert_eq!(hashed.summary.time_over_half, 0.0);
    let scan = query(hashed, "events in 2 s");
    assert_eq!(scan.plan, "full");
    assert!((scan.mean_regions_touched - scan.mean_regions_total).abs() < 1e-9);
    assert!(scan.mean_rows_examined > 2.0 * scan.mean_rows_matched);
    // Point reads stay one region in every design.
    for r in &runs {
        assert!((query(r, "get").mean_regions_touched - 1.0).abs() < 1e-9);
    }
}

#[test]
fn seed_cases_answer_their_queries_from_one_region() {
    // Call log: the caller+month query is one prefix scan; the callee query goes through the
    // index table and finds every call.
    let runs = [
        lab::run_design(&small("calllog.toml", 2000), None).expect("calllog"),
        lab::run_design(&small("feed.toml", 2000), None).expect("feed"),
        lab::run_design(&small("phone.toml", 2000), None).expect("phone"),
        lab::run_design(&small("opentsdb.toml", 2000), None).expect("opentsdb"),
        lab::run_design(&small("event.toml", 2000), None).expect("event"),
    ];
    for r in &runs {
        for q in &r.queries {
            println!(
                "{} / {}: plan {} regions {:.2}/{:.2} rows {:.1} matched {:.1}",
                r.design,
                q.name,
                q.plan,
                q.mean_regions_touched,
                q.mean_regions_total,
                q.mean_rows_examined,
                q.mean_rows_matched
            );
            assert_eq!(q.missed, 0, "{}: {} missed matching rows", r.design, q.name);
        }
    }
    let [calllog, feed, phone, tsdb, event] = [&runs[0], &runs[1], &runs[2], &runs[3], &runs[4]];
    let q = query(calllog, "calls of a caller in a month");
    assert_eq!(q.plan, "prefix");
    assert!(q.mean_regions_touched <= 1.0 + 1e-9);
    let q = query(calllog, "calls to a callee in a month");
    assert!(q.plan.contains("via index calls_by_callee"), "{}", q.plan);
    assert!(q.mean_rows_matched > 0.0);
    assert_eq!(calllog.index_regions.len(), 1);
    // The salt prefix spreads the call log's writes.
    assert_eq!(calllog.summary.time_over_half, 0.0);

    assert_eq!(query(feed, "a user's feed").plan, "prefix");
    assert!(query(feed, "a user's feed").mean_regions_touched <= 1.0 + 1e-9);
    assert_eq!(query(feed, "a user's last 10 minutes").plan, "range");
    assert_eq!(query(phone, "history of a number").plan, "prefix");
    assert_eq!(query(phone, "a number's last hour").plan, "range");
    assert_eq!(
        phone.summary.time_over_half, 0.0,
        "reversed numbers spread writes"
    );
    assert_eq!(query(tsdb, "a metric over 10 minutes").plan, "range");
    // Event design: salted prefix scans run in every bucket and still find every row.
    let q = query(event, "events of a type on a day");
    assert_eq!(q.plan, "salted prefix");
    assert!(q.mean_regions_touched >= 8.0);
    assert_eq!(event.summary.time_over_half, 0.0);
}

/// The JSON of a run without its wall-clock figures (the only fields allowed to differ
/// between runs of the same seed: docs/LAB.md lists them).
fn deterministic_json(r: &RunResult) -> serde_json::Value {
    let mut v = serde_json::to_value(r).expect("serializes");
    for f in ["wall_secs", "ops_per_sec"] {
        v["summary"]
            .as_object_mut()
            .expect("summary")
            .remove(f)
            .expect("field present");
    }
    for op in v["cluster"]["operations"]
        .as_array_mut()
        .expect("operations")
    {
        op.as_object_mut()
            .expect("operation")
            .remove("measured_engine_ms_mean")
            .expect("field present");
    }
    v
}

/// Same seed, same results: the whole JSON (windows, regions, splits, findings, the cluster's
/// assignment and the projection) but the wall-clock fields. With issue 24's operations too:
/// a random salt and get_missing (salt-random), latest_n, deletes, a TTL and two families
/// (bloom-row), wide rows (tsdb-wide).
#[test]
fn same_seed_same_numbers() {
    for name in [
        "salted.toml",
        "calllog.toml",
        "pairs/salt-random.toml",
        "pairs/bloom-row.toml",
        "pairs/tsdb-wide.toml",
    ] {
        let a = lab::run_design(&small(name, 1500), None).expect("run");
        let b = lab::run_design(&small(name, 1500), None).expect("run");
        assert!(a.cluster.projected_ops_per_sec > 0.0);
        assert!(!a.cluster.operations.is_empty());
        let (ja, jb) = (deterministic_json(&a), deterministic_json(&b));
        if ja != jb {
            let (ta, tb) = (ja.to_string(), jb.to_string());
            let at = ta
                .bytes()
                .zip(tb.bytes())
                .position(|(x, y)| x != y)
                .unwrap_or(0);
            panic!(
                "{name}: runs differ at byte {at}: {} | {}",
                &ta[at.saturating_sub(200)..(at + 100).min(ta.len())],
                &tb[at.saturating_sub(200)..(at + 100).min(tb.len())]
            );
        }
    }
}

/// Issue 24 acceptance: on the default cluster (5 servers) the salted design's projected
/// cluster throughput is a multiple of the timestamp-first design's, whose busiest server
/// takes at least 90 % of the writes; the comparison says so and names no single-process
/// winner.
#[test]
fn salted_projects_a_multiple_of_the_hotspot_on_a_cluster() {
    let runs =
        lab::compare(&[small("hotspot.toml", 4000), small("salted.toml", 4000)]).expect("runs");
    let [hot, salted] = [&runs[0], &runs[1]];
    for r in &runs {
        let c = &r.cluster;
        println!(
            "{}: servers {} projected {:.0} ops/s busiest write share {:.3} read share {:.3} busy share {:.3} over-2x {:.2} moves {} regions/server {:?}",
            r.design,
            c.servers,
            c.projected_ops_per_sec,
            c.hottest_server_write_share,
            c.hottest_server_read_share,
            c.hottest_server_busy_share,
            c.time_server_over_2x_writes,
            c.balancer_moves,
            c.final_regions_per_server
        );
        for o in &c.operations {
            println!(
                "  {}: p50 {:.3} p99 {:.3} ms, servers {:.2}, regions {:.2}",
                o.name,
                o.projected_p50_ms,
                o.projected_p99_ms,
                o.servers_touched_mean,
                o.regions_touched_mean
            );
        }
        assert_eq!(c.servers, 5);
        assert_eq!(c.server_writes.iter().sum::<u64>(), r.summary.puts);
    }
    assert!(
        hot.cluster.hottest_server_write_share >= 0.9,
        "{}",
        hot.cluster.hottest_server_write_share
    );
    assert!(hot.cluster.time_server_over_2x_writes > 0.9);
    assert!(salted.cluster.hottest_server_write_share < 0.4);
    let x = salted.cluster.projected_ops_per_sec / hot.cluster.projected_ops_per_sec;
    assert!(x >= 2.0, "salted / hotspot projected throughput: {x:.2}");
    // A salted range scan touches every bucket, on every server, in parallel; a Get stays on
    // one server in both designs.
    let op = |r: &RunResult, n: &str| {
        r.cluster
            .operations
            .iter()
            .find(|o| o.name == n)
            .cloned()
            .unwrap_or_else(|| panic!("{}: no {n}", r.design))
    };
    assert!((op(salted, "events in 2 s").servers_touched_mean - 5.0).abs() < 1e-9);
    assert!((op(salted, "get").servers_touched_mean - 1.0).abs() < 1e-9);
    assert!((op(hot, "get").servers_touched_mean - 1.0).abs() < 1e-9);
    assert!(op(hot, "put").projected_p50_ms > 0.0);

    // The comparison says it, and never judges by single-process engine time.
    let headline = lab::report::headline(&runs);
    println!("{headline:#?}");
    assert!(
        headline.iter().any(
            |l| l.starts_with("Projected on the simulated cluster, salted")
                && l.contains("a multiple of it")
        ),
        "{headline:?}"
    );
    let winners = lab::report::winners(&runs);
    assert!(
        winners.iter().all(|(m, _)| !m.contains("Single-process")),
        "{winners:?}"
    );
    let w = |m: &str| {
        winners
            .iter()
            .find(|(x, _)| x.starts_with(m))
            .map(|(_, w)| w.clone())
            .unwrap_or_else(|| panic!("no {m}: {winners:?}"))
    };
    assert_eq!(w("Projected cluster throughput"), "salted");
    assert_eq!(w("Busiest server's share of writes"), "salted");

    // The final region table counts writes by key range over the whole run: they add up to
    // every put, although the engine's counters restart at each split.
    for r in &runs {
        assert_eq!(
            r.regions.iter().map(|g| g.range_writes).sum::<u64>(),
            r.summary.puts
        );
    }
    assert!(hot.regions.iter().filter(|g| g.range_writes > 0).count() > 1);
}

/// Issue 24 (honest answers): read skew is measured and reported like write skew, and the
/// single-process engine rate is shown but never named a winner (one process runs a fan-out
/// scan's parts one after another, where a cluster runs them in parallel).
#[test]
fn read_skew_is_a_finding_and_engine_rate_is_no_contest() {
    let feed = lab::compare(&[small("feed.toml", 3000)]).expect("runs");
    let s = &feed[0].summary;
    println!(
        "feed: reads {} hottest read share {:.3} ratio {:.2} over-half {:.2}",
        s.reads, s.mean_hottest_read_share, s.mean_hottest_read_ratio, s.read_time_over_half
    );
    assert!(s.reads > 0);
    assert!(s.mean_hottest_read_share > 0.0 && s.mean_hottest_read_share <= 1.0);
    let findings = lab::runner::findings(&feed[0]);
    let read_finding = findings
        .iter()
        .find(|f| f.starts_with("Read hot spot") || f.starts_with("Reads spread"))
        .unwrap_or_else(|| panic!("no read finding in {findings:?}"));
    // The finding follows the numbers: a hot spot exactly when the rule says so.
    let hot = s.mean_hottest_read_ratio >= 2.0 || s.read_time_over_half >= 0.5;
    assert_eq!(
        read_finding.starts_with("Read hot spot"),
        hot,
        "{read_finding}"
    );
    // Issue 24 acceptance: the feed's popular users make a read hot spot, and it is a finding.
    assert!(hot, "feed.toml has a read hot spot: {read_finding}");
    assert!(
        findings
            .iter()
            .any(|f| f.starts_with("Read hot server")
                || f.starts_with("Reads spread over the servers")),
        "{findings:?}"
    );

    // Index tables too (calllog.toml reads through its index).
    let calllog = lab::compare(&[small("calllog.toml", 3000)]).expect("runs");
    let ix = calllog[0]
        .summary
        .index_reads
        .iter()
        .find(|ix| ix.reads > 0)
        .expect("calllog reads its index");
    println!(
        "calllog index {}: reads {} share {:.3} ratio {:.2}",
        ix.name, ix.reads, ix.mean_hottest_read_share, ix.mean_hottest_read_ratio
    );
    assert!(
        ix.mean_hottest_read_ratio >= 2.0,
        "calllog.toml's callee index has a read hot spot"
    );
    let findings = lab::runner::findings(&calllog[0]);
    let want = if ix.mean_hottest_read_ratio >= 2.0 {
        format!("Read hot spot in index {}", ix.name)
    } else {
        format!("Reads spread in index {}", ix.name)
    };
    assert!(
        findings.iter().any(|f| f.starts_with(&want)),
        "{want}: {findings:?}"
    );

    let runs =
        lab::compare(&[small("hotspot.toml", 2000), small("salted.toml", 2000)]).expect("runs");
    let winners = lab::report::winners(&runs);
    assert!(
        winners
            .iter()
            .all(|(m, _)| !m.contains("Single-process") && !m.contains("engine")),
        "{winners:?}"
    );
    assert!(
        winners.iter().any(|(m, _)| m.contains("share of reads")),
        "{winners:?}"
    );
}

/// Issue 24 (the seeds' lessons): a key-length finding. Seed 004 asks for rowkeys as short as
/// Gets and scans allow and shows a long taking 8 bytes as binary against 10 or more as text;
/// every cell stores its rowkey again. The time-first example writes `ts` (13 digits) and `seq`
/// (9 digits, values that fit an int) as decimal text: 5 + 5 bytes more than binary integers.
/// OpenTSDB's binary key (dictionary ids, a time bucket, a u64) has nothing to save.
#[test]
fn key_length_is_a_finding_with_what_binary_numbers_would_save() {
    let hot = lab::compare(&[small("hotspot.toml", 1500)]).expect("runs");
    let k = &hot[0].key_facts;
    // `ts` 13 + `_` + event (4 to 6 letters) + `_` + `seq` 9.
    assert!(
        (28.0..=30.0).contains(&k.mean_key_len),
        "mean key length {}",
        k.mean_key_len
    );
    assert_eq!(
        k.decimal_text_fields,
        vec![("ts".to_string(), 5.0), ("seq".to_string(), 5.0)]
    );
    assert!(k.cell_overhead_share > 0.0 && k.cell_overhead_share < 1.0);
    let findings = lab::runner::findings(&hot[0]);
    let f = findings
        .iter()
        .find(|f| f.starts_with("Key length:"))
        .unwrap_or_else(|| panic!("no key-length finding in {findings:?}"));
    assert!(
        f.contains("ts, seq as decimal text") && f.contains("10.0 bytes fewer per key"),
        "{f}"
    );

    let tsdb = lab::compare(&[small("opentsdb.toml", 1500)]).expect("runs");
    assert!(tsdb[0].key_facts.decimal_text_fields.is_empty());
    let findings = lab::runner::findings(&tsdb[0]);
    let f = findings
        .iter()
        .find(|f| f.starts_with("Key length:"))
        .unwrap_or_else(|| panic!("no key-length finding in {findings:?}"));
    assert!(!f.contains("decimal text"), "{f}");
}
