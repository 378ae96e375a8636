//! Scanner handlers: the `scannerOpen*` family (`scannerOpenWithScan` with its `TScan`, the
//! 0.90-era start/stop/timestamp variants, `scannerOpenWithPrefix`), `scannerGet*` and
//! `scannerClose`, over the shared [`super::scanners::ScannerRegistry`].
use super::call::{CallCtx, Fail};
use super::methods::{
    ScannerCloseArgs, ScannerGetArgs, ScannerGetListArgs, ScannerOpenArgs, ScannerOpenTsArgs,
    ScannerOpenWithPrefixArgs, ScannerOpenWithScanArgs, ScannerOpenWithStopArgs,
    ScannerOpenWithStopTsArgs,
};
use super::protocol::{T_STRUCT, Value};
use super::scanners::RowEncoder;
use super::service::{Service, utf8};
use super::types::{split_column, trow_result};
use cellbase::{Filter, LATEST_TIMESTAMP, Scan};

type R<T> = Result<T, Fail>;

impl Service {
    pub(super) fn scanner_open_with_scan(
        &self,
        a: ScannerOpenWithScanArgs<'_>,
        ctx: &mut CallCtx,
    ) -> R<i32> {
        let t = self.table_arg(a.table_name)?;
        let ts = a.scan.unwrap_or_default();
        let mut s = Scan::new().reversed(ts.reversed);
        if let Some(r) = ts.start_row.filter(|r| !r.is_empty()) {
            s = s.start_row(r);
        }
        if let Some(r) = ts.stop_row.filter(|r| !r.is_empty()) {
            s = s.stop_row(r);
        }
        if let Some(ts) = ts.timestamp.filter(|&ts| ts != LATEST_TIMESTAMP) {
            s = s.time_range(0, ts);
        }
        s = apply_columns(s, ts.columns);
        if let Some(b) = ts.batch_size.filter(|&b| b > 0) {
            s = s.batch(b as u32);
        }
        if let Some(fs) = ts.filter_string.filter(|f| !f.is_empty()) {
            let fs = utf8(fs).ok_or_else(|| Fail::Io("filter string is not UTF-8".into()))?;
            let f = Filter::parse(fs).map_err(|e| Fail::Io(format!("bad filter string: {e}")))?;
            s = s.filter(f);
        }
        self.open(&t, s, ts.sort_columns, ctx.conn)
    }

    pub(super) fn scanner_open(&self, a: ScannerOpenArgs<'_>, ctx: &mut CallCtx) -> R<i32> {
        let t = self.table_arg(a.table_name)?;
        self.open(
            &t,
            range(a.start_row, None, a.columns, None),
            false,
            ctx.conn,
        )
    }

    pub(super) fn scanner_open_ts(&self, a: ScannerOpenTsArgs<'_>, ctx: &mut CallCtx) -> R<i32> {
        let Some(ts) = a.timestamp else {
            return Err(Fail::Io("missing argument timestamp".into()));
        };
        let t = self.table_arg(a.table_name)?;
        self.open(
            &t,
            range(a.start_row, None, a.columns, Some(ts)),
            false,
            ctx.conn,
        )
    }

    pub(super) fn scanner_open_with_stop(
        &self,
        a: ScannerOpenWithStopArgs<'_>,
        ctx: &mut CallCtx,
    ) -> R<i32> {
        let t = self.table_arg(a.table_name)?;
        let s = range(a.start_row, a.stop_row, a.columns, None);
        self.open(&t, s, false, ctx.conn)
    }

    pub(super) fn scanner_open_with_stop_ts(
        &self,
        a: ScannerOpenWithStopTsArgs<'_>,
        ctx: &mut CallCtx,
    ) -> R<i32> {
        let Some(ts) = a.timestamp else {
            return Err(Fail::Io("missing argument timestamp".into()));
        };
        let t = self.table_arg(a.table_name)?;
        let s = range(a.start_row, a.stop_row, a.columns, Some(ts));
        self.open(&t, s, false, ctx.conn)
    }

    pub(super) fn scanner_open_with_prefix(
        &self,
        a: ScannerOpenWithPrefixArgs<'_>,
        ctx: &mut CallCtx,
    ) -> R<i32> {
        let t = self.table_arg(a.table_name)?;
        let prefix = a.start_and_prefix.unwrap_or_default();
        let s = apply_columns(Scan::new().prefix(prefix), a.columns);
        self.open(&t, s, false, ctx.conn)
    }

    fn open(&self, t: &cellbase::Table, s: Scan, sorted: bool, conn: u64) -> R<i32> {
        let scanner = t.scan(s)?;
        let encode: RowEncoder = if sorted {
            |r| trow_result(r, true)
        } else {
            |r| trow_result(r, false)
        };
        self.scanners.insert(scanner, encode, conn)
    }

    pub(super) fn scanner_get(&self, a: ScannerGetArgs<'_>, ctx: &mut CallCtx) -> R<Value> {
        self.next_rows(a.id, Some(1), ctx)
    }

    pub(super) fn scanner_get_list(
        &self,
        a: ScannerGetListArgs<'_>,
        ctx: &mut CallCtx,
    ) -> R<Value> {
        self.next_rows(a.id, a.nb_rows, ctx)
    }

    fn next_rows(&self, id: Option<i32>, n: Option<i32>, ctx: &mut CallCtx) -> R<Value> {
        let id = id.ok_or_else(|| Fail::Illegal("missing argument id".into()))?;
        let n = n.unwrap_or(1);
        let rows = self.scanners.next_rows(id, n, &mut ctx.budget)?;
        Ok(Value::List(T_STRUCT, rows))
    }

    pub(super) fn scanner_close(&self, a: ScannerCloseArgs<'_>, _: &mut CallCtx) -> R<()> {
        let id =
            a.id.ok_or_else(|| Fail::Illegal("missing argument id".into()))?;
        if self.scanners.remove(id) {
            Ok(())
        } else {
            Err(Fail::Illegal("scanner ID is invalid".into()))
        }
    }
}

/// A scan of `[start, stop)` (empty or absent: unbounded) over `columns`, seeing `[0, ts)`.
fn range(
    start: Option<&[u8]>,
    stop: Option<&[u8]>,
    columns: Option<Vec<&[u8]>>,
    ts: Option<i64>,
) -> Scan {
    let mut s = Scan::new();
    if let Some(r) = start.filter(|r| !r.is_empty()) {
        s = s.start_row(r);
    }
    if let Some(r) = stop.filter(|r| !r.is_empty()) {
        s = s.stop_row(r);
    }
    if let Some(ts) = ts.filter(|&ts| ts != LATEST_TIMESTAMP) {
        s = s.time_range(0, ts);
    }
    apply_columns(s, columns)
}

/// Restricts `s` to `columns` (`fam` for a whole family, `fam:qual` for one column); absent
/// means every column.
fn apply_columns(mut s: Scan, columns: Option<Vec<&[u8]>>) -> Scan {
    for c in columns.into_iter().flatten() {
        s = match split_column(c) {
            (f, None) => s.family(f),
            (f, Some(q)) => s.column(f, q),
        };
    }
    s
}
