//! Row resources: `/TABLE/ROW[/COLUMNS[/TIMESTAMP]]` GET, PUT, POST and DELETE (HBase's
//! `RowResource` with `RowSpec`'s path grammar and `RowResultGenerator`'s reads), and
//! `/TABLE/multiget` (`MultiRowResource`).
use super::http::{Request, Response};
use super::model::{
    BINARY, CellModel, Format, RowModel, body_format, cell_bytes, decode_cellset, encode_cellset,
    negotiate, rows_of,
};
use super::service::{
    Rest, bad, fail, method_not_allowed, not_found, query_params, too_big, url_decode,
};
use cellbase::{Delete, Get, LATEST_TIMESTAMP, Put, Scan, Table};

/// HBase's `RowSpec`: a row (or a `start,end` range, or a `prefix*` glob), columns
/// (`family` or `family:qualifier`, comma-separated) and a timestamp (`ts`: exactly that
/// version; `start,end`: the range `[start, end)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowSpec {
    /// The row, or the first row of a range.
    pub row: Vec<u8>,
    /// The end of a range or glob (exclusive); `None` for a single row.
    pub end_row: Option<Vec<u8>>,
    /// The columns named (sorted, deduplicated, as HBase's `TreeSet`).
    pub columns: Vec<Vec<u8>>,
    /// Start of the time range (inclusive).
    pub start_time: i64,
    /// End of the time range (exclusive), or the exact timestamp (see [`RowSpec::timestamp`]).
    pub end_time: i64,
    /// Versions to read (`?v=`; 1 by default).
    pub max_versions: u32,
}

impl RowSpec {
    /// `RowSpec.hasTimestamp`: one timestamp was given (start 0, end set).
    pub fn timestamp(&self) -> Option<i64> {
        (self.start_time == 0 && self.end_time != i64::MAX).then_some(self.end_time)
    }

    /// Parses the path after the table (`ROW[/COLUMNS[/TIMESTAMP]]`, still percent-encoded).
    pub fn parse(path: &str) -> Result<RowSpec, String> {
        let path = path.trim_start_matches('/');
        let mut parts = path.splitn(3, '/');
        let rowpart = parts.next().unwrap_or("");
        if rowpart.is_empty() {
            return Err("invalid path: no row".into());
        }
        let (mut row, mut end_row) = match rowpart.split_once(',') {
            Some((a, b)) => (url_decode(a), Some(url_decode(b))),
            None => (url_decode(rowpart), None),
        };
        // HBase emulates a suffix glob with a scan from the prefix to prefix + 0xFF.
        if row.last() == Some(&b'*') {
            if end_row.is_some() {
                return Err("invalid path: start row specified with wildcard".into());
            }
            row.pop();
            let mut end = row.clone();
            end.push(0xFF);
            end_row = Some(end);
        }
        let mut columns = Vec::new();
        if let Some(cols) = parts.next() {
            let cols: Vec<&str> = cols.split(',').collect();
            for (i, c) in cols.iter().enumerate() {
                if c.is_empty() {
                    if i + 1 < cols.len() {
                        return Err("invalid path: empty column".into());
                    }
                    continue;
                }
                columns.push(url_decode(c));
            }
        }
        columns.sort();
        columns.dedup();
        let (mut start_time, mut end_time) = (0, i64::MAX);
        if let Some(ts) = parts.next() {
            let ts = ts.trim_end_matches('/');
            let num = |t: &str| -> Result<i64, String> {
                String::from_utf8_lossy(&url_decode(t))
                    .parse()
                    .map_err(|_| format!("invalid timestamp {t:?}"))
            };
            match ts.split_once(',') {
                Some((a, b)) => {
                    let (t0, t1) = (num(a)?, num(b)?);
                    if t1 != 0 {
                        start_time = t0;
                        end_time = t1;
                    } else {
                        end_time = t0;
                    }
                }
                None if ts.is_empty() => {}
                None => end_time = num(ts)?,
            }
        }
        Ok(RowSpec {
            row,
            end_row,
            columns,
            start_time,
            end_time,
            max_versions: 1,
        })
    }

    /// The spec with `?v=` applied.
    fn with_query(mut self, req: &Request) -> Result<RowSpec, String> {
        for (k, v) in query_params(&req.query) {
            if k == "v" {
                self.max_versions = v
                    .parse::<u32>()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| format!("v must be a positive integer, got {v:?}"))?;
            }
        }
        Ok(self)
    }
}

/// Splits `family:qualifier` (HBase's `CellUtil.parseColumn`): `None` qualifier for a bare
/// family.
pub fn split_column(c: &[u8]) -> (&[u8], Option<&[u8]>) {
    match c.iter().position(|&b| b == b':') {
        Some(i) => (&c[..i], Some(&c[i + 1..])),
        None => (c, None),
    }
}

/// The columns and time range of `spec` on a Get ([`RowResultGenerator`]'s reads).
fn get_of(spec: &RowSpec, row: &[u8]) -> Get {
    let mut g = Get::new(row).max_versions(spec.max_versions);
    for c in &spec.columns {
        g = match split_column(c) {
            (f, None) => g.family(f),
            (f, Some(q)) => g.column(f, q),
        };
    }
    match spec.timestamp() {
        Some(ts) => g.timestamp(ts),
        None if spec.start_time != 0 || spec.end_time != i64::MAX => {
            g.time_range(spec.start_time, spec.end_time)
        }
        None => g,
    }
}

fn scan_of(spec: &RowSpec) -> Scan {
    let mut s = Scan::new()
        .start_row(&spec.row)
        .max_versions(spec.max_versions);
    if let Some(end) = &spec.end_row {
        s = s.stop_row(end);
    }
    for c in &spec.columns {
        s = match split_column(c) {
            (f, None) => s.family(f),
            (f, Some(q)) => s.column(f, q),
        };
    }
    match spec.timestamp() {
        Some(ts) => s.timestamp(ts),
        None if spec.start_time != 0 || spec.end_time != i64::MAX => {
            s.time_range(spec.start_time, spec.end_time)
        }
        None => s,
    }
}

impl Rest {
    fn table(&self, name: &str) -> Result<Table, Response> {
        self.db.table(name).map_err(|e| fail(&e))
    }

    /// `/TABLE/ROW...`.
    pub(super) fn row(&self, req: &Request, table: &str, rest: &str) -> Response {
        let spec = match RowSpec::parse(rest).and_then(|s| s.with_query(req)) {
            Ok(s) => s,
            Err(e) => return bad(e),
        };
        let t = match self.table(table) {
            Ok(t) => t,
            Err(r) => return r,
        };
        let result = match req.method.as_str() {
            "GET" => self.row_get(req, &t, &spec),
            "PUT" | "POST" => self.row_put(req, &t, &spec),
            "DELETE" => row_delete(&t, &spec),
            _ => Ok(method_not_allowed()),
        };
        result.unwrap_or_else(|r| r)
    }

    fn row_get(&self, req: &Request, t: &Table, spec: &RowSpec) -> Result<Response, Response> {
        let fmt = negotiate(req, &[Format::Xml, Format::Json, Format::Binary])?;
        let results = match &spec.end_row {
            None => vec![t.get(get_of(spec, &spec.row)).map_err(|e| fail(&e))?],
            Some(_) => {
                let mut out = Vec::new();
                let mut bytes = 0usize;
                for r in t.scan(scan_of(spec)).map_err(|e| fail(&e))? {
                    let r = r.map_err(|e| fail(&e))?;
                    bytes += r
                        .cells()
                        .iter()
                        .map(|c| c.value().len() * 2 + 64)
                        .sum::<usize>();
                    if bytes > self.max_reply {
                        return Err(too_big());
                    }
                    out.push(r);
                }
                out
            }
        };
        let rows = rows_of(&results);
        if rows.is_empty() {
            return Err(not_found());
        }
        if fmt == Format::Binary {
            // `RowResource.getBinary`: one column of one row, the newest value, raw.
            if spec.columns.len() != 1 || spec.end_row.is_some() {
                return Err(bad("a binary read names exactly one column of one row"));
            }
            let Some(c) = rows.first().and_then(|r| r.cells.first()) else {
                return Err(not_found());
            };
            return Ok(Response::body(200, BINARY, c.value.clone())
                .with_header("X-Timestamp", c.timestamp.unwrap_or(0).to_string()));
        }
        let size: usize = rows.iter().flat_map(|r| &r.cells).map(cell_bytes).sum();
        if size > self.max_reply {
            return Err(too_big());
        }
        Ok(encode_cellset(&rows, fmt))
    }

    fn row_put(&self, req: &Request, t: &Table, spec: &RowSpec) -> Result<Response, Response> {
        let fmt = body_format(req)?;
        let rows = if fmt == Format::Binary {
            // `RowResource.updateBinary`: the URL names the row and the one column; the
            // timestamp comes from the URL or the X-Timestamp header.
            let Some(col) = spec.columns.first() else {
                return Err(bad("a binary put names its column in the path"));
            };
            let ts = match (spec.timestamp(), req.header("x-timestamp")) {
                (Some(ts), _) => Some(ts),
                (None, Some(h)) => Some(
                    h.parse()
                        .map_err(|_| bad(format!("X-Timestamp {h:?} is not a long")))?,
                ),
                (None, None) => None,
            };
            vec![RowModel {
                key: Some(spec.row.clone()),
                cells: vec![CellModel {
                    column: Some(col.clone()),
                    timestamp: ts,
                    value: req.body.clone(),
                }],
            }]
        } else if fmt == Format::Text {
            return Err(Response::text(
                415,
                "Unsupported Media Type: send text/xml, application/json or \
                 application/octet-stream",
            ));
        } else {
            decode_cellset(&req.body, fmt).map_err(bad)?
        };
        let check = query_params(&req.query)
            .into_iter()
            .find(|(k, _)| k == "check")
            .map(|(_, v)| v);
        match check.as_deref() {
            None => {}
            Some("put") => return super::check::check_and_put(t, rows, spec),
            Some("delete") => return super::check::check_and_delete(t, rows, spec),
            Some(other) => {
                return Err(bad(format!(
                    "check={other} is not served by this gateway (check=put and check=delete are)"
                )));
            }
        }
        let mut puts = Vec::with_capacity(rows.len());
        for r in rows {
            let key = r.key.unwrap_or_else(|| spec.row.clone());
            let mut p = Put::new(&key);
            for c in r.cells {
                let col = match c.column {
                    Some(col) => col,
                    None => spec
                        .columns
                        .first()
                        .cloned()
                        .ok_or_else(|| bad("a cell has no column"))?,
                };
                let (f, q) = split_column(&col);
                let Some(q) = q else {
                    // HBase's `RowResource.update`: `parseColumn` must give family and
                    // qualifier.
                    return Err(bad(format!(
                        "column {} has no qualifier (family:qualifier)",
                        String::from_utf8_lossy(&col)
                    )));
                };
                p = p.add_at(f, q, c.timestamp.unwrap_or(LATEST_TIMESTAMP), &c.value);
            }
            puts.push(p);
        }
        t.put_all(puts).map_err(|e| fail(&e))?;
        Ok(Response::empty(200))
    }

    /// `/TABLE/multiget?row=R1&row=R2[&v=N]`: each `row` is a RowSpec of its own.
    pub(super) fn multiget(&self, req: &Request, table: &str) -> Response {
        if req.method != "GET" {
            return method_not_allowed();
        }
        let run = || -> Result<Response, Response> {
            let fmt = negotiate(req, &[Format::Xml, Format::Json])?;
            let t = self.table(table)?;
            let mut versions = 1;
            let mut specs = Vec::new();
            for (k, v) in query_params(&req.query) {
                match k.as_str() {
                    "row" => specs.push(RowSpec::parse(&v).map_err(bad)?),
                    "v" => {
                        versions = v
                            .parse::<u32>()
                            .ok()
                            .filter(|n| *n >= 1)
                            .ok_or_else(|| bad("v must be a positive integer"))?;
                    }
                    _ => {}
                }
            }
            let mut gets = Vec::new();
            for mut s in specs {
                s.max_versions = versions;
                gets.push(get_of(&s, &s.row));
            }
            let mut rows = Vec::new();
            let mut size = 0;
            for chunk in gets.chunks(256) {
                let results = t.get_many(chunk.to_vec()).map_err(|e| fail(&e))?;
                for r in rows_of(&results) {
                    size += r.cells.iter().map(cell_bytes).sum::<usize>();
                    if size > self.max_reply {
                        return Err(too_big());
                    }
                    rows.push(r);
                }
            }
            if rows.is_empty() {
                return Err(not_found());
            }
            Ok(encode_cellset(&rows, fmt))
        };
        run().unwrap_or_else(|r| r)
    }
}

/// `RowResource.delete`: columns given delete those columns' versions (up to the timestamp,
/// if one is given) or whole families; none delete the row.
fn row_delete(t: &Table, spec: &RowSpec) -> Result<Response, Response> {
    if spec.end_row.is_some() {
        return Err(bad("a delete names one row"));
    }
    let mut d = Delete::new(&spec.row);
    if spec.columns.is_empty()
        && let Some(ts) = spec.timestamp()
    {
        d = d.up_to(ts);
    }
    for c in &spec.columns {
        d = match (split_column(c), spec.timestamp()) {
            ((f, None), None) => d.family(f),
            ((f, None), Some(ts)) => d.family_up_to(f, ts),
            ((f, Some(q)), None) => d.all_versions(f, q),
            ((f, Some(q)), Some(ts)) => d.versions_up_to(f, q, ts),
        };
    }
    t.delete(d).map_err(|e| fail(&e))?;
    Ok(Response::empty(200))
}
