//! Output formats of the HBase shell (hbase-shell.md §4.2–4.4): the two-column get/scan
//! layout (pipe and TTY forms), timestamps, `Bytes.toStringBinary`, describe's family lines
//! and list_regions' table.

use cellbase::rowkey::to_string_binary;
use cellbase::{Cell, CellType, FamilyDescriptor, KeepDeletedCells};
use std::io::{self, Write};

/// How timestamps print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TsFormat {
    /// HBase 2.3+: ISO-8601 local time via Java's `LocalDateTime.toString()`.
    Iso,
    /// `hbase.shell.timestamp.format.epoch=true`: epoch milliseconds.
    Epoch,
}

/// Formats a timestamp as the HBase shell does.
pub fn timestamp(ts: i64, fmt: TsFormat) -> String {
    match fmt {
        TsFormat::Epoch => ts.to_string(),
        TsFormat::Iso => iso_local(ts).unwrap_or_else(|| ts.to_string()),
    }
}

/// Java's `LocalDateTime.toString()` of `ts` in the local time zone: `yyyy-MM-ddTHH:mm`, then
/// `:ss` unless seconds and millis are both zero, then `.SSS` unless millis are zero.
fn iso_local(ts: i64) -> Option<String> {
    use chrono::{Datelike, Local, TimeZone, Timelike};
    let dt = Local.timestamp_millis_opt(ts).single()?;
    let year = dt.year();
    if !(0..=9999).contains(&year) {
        return None;
    }
    let ms = dt.timestamp_subsec_millis();
    let mut s = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}",
        year,
        dt.month(),
        dt.day(),
        dt.hour(),
        dt.minute()
    );
    if dt.second() != 0 || ms != 0 {
        s.push_str(&format!(":{:02}", dt.second()));
        if ms != 0 {
            s.push_str(&format!(".{ms:03}"));
        }
    }
    Some(s)
}

/// Writes HBase `formatter.row([a, b], inset, widths)`: with `width == 0` (not a TTY) the
/// columns are as long as their text; otherwise column one is `width/4` wide, column two
/// `width - width/4 - 2`, both padded with `%-*s` and wrapped onto continuation lines.
pub fn two_col(out: &mut dyn Write, a: &str, b: &str, inset: bool, width: usize) -> io::Result<()> {
    let (w1, w2) = if width == 0 {
        (0, 0)
    } else {
        let w1 = (width / 4).max(1);
        (w1, width.saturating_sub(w1 + 2).max(1))
    };
    let s1 = split(a, w1);
    let s2 = split(b, w2);
    let n = s1.len().max(s2.len());
    for i in 0..n {
        let mut line = String::new();
        if inset {
            line.push(' ');
        }
        pad(&mut line, s1.get(i).map_or("", String::as_str), w1);
        if !inset {
            line.push(' ');
        }
        line.push(' ');
        pad(&mut line, s2.get(i).map_or("", String::as_str), w2);
        writeln!(out, "{line}")?;
    }
    Ok(())
}

fn pad(line: &mut String, s: &str, width: usize) {
    line.push_str(s);
    let len = s.chars().count();
    if width > len {
        line.extend(std::iter::repeat_n(' ', width - len));
    }
}

fn split(s: &str, width: usize) -> Vec<String> {
    if width == 0 || s.is_empty() {
        return vec![s.to_string()];
    }
    let chars: Vec<char> = s.chars().collect();
    chars.chunks(width).map(|c| c.iter().collect()).collect()
}

/// A per-column value formatter (`'f1:q:toInt'`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Converter {
    /// `Bytes.toStringBinary` (the default).
    StringBinary,
    /// `Bytes.toString` (UTF-8, lossy).
    String,
    /// `Bytes.toInt` (4 bytes big-endian).
    Int,
    /// `Bytes.toLong` (8 bytes big-endian).
    Long,
    /// `Bytes.toShort`.
    Short,
    /// `Bytes.toFloat`.
    Float,
    /// `Bytes.toDouble`.
    Double,
    /// `Bytes.toBoolean`.
    Boolean,
}

impl Converter {
    /// Parses a converter name as the shell accepts it (`toInt`, or the long
    /// `c(org.apache.hadoop.hbase.util.Bytes).toInt` form).
    pub fn parse(name: &str) -> Option<Converter> {
        let method = name
            .strip_prefix("c(org.apache.hadoop.hbase.util.Bytes).")
            .unwrap_or(name);
        Some(match method {
            "toStringBinary" => Converter::StringBinary,
            "toString" => Converter::String,
            "toInt" => Converter::Int,
            "toLong" => Converter::Long,
            "toShort" => Converter::Short,
            "toFloat" => Converter::Float,
            "toDouble" => Converter::Double,
            "toBoolean" => Converter::Boolean,
            _ => return None,
        })
    }

    /// Converts a value; a value of the wrong width falls back to `toStringBinary`.
    pub fn apply(&self, v: &[u8]) -> String {
        fn arr<const N: usize>(v: &[u8]) -> Option<[u8; N]> {
            v.try_into().ok()
        }
        let out = match self {
            Converter::StringBinary => None,
            Converter::String => Some(String::from_utf8_lossy(v).into_owned()),
            Converter::Int => arr::<4>(v).map(|a| i32::from_be_bytes(a).to_string()),
            Converter::Long => arr::<8>(v).map(|a| i64::from_be_bytes(a).to_string()),
            Converter::Short => arr::<2>(v).map(|a| i16::from_be_bytes(a).to_string()),
            Converter::Float => arr::<4>(v).map(|a| java_float(f64::from(f32::from_be_bytes(a)))),
            Converter::Double => arr::<8>(v).map(|a| java_float(f64::from_be_bytes(a))),
            Converter::Boolean => arr::<1>(v).map(|a| (a[0] != 0).to_string()),
        };
        out.unwrap_or_else(|| to_string_binary(v))
    }
}

fn java_float(f: f64) -> String {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e7 {
        format!("{f:.1}")
    } else {
        f.to_string()
    }
}

/// The text of one cell after the column: `timestamp=…, value=…` or, for a delete marker,
/// `timestamp=…, type=Delete…`. MAXLENGTH cuts this whole text to its first `maxlength`
/// characters, as HBase's `table.rb` `to_string` does (`val[0, maxlength]`, no ellipsis).
pub fn cell_text(cell: &Cell, ts: TsFormat, conv: &Converter, maxlength: Option<usize>) -> String {
    let t = timestamp(cell.timestamp(), ts);
    let text = match cell.cell_type() {
        CellType::Put => format!("timestamp={t}, value={}", conv.apply(cell.value())),
        other => format!("timestamp={t}, type={}", type_name(other)),
    };
    match maxlength {
        Some(max) if text.chars().count() > max => text.chars().take(max).collect(),
        _ => text,
    }
}

/// Writes HBase `formatter.row([text])` (one column): as is in the pipe layout; on a TTY
/// split into `width`-character pieces, each padded to `width` (an empty text prints nothing,
/// as Ruby's `split` yields no pieces).
pub fn one_col(out: &mut dyn Write, text: &str, width: usize) -> io::Result<()> {
    if width == 0 {
        return writeln!(out, "{text}");
    }
    if text.is_empty() {
        return Ok(());
    }
    for piece in split(text, width) {
        let mut line = String::new();
        pad(&mut line, &piece, width);
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// The `Took N.NNNN seconds` line: `formatter.output_str`, padded to the width on a TTY.
pub fn took_line(out: &mut dyn Write, secs: f64, width: usize) -> io::Result<()> {
    let mut line = String::new();
    pad(&mut line, &format!("Took {secs:.4} seconds"), width);
    writeln!(out, "{line}")
}

fn type_name(t: CellType) -> &'static str {
    match t {
        CellType::Put => "Put",
        CellType::Delete => "Delete",
        CellType::DeleteColumn => "DeleteColumn",
        CellType::DeleteFamily => "DeleteFamily",
        CellType::DeleteFamilyVersion => "DeleteFamilyVersion",
    }
}

/// `family:qualifier` as toStringBinary.
pub fn column_name(cell: &Cell) -> String {
    column_name_with(cell, &Converter::StringBinary)
}

/// `family:qualifier` through a FORMATTER (HBase's `convert_bytes` of family and qualifier).
pub fn column_name_with(cell: &Cell, conv: &Converter) -> String {
    format!(
        "{}:{}",
        conv.apply(cell.family()),
        conv.apply(cell.qualifier())
    )
}

/// HBase PrettyPrinter's TTL text: `FOREVER`, `N SECONDS`, or `N SECONDS (1 DAY 2 HOURS)`.
pub fn ttl_text(ttl: Option<std::time::Duration>) -> String {
    let Some(d) = ttl else {
        return "FOREVER".into();
    };
    let secs = d.as_secs();
    if secs >= i32::MAX as u64 {
        return "FOREVER".into();
    }
    if secs < 60 {
        return format!("{secs} SECOND{}", if secs == 1 { "" } else { "S" });
    }
    let (days, hours, minutes, seconds) = (
        secs / 86400,
        secs % 86400 / 3600,
        secs % 3600 / 60,
        secs % 60,
    );
    let plural = |n: u64| if n == 1 { "" } else { "S" };
    let mut parts = Vec::new();
    for (n, unit) in [(days, "DAY"), (hours, "HOUR"), (minutes, "MINUTE")] {
        if n > 0 {
            parts.push(format!("{n} {unit}{}", plural(n)));
        }
    }
    if seconds > 0 {
        // [DESC-2]: Java's PrettyPrinter picks this plural by the MINUTES count.
        parts.push(format!("{seconds} SECOND{}", plural(minutes)));
    }
    format!("{secs} SECONDS ({})", parts.join(" "))
}

/// One describe family line: HBase 2.0–2.4's attribute set, spelling and key order [DESC-1].
pub fn family_line(f: &FamilyDescriptor) -> String {
    let bloom = f.bloom_filter.hbase_name();
    let kdc = match f.keep_deleted_cells {
        KeepDeletedCells::False => "FALSE",
        KeepDeletedCells::True => "TRUE",
        KeepDeletedCells::Ttl => "TTL",
    };
    let comp = f.compression.hbase_name();
    let dbe = f.data_block_encoding.hbase_name();
    // HBase prints a family's CONFIGURATION last, when it has one.
    let entries = f.configuration();
    let config = if entries.is_empty() {
        String::new()
    } else {
        format!(
            ", CONFIGURATION => {{{}}}",
            entries
                .iter()
                .map(|(k, v)| format!("'{k}' => '{v}'"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    format!(
        "{{NAME => '{}', BLOOMFILTER => '{bloom}', IN_MEMORY => '{}', VERSIONS => '{}', \
         KEEP_DELETED_CELLS => '{kdc}', DATA_BLOCK_ENCODING => '{dbe}', COMPRESSION => '{comp}', \
         TTL => '{}', MIN_VERSIONS => '{}', BLOCKCACHE => '{}', BLOCKSIZE => '{}', \
         REPLICATION_SCOPE => '0'{config}}}",
        to_string_binary(&f.name),
        f.in_memory,
        f.max_versions,
        ttl_text(f.ttl),
        f.min_versions,
        f.block_cache,
        f.block_size
    )
}

/// list_regions' table: `" %Ns |"` cells, right-aligned, a dashes line, then ` N rows`.
pub fn regions_table(
    out: &mut dyn Write,
    columns: &[(&str, usize)],
    rows: &[Vec<String>],
) -> io::Result<()> {
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(i, (_, w))| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .max()
                .unwrap_or(0)
                .max(*w)
        })
        .collect();
    let line = |cells: &mut dyn Iterator<Item = String>| -> String {
        let mut s = String::new();
        for (c, w) in cells.zip(&widths) {
            s.push_str(&format!(" {c:>w$} |"));
        }
        s
    };
    writeln!(
        out,
        "{}",
        line(&mut columns.iter().map(|(n, _)| n.to_string()))
    )?;
    writeln!(out, "{}", line(&mut widths.iter().map(|w| "-".repeat(*w))))?;
    for r in rows {
        writeln!(out, "{}", line(&mut r.iter().cloned()))?;
    }
    writeln!(out, " {} rows", rows.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        let mut v = Vec::new();
        two_col(&mut v, "ROW", "COLUMN+CELL", false, 0).unwrap();
        two_col(&mut v, "r1", "column=f:q, timestamp=1, value=v", true, 0).unwrap();
        assert_eq!(
            String::from_utf8(v).unwrap(),
            "ROW  COLUMN+CELL\n r1 column=f:q, timestamp=1, value=v\n"
        );
        let mut v = Vec::new();
        two_col(&mut v, "r1", "abcdefghij", true, 16).unwrap();
        // w1 = 4, w2 = 10
        assert_eq!(String::from_utf8(v).unwrap(), " r1   abcdefghij\n");
        let mut v = Vec::new();
        two_col(&mut v, "row-long", "abcdefghijkl", true, 16).unwrap();
        assert_eq!(
            String::from_utf8(v).unwrap(),
            " row- abcdefghij\n long kl        \n"
        );
    }

    #[test]
    fn ttl() {
        assert_eq!(ttl_text(None), "FOREVER");
        let d = std::time::Duration::from_secs;
        assert_eq!(ttl_text(Some(d(86400))), "86400 SECONDS (1 DAY)");
        assert_eq!(ttl_text(Some(d(30))), "30 SECONDS");
        assert_eq!(ttl_text(Some(d(1))), "1 SECOND");
        assert_eq!(ttl_text(Some(d(3601))), "3601 SECONDS (1 HOUR 1 SECONDS)");
        assert_eq!(
            ttl_text(Some(d(3662))),
            "3662 SECONDS (1 HOUR 1 MINUTE 2 SECOND)"
        );
        assert_eq!(
            ttl_text(Some(d(2 * 86400 + 3600 + 61))),
            "176461 SECONDS (2 DAYS 1 HOUR 1 MINUTE 1 SECOND)"
        );
    }

    #[test]
    fn converters() {
        assert_eq!(Converter::Long.apply(&7i64.to_be_bytes()), "7");
        assert_eq!(Converter::Int.apply(&(-2i32).to_be_bytes()), "-2");
        assert_eq!(Converter::Int.apply(b"ab\x00"), "ab\\x00");
        assert_eq!(
            Converter::parse("c(org.apache.hadoop.hbase.util.Bytes).toLong"),
            Some(Converter::Long)
        );
    }
}
