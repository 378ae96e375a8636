//! Rowkey design helpers: salting, hashing, reversing, order-preserving integer encodings, and
//! the split keys HBase computes when it pre-splits a table.
//!
//! HBase stores rows in unsigned byte order and a region serves one contiguous range of rows, so
//! a monotonically increasing rowkey (a timestamp, a sequence number) sends every write to the
//! last region: a *hot spot*. The usual cures, all plain byte transformations of the key, are
//! here:
//!
//! * [`salt`]: prefix the key with `crc32(key) % buckets` as fixed-width decimal text. Writes
//!   spread over `buckets` ranges; a point read recomputes the prefix; a range scan has to run
//!   once per prefix ([`salted_prefixes`]). Pre-split with the prefixes as split keys
//!   (`salted_prefixes(n)[1..]`) so every bucket starts in its own region.
//! * [`md5_prefix`]: prefix with the 16-byte MD5 digest of the key. Uniform spread (pairs well
//!   with [`SplitAlgorithm::Uniform`]), point reads only.
//! * [`reverse`]: reverse the bytes, so the fast-changing end of a sequential id leads.
//! * [`reverse_timestamp`]: `Long.MAX_VALUE - ts`, so the newest entry of a key sorts first.
//! * [`encode_i64`] / [`decode_i64`]: big-endian with the sign bit flipped, so that byte order
//!   equals numeric order ([ENC-2] in `hbase-semantics.md`; plain `Bytes.toBytes(long)` puts
//!   negative numbers after positive ones).
//!
//! Pre-splitting ([PRESPLIT-2], [PRESPLIT-3]) follows HBase's `RegionSplitter`:
//! [`split_keys`] / [`split_keys_checked`] give the `NUMREGIONS => n, SPLITALGO => …` keys,
//! [`midpoint`] the split row a rolling split uses for one region, and [`bytes_split`] is
//! `Bytes.split` as used by `Admin.createTable(desc, startKey, endKey, numRegions)`
//! ([PRESPLIT-4]). [`to_bytes_binary`] / [`to_string_binary`] are HBase's shell notation for
//! binary keys (`\xNN`).
//!
//! ```
//! use cellbase::rowkey::{self, SplitAlgorithm};
//!
//! let key = rowkey::salt(b"user42", 16); // two-digit prefix "00".."15"
//! assert!(rowkey::salted_prefixes(16).iter().any(|p| key.starts_with(p)));
//! assert_eq!(
//!     rowkey::split_keys(SplitAlgorithm::HexString, 4),
//!     vec![b"40000000".to_vec(), b"80000000".to_vec(), b"c0000000".to_vec()]
//! );
//! assert!(rowkey::encode_i64(-1) < rowkey::encode_i64(0));
//! ```

use md5::{Digest, Md5};

use crate::base::error::{Error, Result};

#[cfg(test)]
mod tests;

/// A built-in pre-split algorithm of HBase's `RegionSplitter` (`SPLITALGO` in the shell).
///
/// Each one divides its key space into `n` equal parts; the last region absorbs the remainder of
/// the floor division ([PRESPLIT-2]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SplitAlgorithm {
    /// `HexStringSplit`: keys are 8-character lower-case hexadecimal strings, the key space is
    /// `"00000000"..="ffffffff"` (for rowkeys that start with a hex-encoded hash).
    HexString,
    /// `UniformSplit`: keys are raw bytes, the key space is `00×8..=FF×8` (for rowkeys that start
    /// with uniformly random bytes, e.g. [`md5_prefix`]).
    Uniform,
    /// `DecimalStringSplit`: keys are 8-digit zero-padded decimal strings, the key space is
    /// `"00000000"..="99999999"`.
    DecimalString,
}

/// The package of HBase's built-in split algorithms, accepted by [`SplitAlgorithm::from_name`].
const REGION_SPLITTER_CLASS: &str = "org.apache.hadoop.hbase.util.RegionSplitter$";

impl SplitAlgorithm {
    /// HBase's simple class name: `"HexStringSplit"`, `"UniformSplit"` or `"DecimalStringSplit"`.
    pub fn name(self) -> &'static str {
        match self {
            SplitAlgorithm::HexString => "HexStringSplit",
            SplitAlgorithm::Uniform => "UniformSplit",
            SplitAlgorithm::DecimalString => "DecimalStringSplit",
        }
    }

    /// Parses a shell `SPLITALGO` value the way `RegionSplitter.newSplitAlgoInstance` does: the
    /// simple class name (case-sensitive) or the fully qualified one
    /// (`org.apache.hadoop.hbase.util.RegionSplitter$HexStringSplit`). Anything else is
    /// `InvalidArgument("Couldn't load split class …")`: custom classes do not exist here.
    pub fn from_name(name: &str) -> Result<SplitAlgorithm> {
        let simple = name.strip_prefix(REGION_SPLITTER_CLASS).unwrap_or(name);
        [
            SplitAlgorithm::HexString,
            SplitAlgorithm::Uniform,
            SplitAlgorithm::DecimalString,
        ]
        .into_iter()
        .find(|a| a.name() == simple)
        .ok_or_else(|| Error::invalid(format!("Couldn't load split class {name}")))
    }

    /// The algorithm's first row, used in place of an empty region start key:
    /// `"00000000"` for the string algorithms, the empty key for [`SplitAlgorithm::Uniform`].
    pub fn first_row(self) -> Vec<u8> {
        match self {
            SplitAlgorithm::HexString | SplitAlgorithm::DecimalString => b"00000000".to_vec(),
            SplitAlgorithm::Uniform => Vec::new(),
        }
    }

    /// The algorithm's last row (inclusive), used in place of an empty region end key:
    /// `"ffffffff"`, `"99999999"` or `FF×8`.
    pub fn last_row(self) -> Vec<u8> {
        match self {
            SplitAlgorithm::HexString => b"ffffffff".to_vec(),
            SplitAlgorithm::DecimalString => b"99999999".to_vec(),
            SplitAlgorithm::Uniform => vec![0xFF; 8],
        }
    }

    /// Radix and inclusive last value of the string algorithms (`None` for Uniform).
    fn number_space(self) -> Option<(u32, u64)> {
        match self {
            SplitAlgorithm::HexString => Some((16, 0xFFFF_FFFF)),
            SplitAlgorithm::DecimalString => Some((10, 99_999_999)),
            SplitAlgorithm::Uniform => None,
        }
    }
}

impl std::fmt::Display for SplitAlgorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

// ---- salting, hashing, reversing ------------------------------------------------------------

/// Number of decimal digits of the largest prefix of `buckets` buckets (at least 1).
fn salt_width(buckets: u16) -> usize {
    let max = buckets.max(1) - 1;
    max.to_string().len()
}

/// Salts `key`: returns `prefix ‖ key` where `prefix` is `crc32(key) % buckets` written in
/// decimal ASCII, zero-padded to the width of `buckets - 1` (at least one digit). So 10 buckets
/// give `"0".."9"`, 16 give `"00".."15"`, 1000 give `"000".."999"`. `buckets == 0` is treated as
/// 1 (every key gets the prefix `"0"`).
///
/// The checksum is CRC-32 (IEEE, as `java.util.zip.CRC32`), so the prefix of a key is stable
/// across processes and versions and a reader can recompute it for a point lookup. Equal keys
/// always land in the same bucket; a scan over a key range must visit every prefix of
/// [`salted_prefixes`].
pub fn salt(key: &[u8], buckets: u16) -> Vec<u8> {
    let buckets = buckets.max(1);
    let bucket = crc32fast::hash(key) % u32::from(buckets);
    let width = salt_width(buckets);
    let mut out = format!("{bucket:0width$}").into_bytes();
    out.extend_from_slice(key);
    out
}

/// Every prefix [`salt`] can produce for `buckets` buckets, in ascending (byte and numeric)
/// order: `salted_prefixes(4) == ["0", "1", "2", "3"]`. `buckets == 0` is treated as 1.
///
/// `salted_prefixes(n)[1..]` are the split keys that give each bucket its own region.
pub fn salted_prefixes(buckets: u16) -> Vec<Vec<u8>> {
    let buckets = buckets.max(1);
    let width = salt_width(buckets);
    (0..buckets)
        .map(|b| format!("{b:0width$}").into_bytes())
        .collect()
}

/// Returns `md5(key) ‖ key`: the 16-byte MD5 digest followed by the key itself, so the key stays
/// readable and unique while the rows spread uniformly (pre-split with
/// [`SplitAlgorithm::Uniform`]).
pub fn md5_prefix(key: &[u8]) -> Vec<u8> {
    let digest = Md5::digest(key);
    let mut out = Vec::with_capacity(digest.len() + key.len());
    out.extend_from_slice(&digest);
    out.extend_from_slice(key);
    out
}

/// Returns the bytes of `key` in reverse order (`"20240101"` → `"10104202"`), so the
/// fastest-changing end of a sequential id leads the rowkey.
pub fn reverse(key: &[u8]) -> Vec<u8> {
    key.iter().rev().copied().collect()
}

/// Returns `i64::MAX - ts` as 8 big-endian bytes (HBase's `Long.MAX_VALUE - timestamp`).
///
/// For timestamps `>= 0` (all real ones) the result sorts in the opposite order of `ts`, so in
/// `key ‖ reverse_timestamp(ts)` the newest entry of `key` comes first. A negative `ts` wraps
/// like Java's `long` arithmetic (`-1` gives `i64::MIN`); such keys sort before all the others.
pub fn reverse_timestamp(ts: i64) -> [u8; 8] {
    i64::MAX.wrapping_sub(ts).to_be_bytes()
}

/// Order-preserving encoding of `v`: big-endian two's complement with the sign bit flipped
/// ([ENC-2]), so unsigned byte order equals numeric order: `i64::MIN` → `00 00…`,
/// `-1` → `7F FF…`, `0` → `80 00…`, `1` → `80 00…01`, `i64::MAX` → `FF FF…`.
pub fn encode_i64(v: i64) -> [u8; 8] {
    ((v as u64) ^ (1 << 63)).to_be_bytes()
}

/// Inverse of [`encode_i64`]. Never panics:
///
/// * exactly 8 bytes: the exact inverse;
/// * more than 8 bytes: only the first 8 are decoded (an encoded number followed by the rest of
///   a composite key);
/// * fewer than 8 bytes: the input is right-padded with `00` bytes, i.e. read as a key prefix,
///   giving the smallest value whose encoding starts with it (`[]` → `i64::MIN`,
///   `[0x80]` → `0`).
pub fn decode_i64(b: &[u8]) -> i64 {
    let mut buf = [0u8; 8];
    let n = b.len().min(8);
    buf[..n].copy_from_slice(&b[..n]);
    (u64::from_be_bytes(buf) ^ (1 << 63)) as i64
}

// ---- HBase's binary string notation ---------------------------------------------------------

/// HBase `Bytes.toStringBinary`: bytes `0x20..=0x7E` except the backslash (letters, digits,
/// space and `` `~!@#$%^&*()-_=+[]{}|;:'",.<>/? ``) print as themselves, every other byte as
/// `\xHH` with upper-case hex. `to_bytes_binary(&to_string_binary(b)) == b` for every `b`.
pub fn to_string_binary(b: &[u8]) -> String {
    crate::base::util::to_string_binary(b)
}

/// Value of an upper-case hex digit (`0-9`, `A-F`); lower-case digits are not hex here.
fn upper_hex_value(unit: u16) -> Option<u8> {
    match u8::try_from(unit).ok()? {
        c @ b'0'..=b'9' => Some(c - b'0'),
        c @ b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// HBase `Bytes.toBytesBinary`, the parser of the shell's `SPLITS => [...]` and of binary keys
/// typed as `"\x00\x01"`:
///
/// * `\xHH` with two UPPER-case hex digits is one byte (`"\x0A"` → `0A`);
/// * a backslash followed by `x` and at least two more characters that are not both upper-case
///   hex digits is a malformed escape: only the backslash is dropped (`"\xzz"` → `"xzz"`,
///   `"\xff"` → `"xff"`);
/// * any other character is one byte: a backslash that is not followed by `x` plus two more
///   characters stays a literal backslash (`"a\"` → `a\`, `"\x4"` → `\x4`), and like Java's
///   `(byte) ch` every character keeps only the low 8 bits of its UTF-16 code unit(s)
///   (`"é"` → `E9`; text outside Latin-1 is not preserved: use `\xHH` escapes).
pub fn to_bytes_binary(s: &str) -> Vec<u8> {
    let units: Vec<u16> = s.encode_utf16().collect();
    let mut out = Vec::with_capacity(units.len());
    let mut i = 0;
    while i < units.len() {
        let ch = units[i];
        if ch == u16::from(b'\\') && units.len() > i + 3 && units[i + 1] == u16::from(b'x') {
            match (upper_hex_value(units[i + 2]), upper_hex_value(units[i + 3])) {
                (Some(hi), Some(lo)) => {
                    out.push((hi << 4) | lo);
                    i += 4;
                }
                // Bogus escape: HBase skips the backslash and reads on from the 'x'.
                _ => i += 1,
            }
        } else {
            out.push(ch as u8);
            i += 1;
        }
    }
    out
}

// ---- pre-split keys --------------------------------------------------------------------------

/// The split keys HBase's `RegionSplitter` computes for `create 't', 'f', {NUMREGIONS =>
/// regions, SPLITALGO => algorithm}` ([PRESPLIT-2], [PRESPLIT-3]): `regions - 1` ascending keys.
/// Returns an empty vector where [`split_keys_checked`] fails (`regions < 2`, or more regions
/// than the key space of `DecimalString` holds).
pub fn split_keys(algorithm: SplitAlgorithm, regions: u32) -> Vec<Vec<u8>> {
    split_keys_checked(algorithm, regions).unwrap_or_default()
}

/// [`split_keys`] with HBase's errors, as `InvalidArgument`:
///
/// * `regions < 2`: `"Number of regions must be greater than 1"` (the shell's check);
/// * `regions` larger than the algorithm's key space (only possible for `DecimalString`, whose
///   space is `10^8`): `"split granularity (N) is greater than the range (100000000)"`.
///
/// Arithmetic: `HexString`/`DecimalString` take `step = floor(range / regions)` with
/// `range = last - first + 1` (`2^32`, `10^8`) and key `i` = `i × step` as zero-padded
/// 8-character lower-case hex / decimal text; `Uniform` is `Bytes.split` of `[]`..=`FF×8`
/// (inclusive), i.e. key `i` = `i × floor(2^64 / regions)` as 8 big-endian bytes. Note that
/// the result holds `regions - 1` keys: very large counts cost memory accordingly.
pub fn split_keys_checked(algorithm: SplitAlgorithm, regions: u32) -> Result<Vec<Vec<u8>>> {
    if regions < 2 {
        return Err(Error::invalid("Number of regions must be greater than 1"));
    }
    match algorithm.number_space() {
        Some((radix, last)) => {
            let range = last + 1; // the first row is 0 and the last row is inclusive
            let n = u64::from(regions);
            if range < n {
                return Err(Error::invalid(format!(
                    "split granularity ({n}) is greater than the range ({range})"
                )));
            }
            let step = range / n;
            Ok((1..n)
                .map(|i| format_number(i * step, radix).into_bytes())
                .collect())
        }
        None => {
            let (first, last) = (algorithm.first_row(), algorithm.last_row());
            let mut keys = iterate_on_splits(&first, &last, true, regions - 1)
                .ok_or_else(|| Error::invalid("Could not split region with given user input"))?;
            // Drop the two end points Bytes.split includes.
            keys.pop();
            keys.remove(0);
            Ok(keys)
        }
    }
}

/// `v` in `radix` (10 or 16), lower-case, left-padded with `0` to 8 characters.
fn format_number(v: u64, radix: u32) -> String {
    if radix == 16 {
        format!("{v:08x}")
    } else {
        format!("{v:08}")
    }
}

/// The row at which `algorithm` splits the region `[start, end)` in two (the rolling split of
/// `RegionSplitter`, "Midpoint of one region" in [PRESPLIT-2]). Returns an empty vector where
/// [`midpoint_checked`] fails.
pub fn midpoint(algorithm: SplitAlgorithm, start: &[u8], end: &[u8]) -> Vec<u8> {
    midpoint_checked(algorithm, start, end).unwrap_or_default()
}

/// [`midpoint`] with errors. An empty `start` stands for [`SplitAlgorithm::first_row`] and an
/// empty `end` for [`SplitAlgorithm::last_row`], as in `RegionSplitter.rollingSplit`.
///
/// * `HexString` / `DecimalString`: both rows are parsed as numbers in the algorithm's radix
///   (either case of hex digits, optional leading `+`/`-`, any length: Java's
///   `new BigInteger(row, radix)`; only ASCII digits are accepted). With `e' = e + 1` when `e`
///   is the algorithm's last row (so the last row stays inclusive), the result is
///   `|s + e'| / 2` (floor) as lower-case text left-padded with `0` to 8 characters:
///   `("dfffffff", "ffffffff")` → `"efffffff"`. A row that is not a number, or an `end` equal
///   to zero, is `InvalidArgument`.
/// * `Uniform`: `Bytes.split(start, end, 1)[1]` (see [`bytes_split`]):
///   `("aaa", "aab")` → `aaa\x80`. `InvalidArgument("b <= a")` unless `start < end` after
///   right-padding the shorter with zero bytes.
pub fn midpoint_checked(algorithm: SplitAlgorithm, start: &[u8], end: &[u8]) -> Result<Vec<u8>> {
    let first = algorithm.first_row();
    let last = algorithm.last_row();
    let start = if start.is_empty() { &first[..] } else { start };
    let end = if end.is_empty() { &last[..] } else { end };
    match algorithm.number_space() {
        Some((radix, last_value)) => {
            let (s_neg, s) = parse_signed(start, radix)?;
            let (e_neg, mut e) = parse_signed(end, radix)?;
            if e.is_zero() {
                return Err(Error::invalid(format!(
                    "{algorithm}: the end row of a split must not be zero, got {}",
                    to_string_binary(end)
                )));
            }
            if !e_neg && e == Nat::from_u64(last_value) {
                e = e.add(&Nat::from_u64(1));
            }
            // |s + e|: magnitudes add when the signs agree, subtract otherwise.
            let sum = if s_neg == e_neg {
                s.add(&e)
            } else if s >= e {
                s.sub(&e)
            } else {
                e.sub(&s)
            };
            let (half, _) = sum.div_small(2);
            let mut text = half.to_radix_string(radix);
            if text.len() < 8 {
                text = format!("{}{text}", "0".repeat(8 - text.len()));
            }
            Ok(text.into_bytes())
        }
        None => {
            let keys = iterate_on_splits(start, end, false, 1).ok_or_else(|| {
                Error::invalid(format!(
                    "b <= a: cannot split between {} and {}",
                    to_string_binary(start),
                    to_string_binary(end)
                ))
            })?;
            Ok(keys[1].clone())
        }
    }
}

/// Parses `row` as `new BigInteger(Bytes.toString(row), radix)` does (ASCII digits only).
fn parse_signed(row: &[u8], radix: u32) -> Result<(bool, Nat)> {
    let bad = || {
        Error::invalid(format!(
            "not a base-{radix} number: \"{}\"",
            to_string_binary(row)
        ))
    };
    let (neg, digits) = match row.first() {
        Some(b'-') => (true, &row[1..]),
        Some(b'+') => (false, &row[1..]),
        _ => (false, row),
    };
    let value = Nat::parse_radix(digits, radix).ok_or_else(bad)?;
    Ok((neg, value))
}

/// HBase `Bytes.split(a, b, num)` ([PRESPLIT-4]): `num + 2` keys `[a, …num interior keys…, b]`
/// dividing `[a, b)` into `num + 1` equal parts.
///
/// The shorter key is right-padded with zero bytes; both are read as big unsigned integers
/// (HBase prefixes them with `01 00`, which cancels out); `step = floor((b - a) / (num + 1))`
/// and interior key `i` is `a + i × step` at the padded length. When `b - a < num + 1` a `00`
/// byte is appended to both and the division retried, and then the returned end points are
/// those extended keys (`bytes_split(b"a", b"b", 2)` starts with `a\x00`), exactly as HBase.
/// `Admin.createTable(desc, startKey, endKey, numRegions)` uses
/// `bytes_split(startKey, endKey, numRegions - 3)` as its split keys.
///
/// Returns `None` where HBase throws `IllegalArgumentException`: `num == 0`
/// (`"num cannot be <= 0"`) or `a >= b` after padding (`"b <= a"`).
pub fn bytes_split(a: &[u8], b: &[u8], num: u32) -> Option<Vec<Vec<u8>>> {
    iterate_on_splits(a, b, false, num)
}

/// `Bytes.iterateOnSplits`, materialized. `inclusive` adds one to the range (the end row is
/// inclusive, as `UniformSplit` uses it).
fn iterate_on_splits(a: &[u8], b: &[u8], inclusive: bool, num: u32) -> Option<Vec<Vec<u8>>> {
    if num == 0 {
        return None;
    }
    let len = a.len().max(b.len());
    let mut a_padded = a.to_vec();
    a_padded.resize(len, 0);
    let mut b_padded = b.to_vec();
    b_padded.resize(len, 0);
    if a_padded >= b_padded {
        return None;
    }
    let parts = u64::from(num) + 1;
    // End points as HBase returns them: the caller's keys, or the zero-extended ones after a
    // retry (HBase recurses with the extended keys as the new `a` and `b`).
    let (mut first, mut last) = (a.to_vec(), b.to_vec());
    loop {
        let start = Nat::from_be(&a_padded);
        let mut diff = Nat::from_be(&b_padded).sub(&start);
        if inclusive {
            diff = diff.add(&Nat::from_u64(1));
        }
        if diff < Nat::from_u64(parts) {
            a_padded.push(0);
            b_padded.push(0);
            first.clone_from(&a_padded);
            last.clone_from(&b_padded);
            continue;
        }
        let (step, _) = diff.div_small(parts);
        let mut keys = Vec::with_capacity(num as usize + 2);
        keys.push(first);
        let mut current = start;
        for _ in 0..num {
            current = current.add(&step);
            keys.push(current.to_be_padded(a_padded.len()));
        }
        keys.push(last);
        return Some(keys);
    }
}

// ---- arbitrary-precision unsigned integers ---------------------------------------------------

/// A non-negative integer of any size: big-endian bytes without leading zeros (zero is empty).
/// Just enough arithmetic for `Bytes.split` and the `NumberStringSplit` midpoint, whose operands
/// are as long as the row keys.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Nat(Vec<u8>);

impl Nat {
    fn from_be(bytes: &[u8]) -> Nat {
        let lead = bytes.iter().take_while(|&&b| b == 0).count();
        Nat(bytes[lead..].to_vec())
    }

    fn from_u64(v: u64) -> Nat {
        Nat::from_be(&v.to_be_bytes())
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    /// Byte `k` counted from the least significant end (0 beyond the top).
    fn byte_from_low(&self, k: usize) -> u8 {
        if k < self.0.len() {
            self.0[self.0.len() - 1 - k]
        } else {
            0
        }
    }

    fn add(&self, other: &Nat) -> Nat {
        let n = self.0.len().max(other.0.len()) + 1;
        let mut out = vec![0u8; n];
        let mut carry = 0u16;
        for k in 0..n {
            let s = u16::from(self.byte_from_low(k)) + u16::from(other.byte_from_low(k)) + carry;
            out[n - 1 - k] = s as u8;
            carry = s >> 8;
        }
        Nat::from_be(&out)
    }

    /// `self - other`; requires `self >= other`.
    fn sub(&self, other: &Nat) -> Nat {
        debug_assert!(*self >= *other);
        let n = self.0.len();
        let mut out = vec![0u8; n];
        let mut borrow = 0i16;
        for k in 0..n {
            let mut d =
                i16::from(self.byte_from_low(k)) - i16::from(other.byte_from_low(k)) - borrow;
            borrow = i16::from(d < 0);
            if d < 0 {
                d += 256;
            }
            out[n - 1 - k] = d as u8;
        }
        Nat::from_be(&out)
    }

    fn mul_small(&self, m: u64) -> Nat {
        let n = self.0.len() + 8;
        let mut out = vec![0u8; n];
        let mut carry = 0u128;
        for k in 0..n {
            let acc = u128::from(self.byte_from_low(k)) * u128::from(m) + carry;
            out[n - 1 - k] = acc as u8;
            carry = acc >> 8;
        }
        Nat::from_be(&out)
    }

    fn add_small(&self, v: u64) -> Nat {
        self.add(&Nat::from_u64(v))
    }

    /// `(self / d, self % d)`; `d` must not be zero.
    fn div_small(&self, d: u64) -> (Nat, u64) {
        debug_assert!(d != 0);
        let mut q = Vec::with_capacity(self.0.len());
        let mut rem = 0u128;
        for &b in &self.0 {
            let acc = (rem << 8) | u128::from(b);
            q.push((acc / u128::from(d)) as u8);
            rem = acc % u128::from(d);
        }
        (Nat::from_be(&q), rem as u64)
    }

    /// The low `len` bytes, left-padded with zeros.
    fn to_be_padded(&self, len: usize) -> Vec<u8> {
        (0..len).rev().map(|k| self.byte_from_low(k)).collect()
    }

    /// Parses ASCII digits (either case) in `radix`; `None` for no digits or a bad one.
    fn parse_radix(digits: &[u8], radix: u32) -> Option<Nat> {
        if digits.is_empty() {
            return None;
        }
        let mut v = Nat(Vec::new());
        for &c in digits {
            let d = char::from(c).to_digit(radix)?;
            v = v.mul_small(u64::from(radix)).add_small(u64::from(d));
        }
        Some(v)
    }

    /// Lower-case digits in `radix`, `"0"` for zero.
    fn to_radix_string(&self, radix: u32) -> String {
        if self.is_zero() {
            return "0".to_owned();
        }
        let mut digits = Vec::new();
        let mut v = self.clone();
        while !v.is_zero() {
            let (q, r) = v.div_small(u64::from(radix));
            digits.push(char::from_digit(r as u32, radix).unwrap_or('0'));
            v = q;
        }
        digits.iter().rev().collect()
    }
}

impl Ord for Nat {
    fn cmp(&self, other: &Nat) -> std::cmp::Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.cmp(&other.0))
    }
}

impl PartialOrd for Nat {
    fn partial_cmp(&self, other: &Nat) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
