//! report.md, report.json and SVG charts from the collected results.

use crate::engines::{self, Config, Res};
use crate::{Common, DBBENCH, RunResult, YCSB};
use std::fmt::Write as _;
use std::path::Path;

/// The reads whose space amplification bar 7 of issue 27 checks: the states `overwrite` and
/// `fillrandom` leave.
const READ_STATES: [&str; 2] = ["readrandom", "readrandom-fr"];

fn find<'a>(rs: &'a [RunResult], e: &str, w: &str) -> Option<&'a RunResult> {
    rs.iter().find(|r| r.engine == e && r.workload == w)
}

fn ratio(rs: &[RunResult], w: &str, other: &str) -> Option<f64> {
    let a = find(rs, "cellbase", w)?;
    let b = find(rs, other, w)?;
    (b.ops_per_sec > 0.0).then(|| a.ops_per_sec / b.ops_per_sec)
}

fn fmt_ops(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.2} M", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.1} k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0 / 1024.0);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    format!(
        "{cpu}, {cores} cores, {mem:.1} GiB RAM, Linux {}",
        kernel.trim()
    )
}

/// A bar over named figures, each `(label, passes)`: "missed on" the failing labels, else
/// `all_pass` when given, else every label; "not measured" without figures.
fn listed_bar(
    name: &str,
    figures: &[(String, bool)],
    all_pass: Option<String>,
) -> (String, Option<bool>, String) {
    let labels = |pass: Option<bool>| {
        figures
            .iter()
            .filter(|f| pass.is_none_or(|p| f.1 == p))
            .map(|f| f.0.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let missed = figures.iter().any(|f| !f.1);
    let detail = if figures.is_empty() {
        "not measured".to_string()
    } else if missed {
        format!("missed on {}", labels(Some(false)))
    } else {
        all_pass.unwrap_or_else(|| labels(None))
    };
    (
        name.to_string(),
        (!figures.is_empty()).then_some(!missed),
        detail,
    )
}

/// The acceptance bars of issue 27 (performance round 2), evaluated on the results. Each
/// names every workload that misses it, not only the worst.
fn bars(rs: &[RunResult], workloads: &[String]) -> Vec<(String, Option<bool>, String)> {
    let mut out = Vec::new();
    let both = |w: &str| Some((find(rs, "cellbase", w)?, find(rs, "rocksdb", w)?));
    // The cellbase/`other` throughput ratio of every workload that has one.
    let ratios = |other: &str| -> Vec<(&String, f64)> {
        workloads
            .iter()
            .filter_map(|w| Some((w, ratio(rs, w, other)?)))
            .collect()
    };

    let vs_rocksdb = ratios("rocksdb");
    let lowest = vs_rocksdb
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(w, x)| format!("lowest ratio {x:.2}x on {w}"));
    let figures: Vec<(String, bool)> = vs_rocksdb
        .iter()
        .map(|(w, x)| (format!("{w} ({x:.2}x)"), *x >= 0.8))
        .collect();
    out.push(listed_bar(
        "cellbase >= 0.8x RocksDB on every workload",
        &figures,
        lowest,
    ));

    let figures: Vec<(String, bool)> = ratios("sled")
        .iter()
        .map(|(w, x)| (format!("{w} ({x:.2}x)"), *x > 1.0))
        .collect();
    out.push(listed_bar(
        "cellbase ahead of sled on every workload",
        &figures,
        Some("ahead everywhere measured".into()),
    ));

    let bar = "FsyncWal puts: 8 threads >= 3x the 1-thread rate".to_string();
    out.push(
        match (
            find(rs, "cellbase", "fillsync-1t"),
            find(rs, "cellbase", "fillsync-8t"),
        ) {
            (Some(a), Some(b)) => {
                let x = b.ops_per_sec / a.ops_per_sec.max(1e-9);
                let detail = format!(
                    "{} vs {} ops/s = {x:.2}x",
                    fmt_ops(b.ops_per_sec),
                    fmt_ops(a.ops_per_sec)
                );
                (bar, Some(x >= 3.0), detail)
            }
            _ => (bar, None, "not measured".into()),
        },
    );

    let rss: Vec<(&String, f64, f64)> = workloads
        .iter()
        .filter_map(|w| {
            let (c, r) = both(w)?;
            (c.peak_rss_mb > 0.0 && r.peak_rss_mb > 0.0).then_some((
                w,
                c.peak_rss_mb,
                r.peak_rss_mb,
            ))
        })
        .collect();
    let highest = rss
        .iter()
        .max_by(|a, b| (a.1 / a.2).total_cmp(&(b.1 / b.2)))
        .map(|(w, c, r)| format!("highest {:.2}x on {w}", c / r));
    let figures: Vec<(String, bool)> = rss
        .iter()
        .map(|(w, c, r)| (format!("{w} ({c:.0} vs {r:.0} MiB, {:.2}x)", c / r), c <= r))
        .collect();
    out.push(listed_bar(
        "cellbase peak RSS <= 1.0x RocksDB's in every workload",
        &figures,
        highest,
    ));

    let figures: Vec<(String, bool)> = workloads
        .iter()
        .filter_map(|w| {
            let (c, r) = both(w)?;
            let (cm, rm) = (c.max_write_us / 1e3, r.max_write_us / 1e3);
            (cm > 0.0 && rm > 0.0).then(|| {
                (
                    format!("{w} ({cm:.1} vs {rm:.1} ms)"),
                    cm <= 2.0 * rm && cm <= 100.0,
                )
            })
        })
        .collect();
    out.push(listed_bar(
        "longest single write <= 2x RocksDB's and <= 100 ms",
        &figures,
        Some("every write workload".into()),
    ));

    let figures: Vec<(String, bool)> = ["fillseq", "overwrite"]
        .into_iter()
        .filter_map(|w| {
            let (c, r) = both(w)?;
            (c.user_bytes > 0 && r.user_bytes > 0).then(|| {
                (
                    format!("{w} {:.2} vs {:.2}", c.write_amp, r.write_amp),
                    c.write_amp <= r.write_amp,
                )
            })
        })
        .collect();
    out.push(listed_bar(
        "write amplification of fillseq and overwrite <= RocksDB's",
        &figures,
        None,
    ));

    let figures: Vec<(String, bool)> = READ_STATES
        .into_iter()
        .filter_map(|w| {
            let c = find(rs, "cellbase", w)?;
            (c.logical_bytes > 0).then(|| (format!("{w} {:.2}", c.space_amp), c.space_amp <= 1.25))
        })
        .collect();
    out.push(listed_bar(
        "cellbase space amplification after the readrandom loads <= 1.25",
        &figures,
        None,
    ));
    out
}

/// Writes report.md, report.json and the SVG charts into `out`.
pub fn write(
    out: &Path,
    c: &Common,
    cfg: &Config,
    engines: &[String],
    workloads: &[String],
    rs: &[RunResult],
) -> Res<()> {
    let json = serde_json::json!({
        "machine": machine(),
        "parameters": c,
        "config": cfg,
        "engine_config": engines.iter().map(|e| (e.clone(), engines::describe(e, cfg))).collect::<std::collections::BTreeMap<_,_>>(),
        "results": rs,
    });
    std::fs::write(
        out.join("report.json"),
        serde_json::to_string_pretty(&json)?,
    )?;

    let mut md = String::new();
    writeln!(md, "# cellbase workload harness report\n")?;
    writeln!(md, "Machine: {}\n", machine())?;
    writeln!(
        md,
        "Parameters: db_bench N = {} (16 B keys, 100 B values), gets per read workload = {} \
         (seekrandom: a tenth), fillsync writes = {}, YCSB records = {}, YCSB operations per workload = {}, seed = {}, 1 client thread unless \
         the threads column says otherwise.\n",
        c.num,
        c.reads(),
        c.sync_ops(),
        c.records,
        c.ops(),
        c.seed
    )?;
    writeln!(
        md,
        "Configuration (same block cache, memtable size, background threads; compression off unless `--compression` set cellbase's and RocksDB's codec (fjall and sled stay uncompressed); values {:.0} % random (`--compression-ratio` {}); WAL on; no sync unless the workload says so):\n",
        c.compression_ratio * 100.0,
        c.compression_ratio
    )?;
    for e in engines {
        writeln!(md, "- **{e}**: {}", engines::describe(e, cfg))?;
    }
    writeln!(md, "\n## Throughput (operations/s) and ratios\n")?;
    let mut head = String::from("| workload | threads | ops |");
    let mut sep = String::from("|---|---:|---:|");
    for e in engines {
        write!(head, " {e} |")?;
        sep.push_str("---:|");
    }
    let others: Vec<&str> = ["rocksdb", "fjall", "sled"]
        .into_iter()
        .filter(|o| engines.iter().any(|e| e == o) && engines.iter().any(|e| e == "cellbase"))
        .collect();
    for o in &others {
        write!(head, " cellbase/{o} |")?;
        sep.push_str("---:|");
    }
    writeln!(md, "{head}\n{sep}")?;
    for w in workloads {
        let any = engines.iter().find_map(|e| find(rs, e, w));
        let Some(any) = any else { continue };
        let mut row = format!("| {w} | {} | {} |", any.threads, any.ops);
        for e in engines {
            match find(rs, e, w) {
                Some(r) => write!(row, " {} |", fmt_ops(r.ops_per_sec))?,
                None => row.push_str(" - |"),
            }
        }
        for o in &others {
            match ratio(rs, w, o) {
                Some(x) => write!(row, " {x:.2}x |")?,
                None => row.push_str(" - |"),
            }
        }
        writeln!(md, "{row}")?;
    }
    writeln!(md, "\n## Acceptance bars (issue 27)\n")?;
    writeln!(md, "| bar | result | detail |\n|---|---|---|")?;
    for (name, ok, detail) in bars(rs, workloads) {
        let verdict = match ok {
            Some(true) => "PASS",
            Some(false) => "FAIL",
            None => "n/a",
        };
        writeln!(md, "| {name} | {verdict} | {detail} |")?;
    }
    writeln!(md, "\n## Latency, amplification, memory, open time\n")?;
    writeln!(
        md,
        "Latencies in µs per operation (readseq: not per operation). Longest write = the \
         longest single write call (write stall). WA = bytes the process passed to write \
         calls (/proc/self/io wchar, open to close: WAL, flushes, compactions) / user key+value \
         bytes (write_bytes, which misses files deleted before writeback, is in report.json). SA = data directory \
         bytes / live key+value bytes. RSS = peak resident set (VmHWM) of the child process. \
         Open = time to open the store (after `fillrandom` the process exits without closing, \
         so the next run's open, `readrandom-fr` or else `overwrite`, is a crash recovery). \
         Reads named `-fr` read the state `fillrandom` leaves, the others the state \
         `overwrite` leaves.\n"
    )?;
    writeln!(
        md,
        "| workload | engine | p50 | p99 | p99.9 | max | longest write | WA | SA | RSS MiB | open ms |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    )?;
    for w in workloads {
        for e in engines {
            if let Some(r) = find(rs, e, w) {
                let wa = if r.user_bytes > 0 {
                    format!("{:.2}", r.wchar as f64 / r.user_bytes as f64)
                } else {
                    "-".into()
                };
                writeln!(
                    md,
                    "| {w} | {e} | {:.1} | {:.1} | {:.1} | {:.0} | {:.0} | {wa} | {:.2} | {:.0} | {:.1} |",
                    r.p50_us,
                    r.p99_us,
                    r.p999_us,
                    r.max_us,
                    r.max_write_us,
                    r.space_amp,
                    r.peak_rss_mb,
                    r.open_ms
                )?;
            }
        }
    }
    if c.memory_limit_mib > 0 {
        memory_limit(&mut md, c, engines, workloads, rs)?;
    }
    writeln!(
        md,
        "\nCharts: `throughput-dbbench.svg`, `throughput-ycsb.svg`, `ratios.svg`.\n"
    )?;
    std::fs::write(out.join("report.md"), md)?;

    let db: Vec<&String> = workloads
        .iter()
        .filter(|w| DBBENCH.contains(&w.as_str()))
        .collect();
    let yc: Vec<&String> = workloads
        .iter()
        .filter(|w| YCSB.contains(&w.as_str()))
        .collect();
    std::fs::write(
        out.join("throughput-dbbench.svg"),
        bar_chart("db_bench-style throughput (ops/s)", &db, engines, rs),
    )?;
    std::fs::write(
        out.join("throughput-ycsb.svg"),
        bar_chart("YCSB throughput (ops/s)", &yc, engines, rs),
    )?;
    std::fs::write(out.join("ratios.svg"), ratio_chart(workloads, &others, rs))?;
    Ok(())
}

/// The `--memory-limit-mib` section: the limit, the data set against it, and per run the
/// storage bytes read per operation and the block cache hit rate.
fn memory_limit(
    md: &mut String,
    c: &Common,
    engines: &[String],
    workloads: &[String],
    rs: &[RunResult],
) -> Res<()> {
    let limit = c.memory_limit_mib;
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    writeln!(md, "\n## Larger than memory: {limit} MiB limit\n")?;
    writeln!(
        md,
        "Each engine ran all its workloads in its own memory cgroup limited to {limit} MiB \
         (cgroup v2 `memory.max` with `memory.swap.max` 0, or v1 `memory.limit_in_bytes` \
         with `memory.memsw.limit_in_bytes` equal to it): the process's memory and the page \
         cache it fills count against it, so reads go to storage once the data set is larger. \
         Block cache {} MiB, memtables {} MiB inside it.\n",
        c.cache_mb, c.memtable_mb
    )?;
    // The data set: the largest live key+value bytes of any run, and each engine's largest
    // data directory.
    let logical = rs.iter().map(|r| r.logical_bytes).max().unwrap_or(0);
    let mut sizes = Vec::new();
    for e in engines {
        let d = rs
            .iter()
            .filter(|r| &r.engine == e)
            .map(|r| r.disk_bytes)
            .max()
            .unwrap_or(0);
        sizes.push(format!("{e} {:.0} MiB", mib(d)));
    }
    writeln!(
        md,
        "Data set: {:.0} MiB of live keys and values = {:.2}x the limit (largest data \
         directory per engine: {}).\n",
        mib(logical),
        mib(logical) / limit as f64,
        sizes.join(", ")
    )?;
    if mib(logical) < 4.0 * limit as f64 {
        writeln!(
            md,
            "**Warning: the data set is not at least 4x the limit** (issue 27's bar: N = 20 M \
             keys or YCSB 5 M records for 256 MiB), so much of it stays cached and reads \
             reach storage less often than they would at scale.\n"
        )?;
    }
    writeln!(
        md,
        "Read B/op = bytes the process read from storage during the measured phase \
         (/proc/self/io read_bytes: page cache misses, whole pages and readahead included) \
         / operations: the read amplification. Cache hit rate = block cache hits / lookups \
         in the measured phase (data blocks; cellbase from `Db::metrics`, RocksDB from its \
         statistics tickers `rocksdb.block.cache.data.hit` / `.miss`; n/a = the engine does \
         not count them: fjall, sled).\n"
    )?;
    writeln!(
        md,
        "| workload | engine | ops | read MiB | read B/op | cache hit rate |\n|---|---|---:|---:|---:|---:|"
    )?;
    for w in workloads {
        for e in engines {
            if let Some(r) = find(rs, e, w) {
                let rate = match (r.cache_hit_rate, r.cache_hits) {
                    (Some(x), _) => format!("{:.1} %", x * 100.0),
                    (None, Some(_)) => "- (no lookups)".into(),
                    (None, None) => "n/a".into(),
                };
                writeln!(
                    md,
                    "| {w} | {e} | {} | {:.1} | {:.0} | {rate} |",
                    r.ops,
                    mib(r.read_bytes),
                    r.read_bytes_per_op
                )?;
            }
        }
    }
    Ok(())
}

const COLORS: [&str; 4] = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd"];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Grouped horizontal bars, one group per workload, each bar scaled to the group's best.
fn bar_chart(title: &str, ws: &[&String], engines: &[String], rs: &[RunResult]) -> String {
    let bar_h = 14.0;
    let group_h = bar_h * engines.len() as f64 + 12.0;
    let left = 130.0;
    let width = 760.0;
    let plot_w = width - left - 120.0;
    let height = 60.0 + group_h * ws.len() as f64 + 20.0 * engines.len() as f64;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{}</text>\n<text x=\"10\" y=\"36\" fill=\"#555\">bars scaled to the fastest engine of each workload</text>\n",
        esc(title)
    );
    let mut y = 50.0;
    for w in ws {
        let best = engines
            .iter()
            .filter_map(|e| find(rs, e, w))
            .map(|r| r.ops_per_sec)
            .fold(0.0f64, f64::max);
        let _ = writeln!(
            s,
            "<text x=\"10\" y=\"{:.1}\">{}</text>",
            y + group_h / 2.0,
            esc(w)
        );
        for (i, e) in engines.iter().enumerate() {
            if let Some(r) = find(rs, e, w) {
                let len = if best > 0.0 {
                    plot_w * r.ops_per_sec / best
                } else {
                    0.0
                };
                let by = y + i as f64 * bar_h;
                let _ = writeln!(
                    s,
                    "<rect x=\"{left}\" y=\"{by:.1}\" width=\"{len:.1}\" height=\"{:.1}\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                    bar_h - 2.0,
                    COLORS[i % COLORS.len()],
                    left + len + 4.0,
                    by + bar_h - 4.0,
                    fmt_ops(r.ops_per_sec)
                );
            }
        }
        y += group_h;
    }
    for (i, e) in engines.iter().enumerate() {
        let ly = y + 10.0 + i as f64 * 18.0;
        let _ = writeln!(
            s,
            "<rect x=\"{left}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            ly,
            COLORS[i % COLORS.len()],
            left + 18.0,
            ly + 10.0,
            esc(e)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// cellbase's throughput ratio to each other engine per workload, log scale, 1x line.
fn ratio_chart(ws: &[String], others: &[&str], rs: &[RunResult]) -> String {
    let bar_h = 12.0;
    let group_h = bar_h * others.len().max(1) as f64 + 10.0;
    let left = 130.0;
    let width = 760.0;
    let plot_w = width - left - 80.0;
    let height = 70.0 + group_h * ws.len() as f64 + 18.0 * others.len() as f64;
    // log2 scale from 1/16x to 16x.
    let xpos = |r: f64| left + plot_w * ((r.log2().clamp(-4.0, 4.0) + 4.0) / 8.0);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">cellbase throughput / other engine (log scale, 1/16x..16x)</text>\n"
    );
    let top = 40.0;
    let bottom = top + group_h * ws.len() as f64;
    for (r, label) in [(0.5, "0.5x"), (1.0, "1x"), (2.0, "2x")] {
        let x = xpos(r);
        let _ = writeln!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{bottom:.1}\" stroke=\"#888\" stroke-dasharray=\"3,3\"/><text x=\"{:.1}\" y=\"{:.1}\">{label}</text>",
            x - 8.0,
            top - 4.0
        );
    }
    let mut y = top;
    for w in ws {
        let _ = writeln!(
            s,
            "<text x=\"10\" y=\"{:.1}\">{}</text>",
            y + group_h / 2.0,
            esc(w)
        );
        for (i, o) in others.iter().enumerate() {
            if let Some(r) = ratio(rs, w, o) {
                let (x0, x1) = (xpos(1.0), xpos(r));
                let by = y + i as f64 * bar_h;
                let _ = writeln!(
                    s,
                    "<rect x=\"{:.1}\" y=\"{by:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\">{r:.2}x</text>",
                    x0.min(x1),
                    (x1 - x0).abs().max(1.0),
                    bar_h - 2.0,
                    COLORS[(i + 1) % COLORS.len()],
                    x0.max(x1) + 3.0,
                    by + bar_h - 3.0
                );
            }
        }
        y += group_h;
    }
    for (i, o) in others.iter().enumerate() {
        let ly = y + 10.0 + i as f64 * 18.0;
        let _ = writeln!(
            s,
            "<rect x=\"{left}\" y=\"{ly:.1}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\">cellbase / {}</text>",
            COLORS[(i + 1) % COLORS.len()],
            left + 18.0,
            ly + 10.0,
            esc(o)
        );
    }
    s.push_str("</svg>\n");
    s
}
