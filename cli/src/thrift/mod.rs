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

pub use cellbase_thrift::{memory, protocol, transport};
pub(crate) mod admin;
pub mod call;
pub mod dispatch;
pub mod methods;
pub(crate) mod reads;
pub mod scanners;
mod scans;
pub mod server;
pub mod service;
pub mod types;
pub(crate) mod writes;

/// Arguments of `cellbase thrift`. Every limit must be at least 1 (0 is refused with a usage
/// error), except `--idle-timeout-secs`, where 0 means "never"; docs/THRIFT.md lists them.
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
    /// Maximum request message / frame size in MiB (1..=2047).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=2047))]
    pub max_message_mib: u64,
    /// Maximum reply size in MiB, counted while the reply is built (like HBase's
    /// hbase.server.scanner.max.result.size): scanners return fewer rows, other reads fail.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=2047))]
    pub max_reply_mib: u64,
    /// Maximum MiB of replies being built or sent at once, across all connections.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_reply_memory_mib: u64,
    /// Maximum MiB of requests being read, decoded or served at once, across all connections
    /// (at least --max-message-mib; each message's first 64 KiB are not counted).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_request_memory_mib: u64,
    /// Seconds after which an untouched scanner is closed.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    pub scanner_idle_secs: u64,
    /// Maximum open scanners across all connections.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_scanners: u64,
    /// Maximum open scanners per connection (a connection's scanners close with it).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_scanners_per_connection: u64,
    /// Maximum simultaneous connections.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_connections: u64,
    /// Maximum simultaneous connections from one client IP address.
    #[arg(long, default_value_t = 128, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_connections_per_client: u64,
    /// A request must arrive completely within this many seconds of its first byte (and a
    /// reply be taken by the client within it), else the connection is closed.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub message_deadline_secs: u64,
    /// Close connections that send nothing between calls for this many seconds; 0 = never
    /// (happybase keeps connections open between calls).
    #[arg(long, default_value_t = 0)]
    pub idle_timeout_secs: u64,
    /// Serve /metrics (Prometheus), /jmx (HBase-shaped JSON) and / (status) over HTTP on
    /// this port of the bind address (0 picks a free one; stderr says which). Off unless
    /// given (HBase's info port is 16030).
    #[arg(long)]
    pub info_port: Option<u16>,
    /// Record each region's read and write requests per interval of this many seconds
    /// (`DbOptions::traffic_recording`) and save them in the database directory's `TRAFFIC`
    /// file every interval and at a clean stop, for `cellbase lab keyviz --db DIR`. Off
    /// unless given.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub record_traffic_secs: Option<u64>,
    /// Intervals the traffic recording keeps (the oldest go first).
    #[arg(long, default_value_t = 1440, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub traffic_intervals: u64,
}

/// Runs `cellbase thrift`: opens the database, binds, prints `listening on ADDR` and serves.
pub fn run(args: ThriftArgs) -> ExitCode {
    run_gateway(args, "thrift", |db, args, addr| {
        service::Service::new(
            db,
            Duration::from_secs(args.scanner_idle_secs),
            crate::to_usize(args.max_scanners),
            crate::to_usize(args.max_scanners_per_connection),
            addr.port(),
        )
    })
}

/// Runs a Thrift gateway (`cellbase thrift` or `cellbase thrift2`, named `name` in its
/// messages): checks the flags, opens the database, binds, builds the service with `make`,
/// prints `listening on ADDR`, serves until SIGTERM or SIGINT, then closes the database.
pub(crate) fn run_gateway<S: server::Gateway>(
    args: ThriftArgs,
    name: &'static str,
    make: impl FnOnce(cellbase::Db, &ThriftArgs, std::net::SocketAddr) -> S,
) -> ExitCode {
    let bounds = crate::at_least(
        "max-reply-memory-mib",
        args.max_reply_memory_mib,
        "max-reply-mib",
        args.max_reply_mib,
    )
    .and_then(|()| {
        crate::at_least(
            "max-request-memory-mib",
            args.max_request_memory_mib,
            "max-message-mib",
            args.max_message_mib,
        )
    });
    if let Err(code) = bounds {
        return code;
    }
    let mut opts = cellbase::DbOptions::default();
    if let Some(secs) = args.record_traffic_secs {
        opts = opts.traffic_recording(
            Duration::from_secs(secs),
            crate::to_usize(args.traffic_intervals),
        );
    }
    let db = match cellbase::Db::open_with(&args.db, opts) {
        Ok(db) => db,
        Err(e) => return crate::fail(format!("cannot open {}: {e}", args.db.display())),
    };
    if let Some(secs) = args.record_traffic_secs {
        // Saved every interval, for a keyviz of the running gateway; the thread ends when the
        // database closes (the close saves the last of it).
        let db = db.clone();
        let saver = std::thread::Builder::new()
            .name("traffic-saver".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(Duration::from_secs(secs));
                    if let Err(e) = db.save_traffic() {
                        if !matches!(e, cellbase::Error::Closed) {
                            crate::stderr_line!("{name}: saving the recorded traffic failed: {e}");
                        }
                        return;
                    }
                }
            });
        if let Err(e) = saver {
            return crate::fail(format!("cannot start the traffic saver: {e}"));
        }
    }
    let listener = match TcpListener::bind((args.bind.as_str(), args.port)) {
        Ok(l) => l,
        Err(e) => return crate::fail(format!("cannot bind {}:{}: {e}", args.bind, args.port)),
    };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => return crate::fail(format!("cannot read the bound address: {e}")),
    };
    let service = Arc::new(make(db, &args, addr));
    if let Err(e) = server::announce(addr) {
        return crate::output::write_error_exit(&e);
    }
    let mib = |n: u64| crate::to_usize(n.saturating_mul(1 << 20));
    let cfg = server::Config {
        max_message: mib(args.max_message_mib),
        max_connections: crate::to_usize(args.max_connections),
        max_connections_per_client: crate::to_usize(args.max_connections_per_client),
        idle_timeout: (args.idle_timeout_secs > 0)
            .then(|| Duration::from_secs(args.idle_timeout_secs)),
        message_deadline: Duration::from_secs(args.message_deadline_secs),
        max_reply: mib(args.max_reply_mib),
        max_reply_memory: mib(args.max_reply_memory_mib),
        max_request_memory: mib(args.max_request_memory_mib),
    };
    crate::stderr_line!(
        "cellbase {name} {}: database {}, listening on {addr} (buffered or framed, binary or \
         compact); limits: message {} MiB, reply {} MiB, request memory {} MiB, reply memory {} \
         MiB, {} connections ({} per client), {} scanners ({} per connection), message deadline \
         {} s",
        env!("CARGO_PKG_VERSION"),
        args.db.display(),
        args.max_message_mib,
        args.max_reply_mib,
        args.max_request_memory_mib,
        args.max_reply_memory_mib,
        args.max_connections,
        args.max_connections_per_client,
        args.max_scanners,
        args.max_scanners_per_connection,
        args.message_deadline_secs,
    );
    let info = match args.info_port {
        Some(port) => {
            match crate::info::InfoServer::start(&args.bind, port, service.db().clone()) {
                Ok(info) => {
                    crate::stderr_line!(
                        "{name}: info server on http://{}/ (/metrics, /jmx)",
                        info.addr()
                    );
                    Some(info)
                }
                Err(e) => {
                    return crate::fail(format!(
                        "cannot bind the info port {}:{port}: {e}",
                        args.bind
                    ));
                }
            }
        }
        None => None,
    };
    let stop = Arc::new(server::Stop::default());
    if let Err(e) = watch_signals(&stop, addr, name) {
        return crate::fail(format!("cannot watch for SIGTERM/SIGINT: {e}"));
    }
    let busy = match server::serve_until(listener, service.clone(), cfg, &stop) {
        Ok(busy) => busy,
        Err(e) => return crate::fail(format!("{name} server failed: {e}")),
    };
    // The info server holds a handle of the database: it stops first.
    if let Some(info) = info {
        info.stop();
    }
    // The connection threads are gone (or the grace period ran out): close the database
    // cleanly, so the next open replays nothing.
    match Arc::try_unwrap(service) {
        Ok(service) => match server::Gateway::into_db(service).close() {
            Ok(()) => {
                crate::stderr_line!("{name}: stopped; database closed cleanly");
                ExitCode::SUCCESS
            }
            Err(e) => crate::fail(format!("closing the database failed: {e}")),
        },
        Err(_) => crate::fail(format!(
            "{busy} connections still busy after {} s; exiting without a clean close (the log \
             holds every acknowledged write)",
            server::STOP_GRACE.as_secs()
        )),
    }
}

/// Turns SIGTERM and SIGINT into the gateway's stop: a thread waits for the signal (no code of
/// ours runs in the handler), begins the stop and connects to the listener once to wake its
/// accept loop.
#[cfg(unix)]
fn watch_signals(
    stop: &Arc<server::Stop>,
    addr: std::net::SocketAddr,
    gateway: &'static str,
) -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT])?;
    let stop = stop.clone();
    std::thread::Builder::new()
        .name(format!("{gateway}-signals"))
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                let name = if sig == SIGTERM { "SIGTERM" } else { "SIGINT" };
                crate::stderr_line!(
                    "{gateway}: {name}: stopping (no new connections; requests being served finish)"
                );
                stop.begin();
                let wake = match addr.ip() {
                    ip if ip.is_unspecified() && addr.is_ipv4() => {
                        std::net::SocketAddr::from(([127, 0, 0, 1], addr.port()))
                    }
                    ip if ip.is_unspecified() => {
                        std::net::SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, addr.port()))
                    }
                    _ => addr,
                };
                let _ = std::net::TcpStream::connect_timeout(&wake, Duration::from_secs(5));
            }
        })?;
    Ok(())
}

/// Without Unix signals the gateway stops only when killed.
#[cfg(not(unix))]
fn watch_signals(
    _stop: &Arc<server::Stop>,
    _addr: std::net::SocketAddr,
    _gateway: &'static str,
) -> std::io::Result<()> {
    Ok(())
}
