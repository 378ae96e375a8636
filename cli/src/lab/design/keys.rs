//! Checks of the rowkey and index-key parts.

use super::DesignError;
use super::fields::field_index;
use super::file::{Ctx, PartToml};
use crate::lab::key::{Enc, KeyDesign, Over, Part, SaltBy};
use cellbase::rowkey;
use std::collections::HashMap;
use toml::Spanned;

pub(super) fn key_parts(
    ctx: &Ctx<'_>,
    names: &HashMap<String, usize>,
    parts: &[Spanned<PartToml>],
    at: &str,
    allow_random: bool,
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
            ("time_offset", p.time_offset.is_some()),
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
                    "a part is exactly one of field, reverse, reverse_ts, time_bucket, time_offset, uid, salt, md5, sep (found: {})",
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
            "time_offset" => {
                let s = p
                    .time_offset
                    .as_ref()
                    .ok_or_else(|| ctx.err(sp.span(), &here, "time_offset"))?;
                let secs = p.seconds.unwrap_or(3600);
                if secs <= 0 || secs > 4_000_000 {
                    return Err(ctx.err(
                        sp.span(),
                        &format!("{here}.seconds"),
                        "must be between 1 and 4000000 (the offset is 4 bytes of milliseconds)",
                    ));
                }
                (
                    Part::TimeOffset {
                        field: fi(s, "time_offset")?,
                        millis: secs * 1000,
                    },
                    format!("offset{secs}s({})", s.get_ref()),
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
                if p.random == Some(true) {
                    if p.of.is_some() || p.by.is_some() {
                        return Err(ctx.err(
                            sp.span(),
                            &format!("{here}.random"),
                            "a random salt reads no fields: leave out `of` and `by`",
                        ));
                    }
                    if i != 0 || !allow_random {
                        return Err(ctx.err(
                            sp.span(),
                            &format!("{here}.random"),
                            "a random salt is the first part of a rowkey",
                        ));
                    }
                    out.push(Part::RandomSalt { buckets });
                    text.push(format!("salt{buckets}(random)"));
                    continue;
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
            (
                "seconds",
                p.seconds.is_some() && !matches!(set[0], "time_bucket" | "time_offset"),
            ),
            ("random", p.random.is_some() && set[0] != "salt"),
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
