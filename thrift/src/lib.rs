//! The Thrift codec shared by cellbase's remote backend (`cellbase::Db::connect`) and the
//! `cellbase thrift` / `cellbase thrift2` gateways.
//!
//! * [`protocol`]: the binary (strict and old non-strict) and compact protocols, decoded into
//!   a small dynamic [`protocol::Value`] tree and encoded from one, with every length checked
//!   against a per-message budget before anything is allocated;
//! * [`transport`]: the framed and buffered transports, detected from a connection's first
//!   bytes on the server side;
//! * [`memory`]: the byte budget shared by all requests of a server (or replies of a client).
//!
//! It depends on nothing but `std`, so both sides of a connection share one implementation of
//! the wire format and its bounds.
mod encode;
pub mod memory;
pub mod protocol;
pub mod transport;
mod wire;
