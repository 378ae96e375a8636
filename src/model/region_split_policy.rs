//! A table's split policy (HBase's `SPLIT_POLICY` table attribute and the
//! `RegionSplitPolicy` classes), as the table descriptor holds and persists it.
//!
//! The decisions themselves are pure functions in `engine/split_policy.rs`; this type only
//! names the rule and its settings, parses HBase's class names and configuration keys, and
//! encodes itself for the manifest (docs/FORMAT.md, section 4, table descriptor version 3).

use crate::base::codec::{self, DecodeError, Reader};
use crate::base::error::{Error, Result};

/// HBase's package of the split policy classes.
const PACKAGE: &str = "org.apache.hadoop.hbase.regionserver.";

/// `KeyPrefixRegionSplitPolicy`'s table configuration key.
pub const PREFIX_LENGTH_KEY: &str = "KeyPrefixRegionSplitPolicy.prefix_length";
/// The older spelling HBase still reads when [`PREFIX_LENGTH_KEY`] is absent.
pub const PREFIX_LENGTH_KEY_DEPRECATED: &str = "prefix_split_key_policy.prefix_length";
/// `DelimitedKeyPrefixRegionSplitPolicy`'s table configuration key.
pub const DELIMITER_KEY: &str = "DelimitedKeyPrefixRegionSplitPolicy.delimiter";

/// Which rule decides when a region of the table splits and where [SPLIT-1] [SPLIT-2]
/// (HBase's `SPLIT_POLICY`; the default is HBase's default since 2.0, Stepping).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum RegionSplitPolicy {
    /// `ConstantSizeRegionSplitPolicy`: a region splits once a store exceeds the table's
    /// maximum region size.
    ConstantSize,
    /// `IncreasingToUpperBoundRegionSplitPolicy`: the threshold is
    /// `min(max, 2 × flush size × R³)` for a table of `R` regions.
    IncreasingToUpperBound,
    /// `SteppingSplitPolicy`: `2 × flush size` while the table has one region, then the maximum.
    #[default]
    Stepping,
    /// `KeyPrefixRegionSplitPolicy`: thresholds as IncreasingToUpperBound; the split row is cut
    /// to its first `prefix_length` bytes, so rows sharing that prefix stay in one region.
    KeyPrefix {
        /// `KeyPrefixRegionSplitPolicy.prefix_length` (at least 1).
        prefix_length: u32,
    },
    /// `DelimitedKeyPrefixRegionSplitPolicy`: thresholds as IncreasingToUpperBound; the split
    /// row is cut before the first occurrence of `delimiter`, so rows sharing the part before
    /// it stay in one region (a row without the delimiter is used whole).
    DelimitedKeyPrefix {
        /// `DelimitedKeyPrefixRegionSplitPolicy.delimiter` (not empty).
        delimiter: Vec<u8>,
    },
    /// `DisabledRegionSplitPolicy`: no automatic splits (explicit splits still work).
    Disabled,
}

impl RegionSplitPolicy {
    /// HBase's simple class name of the policy.
    pub fn simple_class_name(&self) -> &'static str {
        match self {
            RegionSplitPolicy::ConstantSize => "ConstantSizeRegionSplitPolicy",
            RegionSplitPolicy::IncreasingToUpperBound => "IncreasingToUpperBoundRegionSplitPolicy",
            RegionSplitPolicy::Stepping => "SteppingSplitPolicy",
            RegionSplitPolicy::KeyPrefix { .. } => "KeyPrefixRegionSplitPolicy",
            RegionSplitPolicy::DelimitedKeyPrefix { .. } => "DelimitedKeyPrefixRegionSplitPolicy",
            RegionSplitPolicy::Disabled => "DisabledRegionSplitPolicy",
        }
    }

    /// HBase's full class name, as `SPLIT_POLICY` names it
    /// (`org.apache.hadoop.hbase.regionserver.SteppingSplitPolicy`, ...).
    pub fn class_name(&self) -> String {
        format!("{PACKAGE}{}", self.simple_class_name())
    }

    /// The table configuration entry the policy reads (`None` for the policies without one).
    pub fn configuration(&self) -> Option<(&'static str, String)> {
        match self {
            RegionSplitPolicy::KeyPrefix { prefix_length } => {
                Some((PREFIX_LENGTH_KEY, prefix_length.to_string()))
            }
            RegionSplitPolicy::DelimitedKeyPrefix { delimiter } => Some((
                DELIMITER_KEY,
                String::from_utf8_lossy(delimiter).into_owned(),
            )),
            _ => None,
        }
    }

    /// The policy named by HBase's `SPLIT_POLICY` value `class` (the full class name, or the
    /// simple name) with its settings looked up by `config` (the table's `CONFIGURATION` or
    /// `METADATA` entries): [`PREFIX_LENGTH_KEY`] (or [`PREFIX_LENGTH_KEY_DEPRECATED`]) for
    /// KeyPrefix, [`DELIMITER_KEY`] for DelimitedKeyPrefix.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an unknown class, and for a prefix policy whose setting
    /// is missing or invalid (HBase logs an error and splits as IncreasingToUpperBound then;
    /// cellbase refuses the table, so the mistake is seen).
    pub fn from_hbase(class: &str, config: impl Fn(&str) -> Option<String>) -> Result<Self> {
        let simple = class.strip_prefix(PACKAGE).unwrap_or(class);
        Ok(match simple {
            "ConstantSizeRegionSplitPolicy" => RegionSplitPolicy::ConstantSize,
            "IncreasingToUpperBoundRegionSplitPolicy" => RegionSplitPolicy::IncreasingToUpperBound,
            "SteppingSplitPolicy" => RegionSplitPolicy::Stepping,
            "DisabledRegionSplitPolicy" => RegionSplitPolicy::Disabled,
            "KeyPrefixRegionSplitPolicy" => {
                let v = config(PREFIX_LENGTH_KEY)
                    .or_else(|| config(PREFIX_LENGTH_KEY_DEPRECATED))
                    .ok_or_else(|| {
                        Error::invalid(format!(
                            "{PREFIX_LENGTH_KEY} not specified for KeyPrefixRegionSplitPolicy"
                        ))
                    })?;
                let prefix_length =
                    v.trim()
                        .parse::<u32>()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| {
                            Error::invalid(format!(
                                "Invalid value for {PREFIX_LENGTH_KEY}: {v} (a positive integer)"
                            ))
                        })?;
                RegionSplitPolicy::KeyPrefix { prefix_length }
            }
            "DelimitedKeyPrefixRegionSplitPolicy" => {
                let delimiter = config(DELIMITER_KEY).unwrap_or_default().into_bytes();
                if delimiter.is_empty() {
                    return Err(Error::invalid(format!(
                        "{DELIMITER_KEY} not specified for DelimitedKeyPrefixRegionSplitPolicy"
                    )));
                }
                RegionSplitPolicy::DelimitedKeyPrefix { delimiter }
            }
            _ => {
                return Err(Error::invalid(format!(
                    "Unable to load configured region split policy '{class}' (cellbase has \
                     ConstantSize, IncreasingToUpperBound, Stepping, KeyPrefix, \
                     DelimitedKeyPrefix and Disabled)"
                )));
            }
        })
    }

    /// Checks the settings: a prefix length of at least 1, a non-empty delimiter.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`].
    pub fn validate(&self) -> Result<()> {
        match self {
            RegionSplitPolicy::KeyPrefix { prefix_length: 0 } => Err(Error::invalid(format!(
                "Invalid value for {PREFIX_LENGTH_KEY}: 0 (a positive integer)"
            ))),
            RegionSplitPolicy::DelimitedKeyPrefix { delimiter } if delimiter.is_empty() => {
                Err(Error::invalid(format!("{DELIMITER_KEY} must not be empty")))
            }
            _ => Ok(()),
        }
    }

    /// Appends the encoding: `code: u8` (0 Stepping, 1 ConstantSize, 2 IncreasingToUpperBound,
    /// 3 KeyPrefix, 4 DelimitedKeyPrefix, 5 Disabled), then `prefix_length: varint` for 3 and
    /// `delimiter: bytes` for 4.
    pub(crate) fn encode_into(&self, out: &mut Vec<u8>) {
        match self {
            RegionSplitPolicy::Stepping => out.push(0),
            RegionSplitPolicy::ConstantSize => out.push(1),
            RegionSplitPolicy::IncreasingToUpperBound => out.push(2),
            RegionSplitPolicy::KeyPrefix { prefix_length } => {
                out.push(3);
                codec::put_varint(out, u64::from(*prefix_length));
            }
            RegionSplitPolicy::DelimitedKeyPrefix { delimiter } => {
                out.push(4);
                codec::put_bytes(out, delimiter);
            }
            RegionSplitPolicy::Disabled => out.push(5),
        }
    }

    /// Decodes what [`RegionSplitPolicy::encode_into`] wrote.
    pub(crate) fn decode(r: &mut Reader<'_>) -> std::result::Result<Self, DecodeError> {
        let bad = |what, r: &Reader<'_>| DecodeError {
            what,
            offset: r.pos(),
        };
        Ok(match r.u8("split policy")? {
            0 => RegionSplitPolicy::Stepping,
            1 => RegionSplitPolicy::ConstantSize,
            2 => RegionSplitPolicy::IncreasingToUpperBound,
            3 => {
                let n = r.varint("prefix length")?;
                let prefix_length = u32::try_from(n)
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| bad("prefix length", r))?;
                RegionSplitPolicy::KeyPrefix { prefix_length }
            }
            4 => {
                let delimiter = r.bytes("delimiter")?.to_vec();
                if delimiter.is_empty() {
                    return Err(bad("empty delimiter", r));
                }
                RegionSplitPolicy::DelimitedKeyPrefix { delimiter }
            }
            5 => RegionSplitPolicy::Disabled,
            _ => return Err(bad("unknown split policy", r)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<RegionSplitPolicy> {
        vec![
            RegionSplitPolicy::ConstantSize,
            RegionSplitPolicy::IncreasingToUpperBound,
            RegionSplitPolicy::Stepping,
            RegionSplitPolicy::KeyPrefix { prefix_length: 4 },
            RegionSplitPolicy::DelimitedKeyPrefix {
                delimiter: b"_".to_vec(),
            },
            RegionSplitPolicy::Disabled,
        ]
    }

    #[test]
    fn class_names_and_configuration_round_trip() {
        for p in all() {
            let cfg = p.configuration();
            let lookup = |k: &str| {
                cfg.as_ref()
                    .filter(|(key, _)| *key == k)
                    .map(|(_, v)| v.clone())
            };
            assert_eq!(
                RegionSplitPolicy::from_hbase(&p.class_name(), lookup).unwrap(),
                p
            );
            assert_eq!(
                RegionSplitPolicy::from_hbase(p.simple_class_name(), lookup).unwrap(),
                p
            );
            let mut b = Vec::new();
            p.encode_into(&mut b);
            let mut r = Reader::new(&b);
            assert_eq!(RegionSplitPolicy::decode(&mut r).unwrap(), p);
            assert!(r.is_empty());
            p.validate().unwrap();
        }
        assert_eq!(RegionSplitPolicy::default(), RegionSplitPolicy::Stepping);
    }

    /// HBase's configureForRegion: the deprecated key is read when the current one is absent;
    /// a missing, unparsable or non-positive length (HBase: a logged error and no grouping)
    /// and a missing delimiter are refused; unknown classes too.
    #[test]
    fn prefix_settings_are_required() {
        let kp = "org.apache.hadoop.hbase.regionserver.KeyPrefixRegionSplitPolicy";
        let deprecated = |k: &str| (k == PREFIX_LENGTH_KEY_DEPRECATED).then(|| "3".to_string());
        assert_eq!(
            RegionSplitPolicy::from_hbase(kp, deprecated).unwrap(),
            RegionSplitPolicy::KeyPrefix { prefix_length: 3 }
        );
        for v in [None, Some("x"), Some("0"), Some("-2")] {
            let get = |_: &str| v.map(str::to_string);
            assert!(RegionSplitPolicy::from_hbase(kp, get).is_err(), "{v:?}");
        }
        assert!(
            RegionSplitPolicy::from_hbase("DelimitedKeyPrefixRegionSplitPolicy", |_| None).is_err()
        );
        assert!(RegionSplitPolicy::from_hbase("BusyRegionSplitPolicy", |_| None).is_err());
        assert!(
            RegionSplitPolicy::KeyPrefix { prefix_length: 0 }
                .validate()
                .is_err()
        );
        let mut r = Reader::new(&[3, 0]);
        assert!(RegionSplitPolicy::decode(&mut r).is_err());
        let mut r = Reader::new(&[9]);
        assert!(RegionSplitPolicy::decode(&mut r).is_err());
    }
}
