//! `cellbase hfile`: the summary sections of a flushed file, and `-p` printing exactly the cells
//! written, in HBase's `K: ... V: ...` format with `Bytes.toStringBinary` escaping.
mod tools_common;

use cellbase::{
    BloomType, DataBlockEncoding, Db, DbOptions, Delete, FamilyDescriptor, ManualClock, Put,
    TableDescriptor,
};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tools_common::*;

const NOW: i64 = 1_700_000_000_000;

/// One expected cell: row, qualifier, ts, type code, value, ttl.
type Cell = (Vec<u8>, Vec<u8>, i64, u8, Vec<u8>, Option<u64>);

/// Writes a table with one family (ROWCOL bloom, 1 KiB blocks) and flushes it; returns the
/// block file and the cells it must hold.
fn flushed(dir: &Path) -> (PathBuf, Vec<Cell>) {
    flushed_with(dir, DataBlockEncoding::None)
}

/// [`flushed`] with the family's DATA_BLOCK_ENCODING.
fn flushed_with(dir: &Path, encoding: DataBlockEncoding) -> (PathBuf, Vec<Cell>) {
    let db = Db::open_with(dir, DbOptions::default().clock(ManualClock::new(NOW))).unwrap();
    let t = db
        .create_table(
            TableDescriptor::new("t").family(
                FamilyDescriptor::new("f")
                    .bloom_filter(BloomType::RowCol)
                    .block_size(1024)
                    .data_block_encoding(encoding),
            ),
        )
        .unwrap();
    let mut cells: Vec<Cell> = Vec::new();
    for i in 0..100i64 {
        let row = format!("r{i:03}").into_bytes();
        let v = format!("value-{i}").into_bytes();
        t.put(Put::new(&row).add_at("f", "a", 1000 + i, &v))
            .unwrap();
        cells.push((row, b"a".to_vec(), 1000 + i, 4, v, None));
    }
    let bin_row = b"bin\x00\xff\\".to_vec();
    let bin_val = vec![0u8, b'\\', 0x7f, b'A', b'\t', b'\n'];
    t.put(Put::new(&bin_row).add_at("f", "q\t", 5, &bin_val))
        .unwrap();
    cells.push((bin_row, b"q\t".to_vec(), 5, 4, bin_val, None));
    t.delete(Delete::new("r050").versions_up_to("f", "a", 500))
        .unwrap();
    cells.push((b"r050".to_vec(), b"a".to_vec(), 500, 12, vec![], None));
    t.put(
        Put::new("ttl")
            .add_at("f", "b", NOW, "x")
            .ttl(Duration::from_secs(3600)),
    )
    .unwrap();
    cells.push((
        b"ttl".to_vec(),
        b"b".to_vec(),
        NOW,
        4,
        b"x".to_vec(),
        Some(3_600_000),
    ));
    t.flush().unwrap();
    db.close().unwrap();
    let files = sst_files(dir);
    assert_eq!(files.len(), 1);
    // [SORT-1]: row, qualifier ascending, then ts and type descending.
    cells.sort_by(|a, b| (&a.0, &a.1, -a.2, 255 - a.3).cmp(&(&b.0, &b.1, -b.2, 255 - b.3)));
    (files[0].clone(), cells)
}

fn esc(b: &[u8]) -> String {
    cellbase_cli::tools::to_string_binary(b)
}

fn type_name(c: u8) -> &'static str {
    match c {
        4 => "Put",
        12 => "DeleteColumn",
        _ => unreachable!(),
    }
}

/// The `-p` line of a cell, seqid replaced by `*`.
fn expected_line(c: &Cell) -> String {
    let mut s = format!(
        "K: {}/f:{}/{}/{}/vlen={}/seqid=* V: {}",
        esc(&c.0),
        esc(&c.1),
        c.2,
        type_name(c.3),
        c.4.len(),
        esc(&c.4)
    );
    if let Some(t) = c.5 {
        s.push_str(&format!(" TTL={t}ms"));
    }
    s
}

/// Replaces `seqid=N` by `seqid=*`; returns the line and N.
fn strip_seqid(l: &str) -> (String, u64) {
    let at = l.find("/seqid=").expect("seqid") + 7;
    let end = at + l[at..].find(' ').unwrap_or(l.len() - at);
    (
        format!("{}*{}", &l[..at], &l[end..]),
        l[at..end].parse().unwrap(),
    )
}

#[test]
fn printkv_prints_exactly_the_cells_written() {
    let d = tempfile::tempdir().unwrap();
    let (file, cells) = flushed(d.path());
    let out = cellbase(&["hfile".to_string(), "-p".into(), file.display().to_string()]);
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    let (kv, rest) = lines.split_at(lines.len() - 1);
    assert_eq!(rest, [format!("Scanned kv count -> {}", cells.len())]);
    let got: Vec<(String, u64)> = kv.iter().map(|l| strip_seqid(l)).collect();
    let want: Vec<String> = cells.iter().map(expected_line).collect();
    assert_eq!(got.iter().map(|g| g.0.clone()).collect::<Vec<_>>(), want);
    // Sequence ids are the writes' (1-based, distinct).
    let mut seqs: Vec<u64> = got.iter().map(|g| g.1).collect();
    seqs.sort_unstable();
    seqs.dedup();
    assert_eq!(seqs.len(), cells.len());
    assert!(seqs[0] >= 1);
    // The escaping is HBase's: a backslash is \x5C, tab \x09.
    assert!(
        out.stdout
            .contains("K: bin\\x00\\xFF\\x5C/f:q\\x09/5/Put/vlen=6/"),
        "{out:?}"
    );

    // -e: keys only, same order.
    let out = cellbase(&["hfile".to_string(), "-e".into(), file.display().to_string()]);
    assert_eq!(out.code, 0);
    assert_eq!(out.stdout.lines().count(), cells.len() + 1);
    assert!(
        out.stdout
            .starts_with("K: bin\\x00\\xFF\\x5C/f:q\\x09/5/Put/seqid="),
        "{out:?}"
    );

    // -w ROW: that row only.
    let out = cellbase(&["hfile", "-w", "r050", &file.display().to_string()]);
    assert_eq!(out.code, 0, "{out:?}");
    let got: Vec<String> = out.stdout.lines().map(|l| strip_seqid(l).0).collect();
    let want: Vec<String> = cells
        .iter()
        .filter(|c| c.0 == b"r050")
        .map(expected_line)
        .collect();
    assert_eq!(got, want);
    assert_eq!(want.len(), 2);
}

#[test]
fn default_output_has_trailer_fileinfo_bloom_and_index() {
    let d = tempfile::tempdir().unwrap();
    let (file, cells) = flushed(d.path());
    let f = file.display().to_string();
    let out = cellbase(&["hfile", &f]);
    assert_eq!(out.code, 0, "{out:?}");
    let s = &out.stdout;
    let len = std::fs::metadata(&file).unwrap().len();
    for want in [
        "Trailer:".to_string(),
        format!("fileLength={len}"),
        format!("trailerOffset={}", len - 64),
        "majorVersion=1, magic=CELLBSST".into(),
        "Fileinfo:".into(),
        format!("ENTRIES = {}", cells.len()),
        format!("PUT_COUNT = {}", cells.len() - 1),
        "DELETE_COUNT = 1".into(),
        format!("TIMERANGE = 5....{NOW}"),
        "BLOOM_FILTER_TYPE = ROWCOL".into(),
        "DATA_BLOCK_ENCODING = NONE".into(),
        "FIRSTKEY = bin\\x00\\xFF\\x5C/f:q\\x09/5/Put/seqid=".into(),
        "LASTKEY = ttl/f:b/".into(),
        "Bloom filter:".into(),
        "BloomType: ROWCOL".into(),
        // Distinct (row, qualifier) keys: 100 + bin + ttl (the delete shares r050/a).
        "No of Keys in bloom: 102".into(),
        "Filter version: 3 (XXH64, 64-byte lines)".into(),
        "Hash functions: 6".into(),
        "Block Index:".into(),
    ] {
        assert!(s.contains(&want), "missing {want:?}:\n{s}");
    }
    // One index line per data block, as many as the file info says.
    let blocks: usize = s
        .lines()
        .find_map(|l| l.trim().strip_prefix("DATA_BLOCKS = "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(blocks > 1, "1 KiB blocks: several");
    assert!(s.contains(&format!("Block Index: {blocks} entries")));
    assert_eq!(
        s.lines()
            .filter(|l| l.trim_start().starts_with("block "))
            .count(),
        blocks
    );
    assert!(s.contains("    block 0: offset=0, size="), "{s}");

    // -m: meta only.
    let out = cellbase(&["hfile", "-m", &f]);
    assert!(out.stdout.contains("Fileinfo:") && !out.stdout.contains("Block Index"));
    // -s statistics, -k order check, -a family check: clean.
    let out = cellbase(&["hfile", "-s", "-k", "-a", &f]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stdout.contains("WARNING"), "{out:?}");
    assert!(
        out.stdout
            .contains(&format!("Key length: count: {}", cells.len())),
        "{out:?}"
    );
    assert!(
        out.stdout
            .contains("Row size (columns): count: 102, min: 1, max: 2"),
        "{out:?}"
    );
}

#[test]
fn damaged_or_missing_files_fail_cleanly() {
    let d = tempfile::tempdir().unwrap();
    let (file, _) = flushed(d.path());
    flip(&file, 3);
    let out = cellbase(&["hfile", "-p", &file.display().to_string()]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("ERROR:") && out.stderr.contains("checksum"),
        "{out:?}"
    );
    assert!(!out.stderr.contains("panicked"));
    let out = cellbase(&["hfile", "/nonexistent/x.sst"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("cannot read"), "{out:?}");
    let junk = d.path().join("junk.sst");
    std::fs::write(
        &junk,
        b"not a block file at all, but long enough to have a trailer....",
    )
    .unwrap();
    let out = cellbase(&["hfile", &junk.display().to_string()]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(!out.stderr.contains("panicked"));
    assert_eq!(cellbase(&["hfile"]).code, 2);
}

/// A FAST_DIFF family's file (suffix-delta entries): the file info names the encoding, `-p`
/// prints exactly the cells a NONE family's file holds, and the checks of `-k -a` and
/// `cellbase verify`-style block checks pass.
#[test]
fn fast_diff_file_reads_like_a_none_file() {
    let d = tempfile::tempdir().unwrap();
    let (plain, cells) = flushed(&d.path().join("none"));
    let (delta, same) = flushed_with(&d.path().join("fd"), DataBlockEncoding::FastDiff);
    assert_eq!(cells, same);
    let meta = cellbase(&["hfile", "-m", &delta.display().to_string()]);
    assert_eq!(meta.code, 0, "{meta:?}");
    assert!(
        meta.stdout.contains("DATA_BLOCK_ENCODING = FAST_DIFF"),
        "{meta:?}"
    );
    let kv = |f: &Path| {
        let out = cellbase(&["hfile", "-p", "-k", "-a", &f.display().to_string()]);
        assert_eq!(out.code, 0, "{out:?}");
        assert!(!out.stdout.contains("WARNING"), "{out:?}");
        out.stdout
            .lines()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
    };
    let (a, b) = (kv(&plain), kv(&delta));
    assert_eq!(a.len(), cells.len() + 1);
    assert_eq!(a, b);
    // Smaller data blocks: the repeated timestamps and sequence ids cost nothing.
    let raw = |out: &str| -> u64 {
        out.lines()
            .find_map(|l| l.trim().strip_prefix("RAW_DATA_BYTES = "))
            .unwrap()
            .parse()
            .unwrap()
    };
    let plain_meta = cellbase(&["hfile", "-m", &plain.display().to_string()]);
    assert!(raw(&meta.stdout) < raw(&plain_meta.stdout), "{meta:?}");
}
