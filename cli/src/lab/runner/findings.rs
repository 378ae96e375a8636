//! Findings: what the numbers of a run say, in sentences.

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
    f.push(format!(
        "Gini of writes across regions: {:.2} per window on average (0 = even, 1 = one region takes all).",
        s.mean_gini
    ));
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
    for q in &r.queries {
        if q.plan == "put" || q.count == 0 {
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
            "{} ({}) touched {} ({:.1} of {:.1} on average) and the engine read {:.1} rows to return {:.1} matching ones{}.",
            q.name,
            q.plan,
            what,
            q.mean_regions_touched,
            all,
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
