//! The `Hbase` service's state shared by every connection (the database, the scanner registry,
//! the region server name it reports) and the argument checks its handlers share. The handlers
//! live by concept in admin.rs, reads.rs, writes.rs and scans.rs, with HBase's Thrift1
//! semantics (thrift-gateway.md §1.5); dispatch.rs routes calls to them.
use super::call::Fail;
use super::scanners::ScannerRegistry;
use cellbase::{Db, Table};
use std::time::Duration;

/// The service state shared by every connection.
#[derive(Debug)]
pub struct Service {
    pub(super) db: Db,
    pub(super) scanners: ScannerRegistry,
    pub(super) server_name: Vec<u8>,
    pub(super) port: i32,
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

    /// The table named `name`; a name that is not UTF-8 names no table.
    pub(super) fn table(&self, name: &[u8]) -> Result<Table, Fail> {
        named_table(&self.db, name)
    }

    /// The table a `tableName` argument names.
    pub(super) fn table_arg(&self, table_name: Option<&[u8]>) -> Result<Table, Fail> {
        self.table(need(table_name, "tableName")?)
    }
}

pub(crate) fn utf8(b: &[u8]) -> Option<&str> {
    std::str::from_utf8(b).ok()
}

/// A required argument: `IllegalArgument` ("missing argument WHAT") when absent.
pub(super) fn need<T>(arg: Option<T>, what: &str) -> Result<T, Fail> {
    arg.ok_or_else(|| Fail::Illegal(format!("missing argument {what}")))
}

/// The table `name` names in `db` (both gateways); a name that is not UTF-8 names no table.
pub fn named_table(db: &cellbase::Db, name: &[u8]) -> Result<Table, Fail> {
    let n = utf8(name).ok_or_else(|| {
        Fail::Io(format!(
            "table {} does not exist",
            String::from_utf8_lossy(name)
        ))
    })?;
    Ok(db.table(n)?)
}
