//! The `Hbase` service: method dispatch onto the cellbase API, with HBase's Thrift1 semantics
//! (thrift-gateway.md §1.5).
use super::protocol::{T_BOOL, T_STRING, T_STRUCT, Value};
use super::server::ScannerRegistry;
use super::types::{
    BatchMutation, ColumnDescriptor, Fields, Mutation, TAppend, TIncrement, TRegionInfo, TScan,
    exception, split_column, tcell, trow_result,
};
use cellbase::{
    Append, BloomType, CheckAndMutate, Compression, Db, Delete, Durability, Error,
    FamilyDescriptor, Filter, Get, Increment, LATEST_TIMESTAMP, Put, RowResult, Scan, Table,
    TableDescriptor,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Bytes a reply may hold, counted while it is built (issue 21, item 7a).
///
/// Like HBase's `hbase.server.scanner.max.result.size` (default 100 MB there), but for every
/// reply: each row is measured as it is added, before the next one is read, so a request
/// naming one 9 MiB row a hundred times stops at the cap instead of building a 900 MiB reply.
/// Scanners return the rows that fit (a partial batch, as HBase does); other reads fail with
/// an `IOError` naming the limit. Every reply's bytes are also charged to a pool shared by all
/// connections (`--max-reply-memory-mib`) until the reply has been sent, so many connections
/// together cannot exceed it either.
#[derive(Debug)]
pub struct ReplyBudget {
    cap: usize,
    used: usize,
    pool: Option<(Arc<AtomicUsize>, usize)>,
}

impl ReplyBudget {
    /// A budget of `cap` bytes for one reply, also charged to `pool` (bytes in flight across
    /// all connections, at most `pool_cap`). The pool is credited back when this is dropped.
    pub fn new(cap: usize, pool: Arc<AtomicUsize>, pool_cap: usize) -> Self {
        ReplyBudget {
            cap,
            used: 0,
            pool: Some((pool, pool_cap)),
        }
    }

    /// A budget of `cap` bytes with no shared pool.
    pub fn standalone(cap: usize) -> Self {
        ReplyBudget {
            cap,
            used: 0,
            pool: None,
        }
    }

    /// Bytes charged so far.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Charges `n` more bytes, or fails (charging nothing) with an `IOError` naming the limit.
    pub fn charge(&mut self, n: usize) -> Result<(), Fail> {
        if self.used.saturating_add(n) > self.cap {
            return Err(Fail::Io(format!(
                "reply too large: more than {} bytes (the gateway's --max-reply-mib limit, \
                 like HBase's hbase.server.scanner.max.result.size); ask for fewer rows, \
                 columns or versions per call",
                self.cap
            )));
        }
        if let Some((pool, pool_cap)) = &self.pool {
            let before = pool.fetch_add(n, Ordering::SeqCst);
            if before.saturating_add(n) > *pool_cap {
                pool.fetch_sub(n, Ordering::SeqCst);
                return Err(Fail::Io(format!(
                    "server busy: replies in flight would exceed {pool_cap} bytes (the \
                     gateway's --max-reply-memory-mib limit); retry later"
                )));
            }
        }
        self.used += n;
        Ok(())
    }
}

impl Drop for ReplyBudget {
    fn drop(&mut self) {
        if let Some((pool, _)) = &self.pool {
            pool.fetch_sub(self.used, Ordering::SeqCst);
        }
    }
}

/// The encoded size of a row as a `TRowResult`, slightly over-estimated (field headers and
/// lengths counted at their binary-protocol width).
pub fn row_reply_bytes(r: &RowResult) -> usize {
    let cells: usize = r
        .cells()
        .iter()
        .map(|c| c.family().len() + c.qualifier().len() + c.value().len() + 40)
        .sum();
    r.row().len() + 24 + cells
}

fn cells_reply_bytes(r: &RowResult) -> usize {
    r.cells().iter().map(|c| c.value().len() + 24).sum()
}

/// What a call may use: its reply budget and the connection it arrived on (scanners belong
/// to the connection that opened them).
#[derive(Debug)]
pub struct CallCtx {
    /// The reply's byte budget.
    pub budget: ReplyBudget,
    /// The connection's id (`ScannerRegistry` owner).
    pub conn: u64,
}

/// A declared failure of a call, sent back as the method's declared exception.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fail {
    /// `IOError` (field 1).
    Io(String),
    /// `IllegalArgument` (field 2; sent as IOError by methods that do not declare it).
    Illegal(String),
    /// `AlreadyExists` (field 3; only `createTable` declares it).
    Exists(String),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        match e {
            Error::NotACounter { .. } => Fail::Io(format!("Field is not a long: {e}")),
            Error::TableExists(_) => Fail::Exists(e.to_string()),
            Error::InvalidArgument(_) => Fail::Illegal(e.to_string()),
            other => Fail::Io(other.to_string()),
        }
    }
}

/// What a call produced.
#[derive(Debug)]
pub enum Outcome {
    /// A non-void result (field 0).
    Value(Value),
    /// A void result.
    Void,
}

/// The result of dispatching one call.
#[derive(Debug)]
pub enum Dispatch {
    /// The method exists; here is its result struct.
    Reply(Vec<(i16, Value)>),
    /// No such method.
    UnknownMethod,
}

type R = Result<Outcome, Fail>;

/// The service state shared by every connection.
#[derive(Debug)]
pub struct Service {
    db: Db,
    scanners: ScannerRegistry,
    server_name: Vec<u8>,
    port: i32,
}

impl Service {
    /// Closes the database cleanly (flushes every memstore, syncs and trims the log): the
    /// gateway's stop, once no connection uses the service any more.
    ///
    /// # Errors
    /// The engine's close error.
    pub fn close(self) -> cellbase::Result<()> {
        self.db.close()
    }
}

/// Which exception ids a method declares beyond `1: IOError`.
fn declares(method: &str) -> (bool, bool) {
    let ia = matches!(
        method,
        "createTable"
            | "mutateRow"
            | "mutateRowTs"
            | "mutateRows"
            | "mutateRowsTs"
            | "atomicIncrement"
            | "scannerGet"
            | "scannerGetList"
            | "scannerClose"
            | "checkAndPut"
    );
    (ia, method == "createTable")
}

fn v_ok(v: Value) -> R {
    Ok(Outcome::Value(v))
}

fn utf8(b: &[u8]) -> Option<&str> {
    std::str::from_utf8(b).ok()
}

fn req<'a>(f: &Fields<'a>, id: i16, what: &str) -> Result<&'a [u8], Fail> {
    f.bin(id)
        .ok_or_else(|| Fail::Illegal(format!("missing argument {what}")))
}

impl Service {
    /// A service over `db` with scanners idle for longer than `scanner_idle` expiring, at most
    /// `max_scanners` open in all and `max_scanners_per_connection` per connection.
    pub fn new(
        db: Db,
        scanner_idle: Duration,
        max_scanners: usize,
        max_scanners_per_connection: usize,
        port: u16,
    ) -> Self {
        Service {
            db,
            scanners: ScannerRegistry::new(scanner_idle, max_scanners, max_scanners_per_connection),
            server_name: b"localhost".to_vec(),
            port: i32::from(port),
        }
    }

    /// The scanner registry.
    pub fn scanners(&self) -> &ScannerRegistry {
        &self.scanners
    }

    /// Runs one call and builds its result struct, within `ctx`'s reply budget.
    pub fn dispatch(&self, method: &str, args: &[(i16, Value)], ctx: &mut CallCtx) -> Dispatch {
        let a = Fields(args);
        let out = match method {
            "getTableNames" => self.get_table_names(),
            "getTableNamesWithIsTableEnabled" => self.get_table_names_enabled(),
            "getThriftServerType" => v_ok(Value::I32(1)),
            "getClusterId" => v_ok(Value::bin("cellbase")),
            "createTable" => self.create_table(a),
            "deleteTable" => self.delete_table(a),
            "enableTable" => self.with_table_name(a, |n| self.db.enable_table(n)),
            "disableTable" => self.with_table_name(a, |n| self.db.disable_table(n)),
            "isTableEnabled" => self.is_table_enabled(a),
            "compact" => self.compact(a, false),
            "majorCompact" => self.compact(a, true),
            "getColumnDescriptors" => self.get_column_descriptors(a),
            "getTableRegions" => self.get_table_regions(a),
            "get" => self.get_cells(a, None, Some(1), ctx),
            "getVer" => match a.i32(4) {
                Some(n) => self.get_cells(a, None, Some(n), ctx),
                None => Err(Fail::Io("missing argument numVersions".into())),
            },
            "getVerTs" => match (a.i64(4), a.i32(5)) {
                (Some(ts), Some(n)) => self.get_cells(a, Some(ts), Some(n), ctx),
                _ => Err(Fail::Io("missing argument timestamp or numVersions".into())),
            },
            "getRow" => self.get_rows(a, false, None, None, ctx),
            "getRowWithColumns" => self.get_rows(a, false, a.bin_list(3), None, ctx),
            "getRowTs" => self.get_rows(a, false, None, Some(a.i64(3)), ctx),
            "getRowWithColumnsTs" => self.get_rows(a, false, a.bin_list(3), Some(a.i64(4)), ctx),
            "getRows" => self.get_rows(a, true, None, None, ctx),
            "getRowsWithColumns" => self.get_rows(a, true, a.bin_list(3), None, ctx),
            "getRowsTs" => self.get_rows(a, true, None, Some(a.i64(3)), ctx),
            "getRowsWithColumnsTs" => self.get_rows(a, true, a.bin_list(3), Some(a.i64(4)), ctx),
            "mutateRow" => self.mutate_row(a, None),
            "mutateRowTs" => match a.i64(4) {
                Some(ts) => self.mutate_row(a, Some(ts)),
                None => Err(Fail::Illegal("missing argument timestamp".into())),
            },
            "mutateRows" => self.mutate_rows(a, None),
            "mutateRowsTs" => match a.i64(3) {
                Some(ts) => self.mutate_rows(a, Some(ts)),
                None => Err(Fail::Illegal("missing argument timestamp".into())),
            },
            "atomicIncrement" => self.atomic_increment(a),
            "increment" => self.increment(a),
            "incrementRows" => self.increment_rows(a),
            "append" => self.append(a, ctx),
            "checkAndPut" => self.check_and_put(a),
            "deleteAll" => self.delete_all(a, None),
            "deleteAllTs" => match a.i64(4) {
                Some(ts) => self.delete_all(a, Some(ts)),
                None => Err(Fail::Io("missing argument timestamp".into())),
            },
            "deleteAllRow" => self.delete_all_row(a, None),
            "deleteAllRowTs" => match a.i64(3) {
                Some(ts) => self.delete_all_row(a, Some(ts)),
                None => Err(Fail::Io("missing argument timestamp".into())),
            },
            "scannerOpenWithScan" => self.scanner_open_with_scan(a, ctx.conn),
            "scannerOpen" => self.scanner_open(a, a.bin(2), None, a.bin_list(3), None, ctx.conn),
            "scannerOpenTs" => match a.i64(4) {
                Some(ts) => self.scanner_open(a, a.bin(2), None, a.bin_list(3), Some(ts), ctx.conn),
                None => Err(Fail::Io("missing argument timestamp".into())),
            },
            "scannerOpenWithStop" => {
                self.scanner_open(a, a.bin(2), a.bin(3), a.bin_list(4), None, ctx.conn)
            }
            "scannerOpenWithStopTs" => match a.i64(5) {
                Some(ts) => {
                    self.scanner_open(a, a.bin(2), a.bin(3), a.bin_list(4), Some(ts), ctx.conn)
                }
                None => Err(Fail::Io("missing argument timestamp".into())),
            },
            "scannerOpenWithPrefix" => self.scanner_open_with_prefix(a, ctx.conn),
            "scannerGet" => self.scanner_get(a.i32(1), Some(1), ctx),
            "scannerGetList" => self.scanner_get(a.i32(1), a.i32(2), ctx),
            "scannerClose" => self.scanner_close(a.i32(1)),
            "getRowOrBefore" => self.get_row_or_before(a, ctx),
            "getRegionInfo" => self.get_region_info(a),
            _ => return Dispatch::UnknownMethod,
        };
        let (ia, exists) = declares(method);
        Dispatch::Reply(match out {
            Ok(Outcome::Value(v)) => vec![(0, v)],
            Ok(Outcome::Void) => vec![],
            Err(Fail::Exists(m)) if exists => vec![(3, exception(&m))],
            Err(Fail::Illegal(m)) if ia => vec![(2, exception(&m))],
            Err(Fail::Io(m)) | Err(Fail::Illegal(m)) | Err(Fail::Exists(m)) => {
                vec![(1, exception(&m))]
            }
        })
    }

    // ---- helpers ---------------------------------------------------------------------

    fn table(&self, name: &[u8]) -> Result<Table, Fail> {
        let n = utf8(name).ok_or_else(|| {
            Fail::Io(format!(
                "table {} does not exist",
                String::from_utf8_lossy(name)
            ))
        })?;
        Ok(self.db.table(n)?)
    }

    fn arg_table(&self, a: &Fields<'_>) -> Result<Table, Fail> {
        self.table(req(a, 1, "tableName")?)
    }

    fn with_table_name(&self, a: Fields<'_>, f: impl FnOnce(&str) -> cellbase::Result<()>) -> R {
        let name = req(&a, 1, "tableName")?;
        let n = utf8(name).ok_or_else(|| Fail::Io("table does not exist".into()))?;
        f(n)?;
        Ok(Outcome::Void)
    }

    // ---- admin -----------------------------------------------------------------------

    fn get_table_names(&self) -> R {
        v_ok(Value::bin_list(self.db.table_names()))
    }

    fn get_table_names_enabled(&self) -> R {
        let entries = self
            .db
            .table_names()
            .into_iter()
            .filter_map(|n| {
                let en = self.db.is_table_enabled(&n).ok()?;
                Some((Value::bin(n), Value::Bool(en)))
            })
            .collect();
        v_ok(Value::Map(T_STRING, T_BOOL, entries))
    }

    fn create_table(&self, a: Fields<'_>) -> R {
        let name = req(&a, 1, "tableName")?;
        let name = utf8(name).ok_or_else(|| Fail::Illegal("table name is not UTF-8".into()))?;
        if self.db.table_names().iter().any(|n| n == name) {
            return Err(Fail::Exists("table name already in use".into()));
        }
        let cfs = a.struct_list(2).unwrap_or_default();
        if cfs.is_empty() {
            return Err(Fail::Illegal(
                "a table needs at least one column family".into(),
            ));
        }
        let mut desc = TableDescriptor::new(name);
        for f in cfs {
            desc = desc.family(family_from_thrift(&ColumnDescriptor::from_fields(f))?);
        }
        self.db.create_table(desc)?;
        Ok(Outcome::Void)
    }

    fn delete_table(&self, a: Fields<'_>) -> R {
        let name = req(&a, 1, "tableName")?;
        let n = utf8(name).ok_or_else(|| Fail::Io("table does not exist".into()))?;
        if !self.db.table_names().iter().any(|t| t == n) {
            return Err(Fail::Io(format!("table does not exist: {n}")));
        }
        if self.db.is_table_enabled(n)? {
            return Err(Fail::Io(format!(
                "TableNotDisabledException: {n} is enabled; disable it first"
            )));
        }
        self.db.drop_table(n)?;
        Ok(Outcome::Void)
    }

    fn is_table_enabled(&self, a: Fields<'_>) -> R {
        let name = req(&a, 1, "tableName")?;
        let n = utf8(name).ok_or_else(|| Fail::Io("table does not exist".into()))?;
        v_ok(Value::Bool(self.db.is_table_enabled(n)?))
    }

    fn compact(&self, a: Fields<'_>, major: bool) -> R {
        let name = req(&a, 1, "tableNameOrRegionName")?;
        let n = String::from_utf8_lossy(name).into_owned();
        // A table name, or a region name (`table,startKey,id`): cellbase compacts per table.
        let table = match self.db.table(&n) {
            Ok(t) => t,
            Err(Error::TableNotFound(_)) => {
                let t = n.split(',').next().unwrap_or_default();
                let table = self
                    .db
                    .table(t)
                    .map_err(|_| Fail::Io(format!("no table or region named {n}")))?;
                if !table.regions().iter().any(|r| r.name == n) {
                    return Err(Fail::Io(format!("no table or region named {n}")));
                }
                table
            }
            Err(e) => return Err(e.into()),
        };
        if major {
            table.major_compact()?;
        } else {
            table.compact()?;
        }
        Ok(Outcome::Void)
    }

    fn get_column_descriptors(&self, a: Fields<'_>) -> R {
        let name = req(&a, 1, "tableName")?;
        let n = utf8(name).ok_or_else(|| Fail::Io("table does not exist".into()))?;
        let desc = self.db.describe(n)?;
        let entries = desc
            .families()
            .iter()
            .map(|f| {
                let cd = family_to_thrift(f);
                (Value::bin(&cd.name), cd.to_value())
            })
            .collect();
        v_ok(Value::Map(T_STRING, T_STRUCT, entries))
    }

    fn region_infos(&self, t: &Table) -> Vec<TRegionInfo> {
        t.regions()
            .into_iter()
            .map(|r| TRegionInfo {
                id: r
                    .name
                    .rsplit(',')
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0),
                start_key: r.start_key,
                end_key: r.end_key,
                name: r.name.into_bytes(),
                server_name: self.server_name.clone(),
                port: self.port,
            })
            .collect()
    }

    fn get_table_regions(&self, a: Fields<'_>) -> R {
        let name = req(&a, 1, "tableName")?;
        let regions = match utf8(name).map(|n| self.db.table(n)) {
            Some(Ok(t)) => self.region_infos(&t),
            // HBase answers an unknown table with an empty list.
            _ => Vec::new(),
        };
        v_ok(Value::List(
            T_STRUCT,
            regions.iter().map(TRegionInfo::to_value).collect(),
        ))
    }

    fn get_region_info(&self, a: Fields<'_>) -> R {
        // The argument is a meta row key: `table,row,suffix`.
        let key = req(&a, 1, "row")?;
        let first = key.iter().position(|&b| b == b',');
        let last = key.iter().rposition(|&b| b == b',');
        let (Some(i), Some(j)) = (first, last) else {
            return Err(Fail::Io("row is not a region key (table,row,id)".into()));
        };
        let table = self.table(&key[..i])?;
        let row = if j > i { &key[i + 1..j] } else { &key[i + 1..] };
        let info = self
            .region_infos(&table)
            .into_iter()
            .find(|r| {
                r.start_key.as_slice() <= row
                    && (r.end_key.is_empty() || row < r.end_key.as_slice())
            })
            .ok_or_else(|| Fail::Io("no region holds that row".into()))?;
        v_ok(info.to_value())
    }

    // ---- reads -----------------------------------------------------------------------

    fn get_cells(
        &self,
        a: Fields<'_>,
        ts: Option<i64>,
        versions: Option<i32>,
        ctx: &mut CallCtx,
    ) -> R {
        let t = self.arg_table(&a)?;
        let row = req(&a, 2, "row")?;
        let column = req(&a, 3, "column")?;
        let n = versions.unwrap_or(1);
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
        v_ok(Value::List(
            T_STRUCT,
            r.cells()
                .iter()
                .map(|c| tcell(c.value(), c.timestamp()))
                .collect(),
        ))
    }

    fn get_rows(
        &self,
        a: Fields<'_>,
        many: bool,
        columns: Option<Vec<&[u8]>>,
        ts: Option<Option<i64>>,
        ctx: &mut CallCtx,
    ) -> R {
        let t = self.arg_table(&a)?;
        let rows: Vec<&[u8]> = if many {
            a.bin_list(2)
                .ok_or_else(|| Fail::Io("missing argument rows".into()))?
        } else {
            vec![req(&a, 2, "row")?]
        };
        let ts = match ts {
            None => LATEST_TIMESTAMP,
            Some(Some(ts)) => ts,
            Some(None) => return Err(Fail::Io("missing argument timestamp".into())),
        };
        let mut out = Vec::new();
        for row in rows {
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
            let r = t.get(g)?;
            if !r.is_empty() {
                // Counted row by row: the reply never grows past the cap.
                ctx.budget.charge(row_reply_bytes(&r))?;
                out.push(trow_result(&r, false));
            }
        }
        v_ok(Value::List(T_STRUCT, out))
    }

    fn get_row_or_before(&self, a: Fields<'_>, ctx: &mut CallCtx) -> R {
        let t = self.arg_table(&a)?;
        let row = req(&a, 2, "row")?;
        let family = req(&a, 3, "family")?;
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
        v_ok(Value::List(T_STRUCT, cells))
    }

    // ---- writes ----------------------------------------------------------------------

    fn mutate_rows(&self, a: Fields<'_>, ts: Option<i64>) -> R {
        let t = self.arg_table(&a)?;
        let ts = ts.unwrap_or(LATEST_TIMESTAMP);
        let batches: Vec<BatchMutation<'_>> = a
            .struct_list(2)
            .unwrap_or_default()
            .into_iter()
            .map(BatchMutation::from_fields)
            .collect();
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
        Ok(Outcome::Void)
    }

    fn mutate_row(&self, a: Fields<'_>, ts: Option<i64>) -> R {
        let t = self.arg_table(&a)?;
        let row = req(&a, 2, "row")?;
        let ms: Vec<Mutation<'_>> = a
            .struct_list(3)
            .unwrap_or_default()
            .into_iter()
            .map(Mutation::from_fields)
            .collect();
        let (p, d) = build_row_mutations(row, &ms, ts.unwrap_or(LATEST_TIMESTAMP), false)?;
        // mutateRow(Ts) deletes first, then puts (HBase's order for this method).
        if let Some(d) = d {
            t.delete(d)?;
        }
        if let Some(p) = p {
            t.put(p)?;
        }
        Ok(Outcome::Void)
    }

    fn increment_one(&self, t: &Table, row: &[u8], column: &[u8], delta: i64) -> Result<i64, Fail> {
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

    fn atomic_increment(&self, a: Fields<'_>) -> R {
        let t = self.arg_table(&a)?;
        let row = req(&a, 2, "row")?;
        let column = req(&a, 3, "column")?;
        let delta = a.i64(4).unwrap_or(0);
        v_ok(Value::I64(self.increment_one(&t, row, column, delta)?))
    }

    fn increment(&self, a: Fields<'_>) -> R {
        let inc = a
            .strct(1)
            .map(TIncrement::from_fields)
            .ok_or_else(|| Fail::Io("missing argument increment".into()))?;
        let t = self.table(inc.table)?;
        self.increment_one(&t, inc.row, inc.column, inc.amount)?;
        Ok(Outcome::Void)
    }

    fn increment_rows(&self, a: Fields<'_>) -> R {
        for f in a.struct_list(1).unwrap_or_default() {
            let inc = TIncrement::from_fields(f);
            let t = self.table(inc.table)?;
            self.increment_one(&t, inc.row, inc.column, inc.amount)?;
        }
        Ok(Outcome::Void)
    }

    fn append(&self, a: Fields<'_>, ctx: &mut CallCtx) -> R {
        let ap = a
            .strct(1)
            .map(TAppend::from_fields)
            .ok_or_else(|| Fail::Io("missing argument append".into()))?;
        if ap.columns.len() != ap.values.len() {
            return Err(Fail::Io(format!(
                "TAppend has {} columns but {} values",
                ap.columns.len(),
                ap.values.len()
            )));
        }
        if ap.columns.is_empty() {
            return v_ok(Value::List(T_STRUCT, vec![]));
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
        v_ok(cells_list(&r))
    }

    fn check_and_put(&self, a: Fields<'_>) -> R {
        let t = self.arg_table(&a)?;
        let row = req(&a, 2, "row")?;
        let column = req(&a, 3, "column")?;
        let (f, q) = split_column(column);
        let q = q.unwrap_or_default();
        let m = a
            .strct(6)
            .map(Mutation::from_fields)
            .ok_or_else(|| Fail::Illegal("missing argument mput".into()))?;
        let (pf, pq) = split_column(m.column);
        let Some(pq) = pq else {
            return Err(Fail::Illegal("Invalid famAndQf provided.".into()));
        };
        let mut put = Put::new(row).add(pf, pq, m.value);
        if !m.write_to_wal {
            put = put.durability(Durability::SkipWal);
        }
        let cam = match a.bin(5) {
            Some(v) => CheckAndMutate::new(row).if_equals(f, q, v),
            None => CheckAndMutate::new(row).if_absent(f, q),
        };
        v_ok(Value::Bool(t.check_and_mutate(cam.then_put(put))?))
    }

    fn delete_all(&self, a: Fields<'_>, ts: Option<i64>) -> R {
        let t = self.arg_table(&a)?;
        let row = req(&a, 2, "row")?;
        let column = req(&a, 3, "column")?;
        let d = Delete::new(row);
        let d = match (split_column(column), ts) {
            ((f, None), None) => d.family(f),
            ((f, None), Some(ts)) => d.family_up_to(f, ts),
            ((f, Some(q)), None) => d.all_versions(f, q),
            ((f, Some(q)), Some(ts)) => d.versions_up_to(f, q, ts),
        };
        t.delete(d)?;
        Ok(Outcome::Void)
    }

    fn delete_all_row(&self, a: Fields<'_>, ts: Option<i64>) -> R {
        let t = self.arg_table(&a)?;
        let row = req(&a, 2, "row")?;
        let mut d = Delete::new(row);
        if let Some(ts) = ts {
            d = d.up_to(ts);
        }
        t.delete(d)?;
        Ok(Outcome::Void)
    }

    // ---- scanners --------------------------------------------------------------------

    fn apply_columns(mut s: Scan, columns: Option<Vec<&[u8]>>) -> Scan {
        for c in columns.into_iter().flatten() {
            s = match split_column(c) {
                (f, None) => s.family(f),
                (f, Some(q)) => s.column(f, q),
            };
        }
        s
    }

    fn open(&self, t: &Table, s: Scan, sorted: bool, conn: u64) -> R {
        let scanner = t.scan(s)?;
        let id = self.scanners.insert(scanner, sorted, conn)?;
        v_ok(Value::I32(id))
    }

    fn scanner_open_with_scan(&self, a: Fields<'_>, conn: u64) -> R {
        let t = self.arg_table(&a)?;
        let ts = a.strct(2).map(TScan::from_fields).unwrap_or_default();
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
        s = Self::apply_columns(s, ts.columns);
        if let Some(b) = ts.batch_size.filter(|&b| b > 0) {
            s = s.batch(b as u32);
        }
        if let Some(fs) = ts.filter_string.filter(|f| !f.is_empty()) {
            let fs = utf8(fs).ok_or_else(|| Fail::Io("filter string is not UTF-8".into()))?;
            let f = Filter::parse(fs).map_err(|e| Fail::Io(format!("bad filter string: {e}")))?;
            s = s.filter(f);
        }
        self.open(&t, s, ts.sort_columns, conn)
    }

    fn scanner_open(
        &self,
        a: Fields<'_>,
        start: Option<&[u8]>,
        stop: Option<&[u8]>,
        columns: Option<Vec<&[u8]>>,
        ts: Option<i64>,
        conn: u64,
    ) -> R {
        let t = self.arg_table(&a)?;
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
        s = Self::apply_columns(s, columns);
        self.open(&t, s, false, conn)
    }

    fn scanner_open_with_prefix(&self, a: Fields<'_>, conn: u64) -> R {
        let t = self.arg_table(&a)?;
        let prefix = a.bin(2).unwrap_or_default();
        let s = Self::apply_columns(Scan::new().prefix(prefix), a.bin_list(3));
        self.open(&t, s, false, conn)
    }

    fn scanner_get(&self, id: Option<i32>, n: Option<i32>, ctx: &mut CallCtx) -> R {
        let id = id.ok_or_else(|| Fail::Illegal("missing argument id".into()))?;
        let n = n.unwrap_or(1);
        let rows = self.scanners.next_rows(id, n, &mut ctx.budget)?;
        v_ok(Value::List(T_STRUCT, rows))
    }

    fn scanner_close(&self, id: Option<i32>) -> R {
        let id = id.ok_or_else(|| Fail::Illegal("missing argument id".into()))?;
        if self.scanners.remove(id) {
            Ok(Outcome::Void)
        } else {
            Err(Fail::Illegal("scanner ID is invalid".into()))
        }
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
fn commit_wait(r: &RowResult) {
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

/// HBase's `colDescFromThrift`.
fn family_from_thrift(cd: &ColumnDescriptor) -> Result<FamilyDescriptor, Fail> {
    let mut name = cd.name.as_slice();
    if let Some(n) = name.strip_suffix(b":") {
        name = n;
    }
    if name.is_empty() {
        return Err(Fail::Illegal("column name is empty".into()));
    }
    if cd.max_versions < 1 {
        return Err(Fail::Illegal(format!(
            "maxVersions must be positive, got {}",
            cd.max_versions
        )));
    }
    let compression = match cd.compression.to_ascii_uppercase().as_str() {
        "NONE" | "" => Compression::None,
        "SNAPPY" => Compression::Snappy,
        other => {
            return Err(Fail::Illegal(format!(
                "unsupported compression {other} (NONE or SNAPPY)"
            )));
        }
    };
    let bloom = match cd.bloom_filter_type.to_ascii_uppercase().as_str() {
        "NONE" | "" => BloomType::None,
        "ROW" => BloomType::Row,
        "ROWCOL" => BloomType::RowCol,
        other => {
            return Err(Fail::Illegal(format!(
                "unsupported bloom filter type {other} (NONE, ROW or ROWCOL)"
            )));
        }
    };
    let mut f = FamilyDescriptor::new(name)
        .max_versions(cd.max_versions as u32)
        .compression(compression)
        .bloom_filter(bloom)
        .in_memory(cd.in_memory)
        .block_cache(cd.block_cache_enabled);
    if cd.time_to_live > 0 && cd.time_to_live != i32::MAX {
        f = f.ttl(Duration::from_secs(cd.time_to_live as u64));
    }
    Ok(f)
}

/// HBase's `colDescFromHbase`.
fn family_to_thrift(f: &FamilyDescriptor) -> ColumnDescriptor {
    let mut name = f.name.clone();
    name.push(b':');
    ColumnDescriptor {
        name,
        max_versions: i32::try_from(f.max_versions).unwrap_or(i32::MAX),
        compression: match f.compression {
            Compression::Snappy => "SNAPPY",
            _ => "NONE",
        }
        .into(),
        in_memory: f.in_memory,
        bloom_filter_type: match f.bloom_filter {
            BloomType::Row => "ROW",
            BloomType::RowCol => "ROWCOL",
            _ => "NONE",
        }
        .into(),
        block_cache_enabled: f.block_cache,
        time_to_live: f
            .ttl
            .map(|d| i32::try_from(d.as_secs()).unwrap_or(i32::MAX))
            .unwrap_or(i32::MAX),
    }
}
