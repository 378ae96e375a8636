//! The comparison page: one row per metric, the design that wins it, and each design's charts.

use super::charts::{max_bucket_cell, max_region_cell, max_server_cell};
use super::servers::{heatmap_servers, shared_legend};
use super::{Metric, esc, fmt_bytes, head};
use super::{heatmap_buckets_scaled, heatmap_regions_scaled};
use crate::lab::runner::{OpProjection, QueryStats, RunResult};
use std::fmt::Write;

/// A compared metric: label, value per run, whether lower wins (`None`: no winner).
struct Row {
    label: String,
    values: Vec<Option<f64>>,
    shown: Vec<String>,
    lower_wins: Option<bool>,
}

fn compare_rows(runs: &[RunResult]) -> Vec<Row> {
    let num = |label: &str,
               lower: Option<bool>,
               f: &dyn Fn(&RunResult) -> f64,
               fmt: &dyn Fn(f64) -> String| Row {
        label: label.to_string(),
        values: runs.iter().map(|r| Some(f(r))).collect(),
        shown: runs.iter().map(|r| fmt(f(r))).collect(),
        lower_wins: lower,
    };
    let pctf = |x: f64| format!("{:.1}%", x * 100.0);
    let mut rows = vec![
        // Fair across designs with different region counts: servers are the same machines.
        num(
            "Projected cluster throughput (ops/s; cost model)",
            Some(false),
            &|r| r.cluster.projected_ops_per_sec,
            &|x| format!("{x:.0}"),
        ),
        num(
            "Busiest server's share of writes (mean)",
            Some(true),
            &|r| r.cluster.hottest_server_write_share,
            &pctf,
        ),
        num(
            "Busiest server's share of reads (mean)",
            Some(true),
            &|r| r.cluster.hottest_server_read_share,
            &pctf,
        ),
        num(
            "Time with one server > 2x its fair share of writes",
            Some(true),
            &|r| r.cluster.time_server_over_2x_writes,
            &pctf,
        ),
        num(
            "Time with one server > 50% of writes",
            Some(true),
            &|r| r.cluster.time_server_over_half_writes,
            &pctf,
        ),
        num(
            "Time with one region > 50% of writes",
            Some(true),
            &|r| r.summary.time_over_half,
            &pctf,
        ),
        num(
            "Time with one region > 50% of reads",
            Some(true),
            &|r| r.summary.read_time_over_half,
            &pctf,
        ),
        // Relative to the region count: shown, not judged (a table with few regions has a
        // large fair share and looks even).
        num(
            "Hottest region's share of writes (mean; depends on region count)",
            None,
            &|r| r.summary.mean_hottest_share,
            &pctf,
        ),
        num(
            "Hottest region / fair share (mean; depends on region count)",
            None,
            &|r| r.summary.mean_hottest_ratio,
            &|x| format!("{x:.2}x"),
        ),
        num(
            "Gini of writes across regions (mean; depends on region count)",
            None,
            &|r| r.summary.mean_gini,
            &|x| format!("{x:.3}"),
        ),
        num(
            "Hottest region's share of reads (mean; depends on region count)",
            None,
            &|r| r.summary.mean_hottest_read_share,
            &pctf,
        ),
        num("Splits", None, &|r| r.summary.splits as f64, &|x| {
            format!("{x:.0}")
        }),
        num(
            "Final regions",
            None,
            &|r| r.summary.final_regions as f64,
            &|x| format!("{x:.0}"),
        ),
        num("Servers", None, &|r| r.cluster.servers as f64, &|x| {
            format!("{x:.0}")
        }),
        // Not a contest: one process on this machine runs every operation, a fan-out scan's
        // parts one after another, where a cluster runs them on many servers at once.
        num(
            "Single-process engine time (ops/s; measured, not a cluster figure)",
            None,
            &|r| r.summary.ops_per_sec,
            &|x| format!("{x:.0}"),
        ),
        num(
            "Data stored (bytes)",
            Some(true),
            &|r| r.summary.stored_bytes as f64,
            &|x| fmt_bytes(x as u64),
        ),
    ];
    // Per query type, by name (runs share the workload).
    let mut names: Vec<String> = Vec::new();
    for r in runs {
        for q in &r.queries {
            if q.plan != "put" && q.plan != "delete" && !names.contains(&q.name) {
                names.push(q.name.clone());
            }
        }
    }
    for n in names {
        let find = |r: &RunResult| r.queries.iter().find(|q| q.name == n).cloned();
        let proj = |r: &RunResult| r.cluster.operations.iter().find(|q| q.name == n).cloned();
        for (what, f) in [
            (
                "projected p50 latency (ms)",
                (|q: &OpProjection| q.projected_p50_ms) as fn(&OpProjection) -> f64,
            ),
            ("projected p99 latency (ms)", |q: &OpProjection| {
                q.projected_p99_ms
            }),
            ("servers touched (mean)", |q: &OpProjection| {
                q.servers_touched_mean
            }),
        ] {
            rows.push(Row {
                label: format!("{n}: {what}"),
                values: runs.iter().map(|r| proj(r).map(|q| f(&q))).collect(),
                shown: runs
                    .iter()
                    .map(|r| proj(r).map_or("—".into(), |q| format!("{:.3}", f(&q))))
                    .collect(),
                lower_wins: Some(true),
            });
        }
        for (what, f) in [
            (
                "regions touched",
                (|q: &QueryStats| q.mean_regions_touched) as fn(&QueryStats) -> f64,
            ),
            ("rows examined", |q: &QueryStats| q.mean_rows_examined),
            ("data blocks read", |q: &QueryStats| q.mean_blocks_read),
            ("memstore reads", |q: &QueryStats| q.mean_memstore_reads),
        ] {
            rows.push(Row {
                label: format!("{n}: {what} (mean)"),
                values: runs.iter().map(|r| find(r).map(|q| f(&q))).collect(),
                shown: runs
                    .iter()
                    .map(|r| find(r).map_or("—".into(), |q| format!("{:.1}", f(&q))))
                    .collect(),
                lower_wins: Some(true),
            });
        }
        rows.push(Row {
            label: format!("{n}: plan"),
            values: runs.iter().map(|_| None).collect(),
            shown: runs
                .iter()
                .map(|r| find(r).map_or("—".into(), |q| q.plan))
                .collect(),
            lower_wins: None,
        });
    }
    rows
}

/// The winner of a row: the design name(s) with the best value.
fn winner(row: &Row, runs: &[RunResult]) -> (Option<usize>, String) {
    let Some(lower) = row.lower_wins else {
        return (None, "—".into());
    };
    let vals: Vec<(usize, f64)> = row
        .values
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| (i, v)))
        .collect();
    if vals.len() < 2 {
        return (None, "—".into());
    }
    let best = vals.iter().map(|&(_, v)| v).fold(
        if lower {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        },
        |a, b| {
            if lower { a.min(b) } else { a.max(b) }
        },
    );
    let tol = best.abs() * 0.02 + 1e-9;
    let winners: Vec<usize> = vals
        .iter()
        .filter(|&&(_, v)| (v - best).abs() <= tol)
        .map(|&(i, _)| i)
        .collect();
    if winners.len() == vals.len() {
        (None, "tie".into())
    } else if winners.len() == 1 {
        (Some(winners[0]), runs[winners[0]].design.clone())
    } else {
        (
            None,
            winners
                .iter()
                .map(|&i| runs[i].design.clone())
                .collect::<Vec<_>>()
                .join(" = "),
        )
    }
}

/// The winner per metric, as `(metric, winner)` pairs (for the terminal and JSON).
pub fn winners(runs: &[RunResult]) -> Vec<(String, String)> {
    compare_rows(runs)
        .iter()
        .filter(|r| r.lower_wins.is_some())
        .map(|r| (r.label.clone(), winner(r, runs).1))
        .collect()
}

/// The comparison page.
pub fn compare_html(runs: &[RunResult]) -> String {
    let mut o = String::new();
    head(&mut o, "cellbase lab: comparison");
    let _ = write!(
        o,
        "<h1>cellbase lab: {}</h1><p>The same {} records and workload (seed {}) through each design.</p>",
        esc(&runs
            .iter()
            .map(|r| r.design.as_str())
            .collect::<Vec<_>>()
            .join(" vs ")),
        runs.first().map_or(0, |r| r.records),
        runs.first().map_or(0, |r| r.seed)
    );
    o.push_str("<table><tr><th class=l>Design</th><th class=l>Rowkey</th><th class=l>Pre-split</th><th class=l>Example key</th></tr>");
    for r in runs {
        let _ = write!(
            o,
            "<tr><td class=l><a href='{}.html'>{}</a></td><td class='l mono'>{}</td><td class=l>{}</td><td class='l mono'>{}</td></tr>",
            esc(&r.design),
            esc(&r.design),
            esc(&r.rowkey),
            esc(&r.pre_split),
            esc(r.example_keys.first().map_or("", |s| s.as_str()))
        );
    }
    o.push_str("</table>");
    let h = headline(runs);
    if !h.is_empty() {
        o.push_str("<h2>Headline</h2><ul class=f>");
        for line in &h {
            let _ = write!(o, "<li>{}</li>", esc(line));
        }
        o.push_str("</ul>");
    }
    for (title, m) in [("Writes", Metric::Writes), ("Reads", Metric::Reads)] {
        // One colour scale for the maps being compared.
        let shared =
            |f: fn(&RunResult, Metric) -> u64| runs.iter().map(|r| f(r, m)).max().unwrap_or(0);
        let (rmax, bmax, smax) = (
            shared(max_region_cell),
            shared(max_bucket_cell),
            shared(max_server_cell),
        );
        let word = title.to_lowercase();
        let _ = write!(
            o,
            "<h2>{title}: small multiples</h2><p class=cap>Top: by region (y: key space labelled with region start keys; white dots: splits; hatched: key space not written yet); middle: by key-range bucket; bottom: by simulated server. x: time. Every design's map of a kind uses the same colour scale, given below.</p><div class=grid>"
        );
        for r in runs {
            let _ = write!(o, "<div><b>{}</b><br>", esc(&r.design));
            o.push_str(&heatmap_regions_scaled(
                r,
                m,
                360.0,
                180.0,
                true,
                Some(rmax),
            ));
            o.push_str("<br>");
            o.push_str(&heatmap_buckets_scaled(
                r,
                m,
                360.0,
                180.0,
                true,
                Some(bmax),
            ));
            o.push_str("<br>");
            o.push_str(&heatmap_servers(r, m, 360.0, true, Some(smax)));
            o.push_str("</div>");
        }
        let _ = write!(
            o,
            "</div><p class=cap>Shared scales — by region:</p>{}<p class=cap>by key bucket:</p>{}<p class=cap>by server:</p>{}",
            shared_legend(rmax, &word),
            shared_legend(bmax, &word),
            shared_legend(smax, &word)
        );
    }
    o.push_str("<h2>Metrics</h2><p class=cap>Winners are named only where the comparison is fair across designs: per-server measures (the servers are the same machines whatever the region count), times over 50 %, projected throughput and latency (a cost model over the work the engine counted, see docs/LAB.md), per-query work. Per-region shares and Gini depend on the region count and name no winner; the single-process engine time is one process on this machine and names none either.</p><table><tr><th class=l>Metric</th>");
    for r in runs {
        let _ = write!(o, "<th>{}</th>", esc(&r.design));
    }
    o.push_str("<th class=l>Winner</th></tr>");
    for row in compare_rows(runs) {
        let (wi, wname) = winner(&row, runs);
        let _ = write!(o, "<tr><td class=l>{}</td>", esc(&row.label));
        for (i, v) in row.shown.iter().enumerate() {
            let cls = if wi == Some(i) { " class=win" } else { "" };
            let _ = write!(o, "<td{cls}>{}</td>", esc(v));
        }
        let _ = write!(o, "<td class=l>{}</td></tr>", esc(&wname));
    }
    o.push_str("</table><h2>Findings</h2>");
    for r in runs {
        let _ = write!(o, "<h3>{}</h3><ul class=f>", esc(&r.design));
        for f in &r.findings {
            let _ = write!(o, "<li>{}</li>", esc(f));
        }
        o.push_str("</ul>");
    }
    o.push_str("</body></html>\n");
    o
}

/// Sentences at the top of the comparison page: the projected throughput of each design
/// against the slowest, the busiest server's share of writes, and what differs in the set-up
/// (region and server counts) that a reader must keep in mind.
pub fn headline(runs: &[RunResult]) -> Vec<String> {
    let mut out = Vec::new();
    let Some(slow) = runs
        .iter()
        .filter(|r| r.cluster.projected_ops_per_sec > 0.0)
        .min_by(|a, b| {
            a.cluster
                .projected_ops_per_sec
                .total_cmp(&b.cluster.projected_ops_per_sec)
        })
    else {
        return out;
    };
    for r in runs {
        if std::ptr::eq(r, slow) || r.cluster.projected_ops_per_sec <= 0.0 {
            continue;
        }
        let x = r.cluster.projected_ops_per_sec / slow.cluster.projected_ops_per_sec;
        out.push(format!(
            "Projected on the simulated cluster, {} sustains {:.0} ops/s: {:.1}x {}'s {:.0} ops/s{}.",
            r.design,
            r.cluster.projected_ops_per_sec,
            x,
            slow.design,
            slow.cluster.projected_ops_per_sec,
            if x >= 2.0 {
                format!(" — a multiple of it, because {}'s busiest server takes {:.0}% of the writes against {:.0}% for {}", slow.design, slow.cluster.hottest_server_write_share * 100.0, r.cluster.hottest_server_write_share * 100.0, r.design)
            } else {
                String::new()
            }
        ));
    }
    for r in runs {
        out.push(format!(
            "{}: the busiest of {} servers takes {:.0}% of the writes and {:.0}% of the reads (fair share {:.0}%); {} regions at the end.",
            r.design,
            r.cluster.servers,
            r.cluster.hottest_server_write_share * 100.0,
            r.cluster.hottest_server_read_share * 100.0,
            100.0 / r.cluster.servers.max(1) as f64,
            r.summary.final_regions
        ));
    }
    let regions: std::collections::BTreeSet<usize> =
        runs.iter().map(|r| r.summary.final_regions).collect();
    if regions.len() > 1 {
        out.push("Note: the designs end with different region counts, so per-region shares and Gini are not comparable (the fair share 1/regions differs); compare the per-server rows.".to_string());
    }
    let servers: std::collections::BTreeSet<usize> =
        runs.iter().map(|r| r.cluster.servers).collect();
    if servers.len() > 1 {
        out.push("Note: the designs ran on different numbers of simulated servers (their [cluster] servers differ): per-server shares and projected throughput compare different clusters; use --servers N to compare on the same one.".to_string());
    }
    out.push("Single-process engine time is not a throughput: one process on this machine runs every operation and a fan-out scan's parts one after another; it names no winner.".to_string());
    out
}
