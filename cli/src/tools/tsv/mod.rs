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
//!
//! This module holds the arguments, the column spec and the options both directions share;
//! `export` writes TSV from a table and `import` reads it into one.

mod export;
mod import;

pub use export::{ExportStats, export, run_export};
pub use import::{ImportStats, import, run_import};

use super::{from_string_binary, push_binary_byte, to_string_binary};
use clap::Args;
use std::collections::BTreeSet;
use std::path::PathBuf;

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
    /// Bulk load (as `-Dimporttsv.bulk.output=...`): sort and write block files directly
    /// instead of putting row by row; the whole import becomes visible at once.
    #[arg(long)]
    pub bulk: bool,
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
    /// Import: load through `Table::bulk_load` (`-Dimporttsv.bulk.output=...` or `--bulk`):
    /// block files written directly, the whole import visible at once.
    pub bulk: bool,
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
            bulk: false,
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
            // HBase writes HFiles into that directory for `completebulkload`; cellbase loads
            // them into the table directly (Table::bulk_load), so the path is not used.
            "importtsv.bulk.output" => opts.bulk = true,
            "importtsv.mapper.class" | "importtsv.attributes.separator" => {
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
}
