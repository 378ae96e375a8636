//! Design files: TOML in, a checked [`Design`] out. Every error names the file, the line and
//! the field (docs/LAB.md is the reference).

use super::key::{Enc, KeyDesign, Over, Part, SaltBy};
use super::records::{self, Calendar, Dist, Generator, Rng, Value, Zipf};
use cellbase::rowkey::{self, SplitAlgorithm};
use cellbase::{BloomType, Compression, FamilyDescriptor};
use serde::Deserialize;
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
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

// ---- the file as written ---------------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DesignToml {
    name: Option<String>,
    description: Option<String>,
    seed: Option<u64>,
    table: Spanned<TableToml>,
    rowkey: Spanned<KeyToml>,
    #[serde(default)]
    index: Vec<Spanned<IndexToml>>,
    source: Option<Spanned<SourceToml>>,
    #[serde(default)]
    field: Vec<Spanned<FieldToml>>,
    workload: Spanned<WorkloadToml>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Size {
    Bytes(u64),
    Text(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableToml {
    name: Option<String>,
    #[serde(default)]
    family: Vec<Spanned<FamilyToml>>,
    max_region_size: Option<Spanned<Size>>,
    memstore_flush_size: Option<Spanned<Size>>,
    pre_split: Option<Spanned<PreSplitToml>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FamilyToml {
    name: String,
    versions: Option<u32>,
    bloom: Option<Spanned<String>>,
    compression: Option<Spanned<String>>,
    block_size: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PreSplitToml {
    keys: Option<Vec<String>>,
    algorithm: Option<Spanned<String>>,
    regions: Option<u32>,
    salt_buckets: Option<u16>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyToml {
    parts: Vec<Spanned<PartToml>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IndexToml {
    name: String,
    parts: Vec<Spanned<PartToml>>,
    max_region_size: Option<Spanned<Size>>,
    pre_split: Option<Spanned<PreSplitToml>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PartToml {
    field: Option<Spanned<String>>,
    #[serde(rename = "as")]
    encoding: Option<Spanned<String>>,
    width: Option<usize>,
    reverse: Option<Spanned<String>>,
    reverse_ts: Option<Spanned<String>>,
    time_bucket: Option<Spanned<String>>,
    seconds: Option<i64>,
    uid: Option<Spanned<String>>,
    salt: Option<u16>,
    md5: Option<usize>,
    hex: Option<bool>,
    of: Option<Vec<Spanned<String>>>,
    by: Option<Spanned<String>>,
    sep: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SourceToml {
    path: String,
    delimiter: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FieldToml {
    name: String,
    #[serde(rename = "gen")]
    generator: Spanned<String>,
    start: Option<i64>,
    step: Option<i64>,
    min: Option<i64>,
    max: Option<i64>,
    s: Option<f64>,
    dist: Option<Spanned<String>>,
    rate: Option<f64>,
    jitter_ms: Option<i64>,
    distinct: Option<u64>,
    len: Option<usize>,
    alphabet: Option<Spanned<String>>,
    values: Option<Vec<toml::Value>>,
    weights: Option<Vec<u64>>,
    of: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkloadToml {
    records: Spanned<u64>,
    value_size: Option<usize>,
    windows: Option<u32>,
    read_from: Option<Spanned<String>>,
    #[serde(default)]
    op: Vec<Spanned<OpToml>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpToml {
    kind: Spanned<String>,
    weight: u32,
    name: Option<String>,
    fields: Option<Vec<Spanned<String>>>,
    range: Option<Spanned<String>>,
    span_ms: Option<i64>,
    via: Option<Spanned<String>>,
}

// ---- the checked design ----------------------------------------------------------------------

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
    /// Secondary indexes.
    pub indexes: Vec<IndexSpec>,
    /// Fields in record order.
    pub fields: Vec<FieldDef>,
    /// Rows of the CSV/TSV source.
    pub source_rows: Vec<Vec<Value>>,
    /// Workload.
    pub workload: Workload,
}

/// Line (1-based) of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The dotted name of the `key = value` on line `line` (1-based) of `text`, with the table
/// header above it: `workload.records`.
fn field_at(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let here = lines.get(line.checked_sub(1)?)?.trim();
    let (key, _) = here.split_once('=')?;
    let key = key.trim();
    if key.is_empty() || key.starts_with('{') || key.starts_with('[') {
        return None;
    }
    let header = lines[..line - 1]
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| l.starts_with('['))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    Some(match header {
        Some(h) if !h.is_empty() => format!("{h}.{key}"),
        _ => key.to_string(),
    })
}

struct Ctx<'a> {
    file: String,
    text: &'a str,
}

impl Ctx<'_> {
    fn err(&self, span: Range<usize>, field: &str, msg: impl std::fmt::Display) -> DesignError {
        DesignError(format!(
            "{}:{}: {field}: {msg}",
            self.file,
            line_of(self.text, span.start)
        ))
    }
}

fn parse_size(ctx: &Ctx<'_>, s: &Spanned<Size>, field: &str) -> Result<u64, DesignError> {
    let v = match s.get_ref() {
        Size::Bytes(b) => Some(*b),
        Size::Text(t) => {
            let t = t.trim();
            let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
            let (num, unit) = t.split_at(split);
            let mult = match unit.trim().to_ascii_lowercase().as_str() {
                "" | "b" => Some(1u64),
                "k" | "kb" | "kib" => Some(1 << 10),
                "m" | "mb" | "mib" => Some(1 << 20),
                "g" | "gb" | "gib" => Some(1 << 30),
                _ => None,
            };
            match (num.parse::<u64>(), mult) {
                (Ok(n), Some(m)) => n.checked_mul(m),
                _ => None,
            }
        }
    };
    match v {
        Some(v) if v > 0 => Ok(v),
        _ => Err(ctx.err(
            s.span(),
            field,
            "expected a positive size: bytes (65536) or text with a unit (\"64KiB\", \"1MiB\")",
        )),
    }
}

fn pre_split(
    ctx: &Ctx<'_>,
    p: &Spanned<PreSplitToml>,
    field: &str,
) -> Result<(Vec<Vec<u8>>, String), DesignError> {
    let v = p.get_ref();
    let given = [
        v.keys.is_some(),
        v.algorithm.is_some(),
        v.salt_buckets.is_some(),
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    if given != 1 {
        return Err(ctx.err(
            p.span(),
            field,
            "give exactly one of keys = [...], algorithm = \"HexStringSplit\" with regions = N, or salt_buckets = N",
        ));
    }
    if let Some(keys) = &v.keys {
        let mut out: Vec<Vec<u8>> = keys.iter().map(|k| rowkey::to_bytes_binary(k)).collect();
        out.sort();
        out.dedup();
        if out.iter().any(Vec::is_empty) {
            return Err(ctx.err(p.span(), field, "a split key is empty"));
        }
        return Ok((out, format!("{} split keys", keys.len())));
    }
    if let Some(alg) = &v.algorithm {
        let a = SplitAlgorithm::from_name(alg.get_ref())
            .map_err(|e| ctx.err(alg.span(), &format!("{field}.algorithm"), e))?;
        let n = v.regions.ok_or_else(|| {
            ctx.err(
                p.span(),
                &format!("{field}.regions"),
                "missing (regions = N)",
            )
        })?;
        let keys = rowkey::split_keys_checked(a, n)
            .map_err(|e| ctx.err(p.span(), &format!("{field}.regions"), e))?;
        return Ok((keys, format!("{} x {n}", a.name())));
    }
    let b = v.salt_buckets.unwrap_or(1);
    if b < 2 {
        return Err(ctx.err(
            p.span(),
            &format!("{field}.salt_buckets"),
            "must be at least 2",
        ));
    }
    Ok((
        rowkey::salted_prefixes(b)[1..].to_vec(),
        format!("one region per salt bucket ({b})"),
    ))
}

fn field_index(
    ctx: &Ctx<'_>,
    names: &HashMap<String, usize>,
    s: &Spanned<String>,
    field: &str,
) -> Result<usize, DesignError> {
    names.get(s.get_ref()).copied().ok_or_else(|| {
        let mut known: Vec<&String> = names.keys().collect();
        known.sort();
        ctx.err(
            s.span(),
            field,
            format!(
                "no record field named \"{}\" (fields: {})",
                s.get_ref(),
                known
                    .iter()
                    .map(|k| k.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    })
}

fn key_parts(
    ctx: &Ctx<'_>,
    names: &HashMap<String, usize>,
    parts: &[Spanned<PartToml>],
    at: &str,
) -> Result<(KeyDesign, String), DesignError> {
    if parts.is_empty() {
        return Err(DesignError(format!(
            "{}: {at}.parts: a rowkey needs at least one part",
            ctx.file
        )));
    }
    let mut out = Vec::new();
    let mut text = Vec::new();
    for (i, sp) in parts.iter().enumerate() {
        let p = sp.get_ref();
        let here = format!("{at}.parts[{i}]");
        let kinds = [
            ("field", p.field.is_some()),
            ("reverse", p.reverse.is_some()),
            ("reverse_ts", p.reverse_ts.is_some()),
            ("time_bucket", p.time_bucket.is_some()),
            ("uid", p.uid.is_some()),
            ("salt", p.salt.is_some()),
            ("md5", p.md5.is_some()),
            ("sep", p.sep.is_some()),
        ];
        let set: Vec<&str> = kinds.iter().filter(|k| k.1).map(|k| k.0).collect();
        if set.len() != 1 {
            return Err(ctx.err(
                sp.span(),
                &here,
                format!(
                    "a part is exactly one of field, reverse, reverse_ts, time_bucket, uid, salt, md5, sep (found: {})",
                    if set.is_empty() { "none".to_string() } else { set.join(", ") }
                ),
            ));
        }
        let fi =
            |s: &Spanned<String>, sub: &str| field_index(ctx, names, s, &format!("{here}.{sub}"));
        let over = |sub: &str| -> Result<(Over, String), DesignError> {
            match &p.of {
                None => Ok((Over::Rest, "rest of key".to_string())),
                Some(list) if list.is_empty() => Err(ctx.err(
                    sp.span(),
                    &format!("{here}.of"),
                    "an empty list; leave `of` out to use the rest of the key",
                )),
                Some(list) => {
                    let mut idx = Vec::new();
                    for (j, f) in list.iter().enumerate() {
                        idx.push(fi(f, &format!("{sub}[{j}]"))?);
                    }
                    Ok((
                        Over::Fields(idx),
                        list.iter()
                            .map(|f| f.get_ref().as_str())
                            .collect::<Vec<_>>()
                            .join("+"),
                    ))
                }
            }
        };
        let (part, desc) = match set[0] {
            "field" => {
                let f = p
                    .field
                    .as_ref()
                    .map(|f| fi(f, "field"))
                    .transpose()?
                    .unwrap_or(0);
                let name = p
                    .field
                    .as_ref()
                    .map(|f| f.get_ref().clone())
                    .unwrap_or_default();
                let enc = match p.encoding.as_ref().map(|e| e.get_ref().as_str()) {
                    None | Some("str") => Enc::Str,
                    Some("u32") => Enc::U32,
                    Some("u64") => Enc::U64,
                    Some("i64") => Enc::I64,
                    Some("decimal") => Enc::Decimal(p.width.unwrap_or(10).clamp(1, 19)),
                    Some(other) => {
                        let sp = p.encoding.as_ref().map(|e| e.span()).unwrap_or(sp.span());
                        return Err(ctx.err(
                            sp,
                            &format!("{here}.as"),
                            format!("unknown encoding \"{other}\" (str, u32, u64, i64, decimal)"),
                        ));
                    }
                };
                let d = match enc {
                    Enc::Str => name,
                    Enc::U32 => format!("u32({name})"),
                    Enc::U64 => format!("u64({name})"),
                    Enc::I64 => format!("i64({name})"),
                    Enc::Decimal(w) => format!("dec{w}({name})"),
                };
                (Part::Field { field: f, enc }, d)
            }
            "reverse" => {
                let s = p
                    .reverse
                    .as_ref()
                    .ok_or_else(|| ctx.err(sp.span(), &here, "reverse"))?;
                (
                    Part::Reverse {
                        field: fi(s, "reverse")?,
                    },
                    format!("reverse({})", s.get_ref()),
                )
            }
            "reverse_ts" => {
                let s = p
                    .reverse_ts
                    .as_ref()
                    .ok_or_else(|| ctx.err(sp.span(), &here, "reverse_ts"))?;
                (
                    Part::ReverseTs {
                        field: fi(s, "reverse_ts")?,
                    },
                    format!("MAX-{}", s.get_ref()),
                )
            }
            "time_bucket" => {
                let s = p
                    .time_bucket
                    .as_ref()
                    .ok_or_else(|| ctx.err(sp.span(), &here, "time_bucket"))?;
                let secs = p.seconds.unwrap_or(3600);
                if secs <= 0 || secs > 1_000_000_000 {
                    return Err(ctx.err(
                        sp.span(),
                        &format!("{here}.seconds"),
                        "must be between 1 and 1000000000",
                    ));
                }
                (
                    Part::TimeBucket {
                        field: fi(s, "time_bucket")?,
                        millis: secs * 1000,
                    },
                    format!("bucket{secs}s({})", s.get_ref()),
                )
            }
            "uid" => {
                let s = p
                    .uid
                    .as_ref()
                    .ok_or_else(|| ctx.err(sp.span(), &here, "uid"))?;
                let w = p.width.unwrap_or(3);
                if !(1..=8).contains(&w) {
                    return Err(ctx.err(
                        sp.span(),
                        &format!("{here}.width"),
                        "a uid is 1 to 8 bytes",
                    ));
                }
                (
                    Part::Uid {
                        field: fi(s, "uid")?,
                        width: w,
                    },
                    format!("uid{w}({})", s.get_ref()),
                )
            }
            "salt" => {
                let buckets = p.salt.unwrap_or(0);
                if buckets < 2 {
                    return Err(ctx.err(
                        sp.span(),
                        &format!("{here}.salt"),
                        "needs at least 2 buckets",
                    ));
                }
                let by = match p.by.as_ref().map(|b| b.get_ref().as_str()) {
                    None | Some("crc32") => SaltBy::Crc32,
                    Some("sum_mod") => SaltBy::SumMod,
                    Some(other) => {
                        let s = p.by.as_ref().map(|b| b.span()).unwrap_or(sp.span());
                        return Err(ctx.err(
                            s,
                            &format!("{here}.by"),
                            format!("unknown bucket function \"{other}\" (crc32, sum_mod)"),
                        ));
                    }
                };
                let (over, what) = over("of")?;
                if by == SaltBy::SumMod && over == Over::Rest {
                    return Err(ctx.err(
                        sp.span(),
                        &format!("{here}.of"),
                        "by = \"sum_mod\" adds fields: name them with of = [...]",
                    ));
                }
                let f = if by == SaltBy::SumMod { "sum" } else { "crc32" };
                (
                    Part::Salt { over, buckets, by },
                    format!("salt{buckets}({f} {what})"),
                )
            }
            "md5" => {
                let bytes = p.md5.unwrap_or(0);
                if !(1..=16).contains(&bytes) {
                    return Err(ctx.err(
                        sp.span(),
                        &format!("{here}.md5"),
                        "keeps 1 to 16 digest bytes",
                    ));
                }
                let (over, what) = over("of")?;
                let hex = p.hex.unwrap_or(false);
                (
                    Part::Hash { over, bytes, hex },
                    format!("md5[{bytes}{}]({what})", if hex { " hex" } else { "" }),
                )
            }
            _ => {
                let s = p.sep.clone().unwrap_or_default();
                let b = rowkey::to_bytes_binary(&s);
                if b.is_empty() {
                    return Err(ctx.err(sp.span(), &format!("{here}.sep"), "an empty separator"));
                }
                (Part::Sep(b), format!("'{s}'"))
            }
        };
        // Options that belong to other kinds are mistakes worth naming.
        let stray = [
            ("as", p.encoding.is_some() && set[0] != "field"),
            (
                "width",
                p.width.is_some() && !matches!(set[0], "field" | "uid"),
            ),
            ("seconds", p.seconds.is_some() && set[0] != "time_bucket"),
            ("hex", p.hex.is_some() && set[0] != "md5"),
            ("of", p.of.is_some() && !matches!(set[0], "salt" | "md5")),
            ("by", p.by.is_some() && set[0] != "salt"),
        ];
        if let Some((k, _)) = stray.iter().find(|s| s.1) {
            return Err(ctx.err(
                sp.span(),
                &format!("{here}.{k}"),
                format!("does not apply to a {} part", set[0]),
            ));
        }
        out.push(part);
        text.push(desc);
    }
    Ok((KeyDesign::new(out), text.join(" + ")))
}

fn dist_of(ctx: &Ctx<'_>, f: &FieldToml, at: &str, n: u64) -> Result<Dist, DesignError> {
    match f.dist.as_ref().map(|d| d.get_ref().as_str()) {
        None | Some("uniform") => Ok(Dist::Uniform),
        Some("zipf") => {
            let s = f.s.unwrap_or(1.1);
            if !(s > 0.0 && s.is_finite()) {
                return Err(DesignError(format!(
                    "{}: {at}.s: must be a positive number",
                    ctx.file
                )));
            }
            if n > 5_000_000 {
                return Err(DesignError(format!(
                    "{}: {at}: a Zipfian field draws from at most 5000000 values",
                    ctx.file
                )));
            }
            Ok(Dist::Zipf(Zipf::new(n, s)))
        }
        Some(other) => {
            let sp = f.dist.as_ref().map(|d| d.span()).unwrap_or(0..0);
            Err(ctx.err(
                sp,
                &format!("{at}.dist"),
                format!("unknown distribution \"{other}\" (uniform, zipf)"),
            ))
        }
    }
}

fn generator(
    ctx: &Ctx<'_>,
    sf: &Spanned<FieldToml>,
    at: &str,
    names: &HashMap<String, usize>,
    rng: &mut Rng,
) -> Result<Generator, DesignError> {
    let f = sf.get_ref();
    let need = |v: Option<i64>, k: &str| {
        v.ok_or_else(|| ctx.err(sf.span(), &format!("{at}.{k}"), "missing"))
    };
    let alphabet = |default: &'static [u8]| -> Result<&'static [u8], DesignError> {
        match f.alphabet.as_ref().map(|a| a.get_ref().as_str()) {
            None => Ok(default),
            Some("hex") => Ok(records::HEX),
            Some("letters") => Ok(records::LETTERS),
            Some("digits") => Ok(b"0123456789"),
            Some(other) => Err(ctx.err(
                f.alphabet.as_ref().map(|a| a.span()).unwrap_or(sf.span()),
                &format!("{at}.alphabet"),
                format!("unknown alphabet \"{other}\" (hex, letters, digits)"),
            )),
        }
    };
    let kind = f.generator.get_ref().as_str();
    Ok(match kind {
        "sequence" => Generator::Sequence {
            start: f.start.unwrap_or(0),
            step: f.step.unwrap_or(1),
        },
        "uniform" | "zipf" => {
            let min = need(f.min, "min")?;
            let max = need(f.max, "max")?;
            if max < min {
                return Err(ctx.err(sf.span(), &format!("{at}.max"), "smaller than min"));
            }
            let span = i128::from(max) - i128::from(min) + 1;
            let dist = if kind == "zipf" {
                let s = f.s.unwrap_or(1.1);
                if span > 5_000_000 || !(s > 0.0 && s.is_finite()) {
                    return Err(ctx.err(
                        sf.span(),
                        &format!("{at}.s"),
                        "zipf needs s > 0 and at most 5000000 values between min and max",
                    ));
                }
                Dist::Zipf(Zipf::new(span as u64, s))
            } else {
                Dist::Uniform
            };
            Generator::Int { min, max, dist }
        }
        "timestamp" => {
            let rate = f.rate.unwrap_or(100.0);
            if !(rate > 0.0 && rate.is_finite()) {
                return Err(ctx.err(sf.span(), &format!("{at}.rate"), "records per second, > 0"));
            }
            Generator::Timestamp {
                start: f.start.unwrap_or(1_704_067_200_000),
                rate,
                jitter_ms: f.jitter_ms.unwrap_or(0).max(0),
            }
        }
        "phone" => {
            let n = f.distinct.unwrap_or(10_000).clamp(1, 5_000_000);
            Generator::Population {
                members: records::phone_population(n, rng),
                dist: dist_of(ctx, f, at, n)?,
            }
        }
        "id" | "string" => {
            let len = f
                .len
                .unwrap_or(if kind == "id" { 16 } else { 8 })
                .clamp(1, 1000);
            let abc = alphabet(if kind == "id" {
                records::HEX
            } else {
                records::LETTERS
            })?;
            match f.distinct {
                None => Generator::Fresh { len, alphabet: abc },
                Some(n) => {
                    let n = n.clamp(1, 5_000_000);
                    let members = records::string_population(n, len, abc, rng);
                    let dist = dist_of(ctx, f, at, members.len() as u64)?;
                    Generator::Population { members, dist }
                }
            }
        }
        "choice" => {
            let vals = f.values.as_ref().filter(|v| !v.is_empty()).ok_or_else(|| {
                ctx.err(
                    sf.span(),
                    &format!("{at}.values"),
                    "choice needs values = [...]",
                )
            })?;
            let values: Vec<Value> = vals
                .iter()
                .map(|v| match v {
                    toml::Value::Integer(i) => Value::Int(*i),
                    toml::Value::String(s) => Value::Str(s.clone()),
                    other => Value::Str(other.to_string()),
                })
                .collect();
            let weights = f.weights.clone().unwrap_or_else(|| vec![1; values.len()]);
            if weights.len() != values.len() || weights.iter().all(|&w| w == 0) {
                return Err(ctx.err(
                    sf.span(),
                    &format!("{at}.weights"),
                    "one weight per value, not all zero",
                ));
            }
            let mut acc = 0;
            let cumulative = weights
                .iter()
                .map(|w| {
                    acc += w;
                    acc
                })
                .collect();
            Generator::Choice { values, cumulative }
        }
        "month" | "day" | "hour" => {
            let of = f.of.as_ref().ok_or_else(|| {
                ctx.err(
                    sf.span(),
                    &format!("{at}.of"),
                    "name the timestamp field: of = \"ts\"",
                )
            })?;
            Generator::Derived {
                of: field_index(ctx, names, of, &format!("{at}.of"))?,
                calendar: match kind {
                    "month" => Calendar::Month,
                    "day" => Calendar::Day,
                    _ => Calendar::Hour,
                },
            }
        }
        other => {
            return Err(ctx.err(
                f.generator.span(),
                &format!("{at}.gen"),
                format!(
                    "unknown generator \"{other}\" (sequence, uniform, zipf, timestamp, phone, id, string, choice, month, day, hour)"
                ),
            ));
        }
    })
}

fn family(
    ctx: &Ctx<'_>,
    sf: &Spanned<FamilyToml>,
    at: &str,
) -> Result<FamilyDescriptor, DesignError> {
    let f = sf.get_ref();
    let mut d = FamilyDescriptor::new(&f.name);
    if let Some(v) = f.versions {
        d = d.max_versions(v);
    }
    if let Some(b) = &f.bloom {
        d = d.bloom_filter(match b.get_ref().to_ascii_uppercase().as_str() {
            "NONE" => BloomType::None,
            "ROW" => BloomType::Row,
            "ROWCOL" => BloomType::RowCol,
            other => {
                return Err(ctx.err(
                    b.span(),
                    &format!("{at}.bloom"),
                    format!("unknown bloom type \"{other}\" (NONE, ROW, ROWCOL)"),
                ));
            }
        });
    }
    if let Some(c) = &f.compression {
        d = d.compression(match c.get_ref().to_ascii_uppercase().as_str() {
            "NONE" => Compression::None,
            "SNAPPY" => Compression::Snappy,
            other => {
                return Err(ctx.err(
                    c.span(),
                    &format!("{at}.compression"),
                    format!("unknown compression \"{other}\" (NONE, SNAPPY)"),
                ));
            }
        });
    }
    if let Some(b) = f.block_size {
        d = d.block_size(b);
    }
    d.validate().map_err(|e| ctx.err(sf.span(), at, e))?;
    Ok(d)
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

    let (key, key_text) = key_parts(&ctx, &names, &raw.rowkey.get_ref().parts, "rowkey")?;
    let mut indexes = Vec::new();
    let mut index_names = HashMap::new();
    for (i, ix) in raw.index.iter().enumerate() {
        let at = format!("index[{i}]");
        let v = ix.get_ref();
        let (k, kt) = key_parts(&ctx, &names, &v.parts, &at)?;
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
            other => {
                return Err(ctx.err(
                    o.kind.span(),
                    &format!("{at}.kind"),
                    format!("unknown operation \"{other}\" (put, get, prefix_scan, time_scan)"),
                ));
            }
        };
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
        indexes,
        fields,
        source_rows,
        workload: Workload {
            records,
            value_size: w.value_size.unwrap_or(100).min(1 << 20),
            windows: w.windows.map(|n| n.clamp(1, 1000)),
            read_recent,
            ops,
        },
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
