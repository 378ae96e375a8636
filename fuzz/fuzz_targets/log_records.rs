//! Arbitrary bytes as a WAL segment or manifest: the record reader must return records or an
//! error under both tail policies, never panic.
#![no_main]
use cellbase::wal::record::{TailPolicy, read_records};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let _ = read_records(data, Path::new("fuzz.log"), TailPolicy::TornTailAllowed);
    let _ = read_records(data, Path::new("fuzz.log"), TailPolicy::Strict);
});
