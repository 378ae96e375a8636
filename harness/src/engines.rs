//! One `Engine` implementation per storage engine, all configured from the same `Config`.

use std::path::Path;

/// Boxed error for the harness: every engine error becomes a message.
pub type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// Settings every engine gets the same way.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Config {
    /// Block cache capacity in bytes (same for all).
    pub cache_bytes: u64,
    /// Memtable / write buffer size in bytes (same for all engines that have one).
    pub memtable_bytes: u64,
    /// Background threads for flush and compaction.
    pub background_threads: usize,
    /// cellbase's data block size in KiB (the harness default is 4, as RocksDB and fjall).
    pub cellbase_block_kb: u32,
    /// Block compression of cellbase and RocksDB by HBase's name (`--compression`; default
    /// NONE); fjall and sled stay uncompressed.
    pub compression: String,
    /// Count block cache hits and misses where that is an option that costs speed (RocksDB's
    /// statistics): on with `--memory-limit-mib` only.
    pub statistics: bool,
}

/// YCSB field names: `field0`..`field9`.
pub const FIELDS: [&str; 10] = [
    "field0", "field1", "field2", "field3", "field4", "field5", "field6", "field7", "field8",
    "field9",
];

/// The operations the workloads need. Key-value engines get the YCSB record operations from
/// the provided methods (one serialized record under one key, as YCSB's RocksDB binding stores
/// it; an update is read-modify-write); cellbase overrides them with one row per record and
/// one qualifier per field (as YCSB's HBase binding stores it).
pub trait Engine: Send + Sync {
    /// Writes `key` = `value`; `sync` = fsync before returning.
    fn put(&self, key: &[u8], value: &[u8], sync: bool) -> Res<()>;
    /// Reads `key`; returns the value length when found.
    fn get(&self, key: &[u8]) -> Res<Option<usize>>;
    /// Reads up to `n` entries from the first key >= `start`; returns how many it read.
    fn scan(&self, start: &[u8], n: usize) -> Res<usize>;
    /// Reads every entry in key order; returns how many.
    fn scan_all(&self) -> Res<usize>;
    /// Gets everything acknowledged to the OS (before a simulated crash).
    fn sync_to_os(&self) -> Res<()>;
    /// Writes the memtable out and rewrites every file into one sorted run, waiting until it
    /// is done (the `compact` workload, as db_bench's `compact`).
    fn compact_all(&self) -> Res<()>;
    /// Full value read for the key-value record layout.
    fn get_value(&self, key: &[u8]) -> Res<Option<Vec<u8>>>;
    /// Calls `each` with the value of up to `n` entries from the first key >= `start`;
    /// returns how many it visited.
    fn scan_each(&self, start: &[u8], n: usize, each: &mut dyn FnMut(&[u8])) -> Res<usize>;
    /// Block cache (hits, misses) since open, for engines that count them; `None` otherwise
    /// (fjall 3 counts only with its experimental `metrics` cargo feature, which the harness
    /// leaves off; sled has no such counters).
    fn cache_counts(&self) -> Option<(u64, u64)> {
        None
    }

    /// YCSB insert of a whole record.
    fn rec_insert(&self, key: &[u8], fields: &[Vec<u8>]) -> Res<()> {
        self.put(key, &serialize(fields.iter().map(|v| v.as_slice())), false)
    }
    /// YCSB read of all fields; returns the field count.
    fn rec_read(&self, key: &[u8]) -> Res<usize> {
        Ok(match self.get_value(key)? {
            Some(v) => deserialize(&v).len(),
            None => 0,
        })
    }
    /// YCSB update of one field (read-modify-write of the serialized record).
    fn rec_update(&self, key: &[u8], field: usize, value: &[u8]) -> Res<()> {
        let mut rec: Vec<Vec<u8>> = match self.get_value(key)? {
            Some(v) => deserialize(&v)
                .into_iter()
                .map(|(_, v)| v.to_vec())
                .collect(),
            None => Vec::new(),
        };
        if rec.len() < FIELDS.len() {
            rec.resize(FIELDS.len(), Vec::new());
        }
        rec[field] = value.to_vec();
        self.put(key, &serialize(rec.iter().map(|v| v.as_slice())), false)
    }
    /// YCSB scan of `n` records from `start`; returns how many. Each record is read the way
    /// [`Engine::rec_read`] reads one (its value copied out and its fields decoded), as YCSB's
    /// RocksDB binding does for every record of a scan (`deserializeValues` of each
    /// `iterator.value()`).
    fn rec_scan(&self, start: &[u8], n: usize) -> Res<usize> {
        self.scan_each(start, n, &mut |v| {
            let v = v.to_vec();
            std::hint::black_box(deserialize(&v).len());
        })
    }
}

/// YCSB RocksDB binding's record layout: per field, u32 name length, name, u32 value length,
/// value (big-endian lengths).
pub fn serialize<'a>(values: impl Iterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut out = Vec::with_capacity(1100);
    for (i, v) in values.enumerate() {
        let name = FIELDS[i].as_bytes();
        out.extend_from_slice(&(name.len() as u32).to_be_bytes());
        out.extend_from_slice(name);
        out.extend_from_slice(&(v.len() as u32).to_be_bytes());
        out.extend_from_slice(v);
    }
    out
}

/// Inverse of [`serialize`].
pub fn deserialize(mut b: &[u8]) -> Vec<(&[u8], &[u8])> {
    fn take<'a>(b: &mut &'a [u8]) -> Option<&'a [u8]> {
        let n = u32::from_be_bytes(b.get(..4)?.try_into().ok()?) as usize;
        let s = b.get(4..4 + n)?;
        *b = &b[4 + n..];
        Some(s)
    }
    let mut out = Vec::with_capacity(10);
    while let (Some(k), Some(v)) = (take(&mut b), take(&mut b)) {
        out.push((k, v));
    }
    out
}

/// Names of the engines, in report order.
pub const ENGINES: [&str; 4] = ["cellbase", "rocksdb", "fjall", "sled"];

/// Opens engine `name` in `dir` (`ycsb` = the record layout's schema for cellbase).
pub fn open(name: &str, dir: &Path, cfg: &Config, ycsb: bool) -> Res<Box<dyn Engine>> {
    Ok(match name {
        "cellbase" => Box::new(Cellbase::open(dir, cfg, ycsb)?),
        #[cfg(feature = "rocksdb")]
        "rocksdb" => Box::new(Rocks::open(dir, cfg)?),
        #[cfg(not(feature = "rocksdb"))]
        "rocksdb" => return Err("built without the `rocksdb` feature".into()),
        "fjall" => Box::new(Fjall::open(dir, cfg)?),
        "sled" => Box::new(Sled::open(dir, cfg)?),
        other => return Err(format!("unknown engine {other:?}").into()),
    })
}

/// cellbase's codec for `--compression` (HBase's name), `None` for a name it does not know.
fn codec(cfg: &Config) -> Option<cellbase::Compression> {
    cellbase::Compression::from_hbase_name(&cfg.compression)
        .ok()
        .map(|(c, _)| c)
}

/// The codec and level cellbase writes blocks with (src/storage/sst/compress.rs).
fn cellbase_codec_text(cfg: &Config) -> &'static str {
    use cellbase::Compression as C;
    match codec(cfg) {
        Some(C::None) => "NONE",
        Some(C::Snappy) => "SNAPPY (snap crate)",
        Some(C::Gz) => "GZ (raw DEFLATE level 6, flate2 with miniz_oxide)",
        Some(C::Lz4) => "LZ4 (block format, lz4_flex)",
        Some(C::Zstd) => "ZSTD (level 3, libzstd)",
        None => "(invalid)",
    }
}

/// RocksDB's compression type for `--compression`, and how the report names it with the level
/// RocksDB's default `CompressionOptions::level` (`kDefaultCompressionLevel`) stands for.
fn rocksdb_codec_text(cfg: &Config) -> &'static str {
    use cellbase::Compression as C;
    match codec(cfg) {
        Some(C::None) => "None",
        Some(C::Snappy) => "Snappy",
        Some(C::Gz) => "Zlib (raw DEFLATE, window_bits -14, Z_DEFAULT_COMPRESSION = level 6)",
        Some(C::Lz4) => "Lz4 (LZ4 fast, acceleration 1)",
        Some(C::Zstd) => "Zstd (ZSTD_CLEVEL_DEFAULT = level 3)",
        None => "(invalid)",
    }
}

/// Each engine's settings as printed in the report.
pub fn describe(name: &str, cfg: &Config) -> String {
    let cache = cfg.cache_bytes >> 20;
    let mem = cfg.memtable_bytes >> 20;
    let bg = cfg.background_threads;
    match name {
        "cellbase" => format!(
            "block cache {cache} MiB, memstore flush size {mem} MiB, global memstore bound \
             {bound} MiB with lower limit {CB_GLOBAL_LOWER_LIMIT} (flushes start when all \
             memstores together hold {low} MiB and writes wait at {bound} MiB, as RocksDB \
             flushes at write_buffer_size and stalls at its default max_write_buffer_number 2 x \
             write_buffer_size), {bg} background threads, compression {}, Bloom ROW, block \
             size {} KiB, Durability::SyncWal (log written to the OS per write, no fsync); \
             fillsync: Durability::FsyncWal",
            cellbase_codec_text(cfg),
            cfg.cellbase_block_kb,
            bound = CB_GLOBAL_MEMTABLES * mem,
            low = (CB_GLOBAL_MEMTABLES * mem) as f64 * CB_GLOBAL_LOWER_LIMIT,
        ),
        "rocksdb" => format!(
            "LRU block cache {cache} MiB, write_buffer_size {mem} MiB, max_background_jobs {bg}, \
             compression {}, Bloom 10 bits/key, block size 4 KiB (default), WAL on, \
             WriteOptions.sync=false; fillsync: sync=true",
            rocksdb_codec_text(cfg)
        ),
        "fjall" => format!(
            "cache {cache} MiB, max_memtable_size {mem} MiB, {bg} worker threads, data/index \
             block compression {}, default Bloom, block size 4 KiB (default), journal on, \
             no persist per write; fillsync: persist(SyncData) after each write",
            if fjall_lz4(cfg) {
                "LZ4 (fjall's only codec; lz4_flex)"
            } else {
                "disabled (fjall has only LZ4: on with --compression LZ4)"
            }
        ),
        "sled" => format!(
            "cache_capacity {cache} MiB, compression off (default, whatever --compression \
             says), flush_every_ms 500 \
             (default); fillsync: flush() then fdatasync of its data file after each write \
             (sled's flush() writes with sync_file_range on Linux, which neither flushes the \
             drive's write cache nor the file's metadata: not an fsync on its own)"
        ),
        _ => String::new(),
    }
}

// ---------------------------------------------------------------------------------------------

struct Cellbase {
    db: cellbase::Db,
    table: cellbase::Table,
}

const CB_FAMILY: &[u8] = b"f";
const CB_YCSB_FAMILY: &[u8] = b"family";
const CB_QUALIFIER: &[u8] = b"v";
/// cellbase's global memstore bound in memtables: RocksDB's default max_write_buffer_number.
const CB_GLOBAL_MEMTABLES: u64 = 2;
/// cellbase's global lower limit: flushes start at one memtable's worth, as RocksDB's do.
const CB_GLOBAL_LOWER_LIMIT: f64 = 0.5;

impl Cellbase {
    fn open(dir: &Path, cfg: &Config, ycsb: bool) -> Res<Self> {
        use cellbase::{Compression, DbOptions, Durability, FamilyDescriptor, TableDescriptor};
        let db = cellbase::Db::open_with(
            dir,
            DbOptions::default()
                .durability(Durability::SyncWal)
                .block_cache_size(cfg.cache_bytes)
                .memstore_flush_size(cfg.memtable_bytes)
                .global_memstore_size(CB_GLOBAL_MEMTABLES * cfg.memtable_bytes)
                .global_memstore_lower_limit(CB_GLOBAL_LOWER_LIMIT)
                .background_threads(cfg.background_threads),
        )?;
        let (name, fam) = if ycsb {
            ("usertable", CB_YCSB_FAMILY)
        } else {
            ("bench", CB_FAMILY)
        };
        let table = match db.table(name) {
            Ok(t) => t,
            Err(_) => {
                let (codec, _) = Compression::from_hbase_name(&cfg.compression)?;
                db.create_table(TableDescriptor::new(name).family({
                    FamilyDescriptor::new(fam)
                        .compression(codec)
                        .block_size(cfg.cellbase_block_kb << 10)
                }))?
            }
        };
        Ok(Cellbase { db, table })
    }
}

impl Engine for Cellbase {
    fn cache_counts(&self) -> Option<(u64, u64)> {
        // Only data blocks go through cellbase's block cache (index and Bloom blocks stay in
        // memory from the file's open): the counters are data-block lookups.
        let m = self.db.metrics();
        Some((m.block_cache_hits, m.block_cache_misses))
    }
    fn put(&self, key: &[u8], value: &[u8], sync: bool) -> Res<()> {
        let mut p = cellbase::Put::new(key).add(CB_FAMILY, CB_QUALIFIER, value);
        if sync {
            p = p.durability(cellbase::Durability::FsyncWal);
        }
        self.table.put(p)?;
        Ok(())
    }
    fn get(&self, key: &[u8]) -> Res<Option<usize>> {
        let r = self.table.get(cellbase::Get::new(key))?;
        Ok(r.value(CB_FAMILY, CB_QUALIFIER).map(|v| v.len()))
    }
    fn get_value(&self, key: &[u8]) -> Res<Option<Vec<u8>>> {
        let r = self.table.get(cellbase::Get::new(key))?;
        Ok(r.value(CB_FAMILY, CB_QUALIFIER).map(|v| v.to_vec()))
    }
    fn scan(&self, start: &[u8], n: usize) -> Res<usize> {
        let mut count = 0;
        let s = cellbase::Scan::new().start_row(start).limit(n as u64);
        for r in self.table.scan(s)? {
            let r = r?;
            count += usize::from(!r.cells().is_empty());
        }
        Ok(count)
    }
    fn scan_all(&self) -> Res<usize> {
        let mut count = 0;
        for r in self.table.scan(cellbase::Scan::new())? {
            count += r?.cells().len();
        }
        Ok(count)
    }
    fn scan_each(&self, start: &[u8], n: usize, each: &mut dyn FnMut(&[u8])) -> Res<usize> {
        let mut count = 0;
        let s = cellbase::Scan::new().start_row(start).limit(n as u64);
        for r in self.table.scan(s)? {
            if let Some(v) = r?.value(CB_FAMILY, CB_QUALIFIER) {
                each(v);
                count += 1;
            }
        }
        Ok(count)
    }
    fn sync_to_os(&self) -> Res<()> {
        Ok(()) // SyncWal: every acknowledged write is already in the OS.
    }
    fn compact_all(&self) -> Res<()> {
        self.table.flush()?;
        self.table.major_compact()?;
        Ok(())
    }
    fn rec_insert(&self, key: &[u8], fields: &[Vec<u8>]) -> Res<()> {
        let mut p = cellbase::Put::new(key);
        for (i, v) in fields.iter().enumerate() {
            p = p.add(CB_YCSB_FAMILY, FIELDS[i], v);
        }
        self.table.put(p)?;
        Ok(())
    }
    fn rec_read(&self, key: &[u8]) -> Res<usize> {
        let r = self
            .table
            .get(cellbase::Get::new(key).family(CB_YCSB_FAMILY))?;
        Ok(r.cells().len())
    }
    fn rec_update(&self, key: &[u8], field: usize, value: &[u8]) -> Res<()> {
        self.table
            .put(cellbase::Put::new(key).add(CB_YCSB_FAMILY, FIELDS[field], value))?;
        Ok(())
    }
    fn rec_scan(&self, start: &[u8], n: usize) -> Res<usize> {
        let mut count = 0;
        let s = cellbase::Scan::new()
            .start_row(start)
            .limit(n as u64)
            .family(CB_YCSB_FAMILY);
        for r in self.table.scan(s)? {
            count += usize::from(!r?.cells().is_empty());
        }
        Ok(count)
    }
}

// ---------------------------------------------------------------------------------------------

#[cfg(feature = "rocksdb")]
struct Rocks {
    db: rocksdb::DB,
    /// The options the DB was opened with: their statistics object holds the tickers.
    opts: rocksdb::Options,
    statistics: bool,
    nosync: rocksdb::WriteOptions,
    sync: rocksdb::WriteOptions,
}

#[cfg(feature = "rocksdb")]
impl Rocks {
    fn open(dir: &Path, cfg: &Config) -> Res<Self> {
        let mut bb = rocksdb::BlockBasedOptions::default();
        let cache = rocksdb::Cache::new_lru_cache(cfg.cache_bytes as usize);
        bb.set_block_cache(&cache);
        bb.set_bloom_filter(10.0, false);
        let mut o = rocksdb::Options::default();
        o.create_if_missing(true);
        // The codec cellbase gets, at the library's default level (CompressionOptions are left
        // as they are: `level` = kDefaultCompressionLevel).
        use cellbase::Compression as C;
        let (codec, _) = cellbase::Compression::from_hbase_name(&cfg.compression)?;
        o.set_compression_type(match codec {
            C::None => rocksdb::DBCompressionType::None,
            C::Snappy => rocksdb::DBCompressionType::Snappy,
            C::Gz => rocksdb::DBCompressionType::Zlib,
            C::Lz4 => rocksdb::DBCompressionType::Lz4,
            C::Zstd => rocksdb::DBCompressionType::Zstd,
        });
        o.set_write_buffer_size(cfg.memtable_bytes as usize);
        o.set_max_background_jobs(cfg.background_threads as i32);
        o.set_block_based_table_factory(&bb);
        if cfg.statistics {
            // Tickers only (no histograms or timers): the cheapest level that counts the
            // block cache's hits and misses.
            o.enable_statistics();
            o.set_statistics_level(rocksdb::statistics::StatsLevel::ExceptHistogramOrTimers);
        }
        let db = rocksdb::DB::open(&o, dir)?;
        let mut sync = rocksdb::WriteOptions::default();
        sync.set_sync(true);
        Ok(Rocks {
            db,
            opts: o,
            statistics: cfg.statistics,
            nosync: rocksdb::WriteOptions::default(),
            sync,
        })
    }
}

#[cfg(feature = "rocksdb")]
impl Engine for Rocks {
    fn cache_counts(&self) -> Option<(u64, u64)> {
        // Data blocks only, as cellbase's counters (index and filter blocks are not put in
        // the block cache by default: cache_index_and_filter_blocks is off).
        use rocksdb::statistics::Ticker;
        self.statistics.then(|| {
            (
                self.opts.get_ticker_count(Ticker::BlockCacheDataHit),
                self.opts.get_ticker_count(Ticker::BlockCacheDataMiss),
            )
        })
    }
    fn put(&self, key: &[u8], value: &[u8], sync: bool) -> Res<()> {
        let wo = if sync { &self.sync } else { &self.nosync };
        self.db.put_opt(key, value, wo)?;
        Ok(())
    }
    fn get(&self, key: &[u8]) -> Res<Option<usize>> {
        Ok(self.db.get_pinned(key)?.map(|v| v.len()))
    }
    fn get_value(&self, key: &[u8]) -> Res<Option<Vec<u8>>> {
        Ok(self.db.get_pinned(key)?.map(|v| v.to_vec()))
    }
    fn scan_each(&self, start: &[u8], n: usize, each: &mut dyn FnMut(&[u8])) -> Res<usize> {
        let mut it = self.db.raw_iterator();
        it.seek(start);
        let mut count = 0;
        while count < n
            && let Some(v) = it.value()
        {
            each(v);
            count += 1;
            it.next();
        }
        it.status()?;
        Ok(count)
    }
    fn scan(&self, start: &[u8], n: usize) -> Res<usize> {
        let mut it = self.db.raw_iterator();
        it.seek(start);
        let mut count = 0;
        while count < n && it.valid() {
            std::hint::black_box((it.key(), it.value()));
            count += 1;
            it.next();
        }
        it.status()?;
        Ok(count)
    }
    fn scan_all(&self) -> Res<usize> {
        let mut it = self.db.raw_iterator();
        it.seek_to_first();
        let mut count = 0;
        while it.valid() {
            std::hint::black_box((it.key(), it.value()));
            count += 1;
            it.next();
        }
        it.status()?;
        Ok(count)
    }
    fn sync_to_os(&self) -> Res<()> {
        Ok(()) // The WAL is written to the OS on every write.
    }
    fn compact_all(&self) -> Res<()> {
        // Flushes the memtable first (CompactRange does), then every level into the last one;
        // Force rewrites the bottommost files too, as cellbase's major compaction rewrites
        // every file.
        let mut co = rocksdb::CompactOptions::default();
        co.set_bottommost_level_compaction(rocksdb::BottommostLevelCompaction::Force);
        self.db.compact_range_opt(None::<&[u8]>, None::<&[u8]>, &co);
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------

struct Fjall {
    db: fjall::Database,
    ks: fjall::Keyspace,
}

/// True when `--compression` names LZ4 (or LZO, which cellbase takes as LZ4): the one codec
/// fjall has, so fjall then compresses its data and index blocks with it too.
fn fjall_lz4(cfg: &Config) -> bool {
    matches!(codec(cfg), Some(cellbase::Compression::Lz4))
}

impl Fjall {
    fn open(dir: &Path, cfg: &Config) -> Res<Self> {
        use fjall::config::CompressionPolicy;
        let db = fjall::Database::builder(dir)
            .cache_size(cfg.cache_bytes)
            .worker_threads(cfg.background_threads.max(1))
            .open()?;
        let mem = cfg.memtable_bytes;
        let policy = if fjall_lz4(cfg) {
            CompressionPolicy::all(fjall::CompressionType::Lz4)
        } else {
            CompressionPolicy::disabled()
        };
        let ks = db.keyspace("bench", move || {
            fjall::KeyspaceCreateOptions::default()
                .data_block_compression_policy(policy.clone())
                .index_block_compression_policy(policy)
                .max_memtable_size(mem)
        })?;
        Ok(Fjall { db, ks })
    }
}

impl Engine for Fjall {
    fn put(&self, key: &[u8], value: &[u8], sync: bool) -> Res<()> {
        self.ks.insert(key, value)?;
        if sync {
            self.db.persist(fjall::PersistMode::SyncData)?;
        }
        Ok(())
    }
    fn get(&self, key: &[u8]) -> Res<Option<usize>> {
        Ok(self.ks.get(key)?.map(|v| v.len()))
    }
    fn get_value(&self, key: &[u8]) -> Res<Option<Vec<u8>>> {
        Ok(self.ks.get(key)?.map(|v| v.to_vec()))
    }
    fn scan_each(&self, start: &[u8], n: usize, each: &mut dyn FnMut(&[u8])) -> Res<usize> {
        let mut count = 0;
        for g in self.ks.range(start..).take(n) {
            let (_, v) = g.into_inner()?;
            each(&v);
            count += 1;
        }
        Ok(count)
    }
    fn scan(&self, start: &[u8], n: usize) -> Res<usize> {
        let mut count = 0;
        for g in self.ks.range(start..).take(n) {
            std::hint::black_box(g.into_inner()?);
            count += 1;
        }
        Ok(count)
    }
    fn scan_all(&self) -> Res<usize> {
        let mut count = 0;
        for g in self.ks.iter() {
            std::hint::black_box(g.into_inner()?);
            count += 1;
        }
        Ok(count)
    }
    fn sync_to_os(&self) -> Res<()> {
        self.db.persist(fjall::PersistMode::Buffer)?;
        Ok(())
    }
    fn compact_all(&self) -> Res<()> {
        self.ks.rotate_memtable_and_wait()?;
        self.ks.major_compact()?;
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------

struct Sled {
    db: sled::Db,
    /// sled's data file (`db` in its directory): `flush()` makes a write durable only up to
    /// `sync_file_range` on Linux, so a fillsync write also `fdatasync`s this handle.
    file: std::fs::File,
}

impl Sled {
    fn open(dir: &Path, cfg: &Config) -> Res<Self> {
        let db = sled::Config::new()
            .path(dir)
            .cache_capacity(cfg.cache_bytes)
            .open()?;
        let file = std::fs::File::open(dir.join("db"))?;
        Ok(Sled { db, file })
    }
}

impl Engine for Sled {
    fn put(&self, key: &[u8], value: &[u8], sync: bool) -> Res<()> {
        self.db.insert(key, value)?;
        if sync {
            self.db.flush()?;
            self.file.sync_data()?;
        }
        Ok(())
    }
    fn get(&self, key: &[u8]) -> Res<Option<usize>> {
        Ok(self.db.get(key)?.map(|v| v.len()))
    }
    fn get_value(&self, key: &[u8]) -> Res<Option<Vec<u8>>> {
        Ok(self.db.get(key)?.map(|v| v.to_vec()))
    }
    fn scan_each(&self, start: &[u8], n: usize, each: &mut dyn FnMut(&[u8])) -> Res<usize> {
        let mut count = 0;
        for kv in self.db.range(start..).take(n) {
            let (_, v) = kv?;
            each(&v);
            count += 1;
        }
        Ok(count)
    }
    fn scan(&self, start: &[u8], n: usize) -> Res<usize> {
        let mut count = 0;
        for kv in self.db.range(start..).take(n) {
            std::hint::black_box(kv?);
            count += 1;
        }
        Ok(count)
    }
    fn scan_all(&self) -> Res<usize> {
        let mut count = 0;
        for kv in self.db.iter() {
            std::hint::black_box(kv?);
            count += 1;
        }
        Ok(count)
    }
    fn sync_to_os(&self) -> Res<()> {
        self.db.flush()?;
        Ok(())
    }
    fn compact_all(&self) -> Res<()> {
        // sled has no compaction call: its log is cleaned in the background.
        self.db.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_round_trip() {
        let vals: Vec<Vec<u8>> = (0..10).map(|i| vec![i as u8; 100]).collect();
        let s = serialize(vals.iter().map(|v| v.as_slice()));
        let d = deserialize(&s);
        assert_eq!(d.len(), 10);
        assert_eq!(d[3].0, b"field3");
        assert_eq!(d[3].1, &vals[3][..]);
    }
}
