//! `Mvcc`: the database-wide sequence ids and the read point readers see (as HBase's
//! `MultiVersionConcurrencyControl`).

use parking_lot::Mutex;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering as AtOrd};

/// Multi-version concurrency control: hands out sequence ids and publishes the read point.
///
/// A writer whose sequence id is not yet covered by the read point parks its thread; the
/// writer that advances the read point unparks exactly the writers it covers. Each returns
/// after checking an atomic, without taking the mutex again, so a group-committed batch of
/// writers wakes in parallel (a condition variable hands the mutex to its waiters one after
/// another, each wake-up waiting for a CPU).
#[derive(Debug)]
pub struct Mvcc {
    state: Mutex<MvccState>,
    read_point: AtomicU64,
}

#[derive(Debug)]
struct MvccState {
    next: u64,
    in_flight: BTreeSet<u64>,
    /// Writers parked until the read point reaches their sequence id.
    waiters: Vec<(u64, std::thread::Thread)>,
}

impl Mvcc {
    /// Starts after `last_seq` (the highest sequence id already used).
    pub fn new(last_seq: u64) -> Mvcc {
        Mvcc {
            state: Mutex::new(MvccState {
                next: last_seq + 1,
                in_flight: BTreeSet::new(),
                waiters: Vec::new(),
            }),
            read_point: AtomicU64::new(last_seq),
        }
    }

    /// Assigns the next sequence id to a mutation that is about to be applied.
    pub fn begin(&self) -> u64 {
        let mut s = self.state.lock();
        let seq = s.next;
        s.next += 1;
        s.in_flight.insert(seq);
        seq
    }

    /// Marks `seq` applied and waits until the read point covers it, so the writer reads its
    /// own write when the call returns.
    pub fn complete(&self, seq: u64) {
        self.finish(seq);
        self.wait_visible(seq);
    }

    /// Marks `seq` applied, advances the read point as far as every lower sequence id is
    /// applied too and unparks the writers it covers; does not wait. A group commit leader
    /// applies its followers' mutations and finishes them with this, so they need not wake
    /// one after another to complete in order.
    pub(crate) fn finish(&self, seq: u64) {
        let mut wake = Vec::new();
        {
            let mut s = self.state.lock();
            s.in_flight.remove(&seq);
            let rp = match s.in_flight.first() {
                Some(&first) => first - 1,
                None => s.next - 1,
            };
            if rp > self.read_point.load(AtOrd::Acquire) {
                self.read_point.store(rp, AtOrd::Release);
                s.waiters.retain(|(w, t)| {
                    if *w <= rp {
                        wake.push(t.clone());
                        false
                    } else {
                        true
                    }
                });
            }
        }
        for t in wake {
            t.unpark();
        }
    }

    /// Waits until the read point covers `seq` (which was, or will be, finished).
    pub(crate) fn wait_visible(&self, seq: u64) {
        if self.read_point.load(AtOrd::Acquire) >= seq {
            return;
        }
        {
            let mut s = self.state.lock();
            if self.read_point.load(AtOrd::Acquire) >= seq {
                return;
            }
            // Registered under the lock that every read point advance takes, so the
            // advance covering `seq` finds this entry and unparks this thread.
            s.waiters.push((seq, std::thread::current()));
        }
        // `park` may return spuriously or for an earlier unpark: check the read point.
        while self.read_point.load(AtOrd::Acquire) < seq {
            std::thread::park();
        }
    }

    /// The highest sequence id whose mutation, and every earlier one, is fully applied.
    pub fn read_point(&self) -> u64 {
        self.read_point.load(AtOrd::Acquire)
    }

    /// The highest sequence id handed out so far.
    pub fn last_assigned(&self) -> u64 {
        self.state.lock().next - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn read_point_waits_for_earlier_sequences() {
        let mvcc = Arc::new(Mvcc::new(0));
        let a = mvcc.begin();
        let b = mvcc.begin();
        let m2 = mvcc.clone();
        let t = std::thread::spawn(move || m2.complete(b));
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(
            mvcc.read_point(),
            0,
            "b is not visible while a is in flight"
        );
        mvcc.complete(a);
        t.join().unwrap();
        assert_eq!(mvcc.read_point(), 2);
    }
}
