//! Table-driven tests of the matchers. Rule IDs refer to `/work/shared/hbase-semantics.md`.
//!
//! The harness encodes writes (`seq` = write order), sorts them by [SORT-1], and drives a
//! matcher twice: once honouring its seeks and once stepping cell by cell through them. Both runs
//! must agree (seeks are advisory), and the included cells are compared with the expectation.

mod compaction;
mod differential;
mod reads;
mod scenarios;

use super::*;
use crate::model::key::compare_encoded;
use crate::model::payload;
use std::collections::BTreeMap;
use std::time::Duration;

pub(super) const P: CellType = CellType::Put;
pub(super) const D: CellType = CellType::Delete;
pub(super) const DC: CellType = CellType::DeleteColumn;
pub(super) const DF: CellType = CellType::DeleteFamily;
pub(super) const DFV: CellType = CellType::DeleteFamilyVersion;

/// An encoded cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Cell {
    pub key: Vec<u8>,
    pub payload: Vec<u8>,
}

impl Cell {
    pub fn k(&self) -> KeyRef<'_> {
        KeyRef::parse(&self.key).expect("well-formed key")
    }
    pub fn p(&self) -> PayloadRef<'_> {
        PayloadRef::parse(&self.payload).expect("well-formed payload")
    }
}

/// One write (a Put or a marker) before encoding.
#[derive(Clone, Debug)]
pub(super) struct W {
    row: &'static str,
    fam: &'static str,
    q: &'static str,
    ts: i64,
    ty: CellType,
    ttl: Option<u64>,
    value: Option<&'static str>,
}

fn w(q: &'static str, ts: i64, ty: CellType) -> W {
    W {
        row: "r",
        fam: "f",
        q,
        ts,
        ty,
        ttl: None,
        value: None,
    }
}
/// `put r f:q @ts`.
pub(super) fn p(q: &'static str, ts: i64) -> W {
    w(q, ts, P)
}
/// `D f:q @ts`.
pub(super) fn d(q: &'static str, ts: i64) -> W {
    w(q, ts, D)
}
/// `DC f:q @ts`.
pub(super) fn dc(q: &'static str, ts: i64) -> W {
    w(q, ts, DC)
}
/// `DF f @ts` (empty qualifier [SORT-5]).
pub(super) fn df(ts: i64) -> W {
    w("", ts, DF)
}
/// `DFV f @ts` (empty qualifier [SORT-5]).
pub(super) fn dfv(ts: i64) -> W {
    w("", ts, DFV)
}

impl W {
    pub fn row(mut self, row: &'static str) -> Self {
        self.row = row;
        self
    }
    pub fn fam(mut self, fam: &'static str) -> Self {
        self.fam = fam;
        self
    }
    /// Per-cell TTL in ms [TTL-3].
    pub fn ttl(mut self, ms: u64) -> Self {
        self.ttl = Some(ms);
        self
    }
    pub fn val(mut self, v: &'static str) -> Self {
        self.value = Some(v);
        self
    }
    fn encode(&self, seq: u64) -> Cell {
        let key = KeyRef {
            row: self.row.as_bytes(),
            family: self.fam.as_bytes(),
            qualifier: self.q.as_bytes(),
            ts: self.ts,
            type_code: self.ty.code(),
            seq,
        }
        .encode();
        let value = match self.value {
            Some(v) => v.to_string(),
            None => format!("{}@{}", self.q, self.ts),
        };
        Cell {
            key,
            payload: payload::encode(self.ttl, value.as_bytes()),
        }
    }
}

pub(super) fn sort(mut cells: Vec<Cell>) -> Vec<Cell> {
    cells.sort_by(|a, b| compare_encoded(&a.key, &b.key));
    cells
}

/// Encodes writes in order (the i-th write gets seq i+1, so later writes are newer) and sorts.
pub(super) fn cells(ws: &[W]) -> Vec<Cell> {
    sort(
        ws.iter()
            .enumerate()
            .map(|(i, w)| w.encode(i as u64 + 1))
            .collect(),
    )
}

/// A returned / kept cell, decoded for comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Got {
    pub row: String,
    pub fam: String,
    pub q: String,
    pub ts: i64,
    pub ty: CellType,
    pub value: String,
}

fn got(c: &Cell) -> Got {
    let k = c.k();
    let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    Got {
        row: s(k.row),
        fam: s(k.family),
        q: s(k.qualifier),
        ts: k.ts,
        ty: k.cell_type().expect("stored type"),
        value: s(c.p().value),
    }
}

pub(super) fn got_all(cells: &[Cell]) -> Vec<Got> {
    cells.iter().map(got).collect()
}

/// Asserts `(qualifier, ts, type)` of every cell.
#[track_caller]
pub(super) fn check(got: &[Got], want: &[(&str, i64, CellType)]) {
    let have: Vec<(&str, i64, CellType)> = got.iter().map(|g| (g.q.as_str(), g.ts, g.ty)).collect();
    assert_eq!(have, want);
}

/// Asserts `(row, family, qualifier, ts, type)` of every cell.
#[track_caller]
pub(super) fn check_full(got: &[Got], want: &[(&str, &str, &str, i64, CellType)]) {
    let have: Vec<(&str, &str, &str, i64, CellType)> = got
        .iter()
        .map(|g| (g.row.as_str(), g.fam.as_str(), g.q.as_str(), g.ts, g.ty))
        .collect();
    assert_eq!(have, want);
}

/// Asserts the values of every cell.
#[track_caller]
pub(super) fn check_values(got: &[Got], want: &[&str]) {
    let have: Vec<&str> = got.iter().map(|g| g.value.as_str()).collect();
    assert_eq!(have, want);
}

/// Index of the first cell after the run starting at `i` whose members satisfy `same`.
fn skip_run(cells: &[Cell], i: usize, same: impl Fn(&KeyRef<'_>, &KeyRef<'_>) -> bool) -> usize {
    let first = cells[i].k();
    let mut j = i + 1;
    while j < cells.len() && same(&first, &cells[j].k()) {
        j += 1;
    }
    j
}

/// Where to go after `code` at `i`: seeking jumps over the column / family / row, stepping
/// just moves on (the matcher must then keep answering the seek for the skipped cells).
fn next_index(cells: &[Cell], i: usize, code: MatchCode, seek: bool) -> Option<usize> {
    if !seek {
        return (code != MatchCode::Done).then_some(i + 1);
    }
    Some(match code {
        MatchCode::Include | MatchCode::Skip => i + 1,
        MatchCode::SeekNextColumn => {
            assert!(
                !cells[i].k().qualifier.is_empty(),
                "seek past the empty-qualifier column"
            );
            skip_run(cells, i, |a, b| a.same_column(b))
        }
        MatchCode::SeekNextFamily => {
            skip_run(cells, i, |a, b| a.row == b.row && a.family == b.family)
        }
        MatchCode::SeekNextRow => skip_run(cells, i, |a, b| a.row == b.row),
        MatchCode::Done => return None,
    })
}

/// A stand-in for a caller's filter: true = INCLUDE.
pub(super) type Filter<'a> = &'a dyn Fn(&KeyRef<'_>) -> bool;

fn drive_user(
    fams: &[FamilyDescriptor],
    spec: &ReadSpec,
    cells: &[Cell],
    filter: Option<Filter<'_>>,
    seek: bool,
    fast: bool,
) -> Vec<Got> {
    let mut m = UserMatcher::new(fams, spec.clone());
    m.set_fast_path(fast);
    let mut out = Vec::new();
    let mut i = 0;
    while i < cells.len() {
        let c = &cells[i];
        let k = c.k();
        let code = m.match_cell(&k, &c.p());
        if code == MatchCode::Include {
            if !spec.raw {
                assert_eq!(k.cell_type(), Some(P), "a normal read returned a marker");
            }
            let keep = match filter {
                None => true,
                Some(f) => f(&k) && m.note_filter_included(&k),
            };
            if keep {
                out.push(got(c));
            }
        }
        match next_index(cells, i, code, seek) {
            Some(n) => i = n,
            None => break,
        }
    }
    out
}

/// Runs a user read (seeking and stepping, each with the matcher's fast path on and off) and
/// returns what it returns.
#[track_caller]
pub(super) fn read_filtered(
    fams: &[FamilyDescriptor],
    spec: &ReadSpec,
    cells: &[Cell],
    filter: Option<Filter<'_>>,
) -> Vec<Got> {
    let seeking = drive_user(fams, spec, cells, filter, true, true);
    let stepping = drive_user(fams, spec, cells, filter, false, true);
    assert_eq!(seeking, stepping, "seeking and stepping runs disagree");
    for seek in [true, false] {
        let general = drive_user(fams, spec, cells, filter, seek, false);
        assert_eq!(
            seeking, general,
            "fast and general paths disagree (seek: {seek})"
        );
    }
    seeking
}

#[track_caller]
pub(super) fn read(fams: &[FamilyDescriptor], spec: &ReadSpec, cells: &[Cell]) -> Vec<Got> {
    read_filtered(fams, spec, cells, None)
}

fn drive_compaction(
    fam: &FamilyDescriptor,
    kind: CompactionKind,
    now: i64,
    eput: i64,
    purge: i64,
    cells: &[Cell],
    seek: bool,
) -> Vec<Cell> {
    let mut m = CompactionMatcher::new(fam, kind, now, eput, purge);
    let mut out = Vec::new();
    let mut i = 0;
    while i < cells.len() {
        let c = &cells[i];
        let code = m.match_cell(&c.k(), &c.p());
        if code == MatchCode::Include {
            out.push(c.clone());
        }
        match next_index(cells, i, code, seek) {
            Some(n) => i = n,
            None => break,
        }
    }
    out
}

/// Runs a flush/compaction matcher (seeking and stepping) and returns the kept cells.
#[track_caller]
pub(super) fn compact_with(
    fam: &FamilyDescriptor,
    kind: CompactionKind,
    now: i64,
    eput: i64,
    purge: i64,
    cells: &[Cell],
) -> Vec<Cell> {
    let seeking = drive_compaction(fam, kind, now, eput, purge, cells, true);
    let stepping = drive_compaction(fam, kind, now, eput, purge, cells, false);
    assert_eq!(seeking, stepping, "seeking and stepping runs disagree");
    seeking
}

/// [KDC-4]: EARLIEST_PUT_TS of a set of cells (`i64::MAX` without Puts).
pub(super) fn earliest_put(cells: &[Cell]) -> i64 {
    cells
        .iter()
        .map(Cell::k)
        .filter(|k| k.cell_type() == Some(P))
        .map(|k| k.ts)
        .min()
        .unwrap_or(i64::MAX)
}

/// A flush or compaction with the input's own earliest Put and no purge delay.
#[track_caller]
pub(super) fn compact(
    fam: &FamilyDescriptor,
    kind: CompactionKind,
    now: i64,
    cells: &[Cell],
) -> Vec<Cell> {
    compact_with(fam, kind, now, earliest_put(cells), 0, cells)
}

/// Family `name` with HBase defaults (V=1, m=0, FOREVER, KDC=FALSE).
pub(super) fn fam(name: &str) -> FamilyDescriptor {
    FamilyDescriptor::new(name)
}

/// The family `f` with VERSIONS `v`.
pub(super) fn fv(v: u32) -> FamilyDescriptor {
    fam("f").max_versions(v)
}

pub(super) fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

/// Builders for read specs.
pub(super) trait SpecExt: Sized {
    fn versions(self, n: u32) -> Self;
    fn all_versions(self) -> Self {
        self.versions(u32::MAX)
    }
    fn tr(self, min: i64, max: i64) -> Self;
    fn raw(self) -> Self;
    fn filtered(self) -> Self;
    /// `addFamily(f)`.
    fn family(self, f: &str) -> Self;
    /// `addColumn(f, q)` for each q.
    fn columns(self, f: &str, qs: &[&str]) -> Self;
}

impl SpecExt for ReadSpec {
    fn versions(mut self, n: u32) -> Self {
        self.max_versions = n;
        self
    }
    fn tr(mut self, min: i64, max: i64) -> Self {
        self.time_range = (min, max);
        self
    }
    fn raw(mut self) -> Self {
        self.raw = true;
        self
    }
    fn filtered(mut self) -> Self {
        self.has_filter = true;
        self
    }
    fn family(mut self, f: &str) -> Self {
        let mut map = match self.columns {
            ColumnSelection::All => BTreeMap::new(),
            ColumnSelection::Families(m) => m,
        };
        map.insert(f.as_bytes().to_vec(), None);
        self.columns = ColumnSelection::Families(map);
        self
    }
    fn columns(mut self, f: &str, qs: &[&str]) -> Self {
        let mut map = match self.columns {
            ColumnSelection::All => BTreeMap::new(),
            ColumnSelection::Families(m) => m,
        };
        let set = map
            .entry(f.as_bytes().to_vec())
            .or_insert_with(|| Some(BTreeSet::new()));
        let set = set.get_or_insert_with(BTreeSet::new);
        set.extend(qs.iter().map(|q| q.as_bytes().to_vec()));
        self.columns = ColumnSelection::Families(map);
        self
    }
}

/// A normal read at `now` (one version, all time, all columns).
pub(super) fn at(now: i64) -> ReadSpec {
    ReadSpec::new(now)
}

/// A region in miniature for multi-step scenarios: a memstore, per-family store files, flush,
/// minor and major compaction, all driven by the matchers under test.
pub(super) struct Sim {
    pub fams: Vec<FamilyDescriptor>,
    seq: u64,
    memstore: Vec<Cell>,
    files: BTreeMap<String, Vec<Vec<Cell>>>,
    /// `hbase.hstore.time.to.purge.deletes`.
    pub purge: i64,
}

impl Sim {
    pub fn new(fams: Vec<FamilyDescriptor>) -> Self {
        Sim {
            fams,
            seq: 0,
            memstore: Vec::new(),
            files: BTreeMap::new(),
            purge: 0,
        }
    }

    /// Applies writes to the memstore, each with the next sequence id.
    pub fn write(&mut self, ws: &[W]) {
        for w in ws {
            self.seq += 1;
            self.memstore.push(w.encode(self.seq));
        }
    }

    /// `new Delete(row, ts)` with no columns: a `DF` in every family [DEL-6].
    pub fn delete_row(&mut self, row: &'static str, ts: i64) {
        let names: Vec<&'static str> = self
            .fams
            .iter()
            .map(|f| &*String::from_utf8(f.name.clone()).unwrap().leak())
            .collect();
        let ws: Vec<W> = names.into_iter().map(|f| df(ts).row(row).fam(f)).collect();
        self.write(&ws);
    }

    fn family_of(c: &Cell) -> String {
        String::from_utf8(c.k().family.to_vec()).unwrap()
    }

    /// Flushes the memstore: one new file per family, written by the Flush matcher [CMP-1].
    pub fn flush(&mut self, now: i64) {
        let mem = std::mem::take(&mut self.memstore);
        for f in self.fams.clone() {
            let name = String::from_utf8(f.name.clone()).unwrap();
            let input = sort(
                mem.iter()
                    .filter(|c| Self::family_of(c) == name)
                    .cloned()
                    .collect(),
            );
            if input.is_empty() {
                continue;
            }
            let out = compact_with(&f, CompactionKind::Flush, now, i64::MAX, self.purge, &input);
            self.files.entry(name).or_default().push(out);
        }
    }

    fn compact_all(&mut self, now: i64, kind: CompactionKind) {
        for f in self.fams.clone() {
            let name = String::from_utf8(f.name.clone()).unwrap();
            let Some(files) = self.files.get_mut(&name) else {
                continue;
            };
            // [KDC-4]: min over the inputs' EARLIEST_PUT_TS.
            let eput = files
                .iter()
                .map(|c| earliest_put(c))
                .min()
                .unwrap_or(i64::MAX);
            let input = sort(files.concat());
            let out = compact_with(&f, kind, now, eput, self.purge, &input);
            *files = vec![out];
        }
    }

    /// Compacts all files of each store without dropping markers (the worst case for
    /// `region.compact(false)`).
    pub fn minor(&mut self, now: i64) {
        self.compact_all(now, CompactionKind::Minor);
    }

    /// `region.compact(true)`: major compaction of every store [CMP-5].
    pub fn major(&mut self, now: i64) {
        self.compact_all(now, CompactionKind::Major);
    }

    /// Memstore and files, merged.
    pub fn all(&self) -> Vec<Cell> {
        let mut v = self.memstore.clone();
        for files in self.files.values() {
            for f in files {
                v.extend(f.iter().cloned());
            }
        }
        sort(v)
    }

    pub fn read(&self, spec: &ReadSpec) -> Vec<Got> {
        read(&self.fams, spec, &self.all())
    }

    pub fn read_filtered(&self, spec: &ReadSpec, filter: Filter<'_>) -> Vec<Got> {
        read_filtered(&self.fams, spec, &self.all(), Some(filter))
    }

    /// TestKeepDeletes' `countDeleteMarkers`: a raw scan reading VERSIONS (of the first
    /// family) versions, counting markers.
    pub fn markers(&self, now: i64) -> usize {
        let v = self.fams[0].max_versions;
        let got = self.read(&at(now).raw().versions(v));
        got.iter().filter(|g| g.ty.is_delete()).count()
    }
}

// ---- match codes (the harness above checks outcomes; these pin the codes themselves) ----

fn codes(fams: &[FamilyDescriptor], spec: ReadSpec, cells: &[Cell]) -> Vec<MatchCode> {
    let mut m = UserMatcher::new(fams, spec);
    cells.iter().map(|c| m.match_cell(&c.k(), &c.p())).collect()
}

/// [GET-1]: a family outside the selection, or unknown to the matcher, is skipped as a whole.
#[test]
fn get1_unselected_and_unknown_families_seek_next_family() {
    use MatchCode::*;
    let cs = cells(&[p("a", 1).fam("f"), p("a", 1).fam("g"), p("a", 1).fam("h")]);
    let fams = [fam("f"), fam("g")];
    assert_eq!(
        codes(&fams, at(10).family("g"), &cs),
        [SeekNextFamily, Include, SeekNextFamily]
    );
    assert_eq!(
        codes(&fams, at(10), &cs),
        [Include, Include, SeekNextFamily]
    );
}

/// [GET-1]: explicit qualifiers: a smaller unnamed qualifier is left with SeekNextColumn, and
/// once the last named qualifier is served the family is left.
#[test]
fn get1_explicit_columns_codes() {
    use MatchCode::*;
    let cs = cells(&[
        p("a", 2),
        p("a", 1),
        p("b", 1),
        p("c", 1),
        p("d", 1),
        p("e", 1),
    ]);
    let spec = at(10).columns("f", &["b", "c"]);
    // a@2: unnamed -> seek; a@1: the caller would have seeked, the matcher keeps saying so;
    // b: include; c: last named column served -> include and leave the family.
    assert_eq!(
        codes(&[fv(1)], spec, &cs),
        [
            SeekNextColumn,
            SeekNextColumn,
            Include,
            Include,
            SeekNextFamily,
            SeekNextFamily
        ]
    );
}

/// HBASE-18471 / [SORT-5]: leaving the empty-qualifier column would hide `DF`s behind a Put
/// there, so the matcher answers Skip instead of SeekNextColumn for it.
#[test]
fn sort5_no_seek_past_empty_qualifier_column() {
    use MatchCode::*;
    // V=1: ""@9 is returned, ""@7 is a 2nd version (SeekNextColumn for any other qualifier),
    // then the DF@5 must still be seen and mask a@4.
    let cs = cells(&[p("", 9), p("", 7), df(5), p("a", 4), p("a", 6)]);
    assert_eq!(
        codes(&[fv(1)], at(10), &cs),
        [Include, Skip, Skip, Include, SeekNextColumn]
    );
    check(&read(&[fv(1)], &at(10), &cs), &[("", 9, P), ("a", 6, P)]);
}

/// Per-(row, family) state resets when the row or the family changes: markers of one row or
/// family never leak into the next [DEL-3].
#[test]
fn del3_state_resets_per_row_and_family() {
    let cs = cells(&[
        df(5).row("r1"),
        p("a", 3).row("r1"),
        p("a", 3).row("r1").fam("g"),
        p("a", 3).row("r2"),
        dc("a", 9).row("r2"),
        p("b", 3).row("r2"),
        p("a", 4).row("r3"),
    ]);
    check_full(
        &read(&[fv(1), fam("g")], &at(10), &cs),
        &[
            ("r1", "g", "a", 3, P),
            ("r2", "f", "b", 3, P),
            ("r3", "f", "a", 4, P),
        ],
    );
}
