//! Records for the lab: a seeded random number generator, field generators (sequences, uniform
//! and Zipfian integers, timestamps advancing at a rate, phone numbers, ids, strings, choices,
//! calendar fields derived from a timestamp) and CSV/TSV input.

use std::borrow::Cow;
use std::fmt;

/// One field value of a record.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// An integer (sequences, timestamps, numeric CSV columns).
    Int(i64),
    /// Text (phone numbers, ids, names).
    Str(String),
}

impl Value {
    /// The value as text: integers in decimal.
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            Value::Int(v) => Cow::Owned(v.to_string()),
            Value::Str(s) => Cow::Borrowed(s),
        }
    }

    /// The value as an integer: integers as they are, text when it is a decimal number.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            Value::Str(s) => s.parse().ok(),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

/// SplitMix64: small, fast, good enough for workloads, and the same on every platform.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, n)` (0 when `n == 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
        }
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// An independent generator for a sub-stream (`salt` tells streams apart).
    pub fn fork(&self, salt: u64) -> Rng {
        let mut r = Rng(self.0 ^ salt.wrapping_mul(0xA24B_AED4_963E_E407));
        r.next_u64();
        r
    }
}

/// Zipf distribution over ranks `0..n` (rank 0 the most frequent) with exponent `s`, sampled
/// from its cumulative table.
#[derive(Clone, Debug)]
pub struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    /// `n` ranks (at least 1), exponent `s` (> 0).
    pub fn new(n: u64, s: f64) -> Zipf {
        let n = n.max(1) as usize;
        let mut cdf = Vec::with_capacity(n);
        let mut acc = 0.0;
        for k in 1..=n {
            acc += 1.0 / (k as f64).powf(s);
            cdf.push(acc);
        }
        for c in &mut cdf {
            *c /= acc;
        }
        Zipf { cdf }
    }

    /// A rank in `0..n`.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let u = rng.unit();
        self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1) as u64
    }
}

/// How a population member or integer is drawn.
#[derive(Clone, Debug)]
pub enum Dist {
    /// Every member equally likely.
    Uniform,
    /// Zipfian: a few members take most draws.
    Zipf(Zipf),
}

impl Dist {
    fn pick(&self, n: u64, rng: &mut Rng) -> u64 {
        match self {
            Dist::Uniform => rng.below(n),
            Dist::Zipf(z) => z.sample(rng),
        }
    }
}

/// A calendar field derived from a millisecond timestamp (UTC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Calendar {
    /// `yyyyMM`.
    Month,
    /// `yyyyMMdd`.
    Day,
    /// `yyyyMMddHH`.
    Hour,
}

/// A field generator, resolved from the design file.
#[derive(Clone, Debug)]
pub enum Generator {
    /// `start, start + step, ...`.
    Sequence {
        /// First value.
        start: i64,
        /// Increment.
        step: i64,
    },
    /// Integers in `[min, max]`, uniform or Zipfian (rank 0 = `min`).
    Int {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
        /// Distribution.
        dist: Dist,
    },
    /// Milliseconds advancing by `1000 / rate` per record, plus up to `jitter_ms` of noise.
    Timestamp {
        /// First timestamp (ms since the epoch).
        start: i64,
        /// Records per second.
        rate: f64,
        /// Random extra milliseconds, `[0, jitter_ms]`.
        jitter_ms: i64,
    },
    /// A member of a fixed population of strings (phone numbers, ids, words), drawn by `dist`.
    Population {
        /// The members.
        members: Vec<String>,
        /// Distribution over the members.
        dist: Dist,
    },
    /// A fresh random string every record: `len` characters of `alphabet`.
    Fresh {
        /// Length.
        len: usize,
        /// Characters to draw from.
        alphabet: &'static [u8],
    },
    /// One of `values`, with `weights`.
    Choice {
        /// The values.
        values: Vec<Value>,
        /// Cumulative weights.
        cumulative: Vec<u64>,
    },
    /// A calendar field of the timestamp field with index `of` (an earlier field).
    Derived {
        /// Index of the timestamp field.
        of: usize,
        /// Which calendar field.
        calendar: Calendar,
    },
}

/// Lower-case hexadecimal digits.
pub const HEX: &[u8] = b"0123456789abcdef";
/// Lower-case letters.
pub const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyz";

/// Draws `count` distinct Chinese mobile numbers (`1[3-9]` + 9 digits).
pub fn phone_population(count: u64, rng: &mut Rng) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    while (out.len() as u64) < count {
        let second = 3 + rng.below(7);
        let rest = rng.below(1_000_000_000);
        let s = format!("1{second}{rest:09}");
        if seen.insert(s.clone()) {
            out.push(s);
        }
    }
    out
}

/// Draws `count` distinct strings of `len` characters of `alphabet` (fewer when the alphabet
/// cannot make that many).
pub fn string_population(count: u64, len: usize, alphabet: &[u8], rng: &mut Rng) -> Vec<String> {
    let possible = (alphabet.len() as f64).powi(len.min(64) as i32);
    let count = (count as f64).min(possible) as u64;
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    while (out.len() as u64) < count {
        let s = fresh_string(len, alphabet, rng);
        if seen.insert(s.clone()) {
            out.push(s);
        }
    }
    out
}

fn fresh_string(len: usize, alphabet: &[u8], rng: &mut Rng) -> String {
    (0..len)
        .map(|_| char::from(alphabet[rng.below(alphabet.len() as u64) as usize]))
        .collect()
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (Howard Hinnant's
/// `civil_from_days`).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// The calendar field of a millisecond timestamp, as a number (`202401`, `20240131`, ...).
pub fn calendar_value(ms: i64, calendar: Calendar) -> i64 {
    let secs = ms.div_euclid(1000);
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let h = secs.rem_euclid(86_400) / 3600;
    match calendar {
        Calendar::Month => y * 100 + i64::from(m),
        Calendar::Day => (y * 100 + i64::from(m)) * 100 + i64::from(d),
        Calendar::Hour => ((y * 100 + i64::from(m)) * 100 + i64::from(d)) * 100 + h,
    }
}

impl Generator {
    /// The value of record `i`, given the record's earlier fields.
    pub fn value(&self, i: u64, earlier: &[Value], rng: &mut Rng) -> Value {
        match self {
            Generator::Sequence { start, step } => {
                Value::Int(start.wrapping_add(step.wrapping_mul(i as i64)))
            }
            Generator::Int { min, max, dist } => {
                let span =
                    (i128::from(*max) - i128::from(*min) + 1).min(i128::from(u64::MAX)) as u64;
                Value::Int(min.wrapping_add(dist.pick(span, rng) as i64))
            }
            Generator::Timestamp {
                start,
                rate,
                jitter_ms,
            } => {
                let base = start.saturating_add((i as f64 * 1000.0 / rate) as i64);
                let jitter = if *jitter_ms > 0 {
                    rng.below(*jitter_ms as u64 + 1) as i64
                } else {
                    0
                };
                Value::Int(base.saturating_add(jitter))
            }
            Generator::Population { members, dist } => {
                let k = dist.pick(members.len() as u64, rng) as usize;
                Value::Str(members[k.min(members.len() - 1)].clone())
            }
            Generator::Fresh { len, alphabet } => Value::Str(fresh_string(*len, alphabet, rng)),
            Generator::Choice { values, cumulative } => {
                let total = cumulative.last().copied().unwrap_or(1);
                let r = rng.below(total);
                let k = cumulative.partition_point(|&c| c <= r);
                values[k.min(values.len() - 1)].clone()
            }
            Generator::Derived { of, calendar } => {
                let ms = earlier.get(*of).and_then(Value::as_int).unwrap_or(0);
                Value::Int(calendar_value(ms, *calendar))
            }
        }
    }
}

/// Reads a CSV or TSV file: the first line names the columns, every later non-empty line is a
/// record. Cells that are decimal integers become [`Value::Int`]. Quoting is not interpreted
/// (keys and fields of rowkey experiments do not need it).
///
/// # Errors
/// A message naming the line for a row with the wrong number of cells or an empty header.
pub fn read_delimited(
    text: &str,
    delimiter: char,
) -> Result<(Vec<String>, Vec<Vec<Value>>), String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Err("the file is empty (the first line must name the columns)".into());
    };
    let names: Vec<String> = header
        .split(delimiter)
        .map(|s| s.trim().to_string())
        .collect();
    if names.iter().any(String::is_empty) {
        return Err("line 1: a column has no name".into());
    }
    let mut rows = Vec::new();
    for (n, line) in lines {
        let cells: Vec<&str> = line.split(delimiter).collect();
        if cells.len() != names.len() {
            return Err(format!(
                "line {}: {} cells, the header names {} columns",
                n + 1,
                cells.len(),
                names.len()
            ));
        }
        rows.push(
            cells
                .into_iter()
                .map(|c| {
                    let c = c.trim();
                    match c.parse::<i64>() {
                        Ok(v) if !(c.starts_with('+') || (c.len() > 1 && c.starts_with('0'))) => {
                            Value::Int(v)
                        }
                        _ => Value::Str(c.to_string()),
                    }
                })
                .collect(),
        );
    }
    Ok((names, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar_fields() {
        // 2024-01-31T23:30:00Z
        let ms = 1_706_743_800_000;
        assert_eq!(calendar_value(ms, Calendar::Month), 202_401);
        assert_eq!(calendar_value(ms, Calendar::Day), 20_240_131);
        assert_eq!(calendar_value(ms, Calendar::Hour), 2_024_013_123);
    }

    #[test]
    fn zipf_prefers_low_ranks() {
        let z = Zipf::new(100, 1.2);
        let mut rng = Rng::new(7);
        let mut counts = [0u32; 100];
        for _ in 0..10_000 {
            counts[z.sample(&mut rng) as usize] += 1;
        }
        assert!(counts[0] > counts[10] && counts[10] > counts[90]);
    }

    #[test]
    fn csv_types_and_errors() {
        let (names, rows) = read_delimited("a,b\n1,x\n007,2\n", ',').unwrap();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(rows[0], [Value::Int(1), Value::Str("x".into())]);
        assert_eq!(
            rows[1][0],
            Value::Str("007".into()),
            "leading zeros stay text"
        );
        let e = read_delimited("a,b\n1\n", ',').unwrap_err();
        assert!(e.contains("line 2"), "{e}");
    }
}
