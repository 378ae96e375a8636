//! [`RemoteOptions`]: how a remote database connects, waits and retries.

use std::time::Duration;

/// The Thrift transport a remote database speaks (HBase's `hbase thrift2` server: buffered by
/// default, framed with `-framed` or the nonblocking/hsha/threadedselector servers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RemoteTransport {
    /// Messages back to back (HBase's default).
    #[default]
    Buffered,
    /// Each message preceded by its length.
    Framed,
}

/// The Thrift protocol a remote database speaks (`hbase thrift2 -compact` for compact).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RemoteProtocol {
    /// TBinaryProtocol (HBase's default).
    #[default]
    Binary,
    /// TCompactProtocol.
    Compact,
}

/// Settings of [`Db::connect_with`](crate::Db::connect_with). Every bound has a default:
/// 8 connections, 5 s to connect, 60 s per request, 3 retries of idempotent calls starting at
/// 100 ms, 100 rows per scanner round trip, 64 MiB per reply.
///
/// # Examples
/// ```
/// use cellbase::RemoteOptions;
/// use std::time::Duration;
/// let o = RemoteOptions::default()
///     .pool_size(4)
///     .request_timeout(Duration::from_secs(10))
///     .scanner_caching(500);
/// assert_eq!(o.pool_size, 4);
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RemoteOptions {
    /// Connections open at once (calls beyond it wait up to `request_timeout` for one);
    /// idle ones are kept for reuse. A scanner holds one connection of its own while open.
    pub pool_size: usize,
    /// How long to wait for a TCP connection.
    pub connect_timeout: Duration,
    /// How long to wait for each request to be sent and its reply to arrive.
    pub request_timeout: Duration,
    /// Retries of a call that failed on its connection: reads (Get, exists, scans' opening,
    /// descriptors) are retried on any connection failure; writes only when the connection
    /// could not be made (a write that may have reached the server is never sent twice).
    pub retries: u32,
    /// The wait before the first retry; doubled before each next one.
    pub retry_backoff: Duration,
    /// Rows fetched per scanner round trip (HBase's `Scan.setCaching`), unless the scan sets
    /// its own limit lower.
    pub scanner_caching: u32,
    /// The largest reply accepted, in bytes: a longer one fails the call with
    /// [`Error::Io`](crate::Error::Io) before it is read into memory.
    pub max_reply_bytes: usize,
    /// The transport.
    pub transport: RemoteTransport,
    /// The protocol.
    pub protocol: RemoteProtocol,
}

impl Default for RemoteOptions {
    fn default() -> Self {
        RemoteOptions {
            pool_size: 8,
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(60),
            retries: 3,
            retry_backoff: Duration::from_millis(100),
            scanner_caching: 100,
            max_reply_bytes: 64 << 20,
            transport: RemoteTransport::Buffered,
            protocol: RemoteProtocol::Binary,
        }
    }
}

impl RemoteOptions {
    /// Sets [`RemoteOptions::pool_size`] (at least 1).
    pub fn pool_size(mut self, n: usize) -> Self {
        self.pool_size = n.max(1);
        self
    }
    /// Sets [`RemoteOptions::connect_timeout`].
    pub fn connect_timeout(mut self, d: Duration) -> Self {
        self.connect_timeout = d;
        self
    }
    /// Sets [`RemoteOptions::request_timeout`].
    pub fn request_timeout(mut self, d: Duration) -> Self {
        self.request_timeout = d;
        self
    }
    /// Sets [`RemoteOptions::retries`] and [`RemoteOptions::retry_backoff`].
    pub fn retries(mut self, n: u32, backoff: Duration) -> Self {
        self.retries = n;
        self.retry_backoff = backoff;
        self
    }
    /// Sets [`RemoteOptions::scanner_caching`] (at least 1).
    pub fn scanner_caching(mut self, rows: u32) -> Self {
        self.scanner_caching = rows.max(1);
        self
    }
    /// Sets [`RemoteOptions::max_reply_bytes`].
    pub fn max_reply_bytes(mut self, bytes: usize) -> Self {
        self.max_reply_bytes = bytes;
        self
    }
    /// Sets the transport and protocol.
    pub fn wire(mut self, transport: RemoteTransport, protocol: RemoteProtocol) -> Self {
        self.transport = transport;
        self.protocol = protocol;
        self
    }
}
