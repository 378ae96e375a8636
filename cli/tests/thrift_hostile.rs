//! Hostile clients against a real `cellbase thrift` and `cellbase thrift2` on 127.0.0.1 (issue
//! 21, items 6 and 7): both gateways run on one server, and each case runs against both.
//!
//! Each test starts its own gateway as a child process, runs one hostile case with bounded
//! loops (they end by themselves), then checks that the gateway is still up, that its peak
//! resident memory (`VmHWM` in /proc/PID/status) stayed under 1 GiB, and that a well-behaved
//! client on a fresh connection is served within 5 s. The figures are printed
//! (`-- --nocapture`).
mod thrift_common;

use cellbase_cli::thrift::protocol::{T_STRING, Value};
use socket2::{Domain, Socket, Type};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};
use thrift_common::*;

const GIB_KIB: u64 = 1 << 20;

/// Asserts the gateway process is alive and its peak RSS stayed under 1 GiB; prints both.
fn memory_bounded(server: &mut Server, case: &str) {
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "{case}: the gateway died"
    );
    let rss = server.status_kib("VmRSS:");
    let hwm = server.status_kib("VmHWM:");
    println!(
        "{case}: gateway RSS now {} MiB, peak {} MiB",
        rss / 1024,
        hwm / 1024
    );
    assert!(
        hwm < GIB_KIB,
        "{case}: peak RSS {hwm} KiB is not under 1 GiB"
    );
}

/// A well-behaved client on a fresh connection: its calls must all be answered within 5 s.
fn served_within_5s(gw: Gw, port: u16, case: &str) -> Duration {
    let started = Instant::now();
    let mut c = Client::binary(port);
    let (m, args) = gw.list_call();
    assert!(matches!(c.call(m, args).success(), Value::List(..)));
    assert_eq!(
        gw.row_cells(&mut c, "t", "small"),
        1,
        "{case}: the small row"
    );
    let took = started.elapsed();
    println!("{case}: well-behaved client served in {took:?}");
    assert!(took < Duration::from_secs(5), "{case}: took {took:?}");
    took
}

/// Creates table `t` (family `cf`, one version) with a small row `small`.
fn setup(gw: Gw, port: u16) {
    let mut c = Client::binary(port);
    gw.create_table(&mut c, "t", "cf");
    gw.put(&mut c, "t", b"small", "cf", "q", b"v");
}

#[test]
fn issue21_get_rows_naming_a_huge_row_100_times_is_refused_at_the_reply_cap() {
    // Issue 21, 7a: a 736-byte getRows naming one 9 MiB row 100 times took the gateway to
    // 1.7 GB. Now the reply is counted as it is built and refused at --max-reply-mib (Thrift2:
    // the same through getMultiple).
    for gw in GATEWAYS {
        huge_row_100_times(gw);
    }
}

fn huge_row_100_times(gw: Gw) {
    let dir = tempfile::tempdir().unwrap();
    let mut server = gw.start(dir.path());
    let port = server.port;
    setup(gw, port);
    let mut c = Client::binary(port);
    let big = vec![b'x'; 9 << 20];
    gw.put(&mut c, "t", b"big", "cf", "q", &big);
    drop(big);
    // A legitimate multi-row read under the cap still works.
    let (m, args) = gw.get_rows_call("t", &["big", "small", "big"]);
    assert!(matches!(c.call(m, args).success(), Value::List(_, l) if l.len() == 3));
    // The hostile call, from 8 connections at once: each is refused with an IOError naming
    // a limit (the per-reply cap, or the shared pool when the others hold it).
    let hostile: Vec<_> = (0..8)
        .map(|_| {
            std::thread::spawn(move || {
                let mut c = Client::binary(port);
                let (m, args) = gw.get_rows_call("t", &["big"; 100]);
                c.call(m, args).exception(1)
            })
        })
        .collect();
    for h in hostile {
        let m = h.join().unwrap();
        assert!(
            m.contains("--max-reply-mib") || m.contains("--max-reply-memory-mib"),
            "{gw:?}: {m}"
        );
    }
    if gw == Gw::Thrift1 {
        // getRowsWithColumns over the same data obeys the same cap.
        let cols = Value::bin_list(["cf:q"]);
        let names = Value::List(T_STRING, (0..100).map(|_| b("big")).collect());
        let m = c
            .call(
                "getRowsWithColumns",
                vec![(1, b("t")), (2, names), (3, cols)],
            )
            .exception(1);
        assert!(m.contains("--max-reply-mib"), "{m}");
    }
    memory_bounded(
        &mut server,
        &format!("7a {gw:?} getRows x100 of a 9 MiB row"),
    );
    served_within_5s(gw, port, "7a");
}

#[test]
fn issue21_stalled_and_trickling_sockets_do_not_hold_the_gateway() {
    // Issue 21, 7b: 1,030 sockets that send one byte and stall held every connection slot.
    // Now each client address holds at most --max-connections-per-client slots (128), and a
    // message must arrive within --message-deadline-secs of its first byte.
    for gw in GATEWAYS {
        stalled_and_trickling(gw);
    }
}

fn stalled_and_trickling(gw: Gw) {
    let dir = tempfile::tempdir().unwrap();
    let mut server = gw.start_with(dir.path(), &["--message-deadline-secs", "2"]);
    let port = server.port;
    setup(gw, port);
    let target: SocketAddr = ([127, 0, 0, 1], port).into();
    // The hostile client comes from 127.0.0.2 (127.0.0.3 for the second gateway, so the
    // first one's closed sockets do not hold its ports), the well-behaved one from 127.0.0.1.
    let hostile_ip = if gw == Gw::Thrift1 { 2 } else { 3 };
    let hostile_src: SocketAddr = ([127, 0, 0, hostile_ip], 0).into();
    let mut stalled = Vec::new();
    for _ in 0..1_030 {
        let s = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
        s.set_reuse_address(true).unwrap();
        s.bind(&hostile_src.into()).unwrap();
        s.connect(&target.into()).unwrap();
        let mut s: TcpStream = s.into();
        let _ = s.write_all(&[0x80]); // the first byte of a strict binary call
        stalled.push(s);
    }
    served_within_5s(gw, port, "7b with 1,030 stalled sockets");
    // One byte every 300 ms: never idle, but the message deadline still ends it.
    let mut trickle = TcpStream::connect(target).unwrap();
    let call = {
        let mut m = cellbase_cli::thrift::protocol::encode_message(
            cellbase_cli::thrift::protocol::Protocol::Binary,
            "getTableNames",
            cellbase_cli::thrift::protocol::MSG_CALL,
            0,
            &[],
        );
        m.truncate(12);
        m
    };
    for byte in &call {
        if trickle.write_all(&[*byte]).is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    // Every stalled socket and the trickler are closed by the gateway (the 30 s read timeout
    // is a safety net only: a socket still open then fails the test).
    let started = Instant::now();
    for s in stalled.iter_mut().chain(std::iter::once(&mut trickle)) {
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut sink = Vec::new();
        match s.read_to_end(&mut sink) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
            Err(e) => panic!("a stalled connection was not closed: {e}"),
        }
        assert!(sink.is_empty());
    }
    println!(
        "7b: every stalled socket found closed by the deadline ({:?} spent checking)",
        started.elapsed()
    );
    memory_bounded(
        &mut server,
        &format!("7b {gw:?} 1,030 stalled sockets + a trickler"),
    );
    served_within_5s(gw, port, "7b after");
}

#[test]
fn issue21_scanner_flood_then_disconnect_does_not_block_scanning() {
    // Issue 21, 7c: one client opening 10,000 scanners and disconnecting blocked scanning for
    // every client for 10 minutes (the idle timeout). Now a connection holds at most
    // --max-scanners-per-connection, the total is capped, and a closed connection's scanners
    // are released at once.
    for gw in GATEWAYS {
        scanner_flood(gw);
    }
}

fn scanner_flood(gw: Gw) {
    let dir = tempfile::tempdir().unwrap();
    let mut server = gw.start_with(dir.path(), &["--max-scanners", "1000"]);
    let port = server.port;
    setup(gw, port);
    let open = |c: &mut Client| gw.open_scanner(c, "t", None);
    let mut opened = 0;
    let mut refusals = Vec::new();
    let mut hostile: Vec<Client> = (0..4).map(|_| Client::binary(port)).collect();
    for c in hostile.iter_mut() {
        for _ in 0..2_500 {
            let r = open(c);
            match &r {
                Reply::Ok(f) if f.iter().any(|(i, _)| *i == 0) => opened += 1,
                _ => {
                    refusals.push(r.exception(1));
                    break;
                }
            }
        }
    }
    println!("7c: {opened} scanners opened by 4 hostile connections");
    assert_eq!(opened, 1000, "256 + 256 + 256 + 232 (the global cap)");
    assert!(
        refusals[0].contains("--max-scanners-per-connection"),
        "{refusals:?}"
    );
    assert!(
        refusals[3].contains("--max-scanners limit") && refusals[3].contains("1000"),
        "{refusals:?}"
    );
    drop(hostile);
    // Their scanners go when their connections close; a new client scans at once.
    let started = Instant::now();
    let mut c = Client::binary(port);
    let id = loop {
        match open(&mut c) {
            Reply::Ok(f) if !f.is_empty() => break f[0].1.clone(),
            other => {
                assert!(
                    started.elapsed() < Duration::from_secs(5),
                    "no scanner within 5 s: {other:?}"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    };
    assert_eq!(gw.scanner_rows(&mut c, id, 10), 1);
    let took = started.elapsed();
    println!("7c: well-behaved scan served in {took:?}");
    assert!(took < Duration::from_secs(5));
    memory_bounded(
        &mut server,
        &format!("7c {gw:?} 1,000 scanners then disconnect"),
    );
    served_within_5s(gw, port, "7c");
}

#[test]
fn issue21_deeply_nested_filter_string_is_an_ioerror_and_the_gateway_stays_up() {
    // Issue 21, item 6: a filterString nested 3,000 deep (66 KB) overflowed the connection
    // thread's stack and aborted the gateway.
    for gw in GATEWAYS {
        deep_filter(gw);
    }
}

fn deep_filter(gw: Gw) {
    let dir = tempfile::tempdir().unwrap();
    let mut server = gw.start(dir.path());
    let port = server.port;
    setup(gw, port);
    let mut f = "(".repeat(3_000);
    f.push_str("PrefixFilter('s')");
    for _ in 0..3_000 {
        f.push_str(" AND PrefixFilter('s'))");
    }
    assert!(f.len() > 66_000);
    let mut c = Client::binary(port);
    let m = gw.open_scanner(&mut c, "t", Some(&f)).exception(1);
    assert!(
        m.contains("bad filter string") && m.contains("deeper than 100 levels"),
        "{m}"
    );
    memory_bounded(
        &mut server,
        &format!("6 {gw:?} filterString nested 3,000 deep"),
    );
    served_within_5s(gw, port, "6");
}

/// Connections declaring a 60 MiB frame each in the request-memory flood.
const FLOOD_CONNECTIONS: usize = 40;
/// The frame each declares (under the default 64 MiB `--max-message-mib`).
const FLOOD_FRAME: usize = 60 << 20;

/// `FLOOD_CONNECTIONS` clients each declare a `FLOOD_FRAME`-byte framed message and send all
/// of it but its last byte, as fast as the gateway takes it, then hold their connections
/// open (so every message the gateway admitted is in flight at once) until the test has
/// checked a well-behaved client and the gateway's peak RSS. Returns the peak RSS in KiB.
fn request_memory_flood(gw: Gw, extra: &[&str], case: &str, expect_bounded: bool) -> u64 {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let mut server = gw.start_with(dir.path(), extra);
    let port = server.port;
    setup(gw, port);
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicUsize::new(0));
    let complete = Arc::new(AtomicUsize::new(0));
    let hostile: Vec<_> = (0..FLOOD_CONNECTIONS)
        .map(|_| {
            let (stop, sent, complete) = (stop.clone(), sent.clone(), complete.clone());
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
                s.set_write_timeout(Some(Duration::from_millis(200)))
                    .unwrap();
                // The frame length, then a strict binary call header's first bytes.
                let mut head = (FLOOD_FRAME as u32).to_be_bytes().to_vec();
                head.extend_from_slice(&[0x80, 0x01, 0x00, 0x01]);
                s.write_all(&head).unwrap();
                let chunk = vec![0u8; 1 << 20];
                let mut left = FLOOD_FRAME - 4 - 1;
                while left > 0 && !stop.load(Ordering::SeqCst) {
                    match s.write(&chunk[..left.min(chunk.len())]) {
                        Ok(n) => {
                            left -= n;
                            sent.fetch_add(n, Ordering::SeqCst);
                        }
                        Err(e)
                            if matches!(
                                e.kind(),
                                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                            ) => {}
                        Err(_) => break,
                    }
                }
                if left == 0 {
                    complete.fetch_add(1, Ordering::SeqCst);
                }
                while !stop.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(20));
                }
            })
        })
        .collect();
    // Wait until every message is nearly sent, or the gateway stops taking bytes (what it
    // has not admitted waits in the kernel's socket buffers); 60 s at most.
    let started = Instant::now();
    let (mut last, mut last_change) = (0, Instant::now());
    while complete.load(Ordering::SeqCst) < FLOOD_CONNECTIONS
        && last_change.elapsed() < Duration::from_millis(1500)
        && started.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(100));
        let now = sent.load(Ordering::SeqCst);
        if now != last {
            (last, last_change) = (now, Instant::now());
        }
    }
    println!(
        "{case}: {} of {FLOOD_CONNECTIONS} frames sent but their last byte, {} MiB in all, \
         after {:?}",
        complete.load(Ordering::SeqCst),
        sent.load(Ordering::SeqCst) >> 20,
        started.elapsed()
    );
    let hwm = server.status_kib("VmHWM:");
    if expect_bounded {
        served_within_5s(gw, port, &format!("{case}, during"));
        memory_bounded(&mut server, &format!("{case}, during"));
    }
    stop.store(true, Ordering::SeqCst);
    for h in hostile {
        h.join().unwrap();
    }
    if expect_bounded {
        served_within_5s(gw, port, &format!("{case}, after"));
        memory_bounded(&mut server, &format!("{case}, after"));
    }
    println!("{case}: peak RSS {} MiB", hwm >> 10);
    hwm
}

#[test]
fn issue21_many_connections_each_sending_a_huge_frame_stay_under_the_request_budget() {
    // 40 connections x 60 MiB framed messages: each fits --max-message-mib (64), and
    // --max-connections (1024) admits them all, so without a global bound the gateway would
    // hold ~2.4 GiB of frames at once (see the ignored test below, which measures that).
    // --max-request-memory-mib (256) admits two of them at a time (each reserves its frame
    // and its decoded strings, 120 MiB); the others wait, unread, in the kernel's buffers.
    for gw in GATEWAYS {
        request_memory_flood(
            gw,
            &[],
            &format!("{gw:?} request-memory flood (40 x 60 MiB frames)"),
            true,
        );
    }
}

#[test]
#[ignore = "demonstrates the flood without a request budget: takes the gateway to ~2.4 GiB"]
fn without_a_request_budget_the_frame_flood_exceeds_1_gib() {
    let hwm = request_memory_flood(
        Gw::Thrift1,
        &["--max-request-memory-mib", "1000000"],
        "request-memory flood with the budget disabled",
        false,
    );
    assert!(hwm > GIB_KIB, "peak RSS {hwm} KiB");
}
