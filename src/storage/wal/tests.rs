//! Tests of the WAL writer and replay (record framing is tested in `record.rs`).

use super::segment::{self, segment_path};
use super::*;
use crate::base::error::Error;
use crate::base::io::{
    FileKind, FileLock, FileSystem, ReadAtFile, ReadableFile, StdFs, WritableFile,
};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// A deterministic payload for `seq` (0..=100 bytes).
fn payload(seq: u64) -> Vec<u8> {
    let mut r = Rng(seq);
    let n = (r.next() % 101) as usize;
    (0..n).map(|_| r.next() as u8).collect()
}

fn std_fs() -> Arc<dyn FileSystem> {
    Arc::new(StdFs)
}

/// Replayed entries: `(seq, payload)` in file order.
type Entries = Vec<(u64, Vec<u8>)>;

fn replay_all(dir: &Path) -> crate::Result<(Entries, ReplayInfo)> {
    let mut out = Vec::new();
    let info = replay(&StdFs, dir, |seq, p| {
        out.push((seq, p.to_vec()));
        Ok(())
    })?;
    Ok((out, info))
}

fn expect_seqs(got: &[(u64, Vec<u8>)], want: impl IntoIterator<Item = u64>) {
    let want: Vec<u64> = want.into_iter().collect();
    let seqs: Vec<u64> = got.iter().map(|(s, _)| *s).collect();
    assert_eq!(seqs, want);
    for (s, p) in got {
        assert_eq!(p, &payload(*s), "payload of seq {s}");
    }
}

/// Replaces a file's contents (through the filesystem seam, like the engine).
fn write_file(path: &Path, bytes: &[u8]) {
    let mut f = StdFs.create(path).unwrap();
    f.append(bytes).unwrap();
    f.sync_data().unwrap();
}

fn small(segment_size: u64) -> WalOptions {
    WalOptions {
        segment_size,
        ..WalOptions::default()
    }
}

#[test]
fn every_sync_level_round_trips_through_replay() {
    for level in [WalSync::Buffered, WalSync::Write, WalSync::Fsync] {
        let dir = tempfile::tempdir().unwrap();
        let wal =
            Wal::create(std_fs(), dir.path().to_path_buf(), 1, WalOptions::default()).unwrap();
        for seq in 1..=100 {
            wal.append(&payload(seq), seq, level).unwrap();
        }
        wal.close().unwrap();
        assert!(matches!(wal.append(b"x", 101, level), Err(Error::Closed)));
        wal.close().unwrap();
        let (got, info) = replay_all(dir.path()).unwrap();
        expect_seqs(&got, 1..=100);
        assert_eq!(info.segments, vec![(1, 100)]);
        assert_eq!(info.last_segment_id, 1);
        assert!(!info.torn_tail_truncated);
    }
}

#[test]
fn buffered_entries_appear_after_flush_buffered() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 5, WalOptions::default()).unwrap();
    for seq in 1..=10 {
        wal.append(&payload(seq), seq, WalSync::Buffered).unwrap();
    }
    assert_eq!(wal.write_count(), 0);
    let (got, info) = replay_all(dir.path()).unwrap();
    assert!(got.is_empty());
    assert_eq!(info.segments, vec![(5, 0)]);
    wal.flush_buffered().unwrap();
    let (got, _) = replay_all(dir.path()).unwrap();
    expect_seqs(&got, 1..=10);
    // A Write append carries earlier Buffered ones with it.
    wal.append(&payload(11), 11, WalSync::Buffered).unwrap();
    wal.append(&payload(12), 12, WalSync::Write).unwrap();
    expect_seqs(&replay_all(dir.path()).unwrap().0, 1..=12);
    let syncs = wal.sync_count();
    wal.sync().unwrap();
    assert_eq!(wal.sync_count(), syncs + 1);
    wal.sync().unwrap();
    assert_eq!(wal.sync_count(), syncs + 1, "nothing new to sync");
}

#[test]
fn buffered_queue_is_written_inline_past_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let opts = WalOptions {
        async_buffer_limit: 1000,
        ..WalOptions::default()
    };
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 1, opts).unwrap();
    let big = vec![7u8; 300];
    for seq in 1..=4 {
        wal.append(&big, seq, WalSync::Buffered).unwrap();
    }
    // 4 × 317 bytes > 1000: the fourth append wrote the queue.
    let mut n = 0;
    replay(&StdFs, dir.path(), |_, _| {
        n += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(n, 4);
}

#[test]
fn dropping_a_wal_writes_buffered_entries() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 1, WalOptions::default()).unwrap();
    wal.append(&payload(1), 1, WalSync::Buffered).unwrap();
    drop(wal);
    expect_seqs(&replay_all(dir.path()).unwrap().0, [1]);
}

#[test]
fn segments_roll_at_the_size_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 1, small(500)).unwrap();
    for seq in 1..=200 {
        wal.append(&payload(seq), seq, WalSync::Write).unwrap();
    }
    let live = wal.segments();
    assert!(live.len() > 10, "{} segments", live.len());
    assert_eq!(wal.segment_count(), live.len());
    wal.close().unwrap();
    let (got, info) = replay_all(dir.path()).unwrap();
    expect_seqs(&got, 1..=200);
    let ids: Vec<u64> = live.iter().map(|s| s.id).collect();
    assert_eq!(ids, (1..=live.len() as u64).collect::<Vec<_>>());
    let from_replay: Vec<(u64, u64)> = live.iter().map(|s| (s.id, s.max_seq)).collect();
    assert_eq!(info.segments, from_replay);
    assert_eq!(info.last_segment_id, live.len() as u64);
}

#[test]
fn explicit_roll_closes_the_current_segment() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 1, WalOptions::default()).unwrap();
    wal.roll().unwrap();
    assert_eq!(wal.segment_count(), 1, "nothing appended: no roll");
    wal.append(&payload(1), 1, WalSync::Buffered).unwrap();
    wal.roll().unwrap();
    assert_eq!(wal.current_segment_id(), 2);
    assert_eq!(wal.delete_obsolete(2).unwrap(), 1);
    assert!(!StdFs.exists(&segment_path(dir.path(), 1)));
    wal.append(&payload(2), 2, WalSync::Fsync).unwrap();
    expect_seqs(&replay_all(dir.path()).unwrap().0, [2]);
}

#[test]
fn delete_obsolete_removes_exactly_the_flushed_closed_segments() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 1, small(400)).unwrap();
    for seq in 1..=120 {
        wal.append(&payload(seq), seq, WalSync::Write).unwrap();
    }
    let before = wal.segments();
    assert!(before.len() >= 6);
    let min_unflushed = before[3].max_seq; // segments 0..3 are flushed, segment 3 is not
    let want_deleted: Vec<u64> = before[..before.len() - 1]
        .iter()
        .filter(|s| s.max_seq < min_unflushed)
        .map(|s| s.id)
        .collect();
    assert_eq!(want_deleted.len(), 3);
    assert_eq!(wal.delete_obsolete(min_unflushed).unwrap(), 3);
    for s in &before {
        assert_eq!(
            StdFs.exists(&segment_path(dir.path(), s.id)),
            !want_deleted.contains(&s.id),
            "segment {}",
            s.id
        );
    }
    assert_eq!(wal.segment_count(), before.len() - 3);
    // Everything flushed: every closed segment goes, the current one stays.
    let n = wal.delete_obsolete(u64::MAX).unwrap();
    assert_eq!(n, before.len() - 4);
    assert_eq!(wal.segment_count(), 1);
    assert!(StdFs.exists(&segment_path(dir.path(), wal.current_segment_id())));
    wal.close().unwrap();
    let (got, _) = replay_all(dir.path()).unwrap();
    let first = got.first().map_or(121, |(s, _)| *s);
    expect_seqs(&got, first..=120);
}

#[test]
fn adopted_segments_are_deleted_once_flushed() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 1, small(300)).unwrap();
    for seq in 1..=30 {
        wal.append(&payload(seq), seq, WalSync::Fsync).unwrap();
    }
    drop(wal); // no close: like a crash after the last fsync
    let (got, info) = replay_all(dir.path()).unwrap();
    expect_seqs(&got, 1..=30);
    let old = info.segments.clone();
    assert!(old.len() >= 3);
    let wal = Wal::create(
        std_fs(),
        dir.path().to_path_buf(),
        info.last_segment_id + 1,
        WalOptions::default(),
    )
    .unwrap();
    assert!(matches!(
        wal.adopt_segments(vec![(info.last_segment_id + 1, 5)]),
        Err(Error::InvalidArgument(_))
    ));
    wal.adopt_segments(info.segments).unwrap();
    assert_eq!(wal.segment_count(), old.len() + 1);
    let second_max = old[1].1;
    let first_batch = old.iter().filter(|s| s.1 < second_max).count();
    assert!(first_batch >= 1);
    assert_eq!(wal.delete_obsolete(second_max).unwrap(), first_batch);
    assert_eq!(wal.delete_obsolete(31).unwrap(), old.len() - first_batch);
    assert_eq!(wal.segment_count(), 1);
    wal.append(&payload(31), 31, WalSync::Write).unwrap();
    wal.close().unwrap();
    let (got, info) = replay_all(dir.path()).unwrap();
    expect_seqs(&got, [31]);
    assert_eq!(info.segments, vec![(old.len() as u64 + 1, 31)]);
}

#[test]
fn torn_last_segment_is_truncated_and_replay_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 3, WalOptions::default()).unwrap();
    for seq in 1..=10 {
        wal.append(&payload(seq), seq, WalSync::Write).unwrap();
    }
    wal.close().unwrap();
    drop(wal);
    let path = segment_path(dir.path(), 3);
    let full = StdFs.read_all(&path).unwrap().len() as u64;
    let last_len = 9 + 8 + payload(10).len() as u64;
    StdFs.truncate(&path, full - last_len / 2).unwrap();
    let (got, info) = replay_all(dir.path()).unwrap();
    expect_seqs(&got, 1..=9);
    assert!(info.torn_tail_truncated);
    assert_eq!(info.segments, vec![(3, 9)]);
    assert_eq!(StdFs.read_all(&path).unwrap().len() as u64, full - last_len);
    let (got, info) = replay_all(dir.path()).unwrap();
    expect_seqs(&got, 1..=9);
    assert!(!info.torn_tail_truncated);
}

#[test]
fn every_truncation_of_the_newest_segment_replays_a_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 1, WalOptions::default()).unwrap();
    for seq in 1..=3 {
        wal.append(&payload(seq), seq, WalSync::Write).unwrap();
    }
    wal.close().unwrap();
    let path = segment_path(dir.path(), 1);
    let full = StdFs.read_all(&path).unwrap();
    for cut in 0..=full.len() {
        write_file(&path, &full[..cut]);
        let (got, _) = replay_all(dir.path()).unwrap();
        let n = got.len() as u64;
        expect_seqs(&got, 1..=n);
        let again = replay_all(dir.path()).unwrap();
        assert!(
            !again.1.torn_tail_truncated,
            "cut {cut}: truncation made the file clean"
        );
        assert_eq!(again.0.len() as u64, n);
    }
}

#[test]
fn damage_in_an_older_segment_or_mid_file_is_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 1, small(300)).unwrap();
    for seq in 1..=20 {
        wal.append(&payload(seq), seq, WalSync::Write).unwrap();
    }
    wal.close().unwrap();
    assert!(wal.segment_count() >= 3);
    // Torn tail of an older segment.
    let p1 = segment_path(dir.path(), 1);
    let orig = StdFs.read_all(&p1).unwrap();
    write_file(&p1, &orig[..orig.len() - 3]);
    match replay_all(dir.path()) {
        Err(Error::Corruption { path, .. }) => assert_eq!(path, p1),
        other => panic!("expected corruption, got {other:?}"),
    }
    write_file(&p1, &orig);
    expect_seqs(&replay_all(dir.path()).unwrap().0, 1..=20);

    // A flipped bit in the first entry of a newest segment that has more entries after it.
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 1, WalOptions::default()).unwrap();
    for seq in 1..=5 {
        wal.append(&payload(seq), seq, WalSync::Write).unwrap();
    }
    wal.close().unwrap();
    let last = segment_path(dir.path(), 1);
    let mut d = StdFs.read_all(&last).unwrap();
    d[46 + 9 + 3] ^= 0x10; // the header frame is 9 + 37 bytes; then the entry's seq field
    write_file(&last, &d);
    match replay_all(dir.path()) {
        Err(Error::Corruption { path, detail }) => {
            assert_eq!(path, last);
            assert!(detail.contains("offset 46"), "{detail}");
        }
        other => panic!("expected corruption, got {other:?}"),
    }
}

#[test]
fn replay_ignores_other_files_and_handles_empty_dirs() {
    let dir = tempfile::tempdir().unwrap();
    let (got, info) = replay_all(dir.path()).unwrap();
    assert!(got.is_empty());
    assert_eq!(
        info,
        ReplayInfo {
            segments: vec![],
            last_segment_id: 0,
            torn_tail_truncated: false
        }
    );
    write_file(&dir.path().join("LOCK"), b"junk");
    write_file(&dir.path().join("7.log"), b"junk");
    write_file(&dir.path().join("0000000009.log.tmp"), b"junk");
    // A zero-byte newest segment (crash right after creating it) holds no entries; replay
    // removes it, so it never becomes an older segment without a header.
    write_file(&segment_path(dir.path(), 2), b"");
    let (got, info) = replay_all(dir.path()).unwrap();
    assert!(got.is_empty() && info.segments.is_empty());
    assert!(!segment_path(dir.path(), 2).exists());
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 3, WalOptions::default()).unwrap();
    wal.append(&payload(1), 1, WalSync::Fsync).unwrap();
    drop(wal);
    let (got, info) = replay_all(dir.path()).unwrap();
    expect_seqs(&got, [1]);
    assert_eq!(info.segments, vec![(3, 1)]);
    // An older segment without a header lost its contents: corruption.
    write_file(&segment_path(dir.path(), 2), b"");
    assert!(matches!(
        replay_all(dir.path()),
        Err(Error::Corruption { .. })
    ));
    std::fs::remove_file(segment_path(dir.path(), 2)).unwrap();
    // Creating over an existing segment is refused.
    assert!(Wal::create(std_fs(), dir.path().to_path_buf(), 3, WalOptions::default()).is_err());
}

#[test]
fn newer_format_version_is_unsupported() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = Vec::new();
    let mut p = segment::SEGMENT_MAGIC.to_vec();
    p.extend_from_slice(&3u32.to_be_bytes());
    p.extend_from_slice(&1u64.to_be_bytes());
    record::encode_record(&mut b, segment::REC_SEGMENT_HEADER, &p);
    write_file(&segment_path(dir.path(), 1), &b);
    assert!(matches!(
        replay_all(dir.path()),
        Err(Error::UnsupportedFormat { found: 3, .. })
    ));
}

/// Segments 1..=n written by a WAL that rolls every `segment_size` bytes, entries 1..=20.
fn rolled_log(dir: &Path, segment_size: u64) -> usize {
    let wal = Wal::create(std_fs(), dir.to_path_buf(), 1, small(segment_size)).unwrap();
    for seq in 1..=20 {
        wal.append(&payload(seq), seq, WalSync::Write).unwrap();
    }
    wal.close().unwrap();
    wal.segment_count()
}

/// Offsets at which each complete record of `bytes` ends (after the header frame).
fn record_ends(bytes: &[u8]) -> Vec<u64> {
    let (recs, _) =
        record::read_records(bytes, Path::new("x"), record::TailPolicy::Strict).unwrap();
    recs.iter()
        .map(|r| r.offset + (record::HEADER_LEN + r.payload.len()) as u64)
        .collect()
}

#[test]
fn older_segment_cut_at_a_record_boundary_is_corruption_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let n = rolled_log(dir.path(), 300);
    assert!(n >= 3, "{n} segments");
    // Every older segment, cut at every record boundary (header included), and grown by one
    // valid-looking record: corruption naming that segment and the offset.
    for id in 1..n as u64 {
        let p = segment_path(dir.path(), id);
        let orig = StdFs.read_all(&p).unwrap();
        let ends = record_ends(&orig);
        assert!(ends.len() >= 2);
        for &end in &ends[..ends.len() - 1] {
            write_file(&p, &orig[..end as usize]);
            match replay_all(dir.path()) {
                Err(Error::Corruption { path, detail }) => {
                    assert_eq!(path, p);
                    assert!(
                        detail.contains(&format!("missing from offset {end}")),
                        "{detail}"
                    );
                }
                other => panic!("segment {id} cut at {end}: expected corruption, got {other:?}"),
            }
        }
        let mut longer = orig.clone();
        record::encode_record(&mut longer, segment::REC_ENTRY, &99u64.to_be_bytes());
        write_file(&p, &longer);
        match replay_all(dir.path()) {
            Err(Error::Corruption { path, detail }) => {
                assert_eq!(path, p);
                assert!(
                    detail.contains(&format!("unexpected bytes from offset {}", orig.len())),
                    "{detail}"
                );
            }
            other => panic!("segment {id} grown: expected corruption, got {other:?}"),
        }
        write_file(&p, &orig);
    }
    expect_seqs(&replay_all(dir.path()).unwrap().0, 1..=20);
}

#[test]
fn segment_headers_link_to_the_previous_segment_and_its_length() {
    let dir = tempfile::tempdir().unwrap();
    let n = rolled_log(dir.path(), 300) as u64;
    let first = StdFs.read_all(&segment_path(dir.path(), 1)).unwrap();
    let (recs, _) =
        record::read_records(&first, Path::new("x"), record::TailPolicy::Strict).unwrap();
    assert_eq!(
        segment::check_segment_header(recs[0].payload, Path::new("x"), 1, 0).unwrap(),
        None
    );
    for id in 2..=n {
        let b = StdFs.read_all(&segment_path(dir.path(), id)).unwrap();
        let (recs, _) =
            record::read_records(&b, Path::new("x"), record::TailPolicy::Strict).unwrap();
        let prev_len = StdFs
            .read_all(&segment_path(dir.path(), id - 1))
            .unwrap()
            .len() as u64;
        assert_eq!(
            segment::check_segment_header(recs[0].payload, Path::new("x"), id, 0).unwrap(),
            Some(segment::PrevSegment {
                id: id - 1,
                len: prev_len
            })
        );
    }
    // A WAL created after replay links to the newest older segment, skipping gaps.
    let (_, info) = replay_all(dir.path()).unwrap();
    let wal = Wal::create(
        std_fs(),
        dir.path().to_path_buf(),
        info.last_segment_id + 5,
        WalOptions::default(),
    )
    .unwrap();
    wal.append(&payload(21), 21, WalSync::Fsync).unwrap();
    wal.close().unwrap();
    let b = StdFs
        .read_all(&segment_path(dir.path(), info.last_segment_id + 5))
        .unwrap();
    let (recs, _) = record::read_records(&b, Path::new("x"), record::TailPolicy::Strict).unwrap();
    let last_len = StdFs.read_all(&segment_path(dir.path(), n)).unwrap().len() as u64;
    assert_eq!(
        segment::check_segment_header(recs[0].payload, Path::new("x"), n + 5, 0).unwrap(),
        Some(segment::PrevSegment {
            id: n,
            len: last_len
        })
    );
    expect_seqs(&replay_all(dir.path()).unwrap().0, 1..=21);
    // Changing the length of the segment before it is now caught too (segment n may hold only
    // its header, so grow it by one record).
    let p = segment_path(dir.path(), n);
    let mut grown = StdFs.read_all(&p).unwrap();
    record::encode_record(&mut grown, segment::REC_ENTRY, &99u64.to_be_bytes());
    write_file(&p, &grown);
    assert!(matches!(
        replay_all(dir.path()),
        Err(Error::Corruption { path, .. }) if path == p
    ));
}

#[test]
fn a_missing_predecessor_is_not_checked() {
    // Segments deleted once flushed: the oldest remaining segment's link names a segment that
    // is gone, which is fine.
    let dir = tempfile::tempdir().unwrap();
    let n = rolled_log(dir.path(), 300);
    std::fs::remove_file(segment_path(dir.path(), 1)).unwrap();
    let (got, info) = replay_all(dir.path()).unwrap();
    assert_eq!(info.segments.len(), n - 1);
    assert!(!got.is_empty());
}

#[test]
fn version_1_segments_still_replay_without_a_link_check() {
    // Two version-1 segments as the old code wrote them: entries 1..=3 and 4..=6.
    let dir = tempfile::tempdir().unwrap();
    let seg = |id: u64, seqs: std::ops::RangeInclusive<u64>| {
        let mut b = Vec::new();
        segment::encode_segment_header_v1(&mut b, id);
        for s in seqs {
            let mut e = s.to_be_bytes().to_vec();
            e.extend_from_slice(&payload(s));
            record::encode_record(&mut b, segment::REC_ENTRY, &e);
        }
        b
    };
    let s1 = seg(1, 1..=3);
    let s2 = seg(2, 4..=6);
    write_file(&segment_path(dir.path(), 1), &s1);
    write_file(&segment_path(dir.path(), 2), &s2);
    let (got, info) = replay_all(dir.path()).unwrap();
    expect_seqs(&got, 1..=6);
    assert_eq!(info.segments, vec![(1, 3), (2, 6)]);
    // Without the link, an older version-1 segment cut at a record boundary is undetectable
    // (the gap version 2 closes): replay returns the shorter log.
    let ends = record_ends(&s1);
    write_file(&segment_path(dir.path(), 1), &s1[..ends[2] as usize]);
    expect_seqs(&replay_all(dir.path()).unwrap().0, [1, 2, 4, 5, 6]);
    // A new (version 2) WAL started after them links to segment 2 and checks it.
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 3, WalOptions::default()).unwrap();
    wal.append(&payload(7), 7, WalSync::Fsync).unwrap();
    wal.close().unwrap();
    expect_seqs(&replay_all(dir.path()).unwrap().0, [1, 2, 4, 5, 6, 7]);
    let ends2 = record_ends(&s2);
    write_file(&segment_path(dir.path(), 2), &s2[..ends2[2] as usize]);
    assert!(matches!(
        replay_all(dir.path()),
        Err(Error::Corruption { path, .. }) if path == segment_path(dir.path(), 2)
    ));
}

#[test]
fn visit_error_aborts_replay() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 1, WalOptions::default()).unwrap();
    for seq in 1..=5 {
        wal.append(&payload(seq), seq, WalSync::Write).unwrap();
    }
    let mut seen = 0;
    let r = replay(&StdFs, dir.path(), |seq, _| {
        seen += 1;
        if seq == 3 {
            Err(Error::invalid("stop"))
        } else {
            Ok(())
        }
    });
    assert!(matches!(r, Err(Error::InvalidArgument(_))));
    assert_eq!(seen, 3);
}

#[test]
fn concurrent_fsync_appends_are_all_replayed_once() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Arc::new(
        Wal::create(std_fs(), dir.path().to_path_buf(), 1, WalOptions::default()).unwrap(),
    );
    let threads: Vec<_> = (0..8u64)
        .map(|t| {
            let wal = Arc::clone(&wal);
            std::thread::spawn(move || {
                for i in 0..200u64 {
                    let seq = 1 + t * 200 + i;
                    wal.append(&payload(seq), seq, WalSync::Fsync).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    println!(
        "8 threads x 200 Fsync appends: {} fdatasync calls, {} writes for 1600 appends",
        wal.sync_count(),
        wal.write_count()
    );
    wal.close().unwrap();
    let (mut got, info) = replay_all(dir.path()).unwrap();
    got.sort_by_key(|(s, _)| *s);
    expect_seqs(&got, 1..=1600);
    assert_eq!(info.segments, vec![(1, 1600)]);
}

#[test]
fn concurrent_mixed_levels_with_rolls_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let opts = WalOptions {
        segment_size: 2048,
        async_buffer_limit: 512,
        // Background syncs race the rolls and appends.
        sync_ahead: 700,
    };
    let wal = Arc::new(Wal::create(std_fs(), dir.path().to_path_buf(), 1, opts).unwrap());
    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            let wal = Arc::clone(&wal);
            std::thread::spawn(move || {
                let mut rng = Rng(t);
                for i in 0..250u64 {
                    let seq = 1 + t * 250 + i;
                    let level = match rng.next() % 10 {
                        0 => WalSync::Fsync,
                        1..=5 => WalSync::Write,
                        _ => WalSync::Buffered,
                    };
                    wal.append(&payload(seq), seq, level).unwrap();
                    if rng.next().is_multiple_of(50) {
                        wal.delete_obsolete(0).unwrap();
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    wal.close().unwrap();
    let live: Vec<(u64, u64)> = wal.segments().iter().map(|s| (s.id, s.max_seq)).collect();
    let (mut got, info) = replay_all(dir.path()).unwrap();
    assert_eq!(info.segments, live);
    assert!(live.len() > 5);
    got.sort_by_key(|(s, _)| *s);
    expect_seqs(&got, 1..=1000);
}

/// What reached a segment file: every appended byte, and how many of them the last
/// `fdatasync` covered.
#[derive(Default)]
struct Audit {
    written: Vec<u8>,
    synced: usize,
}

/// StdFs recording what its files' appends and syncs covered.
#[derive(Debug, Clone)]
struct AuditFs(Arc<parking_lot::Mutex<Audit>>);

impl std::fmt::Debug for Audit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Audit({} written, {} synced)",
            self.written.len(),
            self.synced
        )
    }
}

struct AuditFile(Box<dyn WritableFile>, Arc<parking_lot::Mutex<Audit>>);

impl WritableFile for AuditFile {
    fn append(&mut self, data: &[u8]) -> std::io::Result<()> {
        self.0.append(data)?;
        self.1.lock().written.extend_from_slice(data);
        Ok(())
    }
    fn sync_data(&mut self) -> std::io::Result<()> {
        // Only bytes appended before the call are covered.
        let before = self.1.lock().written.len();
        self.0.sync_data()?;
        let mut a = self.1.lock();
        a.synced = a.synced.max(before);
        Ok(())
    }
    fn len(&self) -> u64 {
        self.0.len()
    }
    fn preallocate(&mut self, len: u64) -> std::io::Result<()> {
        self.0.preallocate(len)
    }
}

impl FileSystem for AuditFs {
    fn create_dir_all(&self, path: &Path) -> std::io::Result<()> {
        StdFs.create_dir_all(path)
    }
    fn create(&self, path: &Path) -> std::io::Result<Box<dyn WritableFile>> {
        Ok(Box::new(AuditFile(
            StdFs.create(path)?,
            Arc::clone(&self.0),
        )))
    }
    fn open_append(&self, path: &Path) -> std::io::Result<Box<dyn WritableFile>> {
        Ok(Box::new(AuditFile(
            StdFs.open_append(path)?,
            Arc::clone(&self.0),
        )))
    }
    fn open_read(&self, path: &Path) -> std::io::Result<Arc<dyn ReadableFile>> {
        StdFs.open_read(path)
    }
    fn open_read_at(&self, path: &Path) -> std::io::Result<Box<dyn ReadAtFile>> {
        StdFs.open_read_at(path)
    }
    fn read_all(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        StdFs.read_all(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> std::io::Result<()> {
        StdFs.rename(from, to)
    }
    fn remove(&self, path: &Path) -> std::io::Result<()> {
        StdFs.remove(path)
    }
    fn truncate(&self, path: &Path, len: u64) -> std::io::Result<()> {
        StdFs.truncate(path, len)
    }
    fn list(&self, dir: &Path) -> std::io::Result<Vec<String>> {
        StdFs.list(dir)
    }
    fn exists(&self, path: &Path) -> bool {
        StdFs.exists(path)
    }
    fn sync_dir(&self, dir: &Path) -> std::io::Result<()> {
        StdFs.sync_dir(dir)
    }
    fn lock(&self, path: &Path) -> std::io::Result<Box<dyn FileLock>> {
        StdFs.lock(path)
    }
    fn lock_dir(&self, d: &Path) -> std::io::Result<Box<dyn FileLock>> {
        StdFs.lock_dir(d)
    }
    fn kind(&self, p: &Path) -> std::io::Result<FileKind> {
        StdFs.kind(p)
    }
    fn hard_link(&self, from: &Path, to: &Path) -> std::io::Result<()> {
        StdFs.hard_link(from, to)
    }
    fn lock_held(&self, p: &Path) -> bool {
        StdFs.lock_held(p)
    }
}

/// A WAL in `dir` (default options) over an [`AuditFs`], with the audit record.
fn audited_wal(dir: &Path) -> (Arc<parking_lot::Mutex<Audit>>, Arc<Wal>) {
    let audit = Arc::new(parking_lot::Mutex::new(Audit::default()));
    let fs: Arc<dyn FileSystem> = Arc::new(AuditFs(Arc::clone(&audit)));
    let wal = Wal::create(fs, dir.to_path_buf(), 1, WalOptions::default()).unwrap();
    (audit, Arc::new(wal))
}

/// The durability promise under group commit: an Fsync append returns only after an
/// fdatasync that started after its entry was written, a Write append only after its entry
/// was written (8 threads, mixed levels, one segment).
#[test]
fn concurrent_appends_return_only_once_covered() {
    let dir = tempfile::tempdir().unwrap();
    let (audit, wal) = audited_wal(dir.path());
    let threads: Vec<_> = (0..8u64)
        .map(|t| {
            let (wal, audit) = (Arc::clone(&wal), Arc::clone(&audit));
            std::thread::spawn(move || {
                let mut rng = Rng(t);
                for i in 0..100u64 {
                    let seq = 1 + t * 100 + i;
                    let mut entry = b"audited entry ".to_vec();
                    entry.extend_from_slice(&seq.to_be_bytes());
                    let level = if rng.next().is_multiple_of(3) {
                        WalSync::Write
                    } else {
                        WalSync::Fsync
                    };
                    wal.append(&entry, seq, level).unwrap();
                    let a = audit.lock();
                    let covered = match level {
                        WalSync::Fsync => &a.written[..a.synced],
                        _ => &a.written[..],
                    };
                    assert!(
                        covered.windows(entry.len()).any(|w| w == entry),
                        "seq {seq} ({level:?}) returned before it was covered ({a:?})"
                    );
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    wal.close().unwrap();
    let a = audit.lock();
    assert_eq!(a.synced, a.written.len());
}

/// Appends `per_thread` Fsync entries from each of `threads` threads; returns appends/s and the
/// number of fdatasync calls.
fn fsync_rate(threads: u64, per_thread: u64) -> (f64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let wal = Arc::new(
        Wal::create(std_fs(), dir.path().to_path_buf(), 1, WalOptions::default()).unwrap(),
    );
    let start = Instant::now();
    let hs: Vec<_> = (0..threads)
        .map(|t| {
            let wal = Arc::clone(&wal);
            std::thread::spawn(move || {
                let p = [0x5au8; 100];
                for i in 0..per_thread {
                    wal.append(&p, 1 + t * per_thread + i, WalSync::Fsync)
                        .unwrap();
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    let secs = start.elapsed().as_secs_f64();
    ((threads * per_thread) as f64 / secs, wal.sync_count())
}

/// Runs `rounds` alternating 1-thread and 8-thread runs and prints the medians (no assertion).
fn print_group_commit_ratio(rounds: usize, one_n: u64, eight_n: u64) {
    let (mut ones, mut eights, mut s1, mut s8) = (Vec::new(), Vec::new(), 0, 0);
    for _ in 0..rounds {
        let (r, s) = fsync_rate(1, one_n);
        ones.push(r);
        s1 += s;
        let (r, s) = fsync_rate(8, eight_n);
        eights.push(r);
        s8 += s;
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (one, eight) = (median(&mut ones), median(&mut eights));
    println!(
        "Fsync appends/s (median of {rounds}): 1 thread {one:.0}, 8 threads {eight:.0}, ratio \
         {:.2}; appends per fdatasync: 1 thread {:.2}, 8 threads {:.2}",
        eight / one,
        (rounds as u64 * one_n) as f64 / s1 as f64,
        (rounds as u64 * 8 * eight_n) as f64 / s8 as f64,
    );
}

/// Not an assertion: prints the group-commit speed-up (8 threads vs 1 thread, Fsync appends/s).
/// `cargo test --release --lib fsync_group_commit_bench -- --ignored --nocapture` runs a
/// longer version.
#[test]
fn fsync_group_commit_throughput() {
    print_group_commit_ratio(3, 100, 50);
}

#[test]
#[ignore = "benchmark; run by hand"]
fn fsync_group_commit_bench() {
    print_group_commit_ratio(9, 500, 250);
}

// ---- poisoning ----------------------------------------------------------------------------

#[derive(Debug, Default)]
struct Faults {
    fail_write: AtomicBool,
    fail_sync: AtomicBool,
    fail_create: AtomicBool,
}

/// StdFs with switches that make the next write, sync or file creation fail.
#[derive(Debug, Clone)]
struct FailFs {
    faults: Arc<Faults>,
}

struct FailFile {
    inner: Box<dyn WritableFile>,
    faults: Arc<Faults>,
}

fn injected() -> std::io::Error {
    std::io::Error::other("injected fault")
}

impl WritableFile for FailFile {
    fn append(&mut self, data: &[u8]) -> std::io::Result<()> {
        if self.faults.fail_write.swap(false, Ordering::SeqCst) {
            // A torn write: half the bytes reach the file.
            self.inner.append(&data[..data.len() / 2])?;
            return Err(injected());
        }
        self.inner.append(data)
    }
    fn sync_data(&mut self) -> std::io::Result<()> {
        if self.faults.fail_sync.swap(false, Ordering::SeqCst) {
            return Err(injected());
        }
        self.inner.sync_data()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn preallocate(&mut self, len: u64) -> std::io::Result<()> {
        self.inner.preallocate(len)
    }
}

impl FileSystem for FailFs {
    fn create_dir_all(&self, path: &Path) -> std::io::Result<()> {
        StdFs.create_dir_all(path)
    }
    fn create(&self, path: &Path) -> std::io::Result<Box<dyn WritableFile>> {
        if self.faults.fail_create.swap(false, Ordering::SeqCst) {
            return Err(injected());
        }
        Ok(Box::new(FailFile {
            inner: StdFs.create(path)?,
            faults: Arc::clone(&self.faults),
        }))
    }
    fn open_append(&self, path: &Path) -> std::io::Result<Box<dyn WritableFile>> {
        Ok(Box::new(FailFile {
            inner: StdFs.open_append(path)?,
            faults: Arc::clone(&self.faults),
        }))
    }
    fn open_read(&self, path: &Path) -> std::io::Result<Arc<dyn ReadableFile>> {
        StdFs.open_read(path)
    }
    fn open_read_at(&self, path: &Path) -> std::io::Result<Box<dyn ReadAtFile>> {
        StdFs.open_read_at(path)
    }
    fn read_all(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        StdFs.read_all(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> std::io::Result<()> {
        StdFs.rename(from, to)
    }
    fn remove(&self, path: &Path) -> std::io::Result<()> {
        StdFs.remove(path)
    }
    fn truncate(&self, path: &Path, len: u64) -> std::io::Result<()> {
        StdFs.truncate(path, len)
    }
    fn list(&self, dir: &Path) -> std::io::Result<Vec<String>> {
        StdFs.list(dir)
    }
    fn exists(&self, path: &Path) -> bool {
        StdFs.exists(path)
    }
    fn sync_dir(&self, dir: &Path) -> std::io::Result<()> {
        StdFs.sync_dir(dir)
    }
    fn lock(&self, path: &Path) -> std::io::Result<Box<dyn FileLock>> {
        StdFs.lock(path)
    }
    fn lock_dir(&self, d: &Path) -> std::io::Result<Box<dyn FileLock>> {
        StdFs.lock_dir(d)
    }
    fn kind(&self, p: &Path) -> std::io::Result<FileKind> {
        StdFs.kind(p)
    }
    fn hard_link(&self, from: &Path, to: &Path) -> std::io::Result<()> {
        StdFs.hard_link(from, to)
    }
    fn lock_held(&self, p: &Path) -> bool {
        StdFs.lock_held(p)
    }
}

fn fail_fs() -> (Arc<dyn FileSystem>, Arc<Faults>) {
    let faults = Arc::new(Faults::default());
    (
        Arc::new(FailFs {
            faults: Arc::clone(&faults),
        }),
        faults,
    )
}

fn assert_poisoned(r: crate::Result<()>) {
    assert!(
        matches!(r, Err(Error::Poisoned(_))),
        "expected Poisoned, got {r:?}"
    );
}

#[test]
fn failed_sync_poisons_the_wal() {
    let dir = tempfile::tempdir().unwrap();
    let (fs, faults) = fail_fs();
    let wal = Wal::create(fs, dir.path().to_path_buf(), 1, WalOptions::default()).unwrap();
    wal.append(&payload(1), 1, WalSync::Fsync).unwrap();
    faults.fail_sync.store(true, Ordering::SeqCst);
    assert!(wal.append(&payload(2), 2, WalSync::Fsync).is_err());
    assert!(wal.is_poisoned());
    // No retry: the next calls fail without touching the file, at every level.
    for level in [WalSync::Buffered, WalSync::Write, WalSync::Fsync] {
        assert_poisoned(wal.append(&payload(3), 3, level));
    }
    assert_poisoned(wal.sync());
    assert_poisoned(wal.close());
    drop(wal);
    // Reopen: the entry written before the failed sync is still in the file.
    let (got, _) = replay_all(dir.path()).unwrap();
    assert!(got.len() <= 2);
    expect_seqs(&got, 1..=got.len() as u64);
}

#[test]
fn failed_write_poisons_the_wal_and_leaves_a_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    let (fs, faults) = fail_fs();
    let wal = Wal::create(fs, dir.path().to_path_buf(), 1, WalOptions::default()).unwrap();
    wal.append(&payload(1), 1, WalSync::Write).unwrap();
    wal.append(&payload(2), 2, WalSync::Buffered).unwrap();
    faults.fail_write.store(true, Ordering::SeqCst);
    let e = wal.append(&payload(3), 3, WalSync::Write).unwrap_err();
    assert!(
        matches!(&e, Error::Poisoned(m) if m.contains("injected fault")),
        "{e}"
    );
    assert_poisoned(wal.append(&payload(4), 4, WalSync::Buffered));
    assert_poisoned(wal.flush_buffered());
    drop(wal);
    // Half of the failed batch may have reached the file: replay sees a prefix.
    let (got, _) = replay_all(dir.path()).unwrap();
    assert!(!got.is_empty() && got.len() <= 2);
    expect_seqs(&got, 1..=got.len() as u64);
}

#[test]
fn failed_roll_poisons_the_wal() {
    let dir = tempfile::tempdir().unwrap();
    let (fs, faults) = fail_fs();
    let wal = Wal::create(fs, dir.path().to_path_buf(), 1, small(100)).unwrap();
    faults.fail_create.store(true, Ordering::SeqCst);
    let mut failed = None;
    for seq in 1..=20 {
        if let Err(e) = wal.append(&payload(seq), seq, WalSync::Write) {
            failed = Some((seq, e));
            break;
        }
    }
    let (seq, e) = failed.expect("the roll should have failed");
    assert!(matches!(e, Error::Poisoned(_)));
    assert_poisoned(wal.append(&payload(seq + 1), seq + 1, WalSync::Buffered));
    drop(wal);
    // Everything written before the failed roll was written and synced.
    expect_seqs(&replay_all(dir.path()).unwrap().0, 1..=seq);
}

#[test]
fn followers_of_a_failed_batch_see_poisoned() {
    let dir = tempfile::tempdir().unwrap();
    let (fs, faults) = fail_fs();
    let wal =
        Arc::new(Wal::create(fs, dir.path().to_path_buf(), 1, WalOptions::default()).unwrap());
    faults.fail_sync.store(true, Ordering::SeqCst);
    let hs: Vec<_> = (0..4u64)
        .map(|t| {
            let wal = Arc::clone(&wal);
            std::thread::spawn(move || {
                let mut errs = 0;
                for i in 0..20 {
                    if wal.append(b"x", t * 20 + i + 1, WalSync::Fsync).is_err() {
                        errs += 1;
                    }
                }
                errs
            })
        })
        .collect();
    let errs: u32 = hs.into_iter().map(|h| h.join().unwrap()).sum();
    assert!(errs >= 1);
    assert!(wal.is_poisoned());
    assert_poisoned(wal.append(b"y", 100, WalSync::Write));
}

#[test]
fn wal_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Wal>();
}

// Preallocation: the current segment has a zero tail past its last record.

/// Physical size of a file on the real filesystem.
fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().len()
}

#[test]
fn preallocated_tail_is_the_end_of_the_newest_segment_not_a_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 1, WalOptions::default()).unwrap();
    for seq in 1..=10 {
        wal.append(&payload(seq), seq, WalSync::Fsync).unwrap();
    }
    let path = segment_path(dir.path(), 1);
    // The writer's process dies: the segment keeps its preallocated zero tail.
    drop(wal);
    let size = file_size(&path);
    assert!(size >= 256 << 10, "preallocated to {size} bytes");
    let (got, info) = replay_all(dir.path()).unwrap();
    expect_seqs(&got, 1..=10);
    assert!(!info.torn_tail_truncated, "a zero tail is not a torn tail");
    let trimmed = file_size(&path);
    assert!(trimmed < 4096, "replay cut the zero tail: {trimmed} bytes");
    assert_eq!(
        record_ends(&StdFs.read_all(&path).unwrap()).last().copied(),
        Some(trimmed)
    );
    // The next log links to the trimmed length, and both replay cleanly.
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 2, WalOptions::default()).unwrap();
    wal.append(&payload(11), 11, WalSync::Fsync).unwrap();
    drop(wal);
    let (got, info) = replay_all(dir.path()).unwrap();
    expect_seqs(&got, 1..=11);
    assert!(!info.torn_tail_truncated);
}

#[test]
fn a_torn_record_before_the_zero_tail_is_a_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 1, WalOptions::default()).unwrap();
    for seq in 1..=5 {
        wal.append(&payload(seq), seq, WalSync::Fsync).unwrap();
    }
    drop(wal);
    let path = segment_path(dir.path(), 1);
    let mut bytes = StdFs.read_all(&path).unwrap();
    let ends = {
        let (recs, valid) =
            record::read_records(&bytes, Path::new("x"), record::TailPolicy::TornTailAllowed)
                .unwrap();
        assert_eq!(recs.len(), 6);
        valid as usize
    };
    // The last record's second half never reached the disk (zeros, as in the preallocation).
    let last = 9 + 8 + payload(5).len();
    bytes[ends - last / 2..ends].fill(0);
    StdFs.truncate(&path, 0).unwrap();
    write_file(&path, &bytes);
    let (got, info) = replay_all(dir.path()).unwrap();
    expect_seqs(&got, 1..=4);
    assert!(info.torn_tail_truncated);
    assert_eq!(file_size(&path) as usize, ends - last);
}

#[test]
fn rolled_and_closed_segments_are_trimmed_to_their_records() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::create(std_fs(), dir.path().to_path_buf(), 1, small(2000)).unwrap();
    for seq in 1..=60 {
        wal.append(&payload(seq), seq, WalSync::Write).unwrap();
    }
    assert!(wal.segment_count() > 2);
    let current = wal.current_segment_id();
    for id in 1..current {
        let path = segment_path(dir.path(), id);
        let bytes = StdFs.read_all(&path).unwrap();
        assert_eq!(
            record_ends(&bytes).last().copied(),
            Some(bytes.len() as u64),
            "closed segment {id} ends at its last record"
        );
    }
    // The current segment is preallocated up to the segment size once it holds an entry.
    wal.append(&payload(61), 61, WalSync::Write).unwrap();
    assert_eq!(wal.current_segment_id(), current);
    assert_eq!(file_size(&segment_path(dir.path(), current)), 2000);
    wal.close().unwrap();
    let bytes = StdFs.read_all(&segment_path(dir.path(), current)).unwrap();
    assert_eq!(
        record_ends(&bytes).last().copied(),
        Some(bytes.len() as u64)
    );
    let (got, info) = replay_all(dir.path()).unwrap();
    expect_seqs(&got, 1..=61);
    assert!(!info.torn_tail_truncated);
}

#[test]
fn an_older_segment_with_a_zero_tail_is_corruption() {
    let dir = tempfile::tempdir().unwrap();
    assert!(rolled_log(dir.path(), 300) >= 3);
    let path = segment_path(dir.path(), 1);
    let mut bytes = StdFs.read_all(&path).unwrap();
    let len = bytes.len();
    bytes.resize(len + 4096, 0);
    write_file(&path, &bytes);
    match replay_all(dir.path()) {
        Err(Error::Corruption { path: p, detail }) => {
            assert_eq!(p, path);
            assert!(detail.contains(&format!("offset {len}")), "{detail}");
        }
        other => panic!("expected corruption, got {other:?}"),
    }
}

#[test]
fn preallocation_grows_in_bounded_chunks() {
    let t = |end| super::writer::preallocation_target(end, 64 << 20);
    assert_eq!(t(100), Some(100 + (256 << 10)));
    assert_eq!(t(4 << 20), Some(5 << 20));
    assert_eq!(t(40 << 20), Some(44 << 20));
    assert_eq!(t(63 << 20), Some(64 << 20));
    assert_eq!(t(64 << 20), None);
    assert_eq!(super::writer::preallocation_target(100, 1000), Some(1000));
}

/// Appends `n` Fsync entries to a WAL over `fault` (small segments, so it preallocates, trims
/// and rolls), stopping at the first error; returns the sequence ids acknowledged.
fn fsync_until_failure(fault: &crate::base::io::FaultFs, n: u64) -> Vec<u64> {
    let fs: Arc<dyn FileSystem> = Arc::new(fault.clone());
    let dir = Path::new("/wal");
    let Ok(wal) = Wal::create(fs, dir.to_path_buf(), 1, small(700)) else {
        return Vec::new();
    };
    let mut acked = Vec::new();
    for seq in 1..=n {
        if wal.append(&payload(seq), seq, WalSync::Fsync).is_err() {
            break;
        }
        acked.push(seq);
    }
    acked
}

/// Replays `/wal` on `mem` and checks it holds a prefix of 1..=n that covers `acked`.
fn check_recovered(mem: &crate::base::io::MemFs, acked: &[u64], n: u64, what: &str) {
    let mut got = Vec::new();
    let info = replay(mem, Path::new("/wal"), |seq, p| {
        got.push((seq, p.to_vec()));
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{what}: replay failed: {e:?}"));
    let k = got.len() as u64;
    assert!(k <= n, "{what}");
    expect_seqs(&got, 1..=k);
    assert!(k >= acked.len() as u64, "{what}: lost acknowledged entries");
    // Replay left a clean log: a second replay finds the same and no torn tail, and a new log
    // can follow it.
    let mut again = Vec::new();
    let info2 = replay(mem, Path::new("/wal"), |seq, p| {
        again.push((seq, p.to_vec()));
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{what}: second replay failed: {e:?}"));
    assert_eq!(again, got, "{what}");
    assert!(!info2.torn_tail_truncated, "{what}");
    let next = info.last_segment_id + 1;
    let wal = Wal::create(
        Arc::new(mem.clone()),
        Path::new("/wal").to_path_buf(),
        next,
        small(700),
    )
    .unwrap_or_else(|e| panic!("{what}: reopen failed: {e:?}"));
    wal.append(&payload(k + 1), k + 1, WalSync::Fsync).unwrap();
    drop(wal);
    let mut third = Vec::new();
    replay(mem, Path::new("/wal"), |seq, p| {
        third.push((seq, p.to_vec()));
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{what}: replay after reopen failed: {e:?}"));
    expect_seqs(&third, 1..=k + 1);
}

#[test]
fn power_loss_at_every_operation_keeps_acknowledged_entries() {
    // Covers a crash with a preallocated tail, during a preallocation, and at every step of a
    // roll (trim of the old segment, creation, header, syncs of the new one).
    const N: u64 = 30;
    let total = {
        let mem = crate::base::io::MemFs::new();
        mem.create_dir_all(Path::new("/wal")).unwrap();
        let fault = crate::base::io::FaultFs::over_mem(mem);
        assert_eq!(fsync_until_failure(&fault, N).len() as u64, N);
        fault.mutating_ops()
    };
    for at in 0..total {
        for (tear, seed) in [(false, None), (true, Some(at)), (false, Some(at ^ 0x5555))] {
            let mem = crate::base::io::MemFs::new();
            mem.create_dir_all(Path::new("/wal")).unwrap();
            mem.sync_dir(Path::new("/")).unwrap();
            if let Some(seed) = seed {
                mem.set_crash_seed(seed);
            }
            let fault = crate::base::io::FaultFs::over_mem(mem.clone());
            fault.crash_at(at, tear);
            let acked = fsync_until_failure(&fault, N);
            fault.crash().unwrap();
            check_recovered(
                &mem,
                &acked,
                N,
                &format!("crash at op {at} (tear {tear}, seed {seed:?})"),
            );
        }
    }
}

#[test]
fn mem_fs_crash_after_writes_into_a_preallocated_tail() {
    // Without a torn crash, only synced bytes survive; with one, a prefix of the rest.
    for seed in 0..50u64 {
        let mem = crate::base::io::MemFs::new();
        mem.create_dir_all(Path::new("/wal")).unwrap();
        mem.sync_dir(Path::new("/")).unwrap();
        if seed > 0 {
            mem.set_crash_seed(seed);
        }
        let wal = Wal::create(
            Arc::new(mem.clone()),
            Path::new("/wal").to_path_buf(),
            1,
            WalOptions::default(),
        )
        .unwrap();
        for seq in 1..=20 {
            wal.append(&payload(seq), seq, WalSync::Fsync).unwrap();
        }
        for seq in 21..=40 {
            wal.append(&payload(seq), seq, WalSync::Write).unwrap();
        }
        mem.crash();
        drop(wal);
        let acked: Vec<u64> = (1..=20).collect();
        check_recovered(&mem, &acked, 40, &format!("seed {seed}"));
    }
}

// Sync-ahead: a background thread fdatasyncs the current segment once enough is unsynced.

fn sync_ahead(segment_size: u64, sync_ahead: u64) -> WalOptions {
    WalOptions {
        segment_size,
        sync_ahead,
        ..WalOptions::default()
    }
}

/// A log in `/wal` of a new in-memory filesystem, written through a fault wrapper.
fn wal_over_fault(opts: WalOptions) -> (crate::base::io::MemFs, crate::base::io::FaultFs, Wal) {
    let mem = crate::base::io::MemFs::new();
    mem.create_dir_all(Path::new("/wal")).unwrap();
    mem.sync_dir(Path::new("/")).unwrap();
    let fault = crate::base::io::FaultFs::over_mem(mem.clone());
    let wal = Wal::create(
        Arc::new(fault.clone()),
        Path::new("/wal").to_path_buf(),
        1,
        opts,
    )
    .unwrap();
    (mem, fault, wal)
}

#[test]
fn background_sync_makes_written_entries_durable_and_keeps_the_log_replayable() {
    let (mem, fault, wal) = wal_over_fault(sync_ahead(8 << 10, 1000));
    let syncs_before = fault.syncs();
    let mut seq = 0;
    // Write-level appends never fdatasync themselves; the background thread does, after each
    // 1000 bytes (the segments also roll every 8 KiB).
    while seq < 400 {
        seq += 1;
        wal.append(&payload(seq), seq, WalSync::Write).unwrap();
    }
    let mut spins = 0u64;
    while fault.syncs() <= syncs_before + wal.segment_count() as u64 * 2 && spins < 10_000_000 {
        std::thread::yield_now();
        spins += 1;
    }
    assert!(
        fault.syncs() > syncs_before + wal.segment_count() as u64 * 2,
        "background syncs ran"
    );
    mem.crash();
    drop(wal);
    check_recovered(&mem, &[], 400, "crash after background syncs");
}

#[test]
fn a_failed_background_sync_poisons_the_wal() {
    let mem = crate::base::io::MemFs::new();
    mem.create_dir_all(Path::new("/wal")).unwrap();
    mem.sync_dir(Path::new("/")).unwrap();
    let fault = crate::base::io::FaultFs::over_mem(mem);
    // A segment large enough that no roll (whose fdatasync, by the leader, would take the
    // injected failure first) comes before the background thread's first sync, however late
    // that thread is scheduled: with 1 MiB segments a loaded machine let the writer reach a roll
    // first once.
    let wal = Wal::create(
        Arc::new(fault.clone()),
        Path::new("/wal").to_path_buf(),
        1,
        sync_ahead(256 << 20, 500),
    )
    .unwrap();
    fault.fail_sync_at(fault.syncs());
    let mut seq = 0;
    // Appends succeed until the background sync has failed; then the next batch fails.
    let mut spins = 0u64;
    let err = loop {
        seq += 1;
        if let Err(e) = wal.append(&payload(seq), seq, WalSync::Write) {
            break e;
        }
        if fault.injected() > 0 {
            spins += 1;
        }
        assert!(spins < 1_000_000, "the failure reached no append");
    };
    assert!(
        matches!(err, Error::Poisoned(ref r) if r.contains("background")),
        "{err:?}"
    );
    assert!(wal.is_poisoned());
    assert_poisoned(wal.append(&payload(seq + 1), seq + 1, WalSync::Fsync));
}

/// Writeback of each MiB of log starts as it is written (RocksDB's wal_bytes_per_sync), so a
/// roll's fdatasync on the writer's path finds little left to write; the log replays whole.
#[test]
fn writeback_starts_every_mib_of_log() {
    // No sync-ahead and no roll: only the writeback requests bound what is unwritten.
    let (mem, fault, wal) = wal_over_fault(sync_ahead(256 << 20, 0));
    let value = vec![7u8; 4000];
    let n = 1000u64; // about 4 MiB of entries
    for seq in 1..=n {
        wal.append(&value, seq, WalSync::Write).unwrap();
    }
    let bytes = n * 4000;
    let requests = fault.writebacks();
    assert!(
        requests >= bytes / crate::base::io::WRITEBACK_EVERY - 1
            && requests <= bytes / crate::base::io::WRITEBACK_EVERY,
        "{requests} writeback requests for {bytes} bytes"
    );
    wal.sync().unwrap();
    drop(wal);
    let mut seen = 0;
    replay(&mem, Path::new("/wal"), |seq, p| {
        seen += 1;
        assert_eq!((seq, p), (seen, &value[..]));
        Ok(())
    })
    .unwrap();
    assert_eq!(seen, n);
}
