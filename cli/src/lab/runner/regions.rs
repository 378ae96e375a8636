//! Per-region helpers of a run: the rows of the region table, the regions a key range
//! overlaps and their read counters.

use super::RegionRow;
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
            range_writes: 0,
            range_reads: 0,
            server: 0,
            y: 0.0,
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

pub(super) fn sum_reads(regions: &[RegionInfo]) -> u64 {
    regions.iter().map(|r| r.read_requests).sum()
}
