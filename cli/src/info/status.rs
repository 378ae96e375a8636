//! The shell's `status` ('summary', 'simple', 'detailed') in HBase 2.x's layout (admin.rb's
//! `status` over `ClusterMetrics`), for one embedded database: one active "master", one live
//! "server" (`localhost:0`), no backup masters, no dead servers. The server and region lines
//! carry the `ServerMetrics` / `RegionMetrics` fields the engine has real values for; heap
//! and coprocessor fields are left out (an embedded engine has neither). The info port's `/`
//! page shows the 'detailed' form.

use cellbase::{Metrics, RegionMetrics};

/// The forms `status` accepts.
pub const FORMATS: [&str; 3] = ["summary", "simple", "detailed"];

fn mb(bytes: u64) -> u64 {
    bytes >> 20
}

fn kb(bytes: u64) -> u64 {
    bytes >> 10
}

/// `ServerMetrics.toString()`'s fields.
fn server_line(m: &Metrics) -> String {
    format!(
        "numberOfOnlineRegions={}, numberOfStores={}, numberOfStorefiles={}, \
         storefileSizeMB={}, memstoreSizeMB={}, readRequestsCount={}, writeRequestsCount={}, \
         totalStaticIndexSizeKB={}, totalStaticBloomSizeKB={}, flushQueueLength={}, \
         compactionQueueLength={}, blockCacheHitRatio={:.4}",
        m.regions,
        m.stores,
        m.store_files,
        mb(m.store_file_bytes),
        mb(m.memstore_bytes),
        m.read_requests,
        m.write_requests,
        kb(m.static_index_bytes),
        kb(m.static_bloom_bytes),
        m.flush_queue_length,
        m.compaction_queue_length,
        m.block_cache_hit_ratio(),
    )
}

/// `RegionMetrics.toString()`'s fields.
fn region_line(r: &RegionMetrics) -> String {
    format!(
        "numberOfStores={}, numberOfStorefiles={}, storefileSizeMB={}, memstoreSizeMB={}, \
         readRequestsCount={}, writeRequestsCount={}",
        r.stores,
        r.store_files,
        mb(r.store_file_bytes),
        mb(r.memstore_bytes),
        r.read_requests,
        r.write_requests,
    )
}

/// HBase's `status` text in `format` (`summary` when `None`); `None` for an unknown format.
pub fn render(m: &Metrics, format: Option<&str>) -> Option<String> {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    match format.unwrap_or("summary") {
        "summary" => line(format!(
            "1 active master, 0 backup masters, 1 servers, 0 dead, {:.4} average load",
            m.regions as f64
        )),
        "simple" => {
            line("active master:  localhost:0 0".into());
            line("0 backup masters".into());
            line("1 live servers".into());
            line("    localhost:0 0".into());
            line(format!("        {}", server_line(m)));
            line("0 dead servers".into());
            line(format!(
                "Aggregate load: {}, regions: {}",
                m.read_requests + m.write_requests,
                m.regions
            ));
        }
        "detailed" => {
            line(format!("version cellbase {}", env!("CARGO_PKG_VERSION")));
            line("0 regionsInTransition".into());
            line("active master:  localhost:0 0".into());
            line("0 backup masters".into());
            line("1 live servers".into());
            line("    localhost:0 0".into());
            line(format!("        {}", server_line(m)));
            for r in &m.per_region {
                line(format!("        {:?}", r.name));
                line(format!("            {}", region_line(r)));
            }
            line("0 dead servers".into());
        }
        _ => return None,
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_formats_and_an_unknown_one() {
        let m = Metrics::default();
        let s = render(&m, None).unwrap();
        assert_eq!(
            s,
            "1 active master, 0 backup masters, 1 servers, 0 dead, 0.0000 average load\n"
        );
        let simple = render(&m, Some("simple")).unwrap();
        assert!(
            simple.starts_with("active master:  localhost:0 0\n0 backup masters\n1 live servers\n")
        );
        assert!(simple.ends_with("0 dead servers\nAggregate load: 0, regions: 0\n"));
        let detailed = render(&m, Some("detailed")).unwrap();
        assert!(detailed.starts_with("version cellbase "));
        assert!(render(&m, Some("replication")).is_none());
    }
}
