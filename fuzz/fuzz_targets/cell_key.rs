//! Arbitrary bytes as a cell key and payload: parsing never panics, and a parsed key
//! re-encodes to the same bytes.
#![no_main]
use cellbase::model::key::KeyRef;
use cellbase::model::payload::PayloadRef;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(k) = KeyRef::parse(data) {
        assert_eq!(k.encode(), data);
    }
    let _ = PayloadRef::parse(data);
});
