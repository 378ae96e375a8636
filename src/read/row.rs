//! Row assembly: drives a merged cursor through the [`UserMatcher`] and groups the cells it
//! includes into rows.

use crate::base::error::{Error, Result};
use crate::model::CellType;
use crate::model::cell::Cell;
use crate::model::cell::RowCells;
use crate::model::cursor::{CellCursor, SHARES_FAMILY, SHARES_ROW};
use crate::model::key::{
    KEY_TRAILER_LEN, KeyRef, first_after_family, first_after_row, first_on_row, last_on_column,
};
use crate::model::payload::PayloadRef;
use crate::read::filter::eval::{CellView, FilterRunner, ReturnCode};
use crate::read::matcher::{Admit, Known, MatchCode, UserMatcher};
use crate::read::merge::MergeCursor;
use crate::read::source::SourceCursor;
use std::path::PathBuf;

/// How many `SeekNextColumn` answers in a row a reader follows with a merge step instead of a
/// merge seek (a column's second and third versions), before it seeks past the column.
const COLUMN_STEPS_BEFORE_SEEK: u32 = 2;

/// Reads rows of one region in order.
pub(crate) struct RowReader {
    cursor: MergeCursor<SourceCursor>,
    /// Boxed: the reader and its parts move between the thread's spare slot and each Get, and
    /// the matcher is most of their size.
    matcher: Box<UserMatcher>,
    read_point: u64,
    /// Exclusive stop row; empty = none.
    stop: Vec<u8>,
    done: bool,
    /// Reversed scans: rows are found one at a time, newest first, each read forward.
    reverse: Option<Reverse>,
    /// The read's filter, driven by HBase's protocol (see `filter::eval`).
    filter: Option<FilterRunner>,
    /// Reversed scans: a filter's row hint ([`ReturnCode::SeekToRow`]) as the next exclusive
    /// upper bound, applied before the next row is looked for.
    hint_upper: Option<Vec<u8>>,
    /// The current row's cells, in one buffer (kept between rows and readers).
    cells: RowCells,
    /// Rows the filter dropped (HBase's `ROWS_FILTERED` scan metric).
    rows_filtered: u64,
    /// The read has a per (row, family) window [GET-3] ([`UserMatcher::admit`]).
    window: bool,
    /// Merge seeks taken while reading rows (tests check that column skips step).
    #[cfg(test)]
    seeks: u64,
}

/// The reusable buffers of a [`RowReader`]: a thread that reads many single rows (Gets)
/// keeps them between reads, so building and dropping a reader allocates little.
#[derive(Default)]
pub(crate) struct ReaderParts {
    /// A matcher to [`UserMatcher::reinit`].
    pub matcher: Option<Box<UserMatcher>>,
    /// Empty.
    pub children: Vec<SourceCursor>,
    /// Empty.
    pub heap: Vec<usize>,
    /// Scratch for the stop row and seek keys.
    pub stop: Vec<u8>,
    /// The row cell builder's buffers.
    pub cells: RowCells,
}

thread_local! {
    /// A thread's spare reader buffers: a thread that reads many single rows or opens many
    /// short scans builds each reader without allocating them again.
    static SPARE_PARTS: std::cell::Cell<ReaderParts> = std::cell::Cell::default();
}

impl ReaderParts {
    /// The thread's spare buffers (empty ones during thread teardown, when the slot is gone).
    pub fn take_spare() -> ReaderParts {
        SPARE_PARTS
            .try_with(std::cell::Cell::take)
            .unwrap_or_default()
    }

    /// Keeps these buffers for the thread's next reader.
    pub fn keep_spare(self) {
        let _ = SPARE_PARTS.try_with(|p| p.set(self));
    }
}

/// A test on a row key.
pub(crate) type RowPredicate = Box<dyn Fn(&[u8]) -> bool + Send>;

/// Bounds of a reversed read of one region.
pub(crate) struct Reverse {
    /// The next row must sort before this row (exclusive upper bound).
    pub upper: Vec<u8>,
    /// Accepts a row found below `upper` (lower bounds of the scan and the region).
    pub accept: RowPredicate,
}

fn bad_key() -> Error {
    Error::corruption(
        PathBuf::from("<merged read>"),
        "malformed cell key from a source",
    )
}

impl RowReader {
    /// REQUIRES: `cursor` already positioned at the first candidate cell.
    pub fn new(
        cursor: MergeCursor<SourceCursor>,
        matcher: Box<UserMatcher>,
        filter: Option<FilterRunner>,
        read_point: u64,
        stop: Vec<u8>,
        cells: RowCells,
    ) -> Self {
        RowReader {
            window: matcher.has_window(),
            cursor,
            matcher,
            read_point,
            stop,
            done: false,
            reverse: None,
            filter,
            hint_upper: None,
            cells,
            rows_filtered: 0,
            #[cfg(test)]
            seeks: 0,
        }
    }

    /// The reader's buffers for reuse (sources dropped).
    pub fn into_parts(self) -> ReaderParts {
        let (children, heap) = self.cursor.into_buffers();
        ReaderParts {
            matcher: Some(self.matcher),
            children,
            heap,
            stop: self.stop,
            cells: self.cells,
        }
    }

    /// A reader returning rows in descending order [SCAN-REV-1]; cells inside a row stay in
    /// forward order [SORT-8].
    pub fn reversed(
        cursor: MergeCursor<SourceCursor>,
        matcher: Box<UserMatcher>,
        filter: Option<FilterRunner>,
        read_point: u64,
        reverse: Reverse,
    ) -> Self {
        RowReader {
            window: matcher.has_window(),
            cursor,
            matcher,
            read_point,
            stop: Vec::new(),
            done: false,
            reverse: Some(reverse),
            filter,
            hint_upper: None,
            cells: RowCells::default(),
            rows_filtered: 0,
            #[cfg(test)]
            seeks: 0,
        }
    }

    /// Positions a forward reader on `row` for a Get of it: the next [`RowReader::next_row`]
    /// returns that row or `None`. The rows of a batch, taken in key order, reuse the
    /// reader's sources, and a block file's cursor that already holds the block with `row`
    /// seeks inside it without a cache lookup.
    ///
    /// REQUIRES: a forward reader without a filter, and `row` after every row read so far
    /// (the merge seeks forward only).
    pub fn seek_row(&mut self, row: &[u8]) -> Result<()> {
        debug_assert!(self.reverse.is_none() && self.filter.is_none());
        let mut key = std::mem::take(&mut self.stop);
        key.clear();
        crate::model::key::first_on_row_into(row, &mut key);
        self.cursor.seek(&key)?;
        key.clear();
        key.extend_from_slice(row);
        key.push(0);
        self.stop = key;
        self.done = false;
        Ok(())
    }

    /// Rows the filter dropped so far.
    pub fn rows_filtered(&self) -> u64 {
        self.rows_filtered
    }

    /// True when the filter says no later row can pass (Page limit, Prefix passed).
    fn filter_done(&self) -> bool {
        self.filter
            .as_ref()
            .is_some_and(FilterRunner::filter_all_remaining)
    }

    /// The cells of the next row with at least one returned cell (never empty: the row is
    /// their row).
    pub fn next_row(&mut self) -> Result<Option<Vec<Cell>>> {
        if self.reverse.is_none() {
            return self.next_forward();
        }
        loop {
            if self.filter_done() {
                return Ok(None);
            }
            let Some(rev) = self.reverse.as_mut() else {
                return Ok(None);
            };
            // A filter's row hint: the rows above it cannot pass.
            if let Some(upper) = self.hint_upper.take()
                && upper < rev.upper
            {
                rev.upper = upper;
            }
            let Some(row) = self.cursor.prev_row(&rev.upper)? else {
                return Ok(None);
            };
            if !(rev.accept)(&row) {
                return Ok(None);
            }
            rev.upper = row.clone();
            self.cursor.seek(&first_on_row(&row))?;
            let mut stop = row;
            stop.push(0);
            self.stop = stop;
            self.done = false;
            if let Some(r) = self.next_forward()? {
                return Ok(Some(r));
            }
        }
    }

    /// Collects the row's cells and applies the filter's row-level decision [FLT-5] [FLT-7];
    /// `None` when the row is dropped.
    fn finish_row(&mut self) -> Option<Vec<Cell>> {
        let mut cells = Vec::new();
        self.cells.finish_into(&mut cells);
        if let Some(f) = &mut self.filter {
            if f.has_filter_row() {
                f.filter_row_cells(&mut cells);
            }
            if !cells.is_empty() && f.filter_row() {
                self.rows_filtered += 1;
                return None;
            }
        }
        (!cells.is_empty()).then_some(cells)
    }

    fn next_forward(&mut self) -> Result<Option<Vec<Cell>>> {
        // A row is open: its key is `self.cells.row()` (no copy of the row of its own).
        let mut in_row = false;
        // The matcher has seen a cell of `row` (so its position is on `row`: every cell that
        // reaches it below belongs to `row`).
        let mut fed = false;
        // The stream's previous cell went to the matcher.
        let mut prev_fed = false;
        // `next` steps taken in a row for `SeekNextColumn` answers (see below).
        let mut column_steps = 0;
        while !self.done {
            if !self.cursor.valid() {
                self.done = true;
                break;
            }
            let (raw_key, raw_payload) = self.cursor.entry();
            let key = KeyRef::parse(raw_key).ok_or_else(bad_key)?;
            // After a `next` the merge may know it stayed on the row (no comparison).
            let shares = self.cursor.shares();
            if in_row && shares < SHARES_ROW && self.cells.row() != key.row {
                in_row = false;
                if let Some(done) = self.finish_row() {
                    return Ok(Some(done));
                }
                continue;
            }
            if !in_row {
                if (!self.stop.is_empty() && key.row >= self.stop.as_slice()) || self.filter_done()
                {
                    self.done = true;
                    break;
                }
                // [FLT-3] a row filter decides before the row's cells are read.
                if let Some(f) = &mut self.filter
                    && f.filter_row_key(key.row)
                {
                    self.rows_filtered += 1;
                    let next = first_after_row(key.row);
                    self.cursor.seek(&next)?;
                    continue;
                }
                in_row = true;
                fed = false;
                self.cells.start_row(key.row);
            }
            if key.seq > self.read_point {
                prev_fed = false;
                self.cursor.next()?;
                continue;
            }
            let payload = PayloadRef::parse(raw_payload).ok_or_else(bad_key)?;
            let known = Known {
                row: std::mem::replace(&mut fed, true),
                // The previous cell had this row and family and set the matcher's position.
                family: std::mem::replace(&mut prev_fed, true) && shares >= SHARES_FAMILY,
                // Same row and family as the stream's previous cell but not its qualifier: a
                // later qualifier than any the matcher saw in this row and family.
                new_column: shares == SHARES_FAMILY,
            };
            let seek = match self.matcher.match_cell_in_row(&key, &payload, known) {
                MatchCode::Include => {
                    let cell_type = key.cell_type().ok_or_else(bad_key)?;
                    let value = if cell_type == CellType::Put {
                        payload.value
                    } else {
                        &[][..]
                    };
                    let (keep, seek) = match &mut self.filter {
                        None => (Some(std::borrow::Cow::Borrowed(value)), None),
                        Some(f) => {
                            let view = CellView {
                                row: key.row,
                                family: key.family,
                                qualifier: key.qualifier,
                                ts: key.ts,
                                value,
                            };
                            // Never seek past the empty-qualifier column: family delete
                            // markers sort there behind newer empty-qualifier puts; step
                            // instead (HBASE-18471, `getKeyForNextColumn`).
                            let column = || {
                                (!key.qualifier.is_empty())
                                    .then(|| last_on_column(key.row, key.family, key.qualifier))
                            };
                            match f.filter_cell(&view) {
                                code @ (ReturnCode::Include | ReturnCode::IncludeAndNextCol) => {
                                    // [VER-6] at most min(query, VERSIONS) filter-included versions.
                                    let kept = self.matcher.note_filter_included(&key).then(|| {
                                        f.transform_cell(value).map_or(
                                            std::borrow::Cow::Borrowed(value),
                                            std::borrow::Cow::Owned,
                                        )
                                    });
                                    let seek = if code == ReturnCode::IncludeAndNextCol
                                        || kept.is_none()
                                    {
                                        column()
                                    } else {
                                        None
                                    };
                                    (kept, seek)
                                }
                                ReturnCode::Skip => (None, None),
                                ReturnCode::NextCol => (None, column()),
                                // HBase's NEXT_ROW, per family (filter::eval module docs).
                                ReturnCode::NextRow => {
                                    (None, Some(first_after_family(key.row, key.family)))
                                }
                                // A row hint (MultiRowRange, FuzzyRow): forward, seek to the
                                // hinted row; reversed, end this row and bound the next one.
                                ReturnCode::SeekToRow if self.reverse.is_none() => {
                                    (None, Some(first_on_row(f.row_hint())))
                                }
                                ReturnCode::SeekToRow => {
                                    let mut upper = f.row_hint().to_vec();
                                    upper.push(0);
                                    self.hint_upper = Some(upper);
                                    (None, Some(first_after_row(key.row)))
                                }
                            }
                        }
                    };
                    let (mut keep, mut seek) = (keep, seek);
                    // [GET-3] the per (row, family) offset and limit count the cells that
                    // survived the matcher and the filter (`StoreScanner.next`).
                    if self.window && keep.is_some() {
                        match self.matcher.admit() {
                            Admit::Skip => keep = None,
                            Admit::Keep => {}
                            Admit::KeepLast => {
                                seek = Some(first_after_family(key.row, key.family));
                            }
                        }
                    }
                    if let Some(value) = keep {
                        // Family and qualifier lie side by side in the encoded key.
                        let joined = raw_key
                            .get(3 + key.row.len()..raw_key.len() - KEY_TRAILER_LEN)
                            .ok_or_else(bad_key)?;
                        self.cells
                            .push_joined(joined, key.family.len(), key.ts, cell_type, &value);
                    }
                    seek
                }
                MatchCode::Skip => None,
                // HBase's `trySkipToNextColumn`: a column's older versions usually lie a step
                // or two ahead (an update in a newer file, the old value in an older one), and a
                // merge step costs far less than a merge seek (which compares every source with
                // the target and rebuilds the heap). The matcher answers the rest of a left
                // column with `SeekNextColumn` again, so steps are only bounded, then seek.
                MatchCode::SeekNextColumn if column_steps < COLUMN_STEPS_BEFORE_SEEK => {
                    column_steps += 1;
                    self.cursor.next()?;
                    continue;
                }
                MatchCode::SeekNextColumn => {
                    Some(last_on_column(key.row, key.family, key.qualifier))
                }
                MatchCode::SeekNextFamily => Some(first_after_family(key.row, key.family)),
                MatchCode::SeekNextRow => Some(first_after_row(key.row)),
                MatchCode::Done => {
                    self.done = true;
                    break;
                }
            };
            column_steps = 0;
            match seek {
                None => self.cursor.next()?,
                Some(target) => {
                    #[cfg(test)]
                    {
                        self.seeks += 1;
                    }
                    self.cursor.seek(&target)?;
                }
            }
        }
        Ok(if in_row { self.finish_row() } else { None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FamilyDescriptor;
    use crate::read::matcher::ReadSpec;
    use crate::storage::memstore::{MemCursor, MemStore};
    use std::sync::Arc;

    fn put(store: &MemStore, row: &str, qualifier: &str, ts: i64, seq: u64) {
        let key = KeyRef {
            row: row.as_bytes(),
            family: b"f",
            qualifier: qualifier.as_bytes(),
            ts,
            type_code: CellType::Put.code(),
            seq,
        }
        .encode();
        let value = format!("{qualifier}@{ts}");
        store.insert(&key, &crate::model::payload::encode(None, value.as_bytes()));
    }

    /// Reads every row of `stores` (newest first) with one version per column; returns the rows
    /// as `row: qualifier@ts ...` and the merge seeks taken.
    fn read_all(stores: &[Arc<MemStore>]) -> (Vec<String>, u64) {
        read_filtered(stores, None)
    }

    /// [`read_all`] through a filter; also returns how many rows the filter was asked about.
    fn read_filtered(
        stores: &[Arc<MemStore>],
        filter: Option<&crate::read::filter::Filter>,
    ) -> (Vec<String>, u64) {
        let children = stores
            .iter()
            .map(|s| SourceCursor::Mem(MemCursor::new(Arc::clone(s))))
            .collect();
        let mut merge = MergeCursor::new(children);
        merge.seek_to_first().unwrap();
        let families = [FamilyDescriptor::new("f")];
        let matcher = Box::new(UserMatcher::new(&families, ReadSpec::new(1_000)));
        let runner = filter.map(|f| FilterRunner::new(f, false).unwrap());
        let mut reader = RowReader::new(
            merge,
            matcher,
            runner,
            u64::MAX,
            Vec::new(),
            RowCells::default(),
        );
        let mut rows = Vec::new();
        while let Some(cells) = reader.next_row().unwrap() {
            let row = cells[0].row().to_vec();
            let values: Vec<String> = cells
                .iter()
                .map(|c| String::from_utf8(c.value().to_vec()).unwrap())
                .collect();
            rows.push(format!(
                "{}: {}",
                String::from_utf8(row).unwrap(),
                values.join(" ")
            ));
        }
        (rows, reader.seeks)
    }

    /// [VER-2] A column updated in a newer source: the row holds the newest value of every
    /// column, and the older version behind the update is stepped over, not sought past
    /// (HBase's `trySkipToNextColumn`).
    #[test]
    fn an_update_in_a_newer_source_is_stepped_over() {
        let (newer, older) = (Arc::new(MemStore::new()), Arc::new(MemStore::new()));
        for row in ["r1", "r2", "r3"] {
            for q in ["q1", "q2", "q3"] {
                put(&older, row, q, 10, 1);
            }
        }
        put(&newer, "r1", "q2", 20, 2);
        put(&newer, "r3", "q1", 30, 3);
        put(&newer, "r3", "q3", 30, 4);
        let (rows, seeks) = read_all(&[newer, older]);
        assert_eq!(
            rows,
            [
                "r1: q1@10 q2@20 q3@10",
                "r2: q1@10 q2@10 q3@10",
                "r3: q1@30 q2@10 q3@30",
            ]
        );
        assert_eq!(seeks, 0, "older versions one step behind are stepped over");
    }

    /// [VER-2] A column with many versions, one per source: the reader steps over the first
    /// `COLUMN_STEPS_BEFORE_SEEK` older versions, then seeks past the rest in one go.
    #[test]
    fn a_long_run_of_old_versions_is_sought_past() {
        let stores: Vec<Arc<MemStore>> = (0..6).map(|_| Arc::new(MemStore::new())).collect();
        // Newest source first: store i holds version ts = 60 - 10 i.
        for (i, s) in stores.iter().enumerate() {
            put(s, "r", "q5", 60 - 10 * i as i64, 100 - i as u64);
        }
        put(&stores[5], "r", "q1", 5, 1);
        put(&stores[5], "r", "q9", 5, 2);
        put(&stores[5], "s", "q1", 5, 3);
        let (rows, seeks) = read_all(&stores);
        assert_eq!(rows, ["r: q1@5 q5@60 q9@5", "s: q1@5"]);
        assert_eq!(seeks, 1, "{COLUMN_STEPS_BEFORE_SEEK} steps, then one seek");
    }

    /// MultiRowRangeFilter / FuzzyRowFilter row hints: the reader seeks from range to range
    /// (one seek per gap, not one step per row in between) and stops after the last range.
    #[test]
    fn row_hints_seek_over_the_rows_in_between() {
        use crate::read::filter::{Filter, RowRange};
        let store = Arc::new(MemStore::new());
        for i in 0..200 {
            put(&store, &format!("r{i:03}"), "q", 1, i + 1);
        }
        let stores = [store];
        let f = Filter::MultiRowRange(vec![
            RowRange::new("r010", true, "r012", false),
            RowRange::new("r150", true, "r151", true),
        ]);
        let (rows, seeks) = read_filtered(&stores, Some(&f));
        assert_eq!(rows, ["r010: q@1", "r011: q@1", "r150: q@1", "r151: q@1"]);
        // r000 -> r010, r012 -> r150, and past r152's family, where the filter is done and
        // the scan ends (200 rows read as 7).
        assert_eq!(seeks, 3, "one seek per gap between ranges");
        // Fuzzy: rows r?5?: from r000 straight to r050, r060 to r150, ...
        let f = Filter::FuzzyRow(vec![(b"r050".to_vec(), vec![0, 1, 0, 1])]);
        let (rows, seeks) = read_filtered(&stores, Some(&f));
        let want: Vec<String> = (0..200)
            .filter(|i| i / 10 % 10 == 5)
            .map(|i| format!("r{i:03}: q@1"))
            .collect();
        assert_eq!(rows, want);
        assert!(seeks <= 3, "{seeks} seeks: one per gap");
    }
}
