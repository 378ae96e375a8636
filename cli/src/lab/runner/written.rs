//! What the lab has written and not deleted: one entry per cell (rowkey, qualifier), so that a
//! wide row (several records in one row, OpenTSDB-style) maps each of its cells back to its
//! record, and reads can be checked against what they must return: deleted cells and cells
//! past the family's TTL are not expected.

use cellbase::RowResult;
use std::collections::HashMap;

/// The lab's view of the table's live cells.
#[derive(Default)]
pub(super) struct Written {
    /// `(row, qualifier)` -> (record, put time in ms).
    cells: HashMap<(Vec<u8>, Vec<u8>), (usize, i64)>,
    /// The TTL of the cells the lab writes, in ms (`None`: forever).
    ttl_ms: Option<i64>,
}

impl Written {
    /// A tracker for cells that expire after `ttl_ms`.
    pub(super) fn new(ttl_ms: Option<i64>) -> Written {
        Written {
            cells: HashMap::new(),
            ttl_ms,
        }
    }

    /// Records a put of `record` at `ts` (a later put of the same cell replaces it).
    pub(super) fn put(&mut self, row: &[u8], qual: &[u8], record: usize, ts: i64) {
        self.cells
            .insert((row.to_vec(), qual.to_vec()), (record, ts));
    }

    /// Records a delete of the cell.
    pub(super) fn delete(&mut self, row: &[u8], qual: &[u8]) {
        self.cells.remove(&(row.to_vec(), qual.to_vec()));
    }

    /// A cell put at `ts` is visible at `now`: HBase's family TTL expires a cell when
    /// `ts < now - ttl` [TTL-2].
    fn live(&self, ts: i64, now: i64) -> bool {
        self.ttl_ms.is_none_or(|t| ts >= now.saturating_sub(t))
    }

    /// True when the cell is written, not deleted and not expired at `now`.
    pub(super) fn has(&self, row: &[u8], qual: &[u8], now: i64) -> bool {
        self.cells
            .get(&(row.to_vec(), qual.to_vec()))
            .is_some_and(|&(_, ts)| self.live(ts, now))
    }

    /// The live records at `now` (one per cell), with their put times.
    pub(super) fn live_records(&self, now: i64) -> impl Iterator<Item = usize> + '_ {
        self.cells
            .values()
            .filter(move |&&(_, ts)| self.live(ts, now))
            .map(|&(i, _)| i)
    }

    /// The records whose cells `row` returned (each qualifier once, whatever the families).
    pub(super) fn records_in(&self, row: &RowResult) -> Vec<usize> {
        let mut quals: Vec<&[u8]> = row.cells().iter().map(|c| c.qualifier()).collect();
        quals.sort_unstable();
        quals.dedup();
        quals
            .into_iter()
            .filter_map(|q| {
                self.cells
                    .get(&(row.row().to_vec(), q.to_vec()))
                    .map(|&(i, _)| i)
            })
            .collect()
    }
}
