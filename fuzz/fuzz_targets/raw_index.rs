//! libFuzzer entry for `cellbase::fuzzing::raw_index` (the body also runs in `cargo test --test
//! fuzz_bodies`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| cellbase::fuzzing::raw_index(data));
