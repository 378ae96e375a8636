//! `/jmx`: the engine's [`Metrics`] as HBase's JMX JSON servlet shapes them: `{"beans": [...]}`
//! with one bean per HBase metrics source (`Hadoop:service=HBase,name=RegionServer,sub=Server`,
//! `sub=WAL`, `sub=IO`, `sub=Regions`) and HBase's attribute names. Times are in milliseconds
//! as HBase reports them (fractions kept). `?qry=NAME` selects beans as HBase does (`*` matches
//! any run of characters).

use cellbase::{BackgroundErrors, Latency, Metrics, Operation};
use serde_json::{Map, Value, json};

/// The bean names [`render`] produces, in order.
pub const BEANS: [&str; 4] = [
    "Hadoop:service=HBase,name=RegionServer,sub=Server",
    "Hadoop:service=HBase,name=RegionServer,sub=WAL",
    "Hadoop:service=HBase,name=RegionServer,sub=IO",
    "Hadoop:service=HBase,name=RegionServer,sub=Regions",
];

/// HBase's percentile attribute suffixes for [`cellbase::LATENCY_PERCENTILES`].
fn percentile_suffix(p: f64) -> String {
    match p {
        50.0 => "median".to_string(),
        99.9 => "99.9th_percentile".to_string(),
        p => format!("{}th_percentile", p as u64),
    }
}

/// `NAME_num_ops`, `NAME_min`, `NAME_max`, `NAME_mean` and the percentiles, in ms.
fn latency(bean: &mut Map<String, Value>, name: &str, l: &Latency) {
    let ms = |n: f64| n / 1e6;
    bean.insert(format!("{name}_num_ops"), json!(l.count));
    bean.insert(format!("{name}_min"), json!(ms(l.min_nanos as f64)));
    bean.insert(format!("{name}_max"), json!(ms(l.max_nanos as f64)));
    bean.insert(format!("{name}_mean"), json!(ms(l.mean_nanos)));
    for &p in &cellbase::LATENCY_PERCENTILES {
        bean.insert(
            format!("{name}_{}", percentile_suffix(p)),
            json!(ms(l.percentile(p) as f64)),
        );
    }
}

fn bean(name: &str, context: &str) -> Map<String, Value> {
    let mut b = Map::new();
    b.insert("name".into(), json!(name));
    b.insert(
        "modelerType".into(),
        json!(name.trim_start_matches("Hadoop:service=HBase,name=")),
    );
    b.insert("tag.Context".into(), json!(context));
    b.insert("tag.Hostname".into(), json!("localhost"));
    b
}

/// True when `name` matches HBase's `qry` pattern (`*` = any run of characters).
fn matches(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || !name[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// The beans of `m`, those matching `qry` when given.
pub fn render(m: &Metrics, errors: &BackgroundErrors, qry: Option<&str>) -> Value {
    let mut server = bean(BEANS[0], "regionserver");
    let mut put = |k: &str, v: Value| {
        server.insert(k.to_string(), v);
    };
    put("regionCount", json!(m.regions));
    put("storeCount", json!(m.stores));
    put("hlogFileCount", json!(m.wal_segments));
    put("storeFileCount", json!(m.store_files));
    put("storeFileSize", json!(m.store_file_bytes));
    put("memStoreSize", json!(m.memstore_bytes));
    put("staticIndexSize", json!(m.static_index_bytes));
    put("staticBloomSize", json!(m.static_bloom_bytes));
    put(
        "totalRequestCount",
        json!(m.read_requests + m.write_requests),
    );
    put("readRequestCount", json!(m.read_requests));
    put("writeRequestCount", json!(m.write_requests));
    put("flushQueueLength", json!(m.flush_queue_length));
    put("compactionQueueLength", json!(m.compaction_queue_length));
    put("splitQueueLength", json!(m.split_queue_length));
    put("blockCacheCount", json!(m.block_cache_blocks));
    put("blockCacheSize", json!(m.block_cache_bytes));
    put(
        "blockCacheFreeSize",
        json!(m.block_cache_capacity.saturating_sub(m.block_cache_bytes)),
    );
    put("blockCacheHitCount", json!(m.block_cache_hits));
    put("blockCacheMissCount", json!(m.block_cache_misses));
    put("blockCacheDataHitCount", json!(m.block_cache_hits));
    put("blockCacheDataMissCount", json!(m.block_cache_misses));
    put(
        "blockCacheCountHitPercent",
        json!(m.block_cache_hit_ratio() * 100.0),
    );
    put("bloomFilterRequestsCount", json!(m.bloom_checked));
    put("bloomFilterNegativeResultsCount", json!(m.bloom_useful));
    put(
        "bloomFilterEligibleRequestsCount",
        json!(m.bloom_unavailable),
    );
    put("flushedCellsCount", json!(m.flushed_cells));
    put("flushedOutputBytes", json!(m.flushed_bytes));
    put("compactedCellsCount", json!(m.compacted_cells));
    put("compactedInputBytes", json!(m.compaction_input_bytes));
    put("compactedOutputBytes", json!(m.compaction_output_bytes));
    put("majorCompactionsCount", json!(m.major_compactions));
    put("minorCompactionsCount", json!(m.minor_compactions));
    put("splitSuccessCount", json!(m.splits));
    put("mergeCount", json!(m.merges));
    put("blockedRequestCount", json!(m.blocked_writes));
    put("updatesBlockedTime", json!(m.blocked_nanos / 1_000_000));
    // Not an HBase name: HBase has no write controller.
    put("delayedWriteCount", json!(m.delayed_writes));
    put("delayedWriteTime", json!(m.delayed_nanos / 1_000_000));
    put("backgroundErrorCount", json!(errors.total()));
    for op in Operation::ALL {
        latency(&mut server, op.hbase_name(), &m.latency(op));
    }
    latency(&mut server, "FlushTime", &m.flush_time);
    latency(&mut server, "CompactionTime", &m.compaction_time);
    latency(&mut server, "SplitTime", &m.split_time);

    let mut wal = bean(BEANS[1], "regionserver");
    wal.insert("appendCount".into(), json!(m.wal_appends));
    wal.insert("appendSize".into(), json!(m.wal_appended_bytes));
    wal.insert("writeCount".into(), json!(m.wal_writes));
    wal.insert("syncCount".into(), json!(m.wal_syncs));
    wal.insert("rollRequest".into(), json!(m.wal_rolls));
    latency(&mut wal, "SyncTime", &m.wal_sync_time);

    let mut io = bean(BEANS[2], "regionserver");
    io.insert("dataBlocksRead".into(), json!(m.data_blocks_read));

    let mut regions = bean(BEANS[3], "regionserver");
    regions.insert("numRegions".into(), json!(m.per_region.len()));
    for r in &m.per_region {
        let prefix = format!(
            "Namespace_default_table_{}_region_{}_metric_",
            r.table, r.region_id
        );
        let mut put = |k: &str, v: u64| {
            regions.insert(format!("{prefix}{k}"), json!(v));
        };
        put("storeCount", r.stores);
        put("storeFileCount", r.store_files);
        put("storeFileSize", r.store_file_bytes);
        put("memStoreSize", r.memstore_bytes);
        put("readRequestCount", r.read_requests);
        put("writeRequestCount", r.write_requests);
    }

    let beans: Vec<Value> = [server, wal, io, regions]
        .into_iter()
        .filter(|b| {
            qry.is_none_or(|q| matches(q, b.get("name").and_then(Value::as_str).unwrap_or("")))
        })
        .map(Value::Object)
        .collect();
    json!({ "beans": beans })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qry_patterns_match_as_hbase_does() {
        assert!(matches(BEANS[0], BEANS[0]));
        assert!(matches(
            "Hadoop:service=HBase,name=RegionServer,*",
            BEANS[3]
        ));
        assert!(matches("*sub=WAL", BEANS[1]));
        assert!(!matches("*sub=WAL", BEANS[0]));
        assert!(matches("Hadoop:*RegionServer*Server", BEANS[0]));
        assert!(!matches("Hadoop:service=HBase", BEANS[0]));
    }

    #[test]
    fn every_bean_is_present_and_named() {
        let v = render(&Metrics::default(), &BackgroundErrors::default(), None);
        let names: Vec<&str> = v["beans"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, BEANS);
        let server = &v["beans"][0];
        assert_eq!(server["Get_num_ops"], 0);
        assert!(server.get("Put_99th_percentile").is_some());
        assert!(server.get("ScanTime_median").is_some());
        let one = render(
            &Metrics::default(),
            &BackgroundErrors::default(),
            Some("*sub=WAL"),
        );
        assert_eq!(one["beans"].as_array().unwrap().len(), 1);
    }
}
