//! A remote scan: `openScanner`, then `getScannerRows` for `scanner_caching` rows at a time
//! until the server returns none, then `closeScanner`. The scanner uses one connection of the
//! pool's for its whole life (HBase's Thrift2 server keeps scanners per server, cellbase's
//! per connection), and closes the server's scanner when it ends or is dropped.

use crate::api::remote::client::{Client, Conn};
use crate::api::remote::decode;
use crate::base::error::{Error, Result};
use crate::model::cell::RowResult;
use cellbase_thrift::protocol::Value;
use std::collections::VecDeque;
use std::sync::Arc;

/// An open remote scan.
#[derive(Debug)]
pub(crate) struct RemoteScanner {
    client: Arc<Client>,
    conn: Option<Conn>,
    id: Option<i32>,
    rows: u32,
    buffered: VecDeque<RowResult>,
    done: bool,
    /// A reversed prefix scan's prefix: rows above it are skipped, the first row below it
    /// ends the scan.
    prefix: Option<Vec<u8>>,
}

impl RemoteScanner {
    /// Opens a scanner on `table` for the `TScan` `tscan`, fetching `rows` rows per round
    /// trip; `prefix` for a reversed prefix scan (see `RemoteTable::scan`).
    pub(crate) fn open(
        client: Arc<Client>,
        table: &str,
        tscan: Value,
        rows: u32,
        prefix: Option<Vec<u8>>,
    ) -> Result<Self> {
        let mut conn = client.open_conn()?;
        let id = client.call_on(
            &mut conn,
            "openScanner",
            vec![(1, Value::Binary(table.as_bytes().to_vec())), (2, tscan)],
        )?;
        let id = match id {
            Some(Value::I32(id)) => id,
            _ => {
                return Err(Error::Remote(
                    "openScanner: reply without a scanner id".into(),
                ));
            }
        };
        Ok(RemoteScanner {
            client,
            conn: Some(conn),
            id: Some(id),
            rows,
            buffered: VecDeque::new(),
            done: false,
            prefix,
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
        )?;
        let rows = match reply {
            Some(v) => decode::results(&v)?,
            None => Vec::new(),
        };
        if rows.is_empty() {
            self.close();
        }
        self.buffered.extend(rows);
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

impl Iterator for RemoteScanner {
    type Item = Result<RowResult>;
    fn next(&mut self) -> Option<Result<RowResult>> {
        loop {
            if let Some(r) = self.buffered.pop_front() {
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
