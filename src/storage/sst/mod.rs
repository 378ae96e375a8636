//! Block files (HFile-like immutable sorted files).
//!
//! ```text
//! [data block]* [bloom block]? [index block] [meta block] [trailer (64 bytes)]
//! ```
//!
//! Every block is framed as `payload | compression: u8 | crc32: u32 BE`. Data blocks hold
//! sorted cells with prefix-compressed keys and restart points ([`block`]), or with
//! delta-coded key suffixes ([`encoding`], recorded per file); the bloom block a
//! ROW or ROWCOL filter ([`bloom`]); the index one entry per data block ([`index`]); the meta
//! block the [`FileMeta`] ([`meta`]); the trailer magic, version and handles ([`trailer`]).
//! docs/FORMAT.md (section 2) describes every byte.
//!
//! [`SstWriter`] writes a file from sorted cells; [`SstReader`] opens and validates one and hands
//! out [`SstCursor`]s, which read data blocks through the shared [`BlockCache`].

pub mod block;
pub mod block_builder;
pub mod bloom;
mod cache;
mod compress;
mod cursor;
pub mod encoding;
pub mod frame;
pub mod index;
pub mod meta;
mod reader;
pub mod trailer;
mod writer;
mod xxh64;

pub use cache::{BlockCache, CachePolicy};
pub use cursor::SstCursor;
pub use encoding::EntryEncoding;
pub use meta::FileMeta;
pub use reader::SstReader;
pub use trailer::{FORMAT_VERSION, MAGIC, TRAILER_LEN};
pub use writer::{SstWriter, SstWriterConfig};

#[cfg(test)]
mod corruption_tests;
#[cfg(test)]
mod encoding_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod testutil;

/// Path of block file `id`.
pub fn sst_path(dir: &std::path::Path, id: u64) -> std::path::PathBuf {
    dir.join("data").join(format!("{id:010}.sst"))
}

/// The id of a block file name (`{id:010}.sst`, exactly as the engine writes it).
pub fn parse_sst_name(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(".sst")?;
    if digits.len() != 10 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}
