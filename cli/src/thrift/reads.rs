//! Row read handlers: cells of one column (`get`, `getVer`, `getVerTs`), whole rows
//! (`getRow*`, `getRows*`) and `getRowOrBefore`. A `*Ts` read sees the time range `[0, ts)`,
//! and every reply is counted against the call's reply budget as it is built.
use super::call::{CallCtx, Fail, ReplyBudget, cells_reply_bytes, row_reply_bytes};
use super::methods::{
    GetArgs, GetRowArgs, GetRowOrBeforeArgs, GetRowTsArgs, GetRowWithColumnsArgs,
    GetRowWithColumnsTsArgs, GetRowsArgs, GetRowsTsArgs, GetRowsWithColumnsArgs,
    GetRowsWithColumnsTsArgs, GetVerArgs, GetVerTsArgs,
};
use super::protocol::{T_STRUCT, Value};
use super::service::{Service, need};
use super::types::{split_column, tcell, trow_result};
use cellbase::{Get, LATEST_TIMESTAMP, Scan};

type R<T> = Result<T, Fail>;

/// The most rows a `getRows*` or `getMultiple` call reads per `Table::get_many` batch.
const MAX_ROWS_PER_BATCH: usize = 256;

/// The rows a `getRow*` or `getRows*` call names.
enum Rows<'a> {
    /// `2: Text row`.
    One(Option<&'a [u8]>),
    /// `2: list<Text> rows`.
    Many(Option<Vec<&'a [u8]>>),
}

impl Service {
    pub(super) fn get(&self, a: GetArgs<'_>, ctx: &mut CallCtx) -> R<Value> {
        self.get_cells(a.table_name, a.row, a.column, None, 1, ctx)
    }

    pub(super) fn get_ver(&self, a: GetVerArgs<'_>, ctx: &mut CallCtx) -> R<Value> {
        match a.num_versions {
            Some(n) => self.get_cells(a.table_name, a.row, a.column, None, n, ctx),
            None => Err(Fail::Io("missing argument numVersions".into())),
        }
    }

    pub(super) fn get_ver_ts(&self, a: GetVerTsArgs<'_>, ctx: &mut CallCtx) -> R<Value> {
        match (a.timestamp, a.num_versions) {
            (Some(ts), Some(n)) => self.get_cells(a.table_name, a.row, a.column, Some(ts), n, ctx),
            _ => Err(Fail::Io("missing argument timestamp or numVersions".into())),
        }
    }

    pub(super) fn get_row(&self, a: GetRowArgs<'_>, ctx: &mut CallCtx) -> R<Value> {
        self.read_rows(a.table_name, Rows::One(a.row), None, None, ctx)
    }

    pub(super) fn get_row_with_columns(
        &self,
        a: GetRowWithColumnsArgs<'_>,
        ctx: &mut CallCtx,
    ) -> R<Value> {
        self.read_rows(a.table_name, Rows::One(a.row), a.columns, None, ctx)
    }

    pub(super) fn get_row_ts(&self, a: GetRowTsArgs<'_>, ctx: &mut CallCtx) -> R<Value> {
        self.read_rows(a.table_name, Rows::One(a.row), None, Some(a.timestamp), ctx)
    }

    pub(super) fn get_row_with_columns_ts(
        &self,
        a: GetRowWithColumnsTsArgs<'_>,
        ctx: &mut CallCtx,
    ) -> R<Value> {
        let rows = Rows::One(a.row);
        self.read_rows(a.table_name, rows, a.columns, Some(a.timestamp), ctx)
    }

    pub(super) fn get_rows(&self, a: GetRowsArgs<'_>, ctx: &mut CallCtx) -> R<Value> {
        self.read_rows(a.table_name, Rows::Many(a.rows), None, None, ctx)
    }

    pub(super) fn get_rows_with_columns(
        &self,
        a: GetRowsWithColumnsArgs<'_>,
        ctx: &mut CallCtx,
    ) -> R<Value> {
        self.read_rows(a.table_name, Rows::Many(a.rows), a.columns, None, ctx)
    }

    pub(super) fn get_rows_ts(&self, a: GetRowsTsArgs<'_>, ctx: &mut CallCtx) -> R<Value> {
        self.read_rows(
            a.table_name,
            Rows::Many(a.rows),
            None,
            Some(a.timestamp),
            ctx,
        )
    }

    pub(super) fn get_rows_with_columns_ts(
        &self,
        a: GetRowsWithColumnsTsArgs<'_>,
        ctx: &mut CallCtx,
    ) -> R<Value> {
        let rows = Rows::Many(a.rows);
        self.read_rows(a.table_name, rows, a.columns, Some(a.timestamp), ctx)
    }

    pub(super) fn get_row_or_before(
        &self,
        a: GetRowOrBeforeArgs<'_>,
        ctx: &mut CallCtx,
    ) -> R<Value> {
        let t = self.table_arg(a.table_name)?;
        let row = need(a.row, "row")?;
        let family = need(a.family, "family")?;
        let (f, _) = split_column(family);
        let s = Scan::new().start_row(row).reversed(true).family(f).limit(1);
        let mut cells = Vec::new();
        if let Some(r) = t.scan(s)?.next() {
            let r = r?;
            ctx.budget.charge(cells_reply_bytes(&r))?;
            cells = r
                .cells()
                .iter()
                .map(|c| tcell(c.value(), c.timestamp()))
                .collect();
        }
        Ok(Value::List(T_STRUCT, cells))
    }

    /// Up to `versions` cells of one column (`fam` alone: of the family), newest first.
    fn get_cells(
        &self,
        table_name: Option<&[u8]>,
        row: Option<&[u8]>,
        column: Option<&[u8]>,
        ts: Option<i64>,
        versions: i32,
        ctx: &mut CallCtx,
    ) -> R<Value> {
        let t = self.table_arg(table_name)?;
        let row = need(row, "row")?;
        let column = need(column, "column")?;
        let n = versions;
        if n <= 0 {
            return Err(Fail::Io(format!("Maximum versions must be positive: {n}")));
        }
        let mut g = Get::new(row).max_versions(n as u32);
        g = match split_column(column) {
            (f, None) => g.family(f),
            (f, Some(q)) => g.column(f, q),
        };
        if let Some(ts) = ts.filter(|&ts| ts != LATEST_TIMESTAMP) {
            g = g.time_range(0, ts);
        }
        let r = t.get(g)?;
        ctx.budget.charge(cells_reply_bytes(&r))?;
        Ok(Value::List(
            T_STRUCT,
            r.cells()
                .iter()
                .map(|c| tcell(c.value(), c.timestamp()))
                .collect(),
        ))
    }

    /// The named rows (restricted to `columns`, all columns when absent) as `TRowResult`s,
    /// rows with no cells left out. `ts`: `None` for the latest versions, `Some(None)` when a
    /// `*Ts` method's timestamp is missing.
    fn read_rows(
        &self,
        table_name: Option<&[u8]>,
        rows: Rows<'_>,
        columns: Option<Vec<&[u8]>>,
        ts: Option<Option<i64>>,
        ctx: &mut CallCtx,
    ) -> R<Value> {
        let t = self.table_arg(table_name)?;
        let rows: Vec<&[u8]> = match rows {
            Rows::Many(rows) => rows.ok_or_else(|| Fail::Io("missing argument rows".into()))?,
            Rows::One(row) => vec![need(row, "row")?],
        };
        let ts = match ts {
            None => LATEST_TIMESTAMP,
            Some(Some(ts)) => ts,
            Some(None) => return Err(Fail::Io("missing argument timestamp".into())),
        };
        let get = |row: &[u8]| {
            let mut g = Get::new(row);
            for c in columns.iter().flatten() {
                g = match split_column(c) {
                    (f, None) => g.family(f),
                    (f, Some(q)) => g.column(f, q),
                };
            }
            if ts != LATEST_TIMESTAMP {
                g = g.time_range(0, ts);
            }
            g
        };
        let gets = rows.iter().map(|row| get(row)).collect();
        let out = read_batched(&t, gets, &mut ctx.budget, |r| {
            (!r.is_empty()).then(|| trow_result(r, false))
        })?;
        Ok(Value::List(T_STRUCT, out))
    }
}

/// Runs `gets` with `Table::get_many` in batches, charging the reply row by row, and encodes
/// each row with `encode` (`None`: left out, uncharged), in request order (both gateways'
/// multi-row reads: `getRows*`, `getMultiple`).
///
/// A batch is read before it is charged, so batches are sized to the budget left by the
/// largest row seen so far (the first batch is one row): a call naming one huge row many
/// times stops at the cap after reading about one row more, as with a Get per row.
pub(crate) fn read_batched(
    t: &cellbase::Table,
    gets: Vec<Get>,
    budget: &mut ReplyBudget,
    encode: impl Fn(&cellbase::RowResult) -> Option<Value>,
) -> R<Vec<Value>> {
    let mut out = Vec::new();
    let mut largest = 0usize;
    let mut first = true;
    let mut gets = gets.into_iter().peekable();
    while gets.peek().is_some() {
        let n = if first {
            1
        } else {
            (budget.remaining() / largest.max(1)).clamp(1, MAX_ROWS_PER_BATCH)
        };
        first = false;
        for r in t.get_many(gets.by_ref().take(n).collect())? {
            let bytes = row_reply_bytes(&r);
            largest = largest.max(bytes);
            if let Some(v) = encode(&r) {
                budget.charge(bytes)?;
                out.push(v);
            }
        }
    }
    Ok(out)
}
