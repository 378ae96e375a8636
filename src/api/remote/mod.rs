//! The remote backend: a [`Db`](crate::Db) whose calls go to an HBase Thrift2 server
//! (`THBaseService` of HBase 2.6's `hbase.thrift`; `hbase thrift2` on a cluster, or
//! `cellbase thrift2`). docs/REMOTE.md lists every call, how it maps, and what is
//! [`Error::Unsupported`].
//!
//! * `client.rs`: the connection pool, timeouts and retries;
//! * `encode.rs` / `decode.rs`: requests to Thrift2 structs and replies back;
//! * `scanner.rs`: scans in batches of `scanner_caching` rows;
//! * `table.rs`: [`RemoteDb`] and [`RemoteTable`], the remote side of `Db` and `Table`;
//! * `errors.rs`: server errors back to typed errors.

mod client;
mod decode;
mod encode;
mod errors;
mod options;
pub(crate) mod scanner;
mod table;

pub use options::{RemoteOptions, RemoteProtocol, RemoteTransport};
pub(crate) use scanner::RemoteScanner;
pub(crate) use table::{RemoteDb, RemoteTable};
