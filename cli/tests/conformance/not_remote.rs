//! What the suite cannot run remotely, and why: each item is a call that fails with
//! `Error::Unsupported` on a remote database (checked here), because HBase's Thrift2 service
//! (`THBaseService`, HBase 2.6) has no call or field that carries it.

use crate::*;

/// (what, why) — also in docs/REMOTE.md, "What does not run remotely".
pub const NOT_REMOTE: &[(&str, &str)] = &[
    (
        "flush, compact, major_compact, split, merge, region flush/compact/truncate",
        "THBaseService has no flush, compaction, split or merge call; the rules tests that replay a case after flush() and major_compact() run embedded only",
    ),
    ("raw scans", "TScan has no raw flag"),
    (
        "FuzzyRowFilter, MultiRowRangeFilter, RandomRowFilter, ColumnPaginationFilter with a column offset, Long/Bit/Null comparators",
        "HBase offers them only through its Java API: they have no form in the filter language TScan.filterString carries (TScan.filterBytes needs HBase's protobuf filter encoding)",
    ),
    (
        "CheckAndMutate with several conditions",
        "checkAndMutate takes one row/family/qualifier/operator/value",
    ),
    (
        "a Get's per-family time range; a Scan's per-family limit or offset",
        "TGet has no colFamTimeRangeMap; TScan has no storeLimit/storeOffset",
    ),
    (
        "snapshots, checkpoint, bulk load, salted scans, the normalizer, table attribute setters",
        "THBaseService has no snapshot, checkpoint, bulk-load or normalizer call; salted scans and the attribute setters are not mapped onto its calls yet",
    ),
    (
        "time-dependent cases under a manual clock",
        "the server stamps cells with its own clock: the remote TTL cases write cells whose timestamps are hours old instead",
    ),
];

fn unsupported<T: std::fmt::Debug>(what: &str, r: Result<T>) {
    match r {
        Err(Error::Unsupported(m)) => assert!(!m.is_empty()),
        other => panic!("{what}: expected Unsupported, got {other:?}"),
    }
}

/// Each item fails with `Unsupported` remotely, and the report is written.
pub fn check(b: &Backend) {
    assert!(b.remote);
    let t = b.table(1);
    unsupported("flush", t.flush());
    unsupported("compact", t.compact());
    unsupported("major_compact", t.major_compact());
    unsupported("split", t.split(Some(b"m")));
    unsupported("raw scan", t.scan(Scan::new().raw(true)));
    for f in [
        Filter::FuzzyRow(vec![(b"a".to_vec(), vec![0])]),
        Filter::MultiRowRange(vec![RowRange::new("a", true, "b", false)]),
        Filter::Value(CompareOp::Equal, Comparator::Long(1)),
    ] {
        unsupported("API-only filter", t.scan(Scan::new().filter(f.clone())));
        unsupported("API-only filter", t.get(Get::new("r").filter(f)));
    }
    unsupported(
        "two conditions",
        t.check_and_mutate(
            CheckAndMutate::new("r")
                .if_absent("f", "a")
                .if_absent("f", "b")
                .then_put(Put::new("r").add("f", "a", "v")),
        ),
    );
    unsupported(
        "Get per-family time range",
        t.get(Get::new("r").column_family_time_range("f", 1, 2)),
    );
    unsupported(
        "Scan per-family limit",
        t.scan(Scan::new().max_results_per_column_family(1)),
    );
    unsupported("snapshot", b.db.snapshot(t.name(), "s"));
    unsupported("bulk load", t.bulk_load([Put::new("r").add("f", "q", "v")]));
    unsupported("salted scan", t.scan_salted(Scan::new(), 4));
    unsupported(
        "checkpoint",
        b.db.checkpoint(std::env::temp_dir().join("never-made")),
    );
    // Nothing above reached the table.
    assert!(t.get(Get::new("r")).unwrap().is_empty());

    let mut report = String::from(
        "# Conformance report\n\nRun embedded and remote (Db::connect to cellbase thrift2), with \
         the same assertions:\n\n",
    );
    for c in crate::CASES {
        report.push_str(&format!("- {c}\n"));
    }
    report.push_str("\nNot runnable remotely (each checked to fail with Error::Unsupported):\n\n");
    report.push_str("| what | why |\n|---|---|\n");
    for (what, why) in NOT_REMOTE {
        report.push_str(&format!("| {what} | {why} |\n"));
    }
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("conformance-report.md");
    std::fs::write(&path, &report).unwrap();
    println!("{report}\n(written to {})", path.display());

    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/REMOTE.md")).unwrap();
    for (what, _) in NOT_REMOTE {
        assert!(docs.contains(what), "docs/REMOTE.md does not list {what:?}");
    }
}
