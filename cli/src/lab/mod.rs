//! `cellbase lab`: the rowkey lab. A design file (TOML) declares a table, a rowkey built from
//! record fields, the records and a workload; the lab runs the workload through a real cellbase
//! table, samples the per-region counters as it goes and writes an HTML report (heatmaps,
//! region table, split timeline, metrics), the same numbers as JSON, and a terminal summary.
//! `compare` runs several designs on the same records and workload side by side.
//!
//! See docs/LAB.md for the design-file reference and the meaning of every metric.

pub mod cluster;
pub mod design;
pub mod key;
pub mod records;
pub mod report;
pub mod runner;

use clap::{Args, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub use design::{Design, DesignError};
pub use runner::RunResult;

/// Arguments of `cellbase lab`.
#[derive(Debug, Args)]
pub struct LabArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: LabCommand,
}

/// The lab's subcommands.
#[derive(Debug, Subcommand)]
pub enum LabCommand {
    /// Run one design and write its report.
    Run {
        /// The design file (TOML).
        design: PathBuf,
        /// Directory for the report (`<name>.html`, `<name>.json`).
        #[arg(long, default_value = "lab-report")]
        out: PathBuf,
        /// Database directory to run in (must not hold the design's tables); default: a
        /// temporary directory, removed afterwards.
        #[arg(long)]
        db: Option<PathBuf>,
        /// Override the number of records of the design's workload.
        #[arg(long)]
        records: Option<u64>,
        /// Simulated RegionServers (overrides the design's `[cluster] servers`; default 5).
        #[arg(long)]
        servers: Option<usize>,
        /// No progress line on standard error (shown only when it is a terminal).
        #[arg(short, long)]
        quiet: bool,
    },
    /// Draw the heatmaps of a real database's recorded traffic (its `TRAFFIC` file, written
    /// when it runs with `DbOptions::traffic_recording`): a local Key Visualizer.
    Keyviz {
        /// The database directory.
        #[arg(long)]
        db: PathBuf,
        /// Directory for the page (`keyviz.html`).
        #[arg(long, default_value = "lab-report")]
        out: PathBuf,
        /// Only this table (default: every table in the recording).
        #[arg(long)]
        table: Option<String>,
    },
    /// Run several designs on the same records and workload (the first design's) and compare.
    Compare {
        /// Two or more design files.
        #[arg(num_args = 2.., required = true)]
        designs: Vec<PathBuf>,
        /// Directory for the reports (`compare.html`, `compare.json`, one pair per design).
        #[arg(long, default_value = "lab-report")]
        out: PathBuf,
        /// Override the number of records of the first design's workload.
        #[arg(long)]
        records: Option<u64>,
        /// Simulated RegionServers (overrides the design's `[cluster] servers`; default 5).
        #[arg(long)]
        servers: Option<usize>,
        /// No progress line on standard error (shown only when it is a terminal).
        #[arg(short, long)]
        quiet: bool,
    },
}

/// Loads a design, applying a record-count override.
///
/// # Errors
/// The design file's error (file, line, field).
pub fn load(path: &Path, records: Option<u64>) -> Result<Design, String> {
    let mut d = design::load(path).map_err(|e| e.to_string())?;
    if let Some(n) = records {
        if n == 0 {
            return Err("--records must be at least 1".into());
        }
        d.workload.records = if d.source_rows.is_empty() {
            n
        } else {
            n.min(d.source_rows.len() as u64)
        };
    }
    Ok(d)
}

/// Applies a `--servers` override to a design.
///
/// # Errors
/// When `servers` is out of range.
pub fn set_servers(d: &mut Design, servers: Option<usize>) -> Result<(), String> {
    if let Some(n) = servers {
        if !(1..=cluster::MAX_SERVERS).contains(&n) {
            return Err(format!(
                "--servers must be between 1 and {}",
                cluster::MAX_SERVERS
            ));
        }
        d.cluster.servers = n;
    }
    Ok(())
}

/// Runs one design (in `db_dir`, or a temporary directory).
///
/// # Errors
/// A message for engine failures.
pub fn run_design(d: &Design, db_dir: Option<&Path>) -> Result<RunResult, String> {
    run_design_with(d, db_dir, false)
}

/// [`run_design`], with a progress line of the operations done on standard error when `show`.
///
/// # Errors
/// As [`run_design`].
pub fn run_design_with(d: &Design, db_dir: Option<&Path>, show: bool) -> Result<RunResult, String> {
    let records = d.records();
    let progress = crate::progress::bar(show, &d.name, 0, "operations");
    let r = runner::run_with_progress(d, &records, &d.workload, d.seed, db_dir, &progress);
    crate::progress::done(&progress);
    r
}

/// Runs every design on the records and workload of the first.
///
/// # Errors
/// When the designs do not declare the same fields, or the engine fails.
pub fn compare(designs: &[Design]) -> Result<Vec<RunResult>, String> {
    compare_with(designs, false)
}

/// [`compare`], with a progress line of the operations done per design on standard error
/// when `show`.
///
/// # Errors
/// As [`compare`].
pub fn compare_with(designs: &[Design], show: bool) -> Result<Vec<RunResult>, String> {
    let Some(base) = designs.first() else {
        return Err("nothing to compare".into());
    };
    let names: Vec<&str> = base.fields.iter().map(|f| f.name.as_str()).collect();
    for d in &designs[1..] {
        let other: Vec<&str> = d.fields.iter().map(|f| f.name.as_str()).collect();
        if other != names {
            return Err(format!(
                "{} declares the fields [{}] but {} declares [{}]: compared designs share the first design's records, so they must declare the same fields in the same order",
                d.path.display(),
                other.join(", "),
                base.path.display(),
                names.join(", ")
            ));
        }
    }
    let records = base.records();
    let mut out: Vec<RunResult> = Vec::new();
    for d in designs {
        let progress = crate::progress::bar(show, &d.name, 0, "operations");
        let r = runner::run_with_progress(d, &records, &base.workload, base.seed, None, &progress);
        crate::progress::done(&progress);
        let mut r = r?;
        // Unique names for the report files.
        let mut name = r.design.clone();
        let mut k = 2;
        while out.iter().any(|o| o.design == name) {
            name = format!("{}-{k}", r.design);
            k += 1;
        }
        r.design = name;
        out.push(r);
    }
    Ok(out)
}

fn safe_name(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes `<name>.html` and `<name>.json` of a run into `out`; returns the HTML path.
///
/// # Errors
/// I/O errors, as text.
pub fn write_run(out: &Path, r: &RunResult) -> Result<PathBuf, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let base = safe_name(&r.design);
    let html = out.join(format!("{base}.html"));
    std::fs::write(&html, report::run_html(r)).map_err(|e| format!("{}: {e}", html.display()))?;
    let json = out.join(format!("{base}.json"));
    let text = serde_json::to_string_pretty(r).map_err(|e| e.to_string())?;
    std::fs::write(&json, text).map_err(|e| format!("{}: {e}", json.display()))?;
    Ok(html)
}

/// Writes a comparison (`compare.html`, `compare.json` and every run's pair); returns the
/// comparison page's path.
///
/// # Errors
/// I/O errors, as text.
pub fn write_compare(out: &Path, runs: &[RunResult]) -> Result<PathBuf, String> {
    for r in runs {
        write_run(out, r)?;
    }
    let html = out.join("compare.html");
    std::fs::write(&html, report::compare_html(runs))
        .map_err(|e| format!("{}: {e}", html.display()))?;
    let json = out.join("compare.json");
    let doc = serde_json::json!({
        "designs": runs.iter().map(|r| r.design.clone()).collect::<Vec<_>>(),
        "headline": report::headline(runs),
        "winners": report::winners(runs)
            .into_iter()
            .map(|(m, w)| serde_json::json!({"metric": m, "winner": w}))
            .collect::<Vec<_>>(),
        "runs": runs,
    });
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    std::fs::write(&json, text).map_err(|e| format!("{}: {e}", json.display()))?;
    Ok(html)
}

/// Reads `db`'s recorded traffic and writes `out/keyviz.html`; returns the page's path and
/// the recording.
///
/// # Errors
/// The database directory holds no `TRAFFIC` file, or a damaged one (the engine's typed
/// error, as text); the table is not in the recording; I/O errors.
pub fn write_keyviz(
    db: &Path,
    out: &Path,
    table: Option<&str>,
) -> Result<(PathBuf, cellbase::Traffic), String> {
    let t = cellbase::inspect::read_traffic(db).map_err(|e| e.to_string())?;
    if let Some(name) = table
        && !report::keyviz::tables(&t).iter().any(|n| n == name)
    {
        return Err(format!(
            "table {name} has no recorded traffic in {} (tables: {})",
            db.display(),
            report::keyviz::tables(&t).join(", ")
        ));
    }
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let html = out.join("keyviz.html");
    let page = report::keyviz::keyviz_html(&t, &db.display().to_string(), table);
    std::fs::write(&html, page).map_err(|e| format!("{}: {e}", html.display()))?;
    Ok((html, t))
}

/// Runs `cellbase lab`.
pub fn run(args: LabArgs) -> ExitCode {
    let mut so = crate::output::Stdout::new();
    let code = run_to(args, &mut so);
    so.finish(code)
}

fn run_to(args: LabArgs, so: &mut crate::output::Stdout) -> ExitCode {
    match args.command {
        LabCommand::Run {
            design,
            out,
            db,
            records,
            servers,
            quiet,
        } => {
            let mut d = match load(&design, records) {
                Ok(d) => d,
                Err(e) => return crate::fail(e),
            };
            if let Err(e) = set_servers(&mut d, servers) {
                return crate::fail(e);
            }
            let _ = writeln!(
                so,
                "lab: {} — seed {}, {} records, {} simulated servers",
                d.name, d.seed, d.workload.records, d.cluster.servers
            );
            let r = match run_design_with(&d, db.as_deref(), crate::progress::wanted(quiet)) {
                Ok(r) => r,
                Err(e) => return crate::fail(e),
            };
            let _ = write!(so, "{}", report::terminal(&r));
            for f in &r.findings {
                let _ = writeln!(so, "  * {f}");
            }
            if !r.next_steps.is_empty() {
                let _ = writeln!(so, "what to try next:");
                for f in &r.next_steps {
                    let _ = writeln!(so, "  - {f}");
                }
            }
            match write_run(&out, &r) {
                Ok(p) => {
                    let _ = writeln!(so, "report: {}", p.display());
                    ExitCode::SUCCESS
                }
                Err(e) => crate::fail(e),
            }
        }
        LabCommand::Keyviz { db, out, table } => match write_keyviz(&db, &out, table.as_deref()) {
            Ok((p, t)) => {
                let _ = writeln!(
                    so,
                    "keyviz: {} — {} intervals of {} ms",
                    db.display(),
                    t.intervals.len(),
                    t.interval_ms
                );
                for name in report::keyviz::tables(&t)
                    .iter()
                    .filter(|n| table.as_deref().is_none_or(|x| x == n.as_str()))
                {
                    let tot = report::keyviz::totals(&t, name);
                    let w: u64 = tot.iter().map(|r| r.writes).sum();
                    let r: u64 = tot.iter().map(|r| r.reads).sum();
                    let _ = writeln!(so, "  {name}: {} regions, {w} writes, {r} reads", tot.len());
                }
                let _ = writeln!(so, "report: {}", p.display());
                ExitCode::SUCCESS
            }
            Err(e) => crate::fail(e),
        },
        LabCommand::Compare {
            designs,
            out,
            records,
            servers,
            quiet,
        } => {
            let mut ds = Vec::new();
            for (i, p) in designs.iter().enumerate() {
                match load(p, if i == 0 { records } else { None }) {
                    Ok(mut d) => {
                        if let Err(e) = set_servers(&mut d, servers) {
                            return crate::fail(e);
                        }
                        ds.push(d)
                    }
                    Err(e) => return crate::fail(e),
                }
            }
            let _ = writeln!(
                so,
                "lab compare: {} — records and workload of {} (seed {}, {} records)",
                ds.iter()
                    .map(|d| d.name.as_str())
                    .collect::<Vec<_>>()
                    .join(" vs "),
                ds[0].path.display(),
                ds[0].seed,
                ds[0].workload.records
            );
            let runs = match compare_with(&ds, crate::progress::wanted(quiet)) {
                Ok(r) => r,
                Err(e) => return crate::fail(e),
            };
            for r in &runs {
                let _ = write!(so, "{}", report::terminal(r));
            }
            for line in report::headline(&runs) {
                let _ = writeln!(so, "{line}");
            }
            let _ = writeln!(so, "winners:");
            for (m, w) in report::winners(&runs) {
                let _ = writeln!(so, "  {m:<48} {w}");
            }
            match write_compare(&out, &runs) {
                Ok(p) => {
                    let _ = writeln!(so, "report: {}", p.display());
                    ExitCode::SUCCESS
                }
                Err(e) => crate::fail(e),
            }
        }
    }
}
