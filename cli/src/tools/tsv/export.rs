//! `cellbase export-tsv`: a table's latest cells as ImportTsv lines.

use super::{Column, EXAMPLES, ExportArgs, TTL_KEY, TsvOptions, apply_props, format_columns};
use crate::tools::{push_binary_byte, to_string_binary};
use cellbase::{Db, Scan};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufWriter, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

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
