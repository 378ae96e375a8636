//! The comparison page: one row per metric, the design that wins it, and each design's charts.

use super::charts::legend;
use super::{Metric, esc, fmt_bytes, head, heatmap_buckets, heatmap_regions};
use crate::lab::runner::{QueryStats, RunResult};
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
        num(
            "Hottest region's share of writes (mean)",
            Some(true),
            &|r| r.summary.mean_hottest_share,
            &pctf,
        ),
        num(
            "Hottest / fair share (mean)",
            Some(true),
            &|r| r.summary.mean_hottest_ratio,
            &|x| format!("{x:.2}x"),
        ),
        num(
            "Hottest / fair share (worst window)",
            Some(true),
            &|r| r.summary.max_hottest_ratio,
            &|x| format!("{x:.2}x"),
        ),
        num(
            "Gini of writes across regions (mean)",
            Some(true),
            &|r| r.summary.mean_gini,
            &|x| format!("{x:.3}"),
        ),
        num(
            "Time with one region > 50% of writes",
            Some(true),
            &|r| r.summary.time_over_half,
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
        num(
            "Hottest region's share of reads (mean)",
            Some(true),
            &|r| r.summary.mean_hottest_read_share,
            &pctf,
        ),
        num(
            "Time with one region > 50% of reads",
            Some(true),
            &|r| r.summary.read_time_over_half,
            &pctf,
        ),
        // Not a contest: one process on this machine runs every operation, a fan-out scan's
        // parts one after another, where a cluster runs them on many servers at once.
        num(
            "Single-process engine rate (ops/s; not a cluster projection)",
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
            if q.plan != "put" && !names.contains(&q.name) {
                names.push(q.name.clone());
            }
        }
    }
    for n in names {
        let find = |r: &RunResult| r.queries.iter().find(|q| q.name == n).cloned();
        for (what, f) in [
            (
                "regions touched",
                (|q: &QueryStats| q.mean_regions_touched) as fn(&QueryStats) -> f64,
            ),
            ("rows examined", |q: &QueryStats| q.mean_rows_examined),
            ("data blocks read", |q: &QueryStats| q.mean_blocks_read),
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
    o.push_str("</table><h2>Metrics</h2><table><tr><th class=l>Metric</th>");
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
    for (title, m) in [("Writes", Metric::Writes), ("Reads", Metric::Reads)] {
        let _ = write!(
            o,
            "<h2>{title}: small multiples</h2><p class=cap>Top: by region (white dots: splits); bottom: by key-range bucket. x: time, y: key space; each map has its own scale.</p><div class=grid>"
        );
        for r in runs {
            let _ = write!(o, "<div><b>{}</b><br>", esc(&r.design));
            o.push_str(&heatmap_regions(r, m, 360.0, 180.0, true));
            o.push_str("<br>");
            o.push_str(&heatmap_buckets(r, m, 360.0, 180.0, true));
            o.push_str("</div>");
        }
        o.push_str("</div>");
    }
    let mut l = String::new();
    legend(&mut l, 0.0, 2.0, 100, "relative");
    let _ = write!(
        o,
        "<p class=cap>Colour scale (each map relative to its own maximum):</p><svg xmlns='http://www.w3.org/2000/svg' width='560' height='20'>{l}</svg>"
    );
    o.push_str("</body></html>\n");
    o
}
