//! Randomized differential test of the READ rules that depend on family settings: KEEP_DELETED_
//! CELLS (FALSE / TRUE / TTL), MIN_VERSIONS, family and cell TTL with clock advances, time
//! ranges, small VERSIONS, and raw scans [KDC-1..6] [TTL-1..7] [VER-1..5] [SCAN-RAW-1] [DEL-1..6].
//!
//! The model is exact because nothing is flushed or compacted here (writes stay in the
//! memstore and, with `flush_on_close(false)`, come back from the WAL on reopen), so every cell ever written is physically
//! present; what flush and compaction keep is covered by the matcher's TestKeepDeletes /
//! TestMinVersions scenarios and tests/rules. Seeds: a fixed list; `RETENTION_SEED=<n>` and
//! `RETENTION_OPS=<n>` replay one.

use cellbase::*;
use std::time::Duration;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Put,
    Delete,
    DeleteColumn,
    DeleteFamily,
    DeleteFamilyVersion,
}

#[derive(Clone, Debug)]
struct MCell {
    row: String,
    fam: &'static str,
    qual: String,
    ts: i64,
    kind: Kind,
    seq: u64,
    value: String,
    cell_ttl: Option<i64>,
}

struct Fam {
    name: &'static str,
    versions: u32,
    min_versions: u32,
    ttl_ms: Option<i64>,
    kdc: KeepDeletedCells,
}

const FAMS: [Fam; 3] = [
    Fam {
        name: "a",
        versions: 2,
        min_versions: 1,
        ttl_ms: Some(20_000),
        kdc: KeepDeletedCells::True,
    },
    Fam {
        name: "b",
        versions: 3,
        min_versions: 0,
        ttl_ms: Some(10_000),
        kdc: KeepDeletedCells::Ttl,
    },
    Fam {
        name: "c",
        versions: 1,
        min_versions: 0,
        ttl_ms: None,
        kdc: KeepDeletedCells::False,
    },
];

fn type_code(k: Kind) -> u8 {
    match k {
        Kind::Put => 4,
        Kind::Delete => 8,
        Kind::DeleteFamilyVersion => 10,
        Kind::DeleteColumn => 12,
        Kind::DeleteFamily => 14,
    }
}

/// The model: every cell written, in write order.
struct Model {
    cells: Vec<MCell>,
}

/// (row, family, qualifier, ts, type, value) of a returned cell.
type Out = (String, String, String, i64, u8, String);

impl Model {
    /// Cells of one (row, family), in [SORT-1] order; identical keys of one mutation keep the
    /// last [SORT-7].
    fn column_cells(&self, row: &str, fam: &str) -> Vec<MCell> {
        let mut v: Vec<MCell> = self
            .cells
            .iter()
            .filter(|c| c.row == row && c.fam == fam)
            .cloned()
            .collect();
        v.sort_by(|x, y| {
            x.qual
                .as_bytes()
                .cmp(y.qual.as_bytes())
                .then(y.ts.cmp(&x.ts))
                .then(type_code(y.kind).cmp(&type_code(x.kind)))
                .then(y.seq.cmp(&x.seq))
        });
        // keep the last write among identical keys (same seq)
        let mut out: Vec<MCell> = Vec::new();
        for c in v {
            if let Some(p) = out.last_mut()
                && p.qual == c.qual
                && p.ts == c.ts
                && p.kind == c.kind
                && p.seq == c.seq
            {
                continue; // sorted by write order inside a seq below
            }
            out.push(c);
        }
        out
    }

    /// A normal read of one family of one row (reference algorithm 1.4.1).
    fn read(
        &self,
        row: &str,
        f: &Fam,
        quals: Option<&[String]>,
        tr: (i64, i64),
        vq: u32,
        now: i64,
    ) -> Vec<Out> {
        let cells = self.column_cells(row, f.name);
        let oldest = f.ttl_ms.map_or(i64::MIN, |t| now - t);
        let vout = vq.min(f.versions);
        // Honoured markers [KDC-1] [KDC-2] [KDC-5] (reads treat TTL like TRUE).
        let honoured = |c: &MCell| -> bool {
            if f.min_versions == 0 && c.ts < oldest {
                return false; // [TTL-7] step 2 early-out
            }
            match f.kdc {
                KeepDeletedCells::False => c.ts >= tr.0,
                _ => c.ts >= tr.0 && c.ts < tr.1,
            }
        };
        let markers: Vec<&MCell> = cells
            .iter()
            .filter(|c| c.kind != Kind::Put && honoured(c))
            .collect();
        let masked = |p: &MCell| {
            markers.iter().any(|m| match m.kind {
                Kind::DeleteFamily => p.ts <= m.ts,
                Kind::DeleteFamilyVersion => p.ts == m.ts,
                Kind::DeleteColumn => m.qual == p.qual && p.ts <= m.ts,
                Kind::Delete => m.qual == p.qual && p.ts == m.ts,
                Kind::Put => false,
            })
        };
        let mut out = Vec::new();
        let mut qs: Vec<String> = cells
            .iter()
            .filter(|c| c.kind == Kind::Put)
            .map(|c| c.qual.clone())
            .collect();
        qs.dedup();
        for q in qs {
            if let Some(sel) = quals
                && !sel.contains(&q)
            {
                continue;
            }
            let mut count = 0u32;
            let mut last_ts = None;
            for c in cells.iter().filter(|c| c.qual == q && c.kind == Kind::Put) {
                if c.cell_ttl.is_some_and(|t| c.ts.saturating_add(t) < now) {
                    continue; // [TTL-3] not counted
                }
                if f.min_versions == 0 && c.ts < oldest {
                    break; // [TTL-2]
                }
                if masked(c) {
                    continue;
                }
                if c.ts >= tr.1 {
                    continue;
                }
                if c.ts < tr.0 {
                    break;
                }
                if last_ts == Some(c.ts) {
                    continue; // [VER-4]
                }
                last_ts = Some(c.ts);
                count += 1;
                if count > vout {
                    break;
                }
                if count > f.min_versions && c.ts < oldest {
                    break; // [TTL-4]
                }
                out.push((
                    row.to_string(),
                    f.name.to_string(),
                    q.clone(),
                    c.ts,
                    4,
                    c.value.clone(),
                ));
            }
        }
        out
    }

    /// A raw read of one family of one row [SCAN-RAW-1]: markers and masked cells, TTL ignored,
    /// time range honoured, at most `vq` Puts per column, duplicates once.
    fn raw(&self, row: &str, f: &Fam, tr: (i64, i64), vq: u32) -> Vec<Out> {
        let mut out = Vec::new();
        let cells = self.column_cells(row, f.name);
        let mut cur_q: Option<String> = None;
        let (mut puts, mut last) = (0u32, None::<(i64, Kind)>);
        for c in &cells {
            if cur_q.as_ref() != Some(&c.qual) {
                cur_q = Some(c.qual.clone());
                puts = 0;
                last = None;
            }
            if c.ts >= tr.1 || c.ts < tr.0 {
                continue;
            }
            if last == Some((c.ts, c.kind)) {
                continue;
            }
            last = Some((c.ts, c.kind));
            if c.kind == Kind::Put {
                puts += 1;
                if puts > vq {
                    continue;
                }
            } else if puts > vq {
                continue; // the column stops once MORE than vq puts were seen
            }
            let v = if c.kind == Kind::Put {
                c.value.clone()
            } else {
                String::new()
            };
            out.push((
                row.to_string(),
                f.name.to_string(),
                c.qual.clone(),
                c.ts,
                type_code(c.kind),
                v,
            ));
        }
        out
    }
}

fn engine_out(r: &RowResult) -> Vec<Out> {
    let s = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
    r.cells()
        .iter()
        .map(|c| {
            let code = match c.cell_type() {
                CellType::Put => 4,
                CellType::Delete => 8,
                CellType::DeleteFamilyVersion => 10,
                CellType::DeleteColumn => 12,
                CellType::DeleteFamily => 14,
            };
            (
                s(c.row()),
                s(c.family()),
                s(c.qualifier()),
                c.timestamp(),
                code,
                s(c.value()),
            )
        })
        .collect()
}

const ROWS: [&str; 4] = ["r0", "r1", "r2", "r3"];
const QUALS: [&str; 3] = ["", "q", "x"];

fn run(seed: u64, ops: usize) {
    let mut rng = Rng(seed);
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(100_000);
    let opts = DbOptions::default()
        .clock(clock.clone())
        .background_threads(0)
        .memstore_flush_size(1 << 40)
        // Nothing is flushed, on close or after replay: reopen replays the log into the
        // memstores (see the module doc).
        .flush_on_close(false)
        .flush_after_replay(false);
    let mut db = Db::open_with(dir.path(), opts.clone()).unwrap();
    let mut desc = TableDescriptor::new("t");
    for f in &FAMS {
        let mut fd = FamilyDescriptor::new(f.name)
            .max_versions(f.versions)
            .min_versions(f.min_versions)
            .keep_deleted_cells(f.kdc);
        if let Some(t) = f.ttl_ms {
            fd = fd.ttl(Duration::from_millis(t as u64));
        }
        desc = desc.family(fd);
    }
    let mut t = db.create_table(desc).unwrap();
    let mut model = Model { cells: Vec::new() };
    let mut seq = 0u64;
    let mut log: Vec<String> = Vec::new();
    let fam_of = |i: u64| &FAMS[i as usize % 3];
    for op in 0..ops {
        let now = clock.now_millis();
        let row = ROWS[rng.below(4) as usize];
        let pick_ts = |rng: &mut Rng| -> i64 {
            match rng.below(4) {
                0 => now,
                1 => now - rng.below(30_000) as i64,
                _ => 90_000 + rng.below(40) as i64 * 500,
            }
        };
        match rng.below(20) {
            0..=6 => {
                seq += 1;
                let mut p = Put::new(row);
                let ttl = (rng.below(5) == 0).then(|| 500 + rng.below(8_000) as i64);
                if let Some(ms) = ttl {
                    p = p.ttl(Duration::from_millis(ms as u64));
                }
                for _ in 0..1 + rng.below(2) {
                    let f = fam_of(rng.next());
                    let q = QUALS[rng.below(3) as usize];
                    let ts = pick_ts(&mut rng);
                    let v = format!("v{op}");
                    p = p.add_at(f.name, q, ts, &v);
                    model.cells.push(MCell {
                        row: row.into(),
                        fam: f.name,
                        qual: q.into(),
                        ts,
                        kind: Kind::Put,
                        seq,
                        value: v,
                        cell_ttl: ttl,
                    });
                }
                log.push(format!("{p:?}"));
                t.put(p).unwrap();
            }
            7..=10 => {
                seq += 1;
                let f = fam_of(rng.next());
                let q = QUALS[1 + rng.below(2) as usize];
                let ts = pick_ts(&mut rng);
                let (d, kind, qual) = match rng.below(4) {
                    0 => (Delete::new(row).version(f.name, q, ts), Kind::Delete, q),
                    1 => (
                        Delete::new(row).versions_up_to(f.name, q, ts),
                        Kind::DeleteColumn,
                        q,
                    ),
                    2 => (
                        Delete::new(row).family_up_to(f.name, ts),
                        Kind::DeleteFamily,
                        "",
                    ),
                    _ => (
                        Delete::new(row).family_version(f.name, ts),
                        Kind::DeleteFamilyVersion,
                        "",
                    ),
                };
                log.push(format!("{d:?}"));
                t.delete(d).unwrap();
                model.cells.push(MCell {
                    row: row.into(),
                    fam: f.name,
                    qual: qual.into(),
                    ts,
                    kind,
                    seq,
                    value: String::new(),
                    cell_ttl: None,
                });
            }
            11..=12 => {
                let by = rng.below(6_000) as i64;
                clock.advance(Duration::from_millis(by as u64));
                log.push(format!("advance {by}"));
            }
            13 => {
                drop(t);
                db.close().unwrap();
                db = Db::open_with(dir.path(), opts.clone()).unwrap();
                t = db.table("t").unwrap();
                log.push("reopen".into());
            }
            _ => {
                // A read of one row: normal or raw, random family selection, versions, range.
                let raw = rng.below(3) == 0;
                let vq = [1u32, 2, 3, u32::MAX][rng.below(4) as usize];
                let tr = match rng.below(3) {
                    0 => (0, i64::MAX),
                    _ => {
                        let a = 89_000 + rng.below(30) as i64 * 1_000;
                        (a, a + rng.below(20_000) as i64)
                    }
                };
                let fam_sel = (rng.below(2) == 0).then(|| fam_of(rng.next()).name);
                let mut s = Scan::new()
                    .start_row(row)
                    .stop_row(format!("{row}\0"))
                    .max_versions(vq)
                    .time_range(tr.0, tr.1)
                    .raw(raw);
                if let Some(f) = fam_sel {
                    s = s.family(f);
                }
                let quals: Option<Vec<String>> = None;
                let got: Vec<Out> = t
                    .scan(s.clone())
                    .unwrap()
                    .flat_map(|r| engine_out(&r.unwrap()))
                    .collect();
                let now = clock.now_millis();
                let mut want = Vec::new();
                for f in &FAMS {
                    if fam_sel.is_some_and(|n| n != f.name) {
                        continue;
                    }
                    if raw {
                        want.extend(model.raw(row, f, tr, vq));
                    } else {
                        want.extend(model.read(row, f, quals.as_deref(), tr, vq, now));
                    }
                }
                if got != want {
                    let tail: Vec<&String> = log.iter().rev().take(40).collect();
                    panic!(
                        "seed {seed} op {op}: {s:?}\n  now {now}\n  engine {got:?}\n  model  {want:?}\n  last ops (newest first): {tail:#?}\n  replay: RETENTION_SEED={seed} RETENTION_OPS={} cargo test --test model_retention -- env_seed",
                        op + 1
                    );
                }
            }
        }
    }
}

#[test]
fn seeds() {
    for seed in [1u64, 2, 3, 4, 5, 6, 7, 8] {
        println!("retention model seed {seed}");
        run(seed, 3_000);
    }
}

#[test]
fn env_seed() {
    if let Ok(s) = std::env::var("RETENTION_SEED") {
        let ops = std::env::var("RETENTION_OPS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(3_000);
        run(s.parse().unwrap(), ops);
    }
}
