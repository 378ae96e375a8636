//! The REST gateway's HTTP/1.1 server: a thread per connection (at most `--max-connections`,
//! `--max-connections-per-client` from one address), requests parsed by `httparse`, with the
//! Thrift1 gateway's hostile-client bounds: the request line and headers are capped
//! (`--max-header-kib`, 431), the body is capped (`--max-body-mib`, 413) and counted against
//! a pool shared by all connections (`--max-request-memory-mib`, 503), a request must arrive
//! whole within `--request-deadline-secs` of its first byte, and a connection idle between
//! requests for `--idle-timeout-secs` is closed. A slow client holds only its own thread.
use crate::thrift::server::Stop;
use std::io::{self, Read, Write};
use std::net::{IpAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The server's limits (see `cellbase rest --help` and docs/REST.md).
#[derive(Clone, Debug)]
pub struct Limits {
    /// Maximum bytes of the request line plus headers.
    pub max_header: usize,
    /// Maximum bytes of one request body.
    pub max_body: usize,
    /// Maximum body bytes held at once across all connections.
    pub max_request_memory: usize,
    /// Maximum reply body bytes held (being sent) at once across all connections.
    pub max_reply_memory: usize,
    /// Maximum simultaneous connections.
    pub max_connections: usize,
    /// Maximum simultaneous connections from one client address.
    pub max_connections_per_client: usize,
    /// A request must arrive whole (and its reply be taken) within this time of its first byte.
    pub request_deadline: Duration,
    /// A connection that sends nothing between requests for this long is closed.
    pub idle_timeout: Duration,
}

/// One parsed request.
#[derive(Debug)]
pub struct Request {
    /// `GET`, `PUT`, `POST`, `DELETE`, ...
    pub method: String,
    /// The path as sent (still percent-encoded), without the query.
    pub path: String,
    /// The query string as sent (without `?`), empty if none.
    pub query: String,
    /// Header names lower-cased, values as sent.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
    /// The client's address.
    pub peer: IpAddr,
}

impl Request {
    /// The first header named `name` (lower-case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One response.
#[derive(Debug)]
pub struct Response {
    /// HTTP status code.
    pub status: u16,
    /// `Content-Type`, if there is a body.
    pub content_type: Option<String>,
    /// Other headers.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// A response with a `text/plain` body, as HBase's resources answer errors.
    pub fn text(status: u16, body: impl Into<String>) -> Response {
        let mut body = body.into();
        if !body.ends_with('\n') {
            body.push_str("\r\n");
        }
        Response {
            status,
            content_type: Some("text/plain".into()),
            headers: Vec::new(),
            body: body.into_bytes(),
        }
    }

    /// A response without a body.
    pub fn empty(status: u16) -> Response {
        Response {
            status,
            content_type: None,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// A response with `body` of type `content_type`.
    pub fn body(status: u16, content_type: &str, body: Vec<u8>) -> Response {
        Response {
            status,
            content_type: Some(content_type.into()),
            headers: Vec::new(),
            body,
        }
    }

    /// Adds a header.
    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Response {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// What serves the parsed requests.
pub trait Handler: Send + Sync + 'static {
    /// Answers one request. `host` is the address the client reached (for `Location`).
    fn handle(&self, req: &Request, host: &str) -> Response;
}

/// Body bytes held across all connections.
#[derive(Debug)]
struct Pool {
    used: AtomicUsize,
    cap: usize,
}

impl Pool {
    fn reserve(&self, n: usize) -> bool {
        let mut cur = self.used.load(Ordering::Relaxed);
        loop {
            if cur.saturating_add(n) > self.cap {
                return false;
            }
            match self
                .used
                .compare_exchange(cur, cur + n, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => return true,
                Err(now) => cur = now,
            }
        }
    }

    fn release(&self, n: usize) {
        self.used.fetch_sub(n, Ordering::AcqRel);
    }
}

/// How long a stop waits for connections to finish the request they are serving.
pub const STOP_GRACE: Duration = Duration::from_secs(30);

/// Accepts connections until `stop` begins, each on its own thread; then waits up to
/// [`STOP_GRACE`] for them. Returns how many were still running then.
pub fn serve_until(
    listener: TcpListener,
    handler: Arc<dyn Handler>,
    limits: Limits,
    stop: &Arc<Stop>,
) -> io::Result<usize> {
    let slots = crate::conn_slots::ConnectionSlots::new(
        limits.max_connections,
        limits.max_connections_per_client,
    );
    let pool = Arc::new(Pool {
        used: AtomicUsize::new(0),
        cap: limits.max_request_memory.max(limits.max_body),
    });
    let replies = Arc::new(Pool {
        used: AtomicUsize::new(0),
        cap: limits.max_reply_memory,
    });
    let next = AtomicU64::new(0);
    let refuse = |mut s: std::net::TcpStream, peer, r: crate::conn_slots::Refused| {
        log::warn!(
            target: "cellbase::rest",
            "refused a connection from {peer}: {} open ({} from this client)",
            r.live,
            r.from_client
        );
        // A short answer, so an HTTP client sees why; never waits on the client.
        let _ = s.set_write_timeout(Some(Duration::from_millis(200)));
        let _ = write_response(
            &mut s,
            &Response::text(503, "Service Unavailable: too many connections"),
            true,
        );
    };
    let serve = |stream: std::net::TcpStream, peer: std::net::SocketAddr, guard| {
        let ip = peer.ip();
        let id = next.fetch_add(1, Ordering::Relaxed);
        stop.register(id, &stream);
        let (handler, limits, pools, conn_stop) = (
            handler.clone(),
            limits.clone(),
            (pool.clone(), replies.clone()),
            stop.clone(),
        );
        let spawned = std::thread::Builder::new()
            .name("rest-conn".into())
            .spawn(move || {
                let _guard = guard;
                if let Err(e) = connection(stream, ip, &*handler, &limits, &pools.0, &pools.1) {
                    log::debug!(target: "cellbase::rest", "connection from {peer} closed: {e}");
                }
                conn_stop.forget(id);
                drop(handler);
            });
        if let Err(e) = spawned {
            crate::stderr_line!("rest: cannot start a connection thread: {e}");
        }
    };
    slots.accept_each("rest", &listener, || stop.stopping(), refuse, serve);
    drop(listener);
    Ok(slots.wait_until_closed(STOP_GRACE))
}

/// Why a request could not be read.
enum ReadFail {
    /// The connection ended or timed out: close without a reply.
    Gone(io::Error),
    /// Answer with this status and close.
    Refuse(u16, &'static str),
}

impl From<io::Error> for ReadFail {
    fn from(e: io::Error) -> Self {
        ReadFail::Gone(e)
    }
}

/// Reads into `buf` with the socket's timeout set to what is left before `deadline`.
fn fill(stream: &mut TcpStream, buf: &mut Vec<u8>, deadline: Instant) -> io::Result<usize> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(io::Error::new(io::ErrorKind::TimedOut, "request deadline"));
    }
    stream.set_read_timeout(Some(left))?;
    let mut chunk = [0u8; 16 * 1024];
    let n = stream.read(&mut chunk)?;
    if n == 0 {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "closed"));
    }
    buf.extend_from_slice(&chunk[..n]);
    Ok(n)
}

/// Holds body bytes reserved in the shared pool; gives them back on drop.
struct Held<'a> {
    pool: &'a Pool,
    n: usize,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.pool.release(self.n);
    }
}

fn connection(
    mut stream: TcpStream,
    peer: IpAddr,
    handler: &dyn Handler,
    limits: &Limits,
    pool: &Pool,
    replies: &Pool,
) -> io::Result<()> {
    let _ = stream.set_nodelay(true);
    let host_fallback = stream
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    let mut buf: Vec<u8> = Vec::new();
    loop {
        // Idle wait for the first byte of the next request.
        if buf.is_empty() {
            fill(&mut stream, &mut buf, Instant::now() + limits.idle_timeout)?;
        }
        let deadline = Instant::now() + limits.request_deadline;
        let (req, held, keep) =
            match read_request(&mut stream, &mut buf, peer, limits, pool, deadline) {
                Ok(r) => r,
                Err(ReadFail::Gone(e)) => return Err(e),
                Err(ReadFail::Refuse(status, why)) => {
                    stream.set_write_timeout(Some(limits.request_deadline))?;
                    write_response(&mut stream, &Response::text(status, why), true)?;
                    linger(&mut stream);
                    return Ok(());
                }
            };
        let host = req
            .header("host")
            .map(str::to_string)
            .unwrap_or_else(|| host_fallback.clone());
        // HEAD is GET without the body (as Jersey serves it for every GET resource).
        let mut req = req;
        let head_only = req.method == "HEAD";
        if head_only {
            req.method = "GET".into();
        }
        let mut resp = handler.handle(&req, &host);
        drop(req);
        drop(held);
        // A reply is held until the client has taken it: replies being sent are bounded in
        // all, so slow readers cannot pin unbounded memory.
        let mut sent = Held {
            pool: replies,
            n: resp.body.len(),
        };
        if !replies.reserve(sent.n) {
            sent.n = 0;
            resp = Response::text(
                503,
                "Service Unavailable: reply memory exhausted (see --max-reply-memory-mib)",
            );
        }
        stream.set_write_timeout(Some(limits.request_deadline))?;
        write_head_and_body(&mut stream, &resp, !keep, !head_only)?;
        drop(sent);
        if !keep {
            return Ok(());
        }
    }
}

/// After a refusal: stops writing and reads (and drops) what the client still sends, for at
/// most 2 s and 64 MiB, so that closing with unread bytes does not reset the connection
/// before the client has read the refusal (a "lingering close").
fn linger(stream: &mut TcpStream) {
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let end = Instant::now() + Duration::from_secs(2);
    let mut chunk = [0u8; 16 * 1024];
    let mut left: usize = 64 << 20;
    while left > 0 {
        let rest = end.saturating_duration_since(Instant::now());
        if rest.is_zero() || stream.set_read_timeout(Some(rest)).is_err() {
            return;
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => left = left.saturating_sub(n),
        }
    }
}

/// Reads one request (head, then body) from `buf` and the stream.
fn read_request<'p>(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    peer: IpAddr,
    limits: &Limits,
    pool: &'p Pool,
    deadline: Instant,
) -> Result<(Request, Held<'p>, bool), ReadFail> {
    let (method, target, headers, version, head_len) = loop {
        let mut hs = [httparse::EMPTY_HEADER; 64];
        let mut req = httparse::Request::new(&mut hs);
        match req.parse(buf) {
            Ok(httparse::Status::Complete(n)) => {
                let headers: Vec<(String, String)> = req
                    .headers
                    .iter()
                    .map(|h| {
                        (
                            h.name.to_ascii_lowercase(),
                            String::from_utf8_lossy(h.value).trim().to_string(),
                        )
                    })
                    .collect();
                break (
                    req.method.unwrap_or("").to_string(),
                    req.path.unwrap_or("").to_string(),
                    headers,
                    req.version.unwrap_or(1),
                    n,
                );
            }
            Ok(httparse::Status::Partial) => {
                if buf.len() > limits.max_header {
                    return Err(ReadFail::Refuse(
                        431,
                        "Request Header Fields Too Large (see --max-header-kib)",
                    ));
                }
                fill(stream, buf, deadline)?;
            }
            Err(httparse::Error::TooManyHeaders) => {
                return Err(ReadFail::Refuse(
                    431,
                    "Request Header Fields Too Large: more than 64 headers",
                ));
            }
            Err(_) => return Err(ReadFail::Refuse(400, "Bad Request: malformed HTTP request")),
        }
    };
    if head_len > limits.max_header {
        return Err(ReadFail::Refuse(
            431,
            "Request Header Fields Too Large (see --max-header-kib)",
        ));
    }
    buf.drain(..head_len);
    let find = |n: &str| {
        headers
            .iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.as_str())
    };
    let conn = find("connection").map(str::to_ascii_lowercase);
    let keep = match version {
        0 => conn.as_deref() == Some("keep-alive"),
        _ => conn.as_deref() != Some("close"),
    };
    let chunked =
        find("transfer-encoding").is_some_and(|t| t.to_ascii_lowercase().contains("chunked"));
    let length = match find("content-length") {
        Some(v) => Some(
            v.parse::<usize>()
                .map_err(|_| ReadFail::Refuse(400, "Bad Request: bad Content-Length"))?,
        ),
        None => None,
    };
    if let Some(n) = length
        && n > limits.max_body
    {
        return Err(ReadFail::Refuse(
            413,
            "Payload Too Large (see --max-body-mib)",
        ));
    }
    let want = if chunked {
        limits.max_body
    } else {
        length.unwrap_or(0)
    };
    if !pool.reserve(want) {
        return Err(ReadFail::Refuse(
            503,
            "Service Unavailable: request memory exhausted (see --max-request-memory-mib)",
        ));
    }
    let held = Held { pool, n: want };
    if find("expect").is_some_and(|e| e.eq_ignore_ascii_case("100-continue")) {
        stream.set_write_timeout(Some(limits.request_deadline))?;
        stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    let body = if chunked {
        read_chunked(stream, buf, limits.max_body, deadline)?
    } else {
        let n = length.unwrap_or(0);
        while buf.len() < n {
            fill(stream, buf, deadline)?;
        }
        buf.drain(..n).collect()
    };
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p.to_string(), q.to_string()),
        None => (target, String::new()),
    };
    let req = Request {
        method,
        path,
        query,
        headers,
        body,
        peer,
    };
    Ok((req, held, keep))
}

/// Decodes a chunked body of at most `max` bytes (413 beyond).
fn read_chunked(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    max: usize,
    deadline: Instant,
) -> Result<Vec<u8>, ReadFail> {
    let mut body = Vec::new();
    loop {
        let line_end = loop {
            if let Some(i) = buf.windows(2).position(|w| w == b"\r\n") {
                break i;
            }
            if buf.len() > 1024 {
                return Err(ReadFail::Refuse(400, "Bad Request: bad chunk header"));
            }
            fill(stream, buf, deadline)?;
        };
        let line = String::from_utf8_lossy(&buf[..line_end]).to_string();
        let size_text = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| ReadFail::Refuse(400, "Bad Request: bad chunk size"))?;
        buf.drain(..line_end + 2);
        if size == 0 {
            // Trailers (ignored) up to the empty line.
            loop {
                if let Some(i) = buf.windows(2).position(|w| w == b"\r\n") {
                    let empty = i == 0;
                    buf.drain(..i + 2);
                    if empty {
                        return Ok(body);
                    }
                } else {
                    if buf.len() > 8192 {
                        return Err(ReadFail::Refuse(400, "Bad Request: bad trailer"));
                    }
                    fill(stream, buf, deadline)?;
                }
            }
        }
        if body.len().saturating_add(size) > max {
            return Err(ReadFail::Refuse(
                413,
                "Payload Too Large (see --max-body-mib)",
            ));
        }
        while buf.len() < size + 2 {
            fill(stream, buf, deadline)?;
        }
        body.extend_from_slice(&buf[..size]);
        buf.drain(..size + 2);
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        304 => "Not Modified",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        409 => "Conflict",
        410 => "Gone",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}

/// Writes `resp` (with `Content-Length`, and `Connection: close` when `close`).
pub fn write_response(stream: &mut TcpStream, resp: &Response, close: bool) -> io::Result<()> {
    write_head_and_body(stream, resp, close, true)
}

/// Writes `resp`'s status line and headers, and its body unless `body` is false (a HEAD).
fn write_head_and_body(
    stream: &mut TcpStream,
    resp: &Response,
    close: bool,
    body: bool,
) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {} {}\r\n", resp.status, reason(resp.status));
    if let Some(ct) = &resp.content_type {
        head.push_str(&format!("Content-Type: {ct}\r\n"));
    }
    for (k, v) in &resp.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if resp.status != 204 && resp.status != 304 {
        head.push_str(&format!("Content-Length: {}\r\n", resp.body.len()));
    }
    if close {
        head.push_str("Connection: close\r\n");
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if body {
        stream.write_all(&resp.body)?;
    }
    stream.flush()
}
