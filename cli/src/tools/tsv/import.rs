//! `cellbase import-tsv`: ImportTsv lines into a table, bad lines skipped and counted.

use super::{Column, EXAMPLES, ImportArgs, TsvOptions, apply_props};
use crate::tools::{from_string_binary, to_string_binary};
use cellbase::{Db, DbOptions, Durability, FamilyDescriptor, Put, TableDescriptor};
use std::collections::BTreeSet;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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
    if a.bulk {
        opts.bulk = true;
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
    // Bulk mode: parsed rows go straight into one loader (its sort spills past its memory
    // budget); nothing is visible until the whole input is read.
    let mut loader = if opts.bulk {
        Some(t.bulk_loader().map_err(|e| format!("bulk load: {e}"))?)
    } else {
        None
    };
    for_each_line(input, |line| {
        st.lines += 1;
        let bad = match parse_line(line, cols, ts, opts) {
            Ok((put, cells)) => {
                let written = match loader.as_mut() {
                    Some(loader) => loader.add(&put),
                    None => t.put(put),
                };
                match written {
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
    if let Some(loader) = loader {
        loader.finish().map_err(|e| format!("bulk load: {e}"))?;
    }
    Ok(st)
}

#[cfg(test)]
mod tests {
    use super::*;

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
