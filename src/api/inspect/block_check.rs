//! The check of one block file's bytes, block by block: it goes on past damage, so every
//! damaged block is reported, and it reports even a file whose trailer is gone.

use super::files::OwnedFile;
use super::{Finding, key_text};
use crate::base::codec::DecodeError;
use crate::base::error::Error;
use crate::base::util::to_string_binary;
use crate::model::key::{KeyRef, compare_encoded};
use crate::model::payload::PayloadRef;
use crate::storage::sst::EntryEncoding;
use crate::storage::sst::SstReader;
use crate::storage::sst::block::{Block, BlockIter};
use crate::storage::sst::bloom::BloomFilter;
use crate::storage::sst::frame::{self, BlockHandle};
use crate::storage::sst::index::{Index, index_key_fits};
use crate::storage::sst::meta::{FileMeta, MetaDecodeError};
use crate::storage::sst::trailer::Trailer;
use std::cmp::Ordering;
use std::path::Path;
use std::sync::Arc;

/// What [`check_blocks`] found and read.
#[derive(Debug, Default)]
pub(super) struct BlockCheck {
    /// Every problem, in file order.
    pub findings: Vec<Finding>,
    /// Blocks checked: the trailer, meta, Bloom and index blocks, and each data block.
    pub blocks: u64,
    /// Cells read from the data blocks.
    pub cells: u64,
    /// The data blocks the index lists (`None` when the index could not be read).
    pub data_blocks: Option<usize>,
}

impl BlockCheck {
    fn error(&mut self, path: &Path, offset: Option<u64>, detail: impl Into<String>) {
        self.findings.push(Finding::error(path, offset, detail));
    }

    /// An engine error, with `suffix` (the block's byte range) added to its detail.
    fn engine(&mut self, path: &Path, e: Error, suffix: &str) {
        let mut f = Finding::from_engine(path, e);
        f.detail.push_str(suffix);
        self.findings.push(f);
    }

    fn has_errors(&self) -> bool {
        !self.findings.is_empty()
    }
}

fn range(h: BlockHandle) -> String {
    format!(" [block bytes {}..{}]", h.offset, h.end())
}

/// The finding for data block `i` (at `h`) that does not decode.
fn decode_error(i: usize, e: &DecodeError, h: BlockHandle) -> String {
    format!(
        "data block {i}: {} at byte {} of the decoded block{}",
        e.what,
        e.offset,
        range(h)
    )
}

/// Checks the block file `file` read from `path`: trailer, meta block, Bloom block, index
/// block, then every data block the index lists (checksum, decoding, key order, index key,
/// payloads and, with `family`, that every cell is of that family). When all of that is sound
/// and `cross_check` is set, the engine's own verification runs too (statistics, index and
/// Bloom filter against the cells).
pub(super) fn check_blocks(
    path: &Path,
    file: &Arc<OwnedFile>,
    family: Option<&[u8]>,
    cross_check: bool,
) -> BlockCheck {
    let mut out = BlockCheck::default();
    let bytes: &[u8] = &file.0;
    let trailer = match Trailer::decode(bytes, path) {
        Ok(t) => t,
        Err(e) => {
            out.engine(path, e, "");
            out.error(
                path,
                None,
                "no block located without a valid trailer: blocks not checked",
            );
            return out;
        }
    };
    out.blocks += 1;
    let data_end = trailer.data_end();
    // Meta block.
    let mut meta: Option<FileMeta> = None;
    out.blocks += 1;
    match frame::read_frame(bytes, trailer.meta, trailer.meta.end(), path, "meta block") {
        Ok(raw) => match FileMeta::decode(&raw, bytes.len() as u64) {
            Ok(m) => meta = Some(m),
            Err(MetaDecodeError::Version(v)) => out.error(
                path,
                Some(trailer.meta.offset),
                format!("meta block version {v} unsupported"),
            ),
            Err(MetaDecodeError::Malformed(e)) => out.error(
                path,
                Some(trailer.meta.offset),
                format!(
                    "meta block: {} at byte {} of the block{}",
                    e.what,
                    e.offset,
                    range(trailer.meta)
                ),
            ),
        },
        Err(e) => out.engine(path, e, &range(trailer.meta)),
    }
    // Bloom block.
    if let Some(h) = trailer.bloom {
        out.blocks += 1;
        match frame::read_frame(bytes, h, h.end(), path, "bloom block") {
            Ok(raw) => {
                if let Err(e) = BloomFilter::decode(&raw) {
                    out.error(
                        path,
                        Some(h.offset),
                        format!(
                            "bloom block: {} at byte {} of the block{}",
                            e.what,
                            e.offset,
                            range(h)
                        ),
                    );
                }
            }
            Err(e) => out.engine(path, e, &range(h)),
        }
    }
    // Index block, then every data block it lists.
    out.blocks += 1;
    let index = match frame::read_frame(
        bytes,
        trailer.index,
        trailer.index.end(),
        path,
        "index block",
    ) {
        // A damaged meta block is reported on its own: the index is then read as the newer
        // layout allows (row separators), so the damage does not cascade.
        Ok(raw) => match Index::decode_with(
            &raw,
            data_end,
            meta.as_ref().is_none_or(FileMeta::index_separators),
        ) {
            Ok(i) => Some(i),
            Err(e) => {
                out.error(
                    path,
                    Some(trailer.index.offset),
                    format!(
                        "index block: {} at byte {} of the block{}",
                        e.what,
                        e.offset,
                        range(trailer.index)
                    ),
                );
                None
            }
        },
        Err(e) => {
            out.engine(path, e, &range(trailer.index));
            None
        }
    };
    let Some(index) = index else {
        out.error(
            path,
            Some(0),
            "data blocks not checked: the index that locates them is damaged",
        );
        return out;
    };
    out.data_blocks = Some(index.len());
    let separators = meta.as_ref().is_none_or(FileMeta::index_separators);
    let mut prev: Vec<u8> = Vec::new();
    for i in 0..index.len() {
        let Some(h) = index.handle(i) else { break };
        out.blocks += 1;
        let raw = match frame::read_frame(bytes, h, data_end, path, "data block") {
            Ok(r) => r,
            Err(e) => {
                out.engine(path, e, &format!(" (data block {i}){}", range(h)));
                continue;
            }
        };
        // The meta block says how entries store their keys; without a sound one, a block
        // that decodes as either encoding is taken as such.
        let decoded = match meta.as_ref().map(|m| m.encoding) {
            Some(enc) => Block::decode_with(raw.into_owned(), enc),
            None => Block::decode_with(raw.to_vec(), EntryEncoding::Prefix).or_else(|e| {
                Block::decode_with(raw.into_owned(), EntryEncoding::SuffixDelta).map_err(|_| e)
            }),
        };
        let block = match decoded {
            Ok(b) => Arc::new(b),
            Err(e) => {
                out.error(path, Some(h.offset), decode_error(i, &e, h));
                continue;
            }
        };
        let mut it = BlockIter::new(block, Vec::new());
        let mut first = true;
        let mut r = it.seek_to_first();
        while r.is_ok() && it.valid() {
            let key = it.key();
            if first
                && !index
                    .first_key(i)
                    .is_some_and(|k| index_key_fits(&k, key, &prev, i > 0 && separators))
            {
                out.error(
                    path,
                    Some(h.offset),
                    format!(
                        "data block {i}: first key disagrees with the index{}",
                        range(h)
                    ),
                );
            }
            first = false;
            if out.cells > 0 && compare_encoded(&prev, key) != Ordering::Less {
                out.error(
                    path,
                    Some(h.offset),
                    format!(
                        "data block {i}: key {} not after {}{}",
                        key_text(key),
                        key_text(&prev),
                        range(h)
                    ),
                );
            }
            if let (Some(fam), Some(k)) = (family, KeyRef::parse(key))
                && k.family != fam
            {
                out.error(
                    path,
                    Some(h.offset),
                    format!(
                        "data block {i}: cell of family {} in a file the manifest lists for \
                         family {}",
                        to_string_binary(k.family),
                        to_string_binary(fam)
                    ),
                );
                // One report per block is enough.
                break;
            }
            if PayloadRef::parse(it.payload()).is_none() {
                out.error(
                    path,
                    Some(h.offset),
                    format!("data block {i}: malformed payload{}", range(h)),
                );
            }
            out.cells += 1;
            prev.clear();
            prev.extend_from_slice(key);
            r = it.advance();
        }
        if let Err(e) = r {
            out.error(path, Some(h.offset), decode_error(i, &e, h));
        }
    }
    // Cross-checks of the statistics, index and Bloom filter against the cells (the engine's
    // own verification), once every block reads.
    if cross_check && !out.has_errors() && meta.is_some() {
        let verified = SstReader::from_file(file.clone(), path, 0, None).and_then(|r| r.verify());
        if let Err(e) = verified {
            out.engine(path, e, "");
        }
    }
    out
}
