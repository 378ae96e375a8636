//! Findings that state the seed articles' lessons in this run's numbers: random salting makes
//! a Get by the natural key try every bucket; a reverse timestamp makes "the newest N" one
//! short scan; a ROW Bloom filter makes a Get of an absent row read no data block; wide rows
//! hold many records per row. Each sentence appears only when the run has the operation or the
//! design it speaks of.

use super::RunResult;
use crate::lab::design::OpKind;
use serde::Serialize;

/// How the run's cells sat in rows.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RowShape {
    /// Distinct rowkeys written.
    pub rows: u64,
    /// Distinct cells (rowkey, qualifier) written, per family.
    pub cells: u64,
    /// Families each put wrote.
    pub families: usize,
}

/// The name of an operation kind, as the design file spells it.
pub fn kind_name(k: &OpKind) -> &'static str {
    match k {
        OpKind::Put => "put",
        OpKind::Get => "get",
        OpKind::PrefixScan { .. } => "prefix_scan",
        OpKind::TimeScan { .. } => "time_scan",
        OpKind::LatestN { .. } => "latest_n",
        OpKind::GetMissing => "get_missing",
        OpKind::Delete => "delete",
    }
}

/// The seed lessons this run's numbers show (see the module comment).
pub fn lessons(r: &RunResult) -> Vec<String> {
    let mut f = Vec::new();
    for q in r.queries.iter().filter(|q| q.count > 0) {
        match q.kind.as_str() {
            "get" | "get_missing" if q.plan.contains("random salt") => f.push(format!(
                "Random salt: a row's bucket is not a function of its key, so every Get by the natural key ({}) tried each bucket: {:.1} Gets touching {:.1} of {:.1} regions on average (a hashed salt computes the bucket from the key: 1 Get, 1 region).",
                q.name, q.mean_probes, q.mean_regions_touched, q.mean_regions_total
            )),
            _ => {}
        }
        match q.kind.as_str() {
            "latest_n" if q.plan.contains("newest first") => f.push(format!(
                "Reverse timestamp: {} is the first rows of the entity's prefix; it read {:.1} rows from {:.1} region(s) on average ({:.1} data blocks).",
                q.name, q.mean_rows_examined, q.mean_regions_touched, q.mean_blocks_read
            )),
            "latest_n" => f.push(format!(
                "No reverse timestamp: the key does not order an entity newest first, so {} read all {:.1} rows of the entity ({:.1} region(s), {:.1} data blocks on average) to keep the newest; a reverse timestamp after the entity's fields would make it a scan of the newest rows only.",
                q.name, q.mean_rows_examined, q.mean_regions_touched, q.mean_blocks_read
            )),
            "get_missing" => {
                let bloom = q
                    .plan
                    .rsplit_once("(Bloom ")
                    .map_or("?", |(_, b)| b.trim_end_matches(')'));
                let why = if bloom == "NONE" {
                    "without a Bloom filter the engine reads a block of every file whose key range holds the row"
                } else {
                    "the Bloom filter rules out the files that do not hold the row"
                };
                f.push(format!(
                    "Bloom {bloom}: a Get of an absent row ({}) read {:.2} data blocks on average; {why}.",
                    q.name, q.mean_blocks_read
                ));
            }
            _ => {}
        }
    }
    let s = &r.row_shape;
    if s.rows > 0 && s.cells > s.rows {
        f.push(format!(
            "Wide rows: {} cells in {} rows ({:.1} cells per row, {} famil{} per put): a read of one row returns many records, and rows examined counts rows, not cells.",
            s.cells,
            s.rows,
            s.cells as f64 / s.rows as f64,
            s.families,
            if s.families == 1 { "y" } else { "ies" }
        ));
    }
    f
}
