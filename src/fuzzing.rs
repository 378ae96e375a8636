//! Bodies of the fuzz targets (`fuzz/fuzz_targets/*.rs` call these), compiled with the
//! `testing` feature. Each takes arbitrary bytes and panics only when it finds a bug: a decoder
//! that panics, returns an error of the wrong kind, accepts bytes that do not round-trip, or a
//! database that loses or invents data. `tests/fuzz_bodies` runs every body on a seeded corpus
//! in `cargo test`, so stable CI covers them; the real fuzzers explore further (docs/TESTING.md).
//!
//! Allocation: every decoder bounds allocations by the input length (lengths read from the
//! bytes are checked against what is left before anything is reserved); libFuzzer's
//! `-rss_limit_mb` and `-malloc_limit_mb` enforce it when the real fuzzers run.

use crate::base::error::Error;
use crate::base::io::{FaultFs, FileSystem, MemFs, ReadableFile};
use crate::model::cursor::CellCursor;
use crate::model::key::KeyRef;
use crate::model::payload::PayloadRef;
use crate::storage::manifest::{Edit, Manifest};
use crate::storage::sst::block::{Block, BlockIter};
use crate::storage::sst::bloom::BloomFilter;
use crate::storage::sst::index::Index;
use crate::storage::sst::trailer::Trailer;
use crate::storage::sst::{CachePolicy, EntryEncoding, SstReader};
use crate::storage::wal::record::{TailPolicy, read_records};
use crate::{
    Db, DbOptions, Delete, Durability, FamilyDescriptor, Get, Increment, ManualClock, Put, Scan,
    TableDescriptor,
};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// A fuzz target's body.
pub type Body = fn(&[u8]);

/// Every fuzz target: its name and body.
pub const TARGETS: &[(&str, Body)] = &[
    ("raw_block", raw_block),
    ("raw_index", raw_index),
    ("raw_bloom", raw_bloom),
    ("raw_trailer", raw_trailer),
    ("raw_sst_open", raw_sst_open),
    ("raw_log_records", raw_log_records),
    ("raw_wal_replay", raw_wal_replay),
    ("raw_manifest_replay", raw_manifest_replay),
    ("raw_manifest_edit", raw_manifest_edit),
    ("raw_cell_key", raw_cell_key),
    ("model", model),
];

fn is_format_error(e: &Error) -> bool {
    matches!(
        e,
        Error::Corruption { .. } | Error::UnsupportedFormat { .. }
    )
}

/// A data block, read as each entry encoding: decode, then walk and seek; never a panic.
pub fn raw_block(data: &[u8]) {
    for encoding in [EntryEncoding::Prefix, EntryEncoding::SuffixDelta] {
        raw_block_as(data, encoding);
    }
}

fn raw_block_as(data: &[u8], encoding: EntryEncoding) {
    let Ok(block) = Block::decode_with(data.to_vec(), encoding) else {
        return;
    };
    let block = Arc::new(block);
    let mut it = BlockIter::new(block.clone(), Vec::new());
    let mut n = 0;
    if it.seek_to_first().is_ok() {
        while it.valid() && n <= block.len() {
            let _ = (it.key(), it.payload());
            n += 1;
            if it.advance().is_err() {
                break;
            }
        }
    }
    let mut it = BlockIter::new(block, Vec::new());
    let _ = it.seek(data.get(..data.len().min(24)).unwrap_or_default());
}

/// An index block: decode against a data end taken from the input; lookups stay in bounds.
pub fn raw_index(data: &[u8]) {
    let (end, payload) = match data.split_first_chunk::<8>() {
        Some((e, rest)) => (u64::from_le_bytes(*e) % (1 << 40), rest),
        None => (0, data),
    };
    let Ok(index) = Index::decode(payload, end) else {
        return;
    };
    for i in 0..index.len() {
        assert!(index.first_key(i).is_some() && index.handle(i).is_some());
    }
    let found = index.find(payload);
    assert!(found <= index.len());
    let _ = index.mid_key();
}

/// A bloom block: decode and probe.
pub fn raw_bloom(data: &[u8]) {
    if let Ok(b) = BloomFilter::decode(data) {
        let _ = (b.kind(), b.keys());
        let _ = b.may_contain_row(data);
        let _ = b.may_contain_column(data, b"q");
    }
}

/// A trailer at the end of arbitrary bytes: `Ok` or a format error.
pub fn raw_trailer(data: &[u8]) {
    match Trailer::decode(data, Path::new("fuzz.sst")) {
        Ok(t) => assert!(t.data_end() <= data.len() as u64),
        Err(e) => assert!(is_format_error(&e), "{e:?}"),
    }
}

#[derive(Debug)]
struct Bytes(Vec<u8>);

impl ReadableFile for Bytes {
    fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// A whole block file: open, verify, scan forwards; every error is a format error.
pub fn raw_sst_open(data: &[u8]) {
    let file = Arc::new(Bytes(data.to_vec()));
    let reader = match SstReader::from_file(file, Path::new("fuzz.sst"), 1, None) {
        Ok(r) => Arc::new(r),
        Err(e) => {
            assert!(is_format_error(&e), "{e:?}");
            return;
        }
    };
    if let Err(e) = reader.verify() {
        assert!(is_format_error(&e), "{e:?}");
    }
    let _ = reader.may_contain_row(b"row");
    let mut c = reader.cursor(CachePolicy::default());
    if let Err(e) = c.seek_to_first() {
        assert!(is_format_error(&e), "{e:?}");
        return;
    }
    let mut n = 0u64;
    while c.valid() && n < 1 << 20 {
        n += 1;
        if let Err(e) = c.next() {
            assert!(is_format_error(&e), "{e:?}");
            break;
        }
    }
}

/// The record framing of WAL segments and the manifest, under both tail policies.
pub fn raw_log_records(data: &[u8]) {
    let p = Path::new("fuzz.log");
    let torn = read_records(data, p, TailPolicy::TornTailAllowed);
    let strict = read_records(data, p, TailPolicy::Strict);
    if let Ok((recs, valid)) = &strict {
        assert_eq!(*valid, data.len() as u64);
        let (t, _) = torn
            .as_ref()
            .expect("strict success implies torn-tail success");
        assert_eq!(t.len(), recs.len());
    }
    if let Ok((recs, valid)) = torn {
        assert!(valid <= data.len() as u64);
        // The valid prefix parses strictly to the same records.
        let prefix = data.get(..valid as usize).expect("valid <= len");
        let (again, _) = read_records(prefix, p, TailPolicy::Strict).expect("valid prefix");
        assert_eq!(again.len(), recs.len());
    }
}

/// WAL replay of one or two segments made of the input: never a panic, every error a format
/// error; a truncated torn tail replays the same entries a second time without damage.
pub fn raw_wal_replay(data: &[u8]) {
    let fs = MemFs::new();
    let dir = Path::new("/wal");
    fs.create_dir_all(dir).expect("memfs");
    let (first, second) = match data.split_first() {
        Some((&cut, rest)) if cut & 1 == 1 => {
            let at = (usize::from(cut) * rest.len() / 256).min(rest.len());
            (
                rest.get(..at).unwrap_or_default(),
                Some(rest.get(at..).unwrap_or_default()),
            )
        }
        Some((_, rest)) => (rest, None),
        None => (data, None),
    };
    for (id, bytes) in std::iter::once((1u64, first)).chain(second.map(|s| (2u64, s))) {
        let mut f = fs
            .create(&crate::storage::wal::segment::segment_path(dir, id))
            .expect("memfs");
        f.append(bytes).expect("memfs");
    }
    let mut seen = Vec::new();
    match crate::storage::wal::replay(&fs, dir, |seq, payload| {
        seen.push((seq, payload.to_vec()));
        Ok(())
    }) {
        Ok(_) => {
            let mut again = Vec::new();
            let info = crate::storage::wal::replay(&fs, dir, |seq, payload| {
                again.push((seq, payload.to_vec()));
                Ok(())
            })
            .expect("a replayed log replays again");
            assert!(
                !info.torn_tail_truncated,
                "the torn tail was truncated once"
            );
            assert_eq!(seen, again);
        }
        Err(e) => assert!(is_format_error(&e), "{e:?}"),
    }
}

/// A manifest made of the input (CURRENT points at it): open replays it or returns a format
/// error; a replayed manifest reopens to the same state.
pub fn raw_manifest_replay(data: &[u8]) {
    let fs = Arc::new(MemFs::new());
    let dir = Path::new("/db");
    fs.create_dir_all(dir).expect("memfs");
    let mut f = fs.create(&dir.join("MANIFEST-000001")).expect("memfs");
    f.append(data).expect("memfs");
    let mut c = fs.create(&dir.join("CURRENT")).expect("memfs");
    c.append(b"MANIFEST-000001\n").expect("memfs");
    match Manifest::open(fs.clone(), dir) {
        Ok((m, state)) => {
            drop(m);
            let (_, again) = Manifest::open(fs, dir).expect("a rewritten manifest reopens");
            assert_eq!(state, again, "manifest state changed across a reopen");
        }
        Err(e) => assert!(is_format_error(&e), "{e:?}"),
    }
}

/// One manifest edit: a decoded edit re-encodes to bytes that decode to the same edit.
pub fn raw_manifest_edit(data: &[u8]) {
    if let Ok(e) = Edit::decode(data) {
        let enc = e.encode();
        let again = Edit::decode(&enc).expect("a decoded edit re-decodes");
        assert_eq!(again.encode(), enc);
    }
}

/// A cell key and a cell payload: a parsed key re-encodes to the same bytes.
pub fn raw_cell_key(data: &[u8]) {
    if let Some(k) = KeyRef::parse(data) {
        assert_eq!(k.encode(), data);
        assert_eq!(k.encoded_len(), data.len());
        assert_eq!(k.cmp_key(&k), std::cmp::Ordering::Equal);
    }
    let _ = PayloadRef::parse(data);
}

/// The model target: the input is a sequence of operations (put, delete, increment, flush,
/// compaction, split, merge, clean reopen, power loss, power cut in the middle of the next
/// operation) run with FsyncWal on an in-memory filesystem and on a map. After every reopen
/// and at the end the database must equal the map (or, after a cut, the map with or without
/// the interrupted operation).
pub fn model(data: &[u8]) {
    type Model = BTreeMap<Vec<u8>, (Option<Vec<u8>>, Option<i64>)>;
    let trace = std::env::var_os("CELLBASE_FUZZ_TRACE").is_some();
    let same = |got: &Model, want: &Model, when: &str| {
        if got == want {
            return;
        }
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let show = |v: Option<&(Option<Vec<u8>>, Option<i64>)>| {
            v.map(|(q, n)| format!("q={:?} n={n:?}", q.as_deref().map(text)))
        };
        let diff: Vec<String> = want
            .keys()
            .chain(got.keys())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .filter(|k| got.get(*k) != want.get(*k))
            .map(|k| {
                format!(
                    "{}: want {:?}, got {:?}",
                    text(k),
                    show(want.get(k)),
                    show(got.get(k))
                )
            })
            .collect();
        panic!("{when}: database differs from the model: {diff:#?}");
    };
    let mem = MemFs::new();
    let fault = FaultFs::over_mem(mem.clone());
    // Advanced before every operation: a row delete masks every cell at or below its
    // timestamp, so equal timestamps would hide later puts (HBase's rule, not this model's).
    let clock = ManualClock::new(1_000);
    let opts = || {
        DbOptions::default()
            .background_threads(0)
            .durability(Durability::FsyncWal)
            .wal_segment_size(1 << 10)
            .clock(clock.clone())
    };
    let open = || -> Db {
        Db::open_with_fs("/db", opts(), Arc::new(fault.clone()))
            .unwrap_or_else(|e| panic!("reopen failed: {e}"))
    };
    let read = |db: &Db| -> Model {
        let t = db.table("t").expect("table t");
        let mut m = Model::new();
        for r in t.scan(Scan::new()).expect("scan") {
            let r = r.expect("row");
            let n = r
                .value("f", "n")
                .map(|b| i64::from_be_bytes(b.try_into().expect("8-byte counter")));
            m.insert(r.row().to_vec(), (r.value("f", "q").map(<[u8]>::to_vec), n));
        }
        m
    };
    let mut db = Some(open());
    db.as_ref()
        .expect("open")
        .create_table(
            TableDescriptor::new("t")
                .family(FamilyDescriptor::new("f").block_size(1024))
                .memstore_flush_size(2 << 10),
        )
        .expect("create table");
    let mut model = Model::new();
    let mut bytes = data.iter().copied();
    let mut steps = 0;
    while let Some(op) = bytes.next() {
        steps += 1;
        if steps > 400 {
            break;
        }
        clock.advance(std::time::Duration::from_millis(1));
        let arg = bytes.next().unwrap_or(0);
        let row = format!("r{:02}", arg % 40).into_bytes();
        let d = db.as_ref().expect("open db");
        let t = d.table("t").expect("table t");
        if trace {
            eprintln!(
                "step {steps}: op {} arg {arg} row {}",
                op % 16,
                String::from_utf8_lossy(&row)
            );
        }
        match op % 16 {
            0..=4 => {
                let v = format!("v{op}-{arg}-{}", "x".repeat(usize::from(arg % 64))).into_bytes();
                t.put(Put::new(&row).add("f", "q", &v)).expect("put");
                model.entry(row).or_default().0 = Some(v);
            }
            5 | 6 => {
                t.delete(Delete::new(&row)).expect("delete");
                model.remove(&row);
            }
            7 | 8 => {
                let by = i64::from(arg % 7) - 3;
                t.increment(Increment::new(&row).add("f", "n", by))
                    .expect("increment");
                let e = model.entry(row).or_default();
                e.1 = Some(e.1.unwrap_or(0) + by);
            }
            9 => t.flush().expect("flush"),
            10 => {
                if arg & 1 == 0 {
                    t.compact().expect("compact");
                } else {
                    t.major_compact().expect("major compact");
                }
            }
            11 => {
                // Splitting at a row that is a region's start key is refused; anything else
                // must work.
                let _ = t.split(Some(&row));
            }
            12 => {
                let rs = t.regions();
                if rs.len() >= 2 {
                    let i = usize::from(arg) % (rs.len() - 1);
                    t.merge(&rs[i].name, &rs[i + 1].name).expect("merge");
                }
            }
            13 => {
                drop(t);
                db.take().expect("open db").close().expect("close");
                db = Some(open());
                assert_eq!(
                    read(db.as_ref().expect("db")),
                    model,
                    "after a clean reopen"
                );
            }
            14 => {
                drop(t);
                drop(db.take());
                fault.crash().expect("over mem");
                db = Some(open());
                same(
                    &read(db.as_ref().expect("db")),
                    &model,
                    "after a power loss",
                );
            }
            _ => {
                // Cut the power during the next put.
                fault.crash_at(fault.mutating_ops() + u64::from(arg % 4), arg & 4 != 0);
                let v = format!("cut-{arg}").into_bytes();
                let acked = t.put(Put::new(&row).add("f", "q", &v)).is_ok();
                let mut with = model.clone();
                with.entry(row).or_default().0 = Some(v);
                drop(t);
                drop(db.take());
                fault.crash().expect("over mem");
                db = Some(open());
                let got = read(db.as_ref().expect("db"));
                if acked {
                    same(&got, &with, "acknowledged put lost after a power cut");
                } else {
                    assert!(got == model || got == with, "after a power cut: {got:?}");
                }
                model = got;
            }
        }
    }
    let d = db.as_ref().expect("db");
    same(&read(d), &model, "at the end");
    let t = d.table("t").expect("table t");
    for (row, (q, _)) in &model {
        let got = t.get(Get::new(row)).expect("get");
        assert_eq!(got.value("f", "q").map(<[u8]>::to_vec), *q);
    }
}
