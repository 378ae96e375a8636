//! The write operations of [`Table`]: put, delete, mutate_row, increment, append. Each one
//! validates first (nothing is written on failure), then takes the row lock, reads what it must
//! (latest-version deletes [DEL-6], counters [INC-1]), and applies all its cells as ONE
//! mutation: one sequence id, one WAL record, visible at once [ATOM-1].

use crate::api::ops::{
    Append, Cell, CheckAndMutate, Columns, Condition, Delete, Increment, Mutation, Put, RowResult,
};
use crate::api::table::{LocalTable, selection};
use crate::base::clock::LATEST_TIMESTAMP;
use crate::base::error::{Error, Result};
use crate::engine::options::Durability;
use crate::engine::region::Region;
use crate::model::CellType;
use crate::model::mutation::{NewCell, check_cell_size, check_family, check_row, check_ts};
use crate::model::schema::TableDescriptor;
use crate::read::filter::CompareOp;
use crate::read::matcher::ReadSpec;
use crate::read::row::ReaderParts;
use std::collections::BTreeMap;
use std::sync::Arc;

fn marker<'a>(family: &'a [u8], qualifier: &'a [u8], ts: i64, kind: CellType) -> NewCell<'a> {
    NewCell {
        family,
        qualifier,
        ts,
        type_code: kind.code(),
        ttl_ms: None,
        value: b"",
    }
}

fn put_cell<'a>(
    family: &'a [u8],
    qualifier: &'a [u8],
    ts: i64,
    ttl_ms: Option<u64>,
    value: &'a [u8],
) -> NewCell<'a> {
    NewCell {
        family,
        qualifier,
        ts,
        type_code: CellType::Put.code(),
        ttl_ms,
        value,
    }
}

/// (family, qualifier).
type Column = (Vec<u8>, Vec<u8>);

/// [CAM-2] [CAM-3]: `expected OP stored`; an empty expected value matches a missing cell
/// (unless NotEqual) or an empty one; a non-empty expected value never matches a missing cell.
fn condition_holds(c: &Condition, stored: Option<&[u8]>) -> bool {
    if c.expected.is_empty() {
        let positive = c.op != CompareOp::NotEqual;
        return match stored {
            None => positive,
            Some(v) => v.is_empty() == positive,
        };
    }
    let Some(v) = stored else { return false };
    let ord = c.expected.as_slice().cmp(v);
    match c.op {
        CompareOp::Less => ord.is_lt(),
        CompareOp::LessOrEqual => ord.is_le(),
        CompareOp::Equal => ord.is_eq(),
        CompareOp::NotEqual => ord.is_ne(),
        CompareOp::GreaterOrEqual => ord.is_ge(),
        CompareOp::Greater => ord.is_gt(),
    }
}

fn rank(d: Durability) -> u8 {
    match d {
        Durability::SkipWal => 0,
        Durability::AsyncWal => 1,
        Durability::SyncWal => 2,
        Durability::FsyncWal => 3,
    }
}

impl LocalTable {
    /// Checks a put [LIM-1] [LIM-5] [LIM-6] [TS-2]; nothing is written on failure.
    pub(crate) fn validate_put(&self, desc: &TableDescriptor, p: &Put) -> Result<()> {
        check_row(&p.row)?;
        if p.has_no_cells() {
            return Err(Error::invalid("no columns to put"));
        }
        let mut checked: Option<&[u8]> = None;
        for c in p.cells() {
            // Consecutive cells usually share their family: look it up once.
            if checked != Some(c.family) {
                check_family(desc, c.family)?;
                checked = Some(c.family);
            }
            if c.ts != LATEST_TIMESTAMP {
                check_ts(c.ts)?;
            }
            check_cell_size(
                self.db.options().max_cell_size,
                &p.row,
                c.family,
                c.qualifier,
                c.value,
            )?;
        }
        Ok(())
    }

    /// The cells of a put; cells without a timestamp get `now` [TS-1].
    pub(crate) fn put_cells<'a>(p: &'a Put, now: i64, out: &mut Vec<NewCell<'a>>) {
        let ttl_ms = p
            .ttl
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        out.extend(p.cells().map(|c| {
            let ts = if c.ts == LATEST_TIMESTAMP { now } else { c.ts };
            put_cell(c.family, c.qualifier, ts, ttl_ms, c.value)
        }));
    }

    /// Checks a delete [DEL-8] [TS-2] [LIM-1].
    fn validate_delete(&self, desc: &TableDescriptor, d: &Delete) -> Result<()> {
        check_row(&d.row)?;
        if d.row_ts.is_some() && !d.entries.is_empty() {
            return Err(Error::invalid(
                "Delete::up_to deletes the whole row and cannot be combined with families or columns",
            ));
        }
        if let Some(ts) = d.row_ts {
            check_ts(ts)?;
        }
        for e in &d.entries {
            check_family(desc, &e.family)?;
            if e.ts != LATEST_TIMESTAMP {
                check_ts(e.ts)?;
            }
        }
        Ok(())
    }

    /// The markers of a delete with their timestamps resolved [DEL-6]. REQUIRES: the row lock.
    fn delete_cells<'a>(
        &self,
        region: &Arc<Region>,
        desc: &'a Arc<TableDescriptor>,
        d: &'a Delete,
        now: i64,
        cells: &mut Vec<NewCell<'a>>,
    ) -> Result<()> {
        if d.entries.is_empty() {
            // A whole-row delete: one DeleteFamily per family.
            let ts = d.row_ts.unwrap_or(now);
            for f in desc.families() {
                cells.push(marker(&f.name, b"", ts, CellType::DeleteFamily));
            }
        }
        // The k-th "latest version" delete of a column targets its k-th newest visible version.
        let mut latest_counts: BTreeMap<(&[u8], &[u8]), u32> = BTreeMap::new();
        for e in &d.entries {
            let ts = if e.ts != LATEST_TIMESTAMP {
                e.ts
            } else if e.kind == CellType::Delete {
                let k = latest_counts.entry((&e.family, &e.qualifier)).or_insert(0);
                *k += 1;
                let versions =
                    self.read_column(region, desc, &d.row, &e.family, &e.qualifier, *k, now)?;
                versions.get(*k as usize - 1).map_or(now, |v| v.0)
            } else {
                now
            };
            cells.push(marker(&e.family, &e.qualifier, ts, e.kind));
        }
        Ok(())
    }

    /// The newest `n` visible versions of one column as `(ts, value)` (an internal Get honouring
    /// deletes, VERSIONS and TTL). REQUIRES: the row lock, so the row's own earlier mutations
    /// are visible.
    #[expect(
        clippy::too_many_arguments,
        reason = "internal helper of the row operations"
    )]
    pub(crate) fn read_column(
        &self,
        region: &Arc<Region>,
        desc: &Arc<TableDescriptor>,
        row: &[u8],
        f: &[u8],
        q: &[u8],
        n: u32,
        now: i64,
    ) -> Result<Vec<(i64, Vec<u8>)>> {
        let mut cols = Columns::default();
        cols.0
            .insert(f.to_vec(), Some([q.to_vec()].into_iter().collect()));
        let spec = ReadSpec {
            max_versions: n,
            columns: selection(cols),
            ..ReadSpec::new(now)
        };
        let q = crate::read::query::Query {
            desc: desc.clone(),
            spec,
            filter: None,
            reversed: false,
        };
        let rp = self.db.read_point();
        let mut reader = crate::engine::read::region_reader(
            region,
            &region.current(),
            &q,
            row,
            Some(row),
            None,
            rp,
            ReaderParts::default(),
        )?;
        Ok(match reader.next_row()? {
            Some(cells) => cells
                .into_iter()
                .map(|c| (c.timestamp(), c.into_value()))
                .collect(),
            None => Vec::new(),
        })
    }

    /// Runs `op` under the row lock of the region holding `row` ([`Engine::with_row`]).
    fn with_row<T>(
        &self,
        row: &[u8],
        op: impl FnMut(&Arc<Region>) -> Result<Option<T>>,
    ) -> Result<T> {
        self.db.with_row(&self.shared, row, op)
    }

    /// Applies one row's cells as a single mutation; false when the region was retired.
    pub(crate) fn apply_row(
        &self,
        region: &Arc<Region>,
        row: &[u8],
        cells: &[NewCell],
        durability: Option<Durability>,
    ) -> Result<bool> {
        self.db.apply(&self.shared, region, row, cells, durability)
    }

    pub(crate) fn put(&self, p: Put) -> Result<()> {
        let started = crate::base::stats::Stamp::now();
        let r = self.put_untimed(p);
        self.db
            .stats()
            .op(crate::engine::stats::Operation::Put, started);
        r
    }

    fn put_untimed(&self, p: Put) -> Result<()> {
        let desc = self.check()?;
        self.validate_put(&desc, &p)?;
        self.with_row(&p.row, |region| {
            let mut cells = Vec::with_capacity(p.cells().len());
            Self::put_cells(&p, self.db.clock().now_millis(), &mut cells);
            Ok(self
                .apply_row(region, &p.row, &cells, p.durability)?
                .then_some(()))
        })
    }

    pub(crate) fn bulk_load(&self, puts: impl IntoIterator<Item = Put>) -> Result<u64> {
        self.bulk_load_with_memory(puts, crate::engine::bulk_load::BULK_LOAD_MEMORY)
    }

    pub(crate) fn bulk_load_with_memory(
        &self,
        puts: impl IntoIterator<Item = Put>,
        budget: usize,
    ) -> Result<u64> {
        let mut loader = self.bulk_loader_with_memory(budget)?;
        for p in puts {
            loader.add(&p)?;
        }
        loader.finish()
    }

    pub(crate) fn bulk_loader(&self) -> Result<crate::api::table::BulkLoader> {
        self.bulk_loader_with_memory(crate::engine::bulk_load::BULK_LOAD_MEMORY)
    }

    pub(crate) fn bulk_loader_with_memory(
        &self,
        budget: usize,
    ) -> Result<crate::api::table::BulkLoader> {
        let desc = self.check()?;
        let seq = self.db.bulk_load_seq();
        Ok(crate::api::table::BulkLoader {
            table: self.clone(),
            desc,
            seq,
            now: self.db.clock().now_millis(),
            sorter: self.db.bulk_sorter(budget, seq),
        })
    }

    pub(crate) fn put_all(&self, ps: impl IntoIterator<Item = Put>) -> Result<()> {
        ps.into_iter().try_for_each(|p| self.put(p))
    }

    pub(crate) fn delete(&self, d: Delete) -> Result<()> {
        let started = crate::base::stats::Stamp::now();
        let r = self.delete_untimed(d);
        self.db
            .stats()
            .op(crate::engine::stats::Operation::Delete, started);
        r
    }

    fn delete_untimed(&self, d: Delete) -> Result<()> {
        let desc = self.check()?;
        self.validate_delete(&desc, &d)?;
        self.with_row(&d.row, |region| {
            let mut cells = Vec::new();
            self.delete_cells(region, &desc, &d, self.db.clock().now_millis(), &mut cells)?;
            Ok(self
                .apply_row(region, &d.row, &cells, d.durability)?
                .then_some(()))
        })
    }

    pub(crate) fn mutate_row(&self, row: impl AsRef<[u8]>, ms: Vec<Mutation>) -> Result<()> {
        let started = crate::base::stats::Stamp::now();
        let r = self.mutate_row_untimed(row, ms);
        self.db
            .stats()
            .op(crate::engine::stats::Operation::MutateRow, started);
        r
    }

    fn mutate_row_untimed(&self, row: impl AsRef<[u8]>, ms: Vec<Mutation>) -> Result<()> {
        let row = row.as_ref();
        let desc = self.check()?;
        check_row(row)?;
        let durability = self.validate_batch(&desc, row, &ms)?;
        if ms.is_empty() {
            return Ok(());
        }
        self.with_row(row, |region| {
            let now = self.db.clock().now_millis();
            let cells = self.batch_cells(region, &desc, &ms, now, now)?;
            Ok(self
                .apply_row(region, row, &cells, durability)?
                .then_some(()))
        })
    }

    /// Validates a batch of mutations of `row`: each valid and naming `row` [RM-1] [CAM-5];
    /// returns the strongest durability they ask for.
    fn validate_batch(
        &self,
        desc: &TableDescriptor,
        row: &[u8],
        ms: &[Mutation],
    ) -> Result<Option<Durability>> {
        let mut durability = None::<Durability>;
        for m in ms {
            let (r, d) = match m {
                Mutation::Put(p) => {
                    self.validate_put(desc, p)?;
                    (&p.row, p.durability)
                }
                Mutation::Delete(d) => {
                    self.validate_delete(desc, d)?;
                    (&d.row, d.durability)
                }
            };
            if r.as_slice() != row {
                return Err(Error::invalid(
                    "every mutation of a row operation must name the same row",
                ));
            }
            let d = d
                .or(desc.table_durability())
                .unwrap_or(self.db.options().durability);
            durability = Some(durability.map_or(d, |x| if rank(d) > rank(x) { d } else { x }));
        }
        Ok(durability)
    }

    /// The cells of a batch in order (deletes resolved [DEL-6]); puts without a timestamp get
    /// `put_now`. REQUIRES: the row lock.
    fn batch_cells<'a>(
        &self,
        region: &Arc<Region>,
        desc: &'a Arc<TableDescriptor>,
        ms: &'a [Mutation],
        now: i64,
        put_now: i64,
    ) -> Result<Vec<NewCell<'a>>> {
        let mut cells = Vec::new();
        for m in ms {
            match m {
                Mutation::Put(p) => Self::put_cells(p, put_now, &mut cells),
                Mutation::Delete(d) => self.delete_cells(region, desc, d, now, &mut cells)?,
            }
        }
        Ok(cells)
    }

    pub(crate) fn check_and_mutate(&self, c: CheckAndMutate) -> Result<bool> {
        let started = crate::base::stats::Stamp::now();
        let r = self.check_and_mutate_untimed(c);
        self.db
            .stats()
            .op(crate::engine::stats::Operation::CheckAndMutate, started);
        r
    }

    fn check_and_mutate_untimed(&self, c: CheckAndMutate) -> Result<bool> {
        let desc = self.check()?;
        check_row(&c.row)?;
        if c.conditions.is_empty() || c.actions.is_empty() {
            return Err(Error::invalid(
                "check_and_mutate needs at least one condition and one action",
            ));
        }
        for cond in &c.conditions {
            check_family(&desc, &cond.family)?;
        }
        let durability = self.validate_batch(&desc, &c.row, &c.actions)?;
        self.with_row(&c.row, |region| {
            let now = self.db.clock().now_millis();
            let mut newest_checked = i64::MIN;
            for cond in &c.conditions {
                let current =
                    self.read_column(region, &desc, &c.row, &cond.family, &cond.qualifier, 1, now)?;
                let stored = current.first();
                if let Some((ts, _)) = stored {
                    newest_checked = newest_checked.max(*ts);
                }
                if !condition_holds(cond, stored.map(|(_, v)| v.as_slice())) {
                    return Ok(Some(false));
                }
            }
            let cells =
                self.batch_cells(region, &desc, &c.actions, now, now.max(newest_checked))?;
            Ok(self
                .apply_row(region, &c.row, &cells, durability)?
                .then_some(true))
        })
    }

    /// Shared body of increment and append: reads each column's latest visible version under
    /// the row lock, computes the new value, stamps it `max(old ts + 1, now)` [INC-2], and
    /// writes all new cells as one mutation. Several entries for one column are each computed
    /// from the same old value; the last one wins [INC-4].
    fn read_modify_write(
        &self,
        row: &[u8],
        ttl: Option<std::time::Duration>,
        columns: Vec<(Vec<u8>, Vec<u8>)>,
        mut compute: impl FnMut(usize, Option<&[u8]>) -> Result<Vec<u8>>,
    ) -> Result<RowResult> {
        let desc = self.check()?;
        check_row(row)?;
        if columns.is_empty() {
            return Err(Error::invalid("no columns to increment or append"));
        }
        for (f, _) in &columns {
            check_family(&desc, f)?;
        }
        let ttl_ms = ttl.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let result = self.with_row(row, |region| {
            let now = self.db.clock().now_millis();
            let mut out: BTreeMap<Column, (i64, Vec<u8>)> = BTreeMap::new();
            for (i, (f, q)) in columns.iter().enumerate() {
                let current = self.read_column(region, &desc, row, f, q, 1, now)?;
                let old = current.first();
                let value = compute(i, old.map(|(_, v)| v.as_slice()))?;
                check_cell_size(self.db.options().max_cell_size, row, f, q, &value)?;
                let ts = old.map_or(now, |(ts, _)| ts.saturating_add(1).max(now));
                out.insert((f.clone(), q.clone()), (ts, value));
            }
            let cells: Vec<NewCell> = out
                .iter()
                .map(|((f, q), (ts, v))| put_cell(f, q, *ts, ttl_ms, v))
                .collect();
            if !self.apply_row(region, row, &cells, None)? {
                return Ok(None);
            }
            Ok(Some(
                out.into_iter()
                    .map(|((family, qualifier), (ts, value))| {
                        Cell::new(row, &family, &qualifier, ts, CellType::Put, &value)
                    })
                    .collect::<Vec<_>>(),
            ))
        })?;
        Ok(RowResult::new(row.to_vec(), result))
    }

    pub(crate) fn increment(&self, i: Increment) -> Result<RowResult> {
        let started = crate::base::stats::Stamp::now();
        let r = self.increment_untimed(i);
        self.db
            .stats()
            .op(crate::engine::stats::Operation::Increment, started);
        r
    }

    fn increment_untimed(&self, i: Increment) -> Result<RowResult> {
        let columns = i
            .cells
            .iter()
            .map(|(f, q, _)| (f.clone(), q.clone()))
            .collect();
        let row = i.row.clone();
        self.read_modify_write(&i.row, i.ttl, columns, |k, old| {
            let (f, q, delta) = &i.cells[k];
            let base = match old {
                None => 0i64,
                Some(v) => match <[u8; 8]>::try_from(v) {
                    Ok(b) => i64::from_be_bytes(b),
                    Err(_) => {
                        return Err(Error::NotACounter {
                            row: row.clone(),
                            family: f.clone(),
                            qualifier: q.clone(),
                        });
                    }
                },
            };
            Ok(base.wrapping_add(*delta).to_be_bytes().to_vec())
        })
    }

    pub(crate) fn append(&self, a: Append) -> Result<RowResult> {
        let started = crate::base::stats::Stamp::now();
        let r = self.append_untimed(a);
        self.db
            .stats()
            .op(crate::engine::stats::Operation::Append, started);
        r
    }

    fn append_untimed(&self, a: Append) -> Result<RowResult> {
        let columns = a
            .cells
            .iter()
            .map(|(f, q, _)| (f.clone(), q.clone()))
            .collect();
        self.read_modify_write(&a.row, a.ttl, columns, |k, old| {
            let mut v = old.map(<[u8]>::to_vec).unwrap_or_default();
            v.extend_from_slice(&a.cells[k].2);
            Ok(v)
        })
    }
}
