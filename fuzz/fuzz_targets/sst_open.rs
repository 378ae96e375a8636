//! Arbitrary bytes as a block file: open, scan every cell and verify must return Ok or an
//! error, never panic or allocate without bound.
#![no_main]
use cellbase::io::ReadableFile;
use cellbase::read::cursor::CellCursor;
use cellbase::sst::{CachePolicy, SstReader};
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use std::sync::Arc;

#[derive(Debug)]
struct Bytes(Vec<u8>);
impl ReadableFile for Bytes {
    fn bytes(&self) -> &[u8] {
        &self.0
    }
}

fuzz_target!(|data: &[u8]| {
    let file = Arc::new(Bytes(data.to_vec()));
    let Ok(reader) = SstReader::from_file(file, Path::new("fuzz.sst"), 1, None) else { return };
    let reader = Arc::new(reader);
    let _ = reader.verify();
    let mut c = reader.cursor(CachePolicy::default());
    if c.seek_to_first().is_err() {
        return;
    }
    while c.valid() {
        if c.next().is_err() {
            break;
        }
    }
});
