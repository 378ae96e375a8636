//! `Put` and `Delete`.

use crate::base::clock::LATEST_TIMESTAMP;
use crate::engine::options::Durability;
use crate::model::CellType;
use std::time::Duration;

/// Where one cell of a [`Put`] lies in the put's byte buffer: family, qualifier and value
/// back to back from `start`.
#[derive(Clone, Copy, Debug)]
struct PutCellPos {
    start: usize,
    family_len: usize,
    qualifier_len: usize,
    value_len: usize,
    /// [`LATEST_TIMESTAMP`] = "now", assigned when the put is applied [TS-1].
    ts: i64,
}

/// One cell of a [`Put`], borrowed from it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PutCell<'a> {
    pub family: &'a [u8],
    pub qualifier: &'a [u8],
    /// [`LATEST_TIMESTAMP`] = "now", assigned when the put is applied [TS-1].
    pub ts: i64,
    pub value: &'a [u8],
}

/// Writes cells to one row (HBase `Put`).
///
/// The cells' bytes live in one buffer (a multi-cell put allocates a few times as it grows,
/// not three times per cell).
#[derive(Clone)]
#[must_use]
pub struct Put {
    pub(crate) row: Vec<u8>,
    data: Vec<u8>,
    cells: Vec<PutCellPos>,
    pub(crate) ttl: Option<Duration>,
    pub(crate) durability: Option<Durability>,
}

impl std::fmt::Debug for Put {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Put")
            .field("row", &self.row)
            .field("cells", &self.cells().collect::<Vec<_>>())
            .field("ttl", &self.ttl)
            .field("durability", &self.durability)
            .finish()
    }
}

impl Put {
    /// A put to `row`.
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Put {
            row: row.as_ref().to_vec(),
            data: Vec::new(),
            cells: Vec::new(),
            ttl: None,
            durability: None,
        }
    }

    /// Adds a cell stamped with the server's "now" when applied [TS-1].
    pub fn add(
        self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
    ) -> Self {
        self.add_at(family, qualifier, LATEST_TIMESTAMP, value)
    }

    /// Adds a cell with an explicit timestamp (milliseconds; negative is rejected when applied
    /// [TS-2]).
    pub fn add_at(
        mut self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        ts: i64,
        value: impl AsRef<[u8]>,
    ) -> Self {
        let (family, qualifier, value) = (family.as_ref(), qualifier.as_ref(), value.as_ref());
        let len = family.len() + qualifier.len() + value.len();
        if self.data.capacity() == 0 {
            // Room for several cells like this one (multi-cell puts usually repeat a shape;
            // 12 covers a 10-field record without regrowing), within 4 KiB unless the cell
            // alone is larger.
            self.data.reserve(len.saturating_mul(12).min(4096).max(len));
            self.cells.reserve(12);
        }
        let start = self.data.len();
        self.data.extend_from_slice(family);
        self.data.extend_from_slice(qualifier);
        self.data.extend_from_slice(value);
        self.cells.push(PutCellPos {
            start,
            family_len: family.len(),
            qualifier_len: qualifier.len(),
            value_len: value.len(),
            ts,
        });
        self
    }

    /// The cells, in the order they were added.
    pub(crate) fn cells(&self) -> impl ExactSizeIterator<Item = PutCell<'_>> + Clone + '_ {
        self.cells.iter().map(|c| {
            let f = c.start;
            let q = f + c.family_len;
            let v = q + c.qualifier_len;
            PutCell {
                family: &self.data[f..q],
                qualifier: &self.data[q..v],
                ts: c.ts,
                value: &self.data[v..v + c.value_len],
            }
        })
    }

    /// True when no cell was added.
    pub(crate) fn has_no_cells(&self) -> bool {
        self.cells.is_empty()
    }

    /// Per-cell TTL (millisecond precision) for every cell of this put [TTL-3].
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// Durability of this write (default: the database's).
    pub fn durability(mut self, d: Durability) -> Self {
        self.durability = Some(d);
        self
    }

    /// The row.
    pub fn row(&self) -> &[u8] {
        &self.row
    }
}

/// One marker request of a [`Delete`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DeleteEntry {
    pub family: Vec<u8>,
    /// Empty for family-level markers [SORT-5].
    pub qualifier: Vec<u8>,
    /// [`LATEST_TIMESTAMP`] = resolved when applied [DEL-6].
    pub ts: i64,
    pub kind: CellType,
}

/// Deletes cells of one row (HBase `Delete`). `Delete::new(row)` naming nothing deletes the
/// whole row up to now: one DeleteFamily marker per family [DEL-6].
#[derive(Clone, Debug)]
#[must_use]
pub struct Delete {
    pub(crate) row: Vec<u8>,
    pub(crate) entries: Vec<DeleteEntry>,
    pub(crate) row_ts: Option<i64>,
    pub(crate) durability: Option<Durability>,
}

impl Delete {
    /// A delete of `row`.
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Delete {
            row: row.as_ref().to_vec(),
            entries: Vec::new(),
            row_ts: None,
            durability: None,
        }
    }

    /// Whole-row delete of every version at or before `ts`. Combined with a family or column:
    /// `InvalidArgument` when applied.
    pub fn up_to(mut self, ts: i64) -> Self {
        self.row_ts = Some(ts);
        self
    }

    fn push(mut self, family: &[u8], qualifier: &[u8], ts: i64, kind: CellType) -> Self {
        self.entries.push(DeleteEntry {
            family: family.to_vec(),
            qualifier: qualifier.to_vec(),
            ts,
            kind,
        });
        self
    }

    /// HBase `addColumn(f, q)`: the newest visible version; the k-th call for one column hits
    /// the k-th newest visible version [DEL-6].
    pub fn latest_version(self, f: impl AsRef<[u8]>, q: impl AsRef<[u8]>) -> Self {
        self.push(f.as_ref(), q.as_ref(), LATEST_TIMESTAMP, CellType::Delete)
    }

    /// HBase `addColumn(f, q, ts)`: the version at exactly `ts`.
    pub fn version(self, f: impl AsRef<[u8]>, q: impl AsRef<[u8]>, ts: i64) -> Self {
        self.push(f.as_ref(), q.as_ref(), ts, CellType::Delete)
    }

    /// HBase `addColumns(f, q)`: every version up to now.
    pub fn all_versions(self, f: impl AsRef<[u8]>, q: impl AsRef<[u8]>) -> Self {
        self.push(
            f.as_ref(),
            q.as_ref(),
            LATEST_TIMESTAMP,
            CellType::DeleteColumn,
        )
    }

    /// HBase `addColumns(f, q, ts)`: every version at or before `ts`.
    pub fn versions_up_to(self, f: impl AsRef<[u8]>, q: impl AsRef<[u8]>, ts: i64) -> Self {
        self.push(f.as_ref(), q.as_ref(), ts, CellType::DeleteColumn)
    }

    /// HBase `addFamily(f)`: every cell of the family up to now. Discards markers added
    /// earlier to this Delete for the same family [DEL-7].
    pub fn family(self, f: impl AsRef<[u8]>) -> Self {
        self.family_up_to(f, LATEST_TIMESTAMP)
    }

    /// HBase `addFamily(f, ts)`: every cell of the family at or before `ts` [DEL-7].
    pub fn family_up_to(mut self, f: impl AsRef<[u8]>, ts: i64) -> Self {
        let f = f.as_ref();
        self.entries.retain(|e| e.family != f);
        self.push(f, b"", ts, CellType::DeleteFamily)
    }

    /// HBase `addFamilyVersion(f, ts)`: every column of the family at exactly `ts`.
    pub fn family_version(self, f: impl AsRef<[u8]>, ts: i64) -> Self {
        self.push(f.as_ref(), b"", ts, CellType::DeleteFamilyVersion)
    }

    /// Durability of this write (default: the database's).
    pub fn durability(mut self, d: Durability) -> Self {
        self.durability = Some(d);
        self
    }

    /// The row.
    pub fn row(&self) -> &[u8] {
        &self.row
    }
}
