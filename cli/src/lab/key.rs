//! Rowkeys from record fields: the transforms of `cellbase::rowkey` and the seed articles
//! (raw fields, fixed-width encodings, salt, MD5 prefix, reverse, reverse timestamp, time
//! buckets, dictionary ids, separators), and the scan plan a query over some fields gets from a
//! design.

use super::records::Value;
use cellbase::rowkey;
use std::collections::HashMap;

/// How a field's value becomes bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enc {
    /// The value's text (integers in decimal, unpadded).
    Str,
    /// 4 bytes, big-endian unsigned (`Bytes.toBytes(int)` for non-negative values).
    U32,
    /// 8 bytes, big-endian unsigned (`Bytes.toBytes(long)` for non-negative values).
    U64,
    /// 8 bytes, order-preserving signed ([`rowkey::encode_i64`]).
    I64,
    /// Zero-padded decimal text of this many digits.
    Decimal(usize),
}

impl Enc {
    /// Byte order equals value order for integer values.
    fn orders_ints(self) -> bool {
        !matches!(self, Enc::Str)
    }

    /// Encodes `v`.
    pub fn encode(self, v: &Value, out: &mut Vec<u8>) {
        match self {
            Enc::Str => out.extend_from_slice(v.text().as_bytes()),
            Enc::U32 => out.extend_from_slice(&(int_of(v) as u32).to_be_bytes()),
            Enc::U64 => out.extend_from_slice(&(int_of(v) as u64).to_be_bytes()),
            Enc::I64 => out.extend_from_slice(&rowkey::encode_i64(int_of(v))),
            Enc::Decimal(w) => out.extend_from_slice(format!("{:0w$}", int_of(v)).as_bytes()),
        }
    }
}

/// An integer for the integer encodings: text that is not a number hashes to one (stable).
fn int_of(v: &Value) -> i64 {
    v.as_int()
        .unwrap_or_else(|| i64::from(crc32(v.text().as_bytes())))
}

fn crc32(b: &[u8]) -> u32 {
    // `rowkey::salt` with the largest bucket count exposes crc32 % 65535; use the full
    // checksum through its prefix instead: salt(b, 1) is "0" + b, so compute directly.
    let mut crc = 0xFFFF_FFFFu32;
    for &byte in b {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

/// What a salt or hash part is computed over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Over {
    /// The bytes of every later part (the key the prefix is put on, as `rowkey::salt` and
    /// `rowkey::md5_prefix` do).
    Rest,
    /// The text of these fields, concatenated.
    Fields(Vec<usize>),
}

/// How a salt part picks its bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaltBy {
    /// `crc32(input) % buckets` ([`rowkey::salt`]).
    Crc32,
    /// `(sum of the fields as integers) % buckets` (the call-log design's
    /// `(caller + month) % 1000`).
    SumMod,
}

/// One part of a rowkey.
#[derive(Clone, Debug)]
pub enum Part {
    /// A field, encoded.
    Field {
        /// Field index.
        field: usize,
        /// Encoding.
        enc: Enc,
    },
    /// A field's text, reversed (`reverse(phone)`).
    Reverse {
        /// Field index.
        field: usize,
    },
    /// `Long.MAX_VALUE - field` as 8 bytes ([`rowkey::reverse_timestamp`]).
    ReverseTs {
        /// Field index.
        field: usize,
    },
    /// OpenTSDB's base time: the millisecond timestamp floored to `millis`, in seconds, 4 bytes.
    TimeBucket {
        /// Field index.
        field: usize,
        /// Bucket width in milliseconds.
        millis: i64,
    },
    /// A dictionary id of the field's value (OpenTSDB's metric UID): ids in first-seen order,
    /// `width` bytes big-endian.
    Uid {
        /// Field index.
        field: usize,
        /// Id width in bytes.
        width: usize,
    },
    /// A salt prefix: the bucket in zero-padded decimal of the width of `buckets - 1`.
    Salt {
        /// Input.
        over: Over,
        /// Bucket count.
        buckets: u16,
        /// Bucket function.
        by: SaltBy,
    },
    /// The first `bytes` bytes of the MD5 digest, raw or as lower-case hex.
    Hash {
        /// Input.
        over: Over,
        /// Digest bytes kept (1..=16).
        bytes: usize,
        /// Hex text instead of raw bytes.
        hex: bool,
    },
    /// Literal bytes.
    Sep(Vec<u8>),
    /// A random salt prefix (the seeds' "random salting"): a bucket drawn per write from the
    /// design's seed, in zero-padded decimal like [`Part::Salt`]. Nothing about the record
    /// determines it, so a read by the natural key must try every bucket. Only as the first
    /// part.
    RandomSalt {
        /// Bucket count.
        buckets: u16,
    },
    /// OpenTSDB's qualifier offset: the millisecond timestamp minus its `millis` bucket's
    /// start, 4 bytes big-endian (the column of a data point in its hour's row).
    TimeOffset {
        /// Field index.
        field: usize,
        /// Bucket width in milliseconds.
        millis: i64,
    },
}

/// A rowkey design: parts, plus the dictionaries of its `Uid` parts.
#[derive(Clone, Debug)]
pub struct KeyDesign {
    /// The parts in key order.
    pub parts: Vec<Part>,
    dicts: HashMap<usize, HashMap<Value, u64>>,
    /// Seed of the random salt buckets ([`Part::RandomSalt`]).
    seed: u64,
}

/// The range a query reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// `Some(buckets)`: the range lies under every salt prefix (a `scan_salted` fan-out).
    pub salted: Option<u16>,
    /// First row, inclusive (after the salt prefix when salted).
    pub start: Vec<u8>,
    /// Stop row, exclusive; empty = unbounded.
    pub stop: Vec<u8>,
    /// How the plan was reached: `prefix`, `range`, `salted prefix`, `salted range`, `full`.
    pub kind: &'static str,
}

/// A query: equality on some fields, optionally a time range `[lo, hi)` on one field.
#[derive(Clone, Debug)]
pub struct Query<'a> {
    /// `(field, value)` pairs that must match.
    pub eq: Vec<(usize, &'a Value)>,
    /// `(field, lo, hi)`.
    pub range: Option<(usize, i64, i64)>,
}

/// The smallest key greater than every key starting with `p` (empty when there is none).
pub fn prefix_stop(p: &[u8]) -> Vec<u8> {
    let mut s = p.to_vec();
    while let Some(&last) = s.last() {
        if last == 0xFF {
            s.pop();
        } else {
            *s.last_mut().unwrap_or(&mut 0) = last + 1;
            return s;
        }
    }
    Vec::new()
}

fn salt_width(buckets: u16) -> usize {
    (buckets.max(1) - 1).to_string().len()
}

impl KeyDesign {
    /// A design of `parts`.
    pub fn new(parts: Vec<Part>) -> KeyDesign {
        KeyDesign {
            parts,
            dicts: HashMap::new(),
            seed: 0,
        }
    }

    /// Seeds the random salt buckets: the same seed gives every record the same bucket.
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    /// Number of salt buckets when the key starts with a salt part (hashed or random).
    pub fn leading_salt(&self) -> Option<u16> {
        match self.parts.first() {
            Some(Part::Salt { buckets, .. } | Part::RandomSalt { buckets }) => Some(*buckets),
            _ => None,
        }
    }

    /// Number of buckets when the key starts with a random salt: a read by the natural key
    /// cannot compute the bucket and must try each.
    pub fn random_salt(&self) -> Option<u16> {
        match self.parts.first() {
            Some(Part::RandomSalt { buckets }) => Some(*buckets),
            _ => None,
        }
    }

    /// Byte length of the leading salt prefix (0 without one).
    pub fn salt_len(&self) -> usize {
        self.leading_salt().map_or(0, salt_width)
    }

    /// True when the rows matching equality on `fields` come newest first by `by`: the first
    /// part the equalities do not fix is `reverse_ts(by)` (and the key is not salted in front
    /// of them), so the newest N rows are the first N of a prefix scan.
    pub fn newest_first(&self, fields: &[usize], by: usize) -> bool {
        let n = self.parts.len();
        let mut known = vec![false; n];
        for i in (0..n).rev() {
            known[i] = match self.inputs(i) {
                Some(fs) => fs.iter().all(|f| fields.contains(f)),
                None => {
                    !matches!(self.parts[i], Part::RandomSalt { .. })
                        && known[i + 1..].iter().all(|&k| k)
                }
            };
        }
        match known.iter().position(|k| !k) {
            Some(i) => matches!(self.parts[i], Part::ReverseTs { field } if field == by),
            None => false,
        }
    }

    /// Assigns dictionary ids for `record`'s values (call for every record in order before
    /// encoding, so ids follow first appearance).
    pub fn learn(&mut self, record: &[Value]) {
        for p in &self.parts {
            if let Part::Uid { field, .. } = p {
                let d = self.dicts.entry(*field).or_default();
                let next = d.len() as u64;
                d.entry(record[*field].clone()).or_insert(next);
            }
        }
    }

    fn uid(&self, field: usize, width: usize, v: &Value) -> Vec<u8> {
        let id = self
            .dicts
            .get(&field)
            .and_then(|d| d.get(v))
            .copied()
            .unwrap_or(u64::MAX);
        id.to_be_bytes()[8 - width.min(8)..].to_vec()
    }

    /// The bytes of part `i` given the record, its put number `nth` (for a random salt) and
    /// the bytes of every later part.
    fn part_bytes(&self, i: usize, record: &[Value], nth: u64, rest: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        match &self.parts[i] {
            Part::RandomSalt { buckets } => {
                let bucket = splitmix64(self.seed ^ splitmix64(nth)) % u64::from((*buckets).max(1));
                let w = salt_width(*buckets);
                out.extend_from_slice(format!("{bucket:0w$}").as_bytes());
            }
            Part::TimeOffset { field, millis } => {
                let ms = int_of(&record[*field]);
                out.extend_from_slice(&(ms.rem_euclid(*millis) as u32).to_be_bytes());
            }
            Part::Field { field, enc } => enc.encode(&record[*field], &mut out),
            Part::Reverse { field } => {
                out = rowkey::reverse(record[*field].text().as_bytes());
            }
            Part::ReverseTs { field } => {
                out.extend_from_slice(&rowkey::reverse_timestamp(int_of(&record[*field])));
            }
            Part::TimeBucket { field, millis } => {
                let ms = int_of(&record[*field]);
                let base = ms.div_euclid(*millis) * millis / 1000;
                out.extend_from_slice(&(base as u32).to_be_bytes());
            }
            Part::Uid { field, width } => out = self.uid(*field, *width, &record[*field]),
            Part::Salt { over, buckets, by } => {
                let input = input_of(over, record, rest);
                let bucket = match by {
                    SaltBy::Crc32 => {
                        // Exactly `rowkey::salt`'s prefix.
                        let salted = rowkey::salt(&input, *buckets);
                        return salted[..salted.len() - input.len()].to_vec();
                    }
                    SaltBy::SumMod => {
                        let sum: i64 = match over {
                            Over::Fields(fs) => fs
                                .iter()
                                .map(|&f| int_of(&record[f]))
                                .fold(0i64, i64::wrapping_add),
                            Over::Rest => i64::from(crc32(rest)),
                        };
                        sum.rem_euclid(i64::from((*buckets).max(1)))
                    }
                };
                let w = salt_width(*buckets);
                out.extend_from_slice(format!("{bucket:0w$}").as_bytes());
            }
            Part::Hash { over, bytes, hex } => {
                let input = input_of(over, record, rest);
                let digest = &rowkey::md5_prefix(&input)[..16];
                let kept = &digest[..(*bytes).clamp(1, 16)];
                if *hex {
                    for b in kept {
                        out.extend_from_slice(format!("{b:02x}").as_bytes());
                    }
                } else {
                    out.extend_from_slice(kept);
                }
            }
            Part::Sep(b) => out.extend_from_slice(b),
        }
        out
    }

    /// The rowkey of `record`.
    pub fn encode(&self, record: &[Value]) -> Vec<u8> {
        self.encode_nth(record, 0)
    }

    /// The rowkey of `record`, the `nth` put of the run (a random salt draws its bucket from
    /// the seed and `nth`; nothing else depends on it).
    pub fn encode_nth(&self, record: &[Value], nth: u64) -> Vec<u8> {
        let mut key: Vec<u8> = Vec::new();
        for i in (0..self.parts.len()).rev() {
            let mut b = self.part_bytes(i, record, nth, &key);
            b.extend_from_slice(&key);
            key = b;
        }
        key
    }

    /// Which fields part `i` reads (None: it reads the rest of the key).
    fn inputs(&self, i: usize) -> Option<Vec<usize>> {
        match &self.parts[i] {
            Part::Field { field, .. }
            | Part::Reverse { field }
            | Part::ReverseTs { field }
            | Part::TimeBucket { field, .. }
            | Part::Uid { field, .. }
            | Part::TimeOffset { field, .. } => Some(vec![*field]),
            Part::Salt { over, .. } | Part::Hash { over, .. } => match over {
                Over::Rest => None,
                Over::Fields(f) => Some(f.clone()),
            },
            Part::Sep(_) => Some(Vec::new()),
            // Never known: the bucket is random.
            Part::RandomSalt { .. } => None,
        }
    }

    /// The scan plan of `q`: the narrowest key range (under every salt prefix when the key
    /// starts with a salt the query cannot compute) that holds every matching row. Rows in it
    /// may still not match (a raw field that is a prefix of another value); the caller checks.
    pub fn plan(&self, q: &Query<'_>) -> Plan {
        let known_field = |f: usize| q.eq.iter().any(|(g, _)| *g == f);
        let n = self.parts.len();
        // known[i]: part i's bytes follow from the query's equalities alone.
        let mut known = vec![false; n];
        for i in (0..n).rev() {
            known[i] = match self.inputs(i) {
                Some(fields) => fields.iter().all(|&f| known_field(f)),
                None => {
                    !matches!(self.parts[i], Part::RandomSalt { .. })
                        && known[i + 1..].iter().all(|&k| k)
                }
            };
        }
        // A record carrying the query's values (others are never read by known parts).
        let width =
            q.eq.iter()
                .map(|(f, _)| *f)
                .max()
                .unwrap_or(0)
                .max(self.max_field());
        let mut probe: Vec<Value> = vec![Value::Int(0); width + 1];
        for (f, v) in &q.eq {
            probe[*f] = (*v).clone();
        }
        let full_key_bytes: Vec<Vec<u8>> = {
            // Bytes of each known part (rest-dependent parts are known only when every later
            // part is, so encode from the back).
            let mut parts = vec![Vec::new(); n];
            let mut rest = Vec::new();
            for i in (0..n).rev() {
                if known[i] {
                    let b = self.part_bytes(i, &probe, 0, &rest);
                    let mut r = b.clone();
                    r.extend_from_slice(&rest);
                    rest = r;
                    parts[i] = b;
                } else {
                    rest.clear();
                }
            }
            parts
        };
        let mut salted = None;
        let mut first = 0;
        if !known.first().copied().unwrap_or(true)
            && let Some(Part::Salt { buckets, .. } | Part::RandomSalt { buckets }) =
                self.parts.first()
        {
            salted = Some(*buckets);
            first = 1;
        }
        let mut prefix = Vec::new();
        for i in first..n {
            if known[i] {
                prefix.extend_from_slice(&full_key_bytes[i]);
                continue;
            }
            if let Some((tf, lo, hi)) = q.range
                && let Some((a, b)) = self.range_bytes(i, tf, lo, hi)
            {
                let mut start = prefix.clone();
                start.extend_from_slice(&a);
                let mut stop = prefix.clone();
                stop.extend_from_slice(&b);
                return Plan {
                    salted,
                    start,
                    stop,
                    kind: if salted.is_some() {
                        "salted range"
                    } else {
                        "range"
                    },
                };
            }
            break;
        }
        let kind = match (salted.is_some(), prefix.is_empty()) {
            (true, true) => "salted full",
            (true, false) => "salted prefix",
            (false, true) => "full",
            (false, false) => "prefix",
        };
        let stop = prefix_stop(&prefix);
        Plan {
            salted,
            start: prefix,
            stop,
            kind,
        }
    }

    /// `[start, stop)` bytes of part `i` covering timestamps `[lo, hi)` of field `tf`, when
    /// the part orders by that field.
    fn range_bytes(&self, i: usize, tf: usize, lo: i64, hi: i64) -> Option<(Vec<u8>, Vec<u8>)> {
        let enc_of = |p: &Part, v: i64| -> Vec<u8> {
            let mut rec = vec![Value::Int(0); self.max_field().max(tf) + 1];
            rec[tf] = Value::Int(v);
            let _ = p;
            self.part_bytes(i, &rec, 0, &[])
        };
        match &self.parts[i] {
            Part::Field { field, enc } if *field == tf && enc.orders_ints() => {
                Some((enc_of(&self.parts[i], lo), enc_of(&self.parts[i], hi)))
            }
            Part::ReverseTs { field } if *field == tf => {
                // Newest first: MAX - (hi - 1) ..= MAX - lo.
                let start = enc_of(&self.parts[i], hi - 1);
                let stop = prefix_stop(&enc_of(&self.parts[i], lo));
                Some((start, stop))
            }
            Part::TimeBucket { field, millis } if *field == tf => {
                let start = enc_of(&self.parts[i], lo);
                let last = enc_of(&self.parts[i], hi - 1);
                let _ = millis;
                Some((start, prefix_stop(&last)))
            }
            _ => None,
        }
    }

    fn max_field(&self) -> usize {
        (0..self.parts.len())
            .filter_map(|i| self.inputs(i))
            .flatten()
            .max()
            .unwrap_or(0)
    }
}

/// SplitMix64's finalizer: a well-mixed 64-bit value of `x`.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn input_of(over: &Over, record: &[Value], rest: &[u8]) -> Vec<u8> {
    match over {
        Over::Rest => rest.to_vec(),
        Over::Fields(fs) => {
            let mut v = Vec::new();
            for &f in fs {
                v.extend_from_slice(record[f].text().as_bytes());
            }
            v
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn salt_part_is_rowkey_salt() {
        let d = KeyDesign::new(vec![
            Part::Salt {
                over: Over::Rest,
                buckets: 16,
                by: SaltBy::Crc32,
            },
            Part::Field {
                field: 0,
                enc: Enc::Str,
            },
        ]);
        let rec = [Value::Str("user42".into())];
        assert_eq!(d.encode(&rec), rowkey::salt(b"user42", 16));
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn random_salt_is_seeded_spread_and_never_planned() {
        let mut d = KeyDesign::new(vec![
            Part::RandomSalt { buckets: 4 },
            Part::Field {
                field: 0,
                enc: Enc::Str,
            },
        ]);
        d.set_seed(11);
        let rec = [Value::Str("k".into())];
        let keys: Vec<Vec<u8>> = (0..400).map(|n| d.encode_nth(&rec, n)).collect();
        // The same seed and put number give the same bucket; the same record lands in every
        // bucket over 400 puts, each roughly a quarter of the time.
        assert_eq!(
            keys,
            (0..400).map(|n| d.encode_nth(&rec, n)).collect::<Vec<_>>()
        );
        for b in [b"0k", b"1k", b"2k", b"3k"] {
            let n = keys.iter().filter(|k| k.as_slice() == b).count();
            assert!((60..=140).contains(&n), "{n} puts in {b:?}");
        }
        assert_eq!((d.random_salt(), d.salt_len()), (Some(4), 1));
        // A query cannot compute the bucket, even knowing every field: a salted plan.
        let p = d.plan(&Query {
            eq: vec![(0, &rec[0])],
            range: None,
        });
        assert_eq!(
            (p.kind, p.salted, p.start.as_slice()),
            ("salted prefix", Some(4), &b"k"[..])
        );
    }

    #[test]
    fn newest_first_needs_a_reverse_timestamp_after_the_entity() {
        let key = |ts: Part| KeyDesign::new(vec![Part::Reverse { field: 0 }, ts]);
        assert!(key(Part::ReverseTs { field: 1 }).newest_first(&[0], 1));
        assert!(!key(Part::ReverseTs { field: 1 }).newest_first(&[0], 2));
        assert!(
            !key(Part::Field {
                field: 1,
                enc: Enc::U64
            })
            .newest_first(&[0], 1)
        );
        // Salted over the rest of the key: the entity's rows are in every bucket.
        let salted = KeyDesign::new(vec![
            Part::Salt {
                over: Over::Rest,
                buckets: 4,
                by: SaltBy::Crc32,
            },
            Part::Field {
                field: 0,
                enc: Enc::Str,
            },
            Part::ReverseTs { field: 1 },
        ]);
        assert!(!salted.newest_first(&[0], 1));
    }

    #[test]
    fn plans() {
        // caller | reverse ts
        let d = KeyDesign::new(vec![
            Part::Field {
                field: 0,
                enc: Enc::Str,
            },
            Part::Sep(b"|".to_vec()),
            Part::ReverseTs { field: 1 },
        ]);
        let caller = Value::Str("138".into());
        let p = d.plan(&Query {
            eq: vec![(0, &caller)],
            range: None,
        });
        assert_eq!(p.start, b"138|");
        assert_eq!(p.stop, b"138}");
        let p = d.plan(&Query {
            eq: vec![(0, &caller)],
            range: Some((1, 100, 200)),
        });
        assert_eq!(p.kind, "range");
        let mut lo = b"138|".to_vec();
        lo.extend_from_slice(&rowkey::reverse_timestamp(199));
        assert_eq!(p.start, lo);
        // Hashed over the rest: no plan but a full scan.
        let h = KeyDesign::new(vec![
            Part::Hash {
                over: Over::Rest,
                bytes: 16,
                hex: false,
            },
            Part::Field {
                field: 0,
                enc: Enc::Str,
            },
            Part::Field {
                field: 1,
                enc: Enc::U64,
            },
        ]);
        let p = h.plan(&Query {
            eq: vec![(0, &caller)],
            range: None,
        });
        assert_eq!(p.kind, "full");
        // Salted over the rest: a fan-out with the inner prefix.
        let s = KeyDesign::new(vec![
            Part::Salt {
                over: Over::Rest,
                buckets: 8,
                by: SaltBy::Crc32,
            },
            Part::Field {
                field: 0,
                enc: Enc::Str,
            },
        ]);
        let p = s.plan(&Query {
            eq: vec![],
            range: None,
        });
        assert_eq!((p.kind, p.salted), ("salted full", Some(8)));
    }
}
