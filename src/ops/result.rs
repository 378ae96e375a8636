//! `Cell` and `RowResult`.

use crate::model::CellType;

/// One cell of a result.
///
/// Held in one buffer (`row | family | qualifier | value`) with the boundaries, so building a
/// result costs one allocation per cell, not four (docs/PERFORMANCE.md).
#[derive(Clone, PartialEq, Eq)]
pub struct Cell {
    buf: Vec<u8>,
    /// End of the row in `buf` (start of the family).
    row_end: usize,
    /// End of the family (start of the qualifier).
    family_end: usize,
    /// End of the qualifier (start of the value).
    qualifier_end: usize,
    ts: i64,
    cell_type: CellType,
}

impl Cell {
    /// A cell from its parts (copied into one buffer).
    pub(crate) fn new(
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        ts: i64,
        cell_type: CellType,
        value: &[u8],
    ) -> Cell {
        let mut buf = Vec::with_capacity(row.len() + family.len() + qualifier.len() + value.len());
        buf.extend_from_slice(row);
        let row_end = buf.len();
        buf.extend_from_slice(family);
        let family_end = buf.len();
        buf.extend_from_slice(qualifier);
        let qualifier_end = buf.len();
        buf.extend_from_slice(value);
        Cell {
            buf,
            row_end,
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
        &self.buf[self.row_end..self.family_end]
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
        &self.buf[self.qualifier_end..]
    }
    /// The value, taking the cell's buffer.
    pub(crate) fn into_value(mut self) -> Vec<u8> {
        self.buf.drain(..self.qualifier_end);
        self.buf
    }
}

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
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RowResult {
    pub(crate) row: Vec<u8>,
    pub(crate) cells: Vec<Cell>,
}

impl RowResult {
    pub(crate) fn new(row: Vec<u8>, cells: Vec<Cell>) -> Self {
        RowResult { row, cells }
    }
    /// The row key (empty for an empty result).
    pub fn row(&self) -> &[u8] {
        &self.row
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
