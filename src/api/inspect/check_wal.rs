//! The write-ahead log part of [`check_database`](super::check_database): every segment the
//! manifest records as live exists; each segment's frames, header and entries (decoded by the
//! engine's own decoder); the chain of lengths the segment headers record; the sealed lengths
//! the manifest records. A torn tail of the newest segment is a warning (the next open cuts
//! it off); damage anywhere else is an error.

use super::Severity;
use super::check::Checker;
use super::files::{names, read_regular};
use crate::engine::recovery::{missing_segments, present_segments};
use crate::storage::manifest::ManifestState;
use crate::storage::wal::check_log;
use crate::storage::wal::entry::decode_entry;
use crate::storage::wal::record::{TailPolicy, read_records};
use crate::storage::wal::segment::{self, PrevSegment};
use std::collections::BTreeMap;
use std::path::Path;

/// What [`Checker::check_segment`] learned about a segment for the chain check.
#[derive(Default)]
struct SegmentSeen {
    /// Its length in bytes (when it could be read).
    len: Option<u64>,
    /// The previous segment its (version 2) header links to.
    link: Option<PrevSegment>,
}

impl Checker<'_> {
    /// Every WAL segment: frames, header, entries; and every segment the manifest records as
    /// live must exist.
    pub(super) fn check_wal(&mut self, state: Option<&ManifestState>) {
        let wal = self.dir.join("wal");
        if let Some(state) = state
            && let Ok(present) = present_segments(self.fs, &wal)
        {
            for p in missing_segments(state, &present, &wal) {
                self.error(
                    &p,
                    None,
                    "missing: the manifest records this log segment as holding writes not yet \
                     in block files (acknowledged writes may be lost; the engine refuses to \
                     open without WalRecovery::SkipMissingSegments)",
                );
            }
        }
        let list = match names(self.fs, &wal) {
            Ok(l) => l,
            Err(e) => {
                if self.fs.exists(&wal) {
                    self.error(&wal, None, e);
                }
                return;
            }
        };
        let mut ids = Vec::new();
        for n in list {
            match segment::parse_segment_name(&n) {
                Some(id) => ids.push(id),
                None => self.warn(
                    &wal.join(&n),
                    None,
                    "not a WAL segment name (ignored by the engine)",
                ),
            }
        }
        ids.sort_unstable();
        let errors_before = self.out.errors();
        // The segment checked just before this one: (id, length in bytes).
        let mut before: Option<(u64, u64)> = None;
        // Every segment read: its length in bytes.
        let mut lengths = BTreeMap::new();
        for (i, &id) in ids.iter().enumerate() {
            let newest = i + 1 == ids.len();
            let mut seen = SegmentSeen::default();
            self.check_segment(&segment::segment_path(&wal, id), id, newest, &mut seen);
            // A version-2 header records the previous segment's final length; the engine's
            // replay reports a mismatch (e.g. an older segment cut at a record boundary) as
            // corruption.
            if let (Some(link), Some((bid, blen))) = (seen.link, before)
                && link.id == bid
                && link.len != blen
            {
                let older = segment::segment_path(&wal, bid);
                let msg = if blen < link.len {
                    format!(
                        "closed segment ends at offset {blen}, but the header of {} records its \
                         length as {}: {} bytes missing",
                        segment::segment_file_name(id),
                        link.len,
                        link.len - blen
                    )
                } else {
                    format!(
                        "closed segment is {blen} bytes, but the header of {} records its length \
                         as {}: unexpected bytes",
                        segment::segment_file_name(id),
                        link.len
                    )
                };
                self.error(&older, Some(blen.min(link.len)), msg);
            }
            before = seen.len.map(|l| (id, l));
            lengths.extend(before);
        }
        // The manifest's record of each sealed segment's synced length catches a cut the chain
        // cannot (its successors gone), for segments nothing above reported already.
        for (id, len) in state.map(|s| &s.wal_sealed).into_iter().flatten() {
            let p = segment::segment_path(&wal, *id);
            let reported = self
                .out
                .findings
                .iter()
                .any(|f| f.severity == Severity::Error && f.path == p);
            if let Some(&actual) = lengths.get(id)
                && actual < *len
                && !reported
            {
                self.error(
                    &p,
                    Some(actual),
                    format!(
                        "log segment cut short: the manifest records it sealed at {len} bytes \
                         ({} bytes of logged writes missing)",
                        len - actual
                    ),
                );
            }
        }
        // Last, the log as the open's replay reads it: whatever it refuses is an error here
        // too. Only when nothing above found damage (it stops at the first), and not while
        // another process writes the log.
        if self.out.errors() == errors_before
            && !self.out.locked_by_other
            && let Err(e) = check_log(self.fs, &wal)
        {
            self.engine(&wal, e);
        }
    }

    fn check_segment(&mut self, path: &Path, id: u64, newest: bool, seen: &mut SegmentSeen) {
        let bytes = match read_regular(self.fs, path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && self.out.locked_by_other => {
                self.warn(
                    path,
                    None,
                    "deleted while being checked (the open database retired it)",
                );
                return;
            }
            Err(e) => {
                self.error(path, None, format!("cannot read: {e}"));
                return;
            }
        };
        self.out.wal_segments += 1;
        self.file_checked(path);
        self.out.bytes += bytes.len() as u64;
        seen.len = Some(bytes.len() as u64);
        let records = match read_records(&bytes, path, TailPolicy::Strict) {
            Ok((r, _)) => r,
            Err(strict_err) => {
                let torn = if newest {
                    read_records(&bytes, path, TailPolicy::TornTailAllowed).ok()
                } else {
                    None
                };
                match torn {
                    Some((r, valid))
                        if bytes[usize::try_from(valid).unwrap_or(bytes.len())..]
                            .iter()
                            .all(|&b| b == 0) =>
                    {
                        // The writer preallocates the segment it appends to: zeros after the
                        // last record are its unused room, not damage.
                        self.out.notes.push(format!(
                            "WAL segment {}: {} bytes of preallocated room after the last record",
                            path.display(),
                            bytes.len() as u64 - valid
                        ));
                        r
                    }
                    Some((r, valid)) => {
                        self.warn(
                            path,
                            Some(valid),
                            format!(
                                "torn tail: the last {} bytes are an incomplete or damaged final \
                                 record (a write cut short by a crash; the next open truncates \
                                 it, losing only unacknowledged or non-fsynced writes)",
                                bytes.len() as u64 - valid
                            ),
                        );
                        r
                    }
                    None => {
                        self.engine(path, strict_err);
                        if !newest && let Some(f) = self.out.findings.last_mut() {
                            f.detail
                                .push_str(" (in a closed segment, which must be complete)");
                        }
                        return;
                    }
                }
            }
        };
        let mut entries = 0u64;
        for (j, rec) in records.iter().enumerate() {
            match (j, rec.rtype) {
                (0, segment::REC_SEGMENT_HEADER) => {
                    match segment::check_segment_header(rec.payload, path, id, rec.offset) {
                        Ok(link) => seen.link = link,
                        Err(e) => {
                            self.engine(path, e);
                            return;
                        }
                    }
                }
                (0, t) => {
                    self.error(
                        path,
                        Some(0),
                        format!("missing segment header (first record has type {t})"),
                    );
                    return;
                }
                (_, segment::REC_ENTRY) => {
                    entries += 1;
                    // The engine's decoders: the sequence id, then the entry.
                    let decoded = segment::decode_entry(rec.payload, path, rec.offset)
                        .map_err(|e| e.to_string())
                        .and_then(|(seq, entry)| decode_entry(entry, seq));
                    match decoded {
                        Ok((_, cells)) => self.out.wal_cells += cells.len() as u64,
                        Err(m) => self.error(path, Some(rec.offset), format!("WAL entry: {m}")),
                    }
                }
                (_, t) => self.error(
                    path,
                    Some(rec.offset),
                    format!("unexpected WAL record type {t}"),
                ),
            }
        }
        self.out.wal_entries += entries;
        self.out.notes.push(format!(
            "WAL segment {}: {} bytes, {entries} entries",
            path.display(),
            bytes.len()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::super::Finding;
    use super::super::check::DatabaseCheck;
    use super::*;
    use crate::base::io::{FileSystem, StdFs};
    use crate::storage::wal::{Wal, WalOptions, WalSync};

    fn check_wal_only(dir: &Path) -> DatabaseCheck {
        let mut c = Checker {
            fs: &StdFs,
            dir,
            out: DatabaseCheck::default(),
            on_file: &mut |_| {},
        };
        c.check_wal(None);
        c.out
    }

    #[test]
    fn closed_segment_shorter_than_its_successor_records_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let wal_dir = dir.path().join("wal");
        std::fs::create_dir(&wal_dir).unwrap();
        let wal = Wal::create(
            std::sync::Arc::new(StdFs),
            wal_dir.clone(),
            1,
            WalOptions {
                segment_size: 200,
                ..WalOptions::default()
            },
        )
        .unwrap();
        for seq in 1..=12 {
            wal.append(&[7u8; 40], seq, WalSync::Write).unwrap();
        }
        wal.close().unwrap();
        assert!(wal.segment_count() >= 3);
        let chain = |r: &DatabaseCheck| -> Vec<Finding> {
            r.findings
                .iter()
                .filter(|f| f.detail.contains("records its length"))
                .cloned()
                .collect()
        };
        let clean = check_wal_only(dir.path());
        assert_eq!(clean.wal_segments, wal.segment_count() as u64);
        assert!(chain(&clean).is_empty(), "{:?}", clean.findings);
        // Drop the last record of segment 1 (cut exactly at a record boundary).
        let p1 = segment::segment_path(&wal_dir, 1);
        let bytes = StdFs.read_all(&p1).unwrap();
        let (recs, _) = read_records(&bytes, &p1, TailPolicy::Strict).unwrap();
        let cut = recs.last().unwrap().offset;
        std::fs::write(&p1, &bytes[..cut as usize]).unwrap();
        let r = check_wal_only(dir.path());
        let found = chain(&r);
        assert_eq!(found.len(), 1, "{:?}", r.findings);
        assert_eq!(found[0].path, p1);
        assert_eq!(found[0].offset, Some(cut));
        assert_eq!(found[0].severity, Severity::Error);
    }
}
