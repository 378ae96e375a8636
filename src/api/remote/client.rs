//! The connection pool of a remote database: Thrift2 calls over pooled TCP connections, with
//! connect and request timeouts, retries of idempotent calls and a bound on connections.

use crate::api::remote::options::{RemoteOptions, RemoteProtocol, RemoteTransport};
use crate::base::error::{Error, Result};
use cellbase_thrift::protocol::{
    Limits, MSG_CALL, MSG_EXCEPTION, MSG_REPLY, Protocol, Value, encode_message,
};
use cellbase_thrift::transport::{Transport, read_message, write_message};
use parking_lot::{Condvar, Mutex};
use std::io::{BufReader, BufWriter};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Instant;

/// One open connection to the server.
pub(crate) struct Conn {
    reader: BufReader<TcpStream>,
    writer: BufWriter<TcpStream>,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn")
            .field("peer", &self.reader.get_ref().peer_addr().ok())
            .finish()
    }
}

/// How a failed call may be retried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Idempotent {
    /// A read: retried on any connection failure.
    Yes,
    /// A write: retried only when the request was never sent (the connection could not be
    /// made), never after it may have reached the server.
    No,
}

/// A call's failure before any reply: where it happened decides whether it can be retried.
enum Failure {
    /// The connection could not be made: nothing was sent.
    Connect(Error),
    /// Sending or receiving failed: the server may have applied the call.
    Exchange(Error),
    /// The server answered: an application error, never retried.
    Answered(Error),
}

/// The pool: idle connections, and a count of connections in use bounded by
/// [`RemoteOptions::pool_size`].
#[derive(Debug)]
pub(crate) struct Client {
    addr: String,
    addrs: Vec<SocketAddr>,
    opts: RemoteOptions,
    idle: Mutex<Vec<Conn>>,
    in_use: Mutex<usize>,
    freed: Condvar,
    seq: AtomicI32,
}

impl Client {
    /// A pool for `host:port`; one connection is made now, so a wrong address fails here.
    pub(crate) fn connect(addr: &str, opts: RemoteOptions) -> Result<Client> {
        let addrs: Vec<SocketAddr> = addr
            .to_socket_addrs()
            .map_err(|e| Error::Io(std::io::Error::new(e.kind(), format!("{addr}: {e}"))))?
            .collect();
        if addrs.is_empty() {
            return Err(Error::invalid(format!("{addr}: resolves to no address")));
        }
        let client = Client {
            addr: addr.to_string(),
            addrs,
            opts,
            idle: Mutex::new(Vec::new()),
            in_use: Mutex::new(0),
            freed: Condvar::new(),
            seq: AtomicI32::new(0),
        };
        let first = client.open_conn()?;
        client.idle.lock().push(first);
        Ok(client)
    }

    /// `host:port` as given.
    pub(crate) fn addr(&self) -> &str {
        &self.addr
    }

    /// The options the pool was made with.
    pub(crate) fn options(&self) -> &RemoteOptions {
        &self.opts
    }

    fn protocol(&self) -> Protocol {
        match self.opts.protocol {
            RemoteProtocol::Binary => Protocol::Binary,
            RemoteProtocol::Compact => Protocol::Compact,
        }
    }

    fn transport(&self) -> Transport {
        match self.opts.transport {
            RemoteTransport::Buffered => Transport::Buffered,
            RemoteTransport::Framed => Transport::Framed,
        }
    }

    /// A new connection, with the request timeout on every read and write.
    pub(crate) fn open_conn(&self) -> Result<Conn> {
        let mut last = None;
        for a in &self.addrs {
            match TcpStream::connect_timeout(a, self.opts.connect_timeout) {
                Ok(s) => {
                    s.set_read_timeout(Some(self.opts.request_timeout))?;
                    s.set_write_timeout(Some(self.opts.request_timeout))?;
                    s.set_nodelay(true)?;
                    let w = s.try_clone()?;
                    return Ok(Conn {
                        reader: BufReader::new(s),
                        writer: BufWriter::new(w),
                    });
                }
                Err(e) => last = Some(e),
            }
        }
        let e = last.unwrap_or_else(|| std::io::Error::other("no address"));
        Err(Error::Io(std::io::Error::new(
            e.kind(),
            format!("connecting to {}: {e}", self.addr),
        )))
    }

    /// Takes an idle connection or makes one, waiting up to the request timeout while
    /// `pool_size` connections are in use.
    fn checkout(&self) -> std::result::Result<Conn, Failure> {
        let deadline = Instant::now() + self.opts.request_timeout;
        let mut used = self.in_use.lock();
        while *used >= self.opts.pool_size {
            if self.freed.wait_until(&mut used, deadline).timed_out() {
                return Err(Failure::Connect(Error::Io(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!(
                        "{}: all {} pooled connections stayed busy for {:?}",
                        self.addr, self.opts.pool_size, self.opts.request_timeout
                    ),
                ))));
            }
        }
        *used += 1;
        drop(used);
        if let Some(c) = self.idle.lock().pop() {
            return Ok(c);
        }
        self.open_conn().map_err(|e| {
            self.release(None);
            Failure::Connect(e)
        })
    }

    /// Gives a slot back, and the connection when it is still good.
    fn release(&self, conn: Option<Conn>) {
        if let Some(c) = conn {
            let mut idle = self.idle.lock();
            if idle.len() < self.opts.pool_size {
                idle.push(c);
            }
        }
        *self.in_use.lock() -= 1;
        self.freed.notify_one();
    }

    /// Calls `method` with `args`; the reply's success value (`None` for a void method).
    /// Retries per `idem`, up to [`RemoteOptions::retries`] times with
    /// [`RemoteOptions::retry_backoff`] doubling between attempts.
    pub(crate) fn call(
        &self,
        method: &str,
        args: Vec<(i16, Value)>,
        idem: Idempotent,
    ) -> Result<Option<Value>> {
        let mut backoff = self.opts.retry_backoff;
        let mut attempt = 0;
        loop {
            let failure = match self.checkout() {
                Ok(mut conn) => match self.exchange(&mut conn, method, &args) {
                    Ok(v) => {
                        self.release(Some(conn));
                        return v;
                    }
                    Err(f) => {
                        self.release(None);
                        f
                    }
                },
                Err(f) => f,
            };
            let (err, retryable) = match failure {
                Failure::Connect(e) => (e, true),
                Failure::Exchange(e) => (e, idem == Idempotent::Yes),
                Failure::Answered(e) => return Err(e),
            };
            if !retryable || attempt >= self.opts.retries {
                return Err(err);
            }
            log::debug!(target: "cellbase::remote", "{method} to {}: {err}; retrying", self.addr);
            attempt += 1;
            std::thread::sleep(backoff);
            backoff = backoff.saturating_mul(2);
        }
    }

    /// One request and its reply on `conn`. The outer error is a failure of the connection
    /// (the connection is then dropped); the inner result is the server's answer.
    #[allow(clippy::type_complexity)]
    fn exchange(
        &self,
        conn: &mut Conn,
        method: &str,
        args: &[(i16, Value)],
    ) -> std::result::Result<Result<Option<Value>>, Failure> {
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        let msg = encode_message(self.protocol(), method, MSG_CALL, seq, args);
        write_message(&mut conn.writer, self.transport(), &msg)
            .map_err(|e| Failure::Exchange(self.io(method, e)))?;
        let limits = Limits {
            max_message: self.opts.max_reply_bytes,
            ..Limits::default()
        };
        let reply = read_message(&mut conn.reader, self.transport(), self.protocol(), limits)
            .map_err(|f| {
                Failure::Exchange(Error::Io(std::io::Error::other(format!(
                    "{method} to {}: bad reply: {}",
                    self.addr, f.error
                ))))
            })?;
        if reply.header.seqid != seq || reply.header.name != method {
            return Err(Failure::Exchange(Error::Io(std::io::Error::other(
                format!(
                    "{method} to {}: reply to {} (sequence {}) where {seq} was expected",
                    self.addr, reply.header.name, reply.header.seqid
                ),
            ))));
        }
        match reply.header.mtype {
            MSG_REPLY => Ok(reply_value(method, reply.body)),
            MSG_EXCEPTION => {
                let msg = text_field(&reply.body, 1).unwrap_or_default();
                Err(Failure::Answered(Error::Remote(format!(
                    "{method}: server exception: {msg}"
                ))))
            }
            t => Err(Failure::Exchange(Error::Io(std::io::Error::other(
                format!("{method} to {}: unexpected message type {t}", self.addr),
            )))),
        }
    }

    fn io(&self, method: &str, e: std::io::Error) -> Error {
        Error::Io(std::io::Error::new(
            e.kind(),
            format!("{method} to {}: {e}", self.addr),
        ))
    }

    /// One call on a connection the caller holds (a scanner's), without retries.
    pub(crate) fn call_on(
        &self,
        conn: &mut Conn,
        method: &str,
        args: Vec<(i16, Value)>,
    ) -> Result<Option<Value>> {
        match self.exchange(conn, method, &args) {
            Ok(v) => v,
            Err(Failure::Connect(e) | Failure::Exchange(e) | Failure::Answered(e)) => Err(e),
        }
    }

    /// An idle connection of the pool, or a new one: a scanner's own connection (not counted
    /// against `pool_size`; given back with [`Client::give_back`]).
    pub(crate) fn idle_or_open(&self) -> Result<Conn> {
        let idle = self.idle.lock().pop();
        match idle {
            Some(c) => Ok(c),
            None => self.open_conn(),
        }
    }

    /// Takes back a connection a scanner held (kept idle when there is room).
    pub(crate) fn give_back(&self, conn: Conn) {
        let mut idle = self.idle.lock();
        if idle.len() < self.opts.pool_size {
            idle.push(conn);
        }
    }
}

/// The string field `id` of a struct, when present.
pub(crate) fn text_field(s: &[(i16, Value)], id: i16) -> Option<String> {
    s.iter().find_map(|(i, v)| match (i, v) {
        (i, Value::Binary(b)) if *i == id => Some(String::from_utf8_lossy(b).into_owned()),
        _ => None,
    })
}

/// A reply struct: field 0 is the result, field 1 `TIOError`, field 2 `TIllegalArgument`.
fn reply_value(method: &str, body: Vec<(i16, Value)>) -> Result<Option<Value>> {
    let mut success = None;
    for (id, v) in body {
        match (id, v) {
            (0, v) => success = Some(v),
            (1 | 2, Value::Struct(e)) => {
                let msg = text_field(&e, 1).unwrap_or_default();
                return Err(super::errors::from_server(method, id, &msg));
            }
            _ => {}
        }
    }
    Ok(success)
}
