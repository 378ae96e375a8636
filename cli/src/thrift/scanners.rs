//! Open scanners, shared by every connection: ids, idle expiry, the per-connection and global
//! caps, and batches cut at the reply budget.
use super::call::{Fail, ReplyBudget, row_reply_bytes};
use super::protocol::Value;
use cellbase::{RowResult, Scanner};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking holder cannot leave the registry half-updated in a way that matters more
    // than refusing every later call would, so poisoning is ignored.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// How a scanner's rows go on the wire: Thrift1's `TRowResult` (map or sorted list) or
/// Thrift2's `TResult`, chosen when the scanner is opened.
pub type RowEncoder = fn(&RowResult) -> Value;

struct OpenScanner {
    scanner: Scanner,
    encode: RowEncoder,
    /// A row read but left out of the last batch because the reply was full.
    pending: Option<RowResult>,
}

struct Slot {
    scanner: Arc<Mutex<OpenScanner>>,
    last_used: Instant,
    owner: u64,
}

/// Open scanners, shared by all connections (a pooled client may continue a scan on another
/// socket). Ids are allocated 0, 1, 2, … and never reused while open; a scanner untouched for
/// longer than the idle timeout is dropped.
///
/// Each scanner belongs to the connection that opened it: at most `max_per_owner` per
/// connection, `max_open` in all, and a connection's scanners are released as soon as it
/// closes ([`ScannerRegistry::release_owner`]), so a client that opens thousands and
/// disconnects does not block scanning for everyone until the idle timeout (issue 21, 7c).
pub struct ScannerRegistry {
    inner: Mutex<RegistryInner>,
    idle: Duration,
    max_open: usize,
    max_per_owner: usize,
}

struct RegistryInner {
    next: i32,
    open: HashMap<i32, Slot>,
    per_owner: HashMap<u64, usize>,
}

impl RegistryInner {
    fn forget(&mut self, slot: &Slot) {
        if let Some(n) = self.per_owner.get_mut(&slot.owner) {
            *n -= 1;
            if *n == 0 {
                self.per_owner.remove(&slot.owner);
            }
        }
    }
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
    /// An empty registry: at most `max_open` scanners, `max_per_owner` per connection.
    pub fn new(idle: Duration, max_open: usize, max_per_owner: usize) -> Self {
        ScannerRegistry {
            inner: Mutex::new(RegistryInner {
                next: 0,
                open: HashMap::new(),
                per_owner: HashMap::new(),
            }),
            idle,
            max_open: max_open.max(1),
            max_per_owner: max_per_owner.max(1),
        }
    }

    /// Closes every scanner opened by connection `owner`; returns how many.
    pub fn release_owner(&self, owner: u64) -> usize {
        let mut g = lock(&self.inner);
        if g.per_owner.remove(&owner).is_none() {
            return 0;
        }
        let before = g.open.len();
        let gone: Vec<Slot> = {
            let ids: Vec<i32> = g
                .open
                .iter()
                .filter(|(_, s)| s.owner == owner)
                .map(|(id, _)| *id)
                .collect();
            ids.iter().filter_map(|id| g.open.remove(id)).collect()
        };
        let n = before - g.open.len();
        drop(g);
        // The engine scanners are dropped outside the registry lock.
        drop(gone);
        n
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
        let idle = self.idle;
        let ids: Vec<i32> = g
            .open
            .iter()
            .filter(|(_, s)| now.saturating_duration_since(s.last_used) > idle)
            .map(|(id, _)| *id)
            .collect();
        let mut gone = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(slot) = g.open.remove(&id) {
                g.forget(&slot);
                gone.push(slot);
            }
        }
        drop(g);
        gone.len()
    }

    pub(crate) fn insert(
        &self,
        scanner: Scanner,
        encode: RowEncoder,
        owner: u64,
    ) -> Result<i32, Fail> {
        self.expire(Instant::now());
        let mut g = lock(&self.inner);
        if g.open.len() >= self.max_open {
            return Err(Fail::Io(format!(
                "too many open scanners: {} in all (the gateway's --max-scanners limit); \
                 close some",
                self.max_open
            )));
        }
        let mine = g.per_owner.get(&owner).copied().unwrap_or(0);
        if mine >= self.max_per_owner {
            return Err(Fail::Io(format!(
                "too many open scanners on this connection: {} (the gateway's \
                 --max-scanners-per-connection limit); close some",
                self.max_per_owner
            )));
        }
        let mut id = g.next;
        while g.open.contains_key(&id) {
            id = id.checked_add(1).unwrap_or(0);
        }
        g.next = id.checked_add(1).unwrap_or(0);
        *g.per_owner.entry(owner).or_insert(0) += 1;
        g.open.insert(
            id,
            Slot {
                scanner: Arc::new(Mutex::new(OpenScanner {
                    scanner,
                    encode,
                    pending: None,
                })),
                last_used: Instant::now(),
                owner,
            },
        );
        Ok(id)
    }

    /// Up to `n` rows of scanner `id`, as many as fit in `budget`: a full reply ends the batch
    /// early (the row that did not fit comes first next time), as HBase's
    /// `hbase.server.scanner.max.result.size` does. A single row larger than the whole budget
    /// is an error naming the limit.
    pub(crate) fn next_rows(
        &self,
        id: i32,
        n: i32,
        budget: &mut ReplyBudget,
    ) -> Result<Vec<Value>, Fail> {
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
        let encode = s.encode;
        let mut rows = Vec::new();
        let mut delivered = 0;
        while delivered < n.max(0) {
            let r = match s.pending.take() {
                Some(r) => r,
                None => match s.scanner.next() {
                    Some(Ok(r)) => r,
                    Some(Err(e)) => return Err(e.into()),
                    None => break,
                },
            };
            if r.is_empty() {
                continue;
            }
            if let Err(e) = budget.charge(row_reply_bytes(&r)) {
                if rows.is_empty() {
                    return Err(e);
                }
                s.pending = Some(r);
                break;
            }
            rows.push(encode(&r));
            delivered += 1;
        }
        drop(s);
        if let Some(slot) = lock(&self.inner).open.get_mut(&id) {
            slot.last_used = Instant::now();
        }
        Ok(rows)
    }

    pub(crate) fn remove(&self, id: i32) -> bool {
        let mut g = lock(&self.inner);
        match g.open.remove(&id) {
            Some(slot) => {
                g.forget(&slot);
                drop(g);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::thrift::types::trow_result;
    use cellbase::{Db, FamilyDescriptor, Put, Scan, TableDescriptor};

    fn unsorted(r: &RowResult) -> Value {
        trow_result(r, false)
    }

    #[test]
    fn scanner_ids_are_global_and_idle_scanners_expire() {
        let db = Db::temporary().unwrap();
        let t = db
            .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("cf")))
            .unwrap();
        t.put(Put::new("r").add("cf", "q", "v")).unwrap();
        let idle = Duration::from_secs(60);
        let reg = ScannerRegistry::new(idle, 2, 2);
        let a = reg
            .insert(t.scan(Scan::new()).unwrap(), unsorted, 0)
            .unwrap();
        let b = reg
            .insert(t.scan(Scan::new()).unwrap(), unsorted, 1)
            .unwrap();
        assert_eq!((a, b), (0, 1));
        // The cap on open scanners.
        assert!(matches!(
            reg.insert(t.scan(Scan::new()).unwrap(), unsorted, 2),
            Err(Fail::Io(_))
        ));
        let mut budget = ReplyBudget::standalone(1 << 20);
        assert_eq!(reg.next_rows(a, 10, &mut budget).unwrap().len(), 1);
        assert!(reg.next_rows(a, 10, &mut budget).unwrap().is_empty());
        // Nothing is idle yet; far in the future both are.
        assert_eq!(reg.expire(Instant::now()), 0);
        assert_eq!(
            reg.expire(Instant::now() + idle + Duration::from_secs(1)),
            2
        );
        assert!(reg.is_empty());
        assert_eq!(
            reg.next_rows(a, 1, &mut budget).unwrap_err(),
            Fail::Illegal("scanner ID is invalid".into())
        );
        assert!(!reg.remove(b));
        // Ids keep increasing after expiry.
        assert_eq!(
            reg.insert(t.scan(Scan::new()).unwrap(), unsorted, 0)
                .unwrap(),
            2
        );
    }

    #[test]
    fn issue21_scanners_are_capped_per_connection_and_released_when_it_closes() {
        // Issue 21, 7c: one client opening 10,000 scanners and disconnecting blocked scanning
        // for everyone until the idle timeout (10 minutes).
        let db = Db::temporary().unwrap();
        let t = db
            .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("cf")))
            .unwrap();
        let reg = ScannerRegistry::new(Duration::from_secs(600), 5, 3);
        for _ in 0..3 {
            reg.insert(t.scan(Scan::new()).unwrap(), unsorted, 7)
                .unwrap();
        }
        let Err(Fail::Io(m)) = reg.insert(t.scan(Scan::new()).unwrap(), unsorted, 7) else {
            panic!("a fourth scanner on one connection must be refused");
        };
        assert!(
            m.contains("--max-scanners-per-connection") && m.contains('3'),
            "{m}"
        );
        // Another connection still gets its own, up to the global cap.
        reg.insert(t.scan(Scan::new()).unwrap(), unsorted, 8)
            .unwrap();
        let id = reg
            .insert(t.scan(Scan::new()).unwrap(), unsorted, 8)
            .unwrap();
        let Err(Fail::Io(m)) = reg.insert(t.scan(Scan::new()).unwrap(), unsorted, 9) else {
            panic!("the global cap must hold");
        };
        assert!(m.contains("--max-scanners") && m.contains('5'), "{m}");
        // Connection 7 closes: its scanners go at once, the others stay.
        assert_eq!(reg.release_owner(7), 3);
        assert_eq!(reg.len(), 2);
        assert_eq!(reg.release_owner(7), 0);
        reg.insert(t.scan(Scan::new()).unwrap(), unsorted, 9)
            .unwrap();
        // Closing one by id frees its per-connection slot too.
        assert!(reg.remove(id));
        assert_eq!(reg.release_owner(8), 1);
        assert_eq!(reg.len(), 1);
    }

    #[test]
    fn issue21_scanner_batches_stop_at_the_reply_budget_without_losing_a_row() {
        let db = Db::temporary().unwrap();
        let t = db
            .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("cf")))
            .unwrap();
        for i in 0..10 {
            t.put(Put::new(format!("r{i}")).add("cf", "q", vec![b'x'; 1000]))
                .unwrap();
        }
        let reg = ScannerRegistry::new(Duration::from_secs(600), 5, 5);
        let id = reg
            .insert(t.scan(Scan::new()).unwrap(), unsorted, 0)
            .unwrap();
        let mut got = 0;
        let mut calls = 0;
        loop {
            // Room for about three rows per reply.
            let mut budget = ReplyBudget::standalone(3_500);
            let rows = reg.next_rows(id, 1000, &mut budget).unwrap();
            if rows.is_empty() {
                break;
            }
            assert!(rows.len() <= 3, "{}", rows.len());
            got += rows.len();
            calls += 1;
        }
        assert_eq!((got, calls), (10, 4));
        // A row bigger than a whole reply is an error naming the limit.
        t.put(Put::new("s").add("cf", "q", vec![b'y'; 10_000]))
            .unwrap();
        let id = reg
            .insert(t.scan(Scan::new().start_row("s")).unwrap(), unsorted, 0)
            .unwrap();
        let mut budget = ReplyBudget::standalone(3_500);
        let Err(Fail::Io(m)) = reg.next_rows(id, 1, &mut budget) else {
            panic!("expected an IOError");
        };
        assert!(
            m.contains("3500 bytes") && m.contains("--max-reply-mib"),
            "{m}"
        );
    }
}
