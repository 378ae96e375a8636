//! Column family descriptors (HBase's `ColumnFamilyDescriptor`): the family's settings
//! (versions, TTL, KEEP_DELETED_CELLS, Bloom filter, compression, data block encoding, block
//! size and cache, the compaction policy), their validation [LIM-2] [VER-1] [TTL-1] and their byte encoding inside
//! a table descriptor.

use crate::base::codec::{self, DecodeError, Reader};
use crate::base::error::{Error, Result};
use crate::model::block_encoding::DATA_BLOCK_ENCODING_KEY;
pub use crate::model::block_encoding::DataBlockEncoding;
pub use crate::model::bloom_type::{BloomType, ROW_PREFIX_LENGTH_KEY};
use crate::model::store_config::{
    DATE_TIERED_STORE_ENGINE, DateTieredConfig, MAJOR_COMPACTION_JITTER_KEY,
    MAJOR_COMPACTION_PERIOD_KEY, MajorCompactionSettings, STORE_ENGINE_KEY, names_class,
};
use std::time::Duration;

/// Block compression of a family (HBase's COMPRESSION). The codec of every block is recorded
/// in the block's frame, so files written before an `alter` of the codec stay readable
/// (docs/FORMAT.md, section 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Compression {
    /// Uncompressed blocks.
    #[default]
    None,
    /// Snappy-compressed blocks.
    Snappy,
    /// GZ: DEFLATE-compressed blocks (level 6).
    Gz,
    /// LZ4-compressed blocks (block format).
    Lz4,
    /// Zstandard-compressed blocks (level 3, HBase's default ZSTD level).
    Zstd,
}

impl Compression {
    /// Every codec, in code order.
    pub const ALL: [Compression; 5] = [
        Compression::None,
        Compression::Snappy,
        Compression::Gz,
        Compression::Lz4,
        Compression::Zstd,
    ];

    /// The byte that records the codec in descriptors, meta blocks and block frames
    /// (docs/FORMAT.md): 0 NONE, 1 SNAPPY, 2 GZ, 3 LZ4, 4 ZSTD.
    pub(crate) fn code(self) -> u8 {
        match self {
            Compression::None => 0,
            Compression::Snappy => 1,
            Compression::Gz => 2,
            Compression::Lz4 => 3,
            Compression::Zstd => 4,
        }
    }

    /// The codec recorded as `code` ([`Compression::code`]); `None` for an unknown byte.
    pub(crate) fn from_code(code: u8) -> Option<Compression> {
        Compression::ALL.get(usize::from(code)).copied()
    }

    /// HBase's name of the codec, as `describe` prints it: NONE, SNAPPY, GZ, LZ4, ZSTD.
    pub fn hbase_name(self) -> &'static str {
        match self {
            Compression::None => "NONE",
            Compression::Snappy => "SNAPPY",
            Compression::Gz => "GZ",
            Compression::Lz4 => "LZ4",
            Compression::Zstd => "ZSTD",
        }
    }

    /// Parses HBase's `COMPRESSION` value (ASCII case-insensitive, as HBase's
    /// `Compression.Algorithm.valueOf(name.upcase)`): NONE, SNAPPY, GZ, LZ4, ZSTD, and the two
    /// HBase codecs cellbase has no well-kept pure-Rust crate for, stored as the nearest codec
    /// it has: LZO as LZ4 (both fast, light codecs) and BZIP2 as GZ (both slower, denser
    /// ones). The flag is true for those two substitutions, so a shell or gateway can say so
    /// (docs/SEMANTICS.md, "Compression").
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for any other name.
    pub fn from_hbase_name(name: &str) -> Result<(Compression, bool)> {
        let upper = name.to_ascii_uppercase();
        if let Some(c) = Compression::ALL.iter().find(|c| c.hbase_name() == upper) {
            return Ok((*c, false));
        }
        match upper.as_str() {
            "LZO" => Ok((Compression::Lz4, true)),
            "BZIP2" => Ok((Compression::Gz, true)),
            _ => Err(Error::invalid(format!(
                "COMPRESSION {name} is not supported by cellbase (NONE, SNAPPY, GZ, LZ4, ZSTD; \
                 LZO is stored as LZ4 and BZIP2 as GZ)"
            ))),
        }
    }
}

/// KEEP_DELETED_CELLS [KDC-1..6].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum KeepDeletedCells {
    /// Deleted cells are invisible and purged by major compaction.
    #[default]
    False,
    /// Deleted cells stay reachable by time-range reads; only versions and TTL purge them.
    True,
    /// Like `True` until the marker's TTL expires, then like `False`.
    Ttl,
}

/// A column family's settings. Read them through the fields; build with the methods.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct FamilyDescriptor {
    /// Family name: 1..=127 bytes, no `:` `\` `/` or control characters, not starting with `.`.
    pub name: Vec<u8>,
    /// VERSIONS: newest versions kept per column (>= 1).
    pub max_versions: u32,
    /// MIN_VERSIONS: versions kept even when TTL-expired (<= max_versions).
    pub min_versions: u32,
    /// TTL in whole seconds; `None` = FOREVER.
    pub ttl: Option<Duration>,
    /// KEEP_DELETED_CELLS.
    pub keep_deleted_cells: KeepDeletedCells,
    /// BLOOMFILTER.
    pub bloom_filter: BloomType,
    /// COMPRESSION.
    pub compression: Compression,
    /// DATA_BLOCK_ENCODING (HBase's names; [`DataBlockEncoding`] says what each writes).
    pub data_block_encoding: DataBlockEncoding,
    /// BLOCKSIZE in bytes, 1 KiB ..= 16 MiB.
    pub block_size: u32,
    /// IN_MEMORY: blocks get the block cache's in-memory priority share.
    pub in_memory: bool,
    /// BLOCKCACHE: data blocks are cached.
    pub block_cache: bool,
    /// The compaction policy of the family's stores
    /// (`hbase.hstore.defaultengine.compactionpolicy.class`, or the date-tiered store engine
    /// `hbase.hstore.engine.class`).
    pub compaction_policy: CompactionPolicy,
    /// The family's own periodic major compaction settings (`hbase.hregion.majorcompaction`
    /// and its jitter), overriding the database's when set.
    pub major_compaction: MajorCompactionSettings,
}

/// How a family's store files are compacted (HBase's
/// `hbase.hstore.defaultengine.compactionpolicy.class`, or the store engine
/// `hbase.hstore.engine.class` for date-tiered compaction).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum CompactionPolicy {
    /// HBase's default `ExploringCompactionPolicy`: minor compactions of runs of files chosen
    /// by size ratio, majors of every file [REG-1].
    #[default]
    Exploring,
    /// HBase's `FIFOCompactionPolicy`, for TTL'd data: a compaction only deletes the files
    /// whose every cell has expired, never rewriting a byte; nothing else is compacted. Needs
    /// a TTL and MIN_VERSIONS 0 (HBase's rules).
    Fifo,
    /// HBase's `DateTieredCompactionPolicy` (store engine `DateTieredStoreEngine`), for
    /// time-series data: files are compacted within time windows that grow with age, old
    /// windows' files are left alone, and a major compaction writes one file per window.
    DateTiered(DateTieredConfig),
}

/// The configuration key naming a store's compaction policy class.
pub const COMPACTION_POLICY_KEY: &str = "hbase.hstore.defaultengine.compactionpolicy.class";

impl CompactionPolicy {
    /// HBase's class name.
    pub fn hbase_class(self) -> &'static str {
        match self {
            CompactionPolicy::Exploring => {
                "org.apache.hadoop.hbase.regionserver.compactions.ExploringCompactionPolicy"
            }
            CompactionPolicy::Fifo => {
                "org.apache.hadoop.hbase.regionserver.compactions.FIFOCompactionPolicy"
            }
            CompactionPolicy::DateTiered(_) => {
                "org.apache.hadoop.hbase.regionserver.compactions.DateTieredCompactionPolicy"
            }
        }
    }

    /// The policy of an HBase class name (fully qualified or the simple name) given as
    /// `hbase.hstore.defaultengine.compactionpolicy.class`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another class (ratio-based, stripe, ...), and for
    /// `DateTieredCompactionPolicy`: HBase runs it only under the store engine
    /// `hbase.hstore.engine.class` = `DateTieredStoreEngine` (HBase 2's default engine fails
    /// to load it as its policy), so cellbase asks for the engine too.
    pub fn from_hbase_class(class: &str) -> Result<CompactionPolicy> {
        if names_class(class, "ExploringCompactionPolicy") {
            Ok(CompactionPolicy::Exploring)
        } else if names_class(class, "FIFOCompactionPolicy") {
            Ok(CompactionPolicy::Fifo)
        } else if names_class(class, "DateTieredCompactionPolicy") {
            Err(Error::invalid(format!(
                "compaction policy {class} needs the store engine: set {STORE_ENGINE_KEY} to \
                 {DATE_TIERED_STORE_ENGINE} (HBase's default store engine cannot load it)"
            )))
        } else {
            Err(Error::invalid(format!(
                "compaction policy {class} is not supported by cellbase \
                 (ExploringCompactionPolicy, FIFOCompactionPolicy; date-tiered compaction by \
                 {STORE_ENGINE_KEY} => DateTieredStoreEngine)"
            )))
        }
    }

    /// The policy after setting the store engine class (`engine`) and/or the policy class
    /// (`policy`) of a family whose policy is `current`, as HBase decides it:
    /// `DateTieredStoreEngine` runs the date-tiered policy (keeping `current`'s settings when
    /// it already is date-tiered) whatever the policy class; `DefaultStoreEngine` runs the
    /// policy the policy class names (exploring when `current` was date-tiered and none is
    /// named).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another engine (stripe), an unsupported policy class,
    /// the date-tiered policy class without its engine, and a policy class given to a family
    /// whose engine is and stays date-tiered (HBase would silently ignore it).
    pub fn resolve(
        current: CompactionPolicy,
        engine: Option<&str>,
        policy: Option<&str>,
    ) -> Result<CompactionPolicy> {
        let mut next = current;
        if let Some(e) = engine {
            if names_class(e, "DateTieredStoreEngine") {
                if !matches!(current, CompactionPolicy::DateTiered(_)) {
                    next = CompactionPolicy::DateTiered(DateTieredConfig::default());
                }
            } else if names_class(e, "DefaultStoreEngine") {
                if matches!(current, CompactionPolicy::DateTiered(_)) {
                    next = CompactionPolicy::Exploring;
                }
            } else {
                return Err(Error::invalid(format!(
                    "store engine {e} is not supported by cellbase (DefaultStoreEngine, \
                     DateTieredStoreEngine)"
                )));
            }
        }
        if let Some(p) = policy {
            let dt = names_class(p, "DateTieredCompactionPolicy");
            match next {
                CompactionPolicy::DateTiered(_) if dt => {}
                CompactionPolicy::DateTiered(_) => {
                    return Err(Error::invalid(format!(
                        "the family's store engine is {DATE_TIERED_STORE_ENGINE}, which ignores \
                         {COMPACTION_POLICY_KEY}; set {STORE_ENGINE_KEY} to DefaultStoreEngine \
                         to use {p}"
                    )));
                }
                _ => next = CompactionPolicy::from_hbase_class(p)?,
            }
        }
        Ok(next)
    }

    /// HBase's store engine class for this policy.
    pub fn store_engine_class(self) -> &'static str {
        match self {
            CompactionPolicy::DateTiered(_) => DATE_TIERED_STORE_ENGINE,
            _ => crate::model::store_config::DEFAULT_STORE_ENGINE,
        }
    }
}

impl FamilyDescriptor {
    /// A family with HBase's defaults [DESC-1].
    pub fn new(name: impl AsRef<[u8]>) -> Self {
        FamilyDescriptor {
            name: name.as_ref().to_vec(),
            max_versions: 1,
            min_versions: 0,
            ttl: None,
            keep_deleted_cells: KeepDeletedCells::False,
            bloom_filter: BloomType::Row,
            compression: Compression::None,
            data_block_encoding: DataBlockEncoding::None,
            block_size: 65536,
            in_memory: false,
            block_cache: true,
            compaction_policy: CompactionPolicy::Exploring,
            major_compaction: MajorCompactionSettings::default(),
        }
    }
    /// The family's own period of automatic major compactions (`hbase.hregion.majorcompaction`;
    /// zero disables them for the family), instead of
    /// [`crate::DbOptions::major_compaction_period`].
    pub fn major_compaction_period(mut self, period: Duration) -> Self {
        self.major_compaction.period_millis =
            Some(u64::try_from(period.as_millis()).unwrap_or(u64::MAX));
        self
    }
    /// The family's own major compaction jitter (`hbase.hregion.majorcompaction.jitter`,
    /// 0.0 ..= 1.0), instead of [`crate::DbOptions::major_compaction_jitter`]. A value outside
    /// that range is refused by [`FamilyDescriptor::validate`].
    pub fn major_compaction_jitter(mut self, fraction: f64) -> Self {
        self.major_compaction.jitter_millionths =
            Some(crate::model::store_config::jitter_to_millionths(fraction).unwrap_or(u32::MAX));
        self
    }

    /// The family's HBase `CONFIGURATION` entries (as `describe` prints them): the compaction
    /// policy class of a FIFO family, the store engine and the non-default settings of a
    /// date-tiered one, and the family's major compaction settings.
    pub fn configuration(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        match self.compaction_policy {
            CompactionPolicy::Exploring => {}
            CompactionPolicy::Fifo => out.push((
                COMPACTION_POLICY_KEY,
                self.compaction_policy.hbase_class().to_string(),
            )),
            CompactionPolicy::DateTiered(c) => {
                out.push((STORE_ENGINE_KEY, DATE_TIERED_STORE_ENGINE.to_string()));
                out.extend(c.settings());
            }
        }
        out.extend(self.major_compaction.settings());
        // [BLOOM-5] ROWPREFIX_FIXED_LENGTH's prefix length lives in the family's configuration
        // (HBase's `BloomFilterUtil.PREFIX_LENGTH_KEY`).
        if let Some(n) = self.bloom_filter.prefix_length() {
            out.push((ROW_PREFIX_LENGTH_KEY, n.to_string()));
        }
        out
    }

    /// Sets one `CONFIGURATION` entry: the store engine or compaction policy class
    /// ([`CompactionPolicy::resolve`]), a date-tiered setting (the family must be
    /// date-tiered), or a major compaction setting.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an unsupported key or value.
    pub fn set_configuration(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            STORE_ENGINE_KEY => {
                self.compaction_policy =
                    CompactionPolicy::resolve(self.compaction_policy, Some(value), None)?
            }
            COMPACTION_POLICY_KEY => {
                self.compaction_policy =
                    CompactionPolicy::resolve(self.compaction_policy, None, Some(value))?
            }
            MAJOR_COMPACTION_PERIOD_KEY | MAJOR_COMPACTION_JITTER_KEY => {
                self.major_compaction.set(key, value)?
            }
            // [BLOOM-5] the family must have a ROWPREFIX_FIXED_LENGTH filter (its length is
            // checked as HBase's `BloomFilterUtil.getBloomFilterParam` does).
            ROW_PREFIX_LENGTH_KEY => match self.bloom_filter {
                BloomType::RowPrefixFixedLength(_) => {
                    self.bloom_filter =
                        BloomType::from_hbase_name("ROWPREFIX_FIXED_LENGTH", Some(value))?
                }
                other => {
                    return Err(Error::invalid(format!(
                        "family CONFIGURATION key {key} applies only with BLOOMFILTER => \
                         'ROWPREFIX_FIXED_LENGTH' (family {} has BLOOMFILTER => '{}')",
                        String::from_utf8_lossy(&self.name),
                        other.hbase_name()
                    )));
                }
            },
            k if DateTieredConfig::KEYS.contains(&k) => match &mut self.compaction_policy {
                CompactionPolicy::DateTiered(c) => c.set(key, value)?,
                _ => {
                    return Err(Error::invalid(format!(
                        "{key} applies to date-tiered compaction only: set {STORE_ENGINE_KEY} \
                         to {DATE_TIERED_STORE_ENGINE} too"
                    )));
                }
            },
            _ => {
                return Err(Error::invalid(format!(
                    "family CONFIGURATION key {key} is not supported by cellbase ({}, {}, {}, {}, \
                     {} and the date-tiered settings hbase.hstore.compaction.date.tiered.*)",
                    COMPACTION_POLICY_KEY,
                    STORE_ENGINE_KEY,
                    MAJOR_COMPACTION_PERIOD_KEY,
                    MAJOR_COMPACTION_JITTER_KEY,
                    ROW_PREFIX_LENGTH_KEY
                )));
            }
        }
        Ok(())
    }
    /// The compaction policy (default [`CompactionPolicy::Exploring`]).
    pub fn compaction_policy(mut self, p: CompactionPolicy) -> Self {
        self.compaction_policy = p;
        self
    }
    /// VERSIONS (default 1).
    pub fn max_versions(mut self, n: u32) -> Self {
        self.max_versions = n;
        self
    }
    /// MIN_VERSIONS (default 0).
    pub fn min_versions(mut self, n: u32) -> Self {
        self.min_versions = n;
        self
    }
    /// TTL in whole seconds (default FOREVER).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = Some(ttl);
        self
    }
    /// KEEP_DELETED_CELLS (default FALSE).
    pub fn keep_deleted_cells(mut self, k: KeepDeletedCells) -> Self {
        self.keep_deleted_cells = k;
        self
    }
    /// BLOOMFILTER (default ROW).
    pub fn bloom_filter(mut self, b: BloomType) -> Self {
        self.bloom_filter = b;
        self
    }
    /// COMPRESSION (default NONE).
    pub fn compression(mut self, c: Compression) -> Self {
        self.compression = c;
        self
    }
    /// DATA_BLOCK_ENCODING (default NONE). FAST_DIFF and DIFF write the timestamp, type and
    /// sequence id of each cell as deltas from the previous cell's; NONE, PREFIX and
    /// ROW_INDEX_V1 write the prefix-compressed entries cellbase always wrote
    /// ([`DataBlockEncoding`]). Applies to files written from then on.
    pub fn data_block_encoding(mut self, e: DataBlockEncoding) -> Self {
        self.data_block_encoding = e;
        self
    }
    /// BLOCKSIZE (default 65536).
    pub fn block_size(mut self, bytes: u32) -> Self {
        self.block_size = bytes;
        self
    }
    /// IN_MEMORY (default false).
    pub fn in_memory(mut self, yes: bool) -> Self {
        self.in_memory = yes;
        self
    }
    /// BLOCKCACHE (default true).
    pub fn block_cache(mut self, yes: bool) -> Self {
        self.block_cache = yes;
        self
    }
    /// The family name.
    pub fn name(&self) -> &[u8] {
        &self.name
    }

    /// Family TTL in milliseconds, `None` for FOREVER [TTL-1].
    pub fn ttl_millis(&self) -> Option<i64> {
        self.ttl
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
    }

    /// Checks every setting [LIM-2] [VER-1] [TTL-1] [DESC-3].
    pub fn validate(&self) -> Result<()> {
        validate_family_name(&self.name)?;
        let n = String::from_utf8_lossy(&self.name);
        if self.max_versions < 1 {
            return Err(Error::invalid(format!("family {n}: VERSIONS must be >= 1")));
        }
        if self.min_versions > self.max_versions {
            return Err(Error::invalid(format!(
                "family {n}: MIN_VERSIONS ({}) must be <= VERSIONS ({})",
                self.min_versions, self.max_versions
            )));
        }
        if let Some(t) = self.ttl {
            if t.is_zero() || t.subsec_nanos() != 0 {
                return Err(Error::invalid(format!(
                    "family {n}: TTL must be a positive whole number of seconds, got {t:?}"
                )));
            }
            if t.as_secs() > i32::MAX as u64 {
                return Err(Error::invalid(format!(
                    "family {n}: TTL must be at most {} seconds",
                    i32::MAX
                )));
            }
        }
        if self.compaction_policy == CompactionPolicy::Fifo {
            // HBase's TableDescriptorChecker for FIFOCompactionPolicy.
            if self.ttl.is_none() {
                return Err(Error::invalid(format!(
                    "family {n}: Default TTL is not supported for FIFO compaction"
                )));
            }
            if self.min_versions > 0 {
                return Err(Error::invalid(format!(
                    "family {n}: MIN_VERSION > 0 is not supported for FIFO compaction"
                )));
            }
        }
        if let CompactionPolicy::DateTiered(c) = &self.compaction_policy {
            c.validate().map_err(|e| match e {
                Error::InvalidArgument(m) => Error::invalid(format!("family {n}: {m}")),
                other => other,
            })?;
        }
        if self
            .major_compaction
            .jitter_millionths
            .is_some_and(|j| j > 1_000_000)
        {
            return Err(Error::invalid(format!(
                "family {n}: {MAJOR_COMPACTION_JITTER_KEY} must be between 0.0 and 1.0"
            )));
        }
        // [BLOOM-5] HBase's TableDescriptorChecker.checkBloomFilterType.
        self.bloom_filter
            .check()
            .map_err(|m| Error::invalid(format!("family {n}: {m}")))?;
        if !(1024..=16 * 1024 * 1024).contains(&self.block_size) {
            return Err(Error::invalid(format!(
                "family {n}: BLOCKSIZE must be between 1 KiB and 16 MiB, got {}",
                self.block_size
            )));
        }
        Ok(())
    }
}

/// Checks a family name [LIM-2].
pub fn validate_family_name(name: &[u8]) -> Result<()> {
    let shown = String::from_utf8_lossy(name);
    if name.is_empty() {
        return Err(Error::invalid("column family name can not be empty"));
    }
    if name.len() > 127 {
        return Err(Error::invalid(format!(
            "column family name is {} bytes; the limit is 127",
            name.len()
        )));
    }
    if name[0] == b'.' {
        return Err(Error::invalid(format!(
            "column family name {shown:?} must not start with '.'"
        )));
    }
    if name == b"recovered.edits" {
        return Err(Error::invalid(
            "column family name recovered.edits is reserved",
        ));
    }
    if let Some(b) = name
        .iter()
        .find(|&&b| b == b':' || b == b'\\' || b == b'/' || b < 0x20 || b == 0x7f)
    {
        return Err(Error::invalid(format!(
            "column family name {shown:?} contains an illegal character (byte 0x{b:02x})"
        )));
    }
    Ok(())
}

/// Appends a family's encoding.
pub fn encode_family(out: &mut Vec<u8>, f: &FamilyDescriptor) {
    codec::put_bytes(out, &f.name);
    codec::put_varint(out, u64::from(f.max_versions));
    codec::put_varint(out, u64::from(f.min_versions));
    codec::put_varint(out, f.ttl.map_or(0, |t| t.as_secs() + 1));
    out.push(match f.keep_deleted_cells {
        KeepDeletedCells::False => 0,
        KeepDeletedCells::True => 1,
        KeepDeletedCells::Ttl => 2,
    });
    // 3 = ROWPREFIX_FIXED_LENGTH, its prefix length stored as the family attribute
    // `RowPrefixBloomFilter.prefix_length` ([`family_attributes`]).
    out.push(match f.bloom_filter {
        BloomType::None => 0,
        BloomType::Row => 1,
        BloomType::RowCol => 2,
        BloomType::RowPrefixFixedLength(_) => 3,
    });
    out.push(f.compression.code());
    codec::put_varint(out, u64::from(f.block_size));
    // Bits 2-3: the compaction policy (0 exploring, 1 FIFO); older readers ignore them. A
    // date-tiered family writes 0 here and its store engine as a family attribute.
    let policy: u8 = match f.compaction_policy {
        CompactionPolicy::Exploring | CompactionPolicy::DateTiered(_) => 0,
        CompactionPolicy::Fifo => 1,
    };
    out.push(u8::from(f.in_memory) | (u8::from(f.block_cache) << 1) | (policy << 2));
}

/// The family settings stored by name in the table descriptor's encoding version 4 (each only
/// when it is not the default), beside the fixed fields of [`encode_family`]. Settings added
/// after version 3 go here, so that adding one needs no new encoding version.
/// The attributes are the family's HBase `CONFIGURATION` entries
/// ([`FamilyDescriptor::configuration`]) but the FIFO policy class, which the fixed fields
/// hold; the store engine comes before the date-tiered settings it enables. Then
/// `DATA_BLOCK_ENCODING` by its HBase name, unless NONE.
pub(crate) fn family_attributes(f: &FamilyDescriptor) -> Vec<(&'static str, String)> {
    let mut a = f.configuration();
    a.retain(|(k, _)| *k != COMPACTION_POLICY_KEY);
    if f.data_block_encoding != DataBlockEncoding::None {
        a.push((
            DATA_BLOCK_ENCODING_KEY,
            f.data_block_encoding.hbase_name().to_string(),
        ));
    }
    a
}

/// Applies one family setting [`family_attributes`] wrote; the error names what is wrong.
pub(crate) fn apply_family_attribute(
    f: &mut FamilyDescriptor,
    key: &str,
    value: &str,
) -> std::result::Result<(), &'static str> {
    if key == DATA_BLOCK_ENCODING_KEY {
        f.data_block_encoding =
            DataBlockEncoding::from_hbase_name(value).map_err(|_| "unknown data block encoding")?;
        return Ok(());
    }
    f.set_configuration(key, value)
        .map_err(|_| "unknown family attribute or invalid value")
}

/// Checks a decoded family once its attributes are applied: a ROWPREFIX_FIXED_LENGTH bloom
/// (code 3) needs its prefix length attribute.
pub(crate) fn check_decoded_family(f: &FamilyDescriptor) -> std::result::Result<(), &'static str> {
    match f.bloom_filter {
        BloomType::RowPrefixFixedLength(0) => {
            Err("ROWPREFIX_FIXED_LENGTH bloom without its prefix length")
        }
        _ => Ok(()),
    }
}

/// Decodes a family.
pub fn decode_family(r: &mut Reader<'_>) -> std::result::Result<FamilyDescriptor, DecodeError> {
    let bad = |what, r: &Reader<'_>| DecodeError {
        what,
        offset: r.pos(),
    };
    let name = r.bytes("family name")?.to_vec();
    let max_versions = u32::try_from(r.varint("versions")?).map_err(|_| bad("versions", r))?;
    let min_versions =
        u32::try_from(r.varint("min versions")?).map_err(|_| bad("min versions", r))?;
    let ttl = match r.varint("ttl")? {
        0 => None,
        s => Some(Duration::from_secs(s - 1)),
    };
    let keep_deleted_cells = match r.u8("kdc")? {
        0 => KeepDeletedCells::False,
        1 => KeepDeletedCells::True,
        2 => KeepDeletedCells::Ttl,
        _ => return Err(bad("unknown KEEP_DELETED_CELLS code", r)),
    };
    let bloom_filter = match r.u8("bloom")? {
        0 => BloomType::None,
        1 => BloomType::Row,
        2 => BloomType::RowCol,
        // The prefix length follows as a family attribute ([`check_decoded_family`]).
        3 => BloomType::RowPrefixFixedLength(0),
        _ => return Err(bad("unknown bloom type", r)),
    };
    let compression = Compression::from_code(r.u8("compression")?)
        .ok_or_else(|| bad("unknown compression", r))?;
    let block_size = u32::try_from(r.varint("block size")?).map_err(|_| bad("block size", r))?;
    let flags = r.u8("family flags")?;
    let compaction_policy = match (flags >> 2) & 3 {
        0 => CompactionPolicy::Exploring,
        1 => CompactionPolicy::Fifo,
        _ => return Err(bad("unknown compaction policy", r)),
    };
    if flags >> 4 != 0 {
        return Err(bad("unknown family flags", r));
    }
    Ok(FamilyDescriptor {
        name,
        max_versions,
        min_versions,
        ttl,
        keep_deleted_cells,
        bloom_filter,
        compression,
        data_block_encoding: DataBlockEncoding::None,
        block_size,
        in_memory: flags & 1 != 0,
        block_cache: flags & 2 != 0,
        compaction_policy,
        major_compaction: MajorCompactionSettings::default(),
    })
}
