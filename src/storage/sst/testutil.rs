//! Test helpers shared by the sst unit tests: a seeded PRNG, cell generators, file round trips.

use super::block::{Block, BlockIter, SHARES_COLUMN, SHARES_FAMILY, SHARES_ROW};
use super::{CachePolicy, FileMeta, SstReader, SstWriter, SstWriterConfig};
use crate::base::error::Result;
use crate::base::io::{FileSystem, StdFs};
use crate::model::cursor::CellCursor;
use crate::model::key::{CellType, KeyRef, compare_encoded};
use crate::model::payload::{self, PayloadRef};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A cell: encoded key and payload.
pub type Cell = (Vec<u8>, Vec<u8>);

/// splitmix64: tiny, deterministic, good enough for test data.
pub struct Rng(pub u64);

impl Rng {
    /// A generator from `seed` (printed so a failure can be replayed).
    pub fn new(seed: u64) -> Rng {
        println!("seed = {seed:#x}");
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    pub fn bytes(&mut self, alphabet: &[u8], max_len: u64) -> Vec<u8> {
        let n = self.below(max_len + 1);
        (0..n)
            .map(|_| alphabet[self.below(alphabet.len() as u64) as usize])
            .collect()
    }
}

pub fn key(row: &[u8], family: &[u8], qualifier: &[u8], ts: i64, t: CellType, seq: u64) -> Vec<u8> {
    KeyRef {
        row,
        family,
        qualifier,
        ts,
        type_code: t.code(),
        seq,
    }
    .encode()
}

pub const TYPES: [CellType; 5] = [
    CellType::Put,
    CellType::Delete,
    CellType::DeleteColumn,
    CellType::DeleteFamily,
    CellType::DeleteFamilyVersion,
];

/// `n` distinct random cells in [SORT-1] order: short rows and qualifiers over a small alphabet
/// (so prefixes are shared), every cell type, empty qualifiers, empty and TTL'd values.
pub fn gen_cells(rng: &mut Rng, n: usize) -> Vec<Cell> {
    let mut cells: Vec<Cell> = Vec::with_capacity(n);
    while cells.len() < n {
        let row = rng.bytes(b"abcdxyz\x00\xff", 6);
        let t = TYPES[rng.below(5) as usize];
        let q = if rng.below(6) == 0 {
            Vec::new()
        } else {
            rng.bytes(b"pq\x01", 3)
        };
        let ts = rng.below(100) as i64 - 5;
        let k = key(&row, b"cf", &q, ts, t, rng.below(1000));
        let max = if rng.below(10) == 0 { 0 } else { 40 };
        let v = rng.bytes(b"value", max);
        let ttl = (rng.below(8) == 0).then(|| rng.below(10_000));
        cells.push((k, payload::encode(ttl, &v)));
    }
    cells.sort_by(|a, b| compare_encoded(&a.0, &b.0));
    cells.dedup_by(|a, b| compare_encoded(&a.0, &b.0).is_eq());
    cells
}

/// Writes `cells` to `dir/name` with `cfg`.
pub fn write_file(
    dir: &Path,
    name: &str,
    cells: &[Cell],
    cfg: SstWriterConfig,
) -> (PathBuf, FileMeta) {
    let path = dir.join(name);
    let f = StdFs.create(&path).unwrap();
    let mut w = SstWriter::new(f, path.clone(), cfg);
    for (k, v) in cells {
        w.add(k, v).unwrap();
    }
    let meta = w.finish().unwrap();
    (path, meta)
}

/// Every cell of the file in cursor order.
pub fn scan(reader: &Arc<SstReader>) -> Result<Vec<Cell>> {
    let mut c = reader.cursor(CachePolicy::default());
    c.seek_to_first()?;
    let mut out = Vec::new();
    while c.valid() {
        out.push((c.key().to_vec(), c.payload().to_vec()));
        c.next()?;
    }
    Ok(out)
}

/// Opens `path` without a cache.
pub fn open(path: &Path) -> Result<Arc<SstReader>> {
    SstReader::open(&StdFs, path, 1, None).map(Arc::new)
}

/// File bytes held in memory.
#[derive(Debug)]
pub struct MemFile(pub Vec<u8>);

impl crate::base::io::ReadableFile for MemFile {
    fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// Opens in-memory file bytes without a cache.
pub fn open_bytes(bytes: Vec<u8>) -> Result<Arc<SstReader>> {
    SstReader::from_file(Arc::new(MemFile(bytes)), Path::new("mem.sst"), 1, None).map(Arc::new)
}

/// Every cell of an intact block, in order.
pub fn walk(block: Arc<Block>) -> Vec<Cell> {
    let mut it = BlockIter::new(block, Vec::new());
    it.seek_to_first().unwrap();
    let mut out = Vec::new();
    while it.valid() {
        out.push((it.key().to_vec(), it.payload().to_vec()));
        it.advance().unwrap();
    }
    out
}

/// A damaged block read as the cursor reads it: seeks to every fifth of `probes`, then a walk
/// from the first entry. Whatever the cursor yields must be a well-formed cell (asserted);
/// `None` when the walk stopped at an error (the cursor is then invalid), else what it walked.
pub fn walk_damaged(b: &Arc<Block>, probes: &[Cell]) -> Option<Vec<Cell>> {
    let well_formed = |it: &BlockIter| {
        assert!(
            KeyRef::parse(it.key())
                .and_then(|k| k.cell_type())
                .is_some()
        );
        assert!(PayloadRef::parse(it.payload()).is_some());
    };
    let mut it = BlockIter::new(b.clone(), Vec::new());
    for (k, _) in probes.iter().step_by(5) {
        if it.seek(k).is_ok() && it.valid() {
            well_formed(&it);
        }
    }
    let mut walked = Vec::new();
    let mut r = it.seek_to_first();
    while r.is_ok() && it.valid() {
        well_formed(&it);
        walked.push((it.key().to_vec(), it.payload().to_vec()));
        r = it.advance();
    }
    if r.is_err() {
        assert!(!it.valid());
        return None;
    }
    Some(walked)
}

/// The true [`BlockIter::shares`] level of `b` after `a`.
pub fn true_shares(a: &[u8], b: &[u8]) -> u8 {
    let (a, b) = (KeyRef::parse(a).unwrap(), KeyRef::parse(b).unwrap());
    match (
        a.row == b.row,
        a.family == b.family,
        a.qualifier == b.qualifier,
    ) {
        (false, _, _) => 0,
        (true, false, _) => SHARES_ROW,
        (true, true, false) => SHARES_FAMILY,
        (true, true, true) => SHARES_COLUMN,
    }
}
