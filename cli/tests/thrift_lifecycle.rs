//! Issue 23 (lifecycle): `cellbase thrift` and `cellbase thrift2` (one server, so each case
//! runs against both) stop on SIGTERM or SIGINT by refusing new connections, letting
//! connections finish, and closing the database cleanly: the next open replays nothing, and
//! every acknowledged write is in block files.
#![cfg(unix)]
mod thrift_common;

use cellbase_cli::thrift::protocol::{T_STRING, T_STRUCT, Value};
use cellbase_cli::tools::verify::verify_dir;
use std::time::Duration;
use thrift_common::*;

/// Creates table `t` (family `f`) and writes `row000`..`row049` with one `mutateRows` /
/// `putMultiple`.
fn table_of_50_rows(gw: Gw, c: &mut Client) {
    gw.create_table(c, "t", "f");
    let rows = (0..50).map(|i| format!("row{i:03}"));
    match gw {
        Gw::Thrift1 => {
            let batches = rows
                .map(|r| batch(r.as_bytes(), vec![mutation("f:q", Some(b"v"))]))
                .collect();
            c.call(
                "mutateRows",
                vec![
                    (1, b("t")),
                    (2, Value::List(T_STRUCT, batches)),
                    (3, Value::Map(T_STRING, T_STRING, vec![])),
                ],
            )
            .void();
        }
        Gw::Thrift2 => {
            let puts = rows
                .map(|r| tput(r.as_bytes(), vec![tcolumn_value("f", "q", b"v")]))
                .collect();
            c.call(
                "putMultiple",
                vec![(1, b("t")), (2, Value::List(T_STRUCT, puts))],
            )
            .void();
        }
    }
}

#[test]
fn sigterm_and_sigint_close_the_database_cleanly() {
    for (gw, signal) in GATEWAYS
        .into_iter()
        .flat_map(|gw| [(gw, "-TERM"), (gw, "-INT")])
    {
        let dir = tempfile::tempdir().unwrap();
        let mut server = gw.start(dir.path());
        let mut c = Client::binary(server.port);
        table_of_50_rows(gw, &mut c);
        // The client stays connected (happybase keeps connections open): the stop must not
        // wait for it to hang up.
        let code = server.stop_with(signal);
        assert_eq!(code, Some(0), "{gw:?} {signal}: exit code");
        // Nothing to replay: the close flushed the memstores and trimmed the log.
        closed_cleanly_with_50_rows(dir.path(), signal);
        drop(c);
    }
}

/// Writers keep writing while SIGTERM arrives: the requests being served finish, the gateway
/// exits 0 within the grace period, and every write a client saw acknowledged is in the
/// database, with nothing left in the log to replay.
#[test]
fn sigterm_with_writes_in_flight_keeps_every_acknowledged_write() {
    for gw in GATEWAYS {
        writes_in_flight(gw);
    }
}

fn writes_in_flight(gw: Gw) {
    let dir = tempfile::tempdir().unwrap();
    let mut server = gw.start(dir.path());
    let mut admin = Client::binary(server.port);
    gw.create_table(&mut admin, "t", "f");
    let port = server.port;
    let writers: Vec<_> = (0..4)
        .map(|w| {
            std::thread::spawn(move || {
                let mut c = Client::binary(port);
                let mut acked = Vec::new();
                for i in 0.. {
                    let row = format!("w{w}-{i:06}");
                    let (m, args) = gw.put_call("t", row.as_bytes(), "f", "q", b"value");
                    let reply = c.try_call(m, args);
                    match reply {
                        // A void reply without an exception field: acknowledged.
                        Ok(Reply::Ok(body)) if body.is_empty() => acked.push(row),
                        // The stop closed the connection (or refused the call): done.
                        _ => break,
                    }
                }
                acked
            })
        })
        .collect();
    // Let the writers get going, then stop the gateway under them.
    std::thread::sleep(Duration::from_millis(500));
    let code = server.stop_with("-TERM");
    assert_eq!(code, Some(0), "exit code");
    let acked: Vec<String> = writers
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    assert!(
        acked.len() > 4,
        "only {} writes were acknowledged",
        acked.len()
    );
    let report = verify_dir(dir.path()).unwrap();
    assert_eq!(report.errors(), 0, "{:?}", report.findings);
    assert_eq!(report.wal_entries, 0, "log entries left to replay");
    let db = cellbase::Db::open(dir.path()).unwrap();
    let t = db.table("t").unwrap();
    for row in &acked {
        assert!(
            !t.get(cellbase::Get::new(row.as_str())).unwrap().is_empty(),
            "acknowledged row {row} is missing"
        );
    }
    db.close().unwrap();
    drop(admin);
}

/// Issue 24 (Key Visualizer for a real database): `--record-traffic-secs` records the
/// gateway's traffic per region and interval; the clean stop saves it in the `TRAFFIC` file,
/// from which `cellbase lab keyviz --db` draws the heatmaps. (The interval is an hour, so the
/// periodic save never runs during the test: the stop's save is the one read.)
#[test]
fn recorded_traffic_is_saved_at_stop_for_keyviz() {
    for gw in GATEWAYS {
        recorded_traffic(gw);
    }
}

fn recorded_traffic(gw: Gw) {
    let dir = tempfile::tempdir().unwrap();
    let mut server = gw.start_with(dir.path(), &["--record-traffic-secs", "3600"]);
    let mut c = Client::binary(server.port);
    table_of_50_rows(gw, &mut c);
    assert_eq!(gw.row_cells(&mut c, "t", "row007"), 1);
    assert_eq!(server.stop_with("-TERM"), Some(0));
    let out = dir.path().join("report");
    let (page, traffic) =
        cellbase_cli::lab::write_keyviz(dir.path(), &out, Some("t")).expect("keyviz");
    assert_eq!(traffic.interval_ms, 3_600_000);
    let totals = cellbase_cli::lab::report::keyviz::totals(&traffic, "t");
    assert_eq!(totals.iter().map(|r| r.writes).sum::<u64>(), 50);
    assert_eq!(totals.iter().map(|r| r.reads).sum::<u64>(), 1);
    assert!(page.exists());
}
