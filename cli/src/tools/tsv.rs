//! `cellbase export-tsv` / `import-tsv`: HBase ImportTsv's text format.
//!
//! A line holds one row: fields separated by one byte (default tab), laid out by a column spec
//! `HBASE_ROW_KEY,cf:q1,cf:q2[,HBASE_TS_KEY][,HBASE_CELL_TTL]` (`importtsv.columns`). Lines end
//! at `\n`, `\r\n` or `\r` (Hadoop's LineReader). Two encodings of field bytes:
//!
//! * plain (default, what HBase's ImportTsv reads): bytes as they are, no escaping. A field can
//!   then hold neither the separator nor a line break, and an empty field means "no cell". The
//!   exporter skips (and counts, and exits 3 for) rows it cannot write faithfully.
//! * escaped (`--escaped`, a cellbase extension): every field is HBase's `Bytes.toStringBinary`
//!   of the bytes with the separator also written as `\xHH`; `\N` is "no cell", an empty field
//!   an empty value. Every row is representable.
//!
//! docs/TOOLS.md describes the options, counters and exit codes.
use super::{from_string_binary, push_binary_byte, to_string_binary};
use cellbase::{Db, DbOptions, Durability, FamilyDescriptor, Put, Scan, TableDescriptor};
use clap::Args;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The row key column of a column spec.
pub const ROW_KEY: &str = "HBASE_ROW_KEY";
/// The timestamp column of a column spec.
pub const TS_KEY: &str = "HBASE_TS_KEY";
/// The per-cell TTL column (milliseconds) of a column spec.
pub const TTL_KEY: &str = "HBASE_CELL_TTL";

/// Arguments of `cellbase export-tsv`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The database directory (must exist).
    #[arg(long, value_name = "DIR")]
    pub db: PathBuf,
    /// HBase-style properties: `-Dimporttsv.columns=...`, `-Dimporttsv.separator=X`.
    #[arg(short = 'D', value_name = "KEY=VALUE")]
    pub props: Vec<String>,
    /// The column spec (as `importtsv.columns`); default: every column found, sorted.
    #[arg(long)]
    pub columns: Option<String>,
    /// The field separator, one byte (`\t` and `\xHH` accepted); default tab.
    #[arg(long)]
    pub separator: Option<String>,
    /// Escape field bytes (`Bytes.toStringBinary`, `\N` = no cell); import with `--escaped`.
    #[arg(long)]
    pub escaped: bool,
    /// Add an HBASE_TS_KEY column: one line per (row, timestamp), so timestamps round-trip.
    #[arg(long)]
    pub timestamps: bool,
    /// No progress line on standard error (shown only when it is a terminal, and not while
    /// the rows go to the same terminal).
    #[arg(short, long)]
    pub quiet: bool,
    /// The table to export.
    pub table: String,
    /// Output file (must not exist); `-` or absent: standard output.
    pub output: Option<PathBuf>,
}

/// Arguments of `cellbase import-tsv`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The database directory (created if missing).
    #[arg(long, value_name = "DIR")]
    pub db: PathBuf,
    /// HBase-style properties: `importtsv.columns`, `importtsv.separator`,
    /// `importtsv.skip.bad.lines` (default true), `importtsv.skip.empty.columns` (default
    /// false), `importtsv.timestamp`, `create.table` (default yes).
    #[arg(short = 'D', value_name = "KEY=VALUE")]
    pub props: Vec<String>,
    /// The column spec (as `importtsv.columns`).
    #[arg(long)]
    pub columns: Option<String>,
    /// The field separator, one byte (`\t` and `\xHH` accepted); default tab.
    #[arg(long)]
    pub separator: Option<String>,
    /// Fields are escaped as `export-tsv --escaped` writes them.
    #[arg(long)]
    pub escaped: bool,
    /// No progress line on standard error (shown only when it is a terminal).
    #[arg(short, long)]
    pub quiet: bool,
    /// The table to import into (created with the spec's families if missing).
    pub table: String,
    /// Input file, or a directory (its files, sorted; names starting with `_` or `.` skipped),
    /// or `-` for standard input.
    pub input: PathBuf,
}

/// One column of a spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Column {
    /// HBASE_ROW_KEY.
    RowKey,
    /// HBASE_TS_KEY (decimal milliseconds).
    Timestamp,
    /// HBASE_CELL_TTL (decimal milliseconds, applied to every cell of the line).
    CellTtl,
    /// `family:qualifier` (`family` alone: empty qualifier).
    Cell {
        /// Family.
        family: Vec<u8>,
        /// Qualifier.
        qualifier: Vec<u8>,
    },
}

/// Settings shared by export and import.
#[derive(Debug, Clone)]
pub struct TsvOptions {
    /// The column spec; `None` on export: discover every column.
    pub columns: Option<Vec<Column>>,
    /// The separator byte.
    pub separator: u8,
    /// Escaped field encoding.
    pub escaped: bool,
    /// Import: skip (and count) bad lines instead of stopping (importtsv.skip.bad.lines).
    pub skip_bad_lines: bool,
    /// Import: an empty field puts no cell (importtsv.skip.empty.columns).
    pub skip_empty_columns: bool,
    /// Import: timestamp of cells on lines without HBASE_TS_KEY (importtsv.timestamp); `None`:
    /// the time the import started, one timestamp for the whole import as in HBase.
    pub timestamp: Option<i64>,
    /// Import: create a missing table with the spec's families (create.table).
    pub create_table: bool,
    /// Export: add HBASE_TS_KEY (one line per row and timestamp).
    pub timestamps: bool,
}

impl Default for TsvOptions {
    fn default() -> Self {
        TsvOptions {
            columns: None,
            separator: b'\t',
            escaped: false,
            skip_bad_lines: true,
            skip_empty_columns: false,
            timestamp: None,
            create_table: true,
            timestamps: false,
        }
    }
}

/// Parses a separator: one byte, or `\t`, or `\xHH`.
///
/// # Errors
/// Anything longer, and line breaks.
pub fn parse_separator(s: &str) -> Result<u8, String> {
    let b = match s {
        "\\t" => vec![b'\t'],
        _ if s.starts_with("\\x") => from_string_binary(s.as_bytes())?,
        _ => s.as_bytes().to_vec(),
    };
    match b.as_slice() {
        [b'\n' | b'\r'] => Err("the separator cannot be a line break".into()),
        [c] => Ok(*c),
        _ => Err(format!(
            "separator {s:?} is not a single byte (ImportTsv supports single-byte separators only)"
        )),
    }
}

/// Parses a column spec. Plain mode takes names as UTF-8 bytes (as HBase does); escaped mode
/// unescapes each family and qualifier (`\xHH`).
///
/// # Errors
/// Not exactly one HBASE_ROW_KEY, repeated special columns, no cell column, unsupported
/// special columns, bad escapes.
pub fn parse_columns(spec: &str, escaped: bool) -> Result<Vec<Column>, String> {
    let mut cols = Vec::new();
    for part in spec.split(',') {
        let c = match part {
            ROW_KEY => Column::RowKey,
            TS_KEY => Column::Timestamp,
            TTL_KEY => Column::CellTtl,
            "HBASE_ATTRIBUTES_KEY" | "HBASE_CELL_VISIBILITY" => {
                return Err(format!("column {part} is not supported by cellbase"));
            }
            _ => {
                let (f, q) = part.split_once(':').unwrap_or((part, ""));
                let dec = |s: &str| {
                    if escaped {
                        from_string_binary(s.as_bytes())
                            .map_err(|e| format!("column {part:?}: {e}"))
                    } else {
                        Ok(s.as_bytes().to_vec())
                    }
                };
                let family = dec(f)?;
                if family.is_empty() {
                    return Err(format!("column {part:?} has no family"));
                }
                Column::Cell {
                    family,
                    qualifier: dec(q)?,
                }
            }
        };
        cols.push(c);
    }
    let count = |k: &Column| cols.iter().filter(|c| *c == k).count();
    if count(&Column::RowKey) != 1 {
        return Err(format!("must specify exactly one column as {ROW_KEY}"));
    }
    if count(&Column::Timestamp) > 1 || count(&Column::CellTtl) > 1 {
        return Err(format!("{TS_KEY} and {TTL_KEY} may appear at most once"));
    }
    if !cols.iter().any(|c| matches!(c, Column::Cell { .. })) {
        return Err(
            "one or more columns in addition to the row key and timestamp are required".into(),
        );
    }
    let mut seen = BTreeSet::new();
    for c in &cols {
        if let Column::Cell { family, qualifier } = c
            && !seen.insert((family, qualifier))
        {
            return Err(format!(
                "column {}:{} appears twice",
                to_string_binary(family),
                to_string_binary(qualifier)
            ));
        }
    }
    Ok(cols)
}

/// Writes a column spec that [`parse_columns`] reads back (`escaped` as for the data), or an
/// error naming a column plain mode cannot name.
pub fn format_columns(cols: &[Column], escaped: bool) -> Result<String, String> {
    let mut parts = Vec::new();
    for c in cols {
        parts.push(match c {
            Column::RowKey => ROW_KEY.to_string(),
            Column::Timestamp => TS_KEY.to_string(),
            Column::CellTtl => TTL_KEY.to_string(),
            Column::Cell { family, qualifier } if escaped => {
                let mut s = String::new();
                for &b in family.iter() {
                    push_binary_byte(&mut s, b, Some(b':'));
                }
                s.push(':');
                for &b in qualifier.iter() {
                    push_binary_byte(&mut s, b, Some(b','));
                }
                s
            }
            Column::Cell { family, qualifier } => {
                let (Ok(f), Ok(q)) = (std::str::from_utf8(family), std::str::from_utf8(qualifier))
                else {
                    return Err(format!(
                        "column {}:{} is not UTF-8 and cannot be named in importtsv.columns; use --escaped",
                        to_string_binary(family),
                        to_string_binary(qualifier)
                    ));
                };
                if f.contains([',', ':', '\0']) || q.contains([',', '\0']) {
                    return Err(format!(
                        "column {}:{} contains ',' or NUL (or ':' in the family) and cannot be named in importtsv.columns; use --escaped",
                        to_string_binary(family),
                        to_string_binary(qualifier)
                    ));
                }
                format!("{f}:{q}")
            }
        });
    }
    Ok(parts.join(","))
}

/// Counters of an import.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportStats {
    /// Lines read.
    pub lines: u64,
    /// Lines written as a row mutation.
    pub imported: u64,
    /// Cells written.
    pub cells: u64,
    /// Lines skipped as bad ("Bad Lines" in HBase).
    pub bad_lines: u64,
    /// The first few bad lines: (1-based line number, reason).
    pub bad_examples: Vec<(u64, String)>,
}

/// Counters of an export.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportStats {
    /// Rows written.
    pub rows: u64,
    /// Lines written (more than rows with `timestamps`).
    pub lines: u64,
    /// Cells written.
    pub cells: u64,
    /// Rows not written because plain TSV cannot represent them.
    pub skipped_rows: u64,
    /// The first few skipped rows: (row, reason).
    pub skipped_examples: Vec<(Vec<u8>, String)>,
    /// The column spec used (in the output's encoding).
    pub columns_spec: String,
}

const EXAMPLES: usize = 10;

/// Applies `-D` properties and flags to `opts` (import and export share the keys).
fn apply_props(
    props: &[String],
    columns: Option<&str>,
    separator: Option<&str>,
    escaped: bool,
    opts: &mut TsvOptions,
) -> Result<(), String> {
    opts.escaped = escaped;
    let mut spec: Option<String> = None;
    let bool_prop = |k: &str, v: &str| match v.to_ascii_lowercase().as_str() {
        "true" | "yes" => Ok(true),
        "false" | "no" => Ok(false),
        _ => Err(format!("-D{k}: expected true/false, got {v:?}")),
    };
    for p in props {
        let (k, v) = p
            .split_once('=')
            .ok_or_else(|| format!("-D{p}: expected KEY=VALUE"))?;
        match k {
            "importtsv.columns" => spec = Some(v.to_string()),
            "importtsv.separator" => opts.separator = parse_separator(v)?,
            "importtsv.skip.bad.lines" => opts.skip_bad_lines = bool_prop(k, v)?,
            "importtsv.skip.empty.columns" => opts.skip_empty_columns = bool_prop(k, v)?,
            "importtsv.timestamp" => {
                opts.timestamp = Some(
                    v.parse()
                        .map_err(|_| format!("-D{k}: {v:?} is not a timestamp in milliseconds"))?,
                )
            }
            "create.table" => opts.create_table = bool_prop(k, v)?,
            "importtsv.bulk.output"
            | "importtsv.mapper.class"
            | "importtsv.attributes.separator" => {
                return Err(format!("-D{k} is not supported by cellbase"));
            }
            _ => crate::stderr_line!("WARNING: ignoring unknown property -D{k}"),
        }
    }
    if let Some(c) = columns {
        spec = Some(c.to_string());
    }
    if let Some(s) = separator {
        opts.separator = parse_separator(s)?;
    }
    if escaped && (opts.separator == b'\\' || opts.separator.is_ascii_alphanumeric()) {
        return Err("with --escaped the separator cannot be a backslash, letter or digit".into());
    }
    if let Some(s) = spec {
        opts.columns = Some(parse_columns(&s, escaped)?);
    }
    Ok(())
}

/// Runs `cellbase export-tsv`: exit 0 when every row was written, 3 when some rows were
/// skipped as not representable in plain TSV, 1 on errors, 2 on usage errors.
pub fn run_export(a: ExportArgs) -> ExitCode {
    let mut opts = TsvOptions::default();
    if let Err(e) = apply_props(
        &a.props,
        a.columns.as_deref(),
        a.separator.as_deref(),
        a.escaped,
        &mut opts,
    ) {
        crate::stderr_line!("ERROR: export-tsv: {e}");
        return ExitCode::from(2);
    }
    opts.timestamps = a.timestamps;
    if !a.db.join("CURRENT").exists() {
        return crate::fail(format!(
            "export-tsv: no cellbase database at {}",
            a.db.display()
        ));
    }
    let db = match Db::open(&a.db) {
        Ok(d) => d,
        Err(e) => return crate::fail(format!("export-tsv: opening {}: {e}", a.db.display())),
    };
    let to_stdout = a.output.as_deref().is_none_or(|p| p == Path::new("-"));
    // Rows written to the terminal the progress line would be drawn on would garble both.
    let show = crate::progress::wanted(a.quiet) && !(to_stdout && std::io::stdout().is_terminal());
    let progress = crate::progress::counter(show, "export-tsv", "rows written");
    let result = if to_stdout {
        let mut out = crate::output::Stdout::new();
        let r = export_with(&db, &a.table, &mut out, &opts, &progress);
        crate::progress::done(&progress);
        if out.error().is_some() {
            // A closed pipe ends quietly (141), a full device with a message (1).
            let _ = db.close();
            return out.finish(ExitCode::SUCCESS);
        }
        r
    } else {
        let path = a.output.clone().unwrap_or_default();
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => export_with(&db, &a.table, BufWriter::new(f), &opts, &progress),
            Err(e) => Err(format!("cannot create {}: {e}", path.display())),
        }
    };
    crate::progress::done(&progress);
    let closed = db.close();
    let stats = match result {
        Ok(s) => s,
        Err(e) => return crate::fail(format!("export-tsv: {e}")),
    };
    if let Err(e) = closed {
        return crate::fail(format!("export-tsv: closing the database: {e}"));
    }
    for (row, why) in &stats.skipped_examples {
        crate::stderr_line!("WARNING: row '{}' skipped: {why}", to_string_binary(row));
    }
    crate::stderr_line!(
        "export-tsv: {} rows, {} lines, {} cells written; {} rows skipped (not representable in plain TSV{})",
        stats.rows,
        stats.lines,
        stats.cells,
        stats.skipped_rows,
        if opts.escaped {
            ""
        } else {
            "; --escaped represents every row"
        }
    );
    crate::stderr_line!(
        "export-tsv: import with: cellbase import-tsv --db DIR '-Dimporttsv.columns={}'{}{} {} FILE",
        stats.columns_spec,
        if opts.separator == b'\t' {
            String::new()
        } else {
            format!(
                " '-Dimporttsv.separator={}'",
                to_string_binary(&[opts.separator])
            )
        },
        if opts.escaped {
            " --escaped"
        } else {
            " -Dimporttsv.skip.empty.columns=true"
        },
        a.table
    );
    if stats.skipped_rows > 0 {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}

/// Runs `cellbase import-tsv`: exit 0 when the input was read to the end (bad lines skipped and
/// counted, as HBase's job succeeds with a "Bad Lines" counter), 1 on errors or on the first
/// bad line with `-Dimporttsv.skip.bad.lines=false`, 2 on usage errors.
pub fn run_import(a: ImportArgs) -> ExitCode {
    let mut opts = TsvOptions::default();
    if let Err(e) = apply_props(
        &a.props,
        a.columns.as_deref(),
        a.separator.as_deref(),
        a.escaped,
        &mut opts,
    ) {
        crate::stderr_line!("ERROR: import-tsv: {e}");
        return ExitCode::from(2);
    }
    if opts.columns.is_none() {
        crate::stderr_line!(
            "ERROR: import-tsv: no column spec: pass -Dimporttsv.columns=HBASE_ROW_KEY,cf:q,... or --columns"
        );
        return ExitCode::from(2);
    }
    let inputs = match input_files(&a.input) {
        Ok(i) => i,
        Err(e) => return crate::fail(format!("import-tsv: {e}")),
    };
    // The log is written asynchronously during the import and synced by close(): a crash
    // mid-import loses the tail of the import (re-run it; puts are idempotent).
    let db = match Db::open_with(&a.db, DbOptions::default().durability(Durability::AsyncWal)) {
        Ok(d) => d,
        Err(e) => return crate::fail(format!("import-tsv: opening {}: {e}", a.db.display())),
    };
    let mut total = ImportStats::default();
    let mut result = Ok(());
    // Bytes read of the whole input (every file's size; unknown for standard input).
    let size: Option<u64> = inputs
        .iter()
        .map(|i| {
            i.as_ref()
                .and_then(|p| std::fs::metadata(p).ok())
                .map(|m| m.len())
        })
        .sum();
    let progress = crate::progress::bytes(crate::progress::wanted(a.quiet), "import-tsv", size);
    for input in &inputs {
        let r = match input {
            None => import(
                &db,
                &a.table,
                progress.wrap_read(std::io::stdin().lock()),
                &opts,
            ),
            Some(p) => match std::fs::File::open(p) {
                Ok(f) => import(
                    &db,
                    &a.table,
                    progress.wrap_read(std::io::BufReader::new(f)),
                    &opts,
                ),
                Err(e) => Err(format!("cannot read {}: {e}", p.display())),
            },
        };
        match r {
            Ok(s) => {
                let name = input
                    .as_ref()
                    .map_or("stdin".to_string(), |p| p.display().to_string());
                progress.suspend(|| {
                    for (n, why) in &s.bad_examples {
                        crate::stderr_line!("WARNING: {name}: line {n}: bad line skipped: {why}");
                    }
                });
                total.lines += s.lines;
                total.imported += s.imported;
                total.cells += s.cells;
                total.bad_lines += s.bad_lines;
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    crate::progress::done(&progress);
    let closed = db.close();
    crate::stderr_line!(
        "import-tsv: {} lines read, {} rows imported, {} cells written, Bad Lines={}",
        total.lines,
        total.imported,
        total.cells,
        total.bad_lines
    );
    if let Err(e) = result {
        return crate::fail(format!("import-tsv: {e}"));
    }
    if let Err(e) = closed {
        return crate::fail(format!(
            "import-tsv: closing the database (syncing the log): {e}"
        ));
    }
    ExitCode::SUCCESS
}

/// The files to read: `None` is standard input.
fn input_files(input: &Path) -> Result<Vec<Option<PathBuf>>, String> {
    if input == Path::new("-") {
        return Ok(vec![None]);
    }
    let md =
        std::fs::metadata(input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    if !md.is_dir() {
        return Ok(vec![Some(input.to_path_buf())]);
    }
    let mut files = Vec::new();
    for e in
        std::fs::read_dir(input).map_err(|e| format!("cannot list {}: {e}", input.display()))?
    {
        let e = e.map_err(|e| format!("cannot list {}: {e}", input.display()))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('_') || name.starts_with('.') || !e.path().is_file() {
            continue;
        }
        files.push(Some(e.path()));
    }
    files.sort();
    Ok(files)
}

/// Splits input into lines the way Hadoop's LineReader does (`\n`, `\r\n` or `\r` end a line)
/// and calls `f(line)` for each.
fn for_each_line(
    mut input: impl BufRead,
    mut f: impl FnMut(&[u8]) -> Result<(), String>,
) -> Result<(), String> {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = input
            .read_until(b'\n', &mut buf)
            .map_err(|e| format!("reading input: {e}"))?;
        if n == 0 {
            return Ok(());
        }
        let mut line: &[u8] = &buf;
        if let Some(l) = line.strip_suffix(b"\n") {
            line = l;
        }
        if let Some(l) = line.strip_suffix(b"\r") {
            line = l;
        }
        for part in line.split(|&b| b == b'\r') {
            f(part)?;
        }
    }
}

/// A field decoded: `None` = no cell.
fn decode_field(field: &[u8], opts: &TsvOptions) -> Result<Option<Vec<u8>>, String> {
    if opts.escaped {
        if field == b"\\N" {
            return Ok(None);
        }
        let v = from_string_binary(field)?;
        Ok((!(v.is_empty() && opts.skip_empty_columns)).then_some(v))
    } else {
        Ok((!(field.is_empty() && opts.skip_empty_columns)).then(|| field.to_vec()))
    }
}

fn parse_num(field: &[u8], opts: &TsvOptions, what: &str) -> Result<i64, String> {
    let raw = if opts.escaped {
        from_string_binary(field)?
    } else {
        field.to_vec()
    };
    std::str::from_utf8(&raw)
        .ok()
        .and_then(|s| s.parse::<i64>().ok())
        .ok_or_else(|| format!("invalid {what} '{}'", to_string_binary(&raw)))
}

/// One line as a put, or why it is a bad line (HBase's `BadTsvLineException` reasons).
fn parse_line(
    line: &[u8],
    cols: &[Column],
    ts: i64,
    opts: &TsvOptions,
) -> Result<(Put, u64), String> {
    let fields: Vec<&[u8]> = line.split(|&b| b == opts.separator).collect();
    if fields.len() > cols.len() {
        return Err(format!(
            "Excessive columns: {} fields for {} columns",
            fields.len(),
            cols.len()
        ));
    }
    let at = |c: &Column| cols.iter().position(|x| x == c);
    let row_at = at(&Column::RowKey).unwrap_or(0);
    let row_field = fields.get(row_at).ok_or("No row key")?;
    let row = match decode_field(
        row_field,
        &TsvOptions {
            skip_empty_columns: false,
            ..opts.clone()
        },
    )? {
        Some(r) if !r.is_empty() => r,
        _ => return Err("empty row key".into()),
    };
    let ts = match at(&Column::Timestamp) {
        Some(i) => parse_num(fields.get(i).ok_or("No timestamp")?, opts, "timestamp")?,
        None => ts,
    };
    let mut put = Put::new(&row);
    if let Some(i) = at(&Column::CellTtl)
        && let Some(f) = fields.get(i)
        && !f.is_empty()
    {
        let ttl = parse_num(f, opts, "cell TTL")?;
        let ttl = u64::try_from(ttl).map_err(|_| "negative cell TTL".to_string())?;
        put = put.ttl(std::time::Duration::from_millis(ttl));
    }
    let mut n = 0;
    for (c, f) in cols.iter().zip(&fields) {
        if let Column::Cell { family, qualifier } = c
            && let Some(v) = decode_field(f, opts)?
        {
            put = put.add_at(family, qualifier, ts, v);
            n += 1;
        }
    }
    if n == 0 {
        return Err("no cells on the line".into());
    }
    Ok((put, n))
}

/// Imports ImportTsv lines from `input` into `table` (created with the spec's families when
/// missing and `opts.create_table`).
///
/// # Errors
/// No column spec, a family the table lacks, a missing table, read errors, database errors
/// other than a refused row, and the first bad line unless `opts.skip_bad_lines`.
pub fn import(
    db: &Db,
    table: &str,
    input: impl BufRead,
    opts: &TsvOptions,
) -> Result<ImportStats, String> {
    let cols = opts
        .columns
        .as_ref()
        .ok_or("no column spec (importtsv.columns)")?;
    let families: BTreeSet<&[u8]> = cols
        .iter()
        .filter_map(|c| match c {
            Column::Cell { family, .. } => Some(family.as_slice()),
            _ => None,
        })
        .collect();
    let t = match db.table(table) {
        Ok(t) => t,
        Err(cellbase::Error::TableNotFound(_)) if opts.create_table => {
            let mut d = TableDescriptor::new(table);
            for f in &families {
                d = d.family(FamilyDescriptor::new(f));
            }
            db.create_table(d)
                .map_err(|e| format!("creating table {table}: {e}"))?
        }
        Err(e) => return Err(format!("table {table}: {e}")),
    };
    let desc = db.describe(table).map_err(|e| e.to_string())?;
    let missing: Vec<String> = families
        .iter()
        .filter(|f| desc.get_family(f).is_none())
        .map(|f| to_string_binary(f))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "column families [{}] specified in importtsv.columns do not match any family of table {table}",
            missing.join(", ")
        ));
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let ts = opts.timestamp.unwrap_or(now);
    let mut st = ImportStats::default();
    for_each_line(input, |line| {
        st.lines += 1;
        let bad = match parse_line(line, cols, ts, opts) {
            Ok((put, cells)) => {
                match t.put(put) {
                    Ok(()) => {
                        st.imported += 1;
                        st.cells += cells;
                        return Ok(());
                    }
                    // A row the engine refuses (too long, bad timestamp, cell too large) is a
                    // bad line, as HBase counts IllegalArgumentException; anything else stops.
                    Err(cellbase::Error::InvalidArgument(m)) => m,
                    Err(e) => return Err(format!("line {}: {e}", st.lines)),
                }
            }
            Err(m) => m,
        };
        if !opts.skip_bad_lines {
            return Err(format!(
                "bad line {}: {bad} (importtsv.skip.bad.lines=false)",
                st.lines
            ));
        }
        st.bad_lines += 1;
        if st.bad_examples.len() < EXAMPLES {
            st.bad_examples.push((st.lines, bad));
        }
        Ok(())
    })?;
    Ok(st)
}

/// Why a plain-TSV field cannot hold `b`, if it cannot.
fn plain_problem(b: &[u8], sep: u8, what: &str) -> Option<String> {
    if b.contains(&sep) {
        Some(format!("{what} contains the separator byte"))
    } else if b.contains(&b'\n') || b.contains(&b'\r') {
        Some(format!("{what} contains a line break"))
    } else {
        None
    }
}

fn write_field(out: &mut Vec<u8>, b: Option<&[u8]>, opts: &TsvOptions) {
    match (b, opts.escaped) {
        (None, true) => out.extend_from_slice(b"\\N"),
        (None, false) => {}
        (Some(v), false) => out.extend_from_slice(v),
        (Some(v), true) => {
            let mut s = String::with_capacity(v.len());
            for &c in v {
                push_binary_byte(&mut s, c, Some(opts.separator));
            }
            out.extend_from_slice(s.as_bytes());
        }
    }
}

/// Exports the latest version of every cell of `table` in the column layout of `opts.columns`
/// (or every column found, sorted by family and qualifier), one line per row (per row and
/// timestamp with `opts.timestamps`).
///
/// # Errors
/// A missing table, a spec naming no cell column of the table, unnameable columns in plain
/// mode, read or write errors.
pub fn export(
    db: &Db,
    table: &str,
    out: impl Write,
    opts: &TsvOptions,
) -> Result<ExportStats, String> {
    export_with(db, table, out, opts, &indicatif::ProgressBar::hidden())
}

/// [`export`], counting each row written on `progress`.
fn export_with(
    db: &Db,
    table: &str,
    mut out: impl Write,
    opts: &TsvOptions,
    progress: &indicatif::ProgressBar,
) -> Result<ExportStats, String> {
    let t = db.table(table).map_err(|e| format!("table {table}: {e}"))?;
    let mut cols = match &opts.columns {
        Some(c) => c.clone(),
        None => {
            let mut found = BTreeSet::new();
            for r in t.scan(Scan::new()).map_err(|e| e.to_string())? {
                for c in r.map_err(|e| e.to_string())?.cells() {
                    found.insert((c.family().to_vec(), c.qualifier().to_vec()));
                }
            }
            let mut c = vec![Column::RowKey];
            c.extend(
                found
                    .into_iter()
                    .map(|(family, qualifier)| Column::Cell { family, qualifier }),
            );
            c
        }
    };
    if cols.contains(&Column::CellTtl) {
        return Err(format!(
            "{TTL_KEY} cannot be exported (TTLs are not readable through scans)"
        ));
    }
    if opts.timestamps && !cols.contains(&Column::Timestamp) {
        cols.insert(1, Column::Timestamp);
    }
    let index: BTreeMap<(&[u8], &[u8]), usize> = cols
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match c {
            Column::Cell { family, qualifier } => {
                Some(((family.as_slice(), qualifier.as_slice()), i))
            }
            _ => None,
        })
        .collect();
    let mut st = ExportStats {
        columns_spec: if index.is_empty() {
            String::new()
        } else {
            format_columns(&cols, opts.escaped)?
        },
        ..ExportStats::default()
    };
    if index.is_empty() {
        // An empty table: nothing to write, and no column to name.
        return Ok(st);
    }
    let mut scan = Scan::new();
    if opts.columns.is_some() {
        for (f, q) in index.keys() {
            scan = scan.column(f, q);
        }
    }
    let with_ts = cols.contains(&Column::Timestamp);
    let io = |e: std::io::Error| format!("writing output: {e}");
    let mut line = Vec::new();
    for r in t.scan(scan).map_err(|e| e.to_string())? {
        let r = r.map_err(|e| e.to_string())?;
        // (ts or 0) -> column index -> value
        let mut groups: BTreeMap<i64, BTreeMap<usize, &[u8]>> = BTreeMap::new();
        let mut problem = None;
        if !opts.escaped {
            problem = plain_problem(r.row(), opts.separator, "row key");
        }
        for c in r.cells() {
            let Some(&i) = index.get(&(c.family(), c.qualifier())) else {
                continue;
            };
            if !opts.escaped && problem.is_none() {
                problem = plain_problem(c.value(), opts.separator, "a value").or_else(|| {
                    c.value()
                        .is_empty()
                        .then(|| "a value is empty (an empty field means no cell)".to_string())
                });
            }
            let key = if with_ts { c.timestamp() } else { 0 };
            groups.entry(key).or_default().insert(i, c.value());
        }
        if groups.is_empty() {
            continue;
        }
        if let Some(p) = problem {
            st.skipped_rows += 1;
            if st.skipped_examples.len() < EXAMPLES {
                st.skipped_examples.push((r.row().to_vec(), p));
            }
            continue;
        }
        for (ts, vals) in &groups {
            line.clear();
            for (i, c) in cols.iter().enumerate() {
                if i > 0 {
                    line.push(opts.separator);
                }
                match c {
                    Column::RowKey => write_field(&mut line, Some(r.row()), opts),
                    Column::Timestamp => {
                        line.extend_from_slice(ts.to_string().as_bytes());
                    }
                    _ => write_field(&mut line, vals.get(&i).copied(), opts),
                }
            }
            line.push(b'\n');
            out.write_all(&line).map_err(io)?;
            st.lines += 1;
            st.cells += vals.len() as u64;
        }
        st.rows += 1;
        progress.inc(1);
    }
    out.flush().map_err(io)?;
    Ok(st)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_like_importtsv() {
        let c = parse_columns("HBASE_ROW_KEY,cf:a,cf,HBASE_TS_KEY,g:x:y", false).unwrap();
        assert_eq!(c[0], Column::RowKey);
        assert_eq!(
            c[2],
            Column::Cell {
                family: b"cf".to_vec(),
                qualifier: vec![]
            }
        );
        assert_eq!(c[3], Column::Timestamp);
        assert_eq!(
            c[4],
            Column::Cell {
                family: b"g".to_vec(),
                qualifier: b"x:y".to_vec()
            }
        );
        for bad in [
            "cf:a",
            "HBASE_ROW_KEY",
            "HBASE_ROW_KEY,HBASE_ROW_KEY,cf:a",
            "HBASE_ROW_KEY,cf:a,cf:a",
            "HBASE_ROW_KEY,:a",
            "HBASE_ROW_KEY,cf:a,HBASE_CELL_VISIBILITY",
        ] {
            assert!(parse_columns(bad, false).is_err(), "{bad}");
        }
        let cols = vec![
            Column::RowKey,
            Column::Cell {
                family: b"f".to_vec(),
                qualifier: b"a,b\x00".to_vec(),
            },
        ];
        assert!(format_columns(&cols, false).is_err());
        let s = format_columns(&cols, true).unwrap();
        assert_eq!(parse_columns(&s, true).unwrap(), cols);
    }

    #[test]
    fn separators() {
        assert_eq!(parse_separator("\\t"), Ok(b'\t'));
        assert_eq!(parse_separator(","), Ok(b','));
        assert_eq!(parse_separator("\\x01"), Ok(1));
        assert!(parse_separator("ab").is_err());
        assert!(parse_separator("\n").is_err());
        assert!(parse_separator("").is_err());
    }

    #[test]
    fn lines_split_like_hadoop() {
        let mut got = Vec::new();
        for_each_line(&b"a\nb\r\nc\rd\r\r\ne"[..], |l| {
            got.push(l.to_vec());
            Ok(())
        })
        .unwrap();
        let want: Vec<&[u8]> = vec![b"a", b"b", b"c", b"d", b"", b"e"];
        assert_eq!(got, want);
    }
}
