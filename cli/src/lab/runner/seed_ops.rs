//! The operations the seed articles teach with, beyond puts, Gets and scans, run part by part
//! like the others: a Get by the natural key of a randomly salted rowkey (it must try every
//! bucket: one Get per bucket, grouped per server as a multi-get), `latest_n` (the newest N
//! records of an entity: one scan limited to N rows when the key holds a reverse timestamp,
//! the entity's whole range otherwise), `get_missing` (a Get of an absent row: a ROW Bloom
//! filter lets the engine skip every file) and `delete`.

use super::State;
use super::parts::{OpParts, Runner, Stage, multi_get};
use crate::lab::key::{KeyDesign, Query};
use crate::lab::records::Value;
use cellbase::{Delete, Get, RegionInfo, Result, RowResult, Table, rowkey};

/// The keys a Get of `row` must try: `row` itself, or — under a random salt, whose bucket the
/// reader cannot compute — the natural key under every bucket prefix.
pub(super) fn candidates(key: &KeyDesign, row: &[u8]) -> Vec<Vec<u8>> {
    match key.random_salt() {
        None => vec![row.to_vec()],
        Some(b) => {
            let natural = &row[key.salt_len().min(row.len())..];
            rowkey::salted_prefixes(b)
                .into_iter()
                .map(|mut p| {
                    p.extend_from_slice(natural);
                    p
                })
                .collect()
        }
    }
}

/// Gets `row` (the cell `column` = (family, qualifier) when given) the way a client of the
/// design must: one Get, or one per bucket under a random salt (sent as a multi-get: one RPC
/// per server, in parallel). Returns the stage, whether some Get found it, and the plan name.
pub(super) fn get(
    r: &mut Runner<'_>,
    t: &Table,
    regs: &[RegionInfo],
    kd: &KeyDesign,
    row: &[u8],
    column: Option<(&[u8], &[u8])>,
) -> Result<(Stage, bool, String)> {
    let keys = candidates(kd, row);
    let mut found = false;
    let mut parts = Vec::new();
    for k in &keys {
        let mut g = Get::new(k);
        if let Some((f, q)) = column {
            g = g.column(f, q);
        }
        let (p, hit) = r.get_with(t, regs, k, g)?;
        found |= hit;
        parts.push(p);
    }
    Ok(match kd.random_salt() {
        None => (vec![parts], found, "get".to_string()),
        Some(_) => (
            multi_get(parts),
            found,
            format!("get, random salt: {} buckets", keys.len()),
        ),
    })
}

/// A rowkey next to `row` that was never written: `row ‖ 0x00 ‖ byte` (it sorts right after
/// `row`, so it falls in the same region and file key range); the byte comes from `seed`,
/// re-drawn while the key collides with a written row.
pub(super) fn missing_key(row: &[u8], seed: u64, exists: impl Fn(&[u8]) -> bool) -> Vec<u8> {
    let mut x = seed;
    loop {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let mut k = row.to_vec();
        k.push(0);
        k.push((x >> 56) as u8);
        if !exists(&k) {
            return k;
        }
    }
}

/// The table a `latest_n` reads.
pub(super) struct Target<'a> {
    pub table: &'a Table,
    /// Its regions when the read began.
    pub regions: &'a [RegionInfo],
    /// Its rowkey design.
    pub key: &'a KeyDesign,
}

/// The newest `n` records matching `q` (newest by the field `by`): when the key orders them
/// newest first, a scan limited to `n` rows; otherwise (or salted) every matching row, of
/// which the client keeps the newest `n`. `live` lists the matching records the table holds;
/// `records_in` maps a returned row to its records. Returns the stage, the newest records
/// returned, the number expected and the plan name.
#[allow(clippy::too_many_arguments)]
pub(super) fn latest_n(
    r: &mut Runner<'_>,
    t: &Target<'_>,
    q: &Query<'_>,
    (fields, by, n): (&[usize], usize, u32),
    records: &[Vec<Value>],
    live: &[usize],
    records_in: &dyn Fn(&RowResult) -> Vec<usize>,
    on_row: &mut dyn FnMut(&RowResult),
) -> Result<(Stage, u64, u64, String)> {
    let plan = t.key.plan(q);
    let time = |i: usize| records[i][by].as_int().unwrap_or(i64::MIN);
    // The n-th newest time among the records that must come back: a returned record at least
    // that new is one of the newest n (ties at the threshold are equally newest).
    let mut times: Vec<i64> = live.iter().map(|&i| time(i)).collect();
    times.sort_unstable_by(|a, b| b.cmp(a));
    let expected = times.len().min(n as usize);
    let threshold = times
        .get(expected.saturating_sub(1))
        .copied()
        .unwrap_or(i64::MAX);
    let matches = |rec: &[Value]| q.eq.iter().all(|(f, v)| &rec[*f] == *v);
    let limited = plan.salted.is_none() && t.key.newest_first(fields, by);
    let mut matched = 0u64;
    let mut each = |row: &RowResult| {
        for i in records_in(row) {
            if matches(&records[i]) && time(i) >= threshold {
                matched += 1;
            }
        }
        on_row(row);
    };
    let stage = if limited {
        vec![r.scan_lane(
            t.table,
            t.regions,
            &plan.start,
            &plan.stop,
            Some(u64::from(n)),
            &mut each,
        )?]
    } else {
        r.scan(t.table, t.regions, &plan, &mut each)?
    };
    let name = if limited {
        format!("{}, newest first: limit {n}", plan.kind)
    } else {
        format!("{}, all rows read for the newest {n}", plan.kind)
    };
    Ok((stage, matched.min(expected as u64), expected as u64, name))
}

impl State<'_> {
    /// Deletes written record `j`'s cell in every family the lab writes (HBase's
    /// `Delete.addColumns`), as operation `which`.
    pub(super) fn delete(&mut self, which: usize, j: usize) -> Result<()> {
        let mut r = Runner {
            db: &self.db,
            cluster: &self.cluster,
            engine: std::time::Duration::ZERO,
        };
        let key = &self.keys[j];
        let mut d = Delete::new(key);
        for f in &self.put_families {
            d = d.all_versions(f, &self.quals[j]);
        }
        let main = &self.tables[0];
        let p = r.delete(&main.table, &main.regs, key, d)?;
        let mut parts = OpParts::default();
        parts.stages.push(vec![vec![p]]);
        self.engine += r.engine;
        self.cells.delete(key, &self.quals[j]);
        let s = &mut self.stats[which];
        s.plan = "delete".into();
        s.count += 1;
        self.proj.record(which, &parts);
        Ok(())
    }
}
