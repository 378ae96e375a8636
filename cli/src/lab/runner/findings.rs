//! Findings: what the numbers of a run say, in sentences; and what to try next, derived from
//! them.

use super::RunResult;

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// Findings: sentences built from the measured numbers (nothing canned: every claim is a
/// comparison of numbers of this run).
pub fn findings(r: &RunResult) -> Vec<String> {
    let s = &r.summary;
    let mut f = Vec::new();
    if s.time_over_half >= 0.5 {
        f.push(format!(
            "Hot spot: one region took over half of the writes during {} of the run; on average the hottest region took {} of each window's writes ({:.1}x its fair share).",
            pct(s.time_over_half),
            pct(s.mean_hottest_share),
            s.mean_hottest_ratio
        ));
    } else {
        f.push(format!(
            "Writes spread: the hottest region took {} of a window's writes on average, {:.1}x its fair share (worst window {:.1}x); one region held a majority during {} of the run.",
            pct(s.mean_hottest_share),
            s.mean_hottest_ratio,
            s.max_hottest_ratio,
            pct(s.time_over_half)
        ));
    }
    // Read skew, with the same prominence as write skew (seeds 002 and 003 warn of read hot
    // spots): 2x the fair share on average, or one region serving a majority for half the run.
    if s.reads > 0 {
        if s.mean_hottest_read_ratio >= 2.0 || s.read_time_over_half >= 0.5 {
            f.push(format!(
                "Read hot spot: the hottest region served {} of a window's reads on average, {:.1}x its fair share; one region served a majority of reads during {} of the run.",
                pct(s.mean_hottest_read_share),
                s.mean_hottest_read_ratio,
                pct(s.read_time_over_half)
            ));
        } else {
            f.push(format!(
                "Reads spread: the hottest region served {} of a window's reads on average, {:.1}x its fair share; one region served a majority during {} of the run.",
                pct(s.mean_hottest_read_share),
                s.mean_hottest_read_ratio,
                pct(s.read_time_over_half)
            ));
        }
    }
    for ix in s.index_reads.iter().filter(|ix| ix.reads > 0) {
        let kind = if ix.mean_hottest_read_ratio >= 2.0 {
            "Read hot spot in index"
        } else {
            "Reads spread in index"
        };
        f.push(format!(
            "{kind} {}: the hottest index region served {} of a window's index reads on average, {:.1}x its fair share.",
            ix.name,
            pct(ix.mean_hottest_read_share),
            ix.mean_hottest_read_ratio
        ));
    }
    // The simulated cluster: the same measures per server, and the projection.
    let c = &r.cluster;
    if c.servers > 1 && r.summary.puts > 0 {
        let fair = 1.0 / c.servers as f64;
        let kind = if c.hottest_server_write_share >= 2.0 * fair {
            "Hot server"
        } else {
            "Writes spread over the servers"
        };
        f.push(format!(
            "{kind}: on {} simulated RegionServers the busiest took {} of a window's writes on average ({:.1}x its fair share of {}); one server took over twice its fair share during {} of the run.",
            c.servers,
            pct(c.hottest_server_write_share),
            c.hottest_server_write_share / fair,
            pct(fair),
            pct(c.time_server_over_2x_writes)
        ));
        if s.reads > 0 {
            let kind = if c.hottest_server_read_share >= 2.0 * fair {
                "Read hot server"
            } else {
                "Reads spread over the servers"
            };
            f.push(format!(
                "{kind}: the busiest server served {} of a window's reads on average ({:.1}x its fair share); over twice its fair share during {} of the run.",
                pct(c.hottest_server_read_share),
                c.hottest_server_read_share / fair,
                pct(c.time_server_over_2x_reads)
            ));
        }
    }
    if c.projected_ops_per_sec > 0.0 {
        f.push(format!(
            "Projected (cost model, not measured): the cluster would sustain about {:.0} operations/s, bounded by its busiest server, which did {} of the work.",
            c.projected_ops_per_sec,
            pct(c.hottest_server_busy_share)
        ));
    }
    if s.splits > 0 {
        let last = r.splits.last().map_or(0, |x| x.op);
        f.push(format!(
            "The engine split {} time(s), from {} to {} regions; the last split came at operation {} of {}.",
            s.splits, s.initial_regions, s.final_regions, last, s.ops
        ));
    } else {
        f.push(format!(
            "No region reached the split threshold; the table kept its {} region(s).",
            s.final_regions
        ));
    }
    if let Some(k) = key_length(r) {
        f.push(k);
    }
    for q in &r.queries {
        if q.plan == "put" || q.plan == "delete" || q.count == 0 {
            continue;
        }
        let all = q.mean_regions_total;
        let frac = if all > 0.0 {
            q.mean_regions_touched / all
        } else {
            0.0
        };
        let what = if frac >= 0.99 && all > 1.0 {
            "every region"
        } else if q.mean_regions_touched <= 1.5 {
            "about one region"
        } else {
            "several regions"
        };
        f.push(format!(
            "{} ({}) touched {} ({:.1} of {:.1} on average{}) and the engine read {:.1} rows to return {:.1} matching ones{}.",
            q.name,
            q.plan,
            what,
            q.mean_regions_touched,
            all,
            r.cluster
                .operations
                .iter()
                .find(|o| o.name == q.name)
                .map_or(String::new(), |o| format!(
                    ", on {:.1} servers; projected latency p50 {:.2} ms, p99 {:.2} ms",
                    o.servers_touched_mean, o.projected_p50_ms, o.projected_p99_ms
                )),
            q.mean_rows_examined,
            q.mean_rows_matched,
            if q.missed > 0 {
                format!("; {} matching rows were NOT returned", q.missed)
            } else {
                String::new()
            }
        ));
    }
    f
}

/// The key-length finding (seed 004: rowkeys as short as Gets and scans allow; a number as a
/// binary long takes 8 bytes, as text 10 or more): every cell stores its rowkey again, so the
/// key's length multiplies by the cells written.
fn key_length(r: &RunResult) -> Option<String> {
    let k = &r.key_facts;
    if r.summary.puts == 0 || k.mean_key_len <= 0.0 {
        return None;
    }
    let mut s = format!(
        "Key length: rowkeys average {:.1} bytes, and every cell stores its rowkey again with its family, qualifier and 20 fixed bytes, so {} of each cell written is key and overhead ahead of {:.0} value bytes.",
        k.mean_key_len,
        pct(k.cell_overhead_share),
        k.value_len
    );
    let saved: f64 = k.decimal_text_fields.iter().map(|(_, b)| b).sum();
    if saved >= 1.0 {
        let names: Vec<&str> = k
            .decimal_text_fields
            .iter()
            .map(|(n, _)| n.as_str())
            .collect();
        s.push_str(&format!(
            " The key writes {} as decimal text; as fixed-width binary integers they would take {:.1} bytes fewer per key ({} of the key), in every cell.",
            names.join(", "),
            saved,
            pct(saved / k.mean_key_len)
        ));
    }
    Some(s)
}

/// What to try next: suggestions derived from the run's numbers and its rowkey, each with what
/// it costs at read time (seeds 000, 003 and 004: salting, hashing, reversing, pre-splitting).
pub fn next_steps(r: &RunResult) -> Vec<String> {
    let s = &r.summary;
    let c = &r.cluster;
    let k = &r.key_facts;
    let fair = 1.0 / c.servers.max(1) as f64;
    let write_hot =
        s.time_over_half >= 0.5 || (c.servers > 1 && c.hottest_server_write_share >= 2.0 * fair);
    let scans: Vec<&crate::lab::runner::QueryStats> = r
        .queries
        .iter()
        .filter(|q| q.plan != "put" && q.plan != "get")
        .collect();
    let scan_regions = scans
        .iter()
        .map(|q| q.mean_regions_touched)
        .fold(0.0, f64::max);
    let mut out = Vec::new();
    if write_hot {
        if let Some(field) = &k.monotonic_lead {
            out.push(format!(
                "The key starts with \"{field}\", which only grows: every write goes to the last region. Salt it ({{ salt = N }} first, pre_split = {{ salt_buckets = N }}): writes spread over N buckets, but every range read becomes N scans run in parallel (here range reads touched {scan_regions:.1} region(s) on average; salted they touch at least N)."
            ));
            out.push(format!(
                "Or hash it ({{ md5 = 4 }} first, pre-split UniformSplit): writes spread evenly and Gets stay one region, but a range over \"{field}\" becomes a full-table scan."
            ));
            out.push(
                "Or lead with an entity (a user, host or metric id) before the time, or reverse an id-like field ({ reverse = \"f\" }): writes spread over the entities, one entity's history stays one prefix scan, a time range across all entities becomes a scan per entity.".to_string(),
            );
        } else if let Some(n) = k.salt_buckets {
            if k.pre_split_regions < 2 {
                out.push(format!(
                    "The key is salted into {n} buckets but the table started as one region: pre-split one region per bucket (pre_split = {{ salt_buckets = {n} }}) so the buckets spread from the first write instead of after the splits."
                ));
            } else {
                out.push(format!(
                    "Writes concentrate although the key is salted into {n} buckets: check that the salt input varies (a salt over a few distinct values fills few buckets)."
                ));
            }
        } else if !k.hashed {
            out.push("Writes concentrate on one region: pre-split the table at the key's hot range, or put a salt or hash of the leading field first.".to_string());
        }
    }
    if s.reads > 0 && (s.mean_hottest_read_ratio >= 2.0 || s.read_time_over_half >= 0.5) {
        if k.read_recent {
            out.push("Reads concentrate on the newest rows (read_from = recent), which a time-ordered key keeps in one region: salting or hashing the key spreads them (at the fan-out cost above); a block cache sized for the recent data keeps them cheap.".to_string());
        } else {
            out.push("Reads concentrate on one region (the region table's reads of the key range show which): if the table has few regions, pre-split it; if a few keys are popular, spread them by putting a hash of them first; HBase region replicas spread Gets of one region over servers.".to_string());
        }
    }
    for ix in s
        .index_reads
        .iter()
        .filter(|ix| ix.mean_hottest_read_ratio >= 2.0)
    {
        out.push(format!(
            "Index {} has a read hot spot ({:.1}x its fair share): pre-split it more finely or salt its key by the queried value, as the main table is.",
            ix.name, ix.mean_hottest_read_ratio
        ));
    }
    for q in &scans {
        if q.mean_regions_total > 1.0 && q.mean_regions_touched >= 0.99 * q.mean_regions_total {
            let lat = c
                .operations
                .iter()
                .find(|o| o.name == q.name)
                .map_or(String::new(), |o| {
                    format!(
                        " (projected p99 {:.2} ms over {:.1} servers)",
                        o.projected_p99_ms, o.servers_touched_mean
                    )
                });
            out.push(format!(
                "{} reads every region{lat}: if it is frequent, put the fields it fixes at the head of the key, use fewer salt buckets, or serve it from an index table keyed by them.",
                q.name
            ));
        }
    }
    if out.is_empty() {
        out.push("Nothing stands out: writes and reads spread and no query fans out to every region. Try the design at a larger --records or on more --servers to see whether it stays so.".to_string());
    }
    out
}
