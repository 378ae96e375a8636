//! Malformed input against a live `cellbase thrift` and `cellbase thrift2` (one server, so
//! every case runs against both): random bytes, oversized and negative
//! lengths, lying container counts, deep nesting, truncated calls and abrupt disconnects. Each
//! connection gets an answer (a TApplicationException) or is closed, the server never gets
//! stuck, and it keeps serving other clients throughout.
mod thrift_common;

use cellbase_cli::thrift::protocol::{
    Limits, MSG_CALL, MSG_EXCEPTION, Protocol, Reader, Value, encode_message,
};
use cellbase_cli::thrift::transport::Transport;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;
use thrift_common::*;

/// Sends `bytes`, half-closes, and returns everything the server sent before closing.
fn send_and_drain(port: u16, bytes: &[u8]) -> Vec<u8> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    // Safety net only: a server that never closes fails here instead of hanging the test.
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    // The server may close before reading everything: a failed write is an accepted outcome.
    let _ = s.write_all(bytes);
    let _ = s.shutdown(Shutdown::Write);
    let mut out = Vec::new();
    match s.read_to_end(&mut out) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
        Err(e) => panic!("server neither answered nor closed: {e}"),
    }
    out
}

/// Sends `bytes` without half-closing and expects the server to close on its own.
fn send_expect_close(port: u16, bytes: &[u8]) -> Vec<u8> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let _ = s.write_all(bytes);
    let mut out = Vec::new();
    match s.read_to_end(&mut out) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
        Err(e) => panic!("server did not close the connection: {e}"),
    }
    out
}

fn healthy(gw: Gw, port: u16) {
    let mut c = Client::binary(port);
    let (m, args) = gw.list_call();
    assert!(matches!(c.call(m, args).success(), Value::List(..)));
}

/// Decodes a buffered binary reply and returns (message type, TApplicationException type).
fn app_exception(bytes: &[u8]) -> (u8, Option<i32>) {
    let mut r = Reader::new(bytes, Protocol::Binary, bytes.len(), Limits::default());
    let h = r.read_message_header().expect("a reply header");
    let body = r.read_struct().expect("a reply body");
    let kind = body.iter().find_map(|(i, v)| match (i, v) {
        (2, Value::I32(k)) => Some(*k),
        _ => None,
    });
    (h.mtype, kind)
}

fn call_prefix(name: &str) -> Vec<u8> {
    let mut m = encode_message(Protocol::Binary, name, MSG_CALL, 0, &[]);
    m.pop(); // drop the stop byte: the caller appends fields
    m
}

#[test]
fn malformed_input_is_answered_or_closed_and_the_server_keeps_serving() {
    for gw in GATEWAYS {
        malformed_input(gw);
    }
}

fn malformed_input(gw: Gw) {
    let dir = tempfile::tempdir().unwrap();
    let mut server = gw.start(dir.path());
    let port = server.port;
    healthy(gw, port);

    // Oversized frame length (2 GiB), a frame just over the 64 MiB limit, a negative one.
    for len in [0x7fff_ffffu32, (64 << 20) + 1, 0xffff_fff0] {
        let mut b = len.to_be_bytes().to_vec();
        b.extend_from_slice(&[0x80, 1, 0, 1, 0, 0]);
        assert!(send_expect_close(port, &b).is_empty(), "len {len:#x}");
        healthy(gw, port);
    }
    // Buffered binary: a method name of 2 GiB; a bad protocol version.
    assert!(send_expect_close(port, &[0x80, 1, 0, 1, 0x7f, 0xff, 0xff, 0xff, b'x']).is_empty());
    assert!(send_expect_close(port, &[0x80, 2, 0, 1, 0, 0, 0, 1, b'x', 0, 0, 0, 0, 0]).is_empty());
    // Compact: bad version nibble.
    assert!(send_expect_close(port, &[0x82, 0x25, 0, 1, b'x', 0]).is_empty());
    healthy(gw, port);

    // After a decoded header, lying lengths get a TApplicationException PROTOCOL_ERROR and a close.
    let mut huge_string = call_prefix("getRow");
    huge_string.extend_from_slice(&[11, 0, 1, 0x7f, 0xff, 0xff, 0xff, b'a']);
    let mut huge_list = call_prefix("getRows");
    huge_list.extend_from_slice(&[15, 0, 2, 11, 0x7f, 0xff, 0xff, 0xff]);
    let mut huge_map = call_prefix("getRow");
    huge_map.extend_from_slice(&[13, 0, 3, 11, 11, 0x40, 0, 0, 0]);
    let mut negative = call_prefix("getRow");
    negative.extend_from_slice(&[11, 0, 1, 0xff, 0xff, 0xff, 0xfe]);
    let mut bad_type = call_prefix("getRow");
    bad_type.extend_from_slice(&[99, 0, 1, 1, 2, 3]);
    let mut deep = call_prefix("getRow");
    for _ in 0..10_000 {
        deep.extend_from_slice(&[12, 0, 1]);
    }
    for (what, msg) in [
        ("huge string", huge_string),
        ("huge list", huge_list),
        ("huge map", huge_map),
        ("negative length", negative),
        ("bad type", bad_type),
        ("deep nesting", deep),
    ] {
        let out = send_expect_close(port, &msg);
        assert_eq!(app_exception(&out), (MSG_EXCEPTION, Some(7)), "{what}");
        healthy(gw, port);
    }

    // Unknown method: answered with UNKNOWN_METHOD, and the connection stays usable.
    let mut c = Client::binary(port);
    match c.call("dropEverything", vec![(1, Value::bin("x"))]) {
        Reply::AppException(f) => assert!(f.contains(&(2, Value::I32(1)))),
        other => panic!("{other:?}"),
    }
    let (m, args) = gw.list_call();
    assert!(matches!(c.call(m, args).success(), Value::List(..)));
    // A REPLY sent to the server: INVALID_MESSAGE_TYPE, connection stays usable.
    let m = encode_message(Protocol::Binary, "getTableNames", 2, 0, &[]);
    let out = send_and_drain(port, &m);
    assert_eq!(app_exception(&out), (MSG_EXCEPTION, Some(2)));

    // Truncated calls then an abrupt close, in every mode; an empty frame.
    for (t, p) in [
        (Transport::Buffered, Protocol::Binary),
        (Transport::Framed, Protocol::Binary),
        (Transport::Buffered, Protocol::Compact),
        (Transport::Framed, Protocol::Compact),
    ] {
        let args = vec![(1, Value::bin("t")), (2, Value::bin_list(["a", "b", "c"]))];
        let mut m = encode_message(p, "getRows", MSG_CALL, 0, &args);
        if t == Transport::Framed {
            let mut f = (m.len() as u32).to_be_bytes().to_vec();
            f.extend_from_slice(&m);
            m = f;
        }
        for cut in [1, 3, 5, m.len() / 2, m.len() - 1] {
            send_and_drain(port, &m[..cut]);
        }
    }
    send_and_drain(port, &[0, 0, 0, 0, 0x80]);
    healthy(gw, port);

    // Seeded random garbage, raw and behind each valid-looking prefix.
    let seed: u64 = 0x5eed_7412_0bad_cafe;
    println!("random garbage seed {seed:#x}");
    let mut x = seed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let prefixes: [&[u8]; 5] = [
        &[],
        &[0x80, 1, 0, 1],
        &[0x82, 0x21],
        &[0, 0, 0, 40, 0x80, 1, 0, 1],
        &[0, 0, 0, 40, 0x82, 0x21],
    ];
    for round in 0..200 {
        let mut b = prefixes[round % prefixes.len()].to_vec();
        let n = (next() % 300) as usize;
        b.extend((0..n).map(|_| next() as u8));
        send_and_drain(port, &b);
        if round % 25 == 0 {
            healthy(gw, port);
        }
    }

    // Many idle connections holding half a message do not block anyone else.
    let idle: Vec<TcpStream> = (0..64)
        .map(|i| {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            let m = encode_message(Protocol::Binary, "getTableNames", MSG_CALL, i, &[]);
            s.write_all(&m[..m.len() / 2]).unwrap();
            s
        })
        .collect();
    healthy(gw, port);
    drop(idle);

    // A client that sends a call and disconnects without reading the reply.
    for _ in 0..20 {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let m = encode_message(Protocol::Binary, "getTableNames", MSG_CALL, 0, &[]);
        s.write_all(&m).unwrap();
        drop(s);
    }
    healthy(gw, port);
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "the server is still running"
    );
}

#[test]
fn stalled_connections_are_closed_with_an_idle_timeout() {
    for gw in GATEWAYS {
        idle_timeout(gw);
    }
}

fn idle_timeout(gw: Gw) {
    let dir = tempfile::tempdir().unwrap();
    let server = gw.start_with(dir.path(), &["--idle-timeout-secs", "1"]);
    // Half a message, then silence: the server closes the connection on its own (the 60 s read
    // timeout in send_expect_close is only a safety net).
    let m = encode_message(Protocol::Binary, "getTableNames", MSG_CALL, 0, &[]);
    let out = send_expect_close(server.port, &m[..m.len() / 2]);
    assert!(out.is_empty());
    healthy(gw, server.port);
}
