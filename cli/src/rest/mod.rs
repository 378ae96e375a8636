//! `cellbase rest`: HBase's REST gateway ("Stargate", the `hbase-rest` module of HBase 2.6),
//! so curl, hbase-rest-py, starbase and any HTTP client work against a cellbase directory.
//!
//! Resources and bodies follow HBase's `*Resource` and `*Model` classes (docs/REST.md lists
//! what is served and where it differs); the HTTP server (http.rs) bounds connections,
//! header and body sizes, memory and per-request time like the Thrift1 gateway does.
use clap::Args;
use std::net::TcpListener;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

mod check;
mod cluster;
pub mod filter;
pub mod http;
pub mod model;
pub mod rows;
mod scanner;
pub(crate) mod schema;
pub mod service;

pub use scanner::Scanners;

/// Arguments of `cellbase rest`. Every limit must be at least 1; docs/REST.md lists them.
#[derive(Debug, Args)]
pub struct RestArgs {
    /// Database directory (created if missing).
    #[arg(long, default_value = "cellbase-data")]
    pub db: std::path::PathBuf,
    /// Address to bind (loopback unless told otherwise).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: String,
    /// TCP port (0 picks a free one; the first stdout line says which). HBase's default is 8080.
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Maximum request body in MiB (larger: 413).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=2047))]
    pub max_body_mib: u64,
    /// Maximum bytes of the request line plus headers, in KiB (larger: 431).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub max_header_kib: u64,
    /// Maximum reply body in MiB: scanners return fewer cells, other reads answer 503.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=2047))]
    pub max_reply_mib: u64,
    /// Maximum MiB of request bodies held at once across all connections (at least
    /// --max-body-mib; beyond: 503).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_request_memory_mib: u64,
    /// Maximum MiB of replies being sent at once across all connections (at least
    /// --max-reply-mib; beyond: 503).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_reply_memory_mib: u64,
    /// Seconds after which an untouched scanner is closed.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    pub scanner_idle_secs: u64,
    /// Maximum open scanners.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_scanners: u64,
    /// Maximum open scanners opened from one client IP address.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_scanners_per_client: u64,
    /// Maximum simultaneous connections (more are answered 503 and closed).
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_connections: u64,
    /// Maximum simultaneous connections from one client IP address.
    #[arg(long, default_value_t = 128, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_connections_per_client: u64,
    /// A request must arrive whole within this many seconds of its first byte (and its reply
    /// be taken within it), else the connection is closed.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub request_deadline_secs: u64,
    /// Close a keep-alive connection that sends nothing for this many seconds.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_timeout_secs: u64,
}

/// Runs `cellbase rest`: opens the database, binds, prints `listening on ADDR` and serves.
pub fn run(args: RestArgs) -> ExitCode {
    let bounds = crate::at_least(
        "max-request-memory-mib",
        args.max_request_memory_mib,
        "max-body-mib",
        args.max_body_mib,
    )
    .and_then(|()| {
        crate::at_least(
            "max-reply-memory-mib",
            args.max_reply_memory_mib,
            "max-reply-mib",
            args.max_reply_mib,
        )
    });
    if let Err(code) = bounds {
        return code;
    }
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
    let mib = |n: u64| crate::to_usize(n.saturating_mul(1 << 20));
    let started_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let rest = Arc::new(service::Rest {
        db,
        scanners: Scanners::new(
            Duration::from_secs(args.scanner_idle_secs),
            crate::to_usize(args.max_scanners),
            crate::to_usize(args.max_scanners_per_client),
        ),
        max_reply: mib(args.max_reply_mib),
        location: format!("localhost:{}", addr.port()),
        started_ms,
    });
    if let Err(e) = crate::thrift::server::announce(addr) {
        return crate::output::write_error_exit(&e);
    }
    let limits = http::Limits {
        max_header: crate::to_usize(args.max_header_kib.saturating_mul(1024)),
        max_body: mib(args.max_body_mib),
        max_request_memory: mib(args.max_request_memory_mib),
        max_reply_memory: mib(args.max_reply_memory_mib),
        max_connections: crate::to_usize(args.max_connections),
        max_connections_per_client: crate::to_usize(args.max_connections_per_client),
        request_deadline: Duration::from_secs(args.request_deadline_secs),
        idle_timeout: Duration::from_secs(args.idle_timeout_secs),
    };
    crate::stderr_line!(
        "cellbase rest {}: database {}, listening on http://{addr}/; limits: body {} MiB, \
         headers {} KiB, reply {} MiB, request memory {} MiB, reply memory {} MiB, {} connections ({} per client), \
         {} scanners ({} per client), request deadline {} s, idle timeout {} s",
        env!("CARGO_PKG_VERSION"),
        args.db.display(),
        args.max_body_mib,
        args.max_header_kib,
        args.max_reply_mib,
        args.max_request_memory_mib,
        args.max_reply_memory_mib,
        args.max_connections,
        args.max_connections_per_client,
        args.max_scanners,
        args.max_scanners_per_client,
        args.request_deadline_secs,
        args.idle_timeout_secs,
    );
    let stop = Arc::new(crate::thrift::server::Stop::default());
    if let Err(e) = watch_signals(&stop, addr) {
        return crate::fail(format!("cannot watch for SIGTERM/SIGINT: {e}"));
    }
    {
        // Expire idle scanners even when nobody opens new ones; a weak handle, so the stop
        // can take the service back and close the database.
        let weak = Arc::downgrade(&rest);
        let spawned = std::thread::Builder::new()
            .name("rest-scanner-reaper".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(Duration::from_secs(5));
                    let Some(rest) = weak.upgrade() else {
                        return;
                    };
                    rest.scanners.expire(std::time::Instant::now());
                }
            });
        if let Err(e) = spawned {
            return crate::fail(format!("cannot start the scanner reaper: {e}"));
        }
    }
    let handler: Arc<dyn http::Handler> = rest.clone();
    let busy = match http::serve_until(listener, handler, limits, &stop) {
        Ok(busy) => busy,
        Err(e) => return crate::fail(format!("rest server failed: {e}")),
    };
    // Scanners hold table handles: close them before the database.
    let rest = match Arc::try_unwrap(rest) {
        Ok(r) => r,
        Err(_) => {
            return crate::fail(format!(
                "{busy} connections still busy after {} s; exiting without a clean close (the \
                 log holds every acknowledged write)",
                http::STOP_GRACE.as_secs()
            ));
        }
    };
    let service::Rest { db, scanners, .. } = rest;
    drop(scanners);
    match db.close() {
        Ok(()) => {
            crate::stderr_line!("rest: stopped; database closed cleanly");
            ExitCode::SUCCESS
        }
        Err(e) => crate::fail(format!("closing the database failed: {e}")),
    }
}

/// Turns SIGTERM and SIGINT into the gateway's stop (as `cellbase thrift` does).
#[cfg(unix)]
fn watch_signals(
    stop: &Arc<crate::thrift::server::Stop>,
    addr: std::net::SocketAddr,
) -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT])?;
    let stop = stop.clone();
    std::thread::Builder::new()
        .name("rest-signals".into())
        .spawn(move || {
            if signals.forever().next().is_some() {
                crate::stderr_line!("rest: stopping (no new connections)");
                stop.begin();
                let wake = if addr.ip().is_unspecified() {
                    std::net::SocketAddr::from(([127, 0, 0, 1], addr.port()))
                } else {
                    addr
                };
                let _ = std::net::TcpStream::connect_timeout(&wake, Duration::from_secs(5));
            }
        })?;
    Ok(())
}

/// Without Unix signals the gateway stops only when killed.
#[cfg(not(unix))]
fn watch_signals(
    _stop: &Arc<crate::thrift::server::Stop>,
    _addr: std::net::SocketAddr,
) -> std::io::Result<()> {
    Ok(())
}
