//! Checks of the record fields: field names, distributions and generators.

use super::DesignError;
use super::file::{Ctx, FieldToml};
use crate::lab::records::{self, Calendar, Dist, Generator, Rng, Value, Zipf};
use std::collections::HashMap;
use toml::Spanned;

pub(super) fn field_index(
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

pub(super) fn generator(
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
