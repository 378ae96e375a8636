//! The shell's commands (hbase-shell.md §4.1) mapped onto the engine API.
//!
//! Every command validates all of its arguments before it touches the database, so a command
//! that fails on bad input writes nothing.

use super::format::{self, Converter, TsFormat};
use super::ruby::Value;
use cellbase::rowkey::{to_bytes_binary, to_string_binary};
use cellbase::{
    BloomType, Compression, Db, Delete, FamilyDescriptor, Filter, Get, Increment, KeepDeletedCells,
    ManualClock, Put, Scan, SplitAlgorithm, Table, TableDescriptor,
};
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

/// A scan's request, its column specs, MAXLENGTH and default value formatter.
type ScanOpts = (Scan, Vec<ColSpec>, Option<usize>, Converter);

/// (table, row, family, qualifier) of incr / get_counter.
type CounterArgs = (String, Vec<u8>, Vec<u8>, Vec<u8>);

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
}

/// Every command: name, group, usage text.
pub const COMMANDS: &[(&str, &str, &str)] = &[
    (
        "create",
        "ddl",
        "create 't1', 'f1', 'f2'\n  create 't1', {NAME => 'f1', VERSIONS => 5, TTL => 86400, MIN_VERSIONS => 0,\n    KEEP_DELETED_CELLS => FALSE|TRUE|TTL, BLOOMFILTER => NONE|ROW|ROWCOL,\n    COMPRESSION => NONE|SNAPPY, BLOCKSIZE => 65536, IN_MEMORY => false, BLOCKCACHE => true}\n  create 't1', 'f1', SPLITS => ['10', '20', '30']\n  create 't1', 'f1', SPLITS_FILE => 'splits.txt'\n  create 't1', 'f1', {NUMREGIONS => 15, SPLITALGO => 'HexStringSplit'}\n  Table options: MAX_FILESIZE, MEMSTORE_FLUSHSIZE.",
    ),
    (
        "alter",
        "ddl",
        "alter 't1', NAME => 'f1', VERSIONS => 5\n  alter 't1', 'f1', {NAME => 'f2', IN_MEMORY => true}\n  alter 't1', 'delete' => 'f1'\n  alter 't1', NAME => 'f1', METHOD => 'delete'\n  alter 't1', MAX_FILESIZE => '134217728', MEMSTORE_FLUSHSIZE => 4194304\n  alter 't1', METHOD => 'table_att_unset', NAME => 'MAX_FILESIZE'",
    ),
    ("describe", "ddl", "describe 't1'"),
    ("desc", "ddl", "desc 't1'"),
    ("list", "ddl", "list\n  list 'abc.*'"),
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
        "compact 't1'[, 'f1']\n  compact 'REGIONNAME'",
    ),
    (
        "major_compact",
        "tools",
        "major_compact 't1'[, 'f1']\n  major_compact 'REGIONNAME'",
    ),
    (
        "split",
        "tools",
        "split 't1'\n  split 't1', 'splitKey'\n  split 'REGIONNAME', 'splitKey'",
    ),
    (
        "merge_region",
        "tools",
        "merge_region 'REGIONNAME_A', 'REGIONNAME_B'[, true]\n  merge_region ['REGIONNAME_A', 'REGIONNAME_B']",
    ),
    (
        "list_regions",
        "tools",
        "list_regions 't1'\n  list_regions 't1', {SERVER_NAME => 'localhost,0,0', LOCALITY_THRESHOLD => 0.8}\n  list_regions 't1', {}, ['START_KEY', 'END_KEY', 'SIZE']",
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

/// The filter names of the filter language that the engine's `Filter::parse` builds, in the
/// order of its registry (src/filter/parse.rs): what `show_filters` prints, one per line as
/// HBase does. HBase also registers ColumnCountGetFilter, ColumnPaginationFilter,
/// InclusiveStopFilter, SingleColumnValueExcludeFilter, DependentColumnFilter and (2.x)
/// ColumnValueFilter, which `Filter` cannot represent: the parser refuses them, so they are
/// not listed.
pub const SUPPORTED_FILTERS: &[&str] = &[
    "KeyOnlyFilter",
    "FirstKeyOnlyFilter",
    "PrefixFilter",
    "ColumnPrefixFilter",
    "MultipleColumnPrefixFilter",
    "PageFilter",
    "TimestampsFilter",
    "RowFilter",
    "FamilyFilter",
    "QualifierFilter",
    "ValueFilter",
    "ColumnRangeFilter",
    "SingleColumnValueFilter",
];

/// The usage text of a command, if it exists.
pub fn usage(cmd: &str) -> Option<&'static str> {
    COMMANDS.iter().find(|c| c.0 == cmd).map(|c| c.2)
}

/// The server name list_regions shows: an embedded database has one "server".
pub const SERVER_NAME: &str = "localhost,0,0";

// ---- argument helpers ---------------------------------------------------------------------

fn bytes_of(v: &Value, what: &str) -> R<Vec<u8>> {
    match v {
        Value::Str(s) => Ok(s.clone()),
        Value::Int(i) => Ok(i.to_string().into_bytes()),
        Value::Float(f) => Ok(f.to_string().into_bytes()),
        other => err(format!(
            "{what} must be a String, got {} {}",
            other.type_name(),
            other.describe()
        )),
    }
}

fn str_of(v: &Value, what: &str) -> R<String> {
    match v {
        Value::Str(s) => String::from_utf8(s.clone())
            .map_err(|_| CmdError(format!("{what} must be valid UTF-8 text"))),
        other => err(format!(
            "{what} must be a String, got {} {}",
            other.type_name(),
            other.describe()
        )),
    }
}

fn int_of(v: &Value, what: &str) -> R<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Str(s) => std::str::from_utf8(s)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .ok_or_else(|| CmdError(format!("{what} must be an integer, got {}", v.describe()))),
        other => err(format!(
            "{what} must be an integer, got {}",
            other.describe()
        )),
    }
}

fn u32_of(v: &Value, what: &str) -> R<u32> {
    let i = int_of(v, what)?;
    u32::try_from(i).map_err(|_| CmdError(format!("{what} out of range: {i}")))
}

fn bool_of(v: &Value, what: &str) -> R<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Str(s) if s.eq_ignore_ascii_case(b"true") => Ok(true),
        Value::Str(s) if s.eq_ignore_ascii_case(b"false") => Ok(false),
        other => err(format!(
            "{what} must be true or false, got {}",
            other.describe()
        )),
    }
}

/// A hash argument with keys taken one by one; leftovers are rejected by [`Opts::finish`].
struct Opts(Vec<(String, Value)>);

impl Opts {
    fn from(v: &Value) -> R<Opts> {
        match v {
            Value::Hash(pairs) => {
                let mut out = Vec::new();
                for (k, val) in pairs {
                    out.push((str_of(k, "option name")?, val.clone()));
                }
                Ok(Opts(out))
            }
            other => err(format!(
                "expected a hash of options, got {}",
                other.describe()
            )),
        }
    }
    fn take(&mut self, key: &str) -> Option<Value> {
        let i = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(i).1)
    }
    fn has(&self, key: &str) -> bool {
        self.0.iter().any(|(k, _)| k == key)
    }
    /// Options HBase accepts that have no effect here (performance hints).
    fn ignore(&mut self, keys: &[&str]) {
        self.0.retain(|(k, _)| !keys.contains(&k.as_str()));
    }
    fn finish(self, cmd: &str) -> R<()> {
        const UNSUPPORTED: &[&str] = &[
            "ATTRIBUTES",
            "VISIBILITY",
            "AUTHORIZATIONS",
            "METADATA",
            "CONFIGURATION",
            "OWNER",
            "REGION_REPLICATION",
            "DFS_REPLICATION",
            "MOB_THRESHOLD",
            "IS_MOB",
        ];
        match self.0.first() {
            None => Ok(()),
            Some((k, _)) if UNSUPPORTED.contains(&k.as_str()) => {
                err(format!("{k} is not supported by cellbase's {cmd}"))
            }
            Some((k, _)) => err(format!("Unknown option {k} for {cmd}")),
        }
    }
}

fn arity(args: &[Value], min: usize, max: usize) -> R<()> {
    if args.len() < min || args.len() > max {
        let want = if min == max {
            min.to_string()
        } else if max == usize::MAX {
            format!("{min}+")
        } else {
            format!("{min}..{max}")
        };
        return err(format!(
            "wrong number of arguments (given {}, expected {want})",
            args.len()
        ));
    }
    Ok(())
}

/// `fam:qual` (or `fam` = empty qualifier) as bytes.
fn split_column(col: &[u8]) -> (Vec<u8>, Option<Vec<u8>>) {
    match col.iter().position(|&b| b == b':') {
        Some(i) => (col[..i].to_vec(), Some(col[i + 1..].to_vec())),
        None => (col.to_vec(), None),
    }
}

/// A get/scan column spec: `fam`, `fam:qual` or `fam:qual:converter`.
struct ColSpec {
    family: Vec<u8>,
    qualifier: Option<Vec<u8>>,
    conv: Option<Converter>,
}

fn col_spec(v: &Value) -> R<ColSpec> {
    let raw = bytes_of(v, "column")?;
    let (family, qualifier) = split_column(&raw);
    if let Some(q) = &qualifier
        && let Some(i) = q.iter().rposition(|&b| b == b':')
        && let Some(conv) = std::str::from_utf8(&q[i + 1..])
            .ok()
            .and_then(Converter::parse)
    {
        return Ok(ColSpec {
            family,
            qualifier: Some(q[..i].to_vec()),
            conv: Some(conv),
        });
    }
    Ok(ColSpec {
        family,
        qualifier,
        conv: None,
    })
}

fn col_specs(v: &Value) -> R<Vec<ColSpec>> {
    match v {
        Value::Array(items) => items.iter().map(col_spec).collect(),
        other => Ok(vec![col_spec(other)?]),
    }
}

fn time_range(v: &Value) -> R<(i64, i64)> {
    match v {
        Value::Array(a) if a.len() == 2 => Ok((
            int_of(&a[0], "TIMERANGE start")?,
            int_of(&a[1], "TIMERANGE end")?,
        )),
        other => err(format!(
            "TIMERANGE must be [min, max), got {}",
            other.describe()
        )),
    }
}

/// `FORMATTER => 'toString'` (and `FORMATTER_CLASS`, which must be HBase's `Bytes`): the
/// converter for every column without its own `:converter` suffix.
fn formatter(o: &mut Opts) -> R<Converter> {
    if let Some(v) = o.take("FORMATTER_CLASS") {
        let class = str_of(&v, "FORMATTER_CLASS")?;
        if class != "org.apache.hadoop.hbase.util.Bytes" {
            return err(format!(
                "FORMATTER_CLASS {class} is not supported (only org.apache.hadoop.hbase.util.Bytes)"
            ));
        }
    }
    match o.take("FORMATTER") {
        None => Ok(Converter::StringBinary),
        Some(v) => {
            let name = str_of(&v, "FORMATTER")?;
            Converter::parse(&name).ok_or_else(|| CmdError(format!("Unknown FORMATTER {name}")))
        }
    }
}

fn parse_filter(v: &Value) -> R<Filter> {
    let s = str_of(v, "FILTER")?;
    Filter::parse(&s).map_err(|e| CmdError(engine_msg(&e)))
}

/// TTL as seconds: an integer, `'FOREVER'`, `'86400 SECONDS (1 DAY)'` or `'1 DAY 2 HOURS'`.
fn ttl_of(v: &Value) -> R<Option<Duration>> {
    let secs: i64 = match v {
        Value::Int(i) => *i,
        _ => {
            let s = str_of(v, "TTL")?;
            let s = s.trim();
            if s.eq_ignore_ascii_case("FOREVER") {
                return Ok(None);
            }
            let head = s.split('(').next().unwrap_or(s).trim();
            if let Ok(n) = head.parse::<i64>() {
                n
            } else {
                let words: Vec<&str> = head.split_whitespace().collect();
                if words.is_empty() || !words.len().is_multiple_of(2) {
                    return err(format!("Invalid TTL value: {s}"));
                }
                let mut total: i64 = 0;
                for pair in words.chunks(2) {
                    let n: i64 = pair[0]
                        .parse()
                        .map_err(|_| CmdError(format!("Invalid TTL value: {s}")))?;
                    let unit = pair[1].to_ascii_uppercase();
                    let mult = match unit.trim_end_matches('S') {
                        "DAY" => 86400,
                        "HOUR" => 3600,
                        "MINUTE" => 60,
                        "SECOND" => 1,
                        _ => return err(format!("Invalid TTL value: {s}")),
                    };
                    total = total.saturating_add(n.saturating_mul(mult));
                }
                total
            }
        }
    };
    if secs >= i64::from(i32::MAX) {
        return Ok(None);
    }
    if secs <= 0 {
        return err(format!(
            "TTL must be a positive number of seconds, got {secs}"
        ));
    }
    Ok(Some(Duration::from_secs(secs as u64)))
}

/// Applies a family dictionary's settings (NAME already taken) onto `f`.
fn family_attrs(mut f: FamilyDescriptor, o: &mut Opts) -> R<FamilyDescriptor> {
    if let Some(v) = o.take("VERSIONS") {
        f = f.max_versions(u32_of(&v, "VERSIONS")?);
    }
    if let Some(v) = o.take("MIN_VERSIONS") {
        f = f.min_versions(u32_of(&v, "MIN_VERSIONS")?);
    }
    if let Some(v) = o.take("TTL") {
        match ttl_of(&v)? {
            Some(d) => f = f.ttl(d),
            None => f.ttl = None,
        }
    }
    if let Some(v) = o.take("KEEP_DELETED_CELLS") {
        let k = match &v {
            Value::Bool(true) => KeepDeletedCells::True,
            Value::Bool(false) => KeepDeletedCells::False,
            _ => match str_of(&v, "KEEP_DELETED_CELLS")?
                .to_ascii_uppercase()
                .as_str()
            {
                "TRUE" => KeepDeletedCells::True,
                "FALSE" => KeepDeletedCells::False,
                "TTL" => KeepDeletedCells::Ttl,
                other => {
                    return err(format!(
                        "KEEP_DELETED_CELLS must be FALSE, TRUE or TTL, got {other}"
                    ));
                }
            },
        };
        f = f.keep_deleted_cells(k);
    }
    if let Some(v) = o.take("BLOOMFILTER") {
        let b = match str_of(&v, "BLOOMFILTER")?.to_ascii_uppercase().as_str() {
            "NONE" => BloomType::None,
            "ROW" => BloomType::Row,
            "ROWCOL" => BloomType::RowCol,
            other => {
                return err(format!(
                    "BLOOMFILTER must be NONE, ROW or ROWCOL, got {other}"
                ));
            }
        };
        f = f.bloom_filter(b);
    }
    if let Some(v) = o.take("COMPRESSION") {
        let c = match str_of(&v, "COMPRESSION")?.to_ascii_uppercase().as_str() {
            "NONE" => Compression::None,
            "SNAPPY" => Compression::Snappy,
            other => {
                return err(format!(
                    "COMPRESSION {other} is not supported by cellbase (NONE or SNAPPY)"
                ));
            }
        };
        f = f.compression(c);
    }
    if let Some(v) = o.take("BLOCKSIZE") {
        f = f.block_size(u32_of(&v, "BLOCKSIZE")?);
    }
    if let Some(v) = o.take("IN_MEMORY") {
        f = f.in_memory(bool_of(&v, "IN_MEMORY")?);
    }
    if let Some(v) = o.take("BLOCKCACHE") {
        f = f.block_cache(bool_of(&v, "BLOCKCACHE")?);
    }
    if let Some(v) = o.take("DATA_BLOCK_ENCODING") {
        let e = str_of(&v, "DATA_BLOCK_ENCODING")?;
        if !e.eq_ignore_ascii_case("NONE") {
            return err(format!(
                "DATA_BLOCK_ENCODING {e} is not supported by cellbase (NONE only)"
            ));
        }
    }
    if let Some(v) = o.take("REPLICATION_SCOPE")
        && int_of(&v, "REPLICATION_SCOPE")? != 0
    {
        return err("REPLICATION_SCOPE other than 0 is not supported by cellbase");
    }
    f.validate().map_err(|e| CmdError(engine_msg(&e)))?;
    Ok(f)
}

/// Message text for an engine error, with the HBase shell's translations.
pub fn engine_msg(e: &cellbase::Error) -> String {
    match e {
        cellbase::Error::TableNotFound(t) => format!("Unknown table {t}!"),
        cellbase::Error::TableExists(t) => format!("Table already exists: {t}!"),
        // The client's region lookup (ConnectionImplementation.locateRegion), as JRuby
        // prints a Java exception: `class: message`.
        cellbase::Error::TableDisabled(t) => disabled_msg(t),
        cellbase::Error::InvalidArgument(m) => m.clone(),
        other => other.to_string(),
    }
}

impl Session {
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

    fn create(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 1, usize::MAX)?;
        let name = str_of(&args[0], "table name")?;
        let mut desc = TableDescriptor::new(&name);
        let mut nfam = 0;
        let mut split_keys: Option<Vec<Vec<u8>>> = None;
        let mut presplit: Option<(SplitAlgorithm, u32)> = None;
        for a in &args[1..] {
            match a {
                Value::Str(f) => {
                    let f = FamilyDescriptor::new(f);
                    f.validate().map_err(|e| CmdError(engine_msg(&e)))?;
                    desc = desc.family(f);
                    nfam += 1;
                }
                Value::Hash(_) => {
                    let mut o = Opts::from(a)?;
                    if let Some(n) = o.take("NAME") {
                        let fam =
                            family_attrs(FamilyDescriptor::new(bytes_of(&n, "NAME")?), &mut o)?;
                        desc = desc.family(fam);
                        nfam += 1;
                    }
                    if let Some(v) = o.take("SPLITS") {
                        let Value::Array(items) = v else {
                            return err("SPLITS must be an array of split keys");
                        };
                        let keys = items
                            .iter()
                            .map(|k| {
                                bytes_of(k, "split key")
                                    .map(|b| to_bytes_binary(&String::from_utf8_lossy(&b)))
                            })
                            .collect::<R<Vec<_>>>()?;
                        split_keys = Some(keys);
                    }
                    if let Some(v) = o.take("SPLITS_FILE") {
                        let path = str_of(&v, "SPLITS_FILE")?;
                        let text = std::fs::read_to_string(&path).map_err(|e| {
                            CmdError(format!("Unable to read splits file {path}: {e}"))
                        })?;
                        // As HBase: `File.foreach { |line| line.chomp }`, no other trimming.
                        split_keys = Some(text.lines().map(to_bytes_binary).collect());
                    }
                    if o.has("NUMREGIONS") || o.has("SPLITALGO") {
                        let Some(n) = o.take("NUMREGIONS") else {
                            return err("Number of regions must be specified");
                        };
                        let Some(alg) = o.take("SPLITALGO") else {
                            return err("Split algorithm must be specified");
                        };
                        let n = int_of(&n, "NUMREGIONS")?;
                        if n <= 1 {
                            return err("Number of regions must be greater than 1");
                        }
                        let n = u32::try_from(n)
                            .map_err(|_| CmdError(format!("NUMREGIONS out of range: {n}")))?;
                        let alg = SplitAlgorithm::from_name(&str_of(&alg, "SPLITALGO")?)
                            .map_err(|e| CmdError(engine_msg(&e)))?;
                        // Compute now so a bad count fails before anything is created.
                        cellbase::rowkey::split_keys_checked(alg, n)
                            .map_err(|e| CmdError(engine_msg(&e)))?;
                        presplit = Some((alg, n));
                    }
                    if let Some(v) = o.take("MAX_FILESIZE") {
                        desc = desc.max_region_size(table_size(&v, "MAX_FILESIZE")?);
                    }
                    if let Some(v) = o.take("MEMSTORE_FLUSHSIZE") {
                        desc = desc.memstore_flush_size(table_size(&v, "MEMSTORE_FLUSHSIZE")?);
                    }
                    o.finish("create")?;
                }
                other => {
                    return err(format!(
                        "Column family must be a String or a Hash, got {}",
                        other.describe()
                    ));
                }
            }
        }
        if nfam == 0 {
            return err("Table must have at least one column family");
        }
        if split_keys.is_some() && presplit.is_some() {
            return err("Use either SPLITS/SPLITS_FILE or NUMREGIONS/SPLITALGO, not both");
        }
        if let Some(k) = split_keys {
            desc = desc.split_keys(k);
        }
        if let Some((alg, n)) = presplit {
            desc = desc.pre_split(alg, n);
        }
        self.db
            .create_table(desc)
            .or_else(|e| self.fail(&name, e))?;
        writeln!(out, "Created table {name}")?;
        Ok(Some(format!("Hbase::Table - {name}")))
    }

    /// HBase `admin.rb` `alter`: each argument is a family spec (a name, or a hash with NAME
    /// and no METHOD), a family deletion (`'delete' => 'f'`, `METHOD => 'delete'`), an unset of
    /// table attributes (`METHOD => 'table_att_unset'`), or table attributes (a hash without
    /// NAME, optionally `METHOD => 'table_att'`). Every argument is checked, against the schema
    /// as the earlier arguments leave it, before anything changes.
    fn alter(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 2, usize::MAX)?;
        let name = str_of(&args[0], "table name")?;
        let current = self.db.describe(&name).or_else(|e| self.fail(&name, e))?;
        // The schema as the arguments so far leave it.
        let mut fams: Vec<FamilyDescriptor> = current.families().to_vec();
        let mut max_size = current.table_max_region_size();
        let mut flush_size = current.table_memstore_flush_size();
        let mut changes = Vec::new();
        for a in &args[1..] {
            match a {
                Value::Str(f) => {
                    let f = FamilyDescriptor::new(f);
                    f.validate().map_err(|e| CmdError(engine_msg(&e)))?;
                    upsert(&mut fams, &f);
                    changes.push(Alter::Family(f));
                }
                Value::Hash(_) => {
                    let mut o = Opts::from(a)?;
                    // `'delete' => 'f'` is `{METHOD => 'delete', NAME => 'f'}` (the rest of
                    // that hash is dropped, as HBase rebuilds it).
                    if let Some(d) = o.take("delete") {
                        o = Opts(vec![
                            ("METHOD".into(), Value::Str(b"delete".to_vec())),
                            ("NAME".into(), d),
                        ]);
                    }
                    let method = match o.take("METHOD") {
                        Some(m) => Some(str_of(&m, "METHOD")?),
                        None => None,
                    };
                    match method.as_deref() {
                        None if o.has("NAME") => {
                            let n = o.take("NAME").unwrap_or(Value::Nil);
                            let fname = bytes_of(&n, "NAME")?;
                            let base = fams
                                .iter()
                                .find(|f| f.name == fname)
                                .cloned()
                                .unwrap_or_else(|| FamilyDescriptor::new(&fname));
                            let f = family_attrs(base, &mut o)?;
                            o.finish("alter")?;
                            upsert(&mut fams, &f);
                            changes.push(Alter::Family(f));
                        }
                        Some("delete") => {
                            let Some(n) = o.take("NAME") else {
                                return err("NAME parameter missing for delete method");
                            };
                            let fname = bytes_of(&n, "NAME")?;
                            o.finish("alter")?;
                            // HBase's removeColumnFamily ignores a family the table lacks.
                            if fams.iter().any(|f| f.name == fname) {
                                fams.retain(|f| f.name != fname);
                                if fams.is_empty() {
                                    // ModifyTableProcedure's check.
                                    return err(format!(
                                        "org.apache.hadoop.hbase.DoNotRetryIOException: Table {name} should have at least one column family."
                                    ));
                                }
                                changes.push(Alter::DeleteFamily(fname));
                            }
                        }
                        Some("table_att_unset") => {
                            let Some(n) = o.take("NAME") else {
                                return err("NAME parameter missing for table_att_unset method");
                            };
                            let keys = match &n {
                                Value::Array(a) => a.clone(),
                                v => vec![v.clone()],
                            };
                            o.finish("alter")?;
                            for k in keys {
                                let k = str_of(&k, "NAME")?;
                                let slot = match k.as_str() {
                                    "MAX_FILESIZE" => &mut max_size,
                                    "MEMSTORE_FLUSHSIZE" => &mut flush_size,
                                    _ => &mut None,
                                };
                                if slot.take().is_none() {
                                    return err(format!("Could not find attribute: {k}"));
                                }
                            }
                            changes.push(Alter::Sizes);
                        }
                        None | Some("table_att") => {
                            if let Some(v) = o.take("MAX_FILESIZE") {
                                max_size = Some(table_size(&v, "MAX_FILESIZE")?);
                            }
                            if let Some(v) = o.take("MEMSTORE_FLUSHSIZE") {
                                flush_size = Some(table_size(&v, "MEMSTORE_FLUSHSIZE")?);
                            }
                            if let Some((k, _)) = o.0.first() {
                                return err(format!(
                                    "Altering table attribute {k} is not supported by cellbase (MAX_FILESIZE and MEMSTORE_FLUSHSIZE are)"
                                ));
                            }
                            changes.push(Alter::Sizes);
                        }
                        Some(m) => return err(format!("Unknown method: {m}")),
                    }
                }
                other => {
                    return err(format!(
                        "alter takes family names or hashes, got {}",
                        other.describe()
                    ));
                }
            }
        }
        writeln!(out, "Updating all regions with the new schema...")?;
        let mut sizes_done = false;
        for c in changes {
            let r = match c {
                Alter::Family(f) => self.db.alter_family(&name, f),
                Alter::DeleteFamily(f) => self.db.delete_family(&name, &f),
                Alter::Sizes if sizes_done => Ok(()),
                Alter::Sizes => {
                    sizes_done = true;
                    self.db
                        .set_table_max_region_size(&name, max_size)
                        .and_then(|()| self.db.set_table_memstore_flush_size(&name, flush_size))
                }
            };
            r.or_else(|e| self.fail(&name, e))?;
        }
        let n = self.db.table(&name).map(|t| t.regions().len()).unwrap_or(1);
        writeln!(out, "{n}/{n} regions updated.")?;
        writeln!(out, "Done.")?;
        Ok(None)
    }

    fn describe(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "table name")?;
        let desc = self.db.describe(&name).or_else(|e| self.fail(&name, e))?;
        let enabled = self.db.is_table_enabled(&name).unwrap_or(true);
        let state = if enabled { "ENABLED" } else { "DISABLED" };
        format::one_col(out, &format!("Table {name} is {state}"), self.width)?;
        let mut attrs = Vec::new();
        if let Some(n) = desc.table_max_region_size() {
            attrs.push(format!("MAX_FILESIZE => '{n}'"));
        }
        if let Some(n) = desc.table_memstore_flush_size() {
            attrs.push(format!("MEMSTORE_FLUSHSIZE => '{n}'"));
        }
        let line2 = if attrs.is_empty() {
            name.clone()
        } else {
            format!("{name}, {{TABLE_ATTRIBUTES => {{{}}}}}", attrs.join(", "))
        };
        format::one_col(out, &line2, self.width)?;
        format::one_col(out, "COLUMN FAMILIES DESCRIPTION", self.width)?;
        for f in desc.families() {
            format::one_col(out, &format::family_line(f), self.width)?;
            writeln!(out)?;
        }
        writeln!(out, "{} row(s)", desc.families().len())?;
        writeln!(out, "Quota is disabled")?;
        Ok(None)
    }

    fn list(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 0, 1)?;
        let re = match args.first() {
            Some(v) => {
                let pat = str_of(v, "regex")?;
                Some(regex::Regex::new(&format!("^(?:{pat})$")).map_err(|e| {
                    let detail = e.to_string();
                    let last = detail
                        .lines()
                        .last()
                        .unwrap_or("")
                        .trim_start_matches("error: ");
                    CmdError(format!("Invalid regex {pat}: {last}"))
                })?)
            }
            None => None,
        };
        let names: Vec<String> = self
            .db
            .table_names()
            .into_iter()
            .filter(|n| re.as_ref().is_none_or(|r| r.is_match(n)))
            .collect();
        format::one_col(out, "TABLE", self.width)?;
        for n in &names {
            format::one_col(out, n, self.width)?;
        }
        writeln!(out, "{} row(s)", names.len())?;
        Ok(Some(format!(
            "[{}]",
            names
                .iter()
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )))
    }

    fn exists(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "table name")?;
        let yes = self.db.describe(&name).is_ok();
        let answer = if yes { "does exist" } else { "does not exist" };
        format::one_col(out, &format!("Table {name} {answer}"), self.width)?;
        Ok(Some(yes.to_string()))
    }

    fn set_enabled(&mut self, args: &[Value], enable: bool) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "table name")?;
        let now = self
            .db
            .is_table_enabled(&name)
            .or_else(|e| self.fail(&name, e))?;
        if now != enable {
            let r = if enable {
                self.db.enable_table(&name)
            } else {
                self.db.disable_table(&name)
            };
            r.or_else(|e| self.fail(&name, e))?;
        }
        Ok(None)
    }

    fn is_enabled(&mut self, args: &[Value], out: &mut dyn Write, want: bool) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "table name")?;
        let enabled = self
            .db
            .is_table_enabled(&name)
            .or_else(|e| self.fail(&name, e))?;
        let answer = enabled == want;
        format::one_col(out, &answer.to_string(), self.width)?;
        Ok(Some(answer.to_string()))
    }

    fn drop(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "table name")?;
        if self
            .db
            .is_table_enabled(&name)
            .or_else(|e| self.fail(&name, e))?
        {
            return err(format!("Table {name} is enabled. Disable it first."));
        }
        self.db.drop_table(&name).or_else(|e| self.fail(&name, e))?;
        Ok(None)
    }

    fn put(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 4, 6)?;
        let name = str_of(&args[0], "table name")?;
        let row = bytes_of(&args[1], "row")?;
        let (fam, qual) = split_column(&bytes_of(&args[2], "column")?);
        let value = bytes_of(&args[3], "value")?;
        let mut ts = None;
        let mut ttl = None;
        for a in &args[4..] {
            match a {
                Value::Hash(_) => {
                    let mut o = Opts::from(a)?;
                    if let Some(v) = o.take("TTL") {
                        let ms = int_of(&v, "TTL")?;
                        if ms <= 0 {
                            return err(format!("TTL must be positive (milliseconds), got {ms}"));
                        }
                        ttl = Some(Duration::from_millis(ms as u64));
                    }
                    o.finish("put")?;
                }
                v if ts.is_none() => ts = Some(int_of(v, "timestamp")?),
                other => return err(format!("unexpected argument {}", other.describe())),
            }
        }
        let qual = qual.unwrap_or_default();
        let mut p = match ts {
            Some(ts) => Put::new(&row).add_at(&fam, &qual, ts, &value),
            None => Put::new(&row).add(&fam, &qual, &value),
        };
        if let Some(d) = ttl {
            p = p.ttl(d);
        }
        let t = self.table(&name)?;
        t.put(p).or_else(|e| self.fail(&name, e))?;
        Ok(None)
    }

    fn get(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 2, usize::MAX)?;
        let name = str_of(&args[0], "table name")?;
        let row = bytes_of(&args[1], "row")?;
        let mut g = Get::new(&row);
        let mut cols: Vec<ColSpec> = Vec::new();
        let mut maxlength = None;
        let mut default_conv = Converter::StringBinary;
        for a in &args[2..] {
            match a {
                Value::Hash(_) => {
                    let mut o = Opts::from(a)?;
                    for key in ["COLUMN", "COLUMNS"] {
                        if let Some(v) = o.take(key) {
                            cols.extend(col_specs(&v)?);
                        }
                    }
                    if let Some(v) = o.take("TIMESTAMP") {
                        g = g.timestamp(int_of(&v, "TIMESTAMP")?);
                    }
                    if let Some(v) = o.take("TIMERANGE") {
                        let (a, b) = time_range(&v)?;
                        g = g.time_range(a, b);
                    }
                    if let Some(v) = o.take("VERSIONS") {
                        g = g.max_versions(u32_of(&v, "VERSIONS")?);
                    }
                    if let Some(v) = o.take("FILTER") {
                        g = g.filter(parse_filter(&v)?);
                    }
                    if let Some(v) = o.take("MAXLENGTH") {
                        maxlength = maxlength_of(&v)?;
                    }
                    default_conv = formatter(&mut o)?;
                    o.ignore(&["CONSISTENCY", "CACHE_BLOCKS"]);
                    o.finish("get")?;
                }
                other => cols.extend(col_specs(other)?),
            }
        }
        for c in &cols {
            g = match &c.qualifier {
                Some(q) => g.column(&c.family, q),
                None => g.family(&c.family),
            };
        }
        let t = self.table(&name)?;
        let r = t.get(g).or_else(|e| self.fail(&name, e))?;
        format::two_col(out, "COLUMN", "CELL", false, self.width)?;
        for cell in r.cells() {
            let conv = converter_for(&cols, &default_conv, cell.family(), cell.qualifier());
            let text = format::cell_text(cell, self.ts, &conv, maxlength);
            let column = format::column_name_with(cell, &default_conv);
            format::two_col(out, &column, &text, true, self.width)?;
        }
        writeln!(out, "{} row(s)", if r.is_empty() { 0 } else { 1 })?;
        Ok(None)
    }

    fn scan_opts(&self, v: Option<&Value>, cmd: &str) -> R<ScanOpts> {
        let mut s = Scan::new();
        let mut cols = Vec::new();
        let mut maxlength = None;
        let Some(v) = v else {
            return Ok((s, cols, maxlength, Converter::StringBinary));
        };
        let mut o = Opts::from(v)?;
        if let Some(v) = o.take("STARTROW") {
            s = s.start_row(bytes_of(&v, "STARTROW")?);
        }
        if let Some(v) = o.take("STOPROW") {
            s = s.stop_row(bytes_of(&v, "STOPROW")?);
        }
        if let Some(v) = o.take("ROWPREFIXFILTER") {
            s = s.prefix(bytes_of(&v, "ROWPREFIXFILTER")?);
        }
        if let Some(v) = o.take("LIMIT") {
            let n = int_of(&v, "LIMIT")?;
            if n > 0 {
                s = s.limit(n as u64);
            }
        }
        for key in ["COLUMNS", "COLUMN"] {
            if let Some(v) = o.take(key) {
                cols.extend(col_specs(&v)?);
            }
        }
        for c in &cols {
            s = match &c.qualifier {
                Some(q) => s.column(&c.family, q),
                None => s.family(&c.family),
            };
        }
        if let Some(v) = o.take("TIMESTAMP") {
            s = s.timestamp(int_of(&v, "TIMESTAMP")?);
        }
        if let Some(v) = o.take("TIMERANGE") {
            let (a, b) = time_range(&v)?;
            s = s.time_range(a, b);
        }
        if let Some(v) = o.take("VERSIONS") {
            s = s.max_versions(u32_of(&v, "VERSIONS")?);
        }
        if let Some(v) = o.take("RAW") {
            s = s.raw(bool_of(&v, "RAW")?);
        }
        if let Some(v) = o.take("REVERSED") {
            s = s.reversed(bool_of(&v, "REVERSED")?);
        }
        if let Some(v) = o.take("FILTER") {
            s = s.filter(parse_filter(&v)?);
        }
        if let Some(v) = o.take("MAXLENGTH") {
            maxlength = maxlength_of(&v)?;
        }
        let default_conv = formatter(&mut o)?;
        o.ignore(&[
            "CACHE",
            "CACHE_BLOCKS",
            "CONSISTENCY",
            "ALL_METRICS",
            "METRICS",
            "MAX_RESULT_SIZE",
            "ALLOW_PARTIAL_RESULTS",
            "ISOLATION_LEVEL",
            "READ_TYPE",
        ]);
        o.finish(cmd)?;
        Ok((s, cols, maxlength, default_conv))
    }

    fn scan(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 1, 2)?;
        let name = str_of(&args[0], "table name")?;
        let (s, cols, maxlength, default_conv) = self.scan_opts(args.get(1), "scan")?;
        let t = self.table(&name)?;
        let rows = t.scan(s).or_else(|e| self.fail(&name, e))?;
        format::two_col(out, "ROW", "COLUMN+CELL", false, self.width)?;
        let mut n = 0u64;
        for r in rows {
            let r = r.or_else(|e| self.fail(&name, e))?;
            n += 1;
            let key = default_conv.apply(r.row());
            for cell in r.cells() {
                let conv = converter_for(&cols, &default_conv, cell.family(), cell.qualifier());
                let text = format!(
                    "column={}, {}",
                    format::column_name_with(cell, &default_conv),
                    format::cell_text(cell, self.ts, &conv, maxlength)
                );
                format::two_col(out, &key, &text, true, self.width)?;
            }
        }
        writeln!(out, "{n} row(s)")?;
        Ok(None)
    }

    fn delete(&mut self, args: &[Value], all: bool) -> R<Echo> {
        let cmd = if all { "deleteall" } else { "delete" };
        arity(args, if all { 2 } else { 3 }, 5)?;
        let name = str_of(&args[0], "table name")?;
        // deleteall 't1', {ROWPREFIXFILTER => 'p'}[, col[, ts]]
        let (row, prefix) = match &args[1] {
            Value::Hash(_) if all => {
                let mut o = Opts::from(&args[1])?;
                let p = o.take("ROWPREFIXFILTER").ok_or_else(|| {
                    CmdError("deleteall with a hash needs ROWPREFIXFILTER".into())
                })?;
                o.ignore(&["CACHE"]);
                o.finish(cmd)?;
                (None, Some(bytes_of(&p, "ROWPREFIXFILTER")?))
            }
            v => (Some(bytes_of(v, "row")?), None),
        };
        let mut column = None;
        let mut ts = None;
        for a in &args[2..] {
            match a {
                Value::Hash(h) if h.is_empty() => {}
                Value::Int(_) if ts.is_none() => ts = Some(int_of(a, "timestamp")?),
                Value::Str(_) if column.is_none() && ts.is_none() => {
                    column = Some(bytes_of(a, "column")?)
                }
                other => return err(format!("unexpected argument {}", other.describe())),
            }
        }
        if !all && column.is_none() {
            return err("delete needs a column");
        }
        let now = self.now();
        let build = |row: &[u8]| -> R<Delete> {
            let d = Delete::new(row);
            let col = column.as_deref().filter(|c| !c.is_empty());
            Ok(match (col.map(split_column), all) {
                (None, _) => match ts {
                    Some(ts) => d.up_to(ts),
                    None => d,
                },
                (Some((f, Some(q))), true) => match ts {
                    Some(ts) => d.versions_up_to(&f, &q, ts),
                    None => d.all_versions(&f, &q),
                },
                (Some((f, None)), true) => match ts {
                    Some(ts) => d.family_up_to(&f, ts),
                    None => d.family(&f),
                },
                (Some((f, Some(q))), false) => match ts {
                    Some(ts) => d.version(&f, &q, ts),
                    None => d.latest_version(&f, &q),
                },
                (Some((f, None)), false) => d.family_version(&f, ts.unwrap_or(now)),
            })
        };
        let t = self.table(&name)?;
        match (row, prefix) {
            (Some(row), _) => {
                let d = build(&row)?;
                t.delete(d).or_else(|e| self.fail(&name, e))?;
            }
            (None, Some(p)) => {
                let scan = Scan::new().prefix(&p).filter(Filter::FirstKeyOnly);
                let mut dels = Vec::new();
                for r in t.scan(scan).or_else(|e| self.fail(&name, e))? {
                    let r = r.or_else(|e| self.fail(&name, e))?;
                    dels.push(build(r.row())?);
                }
                for d in dels {
                    t.delete(d).or_else(|e| self.fail(&name, e))?;
                }
            }
            (None, None) => unreachable!("a row or a prefix is always set"),
        }
        Ok(None)
    }

    fn counter_args(&self, args: &[Value]) -> R<CounterArgs> {
        let name = str_of(&args[0], "table name")?;
        let row = bytes_of(&args[1], "row")?;
        let (f, q) = split_column(&bytes_of(&args[2], "column")?);
        Ok((name, row, f, q.unwrap_or_default()))
    }

    fn incr(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 3, 5)?;
        let (name, row, f, q) = self.counter_args(args)?;
        let mut by = 1;
        for a in &args[3..] {
            match a {
                Value::Hash(_) => Opts::from(a)?.finish("incr")?,
                v => by = int_of(v, "increment")?,
            }
        }
        let t = self.table(&name)?;
        let r = match t.increment(Increment::new(&row).add(&f, &q, by)) {
            Ok(r) => r,
            Err(cellbase::Error::NotACounter { .. }) => {
                // The region server's message (HRegion: "Field is not a long, ...").
                let width = t
                    .get(Get::new(&row).column(&f, &q))
                    .ok()
                    .and_then(|r| r.value(&f, &q).map(<[u8]>::len))
                    .unwrap_or(0);
                return err(format!(
                    "org.apache.hadoop.hbase.DoNotRetryIOException: Field is not a long, it's {width} bytes wide"
                ));
            }
            Err(e) => return self.fail(&name, e),
        };
        let v = r
            .value(&f, &q)
            .and_then(|v| <[u8; 8]>::try_from(v).ok())
            .map(i64::from_be_bytes)
            .ok_or_else(|| CmdError("increment returned no value".into()))?;
        writeln!(out, "COUNTER VALUE = {v}")?;
        Ok(None)
    }

    fn get_counter(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 3, 3)?;
        let (name, row, f, q) = self.counter_args(args)?;
        let t = self.table(&name)?;
        let r = t
            .get(Get::new(&row).column(&f, &q))
            .or_else(|e| self.fail(&name, e))?;
        match r.value(&f, &q) {
            None => writeln!(out, "No counter found at specified coordinates")?,
            Some(v) => match <[u8; 8]>::try_from(v) {
                Ok(b) => writeln!(out, "COUNTER VALUE = {}", i64::from_be_bytes(b))?,
                Err(_) => {
                    // Client-side Bytes.toLong(array, offset, length) in table.rb.
                    return err(format!(
                        "java.lang.IllegalArgumentException: Wrong length: {}, expected 8",
                        v.len()
                    ));
                }
            },
        }
        Ok(None)
    }

    fn count(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 1, 2)?;
        let name = str_of(&args[0], "table name")?;
        let mut interval: u64 = 1000;
        let mut filter = Filter::FirstKeyOnly;
        // count.rb: an Integer second argument is the old syntax for INTERVAL; the hash is
        // otherwise a scan's (table.rb `_hash_to_scan`), counted with FirstKeyOnlyFilter.
        let mut scan = Scan::new();
        match args.get(1) {
            None => {}
            Some(Value::Int(i)) => interval = positive_interval(*i)?,
            Some(v) => {
                let mut o = Opts::from(v)?;
                if let Some(v) = o.take("INTERVAL") {
                    interval = positive_interval(int_of(&v, "INTERVAL")?)?;
                }
                if let Some(v) = o.take("FILTER") {
                    filter = Filter::All(vec![parse_filter(&v)?, Filter::FirstKeyOnly]);
                }
                let rest = Value::Hash(
                    o.0.into_iter()
                        .map(|(k, v)| (Value::Str(k.into_bytes()), v))
                        .collect(),
                );
                scan = self.scan_opts(Some(&rest), "count")?.0;
            }
        }
        let t = self.table(&name)?;
        let mut n = 0u64;
        for r in t
            .scan(scan.filter(filter))
            .or_else(|e| self.fail(&name, e))?
        {
            let r = r.or_else(|e| self.fail(&name, e))?;
            n += 1;
            if n.is_multiple_of(interval) {
                let line = format!("Current count: {n}, row: {}", to_string_binary(r.row()));
                format::one_col(out, &line, self.width)?;
            }
        }
        writeln!(out, "{n} row(s)")?;
        Ok(Some(n.to_string()))
    }

    fn truncate(&mut self, args: &[Value], out: &mut dyn Write, preserve: bool) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "table name")?;
        let old = self.db.describe(&name).or_else(|e| self.fail(&name, e))?;
        let handle = self.db.table(&name).or_else(|e| self.fail(&name, e))?;
        let splits: Vec<Vec<u8>> = handle
            .regions()
            .into_iter()
            .map(|r| r.start_key)
            .filter(|k| !k.is_empty())
            .collect();
        let mut desc = TableDescriptor::new(&name);
        for f in old.families() {
            desc = desc.family(f.clone());
        }
        if let Some(n) = old.table_max_region_size() {
            desc = desc.max_region_size(n);
        }
        if let Some(n) = old.table_memstore_flush_size() {
            desc = desc.memstore_flush_size(n);
        }
        if preserve && !splits.is_empty() {
            desc = desc.split_keys(splits);
        }
        writeln!(out, "Truncating '{name}' table (it may take a while):")?;
        if self.db.is_table_enabled(&name).unwrap_or(false) {
            writeln!(out, "Disabling table...")?;
            self.db
                .disable_table(&name)
                .or_else(|e| self.fail(&name, e))?;
        }
        writeln!(out, "Truncating table...")?;
        self.db.drop_table(&name).or_else(|e| self.fail(&name, e))?;
        self.db
            .create_table(desc)
            .or_else(|e| self.fail(&name, e))?;
        Ok(None)
    }

    /// Resolves a table name or a region name (`table,startKey,id`, optionally with its
    /// `.md5.` suffix, or the 32-hex encoded name alone) to (table, region name).
    fn resolve(&self, arg: &str) -> R<(String, Option<String>)> {
        if self.db.describe(arg).is_ok() {
            return Ok((arg.to_string(), None));
        }
        for t in self.db.table_names() {
            let Ok(h) = self.db.table(&t) else { continue };
            for r in h.regions() {
                let enc = encoded_name(&r);
                if arg == r.name || arg == enc || arg == format!("{}.{enc}.", r.name) {
                    return Ok((t, Some(r.name)));
                }
            }
        }
        if arg.contains(',') || (arg.len() == 32 && arg.bytes().all(|b| b.is_ascii_hexdigit())) {
            return err(format!("Unknown region {arg}!"));
        }
        err(format!("Unknown table {arg}!"))
    }

    fn maintain(&mut self, cmd: &str, args: &[Value]) -> R<Echo> {
        arity(args, 1, 3)?;
        let target = str_of(&args[0], "table or region name")?;
        let (table, _region) = self.resolve(&target)?;
        if let Some(f) = args.get(1) {
            let f = bytes_of(f, "column family")?;
            let desc = self.db.describe(&table).or_else(|e| self.fail(&table, e))?;
            if desc.get_family(&f).is_none() {
                return self.fail(
                    &table,
                    cellbase::Error::NoSuchFamily {
                        table: table.clone(),
                        family: String::from_utf8_lossy(&f).into_owned(),
                    },
                );
            }
        }
        if let Some(v) = args.get(2) {
            let kind = str_of(v, "compaction type")?;
            if cmd == "flush" || kind != "NORMAL" {
                return err(format!(
                    "{cmd}: type {kind} is not supported by cellbase (MOB)"
                ));
            }
        }
        let t = self.table(&table)?;
        let r = match cmd {
            "flush" => t.flush(),
            "compact" => t.compact(),
            _ => t.major_compact(),
        };
        r.or_else(|e| self.fail(&table, e))?;
        Ok(None)
    }

    fn split(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 1, 2)?;
        let target = str_of(&args[0], "table or region name")?;
        let (table, region) = self.resolve(&target)?;
        let key = args.get(1).map(|k| bytes_of(k, "split key")).transpose()?;
        let t = self.table(&table)?;
        if let Some(region) = &region {
            let Some(key) = &key else {
                return err(
                    "Splitting one region at its own split point is not supported by cellbase: give a split key, or split the whole table",
                );
            };
            let info = t.regions().into_iter().find(|r| &r.name == region);
            if let Some(info) = info
                && (key.as_slice() < info.start_key.as_slice()
                    || (!info.end_key.is_empty() && key.as_slice() >= info.end_key.as_slice()))
            {
                return err(format!(
                    "Split key {} is outside region {region}",
                    to_string_binary(key)
                ));
            }
        }
        t.split(key.as_deref()).or_else(|e| self.fail(&table, e))?;
        Ok(None)
    }

    fn merge_region(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 1, 3)?;
        let names: Vec<String> = match &args[0] {
            Value::Array(a) => a
                .iter()
                .map(|v| str_of(v, "region name"))
                .collect::<R<_>>()?,
            v => {
                let mut n = vec![str_of(v, "region name")?];
                if let Some(b) = args.get(1).filter(|b| matches!(b, Value::Str(_))) {
                    n.push(str_of(b, "region name")?);
                }
                n
            }
        };
        if names.len() != 2 {
            return err("merge_region needs exactly two regions in cellbase");
        }
        // HBase's translate_hbase_exceptions names the command's FIRST argument in
        // "Unknown region ...!", whichever region was unknown.
        let first = match &args[0] {
            Value::Array(_) => format!(
                "[{}]",
                names
                    .iter()
                    .map(|n| format!("{n:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => names[0].clone(),
        };
        let unknown = |e: CmdError| {
            if e.0.starts_with("Unknown region ") {
                CmdError(format!("Unknown region {first}!"))
            } else {
                e
            }
        };
        let (ta, ra) = self.resolve(&names[0]).map_err(unknown)?;
        let (tb, rb) = self.resolve(&names[1]).map_err(unknown)?;
        let (Some(ra), Some(rb)) = (ra, rb) else {
            return err("merge_region takes region names, not table names");
        };
        if ta != tb {
            return err("Cannot merge regions of different tables");
        }
        let t = self.table(&ta)?;
        t.merge(&ra, &rb).or_else(|e| self.fail(&ta, e))?;
        Ok(None)
    }

    fn list_regions(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 1, 3)?;
        let name = str_of(&args[0], "table name")?;
        let mut server: Option<String> = None;
        let mut locality_threshold: Option<f64> = None;
        match args.get(1) {
            None | Some(Value::Nil) => {}
            Some(Value::Str(_)) => server = Some(str_of(&args[1], "SERVER_NAME")?),
            Some(v @ Value::Hash(_)) => {
                let mut o = Opts::from(v)?;
                if let Some(s) = o.take("SERVER_NAME") {
                    server = Some(str_of(&s, "SERVER_NAME")?);
                }
                if let Some(l) = o.take("LOCALITY_THRESHOLD") {
                    // list_regions.rb: a Float (not an Integer), within [0, 1.0].
                    let Value::Float(th) = l else {
                        return err("LOCALITY_THRESHOLD must be a float value");
                    };
                    if !(0.0..=1.0).contains(&th) {
                        return err("LOCALITY_THRESHOLD must be between 0 and 1.0, inclusive");
                    }
                    locality_threshold = Some(th);
                }
                o.finish("list_regions")?;
            }
            Some(other) => {
                return err(format!(
                    "list_regions: second argument must be a server name or a hash, got {}",
                    other.describe()
                ));
            }
        }
        const ALL: [(&str, usize); 7] = [
            ("SERVER_NAME", 12),
            ("REGION_NAME", 12),
            ("START_KEY", 10),
            ("END_KEY", 10),
            ("SIZE", 5),
            ("REQ", 5),
            ("LOCALITY", 10),
        ];
        const POSSIBLE: &str = "Possible values are SERVER_NAME, REGION_NAME, START_KEY, END_KEY, SIZE, REQ, LOCALITY.";
        let cols: Vec<usize> = match args.get(2) {
            None | Some(Value::Nil) => (0..ALL.len()).collect(),
            Some(Value::Array(a)) => {
                // A Ruby hash in list_regions.rb: a repeated column keeps its first place.
                let mut v = Vec::new();
                for c in a {
                    let c = str_of(c, "column")?;
                    match ALL.iter().position(|(n, _)| n.eq_ignore_ascii_case(&c)) {
                        Some(i) if v.contains(&i) => {}
                        Some(i) => v.push(i),
                        None => return err(format!("{c} is not a valid column. {POSSIBLE}")),
                    }
                }
                v
            }
            Some(other) => {
                // Ruby's "#{cols}": a string's own text, another value's to_s.
                let text = match other {
                    Value::Str(t) => String::from_utf8_lossy(t).into_owned(),
                    v => v.describe(),
                };
                return err(format!("{text} must be an array of strings. {POSSIBLE}"));
            }
        };
        self.exists_table(&name)?;
        if !self.db.is_table_enabled(&name).unwrap_or(true) {
            return err(format!("Table {name} must be enabled."));
        }
        let t = self.db.table(&name).or_else(|e| self.fail(&name, e))?;
        let mut rows = Vec::new();
        for r in t.regions() {
            let locality = 1.0_f64;
            // list_regions.rb accepts a server whose name starts with the given text.
            if server
                .as_deref()
                .is_some_and(|s| !SERVER_NAME.starts_with(s))
            {
                continue;
            }
            if locality_threshold.is_some_and(|th| locality > th) {
                continue;
            }
            let full = [
                SERVER_NAME.to_string(),
                format!("{}.{}.", r.name, encoded_name(&r)),
                // list_regions.rb strips the keys' toStringBinary text.
                to_string_binary(&r.start_key).trim().to_string(),
                to_string_binary(&r.end_key).trim().to_string(),
                (r.store_file_bytes / (1024 * 1024)).to_string(),
                (r.read_requests + r.write_requests).to_string(),
                format!("{locality:.1}"),
            ];
            rows.push(cols.iter().map(|&i| full[i].clone()).collect::<Vec<_>>());
        }
        let columns: Vec<(&str, usize)> = cols.iter().map(|&i| ALL[i]).collect();
        format::regions_table(out, &columns, &rows)?;
        Ok(None)
    }
}

/// HBase's encoded region name: the MD5 of the region name as 32 lower-case hex digits.
pub fn encoded_name(region: &cellbase::RegionInfo) -> String {
    // RegionInfo.createRegionName hashes the raw bytes `table,startKey,id` (the start key as
    // bytes, not its toStringBinary text).
    let (table, _) = region.name.split_once(',').unwrap_or((&region.name, ""));
    let (_, id) = region.name.rsplit_once(',').unwrap_or(("", ""));
    let mut raw = Vec::with_capacity(table.len() + region.start_key.len() + id.len() + 2);
    raw.extend_from_slice(table.as_bytes());
    raw.push(b',');
    raw.extend_from_slice(&region.start_key);
    raw.push(b',');
    raw.extend_from_slice(id.as_bytes());
    let digest = &cellbase::rowkey::md5_prefix(&raw)[..16];
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn converter_for(
    cols: &[ColSpec],
    default: &Converter,
    family: &[u8],
    qualifier: &[u8],
) -> Converter {
    cols.iter()
        .find(|c| c.family == family && c.qualifier.as_deref().is_none_or(|q| q == qualifier))
        .and_then(|c| c.conv.clone())
        .unwrap_or_else(|| default.clone())
}

/// MAXLENGTH as HBase's `to_string` uses it: -1 (the default) keeps the whole text, another
/// negative value leaves nothing (`val[0, -n]` is nil).
fn maxlength_of(v: &Value) -> R<Option<usize>> {
    let n = int_of(v, "MAXLENGTH")?;
    Ok(match n {
        -1 => None,
        n => Some(usize::try_from(n).unwrap_or(0)),
    })
}

/// The client's error for a data operation on a disabled table.
fn disabled_msg(table: &str) -> String {
    format!("org.apache.hadoop.hbase.TableNotEnabledException: {table} is disabled.")
}

/// One change of an `alter` command, applied after every argument was checked.
enum Alter {
    /// Add or replace a family.
    Family(FamilyDescriptor),
    /// Delete a family and its data.
    DeleteFamily(Vec<u8>),
    /// Install the final MAX_FILESIZE / MEMSTORE_FLUSHSIZE (set or unset).
    Sizes,
}

fn upsert(fams: &mut Vec<FamilyDescriptor>, f: &FamilyDescriptor) {
    match fams.iter_mut().find(|x| x.name == f.name) {
        Some(x) => *x = f.clone(),
        None => fams.push(f.clone()),
    }
}

/// MAX_FILESIZE / MEMSTORE_FLUSHSIZE: an integer or a numeric string (HBase's
/// `JLong.valueOf`), greater than 0.
fn table_size(v: &Value, what: &str) -> R<u64> {
    let n = match v {
        Value::Str(s) => String::from_utf8_lossy(s)
            .trim()
            .parse::<i64>()
            .map_err(|_| CmdError(format!("{what} must be a number, got {}", v.describe())))?,
        other => int_of(other, what)?,
    };
    u64::try_from(n)
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| CmdError(format!("{what} must be positive, got {n}")))
}

/// count's INTERVAL: HBase divides by it (`count % interval`), so it must be positive.
fn positive_interval(i: i64) -> R<u64> {
    u64::try_from(i)
        .ok()
        .filter(|&i| i > 0)
        .ok_or_else(|| CmdError(format!("INTERVAL must be positive, got {i}")))
}

#[cfg(test)]
mod tests {
    use super::{SUPPORTED_FILTERS, encoded_name};

    /// `show_filters` lists exactly what the engine's parser builds: each listed name parses
    /// (with arguments of its shape), and HBase's other registered names are refused.
    #[test]
    fn listed_filters_are_the_ones_the_parser_builds() {
        let example = |name: &str| -> String {
            let args = match name {
                "KeyOnlyFilter" | "FirstKeyOnlyFilter" => "",
                "PrefixFilter" | "ColumnPrefixFilter" => "'a'",
                "MultipleColumnPrefixFilter" => "'a', 'b'",
                "PageFilter" => "10",
                "TimestampsFilter" => "1, 2",
                "RowFilter" | "FamilyFilter" | "QualifierFilter" | "ValueFilter" => "=, 'binary:a'",
                "ColumnRangeFilter" => "'a', true, 'b', false",
                "SingleColumnValueFilter" => "'f', 'q', =, 'binary:v'",
                other => panic!("no example arguments for {other}"),
            };
            format!("{name}({args})")
        };
        for name in SUPPORTED_FILTERS {
            let text = example(name);
            assert!(cellbase::Filter::parse(&text).is_ok(), "{text}");
        }
        for name in [
            "ColumnCountGetFilter",
            "ColumnPaginationFilter",
            "InclusiveStopFilter",
            "SingleColumnValueExcludeFilter",
            "DependentColumnFilter",
            "ColumnValueFilter",
            "NoSuchFilter",
        ] {
            assert!(!SUPPORTED_FILTERS.contains(&name));
            let e = cellbase::Filter::parse(&format!("{name}()")).expect_err(name);
            assert!(
                e.to_string().contains("cannot represent") || e.to_string().contains("unknown"),
                "{name}: {e}"
            );
        }
    }

    fn region(name: &str, start: &[u8]) -> cellbase::RegionInfo {
        cellbase::RegionInfo {
            name: name.into(),
            start_key: start.to_vec(),
            end_key: Vec::new(),
            memstore_bytes: 0,
            store_files: 0,
            store_file_bytes: 0,
            read_requests: 0,
            write_requests: 0,
        }
    }

    #[test]
    fn encoded_names_match_hbase() {
        // Region names and encoded names printed by an HBase 2.2.3 shell (locate_region and
        // hbase:meta scans in a published transcript).
        assert_eq!(
            encoded_name(&region("test,,1619324005040", b"")),
            "797a96a1f98775885db2a0456f9aacb3"
        );
        assert_eq!(
            encoded_name(&region("table1,123_row,1619492890981", b"123_row")),
            "af738ee4f6ff984718e7fa3e4c675ea7"
        );
        // A binary start key is hashed as bytes, not as its toStringBinary text.
        let raw = encoded_name(&region("t,\\x10\\x00,5", b"\x10\x00"));
        let text = encoded_name(&region("t,\\x10\\x00,5", b"\\x10\\x00"));
        assert_ne!(raw, text);
    }
}
