//! The TCP listener (a thread per connection) and the per-connection message loop: read a call,
//! dispatch it within its reply budget, write the reply. Both gateways run on it: `cellbase
//! thrift` (the Thrift1 `Hbase` service) and `cellbase thrift2` (`THBaseService`) are each a
//! [`Gateway`], and share the accept loop, the connection slots, transport and protocol
//! detection, the request and reply budgets, the message deadline, the scanner registry's
//! expiry and release, and the stop.
use super::call::{CallCtx, ReplyBudget};
use super::dispatch::Dispatch;
use super::memory::{RequestPool, Reservation};
use super::protocol::{
    Limits, MSG_CALL, MSG_EXCEPTION, MSG_ONEWAY, MSG_REPLY, ProtoError, Value, encode_message,
};
use super::scanners::ScannerRegistry;
use super::transport::{Replay, detect, read_message_metered, write_message};
use super::types::{
    APP_INTERNAL_ERROR, APP_INVALID_MESSAGE_TYPE, APP_PROTOCOL_ERROR, APP_UNKNOWN_METHOD,
    application_exception,
};
use std::cell::Cell;
use std::collections::HashMap;
use std::io::{self, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking holder cannot leave these maps half-updated in a way that matters more than
    // refusing every later call would, so poisoning is ignored.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A Thrift service served by [`serve_until`]: its method table and the state every
/// connection shares.
pub trait Gateway: Send + Sync + 'static {
    /// Runs one call (decoded arguments of method `method`) within `ctx`'s reply budget.
    fn dispatch(&self, method: &str, args: &[(i16, Value)], ctx: &mut CallCtx) -> Dispatch;
    /// The open scanners: the server expires idle ones and releases a connection's scanners
    /// when it closes.
    fn scanners(&self) -> &ScannerRegistry;
    /// The database served (the info server reads its metrics).
    fn db(&self) -> &cellbase::Db;
    /// The database, once no connection uses the service any more (the stop closes it).
    fn into_db(self) -> cellbase::Db
    where
        Self: Sized;
}

/// Server settings. Every limit is at least 1 (`cellbase thrift` refuses 0); see
/// docs/THRIFT.md for the defaults.
#[derive(Clone, Debug)]
pub struct Config {
    /// Maximum message (and frame) size in bytes.
    pub max_message: usize,
    /// Maximum simultaneous connections; more are accepted and closed at once.
    pub max_connections: usize,
    /// Maximum simultaneous connections from one client address; more are closed at once.
    pub max_connections_per_client: usize,
    /// Close a connection that sends nothing between messages for this long (`None`: never).
    pub idle_timeout: Option<Duration>,
    /// A message must arrive completely within this time of its first byte, and a reply must
    /// be taken by the client within it; else the connection is closed.
    pub message_deadline: Duration,
    /// Maximum bytes of one reply, counted while it is built.
    pub max_reply: usize,
    /// Maximum reply bytes being built or sent across all connections.
    pub max_reply_memory: usize,
    /// Maximum request bytes being read, decoded or dispatched across all connections
    /// (see [`super::memory`]); at least `max_message`.
    pub max_request_memory: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_message: 64 << 20,
            max_connections: 1024,
            max_connections_per_client: 128,
            idle_timeout: None,
            message_deadline: Duration::from_secs(60),
            max_reply: 64 << 20,
            max_reply_memory: 256 << 20,
            max_request_memory: 256 << 20,
        }
    }
}

/// How long a stop waits for connections to finish the request they are serving.
pub const STOP_GRACE: Duration = Duration::from_secs(30);

/// The gateway's stop: set by a signal (SIGTERM, SIGINT), it ends the accept loop, closes the
/// read side of every connection (a request being served still gets its reply; an idle
/// keep-alive connection ends at once) and lets [`serve_until`] return once they are gone.
#[derive(Debug, Default)]
pub struct Stop {
    stopping: std::sync::atomic::AtomicBool,
    conns: Mutex<HashMap<u64, TcpStream>>,
}

impl Stop {
    /// Begins the stop; the accept loop sees it at its next connection (the signal thread
    /// connects to the listener to wake it).
    pub fn begin(&self) {
        self.stopping.store(true, Ordering::Release);
        for s in lock(&self.conns).values() {
            let _ = s.shutdown(std::net::Shutdown::Read);
        }
    }

    /// True once [`Stop::begin`] ran.
    pub fn stopping(&self) -> bool {
        self.stopping.load(Ordering::Acquire)
    }

    pub(crate) fn register(&self, id: u64, stream: &TcpStream) {
        if let Ok(s) = stream.try_clone() {
            if self.stopping() {
                let _ = s.shutdown(std::net::Shutdown::Read);
            }
            lock(&self.conns).insert(id, s);
        }
    }

    pub(crate) fn forget(&self, id: u64) {
        lock(&self.conns).remove(&id);
    }
}

/// Accepts connections forever, each on its own thread.
pub fn serve<S: Gateway>(
    listener: TcpListener,
    service: Arc<S>,
    cfg: Config,
) -> std::io::Result<()> {
    serve_until(listener, service, cfg, &Arc::new(Stop::default())).map(|_| ())
}

/// Accepts connections, each on its own thread, until `stop` begins; then waits up to
/// [`STOP_GRACE`] for the connections to finish. Returns how many were still running then.
pub fn serve_until<S: Gateway>(
    listener: TcpListener,
    service: Arc<S>,
    cfg: Config,
    stop: &Arc<Stop>,
) -> std::io::Result<usize> {
    let slots = crate::conn_slots::ConnectionSlots::new(
        cfg.max_connections,
        cfg.max_connections_per_client,
    );
    let reply_pool = Arc::new(AtomicUsize::new(0));
    let request_pool = RequestPool::new(cfg.max_request_memory.max(cfg.max_message));
    let next_conn = AtomicU64::new(0);
    {
        // Expire idle scanners even when nobody opens new ones; a weak handle, so the stop
        // can take the service back and close the database.
        let service = Arc::downgrade(&service);
        std::thread::Builder::new()
            .name("thrift-scanner-reaper".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(Duration::from_secs(5));
                    let Some(service) = service.upgrade() else {
                        return;
                    };
                    service.scanners().expire(Instant::now());
                }
            })?;
    }
    // Closed at once: the client sees the connection end (or reset).
    let refuse = |stream: TcpStream, peer, r: crate::conn_slots::Refused| {
        log::warn!(
            target: "cellbase::thrift",
            "refused a connection from {peer}: {} connections open ({} from this client; limits {} and {} per client)",
            r.live,
            r.from_client,
            cfg.max_connections,
            cfg.max_connections_per_client
        );
        drop(stream);
    };
    let serve = |stream: TcpStream, peer: std::net::SocketAddr, guard| {
        let service = service.clone();
        let limits = Limits {
            max_message: cfg.max_message,
            ..Limits::default()
        };
        let conn = ConnConfig {
            id: next_conn.fetch_add(1, Ordering::Relaxed),
            limits,
            idle_timeout: cfg.idle_timeout,
            message_deadline: cfg.message_deadline,
            max_reply: cfg.max_reply,
            reply_pool: reply_pool.clone(),
            max_reply_memory: cfg.max_reply_memory,
            request_pool: request_pool.clone(),
        };
        stop.register(conn.id, &stream);
        let conn_stop = stop.clone();
        let spawned = std::thread::Builder::new()
            .name("thrift-conn".into())
            .spawn(move || {
                let _guard = guard;
                let id = conn.id;
                log::info!(target: "cellbase::thrift", "connection {id} from {peer} opened");
                match handle_connection(stream, &*service, &conn) {
                    Ok(()) => {
                        log::info!(target: "cellbase::thrift", "connection {id} from {peer} closed");
                    }
                    Err(e) => log::info!(
                        target: "cellbase::thrift",
                        "connection {id} from {peer} closed: {e}"
                    ),
                }
                // The connection's scanners go with it (issue 21, 7c).
                service.scanners().release_owner(id);
                conn_stop.forget(id);
                // Before the slot is given back: once no slot is live, no thread holds the
                // service, and the stop can close the database.
                drop(service);
            });
        if let Err(e) = spawned {
            crate::stderr_line!("thrift: cannot start a connection thread: {e}");
        }
    };
    slots.accept_each("thrift", &listener, || stop.stopping(), refuse, serve);
    drop(listener);
    // Connections finish the request they serve; their read side is closed, so idle ones end.
    Ok(slots.wait_until_closed(STOP_GRACE))
}

/// What one connection's thread needs to know.
#[derive(Clone, Debug)]
pub struct ConnConfig {
    /// The connection's id (owner of the scanners it opens).
    pub id: u64,
    /// Decoder limits.
    pub limits: Limits,
    /// See [`Config::idle_timeout`].
    pub idle_timeout: Option<Duration>,
    /// See [`Config::message_deadline`].
    pub message_deadline: Duration,
    /// See [`Config::max_reply`].
    pub max_reply: usize,
    /// Reply bytes in flight across all connections.
    pub reply_pool: Arc<AtomicUsize>,
    /// See [`Config::max_reply_memory`].
    pub max_reply_memory: usize,
    /// Request bytes in flight across all connections ([`Config::max_request_memory`]).
    pub request_pool: Arc<RequestPool>,
}

impl ConnConfig {
    /// Settings for a connection served outside [`serve`] (tests): default limits, its own
    /// reply and request pools.
    pub fn standalone(id: u64) -> Self {
        let c = Config::default();
        ConnConfig {
            id,
            limits: Limits::default(),
            idle_timeout: c.idle_timeout,
            message_deadline: c.message_deadline,
            max_reply: c.max_reply,
            reply_pool: Arc::new(AtomicUsize::new(0)),
            max_reply_memory: c.max_reply_memory,
            request_pool: RequestPool::new(c.max_request_memory),
        }
    }
}

/// The socket as the message decoder reads it: it waits up to the idle timeout for each read;
/// once a message's first byte has arrived, the whole message must arrive before
/// its deadline (issue 21, 7b: a client sending one byte a second cannot hold a connection
/// slot for longer than the deadline; an idle timeout alone would never fire).
struct DeadlineStream {
    stream: TcpStream,
    idle: Option<Duration>,
    per_message: Duration,
    /// The current message's deadline; `None` between messages.
    deadline: Rc<Cell<Option<Instant>>>,
}

impl Read for DeadlineStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let timeout = match self.deadline.get() {
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!(
                            "message not received within {} s (--message-deadline-secs)",
                            self.per_message.as_secs()
                        ),
                    ));
                }
                // A stall mid-message also counts as idle.
                Some(self.idle.map_or(left, |i| i.min(left)))
            }
            None => self.idle,
        };
        self.stream.set_read_timeout(timeout)?;
        let n = self.stream.read(buf)?;
        if n > 0 && self.deadline.get().is_none() {
            self.deadline.set(Some(Instant::now() + self.per_message));
        }
        Ok(n)
    }
}

/// Serves one connection until the peer closes it, sends something undecodable or misses a
/// deadline.
pub fn handle_connection<S: Gateway + ?Sized>(
    stream: TcpStream,
    service: &S,
    conn: &ConnConfig,
) -> std::io::Result<()> {
    let _ = stream.set_nodelay(true);
    let mut out = stream.try_clone()?;
    // A client that does not read its replies cannot block this thread for longer either.
    out.set_write_timeout(Some(conn.message_deadline))?;
    let deadline = Rc::new(Cell::new(None));
    let raw = DeadlineStream {
        stream,
        idle: conn.idle_timeout,
        per_message: conn.message_deadline,
        deadline: deadline.clone(),
    };
    let mut input = BufReader::with_capacity(64 * 1024, raw);
    let limits = conn.limits;
    let Some((transport, proto, prefix)) = detect(&mut input)? else {
        return Ok(());
    };
    let mut input = Replay::new(prefix, input);
    loop {
        let memory = Reservation::new(conn.request_pool.clone(), conn.message_deadline);
        let msg = match read_message_metered(&mut input, transport, proto, limits, memory) {
            Ok(m) => m,
            Err(f) => {
                if matches!(f.error, ProtoError::Invalid(_) | ProtoError::TooLarge(_)) {
                    log::warn!(
                        target: "cellbase::thrift",
                        "connection {}: protocol error{}: {}; closing it",
                        conn.id,
                        f.header
                            .as_ref()
                            .map(|h| format!(" in call '{}'", h.name))
                            .unwrap_or_default(),
                        f.error
                    );
                }
                if let (Some(h), ProtoError::Invalid(_) | ProtoError::TooLarge(_)) =
                    (&f.header, &f.error)
                {
                    let body = application_exception(&f.error.to_string(), APP_PROTOCOL_ERROR);
                    let reply = encode_message(proto, &h.name, MSG_EXCEPTION, h.seqid, &body);
                    let _ = write_message(&mut out, transport, &reply);
                }
                // After a protocol error the stream position is unknown: close. Send our FIN
                // first and drain a bounded amount of what the peer still sends, so the
                // exception is not lost to a reset caused by unread input.
                let _ = out.shutdown(std::net::Shutdown::Write);
                deadline.set(Some(Instant::now() + Duration::from_secs(2)));
                let _ = std::io::copy(&mut (&mut input).take(8 << 20), &mut std::io::sink());
                return Ok(());
            }
        };
        // The next message's clock starts with its first byte, which may already be buffered.
        deadline.set(
            (!input.inner().buffer().is_empty()).then(|| Instant::now() + conn.message_deadline),
        );
        let h = msg.header;
        if h.mtype != MSG_CALL && h.mtype != MSG_ONEWAY {
            let body = application_exception(
                &format!("expected a call, got message type {}", h.mtype),
                APP_INVALID_MESSAGE_TYPE,
            );
            let reply = encode_message(proto, &h.name, MSG_EXCEPTION, h.seqid, &body);
            write_message(&mut out, transport, &reply)?;
            continue;
        }
        let mut ctx = CallCtx {
            budget: ReplyBudget::new(
                conn.max_reply,
                conn.reply_pool.clone(),
                conn.max_reply_memory,
            ),
            conn: conn.id,
        };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            service.dispatch(&h.name, &msg.body, &mut ctx)
        }));
        // The request's memory goes back to the pool once the call is done with it.
        drop(msg.body);
        drop(msg.memory);
        let reply = match result {
            Ok(Dispatch::Reply(body)) => encode_message(proto, &h.name, MSG_REPLY, h.seqid, &body),
            Ok(Dispatch::UnknownMethod) => encode_message(
                proto,
                &h.name,
                MSG_EXCEPTION,
                h.seqid,
                &application_exception(
                    &format!("Invalid method name: '{}'", h.name),
                    APP_UNKNOWN_METHOD,
                ),
            ),
            Err(_) => {
                log::warn!(
                    target: "cellbase::thrift",
                    "connection {}: call '{}' panicked; answered with an internal error",
                    conn.id,
                    h.name
                );
                encode_message(
                    proto,
                    &h.name,
                    MSG_EXCEPTION,
                    h.seqid,
                    &application_exception("internal error", APP_INTERNAL_ERROR),
                )
            }
        };
        if h.mtype == MSG_ONEWAY {
            continue;
        }
        write_message(&mut out, transport, &reply)?;
        // The reply is sent: its bytes leave the shared pool.
        drop(reply);
        drop(ctx);
    }
}

/// Writes `listening on ADDR` on stdout and flushes (tests and scripts read this line).
///
/// # Errors
/// The write error (a closed pipe or a full device): the caller exits, since whoever
/// started the gateway cannot learn its address.
pub fn announce(addr: std::net::SocketAddr) -> io::Result<()> {
    let mut so = std::io::stdout();
    writeln!(so, "listening on {addr}")?;
    so.flush()
}
