//! Hostile clients against a real `cellbase rest` on 127.0.0.1: the Thrift1 gateway's
//! guarantees (thrift_hostile.rs) for HTTP. Oversized bodies and headers are refused (413,
//! 431) before they are read, scanners are capped (503), silent and half-sent requests hold
//! only their own connection, a client's connections are capped, garbage gets 400, and replies
//! stop at `--max-reply-mib`. After each case the gateway is alive, its peak resident memory
//! (`VmHWM`) stayed under 1 GiB, and a well-behaved client is served. Figures are printed
//! (`-- --nocapture`).
mod rest_common;

use rest_common::*;
use socket2::{Domain, Socket, Type};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

const J: &str = "application/json";

/// The gateway is alive, its peak RSS under 1 GiB, and a fresh client is served.
fn still_serving(s: &mut Server, case: &str) {
    assert!(
        s.child.try_wait().unwrap().is_none(),
        "{case}: the gateway died"
    );
    let hwm = s.status_kib("VmHWM:");
    println!("{case}: gateway peak RSS {} MiB", hwm / 1024);
    assert!(
        hwm < 1 << 20,
        "{case}: peak RSS {hwm} KiB is not under 1 GiB"
    );
    let r = s.get("/t/small", J);
    assert_eq!(r.status, 200, "{case}: {}", r.text());
    assert_eq!(cells_of(&r.json())[0].3, "ok");
}

fn setup(extra: &[&str]) -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start_with(dir.path(), extra);
    create_table(&s, "t", &["f"]);
    let r = s.send(
        "PUT",
        "/t/small",
        J,
        &cellset("small", &[("f:c", Some(1), "ok")]),
    );
    assert_eq!(r.status, 200);
    (dir, s)
}

#[test]
fn oversized_bodies_and_headers_are_refused() {
    let (_d, mut s) = setup(&["--max-body-mib", "1", "--max-header-kib", "8"]);
    // A declared body over the limit: 413 at once, before any body byte is sent.
    let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    c.write_all(
        b"PUT /t/big HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4294967296\r\n\r\n",
    )
    .unwrap();
    let r = read_reply(&mut c);
    assert_eq!(r.status, 413, "{}", r.text());
    // A chunked body that grows past the limit: 413 once it does.
    let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    c.write_all(b"PUT /t/big HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        .unwrap();
    let chunk = vec![b'a'; 256 * 1024];
    for _ in 0..8 {
        let head = format!("{:x}\r\n", chunk.len());
        if c.write_all(head.as_bytes()).is_err() || c.write_all(&chunk).is_err() {
            break;
        }
        let _ = c.write_all(b"\r\n");
    }
    assert_eq!(read_reply(&mut c).status, 413);
    // Headers over --max-header-kib: 431.
    let big = "x".repeat(16 * 1024);
    let r = s.req("GET", "/t/small", &[("X-Junk", &big)], b"");
    assert_eq!(r.status, 431);
    // More than 64 headers: 431.
    let many: Vec<(String, String)> = (0..70).map(|i| (format!("X-H{i}"), "v".into())).collect();
    let many: Vec<(&str, &str)> = many.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(s.req("GET", "/t/small", &many, b"").status, 431);
    // Garbage instead of HTTP: 400, and the gateway goes on.
    let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    c.write_all(b"\x00\x01\x02 not http at all\r\n\r\n")
        .unwrap();
    assert_eq!(read_reply(&mut c).status, 400);
    // Bodies within the limit, 16 at once, are served (bounded memory).
    let handles: Vec<_> = (0..16)
        .map(|i| {
            let port = s.port;
            std::thread::spawn(move || {
                let v = "v".repeat(512 * 1024);
                let body = cellset(&format!("big{i}"), &[("f:c", Some(1), &v)]);
                request(
                    port,
                    "PUT",
                    &format!("/t/big{i}"),
                    &[("Content-Type", J)],
                    body.as_bytes(),
                )
                .status
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), 200);
    }
    still_serving(&mut s, "oversized");
}

#[test]
fn scanners_are_capped_per_client_and_in_all() {
    let (_d, mut s) = setup(&["--max-scanners-per-client", "3", "--max-scanners", "5"]);
    let mut open = Vec::new();
    for _ in 0..3 {
        let r = s.send("PUT", "/t/scanner", "text/xml", "<Scanner/>");
        assert_eq!(r.status, 201);
        open.push(
            r.header("location")
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_string(),
        );
    }
    let r = s.send("PUT", "/t/scanner", "text/xml", "<Scanner/>");
    assert_eq!(r.status, 503, "{}", r.text());
    assert!(r.text().contains("too many open scanners"), "{}", r.text());
    // Closing one makes room again.
    let first = open.remove(0);
    assert_eq!(
        s.req("DELETE", &format!("/t/scanner/{first}"), &[], b"")
            .status,
        200
    );
    assert_eq!(
        s.send("PUT", "/t/scanner", "text/xml", "<Scanner/>").status,
        201
    );
    // Opening and closing many in turn leaves nothing behind.
    for id in open {
        s.req("DELETE", &format!("/t/scanner/{id}"), &[], b"");
    }
    for _ in 0..200 {
        let r = s.send("PUT", "/t/scanner", "text/xml", "<Scanner/>");
        assert_eq!(r.status, 201);
        let id = r
            .header("location")
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap()
            .to_string();
        assert_eq!(
            s.req("DELETE", &format!("/t/scanner/{id}"), &[], b"")
                .status,
            200
        );
    }
    still_serving(&mut s, "scanners");
}

#[test]
fn silent_and_half_sent_requests_do_not_block_others() {
    let (_d, mut s) = setup(&["--request-deadline-secs", "2", "--idle-timeout-secs", "3"]);
    // 50 connections that send nothing and 50 that send half a request head or body.
    let mut held = Vec::new();
    for i in 0..100 {
        let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
        if i % 2 == 1 {
            let _ = c.write_all(
                b"PUT /t/r HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"Ro",
            );
        }
        held.push(c);
    }
    // Others are served meanwhile.
    for _ in 0..20 {
        assert_eq!(s.get("/t/small", J).status, 200);
    }
    // The half-sent requests are dropped at their deadline, the silent ones at the idle
    // timeout: every held connection ends (EOF or reset) without an answer being waited for.
    for mut c in held {
        c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut buf = [0u8; 64];
        match c.read(&mut buf) {
            Ok(0) | Err(_) => {}
            Ok(n) => panic!("unexpected {n} bytes: {:?}", &buf[..n]),
        }
    }
    still_serving(&mut s, "slow clients");
}

#[test]
fn connections_are_capped_per_client() {
    let (_d, mut s) = setup(&["--max-connections-per-client", "4"]);
    let addr: SocketAddr = format!("127.0.0.1:{}", s.port).parse().unwrap();
    let mut held = Vec::new();
    for _ in 0..4 {
        let sock = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
        sock.bind(&"127.0.0.2:0".parse::<SocketAddr>().unwrap().into())
            .unwrap();
        sock.connect(&addr.into()).unwrap();
        held.push(TcpStream::from(sock));
    }
    // The fifth from 127.0.0.2 is answered 503 and closed.
    let sock = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    sock.bind(&"127.0.0.2:0".parse::<SocketAddr>().unwrap().into())
        .unwrap();
    sock.connect(&addr.into()).unwrap();
    let mut fifth = TcpStream::from(sock);
    fifth
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    assert_eq!(read_reply(&mut fifth).status, 503);
    // 127.0.0.1 is another client: served.
    still_serving(&mut s, "connection cap");
    drop(held);
}

#[test]
fn replies_stop_at_the_reply_limit() {
    let (_d, mut s) = setup(&["--max-reply-mib", "1"]);
    let v = "x".repeat(400 * 1024);
    for i in 0..4 {
        let r = s.send(
            "PUT",
            &format!("/t/w{i}"),
            J,
            &cellset(&format!("w{i}"), &[("f:c", Some(1), &v)]),
        );
        assert_eq!(r.status, 200);
    }
    // A row-range read over the limit: 503, not an unbounded reply.
    let r = s.get("/t/w*", J);
    assert_eq!(r.status, 503, "{}", r.text());
    // A scanner returns fewer cells per GET and still delivers every cell.
    let r = s.send(
        "PUT",
        "/t/scanner",
        "text/xml",
        r#"<Scanner startRow="dw==" endRow="eA=="/>"#,
    );
    let path = format!(
        "/t/scanner/{}",
        r.header("location").unwrap().rsplit('/').next().unwrap()
    );
    let mut total = 0;
    let mut gets = 0;
    loop {
        let g = s.get(&path, J);
        if g.status == 204 {
            break;
        }
        assert_eq!(g.status, 200);
        assert!(g.body.len() < 2 << 20);
        total += cells_of(&g.json()).len();
        gets += 1;
    }
    println!("reply limit: 4 cells of 400 KiB in {gets} scanner GETs");
    assert_eq!(total, 4);
    assert!(gets >= 2);
    still_serving(&mut s, "reply limit");
}

#[test]
fn slow_readers_of_large_replies_do_not_starve_others() {
    let (_d, mut s) = setup(&[
        "--max-reply-mib",
        "1",
        "--max-reply-memory-mib",
        "4",
        "--request-deadline-secs",
        "2",
    ]);
    let v = "y".repeat(600 * 1024);
    let r = s.send(
        "PUT",
        "/t/large",
        J,
        &cellset("large", &[("f:c", Some(1), &v)]),
    );
    assert_eq!(r.status, 200);
    // 40 clients ask for the 800 KB reply and never read it (small receive windows).
    let addr: SocketAddr = format!("127.0.0.1:{}", s.port).parse().unwrap();
    let mut held = Vec::new();
    for _ in 0..40 {
        let sock = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
        sock.set_recv_buffer_size(4096).unwrap();
        sock.connect(&addr.into()).unwrap();
        let mut c = TcpStream::from(sock);
        c.write_all(b"GET /t/large HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n")
            .unwrap();
        held.push(c);
    }
    // Others are served meanwhile: small replies, or a 503 while reply memory is full, never
    // a hang.
    for _ in 0..20 {
        let r = s.get("/t/small", J);
        assert!(r.status == 200 || r.status == 503, "status {}", r.status);
    }
    // The stalled writers give up at the deadline; then everything is served again.
    drop(held);
    std::thread::sleep(Duration::from_secs(3));
    still_serving(&mut s, "slow readers");
}
