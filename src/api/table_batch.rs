//! Batch reads: [`Table::get_many`] (HBase's `Table.get(List<Get>)`), the Gets of one call
//! read at one read point, region by region, each region's rows in key order through one
//! reader.
//!
//! A region's Gets that ask the same of a row (columns, versions, time ranges, per-family
//! limits [GET-3], no filter) share one row reader: its sources (memstores and block files)
//! are chosen once, and each row is a forward seek of the same merge
//! ([`crate::read::row::RowReader::seek_row`]), so a block file's cursor that already holds
//! the block of the next row reads it again without a cache lookup. Gets with a filter (whose state is per Get) get a reader each, over the
//! same region version and read point.

use crate::api::ops::{Get, RowResult};
use crate::api::table::{LocalTable, selection};
use crate::base::error::Result;
use crate::engine::region::Region;
use crate::read::matcher::ReadSpec;
use crate::read::query::Query;
use crate::read::row::ReaderParts;
use std::sync::Arc;

impl LocalTable {
    pub(crate) fn get_many(&self, gets: Vec<Get>) -> Result<Vec<RowResult>> {
        let started = std::time::Instant::now();
        let n = gets.len() as u64;
        let r = self.get_many_untimed(gets);
        if n > 0 {
            let mean = started.elapsed() / u32::try_from(n).unwrap_or(u32::MAX);
            self.db
                .stats()
                .op_recorder(crate::engine::stats::Operation::Get)
                .record_n(mean, n);
        }
        r
    }

    fn get_many_untimed(&self, gets: Vec<Get>) -> Result<Vec<RowResult>> {
        let desc = self.check()?;
        for g in &gets {
            self.validate_get(&desc, g)?;
        }
        let now = self.db.clock().now_millis();
        let read_point = self.db.read_point();
        let mut out = vec![RowResult::default(); gets.len()];
        let mut gets: Vec<Option<Get>> = gets.into_iter().map(Some).collect();
        let row = |gets: &[Option<Get>], i: usize| -> Vec<u8> {
            gets[i].as_ref().map(|g| g.row.clone()).unwrap_or_default()
        };
        // Key order: the rows of one region are contiguous.
        let mut order: Vec<usize> = (0..gets.len()).collect();
        let rows: Vec<Vec<u8>> = (0..gets.len()).map(|i| row(&gets, i)).collect();
        order.sort_by(|&a, &b| rows[a].cmp(&rows[b]));
        let mut at = 0;
        while at < order.len() {
            let region = self.shared.region_for(&rows[order[at]]);
            let end = order[at..]
                .iter()
                .position(|&i| !in_region(&region, &rows[i]))
                .map_or(order.len(), |n| at + n);
            self.db
                .count_reads(&self.shared, &region, (end - at) as u64);
            let version = region.current();
            // Gets asking the same of their rows, each group in key order.
            let mut groups: Vec<Vec<usize>> = Vec::new();
            for &i in &order[at..end] {
                let g = gets[i].as_ref().expect("each Get is taken once");
                let same = groups.iter_mut().find(|grp| {
                    let h = gets[grp[0]].as_ref().expect("each Get is taken once");
                    g.filter.is_none()
                        && h.filter.is_none()
                        && g.columns == h.columns
                        && g.max_versions == h.max_versions
                        && g.time_range == h.time_range
                        && g.per_family == h.per_family
                });
                match same {
                    Some(grp) => grp.push(i),
                    None => groups.push(vec![i]),
                }
            }
            for grp in groups {
                let first = gets[grp[0]].take().expect("each Get is taken once");
                let q = Query {
                    desc: desc.clone(),
                    spec: ReadSpec {
                        now,
                        time_range: first.time_range,
                        max_versions: first.max_versions,
                        columns: selection(first.columns),
                        raw: false,
                        has_filter: first.filter.is_some(),
                        per_family: first.per_family,
                    },
                    filter: first.filter,
                    reversed: false,
                };
                if q.filter.is_some() {
                    // A filter's state is per Get: a reader of its own (a group of one).
                    let mut reader = crate::engine::read::region_reader(
                        &region,
                        &version,
                        &q,
                        &first.row,
                        Some(&first.row),
                        None,
                        read_point,
                        ReaderParts::take_spare(),
                    )?;
                    if let Some(cells) = reader.next_row()? {
                        out[grp[0]] = RowResult::from_cells(cells);
                    }
                    reader.into_parts().keep_spare();
                    continue;
                }
                // One reader for the group: sources chosen for the rows from the first on,
                // then a forward seek per distinct row.
                let mut reader = crate::engine::read::region_reader(
                    &region,
                    &version,
                    &q,
                    &first.row,
                    if grp.len() == 1 {
                        Some(&first.row)
                    } else {
                        None
                    },
                    None,
                    read_point,
                    ReaderParts::take_spare(),
                )?;
                let mut prev: Option<usize> = None;
                for &i in &grp {
                    gets[i] = None;
                    if let Some(p) = prev
                        && rows[p] == rows[i]
                    {
                        out[i] = out[p].clone();
                        continue;
                    }
                    reader.seek_row(&rows[i])?;
                    if let Some(cells) = reader.next_row()? {
                        out[i] = RowResult::from_cells(cells);
                    }
                    prev = Some(i);
                }
                reader.into_parts().keep_spare();
            }
            at = end;
        }
        Ok(out)
    }
}

/// True when `row` lies in the region's range.
fn in_region(region: &Arc<Region>, row: &[u8]) -> bool {
    row >= region.start() && (region.end().is_empty() || row < region.end())
}
