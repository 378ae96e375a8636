"""Issue 23: the info port's /metrics parses with the Prometheus project's own Python parser
(prometheus_client) and carries every metric family docs/OPERATIONS.md lists; /jmx parses as
JSON with HBase's bean names. Run by run.sh against a gateway started with --info-port.

Usage: info_check.py THRIFT_PORT INFO_ADDR
"""
import json
import sys
import urllib.request

import happybase
from prometheus_client.parser import text_string_to_metric_families

FAMILIES = {
    "cellbase_operation_latency_seconds": "histogram",
    "cellbase_read_requests": "counter",
    "cellbase_write_requests": "counter",
    "cellbase_flushes": "counter",
    "cellbase_flushed_cells": "counter",
    "cellbase_flushed_bytes": "counter",
    "cellbase_flush_duration_seconds": "histogram",
    "cellbase_compactions": "counter",
    "cellbase_compacted_cells": "counter",
    "cellbase_compaction_input_bytes": "counter",
    "cellbase_compaction_output_bytes": "counter",
    "cellbase_compaction_duration_seconds": "histogram",
    "cellbase_splits": "counter",
    "cellbase_merges": "counter",
    "cellbase_split_duration_seconds": "histogram",
    "cellbase_flush_queue_length": "gauge",
    "cellbase_compaction_queue_length": "gauge",
    "cellbase_split_queue_length": "gauge",
    "cellbase_blocked_writes": "counter",
    "cellbase_blocked_seconds": "counter",
    "cellbase_background_errors": "counter",
    "cellbase_wal_appends": "counter",
    "cellbase_wal_appended_bytes": "counter",
    "cellbase_wal_writes": "counter",
    "cellbase_wal_syncs": "counter",
    "cellbase_wal_rolls": "counter",
    "cellbase_wal_sync_duration_seconds": "histogram",
    "cellbase_wal_segments": "gauge",
    "cellbase_block_cache_hits": "counter",
    "cellbase_block_cache_misses": "counter",
    "cellbase_block_cache_hit_ratio": "gauge",
    "cellbase_block_cache_bytes": "gauge",
    "cellbase_block_cache_blocks": "gauge",
    "cellbase_block_cache_capacity_bytes": "gauge",
    "cellbase_bloom_filter_requests": "counter",
    "cellbase_bloom_filter_negative_results": "counter",
    "cellbase_bloom_filter_eligible_requests": "counter",
    "cellbase_memstore_bytes": "gauge",
    "cellbase_store_files": "gauge",
    "cellbase_store_file_bytes": "gauge",
    "cellbase_static_index_bytes": "gauge",
    "cellbase_static_bloom_bytes": "gauge",
    "cellbase_regions": "gauge",
    "cellbase_stores": "gauge",
    "cellbase_region_read_requests": "counter",
    "cellbase_region_write_requests": "counter",
    "cellbase_region_memstore_bytes": "gauge",
    "cellbase_region_store_files": "gauge",
    "cellbase_region_store_file_bytes": "gauge",
}
BEANS = [
    "Hadoop:service=HBase,name=RegionServer,sub=Server",
    "Hadoop:service=HBase,name=RegionServer,sub=WAL",
    "Hadoop:service=HBase,name=RegionServer,sub=IO",
    "Hadoop:service=HBase,name=RegionServer,sub=Regions",
]


def fetch(addr, path):
    with urllib.request.urlopen(f"http://{addr}{path}", timeout=30) as r:
        return r.status, r.headers.get("Content-Type"), r.read().decode()


def main():
    thrift_port, info = int(sys.argv[1]), sys.argv[2]
    conn = happybase.Connection("127.0.0.1", port=thrift_port, autoconnect=True)
    conn.create_table("m", {"f": {}})
    t = conn.table("m")
    for i in range(50):
        t.put(b"row%02d" % i, {b"f:q": b"v"})
    assert t.row(b"row07") == {b"f:q": b"v"}
    assert len(list(t.scan())) == 50
    conn.compact_table("m", major=True)

    status, ctype, text = fetch(info, "/metrics")
    assert status == 200 and ctype.startswith("text/plain; version=0.0.4"), (status, ctype)
    families = {f.name: f for f in text_string_to_metric_families(text)}
    missing = [n for n in FAMILIES if n not in families]
    assert not missing, f"families missing from /metrics: {missing}"
    for name, kind in FAMILIES.items():
        assert families[name].type == kind, (name, families[name].type, kind)
    ops = {
        s.labels["op"]: s.value
        for s in families["cellbase_operation_latency_seconds"].samples
        if s.name.endswith("_count")
    }
    assert ops["put"] == 50 and ops["get"] >= 1 and ops["scan"] >= 1, ops
    writes = [s.value for s in families["cellbase_write_requests"].samples]
    assert writes == [50.0], writes

    status, ctype, body = fetch(info, "/jmx")
    assert status == 200 and ctype.startswith("application/json"), (status, ctype)
    beans = json.loads(body)["beans"]
    assert [b["name"] for b in beans] == BEANS, [b["name"] for b in beans]
    assert beans[0]["Put_num_ops"] == 50, beans[0]["Put_num_ops"]
    print(f"info port: {len(families)} metric families parsed by prometheus_client, "
          f"{len(beans)} /jmx beans")


if __name__ == "__main__":
    main()
