//! Builds data blocks (format in [`super::block`]): LevelDB-style key prefix compression with a
//! restart point every `restart_interval` entries and (row-aligned layout) at the first cell of
//! every row with two or more cells in the block; or, for the suffix-delta entry encoding
//! ([`super::encoding`]), the same restart points with the timestamp, type and sequence id of
//! the other entries coded against the previous entry's.

use super::encoding::{self, EntryEncoding};
use crate::base::codec;

/// Builds one uncompressed data block.
#[derive(Debug)]
pub struct BlockBuilder {
    buf: Vec<u8>,
    restarts: Vec<u32>,
    counter: usize,
    interval: usize,
    last_key: Vec<u8>,
    entries: usize,
    /// Offset of the last entry's payload.
    last_payload: usize,
    /// Offset of the current row's first entry in this block ([`BlockBuilder::add_cell`]).
    row_start: Option<usize>,
    /// Cells of the current row in this block so far.
    row_cells: usize,
    /// Scratch for re-encoding an entry.
    scratch: Vec<u8>,
    /// How entries store their keys.
    encoding: EntryEncoding,
    /// Payload length of the last entry (suffix-delta entries may repeat it).
    last_plen: usize,
}

impl BlockBuilder {
    /// A builder of prefix-compressed entries placing a restart point every
    /// `restart_interval` entries (at least 1).
    #[cfg(any(test, feature = "testing"))]
    pub fn new(restart_interval: usize) -> Self {
        Self::with_encoding(restart_interval, EntryEncoding::Prefix)
    }

    /// A builder of `encoding`'s entries placing a restart point every `restart_interval`
    /// entries (at least 1).
    pub fn with_encoding(restart_interval: usize, encoding: EntryEncoding) -> Self {
        BlockBuilder {
            buf: Vec::new(),
            restarts: vec![0],
            counter: 0,
            interval: restart_interval.max(1),
            last_key: Vec::new(),
            entries: 0,
            last_payload: 0,
            row_start: None,
            row_cells: 0,
            scratch: Vec::new(),
            encoding,
            last_plen: 0,
        }
    }

    /// True when no entry has been added since the last reset.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Size the finished block would have now.
    pub fn estimated_size(&self) -> usize {
        self.buf.len() + 4 * self.restarts.len() + 4
    }

    /// Appends an entry. REQUIRES: `key` sorts after the previous key of this block; the block
    /// stays under 4 GiB (the writer checks).
    pub fn add(&mut self, key: &[u8], payload: &[u8]) {
        let restart = self.counter >= self.interval;
        self.push_entry(key, payload, restart);
    }

    /// As [`BlockBuilder::add`] for the row-aligned layout (meta version 2, docs/FORMAT.md):
    /// `new_row` tells whether the cell starts a row. When a row gets its second cell in the
    /// block and its first cell is not a restart point, that first cell (the last entry) is
    /// rewritten as one: every row with two or more cells in a block starts at a restart
    /// point, so a seek for the row needs no scan, while single-cell rows keep the interval's
    /// prefix compression.
    pub fn add_cell(&mut self, key: &[u8], payload: &[u8], new_row: bool) {
        if new_row || self.entries == 0 {
            self.row_start = Some(self.buf.len());
            self.row_cells = 0;
        } else if self.row_cells == 1
            && let Some(start) = self.row_start
            && start > 0
            && self.restarts.last() != Some(&(start as u32))
        {
            self.restart_last_entry(start);
        }
        self.row_cells += 1;
        let restart = self.counter >= self.interval;
        self.push_entry(key, payload, restart);
    }

    /// Re-encodes the last entry (at `start`) as a restart point (no shared prefix): its
    /// header and key delta are replaced in place by a header and the full key.
    fn restart_last_entry(&mut self, start: usize) {
        let payload_len = self.buf.len() - self.last_payload;
        self.scratch.clear();
        match self.encoding {
            EntryEncoding::Prefix => codec::put_varint(&mut self.scratch, 0),
            EntryEncoding::SuffixDelta => self.scratch.push(encoding::FULL),
        }
        codec::put_varint(&mut self.scratch, self.last_key.len() as u64);
        codec::put_varint(&mut self.scratch, payload_len as u64);
        self.scratch.extend_from_slice(&self.last_key);
        // The new header and key replace the old header and key part in front of the
        // payload. They are longer (a full key instead of a suffix; a suffix-delta entry
        // with huge deltas may be as long), so the payload moves right, or stays.
        let (old_end, new_end) = (self.last_payload, start + self.scratch.len());
        let len = self.buf.len();
        if new_end >= old_end {
            self.buf.resize(len + (new_end - old_end), 0);
            self.buf.copy_within(old_end..len, new_end);
        } else {
            self.buf.copy_within(old_end..len, new_end);
            self.buf.truncate(len - (old_end - new_end));
        }
        self.buf[start..new_end].copy_from_slice(&self.scratch);
        self.last_payload = new_end;
        self.restarts.push(start as u32);
        self.counter = 1;
    }

    fn push_entry(&mut self, key: &[u8], payload: &[u8], restart: bool) {
        if self.encoding == EntryEncoding::SuffixDelta {
            self.push_delta_entry(key, payload, restart);
            return;
        }
        let restart = restart && self.entries > 0;
        let shared = if !restart {
            crate::base::util::common_prefix_len(&self.last_key, key)
        } else {
            self.restarts.push(self.buf.len() as u32);
            self.counter = 0;
            0
        };
        let delta = key.get(shared..).unwrap_or_default();
        codec::put_varint(&mut self.buf, shared as u64);
        codec::put_varint(&mut self.buf, delta.len() as u64);
        codec::put_varint(&mut self.buf, payload.len() as u64);
        self.buf.extend_from_slice(delta);
        self.last_payload = self.buf.len();
        self.buf.extend_from_slice(payload);
        self.last_key.truncate(shared);
        self.last_key.extend_from_slice(delta);
        self.counter += 1;
        self.entries += 1;
    }

    /// [`BlockBuilder::push_entry`] for suffix-delta entries: the first entry and restart
    /// points store their whole key, the others deltas from the last entry.
    fn push_delta_entry(&mut self, key: &[u8], payload: &[u8], restart: bool) {
        if self.entries == 0 || restart {
            if self.entries > 0 {
                self.restarts.push(self.buf.len() as u32);
            }
            self.counter = 0;
            encoding::put_full_entry(&mut self.buf, key, payload);
        } else {
            encoding::put_entry_after(&mut self.buf, &self.last_key, self.last_plen, key, payload);
        }
        self.last_payload = self.buf.len() - payload.len();
        self.last_plen = payload.len();
        self.last_key.clear();
        self.last_key.extend_from_slice(key);
        self.counter += 1;
        self.entries += 1;
    }

    /// Appends the restart array and returns the finished block's bytes; the buffer may be
    /// extended in place (the writer appends the frame trailer). Call [`BlockBuilder::reset`]
    /// before adding again.
    pub fn finish(&mut self) -> &mut Vec<u8> {
        for &r in &self.restarts {
            codec::put_u32(&mut self.buf, r);
        }
        codec::put_u32(&mut self.buf, self.restarts.len() as u32);
        &mut self.buf
    }

    /// Clears the builder for the next block, keeping its allocations.
    pub fn reset(&mut self) {
        self.buf.clear();
        self.restarts.clear();
        self.restarts.push(0);
        self.counter = 0;
        self.last_key.clear();
        self.entries = 0;
        self.last_payload = 0;
        self.row_start = None;
        self.row_cells = 0;
        self.last_plen = 0;
    }
}
