//! Table resources: the table list (`RootResource`, `TableListModel`), `/TABLE/schema`
//! (`SchemaResource`, `TableSchemaModel` and `ColumnSchemaModel`: GET, PUT to create or
//! replace, POST to create or update, DELETE to drop) and `/TABLE/regions`
//! (`RegionsResource`, `TableInfoModel`).
use super::http::{Request, Response};
use super::model::{
    Format, JSON, Obj, TEXT, XML, XML_DECL, arr, b64, body_format, esc, negotiate, parse_xml,
};
use super::service::{Rest, bad, fail, method_not_allowed};
use cellbase::{
    BloomType, Compression, DataBlockEncoding, Error, FamilyDescriptor, KeepDeletedCells,
    TableDescriptor,
};
use serde_json::{Value, json};
use std::time::Duration;

/// A family's attributes as HBase's `ColumnSchemaModel` lists them (every value a string).
pub fn family_attrs(f: &FamilyDescriptor) -> Vec<(&'static str, String)> {
    let kdc = match f.keep_deleted_cells {
        KeepDeletedCells::False => "FALSE",
        KeepDeletedCells::True => "TRUE",
        KeepDeletedCells::Ttl => "TTL",
    };
    vec![
        ("BLOOMFILTER", f.bloom_filter.hbase_name().to_string()),
        ("IN_MEMORY", f.in_memory.to_string()),
        ("VERSIONS", f.max_versions.to_string()),
        ("KEEP_DELETED_CELLS", kdc.to_string()),
        (
            "DATA_BLOCK_ENCODING",
            f.data_block_encoding.hbase_name().to_string(),
        ),
        ("COMPRESSION", f.compression.hbase_name().to_string()),
        (
            "TTL",
            f.ttl
                .map(|d| d.as_secs().min(i32::MAX as u64).to_string())
                .unwrap_or_else(|| i32::MAX.to_string()),
        ),
        ("MIN_VERSIONS", f.min_versions.to_string()),
        ("BLOCKCACHE", f.block_cache.to_string()),
        ("BLOCKSIZE", f.block_size.to_string()),
        ("REPLICATION_SCOPE", "0".to_string()),
    ]
}

pub(crate) fn truth(v: &str, what: &str) -> Result<bool, String> {
    match v.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("{what} must be true or false, got {v:?}")),
    }
}

pub(crate) fn number<T: std::str::FromStr>(v: &str, what: &str) -> Result<T, String> {
    v.trim()
        .parse()
        .map_err(|_| format!("{what} must be a number, got {v:?}"))
}

/// Applies one `ColumnSchema` attribute (HBase's `HColumnDescriptor.setValue` keys).
pub(crate) fn apply_family_attr(
    f: FamilyDescriptor,
    k: &str,
    v: &str,
) -> Result<FamilyDescriptor, String> {
    let e = |e: Error| e.to_string();
    Ok(match k.to_ascii_uppercase().as_str() {
        "VERSIONS" => f.max_versions(number(v, k)?),
        "MIN_VERSIONS" => f.min_versions(number(v, k)?),
        "TTL" => {
            let secs: i64 = number(v, k)?;
            if secs <= 0 {
                return Err(format!("TTL must be positive, got {secs}"));
            }
            if secs >= i64::from(i32::MAX) {
                let mut f = f;
                f.ttl = None;
                f
            } else {
                f.ttl(Duration::from_secs(secs as u64))
            }
        }
        "KEEP_DELETED_CELLS" => f.keep_deleted_cells(match v.to_ascii_uppercase().as_str() {
            "TRUE" => KeepDeletedCells::True,
            "FALSE" => KeepDeletedCells::False,
            "TTL" => KeepDeletedCells::Ttl,
            _ => {
                return Err(format!(
                    "KEEP_DELETED_CELLS must be FALSE, TRUE or TTL, got {v}"
                ));
            }
        }),
        "BLOOMFILTER" => f.bloom_filter(BloomType::from_hbase_name(v, None).map_err(e)?),
        "COMPRESSION" => {
            let (c, substituted) = Compression::from_hbase_name(v).map_err(e)?;
            if substituted {
                log::warn!(
                    target: "cellbase::rest",
                    "compression {v} is stored as {} (cellbase has no {v} codec)",
                    c.hbase_name()
                );
            }
            f.compression(c)
        }
        "DATA_BLOCK_ENCODING" => {
            f.data_block_encoding(DataBlockEncoding::from_hbase_name(v).map_err(e)?)
        }
        "BLOCKSIZE" => f.block_size(number(v, k)?),
        "IN_MEMORY" => f.in_memory(truth(v, k)?),
        "BLOCKCACHE" => f.block_cache(truth(v, k)?),
        // Replication does not exist here; scope 0 (local) is what every family has.
        "REPLICATION_SCOPE" if v.trim() == "0" => f,
        other => {
            return Err(format!(
                "family attribute {other} is not supported by cellbase's REST gateway \
                 (docs/REST.md lists the supported ones)"
            ));
        }
    })
}

/// A parsed `TableSchemaModel`: families with their attributes.
struct SchemaModel {
    families: Vec<(String, Vec<(String, String)>)>,
}

fn attr_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Table attributes a schema may carry (HBase writes them); other table attributes are
/// refused, so nothing a client asks for is silently dropped.
fn table_attr_ok(k: &str, v: &str) -> Result<(), String> {
    match k {
        "IS_META" | "IS_ROOT" | "READONLY" if v.eq_ignore_ascii_case("false") => Ok(()),
        _ => Err(format!(
            "table attribute {k}={v} is not supported by cellbase's REST gateway"
        )),
    }
}

fn parse_schema(body: &[u8], fmt: Format) -> Result<SchemaModel, String> {
    let mut families = Vec::new();
    if fmt == Format::Json {
        let v: Value = serde_json::from_slice(body).map_err(|e| format!("malformed JSON: {e}"))?;
        let o = v.as_object().ok_or("a TableSchema must be a JSON object")?;
        for (k, v) in o {
            match k.as_str() {
                "name" => {}
                "ColumnSchema" => {
                    for c in v.as_array().ok_or("ColumnSchema must be a list")? {
                        let c = c.as_object().ok_or("a ColumnSchema must be an object")?;
                        let name = c
                            .get("name")
                            .and_then(Value::as_str)
                            .ok_or("a ColumnSchema needs a name")?;
                        let attrs = c
                            .iter()
                            .filter(|(k, _)| *k != "name")
                            .map(|(k, v)| (k.clone(), attr_text(v)))
                            .collect();
                        families.push((name.to_string(), attrs));
                    }
                }
                _ => table_attr_ok(k, &attr_text(v))?,
            }
        }
    } else {
        let root = parse_xml(body)?;
        if root.name != "TableSchema" {
            return Err(format!("expected <TableSchema>, got <{}>", root.name));
        }
        for (k, v) in &root.attrs {
            if k != "name" {
                table_attr_ok(k, v)?;
            }
        }
        for c in root.kids("ColumnSchema") {
            let name = c.attr("name").ok_or("a ColumnSchema needs a name")?;
            let attrs = c
                .attrs
                .iter()
                .filter(|(k, _)| k != "name")
                .cloned()
                .collect();
            families.push((name.to_string(), attrs));
        }
    }
    Ok(SchemaModel { families })
}

fn build_family(
    base: FamilyDescriptor,
    attrs: &[(String, String)],
) -> Result<FamilyDescriptor, String> {
    attrs
        .iter()
        .try_fold(base, |f, (k, v)| apply_family_attr(f, k, v))
}

impl Rest {
    /// `/` (every table) or `/namespaces/NS/tables` (a namespace's tables, unqualified).
    pub(super) fn table_list(&self, req: &Request, ns: Option<&str>) -> Response {
        if req.method != "GET" {
            return method_not_allowed();
        }
        let names = match ns {
            None => self.db.table_names(),
            Some(ns) => match self.db.list_namespace_tables(ns) {
                Ok(n) => n,
                Err(e) => return fail(&e),
            },
        };
        let fmt = match negotiate(req, &[Format::Text, Format::Xml, Format::Json]) {
            Ok(f) => f,
            Err(r) => return r,
        };
        match fmt {
            Format::Json => {
                let list: Vec<Value> = names.iter().map(|n| json!({ "name": n })).collect();
                let body = serde_json::to_vec(&json!({ "table": list })).unwrap_or_default();
                Response::body(200, JSON, body)
            }
            Format::Xml => {
                let mut s = format!("{XML_DECL}<TableList>");
                for n in &names {
                    s.push_str(&format!("<table name=\"{}\"/>", esc(n)));
                }
                s.push_str("</TableList>");
                Response::body(200, XML, s.into_bytes())
            }
            _ => {
                let mut s = String::new();
                for n in &names {
                    s.push_str(n);
                    s.push('\n');
                }
                Response::body(200, TEXT, s.into_bytes())
            }
        }
    }

    /// `/TABLE/schema`.
    pub(super) fn schema(&self, req: &Request, table: &str) -> Response {
        match req.method.as_str() {
            "GET" => self.schema_get(req, table),
            "PUT" => self.schema_update(req, table, true),
            "POST" => self.schema_update(req, table, false),
            "DELETE" => {
                // `SchemaResource.delete`: disable (if enabled), then delete.
                if let Err(e) = self.db.describe(table) {
                    return fail(&e);
                }
                if self.db.is_table_enabled(table).unwrap_or(false)
                    && let Err(e) = self.db.disable_table(table)
                {
                    return fail(&e);
                }
                match self.db.drop_table(table) {
                    Ok(()) => Response::empty(200),
                    Err(e) => fail(&e),
                }
            }
            _ => method_not_allowed(),
        }
    }

    fn schema_get(&self, req: &Request, table: &str) -> Response {
        let desc = match self.db.describe(table) {
            Ok(d) => d,
            Err(e) => return fail(&e),
        };
        let fmt = match negotiate(req, &[Format::Text, Format::Xml, Format::Json]) {
            Ok(f) => f,
            Err(r) => return r,
        };
        let name = desc.name().to_string();
        match fmt {
            Format::Json => {
                let cols = arr(desc.families().iter().map(|f| {
                    family_attrs(f)
                        .into_iter()
                        .fold(
                            Obj::new().field("name", String::from_utf8_lossy(&f.name)),
                            |o, (k, v)| o.field(k, v),
                        )
                        .done()
                }));
                let body = Obj::new()
                    .field("name", &name)
                    .raw("ColumnSchema", &cols)
                    .field("IS_META", "false")
                    .done();
                Response::body(200, JSON, body.into_bytes())
            }
            Format::Xml => {
                let mut s = format!(
                    "{XML_DECL}<TableSchema name=\"{}\" IS_META=\"false\">",
                    esc(&name)
                );
                for f in desc.families() {
                    s.push_str(&format!(
                        "<ColumnSchema name=\"{}\"",
                        esc(&String::from_utf8_lossy(&f.name))
                    ));
                    for (k, v) in family_attrs(f) {
                        s.push_str(&format!(" {k}=\"{}\"", esc(&v)));
                    }
                    s.push_str("/>");
                }
                s.push_str("</TableSchema>");
                Response::body(200, XML, s.into_bytes())
            }
            _ => {
                // `TableSchemaModel.toString`.
                let cols: Vec<String> = desc
                    .families()
                    .iter()
                    .map(|f| {
                        let mut s = format!("{{ NAME => '{}'", String::from_utf8_lossy(&f.name));
                        for (k, v) in family_attrs(f) {
                            s.push_str(&format!(", {k} => '{v}'"));
                        }
                        s.push_str(" }");
                        s
                    })
                    .collect();
                let s = format!(
                    "{{ NAME=> '{name}', IS_META => 'false', COLUMNS => [ {} ] }}\n",
                    cols.join(", ")
                );
                Response::body(200, TEXT, s.into_bytes())
            }
        }
    }

    /// `SchemaResource.update`: a missing table is created (201); an existing one has its
    /// families replaced (PUT: families not named are dropped) or updated (POST: named
    /// families added or modified), 200.
    fn schema_update(&self, req: &Request, table: &str, replace: bool) -> Response {
        let fmt = match body_format(req) {
            Ok(Format::Json) => Format::Json,
            Ok(Format::Xml) => Format::Xml,
            Ok(_) => return Response::text(415, "Unsupported Media Type: send XML or JSON"),
            Err(r) => return r,
        };
        let model = match parse_schema(&req.body, fmt) {
            Ok(m) => m,
            Err(e) => return bad(e),
        };
        let existing = match self.db.describe(table) {
            Ok(d) => Some(d),
            Err(Error::TableNotFound(_)) => None,
            Err(e) => return fail(&e),
        };
        let Some(existing) = existing else {
            if model.families.is_empty() {
                return bad("a table needs at least one column family");
            }
            let mut desc = TableDescriptor::new(table);
            for (name, attrs) in &model.families {
                match build_family(FamilyDescriptor::new(name), attrs) {
                    Ok(f) => desc = desc.family(f),
                    Err(e) => return bad(e),
                }
            }
            return match self.db.create_table(desc) {
                Ok(_) => Response::empty(201),
                Err(e) => fail(&e),
            };
        };
        // Check every family before changing anything.
        let mut changed = Vec::new();
        for (name, attrs) in &model.families {
            let base = existing
                .families()
                .iter()
                .find(|f| f.name == name.as_bytes())
                .cloned()
                .unwrap_or_else(|| FamilyDescriptor::new(name));
            match build_family(base, attrs) {
                Ok(f) => changed.push(f),
                Err(e) => return bad(e),
            }
        }
        for f in changed {
            if let Err(e) = self.db.alter_family(table, f) {
                return fail(&e);
            }
        }
        if replace && !model.families.is_empty() {
            for f in existing.families() {
                if !model.families.iter().any(|(n, _)| n.as_bytes() == f.name)
                    && let Err(e) = self.db.delete_family(table, &f.name)
                {
                    return fail(&e);
                }
            }
        }
        Response::empty(200)
    }

    /// `/TABLE/regions`.
    pub(super) fn regions(&self, req: &Request, table: &str) -> Response {
        if req.method != "GET" {
            return method_not_allowed();
        }
        let t = match self.db.table(table) {
            Ok(t) => t,
            Err(e) => return fail(&e),
        };
        let fmt = match negotiate(req, &[Format::Xml, Format::Json]) {
            Ok(f) => f,
            Err(r) => return r,
        };
        let regions: Vec<_> = t
            .regions()
            .into_iter()
            .map(|r| {
                let id: u64 = r
                    .name
                    .rsplit(',')
                    .next()
                    .and_then(|s| s.trim_end_matches('.').parse().ok())
                    .unwrap_or(0);
                (r, id)
            })
            .collect();
        let location = &self.location;
        match fmt {
            Format::Json => {
                let list = arr(regions.iter().map(|(r, id)| {
                    Obj::new()
                        .field("endKey", b64(&r.end_key))
                        .field("id", id)
                        .field("location", location)
                        .field("name", &r.name)
                        .field("startKey", b64(&r.start_key))
                        .done()
                }));
                let body = Obj::new().field("name", table).raw("Region", &list).done();
                Response::body(200, JSON, body.into_bytes())
            }
            _ => {
                let mut s = format!("{XML_DECL}<TableInfo name=\"{}\">", esc(table));
                for (r, id) in &regions {
                    s.push_str(&format!(
                        "<Region endKey=\"{}\" id=\"{id}\" location=\"{}\" name=\"{}\" \
                         startKey=\"{}\"/>",
                        b64(&r.end_key),
                        esc(location),
                        esc(&r.name),
                        b64(&r.start_key)
                    ));
                }
                s.push_str("</TableInfo>");
                Response::body(200, XML, s.into_bytes())
            }
        }
    }
}
