//! Per-region helpers of a run: the rows of the region table, the regions a read plan
//! touches and their read counters.

use super::RegionRow;
use crate::lab::key::Plan;
use cellbase::{RegionInfo, rowkey};

pub(super) fn region_rows(regions: &[RegionInfo]) -> Vec<RegionRow> {
    regions
        .iter()
        .map(|r| RegionRow {
            name: r.name.clone(),
            start_key: rowkey::to_string_binary(&r.start_key),
            end_key: rowkey::to_string_binary(&r.end_key),
            size_bytes: r.store_file_bytes + r.memstore_bytes,
            files: r.store_files,
            read_requests: r.read_requests,
            write_requests: r.write_requests,
        })
        .collect()
}

/// Regions of `regions` overlapping `[start, stop)` (stop empty = unbounded).
pub(super) fn overlapping(regions: &[RegionInfo], start: &[u8], stop: &[u8]) -> Vec<usize> {
    regions
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            (stop.is_empty() || r.start_key.as_slice() < stop)
                && (r.end_key.is_empty() || r.end_key.as_slice() > start)
        })
        .map(|(i, _)| i)
        .collect()
}

/// Regions a plan reads.
pub(super) fn touched(regions: &[RegionInfo], plan: &Plan) -> u64 {
    match plan.salted {
        None => overlapping(regions, &plan.start, &plan.stop).len() as u64,
        Some(b) => {
            let mut all = std::collections::BTreeSet::new();
            for p in rowkey::salted_prefixes(b) {
                let mut s = p.clone();
                s.extend_from_slice(&plan.start);
                let e = if plan.stop.is_empty() {
                    crate::lab::key::prefix_stop(&p)
                } else {
                    let mut e = p.clone();
                    e.extend_from_slice(&plan.stop);
                    e
                };
                all.extend(overlapping(regions, &s, &e));
            }
            all.len() as u64
        }
    }
}

pub(super) fn sum_reads(regions: &[RegionInfo]) -> u64 {
    regions.iter().map(|r| r.read_requests).sum()
}
