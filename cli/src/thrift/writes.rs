//! Mutation handlers: `mutateRow*` and `mutateRows*` (puts and deletes from Thrift
//! `Mutation`s), counters (`atomicIncrement`, `increment*`), `append`, `checkAndPut` and
//! `deleteAll*`. A delete with a timestamp removes every version up to it; a delete of a
//! column with no `:` removes the whole family.
use super::call::{CallCtx, Fail, cells_reply_bytes};
use super::methods::{
    AppendArgs, AtomicIncrementArgs, CheckAndPutArgs, DeleteAllArgs, DeleteAllRowArgs,
    DeleteAllRowTsArgs, DeleteAllTsArgs, IncrementArgs, IncrementRowsArgs, MutateRowArgs,
    MutateRowTsArgs, MutateRowsArgs, MutateRowsTsArgs,
};
use super::protocol::{T_STRUCT, Value};
use super::service::{Service, need};
use super::types::{BatchMutation, Mutation, split_column, tcell};
use cellbase::{
    Append, CheckAndMutate, Delete, Durability, Increment, LATEST_TIMESTAMP, Put, RowResult, Table,
};
use std::time::Duration;

type R<T> = Result<T, Fail>;

impl Service {
    pub(super) fn mutate_row(&self, a: MutateRowArgs<'_>, _: &mut CallCtx) -> R<()> {
        self.mutate_one_row(a.table_name, a.row, a.mutations, None)
    }

    pub(super) fn mutate_row_ts(&self, a: MutateRowTsArgs<'_>, _: &mut CallCtx) -> R<()> {
        match a.timestamp {
            Some(ts) => self.mutate_one_row(a.table_name, a.row, a.mutations, Some(ts)),
            None => Err(Fail::Illegal("missing argument timestamp".into())),
        }
    }

    pub(super) fn mutate_rows(&self, a: MutateRowsArgs<'_>, _: &mut CallCtx) -> R<()> {
        self.mutate_batches(a.table_name, a.row_batches, None)
    }

    pub(super) fn mutate_rows_ts(&self, a: MutateRowsTsArgs<'_>, _: &mut CallCtx) -> R<()> {
        match a.timestamp {
            Some(ts) => self.mutate_batches(a.table_name, a.row_batches, Some(ts)),
            None => Err(Fail::Illegal("missing argument timestamp".into())),
        }
    }

    fn mutate_batches(
        &self,
        table_name: Option<&[u8]>,
        batches: Option<Vec<BatchMutation<'_>>>,
        ts: Option<i64>,
    ) -> R<()> {
        let t = self.table_arg(table_name)?;
        let ts = ts.unwrap_or(LATEST_TIMESTAMP);
        let batches = batches.unwrap_or_default();
        let mut puts = Vec::new();
        let mut deletes = Vec::new();
        for b in &batches {
            let (p, d) = build_row_mutations(b.row, &b.mutations, ts, true)?;
            puts.extend(p);
            deletes.extend(d);
        }
        // HBase applies every put of the call, then every delete.
        if !puts.is_empty() {
            t.put_all(puts)?;
        }
        for d in deletes {
            t.delete(d)?;
        }
        Ok(())
    }

    fn mutate_one_row(
        &self,
        table_name: Option<&[u8]>,
        row: Option<&[u8]>,
        mutations: Option<Vec<Mutation<'_>>>,
        ts: Option<i64>,
    ) -> R<()> {
        let t = self.table_arg(table_name)?;
        let row = need(row, "row")?;
        let ms = mutations.unwrap_or_default();
        let (p, d) = build_row_mutations(row, &ms, ts.unwrap_or(LATEST_TIMESTAMP), false)?;
        // mutateRow(Ts) deletes first, then puts (HBase's order for this method).
        if let Some(d) = d {
            t.delete(d)?;
        }
        if let Some(p) = p {
            t.put(p)?;
        }
        Ok(())
    }

    fn increment_one(&self, t: &Table, row: &[u8], column: &[u8], delta: i64) -> R<i64> {
        let (f, q) = split_column(column);
        let q = q.unwrap_or_default();
        let r = t.increment(Increment::new(row).add(f, q, delta))?;
        commit_wait(&r);
        let v = r
            .value(f, q)
            .ok_or_else(|| Fail::Io("increment returned no value".into()))?;
        let b: [u8; 8] = v
            .try_into()
            .map_err(|_| Fail::Io("Field is not a long".into()))?;
        Ok(i64::from_be_bytes(b))
    }

    pub(super) fn atomic_increment(&self, a: AtomicIncrementArgs<'_>, _: &mut CallCtx) -> R<i64> {
        let t = self.table_arg(a.table_name)?;
        let row = need(a.row, "row")?;
        let column = need(a.column, "column")?;
        let delta = a.value.unwrap_or(0);
        self.increment_one(&t, row, column, delta)
    }

    pub(super) fn increment(&self, a: IncrementArgs<'_>, _: &mut CallCtx) -> R<()> {
        let inc = a
            .increment
            .ok_or_else(|| Fail::Io("missing argument increment".into()))?;
        let t = self.table(inc.table)?;
        self.increment_one(&t, inc.row, inc.column, inc.amount)?;
        Ok(())
    }

    pub(super) fn increment_rows(&self, a: IncrementRowsArgs<'_>, _: &mut CallCtx) -> R<()> {
        for inc in a.increments.unwrap_or_default() {
            let t = self.table(inc.table)?;
            self.increment_one(&t, inc.row, inc.column, inc.amount)?;
        }
        Ok(())
    }

    pub(super) fn append(&self, a: AppendArgs<'_>, ctx: &mut CallCtx) -> R<Value> {
        let ap = a
            .append
            .ok_or_else(|| Fail::Io("missing argument append".into()))?;
        if ap.columns.len() != ap.values.len() {
            return Err(Fail::Io(format!(
                "TAppend has {} columns but {} values",
                ap.columns.len(),
                ap.values.len()
            )));
        }
        if ap.columns.is_empty() {
            return Ok(Value::List(T_STRUCT, vec![]));
        }
        let t = self.table(ap.table)?;
        let mut app = Append::new(ap.row);
        for (c, v) in ap.columns.iter().zip(&ap.values) {
            let (f, q) = split_column(c);
            app = app.add(f, q.unwrap_or_default(), v);
        }
        let r = t.append(app)?;
        commit_wait(&r);
        ctx.budget.charge(cells_reply_bytes(&r))?;
        Ok(cells_list(&r))
    }

    pub(super) fn check_and_put(&self, a: CheckAndPutArgs<'_>, _: &mut CallCtx) -> R<bool> {
        let t = self.table_arg(a.table_name)?;
        let row = need(a.row, "row")?;
        let column = need(a.column, "column")?;
        let (f, q) = split_column(column);
        let q = q.unwrap_or_default();
        let m = a
            .mput
            .ok_or_else(|| Fail::Illegal("missing argument mput".into()))?;
        let (pf, pq) = split_column(m.column);
        let Some(pq) = pq else {
            return Err(Fail::Illegal("Invalid famAndQf provided.".into()));
        };
        let mut put = Put::new(row).add(pf, pq, m.value);
        if !m.write_to_wal {
            put = put.durability(Durability::SkipWal);
        }
        let cam = match a.value {
            Some(v) => CheckAndMutate::new(row).if_equals(f, q, v),
            None => CheckAndMutate::new(row).if_absent(f, q),
        };
        Ok(t.check_and_mutate(cam.then_put(put))?)
    }

    pub(super) fn delete_all(&self, a: DeleteAllArgs<'_>, _: &mut CallCtx) -> R<()> {
        self.delete_cells(a.table_name, a.row, a.column, None)
    }

    pub(super) fn delete_all_ts(&self, a: DeleteAllTsArgs<'_>, _: &mut CallCtx) -> R<()> {
        match a.timestamp {
            Some(ts) => self.delete_cells(a.table_name, a.row, a.column, Some(ts)),
            None => Err(Fail::Io("missing argument timestamp".into())),
        }
    }

    fn delete_cells(
        &self,
        table_name: Option<&[u8]>,
        row: Option<&[u8]>,
        column: Option<&[u8]>,
        ts: Option<i64>,
    ) -> R<()> {
        let t = self.table_arg(table_name)?;
        let row = need(row, "row")?;
        let column = need(column, "column")?;
        let d = Delete::new(row);
        let d = match (split_column(column), ts) {
            ((f, None), None) => d.family(f),
            ((f, None), Some(ts)) => d.family_up_to(f, ts),
            ((f, Some(q)), None) => d.all_versions(f, q),
            ((f, Some(q)), Some(ts)) => d.versions_up_to(f, q, ts),
        };
        t.delete(d)?;
        Ok(())
    }

    pub(super) fn delete_all_row(&self, a: DeleteAllRowArgs<'_>, _: &mut CallCtx) -> R<()> {
        self.delete_row(a.table_name, a.row, None)
    }

    pub(super) fn delete_all_row_ts(&self, a: DeleteAllRowTsArgs<'_>, _: &mut CallCtx) -> R<()> {
        match a.timestamp {
            Some(ts) => self.delete_row(a.table_name, a.row, Some(ts)),
            None => Err(Fail::Io("missing argument timestamp".into())),
        }
    }

    fn delete_row(&self, table_name: Option<&[u8]>, row: Option<&[u8]>, ts: Option<i64>) -> R<()> {
        let t = self.table_arg(table_name)?;
        let row = need(row, "row")?;
        let mut d = Delete::new(row);
        if let Some(ts) = ts {
            d = d.up_to(ts);
        }
        t.delete(d)?;
        Ok(())
    }
}

/// Waits (at most a few milliseconds) until the wall clock has passed the newest timestamp
/// in `r` before an increment or append is acknowledged.
///
/// HBase writes an increment at `max(old.ts + 1, now)` [INC-2], so a burst of increments on one
/// cell within a millisecond moves its timestamp ahead of the clock, and a put the client sends
/// *after* the acknowledgement (at `now`) would be hidden behind it. Against HBase, network
/// latency hides this; happybase's `test_atomic_counters` (inc, get, `counter_set`, inc)
/// relies on it. Waiting out the gap keeps "a write issued after an acknowledged increment
/// lands on top". Cells more than 5 ms ahead (explicit future timestamps) are not waited for.
pub(crate) fn commit_wait(r: &RowResult) {
    let Some(newest) = r.cells().iter().map(|c| c.timestamp()).max() else {
        return;
    };
    loop {
        let now = wall_millis();
        if now > newest || newest - now > 5 {
            return;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn wall_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

fn cells_list(r: &RowResult) -> Value {
    Value::List(
        T_STRUCT,
        r.cells()
            .iter()
            .map(|c| tcell(c.value(), c.timestamp()))
            .collect(),
    )
}

/// Builds one row's Put and Delete from Thrift mutations at `ts` (LATEST = server time).
/// `strict`: a put on a column without `:` is an IllegalArgument (mutateRows) instead of being
/// ignored (mutateRow).
fn build_row_mutations(
    row: &[u8],
    ms: &[Mutation<'_>],
    ts: i64,
    strict: bool,
) -> Result<(Option<Put>, Option<Delete>), Fail> {
    let mut put: Option<Put> = None;
    let mut del: Option<Delete> = None;
    let mut put_wal = true;
    let mut del_wal = true;
    for m in ms {
        let (f, q) = split_column(m.column);
        if m.is_delete {
            let d = del.take().unwrap_or_else(|| Delete::new(row));
            del = Some(match (q, ts == LATEST_TIMESTAMP) {
                (None, true) => d.family(f),
                (None, false) => d.family_up_to(f, ts),
                (Some(q), true) => d.all_versions(f, q),
                (Some(q), false) => d.versions_up_to(f, q, ts),
            });
            del_wal = m.write_to_wal;
        } else {
            let Some(q) = q else {
                if strict {
                    return Err(Fail::Illegal("Invalid famAndQf provided.".into()));
                }
                continue;
            };
            let p = put.take().unwrap_or_else(|| Put::new(row));
            put = Some(if ts == LATEST_TIMESTAMP {
                p.add(f, q, m.value)
            } else {
                p.add_at(f, q, ts, m.value)
            });
            put_wal = m.write_to_wal;
        }
    }
    if !put_wal {
        put = put.map(|p| p.durability(Durability::SkipWal));
    }
    if !del_wal {
        del = del.map(|d| d.durability(Durability::SkipWal));
    }
    Ok((put, del))
}
