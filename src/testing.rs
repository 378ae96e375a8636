//! Test hooks, compiled with the `testing` feature only (the crate's own integration tests,
//! benches and examples turn it on through their dev-dependency): not a stable API. What they
//! need beyond the public API and [`crate::inspect`], item by item: the filesystem seam (fault
//! injection, in-memory databases), the record framing of the log and the manifest (to find
//! and damage records, to write manifests no engine would), and the engine's components for
//! the component benchmarks and profiling examples. The fuzz targets' bodies are in
//! [`crate::fuzzing`].

/// The filesystem seam: every file operation of the engine goes through [`io::FileSystem`];
/// [`crate::Db::open_with_fs`] opens a database on another implementation.
pub mod io {
    pub use crate::base::io::{
        FaultFs, FileKind, FileLock, FileSystem, MemFs, ReadAtFile, ReadableFile, StdFs,
        WritableFile,
    };
}

/// The write-ahead log and the CRC-framed record log it shares with the manifest.
pub mod wal {
    pub use crate::storage::wal::record::{LogRecord, TailPolicy, encode_record, read_records};
    pub use crate::storage::wal::{Wal, WalOptions, WalSync};
}

/// Manifest edits and record types, to write manifests no engine would.
pub mod manifest {
    pub use crate::storage::manifest::{Edit, RECORD_EDIT, RECORD_SNAPSHOT_END, RegionDef};
}

/// Cell keys, payloads and the cursor protocol.
pub mod model {
    pub use crate::model::cursor::CellCursor;
    pub use crate::model::key::{KeyRef, first_on_row};
    pub use crate::model::payload::{self, PayloadRef};
}

/// The memstore.
pub mod memstore {
    pub use crate::storage::memstore::{MemCursor, MemStore};
}

/// Block files and their blocks.
pub mod sst {
    pub use crate::storage::sst::block::{Block, BlockIter};
    pub use crate::storage::sst::block_builder::BlockBuilder;
    pub use crate::storage::sst::bloom::{BloomBuilder, BloomFilter};
    pub use crate::storage::sst::{
        BlockCache, CachePolicy, EntryEncoding, SstReader, SstWriter, SstWriterConfig,
    };
}

/// The read path's merge and visibility rules.
pub mod read {
    pub use crate::read::matcher::{ReadSpec, UserMatcher};
    pub use crate::read::merge::MergeCursor;
}
