//! `Get` and `Scan`.

use crate::read::filter::Filter;
use crate::read::matcher::{ColumnMap, PerFamily};
use std::collections::BTreeSet;

/// Column selection of a read [GET-1]: empty = every family and column; a family mapped to
/// `None` = the whole family; `Some(set)` = only those qualifiers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Columns(pub ColumnMap);

impl Columns {
    /// `addFamily(f)`: widens `f` back to the whole family.
    fn family(&mut self, f: &[u8]) {
        self.0.insert(f.to_vec(), None);
    }
    /// `addColumn(f, q)`: narrows `f` to the named qualifiers.
    fn column(&mut self, f: &[u8], q: &[u8]) {
        match self
            .0
            .entry(f.to_vec())
            .or_insert_with(|| Some(BTreeSet::new()))
        {
            Some(set) => {
                set.insert(q.to_vec());
            }
            slot @ None => *slot = Some(BTreeSet::from([q.to_vec()])),
        }
    }
    /// True when some qualifier is named explicitly.
    pub fn has_explicit_columns(&self) -> bool {
        self.0.values().any(Option::is_some)
    }
}

/// The read options `Get` and `Scan` share [GET-1] [VER-2] [TS-5] [VER-5] [GET-3] [SCAN-5].
macro_rules! read_options {
    () => {
        /// Every column of family `f` (widens an earlier `column` of `f`) [GET-1].
        pub fn family(mut self, f: impl AsRef<[u8]>) -> Self {
            self.columns.family(f.as_ref());
            self
        }
        /// Column `f:q` (narrows an earlier `family(f)`) [GET-1].
        pub fn column(mut self, f: impl AsRef<[u8]>, q: impl AsRef<[u8]>) -> Self {
            self.columns.column(f.as_ref(), q.as_ref());
            self
        }
        /// At most `n` versions per column (default 1; 0 is rejected when executed) [VER-2].
        pub fn max_versions(mut self, n: u32) -> Self {
            self.max_versions = n;
            self
        }
        /// Every version the family keeps.
        pub fn all_versions(mut self) -> Self {
            self.max_versions = u32::MAX;
            self
        }
        /// Only cells with `min_inclusive <= ts < max_exclusive`, applied before version
        /// counting [TS-5] [VER-5].
        pub fn time_range(mut self, min_inclusive: i64, max_exclusive: i64) -> Self {
            self.time_range = (min_inclusive, max_exclusive);
            self
        }
        /// Only cells at exactly `ts` (the range `[ts, ts + 1)`) [TS-5].
        pub fn timestamp(mut self, ts: i64) -> Self {
            self.time_range = (ts, ts.saturating_add(1));
            self
        }
        /// At most `n` cells per row and family (HBase's `setMaxResultsPerColumnFamily`),
        /// counted after versions, the time range, deletes and the filter's cell decisions, and
        /// after the cells skipped by [`Self::row_offset_per_column_family`] [GET-3]. As in
        /// HBase, 0 returns one cell per row and family (the limit is checked after a cell is
        /// taken).
        pub fn max_results_per_column_family(mut self, n: u32) -> Self {
            self.per_family.get_or_insert_default().window.limit = Some(n);
            self
        }
        /// Skips the first `k` cells of each row and family that would be returned (HBase's
        /// `setRowOffsetPerColumnFamily`) [GET-3].
        pub fn row_offset_per_column_family(mut self, k: u32) -> Self {
            self.per_family.get_or_insert_default().window.offset = k;
            self
        }
        /// For `family` only, cells with `min_inclusive <= ts < max_exclusive` instead of the
        /// read's [`Self::time_range`] (HBase's `setColumnFamilyTimeRange`) [SCAN-5]. A later
        /// call for the same family replaces the earlier one. An unknown family is
        /// [`crate::Error::NoSuchFamily`] and a bad range [`crate::Error::InvalidArgument`] when
        /// the read runs.
        pub fn column_family_time_range(
            mut self,
            family: impl AsRef<[u8]>,
            min_inclusive: i64,
            max_exclusive: i64,
        ) -> Self {
            self.per_family
                .get_or_insert_default()
                .time_ranges
                .set(family.as_ref(), (min_inclusive, max_exclusive));
            self
        }
    };
}

/// Reads one row (HBase `Get`).
#[derive(Clone, Debug)]
#[must_use]
pub struct Get {
    pub(crate) row: Vec<u8>,
    pub(crate) columns: Columns,
    pub(crate) max_versions: u32,
    pub(crate) time_range: (i64, i64),
    /// [GET-3] [SCAN-5]; `None` until one is set.
    pub(crate) per_family: Option<Box<PerFamily>>,
    pub(crate) filter: Option<Filter>,
}

impl Get {
    read_options!();

    /// A get of `row`: every family and column, newest version.
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Get {
            row: row.as_ref().to_vec(),
            columns: Columns::default(),
            max_versions: 1,
            time_range: (0, i64::MAX),
            per_family: None,
            filter: None,
        }
    }
    /// A copy of this get that reads `row` instead: the same columns, versions, time range and
    /// filter. Builds the requests of a [`Table::get_many`](crate::Table::get_many) batch from
    /// one template.
    pub fn with_row(&self, row: impl AsRef<[u8]>) -> Self {
        Get {
            row: row.as_ref().to_vec(),
            ..self.clone()
        }
    }
    /// Applies a filter to the row's cells [FLT-*]; up to the family's VERSIONS versions reach
    /// it [VER-6].
    pub fn filter(mut self, f: Filter) -> Self {
        self.filter = Some(f);
        self
    }
}

/// Reads a range of rows (HBase `Scan`). `Scan::new()` covers the whole table.
#[derive(Clone, Debug)]
#[must_use]
pub struct Scan {
    pub(crate) start: Vec<u8>,
    pub(crate) stop: Vec<u8>,
    pub(crate) columns: Columns,
    pub(crate) max_versions: u32,
    pub(crate) time_range: (i64, i64),
    /// [GET-3] [SCAN-5]; `None` until one is set.
    pub(crate) per_family: Option<Box<PerFamily>>,
    pub(crate) raw: bool,
    pub(crate) limit: Option<u64>,
    pub(crate) reversed: bool,
    pub(crate) batch: Option<u32>,
    /// Set by `prefix`: the bounds then hold in both directions.
    pub(crate) prefix: Option<Vec<u8>>,
    pub(crate) filter: Option<Filter>,
}

impl Default for Scan {
    fn default() -> Self {
        Scan::new()
    }
}

impl Scan {
    read_options!();

    /// The whole table, every column, newest versions.
    pub fn new() -> Self {
        Scan {
            start: Vec::new(),
            stop: Vec::new(),
            columns: Columns::default(),
            max_versions: 1,
            time_range: (0, i64::MAX),
            per_family: None,
            raw: false,
            limit: None,
            reversed: false,
            batch: None,
            prefix: None,
            filter: None,
        }
    }
    /// Applies a filter to every row [FLT-*]; up to the family's VERSIONS versions reach it
    /// [VER-6]. A filter deciding on whole rows (SingleColumnValue, Page) cannot be combined
    /// with `batch` [SCAN-3].
    pub fn filter(mut self, f: Filter) -> Self {
        self.filter = Some(f);
        self
    }
    /// First row, inclusive [SCAN-1].
    pub fn start_row(mut self, row: impl AsRef<[u8]>) -> Self {
        self.start = row.as_ref().to_vec();
        self
    }
    /// Stop row, exclusive; empty = end of table [SCAN-1].
    pub fn stop_row(mut self, row: impl AsRef<[u8]>) -> Self {
        self.stop = row.as_ref().to_vec();
        self
    }
    /// Rows starting with `p`: start = `p`, stop = `p` with its last non-0xFF byte incremented
    /// and trailing 0xFF bytes removed [SCAN-2].
    pub fn prefix(mut self, p: impl AsRef<[u8]>) -> Self {
        let p = p.as_ref();
        self.start = p.to_vec();
        self.stop = prefix_stop(p);
        self.prefix = Some(p.to_vec());
        self
    }
    /// Raw scan: also delete markers (empty values) and deleted or expired cells not yet
    /// purged; ignores TTL and family VERSIONS; rejects explicit columns [SCAN-RAW-1].
    pub fn raw(mut self, yes: bool) -> Self {
        self.raw = yes;
        self
    }
    /// At most `rows` rows [SCAN-2b].
    pub fn limit(mut self, rows: u64) -> Self {
        self.limit = Some(rows);
        self
    }
    /// Rows in descending order; `start_row` is then the high end (inclusive) and `stop_row`
    /// the low end (exclusive); cells inside a row keep their order [SCAN-REV-1] [SORT-8]. A
    /// `prefix` keeps meaning "rows starting with the prefix".
    pub fn reversed(mut self, yes: bool) -> Self {
        self.reversed = yes;
        self
    }
    /// At most `cells` cells per [`crate::RowResult`]: a wide row comes in parts, which
    /// together count as one row for `limit` [SCAN-3].
    pub fn batch(mut self, cells: u32) -> Self {
        self.batch = Some(cells);
        self
    }
}

/// The exclusive stop row of a prefix scan [SCAN-2]; empty (end of table) for an all-0xFF or
/// empty prefix.
pub(crate) fn prefix_stop(p: &[u8]) -> Vec<u8> {
    let mut stop = p.to_vec();
    while let Some(&last) = stop.last() {
        if last == 0xff {
            stop.pop();
        } else {
            *stop.last_mut().unwrap_or(&mut 0) = last + 1;
            return stop;
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [SCAN-2]
    #[test]
    fn prefix_stop_rows() {
        assert_eq!(prefix_stop(b"abc"), b"abd");
        assert_eq!(prefix_stop(b"a\xff\xff"), b"b");
        assert_eq!(prefix_stop(b"\xff\xff"), b"");
        assert_eq!(prefix_stop(b""), b"");
    }

    /// [GET-1] narrowing and widening.
    #[test]
    fn column_selection_narrows_and_widens() {
        let g = Get::new("r").family("f").column("f", "a");
        assert_eq!(
            g.columns.0[&b"f".to_vec()],
            Some(BTreeSet::from([b"a".to_vec()]))
        );
        let g = g.family("f");
        assert_eq!(g.columns.0[&b"f".to_vec()], None);
        let g = Get::new("r").column("f", "a").column("f", "b");
        assert_eq!(
            g.columns.0[&b"f".to_vec()].as_ref().map(|s| s.len()),
            Some(2)
        );
    }
}
