//! The lab's HTML report: one self-contained file (inline SVG and CSS, no script, no network)
//! with Key-Visualizer-style heatmaps, the share-of-writes chart, the split timeline and the
//! tables; plus the comparison page and the terminal summary.
//!
//! `charts` draws the SVG pictures (heatmaps, share chart, split timeline), `servers` the
//! simulated cluster's section (per-server heatmap, projection), `compare` the comparison
//! page and `keyviz` the page of a real database's recorded traffic; this module holds the
//! page of one run, its tables and the terminal summary.

mod charts;
mod compare;
pub mod keyviz;
mod servers;

pub use charts::{
    Metric, heat, heatmap_buckets, heatmap_buckets_scaled, heatmap_regions, heatmap_regions_scaled,
    share_chart, split_timeline,
};
pub use compare::{compare_html, headline, winners};
pub use servers::heatmap_servers;

use super::runner::{QueryStats, RegionRow, RunResult};
use servers::cluster_section;
use std::fmt::Write;

/// Escapes text for HTML.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(c),
        }
    }
    o
}

const CSS: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#1b1f24;max-width:1200px}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd;padding-bottom:4px}
table{border-collapse:collapse;font-size:12px;margin:8px 0}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:right}
th{background:#f3f5f7}td.l,th.l{text-align:left}code{background:#f3f5f7;padding:1px 4px;border-radius:3px}
.win{background:#e6f4ea;font-weight:600}.grid{display:flex;flex-wrap:wrap;gap:16px}.cap{font-size:12px;color:#555;margin:2px 0 10px}
ul.f li{margin:4px 0}.mono{font-family:ui-monospace,monospace;word-break:break-all}";

fn fmt_bytes(b: u64) -> String {
    if b >= 1 << 20 {
        format!("{:.1} MiB", b as f64 / f64::from(1u32 << 20))
    } else if b >= 1 << 10 {
        format!("{:.1} KiB", b as f64 / 1024.0)
    } else {
        format!("{b} B")
    }
}

fn region_table(out: &mut String, rows: &[RegionRow]) {
    out.push_str("<p class=cap>Writes and reads of the key range: the whole run, counted by key (a write made before a split counts in the daughter holding its key). Engine counters: since the region opened (they restart at 0 in each split daughter).</p><table><tr><th class=l>Name</th><th class=l>Start key</th><th class=l>End key</th><th>Server</th><th>Size</th><th>Files</th><th>Writes of the key range</th><th>Reads of the key range</th><th>Engine write requests</th><th>Engine read requests</th></tr>");
    for r in rows {
        let _ = write!(
            out,
            "<tr><td class='l mono'>{}</td><td class='l mono'>{}</td><td class='l mono'>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&r.name),
            esc(&r.start_key),
            esc(&r.end_key),
            r.server,
            fmt_bytes(r.size_bytes),
            r.files,
            r.range_writes,
            r.range_reads,
            r.write_requests,
            r.read_requests
        );
    }
    out.push_str("</table>");
}

fn query_table(out: &mut String, qs: &[QueryStats]) {
    out.push_str("<table><tr><th class=l>Operation</th><th class=l>Plan</th><th>Count</th><th>Regions touched (mean)</th><th>max</th><th>of regions</th><th>Rows examined (mean)</th><th>Rows matched (mean)</th><th>Data blocks read (mean)</th><th>Memstore reads (mean)</th><th>Missed rows</th></tr>");
    for q in qs {
        let _ = write!(
            out,
            "<tr><td class=l>{}</td><td class=l>{}</td><td>{}</td><td>{:.2}</td><td>{}</td><td>{:.1}</td><td>{:.1}</td><td>{:.1}</td><td>{:.1}</td><td>{:.1}</td><td>{}</td></tr>",
            esc(&q.name),
            esc(&q.plan),
            q.count,
            q.mean_regions_touched,
            q.max_regions_touched,
            q.mean_regions_total,
            q.mean_rows_examined,
            q.mean_rows_matched,
            q.mean_blocks_read,
            q.mean_memstore_reads,
            q.missed
        );
    }
    out.push_str("</table>");
}

fn summary_rows(r: &RunResult) -> Vec<(&'static str, String)> {
    let s = &r.summary;
    vec![
        (
            "Hottest region's share of writes (mean per window)",
            format!("{:.1}%", s.mean_hottest_share * 100.0),
        ),
        (
            "… as a multiple of the fair share (mean)",
            format!("{:.2}x", s.mean_hottest_ratio),
        ),
        ("… worst window", format!("{:.2}x", s.max_hottest_ratio)),
        (
            "Gini of writes across regions (mean per window; favours tables with few regions)",
            format!("{:.3}", s.mean_gini),
        ),
        (
            "Time with one region taking > 50% of writes",
            format!("{:.1}%", s.time_over_half * 100.0),
        ),
        ("Splits", s.splits.to_string()),
        (
            "Regions: initial → final",
            format!("{} → {}", s.initial_regions, s.final_regions),
        ),
        ("Operations (puts)", format!("{} ({})", s.ops, s.puts)),
        (
            "Hottest region's share of reads (mean per window)",
            if s.reads == 0 {
                "no reads".to_string()
            } else {
                format!(
                    "{:.1}% ({:.2}x fair share; > 50% during {:.1}% of the run)",
                    s.mean_hottest_read_share * 100.0,
                    s.mean_hottest_read_ratio,
                    s.read_time_over_half * 100.0
                )
            },
        ),
        (
            "Projected cluster throughput (cost model, busiest server bounds it)",
            format!(
                "{:.0} ops/s on {} servers",
                r.cluster.projected_ops_per_sec, r.cluster.servers
            ),
        ),
        (
            "Busiest server's share of writes / reads (mean per window)",
            format!(
                "{:.1}% / {:.1}% (fair share {:.1}%)",
                r.cluster.hottest_server_write_share * 100.0,
                r.cluster.hottest_server_read_share * 100.0,
                100.0 / r.cluster.servers.max(1) as f64
            ),
        ),
        (
            "Single-process engine time (measured; not a cluster figure)",
            format!("{:.2} s = {:.0} ops/s", s.wall_secs, s.ops_per_sec),
        ),
        ("Data written (keys + values)", fmt_bytes(s.logical_bytes)),
        (
            "Data stored (files + memstores)",
            format!("{} in {} files", fmt_bytes(s.stored_bytes), s.store_files),
        ),
    ]
}

fn head(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{}</title><style>{CSS}</style></head><body>",
        esc(title)
    );
}

/// The report of one run.
pub fn run_html(r: &RunResult) -> String {
    let mut o = String::new();
    head(&mut o, &format!("cellbase lab: {}", r.design));
    let _ = write!(
        o,
        "<h1>cellbase lab: {}</h1><p>{}</p><p>Rowkey: <code>{}</code> — e.g. <span class=mono>{}</span><br>Design file <code>{}</code>, seed {}, {} records, pre-split: {}, max_region_size {}, memstore_flush_size {}, one sampling window = {} operations.</p>",
        esc(&r.design),
        esc(&r.description),
        esc(&r.rowkey),
        esc(&r.example_keys.join(", ")),
        esc(&r.file),
        r.seed,
        r.records,
        esc(&r.pre_split),
        fmt_bytes(r.max_region_size),
        fmt_bytes(r.memstore_flush_size),
        r.window_ops
    );
    o.push_str("<h2>Findings</h2><ul class=f>");
    for f in &r.findings {
        let _ = write!(o, "<li>{}</li>", esc(f));
    }
    o.push_str("</ul><h2>What to try next</h2><ul class=f>");
    for f in &r.next_steps {
        let _ = write!(o, "<li>{}</li>", esc(f));
    }
    o.push_str("</ul><h2>Metrics</h2><table>");
    for (k, v) in summary_rows(r) {
        let _ = write!(
            o,
            "<tr><td class=l>{}</td><td>{}</td></tr>",
            esc(k),
            esc(&v)
        );
    }
    o.push_str("</table>");
    o.push_str("<h2>Writes: heatmap by region</h2><p class=cap>x: time (operations), y: key space from the first rowkey (top) to the last (bottom), labelled with the final regions' start keys; each band is a region as it existed in that window, coloured by the writes the engine counted for it. White dots: split rows. Hatched: key space no write had reached yet.</p>");
    o.push_str(&heatmap_regions(r, Metric::Writes, 900.0, 300.0, false));
    o.push_str("<h2>Writes: heatmap by key-range bucket</h2><p class=cap>y: the run's rowkeys cut into equal-count buckets; colour: writes of keys in the bucket.</p>");
    o.push_str(&heatmap_buckets(r, Metric::Writes, 900.0, 300.0, false));
    o.push_str("<h2>Hottest region's share of writes</h2>");
    o.push_str(&share_chart(r, 900.0, 160.0));
    o.push_str("<h2>Reads: heatmap by region</h2><p class=cap>Colour: read requests (one per Get, one per row a scan returned).</p>");
    o.push_str(&heatmap_regions(r, Metric::Reads, 900.0, 300.0, false));
    o.push_str("<h2>Reads: heatmap by key-range bucket</h2>");
    o.push_str(&heatmap_buckets(r, Metric::Reads, 900.0, 300.0, false));
    cluster_section(&mut o, r);
    o.push_str("<h2>Queries</h2><p class=cap>Regions touched: regions whose key range the read overlapped (every salt bucket for a salted scan). Rows examined: rows the engine read for it (its read-request counters). Blocks: data blocks read from files. Memstore reads: region parts whose memstore held data (a read served from memstores reads no block, but it is still a read).</p>");
    query_table(&mut o, &r.queries);
    o.push_str("<h2>Split timeline</h2>");
    o.push_str(&split_timeline(r, 900.0, 120.0));
    o.push_str("<table><tr><th>#</th><th>Operation</th><th class=l>Split row</th><th>Regions after</th></tr>");
    for (i, s) in r.splits.iter().enumerate() {
        let _ = write!(
            o,
            "<tr><td>{}</td><td>{}</td><td class='l mono'>{}</td><td>{}</td></tr>",
            i + 1,
            s.op,
            esc(&s.row),
            s.regions_after
        );
    }
    o.push_str("</table><h2>Regions (final)</h2>");
    region_table(&mut o, &r.regions);
    for (name, rows) in &r.index_regions {
        let _ = write!(
            o,
            "<h2>Index table <code>{}</code>: regions</h2>",
            esc(name)
        );
        region_table(&mut o, rows);
    }
    o.push_str("</body></html>\n");
    o
}

/// A few terminal lines about one run.
pub fn terminal(r: &RunResult) -> String {
    let s = &r.summary;
    let mut o = format!(
        "== {} ({}) ==\n  rowkey {}  e.g. {}\n  {} ops ({} puts), single-process engine time {:.2} s = {:.0} ops/s (measured, not a cluster figure); regions {} -> {} ({} splits)\n  hottest region: {:.1}% of writes per window ({:.2}x fair share, worst {:.2}x); Gini {:.3}; one region > 50% during {:.1}% of the run\n  {} simulated servers: busiest takes {:.1}% of writes, {:.1}% of reads; projected cluster throughput {:.0} ops/s\n",
        r.design,
        r.file,
        r.rowkey,
        r.example_keys.first().map_or("", |s| s.as_str()),
        s.ops,
        s.puts,
        s.wall_secs,
        s.ops_per_sec,
        s.initial_regions,
        s.final_regions,
        s.splits,
        s.mean_hottest_share * 100.0,
        s.mean_hottest_ratio,
        s.max_hottest_ratio,
        s.mean_gini,
        s.time_over_half * 100.0,
        r.cluster.servers,
        r.cluster.hottest_server_write_share * 100.0,
        r.cluster.hottest_server_read_share * 100.0,
        r.cluster.projected_ops_per_sec
    );
    for q in &r.queries {
        if q.plan == "put" || q.plan == "delete" {
            continue;
        }
        let _ = writeln!(
            o,
            "  {:<28} {:<22} x{:<5} regions {:.1}/{:.1}  rows examined {:.1}  matched {:.1}  blocks {:.1}  memstore {:.1}{}{}",
            q.name,
            q.plan,
            q.count,
            q.mean_regions_touched,
            q.mean_regions_total,
            q.mean_rows_examined,
            q.mean_rows_matched,
            q.mean_blocks_read,
            q.mean_memstore_reads,
            r.cluster
                .operations
                .iter()
                .find(|o| o.name == q.name)
                .map_or(String::new(), |o| format!(
                    "  projected p50 {:.2} ms p99 {:.2} ms on {:.1} servers",
                    o.projected_p50_ms, o.projected_p99_ms, o.servers_touched_mean
                )),
            if q.missed > 0 {
                format!("  MISSED {}", q.missed)
            } else {
                String::new()
            }
        );
    }
    o
}
