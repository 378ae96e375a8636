//! Checks of the table settings: sizes, pre-splits and column families.

use super::DesignError;
use super::file::{Ctx, FamilyToml, PreSplitToml, Size};
use cellbase::rowkey::{self, SplitAlgorithm};
use cellbase::{BloomType, Compression, FamilyDescriptor};
use toml::Spanned;

pub(super) fn parse_size(
    ctx: &Ctx<'_>,
    s: &Spanned<Size>,
    field: &str,
) -> Result<u64, DesignError> {
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

pub(super) fn pre_split(
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

pub(super) fn family(
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
        // LZO and BZIP2 are stored as LZ4 and GZ, as the shell stores them.
        let codec = Compression::from_hbase_name(c.get_ref()).map_err(|_| {
            ctx.err(
                c.span(),
                &format!("{at}.compression"),
                format!(
                    "unknown compression \"{}\" (NONE, SNAPPY, GZ, LZ4, ZSTD, LZO, BZIP2)",
                    c.get_ref()
                ),
            )
        })?;
        d = d.compression(codec.0);
    }
    if let Some(b) = f.block_size {
        d = d.block_size(b);
    }
    if let Some(t) = &f.ttl {
        // HBase's TTL is in seconds [TTL-1].
        if *t.get_ref() <= 0 {
            return Err(ctx.err(
                t.span(),
                &format!("{at}.ttl"),
                "seconds, at least 1 (leave it out for no TTL)",
            ));
        }
        d = d.ttl(std::time::Duration::from_secs(*t.get_ref() as u64));
    }
    d.validate().map_err(|e| ctx.err(sf.span(), at, e))?;
    Ok(d)
}
