//! WAL recovery: reads every segment in id order and hands each entry to a visitor.
//!
//! Zero-tail rule: the writer preallocates the segment it appends to, so the newest segment may
//! end in zero bytes after its last record; they are its end, not damage, and replay cuts them
//! off. Older segments were trimmed to their last record before their successor was created.
//!
//! Torn-tail rule: only the newest segment may end in damage. The writer fdatasyncs a segment
//! before it creates the next one, and replay syncs (or truncates and syncs) the newest segment
//! before a new `Wal` starts a later one, so every segment but the newest is complete on disk:
//! damage anywhere in an older segment, and damage followed by further data in the newest one,
//! is [`Error::Corruption`] naming the file and offset.
//!
//! Chain rule: a version-2 segment header records the id and final length of the segment
//! written before it. When that segment is present, its actual length must match: a shorter
//! one (for example cut exactly at a record boundary, which its own framing cannot reveal) or a
//! longer one is [`Error::Corruption`] naming the older segment and the offset where the
//! difference starts. A missing predecessor (deleted once flushed) is not checked.
//!
//! Memory: each segment is read with positional reads through a bounded window
//! ([`FileWindow`]: 1 MiB, grown to hold a longer record, at most the largest record the writer
//! can write), never whole, so replay holds a window on top of what its visitor keeps. Entries
//! reach the visitor as the window passes them: when a segment turns out to be damaged further
//! on, the visitor has seen its entries before the damage, as it has seen every entry of the
//! segments before it. The error is the same as if the segment had been read whole first:
//! damage in its framing comes before an error of its header, its entries or the visitor.

use crate::base::error::{Error, Result};
use crate::base::io::FileSystem;
use crate::storage::wal::record::{self, TailPolicy};
use crate::storage::wal::segment::{self, REC_ENTRY, REC_SEGMENT_HEADER};
use crate::storage::wal::window::FileWindow;
use std::path::Path;

/// What [`replay`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayInfo {
    /// Every segment, ascending id: `(id, max seq seen, 0 if none)`. Hand this to
    /// [`crate::storage::wal::Wal::adopt_segments`] so the segments are deleted once flushed.
    pub segments: Vec<(u64, u64)>,
    /// The largest segment id (0 if there is none); a new `Wal` starts at `last_segment_id + 1`.
    pub last_segment_id: u64,
    /// The newest segment had a torn tail and was truncated to its valid prefix. A tail of zero
    /// bytes after the last record (the writer preallocates segments) is cut too, but is not a
    /// torn tail.
    pub torn_tail_truncated: bool,
}

/// Reads every segment (`{id:010}.log`) in `dir` in id order and calls `visit(seq, payload)` for
/// each entry, in file order. Other files in `dir` are ignored. Zero bytes after the newest
/// segment's last record are its preallocated room: they are cut off (not reported as a torn
/// tail). Damage at the end of the newest segment is a torn tail: the file is truncated to its valid prefix (and synced) so the next
/// open sees a clean file, and replay succeeds. Without a torn tail the newest segment is still
/// synced, because a new `Wal` will make it an older, must-be-complete segment. A newest
/// segment without a complete header (a crash while it was created) holds no entries and is
/// removed; an older one is [`Error::Corruption`]. A segment whose header names a newer format version is
/// [`Error::UnsupportedFormat`]. An older segment whose length differs from the length its
/// successor's header records is [`Error::Corruption`]. A visit error aborts replay and is
/// returned.
///
/// Call it before [`crate::storage::wal::Wal::create`] starts the next segment.
pub fn replay(
    fs: &dyn FileSystem,
    dir: &Path,
    visit: impl FnMut(u64, &[u8]) -> Result<()>,
) -> Result<ReplayInfo> {
    replay_discarding(fs, dir, &mut |_| Ok(()), visit)
}

/// [`replay`], calling `before_discard(id)` before it removes a newest segment that never got
/// its header (the database records the removal in its manifest first, which lists every
/// segment that must exist); its error aborts replay.
///
/// # Errors
/// As [`replay`].
pub fn replay_discarding(
    fs: &dyn FileSystem,
    dir: &Path,
    before_discard: &mut dyn FnMut(u64) -> Result<()>,
    visit: impl FnMut(u64, &[u8]) -> Result<()>,
) -> Result<ReplayInfo> {
    replay_inner(fs, dir, Some(before_discard), visit)
}

/// Checks the log as [`replay`] would read it (framing, headers, the chain of lengths,
/// damage only at the end of the newest segment) without changing anything: no truncation,
/// no removal, no sync. An open runs it before it changes anything on disk, so an open that
/// fails on a damaged log leaves the database as it found it.
///
/// # Errors
/// As [`replay`].
pub fn check(fs: &dyn FileSystem, dir: &Path) -> Result<()> {
    replay_inner(fs, dir, None, |_, _| Ok(())).map(|_| ())
}

/// `before_discard` is `None` for a read-only check.
fn replay_inner(
    fs: &dyn FileSystem,
    dir: &Path,
    mut before_discard: Option<&mut dyn FnMut(u64) -> Result<()>>,
    mut visit: impl FnMut(u64, &[u8]) -> Result<()>,
) -> Result<ReplayInfo> {
    let mutate = before_discard.is_some();
    let mut ids: Vec<u64> = fs
        .list(dir)?
        .iter()
        .filter_map(|n| segment::parse_segment_name(n))
        .collect();
    ids.sort_unstable();
    let mut info = ReplayInfo {
        segments: Vec::with_capacity(ids.len()),
        last_segment_id: ids.last().copied().unwrap_or(0),
        torn_tail_truncated: false,
    };
    // The segment read just before this one: (id, length in bytes).
    let mut before: Option<(u64, u64)> = None;
    for (i, &id) in ids.iter().enumerate() {
        let newest = i + 1 == ids.len();
        let path = segment::segment_path(dir, id);
        let policy = if newest {
            TailPolicy::TornTailAllowed
        } else {
            TailPolicy::Strict
        };
        // Positional reads through a bounded window (no mapping: the file may be truncated
        // below); the handle is closed before anything changes the file.
        let file = fs.open_read_at(&path)?;
        let file_len = file.len();
        let mut window = FileWindow::new(file.as_ref());
        let mut records = 0u64;
        let mut max_seq = 0;
        let valid_len = record::for_each_record(&mut window, &path, policy, |rec| {
            let first = records == 0;
            records += 1;
            match (first, rec.rtype) {
                (true, REC_SEGMENT_HEADER) => {
                    let link = segment::check_segment_header(rec.payload, &path, id, rec.offset)?;
                    if let (Some(link), Some((bid, blen))) = (link, before)
                        && link.id == bid
                    {
                        check_link(dir, id, link.len, bid, blen)?;
                    }
                }
                (true, t) => {
                    return Err(Error::corruption(
                        &path,
                        format!("missing segment header (record type {t}) at offset 0"),
                    ));
                }
                (false, REC_ENTRY) => {
                    let (seq, payload) = segment::decode_entry(rec.payload, &path, rec.offset)?;
                    max_seq = max_seq.max(seq);
                    visit(seq, payload)?;
                }
                (false, t) => {
                    return Err(Error::corruption(
                        &path,
                        format!("unexpected WAL record type {t} at offset {}", rec.offset),
                    ));
                }
            }
            Ok(())
        })?;
        // Zero bytes after the last record are the writer's preallocated room (or a record
        // none of whose bytes reached the disk), not a torn record.
        let torn = records > 0
            && newest
            && mutate
            && valid_len < file_len
            && !record::zeros_from(&mut window, valid_len)?;
        drop(window);
        drop(file);
        if records == 0 {
            if !newest {
                // Every segment's header is synced before the next segment is created, and a
                // newest segment without one is removed below: an older headerless segment
                // has lost its contents.
                return Err(Error::corruption(
                    &path,
                    "older WAL segment has no segment header at offset 0",
                ));
            }
            // The newest segment never got its header (a crash while it was created): it holds
            // no entries; remove it so it can never become an older, headerless segment.
            if let Some(discard) = before_discard.as_mut() {
                discard(id)?;
                fs.remove(&path)?;
                fs.sync_dir(dir)?;
            }
            info.torn_tail_truncated |= file_len > 0;
            continue;
        }
        if newest && mutate {
            if valid_len < file_len {
                fs.truncate(&path, valid_len)?;
                info.torn_tail_truncated |= torn;
            } else {
                fs.open_append(&path)?.sync_data()?;
            }
        }
        info.segments.push((id, max_seq));
        before = Some((id, file_len));
    }
    Ok(info)
}

/// Checks that segment `bid`, `blen` bytes long, has the length `recorded` that the header of
/// its successor `id` records.
fn check_link(dir: &Path, id: u64, recorded: u64, bid: u64, blen: u64) -> Result<()> {
    let older = segment::segment_path(dir, bid);
    let succ = segment::segment_file_name(id);
    if blen < recorded {
        return Err(Error::corruption(
            &older,
            format!(
                "older WAL segment ends at offset {blen}, but the header of its successor {succ} \
                 records its length as {recorded}: {} bytes missing from offset {blen}",
                recorded - blen
            ),
        ));
    }
    if blen > recorded {
        return Err(Error::corruption(
            &older,
            format!(
                "older WAL segment is {blen} bytes, but the header of its successor {succ} \
                 records its length as {recorded}: unexpected bytes from offset {recorded}"
            ),
        ));
    }
    Ok(())
}
