//! `Increment`, `Append` and `Mutation`.

use crate::ops::{Delete, Put};

/// Adds 8-byte big-endian deltas to counter cells of one row (HBase `Increment`) [INC-1..6].
#[derive(Clone, Debug)]
#[must_use]
pub struct Increment {
    pub(crate) row: Vec<u8>,
    pub(crate) cells: Vec<(Vec<u8>, Vec<u8>, i64)>,
}

impl Increment {
    /// An increment of `row`.
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Increment {
            row: row.as_ref().to_vec(),
            cells: Vec::new(),
        }
    }
    /// Adds `delta` to `f:q` (a missing cell counts as 0).
    pub fn add(mut self, f: impl AsRef<[u8]>, q: impl AsRef<[u8]>, delta: i64) -> Self {
        self.cells
            .push((f.as_ref().to_vec(), q.as_ref().to_vec(), delta));
        self
    }
}

/// Appends bytes to cells of one row (HBase `Append`) [APP-1].
#[derive(Clone, Debug)]
#[must_use]
pub struct Append {
    pub(crate) row: Vec<u8>,
    pub(crate) cells: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
}

impl Append {
    /// An append to `row`.
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Append {
            row: row.as_ref().to_vec(),
            cells: Vec::new(),
        }
    }
    /// Appends `suffix` to `f:q` (a missing cell counts as empty).
    pub fn add(
        mut self,
        f: impl AsRef<[u8]>,
        q: impl AsRef<[u8]>,
        suffix: impl AsRef<[u8]>,
    ) -> Self {
        self.cells.push((
            f.as_ref().to_vec(),
            q.as_ref().to_vec(),
            suffix.as_ref().to_vec(),
        ));
        self
    }
}

/// One mutation of a [`crate::Table::mutate_row`] batch (HBase `RowMutations`).
#[derive(Clone, Debug)]
pub enum Mutation {
    /// A put.
    Put(Put),
    /// A delete.
    Delete(Delete),
}
