//! `THBaseService`'s data methods, as HBase 2.6's `ThriftHBaseServiceHandler` runs them:
//! reads (`exists`, `existsAll`, `get`, `getMultiple`), writes (`put`, `putMultiple`,
//! `deleteSingle`, `deleteMultiple`, the check-and-mutates, `increment`, `append`,
//! `mutateRow`) and scanners (`openScanner`, `getScannerRows`, `closeScanner`,
//! `getScannerResults`) over the shared [`ScannerRegistry`](crate::thrift::scanners). Every
//! reply is counted against the call's reply budget as it is built.
use super::convert::{
    append_from_thrift, delete_from_thrift, empty_tresult, get_from_thrift, increment_from_thrift,
    put_from_thrift, row_mutations_from_thrift, scan_from_thrift, tresult,
};
use super::methods::*;
use super::service::Thrift2Service;
use crate::thrift::call::{CallCtx, Fail, row_reply_bytes};
use crate::thrift::dispatch::define_dispatch;
use crate::thrift::protocol::{T_BOOL, T_STRUCT, Value};
use crate::thrift::reads::read_batched;
use crate::thrift::writes::commit_wait;
use cellbase::{CheckAndMutate, CompareOp, RowResult};

type R<T> = Result<T, Fail>;

thbase_methods!(define_dispatch for Thrift2Service;);

fn need<T>(arg: Option<T>, what: &str) -> R<T> {
    arg.ok_or_else(|| Fail::Io(format!("missing argument {what}")))
}

/// A check-and-mutate's condition (`checkAndMutateBuilder`): `ifNotExists` without a value,
/// else `ifMatches(op, value)` [CAM-2] [CAM-3].
fn condition(
    row: &[u8],
    family: &[u8],
    qualifier: &[u8],
    op: CompareOp,
    value: Option<&[u8]>,
) -> CheckAndMutate {
    let c = CheckAndMutate::new(row);
    match value {
        None => c.if_absent(family, qualifier),
        Some(v) => c.if_compare(family, qualifier, op, v),
    }
}

/// `compareOpFromThrift` (TCompareOp); NO_OP and unknown values have no comparison, which
/// HBase's region refuses ("Unknown Compare op").
fn compare_op(op: Option<i32>) -> R<CompareOp> {
    Ok(match op {
        Some(0) => CompareOp::Less,
        Some(1) => CompareOp::LessOrEqual,
        Some(2) => CompareOp::Equal,
        Some(3) => CompareOp::NotEqual,
        Some(4) => CompareOp::GreaterOrEqual,
        Some(5) => CompareOp::Greater,
        Some(6) => return Err(Fail::Io("Unknown Compare op NO_OP".into())),
        other => return Err(Fail::Io(format!("Unknown Compare op {other:?}"))),
    })
}

impl Thrift2Service {
    pub(super) fn exists(&self, a: ExistsArgs<'_>, _: &mut CallCtx) -> R<bool> {
        let t = self.table(a.table)?;
        let g = need(a.tget, "tget")?;
        Ok(t.exists(get_from_thrift(&g)?)?)
    }

    /// One flag per TGet; nothing is returned but the flags, so nothing is charged.
    pub(super) fn exists_all(&self, a: ExistsAllArgs<'_>, _: &mut CallCtx) -> R<Value> {
        let t = self.table(a.table)?;
        let mut found = Vec::new();
        for g in need(a.tgets, "tgets")? {
            found.push(Value::Bool(t.exists(get_from_thrift(&g)?)?));
        }
        Ok(Value::List(T_BOOL, found))
    }

    pub(super) fn get(&self, a: GetArgs<'_>, ctx: &mut CallCtx) -> R<Value> {
        let t = self.table(a.table)?;
        let tg = need(a.tget, "tget")?;
        let g = get_from_thrift(&tg)?;
        if tg.existence_only {
            // `setCheckExistenceOnly`: HBase's Result then carries only the exists flag, which
            // TResult has no field for: no row, no cells.
            t.exists(g)?;
            return Ok(empty_tresult());
        }
        let r = t.get(g)?;
        ctx.budget.charge(row_reply_bytes(&r))?;
        Ok(tresult(&r))
    }

    pub(super) fn get_multiple(&self, a: GetMultipleArgs<'_>, ctx: &mut CallCtx) -> R<Value> {
        let t = self.table(a.table)?;
        let gets = need(a.tgets, "tgets")?
            .iter()
            .map(get_from_thrift)
            .collect::<R<Vec<_>>>()?;
        let rows = read_batched(&t, gets, &mut ctx.budget, |r| Some(tresult(r)))?;
        Ok(Value::List(T_STRUCT, rows))
    }

    pub(super) fn put(&self, a: PutArgs<'_>, _: &mut CallCtx) -> R<()> {
        let t = self.table(a.table)?;
        t.put(put_from_thrift(&need(a.tput, "tput")?)?)?;
        Ok(())
    }

    pub(super) fn put_multiple(&self, a: PutMultipleArgs<'_>, _: &mut CallCtx) -> R<()> {
        let t = self.table(a.table)?;
        let puts: Vec<_> = need(a.tputs, "tputs")?
            .iter()
            .map(put_from_thrift)
            .collect::<R<_>>()?;
        if !puts.is_empty() {
            t.put_all(puts)?;
        }
        Ok(())
    }

    pub(super) fn delete_single(&self, a: DeleteSingleArgs<'_>, _: &mut CallCtx) -> R<()> {
        let t = self.table(a.table)?;
        t.delete(delete_from_thrift(&need(a.tdelete, "tdelete")?)?)?;
        Ok(())
    }

    /// HBase 2's `Table.delete(List)` throws on any failure, so the handler always answers
    /// an empty list (the deletes that failed, in HBase 1).
    pub(super) fn delete_multiple(&self, a: DeleteMultipleArgs<'_>, _: &mut CallCtx) -> R<Value> {
        let t = self.table(a.table)?;
        let deletes = need(a.tdeletes, "tdeletes")?
            .iter()
            .map(delete_from_thrift)
            .collect::<R<Vec<_>>>()?;
        for d in deletes {
            t.delete(d)?;
        }
        Ok(Value::List(T_STRUCT, vec![]))
    }

    pub(super) fn check_and_put(&self, a: CheckAndPutArgs<'_>, _: &mut CallCtx) -> R<bool> {
        let t = self.table(a.table)?;
        let (row, family) = (need(a.row, "row")?, need(a.family, "family")?);
        let q = a.qualifier.unwrap_or_default();
        let put = put_from_thrift(&need(a.tput, "tput")?)?;
        let cam = condition(row, family, q, CompareOp::Equal, a.value).then_put(put);
        Ok(t.check_and_mutate(cam)?)
    }

    pub(super) fn check_and_delete(&self, a: CheckAndDeleteArgs<'_>, _: &mut CallCtx) -> R<bool> {
        let t = self.table(a.table)?;
        let (row, family) = (need(a.row, "row")?, need(a.family, "family")?);
        let q = a.qualifier.unwrap_or_default();
        let del = delete_from_thrift(&need(a.tdelete, "tdelete")?)?;
        let cam = condition(row, family, q, CompareOp::Equal, a.value).then_delete(del);
        Ok(t.check_and_mutate(cam)?)
    }

    /// `ifMatches(op, value)` (a null value checks for absence, as HBase's region does with
    /// an empty one [CAM-3]), then the row mutations.
    pub(super) fn check_and_mutate(&self, a: CheckAndMutateArgs<'_>, _: &mut CallCtx) -> R<bool> {
        let t = self.table(a.table)?;
        let (row, family) = (need(a.row, "row")?, need(a.family, "family")?);
        let q = a.qualifier.unwrap_or_default();
        let op = compare_op(a.compare_op)?;
        let value = a.value.unwrap_or_default();
        let mut cam = CheckAndMutate::new(row).if_compare(family, q, op, value);
        let rm = need(a.row_mutations, "rowMutations")?;
        for m in row_mutations_from_thrift(&rm)? {
            cam = match m {
                cellbase::Mutation::Put(p) => cam.then_put(p),
                cellbase::Mutation::Delete(d) => cam.then_delete(d),
            };
        }
        Ok(t.check_and_mutate(cam)?)
    }

    pub(super) fn increment(&self, a: IncrementArgs<'_>, ctx: &mut CallCtx) -> R<Value> {
        let t = self.table(a.table)?;
        let inc = need(a.tincrement, "tincrement")?;
        let r = t.increment(increment_from_thrift(&inc)?)?;
        commit_wait(&r);
        self.mutation_result(&r, inc.return_results, ctx)
    }

    pub(super) fn append(&self, a: AppendArgs<'_>, ctx: &mut CallCtx) -> R<Value> {
        let t = self.table(a.table)?;
        let app = need(a.tappend, "tappend")?;
        let r = t.append(append_from_thrift(&app)?)?;
        commit_wait(&r);
        self.mutation_result(&r, app.return_results, ctx)
    }

    /// The cells an increment or append wrote, or (`returnResults` false) an empty result.
    fn mutation_result(&self, r: &RowResult, wanted: bool, ctx: &mut CallCtx) -> R<Value> {
        if !wanted {
            return Ok(empty_tresult());
        }
        ctx.budget.charge(row_reply_bytes(r))?;
        Ok(tresult(r))
    }

    pub(super) fn mutate_row(&self, a: MutateRowArgs<'_>, _: &mut CallCtx) -> R<()> {
        let t = self.table(a.table)?;
        let rm = need(a.trow_mutations, "trowMutations")?;
        t.mutate_row(rm.row, row_mutations_from_thrift(&rm)?)?;
        Ok(())
    }

    pub(super) fn open_scanner(&self, a: OpenScannerArgs<'_>, ctx: &mut CallCtx) -> R<i32> {
        let t = self.table(a.table)?;
        let s = scan_from_thrift(&need(a.tscan, "tscan")?)?;
        self.scanners.insert(t.scan(s)?, tresult, ctx.conn)
    }

    /// Up to `numRows` (IDL default 1) rows; an unknown or expired scanner id is
    /// `TIllegalArgument("Invalid scanner Id")`.
    pub(super) fn get_scanner_rows(
        &self,
        a: GetScannerRowsArgs<'_>,
        ctx: &mut CallCtx,
    ) -> R<Value> {
        let invalid = || Fail::Illegal("Invalid scanner Id".into());
        let id = a.scanner_id.ok_or_else(invalid)?;
        let rows = self
            .scanners
            .next_rows(id, a.num_rows.unwrap_or(1), &mut ctx.budget)
            .map_err(|e| match e {
                Fail::Illegal(_) => invalid(),
                other => other,
            })?;
        Ok(Value::List(T_STRUCT, rows))
    }

    /// HBase 2.6 closes a known scanner and only logs an unknown (perhaps expired) one.
    pub(super) fn close_scanner(&self, a: CloseScannerArgs<'_>, _: &mut CallCtx) -> R<()> {
        if let Some(id) = a.scanner_id
            && !self.scanners.remove(id)
        {
            log::warn!(target: "cellbase::thrift2", "scanner ID: {id} is invalid");
        }
        Ok(())
    }

    /// A scan of up to `numRows` rows (IDL default 1) in one call, its scanner closed.
    pub(super) fn get_scanner_results(
        &self,
        a: GetScannerResultsArgs<'_>,
        ctx: &mut CallCtx,
    ) -> R<Value> {
        let t = self.table(a.table)?;
        let s = scan_from_thrift(&need(a.tscan, "tscan")?)?;
        let n = usize::try_from(a.num_rows.unwrap_or(1)).unwrap_or(0);
        let mut out = Vec::new();
        let mut scanner = t.scan(s)?;
        while out.len() < n {
            let Some(r) = scanner.next() else { break };
            let r = r?;
            if r.is_empty() {
                continue;
            }
            ctx.budget.charge(row_reply_bytes(&r))?;
            out.push(tresult(&r));
        }
        Ok(Value::List(T_STRUCT, out))
    }
}
