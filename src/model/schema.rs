//! Schema descriptors (HBase's `TableDescriptor` / `ColumnFamilyDescriptor`), their validation
//! [LIM-2], [VER-1], [TTL-1], [DESC-3] and their byte encoding for the manifest.

use crate::base::codec::{self, DecodeError, Reader};
use crate::base::error::{Error, Result};
use crate::model::region_split_policy::RegionSplitPolicy;
use crate::model::rowkey::SplitAlgorithm;
use std::time::Duration;

/// Bloom filter kind of a family [BLOOM-1].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BloomType {
    /// No Bloom filter.
    None,
    /// Keyed by row; consulted by Gets [BLOOM-3].
    #[default]
    Row,
    /// Keyed by row + qualifier; consulted by single-column Gets [BLOOM-4].
    RowCol,
}

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
    /// BLOCKSIZE in bytes, 1 KiB ..= 16 MiB.
    pub block_size: u32,
    /// IN_MEMORY: blocks get the block cache's in-memory priority share.
    pub in_memory: bool,
    /// BLOCKCACHE: data blocks are cached.
    pub block_cache: bool,
    /// The compaction policy of the family's stores
    /// (`hbase.hstore.defaultengine.compactionpolicy.class`).
    pub compaction_policy: CompactionPolicy,
}

/// How a family's store files are compacted (HBase's
/// `hbase.hstore.defaultengine.compactionpolicy.class`).
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
        }
    }

    /// The policy of an HBase class name (fully qualified or the simple name).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another class (date-tiered, ratio-based, ...).
    pub fn from_hbase_class(class: &str) -> Result<CompactionPolicy> {
        let simple = class.rsplit('.').next().unwrap_or(class);
        match simple {
            "ExploringCompactionPolicy" => Ok(CompactionPolicy::Exploring),
            "FIFOCompactionPolicy" => Ok(CompactionPolicy::Fifo),
            _ => Err(Error::invalid(format!(
                "compaction policy {class} is not supported by cellbase (ExploringCompactionPolicy, FIFOCompactionPolicy)"
            ))),
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
            block_size: 65536,
            in_memory: false,
            block_cache: true,
            compaction_policy: CompactionPolicy::Exploring,
        }
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
        }
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
        if self.max_region_size == Some(0) || self.memstore_flush_size == Some(0) {
            return Err(Error::invalid(
                "max_region_size and memstore_flush_size must be > 0",
            ));
        }
        self.initial_split_keys().map(|_| ())
    }

    /// Appends the encoding (format version 2: version 1 plus the pre-split; version 3:
    /// version 2 plus the split policy, written only for a policy other than the default, so
    /// databases that never set one stay readable by versions before 3).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        let v3 = self.split_policy != RegionSplitPolicy::default();
        out.push(if v3 { 3 } else { 2 }); // descriptor encoding version
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
    }

    /// Decodes what [`TableDescriptor::encode_into`] wrote.
    pub fn decode(r: &mut Reader<'_>) -> std::result::Result<Self, DecodeError> {
        let v = r.u8("descriptor version")?;
        if !(1..=3).contains(&v) {
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
        Ok(TableDescriptor {
            name,
            families,
            max_region_size,
            memstore_flush_size,
            split_keys,
            pre_split,
            split_policy,
        })
    }
}

fn opt(v: Option<u64>) -> u64 {
    v.map_or(0, |x| x.saturating_add(1).max(1))
}

fn unopt(v: u64) -> Option<u64> {
    if v == 0 { None } else { Some(v - 1) }
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
    out.push(match f.bloom_filter {
        BloomType::None => 0,
        BloomType::Row => 1,
        BloomType::RowCol => 2,
    });
    out.push(f.compression.code());
    codec::put_varint(out, u64::from(f.block_size));
    // Bits 2-3: the compaction policy (0 exploring, 1 FIFO); older readers ignore them.
    let policy: u8 = match f.compaction_policy {
        CompactionPolicy::Exploring => 0,
        CompactionPolicy::Fifo => 1,
    };
    out.push(u8::from(f.in_memory) | (u8::from(f.block_cache) << 1) | (policy << 2));
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
        block_size,
        in_memory: flags & 1 != 0,
        block_cache: flags & 2 != 0,
        compaction_policy,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
