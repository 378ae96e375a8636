//! Connection slots shared by the gateways (`cellbase thrift`, `cellbase rest`): a bound on
//! the connections open at once and on those from one client address, so one client cannot
//! take every connection thread (docs/THRIFT.md and docs/REST.md, "Limits").

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};

#[derive(Debug, Default)]
struct Counts {
    live: usize,
    per_client: HashMap<IpAddr, usize>,
}

fn lock(m: &Mutex<Counts>) -> MutexGuard<'_, Counts> {
    // The counts are updated in one step under the lock: a panicking holder cannot leave them
    // half-changed, so poisoning is ignored.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The connection slots of one gateway.
#[derive(Debug)]
pub(crate) struct ConnectionSlots {
    counts: Arc<Mutex<Counts>>,
    max: usize,
    max_per_client: usize,
}

/// Why a connection got no slot: the connections open then, in all and from its client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Refused {
    pub live: usize,
    pub from_client: usize,
}

impl ConnectionSlots {
    /// At most `max` connections at once, at most `max_per_client` from one address.
    pub(crate) fn new(max: usize, max_per_client: usize) -> ConnectionSlots {
        ConnectionSlots {
            counts: Arc::default(),
            max,
            max_per_client,
        }
    }

    /// Takes a slot for a connection from `ip`; it is given back when the guard drops (when
    /// the connection's thread ends).
    pub(crate) fn take(&self, ip: IpAddr) -> Result<SlotGuard, Refused> {
        let mut g = lock(&self.counts);
        let mine = g.per_client.get(&ip).copied().unwrap_or(0);
        if g.live >= self.max || mine >= self.max_per_client {
            return Err(Refused {
                live: g.live,
                from_client: mine,
            });
        }
        g.live += 1;
        *g.per_client.entry(ip).or_insert(0) += 1;
        Ok(SlotGuard {
            counts: self.counts.clone(),
            ip,
        })
    }

    /// Waits until every connection gave its slot back or `grace` passed (checking every
    /// 20 ms); returns how many were still open.
    pub(crate) fn wait_until_closed(&self, grace: std::time::Duration) -> usize {
        let deadline = std::time::Instant::now() + grace;
        loop {
            let live = lock(&self.counts).live;
            if live == 0 || std::time::Instant::now() >= deadline {
                return live;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

impl ConnectionSlots {
    /// The accept loop both gateways run: until `stopping()`, each accepted connection either
    /// gets a slot and goes to `serve` with its guard, or is over a limit and goes to
    /// `refuse`. A failed accept is reported and retried after 50 ms.
    pub(crate) fn accept_each(
        &self,
        gateway: &str,
        listener: &std::net::TcpListener,
        stopping: impl Fn() -> bool,
        mut refuse: impl FnMut(std::net::TcpStream, std::net::SocketAddr, Refused),
        mut serve: impl FnMut(std::net::TcpStream, std::net::SocketAddr, SlotGuard),
    ) {
        for stream in listener.incoming() {
            if stopping() {
                break;
            }
            let stream = match stream {
                Ok(s) => s,
                Err(e) => {
                    crate::stderr_line!("{gateway}: accept failed: {e}");
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    continue;
                }
            };
            let Ok(peer) = stream.peer_addr() else {
                continue;
            };
            match self.take(peer.ip()) {
                Ok(guard) => serve(stream, peer, guard),
                Err(r) => refuse(stream, peer, r),
            }
        }
    }
}

/// Gives a connection slot back when the connection's thread ends.
#[derive(Debug)]
pub(crate) struct SlotGuard {
    counts: Arc<Mutex<Counts>>,
    ip: IpAddr,
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        let mut g = lock(&self.counts);
        g.live -= 1;
        if let Some(n) = g.per_client.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                g.per_client.remove(&self.ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_bound_all_and_per_client_and_come_back() {
        let s = ConnectionSlots::new(3, 2);
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let a1 = s.take(a).unwrap();
        let _a2 = s.take(a).unwrap();
        assert_eq!(
            s.take(a).unwrap_err(),
            Refused {
                live: 2,
                from_client: 2
            }
        );
        let _b1 = s.take(b).unwrap();
        assert_eq!(
            s.take(b).unwrap_err(),
            Refused {
                live: 3,
                from_client: 1
            }
        );
        drop(a1);
        let _b2 = s.take(b).unwrap();
        assert!(s.take(a).is_err());
    }
}
