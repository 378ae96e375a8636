//! `/metrics`: the engine's [`Metrics`] in the Prometheus text exposition format (0.0.4),
//! encoded by the Prometheus project's Rust client (`prometheus-client`) from a collector that
//! reads one snapshot per scrape. docs/OPERATIONS.md lists every family with its HBase name.

use cellbase::{BackgroundErrors, Latency, Metrics};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;

/// The content type of [`render`]'s text.
pub const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

/// One scrape's numbers.
#[derive(Debug)]
struct Snapshot {
    m: Metrics,
    errors: BackgroundErrors,
}

type Labels = Vec<(&'static str, String)>;

fn counter(
    e: &mut DescriptorEncoder<'_>,
    name: &str,
    help: &str,
    samples: &[(Labels, f64)],
) -> std::fmt::Result {
    let mut d = e.encode_descriptor(name, help, None, MetricType::Counter)?;
    for (labels, v) in samples {
        if labels.is_empty() {
            d.encode_counter::<Labels, f64, f64>(v, None)?;
        } else {
            d.encode_family(labels)?
                .encode_counter::<Labels, f64, f64>(v, None)?;
        }
    }
    Ok(())
}

fn gauge(
    e: &mut DescriptorEncoder<'_>,
    name: &str,
    help: &str,
    samples: &[(Labels, f64)],
) -> std::fmt::Result {
    let mut d = e.encode_descriptor(name, help, None, MetricType::Gauge)?;
    for (labels, v) in samples {
        if labels.is_empty() {
            d.encode_gauge(v)?;
        } else {
            d.encode_family(labels)?.encode_gauge(v)?;
        }
    }
    Ok(())
}

/// A latency as a Prometheus histogram in seconds (the buckets of
/// [`cellbase::LATENCY_BUCKETS_NANOS`]).
fn histogram(
    e: &mut DescriptorEncoder<'_>,
    name: &str,
    help: &str,
    samples: &[(Labels, &Latency)],
) -> std::fmt::Result {
    let mut d = e.encode_descriptor(name, help, None, MetricType::Histogram)?;
    for (labels, l) in samples {
        let mut buckets: Vec<(f64, u64)> = Vec::with_capacity(l.buckets.len() + 1);
        // prometheus-client takes per-bucket counts and accumulates them itself.
        let mut below = 0;
        for &(upper, cumulative) in &l.buckets {
            buckets.push((upper as f64 / 1e9, cumulative - below));
            below = cumulative;
        }
        buckets.push((f64::INFINITY, l.count - below));
        let sum = l.sum_nanos as f64 / 1e9;
        if labels.is_empty() {
            d.encode_histogram::<Labels>(sum, l.count, &buckets, None)?;
        } else {
            d.encode_family(labels)?
                .encode_histogram::<Labels>(sum, l.count, &buckets, None)?;
        }
    }
    Ok(())
}

fn one(v: u64) -> [(Labels, f64); 1] {
    [(Vec::new(), v as f64)]
}

/// One unlabelled sample of `nanos` nanoseconds, in seconds.
fn secs(nanos: u64) -> [(Labels, f64); 1] {
    [(Vec::new(), nanos as f64 / 1e9)]
}

impl Collector for Snapshot {
    fn encode(&self, mut e: DescriptorEncoder<'_>) -> std::fmt::Result {
        let m = &self.m;
        let e = &mut e;
        // Operations.
        let ops: Vec<(Labels, &Latency)> = m
            .latencies
            .iter()
            .map(|(op, l)| (vec![("op", op.label().to_string())], l))
            .collect();
        histogram(
            e,
            "cellbase_operation_latency_seconds",
            "Latency of client operations (HBase Get, Put, Delete, ScanTime, Increment, Append, CheckAndMutate)",
            &ops,
        )?;
        counter(
            e,
            "cellbase_read_requests",
            "Read requests: one per Get, one per row a scan returns (HBase readRequestCount)",
            &one(m.read_requests),
        )?;
        counter(
            e,
            "cellbase_write_requests",
            "Write requests: one per row mutation (HBase writeRequestCount)",
            &one(m.write_requests),
        )?;
        // Flushes, compactions, splits.
        counter(e, "cellbase_flushes", "Memstore flushes", &one(m.flushes))?;
        counter(
            e,
            "cellbase_flushed_cells",
            "Cells written by flushes (HBase flushedCellsCount)",
            &one(m.flushed_cells),
        )?;
        counter(
            e,
            "cellbase_flushed_bytes",
            "Bytes of the files flushes wrote (HBase flushedOutputBytes)",
            &one(m.flushed_bytes),
        )?;
        histogram(
            e,
            "cellbase_flush_duration_seconds",
            "Duration of flushes (HBase FlushTime)",
            &[(Vec::new(), &m.flush_time)],
        )?;
        counter(
            e,
            "cellbase_compactions",
            "Compactions by kind",
            &[
                (vec![("kind", "minor".into())], m.minor_compactions as f64),
                (vec![("kind", "major".into())], m.major_compactions as f64),
            ],
        )?;
        counter(
            e,
            "cellbase_compacted_cells",
            "Cells read by compactions (HBase compactedCellsCount)",
            &one(m.compacted_cells),
        )?;
        counter(
            e,
            "cellbase_compaction_input_bytes",
            "Bytes of the files compactions read (HBase CompactionInputSize)",
            &one(m.compaction_input_bytes),
        )?;
        counter(
            e,
            "cellbase_compaction_output_bytes",
            "Bytes of the files compactions wrote (HBase CompactionOutputSize)",
            &one(m.compaction_output_bytes),
        )?;
        histogram(
            e,
            "cellbase_compaction_duration_seconds",
            "Duration of compactions (HBase CompactionTime)",
            &[(Vec::new(), &m.compaction_time)],
        )?;
        counter(
            e,
            "cellbase_splits",
            "Region splits (HBase splitSuccessCount)",
            &one(m.splits),
        )?;
        counter(e, "cellbase_merges", "Region merges", &one(m.merges))?;
        histogram(
            e,
            "cellbase_split_duration_seconds",
            "Duration of splits (HBase SplitTime)",
            &[(Vec::new(), &m.split_time)],
        )?;
        gauge(
            e,
            "cellbase_flush_queue_length",
            "Flushes queued, retries included (HBase flushQueueLength)",
            &one(m.flush_queue_length),
        )?;
        gauge(
            e,
            "cellbase_compaction_queue_length",
            "Compactions queued (HBase compactionQueueLength)",
            &one(m.compaction_queue_length),
        )?;
        gauge(
            e,
            "cellbase_split_queue_length",
            "Splits queued (HBase splitQueueLength)",
            &one(m.split_queue_length),
        )?;
        counter(
            e,
            "cellbase_blocked_writes",
            "Writes that waited for a flush or compaction (HBase blockedRequestCount)",
            &one(m.blocked_writes),
        )?;
        counter(
            e,
            "cellbase_blocked_seconds",
            "Time writers spent waiting (HBase updatesBlockedTime)",
            &secs(m.blocked_nanos),
        )?;
        counter(
            e,
            "cellbase_delayed_writes",
            "Writes the write controller slowed down before the memstore bound",
            &one(m.delayed_writes),
        )?;
        counter(
            e,
            "cellbase_delayed_seconds",
            "Time delayed writes slept",
            &secs(m.delayed_nanos),
        )?;
        let kinds = [
            ("flush", &self.errors.flushes),
            ("compaction", &self.errors.compactions),
            ("split", &self.errors.splits),
            ("wal_write", &self.errors.wal_writes),
        ];
        let errors: Vec<(Labels, f64)> = kinds
            .iter()
            .map(|(k, c)| (vec![("kind", k.to_string())], c.count as f64))
            .collect();
        counter(
            e,
            "cellbase_background_errors",
            "Failed background work by kind",
            &errors,
        )?;
        // WAL.
        counter(
            e,
            "cellbase_wal_appends",
            "Entries appended to the log (HBase appendCount)",
            &one(m.wal_appends),
        )?;
        counter(
            e,
            "cellbase_wal_appended_bytes",
            "Bytes appended to the log, framing included (HBase AppendSize)",
            &one(m.wal_appended_bytes),
        )?;
        counter(
            e,
            "cellbase_wal_writes",
            "write() batches to the log (group commit)",
            &one(m.wal_writes),
        )?;
        counter(
            e,
            "cellbase_wal_syncs",
            "fdatasync calls on log segments",
            &one(m.wal_syncs),
        )?;
        counter(
            e,
            "cellbase_wal_rolls",
            "Log segment rolls (HBase rollRequest)",
            &one(m.wal_rolls),
        )?;
        histogram(
            e,
            "cellbase_wal_sync_duration_seconds",
            "Duration of the group commit's log syncs (HBase SyncTime)",
            &[(Vec::new(), &m.wal_sync_time)],
        )?;
        gauge(
            e,
            "cellbase_wal_segments",
            "Live log segment files (HBase hlogFileCount)",
            &one(m.wal_segments),
        )?;
        // Block cache and Bloom filters.
        let data = || vec![("kind", "data".to_string())];
        counter(
            e,
            "cellbase_block_cache_hits",
            "Block cache hits by block kind; index and Bloom blocks stay in memory and never go through the cache (HBase blockCacheHitCount)",
            &[(data(), m.block_cache_hits as f64)],
        )?;
        counter(
            e,
            "cellbase_block_cache_misses",
            "Block cache misses by block kind (HBase blockCacheMissCount)",
            &[(data(), m.block_cache_misses as f64)],
        )?;
        gauge(
            e,
            "cellbase_block_cache_hit_ratio",
            "Block cache hits over lookups since open (HBase blockCacheCountHitPercent / 100)",
            &[(data(), m.block_cache_hit_ratio())],
        )?;
        gauge(
            e,
            "cellbase_block_cache_bytes",
            "Bytes held by the block cache (HBase blockCacheSize)",
            &one(m.block_cache_bytes),
        )?;
        gauge(
            e,
            "cellbase_block_cache_blocks",
            "Blocks held by the block cache (HBase blockCacheCount)",
            &one(m.block_cache_blocks),
        )?;
        gauge(
            e,
            "cellbase_block_cache_capacity_bytes",
            "Capacity of the block cache",
            &one(m.block_cache_capacity),
        )?;
        counter(
            e,
            "cellbase_bloom_filter_requests",
            "Bloom filter checks by Gets (HBase bloomFilterRequestsCount)",
            &one(m.bloom_checked),
        )?;
        counter(
            e,
            "cellbase_bloom_filter_negative_results",
            "Bloom filter checks that ruled a file out (HBase bloomFilterNegativeResultsCount)",
            &one(m.bloom_useful),
        )?;
        counter(
            e,
            "cellbase_bloom_filter_eligible_requests",
            "Gets that met a file without a usable Bloom filter (HBase bloomFilterEligibleRequestsCount)",
            &one(m.bloom_unavailable),
        )?;
        // Sizes.
        gauge(
            e,
            "cellbase_memstore_bytes",
            "Bytes in memstores not yet flushed (HBase memStoreSize)",
            &one(m.memstore_bytes),
        )?;
        gauge(
            e,
            "cellbase_store_files",
            "Live block files (HBase storeFileCount)",
            &one(m.store_files),
        )?;
        gauge(
            e,
            "cellbase_store_file_bytes",
            "Bytes in live block files (HBase storeFileSize)",
            &one(m.store_file_bytes),
        )?;
        gauge(
            e,
            "cellbase_static_index_bytes",
            "Bytes of block indexes held in memory (HBase staticIndexSize)",
            &one(m.static_index_bytes),
        )?;
        gauge(
            e,
            "cellbase_static_bloom_bytes",
            "Bytes of Bloom filters held in memory (HBase staticBloomSize)",
            &one(m.static_bloom_bytes),
        )?;
        gauge(
            e,
            "cellbase_regions",
            "Regions of all tables (HBase regionCount)",
            &one(m.regions),
        )?;
        gauge(
            e,
            "cellbase_stores",
            "Stores of all regions (HBase storeCount)",
            &one(m.stores),
        )?;
        // Per region.
        let per = |f: &dyn Fn(&cellbase::RegionMetrics) -> u64| -> Vec<(Labels, f64)> {
            m.per_region
                .iter()
                .map(|r| {
                    (
                        vec![
                            ("table", r.table.clone()),
                            ("region", r.region_id.to_string()),
                        ],
                        f(r) as f64,
                    )
                })
                .collect()
        };
        counter(
            e,
            "cellbase_region_read_requests",
            "Read requests per region (HBase readRequestCount per region)",
            &per(&|r| r.read_requests),
        )?;
        counter(
            e,
            "cellbase_region_write_requests",
            "Write requests per region (HBase writeRequestCount per region)",
            &per(&|r| r.write_requests),
        )?;
        gauge(
            e,
            "cellbase_region_memstore_bytes",
            "Memstore bytes per region (HBase memStoreSize per region)",
            &per(&|r| r.memstore_bytes),
        )?;
        gauge(
            e,
            "cellbase_region_store_files",
            "Block files per region (HBase storeFileCount per region)",
            &per(&|r| r.store_files),
        )?;
        gauge(
            e,
            "cellbase_region_store_file_bytes",
            "Block file bytes per region (HBase storeFileSize per region)",
            &per(&|r| r.store_file_bytes),
        )?;
        Ok(())
    }
}

/// `m` and `errors` in the Prometheus text exposition format.
pub fn render(m: Metrics, errors: BackgroundErrors) -> String {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Snapshot { m, errors }));
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, &registry);
    out
}

// `EncodeMetric` is the trait the collector's values go through; keep the import honest.
#[allow(dead_code)]
fn _assert_encodable<T: EncodeMetric>() {}
