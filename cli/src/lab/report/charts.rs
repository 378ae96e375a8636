//! The report's SVG charts: the heat scale, the heatmaps by region and by key bucket, the
//! hottest region's share of writes and the split timeline.

use super::esc;
use crate::lab::runner::{RunResult, Window};
use std::fmt::Write;

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

pub(super) fn legend(out: &mut String, x: f64, y: f64, max: u64, what: &str) {
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

/// The largest per-region cell value of `r` for `m` (the by-region heatmap's own scale).
pub fn max_region_cell(r: &RunResult, m: Metric) -> u64 {
    r.windows
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
        .unwrap_or(0)
}

/// The largest per-bucket cell value of `r` for `m`.
pub fn max_bucket_cell(r: &RunResult, m: Metric) -> u64 {
    max_window_cell(r, |x| match m {
        Metric::Writes => &x.bucket_writes,
        Metric::Reads => &x.bucket_reads,
    })
}

/// The largest per-server cell value of `r` for `m`.
pub fn max_server_cell(r: &RunResult, m: Metric) -> u64 {
    max_window_cell(r, |x| match m {
        Metric::Writes => &x.server_writes,
        Metric::Reads => &x.server_reads,
    })
}

/// The largest value of the per-window counts `pick` chooses.
fn max_window_cell(r: &RunResult, pick: impl Fn(&Window) -> &Vec<u64>) -> u64 {
    r.windows
        .iter()
        .flat_map(|x| pick(x).iter())
        .copied()
        .max()
        .unwrap_or(0)
}

/// A hatch pattern for key space no write has reached yet (light, so that it never reads as
/// traffic).
const HATCH: &str = r##"<defs><pattern id="unwritten" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ffffff"/><line x1="0" y1="0" x2="0" y2="6" stroke="#b8bec6" stroke-width="2"/></pattern></defs>"##;

/// Hatches, per window, the key-range buckets no write had reached by the window's end.
fn hatch_unwritten(s: &mut String, r: &RunResult, left: f64, top: f64, cw: f64, h: f64) {
    let nb = r.bucket_starts.len().max(1);
    let bh = h / nb as f64;
    let mut reached = vec![false; nb];
    for (i, win) in r.windows.iter().enumerate() {
        for (b, &v) in win.bucket_writes.iter().enumerate().take(nb) {
            reached[b] |= v > 0;
        }
        let x = left + i as f64 * cw;
        let mut b = 0;
        while b < nb {
            if reached[b] {
                b += 1;
                continue;
            }
            let from = b;
            while b < nb && !reached[b] {
                b += 1;
            }
            let _ = write!(
                s,
                r#"<rect x="{x:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="url(#unwritten)"><title>window {i}: key space not written yet</title></rect>"#,
                top + from as f64 * bh,
                cw + 0.05,
                (b - from) as f64 * bh
            );
        }
    }
}

/// Region start keys on the left of a by-region heatmap, at their positions (final regions;
/// labels closer than a line to the previous one are left out).
fn key_labels(s: &mut String, r: &RunResult, left: f64, top: f64, h: f64, small: bool) {
    let (font, chars) = if small { (7.0, 10) } else { (9.0, 18) };
    let mut last = f64::NEG_INFINITY;
    for reg in &r.regions {
        let y = top + reg.y * h + font * 0.8;
        if y - last < font + 1.0 || y > top + h + font {
            continue;
        }
        last = y;
        let k = if reg.start_key.is_empty() {
            "(first)".to_string()
        } else if reg.start_key.chars().count() > chars {
            format!("{}…", reg.start_key.chars().take(chars).collect::<String>())
        } else {
            reg.start_key.clone()
        };
        let _ = write!(
            s,
            r##"<text x="{:.1}" y="{y:.1}" font-size="{font}" text-anchor="end" font-family="monospace" fill="#333"><title>region start key {}</title>{}</text>"##,
            left - 3.0,
            esc(&reg.start_key),
            esc(&k)
        );
    }
}

/// Heatmap by region: x = windows, y = key space (rank of keys, first key at the top), one
/// band per region as the region existed in that window; white dots mark the split rows.
pub fn heatmap_regions(r: &RunResult, m: Metric, w: f64, h: f64, small: bool) -> String {
    heatmap_regions_scaled(r, m, w, h, small, None)
}

/// [`heatmap_regions`] on a given colour scale (`max`: the value drawn darkest; `None`: the
/// map's own maximum). Region start keys label the y axis; key space no write had reached
/// yet is hatched.
pub fn heatmap_regions_scaled(
    r: &RunResult,
    m: Metric,
    w: f64,
    h: f64,
    small: bool,
    max: Option<u64>,
) -> String {
    let ws = &r.windows;
    let max = max.unwrap_or_else(|| max_region_cell(r, m));
    let (left, top) = if small { (64.0, 4.0) } else { (150.0, 10.0) };
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
    s.push_str(HATCH);
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
    hatch_unwritten(&mut s, r, left, top, cw, h);
    key_labels(&mut s, r, left, top, h, small);
    for sp in &r.splits {
        let x = left + (sp.window as f64 + 1.0) * cw;
        let y = top + sp.y * h;
        let _ = write!(
            s,
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="{}" fill="#ffffff" stroke="#1f4e79" stroke-width="1"><title>split at {}</title></circle>"##,
            if small { 1.5 } else { 2.5 },
            esc(&sp.row)
        );
    }
    if !small {
        axis(&mut s, left, top, w, h, r, false);
        let _ = write!(
            s,
            r#"<text x="6" y="{}" font-size="11" transform="rotate(-90 12 {})">key space (region start keys)</text>"#,
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
    heatmap_buckets_scaled(r, m, w, h, small, None)
}

/// [`heatmap_buckets`] on a given colour scale (`None`: the map's own maximum).
pub fn heatmap_buckets_scaled(
    r: &RunResult,
    m: Metric,
    w: f64,
    h: f64,
    small: bool,
    max: Option<u64>,
) -> String {
    let ws = &r.windows;
    let pick = |x: &Window| -> Vec<u64> {
        if m == Metric::Writes {
            x.bucket_writes.clone()
        } else {
            x.bucket_reads.clone()
        }
    };
    let nb = r.bucket_starts.len().max(1);
    let max = max.unwrap_or_else(|| max_bucket_cell(r, m));
    let (left, top) = if small { (64.0, 4.0) } else { (150.0, 10.0) };
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
    s.push_str(HATCH);
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
    hatch_unwritten(&mut s, r, left, top, cw, h);
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
