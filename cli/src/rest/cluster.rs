//! Cluster-wide resources: `/version` (`VersionModel`), `/version/cluster`
//! (`StorageClusterVersionModel`), `/status/cluster` (`StorageClusterStatusModel`: one live
//! node, this process) and `/namespaces[/NS]` (`NamespacesModel`, `NamespacesInstanceModel`).
use super::http::{Request, Response};
use super::model::{
    Format, JSON, Obj, TEXT, XML, XML_DECL, arr, b64, body_format, esc, negotiate, parse_xml,
};
use super::service::{Rest, bad, fail, method_not_allowed};
use cellbase::{Error, NamespaceDescriptor};
use serde_json::Value;

/// HBase's REST protocol version (`RESTServlet.VERSION_STRING`).
pub const REST_VERSION: &str = "0.0.3";

/// The cluster version reported: the HBase release whose behaviour cellbase follows.
pub fn cluster_version() -> String {
    format!("2.6.0-cellbase-{}", env!("CARGO_PKG_VERSION"))
}

fn answer(
    req: &Request,
    offered: &[Format],
    text: impl FnOnce() -> String,
    xml: impl FnOnce() -> String,
    js: impl FnOnce() -> String,
) -> Response {
    match negotiate(req, offered) {
        Ok(Format::Json) => Response::body(200, JSON, js().into_bytes()),
        Ok(Format::Xml) => Response::body(200, XML, format!("{XML_DECL}{}", xml()).into_bytes()),
        Ok(_) => Response::body(200, TEXT, text().into_bytes()),
        Err(r) => r,
    }
}

impl Rest {
    /// `/version`.
    pub(super) fn version(&self, req: &Request) -> Response {
        if req.method != "GET" {
            return method_not_allowed();
        }
        let server = format!("cellbase/{}", env!("CARGO_PKG_VERSION"));
        let os = format!("{} {}", std::env::consts::OS, std::env::consts::ARCH);
        let jvm = "none (cellbase is native)".to_string();
        let jersey = "none".to_string();
        answer(
            req,
            &[Format::Text, Format::Xml, Format::Json],
            || {
                format!(
                    "rest {REST_VERSION} [JVM: {jvm}] [OS: {os}] [Server: {server}] [Jersey: \
                     {jersey}]\n"
                )
            },
            || {
                format!(
                    "<Version REST=\"{REST_VERSION}\" JVM=\"{}\" OS=\"{}\" Server=\"{}\" \
                     Jersey=\"{jersey}\"/>",
                    esc(&jvm),
                    esc(&os),
                    esc(&server)
                )
            },
            || {
                Obj::new()
                    .field("JVM", &jvm)
                    .field("Jersey", &jersey)
                    .field("OS", &os)
                    .field("REST", REST_VERSION)
                    .field("Server", &server)
                    .done()
            },
        )
    }

    /// `/version/cluster`.
    pub(super) fn cluster_version(&self, req: &Request) -> Response {
        if req.method != "GET" {
            return method_not_allowed();
        }
        let v = cluster_version();
        answer(
            req,
            &[Format::Text, Format::Xml, Format::Json],
            || format!("{v}\n"),
            || format!("<ClusterVersion Version=\"{}\"/>", esc(&v)),
            || Obj::new().field("Version", &v).done(),
        )
    }

    /// `/status/cluster`: this process as the one live node, with its regions.
    pub(super) fn cluster_status(&self, req: &Request) -> Response {
        if req.method != "GET" {
            return method_not_allowed();
        }
        let mut regions = Vec::new();
        for name in self.db.table_names() {
            let Ok(t) = self.db.table(&name) else {
                continue;
            };
            let stores = self
                .db
                .describe(&name)
                .map(|d| d.families().len())
                .unwrap_or(0);
            for r in t.regions() {
                regions.push((r, stores));
            }
        }
        let requests: u64 = regions
            .iter()
            .map(|(r, _)| r.read_requests + r.write_requests)
            .sum();
        let n = regions.len();
        let node = &self.location;
        let mb = |b: u64| b >> 20;
        answer(
            req,
            &[Format::Text, Format::Xml, Format::Json],
            || {
                let mut s = format!(
                    "{n} live servers, 0 dead servers, {n}.0000 average load\n\n1 live servers\n    \
                     {node} {}\n        requests={requests}, regions={n}\n\n",
                    self.started_ms
                );
                for (r, stores) in &regions {
                    s.push_str(&format!(
                        "        {}\n            stores={stores}\n            storefiles={}\n            \
                         storefileSizeMB={}\n            memstoreSizeMB={}\n",
                        r.name,
                        r.store_files,
                        mb(r.store_file_bytes),
                        mb(r.memstore_bytes)
                    ));
                }
                s.push_str("\n0 dead servers\n");
                s
            },
            || {
                let mut s = format!(
                    "<ClusterStatus regions=\"{n}\" requests=\"{requests}\" averageLoad=\"{n}.0\">\
                     <LiveNodes><Node name=\"{}\" startCode=\"{}\" requests=\"{requests}\" \
                     heapSizeMB=\"0\" maxHeapSizeMB=\"0\">",
                    esc(node),
                    self.started_ms
                );
                for (r, stores) in &regions {
                    s.push_str(&format!(
                        "<Region name=\"{}\" stores=\"{stores}\" storefiles=\"{}\" \
                         storefileSizeMB=\"{}\" memStoreSizeMB=\"{}\" readRequestsCount=\"{}\" \
                         writeRequestsCount=\"{}\"/>",
                        b64(r.name.as_bytes()),
                        r.store_files,
                        mb(r.store_file_bytes),
                        mb(r.memstore_bytes),
                        r.read_requests,
                        r.write_requests
                    ));
                }
                s.push_str("</Node></LiveNodes><DeadNodes/></ClusterStatus>");
                s
            },
            || {
                let list = arr(regions.iter().map(|(r, stores)| {
                    Obj::new()
                        .field("name", b64(r.name.as_bytes()))
                        .field("stores", stores)
                        .field("storefiles", r.store_files)
                        .field("storefileSizeMB", mb(r.store_file_bytes))
                        .field("memStoreSizeMB", mb(r.memstore_bytes))
                        .field("readRequestsCount", r.read_requests)
                        .field("writeRequestsCount", r.write_requests)
                        .done()
                }));
                let node = Obj::new()
                    .field("name", node)
                    .field("startCode", self.started_ms)
                    .field("requests", requests)
                    .field("heapSizeMB", 0)
                    .field("maxHeapSizeMB", 0)
                    .raw("Region", &list)
                    .done();
                Obj::new()
                    .field("regions", n)
                    .field("requests", requests)
                    .field("averageLoad", n as f64)
                    .raw("LiveNodes", &arr([node]))
                    .raw("DeadNodes", "[]")
                    .done()
            },
        )
    }

    /// `/namespaces`.
    pub(super) fn namespaces(&self, req: &Request) -> Response {
        if req.method != "GET" {
            return method_not_allowed();
        }
        let names = self.db.list_namespaces();
        answer(
            req,
            &[Format::Text, Format::Xml, Format::Json],
            || names.iter().map(|n| format!("{n}\n")).collect(),
            || {
                let mut s = String::from("<Namespaces>");
                for n in &names {
                    s.push_str(&format!("<Namespace>{}</Namespace>", esc(n)));
                }
                s.push_str("</Namespaces>");
                s
            },
            || Obj::new().field("Namespace", &names).done(),
        )
    }

    /// `/namespaces/NS`: GET its properties, POST create (201), PUT alter, DELETE drop.
    pub(super) fn namespace(&self, req: &Request, ns: &[u8]) -> Response {
        let ns = String::from_utf8_lossy(ns).into_owned();
        match req.method.as_str() {
            "GET" => {
                let d = match self.db.describe_namespace(&ns) {
                    Ok(d) => d,
                    Err(e) => return fail(&e),
                };
                let props = d.properties().clone();
                answer(
                    req,
                    &[Format::Text, Format::Xml, Format::Json],
                    || props.iter().map(|(k, v)| format!("{k}={v}\n")).collect(),
                    || {
                        let mut s = String::from("<NamespaceProperties><properties>");
                        for (k, v) in &props {
                            s.push_str(&format!(
                                "<entry><key>{}</key><value>{}</value></entry>",
                                esc(k),
                                esc(v)
                            ));
                        }
                        s.push_str("</properties></NamespaceProperties>");
                        s
                    },
                    || {
                        if props.is_empty() {
                            "{}".to_string()
                        } else {
                            Obj::new().field("properties", &props).done()
                        }
                    },
                )
            }
            "POST" | "PUT" => {
                let props = match namespace_props(req) {
                    Ok(p) => p,
                    Err(r) => return r,
                };
                let exists = self.db.describe_namespace(&ns).is_ok();
                if req.method == "POST" {
                    if exists {
                        return Response::text(
                            403,
                            format!(
                                "Namespace '{ns}' already exists.  Use REST PUT to alter the \
                                 existing namespace."
                            ),
                        );
                    }
                    let mut d = NamespaceDescriptor::new(&ns);
                    for (k, v) in &props {
                        d = d.property(k, v);
                    }
                    return match self.db.create_namespace_with(d) {
                        Ok(()) => Response::empty(201),
                        Err(e) => fail(&e),
                    };
                }
                if !exists {
                    return Response::text(
                        403,
                        format!(
                            "Namespace '{ns}' does not exist. Use REST POST to create the \
                             namespace."
                        ),
                    );
                }
                for (k, v) in &props {
                    if let Err(e) = self.db.alter_namespace(&ns, k, Some(v)) {
                        return fail(&e);
                    }
                }
                Response::empty(200)
            }
            "DELETE" => match self.db.drop_namespace(&ns) {
                Ok(()) => Response::empty(200),
                Err(e @ Error::NamespaceNotFound(_)) => fail(&e),
                Err(e) => fail(&e),
            },
            _ => method_not_allowed(),
        }
    }
}

/// The properties of a `NamespacesInstanceModel` body (none without a body).
fn namespace_props(req: &Request) -> Result<Vec<(String, String)>, Response> {
    if req.body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    match body_format(req)? {
        Format::Json => {
            let v: Value = serde_json::from_slice(&req.body)
                .map_err(|e| bad(format!("malformed JSON: {e}")))?;
            if let Some(p) = v.get("properties").and_then(Value::as_object) {
                for (k, v) in p {
                    let v = v
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| v.to_string());
                    out.push((k.clone(), v));
                }
            }
        }
        Format::Xml => {
            let root = parse_xml(&req.body).map_err(bad)?;
            for p in root.kids("properties") {
                for e in p.kids("entry") {
                    let k = e.kids("key").next().map(|k| k.text.clone());
                    let v = e.kids("value").next().map(|v| v.text.clone());
                    if let (Some(k), Some(v)) = (k, v) {
                        out.push((k, v));
                    }
                }
            }
        }
        _ => {
            return Err(Response::text(
                415,
                "Unsupported Media Type: send XML or JSON",
            ));
        }
    }
    Ok(out)
}
