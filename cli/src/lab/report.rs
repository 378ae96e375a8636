//! The lab's HTML report: one self-contained file (inline SVG and CSS, no script, no network)
//! with Key-Visualizer-style heatmaps, the share-of-writes chart, the split timeline and the
//! tables; plus the comparison page and the terminal summary.

use super::runner::{QueryStats, RegionRow, RunResult, Window};
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

/// Colour stops of the heat scale, cold to hot (light yellow to dark purple): readable on white
/// and in grey scale.
const STOPS: [(u8, u8, u8); 5] = [
    (255, 245, 192),
    (254, 196, 79),
    (240, 59, 32),
    (189, 0, 38),
    (73, 0, 106),
];
/// Colour of a cell with no traffic.
const EMPTY: &str = "#eef0f3";

/// The colour of `v` on a scale up to `max` (square-root scale, so that cool traffic next to a
/// hot spot stays visible).
pub fn heat(v: u64, max: u64) -> String {
    if v == 0 || max == 0 {
        return EMPTY.to_string();
    }
    let t = (v as f64 / max as f64).sqrt().clamp(0.0, 1.0);
    let x = t * (STOPS.len() - 1) as f64;
    let i = (x.floor() as usize).min(STOPS.len() - 2);
    let f = x - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    let mix = |p: u8, q: u8| (f64::from(p) + (f64::from(q) - f64::from(p)) * f).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(a.0, b.0),
        mix(a.1, b.1),
        mix(a.2, b.2)
    )
}

/// Which counter a heatmap shows.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Writes.
    Writes,
    /// Reads.
    Reads,
}

impl Metric {
    fn word(self) -> &'static str {
        match self {
            Metric::Writes => "writes",
            Metric::Reads => "reads",
        }
    }
}

fn legend(out: &mut String, x: f64, y: f64, max: u64, what: &str) {
    let _ = write!(
        out,
        r#"<g class="legend"><text x="{x}" y="{}" font-size="11">{what} per cell:</text>"#,
        y + 11.0
    );
    let x0 = x + 110.0;
    let _ = write!(
        out,
        r##"<rect x="{x0}" y="{y}" width="14" height="14" fill="{EMPTY}" stroke="#999" stroke-width="0.5"/><text x="{}" y="{}" font-size="11">0</text>"##,
        x0 + 18.0,
        y + 11.0
    );
    let steps = 24;
    for i in 0..steps {
        let v = ((i + 1) as f64 / steps as f64).powi(2) * max as f64;
        let _ = write!(
            out,
            r#"<rect x="{}" y="{y}" width="6" height="14" fill="{}"/>"#,
            x0 + 40.0 + i as f64 * 6.0,
            heat(v.ceil() as u64, max.max(1))
        );
    }
    let _ = write!(
        out,
        r#"<text x="{}" y="{}" font-size="11">{max} (square-root scale)</text></g>"#,
        x0 + 40.0 + steps as f64 * 6.0 + 6.0,
        y + 11.0
    );
}

/// Heatmap by region: x = windows, y = key space (rank of keys, first key at the top), one
/// band per region as the region existed in that window; white dots mark the split rows.
pub fn heatmap_regions(r: &RunResult, m: Metric, w: f64, h: f64, small: bool) -> String {
    let ws = &r.windows;
    let max = ws
        .iter()
        .flat_map(|x| x.cells.iter())
        .map(|c| {
            if m == Metric::Writes {
                c.writes
            } else {
                c.reads
            }
        })
        .max()
        .unwrap_or(0);
    let (left, top) = if small { (4.0, 4.0) } else { (60.0, 10.0) };
    let legend_h = if small { 0.0 } else { 34.0 };
    let cw = w / ws.len().max(1) as f64;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" role="img" aria-label="{} by region heatmap">"#,
        w + left + 10.0,
        h + top + 30.0 + legend_h,
        m.word()
    );
    let _ = write!(
        s,
        r##"<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="{EMPTY}"/>"##
    );
    for (i, win) in ws.iter().enumerate() {
        let x = left + i as f64 * cw;
        for c in &win.cells {
            let v = if m == Metric::Writes {
                c.writes
            } else {
                c.reads
            };
            let y0 = top + c.y0 * h;
            let hh = ((c.y1 - c.y0) * h).max(1.0);
            let _ = write!(
                s,
                r##"<rect x="{x:.2}" y="{y0:.2}" width="{:.2}" height="{hh:.2}" fill="{}" stroke="#ffffff" stroke-width="0.3"><title>window {i}: {v} {}</title></rect>"##,
                cw + 0.05,
                heat(v, max),
                m.word()
            );
        }
    }
    for sp in &r.splits {
        let x = left + (sp.window as f64 + 1.0) * cw;
        let y = top + sp.y * h;
        let _ = write!(
            s,
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="{}" fill="#ffffff" stroke="#1f4e79" stroke-width="1"><title>split at {}</title></circle>"##,
            if small { 1.5 } else { 2.5 },
            super::report::esc(&sp.row)
        );
    }
    if !small {
        axis(&mut s, left, top, w, h, r, true);
        let _ = write!(
            s,
            r#"<text x="6" y="{}" font-size="11" transform="rotate(-90 12 {})">key space</text>"#,
            top + h / 2.0,
            top + h / 2.0
        );
        legend(&mut s, left, top + h + 26.0, max, m.word());
    }
    s.push_str("</svg>");
    s
}

fn axis(s: &mut String, left: f64, top: f64, w: f64, h: f64, r: &RunResult, keys: bool) {
    let ops = r.windows.last().map_or(0, |x| x.end_op);
    let _ = write!(
        s,
        r#"<text x="{left}" y="{}" font-size="11">op 0</text><text x="{}" y="{}" font-size="11" text-anchor="end">op {ops} (time →)</text>"#,
        top + h + 14.0,
        left + w,
        top + h + 14.0
    );
    if !keys {
        return;
    }
    let _ = write!(
        s,
        r#"<text x="{}" y="{}" font-size="10" text-anchor="end">first</text><text x="{}" y="{}" font-size="10" text-anchor="end">last</text>"#,
        left - 4.0,
        top + 10.0,
        left - 4.0,
        top + h
    );
}

/// Heatmap by key-range bucket: x = windows, y = equal-count buckets of the run's rowkeys.
pub fn heatmap_buckets(r: &RunResult, m: Metric, w: f64, h: f64, small: bool) -> String {
    let ws = &r.windows;
    let pick = |x: &Window| -> Vec<u64> {
        if m == Metric::Writes {
            x.bucket_writes.clone()
        } else {
            x.bucket_reads.clone()
        }
    };
    let nb = r.bucket_starts.len().max(1);
    let max = ws.iter().flat_map(pick).max().unwrap_or(0);
    let (left, top) = if small { (4.0, 4.0) } else { (60.0, 10.0) };
    let legend_h = if small { 0.0 } else { 34.0 };
    let cw = w / ws.len().max(1) as f64;
    let bh = h / nb as f64;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" role="img" aria-label="{} by key-range bucket heatmap">"#,
        w + left + 10.0,
        h + top + 30.0 + legend_h,
        m.word()
    );
    for (i, win) in ws.iter().enumerate() {
        let x = left + i as f64 * cw;
        for (b, v) in pick(win).into_iter().enumerate() {
            let _ = write!(
                s,
                r#"<rect x="{x:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="{}"><title>window {i}, keys from {}: {v} {}</title></rect>"#,
                top + b as f64 * bh,
                cw + 0.05,
                bh + 0.05,
                heat(v, max),
                esc(&r.bucket_starts[b.min(nb - 1)]),
                m.word()
            );
        }
    }
    if !small {
        axis(&mut s, left, top, w, h, r, true);
        let _ = write!(
            s,
            r#"<text x="6" y="{}" font-size="11" transform="rotate(-90 12 {})">key buckets</text>"#,
            top + h / 2.0,
            top + h / 2.0
        );
        legend(&mut s, left, top + h + 26.0, max, m.word());
    }
    s.push_str("</svg>");
    s
}

/// Hottest region's share of each window's writes, against the fair share `1/regions`.
pub fn share_chart(r: &RunResult, w: f64, h: f64) -> String {
    let (left, top) = (60.0, 10.0);
    let ws = &r.windows;
    let cw = w / ws.len().max(1) as f64;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" role="img" aria-label="hottest region share chart">"#,
        w + left + 10.0,
        h + top + 50.0
    );
    let _ = write!(
        s,
        r##"<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="#fafbfc" stroke="#ccc"/>"##
    );
    for (frac, label) in [(0.0, "0%"), (0.5, "50%"), (1.0, "100%")] {
        let y = top + h - frac * h;
        let _ = write!(
            s,
            r##"<line x1="{left}" x2="{}" y1="{y}" y2="{y}" stroke="#ddd"/><text x="{}" y="{}" font-size="10" text-anchor="end">{label}</text>"##,
            left + w,
            left - 4.0,
            y + 3.0
        );
    }
    let mut hot = String::new();
    let mut fair = String::new();
    for (i, win) in ws.iter().enumerate() {
        let x = left + (i as f64 + 0.5) * cw;
        let _ = write!(hot, "{x:.1},{:.1} ", top + h - win.hottest_share * h);
        let f = if win.regions > 0 {
            1.0 / win.regions as f64
        } else {
            0.0
        };
        let _ = write!(fair, "{x:.1},{:.1} ", top + h - f * h);
    }
    let _ = write!(
        s,
        r##"<polyline points="{hot}" fill="none" stroke="#bd0026" stroke-width="2"/><polyline points="{fair}" fill="none" stroke="#1f4e79" stroke-width="1.5" stroke-dasharray="4 3"/>"##
    );
    axis(&mut s, left, top, w, h, r, false);
    let ly = top + h + 30.0;
    let _ = write!(
        s,
        r##"<line x1="{left}" x2="{}" y1="{ly}" y2="{ly}" stroke="#bd0026" stroke-width="2"/><text x="{}" y="{}" font-size="11">hottest region's share of the window's writes</text><line x1="{}" x2="{}" y1="{ly}" y2="{ly}" stroke="#1f4e79" stroke-dasharray="4 3" stroke-width="1.5"/><text x="{}" y="{}" font-size="11">fair share (1 / regions)</text>"##,
        left + 20.0,
        left + 24.0,
        ly + 4.0,
        left + 300.0,
        left + 320.0,
        left + 324.0,
        ly + 4.0
    );
    s.push_str("</svg>");
    s
}

/// Region count over the run, with a tick at every split.
pub fn split_timeline(r: &RunResult, w: f64, h: f64) -> String {
    let (left, top) = (60.0, 10.0);
    let ws = &r.windows;
    let cw = w / ws.len().max(1) as f64;
    let maxr = ws
        .iter()
        .map(|x| x.regions)
        .chain(std::iter::once(r.summary.final_regions))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" role="img" aria-label="split timeline">"#,
        w + left + 10.0,
        h + top + 24.0
    );
    let _ = write!(
        s,
        r##"<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="#fafbfc" stroke="#ccc"/><text x="{}" y="{}" font-size="10" text-anchor="end">{maxr}</text><text x="{}" y="{}" font-size="10" text-anchor="end">0</text>"##,
        left - 4.0,
        top + 8.0,
        left - 4.0,
        top + h
    );
    let mut pts = String::new();
    for (i, win) in ws.iter().enumerate() {
        let y = top + h - win.regions as f64 / maxr * h;
        let _ = write!(
            pts,
            "{:.1},{y:.1} {:.1},{y:.1} ",
            left + i as f64 * cw,
            left + (i + 1) as f64 * cw
        );
    }
    let _ = write!(
        s,
        r##"<polyline points="{pts}" fill="none" stroke="#1f4e79" stroke-width="2"/>"##
    );
    for sp in &r.splits {
        let x = left + (sp.window as f64 + 1.0) * cw;
        let _ = write!(
            s,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{}" stroke="#bd0026" stroke-width="1" opacity="0.6"><title>split at op {} at {}</title></line>"##,
            top + h,
            sp.op,
            esc(&sp.row)
        );
    }
    axis(&mut s, left, top, w, h, r, false);
    s.push_str("</svg>");
    s
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
    out.push_str("<table><tr><th class=l>Name</th><th class=l>Start key</th><th class=l>End key</th><th>Size</th><th>Files</th><th>Read requests</th><th>Write requests</th></tr>");
    for r in rows {
        let _ = write!(
            out,
            "<tr><td class='l mono'>{}</td><td class='l mono'>{}</td><td class='l mono'>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&r.name),
            esc(&r.start_key),
            esc(&r.end_key),
            fmt_bytes(r.size_bytes),
            r.files,
            r.read_requests,
            r.write_requests
        );
    }
    out.push_str("</table>");
}

fn query_table(out: &mut String, qs: &[QueryStats]) {
    out.push_str("<table><tr><th class=l>Operation</th><th class=l>Plan</th><th>Count</th><th>Regions touched (mean)</th><th>max</th><th>of regions</th><th>Rows examined (mean)</th><th>Rows matched (mean)</th><th>Data blocks read (mean)</th><th>Missed rows</th></tr>");
    for q in qs {
        let _ = write!(
            out,
            "<tr><td class=l>{}</td><td class=l>{}</td><td>{}</td><td>{:.2}</td><td>{}</td><td>{:.1}</td><td>{:.1}</td><td>{:.1}</td><td>{:.1}</td><td>{}</td></tr>",
            esc(&q.name),
            esc(&q.plan),
            q.count,
            q.mean_regions_touched,
            q.max_regions_touched,
            q.mean_regions_total,
            q.mean_rows_examined,
            q.mean_rows_matched,
            q.mean_blocks_read,
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
            "Gini of writes across regions (mean per window)",
            format!("{:.3}", s.mean_gini),
        ),
        (
            "Time with one region taking > 50% of writes",
            format!("{:.1}%", s.time_over_half * 100.0),
        ),
        (
            "Gini of writes across key buckets (whole run)",
            format!("{:.3}", s.key_bucket_gini),
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
            "Single-process engine rate (not a cluster projection)",
            format!("{:.0} ops/s ({:.2} s)", s.ops_per_sec, s.wall_secs),
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
    o.push_str("<h2>Writes: heatmap by region</h2><p class=cap>x: time (operations), y: key space from the first rowkey (top) to the last (bottom); each band is a region as it existed in that window, coloured by the writes the engine counted for it. White dots: split rows.</p>");
    o.push_str(&heatmap_regions(r, Metric::Writes, 900.0, 300.0, false));
    o.push_str("<h2>Writes: heatmap by key-range bucket</h2><p class=cap>y: the run's rowkeys cut into equal-count buckets; colour: writes of keys in the bucket.</p>");
    o.push_str(&heatmap_buckets(r, Metric::Writes, 900.0, 300.0, false));
    o.push_str("<h2>Hottest region's share of writes</h2>");
    o.push_str(&share_chart(r, 900.0, 160.0));
    o.push_str("<h2>Reads: heatmap by region</h2><p class=cap>Colour: read requests (one per Get, one per row a scan returned).</p>");
    o.push_str(&heatmap_regions(r, Metric::Reads, 900.0, 300.0, false));
    o.push_str("<h2>Reads: heatmap by key-range bucket</h2>");
    o.push_str(&heatmap_buckets(r, Metric::Reads, 900.0, 300.0, false));
    o.push_str("<h2>Queries</h2><p class=cap>Regions touched: regions whose key range the read overlapped (every salt bucket for a salted scan). Rows examined: rows the engine read for it (its read-request counters). Blocks: data blocks read from files.</p>");
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

/// A few terminal lines about one run.
pub fn terminal(r: &RunResult) -> String {
    let s = &r.summary;
    let mut o = format!(
        "== {} ({}) ==\n  rowkey {}  e.g. {}\n  {} ops ({} puts), engine time {:.2} s = {:.0} ops/s; regions {} -> {} ({} splits)\n  hottest region: {:.1}% of writes per window ({:.2}x fair share, worst {:.2}x); Gini {:.3}; one region > 50% during {:.1}% of the run\n",
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
        s.time_over_half * 100.0
    );
    for q in &r.queries {
        if q.plan == "put" {
            continue;
        }
        let _ = writeln!(
            o,
            "  {:<28} {:<22} x{:<5} regions {:.1}/{:.1}  rows examined {:.1}  matched {:.1}  blocks {:.1}{}",
            q.name,
            q.plan,
            q.count,
            q.mean_regions_touched,
            q.mean_regions_total,
            q.mean_rows_examined,
            q.mean_rows_matched,
            q.mean_blocks_read,
            if q.missed > 0 {
                format!("  MISSED {}", q.missed)
            } else {
                String::new()
            }
        );
    }
    o
}
