//! The bodies HBase's REST models read and write: content negotiation, a small bounded XML
//! tree (quick-xml), and the cell set (`CellSetModel`, `RowModel`, `CellModel`) in JSON and
//! XML with base64 row keys, columns and values as HBase's JAXB/Jackson bindings encode them.
use super::http::{Request, Response};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use quick_xml::events::Event;
use serde_json::{Map, Value};

/// `Content-Type` of XML bodies (HBase's `MIMETYPE_XML`).
pub const XML: &str = "text/xml";
/// `Content-Type` of JSON bodies (HBase's `MIMETYPE_JSON`).
pub const JSON: &str = "application/json";
/// `Content-Type` of raw cell values (HBase's `MIMETYPE_BINARY`).
pub const BINARY: &str = "application/octet-stream";
/// `Content-Type` of plain-text answers (HBase's `MIMETYPE_TEXT`).
pub const TEXT: &str = "text/plain";

/// The XML declaration JAXB writes first.
pub const XML_DECL: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#;

/// A representation a resource can produce or read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `text/plain`.
    Text,
    /// `text/xml` or `application/xml`.
    Xml,
    /// `application/json`.
    Json,
    /// `application/octet-stream`.
    Binary,
    /// `application/x-protobuf` (not served: 406 / 415).
    Protobuf,
}

fn format_of(mime: &str) -> Option<Format> {
    let m = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match m.as_str() {
        "text/plain" => Some(Format::Text),
        "text/xml" | "application/xml" => Some(Format::Xml),
        "application/json" => Some(Format::Json),
        "application/octet-stream" => Some(Format::Binary),
        "application/x-protobuf" | "application/protobuf" => Some(Format::Protobuf),
        _ => None,
    }
}

/// The representation to answer with, chosen from `Accept` among `offered` (in the resource's
/// order of preference, as Jersey picks from `@Produces`): the first offered type the client
/// accepts, the first offered for `*/*` or no `Accept`. `Err` is the 406 answer.
pub fn negotiate(req: &Request, offered: &[Format]) -> Result<Format, Response> {
    let accept = req.header("accept").unwrap_or("*/*");
    let mut wanted = Vec::new();
    let mut any = false;
    for part in accept.split(',') {
        let m = part.split(';').next().unwrap_or("").trim();
        if m == "*/*" || m.is_empty() {
            any = true;
        } else if m == "text/*" {
            wanted.extend([Format::Text, Format::Xml]);
        } else if let Some(f) = format_of(m) {
            wanted.push(f);
        }
    }
    // The client's order first (curl and the PyPI clients send one type).
    for w in &wanted {
        if offered.contains(w) && *w != Format::Protobuf {
            return Ok(*w);
        }
    }
    if any || accept.trim().is_empty() {
        return Ok(offered.first().copied().unwrap_or(Format::Xml));
    }
    Err(Response::text(
        406,
        "Not Acceptable: this gateway serves text/plain, text/xml, application/json and \
         application/octet-stream (no protobuf)",
    ))
}

/// The format of a request body, from `Content-Type` (`Err` is the 415 answer).
pub fn body_format(req: &Request) -> Result<Format, Response> {
    match req.header("content-type").and_then(format_of) {
        Some(Format::Protobuf) | None => Err(Response::text(
            415,
            "Unsupported Media Type: send text/xml, application/json or \
             application/octet-stream",
        )),
        Some(f) => Ok(f),
    }
}

/// Base64 as HBase writes it (standard alphabet, padded).
pub fn b64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// Decodes base64 (standard alphabet; padding optional, whitespace ignored).
pub fn unb64(text: &str, what: &str) -> Result<Vec<u8>, String> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let t = t.trim_end_matches('=');
    base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(t)
        .map_err(|e| format!("{what} is not base64: {e}"))
}

/// A JSON object written in the order its fields are added (HBase's Jackson bindings write
/// model fields in declaration order, not sorted).
#[derive(Debug, Default)]
pub struct Obj(String);

impl Obj {
    /// An empty object.
    pub fn new() -> Obj {
        Obj(String::from("{"))
    }

    /// Adds a field whose value is serialized by serde_json.
    pub fn field(self, k: &str, v: impl serde::Serialize) -> Obj {
        let v = serde_json::to_string(&v).unwrap_or_else(|_| "null".into());
        self.raw(k, &v)
    }

    /// Adds a field whose value is JSON text already.
    pub fn raw(mut self, k: &str, json_text: &str) -> Obj {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        self.0
            .push_str(&serde_json::to_string(k).unwrap_or_else(|_| "\"\"".into()));
        self.0.push(':');
        self.0.push_str(json_text);
        self
    }

    /// The object's JSON text.
    pub fn done(mut self) -> String {
        self.0.push('}');
        self.0
    }
}

/// A JSON array of JSON texts.
pub fn arr(items: impl IntoIterator<Item = String>) -> String {
    let v: Vec<String> = items.into_iter().collect();
    format!("[{}]", v.join(","))
}

/// Escapes text for an XML attribute or element.
pub fn esc(s: &str) -> String {
    quick_xml::escape::escape(s).into_owned()
}

/// An XML element: name, attributes, child elements and text.
#[derive(Debug, Default)]
pub struct Element {
    /// Local name.
    pub name: String,
    /// Attributes in document order (values unescaped).
    pub attrs: Vec<(String, String)>,
    /// Child elements.
    pub children: Vec<Element>,
    /// Concatenated text content (unescaped).
    pub text: String,
}

impl Element {
    /// The attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Child elements named `name`.
    pub fn kids<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }
}

/// The deepest XML nesting accepted (HBase's models nest three levels).
const MAX_XML_DEPTH: usize = 32;

/// Parses an XML document into its root element (no DTDs or entities beyond XML's own).
pub fn parse_xml(body: &[u8]) -> Result<Element, String> {
    let mut reader = quick_xml::Reader::from_reader(body);
    let mut stack: Vec<Element> = Vec::new();
    let mut root = None;
    let bad = |e: &dyn std::fmt::Display| format!("malformed XML: {e}");
    loop {
        let ev = reader.read_event().map_err(|e| bad(&e))?;
        match ev {
            Event::Start(ref s) | Event::Empty(ref s) => {
                if root.is_some() {
                    return Err("malformed XML: more than one root element".into());
                }
                if stack.len() >= MAX_XML_DEPTH {
                    return Err(format!("XML nested deeper than {MAX_XML_DEPTH} levels"));
                }
                stack.push(element(s)?);
                if matches!(ev, Event::Empty(_)) {
                    close(&mut stack, &mut root);
                }
            }
            Event::End(_) => close(&mut stack, &mut root),
            Event::Text(t) => {
                if let Some(top) = stack.last_mut() {
                    let s = t.xml10_content();
                    let s = quick_xml::escape::unescape(&s).map_err(|e| bad(&e))?;
                    top.text.push_str(&s);
                }
            }
            Event::CData(t) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&t.xml10_content());
                }
            }
            Event::GeneralRef(r) => {
                if let Some(top) = stack.last_mut() {
                    let entity = format!("&{};", &*r);
                    let s = quick_xml::escape::unescape(&entity).map_err(|e| bad(&e))?;
                    top.text.push_str(&s);
                }
            }
            Event::DocType(_) => return Err("XML DOCTYPE declarations are not accepted".into()),
            Event::Eof => break,
            _ => {}
        }
    }
    if !stack.is_empty() {
        return Err("malformed XML: unclosed element".into());
    }
    root.ok_or_else(|| "empty XML document".into())
}

fn element(s: &quick_xml::events::BytesStart<'_>) -> Result<Element, String> {
    let bad = |e: &dyn std::fmt::Display| format!("malformed XML: {e}");
    let mut el = Element {
        name: s.local_name().as_ref().to_string(),
        ..Element::default()
    };
    for a in s.attributes() {
        let a = a.map_err(|e| bad(&e))?;
        let v = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|e| bad(&e))?
            .into_owned();
        el.attrs.push((a.key.local_name().as_ref().to_string(), v));
    }
    Ok(el)
}

fn close(stack: &mut Vec<Element>, root: &mut Option<Element>) {
    if let Some(done) = stack.pop() {
        match stack.last_mut() {
            Some(parent) => parent.children.push(done),
            None => *root = Some(done),
        }
    }
}

/// One cell of a cell set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellModel {
    /// `family:qualifier` (or `family` alone in a request).
    pub column: Option<Vec<u8>>,
    /// The timestamp (`None`: the server's "now" on writes).
    pub timestamp: Option<i64>,
    /// The value.
    pub value: Vec<u8>,
}

/// One row of a cell set.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RowModel {
    /// The row key (`None` in a request: the URL's row).
    pub key: Option<Vec<u8>>,
    /// The cells.
    pub cells: Vec<CellModel>,
}

/// The rows of `results` as cell-set rows.
pub fn rows_of(results: &[cellbase::RowResult]) -> Vec<RowModel> {
    results
        .iter()
        .filter(|r| !r.is_empty())
        .map(|r| RowModel {
            key: Some(r.row().to_vec()),
            cells: r
                .cells()
                .iter()
                .map(|c| {
                    let mut col = c.family().to_vec();
                    col.push(b':');
                    col.extend_from_slice(c.qualifier());
                    CellModel {
                        column: Some(col),
                        timestamp: Some(c.timestamp()),
                        value: c.value().to_vec(),
                    }
                })
                .collect(),
        })
        .collect()
}

/// Bytes a cell set's JSON or XML takes, roughly (base64 grows by a third): the reply budget.
pub fn cell_bytes(c: &CellModel) -> usize {
    (c.column.as_ref().map_or(0, Vec::len) + c.value.len()) * 4 / 3 + 64
}

/// A `CellSet` body in `fmt` (JSON or XML).
pub fn encode_cellset(rows: &[RowModel], fmt: Format) -> Response {
    if fmt == Format::Json {
        let rows = arr(rows.iter().map(|r| {
            let cells = arr(r.cells.iter().map(|c| {
                Obj::new()
                    .field("column", b64(c.column.as_deref().unwrap_or_default()))
                    .field("timestamp", c.timestamp.unwrap_or(i64::MAX))
                    .field("$", b64(&c.value))
                    .done()
            }));
            Obj::new()
                .field("key", b64(r.key.as_deref().unwrap_or_default()))
                .raw("Cell", &cells)
                .done()
        }));
        let body = Obj::new().raw("Row", &rows).done();
        return Response::body(200, JSON, body.into_bytes());
    }
    let mut s = String::from(XML_DECL);
    s.push_str("<CellSet>");
    for r in rows {
        s.push_str(&format!(
            "<Row key=\"{}\">",
            b64(r.key.as_deref().unwrap_or_default())
        ));
        for c in &r.cells {
            s.push_str(&format!(
                "<Cell column=\"{}\" timestamp=\"{}\">{}</Cell>",
                b64(c.column.as_deref().unwrap_or_default()),
                c.timestamp.unwrap_or(i64::MAX),
                b64(&c.value)
            ));
        }
        s.push_str("</Row>");
    }
    s.push_str("</CellSet>");
    Response::body(200, XML, s.into_bytes())
}

fn json_str<'a>(o: &'a Map<String, Value>, k: &str) -> Option<&'a str> {
    o.get(k).and_then(Value::as_str)
}

fn json_ts(v: Option<&Value>) -> Result<Option<i64>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_i64()
            .map(Some)
            .ok_or_else(|| format!("timestamp {n} is not a long")),
        Some(Value::String(s)) => s
            .parse()
            .map(Some)
            .map_err(|_| format!("timestamp {s:?} is not a long")),
        Some(other) => Err(format!("timestamp {other} is not a long")),
    }
}

/// Decodes a `CellSet` request body (JSON or XML).
pub fn decode_cellset(body: &[u8], fmt: Format) -> Result<Vec<RowModel>, String> {
    let mut rows = Vec::new();
    if fmt == Format::Json {
        let v: Value = serde_json::from_slice(body).map_err(|e| format!("malformed JSON: {e}"))?;
        let list = v
            .get("Row")
            .and_then(Value::as_array)
            .ok_or("a CellSet needs a \"Row\" list")?;
        for r in list {
            let o = r.as_object().ok_or("a Row must be an object")?;
            let key = json_str(o, "key").map(|k| unb64(k, "key")).transpose()?;
            let mut cells = Vec::new();
            for c in o
                .get("Cell")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let c = c.as_object().ok_or("a Cell must be an object")?;
                cells.push(CellModel {
                    column: json_str(c, "column")
                        .map(|s| unb64(s, "column"))
                        .transpose()?,
                    timestamp: json_ts(c.get("timestamp"))?,
                    value: unb64(json_str(c, "$").unwrap_or(""), "value")?,
                });
            }
            rows.push(RowModel { key, cells });
        }
        return Ok(rows);
    }
    let root = parse_xml(body)?;
    if root.name != "CellSet" {
        return Err(format!("expected <CellSet>, got <{}>", root.name));
    }
    for r in root.kids("Row") {
        let key = r.attr("key").map(|k| unb64(k, "key")).transpose()?;
        let mut cells = Vec::new();
        for c in r.kids("Cell") {
            let timestamp = match c.attr("timestamp") {
                Some(t) => Some(
                    t.parse()
                        .map_err(|_| format!("timestamp {t:?} is not a long"))?,
                ),
                None => None,
            };
            cells.push(CellModel {
                column: c.attr("column").map(|s| unb64(s, "column")).transpose()?,
                timestamp,
                value: unb64(&c.text, "value")?,
            });
        }
        rows.push(RowModel { key, cells });
    }
    Ok(rows)
}
