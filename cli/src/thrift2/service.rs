//! The `THBaseService` state shared by every connection (the database, the scanner registry,
//! the server name it reports in region locations) and the name lookups its handlers share.
use crate::thrift::call::{CallCtx, Fail};
use crate::thrift::dispatch::Dispatch;
use crate::thrift::protocol::Value;
use crate::thrift::scanners::ScannerRegistry;
use crate::thrift::server::Gateway;
use crate::thrift::service::utf8;
use cellbase::{Db, Table};
use std::time::Duration;

use super::types::TTableName;

/// The Thrift2 service state shared by every connection.
#[derive(Debug)]
pub struct Thrift2Service {
    pub(super) db: Db,
    pub(super) scanners: ScannerRegistry,
    /// `TServerName.hostName` of every region location (the bind host).
    pub(super) host: String,
    /// `TServerName.port`.
    pub(super) port: i32,
    /// `TServerName.startCode`: the service's start, in epoch milliseconds.
    pub(super) start_code: i64,
}

impl Thrift2Service {
    /// A service over `db` with scanners idle for longer than `scanner_idle` expiring, at most
    /// `max_scanners` open in all and `max_scanners_per_connection` per connection, reporting
    /// `host:port` as the server of every region.
    pub fn new(
        db: Db,
        scanner_idle: Duration,
        max_scanners: usize,
        max_scanners_per_connection: usize,
        host: &str,
        port: u16,
    ) -> Self {
        let start_code = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0);
        Thrift2Service {
            db,
            scanners: ScannerRegistry::new(scanner_idle, max_scanners, max_scanners_per_connection),
            host: host.to_string(),
            port: i32::from(port),
            start_code,
        }
    }

    /// The table a `table` argument (`ns:qualifier`, or `qualifier` in `default`) names.
    pub(super) fn table(&self, name: Option<&[u8]>) -> Result<Table, Fail> {
        let name = name.ok_or_else(|| Fail::Io("missing argument table".into()))?;
        crate::thrift::service::named_table(&self.db, name)
    }
}

/// The cellbase name of a `TTableName` (HBase's `TableName.valueOf(ns, qualifier)`: an absent
/// or empty namespace is `default`, whose tables cellbase names without a prefix).
pub(super) fn table_name(t: Option<&TTableName<'_>>) -> Result<String, Fail> {
    let t = t.ok_or_else(|| Fail::Io("missing argument tableName".into()))?;
    let q = utf8(t.qualifier).ok_or_else(|| Fail::Io("table name is not UTF-8".into()))?;
    match t.ns.filter(|ns| !ns.is_empty()) {
        None => Ok(q.to_string()),
        Some(ns) => {
            let ns = utf8(ns).ok_or_else(|| Fail::Io("namespace is not UTF-8".into()))?;
            Ok(if ns == cellbase::DEFAULT_NAMESPACE {
                q.to_string()
            } else {
                format!("{ns}:{q}")
            })
        }
    }
}

/// A `string` argument (UTF-8 on the wire).
pub(super) fn text<'a>(arg: Option<&'a [u8]>, what: &str) -> Result<&'a str, Fail> {
    let b = arg.ok_or_else(|| Fail::Io(format!("missing argument {what}")))?;
    utf8(b).ok_or_else(|| Fail::Io(format!("{what} is not UTF-8")))
}

impl Gateway for Thrift2Service {
    fn dispatch(&self, method: &str, args: &[(i16, Value)], ctx: &mut CallCtx) -> Dispatch {
        Thrift2Service::dispatch(self, method, args, ctx)
    }

    fn scanners(&self) -> &ScannerRegistry {
        &self.scanners
    }

    fn db(&self) -> &Db {
        &self.db
    }

    fn into_db(self) -> Db {
        self.db
    }
}
