//! Shared helpers for the thrift gateway's integration tests: start `cellbase thrift` on a free
//! port, and a minimal Thrift client built on the crate's own codec.
#![allow(dead_code)]
use cellbase_cli::thrift::protocol::{
    Limits, MSG_CALL, MSG_EXCEPTION, MSG_REPLY, Protocol, Value, encode_message,
};
use cellbase_cli::thrift::transport::{Transport, read_message, write_message};
use std::io::BufReader;
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

#[path = "../gateway_process/mod.rs"]
mod gateway_process;
pub use gateway_process::Server;
#[allow(unused_imports)]
pub use gateway_process::closed_cleanly_with_50_rows;

impl Server {
    /// Starts the server on port 0 over `dir` and reads the port from its first stdout line.
    pub fn start(dir: &Path) -> Server {
        Server::start_with(dir, &[])
    }

    /// Like [`Server::start`] with extra command-line arguments.
    pub fn start_with(dir: &Path, extra: &[&str]) -> Server {
        gateway_process::spawn("thrift", dir, extra)
    }
}

/// A decoded reply.
#[derive(Debug)]
pub enum Reply {
    /// A REPLY: the result struct.
    Ok(Vec<(i16, Value)>),
    /// An EXCEPTION: the TApplicationException struct.
    AppException(Vec<(i16, Value)>),
}

impl Reply {
    /// Field 0 of a REPLY (panics otherwise: test helper).
    pub fn success(&self) -> &Value {
        match self {
            Reply::Ok(f) => {
                &f.iter()
                    .find(|(i, _)| *i == 0)
                    .unwrap_or_else(|| panic!("no success in {f:?}"))
                    .1
            }
            other => panic!("expected a reply, got {other:?}"),
        }
    }

    /// Asserts a void success.
    pub fn void(&self) {
        match self {
            Reply::Ok(f) if f.is_empty() => {}
            other => panic!("expected a void reply, got {other:?}"),
        }
    }

    /// The declared exception at `id`, as its message.
    pub fn exception(&self, id: i16) -> String {
        match self {
            Reply::Ok(f) => match f.iter().find(|(i, _)| *i == id) {
                Some((_, Value::Struct(e))) => match e.iter().find(|(i, _)| *i == 1) {
                    Some((_, Value::Binary(m))) => String::from_utf8_lossy(m).into_owned(),
                    _ => panic!("exception without message: {e:?}"),
                },
                _ => panic!("expected exception field {id}, got {f:?}"),
            },
            other => panic!("expected a declared exception, got {other:?}"),
        }
    }
}

/// A blocking client on one connection.
pub struct Client {
    pub stream: TcpStream,
    reader: BufReader<TcpStream>,
    pub transport: Transport,
    pub proto: Protocol,
    seq: i32,
}

impl Client {
    /// Connects with the given transport and protocol.
    pub fn connect(port: u16, transport: Transport, proto: Protocol) -> Client {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        // A generous safety net so that a stuck server fails the test instead of hanging it.
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let reader = BufReader::new(stream.try_clone().unwrap());
        Client {
            stream,
            reader,
            transport,
            proto,
            seq: 0,
        }
    }

    /// Buffered strict binary (happybase's default).
    pub fn binary(port: u16) -> Client {
        Client::connect(port, Transport::Buffered, Protocol::Binary)
    }

    /// Sends a call and reads its reply.
    pub fn try_call(&mut self, name: &str, args: Vec<(i16, Value)>) -> std::io::Result<Reply> {
        self.seq += 1;
        let msg = encode_message(self.proto, name, MSG_CALL, self.seq, &args);
        write_message(&mut self.stream, self.transport, &msg)?;
        let m = read_message(
            &mut self.reader,
            self.transport,
            self.proto,
            Limits::default(),
        )
        .map_err(|f| std::io::Error::other(f.error.to_string()))?;
        assert_eq!(m.header.name, name);
        assert_eq!(m.header.seqid, self.seq);
        match m.header.mtype {
            MSG_REPLY => Ok(Reply::Ok(m.body)),
            MSG_EXCEPTION => Ok(Reply::AppException(m.body)),
            t => panic!("unexpected message type {t}"),
        }
    }

    /// Sends a call and reads its reply (panics on I/O failure).
    pub fn call(&mut self, name: &str, args: Vec<(i16, Value)>) -> Reply {
        self.try_call(name, args)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    }
}

/// `bin(x)` shorthand.
pub fn b(x: impl AsRef<[u8]>) -> Value {
    Value::bin(x)
}

/// A `Mutation` struct.
pub fn mutation(column: &str, value: Option<&[u8]>) -> Value {
    let mut f = vec![(1, Value::Bool(value.is_none())), (2, b(column))];
    if let Some(v) = value {
        f.push((3, b(v)));
    }
    f.push((4, Value::Bool(true)));
    Value::Struct(f)
}

/// A `BatchMutation` struct.
pub fn batch(row: &[u8], ms: Vec<Value>) -> Value {
    use cellbase_cli::thrift::protocol::T_STRUCT;
    Value::Struct(vec![(1, b(row)), (2, Value::List(T_STRUCT, ms))])
}

/// `createTable(name, [cf...])` with the given maxVersions per family.
pub fn create_table(c: &mut Client, name: &str, families: &[(&str, i32)]) -> Reply {
    use cellbase_cli::thrift::protocol::T_STRUCT;
    let cds = families
        .iter()
        .map(|(f, v)| Value::Struct(vec![(1, b(format!("{f}:"))), (2, Value::I32(*v))]))
        .collect();
    c.call(
        "createTable",
        vec![(1, b(name)), (2, Value::List(T_STRUCT, cds))],
    )
}

/// One row: its key and (column, value, timestamp) triples.
pub type RowCells = (Vec<u8>, Vec<(Vec<u8>, Vec<u8>, i64)>);

/// The rows of a `list<TRowResult>` as (row, [(column, value, ts)]) from the `columns` map or
/// the `sortedColumns` list.
pub fn rows(v: &Value) -> Vec<RowCells> {
    let Value::List(_, items) = v else {
        panic!("not a list: {v:?}")
    };
    items
        .iter()
        .map(|r| {
            let Value::Struct(f) = r else {
                panic!("not a struct")
            };
            let mut row = Vec::new();
            let mut cols = Vec::new();
            for (id, v) in f {
                match (id, v) {
                    (1, Value::Binary(r)) => row = r.clone(),
                    (2, Value::Map(_, _, es)) => {
                        for (k, c) in es {
                            let Value::Binary(k) = k else { panic!() };
                            let (val, ts) = cell(c);
                            cols.push((k.clone(), val, ts));
                        }
                    }
                    (3, Value::List(_, cs)) => {
                        for tc in cs {
                            let Value::Struct(tf) = tc else { panic!() };
                            let name = match &tf.iter().find(|(i, _)| *i == 1).unwrap().1 {
                                Value::Binary(n) => n.clone(),
                                _ => panic!(),
                            };
                            let (val, ts) = cell(&tf.iter().find(|(i, _)| *i == 2).unwrap().1);
                            cols.push((name, val, ts));
                        }
                    }
                    _ => {}
                }
            }
            (row, cols)
        })
        .collect()
}

/// A TCell as (value, ts).
pub fn cell(v: &Value) -> (Vec<u8>, i64) {
    let Value::Struct(f) = v else {
        panic!("not a TCell: {v:?}")
    };
    let mut val = Vec::new();
    let mut ts = 0;
    for (id, x) in f {
        match (id, x) {
            (1, Value::Binary(b)) => val = b.clone(),
            (2, Value::I64(t)) => ts = *t,
            _ => {}
        }
    }
    (val, ts)
}

/// A `list<TCell>` as (value, ts) pairs.
pub fn cells(v: &Value) -> Vec<(Vec<u8>, i64)> {
    let Value::List(_, items) = v else {
        panic!("not a list: {v:?}")
    };
    items.iter().map(cell).collect()
}

/// Which gateway a test runs against: the hostile-client, robustness and lifecycle tests run
/// against both `cellbase thrift` (Thrift1 `Hbase`) and `cellbase thrift2` (`THBaseService`),
/// which share one server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gw {
    /// `cellbase thrift`.
    Thrift1,
    /// `cellbase thrift2`.
    Thrift2,
}

/// Both gateways.
pub const GATEWAYS: [Gw; 2] = [Gw::Thrift1, Gw::Thrift2];

/// A Thrift2 `TTableName` in the default namespace.
pub fn ttable_name(name: &str) -> Value {
    Value::Struct(vec![(1, b("default")), (2, b(name))])
}

/// A Thrift2 `TColumnValue {family, qualifier, value}`.
pub fn tcolumn_value(family: &str, qualifier: &str, value: &[u8]) -> Value {
    Value::Struct(vec![(1, b(family)), (2, b(qualifier)), (3, b(value))])
}

/// A Thrift2 `TPut {row, columnValues}`.
pub fn tput(row: &[u8], cells: Vec<Value>) -> Value {
    use cellbase_cli::thrift::protocol::T_STRUCT;
    Value::Struct(vec![(1, b(row)), (2, Value::List(T_STRUCT, cells))])
}

/// A Thrift2 cell: (family, qualifier, value, timestamp).
pub type T2Cell = (Vec<u8>, Vec<u8>, Vec<u8>, i64);

/// The cells of a Thrift2 `TResult`.
pub fn tresult_cells(v: &Value) -> Vec<T2Cell> {
    let Value::Struct(f) = v else {
        panic!("not a TResult: {v:?}")
    };
    let Some((_, Value::List(_, items))) = f.iter().find(|(i, _)| *i == 2) else {
        panic!("TResult without columnValues: {v:?}")
    };
    items
        .iter()
        .map(|c| {
            let Value::Struct(cf) = c else { panic!() };
            let bin = |id| match cf.iter().find(|(i, _)| *i == id) {
                Some((_, Value::Binary(x))) => x.clone(),
                other => panic!("TColumnValue field {id}: {other:?}"),
            };
            let ts = match cf.iter().find(|(i, _)| *i == 4) {
                Some((_, Value::I64(t))) => *t,
                other => panic!("TColumnValue timestamp: {other:?}"),
            };
            (bin(1), bin(2), bin(3), ts)
        })
        .collect()
}

impl Gw {
    /// The subcommand.
    pub fn subcommand(self) -> &'static str {
        match self {
            Gw::Thrift1 => "thrift",
            Gw::Thrift2 => "thrift2",
        }
    }

    /// Starts this gateway on port 0 over `dir` with extra arguments.
    pub fn start_with(self, dir: &Path, extra: &[&str]) -> Server {
        gateway_process::spawn(self.subcommand(), dir, extra)
    }

    /// Starts this gateway on port 0 over `dir`.
    pub fn start(self, dir: &Path) -> Server {
        self.start_with(dir, &[])
    }

    /// A cheap call answered with a list: `getTableNames` / `listNamespaces`.
    pub fn list_call(self) -> (&'static str, Vec<(i16, Value)>) {
        match self {
            Gw::Thrift1 => ("getTableNames", vec![]),
            Gw::Thrift2 => ("listNamespaces", vec![]),
        }
    }

    /// A call that fetches several rows of `table` in one reply: `getRows` / `getMultiple`.
    pub fn get_rows_call(self, table: &str, rows: &[&str]) -> (&'static str, Vec<(i16, Value)>) {
        use cellbase_cli::thrift::protocol::{T_STRING, T_STRUCT};
        match self {
            Gw::Thrift1 => (
                "getRows",
                vec![
                    (1, b(table)),
                    (2, Value::List(T_STRING, rows.iter().map(b).collect())),
                ],
            ),
            Gw::Thrift2 => (
                "getMultiple",
                vec![
                    (1, b(table)),
                    (
                        2,
                        Value::List(
                            T_STRUCT,
                            rows.iter()
                                .map(|r| Value::Struct(vec![(1, b(r))]))
                                .collect(),
                        ),
                    ),
                ],
            ),
        }
    }

    /// Creates `table` with one family `family` keeping one version.
    pub fn create_table(self, c: &mut Client, table: &str, family: &str) {
        use cellbase_cli::thrift::protocol::T_STRUCT;
        match self {
            Gw::Thrift1 => create_table(c, table, &[(family, 1)]).void(),
            Gw::Thrift2 => {
                let cf = Value::Struct(vec![(1, b(family)), (10, Value::I32(1))]);
                let desc = Value::Struct(vec![
                    (1, ttable_name(table)),
                    (2, Value::List(T_STRUCT, vec![cf])),
                ]);
                c.call("createTable", vec![(1, desc)]).void();
            }
        }
    }

    /// The call that writes `value` at `family:qualifier` of `row`.
    pub fn put_call(
        self,
        table: &str,
        row: &[u8],
        family: &str,
        qualifier: &str,
        value: &[u8],
    ) -> (&'static str, Vec<(i16, Value)>) {
        use cellbase_cli::thrift::protocol::T_STRUCT;
        match self {
            Gw::Thrift1 => (
                "mutateRow",
                vec![
                    (1, b(table)),
                    (2, b(row)),
                    (
                        3,
                        Value::List(
                            T_STRUCT,
                            vec![mutation(&format!("{family}:{qualifier}"), Some(value))],
                        ),
                    ),
                ],
            ),
            Gw::Thrift2 => (
                "put",
                vec![
                    (1, b(table)),
                    (2, tput(row, vec![tcolumn_value(family, qualifier, value)])),
                ],
            ),
        }
    }

    /// Writes `value` at `family:qualifier` of `row`.
    pub fn put(self, c: &mut Client, table: &str, row: &[u8], family: &str, q: &str, value: &[u8]) {
        let (m, args) = self.put_call(table, row, family, q, value);
        c.call(m, args).void();
    }

    /// The cells of one row: `getRow` / `get`.
    pub fn row_cells(self, c: &mut Client, table: &str, row: &str) -> usize {
        match self {
            Gw::Thrift1 => {
                let r = c.call("getRow", vec![(1, b(table)), (2, b(row))]);
                rows(r.success()).iter().map(|(_, cells)| cells.len()).sum()
            }
            Gw::Thrift2 => {
                let tget = Value::Struct(vec![(1, b(row))]);
                let r = c.call("get", vec![(1, b(table)), (2, tget)]);
                tresult_cells(r.success()).len()
            }
        }
    }

    /// Opens a scanner over `table` (a whole-table scan, with `filter` as its filter string):
    /// `scannerOpenWithScan` / `openScanner`.
    pub fn open_scanner(self, c: &mut Client, table: &str, filter: Option<&str>) -> Reply {
        match self {
            Gw::Thrift1 => {
                let mut scan = Vec::new();
                if let Some(f) = filter {
                    scan.push((6, b(f)));
                }
                c.call(
                    "scannerOpenWithScan",
                    vec![(1, b(table)), (2, Value::Struct(scan))],
                )
            }
            Gw::Thrift2 => {
                let mut scan = Vec::new();
                if let Some(f) = filter {
                    scan.push((7, b(f)));
                }
                c.call("openScanner", vec![(1, b(table)), (2, Value::Struct(scan))])
            }
        }
    }

    /// Up to `n` rows of scanner `id`: `scannerGetList` / `getScannerRows`; returns how many.
    pub fn scanner_rows(self, c: &mut Client, id: Value, n: i32) -> usize {
        let m = match self {
            Gw::Thrift1 => "scannerGetList",
            Gw::Thrift2 => "getScannerRows",
        };
        let r = c.call(m, vec![(1, id), (2, Value::I32(n))]);
        let Value::List(_, items) = r.success() else {
            panic!("{m}: not a list")
        };
        items.len()
    }
}

// ---- Thrift2 (`THBaseService`) helpers ----

use cellbase_cli::thrift::protocol::{T_STRING as T2_STRING, T_STRUCT as T2_STRUCT};

/// A Thrift2 server and a buffered binary client.
pub fn start2() -> (tempfile::TempDir, Server, Client) {
    let dir = tempfile::tempdir().unwrap();
    let server = Gw::Thrift2.start(dir.path());
    let c = Client::binary(server.port);
    (dir, server, c)
}

pub fn st(fields: Vec<(i16, Value)>) -> Value {
    Value::Struct(fields)
}

pub fn list(items: Vec<Value>) -> Value {
    Value::List(T2_STRUCT, items)
}

/// `createTable` of `name` with families (name, maxVersions) and split keys.
pub fn create(c: &mut Client, name: &str, families: &[(&str, i32)], splits: &[&str]) {
    let cols = families
        .iter()
        .map(|(f, v)| st(vec![(1, b(f)), (10, Value::I32(*v))]))
        .collect();
    let desc = st(vec![(1, ttable_name(name)), (2, list(cols))]);
    let keys = Value::List(T2_STRING, splits.iter().map(b).collect());
    c.call("createTable", vec![(1, desc), (2, keys)]).void();
}

/// `TColumnValue` with a timestamp.
pub fn cv_at(f: &str, q: &str, v: &str, ts: i64) -> Value {
    st(vec![(1, b(f)), (2, b(q)), (3, b(v)), (4, Value::I64(ts))])
}

/// `TColumn {family, qualifier?, timestamp?}`.
pub fn col(f: &str, q: Option<&str>, ts: Option<i64>) -> Value {
    let mut v = vec![(1, b(f))];
    if let Some(q) = q {
        v.push((2, b(q)));
    }
    if let Some(ts) = ts {
        v.push((3, Value::I64(ts)));
    }
    st(v)
}

pub fn get(c: &mut Client, table: &str, tget: Vec<(i16, Value)>) -> Value {
    c.call("get", vec![(1, b(table)), (2, st(tget))])
        .success()
        .clone()
}

/// (qualifier, value, ts) of a TResult's cells.
pub fn qvt(r: &Value) -> Vec<(String, String, i64)> {
    tresult_cells(r)
        .into_iter()
        .map(|(_, q, v, ts)| {
            (
                String::from_utf8(q).unwrap(),
                String::from_utf8(v).unwrap(),
                ts,
            )
        })
        .collect()
}

pub fn field(v: &Value, id: i16) -> Option<&Value> {
    let Value::Struct(f) = v else {
        panic!("not a struct: {v:?}")
    };
    f.iter().find(|(i, _)| *i == id).map(|(_, v)| v)
}

pub fn put(c: &mut Client, table: &str, tput: Value) {
    c.call("put", vec![(1, b(table)), (2, tput)]).void();
}
