//! Helpers shared by the integration test binaries: a tiny seeded PRNG (no `rand` crate),
//! temporary directories, byte formatting and readable diffs of cell lists.
//!
//! Each test binary that wants these declares `mod common;`; not every binary uses every item.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

// ---- randomness ---------------------------------------------------------------------------

/// SplitMix64: small, fast, well distributed, and fully determined by its seed, so a failing
/// run is replayed by re-running its seed.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Rng {
            state: seed ^ 0x6a09_e667_f3bc_c909,
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Rng::below(0)");
        // Multiply-shift: bias is negligible for the small ranges tests use.
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub fn range_i64(&mut self, lo: i64, hi: i64) -> i64 {
        assert!(lo <= hi);
        lo + self.below((hi - lo) as u64 + 1) as i64
    }

    /// Uniform in `0..n` as `usize`.
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    /// A uniformly chosen element.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }

    /// An index chosen with the given relative weights.
    pub fn weighted(&mut self, weights: &[u64]) -> usize {
        let total: u64 = weights.iter().sum();
        let mut x = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if x < w {
                return i;
            }
            x -= w;
        }
        unreachable!("weights sum checked above")
    }
}

/// Reads an integer from the environment (`None` when unset; panics when malformed so a typo
/// is not silently ignored).
pub fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    let v = v.trim();
    let parsed = match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => v.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name}={v:?} is not an integer")))
}

// ---- temporary directories ------------------------------------------------------------------

/// A temporary directory removed on drop (kept when `KEEP_TEST_DIRS` is set, for post-mortems).
pub struct TempDir {
    dir: Option<tempfile::TempDir>,
    path: PathBuf,
}

impl TempDir {
    /// A fresh empty directory whose name starts with `prefix`.
    pub fn new(prefix: &str) -> Self {
        let dir = tempfile::Builder::new()
            .prefix(&format!("cellbase-{prefix}-"))
            .tempdir()
            .expect("create temporary directory");
        let path = dir.path().to_path_buf();
        if std::env::var_os("KEEP_TEST_DIRS").is_some() {
            eprintln!("keeping test directory {}", path.display());
            let _ = dir.keep();
            return TempDir { dir: None, path };
        }
        TempDir {
            dir: Some(dir),
            path,
        }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        drop(self.dir.take());
    }
}

// ---- formatting -----------------------------------------------------------------------------

/// Bytes the way HBase's `Bytes.toStringBinary` shows them: printable ASCII as is, everything
/// else as `\xNN`.
pub fn show(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for &b in bytes {
        if (0x20..0x7f).contains(&b) && b != b'\\' && b != b'"' {
            s.push(b as char);
        } else {
            let _ = write!(s, "\\x{b:02x}");
        }
    }
    s
}

/// Bytes as a Rust string literal (for op logs that are pasted into regression tests).
pub fn lit(bytes: &[u8]) -> String {
    format!("\"{}\"", show(bytes))
}

/// One cell in a comparable, printable form: (row, family, qualifier, timestamp, value).
pub type CellTuple = (Vec<u8>, Vec<u8>, Vec<u8>, i64, Vec<u8>);

/// A cell tuple as `row/family:qualifier@ts=value`.
pub fn show_cell(c: &CellTuple) -> String {
    format!(
        "{}/{}:{}@{}={}",
        show(&c.0),
        show(&c.1),
        show(&c.2),
        c.3,
        show(&c.4)
    )
}

/// A line-by-line diff of two cell lists (expected vs actual): a longest-common-subsequence
/// alignment, `-` for cells only expected, `+` for cells only returned, two spaces for both.
pub fn diff_cells(expected: &[CellTuple], actual: &[CellTuple]) -> String {
    let (n, m) = (expected.len(), actual.len());
    // lcs[i][j] = LCS length of expected[i..] and actual[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if expected[i] == actual[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = String::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && expected[i] == actual[j] {
            let _ = writeln!(out, "    {}", show_cell(&expected[i]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            let _ = writeln!(
                out,
                "  + {}   (returned, not expected)",
                show_cell(&actual[j])
            );
            j += 1;
        } else {
            let _ = writeln!(out, "  - {}   (expected, missing)", show_cell(&expected[i]));
            i += 1;
        }
    }
    out
}
