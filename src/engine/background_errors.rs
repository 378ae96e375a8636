//! [`BackgroundErrors`]: what failed in the background (flushes, compactions, splits, log
//! write-outs), counted per kind with the last error of each, so no background failure is
//! silent; read with [`Db::background_errors`](crate::Db::background_errors).
//!
//! Every failure recorded here is also logged (`warn!`, target `cellbase::background`, with the
//! table, the region and the error).

use parking_lot::Mutex;

/// The kinds of background work whose failures are counted apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BgKind {
    /// A flush: queued for a region, for global memory pressure, or run inline by a writer
    /// after its write.
    Flush,
    /// A minor or major compaction.
    Compaction,
    /// An automatic split.
    Split,
    /// The periodic write-out of buffered (`AsyncWal`) log records.
    WalWrite,
}

impl BgKind {
    /// The word used in log lines.
    pub(crate) fn name(self) -> &'static str {
        match self {
            BgKind::Flush => "flush",
            BgKind::Compaction => "compaction",
            BgKind::Split => "split",
            BgKind::WalWrite => "log write-out",
        }
    }
}

/// One background failure: what failed and when.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BackgroundError {
    /// What failed (the job, its table and region) and the error, in words.
    pub message: String,
    /// When it happened, in milliseconds since the epoch by the database's clock
    /// ([`DbOptions::clock`](crate::DbOptions::clock)).
    pub at_millis: i64,
}

/// The failures of one kind of background work.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BackgroundErrorCount {
    /// Failures since the database was opened.
    pub count: u64,
    /// The most recent failure, if any.
    pub last: Option<BackgroundError>,
}

/// Failures of background work since the database was opened, from
/// [`Db::background_errors`](crate::Db::background_errors).
///
/// A failed flush keeps its cells in memory (and in the log) and is retried: by a background
/// thread after a backoff of 100 ms doubling up to 5 s, and by the next flush of the region.
/// A failed compaction or split leaves the region as it was; the next flush queues it again.
/// Counts only grow; a count that stops growing means the retries succeed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BackgroundErrors {
    /// Failed flushes: queued ones, flushes for global memory pressure, and the flushes a
    /// writer runs itself after its write (the write itself succeeded).
    pub flushes: BackgroundErrorCount,
    /// Failed compactions (minor or major).
    pub compactions: BackgroundErrorCount,
    /// Failed automatic splits.
    pub splits: BackgroundErrorCount,
    /// Failed write-outs of buffered (`AsyncWal`) log records, counted once per run of
    /// consecutive failures (a poisoned log fails every write-out until reopened).
    pub wal_writes: BackgroundErrorCount,
}

impl BackgroundErrors {
    /// Failures of every kind together.
    pub fn total(&self) -> u64 {
        self.flushes.count + self.compactions.count + self.splits.count + self.wal_writes.count
    }

    /// The most recent failure of any kind.
    pub fn last(&self) -> Option<&BackgroundError> {
        [
            &self.flushes,
            &self.compactions,
            &self.splits,
            &self.wal_writes,
        ]
        .into_iter()
        .filter_map(|c| c.last.as_ref())
        .max_by_key(|e| e.at_millis)
    }

    fn count_mut(&mut self, kind: BgKind) -> &mut BackgroundErrorCount {
        match kind {
            BgKind::Flush => &mut self.flushes,
            BgKind::Compaction => &mut self.compactions,
            BgKind::Split => &mut self.splits,
            BgKind::WalWrite => &mut self.wal_writes,
        }
    }
}

/// The recorder the engine keeps: one lock taken only when something failed or is read.
#[derive(Debug, Default)]
pub(crate) struct BgErrorLog {
    errors: Mutex<BackgroundErrors>,
}

impl BgErrorLog {
    /// Counts a failure of `kind` and keeps its message as the last one.
    pub(crate) fn record(&self, kind: BgKind, message: String, at_millis: i64) {
        let mut g = self.errors.lock();
        let c = g.count_mut(kind);
        c.count += 1;
        c.last = Some(BackgroundError { message, at_millis });
    }

    /// A copy of the counts now.
    pub(crate) fn snapshot(&self) -> BackgroundErrors {
        self.errors.lock().clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_kind_and_keeps_the_last() {
        let log = BgErrorLog::default();
        assert_eq!(log.snapshot().total(), 0);
        assert!(log.snapshot().last().is_none());
        log.record(BgKind::Flush, "a".into(), 10);
        log.record(BgKind::Flush, "b".into(), 20);
        log.record(BgKind::Split, "c".into(), 15);
        let s = log.snapshot();
        assert_eq!(s.flushes.count, 2);
        assert_eq!(s.flushes.last.as_ref().unwrap().message, "b");
        assert_eq!(s.splits.count, 1);
        assert_eq!(s.compactions.count, 0);
        assert_eq!(s.total(), 3);
        assert_eq!(s.last().unwrap().at_millis, 20);
    }
}
