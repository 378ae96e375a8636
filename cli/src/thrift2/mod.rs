//! `cellbase thrift2`: HBase 2.6's Thrift2 `THBaseService` gateway, so that clients generated
//! from HBase's Thrift2 IDL (`hbase thrift2`) work against a cellbase directory unchanged.
//!
//! It runs on the Thrift1 gateway's server ([`crate::thrift::server`]): the same flags,
//! limits, transports and protocols (buffered or framed, binary or compact, detected per
//! connection), scanner registry and stop. Only the method table and the handlers are its
//! own: `methods.rs` (the table), `types.rs` (the IDL structs), `convert.rs`
//! (`ThriftUtilities`' data conversions), `schema.rs` (descriptor conversions), `data.rs` and
//! `admin.rs` (`ThriftHBaseServiceHandler`'s methods). docs/THRIFT2.md describes it.
use crate::thrift::ThriftArgs;
use std::process::ExitCode;
use std::time::Duration;

mod admin;
mod convert;
mod data;
pub mod methods;
mod schema;
pub mod service;
pub mod types;

/// Runs `cellbase thrift2` (the flags are `cellbase thrift`'s): opens the database, binds,
/// prints `listening on ADDR` and serves `THBaseService` until SIGTERM or SIGINT.
pub fn run(args: ThriftArgs) -> ExitCode {
    crate::thrift::run_gateway(args, "thrift2", |db, args, addr| {
        service::Thrift2Service::new(
            db,
            Duration::from_secs(args.scanner_idle_secs),
            crate::to_usize(args.max_scanners),
            crate::to_usize(args.max_scanners_per_connection),
            &args.bind,
            addr.port(),
        )
    })
}
