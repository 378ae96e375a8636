//! Damaged files: every flipped byte, every truncation, resealed damage, other versions.

use super::testutil::{Cell, Rng, gen_cells, open, open_bytes, scan, write_file};
use super::*;
use crate::base::error::Error;
use crate::model::schema::{BloomType, Compression};

fn cfg(block_size: usize, compression: Compression, bloom: BloomType) -> SstWriterConfig {
    SstWriterConfig {
        block_size,
        compression,
        bloom,
        restart_interval: 16,
        ..SstWriterConfig::default()
    }
}

/// Both entry encodings (prefix-compressed keys; FAST_DIFF's suffix deltas).
const ENCODINGS: [EntryEncoding; 2] = [EntryEncoding::Prefix, EntryEncoding::SuffixDelta];

/// Open + full scan + verify of a possibly damaged file.
fn read_damaged(bytes: Vec<u8>) -> Result<Vec<Cell>, Error> {
    let r = open_bytes(bytes)?;
    let got = scan(&r)?;
    r.verify()?;
    Ok(got)
}

/// Like [`read_damaged`], but a success must return exactly `cells`.
fn check_damaged(bytes: Vec<u8>, cells: &[Cell]) -> Result<(), Error> {
    let got = read_damaged(bytes)?;
    assert_eq!(
        got, cells,
        "a damaged file read back different data without an error"
    );
    Ok(())
}

fn assert_reported(e: Error, what: &str) {
    match e {
        Error::Corruption { detail, .. } => assert!(detail.contains("offset"), "{what}: {detail}"),
        Error::UnsupportedFormat { .. } => {}
        other => panic!("{what}: unexpected error {other}"),
    }
}

#[test]
fn every_flipped_byte_and_truncation_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(0xf11b);
    let cells = gen_cells(&mut rng, 60);
    // Every codec and (uncompressed) every Bloom kind with the prefix encoding: ROWCOL with
    // each codec, ROW and ROWPREFIX_FIXED_LENGTH (whose prefix length is in the meta and Bloom
    // blocks) [BLOOM-5]; the suffix-delta encoding of FAST_DIFF uncompressed and with ZSTD.
    for (name, compression, encoding) in [
        ("plain", Compression::None, EntryEncoding::Prefix),
        ("snappy", Compression::Snappy, EntryEncoding::Prefix),
        ("gz", Compression::Gz, EntryEncoding::Prefix),
        ("lz4", Compression::Lz4, EntryEncoding::Prefix),
        ("zstd", Compression::Zstd, EntryEncoding::Prefix),
        ("row", Compression::None, EntryEncoding::Prefix),
        ("rowprefix", Compression::None, EntryEncoding::Prefix),
        ("delta", Compression::None, EntryEncoding::SuffixDelta),
        ("delta-zstd", Compression::Zstd, EntryEncoding::SuffixDelta),
    ] {
        let bloom = match name {
            "row" => BloomType::Row,
            "rowprefix" => BloomType::RowPrefixFixedLength(3),
            _ => BloomType::RowCol,
        };
        let (path, m) = write_file(
            dir.path(),
            name,
            &cells,
            SstWriterConfig {
                encoding,
                ..cfg(300, compression, bloom)
            },
        );
        assert_eq!(m.encoding, encoding);
        assert!(m.data_blocks >= 4);
        let good = std::fs::read(&path).unwrap();
        check_damaged(good.clone(), &cells).unwrap();
        for i in 0..good.len() {
            let mut b = good.clone();
            b[i] ^= if i % 2 == 0 { 0x01 } else { 0x80 };
            // Every byte is covered by a block or trailer checksum: no flip goes unnoticed.
            let e = check_damaged(b, &cells).expect_err(&format!("flip at {i} undetected"));
            assert_reported(e, &format!("flip at {i}"));
        }
        for len in 0..good.len() {
            let e = check_damaged(good[..len].to_vec(), &cells)
                .expect_err(&format!("truncation to {len} undetected"));
            assert_reported(e, &format!("truncation to {len}"));
        }
    }
}

/// Damage that keeps checksums valid (a writer bug, or a deliberate forgery) must still be
/// caught by the structural checks, never panic.
#[test]
fn resealed_damage_is_caught_by_structure_checks() {
    use super::frame::BlockHandle;
    use super::trailer::Trailer;
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(0x5ea1);
    let cells = gen_cells(&mut rng, 40);
    // Every codec: resealed damage inside compressed data reaches the decompressor, which
    // must report it (or decode other bytes the structure checks then see), never panic.
    // Both entry encodings with every codec (resealed damage inside suffix-delta entries:
    // flags, lengths, deltas, must be caught by their checks too), and the prefix encoding
    // with a ROWPREFIX_FIXED_LENGTH Bloom [BLOOM-5].
    let kinds = Compression::ALL
        .into_iter()
        .flat_map(|c| ENCODINGS.map(|e| (c, BloomType::Row, e)))
        .chain([(
            Compression::None,
            BloomType::RowPrefixFixedLength(3),
            EntryEncoding::Prefix,
        )]);
    for (compression, bloom, encoding) in kinds {
        let (path, _) = write_file(
            dir.path(),
            "r",
            &cells,
            SstWriterConfig {
                encoding,
                ..cfg(300, compression, bloom)
            },
        );
        let good = std::fs::read(&path).unwrap();
        let t = Trailer::decode(&good, &path).unwrap();
        let r = open_bytes(good.clone()).unwrap();
        let mut blocks: Vec<BlockHandle> = (0..r.index().len())
            .map(|i| r.index().handle(i).unwrap())
            .collect();
        blocks.extend([t.bloom.unwrap(), t.index, t.meta]);
        let reseal = |b: &mut Vec<u8>, h: BlockHandle| {
            let (s, e) = (h.offset as usize, h.offset as usize + h.size as usize + 1);
            let crc = crate::base::codec::crc32(&b[s..e]);
            b[e..e + 4].copy_from_slice(&crc.to_be_bytes());
        };
        let mut caught = 0;
        for h in blocks {
            for i in 0..h.size as usize {
                let mut b = good.clone();
                b[h.offset as usize + i] ^= 0x41;
                reseal(&mut b, h);
                // A resealed flip inside a value (or in bloom bits that only add false
                // positives) is indistinguishable from real data; everything else must be
                // caught.
                if let Err(e) = read_damaged(b) {
                    assert_reported(
                        e,
                        &format!(
                            "{compression:?} {encoding:?}: resealed flip at {}",
                            h.offset as usize + i
                        ),
                    );
                    caught += 1;
                }
            }
        }
        assert!(caught > 0, "{compression:?} {encoding:?}");
    }
}

#[test]
fn another_format_version_is_unsupported() {
    let dir = tempfile::tempdir().unwrap();
    let cells = gen_cells(&mut Rng::new(1), 10);
    let (path, _) = write_file(dir.path(), "v", &cells, SstWriterConfig::default());
    let mut b = std::fs::read(&path).unwrap();
    let at = b.len() - 12;
    b[at..at + 4].copy_from_slice(&2u32.to_be_bytes());
    std::fs::write(&path, &b).unwrap();
    assert!(matches!(
        open(&path),
        Err(Error::UnsupportedFormat { found: 2, .. })
    ));

    // A newer meta block version (checksum intact) is unsupported too.
    let (path, _) = write_file(dir.path(), "v2", &cells, SstWriterConfig::default());
    let mut b = std::fs::read(&path).unwrap();
    let t = super::trailer::Trailer::decode(&b, &path).unwrap();
    let (s, e) = (
        t.meta.offset as usize,
        t.meta.offset as usize + t.meta.size as usize + 1,
    );
    b[s] = 9;
    let crc = crate::base::codec::crc32(&b[s..e]);
    b[e..e + 4].copy_from_slice(&crc.to_be_bytes());
    assert!(matches!(
        open_bytes(b),
        Err(Error::UnsupportedFormat { found: 9, .. })
    ));
}

#[test]
fn a_cursor_hitting_a_damaged_block_errs_and_becomes_invalid() {
    for encoding in ENCODINGS {
        cursor_hitting_a_damaged_block(encoding);
    }
}

fn cursor_hitting_a_damaged_block(encoding: EntryEncoding) {
    use crate::model::cursor::CellCursor;
    let dir = tempfile::tempdir().unwrap();
    let cells = gen_cells(&mut Rng::new(0xbad), 200);
    let (path, m) = write_file(
        dir.path(),
        "d",
        &cells,
        SstWriterConfig {
            encoding,
            ..cfg(512, Compression::None, BloomType::Row)
        },
    );
    assert!(m.data_blocks > 3);
    let mut bytes = std::fs::read(&path).unwrap();
    let r = open_bytes(bytes.clone()).unwrap();
    let h1 = r.index().handle(1).unwrap();
    bytes[h1.offset as usize + 3] ^= 0x20;
    let r = open_bytes(bytes).unwrap();
    let mut c = r.cursor(CachePolicy::default());
    c.seek_to_first().unwrap();
    let mut seen = 0;
    let err = loop {
        assert!(c.valid());
        seen += 1;
        if let Err(e) = c.next() {
            break e;
        }
    };
    assert!(!c.valid() && c.key().is_empty() && c.payload().is_empty());
    assert!(seen < cells.len());
    let msg = err.to_string();
    assert!(msg.contains(&format!("offset {}", h1.offset)), "{msg}");
    // Seeking into the damaged block fails again; seeking past it works.
    let k1 = r.index().first_key(1).unwrap().to_vec();
    assert!(c.seek(&k1).is_err() && !c.valid());
    let k2 = r.index().first_key(2).unwrap().to_vec();
    c.seek(&k2).unwrap();
    let row = |k: &[u8]| crate::model::key::KeyRef::parse(k).unwrap().row.to_vec();
    assert_eq!(row(c.key()), row(&k2));
    assert!(r.verify().is_err());
}

/// A suffix-delta file whose meta block (resealed) claims prefix-compressed entries, and a
/// prefix file that claims suffix deltas (meta version 5 forged): reading the blocks as the
/// other encoding is corruption naming an offset, never a panic or silently other cells.
#[test]
fn blocks_read_as_the_other_encoding_are_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let cells = gen_cells(&mut Rng::new(0x0e4c), 120);
    for encoding in ENCODINGS {
        let (path, _) = write_file(
            dir.path(),
            "x",
            &cells,
            SstWriterConfig {
                encoding,
                ..cfg(400, Compression::None, BloomType::Row)
            },
        );
        let good = std::fs::read(&path).unwrap();
        let t = super::trailer::Trailer::decode(&good, &path).unwrap();
        let (s, e) = (
            t.meta.offset as usize,
            t.meta.offset as usize + t.meta.size as usize,
        );
        let mut meta = FileMeta::decode(&good[s..e], good.len() as u64).unwrap();
        meta.set_encoding(match encoding {
            EntryEncoding::Prefix => EntryEncoding::SuffixDelta,
            EntryEncoding::SuffixDelta => EntryEncoding::Prefix,
        });
        let mut payload = Vec::new();
        meta.encode_into(&mut payload);
        // Rebuild the file's tail: data, bloom and index blocks as they are, the forged meta
        // block, a trailer pointing at it.
        let mut b = good[..s].to_vec();
        let h = super::frame::BlockHandle {
            offset: s as u64,
            size: payload.len() as u32,
        };
        let n = payload.len();
        super::frame::seal(&mut payload, 0, super::frame::COMPRESSION_NONE);
        assert_eq!(payload.len(), n + 5);
        b.extend_from_slice(&payload);
        b.extend_from_slice(&super::trailer::Trailer { meta: h, ..t }.encode());
        let e = read_damaged(b).expect_err(&format!("{encoding:?} read as the other encoding"));
        assert_reported(e, &format!("{encoding:?} read as the other encoding"));
    }
}
