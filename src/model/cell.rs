//! The cells of a result: `Cell`, `RowResult`, and `RowCells`, which builds a row's cells in one buffer.

use crate::model::CellType;
use std::sync::Arc;

/// One cell of a result.
///
/// The cells of one row share one buffer (`row`, then `family | qualifier | value` of each
/// cell, built by `RowCells`): reading a row costs one allocation for all its cells, not one
/// per cell (docs/PERFORMANCE.md). A cell keeps its row's buffer alive.
#[derive(Clone)]
pub struct Cell {
    buf: Arc<[u8]>,
    /// The row is `buf[..row_end]`.
    row_end: usize,
    /// The family is `buf[family_start..family_end]`.
    family_start: usize,
    /// End of the family (start of the qualifier).
    family_end: usize,
    /// End of the qualifier (start of the value).
    qualifier_end: usize,
    /// End of the value.
    value_end: usize,
    ts: i64,
    cell_type: CellType,
}

impl Cell {
    /// A cell from its parts (copied into a buffer of its own).
    pub(crate) fn new(
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        ts: i64,
        cell_type: CellType,
        value: &[u8],
    ) -> Cell {
        let mut buf = Vec::with_capacity(row.len() + family.len() + qualifier.len() + value.len());
        for part in [row, family, qualifier, value] {
            buf.extend_from_slice(part);
        }
        let row_end = row.len();
        let family_end = row_end + family.len();
        let qualifier_end = family_end + qualifier.len();
        Cell {
            value_end: buf.len(),
            buf: Arc::from(buf),
            row_end,
            family_start: row_end,
            family_end,
            qualifier_end,
            ts,
            cell_type,
        }
    }

    /// The row key.
    pub fn row(&self) -> &[u8] {
        &self.buf[..self.row_end]
    }
    /// The column family.
    pub fn family(&self) -> &[u8] {
        &self.buf[self.family_start..self.family_end]
    }
    /// The qualifier.
    pub fn qualifier(&self) -> &[u8] {
        &self.buf[self.family_end..self.qualifier_end]
    }
    /// The timestamp in milliseconds.
    pub fn timestamp(&self) -> i64 {
        self.ts
    }
    /// Put, or a delete-marker type (raw scans only).
    pub fn cell_type(&self) -> CellType {
        self.cell_type
    }
    /// The value (empty for delete markers).
    pub fn value(&self) -> &[u8] {
        &self.buf[self.qualifier_end..self.value_end]
    }

    /// Row, family, qualifier and value lengths together (offset arithmetic only: the scan
    /// metrics' byte count).
    #[inline]
    pub(crate) fn parts_len(&self) -> usize {
        self.row_end + (self.value_end - self.family_start)
    }
    /// The value, copied out of the row's buffer.
    pub(crate) fn into_value(self) -> Vec<u8> {
        self.value().to_vec()
    }
}

/// Equal when every part is equal, wherever the buffers are.
impl PartialEq for Cell {
    fn eq(&self, other: &Cell) -> bool {
        self.ts == other.ts
            && self.cell_type == other.cell_type
            && self.row() == other.row()
            && self.family() == other.family()
            && self.qualifier() == other.qualifier()
            && self.value() == other.value()
    }
}

impl Eq for Cell {}

/// Equal when the rows and the cells are equal (wherever the row is kept).
impl PartialEq for RowResult {
    fn eq(&self, other: &RowResult) -> bool {
        self.row() == other.row() && self.cells == other.cells
    }
}

impl Eq for RowResult {}

impl std::fmt::Debug for RowResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowResult")
            .field("row", &self.row())
            .field("cells", &self.cells)
            .finish()
    }
}

/// Where one cell lies in a [`RowCells`] buffer.
#[derive(Debug, Clone, Copy)]
struct Span {
    family_start: usize,
    family_end: usize,
    qualifier_end: usize,
    value_end: usize,
    ts: i64,
    cell_type: CellType,
}

/// Builds the cells of one row in one buffer: [`RowCells::start_row`], [`RowCells::push`] per
/// cell, then [`RowCells::finish_into`] gives every cell a share of one `Arc` buffer. The
/// builder keeps its own buffers for the next row.
#[derive(Debug, Default)]
pub(crate) struct RowCells {
    buf: Vec<u8>,
    row_end: usize,
    spans: Vec<Span>,
}

impl RowCells {
    /// Starts the cells of `row`, forgetting any unfinished ones.
    pub(crate) fn start_row(&mut self, row: &[u8]) {
        self.buf.clear();
        self.spans.clear();
        self.buf.extend_from_slice(row);
        self.row_end = row.len();
    }

    /// The row [`RowCells::start_row`] started (until [`RowCells::finish_into`] hands its
    /// cells out).
    #[inline]
    pub(crate) fn row(&self) -> &[u8] {
        &self.buf[..self.row_end]
    }

    /// Adds a cell of the current row.
    #[cfg(test)]
    pub(crate) fn push(
        &mut self,
        family: &[u8],
        qualifier: &[u8],
        ts: i64,
        cell_type: CellType,
        value: &[u8],
    ) {
        let family_start = self.buf.len();
        self.buf.extend_from_slice(family);
        self.buf.extend_from_slice(qualifier);
        self.buf.extend_from_slice(value);
        self.spans.push(Span {
            family_start,
            family_end: family_start + family.len(),
            qualifier_end: family_start + family.len() + qualifier.len(),
            value_end: self.buf.len(),
            ts,
            cell_type,
        });
    }

    /// [`RowCells::push`] for a cell whose family and qualifier lie side by side in
    /// `family_qualifier` (as in an encoded key), the first `family_len` bytes the family:
    /// copied with one copy instead of two.
    #[inline]
    pub(crate) fn push_joined(
        &mut self,
        family_qualifier: &[u8],
        family_len: usize,
        ts: i64,
        cell_type: CellType,
        value: &[u8],
    ) {
        let family_start = self.buf.len();
        self.buf.reserve(family_qualifier.len() + value.len());
        self.buf.extend_from_slice(family_qualifier);
        let qualifier_end = self.buf.len();
        self.buf.extend_from_slice(value);
        self.spans.push(Span {
            family_start,
            family_end: family_start + family_len.min(family_qualifier.len()),
            qualifier_end,
            value_end: self.buf.len(),
            ts,
            cell_type,
        });
    }

    /// Appends the row's cells to `out` (one shared buffer) and clears the builder.
    pub(crate) fn finish_into(&mut self, out: &mut Vec<Cell>) {
        if self.spans.is_empty() {
            return;
        }
        let buf: Arc<[u8]> = Arc::from(self.buf.as_slice());
        out.reserve_exact(self.spans.len());
        // A plain loop: `extend` over a `map` was left out of line here after the move to
        // model/ (callgrind: +52 instructions per row of a scan).
        for s in &self.spans {
            out.push(Cell {
                buf: Arc::clone(&buf),
                row_end: self.row_end,
                family_start: s.family_start,
                family_end: s.family_end,
                qualifier_end: s.qualifier_end,
                value_end: s.value_end,
                ts: s.ts,
                cell_type: s.cell_type,
            });
        }
        self.spans.clear();
        self.buf.clear();
        // A thread keeps its builder between reads: do not keep a very wide row's buffer.
        if self.buf.capacity() > MAX_KEPT_BYTES {
            self.buf = Vec::new();
        }
        if self.spans.capacity() > MAX_KEPT_CELLS {
            self.spans = Vec::new();
        }
    }
}

/// Largest row buffer a [`RowCells`] keeps for the next row.
const MAX_KEPT_BYTES: usize = 256 * 1024;
/// Largest cell list a [`RowCells`] keeps for the next row.
const MAX_KEPT_CELLS: usize = 4096;

impl std::fmt::Debug for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cell")
            .field("row", &self.row())
            .field("family", &self.family())
            .field("qualifier", &self.qualifier())
            .field("ts", &self.ts)
            .field("cell_type", &self.cell_type)
            .field("value", &self.value())
            .finish()
    }
}

/// The cells of one row (HBase `Result`), in [SORT-1] order: family asc, qualifier asc,
/// timestamp desc.
#[derive(Clone, Default)]
pub struct RowResult {
    /// The row key; empty when it is the cells' row ([`RowResult::from_cells`]: a read's
    /// result does not copy its row a second time), or for an empty result.
    pub(crate) row: Vec<u8>,
    pub(crate) cells: Vec<Cell>,
}

impl RowResult {
    pub(crate) fn new(row: Vec<u8>, cells: Vec<Cell>) -> Self {
        RowResult { row, cells }
    }
    /// The result of a read: `cells` (not empty, all of one row, sharing their buffer) with
    /// their row as the result's row, without a copy of it.
    pub(crate) fn from_cells(cells: Vec<Cell>) -> Self {
        debug_assert!(!cells.is_empty(), "a read's row has a cell");
        RowResult {
            row: Vec::new(),
            cells,
        }
    }
    /// The row key (empty for an empty result).
    pub fn row(&self) -> &[u8] {
        match self.cells.first() {
            Some(c) if self.row.is_empty() => c.row(),
            _ => &self.row,
        }
    }
    /// True when no cell matched.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
    /// The cells.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }
    /// The newest value of a column [SORT-9].
    pub fn value(&self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Option<&[u8]> {
        let (f, q) = (family.as_ref(), qualifier.as_ref());
        self.cells
            .iter()
            .find(|c| c.cell_type == CellType::Put && c.family() == f && c.qualifier() == q)
            .map(Cell::value)
    }
    /// Every returned version of a column, newest first.
    pub fn versions(
        &self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
    ) -> Vec<(i64, &[u8])> {
        let (f, q) = (family.as_ref(), qualifier.as_ref());
        self.cells
            .iter()
            .filter(|c| c.cell_type == CellType::Put && c.family() == f && c.qualifier() == q)
            .map(|c| (c.ts, c.value()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_cells_share_one_buffer_and_compare_by_content() {
        let mut b = RowCells::default();
        let mut out = Vec::new();
        b.start_row(b"row1");
        b.push(b"f", b"a", 7, CellType::Put, b"v1");
        b.push(b"f", b"", 5, CellType::DeleteFamily, b"");
        b.push(b"g", b"qq", 3, CellType::Put, b"");
        b.finish_into(&mut out);
        assert_eq!(out.len(), 3);
        assert!(out.iter().all(|c| Arc::ptr_eq(&c.buf, &out[0].buf)));
        let parts: Vec<_> = out
            .iter()
            .map(|c| {
                (
                    c.row(),
                    c.family(),
                    c.qualifier(),
                    c.timestamp(),
                    c.cell_type(),
                    c.value(),
                )
            })
            .collect();
        assert_eq!(
            parts,
            [
                (
                    &b"row1"[..],
                    &b"f"[..],
                    &b"a"[..],
                    7,
                    CellType::Put,
                    &b"v1"[..]
                ),
                (b"row1", b"f", b"", 5, CellType::DeleteFamily, b""),
                (b"row1", b"g", b"qq", 3, CellType::Put, b""),
            ]
        );
        // Equal to the same cell in a buffer of its own; a clone shares the buffer.
        assert_eq!(
            out[0],
            Cell::new(b"row1", b"f", b"a", 7, CellType::Put, b"v1")
        );
        assert_ne!(
            out[0],
            Cell::new(b"row1", b"f", b"a", 7, CellType::Put, b"v2")
        );
        assert_ne!(
            out[0],
            Cell::new(b"row1", b"f", b"a", 6, CellType::Put, b"v1")
        );
        assert_eq!(out[2].clone(), out[2]);
        assert_eq!(out[0].clone().into_value(), b"v1");
        // The builder is empty again and reusable.
        b.finish_into(&mut out);
        assert_eq!(out.len(), 3);
        b.start_row(b"r2");
        b.push(b"f", b"a", 1, CellType::Put, b"x");
        let mut next = Vec::new();
        b.finish_into(&mut next);
        assert_eq!(next, [Cell::new(b"r2", b"f", b"a", 1, CellType::Put, b"x")]);
        // Earlier cells are unaffected by later rows.
        assert_eq!(out[0].value(), b"v1");
    }

    #[test]
    fn a_read_result_takes_its_row_from_its_cells_and_compares_by_content() {
        let mut b = RowCells::default();
        b.start_row(b"row7");
        assert_eq!(b.row(), b"row7");
        b.push(b"f", b"a", 7, CellType::Put, b"v1");
        let mut cells = Vec::new();
        b.finish_into(&mut cells);
        let read = RowResult::from_cells(cells.clone());
        assert!(read.row.is_empty(), "no copy of the row of its own");
        assert_eq!(read.row(), b"row7");
        // Equal to the same result built with its row, and printed with it.
        let built = RowResult::new(
            b"row7".to_vec(),
            vec![Cell::new(b"row7", b"f", b"a", 7, CellType::Put, b"v1")],
        );
        assert_eq!(read, built);
        assert_eq!(format!("{read:?}"), format!("{built:?}"));
        assert!(
            format!("{read:?}").contains("114, 111, 119, 55"),
            "{read:?}"
        );
        // A different row is a different result, even with the same cells' other parts.
        let other = RowResult::new(b"row8".to_vec(), Vec::new());
        assert_ne!(read, other);
        assert_eq!(RowResult::default().row(), b"");
    }
}
