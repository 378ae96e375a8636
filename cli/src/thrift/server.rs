//! The TCP listener (a thread per connection), the per-connection message loop and the global
//! scanner registry with idle expiry.
use super::protocol::{
    Limits, MSG_CALL, MSG_EXCEPTION, MSG_ONEWAY, MSG_REPLY, ProtoError, Value, encode_message,
};
use super::service::{Dispatch, Fail, Service, encode_rows};
use super::transport::{Replay, detect, read_message, write_message};
use super::types::{
    APP_INTERNAL_ERROR, APP_INVALID_MESSAGE_TYPE, APP_PROTOCOL_ERROR, APP_UNKNOWN_METHOD,
    application_exception,
};
use cellbase::Scanner;
use std::collections::HashMap;
use std::io::{BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking holder cannot leave these maps half-updated in a way that matters more than
    // refusing every later call would, so poisoning is ignored.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

struct OpenScanner {
    scanner: Scanner,
    sorted: bool,
}

struct Slot {
    scanner: Arc<Mutex<OpenScanner>>,
    last_used: Instant,
}

/// Open scanners, shared by all connections (a pooled client may continue a scan on another
/// socket). Ids are allocated 0, 1, 2, … and never reused while open; a scanner untouched for
/// longer than the idle timeout is dropped.
pub struct ScannerRegistry {
    inner: Mutex<RegistryInner>,
    idle: Duration,
    max_open: usize,
}

struct RegistryInner {
    next: i32,
    open: HashMap<i32, Slot>,
}

impl std::fmt::Debug for ScannerRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScannerRegistry")
            .field("open", &self.len())
            .field("idle", &self.idle)
            .finish()
    }
}

impl ScannerRegistry {
    /// An empty registry.
    pub fn new(idle: Duration, max_open: usize) -> Self {
        ScannerRegistry {
            inner: Mutex::new(RegistryInner {
                next: 0,
                open: HashMap::new(),
            }),
            idle,
            max_open: max_open.max(1),
        }
    }

    /// Number of open scanners.
    pub fn len(&self) -> usize {
        lock(&self.inner).open.len()
    }

    /// True when no scanner is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops scanners idle since before `now - idle`; returns how many.
    pub fn expire(&self, now: Instant) -> usize {
        let mut g = lock(&self.inner);
        let before = g.open.len();
        let idle = self.idle;
        g.open
            .retain(|_, s| now.saturating_duration_since(s.last_used) <= idle);
        before - g.open.len()
    }

    pub(crate) fn insert(&self, scanner: Scanner, sorted: bool) -> Result<i32, Fail> {
        self.expire(Instant::now());
        let mut g = lock(&self.inner);
        if g.open.len() >= self.max_open {
            return Err(Fail::Io(format!(
                "too many open scanners ({}); close some",
                self.max_open
            )));
        }
        let mut id = g.next;
        while g.open.contains_key(&id) {
            id = id.checked_add(1).unwrap_or(0);
        }
        g.next = id.checked_add(1).unwrap_or(0);
        g.open.insert(
            id,
            Slot {
                scanner: Arc::new(Mutex::new(OpenScanner { scanner, sorted })),
                last_used: Instant::now(),
            },
        );
        Ok(id)
    }

    pub(crate) fn next_rows(&self, id: i32, n: i32) -> Result<Vec<Value>, Fail> {
        let s = {
            let mut g = lock(&self.inner);
            let slot = g
                .open
                .get_mut(&id)
                .ok_or_else(|| Fail::Illegal("scanner ID is invalid".into()))?;
            slot.last_used = Instant::now();
            slot.scanner.clone()
        };
        let mut s = lock(&s);
        let mut rows = Vec::new();
        for _ in 0..n.max(0) {
            match s.scanner.next() {
                Some(Ok(r)) => rows.push(r),
                Some(Err(e)) => return Err(e.into()),
                None => break,
            }
        }
        let sorted = s.sorted;
        drop(s);
        if let Some(slot) = lock(&self.inner).open.get_mut(&id) {
            slot.last_used = Instant::now();
        }
        Ok(encode_rows(&rows, sorted))
    }

    pub(crate) fn remove(&self, id: i32) -> bool {
        lock(&self.inner).open.remove(&id).is_some()
    }
}

/// Server settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// Maximum message (and frame) size in bytes.
    pub max_message: usize,
    /// Maximum simultaneous connections; more are accepted and closed at once.
    pub max_connections: usize,
    /// Close a connection that sends nothing for this long (`None`: never).
    pub idle_timeout: Option<Duration>,
}

/// Accepts connections forever, each on its own thread.
pub fn serve(listener: TcpListener, service: Arc<Service>, cfg: Config) -> std::io::Result<()> {
    let live = Arc::new(AtomicUsize::new(0));
    {
        // Expire idle scanners even when nobody opens new ones.
        let service = service.clone();
        std::thread::Builder::new()
            .name("thrift-scanner-reaper".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(Duration::from_secs(5));
                    service.scanners().expire(Instant::now());
                }
            })?;
    }
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(s) => s,
            Err(e) => {
                eprintln!("thrift: accept failed: {e}");
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        if live.load(Ordering::SeqCst) >= cfg.max_connections {
            drop(stream);
            continue;
        }
        live.fetch_add(1, Ordering::SeqCst);
        let service = service.clone();
        let live2 = live.clone();
        let limits = Limits {
            max_message: cfg.max_message,
            ..Limits::default()
        };
        let _ = stream.set_read_timeout(cfg.idle_timeout);
        let spawned = std::thread::Builder::new()
            .name("thrift-conn".into())
            .spawn(move || {
                let _ = handle_connection(stream, &service, limits);
                live2.fetch_sub(1, Ordering::SeqCst);
            });
        if let Err(e) = spawned {
            live.fetch_sub(1, Ordering::SeqCst);
            eprintln!("thrift: cannot start a connection thread: {e}");
        }
    }
    Ok(())
}

/// Serves one connection until the peer closes it or sends something undecodable.
pub fn handle_connection(
    stream: TcpStream,
    service: &Service,
    limits: Limits,
) -> std::io::Result<()> {
    let _ = stream.set_nodelay(true);
    let mut out = stream.try_clone()?;
    let mut input = BufReader::with_capacity(64 * 1024, stream);
    let Some((transport, proto, prefix)) = detect(&mut input)? else {
        return Ok(());
    };
    let mut input = Replay::new(prefix, input);
    loop {
        let msg = match read_message(&mut input, transport, proto, limits) {
            Ok(m) => m,
            Err(f) => {
                if let (Some(h), ProtoError::Invalid(_) | ProtoError::TooLarge(_)) =
                    (&f.header, &f.error)
                {
                    let body = application_exception(&f.error.to_string(), APP_PROTOCOL_ERROR);
                    let reply = encode_message(proto, &h.name, MSG_EXCEPTION, h.seqid, &body);
                    let _ = write_message(&mut out, transport, &reply);
                }
                // After a protocol error the stream position is unknown: close. Send our FIN
                // first and drain a bounded amount of what the peer still sends, so the
                // exception is not lost to a reset caused by unread input.
                let _ = out.shutdown(std::net::Shutdown::Write);
                let _ = out.set_read_timeout(Some(Duration::from_secs(2)));
                let _ = std::io::copy(&mut (&mut input).take(8 << 20), &mut std::io::sink());
                return Ok(());
            }
        };
        let h = msg.header;
        if h.mtype != MSG_CALL && h.mtype != MSG_ONEWAY {
            let body = application_exception(
                &format!("expected a call, got message type {}", h.mtype),
                APP_INVALID_MESSAGE_TYPE,
            );
            let reply = encode_message(proto, &h.name, MSG_EXCEPTION, h.seqid, &body);
            write_message(&mut out, transport, &reply)?;
            continue;
        }
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            service.dispatch(&h.name, &msg.body)
        }));
        let reply = match result {
            Ok(Dispatch::Reply(body)) => encode_message(proto, &h.name, MSG_REPLY, h.seqid, &body),
            Ok(Dispatch::UnknownMethod) => encode_message(
                proto,
                &h.name,
                MSG_EXCEPTION,
                h.seqid,
                &application_exception(
                    &format!("Invalid method name: '{}'", h.name),
                    APP_UNKNOWN_METHOD,
                ),
            ),
            Err(_) => encode_message(
                proto,
                &h.name,
                MSG_EXCEPTION,
                h.seqid,
                &application_exception("internal error", APP_INTERNAL_ERROR),
            ),
        };
        if h.mtype == MSG_ONEWAY {
            continue;
        }
        write_message(&mut out, transport, &reply)?;
    }
}

/// Writes `listening on ADDR` on stdout and flushes (tests and scripts read this line).
pub fn announce(addr: std::net::SocketAddr) {
    let mut so = std::io::stdout();
    let _ = writeln!(so, "listening on {addr}");
    let _ = so.flush();
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellbase::{Db, FamilyDescriptor, Put, Scan, TableDescriptor};

    #[test]
    fn scanner_ids_are_global_and_idle_scanners_expire() {
        let db = Db::temporary().unwrap();
        let t = db
            .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("cf")))
            .unwrap();
        t.put(Put::new("r").add("cf", "q", "v")).unwrap();
        let idle = Duration::from_secs(60);
        let reg = ScannerRegistry::new(idle, 2);
        let a = reg.insert(t.scan(Scan::new()).unwrap(), false).unwrap();
        let b = reg.insert(t.scan(Scan::new()).unwrap(), true).unwrap();
        assert_eq!((a, b), (0, 1));
        // The cap on open scanners.
        assert!(matches!(
            reg.insert(t.scan(Scan::new()).unwrap(), false),
            Err(Fail::Io(_))
        ));
        assert_eq!(reg.next_rows(a, 10).unwrap().len(), 1);
        assert!(reg.next_rows(a, 10).unwrap().is_empty());
        // Nothing is idle yet; far in the future both are.
        assert_eq!(reg.expire(Instant::now()), 0);
        assert_eq!(
            reg.expire(Instant::now() + idle + Duration::from_secs(1)),
            2
        );
        assert!(reg.is_empty());
        assert_eq!(
            reg.next_rows(a, 1).unwrap_err(),
            Fail::Illegal("scanner ID is invalid".into())
        );
        assert!(!reg.remove(b));
        // Ids keep increasing after expiry.
        assert_eq!(reg.insert(t.scan(Scan::new()).unwrap(), false).unwrap(), 2);
    }
}
