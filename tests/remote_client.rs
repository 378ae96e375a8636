//! The remote backend's client against a scripted Thrift2 server: retries of reads and not
//! of writes, timeouts, the reply bound, the connection bound, and server errors back to
//! typed errors. (Its behaviour against a real gateway is the conformance suite's:
//! cli/tests/conformance/.)

use cellbase::{Db, Error, Get, Put, RemoteOptions};
use cellbase_thrift::protocol::{
    Limits, MSG_EXCEPTION, MSG_REPLY, Protocol, T_STRUCT, Value, encode_message,
};
use cellbase_thrift::transport::{Transport, read_message, write_message};
use std::io::BufReader;
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// What the scripted server does with one call.
enum Act {
    /// Reply with this body (field 0 = success, 1 = TIOError).
    Reply(Vec<(i16, Value)>),
    /// An application exception with this message.
    Exception(&'static str),
    /// Close the connection without replying.
    Drop,
    /// Never reply (keep the connection open).
    Hang,
    /// Write these raw bytes as the reply.
    Raw(Vec<u8>),
}

#[derive(Default)]
struct Counts {
    connections: AtomicUsize,
    open: AtomicUsize,
    max_open: AtomicUsize,
    calls: AtomicUsize,
}

/// Serves each connection on its own thread, answering calls with `script(method, args)`.
fn server(
    script: impl Fn(&str, &[(i16, Value)]) -> Act + Send + Sync + 'static,
) -> (String, Arc<Counts>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = format!("thrift2://{}", l.local_addr().unwrap());
    let counts = Arc::new(Counts::default());
    let script = Arc::new(script);
    let c = counts.clone();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(s) = s else { return };
            let (script, c) = (script.clone(), c.clone());
            c.connections.fetch_add(1, Ordering::SeqCst);
            let open = c.open.fetch_add(1, Ordering::SeqCst) + 1;
            c.max_open.fetch_max(open, Ordering::SeqCst);
            std::thread::spawn(move || {
                serve(s, &*script, &c);
                c.open.fetch_sub(1, Ordering::SeqCst);
            });
        }
    });
    (addr, counts)
}

/// What the scripted server answers, given a call's method and arguments.
type Script = dyn Fn(&str, &[(i16, Value)]) -> Act;

fn serve(s: TcpStream, script: &Script, c: &Counts) {
    let mut w = s.try_clone().unwrap();
    let mut r = BufReader::new(s);
    loop {
        let Ok(m) = read_message(
            &mut r,
            Transport::Buffered,
            Protocol::Binary,
            Limits::default(),
        ) else {
            return;
        };
        c.calls.fetch_add(1, Ordering::SeqCst);
        let (name, seq) = (m.header.name.as_str(), m.header.seqid);
        let bytes = match script(name, &m.body) {
            Act::Reply(body) => encode_message(Protocol::Binary, name, MSG_REPLY, seq, &body),
            Act::Exception(msg) => encode_message(
                Protocol::Binary,
                name,
                MSG_EXCEPTION,
                seq,
                &[(1, Value::bin(msg)), (2, Value::I32(6))],
            ),
            Act::Drop => return,
            Act::Hang => {
                std::thread::sleep(Duration::from_secs(30));
                return;
            }
            Act::Raw(b) => b,
        };
        if write_message(&mut w, Transport::Buffered, &bytes).is_err() {
            return;
        }
    }
}

fn ok_bool(b: bool) -> Act {
    Act::Reply(vec![(0, Value::Bool(b))])
}

fn empty_result() -> Act {
    Act::Reply(vec![(
        0,
        Value::Struct(vec![(2, Value::List(T_STRUCT, vec![]))]),
    )])
}

fn io_error(msg: &str) -> Act {
    Act::Reply(vec![(1, Value::Struct(vec![(1, Value::bin(msg))]))])
}

fn fast(retries: u32) -> RemoteOptions {
    RemoteOptions::default()
        .retries(retries, Duration::from_millis(1))
        .request_timeout(Duration::from_secs(10))
}

#[test]
fn a_read_is_retried_on_a_new_connection_after_the_old_one_drops() {
    let gets = Arc::new(AtomicUsize::new(0));
    let g = gets.clone();
    let (addr, counts) = server(move |m, _| match m {
        "tableExists" => ok_bool(true),
        "get" if g.fetch_add(1, Ordering::SeqCst) < 2 => Act::Drop,
        "get" => empty_result(),
        _ => Act::Drop,
    });
    let db = Db::connect_with(&addr, fast(3)).unwrap();
    let t = db.table("t").unwrap();
    assert!(t.get(Get::new("r")).unwrap().is_empty());
    assert_eq!(
        gets.load(Ordering::SeqCst),
        3,
        "two failures, then the answer"
    );
    assert_eq!(counts.connections.load(Ordering::SeqCst), 3);
}

#[test]
fn reads_give_up_after_the_configured_retries() {
    let (addr, _) = server(|m, _| match m {
        "tableExists" => ok_bool(true),
        _ => Act::Drop,
    });
    let db = Db::connect_with(&addr, fast(2)).unwrap();
    let t = db.table("t").unwrap();
    assert!(matches!(t.get(Get::new("r")), Err(Error::Io(_))));
}

#[test]
fn a_write_that_may_have_reached_the_server_is_not_sent_twice() {
    let puts = Arc::new(AtomicUsize::new(0));
    let p = puts.clone();
    let (addr, _) = server(move |m, _| match m {
        "tableExists" => ok_bool(true),
        "put" => {
            p.fetch_add(1, Ordering::SeqCst);
            Act::Drop
        }
        _ => Act::Drop,
    });
    let db = Db::connect_with(&addr, fast(5)).unwrap();
    let t = db.table("t").unwrap();
    let e = t.put(Put::new("r").add("f", "q", "v")).unwrap_err();
    assert!(matches!(e, Error::Io(_)), "{e:?}");
    assert_eq!(puts.load(Ordering::SeqCst), 1, "the put was sent once");
}

#[test]
fn a_server_that_never_answers_fails_the_call_at_the_request_timeout() {
    let (addr, _) = server(|m, _| match m {
        "tableExists" => ok_bool(true),
        _ => Act::Hang,
    });
    let opts = fast(0).request_timeout(Duration::from_millis(200));
    let db = Db::connect_with(&addr, opts).unwrap();
    let t = db.table("t").unwrap();
    assert!(matches!(t.get(Get::new("r")), Err(Error::Io(_))));
}

#[test]
fn a_reply_longer_than_the_bound_is_refused_before_it_is_read() {
    // A reply declaring a 1 GiB string: refused from its length, not allocated.
    let mut huge = encode_message(Protocol::Binary, "get", MSG_REPLY, 1, &[]);
    huge.truncate(huge.len() - 1); // drop the struct's stop byte
    huge.extend_from_slice(&[12, 0, 0]); // field 0: a struct
    huge.extend_from_slice(&[11, 0, 1]); // its field 1: binary
    huge.extend_from_slice(&(1u32 << 30).to_be_bytes());
    let (addr, _) = server(move |m, _| match m {
        "tableExists" => ok_bool(true),
        _ => Act::Raw(huge.clone()),
    });
    let db = Db::connect_with(&addr, fast(0).max_reply_bytes(1 << 20)).unwrap();
    let t = db.table("t").unwrap();
    match t.get(Get::new("r")) {
        Err(Error::Io(e)) => assert!(e.to_string().contains("bad reply"), "{e}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_pool_never_opens_more_connections_than_its_size() {
    let (addr, counts) = server(|m, _| match m {
        "tableExists" => ok_bool(true),
        _ => empty_result(),
    });
    let db = Db::connect_with(&addr, fast(0).pool_size(2)).unwrap();
    let t = db.table("t").unwrap();
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                for _ in 0..25 {
                    t.get(Get::new("r")).unwrap();
                }
            });
        }
    });
    assert!(counts.max_open.load(Ordering::SeqCst) <= 2);
    assert!(counts.connections.load(Ordering::SeqCst) <= 2);
    assert_eq!(counts.calls.load(Ordering::SeqCst), 1 + 200);
}

#[test]
fn server_errors_come_back_as_the_engines_typed_errors() {
    let (addr, _) = server(|m, _| match m {
        "tableExists" => ok_bool(true),
        "get" => io_error("table not found: ghost"),
        "put" => io_error("column family nope does not exist in table t"),
        "exists" => io_error("java.io.IOException: region is busy"),
        _ => Act::Exception("Invalid method name: 'increment'"),
    });
    let db = Db::connect_with(&addr, fast(0)).unwrap();
    let t = db.table("t").unwrap();
    assert!(matches!(t.get(Get::new("r")), Err(Error::TableNotFound(n)) if n == "ghost"));
    assert!(matches!(
        t.put(Put::new("r").add("nope", "q", "v")),
        Err(Error::NoSuchFamily { table, family }) if table == "t" && family == "nope"
    ));
    assert!(
        matches!(t.exists(Get::new("r")), Err(Error::Remote(m)) if m.contains("region is busy"))
    );
    assert!(matches!(
        t.increment(cellbase::Increment::new("r").add("f", "q", 1)),
        Err(Error::Remote(m)) if m.contains("Invalid method name")
    ));
}

#[test]
fn a_bad_address_is_refused_and_an_unreachable_one_is_an_io_error() {
    assert!(matches!(
        Db::connect("http://localhost:9090"),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        Db::connect("thrift2://"),
        Err(Error::InvalidArgument(_))
    ));
    // A port nothing listens on (bound, then closed).
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let e = Db::connect_with(&format!("thrift2://127.0.0.1:{port}"), fast(0)).unwrap_err();
    assert!(
        matches!(&e, Error::Io(_)) && e.to_string().contains(&port.to_string()),
        "{e}"
    );
}

/// A scripted table of rows r0..r9 behind openScanner / getScannerRows / closeScanner; the
/// connection of the `drop_at`-th getScannerRows call (counting from 1) is dropped unanswered.
fn scanning_server(drop_at: usize) -> (String, Arc<std::sync::Mutex<Vec<Vec<u8>>>>) {
    let rows: Vec<Vec<u8>> = (0..10).map(|i| format!("r{i}").into_bytes()).collect();
    let opened_at = Arc::new(std::sync::Mutex::new(Vec::new()));
    let state = Arc::new(std::sync::Mutex::new((
        0usize,
        std::collections::HashMap::new(),
    )));
    let o = opened_at.clone();
    let (addr, _) = server(move |m, args| {
        let mut st = state.lock().unwrap();
        match m {
            "tableExists" => ok_bool(true),
            "openScanner" => {
                let Some((_, Value::Struct(tscan))) = args.iter().find(|(i, _)| *i == 2) else {
                    return Act::Drop;
                };
                let start = tscan
                    .iter()
                    .find_map(|(i, v)| match (i, v) {
                        (1, Value::Binary(b)) => Some(b.clone()),
                        _ => None,
                    })
                    .unwrap_or_default();
                o.lock().unwrap().push(start.clone());
                let from = rows.iter().position(|r| *r >= start).unwrap_or(rows.len());
                let id = st.1.len() as i32;
                st.1.insert(id, from);
                Act::Reply(vec![(0, Value::I32(id))])
            }
            "getScannerRows" => {
                st.0 += 1;
                if st.0 == drop_at {
                    return Act::Drop;
                }
                let id = match args.iter().find(|(i, _)| *i == 1) {
                    Some((_, Value::I32(id))) => *id,
                    _ => return Act::Drop,
                };
                let n = match args.iter().find(|(i, _)| *i == 2) {
                    Some((_, Value::I32(n))) => *n as usize,
                    _ => 1,
                };
                let from = st.1[&id];
                let to = (from + n).min(rows.len());
                st.1.insert(id, to);
                let results = rows[from..to]
                    .iter()
                    .map(|r| {
                        let cell = Value::Struct(vec![
                            (1, Value::bin("f")),
                            (2, Value::bin("q")),
                            (3, Value::bin(r)),
                            (4, Value::I64(1)),
                        ]);
                        Value::Struct(vec![
                            (1, Value::bin(r)),
                            (2, Value::List(T_STRUCT, vec![cell])),
                        ])
                    })
                    .collect();
                Act::Reply(vec![(0, Value::List(T_STRUCT, results))])
            }
            "closeScanner" => Act::Reply(vec![]),
            _ => Act::Drop,
        }
    });
    (addr, opened_at)
}

fn rows_of(t: &cellbase::Table, s: cellbase::Scan) -> Result<Vec<String>, Error> {
    t.scan(s)?
        .map(|r| r.map(|r| String::from_utf8_lossy(r.row()).into_owned()))
        .collect()
}

#[test]
fn a_scan_resumes_after_its_connection_drops_without_losing_or_repeating_a_row() {
    let (addr, opened_at) = scanning_server(2);
    let db = Db::connect_with(&addr, fast(3).scanner_caching(3)).unwrap();
    let t = db.table("t").unwrap();
    let all: Vec<String> = (0..10).map(|i| format!("r{i}")).collect();
    assert_eq!(rows_of(&t, cellbase::Scan::new()).unwrap(), all);
    // Reopened at the last row handed out (r2, the third of the first batch of 3).
    assert_eq!(*opened_at.lock().unwrap(), [b"".to_vec(), b"r2".to_vec()]);
}

#[test]
fn a_limited_scan_keeps_its_limit_across_a_resume() {
    let (addr, _) = scanning_server(2);
    let db = Db::connect_with(&addr, fast(3).scanner_caching(2)).unwrap();
    let t = db.table("t").unwrap();
    assert_eq!(
        rows_of(&t, cellbase::Scan::new().limit(5)).unwrap(),
        ["r0", "r1", "r2", "r3", "r4"]
    );
}

#[test]
fn a_filtered_scan_fails_instead_of_resuming() {
    let (addr, opened_at) = scanning_server(2);
    let db = Db::connect_with(&addr, fast(3).scanner_caching(3)).unwrap();
    let t = db.table("t").unwrap();
    let s = cellbase::Scan::new().filter(cellbase::Filter::Page(100));
    assert!(matches!(rows_of(&t, s), Err(Error::Io(_))));
    assert_eq!(opened_at.lock().unwrap().len(), 1);
}
