//! `Cell` and `RowResult`.

use crate::model::CellType;

/// One cell of a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub(crate) row: Vec<u8>,
    pub(crate) family: Vec<u8>,
    pub(crate) qualifier: Vec<u8>,
    pub(crate) ts: i64,
    pub(crate) cell_type: CellType,
    pub(crate) value: Vec<u8>,
}

impl Cell {
    /// The row key.
    pub fn row(&self) -> &[u8] {
        &self.row
    }
    /// The column family.
    pub fn family(&self) -> &[u8] {
        &self.family
    }
    /// The qualifier.
    pub fn qualifier(&self) -> &[u8] {
        &self.qualifier
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
        &self.value
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
            .find(|c| c.cell_type == CellType::Put && c.family == f && c.qualifier == q)
            .map(|c| c.value.as_slice())
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
            .filter(|c| c.cell_type == CellType::Put && c.family == f && c.qualifier == q)
            .map(|c| (c.ts, c.value.as_slice()))
            .collect()
    }
}
