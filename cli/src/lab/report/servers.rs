//! The simulated cluster in the report: the per-server heatmap, the cluster's numbers and the
//! projection per operation.

use super::charts::{Metric, heat, legend, max_server_cell};
use super::esc;
use crate::lab::runner::RunResult;
use std::fmt::Write;

/// Heatmap by server: x = windows, y = the simulated RegionServers, colour = the writes (or
/// reads) of every region the server hosted in the window. `max`: the value drawn darkest
/// (`None`: the map's own maximum).
pub fn heatmap_servers(r: &RunResult, m: Metric, w: f64, small: bool, max: Option<u64>) -> String {
    let ws = &r.windows;
    let n = r.cluster.servers.max(1);
    let max = max.unwrap_or_else(|| max_server_cell(r, m));
    let (left, top) = if small { (64.0, 4.0) } else { (150.0, 10.0) };
    let rh = if small { 12.0 } else { 18.0 };
    let h = rh * n as f64;
    let legend_h = if small { 0.0 } else { 34.0 };
    let cw = w / ws.len().max(1) as f64;
    let word = match m {
        Metric::Writes => "writes",
        Metric::Reads => "reads",
    };
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" role="img" aria-label="{word} by server heatmap">"#,
        w + left + 10.0,
        h + top + 22.0 + legend_h
    );
    for (i, win) in ws.iter().enumerate() {
        let x = left + i as f64 * cw;
        let vals = match m {
            Metric::Writes => &win.server_writes,
            Metric::Reads => &win.server_reads,
        };
        let total: u64 = vals.iter().sum();
        for (k, &v) in vals.iter().enumerate() {
            let share = if total == 0 {
                0.0
            } else {
                v as f64 / total as f64 * 100.0
            };
            let _ = write!(
                s,
                r##"<rect x="{x:.2}" y="{:.2}" width="{:.2}" height="{rh}" fill="{}" stroke="#ffffff" stroke-width="0.5"><title>window {i}, server {k} ({} regions): {v} {word} ({share:.0}% of the window's)</title></rect>"##,
                top + k as f64 * rh,
                cw + 0.05,
                heat(v, max),
                win.server_regions.get(k).copied().unwrap_or(0)
            );
        }
    }
    for k in 0..n {
        let _ = write!(
            s,
            r##"<text x="{:.1}" y="{:.1}" font-size="{}" text-anchor="end" fill="#333">server {k}</text>"##,
            left - 3.0,
            top + k as f64 * rh + rh * 0.7,
            if small { 8.0 } else { 10.0 }
        );
    }
    if !small {
        let ops = ws.last().map_or(0, |x| x.end_op);
        let _ = write!(
            s,
            r#"<text x="{left}" y="{}" font-size="11">op 0</text><text x="{}" y="{}" font-size="11" text-anchor="end">op {ops} (time →)</text>"#,
            top + h + 14.0,
            left + w,
            top + h + 14.0
        );
        legend(&mut s, left, top + h + 22.0, max, word);
    }
    s.push_str("</svg>");
    s
}

/// The cluster section of a run's page: the numbers per server and the projection per
/// operation.
pub fn cluster_section(o: &mut String, r: &RunResult) {
    let c = &r.cluster;
    let fair = 100.0 / c.servers.max(1) as f64;
    let _ = write!(
        o,
        "<h2>Simulated cluster: {} RegionServers</h2><p class=cap>Regions are assigned as HBase's master does (round-robin at creation, daughters on the parent's server, SimpleLoadBalancer every {} windows; {} regions moved). Fair share per server: {fair:.1}%.</p>",
        c.servers, c.balance_every, c.balancer_moves
    );
    let _ = write!(
        o,
        "<table><tr><td class=l>Busiest server's share of writes (mean per window)</td><td>{:.1}%</td></tr><tr><td class=l>Busiest server's share of reads (mean per window)</td><td>{:.1}%</td></tr><tr><td class=l>Time with one server over 2× its fair share of writes / reads</td><td>{:.1}% / {:.1}%</td></tr><tr><td class=l>Time with one server over 50% of writes</td><td>{:.1}%</td></tr><tr><td class=l><b>Projected</b> cluster throughput (cost model; bounded by the busiest server)</td><td><b>{:.0} ops/s</b></td></tr><tr><td class=l>Busiest server's share of the projected work (mean per window)</td><td>{:.1}%</td></tr></table>",
        c.hottest_server_write_share * 100.0,
        c.hottest_server_read_share * 100.0,
        c.time_server_over_2x_writes * 100.0,
        c.time_server_over_2x_reads * 100.0,
        c.time_server_over_half_writes * 100.0,
        c.projected_ops_per_sec,
        c.hottest_server_busy_share * 100.0
    );
    o.push_str("<table><tr><th>Server</th><th>Regions (end)</th><th>Writes</th><th>Reads</th><th>Projected busy time</th></tr>");
    for k in 0..c.servers {
        let _ = write!(
            o,
            "<tr><td>{k}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1} ms</td></tr>",
            c.final_regions_per_server.get(k).copied().unwrap_or(0),
            c.server_writes.get(k).copied().unwrap_or(0),
            c.server_reads.get(k).copied().unwrap_or(0),
            c.server_busy_ms.get(k).copied().unwrap_or(0.0)
        );
    }
    o.push_str("</table><h3>Writes by server</h3>");
    o.push_str(&heatmap_servers(r, Metric::Writes, 900.0, false, None));
    o.push_str("<h3>Reads by server</h3>");
    o.push_str(&heatmap_servers(r, Metric::Reads, 900.0, false, None));
    o.push_str("<h3>Projected latency per operation</h3><p class=cap>Projected from the work the engine counted (rows, data blocks, memstore reads per region part) with the lab's cost model plus the per-RPC cost; unloaded (no queueing). Parts of a salted scan run in parallel (its latency is its slowest bucket); a plain scan visits its regions one after another. The measured column is this single process's engine time: it varies between runs and is not a cluster figure.</p>");
    o.push_str("<table><tr><th class=l>Operation</th><th>Count</th><th>Projected p50</th><th>Projected p99</th><th>Regions touched</th><th>Servers touched</th><th>RPCs</th><th>Server time</th><th>Measured engine time (single process)</th></tr>");
    for q in &c.operations {
        let _ = write!(
            o,
            "<tr><td class=l>{}</td><td>{}</td><td>{:.3} ms</td><td>{:.3} ms</td><td>{:.2}</td><td>{:.2}</td><td>{:.2}</td><td>{:.3} ms</td><td>{:.3} ms</td></tr>",
            esc(&q.name),
            q.count,
            q.projected_p50_ms,
            q.projected_p99_ms,
            q.regions_touched_mean,
            q.servers_touched_mean,
            q.rpcs_mean,
            q.server_ms_mean,
            q.measured_engine_ms_mean
        );
    }
    o.push_str("</table>");
}

/// A legend for a shared scale (the comparison page).
pub fn shared_legend(max: u64, what: &str) -> String {
    let mut l = String::new();
    legend(&mut l, 0.0, 2.0, max, what);
    format!("<svg xmlns='http://www.w3.org/2000/svg' width='460' height='20'>{l}</svg>")
}
