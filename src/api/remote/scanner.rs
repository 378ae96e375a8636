//! A remote scan: `openScanner`, then `getScannerRows` for `scanner_caching` rows at a time
//! until the server returns none, then `closeScanner`. The scanner takes one connection (an
//! idle one of the pool's, else a new one) for its whole life (HBase's Thrift2 server keeps scanners per server, cellbase's per
//! connection), and closes the server's scanner when it ends or is dropped.
//!
//! When the connection fails midway, a scan without a filter or a batch size resumes, as
//! HBase's client scanner does after a region server failure: a new scanner opens on a new
//! connection at the last row handed out (that row itself is dropped when it comes again),
//! up to [`RemoteOptions::retries`](crate::RemoteOptions::retries) times. A filter may keep
//! state across rows (`PageFilter`) and a batch splits rows, so those scans fail instead.

use crate::api::remote::client::{Client, Conn};
use crate::api::remote::decode;
use crate::base::error::{Error, Result};
use crate::model::cell::RowResult;
use cellbase_thrift::protocol::Value;
use std::collections::VecDeque;
use std::sync::Arc;

/// How a scan may resume after its connection failed.
#[derive(Debug, Clone)]
pub(crate) struct Resume {
    /// False for scans with a filter or a batch size: they never resume.
    pub(crate) allowed: bool,
    /// Rows the server may still return (`TScan.limit`), when limited.
    pub(crate) limit: Option<u64>,
}

/// An open remote scan.
#[derive(Debug)]
pub(crate) struct RemoteScanner {
    client: Arc<Client>,
    table: String,
    /// The `TScan`'s fields, to open it again when resuming.
    tscan: Vec<(i16, Value)>,
    conn: Option<Conn>,
    id: Option<i32>,
    rows: u32,
    buffered: VecDeque<RowResult>,
    done: bool,
    /// A reversed prefix scan's prefix: rows above it are skipped, the first row below it
    /// ends the scan.
    prefix: Option<Vec<u8>>,
    resume: Resume,
    retries_left: u32,
    /// The last row received from the server.
    last: Option<Vec<u8>>,
    /// After a resume: the row to drop if the new scanner returns it first.
    skip: Option<Vec<u8>>,
}

/// Opens a scanner for `tscan` on `conn`.
fn open_on_server(
    client: &Client,
    mut conn: Conn,
    table: &str,
    tscan: &[(i16, Value)],
) -> Result<(Conn, i32)> {
    let id = client.call_on(
        &mut conn,
        "openScanner",
        vec![
            (1, Value::Binary(table.as_bytes().to_vec())),
            (2, Value::Struct(tscan.to_vec())),
        ],
    )?;
    match id {
        Some(Value::I32(id)) => Ok((conn, id)),
        _ => Err(Error::Remote(
            "openScanner: reply without a scanner id".into(),
        )),
    }
}

impl RemoteScanner {
    /// Opens a scanner on `table` for the `TScan` `tscan`, fetching `rows` rows per round
    /// trip; `prefix` for a reversed prefix scan (see `RemoteTable::scan`). Opening is retried
    /// like any read.
    pub(crate) fn open(
        client: Arc<Client>,
        table: &str,
        tscan: Value,
        rows: u32,
        prefix: Option<Vec<u8>>,
        resume: Resume,
    ) -> Result<Self> {
        let Value::Struct(tscan) = tscan else {
            return Err(Error::invalid("a TScan is a struct"));
        };
        let mut retries_left = client.options().retries;
        let mut backoff = client.options().retry_backoff;
        let (conn, id) = loop {
            match client
                .idle_or_open()
                .and_then(|c| open_on_server(&client, c, table, &tscan))
            {
                Err(Error::Io(_)) if retries_left > 0 => {
                    retries_left -= 1;
                    std::thread::sleep(backoff);
                    backoff = backoff.saturating_mul(2);
                }
                r => break r?,
            }
        };
        Ok(RemoteScanner {
            client,
            table: table.to_string(),
            tscan,
            conn: Some(conn),
            id: Some(id),
            rows,
            buffered: VecDeque::new(),
            done: false,
            prefix,
            resume,
            retries_left,
            last: None,
            skip: None,
        })
    }

    fn fetch(&mut self) -> Result<()> {
        let (Some(conn), Some(id)) = (self.conn.as_mut(), self.id) else {
            self.done = true;
            return Ok(());
        };
        let reply = self.client.call_on(
            conn,
            "getScannerRows",
            vec![
                (1, Value::I32(id)),
                (2, Value::I32(i32::try_from(self.rows).unwrap_or(i32::MAX))),
            ],
        );
        let reply = match reply {
            Err(Error::Io(e)) if self.resume.allowed && self.retries_left > 0 => {
                log::debug!(target: "cellbase::remote", "scan of {}: {e}; resuming", self.table);
                return self.reopen();
            }
            r => r?,
        };
        let rows = match reply {
            Some(v) => decode::results(&v)?,
            None => Vec::new(),
        };
        if rows.is_empty() {
            self.close();
        }
        if let Some(r) = rows.last() {
            self.last = Some(r.row().to_vec());
        }
        if let Some(l) = self.resume.limit.as_mut() {
            *l = l.saturating_sub(rows.len() as u64);
        }
        self.buffered.extend(rows);
        Ok(())
    }

    /// A new scanner on a new connection, from the last row received (dropped if it comes
    /// again), with what is left of the limit.
    fn reopen(&mut self) -> Result<()> {
        self.retries_left -= 1;
        self.conn = None;
        self.id = None;
        std::thread::sleep(self.client.options().retry_backoff);
        if let Some(last) = &self.last {
            set_field(&mut self.tscan, 1, Value::Binary(last.clone()));
            if let Some(l) = self.resume.limit {
                let l = i32::try_from(l.saturating_add(1)).unwrap_or(i32::MAX);
                set_field(&mut self.tscan, 15, Value::I32(l));
            }
            self.skip = Some(last.clone());
        }
        // A new connection: the pool's idle ones may have failed with the one that just did.
        let conn = self.client.open_conn()?;
        let (conn, id) = open_on_server(&self.client, conn, &self.table, &self.tscan)?;
        self.conn = Some(conn);
        self.id = Some(id);
        Ok(())
    }

    /// Closes the server's scanner and returns the connection to the pool.
    fn close(&mut self) {
        self.done = true;
        if let (Some(mut conn), Some(id)) = (self.conn.take(), self.id.take())
            && self
                .client
                .call_on(&mut conn, "closeScanner", vec![(1, Value::I32(id))])
                .is_ok()
        {
            self.client.give_back(conn);
        }
    }
}

/// Sets (or replaces) field `id` of a struct.
fn set_field(s: &mut Vec<(i16, Value)>, id: i16, v: Value) {
    match s.iter_mut().find(|(i, _)| *i == id) {
        Some(slot) => slot.1 = v,
        None => s.push((id, v)),
    }
}

impl Iterator for RemoteScanner {
    type Item = Result<RowResult>;
    fn next(&mut self) -> Option<Result<RowResult>> {
        loop {
            if let Some(r) = self.buffered.pop_front() {
                if let Some(skip) = self.skip.take()
                    && r.row() == skip.as_slice()
                {
                    continue;
                }
                match &self.prefix {
                    Some(p) if !r.row().starts_with(p) => {
                        if r.row() < p.as_slice() {
                            self.buffered.clear();
                            self.close();
                            return None;
                        }
                        continue;
                    }
                    _ => return Some(Ok(r)),
                }
            }
            if self.done {
                return None;
            }
            if let Err(e) = self.fetch() {
                self.done = true;
                self.conn = None;
                return Some(Err(e));
            }
        }
    }
}

impl Drop for RemoteScanner {
    fn drop(&mut self) {
        self.close();
    }
}
