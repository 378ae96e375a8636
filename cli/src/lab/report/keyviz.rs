//! `cellbase lab keyviz`: the lab's by-region heatmaps for a real database's recorded traffic
//! (`DbOptions::traffic_recording`, saved in the directory's `TRAFFIC` file): Bigtable's Key
//! Visualizer, locally. One page, self-contained like the lab's report: per table, the writes
//! and the reads by region over time, on the lab's heat scale, and the regions' totals.
//!
//! The engine records per region, not per key, so the y axis is the regions' boundaries in key
//! order (each boundary seen in the recording one step; a region's band spans its start to its
//! end key), and there is no by-key-bucket map.

use super::charts::{Metric, heat, legend};
use super::esc;
use cellbase::{Traffic, rowkey};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Totals of one region over the recording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionTotal {
    /// Start key (HBase binary notation).
    pub start_key: String,
    /// End key.
    pub end_key: String,
    /// Reads over the recording.
    pub reads: u64,
    /// Writes over the recording.
    pub writes: u64,
}

/// The tables of a recording, by name.
pub fn tables(t: &Traffic) -> Vec<String> {
    let set: BTreeSet<&str> = t
        .intervals
        .iter()
        .flat_map(|i| i.regions.iter().map(|r| r.table.as_str()))
        .collect();
    set.into_iter().map(str::to_string).collect()
}

/// Per region of `table` (by region id, in key order): its totals over the recording.
pub fn totals(t: &Traffic, table: &str) -> Vec<RegionTotal> {
    let mut by: BTreeMap<(Vec<u8>, u64), RegionTotal> = BTreeMap::new();
    for r in t
        .intervals
        .iter()
        .flat_map(|i| &i.regions)
        .filter(|r| r.table == table)
    {
        let e = by
            .entry((r.start_key.clone(), r.region_id))
            .or_insert_with(|| RegionTotal {
                start_key: rowkey::to_string_binary(&r.start_key),
                end_key: rowkey::to_string_binary(&r.end_key),
                reads: 0,
                writes: 0,
            });
        e.reads += r.reads;
        e.writes += r.writes;
    }
    by.into_values().collect()
}

/// `ms` since the epoch as UTC `YYYY-MM-DD HH:MM:SS`.
pub fn utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (y, m, d) = crate::lab::records::civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// The heatmap of `table`'s `m` by region: x = intervals, y = region boundaries in key order.
pub fn heatmap(t: &Traffic, table: &str, m: Metric, w: f64, h: f64) -> String {
    let word = if m == Metric::Writes {
        "writes"
    } else {
        "reads"
    };
    let val = |r: &cellbase::RegionTraffic| {
        if m == Metric::Writes {
            r.writes
        } else {
            r.reads
        }
    };
    // Boundaries: every non-empty start or end key seen for the table.
    let bounds: Vec<&[u8]> = t
        .intervals
        .iter()
        .flat_map(|i| &i.regions)
        .filter(|r| r.table == table)
        .flat_map(|r| [r.start_key.as_slice(), r.end_key.as_slice()])
        .filter(|k| !k.is_empty())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let steps = (bounds.len() + 1) as f64;
    let y_of = |k: &[u8], end: bool| -> f64 {
        if k.is_empty() {
            return if end { 1.0 } else { 0.0 };
        }
        (bounds.partition_point(|b| *b < k) + 1) as f64 / steps
    };
    let regions = |i: usize| t.intervals[i].regions.iter().filter(|r| r.table == table);
    let max = (0..t.intervals.len())
        .flat_map(regions)
        .map(val)
        .max()
        .unwrap_or(0);
    let (left, top) = (170.0, 10.0);
    let cw = w / t.intervals.len().max(1) as f64;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" role="img" aria-label="{word} by region heatmap of {}">"#,
        w + left + 10.0,
        h + top + 64.0,
        esc(table)
    );
    let _ = write!(
        s,
        r##"<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="#eef0f3"/>"##
    );
    for (i, iv) in t.intervals.iter().enumerate() {
        let x = left + i as f64 * cw;
        for r in regions(i) {
            let (y0, y1) = (y_of(&r.start_key, false), y_of(&r.end_key, true));
            let v = val(r);
            let _ = write!(
                s,
                r##"<rect x="{x:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="{}" stroke="#ffffff" stroke-width="0.3"><title>{}: region {} from {}: {v} {word}</title></rect>"##,
                top + y0 * h,
                cw + 0.05,
                ((y1 - y0) * h).max(1.0),
                heat(v, max),
                utc(iv.start_ms),
                r.region_id,
                esc(&rowkey::to_string_binary(&r.start_key))
            );
        }
    }
    // Region boundaries on the axis: the start key of each band (thinned when crowded).
    let every = (bounds.len() / 24).max(1);
    let _ = write!(
        s,
        r#"<text x="{}" y="{}" font-size="10" text-anchor="end">(first row)</text>"#,
        left - 4.0,
        top + 9.0
    );
    for (k, b) in bounds.iter().enumerate().filter(|(k, _)| k % every == 0) {
        let y = top + (k + 1) as f64 / steps * h;
        let mut label = rowkey::to_string_binary(b);
        if label.chars().count() > 24 {
            label = label.chars().take(23).collect::<String>() + "…";
        }
        let _ = write!(
            s,
            r##"<line x1="{}" x2="{left}" y1="{y:.1}" y2="{y:.1}" stroke="#999"/><text x="{}" y="{:.1}" font-size="10" text-anchor="end" class="mono">{}</text>"##,
            left - 3.0,
            left - 5.0,
            y + 3.0,
            esc(&label)
        );
    }
    let first = t.intervals.first().map_or(0, |i| i.start_ms);
    let last = t.intervals.last().map_or(0, |i| i.start_ms) + t.interval_ms as i64;
    let _ = write!(
        s,
        r#"<text x="{left}" y="{}" font-size="11">{} UTC</text><text x="{}" y="{}" font-size="11" text-anchor="end">{} UTC (time →)</text>"#,
        top + h + 14.0,
        utc(first),
        left + w,
        top + h + 14.0,
        utc(last)
    );
    legend(&mut s, left, top + h + 26.0, max, word);
    s.push_str("</svg>");
    s
}

/// The keyviz page of a recording (`source` names where it came from).
pub fn keyviz_html(t: &Traffic, source: &str, only: Option<&str>) -> String {
    let mut o = String::new();
    super::head(&mut o, "cellbase lab keyviz");
    let span = t.intervals.len() as u64 * t.interval_ms;
    let _ = write!(
        o,
        "<h1>cellbase lab keyviz</h1><p>Recorded traffic of <code>{}</code>: {} intervals of {} s ({} s in all; the ring keeps at most {}), per region: read requests (one per Get, one per row a scan returned) and write requests (one per mutation), as the engine's request counters count them.</p>",
        esc(source),
        t.intervals.len(),
        t.interval_ms as f64 / 1000.0,
        span as f64 / 1000.0,
        t.max_intervals
    );
    for table in tables(t)
        .iter()
        .filter(|n| only.is_none_or(|o| o == n.as_str()))
    {
        let tot = totals(t, table);
        let all_w: u64 = tot.iter().map(|r| r.writes).sum();
        let all_r: u64 = tot.iter().map(|r| r.reads).sum();
        let _ = write!(
            o,
            "<h2>Table <code>{}</code>: writes by region</h2><p class=cap>x: time, one column per interval; y: the key space, cut at every region boundary seen (a band is a region as it existed in that interval); colour: writes counted for the region. {} writes, {} reads in all.</p>",
            esc(table),
            all_w,
            all_r
        );
        o.push_str(&heatmap(t, table, Metric::Writes, 900.0, 300.0));
        let _ = write!(
            o,
            "<h2>Table <code>{}</code>: reads by region</h2>",
            esc(table)
        );
        o.push_str(&heatmap(t, table, Metric::Reads, 900.0, 300.0));
        o.push_str("<table><tr><th class=l>Start key</th><th class=l>End key</th><th>Writes</th><th>Share</th><th>Reads</th><th>Share</th></tr>");
        let pc = |x: u64, all: u64| {
            if all == 0 {
                "—".to_string()
            } else {
                format!("{:.1}%", x as f64 * 100.0 / all as f64)
            }
        };
        for r in &tot {
            let _ = write!(
                o,
                "<tr><td class='l mono'>{}</td><td class='l mono'>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&r.start_key),
                esc(&r.end_key),
                r.writes,
                pc(r.writes, all_w),
                r.reads,
                pc(r.reads, all_r)
            );
        }
        o.push_str("</table>");
    }
    o.push_str("</body></html>\n");
    o
}
