//! Issue 23 (export): `cellbase thrift --info-port` serves /metrics in the Prometheus text
//! format with every metric family docs/OPERATIONS.md lists, /jmx as HBase-shaped JSON beans,
//! and a status page on /. (thrift-tests/run.sh parses the same /metrics with the Prometheus
//! project's Python parser.)
mod thrift_common;

use cellbase_cli::thrift::protocol::{T_STRING, T_STRUCT, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use thrift_common::*;

/// Every metric family /metrics must carry (docs/OPERATIONS.md).
const FAMILIES: &[&str] = &[
    "cellbase_operation_latency_seconds",
    "cellbase_read_requests_total",
    "cellbase_write_requests_total",
    "cellbase_flushes_total",
    "cellbase_flushed_cells_total",
    "cellbase_flushed_bytes_total",
    "cellbase_flush_duration_seconds",
    "cellbase_compactions_total",
    "cellbase_compacted_cells_total",
    "cellbase_compaction_input_bytes_total",
    "cellbase_compaction_output_bytes_total",
    "cellbase_compaction_duration_seconds",
    "cellbase_splits_total",
    "cellbase_merges_total",
    "cellbase_split_duration_seconds",
    "cellbase_flush_queue_length",
    "cellbase_compaction_queue_length",
    "cellbase_split_queue_length",
    "cellbase_blocked_writes_total",
    "cellbase_blocked_seconds_total",
    "cellbase_background_errors_total",
    "cellbase_wal_appends_total",
    "cellbase_wal_appended_bytes_total",
    "cellbase_wal_writes_total",
    "cellbase_wal_syncs_total",
    "cellbase_wal_rolls_total",
    "cellbase_wal_sync_duration_seconds",
    "cellbase_wal_segments",
    "cellbase_block_cache_hits_total",
    "cellbase_block_cache_misses_total",
    "cellbase_block_cache_hit_ratio",
    "cellbase_block_cache_bytes",
    "cellbase_block_cache_blocks",
    "cellbase_block_cache_capacity_bytes",
    "cellbase_bloom_filter_requests_total",
    "cellbase_bloom_filter_negative_results_total",
    "cellbase_bloom_filter_eligible_requests_total",
    "cellbase_memstore_bytes",
    "cellbase_store_files",
    "cellbase_store_file_bytes",
    "cellbase_static_index_bytes",
    "cellbase_static_bloom_bytes",
    "cellbase_regions",
    "cellbase_stores",
    "cellbase_region_read_requests_total",
    "cellbase_region_write_requests_total",
    "cellbase_region_memstore_bytes",
    "cellbase_region_store_files",
    "cellbase_region_store_file_bytes",
];

struct Gateway {
    child: Child,
    thrift_port: u16,
    info: String,
    /// The gateway's stderr lines after the info server's.
    stderr: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(dir: &std::path::Path) -> Gateway {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cellbase"))
        .args(["thrift", "--port", "0", "--info-port", "0", "--db"])
        .env("RUST_LOG", "cellbase::thrift=info")
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cellbase thrift");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let thrift_port = line.trim().rsplit(':').next().unwrap().parse().unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let info = loop {
        let mut l = String::new();
        assert!(err.read_line(&mut l).unwrap() > 0, "no info server line");
        if let Some(rest) = l.split("info server on http://").nth(1) {
            break rest.split('/').next().unwrap().to_string();
        }
    };
    // Keep draining stderr so the gateway never blocks on it.
    let stderr = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let lines = stderr.clone();
    std::thread::spawn(move || {
        for l in err.lines() {
            let Ok(l) = l else { return };
            lines.lock().unwrap().push(l);
        }
    });
    Gateway {
        child,
        thrift_port,
        info,
        stderr,
    }
}

/// A GET over a plain socket: `(status line, body)`.
fn get(addr: &str, path: &str) -> (String, String) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    (head.lines().next().unwrap().to_string(), body.to_string())
}

#[test]
fn metrics_jmx_and_status_are_served() {
    let dir = tempfile::tempdir().unwrap();
    let gw = start(dir.path());
    let mut c = Client::binary(gw.thrift_port);
    create_table(&mut c, "t", &[("f", 3)]).void();
    for i in 0..20 {
        c.call(
            "mutateRow",
            vec![
                (1, b("t")),
                (2, b(format!("row{i:02}"))),
                (3, Value::List(T_STRUCT, vec![mutation("f:q", Some(b"v"))])),
                (4, Value::Map(T_STRING, T_STRING, vec![])),
            ],
        )
        .void();
    }
    c.call(
        "getRow",
        vec![
            (1, b("t")),
            (2, b("row01")),
            (3, Value::Map(T_STRING, T_STRING, vec![])),
        ],
    );

    let (status, body) = get(&gw.info, "/metrics");
    assert!(status.contains("200"), "{status}");
    for f in FAMILIES {
        assert!(
            body.lines().any(|l| l == format!("# TYPE {f} counter")
                || l == format!("# TYPE {f} gauge")
                || l == format!("# TYPE {f} histogram")),
            "family {f} missing from /metrics"
        );
    }
    let count = |name: &str| -> f64 {
        body.lines()
            .find_map(|l| l.strip_prefix(name).and_then(|v| v.trim().parse().ok()))
            .unwrap_or_else(|| panic!("{name} missing"))
    };
    assert_eq!(
        count("cellbase_operation_latency_seconds_count{op=\"put\"}"),
        20.0
    );
    assert_eq!(
        count("cellbase_operation_latency_seconds_count{op=\"get\"}"),
        1.0
    );
    assert_eq!(count("cellbase_write_requests_total"), 20.0);
    assert!(count("cellbase_wal_appends_total") >= 20.0);
    assert!(body.contains("cellbase_region_write_requests_total{table=\"t\",region="));

    let (status, body) = get(&gw.info, "/jmx");
    assert!(status.contains("200"), "{status}");
    let v: serde_json::Value = serde_json::from_str(&body).expect("/jmx is JSON");
    let beans = v["beans"].as_array().unwrap();
    let names: Vec<&str> = beans.iter().map(|b| b["name"].as_str().unwrap()).collect();
    assert_eq!(names, cellbase_cli::info::jmx::BEANS);
    assert_eq!(beans[0]["Put_num_ops"], 20);
    assert_eq!(beans[0]["writeRequestCount"], 20);
    assert!(beans[1]["appendCount"].as_u64().unwrap() >= 20);
    let (_, one) = get(
        &gw.info,
        "/jmx?qry=Hadoop%3Aservice%3DHBase%2Cname%3DRegionServer%2Csub%3DServer",
    );
    let v: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!(v["beans"].as_array().unwrap().len(), 1);

    let (status, page) = get(&gw.info, "/");
    assert!(status.contains("200"), "{status}");
    assert!(page.contains("1 live servers"), "{page}");
    assert!(page.contains("writeRequestsCount=20"), "{page}");
    let (status, _) = get(&gw.info, "/nope");
    assert!(status.contains("404"), "{status}");
}

/// The gateway logs connections (info, shown with `-v` or RUST_LOG) and protocol errors
/// (warn, shown by default).
#[test]
fn connections_and_protocol_errors_are_logged() {
    let dir = tempfile::tempdir().unwrap();
    let gw = start(dir.path());
    {
        let mut c = Client::binary(gw.thrift_port);
        c.call("getTableNames", vec![]);
    }
    {
        // A strict binary header with a bad version: a protocol error.
        let mut s = std::net::TcpStream::connect(("127.0.0.1", gw.thrift_port)).unwrap();
        s.write_all(&[0x80, 0x07, 0x00, 0x01, 0, 0, 0, 1, b'x', 0, 0, 0, 1])
            .unwrap();
        let _ = s.shutdown(std::net::Shutdown::Write);
        let mut sink = Vec::new();
        let _ = s.read_to_end(&mut sink);
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let lines = gw.stderr.lock().unwrap().clone();
        let opened = lines
            .iter()
            .any(|l| l.contains("connection 0 from 127.0.0.1:") && l.contains("opened"));
        let closed = lines
            .iter()
            .any(|l| l.contains("connection 0 from") && l.contains("closed"));
        let protocol = lines.iter().any(|l| l.contains("protocol error"));
        if opened && closed && protocol {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "log lines missing: {lines:#?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
