//! Tests of replay's bounded reading (`window.rs`, issue 27): segments several windows long,
//! records longer than the window, torn tails and damage at and beyond window boundaries, and
//! declared lengths over the limit. The verdicts are checked against [`record::read_records`]
//! over the whole file, the reading replay used before.

use super::record::{self, HEADER_LEN, LogBytes, MAX_RECORD_LEN, TailPolicy};
use super::segment::{self, ENTRY_HEADER_LEN, segment_path};
use super::window::{FileWindow, WINDOW_LEN};
use super::*;
use crate::base::error::Error;
use crate::base::io::{FaultFs, FileSystem, MemFs, StdFs};
use std::path::Path;
use std::sync::Arc;

const DIR: &str = "/wal";

fn dir() -> &'static Path {
    Path::new(DIR)
}

/// Entry `seq`'s payload, `len` bytes derived from `seq`.
fn entry(seq: u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (seq.wrapping_mul(31).wrapping_add(i as u64 * 7) % 251) as u8)
        .collect()
}

/// Payload lengths from 1 to 9,000 bytes (a fixed sequence: records end all over a window).
fn varied_len(seq: u64) -> usize {
    1 + (seq.wrapping_mul(2_654_435_761) % 9_000) as usize
}

/// A log in [`DIR`] on a new in-memory filesystem, written by the writer: entries `1..` with
/// the given payload lengths, in segments of `segment_size` bytes (the newest one keeps its
/// preallocated zero tail: the WAL is dropped, not closed). Returns the filesystem and the
/// entries.
fn log_on_mem(lens: &[usize], segment_size: u64) -> (MemFs, Entries) {
    let mem = MemFs::new();
    mem.create_dir_all(dir()).unwrap();
    let wal = Wal::create(
        Arc::new(mem.clone()),
        dir().to_path_buf(),
        1,
        WalOptions {
            segment_size,
            ..WalOptions::default()
        },
    )
    .unwrap();
    let mut entries = Vec::new();
    for (i, &len) in lens.iter().enumerate() {
        let seq = i as u64 + 1;
        let p = entry(seq, len);
        wal.append(&p, seq, WalSync::Write).unwrap();
        entries.push((seq, p));
    }
    drop(wal);
    (mem, entries)
}

/// Replayed entries: `(seq, payload)` in file order.
type Entries = Vec<(u64, Vec<u8>)>;

/// Replays [`DIR`] of `fs`: the entries in order and what replay reported.
fn replay_entries(fs: &dyn FileSystem) -> crate::Result<(Entries, ReplayInfo)> {
    let mut got = Vec::new();
    let info = replay(fs, dir(), |seq, p| {
        got.push((seq, p.to_vec()));
        Ok(())
    })?;
    Ok((got, info))
}

/// `(offset, end)` of every intact record of `bytes`, as whole-file framing finds them.
fn frames(bytes: &[u8]) -> Vec<(u64, u64)> {
    let (recs, _) = record::read_records(bytes, Path::new("x"), TailPolicy::TornTailAllowed)
        .expect("a replayable segment");
    recs.iter()
        .map(|r| (r.offset, r.offset + (HEADER_LEN + r.payload.len()) as u64))
        .collect()
}

#[test]
fn a_segment_several_windows_long_replays_every_entry_in_order() {
    // About 4.5 windows of entries of 1 to 9,000 bytes, in one (newest, preallocated) segment.
    let lens: Vec<usize> = (1..=1_050).map(varied_len).collect();
    let (mem, entries) = log_on_mem(&lens, 64 << 20);
    let path = segment_path(dir(), 1);
    let bytes = mem.read_file(&path).unwrap();
    let ends = frames(&bytes);
    let data_end = ends.last().unwrap().1;
    assert!(data_end > 4 * WINDOW_LEN as u64, "{data_end}");
    assert!(
        bytes.len() as u64 > data_end,
        "the newest segment keeps its zero tail"
    );
    // Records straddle the first window's end and later multiples of it.
    for k in 1..=4u64 {
        let at = k * WINDOW_LEN as u64;
        assert!(
            ends.iter().any(|&(o, e)| o < at && at < e),
            "no record across {at}"
        );
    }

    let fs = FaultFs::over_mem(mem.clone());
    let (got, info) = replay_entries(&fs).unwrap();
    assert_eq!(got, entries);
    assert_eq!(info.segments, vec![(1, 1_050)]);
    assert!(!info.torn_tail_truncated, "a zero tail is not a torn tail");
    // Read in pieces no larger than the window, and the zero tail cut off.
    assert!(fs.positional_reads() >= 5, "{}", fs.positional_reads());
    assert!(fs.largest_positional_read() <= WINDOW_LEN as u64);
    assert_eq!(mem.read_file(&path).unwrap(), bytes[..data_end as usize]);
    // The read-only check reads the same way and agrees.
    check_log(&fs, dir()).unwrap();
    assert_eq!(replay_entries(&fs).unwrap().0, entries);
}

#[test]
fn a_record_longer_than_the_window_grows_it_and_it_shrinks_back() {
    let big = 3 * WINDOW_LEN + 5;
    let lens = [
        100,
        big,
        7,
        WINDOW_LEN - HEADER_LEN - ENTRY_HEADER_LEN,
        200,
        2 * WINDOW_LEN,
    ];
    let (mem, entries) = log_on_mem(&lens, 64 << 20);
    let fs = FaultFs::over_mem(mem.clone());
    let (got, _) = replay_entries(&fs).unwrap();
    assert_eq!(got, entries);
    // The window grew to exactly the longest frame, no more.
    let longest = (HEADER_LEN + ENTRY_HEADER_LEN + big) as u64;
    assert_eq!(fs.largest_positional_read(), longest);

    // And it gives the room back for ordinary records: framed through a window directly.
    let file = mem.open_read_at(&segment_path(dir(), 1)).unwrap();
    let mut window = FileWindow::new(file.as_ref());
    let mut seen = Vec::new();
    record::for_each_record(
        &mut window,
        Path::new("x"),
        TailPolicy::TornTailAllowed,
        |r| {
            seen.push(r.payload.len());
            Ok(())
        },
    )
    .unwrap();
    let want: Vec<usize> = lens.iter().map(|l| l + ENTRY_HEADER_LEN).collect();
    assert_eq!(seen[1..], want[..], "the header, then every entry");
    assert_eq!(window.peak, longest as usize);
    // An ordinary read after the long records: back to one window.
    window.get(0, HEADER_LEN).unwrap();
    assert!(window.capacity() <= WINDOW_LEN, "{}", window.capacity());
}

#[test]
fn a_torn_tail_at_a_window_boundary_is_truncated() {
    let lens: Vec<usize> = (1..=600).map(varied_len).collect();
    let (mem, entries) = log_on_mem(&lens, 64 << 20);
    let path = segment_path(dir(), 1);
    let full = mem.read_file(&path).unwrap();
    let w = WINDOW_LEN as u64;
    let &(torn_at, torn_end) = frames(&full)
        .iter()
        .find(|&&(o, e)| o < w && w < e)
        .expect("a record across the window's end");
    // Entries wholly before the torn record (the segment header is frame 0).
    let kept = frames(&full).iter().filter(|&&(_, e)| e <= torn_at).count() - 1;
    let cut = full[..WINDOW_LEN].to_vec();
    // Cut at the window's end; the same, then the preallocated room (zeros) after it, up past
    // the torn record's claimed end and over the next window.
    let mut in_zeros = cut.clone();
    in_zeros.resize(torn_end as usize + 2 * WINDOW_LEN, 0);
    for (what, bytes) in [("cut", cut), ("zero-filled", in_zeros)] {
        // The old reading's verdict: a torn tail, the good prefix ending at the torn record.
        let (_, valid) = record::read_records(&bytes, &path, TailPolicy::TornTailAllowed).unwrap();
        assert_eq!(valid, torn_at, "{what}");
        mem.write_file(&path, &bytes).unwrap();
        let (got, info) = replay_entries(&mem).unwrap();
        assert_eq!(got, entries[..kept], "{what}");
        assert!(info.torn_tail_truncated, "{what}");
        assert_eq!(
            mem.read_file(&path).unwrap().len() as u64,
            torn_at,
            "{what}"
        );
        let (again, info) = replay_entries(&mem).unwrap();
        assert_eq!(
            (again.len(), info.torn_tail_truncated),
            (kept, false),
            "{what}"
        );
    }
}

/// Two segments: the older about 2.5 windows long. Returns the filesystem and both paths.
fn two_segments() -> (MemFs, std::path::PathBuf, std::path::PathBuf) {
    let lens: Vec<usize> = (1..=700).map(varied_len).collect();
    let (mem, _) = log_on_mem(&lens, (5 * WINDOW_LEN / 2) as u64);
    let names = mem.list(dir()).unwrap();
    assert_eq!(names.len(), 2, "{names:?}");
    (mem, segment_path(dir(), 1), segment_path(dir(), 2))
}

#[test]
fn damage_past_the_first_window_is_corruption_at_the_same_offset_as_whole_file_framing() {
    let (mem, older, newest) = two_segments();
    let older_bytes = mem.read_file(&older).unwrap();
    let newest_bytes = mem.read_file(&newest).unwrap();
    let older_frames = frames(&older_bytes);
    let newest_frames = frames(&newest_bytes);
    let mid_older = older_frames
        .iter()
        .find(|&&(o, _)| o > 2 * WINDOW_LEN as u64)
        .copied()
        .unwrap();
    let mid_newest = newest_frames[newest_frames.len() / 2];
    // (file, original bytes, byte to change, tail policy of the old reading)
    let cases = [
        // A payload byte of a record in the older segment's third window.
        (
            &older,
            &older_bytes,
            mid_older.0 as usize + HEADER_LEN + 3,
            TailPolicy::Strict,
        ),
        // Its length field, grown past the end of the file.
        (
            &older,
            &older_bytes,
            mid_older.0 as usize + 4,
            TailPolicy::Strict,
        ),
        // A record in the middle of the newest segment, followed by intact ones.
        (
            &newest,
            &newest_bytes,
            mid_newest.0 as usize + HEADER_LEN + 1,
            TailPolicy::TornTailAllowed,
        ),
    ];
    for (path, orig, at, policy) in cases {
        let mut bad = orig.clone();
        bad[at] ^= 0x40;
        let want = record::read_records(&bad, path, policy).unwrap_err();
        assert!(matches!(want, Error::Corruption { .. }), "{want:?}");
        mem.write_file(path, &bad).unwrap();
        let fs = FaultFs::over_mem(mem.clone());
        let got = check_log(&fs, dir()).unwrap_err();
        assert_eq!(format!("{got:?}"), format!("{want:?}"), "check, byte {at}");
        let got = replay_entries(&fs).unwrap_err();
        assert_eq!(format!("{got:?}"), format!("{want:?}"), "replay, byte {at}");
        assert!(fs.largest_positional_read() <= WINDOW_LEN as u64);
        // Nothing was truncated.
        assert_eq!(mem.read_file(path).unwrap(), bad);
        mem.write_file(path, orig).unwrap();
    }
    replay_entries(&mem).unwrap();
}

#[test]
fn a_declared_length_past_the_end_of_an_older_segment_is_corruption() {
    let (mem, older, _) = two_segments();
    let mut bytes = mem.read_file(&older).unwrap();
    let last = *frames(&bytes).last().unwrap();
    // The last record's length field claims almost 4 GiB.
    bytes[last.0 as usize + 4..last.0 as usize + 8].copy_from_slice(&0xffff_fff0u32.to_be_bytes());
    mem.write_file(&older, &bytes).unwrap();
    let fs = FaultFs::over_mem(mem.clone());
    match replay_entries(&fs).unwrap_err() {
        Error::Corruption { path, detail } => {
            assert_eq!(path, older);
            let left = bytes.len() as u64 - last.0 - HEADER_LEN as u64;
            assert_eq!(
                detail,
                format!(
                    "record length 4294967280 runs past end of file ({left} bytes left) at \
                     offset {}",
                    last.0
                )
            );
        }
        other => panic!("expected corruption, got {other:?}"),
    }
    assert!(fs.largest_positional_read() <= WINDOW_LEN as u64);
}

#[test]
fn a_declared_length_over_the_limit_is_corruption_without_allocating_it() {
    // A real (sparse) file longer than the limit, so the length fits in the file and only the
    // limit refuses it: segment 1 is a header, then a frame header declaring one byte more
    // than the largest record the writer can write, then zeros.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let older = segment_path(d, 1);
    let mut head = Vec::new();
    segment::encode_segment_header(&mut head, 1, None);
    let at = head.len() as u64;
    let declared = MAX_RECORD_LEN + 1;
    head.extend_from_slice(&[0x12, 0x34, 0x56, 0x78]);
    head.extend_from_slice(&(declared as u32).to_be_bytes());
    head.push(segment::REC_ENTRY);
    let mut f = StdFs.create(&older).unwrap();
    f.append(&head).unwrap();
    f.preallocate((HEADER_LEN + declared) as u64 + at + (64 << 10))
        .unwrap();
    f.sync_data().unwrap();
    drop(f);
    let mut second = Vec::new();
    segment::encode_segment_header(&mut second, 2, None);
    let mut f = StdFs.create(&segment_path(d, 2)).unwrap();
    f.append(&second).unwrap();
    f.sync_data().unwrap();
    drop(f);

    let fs = FaultFs::new(Arc::new(StdFs));
    let want = format!("record length {declared} exceeds limit {MAX_RECORD_LEN} at offset {at}");
    for result in [
        check_log(&fs, d).map(|_| ()),
        replay(&fs, d, |_, _| Ok(())).map(|_| ()),
    ] {
        match result.unwrap_err() {
            Error::Corruption { path, detail } => {
                assert_eq!(path, older);
                assert_eq!(detail, want);
            }
            other => panic!("expected corruption, got {other:?}"),
        }
    }
    // Nothing near the declared length was read (or allocated to read it into).
    assert!(fs.largest_positional_read() <= WINDOW_LEN as u64);
}

#[test]
fn a_failed_read_is_an_io_error_and_changes_nothing() {
    // The newest segment ends in a torn record, which a successful replay truncates.
    let lens: Vec<usize> = (1..=400).map(varied_len).collect();
    let (mem, entries) = log_on_mem(&lens, 64 << 20);
    let path = segment_path(dir(), 1);
    let mut bytes = mem.read_file(&path).unwrap();
    let last = *frames(&bytes).last().unwrap();
    bytes.truncate(last.1 as usize - 10);
    mem.write_file(&path, &bytes).unwrap();
    let probe = FaultFs::over_mem(mem.deep_clone());
    replay_entries(&probe).unwrap();
    let reads = probe.positional_reads();
    assert!(reads >= 2, "{reads}");
    for n in 0..reads {
        let fs = FaultFs::over_mem(mem.clone());
        fs.fail_read_at(n);
        match replay_entries(&fs) {
            Err(Error::Io(e)) => assert!(e.to_string().contains("injected fault"), "{e}"),
            other => panic!("read {n}: expected an I/O error, got {other:?}"),
        }
        assert_eq!(mem.read_file(&path).unwrap(), bytes, "read {n}");
    }
    let (got, info) = replay_entries(&mem).unwrap();
    assert_eq!(got, entries[..entries.len() - 1]);
    assert!(info.torn_tail_truncated);
}
