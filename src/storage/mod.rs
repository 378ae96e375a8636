//! Layer 2, `storage`: the durable and in-memory structures, each knowing only bytes and the
//! model. The memstore skiplist, block files ([`sst`]), the write-ahead log ([`wal`]), the
//! manifest log ([`manifest`]) and the block cache. Imports `base` and `model`; nothing here
//! knows a region, a table or a database.

pub mod manifest;
pub mod memstore;
pub mod sst;
pub mod wal;
