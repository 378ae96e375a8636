//! `cellbase thrift`: an HBase Thrift1 `Hbase` service gateway, so that happybase and other
//! Thrift1 clients work against a cellbase directory unchanged.
//!
//! One port serves the buffered and framed transports and the binary and compact protocols,
//! detected per connection. The codec is hand-written (thrift-gateway.md §3.6): generated
//! servers reject happybase's omitted optional arguments.
use clap::Args;
use std::net::TcpListener;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

pub mod protocol;
pub mod server;
pub mod service;
pub mod transport;
pub mod types;

/// Arguments of `cellbase thrift`.
#[derive(Debug, Args)]
pub struct ThriftArgs {
    /// Database directory (created if missing).
    #[arg(long, default_value = "cellbase-data")]
    pub db: std::path::PathBuf,
    /// Address to bind (loopback unless told otherwise).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: String,
    /// TCP port (0 picks a free one; the first stdout line says which).
    #[arg(long, default_value_t = 9090)]
    pub port: u16,
    /// Maximum message / frame size in MiB.
    #[arg(long, default_value_t = 64)]
    pub max_message_mib: usize,
    /// Seconds after which an untouched scanner is closed.
    #[arg(long, default_value_t = 600)]
    pub scanner_idle_secs: u64,
    /// Maximum open scanners across all connections.
    #[arg(long, default_value_t = 10_000)]
    pub max_scanners: usize,
    /// Maximum simultaneous connections.
    #[arg(long, default_value_t = 1024)]
    pub max_connections: usize,
    /// Close connections idle (or stalled mid-message) for this many seconds; 0 = never
    /// (happybase keeps connections open between calls).
    #[arg(long, default_value_t = 0)]
    pub idle_timeout_secs: u64,
}

/// Runs `cellbase thrift`: opens the database, binds, prints `listening on ADDR` and serves.
pub fn run(args: ThriftArgs) -> ExitCode {
    let db = match cellbase::Db::open(&args.db) {
        Ok(db) => db,
        Err(e) => return crate::fail(format!("cannot open {}: {e}", args.db.display())),
    };
    let listener = match TcpListener::bind((args.bind.as_str(), args.port)) {
        Ok(l) => l,
        Err(e) => return crate::fail(format!("cannot bind {}:{}: {e}", args.bind, args.port)),
    };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => return crate::fail(format!("cannot read the bound address: {e}")),
    };
    let service = Arc::new(service::Service::new(
        db,
        Duration::from_secs(args.scanner_idle_secs),
        args.max_scanners,
        addr.port(),
    ));
    server::announce(addr);
    let cfg = server::Config {
        max_message: args.max_message_mib.saturating_mul(1 << 20).max(1024),
        max_connections: args.max_connections.max(1),
        idle_timeout: (args.idle_timeout_secs > 0)
            .then(|| Duration::from_secs(args.idle_timeout_secs)),
    };
    match server::serve(listener, service, cfg) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => crate::fail(format!("thrift server failed: {e}")),
    }
}
