//! Time. The engine reads wall time only through a [`Clock`], so tests inject [`ManualClock`].

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

/// `HConstants.LATEST_TIMESTAMP` [TS-1]: a timestamp meaning "now, assigned by the server".
pub const LATEST_TIMESTAMP: i64 = i64::MAX;

/// A source of "now" in milliseconds since the Unix epoch.
pub trait Clock: Send + Sync + 'static {
    /// The current time in milliseconds since the Unix epoch.
    fn now_millis(&self) -> i64;
}

/// The operating system's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_millis(&self) -> i64 {
        let d = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or(Duration::ZERO);
        i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
    }
}

/// A clock that moves only when told to. Clones share the same time.
#[derive(Debug, Clone)]
pub struct ManualClock {
    now: Arc<AtomicI64>,
}

impl ManualClock {
    /// A clock reading `start_millis`.
    pub fn new(start_millis: i64) -> Self {
        ManualClock {
            now: Arc::new(AtomicI64::new(start_millis)),
        }
    }

    /// Sets the time.
    pub fn set(&self, millis: i64) {
        self.now.store(millis, Ordering::SeqCst);
    }

    /// Moves the time forward by `by` (saturating).
    pub fn advance(&self, by: Duration) {
        let ms = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        let _ = self
            .now
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |t| {
                Some(t.saturating_add(ms))
            });
    }
}

impl Clock for ManualClock {
    fn now_millis(&self) -> i64 {
        self.now.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_clones_share_time() {
        let a = ManualClock::new(10);
        let b = a.clone();
        a.advance(Duration::from_millis(5));
        assert_eq!(b.now_millis(), 15);
        b.set(100);
        assert_eq!(a.now_millis(), 100);
    }

    #[test]
    fn system_clock_is_after_2020() {
        assert!(SystemClock.now_millis() > 1_577_836_800_000);
    }
}
