//! Stateful scanners: `POST`/`PUT /TABLE/scanner` with a `ScannerModel` (201 and a `Location`),
//! `GET /TABLE/scanner/ID` for the next cells (HBase's `ScannerInstanceResource`: at most
//! `batch` cells, or `?c=`; at most `?n=` rows; 204 once exhausted), `DELETE` to close.
//! Scanners are bounded in number (`--max-scanners`, `--max-scanners-per-client`: 503 beyond)
//! and expire after `--scanner-idle-secs` untouched; a reply stops early at `--max-reply-mib`.
use super::filter;
use super::http::{Request, Response};
use super::model::{
    BINARY, CellModel, Format, RowModel, b64, body_format, cell_bytes, encode_cellset, negotiate,
    parse_xml, unb64,
};
use super::rows::split_column;
use super::service::{Rest, bad, fail, method_not_allowed, not_found};
use cellbase::{Scan, Scanner};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One open scanner.
struct Slot {
    table: String,
    scanner: Scanner,
    /// Cells read from the scanner and not yet returned: (row, cell).
    pending: VecDeque<(Vec<u8>, CellModel)>,
    batch: usize,
    last_used: Instant,
    owner: IpAddr,
}

struct Inner {
    next: u64,
    /// Each scanner with the client that opened it (kept here, so closing one never waits
    /// for a read of it in progress while the registry is locked).
    open: HashMap<String, (IpAddr, Arc<Mutex<Slot>>)>,
    per_client: HashMap<IpAddr, usize>,
}

/// The open scanners of the gateway.
pub struct Scanners {
    inner: Mutex<Inner>,
    idle: Duration,
    max_open: usize,
    max_per_client: usize,
}

impl std::fmt::Debug for Scanners {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scanners")
            .field("open", &lock(&self.inner).open.len())
            .finish()
    }
}

impl Scanners {
    /// A registry closing scanners idle for `idle`, holding at most `max_open` in all and
    /// `max_per_client` per client address.
    pub fn new(idle: Duration, max_open: usize, max_per_client: usize) -> Self {
        Scanners {
            inner: Mutex::new(Inner {
                next: 0,
                open: HashMap::new(),
                per_client: HashMap::new(),
            }),
            idle,
            max_open,
            max_per_client,
        }
    }

    /// Closes scanners untouched since `now - idle`.
    pub fn expire(&self, now: Instant) {
        let mut g = lock(&self.inner);
        let stale: Vec<String> = g
            .open
            .iter()
            .filter(|(_, (_, s))| {
                s.try_lock()
                    .map(|s| now.saturating_duration_since(s.last_used) >= self.idle)
                    .unwrap_or(false)
            })
            .map(|(k, _)| k.clone())
            .collect();
        for id in stale {
            remove(&mut g, &id);
        }
    }

    /// How many scanners are open.
    pub fn len(&self) -> usize {
        lock(&self.inner).open.len()
    }

    /// True if none is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn add(&self, slot: Slot) -> Result<String, Response> {
        self.expire(Instant::now());
        let mut g = lock(&self.inner);
        let mine = g.per_client.get(&slot.owner).copied().unwrap_or(0);
        if g.open.len() >= self.max_open || mine >= self.max_per_client {
            return Err(Response::text(
                503,
                format!(
                    "Unavailable\r\ntoo many open scanners ({} open, {mine} from this client; \
                     limits --max-scanners {} and --max-scanners-per-client {}): delete \
                     finished scanners",
                    g.open.len(),
                    self.max_open,
                    self.max_per_client
                ),
            ));
        }
        g.next += 1;
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        let id = format!("{ms}{:x}", g.next);
        *g.per_client.entry(slot.owner).or_insert(0) += 1;
        g.open
            .insert(id.clone(), (slot.owner, Arc::new(Mutex::new(slot))));
        Ok(id)
    }

    fn get(&self, id: &str) -> Option<Arc<Mutex<Slot>>> {
        lock(&self.inner).open.get(id).map(|(_, s)| s.clone())
    }

    fn close(&self, id: &str) -> bool {
        remove(&mut lock(&self.inner), id)
    }
}

fn remove(g: &mut Inner, id: &str) -> bool {
    let Some((owner, _slot)) = g.open.remove(id) else {
        return false;
    };
    if let Some(n) = g.per_client.get_mut(&owner) {
        *n -= 1;
        if *n == 0 {
            g.per_client.remove(&owner);
        }
    }
    true
}

/// A parsed `ScannerModel`.
#[derive(Debug, Default)]
struct Model {
    start_row: Vec<u8>,
    end_row: Vec<u8>,
    columns: Vec<Vec<u8>>,
    batch: Option<i64>,
    start_time: Option<i64>,
    end_time: Option<i64>,
    max_versions: Option<i64>,
    filter: Option<String>,
    limit: Option<i64>,
    reversed: bool,
    include_start_row: bool,
    include_stop_row: bool,
}

fn num(v: &str, what: &str) -> Result<i64, String> {
    v.trim()
        .parse()
        .map_err(|_| format!("{what} must be a number, got {v:?}"))
}

fn parse_model(body: &[u8], fmt: Format) -> Result<Model, String> {
    let mut m = Model {
        include_start_row: true,
        ..Model::default()
    };
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(m);
    }
    if fmt == Format::Json {
        let v: Value = serde_json::from_slice(body).map_err(|e| format!("malformed JSON: {e}"))?;
        // starbase sends `""` for "no settings"; HBase's Jackson reads it as an empty model.
        if v.is_null() || v.as_str() == Some("") {
            return Ok(m);
        }
        let o = v.as_object().ok_or("a Scanner must be a JSON object")?;
        for (k, v) in o {
            let text = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            match k.as_str() {
                "column" => {
                    for c in v.as_array().ok_or("column must be a list")? {
                        m.columns
                            .push(unb64(c.as_str().unwrap_or_default(), "column")?);
                    }
                }
                "labels" => {}
                _ => apply(&mut m, k, &text)?,
            }
        }
    } else {
        let root = parse_xml(body)?;
        if root.name != "Scanner" {
            return Err(format!("expected <Scanner>, got <{}>", root.name));
        }
        for (k, v) in &root.attrs {
            apply(&mut m, k, v)?;
        }
        for c in root.kids("column") {
            m.columns.push(unb64(&c.text, "column")?);
        }
        if let Some(f) = root.kids("filter").next() {
            m.filter = Some(f.text.clone());
        }
    }
    Ok(m)
}

fn apply(m: &mut Model, k: &str, v: &str) -> Result<(), String> {
    let truth = |v: &str| v.eq_ignore_ascii_case("true");
    match k {
        "startRow" => m.start_row = unb64(v, k)?,
        "endRow" => m.end_row = unb64(v, k)?,
        "batch" => m.batch = Some(num(v, k)?),
        "startTime" => m.start_time = Some(num(v, k)?),
        "endTime" => m.end_time = Some(num(v, k)?),
        "maxVersions" => m.max_versions = Some(num(v, k)?),
        "filter" => m.filter = Some(v.to_string()),
        "limit" => m.limit = Some(num(v, k)?),
        "reversed" => m.reversed = truth(v),
        "includeStartRow" => m.include_start_row = truth(v),
        "includeStopRow" => m.include_stop_row = truth(v),
        // Hints with no effect here (no block cache choice per scan, no client caching).
        "caching" | "cacheBlocks" => {}
        other => return Err(format!("unknown Scanner attribute {other}")),
    }
    Ok(())
}

/// `ScannerResultGenerator`'s scan for a model.
fn scan_of(m: &Model) -> Result<Scan, String> {
    let mut start = m.start_row.clone();
    if !m.include_start_row && !start.is_empty() {
        start.push(0);
    }
    let mut s = Scan::new().reversed(m.reversed);
    if !start.is_empty() {
        s = s.start_row(&start);
    }
    if !m.end_row.is_empty() {
        let mut end = m.end_row.clone();
        if m.include_stop_row {
            end.push(0);
        }
        s = s.stop_row(&end);
    }
    for c in &m.columns {
        s = match split_column(c) {
            (f, None) => s.family(f),
            (f, Some(q)) => s.column(f, q),
        };
    }
    match m.max_versions {
        None => s = s.all_versions(),
        Some(n) if n < 1 => return Err(format!("maxVersions must be positive, got {n}")),
        Some(n) => s = s.max_versions(u32::try_from(n).unwrap_or(u32::MAX)),
    }
    let (t0, t1) = (m.start_time.unwrap_or(0), m.end_time.unwrap_or(i64::MAX));
    if t0 != 0 || t1 != i64::MAX {
        s = s.time_range(t0, t1);
    }
    if let Some(n) = m.limit
        && n > 0
    {
        s = s.limit(n as u64);
    }
    if let Some(f) = &m.filter
        && !f.trim().is_empty()
    {
        s = s.filter(filter::parse(f)?);
    }
    Ok(s)
}

impl Slot {
    /// The next cell, reading the next row from the scanner when the pending ones are gone.
    fn next_cell(&mut self) -> Result<Option<(Vec<u8>, CellModel)>, Response> {
        loop {
            if let Some(c) = self.pending.pop_front() {
                return Ok(Some(c));
            }
            match self.scanner.next() {
                None => return Ok(None),
                Some(Err(e)) => return Err(fail(&e)),
                Some(Ok(r)) => {
                    for c in r.cells() {
                        let mut col = c.family().to_vec();
                        col.push(b':');
                        col.extend_from_slice(c.qualifier());
                        self.pending.push_back((
                            r.row().to_vec(),
                            CellModel {
                                column: Some(col),
                                timestamp: Some(c.timestamp()),
                                value: c.value().to_vec(),
                            },
                        ));
                    }
                }
            }
        }
    }
}

impl Rest {
    /// `POST` or `PUT /TABLE/scanner`.
    pub(super) fn scanner_open(&self, req: &Request, table: &str, host: &str) -> Response {
        if req.method != "POST" && req.method != "PUT" {
            return method_not_allowed();
        }
        let fmt = match body_format(req) {
            Ok(f @ (Format::Xml | Format::Json)) => f,
            Ok(_) => return Response::text(415, "Unsupported Media Type: send XML or JSON"),
            // No Content-Type with an empty body: every default.
            Err(_) if req.body.is_empty() => Format::Xml,
            Err(r) => return r,
        };
        let model = match parse_model(&req.body, fmt) {
            Ok(m) => m,
            Err(e) => return bad(e),
        };
        let scan = match scan_of(&model) {
            Ok(s) => s,
            Err(e) => return bad(e),
        };
        let t = match self.db.table(table) {
            Ok(t) => t,
            Err(e) => return fail(&e),
        };
        let scanner = match t.scan(scan) {
            Ok(s) => s,
            Err(e) => return fail(&e),
        };
        let batch = match model.batch {
            Some(b) if b > 0 => usize::try_from(b).unwrap_or(usize::MAX),
            _ => usize::MAX,
        };
        let slot = Slot {
            table: table.to_string(),
            scanner,
            pending: VecDeque::new(),
            batch,
            last_used: Instant::now(),
            owner: req.peer,
        };
        match self.scanners.add(slot) {
            Ok(id) => {
                let path = req.path.trim_end_matches('/');
                Response::empty(201).with_header("Location", format!("http://{host}{path}/{id}"))
            }
            Err(r) => r,
        }
    }

    /// `GET` or `DELETE /TABLE/scanner/ID`.
    pub(super) fn scanner_instance(&self, req: &Request, table: &str, id: &str) -> Response {
        match req.method.as_str() {
            "DELETE" => {
                self.scanners.close(id);
                Response::empty(200)
            }
            "GET" => {
                let Some(slot) = self.scanners.get(id) else {
                    return not_found();
                };
                let mut slot = lock(&slot);
                if slot.table != table {
                    return not_found();
                }
                slot.last_used = Instant::now();
                let r = self.scanner_next(req, &mut slot);
                slot.last_used = Instant::now();
                r.unwrap_or_else(|r| r)
            }
            _ => method_not_allowed(),
        }
    }

    fn scanner_next(&self, req: &Request, slot: &mut Slot) -> Result<Response, Response> {
        let fmt = negotiate(req, &[Format::Xml, Format::Json, Format::Binary])?;
        if fmt == Format::Binary {
            let Some((row, c)) = slot.next_cell()? else {
                return Ok(Response::empty(204));
            };
            return Ok(Response::body(200, BINARY, c.value)
                .with_header("Cache-Control", "no-cache")
                .with_header("X-Row", b64(&row))
                .with_header("X-Column", b64(c.column.as_deref().unwrap_or_default()))
                .with_header("X-Timestamp", c.timestamp.unwrap_or(0).to_string()));
        }
        let mut max_rows = 0usize;
        let mut limit = slot.batch;
        for (k, v) in super::service::query_params(&req.query) {
            match k.as_str() {
                "n" => max_rows = v.parse().map_err(|_| bad("n must be a number"))?,
                "c" => {
                    let c: usize = v.parse().map_err(|_| bad("c must be a number"))?;
                    if c > 0 {
                        limit = c;
                    }
                }
                _ => {}
            }
        }
        let mut rows: Vec<RowModel> = Vec::new();
        let mut count = 0usize;
        let mut bytes = 0usize;
        while count < limit {
            let Some((row, cell)) = slot.next_cell()? else {
                break;
            };
            let size = cell_bytes(&cell);
            // The reply budget (HBase's max result size): stop before the cell that would
            // pass it, unless the reply is still empty.
            if count > 0 && bytes + size > self.max_reply {
                slot.pending.push_front((row, cell));
                break;
            }
            let new_row = rows.last().and_then(|r| r.key.as_deref()) != Some(row.as_slice());
            if new_row {
                if max_rows > 0 && rows.len() >= max_rows {
                    slot.pending.push_front((row, cell));
                    break;
                }
                rows.push(RowModel {
                    key: Some(row),
                    cells: Vec::new(),
                });
            }
            if let Some(last) = rows.last_mut() {
                last.cells.push(cell);
            }
            bytes += size;
            count += 1;
        }
        if rows.is_empty() {
            return Ok(Response::empty(204));
        }
        Ok(encode_cellset(&rows, fmt).with_header("Cache-Control", "no-cache"))
    }
}
