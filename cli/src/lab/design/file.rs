//! The design file as written (serde's view of the TOML), and positions in its text for
//! the errors.

use super::DesignError;
use serde::Deserialize;
use std::ops::Range;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DesignToml {
    pub(super) name: Option<String>,
    pub(super) description: Option<String>,
    pub(super) seed: Option<u64>,
    pub(super) table: Spanned<TableToml>,
    pub(super) rowkey: Spanned<KeyToml>,
    #[serde(default)]
    pub(super) index: Vec<Spanned<IndexToml>>,
    pub(super) source: Option<Spanned<SourceToml>>,
    #[serde(default)]
    pub(super) field: Vec<Spanned<FieldToml>>,
    pub(super) workload: Spanned<WorkloadToml>,
    pub(super) cluster: Option<Spanned<ClusterToml>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ClusterToml {
    pub(super) servers: Option<Spanned<u64>>,
    pub(super) balance_every: Option<u64>,
    pub(super) rpc_ms: Option<Spanned<f64>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum Size {
    Bytes(u64),
    Text(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TableToml {
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) family: Vec<Spanned<FamilyToml>>,
    pub(super) max_region_size: Option<Spanned<Size>>,
    pub(super) memstore_flush_size: Option<Spanned<Size>>,
    pub(super) pre_split: Option<Spanned<PreSplitToml>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FamilyToml {
    pub(super) name: String,
    pub(super) versions: Option<u32>,
    pub(super) bloom: Option<Spanned<String>>,
    pub(super) compression: Option<Spanned<String>>,
    pub(super) block_size: Option<u32>,
    pub(super) ttl: Option<Spanned<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PreSplitToml {
    pub(super) keys: Option<Vec<String>>,
    pub(super) algorithm: Option<Spanned<String>>,
    pub(super) regions: Option<u32>,
    pub(super) salt_buckets: Option<u16>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct KeyToml {
    pub(super) parts: Vec<Spanned<PartToml>>,
    pub(super) qualifier: Option<Vec<Spanned<PartToml>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct IndexToml {
    pub(super) name: String,
    pub(super) parts: Vec<Spanned<PartToml>>,
    pub(super) max_region_size: Option<Spanned<Size>>,
    pub(super) pre_split: Option<Spanned<PreSplitToml>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PartToml {
    pub(super) field: Option<Spanned<String>>,
    #[serde(rename = "as")]
    pub(super) encoding: Option<Spanned<String>>,
    pub(super) width: Option<usize>,
    pub(super) reverse: Option<Spanned<String>>,
    pub(super) reverse_ts: Option<Spanned<String>>,
    pub(super) time_bucket: Option<Spanned<String>>,
    pub(super) time_offset: Option<Spanned<String>>,
    pub(super) seconds: Option<i64>,
    pub(super) uid: Option<Spanned<String>>,
    pub(super) salt: Option<u16>,
    pub(super) random: Option<bool>,
    pub(super) md5: Option<usize>,
    pub(super) hex: Option<bool>,
    pub(super) of: Option<Vec<Spanned<String>>>,
    pub(super) by: Option<Spanned<String>>,
    pub(super) sep: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SourceToml {
    pub(super) path: String,
    pub(super) delimiter: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FieldToml {
    pub(super) name: String,
    #[serde(rename = "gen")]
    pub(super) generator: Spanned<String>,
    pub(super) start: Option<i64>,
    pub(super) step: Option<i64>,
    pub(super) min: Option<i64>,
    pub(super) max: Option<i64>,
    pub(super) s: Option<f64>,
    pub(super) dist: Option<Spanned<String>>,
    pub(super) rate: Option<f64>,
    pub(super) jitter_ms: Option<i64>,
    pub(super) distinct: Option<u64>,
    pub(super) len: Option<usize>,
    pub(super) alphabet: Option<Spanned<String>>,
    pub(super) values: Option<Vec<toml::Value>>,
    pub(super) weights: Option<Vec<u64>>,
    pub(super) of: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct WorkloadToml {
    pub(super) records: Spanned<u64>,
    pub(super) value_size: Option<usize>,
    pub(super) windows: Option<u32>,
    pub(super) read_from: Option<Spanned<String>>,
    pub(super) families: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) op: Vec<Spanned<OpToml>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OpToml {
    pub(super) kind: Spanned<String>,
    pub(super) weight: u32,
    pub(super) name: Option<String>,
    pub(super) fields: Option<Vec<Spanned<String>>>,
    pub(super) range: Option<Spanned<String>>,
    pub(super) span_ms: Option<i64>,
    pub(super) via: Option<Spanned<String>>,
    pub(super) n: Option<u32>,
    pub(super) by: Option<Spanned<String>>,
}

/// Line (1-based) of byte offset `at` in `text`.
pub(super) fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The dotted name of the `key = value` on line `line` (1-based) of `text`, with the table
/// header above it: `workload.records`.
pub(super) fn field_at(text: &str, line: usize) -> Option<String> {
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

pub(super) struct Ctx<'a> {
    pub(super) file: String,
    pub(super) text: &'a str,
}

impl Ctx<'_> {
    pub(super) fn err(
        &self,
        span: Range<usize>,
        field: &str,
        msg: impl std::fmt::Display,
    ) -> DesignError {
        DesignError(format!(
            "{}:{}: {field}: {msg}",
            self.file,
            line_of(self.text, span.start)
        ))
    }
}
