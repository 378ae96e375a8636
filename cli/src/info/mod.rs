//! The info port (`cellbase thrift --info-port P`): what an operator scrapes and reads while a
//! gateway runs, as an HBase RegionServer's info server offers it.
//!
//! - `GET /metrics`: every metric of [`cellbase::Metrics`] in the Prometheus text format
//!   ([`prometheus`]).
//! - `GET /jmx` (optionally `?qry=BEAN-NAME-PATTERN`): HBase-shaped JSON beans ([`jmx`]).
//! - `GET /`: a plain-text status page ([`status`]'s 'detailed' form plus background errors).
//!
//! Served by `tiny_http` on the gateway's bind address. Bounds: one thread answers requests
//! one at a time (each answer is built from one metrics snapshot, O(regions)); only `GET` and
//! `HEAD` are answered, request bodies are never read, every answer closes its connection.
//! Not bounded: tiny_http reads each open connection on a thread of its own and has no cap
//! on them, so the port is meant for a scraper on a trusted network (loopback by default,
//! like the gateway); docs/OPERATIONS.md says so.

pub mod jmx;
pub mod prometheus;
pub mod status;

use cellbase::Db;
use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;

/// A running info server; [`InfoServer::stop`] ends it.
pub struct InfoServer {
    server: Arc<tiny_http::Server>,
    thread: Option<JoinHandle<()>>,
    addr: SocketAddr,
}

impl std::fmt::Debug for InfoServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InfoServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl InfoServer {
    /// Binds `bind:port` (0 picks a free port) and serves `db`'s metrics on a thread.
    ///
    /// # Errors
    /// The bind's error.
    pub fn start(bind: &str, port: u16, db: Db) -> std::io::Result<InfoServer> {
        let server = tiny_http::Server::http((bind, port))
            .map(Arc::new)
            .map_err(std::io::Error::other)?;
        let addr = server
            .server_addr()
            .to_ip()
            .ok_or_else(|| std::io::Error::other("the info server is not on an IP address"))?;
        let s = server.clone();
        let thread = std::thread::Builder::new()
            .name("info-server".into())
            .spawn(move || {
                for req in s.incoming_requests() {
                    answer(&db, req);
                }
            })?;
        Ok(InfoServer {
            server,
            thread: Some(thread),
            addr,
        })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops serving and waits for the serving thread.
    pub fn stop(mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for InfoServer {
    fn drop(&mut self) {
        self.server.unblock();
    }
}

fn header(name: &str, value: &str) -> tiny_http::Header {
    // Constant ASCII names and values: always a valid header.
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes())
        .unwrap_or_else(|()| unreachable!("invalid constant header {name}"))
}

/// The body and content type for `url`, or the status code of a refusal.
pub fn respond_to(db: &Db, url: &str) -> Result<(String, &'static str), u16> {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    match path {
        "/metrics" => Ok((
            prometheus::render(db.metrics(), db.background_errors()),
            prometheus::CONTENT_TYPE,
        )),
        "/jmx" => {
            let qry = form_urlencoded::parse(query.as_bytes())
                .find(|(k, _)| k == "qry")
                .map(|(_, v)| v.into_owned());
            let v = jmx::render(&db.metrics(), &db.background_errors(), qry.as_deref());
            let body = serde_json::to_string_pretty(&v).map_err(|_| 500u16)?;
            Ok((body, "application/json; charset=utf-8"))
        }
        "/" => {
            let m = db.metrics();
            let mut body = format!(
                "cellbase {} — database {}\n\n",
                env!("CARGO_PKG_VERSION"),
                db.path().display()
            );
            body.push_str(&status::render(&m, Some("detailed")).unwrap_or_default());
            let errors = db.background_errors();
            body.push_str(&format!(
                "\nbackground errors: {} (flushes {}, compactions {}, splits {}, log write-outs {})\n",
                errors.total(),
                errors.flushes.count,
                errors.compactions.count,
                errors.splits.count,
                errors.wal_writes.count
            ));
            if let Some(last) = errors.last() {
                body.push_str(&format!(
                    "last: {} (at {} ms)\n",
                    last.message, last.at_millis
                ));
            }
            body.push_str(
                "\n/metrics  Prometheus text format\n/jmx      HBase-shaped JSON beans\n",
            );
            Ok((body, "text/plain; charset=utf-8"))
        }
        _ => Err(404),
    }
}

fn answer(db: &Db, req: tiny_http::Request) {
    use tiny_http::{Method, Response};
    if !matches!(req.method(), Method::Get | Method::Head) {
        let _ = req.respond(
            Response::from_string("only GET and HEAD\n")
                .with_status_code(405)
                .with_header(header("Allow", "GET, HEAD")),
        );
        return;
    }
    let res = match respond_to(db, req.url()) {
        Ok((body, ctype)) => Response::from_string(body)
            .with_header(header("Content-Type", ctype))
            .with_header(header("Connection", "close")),
        Err(code) => Response::from_string(format!(
            "{} not found: try /, /metrics or /jmx\n",
            req.url()
        ))
        .with_status_code(code),
    };
    let _ = req.respond(res);
}
