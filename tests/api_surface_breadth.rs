//! Compile-time check of the breadth API (compression codecs). Copy into tests/ with that work; it must
//! compile unchanged.
#![allow(dead_code, unused_variables, clippy::all)]
use cellbase::*;

fn breadth() {
    let codecs = [
        Compression::None,
        Compression::Snappy,
        Compression::Gz,
        Compression::Lz4,
        Compression::Zstd,
    ];
    let f = FamilyDescriptor::new("f").compression(Compression::Zstd);
    let p: Filter = Filter::parse("SKIP ValueFilter(=,'binary:x')")
        .unwrap_or_else(|_| Filter::parse("KeyOnlyFilter()").unwrap());
}

#[test]
fn api_surface_breadth_compiles() {}
