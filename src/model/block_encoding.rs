//! A family's DATA_BLOCK_ENCODING (HBase 2.6's `DataBlockEncoding` names) and the family
//! attribute that stores it. Which bytes each name writes is the block file format's business
//! (docs/FORMAT.md, section 2, "Data block entry encodings"; docs/SEMANTICS.md has the
//! mapping and why).

use crate::base::error::{Error, Result};

/// The family attribute (table descriptor encoding version 4) holding a family's
/// [`DataBlockEncoding`] by its HBase name; absent for `NONE`.
pub const DATA_BLOCK_ENCODING_KEY: &str = "DATA_BLOCK_ENCODING";

/// How a family's data blocks encode their cells (HBase's `DATA_BLOCK_ENCODING`, the names of
/// HBase 2.6's `org.apache.hadoop.hbase.io.encoding.DataBlockEncoding`).
///
/// cellbase has two entry encodings, and every HBase name maps to the one that does what the
/// HBase encoding is for:
///
/// * [`DataBlockEncoding::None`] (the default), [`DataBlockEncoding::Prefix`] and
///   [`DataBlockEncoding::RowIndexV1`] write cellbase's prefix-compressed entries: every key
///   shares its prefix with the key before it (what HBase's PREFIX does), and every row with
///   two or more cells in a block starts at a restart point that a seek finds by binary
///   search (what HBase's ROW_INDEX_V1 row index gives). cellbase has no uncompressed layout
///   for NONE to select.
/// * [`DataBlockEncoding::Diff`] and [`DataBlockEncoding::FastDiff`] write suffix-delta
///   entries: the row, family and qualifier prefix-compressed as above, and the 17-byte
///   timestamp / type / sequence id suffix coded against the previous cell's (a flag when a
///   field repeats, a zigzag varint delta when it does not), as HBase's DIFF and FAST_DIFF
///   code the timestamp and type against the previous cell. Smaller blocks (more cells in
///   the block cache), a little more work per cell decoded.
///
/// The encoding applies to the files written after it is set (flushes and compactions);
/// every file records its own, so files written before an `alter` are read as written until
/// a compaction rewrites them, as in HBase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DataBlockEncoding {
    /// NONE (the default): prefix-compressed entries.
    #[default]
    None,
    /// PREFIX: prefix-compressed entries (the same bytes as NONE).
    Prefix,
    /// DIFF: suffix-delta entries (the same bytes as FAST_DIFF).
    Diff,
    /// FAST_DIFF: suffix-delta entries.
    FastDiff,
    /// ROW_INDEX_V1: prefix-compressed entries, whose restart points at the first cell of
    /// every row of two or more cells are the in-block row index (the same bytes as NONE).
    RowIndexV1,
}

impl DataBlockEncoding {
    /// Every encoding, in HBase's id order.
    pub const ALL: [DataBlockEncoding; 5] = [
        DataBlockEncoding::None,
        DataBlockEncoding::Prefix,
        DataBlockEncoding::Diff,
        DataBlockEncoding::FastDiff,
        DataBlockEncoding::RowIndexV1,
    ];

    /// HBase's name, as `describe` prints it: NONE, PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1.
    pub fn hbase_name(self) -> &'static str {
        match self {
            DataBlockEncoding::None => "NONE",
            DataBlockEncoding::Prefix => "PREFIX",
            DataBlockEncoding::Diff => "DIFF",
            DataBlockEncoding::FastDiff => "FAST_DIFF",
            DataBlockEncoding::RowIndexV1 => "ROW_INDEX_V1",
        }
    }

    /// Parses HBase's name, ASCII case-insensitive (the shell's `DataBlockEncoding.valueOf(
    /// name.upcase)`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for any other name (PREFIX_TREE, removed in HBase 2.0,
    /// included).
    pub fn from_hbase_name(name: &str) -> Result<DataBlockEncoding> {
        let upper = name.to_ascii_uppercase();
        DataBlockEncoding::ALL
            .into_iter()
            .find(|e| e.hbase_name() == upper)
            .ok_or_else(|| {
                Error::invalid(format!(
                    "DATA_BLOCK_ENCODING {name} is not supported (NONE, PREFIX, DIFF, FAST_DIFF, \
                     ROW_INDEX_V1)"
                ))
            })
    }

    /// True for the encodings written as suffix-delta entries (DIFF, FAST_DIFF); false for
    /// those written as prefix-compressed entries (NONE, PREFIX, ROW_INDEX_V1).
    pub fn deltas_suffix(self) -> bool {
        matches!(self, DataBlockEncoding::Diff | DataBlockEncoding::FastDiff)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hbase_names_round_trip_in_any_case() {
        for e in DataBlockEncoding::ALL {
            assert_eq!(
                DataBlockEncoding::from_hbase_name(e.hbase_name()).unwrap(),
                e
            );
            let lower = e.hbase_name().to_ascii_lowercase();
            assert_eq!(DataBlockEncoding::from_hbase_name(&lower).unwrap(), e);
        }
        assert_eq!(
            DataBlockEncoding::from_hbase_name("Fast_Diff").unwrap(),
            DataBlockEncoding::FastDiff
        );
        for bad in ["PREFIX_TREE", "", "FASTDIFF", "ROW_INDEX_V2"] {
            assert!(matches!(
                DataBlockEncoding::from_hbase_name(bad),
                Err(Error::InvalidArgument(_))
            ));
        }
        let suffix: Vec<_> = DataBlockEncoding::ALL
            .into_iter()
            .filter(|e| e.deltas_suffix())
            .collect();
        assert_eq!(
            suffix,
            [DataBlockEncoding::Diff, DataBlockEncoding::FastDiff]
        );
        assert_eq!(DataBlockEncoding::default(), DataBlockEncoding::None);
    }

    /// Stored as the family attribute DATA_BLOCK_ENCODING by name (descriptor version 4),
    /// only when not NONE: a table of NONE families keeps the older descriptor version.
    #[test]
    fn kept_by_name_in_the_table_descriptor() {
        use crate::base::codec::Reader;
        use crate::model::schema::{FamilyDescriptor, TableDescriptor};
        for e in DataBlockEncoding::ALL {
            let d = TableDescriptor::new("t")
                .family(FamilyDescriptor::new("f").data_block_encoding(e))
                .family(FamilyDescriptor::new("g"));
            d.validate().unwrap();
            let mut b = Vec::new();
            d.encode_into(&mut b);
            assert_eq!(
                b[0],
                if e == DataBlockEncoding::None { 2 } else { 4 },
                "{e:?}"
            );
            let back = TableDescriptor::decode(&mut Reader::new(&b)).unwrap();
            assert_eq!(back, d);
            assert_eq!(back.families()[0].data_block_encoding, e);
            assert_eq!(
                back.families()[1].data_block_encoding,
                DataBlockEncoding::None
            );
        }
        // An unknown name in the attribute is a decode error, not a silent NONE.
        let mut f = FamilyDescriptor::new("f");
        assert!(
            crate::model::family::apply_family_attribute(&mut f, DATA_BLOCK_ENCODING_KEY, "BAD")
                .is_err()
        );
    }
}
