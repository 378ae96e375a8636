//! The REST service: the database, the scanner registry and the limits every resource shares,
//! the routing of paths to HBase's resources (`RootResource`, `VersionResource`,
//! `StorageClusterStatusResource`, `NamespacesResource`, `TableResource` and its schema,
//! regions, scanner, multiget and row sub-resources), and HBase's mapping of failures onto
//! status codes (`ResourceBase.processException`).
use super::http::{Handler, Request, Response};
use super::scanner::Scanners;
use cellbase::{Db, Error};

/// The service state shared by every connection.
#[derive(Debug)]
pub struct Rest {
    /// The database served.
    pub db: Db,
    /// Open scanners.
    pub scanners: Scanners,
    /// Maximum bytes of one reply body.
    pub max_reply: usize,
    /// `host:port` reported as the region server (`/TABLE/regions`, `/status/cluster`).
    pub location: String,
    /// When the gateway started, in ms since the epoch (the node's `startCode`).
    pub started_ms: u64,
}

/// A percent-decoded path segment (`+` stays `+`; see [`url_decode`] for RowSpec's decoding).
pub fn decode_segment(s: &str) -> Vec<u8> {
    percent_encoding::percent_decode_str(s).collect()
}

/// Java's `URLDecoder.decode` as HBase's `RowSpec` applies it: `+` is a space, `%XX` a byte.
pub fn url_decode(s: &str) -> Vec<u8> {
    decode_segment(&s.replace('+', " "))
}

/// The query parameters, decoded as forms are.
pub fn query_params(q: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(q.as_bytes()).into_owned().collect()
}

/// HBase's answer to a failure (`ResourceBase.processException`): 404 for a missing table
/// (or namespace) or column family, 400 for a bad argument (a `RuntimeException` there), 503
/// for anything else (a disabled table, a namespace still holding tables, I/O).
pub fn fail(e: &Error) -> Response {
    match e {
        Error::TableNotFound(_) | Error::NamespaceNotFound(_) | Error::NoSuchFamily { .. } => {
            Response::text(404, format!("Not found\r\n{e}"))
        }
        Error::InvalidArgument(_) => Response::text(400, format!("Bad request\r\n{e}")),
        _ => Response::text(503, format!("Unavailable\r\n{e}")),
    }
}

/// A 400 answer with HBase's "Bad request" prefix.
pub fn bad(why: impl std::fmt::Display) -> Response {
    Response::text(400, format!("Bad request\r\n{why}"))
}

/// HBase's 404 answer.
pub fn not_found() -> Response {
    Response::text(404, "Not found")
}

/// The 405 answer for a method a resource does not serve.
pub fn method_not_allowed() -> Response {
    Response::text(405, "Method Not Allowed")
}

/// The 503 answer for a reply over `--max-reply-mib`.
pub fn too_big() -> Response {
    Response::text(
        503,
        "Unavailable\r\nthe reply would exceed --max-reply-mib; narrow the request or use a \
         scanner",
    )
}

impl Handler for Rest {
    fn handle(&self, req: &Request, host: &str) -> Response {
        let path = req.path.trim_start_matches('/');
        let (first, rest) = match path.split_once('/') {
            Some((a, b)) => (a, b),
            None => (path, ""),
        };
        let segs: Vec<&str> = rest.split('/').filter(|s| !s.is_empty()).collect();
        let m = req.method.as_str();
        match (first, segs.as_slice()) {
            ("", []) => self.table_list(req, None),
            ("version", []) => self.version(req),
            ("version", ["rest"]) => self.version(req),
            ("version", ["cluster"]) => self.cluster_version(req),
            ("status", ["cluster"]) => self.cluster_status(req),
            ("namespaces", []) => self.namespaces(req),
            ("namespaces", [ns]) => self.namespace(req, &decode_segment(ns)),
            ("namespaces", [ns, "tables"]) => {
                let ns = String::from_utf8_lossy(&decode_segment(ns)).into_owned();
                match m {
                    "GET" => self.table_list(req, Some(&ns)),
                    _ => method_not_allowed(),
                }
            }
            _ => {
                let table = String::from_utf8_lossy(&decode_segment(first)).into_owned();
                match segs.as_slice() {
                    ["schema"] => self.schema(req, &table),
                    ["regions"] => self.regions(req, &table),
                    ["exists"] => match self.db.describe(&table) {
                        Ok(_) => Response::empty(200),
                        Err(e) => fail(&e),
                    },
                    ["scanner"] => self.scanner_open(req, &table, host),
                    ["scanner", id] => self.scanner_instance(req, &table, id),
                    ["multiget"] => self.multiget(req, &table),
                    [] => not_found(),
                    _ => self.row(req, &table, rest),
                }
            }
        }
    }
}
