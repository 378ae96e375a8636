//! Builds data blocks (format in [`super::block`]): LevelDB-style key prefix compression with a
//! restart point every `restart_interval` entries and wherever the writer asks for one.

use crate::codec;

/// Builds one uncompressed data block.
#[derive(Debug)]
pub struct BlockBuilder {
    buf: Vec<u8>,
    restarts: Vec<u32>,
    counter: usize,
    interval: usize,
    last_key: Vec<u8>,
    entries: usize,
}

impl BlockBuilder {
    /// A builder placing a restart point every `restart_interval` entries (at least 1).
    pub fn new(restart_interval: usize) -> Self {
        BlockBuilder {
            buf: Vec::new(),
            restarts: vec![0],
            counter: 0,
            interval: restart_interval.max(1),
            last_key: Vec::new(),
            entries: 0,
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
        self.add_entry(key, payload, false);
    }

    /// As [`BlockBuilder::add`]; with `restart` the entry is a restart point even before the
    /// interval is full (the writer starts every row at one, docs/FORMAT.md).
    pub fn add_entry(&mut self, key: &[u8], payload: &[u8], restart: bool) {
        let restart = (restart && self.entries > 0) || self.counter >= self.interval;
        let shared = if !restart {
            self.last_key
                .iter()
                .zip(key)
                .take_while(|(a, b)| a == b)
                .count()
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
        self.buf.extend_from_slice(payload);
        self.last_key.truncate(shared);
        self.last_key.extend_from_slice(delta);
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
    }
}
