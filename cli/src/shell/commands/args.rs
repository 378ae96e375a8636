//! Argument helpers: Ruby values to engine types, with the shell's error messages.

use super::{CmdError, R, engine_msg, err};
use crate::shell::format::Converter;
use crate::shell::ruby::Value;
use cellbase::Filter;

pub(super) fn bytes_of(v: &Value, what: &str) -> R<Vec<u8>> {
    match v {
        Value::Str(s) => Ok(s.clone()),
        Value::Int(i) => Ok(i.to_string().into_bytes()),
        Value::Float(f) => Ok(f.to_string().into_bytes()),
        other => err(format!(
            "{what} must be a String, got {} {}",
            other.type_name(),
            other.describe()
        )),
    }
}

/// A Ruby-style regex argument (`list 'abc.*'`) as a full match: Java's `Pattern.matches`,
/// as HBase's list commands use it. A bad pattern names the regex parser's complaint.
pub(super) fn full_match_regex(v: &Value, what: &str) -> R<regex::Regex> {
    let pat = str_of(v, what)?;
    regex::Regex::new(&format!("^(?:{pat})$")).map_err(|e| {
        let detail = e.to_string();
        let last = detail
            .lines()
            .last()
            .unwrap_or("")
            .trim_start_matches("error: ");
        CmdError(format!("Invalid regex {pat}: {last}"))
    })
}

/// The `=> ["a", "b"]` echo of a command that returns a list of names.
pub(super) fn echo_names<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> super::Echo {
    Some(format!(
        "[{}]",
        names
            .into_iter()
            .map(|n| format!("\"{}\"", n.as_ref()))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

pub(super) fn str_of(v: &Value, what: &str) -> R<String> {
    match v {
        Value::Str(s) => String::from_utf8(s.clone())
            .map_err(|_| CmdError(format!("{what} must be valid UTF-8 text"))),
        other => err(format!(
            "{what} must be a String, got {} {}",
            other.type_name(),
            other.describe()
        )),
    }
}

pub(super) fn int_of(v: &Value, what: &str) -> R<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Str(s) => std::str::from_utf8(s)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .ok_or_else(|| CmdError(format!("{what} must be an integer, got {}", v.describe()))),
        other => err(format!(
            "{what} must be an integer, got {}",
            other.describe()
        )),
    }
}

pub(super) fn u32_of(v: &Value, what: &str) -> R<u32> {
    let i = int_of(v, what)?;
    u32::try_from(i).map_err(|_| CmdError(format!("{what} out of range: {i}")))
}

pub(super) fn bool_of(v: &Value, what: &str) -> R<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Str(s) if s.eq_ignore_ascii_case(b"true") => Ok(true),
        Value::Str(s) if s.eq_ignore_ascii_case(b"false") => Ok(false),
        other => err(format!(
            "{what} must be true or false, got {}",
            other.describe()
        )),
    }
}

/// A hash argument with keys taken one by one; leftovers are rejected by [`Opts::finish`].
pub(super) struct Opts(pub(super) Vec<(String, Value)>);

impl Opts {
    pub(super) fn from(v: &Value) -> R<Opts> {
        match v {
            Value::Hash(pairs) => {
                let mut out = Vec::new();
                for (k, val) in pairs {
                    out.push((str_of(k, "option name")?, val.clone()));
                }
                Ok(Opts(out))
            }
            other => err(format!(
                "expected a hash of options, got {}",
                other.describe()
            )),
        }
    }
    pub(super) fn take(&mut self, key: &str) -> Option<Value> {
        let i = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(i).1)
    }
    pub(super) fn has(&self, key: &str) -> bool {
        self.0.iter().any(|(k, _)| k == key)
    }
    /// Options HBase accepts that have no effect here (performance hints).
    pub(super) fn ignore(&mut self, keys: &[&str]) {
        self.0.retain(|(k, _)| !keys.contains(&k.as_str()));
    }
    pub(super) fn finish(self, cmd: &str) -> R<()> {
        const UNSUPPORTED: &[&str] = &[
            "ATTRIBUTES",
            "VISIBILITY",
            "AUTHORIZATIONS",
            "METADATA",
            "CONFIGURATION",
            "OWNER",
            "REGION_REPLICATION",
            "DFS_REPLICATION",
            "MOB_THRESHOLD",
            "IS_MOB",
        ];
        match self.0.first() {
            None => Ok(()),
            Some((k, _)) if UNSUPPORTED.contains(&k.as_str()) => {
                err(format!("{k} is not supported by cellbase's {cmd}"))
            }
            Some((k, _)) => err(format!("Unknown option {k} for {cmd}")),
        }
    }
}

pub(super) fn arity(args: &[Value], min: usize, max: usize) -> R<()> {
    if args.len() < min || args.len() > max {
        let want = if min == max {
            min.to_string()
        } else if max == usize::MAX {
            format!("{min}+")
        } else {
            format!("{min}..{max}")
        };
        return err(format!(
            "wrong number of arguments (given {}, expected {want})",
            args.len()
        ));
    }
    Ok(())
}

/// `fam:qual` (or `fam` = empty qualifier) as bytes.
pub(super) fn split_column(col: &[u8]) -> (Vec<u8>, Option<Vec<u8>>) {
    match col.iter().position(|&b| b == b':') {
        Some(i) => (col[..i].to_vec(), Some(col[i + 1..].to_vec())),
        None => (col.to_vec(), None),
    }
}

/// A get/scan column spec: `fam`, `fam:qual` or `fam:qual:converter`.
pub(super) struct ColSpec {
    pub(super) family: Vec<u8>,
    pub(super) qualifier: Option<Vec<u8>>,
    pub(super) conv: Option<Converter>,
}

pub(super) fn col_spec(v: &Value) -> R<ColSpec> {
    let raw = bytes_of(v, "column")?;
    let (family, qualifier) = split_column(&raw);
    if let Some(q) = &qualifier
        && let Some(i) = q.iter().rposition(|&b| b == b':')
        && let Some(conv) = std::str::from_utf8(&q[i + 1..])
            .ok()
            .and_then(Converter::parse)
    {
        return Ok(ColSpec {
            family,
            qualifier: Some(q[..i].to_vec()),
            conv: Some(conv),
        });
    }
    Ok(ColSpec {
        family,
        qualifier,
        conv: None,
    })
}

pub(super) fn col_specs(v: &Value) -> R<Vec<ColSpec>> {
    match v {
        Value::Array(items) => items.iter().map(col_spec).collect(),
        other => Ok(vec![col_spec(other)?]),
    }
}

pub(super) fn time_range(v: &Value) -> R<(i64, i64)> {
    match v {
        Value::Array(a) if a.len() == 2 => Ok((
            int_of(&a[0], "TIMERANGE start")?,
            int_of(&a[1], "TIMERANGE end")?,
        )),
        other => err(format!(
            "TIMERANGE must be [min, max), got {}",
            other.describe()
        )),
    }
}

/// `FORMATTER => 'toString'` (and `FORMATTER_CLASS`, which must be HBase's `Bytes`): the
/// converter for every column without its own `:converter` suffix.
pub(super) fn formatter(o: &mut Opts) -> R<Converter> {
    if let Some(v) = o.take("FORMATTER_CLASS") {
        let class = str_of(&v, "FORMATTER_CLASS")?;
        if class != "org.apache.hadoop.hbase.util.Bytes" {
            return err(format!(
                "FORMATTER_CLASS {class} is not supported (only org.apache.hadoop.hbase.util.Bytes)"
            ));
        }
    }
    match o.take("FORMATTER") {
        None => Ok(Converter::StringBinary),
        Some(v) => {
            let name = str_of(&v, "FORMATTER")?;
            Converter::parse(&name).ok_or_else(|| CmdError(format!("Unknown FORMATTER {name}")))
        }
    }
}

pub(super) fn parse_filter(v: &Value) -> R<Filter> {
    let s = str_of(v, "FILTER")?;
    Filter::parse(&s).map_err(|e| CmdError(engine_msg(&e)))
}

pub(super) fn converter_for(
    cols: &[ColSpec],
    default: &Converter,
    family: &[u8],
    qualifier: &[u8],
) -> Converter {
    cols.iter()
        .find(|c| c.family == family && c.qualifier.as_deref().is_none_or(|q| q == qualifier))
        .and_then(|c| c.conv.clone())
        .unwrap_or_else(|| default.clone())
}

/// MAXLENGTH as HBase's `to_string` uses it: -1 (the default) keeps the whole text, another
/// negative value leaves nothing (`val[0, -n]` is nil).
pub(super) fn maxlength_of(v: &Value) -> R<Option<usize>> {
    let n = int_of(v, "MAXLENGTH")?;
    Ok(match n {
        -1 => None,
        n => Some(usize::try_from(n).unwrap_or(0)),
    })
}
