//! The user matcher's fast path against its general path over random cell streams: every
//! cell's code, and the cells a caller returns, must be identical, whether the caller seeks or
//! steps and with or without a filter. The seed is printed; `CELLBASE_MATCHER_SEED=<n>` replays
//! one case.

use super::*;
use crate::model::schema::KeepDeletedCells;

/// Deterministic xorshift64* generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
}

const ROWS: &[&str] = &["a", "b", "c"];
/// `h` has no descriptor: its cells are skipped per family.
const FAMS: &[&str] = &["f", "g", "h"];
const QUALS: &[&str] = &["", "q1", "q2", "q3"];
const NOW: i64 = 10_000;

fn random_family(r: &mut Rng, name: &str) -> FamilyDescriptor {
    let mut f = fam(name)
        .max_versions(1 + r.below(3) as u32)
        .min_versions(if r.chance(25) { r.below(3) as u32 } else { 0 });
    if r.chance(30) {
        f = f.ttl(secs(1 + r.below(10)));
    }
    let kdc = match r.below(6) {
        0 => KeepDeletedCells::True,
        1 => KeepDeletedCells::Ttl,
        _ => KeepDeletedCells::False,
    };
    f.keep_deleted_cells(kdc)
}

fn random_spec(r: &mut Rng) -> ReadSpec {
    let mut spec = at(NOW);
    if r.chance(30) {
        spec = spec.versions(1 + r.below(3) as u32);
    } else if r.chance(10) {
        spec = spec.all_versions();
    }
    if r.chance(30) {
        let min = r.below(6_000) as i64;
        spec = spec.tr(min, min + 1 + r.below(6_000) as i64);
    }
    if r.chance(15) {
        spec = spec.raw();
    }
    if r.chance(25) {
        spec = spec.filtered();
    }
    if r.chance(20) {
        spec = spec.family(r.pick(FAMS));
    }
    if r.chance(15) {
        let f = r.pick(FAMS);
        let q = r.pick(QUALS);
        spec = spec.columns(f, &[q]);
        if r.chance(50) {
            spec = spec.columns(f, &[r.pick(QUALS)]);
        }
    }
    spec
}

fn random_cells(r: &mut Rng) -> Vec<Cell> {
    let n = 1 + r.below(60);
    let ws: Vec<W> = (0..n)
        .map(|_| {
            let ts = r.below(10_000) as i64;
            let q = r.pick(QUALS);
            let mut w = match r.below(20) {
                0 => d(q, ts),
                1 => dc(q, ts),
                2 => df(ts),
                3 => dfv(ts),
                _ => p(q, ts),
            };
            w = w.row(r.pick(ROWS)).fam(r.pick(FAMS));
            if r.chance(10) {
                w = w.ttl(r.below(10_000));
            }
            w
        })
        .collect();
    // Versions of one column are more interesting than scattered cells: repeat some writes at
    // other timestamps and some at the same one (duplicates, [VER-4]).
    let mut all = ws.clone();
    for w in &ws {
        if r.chance(30) {
            let mut again = w.clone();
            if r.chance(70) {
                again.ts = r.below(10_000) as i64;
            }
            all.push(again);
        }
    }
    cells(&all)
}

/// Every code the matcher answers, and the cells returned, with the fast path `fast`.
fn run(
    fams: &[FamilyDescriptor],
    spec: &ReadSpec,
    cells: &[Cell],
    seek: bool,
    fast: bool,
    filter_seed: u64,
) -> (Vec<(usize, MatchCode, bool)>, Vec<Got>, u64) {
    let mut m = UserMatcher::new(fams, spec.clone());
    m.set_fast_path(fast);
    let mut filter = Rng(filter_seed | 1);
    let (mut codes, mut out) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < cells.len() {
        let c = &cells[i];
        let k = c.k();
        let code = m.match_cell(&k, &c.p());
        let mut kept = false;
        if code == MatchCode::Include {
            kept = !spec.has_filter || (filter.chance(70) && m.note_filter_included(&k));
            if kept {
                out.push(got(c));
            }
        }
        codes.push((i, code, kept));
        match next_index(cells, i, code, seek) {
            Some(n) => i = n,
            None => break,
        }
    }
    (codes, out, m.fast_decided)
}

#[test]
fn fast_path_differential() {
    let base = std::env::var("CELLBASE_MATCHER_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok());
    let seed = base.unwrap_or(0x5EED_CE11_BA5E_0001);
    let cases = if base.is_some() { 1 } else { 4_000 };
    println!("fast_path_differential: seed {seed}, {cases} cases");
    let (mut fast_cells, mut all_cells) = (0u64, 0u64);
    for case in 0..cases {
        let case_seed = seed.wrapping_add(case);
        let mut r = Rng(case_seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let fams: Vec<FamilyDescriptor> =
            FAMS[..2].iter().map(|n| random_family(&mut r, n)).collect();
        let spec = random_spec(&mut r);
        let cells = random_cells(&mut r);
        let filter_seed = r.next();
        for seek in [true, false] {
            let (codes, out, none) = run(&fams, &spec, &cells, seek, false, filter_seed);
            assert_eq!(none, 0);
            let general = (codes, out);
            let (codes, out, decided) = run(&fams, &spec, &cells, seek, true, filter_seed);
            let fast = (codes, out);
            assert_eq!(
                fast, general,
                "fast and general paths disagree: CELLBASE_MATCHER_SEED={case_seed} \
                 (seek: {seek}, spec: {spec:?}, families: {fams:?})"
            );
            fast_cells += decided;
            all_cells += fast.0.len() as u64;
        }
    }
    println!("fast_path_differential: {fast_cells} of {all_cells} codes from the fast path");
    // The streams exercise the fast path, not only its fallbacks.
    assert!(
        fast_cells > all_cells / 10,
        "fast path too rare: {fast_cells} of {all_cells}"
    );
}
