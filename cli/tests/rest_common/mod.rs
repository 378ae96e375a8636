//! Shared helpers for the REST gateway's integration tests: start `cellbase rest` on a free
//! port, and a minimal HTTP/1.1 client over a plain socket (one request per connection).
#![allow(dead_code)]
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

#[path = "../gateway_process/mod.rs"]
mod gateway_process;
pub use gateway_process::Server;
#[allow(unused_imports)]
pub use gateway_process::closed_cleanly_with_50_rows;

impl Server {
    /// Starts the gateway on port 0 over `dir` and reads the port from its first stdout line.
    pub fn start(dir: &Path) -> Server {
        Server::start_with(dir, &[])
    }

    /// Like [`Server::start`] with extra command-line arguments.
    pub fn start_with(dir: &Path, extra: &[&str]) -> Server {
        gateway_process::spawn("rest", dir, extra)
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Sends one request and reads the reply.
    pub fn req(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        request(self.port, method, path, headers, body)
    }

    /// `GET path` with `Accept: accept`.
    pub fn get(&self, path: &str, accept: &str) -> Reply {
        self.req("GET", path, &[("Accept", accept)], b"")
    }

    /// `method path` with a body of `content_type`.
    pub fn send(&self, method: &str, path: &str, content_type: &str, body: &str) -> Reply {
        self.req(
            method,
            path,
            &[("Content-Type", content_type)],
            body.as_bytes(),
        )
    }
}

/// A reply: status, headers (names lower-cased) and body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    /// The header `name` (lower-case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One request on a fresh connection (`Connection: close`), with a 30 s socket timeout.
pub fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    read_reply(&mut s)
}

/// Reads one reply (until the connection closes or Content-Length bytes arrived).
pub fn read_reply(s: &mut TcpStream) -> Reply {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = s.read(&mut chunk).expect("read reply");
        assert!(n > 0, "connection closed before a reply: {buf:?}");
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("bad status line in {head:?}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = buf[head_end + 4..].to_vec();
    let len = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok());
    match len {
        Some(n) => {
            while body.len() < n {
                let r = s.read(&mut chunk).expect("read body");
                assert!(r > 0, "connection closed inside the body");
                body.extend_from_slice(&chunk[..r]);
            }
            body.truncate(n);
        }
        None if status == 204 || status == 304 => {}
        None => {
            let _ = s.read_to_end(&mut body);
        }
    }
    Reply {
        status,
        headers,
        body,
    }
}

/// Standard base64 (padded), as HBase's models write it.
pub fn b64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.len();
        let v = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= n {
                out.push(A[((v >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes standard base64.
pub fn unb64(text: &str) -> Vec<u8> {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = A.iter().position(|&a| a == c).expect("base64 digit") as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

/// A JSON cell set of one row: `(column, timestamp, value)` cells.
pub fn cellset(row: &str, cells: &[(&str, Option<i64>, &str)]) -> String {
    let cells: Vec<String> = cells
        .iter()
        .map(|(c, ts, v)| match ts {
            Some(ts) => format!(
                r#"{{"column":"{}","timestamp":{ts},"$":"{}"}}"#,
                b64(c.as_bytes()),
                b64(v.as_bytes())
            ),
            None => format!(
                r#"{{"column":"{}","$":"{}"}}"#,
                b64(c.as_bytes()),
                b64(v.as_bytes())
            ),
        })
        .collect();
    format!(
        r#"{{"Row":[{{"key":"{}","Cell":[{}]}}]}}"#,
        b64(row.as_bytes()),
        cells.join(",")
    )
}

/// The `(row, column, timestamp, value)` cells of a JSON cell set, decoded.
pub fn cells_of(v: &serde_json::Value) -> Vec<(String, String, i64, String)> {
    let mut out = Vec::new();
    for r in v["Row"].as_array().expect("Row list") {
        let key = String::from_utf8(unb64(r["key"].as_str().unwrap())).unwrap();
        for c in r["Cell"].as_array().expect("Cell list") {
            out.push((
                key.clone(),
                String::from_utf8(unb64(c["column"].as_str().unwrap())).unwrap(),
                c["timestamp"].as_i64().unwrap(),
                String::from_utf8(unb64(c["$"].as_str().unwrap())).unwrap(),
            ));
        }
    }
    out
}

/// Creates table `name` with families `fams` (VERSIONS 3) through `PUT /name/schema`.
pub fn create_table(s: &Server, name: &str, fams: &[&str]) {
    let cols: Vec<String> = fams
        .iter()
        .map(|f| format!(r#"{{"name":"{f}","VERSIONS":"3"}}"#))
        .collect();
    let body = format!(r#"{{"name":"{name}","ColumnSchema":[{}]}}"#, cols.join(","));
    let path = format!("/{}/schema", name.replace(':', "%3A"));
    let r = s.send("PUT", &path, "application/json", &body);
    assert_eq!(r.status, 201, "create {name}: {}", r.text());
}
