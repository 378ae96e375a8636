//! The global budget for request bytes in flight (`--max-request-memory-mib`).
//!
//! `--max-message-mib` bounds one request and `--max-connections` the number of connections,
//! but their product (64 GiB with the defaults) is no bound at all. Every request is therefore
//! also charged to a [`RequestPool`] shared by all connections, through a per-message
//! [`Reservation`]:
//!
//! * a framed request reserves twice its declared length (the frame, and the strings copied
//!   out of it while it is decoded) **before** anything is allocated or read;
//! * the decoder charges every string's bytes before allocating them and
//!   [`VALUE_BYTES`] per decoded value (a buffered request is charged only this way, as it
//!   is consumed);
//! * the first [`FREE_BYTES`] of each message are free, so small requests never wait for
//!   the pool (their memory is bounded by `--max-connections` × [`FREE_BYTES`]);
//! * the reservation is released when the call has been dispatched, or when reading the
//!   message fails (the connection is then closed).
//!
//! When the pool is full, a message that holds nothing from it yet waits for room up to the
//! per-message deadline; one that already holds bytes is refused at once instead (waiting
//! while holding could leave every holder waiting for the others until their deadlines). A
//! message is always granted room when no other message holds any, so one connection can
//! always make progress on an otherwise idle gateway (`--max-request-memory-mib` is at least
//! `--max-message-mib`, so a frame always fits an empty pool).
use super::wire::ProtoError;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Bytes charged per decoded value (the `Value` itself and its share of its container's
/// growth), as in the decoder's value cap.
pub const VALUE_BYTES: usize = 64;

/// Bytes of each message that are not charged to the pool.
pub const FREE_BYTES: usize = 64 * 1024;

/// Request bytes in flight across all connections, at most `cap`.
#[derive(Debug)]
pub struct RequestPool {
    cap: usize,
    used: Mutex<usize>,
    room: Condvar,
}

impl RequestPool {
    /// A pool of `cap` bytes.
    pub fn new(cap: usize) -> Arc<Self> {
        Arc::new(RequestPool {
            cap,
            used: Mutex::new(0),
            room: Condvar::new(),
        })
    }

    /// The pool's size in bytes.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Bytes currently reserved.
    pub fn in_use(&self) -> usize {
        *self.lock()
    }

    fn lock(&self) -> MutexGuard<'_, usize> {
        // The counter is a plain integer: a poisoned lock still holds a meaningful value.
        self.used.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes `n` more bytes for a message already holding `mine`: at once when they fit or
    /// when nobody else holds any; otherwise waits until `until` (`None`: does not wait).
    fn acquire(&self, n: usize, mine: usize, until: Option<Instant>) -> Result<(), String> {
        let mut used = self.lock();
        loop {
            if used.saturating_add(n) <= self.cap || *used == mine {
                *used += n;
                return Ok(());
            }
            let left = until.map_or(Duration::ZERO, |u| {
                u.saturating_duration_since(Instant::now())
            });
            if left.is_zero() {
                return Err(match until {
                    Some(_) => format!(
                        "server busy: request bytes in flight would exceed {} bytes (the \
                         gateway's --max-request-memory-mib limit) and no room was made \
                         within the message deadline; retry later",
                        self.cap
                    ),
                    None => format!(
                        "server busy: request bytes in flight would exceed {} bytes (the \
                         gateway's --max-request-memory-mib limit); retry later",
                        self.cap
                    ),
                });
            }
            used = self
                .room
                .wait_timeout(used, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    fn release(&self, n: usize) {
        if n == 0 {
            return;
        }
        let mut used = self.lock();
        *used = used.saturating_sub(n);
        drop(used);
        self.room.notify_all();
    }
}

/// One message's charge against a [`RequestPool`]; gives its bytes back when dropped.
#[derive(Debug)]
pub struct Reservation {
    pool: Option<Arc<RequestPool>>,
    max_wait: Duration,
    /// Bytes charged by the message (the first [`FREE_BYTES`] are not taken from the pool).
    used: usize,
    /// Bytes taken from the pool.
    held: usize,
}

impl Reservation {
    /// A reservation against `pool`, waiting at most `max_wait` for room (the per-message
    /// deadline).
    pub fn new(pool: Arc<RequestPool>, max_wait: Duration) -> Self {
        Reservation {
            pool: Some(pool),
            max_wait,
            used: 0,
            held: 0,
        }
    }

    /// A reservation that charges nothing (decoding replies, tests).
    pub fn unmetered() -> Self {
        Reservation {
            pool: None,
            max_wait: Duration::ZERO,
            used: 0,
            held: 0,
        }
    }

    /// Bytes taken from the pool.
    pub fn held(&self) -> usize {
        self.held
    }

    /// Makes sure `total` bytes (not counting those already charged) are covered without
    /// charging them yet: a framed message reserves its frame and string copies up front.
    pub fn reserve_ahead(&mut self, total: usize) -> Result<(), ProtoError> {
        self.cover(self.used.saturating_add(total))
    }

    /// Charges `n` bytes of the message, taking room from the pool when they are not covered.
    ///
    /// # Errors
    /// [`ProtoError::TooLarge`] naming `--max-request-memory-mib` when the pool has no room
    /// (after waiting up to the deadline, when this message held nothing from the pool yet).
    pub fn charge(&mut self, n: usize) -> Result<(), ProtoError> {
        let want = self.used.saturating_add(n);
        self.cover(want)?;
        self.used = want;
        Ok(())
    }

    /// Takes back `n` charged bytes (memory freed before the message is done, such as a frame
    /// once decoded), returning what is no longer needed to the pool.
    pub fn uncharge(&mut self, n: usize) {
        self.used = self.used.saturating_sub(n);
        let need = self.used.saturating_sub(FREE_BYTES);
        if let Some(pool) = &self.pool
            && self.held > need
        {
            pool.release(self.held - need);
            self.held = need;
        }
    }

    fn cover(&mut self, total: usize) -> Result<(), ProtoError> {
        let Some(pool) = &self.pool else {
            return Ok(());
        };
        let need = total.saturating_sub(FREE_BYTES);
        if need <= self.held {
            return Ok(());
        }
        let until = (self.held == 0).then(|| Instant::now() + self.max_wait);
        pool.acquire(need - self.held, self.held, until)
            .map_err(ProtoError::TooLarge)?;
        self.held = need;
        Ok(())
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if let Some(pool) = &self.pool {
            pool.release(self.held);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1 << 20;

    #[test]
    fn small_messages_never_touch_the_pool() {
        let pool = RequestPool::new(MIB);
        let mut r = Reservation::new(pool.clone(), Duration::ZERO);
        r.charge(FREE_BYTES).unwrap();
        assert_eq!(pool.in_use(), 0);
        r.charge(1).unwrap();
        assert_eq!(pool.in_use(), 1);
        drop(r);
        assert_eq!(pool.in_use(), 0);
    }

    #[test]
    fn a_full_pool_refuses_after_the_wait_and_names_the_limit() {
        let pool = RequestPool::new(4 * MIB);
        let mut a = Reservation::new(pool.clone(), Duration::from_secs(5));
        a.reserve_ahead(4 * MIB + FREE_BYTES).unwrap();
        assert_eq!(pool.in_use(), 4 * MIB);
        let mut b = Reservation::new(pool.clone(), Duration::from_millis(50));
        let started = Instant::now();
        let e = b.charge(2 * MIB).unwrap_err().to_string();
        assert!(started.elapsed() >= Duration::from_millis(50));
        assert!(e.contains("--max-request-memory-mib"), "{e}");
        assert_eq!(pool.in_use(), 4 * MIB, "a refused charge takes nothing");
        // One that already holds bytes is refused at once rather than waiting.
        drop(a);
        b.charge(3 * MIB).unwrap();
        let mut c = Reservation::new(pool.clone(), Duration::from_secs(5));
        c.charge(MIB).unwrap();
        let started = Instant::now();
        assert!(b.charge(MIB).is_err());
        assert!(started.elapsed() < Duration::from_secs(1));
    }

    #[test]
    fn a_waiting_message_gets_room_when_another_finishes() {
        let pool = RequestPool::new(4 * MIB);
        let mut a = Reservation::new(pool.clone(), Duration::from_secs(5));
        a.charge(3 * MIB).unwrap();
        let p = pool.clone();
        let waiter = std::thread::spawn(move || {
            let mut b = Reservation::new(p, Duration::from_secs(30));
            b.charge(3 * MIB).map(|()| b.held())
        });
        std::thread::sleep(Duration::from_millis(100));
        a.uncharge(3 * MIB);
        assert_eq!(waiter.join().unwrap().unwrap(), 3 * MIB - FREE_BYTES);
        assert_eq!(pool.in_use(), 0);
    }

    #[test]
    fn a_lone_message_may_exceed_the_pool_so_it_always_progresses() {
        let pool = RequestPool::new(MIB);
        let mut a = Reservation::new(pool.clone(), Duration::ZERO);
        a.charge(3 * MIB).unwrap();
        a.charge(MIB).unwrap();
        assert_eq!(pool.in_use(), 4 * MIB - FREE_BYTES);
        let mut b = Reservation::new(pool.clone(), Duration::ZERO);
        assert!(b.charge(2 * MIB).is_err());
        drop(a);
        b.charge(2 * MIB).unwrap();
    }
}
