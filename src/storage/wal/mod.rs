//! The write-ahead log and the CRC-framed record log shared with the manifest.
//!
//! - [`record`]: frame format (`crc32 | len | type | payload`) and a reader with an explicit
//!   torn-tail policy; the manifest reuses it.
//! - [`Wal`]: one log per database, a directory of segment files `{id:010}.log`, appended with
//!   group commit at three durability levels ([`WalSync`]), poisoned after any failed write or
//!   sync.
//! - [`replay()`]: recovery, truncating a torn tail of the newest segment; it reads each
//!   segment through a bounded window (`window`), not whole.
//!
//! docs/FORMAT.md (section 3) describes the bytes.

pub mod entry;
pub mod record;
mod replay;
pub mod segment;
mod window;
mod writer;

#[cfg(test)]
mod stream_tests;
#[cfg(test)]
mod tests;

#[cfg(test)]
use replay::ReplayInfo;
pub use replay::{check as check_log, replay, replay_discarding};
pub use writer::{Wal, WalOptions, WalSync};
