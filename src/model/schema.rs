//! Table descriptors (HBase's `TableDescriptor`): a table's name, families, table-level
//! settings and initial splits, their validation [LIM-2] [DESC-3] and their byte encoding for
//! the manifest. The families are model/family.rs (re-exported here).

use crate::base::codec::{self, DecodeError, Reader};
use crate::base::error::{Error, Result};
pub use crate::model::family::{
    BloomType, COMPACTION_POLICY_KEY, CompactionPolicy, Compression, DataBlockEncoding,
    FamilyDescriptor, KeepDeletedCells, ROW_PREFIX_LENGTH_KEY, decode_family, encode_family,
};
use crate::model::family::{apply_family_attribute, check_decoded_family, family_attributes};
use crate::model::mutation::Durability;
use crate::model::region_split_policy::RegionSplitPolicy;
use crate::model::rowkey::SplitAlgorithm;

/// Checks a table name: an optional namespace and `:` (HBase's `ns:qualifier`, the namespace
/// as [`crate::model::namespace::validate_namespace_name`] checks it), then a qualifier of
/// `[A-Za-z0-9_.-]+`, not starting with `.` or `-`, at most 255 bytes.
pub fn validate_table_name(name: &str) -> Result<()> {
    let (ns, qualifier) = match name.split_once(':') {
        Some((ns, q)) => (Some(ns), q),
        None => (None, name),
    };
    if let Some(ns) = ns {
        crate::model::namespace::validate_namespace_name(ns).map_err(|e| match e {
            Error::InvalidArgument(m) => {
                Error::invalid(format!("illegal table name {name:?}: {m}"))
            }
            other => other,
        })?;
    }
    let ok = !qualifier.is_empty()
        && qualifier.len() <= 255
        && !qualifier.starts_with('.')
        && !qualifier.starts_with('-')
        && qualifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "illegal table name {name:?}: use 1..=255 of [A-Za-z0-9_.-], not starting with '.' or '-'"
        )))
    }
}

/// The most regions a table may be created with (`NUMREGIONS`, or `SPLITS` + 1).
///
/// HBase has no such limit, but its guidance is tens to a few hundred regions per server
/// (HBase book, "Number of regions per RS - upper bound"). Each region costs memory and work at
/// every open, so `NUMREGIONS => 2000000` made every later open of the database take 10 s and
/// 2.6 GB (issue 21, item 8); creation past this limit is refused with
/// [`Error::InvalidArgument`]. Regions created later by splits are not counted here.
pub const MAX_REGIONS_PER_TABLE: u32 = 10_000;

/// A table's schema and table-level settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableDescriptor {
    name: String,
    families: Vec<FamilyDescriptor>,
    max_region_size: Option<u64>,
    memstore_flush_size: Option<u64>,
    split_keys: Vec<Vec<u8>>,
    pre_split: Option<(SplitAlgorithm, u32)>,
    split_policy: RegionSplitPolicy,
    /// `COMPACTION_ENABLED` (default true).
    compaction_enabled: bool,
    /// `NORMALIZATION_ENABLED` (default false).
    normalization_enabled: bool,
    /// `NORMALIZER_TARGET_REGION_COUNT` (unset: the normalizer uses the average size).
    normalizer_target_region_count: Option<u32>,
    /// `NORMALIZER_TARGET_REGION_SIZE_MB` (unset: the normalizer uses the average size).
    normalizer_target_region_size_mb: Option<u64>,
    /// `DURABILITY`; `None` is HBase's `USE_DEFAULT` (the database's durability).
    durability: Option<Durability>,
}

impl TableDescriptor {
    /// A table with no families yet. `name` may carry a namespace (`ns:t`); `default:t` is
    /// kept as `t`, the same table (HBase's `TableName`).
    pub fn new(name: &str) -> Self {
        TableDescriptor {
            name: crate::model::namespace::normalize_table_name(name).to_string(),
            families: Vec::new(),
            max_region_size: None,
            memstore_flush_size: None,
            split_keys: Vec::new(),
            pre_split: None,
            split_policy: RegionSplitPolicy::default(),
            compaction_enabled: true,
            normalization_enabled: false,
            normalizer_target_region_count: None,
            normalizer_target_region_size_mb: None,
            durability: None,
        }
    }
    /// `COMPACTION_ENABLED`: when false no compaction of the table runs, neither the
    /// automatic ones nor those asked for (HBase's `CompactSplit.requestCompactionInternal`
    /// returns early for such a table); flushes and splits go on.
    pub fn compaction_enabled(mut self, yes: bool) -> Self {
        self.compaction_enabled = yes;
        self
    }
    /// Whether compactions of the table run (`COMPACTION_ENABLED`, default true).
    pub fn is_compaction_enabled(&self) -> bool {
        self.compaction_enabled
    }
    /// `NORMALIZATION_ENABLED`: whether the region normalizer may split and merge the table's
    /// regions (default false, as in HBase).
    pub fn normalization_enabled(mut self, yes: bool) -> Self {
        self.normalization_enabled = yes;
        self
    }
    /// Whether the region normalizer works on this table (`NORMALIZATION_ENABLED`).
    pub fn is_normalization_enabled(&self) -> bool {
        self.normalization_enabled
    }
    /// `NORMALIZER_TARGET_REGION_COUNT`: the region normalizer aims at this many regions
    /// (their average size is the table's size over this count), unless a target size is
    /// set (HBase's `TableDescriptor#getNormalizerTargetRegionCount`).
    pub fn normalizer_target_region_count(mut self, regions: u32) -> Self {
        self.normalizer_target_region_count = Some(regions);
        self
    }
    /// The table's `NORMALIZER_TARGET_REGION_COUNT`, if set.
    pub fn table_normalizer_target_region_count(&self) -> Option<u32> {
        self.normalizer_target_region_count
    }
    /// `NORMALIZER_TARGET_REGION_SIZE_MB`: the region normalizer takes this as the regions'
    /// average size (it wins over the target count; HBase's
    /// `TableDescriptor#getNormalizerTargetRegionSize`).
    pub fn normalizer_target_region_size_mb(mut self, mb: u64) -> Self {
        self.normalizer_target_region_size_mb = Some(mb);
        self
    }
    /// The table's `NORMALIZER_TARGET_REGION_SIZE_MB`, if set.
    pub fn table_normalizer_target_region_size_mb(&self) -> Option<u64> {
        self.normalizer_target_region_size_mb
    }
    /// Sets or unsets `NORMALIZER_TARGET_REGION_COUNT`.
    pub(crate) fn set_normalizer_target_region_count(&mut self, regions: Option<u32>) {
        self.normalizer_target_region_count = regions;
    }
    /// Sets or unsets `NORMALIZER_TARGET_REGION_SIZE_MB`.
    pub(crate) fn set_normalizer_target_region_size_mb(&mut self, mb: Option<u64>) {
        self.normalizer_target_region_size_mb = mb;
    }
    /// `DURABILITY`: the durability of the table's writes that do not set their own (HBase's
    /// `USE_DEFAULT` on a mutation means the table's; the table's default is the database's
    /// [`crate::DbOptions::durability`]).
    pub fn durability(mut self, d: Durability) -> Self {
        self.durability = Some(d);
        self
    }
    /// The table's own durability, if set (`None`: HBase's `USE_DEFAULT`).
    pub fn table_durability(&self) -> Option<Durability> {
        self.durability
    }
    /// Sets `COMPACTION_ENABLED`.
    pub(crate) fn set_compaction_enabled(&mut self, yes: bool) {
        self.compaction_enabled = yes;
    }
    /// Sets `NORMALIZATION_ENABLED`.
    pub(crate) fn set_normalization_enabled(&mut self, yes: bool) {
        self.normalization_enabled = yes;
    }
    /// Sets or unsets `DURABILITY`.
    pub(crate) fn set_durability(&mut self, d: Option<Durability>) {
        self.durability = d;
    }
    /// SPLIT_POLICY: when the table's regions split and where (default Stepping, HBase's
    /// default) [SPLIT-1] [SPLIT-2].
    pub fn split_policy(mut self, policy: RegionSplitPolicy) -> Self {
        self.split_policy = policy;
        self
    }
    /// The table's split policy.
    pub fn table_split_policy(&self) -> &RegionSplitPolicy {
        &self.split_policy
    }
    /// Pre-splits the table at these keys: N-1 keys give N regions `['', k1) … [kN-1, '')`
    /// (sorted at create; empty or duplicate keys are rejected there) [PRESPLIT-1].
    pub fn split_keys<K: AsRef<[u8]>>(mut self, keys: impl IntoIterator<Item = K>) -> Self {
        self.split_keys = keys.into_iter().map(|k| k.as_ref().to_vec()).collect();
        self
    }
    /// The same schema with no initial split: one region (HBase's `cloneTableSchema` without
    /// `preserveSplits`).
    pub(crate) fn without_splits(mut self) -> Self {
        self.split_keys.clear();
        self.pre_split = None;
        self
    }
    /// Pre-splits the table into `regions` regions with HBase's RegionSplitter arithmetic
    /// (`NUMREGIONS` / `SPLITALGO`) [PRESPLIT-2]. Cannot be combined with `split_keys`.
    pub fn pre_split(mut self, algorithm: SplitAlgorithm, regions: u32) -> Self {
        self.pre_split = Some((algorithm, regions));
        self
    }
    /// The split keys the table is created with: explicit keys sorted, or the pre-split
    /// algorithm's keys.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for empty or duplicate keys, both kinds of pre-split, a
    /// pre-split into fewer than 2 regions, or more than [`MAX_REGIONS_PER_TABLE`] regions.
    pub fn initial_split_keys(&self) -> Result<Vec<Vec<u8>>> {
        let too_many = |n: u64| {
            Error::invalid(format!(
                "a table may be created with at most {MAX_REGIONS_PER_TABLE} regions \
                 (MAX_REGIONS_PER_TABLE), asked for {n}"
            ))
        };
        match self.pre_split {
            Some(_) if !self.split_keys.is_empty() => Err(Error::invalid(
                "use either split_keys (SPLITS) or pre_split (NUMREGIONS/SPLITALGO), not both",
            )),
            Some((_, n)) if n > MAX_REGIONS_PER_TABLE => Err(too_many(u64::from(n))),
            Some((alg, n)) => crate::model::rowkey::split_keys_checked(alg, n),
            None if self.split_keys.len() >= MAX_REGIONS_PER_TABLE as usize => {
                Err(too_many(self.split_keys.len() as u64 + 1))
            }
            None => {
                let mut keys = self.split_keys.clone();
                keys.sort();
                if keys.iter().any(Vec::is_empty) {
                    return Err(Error::invalid(
                        "Empty split key must not be passed in the split keys.",
                    ));
                }
                if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
                    return Err(Error::invalid(format!(
                        "All split keys must be unique, found duplicate: {}",
                        crate::base::util::to_string_binary(&w[0])
                    )));
                }
                if keys.iter().any(|k| k.len() > 32767) {
                    return Err(Error::invalid(
                        "split keys are row keys: at most 32767 bytes",
                    ));
                }
                Ok(keys)
            }
        }
    }
    /// Adds a family.
    pub fn family(mut self, f: FamilyDescriptor) -> Self {
        self.families.push(f);
        self
    }
    /// Split threshold for this table (overrides [`crate::DbOptions::max_region_size`]).
    pub fn max_region_size(mut self, bytes: u64) -> Self {
        self.max_region_size = Some(bytes);
        self
    }
    /// Memstore flush size for this table (overrides [`crate::DbOptions::memstore_flush_size`]).
    pub fn memstore_flush_size(mut self, bytes: u64) -> Self {
        self.memstore_flush_size = Some(bytes);
        self
    }
    /// The table name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The same schema under another table name (a clone of a snapshot).
    pub(crate) fn renamed(mut self, name: &str) -> Self {
        self.name = name.to_string();
        self
    }
    /// The families in the order they were added.
    pub fn families(&self) -> &[FamilyDescriptor] {
        &self.families
    }
    /// The table's own split threshold, if set.
    pub fn table_max_region_size(&self) -> Option<u64> {
        self.max_region_size
    }
    /// The table's own flush size, if set.
    pub fn table_memstore_flush_size(&self) -> Option<u64> {
        self.memstore_flush_size
    }
    /// The family named `name`.
    pub fn get_family(&self, name: &[u8]) -> Option<&FamilyDescriptor> {
        self.families.iter().find(|f| f.name == name)
    }

    /// Adds `f` or replaces the family of the same name.
    pub(crate) fn upsert_family(&mut self, f: FamilyDescriptor) {
        match self.families.iter_mut().find(|x| x.name == f.name) {
            Some(x) => *x = f,
            None => self.families.push(f),
        }
    }

    /// Removes the family named `name` (no-op when absent).
    pub(crate) fn remove_family(&mut self, name: &[u8]) {
        self.families.retain(|f| f.name != name);
    }

    /// Sets or unsets the table's own split threshold.
    pub(crate) fn set_max_region_size(&mut self, bytes: Option<u64>) {
        self.max_region_size = bytes;
    }

    /// Sets the table's split policy.
    pub(crate) fn set_split_policy(&mut self, policy: RegionSplitPolicy) {
        self.split_policy = policy;
    }

    /// Sets or unsets the table's own memstore flush size.
    pub(crate) fn set_memstore_flush_size(&mut self, bytes: Option<u64>) {
        self.memstore_flush_size = bytes;
    }

    /// Checks the name, families and settings [DESC-3].
    pub fn validate(&self) -> Result<()> {
        validate_table_name(&self.name)?;
        if self.families.is_empty() {
            return Err(Error::invalid(format!(
                "table {} must have at least one family",
                self.name
            )));
        }
        for (i, f) in self.families.iter().enumerate() {
            f.validate()?;
            if self.families[..i].iter().any(|g| g.name == f.name) {
                return Err(Error::invalid(format!(
                    "duplicate family {} in table {}",
                    String::from_utf8_lossy(&f.name),
                    self.name
                )));
            }
        }
        self.split_policy.validate()?;
        if self.normalizer_target_region_count == Some(0)
            || self.normalizer_target_region_size_mb == Some(0)
        {
            return Err(Error::invalid(
                "NORMALIZER_TARGET_REGION_COUNT and NORMALIZER_TARGET_REGION_SIZE_MB must be > 0 \
                 (unset them to use the average region size)",
            ));
        }
        if self.max_region_size == Some(0) || self.memstore_flush_size == Some(0) {
            return Err(Error::invalid(
                "max_region_size and memstore_flush_size must be > 0",
            ));
        }
        self.initial_split_keys().map(|_| ())
    }

    /// The table attributes stored by name in encoding version 4, each only when it is not
    /// the default.
    fn table_attributes(&self) -> Vec<(&'static str, String)> {
        let mut a = Vec::new();
        if !self.compaction_enabled {
            a.push(("COMPACTION_ENABLED", "false".to_string()));
        }
        if self.normalization_enabled {
            a.push(("NORMALIZATION_ENABLED", "true".to_string()));
        }
        if let Some(n) = self.normalizer_target_region_count {
            a.push(("NORMALIZER_TARGET_REGION_COUNT", n.to_string()));
        }
        if let Some(n) = self.normalizer_target_region_size_mb {
            a.push(("NORMALIZER_TARGET_REGION_SIZE_MB", n.to_string()));
        }
        if let Some(d) = self.durability {
            a.push(("DURABILITY", d.hbase_name().to_string()));
        }
        a
    }

    /// Applies one decoded table attribute; the error names what is wrong.
    fn apply_table_attribute(
        &mut self,
        key: &str,
        value: &str,
    ) -> std::result::Result<(), &'static str> {
        let boolean = |v: &str| match v {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err("table attribute value is not true or false"),
        };
        match key {
            "COMPACTION_ENABLED" => self.compaction_enabled = boolean(value)?,
            "NORMALIZATION_ENABLED" => self.normalization_enabled = boolean(value)?,
            "NORMALIZER_TARGET_REGION_COUNT" => {
                self.normalizer_target_region_count = Some(
                    value
                        .parse()
                        .map_err(|_| "table attribute value is not a count")?,
                )
            }
            "NORMALIZER_TARGET_REGION_SIZE_MB" => {
                self.normalizer_target_region_size_mb = Some(
                    value
                        .parse()
                        .map_err(|_| "table attribute value is not a size")?,
                )
            }
            "DURABILITY" => {
                self.durability =
                    Some(Durability::from_hbase_name(value).ok_or("unknown table durability")?)
            }
            _ => return Err("unknown table attribute"),
        }
        Ok(())
    }

    /// Appends the encoding (format version 2: version 1 plus the pre-split; version 3:
    /// version 2 plus the split policy, written only for a policy other than the default, so
    /// databases that never set one stay readable by versions before 3; version 4: version 3
    /// plus table and family attributes by name, written only when one is set).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        let table_attrs = self.table_attributes();
        let family_attrs: Vec<_> = self.families.iter().map(family_attributes).collect();
        let v4 = !table_attrs.is_empty() || family_attrs.iter().any(|a| !a.is_empty());
        let v3 = v4 || self.split_policy != RegionSplitPolicy::default();
        out.push(if v4 {
            4
        } else if v3 {
            3
        } else {
            2
        }); // descriptor encoding version
        codec::put_bytes(out, self.name.as_bytes());
        codec::put_varint(out, opt(self.max_region_size));
        codec::put_varint(out, opt(self.memstore_flush_size));
        codec::put_varint(out, self.families.len() as u64);
        for f in &self.families {
            encode_family(out, f);
        }
        codec::put_varint(out, self.split_keys.len() as u64);
        for k in &self.split_keys {
            codec::put_bytes(out, k);
        }
        match self.pre_split {
            None => out.push(0),
            Some((alg, n)) => {
                out.push(match alg {
                    SplitAlgorithm::HexString => 1,
                    SplitAlgorithm::Uniform => 2,
                    SplitAlgorithm::DecimalString => 3,
                });
                codec::put_varint(out, u64::from(n));
            }
        }
        if v3 {
            self.split_policy.encode_into(out);
        }
        if v4 {
            put_attributes(out, &table_attrs);
            for a in &family_attrs {
                put_attributes(out, a);
            }
        }
    }

    /// Decodes what [`TableDescriptor::encode_into`] wrote.
    pub fn decode(r: &mut Reader<'_>) -> std::result::Result<Self, DecodeError> {
        let v = r.u8("descriptor version")?;
        if !(1..=4).contains(&v) {
            return Err(DecodeError {
                what: "unknown descriptor version",
                offset: r.pos(),
            });
        }
        let name = std::str::from_utf8(r.bytes("table name")?)
            .map_err(|_| DecodeError {
                what: "table name not UTF-8",
                offset: r.pos(),
            })?
            .to_string();
        let max_region_size = unopt(r.varint("max region size")?);
        let memstore_flush_size = unopt(r.varint("flush size")?);
        let n = r.len(4096, "family count")?;
        let mut families = Vec::with_capacity(n);
        for _ in 0..n {
            families.push(decode_family(r)?);
        }
        let (mut split_keys, mut pre_split) = (Vec::new(), None);
        if v >= 2 {
            let n = r.len(r.remaining(), "split key count")?;
            for _ in 0..n {
                split_keys.push(r.bytes("split key")?.to_vec());
            }
            pre_split = match r.u8("pre-split algorithm")? {
                0 => None,
                code => {
                    let alg = match code {
                        1 => SplitAlgorithm::HexString,
                        2 => SplitAlgorithm::Uniform,
                        3 => SplitAlgorithm::DecimalString,
                        _ => {
                            return Err(DecodeError {
                                what: "unknown split algorithm",
                                offset: r.pos(),
                            });
                        }
                    };
                    let n = u32::try_from(r.varint("region count")?).map_err(|_| DecodeError {
                        what: "region count",
                        offset: r.pos(),
                    })?;
                    Some((alg, n))
                }
            };
        }
        let split_policy = if v >= 3 {
            RegionSplitPolicy::decode(r)?
        } else {
            RegionSplitPolicy::default()
        };
        let mut d = TableDescriptor {
            name,
            families,
            max_region_size,
            memstore_flush_size,
            split_keys,
            pre_split,
            split_policy,
            compaction_enabled: true,
            normalization_enabled: false,
            normalizer_target_region_count: None,
            normalizer_target_region_size_mb: None,
            durability: None,
        };
        if v >= 4 {
            for (k, v) in get_attributes(r)? {
                d.apply_table_attribute(&k, &v)
                    .map_err(|what| DecodeError {
                        what,
                        offset: r.pos(),
                    })?;
            }
            for f in &mut d.families {
                for (k, v) in get_attributes(r)? {
                    apply_family_attribute(f, &k, &v).map_err(|what| DecodeError {
                        what,
                        offset: r.pos(),
                    })?;
                }
            }
        }
        for f in &d.families {
            check_decoded_family(f).map_err(|what| DecodeError {
                what,
                offset: r.pos(),
            })?;
        }
        Ok(d)
    }
}

/// Writes `attrs` as a count and (name, value) byte strings.
fn put_attributes(out: &mut Vec<u8>, attrs: &[(&'static str, String)]) {
    codec::put_varint(out, attrs.len() as u64);
    for (k, v) in attrs {
        codec::put_bytes(out, k.as_bytes());
        codec::put_bytes(out, v.as_bytes());
    }
}

/// Reads what [`put_attributes`] wrote.
fn get_attributes(r: &mut Reader<'_>) -> std::result::Result<Vec<(String, String)>, DecodeError> {
    let n = r.len(r.remaining(), "attribute count")?;
    let mut out = Vec::with_capacity(n.min(64));
    for _ in 0..n {
        let mut text = |what| {
            let at = r.pos();
            String::from_utf8(r.bytes(what)?.to_vec()).map_err(|_| DecodeError { what, offset: at })
        };
        let k = text("attribute name")?;
        let v = text("attribute value")?;
        out.push((k, v));
    }
    Ok(out)
}

fn opt(v: Option<u64>) -> u64 {
    v.map_or(0, |x| x.saturating_add(1).max(1))
}

fn unopt(v: u64) -> Option<u64> {
    if v == 0 { None } else { Some(v - 1) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::family::validate_family_name;
    use std::time::Duration;

    #[test]
    fn issue21_absurd_region_counts_are_refused_at_creation() {
        // Issue 21, item 8: NUMREGIONS => 2000000 was accepted and every later open took 10 s
        // and 2.6 GB. Refused before a single split key is computed.
        let fam = || FamilyDescriptor::new("f");
        let t = TableDescriptor::new("t").family(fam());
        let m = match t
            .clone()
            .pre_split(crate::SplitAlgorithm::HexString, 2_000_000)
            .validate()
        {
            Err(Error::InvalidArgument(m)) => m,
            other => panic!("expected InvalidArgument, got {other:?}"),
        };
        assert!(
            m.contains("at most 10000 regions") && m.contains("2000000"),
            "{m}"
        );
        let keys: Vec<String> = (0..MAX_REGIONS_PER_TABLE)
            .map(|i| format!("{i:08}"))
            .collect();
        let m = match t.clone().split_keys(&keys).validate() {
            Err(Error::InvalidArgument(m)) => m,
            other => panic!("expected InvalidArgument, got {other:?}"),
        };
        assert!(
            m.contains("MAX_REGIONS_PER_TABLE") && m.contains("10001"),
            "{m}"
        );
        // At the limit: accepted.
        t.clone()
            .pre_split(crate::SplitAlgorithm::HexString, MAX_REGIONS_PER_TABLE)
            .validate()
            .unwrap();
        t.split_keys(&keys[1..]).validate().unwrap();
    }

    #[test]
    fn descriptor_round_trips() {
        let d = TableDescriptor::new("t1")
            .family(
                FamilyDescriptor::new("f")
                    .max_versions(3)
                    .min_versions(1)
                    .ttl(Duration::from_secs(60))
                    .keep_deleted_cells(KeepDeletedCells::Ttl)
                    .bloom_filter(BloomType::RowCol)
                    .compression(Compression::Snappy)
                    .block_size(4096)
                    .in_memory(true)
                    .block_cache(false),
            )
            .family(FamilyDescriptor::new("g"))
            .memstore_flush_size(1 << 20);
        let mut b = Vec::new();
        d.encode_into(&mut b);
        let back = TableDescriptor::decode(&mut Reader::new(&b)).unwrap();
        assert_eq!(back, d);
        assert_eq!(b[0], 2, "no attribute set: the version older readers know");
    }

    /// Version 4: table attributes by name; a name or value this version does not know is a
    /// decode error naming it, never ignored.
    #[test]
    fn attributes_round_trip_and_unknown_ones_are_refused() {
        use crate::model::mutation::Durability;
        let d = TableDescriptor::new("t")
            .family(FamilyDescriptor::new("f"))
            .compaction_enabled(false)
            .normalization_enabled(true)
            .durability(Durability::AsyncWal);
        let mut b = Vec::new();
        d.encode_into(&mut b);
        assert_eq!(b[0], 4);
        let back = TableDescriptor::decode(&mut Reader::new(&b)).unwrap();
        assert_eq!(back, d);
        assert!(!back.is_compaction_enabled() && back.is_normalization_enabled());
        assert_eq!(back.table_durability(), Some(Durability::AsyncWal));
        for (from, to, what) in [
            (
                &b"COMPACTION_ENABLED"[..],
                &b"COMPACTION_ENABLEX"[..],
                "unknown table attribute",
            ),
            (b"ASYNC_WAL", b"ASYNC_WAX", "unknown table durability"),
            (
                b"true",
                b"yes!",
                "table attribute value is not true or false",
            ),
        ] {
            let at = b.windows(from.len()).position(|w| w == from).unwrap();
            let mut bad = b.clone();
            bad[at..at + from.len()].copy_from_slice(to);
            let e = TableDescriptor::decode(&mut Reader::new(&bad)).unwrap_err();
            assert_eq!(e.what, what);
        }
    }

    /// [LIM-2] family names; [VER-1] versions; [DESC-3] block size and TTL.
    #[test]
    fn validation_rejects_bad_settings() {
        for bad in [
            &b""[..],
            b".x",
            b"a:b",
            b"a/b",
            b"a\\b",
            b"a\nb",
            b"recovered.edits",
            &[b'x'; 128],
        ] {
            assert!(validate_family_name(bad).is_err(), "{bad:?}");
        }
        validate_family_name(&[b'x'; 127]).unwrap();
        assert!(
            FamilyDescriptor::new("f")
                .max_versions(0)
                .validate()
                .is_err()
        );
        assert!(
            FamilyDescriptor::new("f")
                .max_versions(1)
                .min_versions(2)
                .validate()
                .is_err()
        );
        assert!(
            FamilyDescriptor::new("f")
                .block_size(100)
                .validate()
                .is_err()
        );
        assert!(
            FamilyDescriptor::new("f")
                .ttl(Duration::from_millis(1500))
                .validate()
                .is_err()
        );
        assert!(
            FamilyDescriptor::new("f")
                .ttl(Duration::ZERO)
                .validate()
                .is_err()
        );
        for bad in [
            "", ".t", "-t", "a b", "a/b", "a-b:c", ":t", "ns:", "ns:.t", "a:b:c",
        ] {
            assert!(validate_table_name(bad).is_err(), "{bad}");
        }
        validate_table_name("ns_t-1.x").unwrap();
        // HBase's `ns:qualifier` (TableName.isLegalFullyQualifiedTableName).
        validate_table_name("ns_1:t-1.x").unwrap();
        assert_eq!(TableDescriptor::new("default:t").name(), "t");
        assert!(TableDescriptor::new("t").validate().is_err());
        let dup = TableDescriptor::new("t")
            .family(FamilyDescriptor::new("f"))
            .family(FamilyDescriptor::new("f"));
        assert!(dup.validate().is_err());
    }
}
