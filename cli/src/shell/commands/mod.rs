//! The shell's commands (hbase-shell.md §4.1) mapped onto the engine API.
//!
//! Every command validates all of its arguments before it touches the database, so a command
//! that fails on bad input writes nothing.
//!
//! The commands are `impl Session` blocks in one file per help group: `ddl` (create, alter,
//! describe, list, enable/disable, drop), `dml` (put, get, scan, delete, incr, count,
//! truncate), `namespace` (create, drop, alter, describe and list namespaces, list their
//! tables) and `admin` (the `tools` group: flush, compact, split, merge_region,
//! list_regions); `args` turns the Ruby values of the arguments into engine types. This module
//! holds the command table, the dispatch and what the groups share.

mod admin;
mod args;
mod bulk;
mod ddl;
mod dml;
mod metrics;
mod namespace;
mod normalizer;
mod regions;
mod snapshots;
mod table_attrs;

pub use admin::encoded_name;

use super::format::TsFormat;
use super::ruby::Value;
use args::arity;
use cellbase::rowkey::to_string_binary;
use cellbase::{Db, ManualClock, Table};
use std::io::Write;
use std::time::Duration;

/// A command failure, printed as `ERROR: <message>` followed by the command's usage.
#[derive(Debug)]
pub struct CmdError(pub String);

impl From<std::io::Error> for CmdError {
    fn from(e: std::io::Error) -> Self {
        CmdError(format!("I/O error writing output: {e}"))
    }
}

type R<T> = Result<T, CmdError>;

fn err<T>(msg: impl Into<String>) -> R<T> {
    Err(CmdError(msg.into()))
}

/// What a successful command leaves to print after its `Took` line (irb's `=> value` echo).
pub type Echo = Option<String>;

/// The database handle and output settings the commands share.
pub struct Session {
    /// The open database.
    pub db: Db,
    /// The manual clock when `--fixed-clock-ms` is in force (advanced 1 ms per command).
    pub clock: Option<ManualClock>,
    /// Timestamp style.
    pub ts: TsFormat,
    /// Width of the two-column layout: 0 = pipe layout, else the aligned TTY layout.
    pub width: usize,
    /// Lines of the current input (script, `-e` text, piped standard input) not yet read:
    /// a command that asks a question (`disable_all`'s `y/n`) reads its answer from here, as
    /// Ruby's `gets` reads the next line of the shell's input. Empty in the interactive
    /// shell, where the answer is read from the terminal.
    pub pending: std::collections::VecDeque<Vec<u8>>,
}

/// Every command: name, group, usage text.
pub const COMMANDS: &[(&str, &str, &str)] = &[
    (
        "create",
        "ddl",
        "create 't1', 'f1', 'f2'\n  create 't1', {NAME => 'f1', VERSIONS => 5, TTL => 86400, MIN_VERSIONS => 0,\n    KEEP_DELETED_CELLS => FALSE|TRUE|TTL, BLOOMFILTER => NONE|ROW|ROWCOL,\n    COMPRESSION => NONE|SNAPPY|GZ|LZ4|ZSTD (LZO: stored as LZ4, BZIP2: as GZ),\n    DATA_BLOCK_ENCODING => NONE|PREFIX|DIFF|FAST_DIFF|ROW_INDEX_V1, BLOCKSIZE => 65536, IN_MEMORY => false, BLOCKCACHE => true}\n  create 't1', 'f1', SPLITS => ['10', '20', '30']\n  create 't1', 'f1', SPLITS_FILE => 'splits.txt'\n  create 't1', 'f1', {NUMREGIONS => 15, SPLITALGO => 'HexStringSplit'}\n  create 't1', 'f1', {SPLIT_POLICY => 'org.apache.hadoop.hbase.regionserver.KeyPrefixRegionSplitPolicy',\n    CONFIGURATION => {'KeyPrefixRegionSplitPolicy.prefix_length' => '4'}}\n  Table options: MAX_FILESIZE, MEMSTORE_FLUSHSIZE, SPLIT_POLICY (ConstantSize, IncreasingToUpperBound,\n    Stepping, KeyPrefix, DelimitedKeyPrefix, Disabled; CONFIGURATION or METADATA for their keys).",
    ),
    (
        "alter",
        "ddl",
        "alter 't1', NAME => 'f1', VERSIONS => 5\n  alter 't1', 'f1', {NAME => 'f2', IN_MEMORY => true}\n  alter 't1', 'delete' => 'f1'\n  alter 't1', NAME => 'f1', METHOD => 'delete'\n  alter 't1', MAX_FILESIZE => '134217728', MEMSTORE_FLUSHSIZE => 4194304\n  alter 't1', METHOD => 'table_att_unset', NAME => 'MAX_FILESIZE'\n  alter 't1', SPLIT_POLICY => 'org.apache.hadoop.hbase.regionserver.DisabledRegionSplitPolicy'",
    ),
    ("describe", "ddl", "describe 't1'"),
    ("desc", "ddl", "desc 't1'"),
    ("list", "ddl", "list\n  list 'abc.*'\n  list 'ns:.*'"),
    ("exists", "ddl", "exists 't1'"),
    ("disable", "ddl", "disable 't1'"),
    ("enable", "ddl", "enable 't1'"),
    ("is_enabled", "ddl", "is_enabled 't1'"),
    ("is_disabled", "ddl", "is_disabled 't1'"),
    (
        "drop",
        "ddl",
        "drop 't1'   (the table must be disabled first)",
    ),
    (
        "create_namespace",
        "namespace",
        "create_namespace 'ns1'\n  create_namespace 'ns1', {'PROPERTY_NAME' => 'PROPERTY_VALUE'}",
    ),
    (
        "drop_namespace",
        "namespace",
        "drop_namespace 'ns1'   (only an empty namespace; not default or hbase)",
    ),
    (
        "alter_namespace",
        "namespace",
        "alter_namespace 'ns1', {METHOD => 'set', 'PROPERTY_NAME' => 'PROPERTY_VALUE'}\n  alter_namespace 'ns1', {METHOD => 'unset', NAME => 'PROPERTY_NAME'}",
    ),
    (
        "describe_namespace",
        "namespace",
        "describe_namespace 'ns1'",
    ),
    (
        "list_namespace",
        "namespace",
        "list_namespace\n  list_namespace 'abc.*'",
    ),
    (
        "list_namespace_tables",
        "namespace",
        "list_namespace_tables 'ns1'",
    ),
    (
        "put",
        "dml",
        "put 't1', 'r1', 'f1:c1', 'value'[, ts][, {TTL => ms}]",
    ),
    (
        "get",
        "dml",
        "get 't1', 'r1'\n  get 't1', 'r1', 'f1:c1', 'f1:c2'\n  get 't1', 'r1', ['f1:c1', 'f1']\n  get 't1', 'r1', {COLUMN => 'f1:c1', TIMESTAMP => ts, TIMERANGE => [ts1, ts2],\n    VERSIONS => 3, FILTER => \"ValueFilter(=, 'binary:v')\", MAXLENGTH => n}\n  get 't1', 'r1', 'f1:c1:toLong'   (formatter: toInt, toLong, toString, ...)",
    ),
    (
        "scan",
        "dml",
        "scan 't1'\n  scan 't1', {STARTROW => 'r1', STOPROW => 'r9', ROWPREFIXFILTER => 'r', LIMIT => 10,\n    COLUMNS => ['f1', 'f2:c'], TIMESTAMP => ts, TIMERANGE => [ts1, ts2], VERSIONS => 3,\n    RAW => true, REVERSED => true, FILTER => \"PrefixFilter('r')\", MAXLENGTH => n}",
    ),
    ("delete", "dml", "delete 't1', 'r1', 'f1:c1'[, ts]"),
    (
        "deleteall",
        "dml",
        "deleteall 't1', 'r1'[, 'f1:c1'][, ts]\n  deleteall 't1', {ROWPREFIXFILTER => 'prefix'}[, 'f1:c1'][, ts]",
    ),
    ("incr", "dml", "incr 't1', 'r1', 'f1:c1'[, n]"),
    ("get_counter", "dml", "get_counter 't1', 'r1', 'f1:c1'"),
    (
        "count",
        "dml",
        "count 't1'[, {INTERVAL => 1000, CACHE => 10, FILTER => \"...\"}]",
    ),
    (
        "truncate",
        "dml",
        "truncate 't1'   (disable, drop and recreate without the splits)",
    ),
    (
        "truncate_preserve",
        "dml",
        "truncate_preserve 't1'   (keeps the region boundaries)",
    ),
    (
        "flush",
        "tools",
        "flush 't1'\n  flush 't1', 'f1'\n  flush 'REGIONNAME'",
    ),
    (
        "compact",
        "tools",
        "compact 't1'[, 'f1']\n  compact 'REGIONNAME'[, 'f1']",
    ),
    (
        "major_compact",
        "tools",
        "major_compact 't1'[, 'f1']\n  major_compact 'REGIONNAME'[, 'f1']",
    ),
    (
        "split",
        "tools",
        "split 't1'\n  split 't1', 'splitKey'\n  split 'REGIONNAME', 'splitKey'",
    ),
    (
        "merge_region",
        "tools",
        "merge_region 'REGIONNAME_A', 'REGIONNAME_B'[, true]\n  merge_region ['REGIONNAME_A', 'REGIONNAME_B', 'REGIONNAME_C'][, true]",
    ),
    (
        "list_regions",
        "tools",
        "list_regions 't1'\n  list_regions 't1', {SERVER_NAME => 'localhost,0,0', LOCALITY_THRESHOLD => 0.8}\n  list_regions 't1', {}, ['START_KEY', 'END_KEY', 'SIZE']",
    ),
    ("get_splits", "tools", "get_splits 't1'"),
    ("compaction_state", "tools", "compaction_state 't1'"),
    (
        "truncate_region",
        "tools",
        "truncate_region 'REGIONNAME'\n  truncate_region 'ENCODED_REGIONNAME'",
    ),
    (
        "splitormerge_switch",
        "tools",
        "splitormerge_switch 'SPLIT', false\n  splitormerge_switch 'MERGE', true",
    ),
    (
        "splitormerge_enabled",
        "tools",
        "splitormerge_enabled 'SPLIT'\n  splitormerge_enabled 'MERGE'",
    ),
    (
        "normalize",
        "tools",
        "normalize\n  normalize TABLE_NAME => 'my_table'\n  normalize TABLE_NAMES => ['foo', 'bar', 'baz']\n  normalize REGEX => 'my_.*'\n  normalize NAMESPACE => 'ns1'\n  normalize NAMESPACE => 'ns', REGEX => '.*_BIG_.*'",
    ),
    (
        "normalizer_switch",
        "tools",
        "normalizer_switch true\n  normalizer_switch false",
    ),
    ("normalizer_enabled", "tools", "normalizer_enabled"),
    (
        "clone_table_schema",
        "ddl",
        "clone_table_schema 't1', 't2'\n  clone_table_schema 't1', 't2', false",
    ),
    (
        "disable_all",
        "ddl",
        "disable_all 't.*'\n  disable_all 'ns:.*'",
    ),
    (
        "enable_all",
        "ddl",
        "enable_all 't.*'\n  enable_all 'ns:.*'",
    ),
    ("drop_all", "ddl", "drop_all 't.*'\n  drop_all 'ns:.*'"),
    ("locate_region", "tools", "locate_region 't1', 'rowKey'"),
    ("append", "dml", "append 't1', 'r1', 'c1', 'value'"),
    (
        "snapshot",
        "snapshots",
        "snapshot 'sourceTable', 'snapshotName'",
    ),
    (
        "list_snapshots",
        "snapshots",
        "list_snapshots\n  list_snapshots 'abc.*'",
    ),
    (
        "list_table_snapshots",
        "snapshots",
        "list_table_snapshots 'tableName'\n  list_table_snapshots 'tableName', 'snapshotName.*'",
    ),
    (
        "clone_snapshot",
        "snapshots",
        "clone_snapshot 'snapshotName', 'tableName'",
    ),
    (
        "restore_snapshot",
        "snapshots",
        "restore_snapshot 'snapshotName'",
    ),
    (
        "delete_snapshot",
        "snapshots",
        "delete_snapshot 'snapshotName'",
    ),
    (
        "status",
        "general",
        "status\n  status 'simple'\n  status 'summary'\n  status 'detailed'",
    ),
    ("help", "general", "help\n  help 'get'"),
    ("version", "general", "version"),
    (
        "show_filters",
        "general",
        "show_filters   (the filter names FILTER => \"...\" strings accept)",
    ),
    ("exit", "general", "exit"),
];

/// The filter names of the filter language, the engine's own list (the registry of
/// `Filter::parse`, `cellbase::filter::FILTER_LANGUAGE_NAMES`): what `show_filters` prints,
/// one per line as HBase does. It is exactly HBase 2.6's `ParseFilter` set.
pub const SUPPORTED_FILTERS: &[&str] = cellbase::filter::FILTER_LANGUAGE_NAMES;

/// The usage text of a command, if it exists.
pub fn usage(cmd: &str) -> Option<&'static str> {
    COMMANDS.iter().find(|c| c.0 == cmd).map(|c| c.2)
}

/// The server name list_regions shows: an embedded database has one "server".
pub const SERVER_NAME: &str = "localhost,0,0";

/// Message text for an engine error, with the HBase shell's translations.
pub fn engine_msg(e: &cellbase::Error) -> String {
    match e {
        cellbase::Error::TableNotFound(t) => format!("Unknown table {t}!"),
        cellbase::Error::TableExists(t) => format!("Table already exists: {t}!"),
        // The shell's translation of NamespaceNotFoundException (commands.rb).
        cellbase::Error::NamespaceNotFound(ns) => format!("Unknown namespace {ns}!"),
        // JRuby prints the other namespace exceptions as `class: message`.
        cellbase::Error::NamespaceExists(ns) => {
            format!("org.apache.hadoop.hbase.NamespaceExistException: {ns}")
        }
        e @ cellbase::Error::NamespaceNotEmpty { .. } => {
            format!("org.apache.hadoop.hbase.constraint.ConstraintException: {e}")
        }
        // The client's region lookup (ConnectionImplementation.locateRegion), as JRuby
        // prints a Java exception: `class: message`.
        cellbase::Error::TableDisabled(t) => disabled_msg(t),
        cellbase::Error::InvalidArgument(m) => m.clone(),
        other => other.to_string(),
    }
}

/// The client's error for a data operation on a disabled table.
fn disabled_msg(table: &str) -> String {
    format!("org.apache.hadoop.hbase.TableNotEnabledException: {table} is disabled.")
}

impl Session {
    /// A session over `db` with no pending input.
    pub fn new(db: Db, clock: Option<ManualClock>, ts: TsFormat, width: usize) -> Self {
        Session {
            db,
            clock,
            ts,
            width,
            pending: Default::default(),
        }
    }

    fn now(&self) -> i64 {
        match &self.clock {
            Some(c) => cellbase::Clock::now_millis(c),
            None => cellbase::Clock::now_millis(&cellbase::SystemClock),
        }
    }

    /// Maps an engine error, listing the valid families for an unknown family as HBase does.
    fn fail<T>(&self, table: &str, e: cellbase::Error) -> R<T> {
        if let cellbase::Error::NoSuchFamily { .. } = e {
            let cols = self
                .db
                .describe(table)
                .map(|d| {
                    d.families()
                        .iter()
                        .map(|f| format!("{}:*", to_string_binary(&f.name)))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            return err(format!("Unknown column family! Valid column names: {cols}"));
        }
        err(engine_msg(&e))
    }

    fn table(&self, name: &str) -> R<Table> {
        let t = self.db.table(name).or_else(|e| self.fail(name, e))?;
        if !self.db.is_table_enabled(name).unwrap_or(true) {
            return err(disabled_msg(name));
        }
        Ok(t)
    }

    fn exists_table(&self, name: &str) -> R<()> {
        self.db
            .describe(name)
            .map(|_| ())
            .or_else(|e| self.fail(name, e))
    }

    /// Advances the fixed clock (if any) so that consecutive commands get distinct times.
    pub fn tick(&self) {
        if let Some(c) = &self.clock {
            c.advance(Duration::from_millis(1));
        }
    }

    /// Runs one command, writing its output; returns the `=>` echo to print after `Took`.
    pub fn run(&mut self, cmd: &str, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        match cmd {
            "create" => self.create(args, out),
            "alter" => self.alter(args, out),
            "describe" | "desc" => self.describe(args, out),
            "list" => self.list(args, out),
            "exists" => self.exists(args, out),
            "disable" => self.set_enabled(args, false),
            "enable" => self.set_enabled(args, true),
            "is_enabled" => self.is_enabled(args, out, true),
            "is_disabled" => self.is_enabled(args, out, false),
            "drop" => self.drop(args),
            "create_namespace" => self.create_namespace(args),
            "drop_namespace" => self.drop_namespace(args),
            "alter_namespace" => self.alter_namespace(args),
            "describe_namespace" => self.describe_namespace(args, out),
            "list_namespace" => self.list_namespace(args, out),
            "list_namespace_tables" => self.list_namespace_tables(args, out),
            "put" => self.put(args),
            "get" => self.get(args, out),
            "scan" => self.scan(args, out),
            "delete" => self.delete(args, false),
            "deleteall" => self.delete(args, true),
            "incr" => self.incr(args, out),
            "get_counter" => self.get_counter(args, out),
            "count" => self.count(args, out),
            "truncate" => self.truncate(args, out, false),
            "truncate_preserve" => self.truncate(args, out, true),
            "flush" | "compact" | "major_compact" => self.maintain(cmd, args),
            "split" => self.split(args),
            "merge_region" => self.merge_region(args),
            "list_regions" => self.list_regions(args, out),
            "status" => self.status(args, out),
            "get_splits" => self.get_splits(args, out),
            "compaction_state" => self.compaction_state(args),
            "truncate_region" => self.truncate_region(args),
            "splitormerge_switch" => self.splitormerge(args, true, out),
            "splitormerge_enabled" => self.splitormerge(args, false, out),
            "normalize" => self.normalize(args, out),
            "normalizer_switch" => self.normalizer_switch(args, true, out),
            "normalizer_enabled" => self.normalizer_switch(args, false, out),
            "clone_table_schema" => self.clone_table_schema(args),
            "disable_all" => self.all_tables(bulk::AllOp::Disable, args, out),
            "enable_all" => self.all_tables(bulk::AllOp::Enable, args, out),
            "drop_all" => self.all_tables(bulk::AllOp::Drop, args, out),
            "locate_region" => self.locate_region(args, out),
            "append" => self.append(args, out),
            "snapshot" => self.snapshot(args),
            "list_snapshots" => self.list_snapshots(args, false, out),
            "list_table_snapshots" => self.list_snapshots(args, true, out),
            "clone_snapshot" => self.clone_snapshot(args),
            "restore_snapshot" => self.restore_snapshot(args),
            "delete_snapshot" => self.delete_snapshot(args),
            "show_filters" => {
                arity(args, 0, 0)?;
                for name in SUPPORTED_FILTERS {
                    writeln!(out, "{name}")?;
                }
                Ok(None)
            }
            "version" => {
                arity(args, 0, 0)?;
                writeln!(
                    out,
                    "cellbase {}, HBase shell compatible (2.x formats)",
                    env!("CARGO_PKG_VERSION")
                )?;
                Ok(None)
            }
            _ => err(format!("unknown command {cmd}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SUPPORTED_FILTERS;

    /// `show_filters` lists exactly what the engine's parser builds: each listed name parses
    /// (with arguments of its shape), the list is HBase 2.6's `ParseFilter` set, and
    /// API-only or unknown names are refused.
    #[test]
    fn listed_filters_are_the_ones_the_parser_builds() {
        let example = |name: &str| -> String {
            let args = match name {
                "KeyOnlyFilter" | "FirstKeyOnlyFilter" => "",
                "PrefixFilter" | "ColumnPrefixFilter" | "InclusiveStopFilter" => "'a'",
                "MultipleColumnPrefixFilter" => "'a', 'b'",
                "PageFilter" | "ColumnCountGetFilter" => "10",
                "ColumnPaginationFilter" => "10, 2",
                "TimestampsFilter" => "1, 2",
                "RowFilter" | "FamilyFilter" | "QualifierFilter" | "ValueFilter" => "=, 'binary:a'",
                "ColumnRangeFilter" => "'a', true, 'b', false",
                "SingleColumnValueFilter"
                | "SingleColumnValueExcludeFilter"
                | "ColumnValueFilter" => "'f', 'q', =, 'binary:v'",
                "DependentColumnFilter" => "'f', 'q'",
                other => panic!("no example arguments for {other}"),
            };
            format!("{name}({args})")
        };
        for name in SUPPORTED_FILTERS {
            let text = example(name);
            assert!(cellbase::Filter::parse(&text).is_ok(), "{text}");
            // And inside the SKIP / WHILE wrappers.
            assert!(
                cellbase::Filter::parse(&format!("SKIP {text}")).is_ok(),
                "{text}"
            );
        }
        // ParseFilter's filterHashMap in HBase 2.6, independently of the engine's list.
        let mut hbase = vec![
            "KeyOnlyFilter",
            "FirstKeyOnlyFilter",
            "PrefixFilter",
            "ColumnPrefixFilter",
            "MultipleColumnPrefixFilter",
            "ColumnCountGetFilter",
            "PageFilter",
            "ColumnPaginationFilter",
            "InclusiveStopFilter",
            "TimestampsFilter",
            "RowFilter",
            "FamilyFilter",
            "QualifierFilter",
            "ValueFilter",
            "ColumnRangeFilter",
            "SingleColumnValueFilter",
            "SingleColumnValueExcludeFilter",
            "DependentColumnFilter",
            "ColumnValueFilter",
        ];
        let mut listed = SUPPORTED_FILTERS.to_vec();
        hbase.sort_unstable();
        listed.sort_unstable();
        assert_eq!(listed, hbase);
        for name in [
            "FuzzyRowFilter",
            "MultiRowRangeFilter",
            "RandomRowFilter",
            "SkipFilter",
            "WhileMatchFilter",
            "FilterList",
            "NoSuchFilter",
        ] {
            assert!(!SUPPORTED_FILTERS.contains(&name));
            let e = cellbase::Filter::parse(&format!("{name}()")).expect_err(name);
            assert!(e.to_string().contains("unknown"), "{name}: {e}");
        }
    }
}
