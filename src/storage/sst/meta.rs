//! [`FileMeta`]: what a block file holds, summarized so reads, compactions and splits can
//! decide about a file without scanning it.
//!
//! Meta block payload (all integers big-endian):
//!
//! ```text
//! version: u8 (1 or 2) | first_key_len: varint | first_key | last_key_len: varint | last_key
//! | min_ts: i64 | max_ts: i64 | max_seq: u64 | cell_count: u64 | put_count: u64
//! | delete_count: u64 | earliest_put_ts: i64 | bloom: u8 [bloom 3 only: prefix_len: u32]
//! | compression: u8
//! | data_blocks: u64 | raw_data_bytes: u64
//! [version 3 and later:] | db_id: u64 | file_id: u64 | table_id: u64 | family_len: varint
//! | family
//! [version 4 and later:] | written_ms: i64 (i64::MIN = unknown) | flags: u8 (bit 0: written
//! by a major compaction)
//! [version 5:] | entry_encoding: u8 (0 prefix, 1 suffix delta)
//! ```
//!
//! Writers write version 5 only for files of the suffix-delta entry encoding, version 4
//! otherwise, so files of families that keep DATA_BLOCK_ENCODING NONE stay readable by
//! readers of version 4.
//!
//! `file_size` is not stored: it is the file's length.

use super::bloom::{put_bloom_type, read_bloom_type};
use super::encoding::EntryEncoding;
use crate::base::codec::{self, DecodeError, Reader};
use crate::model::key::{CellType, KeyRef};
use crate::model::schema::{BloomType, Compression};

/// Version byte of the meta block encoding that writers write. Version 2 has the layout of
/// version 1; it marks a file whose index keys may be row separators (docs/FORMAT.md, index
/// block), which readers of version 1 would reject. Version 3 adds the file's identity
/// ([`FileIdentity`]) at the end of the meta block; version 4 adds when the file was written
/// and whether a major compaction wrote it ([`FileMeta::written_ms`],
/// [`FileMeta::major_compaction`]). Version 5 ([`META_VERSION_V5`]) adds the entry encoding;
/// writers write it only for suffix-delta files.
pub const META_VERSION: u8 = 4;

/// Meta version 5: version 4 plus the data blocks' entry encoding
/// ([`FileMeta::encoding`]); written for files whose entries are not prefix-compressed.
pub const META_VERSION_V5: u8 = 5;

/// Meta version 3: the identity, no write time. Still read.
pub const META_VERSION_V3: u8 = 3;

/// Meta version 2: index keys may be row separators; no identity. Still read.
pub const META_VERSION_V2: u8 = 2;

/// Where a block file belongs: checked against the manifest when a database opens the file,
/// so a file copied or moved into another file's place is reported as corruption instead of
/// being read as that file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileIdentity {
    /// The database's identity (the manifest's [`crate::storage::manifest::Edit::Ids`]).
    pub db_id: u64,
    /// The file's id (`data/{file_id:010}.sst`).
    pub file_id: u64,
    /// The table it was written for.
    pub table_id: u64,
    /// The family (store) it belongs to.
    pub family: Vec<u8>,
}

/// The first meta version (index keys are always the blocks' first cell keys); still read.
pub const META_VERSION_V1: u8 = 1;

/// Why a meta block could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetaDecodeError {
    /// An unknown meta version (reported as `UnsupportedFormat`).
    Version(u8),
    /// Malformed content (reported as `Corruption`).
    Malformed(DecodeError),
}

/// Summary of one block file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileMeta {
    /// Meta block version ([`META_VERSION`] for files written now, [`META_VERSION_V1`] for
    /// older files).
    pub version: u8,
    /// File length in bytes.
    pub file_size: u64,
    /// Encoded key of the first cell (empty for a file without cells).
    pub first_key: Vec<u8>,
    /// Encoded key of the last cell (empty for a file without cells).
    pub last_key: Vec<u8>,
    /// Smallest timestamp over all cells (`i64::MAX` without cells).
    pub min_ts: i64,
    /// Largest timestamp over all cells (`i64::MIN` without cells).
    pub max_ts: i64,
    /// Largest sequence id (0 without cells). The outputs of one date-tiered compaction all
    /// record their inputs' largest (HBase's one sequence id per compaction), which can be
    /// above their own cells'.
    pub max_seq: u64,
    /// Number of cells.
    pub cell_count: u64,
    /// Number of Put cells.
    pub put_count: u64,
    /// Number of delete markers (all four kinds).
    pub delete_count: u64,
    /// Smallest timestamp over Put cells, `i64::MAX` if none (HBase EARLIEST_PUT_TS) [KDC-4].
    pub earliest_put_ts: i64,
    /// The file's Bloom filter type.
    pub bloom: BloomType,
    /// The compression the writer was configured with (blocks that did not shrink are stored
    /// uncompressed regardless).
    pub compression: Compression,
    /// Number of data blocks.
    pub data_blocks: u64,
    /// Sum of the uncompressed sizes of the data blocks.
    pub raw_data_bytes: u64,
    /// Where the file belongs (meta version 3; `None` in older files and in files written
    /// without one, such as tools' test files).
    pub identity: Option<FileIdentity>,
    /// When the file was written, by the database clock in milliseconds (meta version 4;
    /// `None` in older files and files written without one): the age the periodic major
    /// compaction reads (HBase uses the file's modification time).
    pub written_ms: Option<i64>,
    /// Written by a major compaction (all of a store's files; HBase's `MAJOR_COMPACTION_KEY`;
    /// false in files before meta version 4).
    pub major_compaction: bool,
    /// How the data blocks' entries store their keys (meta version 5; prefix-compressed in
    /// older files).
    pub encoding: EntryEncoding,
}

impl FileMeta {
    /// True when the file's index keys may be row separators (meta version 2 and later), not only
    /// first cell keys.
    pub fn index_separators(&self) -> bool {
        self.version >= META_VERSION_V2
    }

    /// Meta of a file with no cells yet.
    pub fn empty(bloom: BloomType, compression: Compression) -> FileMeta {
        FileMeta {
            version: META_VERSION,
            file_size: 0,
            first_key: Vec::new(),
            last_key: Vec::new(),
            min_ts: i64::MAX,
            max_ts: i64::MIN,
            max_seq: 0,
            cell_count: 0,
            put_count: 0,
            delete_count: 0,
            earliest_put_ts: i64::MAX,
            bloom,
            compression,
            data_blocks: 0,
            raw_data_bytes: 0,
            identity: None,
            written_ms: None,
            major_compaction: false,
            encoding: EntryEncoding::Prefix,
        }
    }

    /// Sets the data blocks' entry encoding and the meta version that records it: 5 for
    /// suffix-delta entries, [`META_VERSION`] for prefix-compressed ones.
    pub fn set_encoding(&mut self, encoding: EntryEncoding) {
        self.encoding = encoding;
        self.version = match encoding {
            EntryEncoding::Prefix => META_VERSION,
            EntryEncoding::SuffixDelta => META_VERSION_V5,
        };
    }

    /// Row of the first cell (empty without cells).
    pub fn first_row(&self) -> &[u8] {
        KeyRef::parse(&self.first_key).map_or(&[], |k| k.row)
    }

    /// Row of the last cell (empty without cells).
    pub fn last_row(&self) -> &[u8] {
        KeyRef::parse(&self.last_key).map_or(&[], |k| k.row)
    }

    /// Folds one cell into the statistics (not the keys or block counts).
    pub(crate) fn account(&mut self, k: &KeyRef<'_>, t: CellType) {
        self.cell_count += 1;
        self.min_ts = self.min_ts.min(k.ts);
        self.max_ts = self.max_ts.max(k.ts);
        self.max_seq = self.max_seq.max(k.seq);
        if t == CellType::Put {
            self.put_count += 1;
            self.earliest_put_ts = self.earliest_put_ts.min(k.ts);
        } else {
            self.delete_count += 1;
        }
    }

    /// Appends the meta block payload (everything but `file_size`).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.push(self.version);
        codec::put_bytes(out, &self.first_key);
        codec::put_bytes(out, &self.last_key);
        codec::put_i64(out, self.min_ts);
        codec::put_i64(out, self.max_ts);
        codec::put_u64(out, self.max_seq);
        codec::put_u64(out, self.cell_count);
        codec::put_u64(out, self.put_count);
        codec::put_u64(out, self.delete_count);
        codec::put_i64(out, self.earliest_put_ts);
        put_bloom_type(out, self.bloom);
        out.push(self.compression.code());
        codec::put_u64(out, self.data_blocks);
        codec::put_u64(out, self.raw_data_bytes);
        if self.version >= META_VERSION_V3 {
            let id = self.identity.clone().unwrap_or(FileIdentity {
                db_id: 0,
                file_id: 0,
                table_id: 0,
                family: Vec::new(),
            });
            codec::put_u64(out, id.db_id);
            codec::put_u64(out, id.file_id);
            codec::put_u64(out, id.table_id);
            codec::put_bytes(out, &id.family);
        }
        if self.version >= META_VERSION {
            codec::put_i64(out, self.written_ms.unwrap_or(i64::MIN));
            out.push(u8::from(self.major_compaction));
        }
        if self.version >= META_VERSION_V5 {
            out.push(self.encoding.code());
        }
    }

    /// Decodes a meta block payload written by [`FileMeta::encode_into`]; offsets in errors are
    /// relative to `payload`. A version outside [`META_VERSION_V1`] ..= [`META_VERSION_V5`]
    /// is reported as [`MetaDecodeError::Version`] so the caller can raise
    /// `UnsupportedFormat`.
    ///
    /// # Errors
    /// Short data, trailing bytes, unknown codes, malformed keys, inconsistent counts.
    pub fn decode(payload: &[u8], file_size: u64) -> Result<FileMeta, MetaDecodeError> {
        let mut r = Reader::new(payload);
        let version = r.u8("meta version").map_err(MetaDecodeError::Malformed)?;
        if !(META_VERSION_V1..=META_VERSION_V5).contains(&version) {
            return Err(MetaDecodeError::Version(version));
        }
        Self::decode_body(&mut r, version, file_size).map_err(MetaDecodeError::Malformed)
    }

    /// Everything after the version byte (versions 1 and 2 share the layout; 3 adds the
    /// identity at the end, 4 the write time and flags after it, 5 the entry encoding).
    fn decode_body(
        r: &mut Reader<'_>,
        version: u8,
        file_size: u64,
    ) -> Result<FileMeta, DecodeError> {
        let first_key = r.bytes("meta first key")?.to_vec();
        let last_key = r.bytes("meta last key")?.to_vec();
        let mut m = FileMeta {
            version,
            file_size,
            first_key,
            last_key,
            min_ts: r.i64("meta min ts")?,
            max_ts: r.i64("meta max ts")?,
            max_seq: r.u64("meta max seq")?,
            cell_count: r.u64("meta cell count")?,
            put_count: r.u64("meta put count")?,
            delete_count: r.u64("meta delete count")?,
            earliest_put_ts: r.i64("meta earliest put ts")?,
            bloom: BloomType::None,
            compression: Compression::None,
            data_blocks: 0,
            raw_data_bytes: 0,
            identity: None,
            written_ms: None,
            major_compaction: false,
            encoding: EntryEncoding::Prefix,
        };
        let bad = |what, offset| DecodeError { what, offset };
        m.bloom = read_bloom_type(r, "meta bloom type")?;
        let at = r.pos();
        m.compression =
            Compression::from_code(r.u8("meta compression")?).ok_or(bad("meta compression", at))?;
        m.data_blocks = r.u64("meta data block count")?;
        m.raw_data_bytes = r.u64("meta raw data bytes")?;
        if version >= META_VERSION_V3 {
            let id = FileIdentity {
                db_id: r.u64("meta database id")?,
                file_id: r.u64("meta file id")?,
                table_id: r.u64("meta table id")?,
                family: r.bytes("meta family")?.to_vec(),
            };
            // A file written without an identity records zeros and no family.
            m.identity = (id.db_id != 0 || !id.family.is_empty()).then_some(id);
        }
        if version >= META_VERSION {
            let written = r.i64("meta write time")?;
            m.written_ms = (written != i64::MIN).then_some(written);
            let at = r.pos();
            let flags = r.u8("meta flags")?;
            if flags > 1 {
                return Err(bad("unknown meta flags", at));
            }
            m.major_compaction = flags & 1 != 0;
        }
        if version >= META_VERSION_V5 {
            let at = r.pos();
            m.encoding = EntryEncoding::from_code(r.u8("meta entry encoding")?)
                .ok_or(bad("unknown data block entry encoding", at))?;
        }
        if !r.is_empty() {
            return Err(bad("trailing bytes after meta", r.pos()));
        }
        if m.put_count.checked_add(m.delete_count) != Some(m.cell_count) {
            return Err(bad("meta cell counts inconsistent", 0));
        }
        if m.cell_count == 0 {
            if !m.first_key.is_empty() || !m.last_key.is_empty() {
                return Err(bad("meta keys present without cells", 0));
            }
        } else if [&m.first_key, &m.last_key]
            .iter()
            .any(|k| KeyRef::parse(k).and_then(|k| k.cell_type()).is_none())
            || m.min_ts > m.max_ts
        {
            return Err(bad("meta key range or time range malformed", 0));
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_round_trip_and_version() {
        let mut m = FileMeta::empty(BloomType::RowCol, Compression::Snappy);
        let k = KeyRef {
            row: b"r",
            family: b"f",
            qualifier: b"q",
            ts: 5,
            type_code: 4,
            seq: 9,
        };
        m.first_key = k.encode();
        m.last_key = k.encode();
        m.account(&k, CellType::Put);
        m.data_blocks = 1;
        m.raw_data_bytes = 77;
        m.file_size = 1234;
        let mut b = Vec::new();
        m.encode_into(&mut b);
        assert_eq!(FileMeta::decode(&b, 1234).unwrap(), m);
        assert_eq!((m.first_row(), m.last_row()), (&b"r"[..], &b"r"[..]));
        assert_eq!(b[0], META_VERSION);
        // Version 3 records where the file belongs.
        let mut placed = m.clone();
        placed.identity = Some(FileIdentity {
            db_id: 0xfeed,
            file_id: 34,
            table_id: 2,
            family: b"cf".to_vec(),
        });
        let mut pb = Vec::new();
        placed.encode_into(&mut pb);
        assert_eq!(FileMeta::decode(&pb, 1234).unwrap(), placed);
        // Versions 1 and 2 (older files): the layout without the identity, still read.
        let mut v2 = m.clone();
        v2.version = META_VERSION_V2;
        let mut b2 = Vec::new();
        v2.encode_into(&mut b2);
        assert_eq!(FileMeta::decode(&b2, 1234).unwrap(), v2);
        let mut v1 = b2.clone();
        v1[0] = 1;
        let old = FileMeta::decode(&v1, 1234).unwrap();
        assert_eq!((old.version, old.index_separators()), (1, false));
        assert!(m.index_separators());
        // Version 4 records the write time and the major compaction flag.
        let mut timed = placed.clone();
        timed.written_ms = Some(1_700_000_000_000);
        timed.major_compaction = true;
        let mut tb = Vec::new();
        timed.encode_into(&mut tb);
        assert_eq!(FileMeta::decode(&tb, 1234).unwrap(), timed);
        // Version 3 (the identity, no write time) is still read.
        let mut v3 = placed.clone();
        v3.version = META_VERSION_V3;
        let mut b3 = Vec::new();
        v3.encode_into(&mut b3);
        assert_eq!(FileMeta::decode(&b3, 1234).unwrap(), v3);
        let mut bad_flags = tb.clone();
        *bad_flags.last_mut().unwrap() = 2;
        assert!(matches!(
            FileMeta::decode(&bad_flags, 1234),
            Err(MetaDecodeError::Malformed(_))
        ));
        // Version 5 records the entry encoding; written only for suffix-delta files.
        let mut v5 = timed.clone();
        v5.set_encoding(EntryEncoding::SuffixDelta);
        assert_eq!(v5.version, META_VERSION_V5);
        let mut b5 = Vec::new();
        v5.encode_into(&mut b5);
        assert_eq!(b5.len(), tb.len() + 1);
        assert_eq!(FileMeta::decode(&b5, 1234).unwrap(), v5);
        let mut bad_enc = b5.clone();
        *bad_enc.last_mut().unwrap() = 2;
        assert!(matches!(
            FileMeta::decode(&bad_enc, 1234),
            Err(MetaDecodeError::Malformed(_))
        ));
        v5.set_encoding(EntryEncoding::Prefix);
        assert_eq!(v5, timed);
        for v in [0u8, 6, 255] {
            let mut other = b.clone();
            other[0] = v;
            assert_eq!(
                FileMeta::decode(&other, 0),
                Err(MetaDecodeError::Version(v))
            );
        }
        for cut in 0..b.len() {
            assert!(matches!(
                FileMeta::decode(&b[..cut], 0),
                Err(MetaDecodeError::Malformed(_))
            ));
        }
        let e = FileMeta::empty(BloomType::None, Compression::None);
        assert_eq!(e.first_row(), b"");
        let mut b = Vec::new();
        e.encode_into(&mut b);
        assert_eq!(FileMeta::decode(&b, 0).unwrap(), e);
    }

    /// [BLOOM-5] a ROWPREFIX_FIXED_LENGTH file records its prefix length after the Bloom code;
    /// a length of 0 is malformed.
    #[test]
    fn row_prefix_bloom_round_trips_with_its_length() {
        let m = FileMeta::empty(BloomType::RowPrefixFixedLength(12), Compression::None);
        let mut b = Vec::new();
        m.encode_into(&mut b);
        let back = FileMeta::decode(&b, 0).unwrap();
        assert_eq!(back.bloom, BloomType::RowPrefixFixedLength(12));
        let at = b.windows(5).position(|w| w == [3, 0, 0, 0, 12]).unwrap();
        b[at + 4] = 0;
        assert!(matches!(
            FileMeta::decode(&b, 0),
            Err(MetaDecodeError::Malformed(_))
        ));
    }
}
