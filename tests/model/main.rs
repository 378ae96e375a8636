//! Randomized differential ("model") test of the storage core.
//!
//! A naive reference model of the HBase data-model rules (shared/hbase-semantics.md §1.1-1.4,
//! §1.7) is driven by thousands of random operations from a seeded PRNG next to a real `Db`;
//! every Get and Scan result is compared cell by cell (row, family, qualifier, timestamp,
//! value). After every flush / compaction / reopen the region metrics (store files, write
//! requests, memstore emptiness) are cross-checked and the whole table is compared.
//!
//! Operations: puts (explicit timestamps that collide a lot, "now", future, next to
//! `i64::MAX`; duplicate coordinates in one Put), every kind of Delete (and combinations,
//! [DEL-6] [DEL-7]), clock advances, Gets and Scans with random column selection [GET-1],
//! versions, time ranges, row ranges, prefixes and limits, flush, minor and major compaction,
//! close + reopen (alternately flushing on close and replaying the WAL), and scanners left
//! open across writes, flushes and compactions (`ScanInterleaved`: the scanner must see the
//! table as of `scan()`).
//!
//! Replaying: a failure prints its seed, the op index and the tail of the op log (written as
//! Rust calls, ready to paste into a regression test). Environment:
//! * `MODEL_SEED=<n>`: run only this seed (the fixed-seed tests then do nothing);
//! * `MODEL_OPS=<n>`: operations per seed (default [`DEFAULT_OPS`]);
//! * `MODEL_INTERLEAVED=0`: never leave a scanner open across other ops (see `ScanInterleaved`);
//! * `MODEL_VERBOSE=1`: print every op as it runs; `KEEP_TEST_DIRS=1`: keep the database dir.
//!
//! Engine setup: manual clock (starting at [`START_NOW`]), no background threads and an
//! enormous flush size, so flushes and compactions happen exactly when the test says. Both
//! families keep [`V`] versions, far more than any column ever gets, so flush and compaction
//! never prune versions: what a read returns then depends only on which delete markers still
//! physically exist, which the model tracks exactly (where each cell lives: memstore or files).
//! Storage settings that must not change results (block size, Bloom filter, compression,
//! caching) are drawn from the seed.

#[path = "../common/mod.rs"]
mod common;

use cellbase::{
    BloomType, CellType, Compression, DataBlockEncoding, Db, DbOptions, Delete, FamilyDescriptor,
    Get, ManualClock, Put, RowResult, Scan, Table, TableDescriptor,
};
use common::{CellTuple, Rng, TempDir, diff_cells, env_u64, lit, show};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::{Duration, Instant};

/// Family VERSIONS of both families: large enough that nothing is ever pruned for versions.
const V: u32 = 1000;
/// The manual clock's start; explicit timestamps 0..=30 are therefore always "in the past".
const START_NOW: i64 = 1000;
/// Operations per seed unless `MODEL_OPS` says otherwise.
const DEFAULT_OPS: usize = 8000;
/// The table's families, in byte order (the order results list them [SORT-1]).
const FAMILIES: [&str; 2] = ["a", "b"];
/// Qualifiers: the empty one (which family markers share [SORT-5]), a prefix pair ("q" <
/// "q1" [SORT-2]) and a high byte that must sort after ASCII (unsigned compare [SORT-2]).
const QUALIFIERS: [&[u8]; 5] = [b"", b"q", b"q1", b"x", b"\xe1"];
/// Row keys beyond "r00".."r19": "r1" is a prefix of "r10".."r19".
const EXTRA_ROWS: [&str; 1] = ["r1"];
/// Reversed scans [SCAN-REV-1] [SORT-8]: `Scan::reversed(true)`, start = inclusive high end,
/// stop = exclusive low end, a prefix = the rows with that prefix (in descending order).
const REVERSED_SCANS: bool = true;

/// Scan bounds and Get rows that are not (all) rows.
const BOUNDS: [&str; 8] = ["r", "r0", "r055", "r1", "r10", "r2", "s", "a"];
/// Family "b"'s TTL [TTL-1] (whole seconds) in the seeds that have one (see [`ttl_b_ms`]).
const TTL_B_SECS: i64 = 60;

/// Family "b"'s TTL in ms for this seed, if any; seeds with a family TTL also write cell TTLs.
/// Not in the "many-files" profile: a minor compaction (> 10 files) may drop every cell of
/// its (unknown) 10 files as expired and write no file, which the file count cannot follow;
/// for the same reason TTL seeds turn `compact()` into `major_compact()` once a store holds
/// 10 files.
///
/// Why TTL keeps the model exact (VERSIONS = 1000, MIN_VERSIONS = 0): a read filters expired
/// Puts before counting versions [VER-3] [TTL-5], and `now` only grows, so an expired Put is
/// invisible forever; whether flush/compaction still holds it physically changes nothing.
/// A family-expired marker [TTL-7] (ts < now - ttl) only masks Puts with ts <= its own ts,
/// which are family-expired too (same family, same TTL) and stay so: dropping the marker can
/// expose nothing. Cell-TTL'd markers do not exist (Put::ttl only). Pruning by VERSIONS never
/// happens (< 1000 versions per column). The one physical dependence left: two writes of the
/// same (row, family, qualifier, ts) where the NEWER one carries a cell TTL and expires — HBase
/// then shows the older one only if no flush/compaction deduplicated it first; the generator
/// never gives a TTL to a Put that would shadow an existing cell that way.
/// Seeds with regions: pre-split at [`SPLIT_KEYS`], then `split`/`merge` ops. Their model
/// does not follow per-region store files, so these seeds never issue `compact()` (whose
/// choice depends on per-store file counts); `split` or `merge` of a region that may hold
/// references is preceded by an explicit `major_compact()` (which leaves no references), so the
/// engine's own forced compaction before a split or merge never has anything semantic to do.
fn has_regions(seed: u64) -> bool {
    seed % 4 == 2
}

const SPLIT_KEYS: [&str; 2] = ["r05", "r12"];

fn ttl_b_ms(seed: u64) -> Option<i64> {
    (seed % 3 != 1).then_some(TTL_B_SECS * 1000)
}

// ---- operations -----------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct PutCellSpec {
    family: usize,
    qualifier: Vec<u8>,
    /// `None` = `Put::add` (stamped with the server's now [TS-1]).
    ts: Option<i64>,
    value: Vec<u8>,
}

/// One builder call on a `Delete`, in call order (the model replays the builder, [DEL-7]).
#[derive(Clone, Debug)]
enum DelCall {
    LatestVersion(usize, Vec<u8>),
    Version(usize, Vec<u8>, i64),
    AllVersions(usize, Vec<u8>),
    VersionsUpTo(usize, Vec<u8>, i64),
    Family(usize),
    FamilyUpTo(usize, i64),
    FamilyVersion(usize, i64),
}

/// `Get::family` / `Get::column` calls, in order [GET-1].
#[derive(Clone, Debug)]
enum ColCall {
    Family(usize),
    Column(usize, Vec<u8>),
}

#[derive(Clone, Copy, Debug)]
enum Versions {
    Default,
    Max(u32),
    All,
}

#[derive(Clone, Copy, Debug)]
enum Time {
    All,
    Range(i64, i64),
    At(i64),
}

#[derive(Clone, Debug)]
struct ReadSpec {
    columns: Vec<ColCall>,
    versions: Versions,
    time: Time,
}

#[derive(Clone, Debug)]
enum RowRange {
    All,
    Start(Vec<u8>),
    Stop(Vec<u8>),
    StartStop(Vec<u8>, Vec<u8>),
    Prefix(Vec<u8>),
}

#[derive(Clone, Debug)]
enum Op {
    Put {
        row: Vec<u8>,
        cells: Vec<PutCellSpec>,
        /// `Put::ttl` in ms: a cell TTL on every cell [TTL-3].
        ttl: Option<i64>,
    },
    /// `calls` empty: whole-row delete, at `up_to` or now.
    Delete {
        row: Vec<u8>,
        calls: Vec<DelCall>,
        up_to: Option<i64>,
    },
    Advance(i64),
    Get {
        row: Vec<u8>,
        read: ReadSpec,
    },
    /// `reversed`: rows descending, `start` the high bound [SCAN-REV-1].
    Scan {
        range: RowRange,
        reversed: bool,
        limit: Option<u64>,
        read: ReadSpec,
    },
    /// Opens a scanner (`scan`, an `Op::Scan`), takes `take` rows, runs `during` (writes,
    /// flushes, compactions), then drains it: the scanner must see the table as of `scan()`
    /// (its MVCC read point), and compactions meanwhile follow HBase's smallest-read-point rule
    /// (§1.7: markers written after the scanner opened are kept and do not mask).
    ScanInterleaved {
        scan: Box<Op>,
        take: usize,
        during: Vec<Op>,
    },
    Flush,
    Compact,
    MajorCompact,
    Reopen,
    /// `t.split(Some(row))` / `t.split(None)`.
    Split(Option<Vec<u8>>),
    /// `t.merge` of region `i` and `i + 1` (names from `t.regions()`).
    Merge(usize),
}

impl Op {
    fn kind(&self) -> &'static str {
        match self {
            Op::Put { .. } => "put",
            Op::Delete { .. } => "delete",
            Op::Advance(_) => "advance",
            Op::Get { .. } => "get",
            Op::Scan { .. } => "scan",
            Op::ScanInterleaved { .. } => "scan_interleaved",
            Op::Flush => "flush",
            Op::Compact => "compact",
            Op::MajorCompact => "major_compact",
            Op::Reopen => "reopen",
            Op::Split(_) => "split",
            Op::Merge(_) => "merge",
        }
    }
}

fn fam(i: usize) -> String {
    lit(FAMILIES[i].as_bytes())
}

impl fmt::Display for ReadSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.columns {
            match c {
                ColCall::Family(x) => write!(f, ".family({})", fam(*x))?,
                ColCall::Column(x, q) => write!(f, ".column({}, {})", fam(*x), lit(q))?,
            }
        }
        match self.versions {
            Versions::Default => {}
            Versions::Max(n) => write!(f, ".max_versions({n})")?,
            Versions::All => write!(f, ".all_versions()")?,
        }
        match self.time {
            Time::All => Ok(()),
            Time::Range(a, b) => write!(f, ".time_range({a}, {})", show_ts(b)),
            Time::At(t) => write!(f, ".timestamp({t})"),
        }
    }
}

/// A Scan as the builder calls that make it.
fn write_scan(
    f: &mut fmt::Formatter<'_>,
    range: &RowRange,
    reversed: bool,
    limit: Option<u64>,
    read: &ReadSpec,
) -> fmt::Result {
    write!(f, "Scan::new()")?;
    if reversed {
        write!(f, ".reversed(true)")?;
    }
    match range {
        RowRange::All => {}
        RowRange::Start(s) => write!(f, ".start_row({})", lit(s))?,
        RowRange::Stop(s) => write!(f, ".stop_row({})", lit(s))?,
        RowRange::StartStop(a, b) => write!(f, ".start_row({}).stop_row({})", lit(a), lit(b))?,
        RowRange::Prefix(p) => write!(f, ".prefix({})", lit(p))?,
    }
    if let Some(n) = limit {
        write!(f, ".limit({n})")?;
    }
    write!(f, "{read}")
}

fn show_ts(t: i64) -> String {
    if t == i64::MAX {
        "i64::MAX".to_string()
    } else {
        t.to_string()
    }
}

/// Ops print as the Rust calls that perform them (`t` = the table), so an op log tail can be
/// pasted into a regression test.
impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Put { row, cells, ttl } => {
                write!(f, "t.put(Put::new({})", lit(row))?;
                if let Some(ms) = ttl {
                    write!(f, ".ttl(Duration::from_millis({ms}))")?;
                }
                for c in cells {
                    match c.ts {
                        Some(ts) => write!(
                            f,
                            ".add_at({}, {}, {ts}, {})",
                            fam(c.family),
                            lit(&c.qualifier),
                            lit(&c.value)
                        )?,
                        None => write!(
                            f,
                            ".add({}, {}, {})",
                            fam(c.family),
                            lit(&c.qualifier),
                            lit(&c.value)
                        )?,
                    }
                }
                write!(f, ").unwrap();")
            }
            Op::Delete { row, calls, up_to } => {
                write!(f, "t.delete(Delete::new({})", lit(row))?;
                if let Some(ts) = up_to {
                    write!(f, ".up_to({ts})")?;
                }
                for c in calls {
                    match c {
                        DelCall::LatestVersion(x, q) => {
                            write!(f, ".latest_version({}, {})", fam(*x), lit(q))?
                        }
                        DelCall::Version(x, q, ts) => {
                            write!(f, ".version({}, {}, {ts})", fam(*x), lit(q))?
                        }
                        DelCall::AllVersions(x, q) => {
                            write!(f, ".all_versions({}, {})", fam(*x), lit(q))?
                        }
                        DelCall::VersionsUpTo(x, q, ts) => {
                            write!(f, ".versions_up_to({}, {}, {ts})", fam(*x), lit(q))?
                        }
                        DelCall::Family(x) => write!(f, ".family({})", fam(*x))?,
                        DelCall::FamilyUpTo(x, ts) => {
                            write!(f, ".family_up_to({}, {ts})", fam(*x))?
                        }
                        DelCall::FamilyVersion(x, ts) => {
                            write!(f, ".family_version({}, {ts})", fam(*x))?
                        }
                    }
                }
                write!(f, ").unwrap();")
            }
            Op::Advance(ms) => write!(f, "clock.advance(Duration::from_millis({ms}));"),
            Op::Get { row, read } => write!(f, "t.get(Get::new({}){read}).unwrap();", lit(row)),
            Op::Scan {
                range,
                reversed,
                limit,
                read,
            } => {
                write!(f, "scan(&t, ")?;
                write_scan(f, range, *reversed, *limit, read)?;
                write!(f, ");")
            }
            Op::ScanInterleaved { scan, take, .. } => {
                let Op::Scan {
                    range,
                    reversed,
                    limit,
                    read,
                } = scan.as_ref()
                else {
                    unreachable!("ScanInterleaved holds an Op::Scan")
                };
                write!(f, "let mut s = t.scan(")?;
                write_scan(f, range, *reversed, *limit, read)?;
                write!(
                    f,
                    ").unwrap(); let mut got: Vec<_> = s.by_ref().take({take}).collect();"
                )
            }
            Op::Flush => write!(f, "t.flush().unwrap();"),
            Op::Compact => write!(f, "t.compact().unwrap();"),
            Op::MajorCompact => write!(f, "t.major_compact().unwrap();"),
            Op::Reopen => write!(f, "(t, db) = reopen(t, db);"),
            Op::Split(Some(r)) => write!(f, "t.split(Some({}.as_ref())).unwrap();", lit(r)),
            Op::Split(None) => write!(f, "t.split(None).unwrap();"),
            Op::Merge(i) => write!(
                f,
                "let r = t.regions(); t.merge(&r[{i}].name, &r[{}].name).unwrap();",
                i + 1
            ),
        }
    }
}

// ---- the reference model --------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Put,
    /// Delete: one version, exact ts.
    D,
    /// DeleteColumn: versions <= ts.
    Dc,
    /// DeleteFamily: every qualifier, versions <= ts.
    Df,
    /// DeleteFamilyVersion: every qualifier, exactly ts.
    Dfv,
}

#[derive(Clone, Debug)]
struct MCell {
    /// The write (mutation) that produced it; all cells of one mutation share it [SORT-7].
    seq: u64,
    family: usize,
    /// Empty for family markers [SORT-5].
    qualifier: Vec<u8>,
    ts: i64,
    kind: Kind,
    value: Vec<u8>,
    /// In a store file (else in the memstore).
    in_files: bool,
    /// Which store file of its family (the model's own ids, ascending with age), when
    /// `in_files`.
    file: u32,
    /// Cell TTL in ms (`Put::ttl`) [TTL-3].
    ttl: Option<i64>,
}

/// Does marker `m` mask put `p` (same row assumed)? Write order plays no part [DEL-1], equal
/// timestamps are masked [DEL-2], markers only touch their own family [DEL-3]; this is what
/// the delete tracker [DEL-5] computes, stated per pair.
fn masks(m: &MCell, p: &MCell) -> bool {
    if m.family != p.family {
        return false;
    }
    match m.kind {
        Kind::Put => false,
        Kind::Df => p.ts <= m.ts,
        Kind::Dfv => p.ts == m.ts,
        Kind::Dc => m.qualifier == p.qualifier && p.ts <= m.ts,
        Kind::D => m.qualifier == p.qualifier && p.ts == m.ts,
    }
}

fn is_masked(cells: &[MCell], p: &MCell) -> bool {
    cells.iter().any(|m| masks(m, p))
}

/// Column selection after replaying `family`/`column` calls [GET-1]: empty = everything;
/// a family mapped to `None` = the whole family; `Some(set)` = only these qualifiers.
fn selection(calls: &[ColCall]) -> BTreeMap<usize, Option<BTreeSet<Vec<u8>>>> {
    let mut sel: BTreeMap<usize, Option<BTreeSet<Vec<u8>>>> = BTreeMap::new();
    for c in calls {
        match c {
            // addFamily after addColumn widens back to the whole family.
            ColCall::Family(f) => {
                sel.insert(*f, None);
            }
            // addColumn after addFamily narrows to the named qualifiers.
            ColCall::Column(f, q) => match sel.entry(*f).or_insert_with(|| Some(BTreeSet::new())) {
                Some(set) => {
                    set.insert(q.clone());
                }
                slot @ None => *slot = Some(BTreeSet::from([q.clone()])),
            },
        }
    }
    sel
}

fn time_bounds(t: Time) -> (i64, i64) {
    match t {
        Time::All => (0, i64::MAX),
        Time::Range(a, b) => (a, b),
        // [TS-5] setTimestamp(t) = [t, t+1).
        Time::At(t) => (t, t.saturating_add(1)),
    }
}

fn max_versions(v: Versions) -> u32 {
    match v {
        Versions::Default => 1, // [VER-2]
        Versions::Max(n) => n,
        Versions::All => u32::MAX,
    }
}

/// The exclusive stop row of a prefix scan [SCAN-2].
fn prefix_stop(p: &[u8]) -> Vec<u8> {
    let mut stop = p.to_vec();
    while let Some(last) = stop.pop() {
        if last != 0xff {
            stop.push(last + 1);
            return stop;
        }
    }
    Vec::new()
}

#[derive(Default)]
struct Model {
    rows: BTreeMap<Vec<u8>, Vec<MCell>>,
    /// Store files per family, oldest first (the model's file ids).
    files: [Vec<u32>; 2],
    /// The last file id given out.
    last_file: u32,
    /// Last mutation's sequence number.
    seq: u64,
    now: i64,
    /// Row mutations since the database was (re)opened (`RegionInfo::write_requests`).
    writes_since_open: u64,
    /// The last mutation visible to a scanner still open (its MVCC read point), if any.
    open_read_point: Option<u64>,
    /// Family TTLs in ms (None = forever).
    family_ttl: [Option<i64>; 2],
    /// Region boundaries (the interior split keys, ascending) and, per region, whether it may
    /// hold references (files shared with another region).
    bounds: Vec<Vec<u8>>,
    maybe_refs: Vec<bool>,
}

impl Model {
    /// A Put expired at `now`: family-expired iff `ts < now - ttl` (strict) [TTL-2], or
    /// cell-expired iff `ts + cell ttl < now` [TTL-3].
    /// What flush and compaction may drop for TTL: expired Puts [TTL-5], family-expired
    /// markers [TTL-7] (invisible either way, see `ttl_b_ms`).
    fn droppable(&self, c: &MCell) -> bool {
        if c.kind == Kind::Put {
            self.expired(c)
        } else {
            self.family_ttl[c.family].is_some_and(|t| c.ts < self.now.saturating_sub(t))
        }
    }

    fn expired(&self, p: &MCell) -> bool {
        self.family_ttl[p.family].is_some_and(|t| p.ts < self.now.saturating_sub(t))
            || p.ttl.is_some_and(|t| p.ts.saturating_add(t) < self.now)
    }

    /// Visible versions of one column, newest first, uncapped: unmasked Puts [DEL-1]
    /// [DEL-5] inside the time range [VER-5], one per timestamp (the newest write) [VER-4].
    /// Masked and out-of-range cells are simply absent, so they consume no version [VER-3].
    fn column(
        &self,
        cells: &[MCell],
        family: usize,
        qualifier: &[u8],
        tr: (i64, i64),
    ) -> Vec<MCell> {
        let mut by_ts: BTreeMap<i64, &MCell> = BTreeMap::new();
        for p in cells {
            if p.kind != Kind::Put || p.family != family || p.qualifier != qualifier {
                continue;
            }
            if p.ts < tr.0 || p.ts >= tr.1 || self.expired(p) || is_masked(cells, p) {
                continue;
            }
            match by_ts.get(&p.ts) {
                Some(q) if q.seq > p.seq => {}
                _ => {
                    by_ts.insert(p.ts, p);
                }
            }
        }
        by_ts.into_values().rev().cloned().collect()
    }

    /// What a normal (KDC=FALSE) Get of `row` returns, in [SORT-1] order.
    fn read_row(&self, row: &[u8], read: &ReadSpec) -> Vec<CellTuple> {
        let Some(cells) = self.rows.get(row) else {
            return Vec::new();
        };
        let sel = selection(&read.columns);
        let tr = time_bounds(read.time);
        // [VER-2]: effective per-column limit min(query versions, VERSIONS).
        let limit = max_versions(read.versions).min(V) as usize;
        let mut out = Vec::new();
        for (fi, fname) in FAMILIES.iter().enumerate() {
            let wanted = if sel.is_empty() {
                None
            } else {
                match sel.get(&fi) {
                    None => continue,
                    Some(w) => w.as_ref(),
                }
            };
            let qualifiers: BTreeSet<&[u8]> = cells
                .iter()
                .filter(|c| c.kind == Kind::Put && c.family == fi)
                .map(|c| c.qualifier.as_slice())
                .filter(|q| wanted.is_none_or(|w| w.contains(*q)))
                .collect();
            for q in qualifiers {
                for c in self.column(cells, fi, q, tr).into_iter().take(limit) {
                    out.push((
                        row.to_vec(),
                        fname.as_bytes().to_vec(),
                        q.to_vec(),
                        c.ts,
                        c.value.clone(),
                    ));
                }
            }
        }
        out
    }

    /// What a Scan returns: one inner list per non-empty row [SCAN-1], rows ascending; when
    /// reversed, rows descending from `start` (inclusive, the high bound) down to `stop`
    /// (exclusive) [SCAN-REV-1], cells inside a row still in forward order [SORT-8]. At most
    /// `limit` rows, counting only returned rows [SCAN-2b].
    fn scan(
        &self,
        range: &RowRange,
        reversed: bool,
        limit: Option<u64>,
        read: &ReadSpec,
    ) -> Vec<Vec<CellTuple>> {
        let (start, stop): (Vec<u8>, Vec<u8>) = match range {
            RowRange::All => (Vec::new(), Vec::new()),
            RowRange::Start(s) => (s.clone(), Vec::new()),
            RowRange::Stop(s) => (Vec::new(), s.clone()),
            RowRange::StartStop(a, b) => (a.clone(), b.clone()),
            RowRange::Prefix(p) => (p.clone(), prefix_stop(p)),
        };
        let in_range = |row: &[u8]| {
            if let RowRange::Prefix(p) = range {
                // A prefix scan returns the rows with the prefix, in either direction.
                row.starts_with(p)
            } else if reversed {
                (start.is_empty() || row <= start.as_slice())
                    && (stop.is_empty() || row > stop.as_slice())
            } else {
                row >= start.as_slice() && (stop.is_empty() || row < stop.as_slice())
            }
        };
        let rows: Vec<&Vec<u8>> = if reversed {
            self.rows.keys().rev().collect()
        } else {
            self.rows.keys().collect()
        };
        let mut out = Vec::new();
        for row in rows {
            if !in_range(row) {
                continue;
            }
            if limit.is_some_and(|n| out.len() as u64 >= n) {
                break;
            }
            let cells = self.read_row(row, read);
            if !cells.is_empty() {
                out.push(cells);
            }
        }
        out
    }

    fn apply_put(&mut self, row: &[u8], cells: &[PutCellSpec], ttl: Option<i64>) {
        self.seq += 1;
        self.writes_since_open += 1;
        let list = self.rows.entry(row.to_vec()).or_default();
        let first_of_put = list.len();
        for c in cells {
            // [TS-1] one "now" for every cell of the put.
            let ts = c.ts.unwrap_or(self.now);
            // [SORT-7] identical coordinates within one mutation: the last cell wins.
            list.retain_mut_from(first_of_put, |x| {
                !(x.family == c.family && x.qualifier == c.qualifier && x.ts == ts)
            });
            list.push(MCell {
                seq: self.seq,
                family: c.family,
                qualifier: c.qualifier.clone(),
                ts,
                kind: Kind::Put,
                value: c.value.clone(),
                in_files: false,
                file: 0,
                ttl,
            });
        }
    }

    /// The markers a Delete writes, resolved against the state before it [DEL-6] [DEL-7].
    fn delete_markers(
        &self,
        row: &[u8],
        calls: &[DelCall],
        up_to: Option<i64>,
    ) -> Vec<(usize, Vec<u8>, Kind, i64)> {
        // Replay the builder: addFamily discards earlier entries of that family [DEL-7].
        let mut entries: Vec<&DelCall> = Vec::new();
        for c in calls {
            if let DelCall::Family(f) | DelCall::FamilyUpTo(f, _) = c {
                entries.retain(|e| entry_family(e) != *f);
            }
            entries.push(c);
        }
        if entries.is_empty() {
            // Whole-row delete: one DF per family of the table, at up_to or now [DEL-6].
            let ts = up_to.unwrap_or(self.now);
            return (0..FAMILIES.len())
                .map(|f| (f, Vec::new(), Kind::Df, ts))
                .collect();
        }
        let empty = Vec::new();
        let cells = self.rows.get(row).unwrap_or(&empty);
        let mut latest_count: BTreeMap<(usize, Vec<u8>), usize> = BTreeMap::new();
        entries
            .into_iter()
            .map(|e| match e {
                DelCall::LatestVersion(f, q) => {
                    // [DEL-6] the k-th such entry for a column hits the k-th newest visible
                    // version (all time, at most VERSIONS), else now.
                    let k = latest_count.entry((*f, q.clone())).or_insert(0);
                    *k += 1;
                    let versions = self.column(cells, *f, q, (0, i64::MAX));
                    let ts = if *k <= V as usize {
                        versions.get(*k - 1).map(|c| c.ts)
                    } else {
                        None
                    };
                    (*f, q.clone(), Kind::D, ts.unwrap_or(self.now))
                }
                DelCall::Version(f, q, ts) => (*f, q.clone(), Kind::D, *ts),
                DelCall::AllVersions(f, q) => (*f, q.clone(), Kind::Dc, self.now),
                DelCall::VersionsUpTo(f, q, ts) => (*f, q.clone(), Kind::Dc, *ts),
                DelCall::Family(f) => (*f, Vec::new(), Kind::Df, self.now),
                DelCall::FamilyUpTo(f, ts) => (*f, Vec::new(), Kind::Df, *ts),
                DelCall::FamilyVersion(f, ts) => (*f, Vec::new(), Kind::Dfv, *ts),
            })
            .collect()
    }

    fn apply_delete(&mut self, row: &[u8], calls: &[DelCall], up_to: Option<i64>) {
        let markers = self.delete_markers(row, calls, up_to);
        self.seq += 1;
        self.writes_since_open += 1;
        let seq = self.seq;
        let list = self.rows.entry(row.to_vec()).or_default();
        for (family, qualifier, kind, ts) in markers {
            list.push(MCell {
                seq,
                family,
                qualifier,
                ts,
                kind,
                value: Vec::new(),
                in_files: false,
                file: 0,
                ttl: None,
            });
        }
    }

    /// Flush: every memstore cell goes to a new file of its family (masked Puts may be
    /// dropped by the engine [DEL-11] [CMP-1], which is invisible either way).
    fn flush(&mut self) {
        self.flush_where(|_| true);
    }

    /// The region index of `row`.
    fn region_of(&self, row: &[u8]) -> usize {
        self.bounds.iter().filter(|b| b.as_slice() <= row).count()
    }

    /// Flush of the memstore cells of the rows `which` selects.
    fn flush_where(&mut self, which: impl Fn(&[u8]) -> bool) {
        let dropped: Vec<(Vec<u8>, usize)> = self
            .rows
            .iter()
            .filter(|(r, _)| which(r))
            .flat_map(|(r, cells)| {
                cells
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| !c.in_files && self.droppable(c))
                    .map(move |(i, _)| (r.clone(), i))
            })
            .collect();
        for (r, i) in dropped.into_iter().rev() {
            self.rows.get_mut(&r).expect("row").remove(i);
        }
        self.rows.retain(|_, cells| !cells.is_empty());
        let ids = [self.last_file + 1, self.last_file + 2];
        let mut had = [false; 2];
        for (_, cells) in self.rows.iter_mut().filter(|(r, _)| which(r)) {
            for c in cells.iter_mut().filter(|c| !c.in_files) {
                c.in_files = true;
                c.file = ids[c.family];
                had[c.family] = true;
            }
        }
        self.last_file += 2;
        for (f, h) in had.iter().enumerate() {
            if *h {
                self.files[f].push(ids[f]);
            }
        }
    }

    /// Store files per family.
    fn file_counts(&self) -> [u32; 2] {
        [self.files[0].len() as u32, self.files[1].len() as u32]
    }

    /// The sorted runs of family `f`'s files (src/engine/runs.rs): consecutive files whose
    /// rows do not overlap and that hold no marker and no cell past the family's TTL are one
    /// run, which the exploring policy counts as one file.
    fn runs(&self, f: usize) -> usize {
        // (first row, last row, clean) of each file, oldest first.
        let info: Vec<(&[u8], &[u8], bool)> = self.files[f]
            .iter()
            .map(|&id| {
                let mut rows = self
                    .rows
                    .iter()
                    .filter(|(_, cells)| cells.iter().any(|c| c.in_files && c.file == id));
                let first = rows.next().map_or(&[][..], |(r, _)| r.as_slice());
                let last = rows.next_back().map_or(first, |(r, _)| r.as_slice());
                let cells = || {
                    self.rows
                        .values()
                        .flatten()
                        .filter(move |c| c.in_files && c.file == id)
                };
                let min_ts = cells().map(|c| c.ts).min();
                let clean = min_ts.is_some()
                    && cells().all(|c| c.kind == Kind::Put)
                    && self.family_ttl[f]
                        .is_none_or(|t| min_ts.is_some_and(|m| m >= self.now.saturating_sub(t)));
                (first, last, clean)
            })
            .collect();
        let mut runs = 0;
        let mut run: Vec<(&[u8], &[u8])> = Vec::new();
        let mut run_clean = false;
        for (first, last, clean) in info {
            let disjoint = run.iter().all(|(a, b)| last < *a || first > *b);
            if run_clean && clean && disjoint {
                run.push((first, last));
            } else {
                runs += 1;
                run = vec![(first, last)];
                run_clean = clean;
            }
        }
        runs
    }

    /// Major compaction of one family's files [DEL-11] [CMP-5] (KDC=FALSE, purge time 0):
    /// every marker in the files goes, with every Put in the files it masks; the memstore is
    /// not part of it, so its markers keep masking. Output: one file, or none if empty [CMP-6].
    /// While a scanner is open, markers written after its read point are kept and mask
    /// nothing in this compaction (§1.7, HBase's `maxReadPointToTrackVersions`).
    fn major_family(&mut self, f: usize) {
        if self.files[f].is_empty() {
            return;
        }
        let read_point = self.open_read_point.unwrap_or(u64::MAX);
        let tracked = |c: &MCell| c.kind != Kind::Put && c.seq <= read_point;
        let mut any_left = false;
        let probe = Model {
            now: self.now,
            family_ttl: self.family_ttl,
            ..Model::default()
        };
        for cells in self.rows.values_mut() {
            cells.retain(|c| !(c.in_files && c.family == f && probe.droppable(c)));
            let markers: Vec<MCell> = cells
                .iter()
                .filter(|c| c.in_files && c.family == f && tracked(c))
                .cloned()
                .collect();
            cells.retain(|c| {
                !(c.in_files
                    && c.family == f
                    && (tracked(c) || (c.kind == Kind::Put && markers.iter().any(|m| masks(m, c)))))
            });
            any_left |= cells.iter().any(|c| c.in_files && c.family == f);
        }
        self.rows.retain(|_, cells| !cells.is_empty());
        self.files[f].clear();
        if any_left {
            self.last_file += 1;
            let id = self.last_file;
            for c in self.rows.values_mut().flatten() {
                if c.in_files && c.family == f {
                    c.file = id;
                }
            }
            self.files[f].push(id);
        }
    }

    /// Minor compaction (`compact()`). The exploring policy counts sorted runs ([`Model::runs`]),
    /// and every file is far below the flush size (its `compaction.min.size`), so every window
    /// of 3..=10 runs qualifies and the longest wins [REG-1]: a store with 3..=10 runs compacts
    /// ALL its files, which is a major compaction ("selecting all files = major"); fewer than
    /// 3 runs: nothing. With more than 10 runs the engine picks the 10 with the smallest total
    /// size, which the model cannot tell, so the harness runs a major compaction instead.
    fn compact(&mut self) {
        for f in 0..FAMILIES.len() {
            match self.runs(f) {
                0..=2 => {}
                3..=10 => self.major_family(f),
                n => panic!("the harness never compacts {n} runs (more than 10)"),
            }
        }
    }

    fn memstore_empty(&self) -> bool {
        self.rows.values().flatten().all(|c| c.in_files)
    }

    /// Largest number of distinct Put timestamps in one column (must stay <= V for the model
    /// to be exact: flushes and compactions would prune beyond V).
    fn max_column_versions(&self) -> usize {
        // (row, family, qualifier) -> distinct timestamps.
        type Column<'a> = (&'a [u8], usize, &'a [u8]);
        let mut per: BTreeMap<Column<'_>, BTreeSet<i64>> = BTreeMap::new();
        for (row, cells) in &self.rows {
            for c in cells.iter().filter(|c| c.kind == Kind::Put) {
                per.entry((row, c.family, &c.qualifier))
                    .or_default()
                    .insert(c.ts);
            }
        }
        per.values().map(BTreeSet::len).max().unwrap_or(0)
    }
}

fn entry_family(c: &DelCall) -> usize {
    match c {
        DelCall::LatestVersion(f, _)
        | DelCall::Version(f, _, _)
        | DelCall::AllVersions(f, _)
        | DelCall::VersionsUpTo(f, _, _)
        | DelCall::Family(f)
        | DelCall::FamilyUpTo(f, _)
        | DelCall::FamilyVersion(f, _) => *f,
    }
}

/// `Vec::retain` restricted to the elements from `from` on.
trait RetainFrom<T> {
    fn retain_mut_from(&mut self, from: usize, keep: impl FnMut(&T) -> bool);
}

impl<T> RetainFrom<T> for Vec<T> {
    fn retain_mut_from(&mut self, from: usize, mut keep: impl FnMut(&T) -> bool) {
        let tail = self.split_off(from);
        self.extend(tail.into_iter().filter(|x| keep(x)));
    }
}

// ---- random operation generator -------------------------------------------------------------

/// Op weights (per mille): put, delete, advance, get, scan, flush, compact, major, reopen,
/// scan left open across other ops. The seed picks a profile, so different seeds stress
/// different physical layouts.
const PROFILES: [(&str, [u64; 10]); 3] = [
    ("balanced", [340, 160, 80, 220, 100, 50, 30, 20, 10, 15]),
    // Many store files: frequent flushes, rare compactions; stores grow past 10 files and
    // reads merge many files.
    ("many-files", [340, 160, 80, 220, 100, 80, 15, 3, 5, 15]),
    // Large memstores: rare flushes, more reopens (large WAL replays).
    ("memstore", [340, 160, 80, 220, 100, 8, 10, 8, 15, 15]),
];

struct Gen {
    rng: Rng,
    rows: Vec<Vec<u8>>,
    profile: usize,
    weights: [u64; 10],
    ttl_b: Option<i64>,
    /// Store files per family as of the last op (see `ttl_b_ms`).
    files: [u32; 2],
    regions: bool,
}

impl Gen {
    fn new(seed: u64) -> Self {
        let mut rows: Vec<Vec<u8>> = (0..20).map(|i| format!("r{i:02}").into_bytes()).collect();
        let profile = (seed % PROFILES.len() as u64) as usize;
        let mut weights = PROFILES[profile].1;
        // A scan over several regions opens each region as it reaches it, with that region's
        // read point then (HBase has no cross-region snapshot), so a scanner left open is
        // only modelled with one region.
        if env_u64("MODEL_INTERLEAVED") == Some(0) || has_regions(seed) {
            weights[9] = 0;
        }
        rows.extend(EXTRA_ROWS.iter().map(|r| r.as_bytes().to_vec()));
        Gen {
            rng: Rng::new(seed),
            rows,
            profile,
            weights,
            ttl_b: ttl_b_ms(seed),
            files: [0; 2],
            regions: has_regions(seed),
        }
    }

    fn row(&mut self) -> Vec<u8> {
        self.rng.pick(&self.rows).clone()
    }

    fn qualifier(&mut self) -> Vec<u8> {
        self.rng.pick(&QUALIFIERS).to_vec()
    }

    fn family(&mut self) -> usize {
        self.rng.index(FAMILIES.len())
    }

    /// An explicit timestamp: mostly small past ones that collide a lot, sometimes close to
    /// now, sometimes in the future [DEL-9].
    fn ts(&mut self, now: i64) -> i64 {
        match self.rng.weighted(&[56, 12, 8, 1, 4]) {
            0 => self.rng.range_i64(0, 30),
            // Right at family "b"'s expiry boundary [TTL-2] (ts == now - ttl is still visible).
            4 => match self.ttl_b {
                Some(t) => (now - t + self.rng.range_i64(-3, 3)).max(0),
                None => self.rng.range_i64(0, 30),
            },
            1 => self.rng.range_i64((now - 40).max(START_NOW), now),
            2 => now + self.rng.range_i64(1, 15),
            // Far future, next to LATEST_TIMESTAMP (which itself means "now").
            _ => i64::MAX - self.rng.range_i64(1, 10),
        }
    }

    /// A timestamp of an existing cell of `row` (any family/qualifier/kind), or a fresh one.
    fn existing_cell(&mut self, model: &Model, row: &[u8]) -> Option<MCell> {
        let cells = model.rows.get(row)?;
        if cells.is_empty() {
            return None;
        }
        Some(self.rng.pick(cells).clone())
    }

    /// `compact()`, or `major_compact()` when a TTL seed's store might compact only part.
    fn compact(&self) -> Op {
        if self.regions || self.ttl_b.is_some() && self.files.iter().any(|&n| n >= 10) {
            Op::MajorCompact
        } else {
            Op::Compact
        }
    }

    fn op(&mut self, model: &Model, index: usize) -> Op {
        self.files = model.file_counts();
        if self.regions && self.rng.chance(1, 40) {
            let n = model.bounds.len() + 1;
            return match self.rng.weighted(&[5, 3, 1]) {
                0 => Op::Split(Some(self.row())),
                1 if n > 1 => Op::Merge(self.rng.index(n - 1)),
                _ => Op::Split(None),
            };
        }
        match self.rng.weighted(&self.weights) {
            0 => self.put(model, &index.to_string(), true),
            1 => self.delete(model),
            2 => Op::Advance(if self.ttl_b.is_some() && self.rng.chance(1, 40) {
                // Large enough to expire family "b" cells [TTL-2].
                self.rng.range_i64(5_000, 70_000)
            } else if self.rng.chance(1, 10) {
                100
            } else {
                self.rng.range_i64(1, 20)
            }),
            3 => {
                let row = if self.rng.chance(1, 15) {
                    self.rng.pick(&BOUNDS).as_bytes().to_vec()
                } else {
                    self.row()
                };
                let read = self.read_spec(model, &row);
                Op::Get { row, read }
            }
            4 => {
                let reversed = REVERSED_SCANS && self.rng.chance(1, 5);
                let range = self.range(reversed);
                let limit = self
                    .rng
                    .chance(1, 4)
                    .then(|| self.rng.range_i64(1, 5) as u64);
                let row = self.row();
                let read = self.read_spec(model, &row);
                Op::Scan {
                    range,
                    reversed,
                    limit,
                    read,
                }
            }
            5 => Op::Flush,
            6 => self.compact(),
            7 => Op::MajorCompact,
            8 => Op::Reopen,
            _ => self.scan_interleaved(model, index),
        }
    }

    /// A scanner left open across writes, flushes and compactions.
    fn scan_interleaved(&mut self, model: &Model, index: usize) -> Op {
        let reversed = REVERSED_SCANS && self.rng.chance(1, 4);
        let range = self.range(reversed);
        let limit = self
            .rng
            .chance(1, 4)
            .then(|| self.rng.range_i64(1, 5) as u64);
        let row = self.row();
        let read = self.read_spec(model, &row);
        let scan = Box::new(Op::Scan {
            range,
            reversed,
            limit,
            read,
        });
        let take = self.rng.index(3);
        let mut during = Vec::new();
        for k in 0..self.rng.range_i64(1, 6) {
            // put, delete, advance, flush, compact, major
            during.push(match self.rng.weighted(&[6, 6, 1, 3, 1, 2]) {
                // No cell TTL: the model is not updated between these ops, so the shadowing
                // check in `put` could not see the earlier ones.
                0 => self.put(model, &format!("{index}s{k}"), false),
                1 => self.delete(model),
                2 => Op::Advance(self.rng.range_i64(1, 20)),
                3 => Op::Flush,
                4 => self.compact(),
                _ => Op::MajorCompact,
            });
        }
        Op::ScanInterleaved { scan, take, during }
    }

    /// A Put; its values are `v<tag>.<cell>` (unique per write, so mix-ups show).
    fn put(&mut self, model: &Model, tag: &str, allow_ttl: bool) -> Op {
        let now = model.now;
        let row = self.row();
        let n = self.rng.range_i64(1, 3) as usize;
        let mut cells: Vec<PutCellSpec> = Vec::new();
        for i in 0..n {
            let mut value = format!("v{tag}.{i}").into_bytes();
            if self.rng.chance(1, 10) {
                // Some longer values, so small blocks fill and files span several blocks.
                let pad = self.rng.range_i64(1, 400) as usize;
                value.extend(std::iter::repeat_n(b'-', pad));
            }
            if i > 0 && self.rng.chance(1, 8) {
                // Same coordinates twice in one Put: the last one wins [SORT-7].
                let prev = cells[i - 1].clone();
                cells.push(PutCellSpec { value, ..prev });
                continue;
            }
            let ts = if self.rng.chance(3, 10) {
                None
            } else {
                Some(self.ts(now))
            };
            cells.push(PutCellSpec {
                family: self.family(),
                qualifier: self.qualifier(),
                ts,
                value,
            });
        }
        // A cell TTL [TTL-3] on some puts: short (expires soon), medium, long.
        let mut ttl = (allow_ttl && self.ttl_b.is_some() && self.rng.chance(1, 6)).then(|| {
            match self.rng.weighted(&[3, 3, 1]) {
                0 => self.rng.range_i64(0, 40),
                1 => self.rng.range_i64(100, 3000),
                _ => self.rng.range_i64(60_000, 200_000),
            }
        });
        // No TTL when a cell would shadow an existing write of the same coordinates (see
        // `ttl_b_ms`) or sits next to i64::MAX (ts + ttl would overflow).
        let existing = model.rows.get(&row);
        if cells.iter().any(|c| {
            let ts = c.ts.unwrap_or(now);
            ts > i64::MAX / 2
                || existing.is_some_and(|l| {
                    l.iter().any(|x| {
                        x.kind == Kind::Put
                            && x.family == c.family
                            && x.qualifier == c.qualifier
                            && x.ts == ts
                    })
                })
        }) {
            ttl = None;
        }
        Op::Put { row, cells, ttl }
    }

    fn delete(&mut self, model: &Model) -> Op {
        let now = model.now;
        let row = self.row();
        match self.rng.weighted(&[2, 2, 20]) {
            0 => {
                return Op::Delete {
                    row,
                    calls: Vec::new(),
                    up_to: None,
                };
            }
            1 => {
                let ts = self.ts(now);
                return Op::Delete {
                    row,
                    calls: Vec::new(),
                    up_to: Some(ts),
                };
            }
            _ => {}
        }
        let n = self.rng.weighted(&[0, 6, 3, 1]);
        let mut calls = Vec::new();
        for _ in 0..n {
            // Half the time aim at an existing cell's coordinates so deletes hit something.
            let target = if self.rng.chance(1, 2) {
                self.existing_cell(model, &row)
            } else {
                None
            };
            let (f, q, ts) = match target {
                Some(c) => (c.family, c.qualifier, c.ts),
                None => (self.family(), self.qualifier(), self.ts(now)),
            };
            let call = match self.rng.weighted(&[6, 6, 2, 4, 1, 3, 3]) {
                0 => DelCall::LatestVersion(f, q),
                1 => DelCall::Version(f, q, ts),
                2 => DelCall::AllVersions(f, q),
                3 => DelCall::VersionsUpTo(f, q, ts),
                4 => DelCall::Family(f),
                5 => DelCall::FamilyUpTo(f, ts),
                _ => DelCall::FamilyVersion(f, ts),
            };
            let twice = matches!(call, DelCall::LatestVersion(..)) && self.rng.chance(1, 3);
            calls.push(call.clone());
            if twice {
                // [DEL-6] the second addColumn(f,q) hits the second newest version.
                calls.push(call);
            }
        }
        Op::Delete {
            row,
            calls,
            up_to: None,
        }
    }

    fn range(&mut self, reversed: bool) -> RowRange {
        let key = |g: &mut Gen| {
            if g.rng.chance(1, 3) {
                g.rng.pick(&BOUNDS).as_bytes().to_vec()
            } else {
                g.row()
            }
        };
        match self.rng.weighted(&[3, 2, 2, 4, 3]) {
            0 => RowRange::All,
            1 => RowRange::Start(key(self)),
            2 => RowRange::Stop(key(self)),
            3 => {
                let (a, b) = (key(self), key(self));
                let (lo, hi) = match a.cmp(&b) {
                    std::cmp::Ordering::Less => (a, b),
                    std::cmp::Ordering::Greater => (b, a),
                    std::cmp::Ordering::Equal => return RowRange::Start(a),
                };
                // A reversed scan starts at the high end.
                if reversed {
                    RowRange::StartStop(hi, lo)
                } else {
                    RowRange::StartStop(lo, hi)
                }
            }
            _ => {
                let p: &[&str] = &["", "r", "r0", "r1", "r05", "r19", "s", "q"];
                RowRange::Prefix(self.rng.pick(p).as_bytes().to_vec())
            }
        }
    }

    fn read_spec(&mut self, model: &Model, row: &[u8]) -> ReadSpec {
        let mut columns = Vec::new();
        if self.rng.chance(3, 5) {
            for _ in 0..self.rng.range_i64(1, 3) {
                if self.rng.chance(1, 3) {
                    columns.push(ColCall::Family(self.family()));
                } else {
                    columns.push(ColCall::Column(self.family(), self.qualifier()));
                }
            }
        }
        let versions = match self.rng.weighted(&[3, 4, 3]) {
            0 => Versions::Default,
            1 => Versions::Max(self.rng.range_i64(1, 4) as u32),
            _ => Versions::All,
        };
        let now = model.now;
        let time = match self.rng.weighted(&[12, 5, 3]) {
            0 => Time::All,
            1 => {
                let a = match self.rng.weighted(&[2, 5, 2]) {
                    0 => 0,
                    1 => self.rng.range_i64(0, 30),
                    _ => self.rng.range_i64(START_NOW, now),
                };
                let b = match self.rng.weighted(&[2, 5, 2]) {
                    0 => i64::MAX,
                    1 => a + self.rng.range_i64(0, 15),
                    _ => self.rng.range_i64(a.max(START_NOW), now + 20),
                };
                Time::Range(a, b)
            }
            _ => match self.existing_cell(model, row) {
                Some(c) if self.rng.chance(2, 3) => Time::At(c.ts),
                _ => Time::At(self.ts(now)),
            },
        };
        ReadSpec {
            columns,
            versions,
            time,
        }
    }
}

// ---- the engine side ------------------------------------------------------------------------

fn options(clock: &ManualClock) -> DbOptions {
    DbOptions::default()
        .clock(clock.clone())
        .background_threads(0)
        .memstore_flush_size(1 << 40)
}

fn build_read<B>(
    mut b: B,
    read: &ReadSpec,
    family: impl Fn(B, &str) -> B,
    column: impl Fn(B, &str, &[u8]) -> B,
    versions: impl Fn(B, Versions) -> B,
    time: impl Fn(B, Time) -> B,
) -> B {
    for c in &read.columns {
        b = match c {
            ColCall::Family(f) => family(b, FAMILIES[*f]),
            ColCall::Column(f, q) => column(b, FAMILIES[*f], q),
        };
    }
    b = versions(b, read.versions);
    time(b, read.time)
}

fn engine_get(row: &[u8], read: &ReadSpec) -> Get {
    build_read(
        Get::new(row),
        read,
        |g, f| g.family(f),
        |g, f, q| g.column(f, q),
        |g, v| match v {
            Versions::Default => g,
            Versions::Max(n) => g.max_versions(n),
            Versions::All => g.all_versions(),
        },
        |g, t| match t {
            Time::All => g,
            Time::Range(a, b) => g.time_range(a, b),
            Time::At(ts) => g.timestamp(ts),
        },
    )
}

fn engine_scan(range: &RowRange, reversed: bool, limit: Option<u64>, read: &ReadSpec) -> Scan {
    let mut s = match range {
        RowRange::All => Scan::new(),
        RowRange::Start(a) => Scan::new().start_row(a),
        RowRange::Stop(b) => Scan::new().stop_row(b),
        RowRange::StartStop(a, b) => Scan::new().start_row(a).stop_row(b),
        RowRange::Prefix(p) => Scan::new().prefix(p),
    };
    if reversed {
        s = s.reversed(true);
    }
    if let Some(n) = limit {
        s = s.limit(n);
    }
    build_read(
        s,
        read,
        |s, f| s.family(f),
        |s, f, q| s.column(f, q),
        |s, v| match v {
            Versions::Default => s,
            Versions::Max(n) => s.max_versions(n),
            Versions::All => s.all_versions(),
        },
        |s, t| match t {
            Time::All => s,
            Time::Range(a, b) => s.time_range(a, b),
            Time::At(ts) => s.timestamp(ts),
        },
    )
}

fn engine_put(row: &[u8], cells: &[PutCellSpec], ttl: Option<i64>) -> Put {
    let mut p = Put::new(row);
    if let Some(ms) = ttl {
        p = p.ttl(Duration::from_millis(ms as u64));
    }
    for c in cells {
        p = match c.ts {
            Some(ts) => p.add_at(FAMILIES[c.family], &c.qualifier, ts, &c.value),
            None => p.add(FAMILIES[c.family], &c.qualifier, &c.value),
        };
    }
    p
}

fn engine_delete(row: &[u8], calls: &[DelCall], up_to: Option<i64>) -> Delete {
    let mut d = Delete::new(row);
    if let Some(ts) = up_to {
        d = d.up_to(ts);
    }
    for c in calls {
        d = match c {
            DelCall::LatestVersion(f, q) => d.latest_version(FAMILIES[*f], q),
            DelCall::Version(f, q, ts) => d.version(FAMILIES[*f], q, *ts),
            DelCall::AllVersions(f, q) => d.all_versions(FAMILIES[*f], q),
            DelCall::VersionsUpTo(f, q, ts) => d.versions_up_to(FAMILIES[*f], q, *ts),
            DelCall::Family(f) => d.family(FAMILIES[*f]),
            DelCall::FamilyUpTo(f, ts) => d.family_up_to(FAMILIES[*f], *ts),
            DelCall::FamilyVersion(f, ts) => d.family_version(FAMILIES[*f], *ts),
        };
    }
    d
}

/// The cells of a result row as tuples; only Puts may appear in a normal read [DEL-4].
fn tuples(r: &RowResult) -> Result<Vec<CellTuple>, String> {
    r.cells()
        .iter()
        .map(|c| {
            if c.cell_type() != CellType::Put {
                return Err(format!(
                    "a normal read returned a {:?} cell {}/{}:{}@{}",
                    c.cell_type(),
                    show(c.row()),
                    show(c.family()),
                    show(c.qualifier()),
                    c.timestamp()
                ));
            }
            Ok((
                c.row().to_vec(),
                c.family().to_vec(),
                c.qualifier().to_vec(),
                c.timestamp(),
                c.value().to_vec(),
            ))
        })
        .collect()
}

// ---- the harness ----------------------------------------------------------------------------

struct Harness {
    seed: u64,
    families: Vec<FamilyDescriptor>,
    dir: TempDir,
    clock: ManualClock,
    db: Option<Db>,
    /// Whether the open database flushes its memstores when it closes (reopens alternate:
    /// a flushing close, then a sync-only one whose reopen replays the log).
    flush_on_close: bool,
    table: Option<Table>,
    model: Model,
    log: Vec<String>,
    /// Per op kind: how many, and the time spent in them (engine + model).
    counts: BTreeMap<&'static str, (u64, Duration)>,
    /// Reads whose expected result was non-empty (a sanity check that reads test something).
    nonempty_reads: u64,
    /// Most store files seen in one family.
    max_files: u32,
    /// Index of the generated (top-level) op being run.
    current_op: usize,
    verbose: bool,
}

const LOG_TAIL: usize = 60;

impl Drop for Harness {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let from = self.log.len().saturating_sub(LOG_TAIL);
            let mut s = format!(
                "\n==== model test failure: seed {} (0x{:x}), generated op {} (log line #{}) ====\nfamilies (VERSIONS {V}): {}\nreplay: MODEL_SEED={} MODEL_OPS={} cargo test --test model -- env_seed\nop log (last {} of {} lines; ops inside a ScanInterleaved window are separate lines):\n",
                self.seed,
                self.seed,
                self.current_op,
                self.log.len().saturating_sub(1),
                show_families(&self.families),
                self.seed,
                self.current_op + 1,
                self.log.len() - from,
                self.log.len()
            );
            for (i, l) in self.log.iter().enumerate().skip(from) {
                s.push_str(&format!("  /* #{i} */ {l}\n"));
            }
            eprintln!("{s}");
        }
    }
}

/// The families, VERSIONS = [`V`], with storage settings that must not change any result
/// drawn from the seed: small blocks (multi-block files, so seeks cross block boundaries),
/// Bloom filters (a false negative would hide cells), compression, caching.
fn family_descriptors(seed: u64) -> Vec<FamilyDescriptor> {
    let mut rng = Rng::new(seed ^ 0x05ee_dfa3_11e5);
    FAMILIES
        .iter()
        .map(|name| {
            let ttl = match ttl_b_ms(seed) {
                Some(ms) if *name == "b" => Some(Duration::from_millis(ms as u64)),
                _ => None,
            };
            // ROWPREFIX_FIXED_LENGTH [BLOOM-5]: Gets, and scans whose start and stop rows share
            // the prefix, consult it.
            let bloom = *rng.pick(&[
                BloomType::None,
                BloomType::Row,
                BloomType::RowCol,
                BloomType::RowPrefixFixedLength(1),
                BloomType::RowPrefixFixedLength(3),
            ]);
            let compression = *rng.pick(&[Compression::None, Compression::Snappy]);
            let f = FamilyDescriptor::new(name)
                .max_versions(V)
                .block_size(*rng.pick(&[1024, 1024, 4096, 65536]))
                .bloom_filter(bloom)
                .compression(compression)
                .block_cache(rng.chance(3, 4))
                .in_memory(rng.chance(1, 4))
                .data_block_encoding(
                    *rng.pick(&[DataBlockEncoding::None, DataBlockEncoding::FastDiff]),
                );
            match ttl {
                Some(d) => f.ttl(d),
                None => f,
            }
        })
        .collect()
}

fn show_families(families: &[FamilyDescriptor]) -> String {
    let each: Vec<String> = families
        .iter()
        .map(|f| {
            format!(
                "{}: block {} bloom {:?} {:?} {}{}{}{}",
                show(&f.name),
                f.block_size,
                f.bloom_filter,
                f.compression,
                f.data_block_encoding.hbase_name(),
                if f.block_cache { "" } else { " no-cache" },
                if f.in_memory { " in-memory" } else { "" },
                f.ttl
                    .map_or(String::new(), |d| format!(" ttl {}s", d.as_secs()))
            )
        })
        .collect();
    each.join("; ")
}

impl Harness {
    fn new(seed: u64) -> Self {
        let dir = TempDir::new("model");
        let clock = ManualClock::new(START_NOW);
        let db = Db::open_with(dir.path(), options(&clock)).expect("open db");
        let mut desc = TableDescriptor::new("t");
        if has_regions(seed) {
            desc = desc.split_keys(SPLIT_KEYS);
        }
        let families = family_descriptors(seed);
        for f in &families {
            desc = desc.family(f.clone());
        }
        let table = db.create_table(desc).expect("create table");
        let model = Model {
            now: START_NOW,
            family_ttl: [None, ttl_b_ms(seed)],
            bounds: if has_regions(seed) {
                SPLIT_KEYS.iter().map(|k| k.as_bytes().to_vec()).collect()
            } else {
                Vec::new()
            },
            maybe_refs: vec![
                false;
                if has_regions(seed) {
                    SPLIT_KEYS.len() + 1
                } else {
                    1
                }
            ],
            ..Model::default()
        };
        Harness {
            seed,
            families,
            dir,
            clock,
            flush_on_close: true,
            db: Some(db),
            table: Some(table),
            model,
            log: Vec::new(),
            counts: BTreeMap::new(),
            nonempty_reads: 0,
            max_files: 0,
            current_op: 0,
            verbose: std::env::var_os("MODEL_VERBOSE").is_some(),
        }
    }

    fn t(&self) -> &Table {
        self.table.as_ref().expect("table is open")
    }

    fn fail(&self, what: &str) -> ! {
        panic!(
            "seed {} log line #{}: {}\n  {what}",
            self.seed,
            self.log.len().saturating_sub(1),
            self.log.last().map_or("", String::as_str)
        );
    }

    fn run(&mut self, op: &Op) {
        self.log.push(format!("{op}"));
        if self.verbose {
            eprintln!("#{} {op}", self.log.len() - 1);
        }
        let started = Instant::now();
        self.execute(op);
        let entry = self.counts.entry(op.kind()).or_default();
        entry.0 += 1;
        entry.1 += started.elapsed();
    }

    fn execute(&mut self, op: &Op) {
        match op {
            Op::Put { row, cells, ttl } => {
                if let Err(e) = self.t().put(engine_put(row, cells, *ttl)) {
                    self.fail(&format!("put failed: {e}"));
                }
                self.model.apply_put(row, cells, *ttl);
                let n = self.model.max_column_versions();
                assert!(
                    n <= V as usize,
                    "model exactness needs fewer than {V} versions per column; got {n}"
                );
            }
            Op::Delete { row, calls, up_to } => {
                if let Err(e) = self.t().delete(engine_delete(row, calls, *up_to)) {
                    self.fail(&format!("delete failed: {e}"));
                }
                self.model.apply_delete(row, calls, *up_to);
            }
            Op::Advance(ms) => {
                self.clock.advance(Duration::from_millis(*ms as u64));
                self.model.now += ms;
            }
            Op::Get { row, read } => {
                let expected = self.model.read_row(row, read);
                let got = match self.t().get(engine_get(row, read)) {
                    Ok(r) => r,
                    Err(e) => self.fail(&format!("get failed: {e}")),
                };
                let actual = tuples(&got).unwrap_or_else(|e: String| self.fail(&e));
                if !actual.is_empty() && got.row() != row.as_slice() {
                    self.fail(&format!(
                        "get returned row {} for {}",
                        show(got.row()),
                        show(row)
                    ));
                }
                if got.is_empty() != actual.is_empty() {
                    self.fail("RowResult::is_empty disagrees with its cells");
                }
                self.compare(&expected, &actual);
            }
            Op::Scan {
                range,
                reversed,
                limit,
                read,
            } => {
                let expected_rows = self.model.scan(range, *reversed, *limit, read);
                let scanner = match self.t().scan(engine_scan(range, *reversed, *limit, read)) {
                    Ok(s) => s,
                    Err(e) => self.fail(&format!("scan failed: {e}")),
                };
                let mut results = Vec::new();
                for r in scanner {
                    results
                        .push(r.unwrap_or_else(|e| self.fail(&format!("scan next failed: {e}"))));
                }
                let actual = self.scan_cells(&results, *reversed);
                let expected: Vec<CellTuple> = expected_rows.into_iter().flatten().collect();
                self.compare(&expected, &actual);
            }
            Op::ScanInterleaved { scan, take, during } => {
                let Op::Scan {
                    range,
                    reversed,
                    limit,
                    read,
                } = scan.as_ref()
                else {
                    unreachable!("ScanInterleaved holds an Op::Scan")
                };
                // The scanner's view: the table as of scan().
                let expected_rows = self.model.scan(range, *reversed, *limit, read);
                let mut scanner = match self.t().scan(engine_scan(range, *reversed, *limit, read)) {
                    Ok(s) => s,
                    Err(e) => self.fail(&format!("scan failed: {e}")),
                };
                let mut results = Vec::new();
                for r in scanner.by_ref().take(*take) {
                    results
                        .push(r.unwrap_or_else(|e| self.fail(&format!("scan next failed: {e}"))));
                }
                self.model.open_read_point = Some(self.model.seq);
                for op in during {
                    self.run(op);
                }
                self.model.open_read_point = None;
                self.log
                    .push("got.extend(s); // must equal the table as of t.scan()".to_string());
                for r in scanner {
                    results
                        .push(r.unwrap_or_else(|e| self.fail(&format!("scan next failed: {e}"))));
                }
                let actual = self.scan_cells(&results, *reversed);
                let expected: Vec<CellTuple> = expected_rows.into_iter().flatten().collect();
                self.compare(&expected, &actual);
            }
            Op::Flush => {
                if let Err(e) = self.t().flush() {
                    self.fail(&format!("flush failed: {e}"));
                }
                self.model.flush();
                self.check_physical();
            }
            Op::Compact if (0..FAMILIES.len()).any(|f| self.model.runs(f) > 10) => {
                // The exploring policy picks 10 of more than 10 runs by their byte sizes,
                // which the model does not know (see `Model::compact`).
                self.log
                    .push("// more than 10 sorted runs: major_compact instead".into());
                self.run(&Op::MajorCompact);
            }
            Op::Compact => {
                if let Err(e) = self.t().compact() {
                    self.fail(&format!("compact failed: {e}"));
                }
                self.model.compact();
                self.check_physical();
            }
            Op::MajorCompact => {
                if let Err(e) = self.t().major_compact() {
                    self.fail(&format!("major_compact failed: {e}"));
                }
                self.model.maybe_refs.iter_mut().for_each(|r| *r = false);
                for f in 0..FAMILIES.len() {
                    self.model.major_family(f);
                }
                self.check_physical();
            }
            Op::Reopen => {
                // A clean close flushes every memstore (as HBase's region close does); after a
                // sync-only close the open replays the log and flushes what it replayed (as
                // HBase's `HRegion#replayRecoveredEditsIfAny`). Either way the reopened
                // regions hold no memstore cell.
                self.reopen();
                self.model.flush();
                self.model.writes_since_open = 0;
                self.check_physical();
            }
            Op::Split(at) => self.split(at.as_deref()),
            Op::Merge(i) => {
                // Like a split, a merge major-compacts regions holding references first; do it
                // explicitly so that forced compaction has nothing semantic to do.
                if self.model.maybe_refs[*i] || self.model.maybe_refs[*i + 1] {
                    self.run(&Op::MajorCompact);
                }
                let regions = self.t().regions();
                let res = self.t().merge(&regions[*i].name, &regions[*i + 1].name);
                if let Err(e) = res {
                    self.fail(&format!("merge failed: {e}"));
                }
                let (lo, hi) = (
                    regions[*i].start_key.clone(),
                    regions[*i + 1].end_key.clone(),
                );
                self.model
                    .flush_where(|r| r >= lo.as_slice() && (hi.is_empty() || r < hi.as_slice()));
                self.model.bounds.remove(*i);
                let refs = self.model.maybe_refs.remove(*i + 1);
                self.model.maybe_refs[*i] |= refs;
                self.check_physical();
            }
        }
    }

    fn split(&mut self, at: Option<&[u8]>) {
        let i = at.map(|r| self.model.region_of(r));
        if let (Some(row), Some(i)) = (at, i)
            && i > 0
            && self.model.bounds[i - 1] == row
        {
            if self.t().split(Some(row)).is_ok() {
                self.fail("split at a region's start key must fail");
            }
            return;
        }
        let refs = match i {
            Some(i) => self.model.maybe_refs[i],
            None => self.model.maybe_refs.iter().any(|r| *r),
        };
        if refs {
            self.run(&Op::MajorCompact);
        }
        if let Err(e) = self.t().split(at) {
            self.fail(&format!("split failed: {e}"));
        }
        match (at, i) {
            (Some(row), Some(i)) => {
                let b = self.model.bounds.clone();
                self.model.flush_where(|r| {
                    (i == 0 || r >= b[i - 1].as_slice()) && (i == b.len() || r < b[i].as_slice())
                });
                self.model.bounds.insert(i, row.to_vec());
                self.model.maybe_refs.insert(i, true);
                self.model.maybe_refs[i + 1] = true;
            }
            _ => {
                self.model.flush();
                let old = self.model.bounds.clone();
                let new: Vec<Vec<u8>> = self
                    .t()
                    .regions()
                    .iter()
                    .skip(1)
                    .map(|r| r.start_key.clone())
                    .collect();
                if !old.iter().all(|b| new.contains(b)) {
                    self.fail(&format!("split(None) lost boundaries: {old:?} -> {new:?}"));
                }
                // A region is new (may hold references) unless both its ends are old bounds.
                let known = |k: &Vec<u8>| k.is_empty() || old.contains(k);
                let mut refs = Vec::new();
                for w in 0..=new.len() {
                    let lo = if w == 0 {
                        Vec::new()
                    } else {
                        new[w - 1].clone()
                    };
                    let hi = new.get(w).cloned().unwrap_or_default();
                    refs.push(new.len() != old.len() && !(known(&lo) && known(&hi)));
                }
                self.model.bounds = new;
                self.model.maybe_refs = refs;
            }
        }
        self.check_physical();
    }

    /// The cells of a scan's rows, after checking each row: not empty, only its own cells,
    /// rows strictly ascending (descending when reversed).
    fn scan_cells(&self, results: &[RowResult], reversed: bool) -> Vec<CellTuple> {
        let mut actual = Vec::new();
        let mut last: Option<&[u8]> = None;
        for r in results {
            if r.is_empty() {
                self.fail(&format!("scan returned an empty row {}", show(r.row())));
            }
            let cells = tuples(r).unwrap_or_else(|e: String| self.fail(&e));
            if cells.iter().any(|c| c.0 != r.row()) {
                self.fail(&format!(
                    "a RowResult for {} holds other rows' cells",
                    show(r.row())
                ));
            }
            let ordered = |prev: &[u8]| {
                if reversed {
                    prev > r.row()
                } else {
                    prev < r.row()
                }
            };
            if last.is_some_and(|prev| !ordered(prev)) {
                self.fail(&format!(
                    "scan rows out of order / repeated at {}",
                    show(r.row())
                ));
            }
            last = Some(r.row());
            actual.extend(cells);
        }
        actual
    }

    /// Closes and reopens. Alternates `flush_on_close`, so half the reopens replay the log.
    fn reopen(&mut self) {
        drop(self.table.take());
        let db = self.db.take().expect("db is open");
        if let Err(e) = db.close() {
            self.fail(&format!("close failed: {e}"));
        }
        self.flush_on_close = !self.flush_on_close;
        let opts = options(&self.clock).flush_on_close(self.flush_on_close);
        let db = Db::open_with(self.dir.path(), opts)
            .unwrap_or_else(|e| self.fail(&format!("reopen failed: {e}")));
        let table = db
            .table("t")
            .unwrap_or_else(|e| self.fail(&format!("table after reopen: {e}")));
        self.db = Some(db);
        self.table = Some(table);
    }

    fn compare(&mut self, expected: &[CellTuple], actual: &[CellTuple]) {
        if !expected.is_empty() {
            self.nonempty_reads += 1;
        }
        if expected != actual {
            self.fail(&format!(
                "engine and model disagree ({} expected cells, {} returned):\n{}",
                expected.len(),
                actual.len(),
                diff_cells(expected, actual)
            ));
        }
    }

    /// One region; its store files are the model's count; one write request per row
    /// mutation since open; an empty memstore exactly when the model has no memstore cell.
    fn check_regions(&mut self) {
        if has_regions(self.seed) {
            return self.check_region_bounds();
        }
        self.max_files = self
            .max_files
            .max(self.model.file_counts()[0].max(self.model.file_counts()[1]));
        let regions = self.t().regions();
        if regions.len() != 1 {
            self.fail(&format!("expected one region, got {}", regions.len()));
        }
        let r = &regions[0];
        let [fa, fb] = self.model.file_counts();
        let files = fa + fb;
        if r.store_files != files {
            self.fail(&format!(
                "store_files = {}, model expects {files} (family a: {}, b: {})",
                r.store_files, fa, fb
            ));
        }
        if r.write_requests != self.model.writes_since_open {
            self.fail(&format!(
                "write_requests = {}, model expects {}",
                r.write_requests, self.model.writes_since_open
            ));
        }
        if (r.memstore_bytes == 0) != self.model.memstore_empty() {
            self.fail(&format!(
                "memstore_bytes = {} but the model's memstore is {}",
                r.memstore_bytes,
                if self.model.memstore_empty() {
                    "empty"
                } else {
                    "not empty"
                }
            ));
        }
    }

    /// Seeds with regions: the regions are contiguous, ordered and the model's; a memstore is
    /// empty exactly when the model has no memstore cell in the region's rows.
    fn check_region_bounds(&mut self) {
        let regions = self.t().regions();
        let starts: Vec<Vec<u8>> = regions.iter().map(|r| r.start_key.clone()).collect();
        let mut expected = vec![Vec::new()];
        expected.extend(self.model.bounds.iter().cloned());
        if starts != expected {
            self.fail(&format!(
                "region starts {:?}, model {:?}",
                starts.iter().map(|s| show(s)).collect::<Vec<_>>(),
                expected.iter().map(|s| show(s)).collect::<Vec<_>>()
            ));
        }
        for (k, r) in regions.iter().enumerate() {
            let next = regions
                .get(k + 1)
                .map_or(Vec::new(), |n| n.start_key.clone());
            if r.end_key != next {
                self.fail(&format!(
                    "region {} ends at {}, next starts at {}",
                    r.name,
                    show(&r.end_key),
                    show(&next)
                ));
            }
            let mem = self.model.rows.iter().any(|(row, cells)| {
                self.model.region_of(row) == k && cells.iter().any(|c| !c.in_files)
            });
            if (r.memstore_bytes == 0) == mem {
                self.fail(&format!(
                    "region {}: memstore_bytes = {}, model memstore {}",
                    r.name,
                    r.memstore_bytes,
                    if mem { "not empty" } else { "empty" }
                ));
            }
        }
    }

    /// After a flush, compaction or reopen: the region metrics, and every visible cell.
    fn check_physical(&mut self) {
        self.check_regions();
        let read = ReadSpec {
            columns: Vec::new(),
            versions: Versions::All,
            time: Time::All,
        };
        self.execute(&Op::Scan {
            range: RowRange::All,
            reversed: false,
            limit: None,
            read,
        });
    }

    /// A final whole-table comparison, every version.
    fn final_check(&mut self) {
        let read = ReadSpec {
            columns: Vec::new(),
            versions: Versions::All,
            time: Time::All,
        };
        self.run(&Op::Scan {
            range: RowRange::All,
            reversed: false,
            limit: None,
            read: read.clone(),
        });
        if REVERSED_SCANS {
            self.run(&Op::Scan {
                range: RowRange::All,
                reversed: true,
                limit: None,
                read,
            });
        }
        self.check_regions();
    }
}

/// Runs `ops` random operations for `seed`; returns a one-line summary.
fn run_seed(seed: u64, ops: usize) -> String {
    let started = Instant::now();
    let mut h = Harness::new(seed);
    let mut generator = Gen::new(seed);
    for i in 0..ops {
        let op = generator.op(&h.model, i);
        h.current_op = i;
        h.run(&op);
    }
    h.current_op = ops;
    h.final_check();
    let counts: Vec<String> = h
        .counts
        .iter()
        .map(|(k, (n, t))| format!("{k}={n}/{}ms", t.as_millis()))
        .collect();
    let summary = format!(
        "seed {seed} ({}; {}): {ops} ops in {:.1?} ({}); non-empty reads {}; max files {}; rows {}, cells {}",
        PROFILES[generator.profile].0,
        show_families(&h.families),
        started.elapsed(),
        counts.join(" "),
        h.nonempty_reads,
        h.max_files,
        h.model.rows.len(),
        h.model.rows.values().map(Vec::len).sum::<usize>()
    );
    assert!(
        ops < 200 || h.nonempty_reads * 4 >= h.counts.get("get").map_or(0, |c| c.0),
        "too few reads found data; the generator is not testing much: {summary}"
    );
    summary
}

fn ops_per_seed() -> usize {
    env_u64("MODEL_OPS").map_or(DEFAULT_OPS, |n| n as usize)
}

/// Runs a fixed seed unless `MODEL_SEED` picks another one.
fn fixed_seed(seed: u64) {
    if env_u64("MODEL_SEED").is_some() {
        return;
    }
    // Seeds with regions are I/O-bound (splits sync the manifest and rewrite files): fewer ops.
    let ops = if has_regions(seed) && env_u64("MODEL_OPS").is_none() {
        DEFAULT_OPS / 3
    } else {
        ops_per_seed()
    };
    println!("{}", run_seed(seed, ops));
}

macro_rules! seeds {
    ($($name:ident = $seed:expr;)*) => {
        $(
            #[test]
            fn $name() {
                fixed_seed($seed);
            }
        )*
    };
}

seeds! {
    // The seed also picks the op profile (seed % 3): 0 balanced, 1 many-files, 2 memstore.
    seed_01 = 1;
    seed_02 = 2;
    seed_03 = 3;
    seed_04 = 4;
    seed_05 = 5;
    seed_06 = 6;
    seed_07 = 7;
    seed_08 = 8;
    seed_09 = 9;
    seed_10 = 0xc0ffee;
    seed_11 = 20240601;
    seed_12 = 9_000_002;
}

/// `MODEL_SEED=<n> [MODEL_OPS=<n>] cargo test --test model` runs exactly one seed.
#[test]
fn env_seed() {
    if let Some(seed) = env_u64("MODEL_SEED") {
        println!("{}", run_seed(seed, ops_per_seed()));
    }
}

/// The model itself, on hand-computed cases from the spec (guards against a model bug
/// masking an engine bug in the same direction).
#[test]
fn model_self_check() {
    let spec = |columns, versions, time| ReadSpec {
        columns,
        versions,
        time,
    };
    let all = spec(Vec::new(), Versions::All, Time::All);
    let cell = |ts: i64, v: &str| {
        (
            b"r".to_vec(),
            b"a".to_vec(),
            b"q".to_vec(),
            ts,
            v.as_bytes().to_vec(),
        )
    };
    let put = |ts: Option<i64>, v: &str| PutCellSpec {
        family: 0,
        qualifier: b"q".to_vec(),
        ts,
        value: v.as_bytes().to_vec(),
    };
    let mut m = Model {
        now: 100,
        ..Model::default()
    };
    m.apply_put(
        b"r",
        &[
            put(Some(1), "1"),
            put(Some(2), "2"),
            put(Some(3), "3"),
            put(Some(2), "2b"),
        ],
        None,
    );
    // [SORT-7] last of two identical cells in one put wins.
    assert_eq!(
        m.read_row(b"r", &all),
        vec![cell(3, "3"), cell(2, "2b"), cell(1, "1")]
    );
    // [DEL-6] latest_version twice: the two newest.
    m.apply_delete(
        b"r",
        &[
            DelCall::LatestVersion(0, b"q".to_vec()),
            DelCall::LatestVersion(0, b"q".to_vec()),
        ],
        None,
    );
    assert_eq!(m.read_row(b"r", &all), vec![cell(1, "1")]);
    // [DEL-1] a DC masks a later put with an older ts; [DEL-12] until a major compaction.
    m.apply_delete(b"r", &[DelCall::VersionsUpTo(0, b"q".to_vec(), 5)], None);
    m.apply_put(b"r", &[put(Some(4), "4")], None);
    assert_eq!(m.read_row(b"r", &all), vec![]);
    m.flush();
    m.major_family(0);
    assert_eq!(m.file_counts(), [0, 0]);
    m.apply_put(b"r", &[put(Some(4), "4again"), put(None, "now")], None);
    assert_eq!(
        m.read_row(b"r", &all),
        vec![cell(100, "now"), cell(4, "4again")]
    );
    // [VER-5] time range before version counting.
    let tr = spec(Vec::new(), Versions::Max(1), Time::Range(0, 50));
    assert_eq!(m.read_row(b"r", &tr), vec![cell(4, "4again")]);
    // [DEL-7] family() discards earlier entries for the family.
    let markers = m.delete_markers(
        b"r",
        &[
            DelCall::Version(0, b"q".to_vec(), 4),
            DelCall::Family(0),
            DelCall::FamilyVersion(1, 3),
        ],
        None,
    );
    assert_eq!(
        markers,
        vec![
            (0, Vec::new(), Kind::Df, 100),
            (1, Vec::new(), Kind::Dfv, 3)
        ]
    );
    // A memstore marker survives a major compaction of the files and keeps masking.
    m.flush();
    m.apply_delete(b"r", &[DelCall::Version(0, b"q".to_vec(), 4)], None);
    m.major_family(0);
    assert_eq!(m.file_counts(), [1, 0]);
    assert_eq!(m.read_row(b"r", &all), vec![cell(100, "now")]);
    // [GET-1] narrowing and widening.
    assert_eq!(
        selection(&[ColCall::Family(0), ColCall::Column(0, b"q".to_vec())]).get(&0),
        Some(&Some(BTreeSet::from([b"q".to_vec()])))
    );
    assert_eq!(
        selection(&[ColCall::Column(0, b"q".to_vec()), ColCall::Family(0)]).get(&0),
        Some(&None)
    );
    assert_eq!(prefix_stop(b"r1"), b"r2");
    // [TTL-2] strict family expiry; [TTL-3] cell expiry `ts + ttl < now`.
    let mut m = Model {
        now: 100,
        family_ttl: [Some(10), None],
        ..Model::default()
    };
    m.apply_put(b"r", &[put(Some(90), "edge"), put(Some(89), "old")], None);
    m.apply_put(b"r", &[put(Some(95), "cell")], Some(6));
    assert_eq!(
        m.read_row(b"r", &all),
        vec![cell(95, "cell"), cell(90, "edge")]
    );
    m.now = 101;
    assert_eq!(m.read_row(b"r", &all), vec![cell(95, "cell")]);
    m.now = 102;
    assert_eq!(m.read_row(b"r", &all), vec![]);
}
