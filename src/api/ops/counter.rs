//! `Increment`, `Append` and `Mutation`.

use crate::api::ops::{Delete, Put};
use crate::read::filter::CompareOp;

/// Adds 8-byte big-endian deltas to counter cells of one row (HBase `Increment`) [INC-1..6].
#[derive(Clone, Debug)]
#[must_use]
pub struct Increment {
    pub(crate) row: Vec<u8>,
    pub(crate) cells: Vec<(Vec<u8>, Vec<u8>, i64)>,
    pub(crate) ttl: Option<std::time::Duration>,
}

impl Increment {
    /// An increment of `row`.
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Increment {
            row: row.as_ref().to_vec(),
            cells: Vec::new(),
            ttl: None,
        }
    }
    /// Per-cell TTL (ms precision) of the new values; when it expires the previous value, if
    /// still stored, is visible again [INC-6] [TTL-5].
    pub fn ttl(mut self, ttl: std::time::Duration) -> Self {
        self.ttl = Some(ttl);
        self
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
    pub(crate) ttl: Option<std::time::Duration>,
}

impl Append {
    /// An append to `row`.
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Append {
            row: row.as_ref().to_vec(),
            cells: Vec::new(),
            ttl: None,
        }
    }
    /// Per-cell TTL (ms precision) of the new values [TTL-3].
    pub fn ttl(mut self, ttl: std::time::Duration) -> Self {
        self.ttl = Some(ttl);
        self
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

/// One condition of a [`CheckAndMutate`].
#[derive(Clone, Debug)]
pub(crate) struct Condition {
    pub family: Vec<u8>,
    pub qualifier: Vec<u8>,
    pub op: CompareOp,
    /// Empty = "missing or empty" per [CAM-3].
    pub expected: Vec<u8>,
}

/// Applies puts and deletes to one row only if conditions on its current values hold, atomically
/// (HBase `CheckAndMutate`) [CAM-1..5]. Several conditions must all hold.
#[derive(Clone, Debug)]
#[must_use]
pub struct CheckAndMutate {
    pub(crate) row: Vec<u8>,
    pub(crate) conditions: Vec<Condition>,
    pub(crate) actions: Vec<Mutation>,
}

impl CheckAndMutate {
    /// A check-and-mutate of `row`.
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        CheckAndMutate {
            row: row.as_ref().to_vec(),
            conditions: Vec::new(),
            actions: Vec::new(),
        }
    }
    /// The latest visible value of `f:q` equals `value`; an empty `value` also matches a
    /// missing cell [CAM-3].
    pub fn if_equals(
        self,
        f: impl AsRef<[u8]>,
        q: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
    ) -> Self {
        self.if_compare(f, q, CompareOp::Equal, value)
    }
    /// `f:q` has no visible cell (HBase `ifNotExists`; as in HBase a cell with an empty value
    /// also matches [CAM-3]).
    pub fn if_absent(self, f: impl AsRef<[u8]>, q: impl AsRef<[u8]>) -> Self {
        self.if_compare(f, q, CompareOp::Equal, b"")
    }
    /// `value OP stored` holds, read as HBase does: the operator compares the EXPECTED value
    /// with the stored one, so `Less` succeeds when `value < stored` [CAM-2].
    pub fn if_compare(
        mut self,
        f: impl AsRef<[u8]>,
        q: impl AsRef<[u8]>,
        op: CompareOp,
        value: impl AsRef<[u8]>,
    ) -> Self {
        self.conditions.push(Condition {
            family: f.as_ref().to_vec(),
            qualifier: q.as_ref().to_vec(),
            op,
            expected: value.as_ref().to_vec(),
        });
        self
    }
    /// The put applied when the conditions hold.
    pub fn then_put(mut self, p: Put) -> Self {
        self.actions.push(Mutation::Put(p));
        self
    }
    /// The delete applied when the conditions hold.
    pub fn then_delete(mut self, d: Delete) -> Self {
        self.actions.push(Mutation::Delete(d));
        self
    }
}
