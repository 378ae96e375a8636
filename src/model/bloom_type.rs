//! A column family's Bloom filter kind (HBase's `BloomType`) [BLOOM-1] [BLOOM-5]: HBase 2.6's
//! NONE, ROW, ROWCOL and ROWPREFIX_FIXED_LENGTH with its prefix length (the family setting
//! `RowPrefixBloomFilter.prefix_length`), checked as HBase's `BloomFilterUtil` checks it.

use crate::base::error::{Error, Result};

/// Bloom filter kind of a family [BLOOM-1]: HBase 2.6's `BloomType` (NONE, ROW, ROWCOL,
/// ROWPREFIX_FIXED_LENGTH; HBase removed ROWPREFIX_DELIMITED in HBASE-21922).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum BloomType {
    /// No Bloom filter.
    None,
    /// Keyed by row; consulted by Gets [BLOOM-3].
    #[default]
    Row,
    /// Keyed by row + qualifier; consulted by single-column Gets [BLOOM-4].
    RowCol,
    /// HBase's ROWPREFIX_FIXED_LENGTH with `RowPrefixBloomFilter.prefix_length` = N
    /// ([`ROW_PREFIX_LENGTH_KEY`], 1..=32767): keyed by the first N bytes of the row (the whole
    /// row when it is shorter); consulted by Gets and by scans whose start and stop rows share
    /// a prefix of at least N bytes [BLOOM-5].
    RowPrefixFixedLength(u32),
}

/// The family configuration key of the ROWPREFIX_FIXED_LENGTH prefix length (HBase's
/// `BloomFilterUtil.PREFIX_LENGTH_KEY`).
pub const ROW_PREFIX_LENGTH_KEY: &str = "RowPrefixBloomFilter.prefix_length";

/// Longest row prefix a ROWPREFIX_FIXED_LENGTH filter may key on (HBase's
/// `HConstants.MAX_ROW_LENGTH`).
const MAX_ROW_PREFIX_LENGTH: u32 = 32767;

impl BloomType {
    /// HBase's name, as `describe` prints it: NONE, ROW, ROWCOL, ROWPREFIX_FIXED_LENGTH.
    pub fn hbase_name(self) -> &'static str {
        match self {
            BloomType::None => "NONE",
            BloomType::Row => "ROW",
            BloomType::RowCol => "ROWCOL",
            BloomType::RowPrefixFixedLength(_) => "ROWPREFIX_FIXED_LENGTH",
        }
    }

    /// The prefix length of a ROWPREFIX_FIXED_LENGTH filter.
    pub fn prefix_length(self) -> Option<u32> {
        match self {
            BloomType::RowPrefixFixedLength(n) => Some(n),
            _ => None,
        }
    }

    /// The Bloom key of `row`: its first N bytes for ROWPREFIX_FIXED_LENGTH (the whole row
    /// when shorter, as HBase's `RowPrefixFixedLengthBloomContext`), else the row.
    #[inline]
    pub(crate) fn row_key(self, row: &[u8]) -> &[u8] {
        match self {
            BloomType::RowPrefixFixedLength(n) => {
                &row[..row.len().min(usize::try_from(n).unwrap_or(usize::MAX))]
            }
            _ => row,
        }
    }

    /// Parses HBase's `BLOOMFILTER` value (ASCII case-insensitive) with the family's
    /// `RowPrefixBloomFilter.prefix_length` setting, checked as HBase's
    /// `BloomFilterUtil.getBloomFilterParam` checks it (required for ROWPREFIX_FIXED_LENGTH, a
    /// number in 1..=32767, HBase's messages). The setting is ignored for the other types.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an unknown type (ROWPREFIX_DELIMITED, removed from HBase
    /// by HBASE-21922, included) or a missing or bad prefix length.
    pub fn from_hbase_name(name: &str, prefix_length: Option<&str>) -> Result<BloomType> {
        let upper = name.to_ascii_uppercase();
        let t = match upper.as_str() {
            "NONE" => BloomType::None,
            "ROW" => BloomType::Row,
            "ROWCOL" => BloomType::RowCol,
            "ROWPREFIX_FIXED_LENGTH" => {
                let fail =
                    |m: String| Error::invalid(format!("Failed to get bloom filter param: {m}"));
                let Some(text) = prefix_length else {
                    return Err(fail(format!(
                        "Bloom filter type is ROWPREFIX_FIXED_LENGTH, {ROW_PREFIX_LENGTH_KEY} not specified."
                    )));
                };
                let n: i64 = text.trim().parse().map_err(|_| {
                    fail(format!(
                        "Number format exception when parsing {ROW_PREFIX_LENGTH_KEY} for BloomType ROWPREFIX_FIXED_LENGTH:{text}"
                    ))
                })?;
                if !(1..=i64::from(MAX_ROW_PREFIX_LENGTH)).contains(&n) {
                    return Err(Error::invalid(prefix_length_message()));
                }
                BloomType::RowPrefixFixedLength(u32::try_from(n).unwrap_or(0))
            }
            "ROWPREFIX_DELIMITED" => {
                return Err(Error::invalid(
                    "BLOOMFILTER ROWPREFIX_DELIMITED does not exist in HBase 2.6 (removed by \
                     HBASE-21922): use ROWPREFIX_FIXED_LENGTH with \
                     CONFIGURATION => {'RowPrefixBloomFilter.prefix_length' => 'N'}",
                ));
            }
            _ => {
                return Err(Error::invalid(format!(
                    "BLOOMFILTER {name} is not supported (NONE, ROW, ROWCOL, ROWPREFIX_FIXED_LENGTH)"
                )));
            }
        };
        Ok(t)
    }

    /// Checks a ROWPREFIX_FIXED_LENGTH prefix length (1..=32767, HBase's
    /// `BloomFilterUtil.getBloomFilterParam`); the error is HBase's message.
    pub(crate) fn check(self) -> std::result::Result<(), String> {
        match self {
            BloomType::RowPrefixFixedLength(n) if n == 0 || n > MAX_ROW_PREFIX_LENGTH => {
                Err(prefix_length_message())
            }
            _ => Ok(()),
        }
    }
}

/// HBase's message for a prefix length outside 1..=32767 (its text says ">=0 and < 32767"; the
/// check is `<= 0 || > 32767`).
fn prefix_length_message() -> String {
    format!(
        "Failed to get bloom filter param: Bloom filter type is ROWPREFIX_FIXED_LENGTH, the value \
         of {ROW_PREFIX_LENGTH_KEY} must >=0 and < {MAX_ROW_PREFIX_LENGTH}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::codec::{DecodeError, Reader};
    use crate::model::family::{
        FamilyDescriptor, apply_family_attribute, encode_family, family_attributes,
    };
    use crate::model::schema::TableDescriptor;

    fn encoded(d: &TableDescriptor) -> Vec<u8> {
        let mut b = Vec::new();
        d.encode_into(&mut b);
        b
    }

    fn decoded(b: &[u8]) -> std::result::Result<TableDescriptor, DecodeError> {
        TableDescriptor::decode(&mut Reader::new(b))
    }

    /// [BLOOM-5] ROWPREFIX_FIXED_LENGTH is bloom code 3 with the prefix length as the family
    /// attribute `RowPrefixBloomFilter.prefix_length` (descriptor encoding version 4).
    #[test]
    fn row_prefix_bloom_round_trips_as_code_3_and_an_attribute() {
        let f = FamilyDescriptor::new("f").bloom_filter(BloomType::RowPrefixFixedLength(4));
        assert_eq!(
            family_attributes(&f),
            [(ROW_PREFIX_LENGTH_KEY, "4".to_string())]
        );
        let d = TableDescriptor::new("t")
            .family(f)
            .family(FamilyDescriptor::new("g"));
        let b = encoded(&d);
        assert_eq!(b[0], 4, "attributes need descriptor version 4");
        assert_eq!(decoded(&b).unwrap(), d);
        let text = String::from_utf8_lossy(&b);
        assert!(text.contains(ROW_PREFIX_LENGTH_KEY), "stored by name");
        // A family without the prefix bloom writes no attribute.
        assert!(family_attributes(&FamilyDescriptor::new("g")).is_empty());
    }

    /// [BLOOM-5] decoding refuses code 3 without its length, a bad length, the length on
    /// another bloom type, and unknown codes, with a `DecodeError` (never a panic).
    #[test]
    fn bad_row_prefix_encodings_are_decode_errors() {
        // A Row family in a version-4 descriptor (a table attribute forces the version); its
        // bloom byte turned into 3: no prefix length attribute follows.
        let d = TableDescriptor::new("t")
            .family(FamilyDescriptor::new("f"))
            .compaction_enabled(false);
        let b = encoded(&d);
        assert_eq!(b[0], 4);
        let mut f = FamilyDescriptor::new("f");
        let mut fam = Vec::new();
        encode_family(&mut fam, &f);
        let at = b.windows(fam.len()).position(|w| w == fam).unwrap();
        // The family's last bytes: bloom, codec, block size (65536: a 3-byte varint), flags.
        let bloom_at = at + fam.len() - 6;
        let mut c = b.clone();
        assert_eq!(c[bloom_at], 1, "the ROW bloom byte");
        c[bloom_at] = 3;
        let e = decoded(&c).unwrap_err();
        assert_eq!(
            e.what,
            "ROWPREFIX_FIXED_LENGTH bloom without its prefix length"
        );
        c[bloom_at] = 4;
        assert_eq!(decoded(&c).unwrap_err().what, "unknown bloom type");
        // The attribute on a family of another type, or with a bad value.
        assert!(apply_family_attribute(&mut f, ROW_PREFIX_LENGTH_KEY, "4").is_err());
        f.bloom_filter = BloomType::RowPrefixFixedLength(0);
        for bad in ["0", "-1", "x", "32768", ""] {
            assert!(apply_family_attribute(&mut f, ROW_PREFIX_LENGTH_KEY, bad).is_err());
        }
        apply_family_attribute(&mut f, ROW_PREFIX_LENGTH_KEY, "32767").unwrap();
        assert_eq!(f.bloom_filter, BloomType::RowPrefixFixedLength(32767));
        // Every cut of a good encoding fails cleanly.
        let good =
            encoded(&TableDescriptor::new("t").family(
                FamilyDescriptor::new("f").bloom_filter(BloomType::RowPrefixFixedLength(7)),
            ));
        for cut in 0..good.len() {
            assert!(decoded(&good[..cut]).is_err());
        }
    }

    /// [BLOOM-5] HBase's `BloomFilterUtil.getBloomFilterParam` checks and messages, through
    /// `BloomType::from_hbase_name` (the shell and gateway) and `FamilyDescriptor::validate`
    /// (the API); HBase 2.6 has no ROWPREFIX_DELIMITED.
    #[test]
    fn prefix_lengths_are_checked_as_hbase_checks_them() {
        let msg = |r: Result<BloomType>| match r {
            Err(Error::InvalidArgument(m)) => m,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            BloomType::from_hbase_name("rowprefix_fixed_length", Some("4")).unwrap(),
            BloomType::RowPrefixFixedLength(4)
        );
        assert_eq!(
            msg(BloomType::from_hbase_name("ROWPREFIX_FIXED_LENGTH", None)),
            "Failed to get bloom filter param: Bloom filter type is ROWPREFIX_FIXED_LENGTH, \
             RowPrefixBloomFilter.prefix_length not specified."
        );
        assert_eq!(
            msg(BloomType::from_hbase_name(
                "ROWPREFIX_FIXED_LENGTH",
                Some("abc")
            )),
            "Failed to get bloom filter param: Number format exception when parsing \
             RowPrefixBloomFilter.prefix_length for BloomType ROWPREFIX_FIXED_LENGTH:abc"
        );
        for bad in ["0", "-3", "32768", "99999999999"] {
            assert!(
                msg(BloomType::from_hbase_name(
                    "ROWPREFIX_FIXED_LENGTH",
                    Some(bad)
                ))
                .ends_with("the value of RowPrefixBloomFilter.prefix_length must >=0 and < 32767"),
                "{bad}"
            );
        }
        assert!(
            msg(BloomType::from_hbase_name("ROWPREFIX_DELIMITED", Some("4")))
                .contains("HBASE-21922")
        );
        assert!(BloomType::from_hbase_name("RIBBON_ROW", None).is_err());
        // The length is ignored for the other types, as HBase ignores the setting.
        assert_eq!(
            BloomType::from_hbase_name("row", Some("x")).unwrap(),
            BloomType::Row
        );
        for (n, ok) in [(0, false), (1, true), (32767, true), (32768, false)] {
            let r = FamilyDescriptor::new("f")
                .bloom_filter(BloomType::RowPrefixFixedLength(n))
                .validate();
            assert_eq!(r.is_ok(), ok, "{n}: {r:?}");
        }
        assert_eq!(
            BloomType::RowPrefixFixedLength(9).hbase_name(),
            "ROWPREFIX_FIXED_LENGTH"
        );
        assert_eq!(BloomType::RowPrefixFixedLength(9).prefix_length(), Some(9));
        assert_eq!(BloomType::Row.prefix_length(), None);
        assert_eq!(
            BloomType::RowPrefixFixedLength(3).row_key(b"abcdef"),
            b"abc"
        );
        assert_eq!(BloomType::RowPrefixFixedLength(8).row_key(b"abc"), b"abc");
        assert_eq!(BloomType::Row.row_key(b"abcdef"), b"abcdef");
    }
}
