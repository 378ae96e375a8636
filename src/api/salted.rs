//! Salted scans: one sub-scan per salt bucket, each in its own thread, merged in order of the
//! unsalted key (the fan-out the seed articles describe for salted rowkeys).
//!
//! Every sub-scan uses the read point registered by the merge, so together they see one
//! snapshot of the table. Dropping the merge drops the channels; each thread then stops at its
//! next row.

use crate::api::ops::{RowResult, Scan};
use crate::api::scanner::{Bound, RangeScanner, ScanCounters, scan_bounds};
use crate::api::table::LocalTable as Table;
use crate::base::error::{Error, Result};
use crate::read::query::Query;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, sync_channel};

/// Rows buffered per bucket ahead of the merge.
const CHANNEL_ROWS: usize = 256;

/// The merged stream of a salted scan.
pub(crate) struct SaltedMerge {
    table: Table,
    read_point: u64,
    buckets: Vec<Bucket>,
    /// Width of every salt prefix.
    prefix_len: usize,
    reversed: bool,
    limit: Option<u64>,
    rows: u64,
    last_row: Option<Vec<u8>>,
    failed: bool,
}

struct Bucket {
    rx: Receiver<Result<RowResult>>,
    head: Option<RowResult>,
    done: bool,
}

impl std::fmt::Debug for SaltedMerge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SaltedMerge")
            .field("buckets", &self.buckets.len())
            .field("rows", &self.rows)
            .finish()
    }
}

fn with_prefix(p: &[u8], key: &[u8]) -> Vec<u8> {
    let mut v = p.to_vec();
    v.extend_from_slice(key);
    v
}

/// The salted bounds of one bucket: `lo`/`hi` of the unsalted scan moved under prefix `p`
/// (an unbounded side becomes the prefix's own bound).
fn bucket_bounds(p: &[u8], lo: &Bound, hi: &Bound) -> (Bound, Bound) {
    let lo = if lo.unbounded() {
        Bound {
            key: p.to_vec(),
            inclusive: true,
        }
    } else {
        Bound {
            key: with_prefix(p, &lo.key),
            inclusive: lo.inclusive,
        }
    };
    let hi = if hi.unbounded() {
        Bound {
            key: crate::api::ops::prefix_stop(p),
            inclusive: false,
        }
    } else {
        Bound {
            key: with_prefix(p, &hi.key),
            inclusive: hi.inclusive,
        }
    };
    (lo, hi)
}

/// Opens the sub-scans (their first regions now, for a consistent snapshot) and starts one
/// thread per bucket.
pub(crate) fn open(
    table: Table,
    query: Query,
    scan: Scan,
    buckets: u16,
    counters: Arc<ScanCounters>,
) -> Result<SaltedMerge> {
    let prefixes = crate::model::rowkey::salted_prefixes(buckets);
    let prefix_len = prefixes.first().map_or(0, Vec::len);
    let (lo, hi) = scan_bounds(&scan);
    let read_point = table.db.register_scanner();
    let mut merge = SaltedMerge {
        table: table.clone(),
        read_point,
        buckets: Vec::with_capacity(prefixes.len()),
        prefix_len,
        reversed: scan.reversed,
        limit: scan.limit,
        rows: 0,
        last_row: None,
        failed: false,
    };
    for p in &prefixes {
        let (blo, bhi) = bucket_bounds(p, &lo, &hi);
        let mut sub = RangeScanner::with_bounds(
            table.clone(),
            query.clone(),
            scan.clone(),
            read_point,
            blo,
            bhi,
            false,
            counters.clone(),
        );
        sub.open_next_region()?;
        let (tx, rx) = sync_channel(CHANNEL_ROWS);
        std::thread::Builder::new()
            .name("cellbase-salted-scan".into())
            .spawn(move || {
                for item in sub {
                    if tx.send(item).is_err() {
                        return;
                    }
                }
            })
            .map_err(Error::Io)?;
        merge.buckets.push(Bucket {
            rx,
            head: None,
            done: false,
        });
    }
    Ok(merge)
}

impl SaltedMerge {
    fn fill(&mut self) -> Result<()> {
        for b in &mut self.buckets {
            if b.head.is_none() && !b.done {
                match b.rx.recv() {
                    Ok(Ok(r)) => b.head = Some(r),
                    Ok(Err(e)) => return Err(e),
                    Err(_) => b.done = true,
                }
            }
        }
        Ok(())
    }

    fn advance(&mut self) -> Result<Option<RowResult>> {
        self.fill()?;
        let plen = self.prefix_len;
        let key = |r: &RowResult| r.row().get(plen..).unwrap_or_default().to_vec();
        let mut best: Option<(usize, Vec<u8>)> = None;
        for (i, b) in self.buckets.iter().enumerate() {
            if let Some(h) = &b.head {
                let k = key(h);
                let better = match &best {
                    None => true,
                    Some((_, bk)) => {
                        if self.reversed {
                            k > *bk
                        } else {
                            k < *bk
                        }
                    }
                };
                if better {
                    best = Some((i, k));
                }
            }
        }
        let Some((i, _)) = best else { return Ok(None) };
        let head = self.buckets[i].head.as_ref().map(|h| h.row().to_vec());
        if head != self.last_row {
            // A new row (parts of one batched row share it).
            if self.limit.is_some_and(|l| self.rows >= l) {
                return Ok(None);
            }
            self.rows += 1;
            self.last_row = head;
        }
        Ok(self.buckets[i].head.take())
    }
}

impl Iterator for SaltedMerge {
    type Item = Result<RowResult>;
    fn next(&mut self) -> Option<Result<RowResult>> {
        if self.failed {
            return None;
        }
        match self.advance() {
            Ok(r) => r.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

impl Drop for SaltedMerge {
    fn drop(&mut self) {
        self.table.db.unregister_scanner(self.read_point);
    }
}
