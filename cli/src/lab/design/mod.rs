//! Design files: TOML in, a checked [`Design`] out. Every error names the file, the line and
//! the field (docs/LAB.md is the reference).
//!
//! `file` holds the file as written (serde) and positions in its text; the checks are split by
//! what they check: `table` (sizes, pre-splits, families), `keys` (rowkey and index parts) and
//! `fields` (record fields and their generators). This module holds the checked design and
//! [`parse`], which checks the file in order.

mod fields;
mod file;
mod keys;
mod table;

use super::key::KeyDesign;
use super::records::{self, Generator, Rng, Value};
use cellbase::FamilyDescriptor;
use fields::{field_index, generator};
use file::{Ctx, DesignToml, field_at, line_of};
use keys::key_parts;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use table::{family, parse_size, pre_split};
use toml::Spanned;

/// A design-file error: `file:line: field: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DesignError(pub String);

impl std::fmt::Display for DesignError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DesignError {}

/// The table part of a design.
#[derive(Clone, Debug)]
pub struct TableSpec {
    /// Table name.
    pub name: String,
    /// Column families.
    pub families: Vec<FamilyDescriptor>,
    /// Pre-split keys (empty: one region).
    pub split_keys: Vec<Vec<u8>>,
    /// How the pre-split was declared, for the report.
    pub pre_split: String,
    /// Split threshold in bytes.
    pub max_region_size: u64,
    /// Memstore flush size in bytes.
    pub memstore_flush_size: u64,
}

/// A secondary index table: written with every put, read by queries `via` it.
#[derive(Clone, Debug)]
pub struct IndexSpec {
    /// Index table name.
    pub name: String,
    /// Its rowkey.
    pub key: KeyDesign,
    /// Its rowkey, described.
    pub key_text: String,
    /// Split threshold.
    pub max_region_size: u64,
    /// Pre-split keys.
    pub split_keys: Vec<Vec<u8>>,
}

/// Where a field's values come from.
#[derive(Clone, Debug)]
pub enum FieldSource {
    /// Column `n` of the CSV/TSV file.
    Column(usize),
    /// A generator.
    Gen(Generator),
}

/// A record field.
#[derive(Clone, Debug)]
pub struct FieldDef {
    /// Name.
    pub name: String,
    /// Source.
    pub source: FieldSource,
}

/// What an operation does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpKind {
    /// Write the next record.
    Put,
    /// Read one written record by its rowkey.
    Get,
    /// Every record sharing a written record's values of these fields.
    PrefixScan {
        /// Field indexes.
        fields: Vec<usize>,
    },
    /// Records whose `field` is in `[t, t + span)` (and sharing `fields` with a written
    /// record).
    TimeScan {
        /// Timestamp field.
        field: usize,
        /// Span in ms.
        span_ms: i64,
        /// Equality fields.
        fields: Vec<usize>,
    },
    /// The newest `n` records sharing a written record's values of `fields`, newest by the
    /// field `by` (the reverse-timestamp lesson: cheap when the key orders them newest first).
    LatestN {
        /// Equality fields.
        fields: Vec<usize>,
        /// Timestamp field that orders "newest".
        by: usize,
        /// How many.
        n: u32,
    },
    /// A Get of a rowkey that was never written, next to a written one (the Bloom lesson).
    GetMissing,
    /// Deletes a written record's cells.
    Delete,
}

/// One weighted operation of the mix.
#[derive(Clone, Debug)]
pub struct OpDef {
    /// Display name.
    pub name: String,
    /// Kind.
    pub kind: OpKind,
    /// Weight.
    pub weight: u32,
    /// Name of the index to read through.
    pub via: Option<String>,
}

/// The simulated cluster a design runs on (`[cluster]`; docs/LAB.md "Simulated cluster").
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterSpec {
    /// RegionServers (default [`crate::lab::cluster::DEFAULT_SERVERS`]).
    pub servers: usize,
    /// Balancer period in windows, 0 = never (default
    /// [`crate::lab::cluster::DEFAULT_BALANCE_EVERY`]).
    pub balance_every: u64,
    /// Network round trip of one RPC in the projection, ms (default
    /// [`crate::lab::cluster::DEFAULT_RPC_MS`]).
    pub rpc_ms: f64,
}

impl Default for ClusterSpec {
    fn default() -> ClusterSpec {
        ClusterSpec {
            servers: crate::lab::cluster::DEFAULT_SERVERS,
            balance_every: crate::lab::cluster::DEFAULT_BALANCE_EVERY,
            rpc_ms: crate::lab::cluster::DEFAULT_RPC_MS,
        }
    }
}

/// The workload.
#[derive(Clone, Debug)]
pub struct Workload {
    /// Records to put.
    pub records: u64,
    /// Value bytes per put.
    pub value_size: usize,
    /// Sampling windows over the run (default: about 250 records a window, so that each
    /// region gets enough writes to measure a share, between 10 and 100 windows).
    pub windows: Option<u32>,
    /// Reads pick among the most recent 10 % of written records instead of all.
    pub read_recent: bool,
    /// Every put writes one cell in every family of the table (default: the first only).
    pub all_families: bool,
    /// The mix.
    pub ops: Vec<OpDef>,
}

/// A checked design.
#[derive(Clone, Debug)]
pub struct Design {
    /// Short name.
    pub name: String,
    /// Free text.
    pub description: String,
    /// The file it came from.
    pub path: PathBuf,
    /// Seed of every random choice.
    pub seed: u64,
    /// Table.
    pub table: TableSpec,
    /// Rowkey.
    pub key: KeyDesign,
    /// Rowkey, described.
    pub key_text: String,
    /// The qualifier of each record's cell, when the design puts several records in one row
    /// (`[rowkey] qualifier = [...]`, OpenTSDB's wide rows); `None`: qualifier `v`.
    pub qualifier: Option<KeyDesign>,
    /// The qualifier, described.
    pub qualifier_text: String,
    /// Secondary indexes.
    pub indexes: Vec<IndexSpec>,
    /// Fields in record order.
    pub fields: Vec<FieldDef>,
    /// Rows of the CSV/TSV source.
    pub source_rows: Vec<Vec<Value>>,
    /// Workload.
    pub workload: Workload,
    /// The simulated cluster.
    pub cluster: ClusterSpec,
}

/// Reads and checks a design file.
///
/// # Errors
/// [`DesignError`] naming the file, line and field.
pub fn load(path: &Path) -> Result<Design, DesignError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| DesignError(format!("{}: cannot read: {e}", path.display())))?;
    parse(&text, path)
}

/// Checks the design in `text` (`path` names it in errors and anchors a relative CSV path).
///
/// # Errors
/// [`DesignError`] naming the file, line and field.
pub fn parse(text: &str, path: &Path) -> Result<Design, DesignError> {
    let ctx = Ctx {
        file: path.display().to_string(),
        text,
    };
    let raw: DesignToml = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start));
        let msg = e.message().trim().to_string();
        match line {
            Some(l) => match field_at(text, l) {
                Some(f) => DesignError(format!("{}:{l}: {f}: {msg}", ctx.file)),
                None => DesignError(format!("{}:{l}: {msg}", ctx.file)),
            },
            None => DesignError(format!("{}: {msg}", ctx.file)),
        }
    })?;
    let seed = raw.seed.unwrap_or(1);
    let rng = Rng::new(seed);

    // Fields: CSV columns first, then generated ones.
    let mut fields = Vec::new();
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut source_rows = Vec::new();
    if let Some(src) = &raw.source {
        let s = src.get_ref();
        let base = path.parent().unwrap_or(Path::new("."));
        let p = base.join(&s.path);
        let delim = match s.delimiter.as_deref() {
            Some("\\t") | Some("\t") | Some("tab") => '\t',
            Some(d) if d.chars().count() == 1 => d.chars().next().unwrap_or(','),
            Some(_) => {
                return Err(ctx.err(src.span(), "source.delimiter", "one character, or \"tab\""));
            }
            None if s.path.ends_with(".tsv") => '\t',
            None => ',',
        };
        let content = std::fs::read_to_string(&p).map_err(|e| {
            ctx.err(
                src.span(),
                "source.path",
                format!("cannot read {}: {e}", p.display()),
            )
        })?;
        let (cols, rows) = records::read_delimited(&content, delim)
            .map_err(|e| ctx.err(src.span(), "source.path", format!("{}: {e}", p.display())))?;
        for (i, c) in cols.into_iter().enumerate() {
            if names.insert(c.clone(), fields.len()).is_some() {
                return Err(ctx.err(
                    src.span(),
                    "source.path",
                    format!("column \"{c}\" appears twice"),
                ));
            }
            fields.push(FieldDef {
                name: c,
                source: FieldSource::Column(i),
            });
        }
        source_rows = rows;
    }
    for (i, f) in raw.field.iter().enumerate() {
        let at = format!("field[{i}]");
        let g = generator(&ctx, f, &at, &names, &mut rng.fork(i as u64 + 1))?;
        let name = f.get_ref().name.clone();
        if name.is_empty() || names.contains_key(&name) {
            return Err(ctx.err(
                f.span(),
                &format!("{at}.name"),
                format!("\"{name}\" is empty or already a field"),
            ));
        }
        names.insert(name.clone(), fields.len());
        fields.push(FieldDef {
            name,
            source: FieldSource::Gen(g),
        });
    }
    if fields.is_empty() {
        return Err(DesignError(format!(
            "{}: field: no record fields: add [[field]] tables or a [source] file",
            ctx.file
        )));
    }

    // Table.
    let t = raw.table.get_ref();
    let mut families = Vec::new();
    for (i, f) in t.family.iter().enumerate() {
        families.push(family(&ctx, f, &format!("table.family[{i}]"))?);
    }
    if families.is_empty() {
        families.push(FamilyDescriptor::new("d"));
    }
    let max_region_size = match &t.max_region_size {
        Some(s) => parse_size(&ctx, s, "table.max_region_size")?,
        None => 1 << 20,
    };
    let memstore_flush_size = match &t.memstore_flush_size {
        Some(s) => parse_size(&ctx, s, "table.memstore_flush_size")?,
        None => 256 << 10,
    };
    let (split_keys, pre) = match &t.pre_split {
        Some(p) => pre_split(&ctx, p, "table.pre_split")?,
        None => (Vec::new(), "none (one region)".to_string()),
    };
    let table_name = t.name.clone().unwrap_or_else(|| "lab".into());
    cellbase::TableDescriptor::new(&table_name)
        .family(FamilyDescriptor::new("d"))
        .validate()
        .map_err(|e| ctx.err(raw.table.span(), "table.name", e))?;

    let (key, key_text) = key_parts(&ctx, &names, &raw.rowkey.get_ref().parts, "rowkey", true)?;
    let (qualifier, qualifier_text) = match &raw.rowkey.get_ref().qualifier {
        None => (None, "v".to_string()),
        Some(q) => {
            let (k, t) = key_parts(&ctx, &names, q, "rowkey.qualifier", false)?;
            (Some(k), t)
        }
    };
    let mut indexes = Vec::new();
    let mut index_names = HashMap::new();
    for (i, ix) in raw.index.iter().enumerate() {
        let at = format!("index[{i}]");
        let v = ix.get_ref();
        let (k, kt) = key_parts(&ctx, &names, &v.parts, &at, true)?;
        let mrs = match &v.max_region_size {
            Some(s) => parse_size(&ctx, s, &format!("{at}.max_region_size"))?,
            None => max_region_size,
        };
        let sk = match &v.pre_split {
            Some(p) => pre_split(&ctx, p, &format!("{at}.pre_split"))?.0,
            None => Vec::new(),
        };
        if v.name == table_name || index_names.insert(v.name.clone(), i).is_some() {
            return Err(ctx.err(
                ix.span(),
                &format!("{at}.name"),
                "must differ from the table and other indexes",
            ));
        }
        cellbase::TableDescriptor::new(&v.name)
            .family(FamilyDescriptor::new("i"))
            .validate()
            .map_err(|e| ctx.err(ix.span(), &format!("{at}.name"), e))?;
        indexes.push(IndexSpec {
            name: v.name.clone(),
            key: k,
            key_text: kt,
            max_region_size: mrs,
            split_keys: sk,
        });
    }

    // Workload.
    let w = raw.workload.get_ref();
    if *w.records.get_ref() == 0 || *w.records.get_ref() > 50_000_000 {
        return Err(ctx.err(
            w.records.span(),
            "workload.records",
            "between 1 and 50000000",
        ));
    }
    let mut records = *w.records.get_ref();
    if raw.source.is_some() {
        if source_rows.is_empty() {
            return Err(DesignError(format!(
                "{}: source.path: the file has no records",
                ctx.file
            )));
        }
        records = records.min(source_rows.len() as u64);
    }
    let read_recent = match w.read_from.as_ref().map(|r| r.get_ref().as_str()) {
        None | Some("uniform") => false,
        Some("recent") => true,
        Some(other) => {
            let sp = w.read_from.as_ref().map(|r| r.span()).unwrap_or(0..0);
            return Err(ctx.err(
                sp,
                "workload.read_from",
                format!("\"{other}\": uniform or recent"),
            ));
        }
    };
    let all_families = match w.families.as_ref().map(|r| r.get_ref().as_str()) {
        None | Some("first") => false,
        Some("all") => true,
        Some(other) => {
            let sp = w.families.as_ref().map(|r| r.span()).unwrap_or(0..0);
            return Err(ctx.err(
                sp,
                "workload.families",
                format!("\"{other}\": first or all"),
            ));
        }
    };
    let mut ops = Vec::new();
    for (i, so) in w.op.iter().enumerate() {
        let at = format!("workload.op[{i}]");
        let o = so.get_ref();
        let flds = |list: &Option<Vec<Spanned<String>>>| -> Result<Vec<usize>, DesignError> {
            let mut v = Vec::new();
            for (j, f) in list.iter().flatten().enumerate() {
                v.push(field_index(&ctx, &names, f, &format!("{at}.fields[{j}]"))?);
            }
            Ok(v)
        };
        let kind = match o.kind.get_ref().as_str() {
            "put" => OpKind::Put,
            "get" => OpKind::Get,
            "prefix_scan" => {
                let f = flds(&o.fields)?;
                if f.is_empty() {
                    return Err(ctx.err(
                        so.span(),
                        &format!("{at}.fields"),
                        "a prefix scan names the fields it matches: fields = [\"caller\"]",
                    ));
                }
                OpKind::PrefixScan { fields: f }
            }
            "time_scan" => {
                let r = o.range.as_ref().ok_or_else(|| {
                    ctx.err(
                        so.span(),
                        &format!("{at}.range"),
                        "name the timestamp field: range = \"ts\"",
                    )
                })?;
                let span_ms = o.span_ms.unwrap_or(60_000);
                if span_ms <= 0 {
                    return Err(ctx.err(so.span(), &format!("{at}.span_ms"), "must be positive"));
                }
                OpKind::TimeScan {
                    field: field_index(&ctx, &names, r, &format!("{at}.range"))?,
                    span_ms,
                    fields: flds(&o.fields)?,
                }
            }
            "latest_n" => {
                let f = flds(&o.fields)?;
                if f.is_empty() {
                    return Err(ctx.err(
                        o.kind.span(),
                        &format!("{at}.fields"),
                        "latest_n names the entity's fields: fields = [\"user\"]",
                    ));
                }
                let by = o.by.as_ref().ok_or_else(|| {
                    ctx.err(
                        o.kind.span(),
                        &format!("{at}.by"),
                        "name the timestamp field that orders newest: by = \"ts\"",
                    )
                })?;
                let n = o.n.unwrap_or(10);
                if !(1..=10_000).contains(&n) {
                    return Err(ctx.err(o.kind.span(), &format!("{at}.n"), "between 1 and 10000"));
                }
                OpKind::LatestN {
                    fields: f,
                    by: field_index(&ctx, &names, by, &format!("{at}.by"))?,
                    n,
                }
            }
            "get_missing" => OpKind::GetMissing,
            "delete" => OpKind::Delete,
            other => {
                return Err(ctx.err(
                    o.kind.span(),
                    &format!("{at}.kind"),
                    format!(
                        "unknown operation \"{other}\" (put, get, prefix_scan, time_scan, latest_n, get_missing, delete)"
                    ),
                ));
            }
        };
        let latest = matches!(kind, OpKind::LatestN { .. });
        let stray = [
            ("n", o.n.is_some() && !latest),
            ("by", o.by.is_some() && !latest),
            (
                "fields",
                o.fields.is_some()
                    && !matches!(
                        kind,
                        OpKind::PrefixScan { .. }
                            | OpKind::TimeScan { .. }
                            | OpKind::LatestN { .. }
                    ),
            ),
            (
                "range",
                o.range.is_some() && !matches!(kind, OpKind::TimeScan { .. }),
            ),
            (
                "span_ms",
                o.span_ms.is_some() && !matches!(kind, OpKind::TimeScan { .. }),
            ),
        ];
        if let Some((k, _)) = stray.iter().find(|s| s.1) {
            return Err(ctx.err(
                o.kind.span(),
                &format!("{at}.{k}"),
                format!("does not apply to a {} operation", o.kind.get_ref()),
            ));
        }
        let via = match &o.via {
            None => None,
            Some(v) => {
                if !matches!(kind, OpKind::PrefixScan { .. } | OpKind::TimeScan { .. }) {
                    return Err(ctx.err(
                        v.span(),
                        &format!("{at}.via"),
                        "only scans read through an index",
                    ));
                }
                if !index_names.contains_key(v.get_ref()) {
                    return Err(ctx.err(
                        v.span(),
                        &format!("{at}.via"),
                        format!("no [[index]] named \"{}\"", v.get_ref()),
                    ));
                }
                Some(v.get_ref().clone())
            }
        };
        let default_name = match &kind {
            OpKind::Put => "put".to_string(),
            OpKind::Get => "get".to_string(),
            OpKind::PrefixScan { fields } => format!(
                "prefix_scan({})",
                fields
                    .iter()
                    .map(|&f| fields_name(&names, f))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            OpKind::TimeScan { field, fields, .. } => {
                let mut s = format!("time_scan({}", fields_name(&names, *field));
                for &f in fields {
                    s.push(',');
                    s.push_str(&fields_name(&names, f));
                }
                s.push(')');
                s
            }
            OpKind::LatestN { fields, n, .. } => format!(
                "latest_{n}({})",
                fields
                    .iter()
                    .map(|&f| fields_name(&names, f))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            OpKind::GetMissing => "get_missing".to_string(),
            OpKind::Delete => "delete".to_string(),
        };
        ops.push(OpDef {
            name: o.name.clone().unwrap_or(default_name),
            kind,
            weight: o.weight,
            via,
        });
    }
    if !ops.iter().any(|o| o.kind == OpKind::Put && o.weight > 0) {
        ops.push(OpDef {
            name: "put".into(),
            kind: OpKind::Put,
            weight: 1,
            via: None,
        });
    }
    let mut cluster = ClusterSpec::default();
    if let Some(c) = &raw.cluster {
        let v = c.get_ref();
        if let Some(n) = &v.servers {
            let (span, n) = (n.span(), *n.get_ref());
            if !(1..=crate::lab::cluster::MAX_SERVERS as u64).contains(&n) {
                return Err(ctx.err(
                    span,
                    "cluster.servers",
                    format!("between 1 and {}", crate::lab::cluster::MAX_SERVERS),
                ));
            }
            cluster.servers = n as usize;
        }
        if let Some(b) = v.balance_every {
            cluster.balance_every = b;
        }
        if let Some(ms) = &v.rpc_ms {
            let (span, ms) = (ms.span(), *ms.get_ref());
            if !(0.0..=1000.0).contains(&ms) {
                return Err(ctx.err(span, "cluster.rpc_ms", "between 0 and 1000 (milliseconds)"));
            }
            cluster.rpc_ms = ms;
        }
    }
    let name = raw.name.clone().unwrap_or_else(|| {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "design".into())
    });
    Ok(Design {
        name,
        description: raw.description.clone().unwrap_or_default(),
        path: path.to_path_buf(),
        seed,
        table: TableSpec {
            name: table_name,
            families,
            split_keys,
            pre_split: pre,
            max_region_size,
            memstore_flush_size,
        },
        key,
        key_text,
        qualifier,
        qualifier_text,
        indexes,
        fields,
        source_rows,
        workload: Workload {
            records,
            value_size: w.value_size.unwrap_or(100).min(1 << 20),
            windows: w.windows.map(|n| n.clamp(1, 1000)),
            read_recent,
            all_families,
            ops,
        },
        cluster,
    })
}

fn fields_name(names: &HashMap<String, usize>, f: usize) -> String {
    names
        .iter()
        .find(|(_, i)| **i == f)
        .map(|(n, _)| n.clone())
        .unwrap_or_default()
}

impl Design {
    /// The records of the run, in put order.
    pub fn records(&self) -> Vec<Vec<Value>> {
        let mut rng = Rng::new(self.seed).fork(0xDA7A);
        let mut out = Vec::with_capacity(self.workload.records as usize);
        for i in 0..self.workload.records {
            let mut rec: Vec<Value> = Vec::with_capacity(self.fields.len());
            for f in &self.fields {
                let v = match &f.source {
                    FieldSource::Column(c) => self.source_rows[i as usize][*c].clone(),
                    FieldSource::Gen(g) => g.value(i, &rec, &mut rng),
                };
                rec.push(v);
            }
            out.push(rec);
        }
        out
    }

    /// The number of sampling windows of the run.
    pub fn windows(w: &Workload) -> u32 {
        w.windows
            .unwrap_or_else(|| (w.records / 250).clamp(10, 100) as u32)
    }

    /// Field index by name.
    pub fn field(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }
}
