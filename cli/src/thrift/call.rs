//! What one call may use and how it fails: its reply budget (issue 21, item 7a), the
//! connection it arrived on, and the declared failures that go back as the method's exceptions.
use cellbase::{Error, RowResult};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bytes a reply may hold, counted while it is built (issue 21, item 7a).
///
/// Like HBase's `hbase.server.scanner.max.result.size` (default 100 MB there), but for every
/// reply: each row is measured as it is added, before the next one is read, so a request
/// naming one 9 MiB row a hundred times stops at the cap instead of building a 900 MiB reply.
/// Scanners return the rows that fit (a partial batch, as HBase does); other reads fail with
/// an `IOError` naming the limit. Every reply's bytes are also charged to a pool shared by all
/// connections (`--max-reply-memory-mib`) until the reply has been sent, so many connections
/// together cannot exceed it either.
#[derive(Debug)]
pub struct ReplyBudget {
    cap: usize,
    used: usize,
    pool: Option<(Arc<AtomicUsize>, usize)>,
}

impl ReplyBudget {
    /// A budget of `cap` bytes for one reply, also charged to `pool` (bytes in flight across
    /// all connections, at most `pool_cap`). The pool is credited back when this is dropped.
    pub fn new(cap: usize, pool: Arc<AtomicUsize>, pool_cap: usize) -> Self {
        ReplyBudget {
            cap,
            used: 0,
            pool: Some((pool, pool_cap)),
        }
    }

    /// A budget of `cap` bytes with no shared pool.
    pub fn standalone(cap: usize) -> Self {
        ReplyBudget {
            cap,
            used: 0,
            pool: None,
        }
    }

    /// Bytes charged so far.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Bytes left before the cap.
    pub fn remaining(&self) -> usize {
        self.cap.saturating_sub(self.used)
    }

    /// Charges `n` more bytes, or fails (charging nothing) with an `IOError` naming the limit.
    pub fn charge(&mut self, n: usize) -> Result<(), Fail> {
        if self.used.saturating_add(n) > self.cap {
            return Err(Fail::Io(format!(
                "reply too large: more than {} bytes (the gateway's --max-reply-mib limit, \
                 like HBase's hbase.server.scanner.max.result.size); ask for fewer rows, \
                 columns or versions per call",
                self.cap
            )));
        }
        if let Some((pool, pool_cap)) = &self.pool {
            let before = pool.fetch_add(n, Ordering::SeqCst);
            if before.saturating_add(n) > *pool_cap {
                pool.fetch_sub(n, Ordering::SeqCst);
                return Err(Fail::Io(format!(
                    "server busy: replies in flight would exceed {pool_cap} bytes (the \
                     gateway's --max-reply-memory-mib limit); retry later"
                )));
            }
        }
        self.used += n;
        Ok(())
    }
}

impl Drop for ReplyBudget {
    fn drop(&mut self) {
        if let Some((pool, _)) = &self.pool {
            pool.fetch_sub(self.used, Ordering::SeqCst);
        }
    }
}

/// The encoded size of a row as a `TRowResult`, slightly over-estimated (field headers and
/// lengths counted at their binary-protocol width).
pub fn row_reply_bytes(r: &RowResult) -> usize {
    let cells: usize = r
        .cells()
        .iter()
        .map(|c| c.family().len() + c.qualifier().len() + c.value().len() + 40)
        .sum();
    r.row().len() + 24 + cells
}

/// The encoded size of a row's cells as a `list<TCell>`, slightly over-estimated.
pub fn cells_reply_bytes(r: &RowResult) -> usize {
    r.cells().iter().map(|c| c.value().len() + 24).sum()
}

/// What a call may use: its reply budget and the connection it arrived on (scanners belong
/// to the connection that opened them).
#[derive(Debug)]
pub struct CallCtx {
    /// The reply's byte budget.
    pub budget: ReplyBudget,
    /// The connection's id (`ScannerRegistry` owner).
    pub conn: u64,
}

/// A declared failure of a call, sent back as the method's declared exception.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fail {
    /// `IOError` (field 1).
    Io(String),
    /// `IllegalArgument` (field 2; sent as IOError by methods that do not declare it).
    Illegal(String),
    /// `AlreadyExists` (field 3; only `createTable` declares it).
    Exists(String),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        match e {
            Error::NotACounter { .. } => Fail::Io(format!("Field is not a long: {e}")),
            Error::TableExists(_) => Fail::Exists(e.to_string()),
            Error::InvalidArgument(_) => Fail::Illegal(e.to_string()),
            other => Fail::Io(other.to_string()),
        }
    }
}
