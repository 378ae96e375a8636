//! One conformance suite, two ways (issue 28): a chosen set of the engine's HBase-semantics
//! tests (versions, deletes, TTL, filters, counters, check-and-mutate, scans, multi-gets,
//! administration), each written once against `&Db` and run twice with the same assertions:
//! `embedded::CASE` on an embedded database, `remote::CASE` through [`Db::connect`] against a
//! `cellbase thrift2` gateway this test starts (or any Thrift2 server named by
//! `CELLBASE_CONFORMANCE_ADDR=thrift2://HOST:PORT`, e.g. an HBase cluster's: each case then
//! uses its own table `conformance_CASE` and drops it first).
//!
//! What cannot run remotely is listed in [`not_remote::NOT_REMOTE`] with the reason, and
//! `remote::not_runnable_remotely_is_unsupported_and_reported` checks each item fails with
//! `Error::Unsupported` remotely (never a silent difference), and writes the report
//! (`conformance-report.md` in the test's temporary target directory, also printed).
//! docs/REMOTE.md carries the same list.
//!
//! The cases write explicit timestamps wherever time matters, so the gateway's system clock
//! and the embedded database's agree; TTL cases write cells whose timestamps are hours old.

#[allow(dead_code)]
#[path = "../gateway_process/mod.rs"]
mod gateway_process;

mod admin;
mod cam;
mod counters;
mod deletes;
mod filters;
mod not_remote;
mod scans;
mod ttl;
mod versions;

use cellbase::*;

/// The database a case runs against.
pub struct Backend {
    /// The database (embedded, or connected to a Thrift2 server).
    pub db: Db,
    /// True when `db` is remote.
    pub remote: bool,
    /// Each case's own table name on a shared external server.
    prefix: Option<String>,
    _server: Option<gateway_process::Server>,
    _dir: Option<tempfile::TempDir>,
}

impl Backend {
    /// An embedded database in a temporary directory.
    pub fn embedded() -> Backend {
        Backend {
            db: Db::temporary().unwrap(),
            remote: false,
            prefix: None,
            _server: None,
            _dir: None,
        }
    }

    /// A remote database: `CELLBASE_CONFORMANCE_ADDR`, or a `cellbase thrift2` gateway
    /// started over a temporary directory.
    pub fn remote(case: &str) -> Backend {
        // Small caching, so multi-batch scans are exercised by short tables too.
        let opts = RemoteOptions::default().scanner_caching(3);
        if let Ok(addr) = std::env::var("CELLBASE_CONFORMANCE_ADDR") {
            return Backend {
                db: Db::connect_with(&addr, opts).unwrap(),
                remote: true,
                prefix: Some(format!("conformance_{case}")),
                _server: None,
                _dir: None,
            };
        }
        let dir = tempfile::tempdir().unwrap();
        let server = gateway_process::spawn("thrift2", dir.path(), &[]);
        let addr = format!("thrift2://127.0.0.1:{}", server.port);
        Backend {
            db: Db::connect_with(&addr, opts).unwrap(),
            remote: true,
            prefix: None,
            _server: Some(server),
            _dir: Some(dir),
        }
    }

    /// The name a case's table `t` has on this backend.
    pub fn name(&self, t: &str) -> String {
        match &self.prefix {
            Some(p) => format!("{p}_{t}"),
            None => t.to_string(),
        }
    }

    /// Creates table `t` (dropping a leftover of an earlier run on an external server).
    pub fn create(&self, d: TableDescriptor) -> Table {
        let name = self.name(d.name());
        if self.prefix.is_some() && self.db.table(&name).is_ok() {
            let _ = self.db.disable_table(&name);
            self.db.drop_table(&name).unwrap();
        }
        let mut renamed = TableDescriptor::new(&name);
        for f in d.families() {
            renamed = renamed.family(f.clone());
        }
        if let Ok(keys) = d.initial_split_keys() {
            renamed = renamed.split_keys(keys);
        }
        self.db.create_table(renamed).unwrap()
    }

    /// Table `t` with families `f` and `g` keeping `versions` versions.
    pub fn table(&self, versions: u32) -> Table {
        self.create(
            TableDescriptor::new("t")
                .family(FamilyDescriptor::new("f").max_versions(versions))
                .family(FamilyDescriptor::new("g").max_versions(versions)),
        )
    }
}

/// The timestamps of `f:q` in a result, newest first.
pub fn ts_of(r: &RowResult, f: &str, q: &str) -> Vec<i64> {
    r.versions(f, q).into_iter().map(|(ts, _)| ts).collect()
}

/// `f:q` timestamps of a Get.
pub fn get_ts(t: &Table, g: Get, f: &str, q: &str) -> Vec<i64> {
    ts_of(&t.get(g).unwrap(), f, q)
}

/// Every returned cell of a scan as `row/family:qualifier@ts=value`.
pub fn scan_cells(t: &Table, s: Scan) -> Vec<String> {
    t.scan(s)
        .unwrap()
        .flat_map(|r| r.unwrap().cells().iter().map(show).collect::<Vec<_>>())
        .collect()
}

/// The rows a scan returns.
pub fn scan_rows(t: &Table, s: Scan) -> Vec<String> {
    t.scan(s)
        .unwrap()
        .map(|r| String::from_utf8_lossy(r.unwrap().row()).into_owned())
        .collect()
}

/// One cell as `row/family:qualifier@ts=value`.
pub fn show(c: &Cell) -> String {
    format!(
        "{}/{}:{}@{}={}",
        String::from_utf8_lossy(c.row()),
        String::from_utf8_lossy(c.family()),
        String::from_utf8_lossy(c.qualifier()),
        c.timestamp(),
        String::from_utf8_lossy(c.value())
    )
}

/// Milliseconds since the epoch now (the gateway stamps cells with the same clock).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Runs each case embedded and remote.
macro_rules! conformance {
    ($($m:ident :: $case:ident),* $(,)?) => {
        mod embedded {
            $(#[test] fn $case() { crate::$m::$case(&crate::Backend::embedded()); })*
        }
        mod remote {
            $(#[test] fn $case() {
                crate::$m::$case(&crate::Backend::remote(stringify!($case)));
            })*
            #[test]
            fn not_runnable_remotely_is_unsupported_and_reported() {
                crate::not_remote::check(&crate::Backend::remote("not_remote"));
            }
        }
        /// Every case the suite runs both ways.
        pub const CASES: &[&str] = &[$(stringify!($case)),*];
    };
}

conformance!(
    versions::family_versions_bound_reads,
    versions::query_versions_default_to_one_and_zero_is_refused,
    versions::time_range_applies_before_version_counting,
    versions::duplicate_timestamps_return_the_newest_write,
    deletes::a_version_marker_masks_exactly_its_timestamp,
    deletes::a_column_marker_masks_every_version_at_or_before_it,
    deletes::latest_version_deletes_hit_successive_versions,
    deletes::a_family_marker_masks_the_family_only,
    deletes::a_family_version_marker_masks_one_timestamp,
    deletes::a_whole_row_delete_up_to_a_timestamp,
    deletes::markers_mask_puts_written_after_them,
    deletes::one_delete_mixing_marker_kinds_is_atomic,
    deletes::a_delete_naming_an_unknown_family_fails,
    ttl::family_ttl_hides_old_cells_at_once,
    ttl::min_versions_keep_expired_versions_visible,
    ttl::cell_ttl_expires_a_put,
    ttl::increment_and_append_ttl,
    filters::compare_filters_read_cell_op_expected,
    filters::single_column_value_filter_defaults,
    filters::prefix_page_and_column_filters,
    filters::filter_lists_skip_and_while,
    filters::api_only_filters_work_embedded,
    counters::increment_creates_adds_and_returns_new_values,
    counters::increment_of_a_non_counter_fails,
    counters::append_concatenates,
    cam::check_and_mutate_compares_expected_op_stored,
    cam::missing_or_empty_expected_value,
    cam::check_and_delete_and_mutation_lists,
    scans::start_stop_and_prefix,
    scans::reversed_scans,
    scans::reversed_prefix_scans,
    scans::limit_batch_and_caching,
    scans::columns_versions_and_time_ranges,
    scans::per_family_time_ranges,
    scans::get_many_in_request_order,
    scans::mutate_row_and_put_all,
    admin::tables_describe_alter_and_drop,
    admin::namespaces,
    admin::disabled_and_missing_tables,
    admin::pre_split_regions,
);
