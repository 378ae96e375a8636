//! A small load test: several client threads on their own connections (all four transport and
//! protocol modes), thousands of calls, abrupt disconnects mid-call and unread replies. Every
//! acknowledged write must be readable afterwards, from the running server and again after the
//! server process is killed (SIGKILL) and restarted on the same directory.
mod thrift_common;

use cellbase_cli::thrift::protocol::{MSG_CALL, Protocol, T_STRUCT, Value, encode_message};
use cellbase_cli::thrift::transport::Transport;
use std::collections::BTreeMap;
use std::io::Write;
use std::net::TcpStream;
use thrift_common::*;

const THREADS: usize = 6;
const OPS: usize = 600;

fn put_call(row: &str, value: &str) -> Vec<(i16, Value)> {
    vec![
        (1, b("load")),
        (
            2,
            Value::List(
                T_STRUCT,
                vec![batch(
                    row.as_bytes(),
                    vec![mutation("cf:v", Some(value.as_bytes()))],
                )],
            ),
        ),
    ]
}

fn read_all(port: u16) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut c = Client::binary(port);
    let id = c
        .call(
            "scannerOpenWithScan",
            vec![(1, b("load")), (2, Value::Struct(vec![]))],
        )
        .success()
        .clone();
    let mut out = BTreeMap::new();
    loop {
        let r = c.call(
            "scannerGetList",
            vec![(1, id.clone()), (2, Value::I32(500))],
        );
        let got = rows(r.success());
        if got.is_empty() {
            break;
        }
        for (row, cols) in got {
            out.insert(row, cols[0].1.clone());
        }
    }
    c.call("scannerClose", vec![(1, id)]).void();
    out
}

#[test]
fn concurrent_clients_with_abrupt_disconnects_lose_no_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let port = server.port;
    create_table(&mut Client::binary(port), "load", &[("cf", 1)]).void();

    let seed: u64 = 0x10ad_7e57;
    println!("load test seed {seed:#x}");
    let modes = [
        (Transport::Buffered, Protocol::Binary),
        (Transport::Framed, Protocol::Binary),
        (Transport::Buffered, Protocol::Compact),
        (Transport::Framed, Protocol::Compact),
    ];
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let (transport, proto) = modes[t % modes.len()];
            std::thread::spawn(move || {
                let mut x = seed ^ (t as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                let mut rnd = move || {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x
                };
                let mut acked = Vec::new();
                let mut calls = 0usize;
                let mut c = Client::connect(port, transport, proto);
                for i in 0..OPS {
                    let row = format!("t{t}-{i:05}");
                    let value = format!("v{}", rnd() % 1_000_000);
                    match rnd() % 20 {
                        // Abrupt close mid-call: half a message, then the socket is dropped.
                        0 => {
                            let m = encode_message(
                                proto,
                                "mutateRows",
                                MSG_CALL,
                                1,
                                &put_call(&row, &value),
                            );
                            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
                            let _ = s.write_all(&m[..m.len() / 2]);
                        }
                        // A whole call whose reply is never read: not acknowledged, so not
                        // recorded; it may or may not have been applied.
                        1 => {
                            let m = encode_message(
                                proto,
                                "mutateRows",
                                MSG_CALL,
                                1,
                                &put_call(&row, &value),
                            );
                            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
                            let mut f = Vec::new();
                            if transport == Transport::Framed {
                                f.extend_from_slice(&(m.len() as u32).to_be_bytes());
                            }
                            f.extend_from_slice(&m);
                            let _ = s.write_all(&f);
                        }
                        // Reconnect (the old connection is dropped between calls).
                        2 => c = Client::connect(port, transport, proto),
                        // A read of an earlier acknowledged row.
                        3 | 4 if !acked.is_empty() => {
                            let (r, v): &(String, String) = &acked[(rnd() as usize) % acked.len()];
                            let got = c.call("getRow", vec![(1, b("load")), (2, b(r))]);
                            calls += 1;
                            assert_eq!(rows(got.success())[0].1[0].1, v.as_bytes());
                        }
                        _ => {
                            c.call("mutateRows", put_call(&row, &value)).void();
                            calls += 1;
                            acked.push((row, value));
                        }
                    }
                }
                (acked, calls)
            })
        })
        .collect();
    let mut acked = Vec::new();
    let mut calls = 0;
    for h in handles {
        let (a, n) = h.join().expect("client thread");
        acked.extend(a);
        calls += n;
    }
    println!(
        "{calls} acknowledged calls, {} acknowledged writes",
        acked.len()
    );
    assert!(calls >= 2000, "the load is thousands of calls: {calls}");

    let check = |port: u16, when: &str| {
        let stored = read_all(port);
        for (row, value) in &acked {
            assert_eq!(
                stored.get(row.as_bytes()).map(|v| v.as_slice()),
                Some(value.as_bytes()),
                "{when}: acknowledged write of {row} missing"
            );
        }
    };
    check(port, "live server");
    server.kill();
    let server = Server::start(dir.path());
    check(server.port, "after SIGKILL and restart");
}
