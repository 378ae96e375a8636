//! Filters: the [`Filter`] tree a Get or Scan carries, HBase's filter language
//! ([`Filter::parse`], `ParseFilter`) and the evaluator the read path runs
//! ([`eval::FilterRunner`], HBase's `Filter` protocol).
//!
//! Semantics follow HBase 2.6 (`hbase-client/.../filter/*.java`), rule IDs [FLT-1]..[FLT-10]
//! in `shared/hbase-semantics.md`:
//!
//! * Compare filters read naturally, `cell OP expected` [FLT-1] — the opposite of
//!   CheckAndMutate's `expected OP stored` [CAM-2].
//! * Comparators are unsigned lexicographic (`Binary`), prefix-only (`BinaryPrefix`),
//!   case-insensitive contains (`Substring`, 0/1) or Java regex `find()` (`Regex`, 0/1) [FLT-2];
//!   the API-only `Long`, `Bit` and `Null` comparators follow HBase's classes [FLT-2].
//!   Java regex syntax is translated where it differs from the `regex` crate and rejected
//!   (`InvalidArgument`) where it cannot be represented (look-around, back-references,
//!   possessive quantifiers, ...): see [`Filter::validate`].
//! * `All` / `Any` are FilterList `MUST_PASS_ALL` / `MUST_PASS_ONE` with HBase's return-code
//!   merging (`FilterListWithAND` / `FilterListWithOR`); an empty list passes everything
//!   [FLT-10].
//!
//! # Layout
//!
//! Each HBase filter class is a type implementing HBase's `Filter` protocol (the
//! crate-internal trait `FilterImpl`, `protocol.rs`), in one file per family: `compare.rs`
//! (Row, Family, Qualifier, Value; the comparators), `value.rs` (SingleColumnValue and its
//! exclude form, DependentColumn, ColumnValue), `column.rs` (ColumnPrefix, ColumnRange,
//! FirstKeyOnly, KeyOnly, MultipleColumnPrefix, ColumnCountGet, ColumnPagination), `row.rs`
//! (Prefix, Page, InclusiveStop, RandomRow), `ranges.rs` (MultiRowRange, FuzzyRow: filters
//! that seek from row to row), `time.rs` (Timestamps), `list.rs` (FilterList AND / OR),
//! `wrap.rs` (Skip, WhileMatch). A [`Filter`] compiles into a tree of them once per read
//! (`Filter::compile`, the registry of kinds); [`eval::FilterRunner`] drives the tree. The
//! language's names are registered in `parse.rs`, each with its family's
//! `createFilterFromArguments`. Adding a filter: a variant here, its type (and its
//! `from_arguments`) in its family's file, one line in `Filter::compile` and one in the
//! parser's registry.

mod column;
mod compare;
#[doc(hidden)]
pub mod eval;
mod list;
mod parse;
mod protocol;
mod ranges;
mod regex_java;
mod row;
mod time;
mod unparse;
mod value;
mod wrap;

#[cfg(test)]
mod tests;

use crate::base::error::{Error, Result};
use column::{
    ColumnCountGetFilter, ColumnPaginationFilter, ColumnPrefixFilter, ColumnRangeFilter,
    FirstKeyOnlyFilter, KeyOnlyFilter, MultipleColumnPrefixFilter,
};
use compare::{FamilyFilter, QualifierFilter, RowFilter, ValueFilter};
use list::{FilterListWithAnd, FilterListWithOr};
use protocol::FilterImpl;
use ranges::{FuzzyRowFilter, MultiRowRangeFilter};
use row::{InclusiveStopFilter, PageFilter, PrefixFilter, RandomRowFilter};
use time::TimestampsFilter;
use value::{
    ColumnValueFilter, DependentColumnFilter, SingleColumnValueExcludeFilter,
    SingleColumnValueFilter,
};
use wrap::{SkipFilter, WhileMatchFilter};

pub use parse::FILTER_LANGUAGE_NAMES;

/// The deepest filter nesting accepted: at most this many levels of FilterLists
/// ([`Filter::All`] / [`Filter::Any`]) inside each other, counting the innermost filter as one
/// level ([`Filter::depth`]), and at most this many open parentheses in a filter string
/// ([`Filter::parse`]).
///
/// HBase has no such limit (its recursive `ParseFilter` and `FilterList` overflow the stack on a
/// deep enough input); cellbase refuses deeper filters with [`Error::InvalidArgument`] before
/// anything recursive runs, so one request cannot abort the process that serves it. 100 is far
/// beyond what a hand-written filter uses (HBase's own examples nest two or three levels).
pub const MAX_FILTER_DEPTH: usize = 100;

/// A comparison operator (HBase `CompareOperator`).
///
/// In filters the cell is on the left: `Row(Less, Binary("m"))` keeps rows `< "m"` [FLT-1].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompareOp {
    /// `<`
    Less,
    /// `<=`
    LessOrEqual,
    /// `=`
    Equal,
    /// `!=`
    NotEqual,
    /// `>=`
    GreaterOrEqual,
    /// `>`
    Greater,
}

/// What a compare filter compares the cell's bytes with [FLT-2].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Comparator {
    /// `BinaryComparator`: unsigned lexicographic comparison with these bytes.
    Binary(Vec<u8>),
    /// `BinaryPrefixComparator`: like `Binary`, but only the first `len` bytes of the cell's
    /// bytes take part (`len` = length of these bytes).
    BinaryPrefix(Vec<u8>),
    /// `SubstringComparator`: the cell's bytes (as UTF-8, lower-cased) contain this string
    /// lower-cased. Equal (0) or not (1), so meaningful with `Equal` / `NotEqual` only.
    Substring(String),
    /// `RegexStringComparator`: Java regular expression with DOTALL, `find()` semantics (the
    /// pattern may match anywhere). Equal (0) or not (1), so meaningful with `Equal` /
    /// `NotEqual` only.
    Regex(String),
    /// `LongComparator`: the cell's bytes as an 8-byte big-endian signed long, compared with
    /// this number (`cell OP n` [FLT-1]). Not in the filter language (HBase's `ParseFilter`
    /// knows only the four comparators above). HBase fails the read when a compared value is
    /// not 8 bytes long (`Bytes.toLong`); cellbase instead treats such a cell as not passing,
    /// whatever the operator (docs/SEMANTICS.md).
    Long(i64),
    /// `BitComparator`: the bitwise operation of these bytes with the cell's bytes is
    /// non-zero (Equal) or zero (not equal); a cell of another length is never Equal. Equal
    /// (0) or not (1), so meaningful with `Equal` / `NotEqual` only. API only, like `Long`.
    Bit(Vec<u8>, BitOp),
    /// `NullComparator`: HBase compares every cell value as "not null", so with `Equal`
    /// nothing passes and with `NotEqual` everything does (cell values are never null;
    /// `NullComparator.compareTo` returns 1 for any array). API only, like `Long`.
    Null,
}

/// The bitwise operation of a [`Comparator::Bit`] (HBase `BitComparator.BitwiseOp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BitOp {
    /// `AND`: some bit is set in both.
    And,
    /// `OR`: some bit is set in either.
    Or,
    /// `XOR`: some bit differs.
    Xor,
}

/// One row range of a [`Filter::MultiRowRange`] (HBase `MultiRowRangeFilter.RowRange`): an
/// empty `start` is unbounded below, an empty `stop` unbounded above.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RowRange {
    /// First row (empty = from the first row of the table).
    pub start: Vec<u8>,
    /// Whether `start` itself is in the range.
    pub start_inclusive: bool,
    /// Last row (empty = to the last row of the table).
    pub stop: Vec<u8>,
    /// Whether `stop` itself is in the range.
    pub stop_inclusive: bool,
}

impl RowRange {
    /// `new RowRange(start, startInclusive, stop, stopInclusive)`.
    pub fn new(
        start: impl Into<Vec<u8>>,
        start_inclusive: bool,
        stop: impl Into<Vec<u8>>,
        stop_inclusive: bool,
    ) -> Self {
        RowRange {
            start: start.into(),
            start_inclusive,
            stop: stop.into(),
            stop_inclusive,
        }
    }
}

/// A server-side filter of a Get or Scan (HBase `org.apache.hadoop.hbase.filter`).
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    /// `PrefixFilter`: rows whose key starts with these bytes; the scan ends once rows have
    /// passed the prefix (forward or reversed) [FLT-4].
    Prefix(Vec<u8>),
    /// `RowFilter`: rows whose key satisfies `row OP comparator` [FLT-1] [FLT-3].
    Row(CompareOp, Comparator),
    /// `FamilyFilter`: cells whose family satisfies `family OP comparator` [FLT-3].
    Family(CompareOp, Comparator),
    /// `QualifierFilter`: cells whose qualifier satisfies `qualifier OP comparator` [FLT-3].
    Qualifier(CompareOp, Comparator),
    /// `ValueFilter`: cells whose value satisfies `value OP comparator` [FLT-3].
    Value(CompareOp, Comparator),
    /// `SingleColumnValueFilter` [FLT-5]: the whole row passes iff the tested column's value
    /// satisfies `value OP comparator`; a row without the column passes unless
    /// `filter_if_missing`. HBase's defaults are `filter_if_missing = false`,
    /// `latest_version_only = true`.
    SingleColumnValue {
        /// Family of the tested column.
        family: Vec<u8>,
        /// Qualifier of the tested column.
        qualifier: Vec<u8>,
        /// The comparison, `value OP comparator`.
        op: CompareOp,
        /// What the value is compared with.
        comparator: Comparator,
        /// Drop rows that do not have the column (among the cells the read delivers).
        filter_if_missing: bool,
        /// Test only the newest delivered version (else: any version that matches).
        latest_version_only: bool,
    },
    /// `ColumnPrefixFilter`: cells whose qualifier starts with these bytes [FLT-6].
    ColumnPrefix(Vec<u8>),
    /// `ColumnRangeFilter`: cells whose qualifier lies in the range; `None` = unbounded
    /// [FLT-6].
    ColumnRange {
        /// Lower bound.
        min: Option<Vec<u8>>,
        /// Whether `min` itself is in the range.
        min_inclusive: bool,
        /// Upper bound.
        max: Option<Vec<u8>>,
        /// Whether `max` itself is in the range.
        max_inclusive: bool,
    },
    /// `PageFilter`: at most this many rows (counted per region scanner) [FLT-7].
    Page(u64),
    /// `FirstKeyOnlyFilter`: only the first cell of each row [FLT-8].
    FirstKeyOnly,
    /// `KeyOnlyFilter()`: values replaced by empty byte strings [FLT-8].
    KeyOnly,
    /// `KeyOnlyFilter(true)`: values replaced by the 4-byte big-endian length of the
    /// original value [FLT-8].
    KeyOnlyValueLength,
    /// `TimestampsFilter`: cells whose timestamp is in the list; an empty list returns
    /// nothing [FLT-9]. Timestamps must not be negative.
    Timestamps(Vec<i64>),
    /// `MultipleColumnPrefixFilter`: cells whose qualifier starts with one of the prefixes
    /// (distinct; none = every cell); seeks from one prefix to the next [FLT-6].
    MultipleColumnPrefix(Vec<Vec<u8>>),
    /// `ColumnCountGetFilter(n)`: the first `n` columns of a row (newest version each). Meant
    /// for Gets: in a Scan, the scan ends after the first row that has more than `n` columns,
    /// as in HBase (its `filterAllRemaining` turns true).
    ColumnCountGet(u32),
    /// `ColumnPaginationFilter(limit, offset)`: per row, the `limit` columns after the first
    /// `offset` ones (newest version each; columns counted across families).
    ColumnPagination {
        /// How many columns to return.
        limit: u32,
        /// How many columns to skip first.
        offset: u32,
    },
    /// `ColumnPaginationFilter(limit, columnOffset)`: per row, `limit` columns starting at the
    /// first qualifier `>= column_offset` (seeks there). API only: the filter language has the
    /// integer form only.
    ColumnPaginationFrom {
        /// How many columns to return.
        limit: u32,
        /// The first qualifier to return (or the next one after it).
        column_offset: Vec<u8>,
    },
    /// `InclusiveStopFilter(row)`: rows up to and including this one (down to it, reversed);
    /// the scan ends after it [FLT-10].
    InclusiveStop(Vec<u8>),
    /// `SingleColumnValueExcludeFilter`: [`Filter::SingleColumnValue`], but the tested column
    /// is left out of the rows it returns [FLT-5].
    SingleColumnValueExclude {
        /// Family of the tested column.
        family: Vec<u8>,
        /// Qualifier of the tested column.
        qualifier: Vec<u8>,
        /// The comparison, `value OP comparator`.
        op: CompareOp,
        /// What the value is compared with.
        comparator: Comparator,
        /// Drop rows that do not have the column.
        filter_if_missing: bool,
        /// Test only the newest delivered version.
        latest_version_only: bool,
    },
    /// `DependentColumnFilter`: per row, only the cells whose timestamp equals that of a
    /// (passing) cell of the reference column `family:qualifier`.
    DependentColumn {
        /// Family of the reference column.
        family: Vec<u8>,
        /// Qualifier of the reference column.
        qualifier: Vec<u8>,
        /// Leave the reference column's own cells out.
        drop_dependent_column: bool,
        /// Only reference cells whose value satisfies `value OP comparator` count (`None`:
        /// every reference cell, HBase's `NO_OP`).
        value: Option<(CompareOp, Comparator)>,
    },
    /// `ColumnValueFilter`: only the cells of column `family:qualifier` whose value satisfies
    /// `value OP comparator` (unlike `SingleColumnValue`, not the rest of the row).
    ColumnValue {
        /// Family of the column.
        family: Vec<u8>,
        /// Qualifier of the column.
        qualifier: Vec<u8>,
        /// The comparison, `value OP comparator`.
        op: CompareOp,
        /// What the value is compared with.
        comparator: Comparator,
    },
    /// `MultiRowRangeFilter`: rows in any of the ranges (sorted and merged; at least one,
    /// each valid); the scan seeks from one range to the next and ends after the last. API
    /// only (not in HBase's filter language).
    MultiRowRange(Vec<RowRange>),
    /// `FuzzyRowFilter`: rows matching any of the `(key, mask)` pairs, where mask byte 0 fixes
    /// the key's byte at that position and 1 lets it be anything (key and mask of equal
    /// length; only the first `min(row length, key length)` bytes are compared, as in HBase).
    /// The scan seeks to the next row that can match. API only.
    FuzzyRow(Vec<(Vec<u8>, Vec<u8>)>),
    /// `RandomRowFilter(chance)`: each row passes with probability `chance` (below 0: none,
    /// above 1: all). HBase draws from an unseeded `java.util.Random`; `seed: Some(s)` makes the
    /// choice reproducible (the same rows for the same seed and rows), `None` seeds from the
    /// process's randomness. API only.
    RandomRow {
        /// Probability that a row passes.
        chance: f32,
        /// Seed of the generator (`None`: a fresh random seed per read).
        seed: Option<u64>,
    },
    /// `SkipFilter` (the language's `SKIP`): the whole row is dropped if the wrapped filter
    /// does not include every cell of it [FLT-10].
    Skip(Box<Filter>),
    /// `WhileMatchFilter` (the language's `WHILE`): the scan ends at the first row key or
    /// cell the wrapped filter rejects [FLT-10].
    WhileMatch(Box<Filter>),
    /// `FilterList(MUST_PASS_ALL, ...)`: every filter must pass; empty = pass everything
    /// [FLT-10].
    All(Vec<Filter>),
    /// `FilterList(MUST_PASS_ONE, ...)`: at least one filter must pass; empty = pass
    /// everything [FLT-10].
    Any(Vec<Filter>),
}

impl Filter {
    /// Parses HBase's filter language (`ParseFilter`, the shell's `FILTER => "..."` and
    /// Thrift's `filterString`), e.g.
    /// `"PrefixFilter('row') AND ValueFilter(=, 'substring:x') OR KeyOnlyFilter()"`.
    ///
    /// Accepts exactly what HBase 2.6's parser accepts: the registered filters of
    /// [`FILTER_LANGUAGE_NAMES`], the `SKIP` and `WHILE` wrappers, `AND` and `OR`, with
    /// HBase's precedence (`SKIP`/`WHILE` bind tighter than `AND`, `AND` tighter than `OR`),
    /// and the comparators `binary:`, `binaryprefix:`, `regexstring:` and `substring:`.
    /// Everything else — unknown filter names, API-only filters (`FuzzyRowFilter`,
    /// `MultiRowRangeFilter`, ...), wrong arity, bad arguments, unbalanced parentheses,
    /// regular expressions the engine cannot run exactly — is an
    /// [`Error::InvalidArgument`] naming the problem and its byte offset. Never panics.
    pub fn parse(hbase_filter_string: &str) -> Result<Filter> {
        let f = parse::parse(hbase_filter_string)?;
        f.validate()?;
        Ok(f)
    }

    /// Nesting depth: 1 for a filter that is not a list or wrapper, 1 + the deepest member
    /// for [`Filter::All`] / [`Filter::Any`] (1 for an empty list) and 1 + the wrapped
    /// filter's for [`Filter::Skip`] / [`Filter::WhileMatch`]. Computed without recursion,
    /// so any tree can be measured.
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut todo: Vec<(&Filter, usize)> = vec![(self, 1)];
        while let Some((f, d)) = todo.pop() {
            deepest = deepest.max(d);
            match f {
                Filter::All(fs) | Filter::Any(fs) => todo.extend(fs.iter().map(|c| (c, d + 1))),
                Filter::Skip(inner) | Filter::WhileMatch(inner) => todo.push((inner, d + 1)),
                _ => {}
            }
        }
        deepest
    }

    /// Checks that the filter can run: it is nested at most [`MAX_FILTER_DEPTH`] levels deep,
    /// every regular expression compiles (after translation from Java syntax), no timestamp
    /// is negative (HBase's `TimestampsFilter` rejects them), `MultiRowRange` has valid
    /// ranges, `FuzzyRow` keys and masks match in length and masks hold only 0 and 1, and
    /// `MultipleColumnPrefix` prefixes are distinct (HBase's constructors). Errors are
    /// [`Error::InvalidArgument`]. Every Get and Scan runs this before evaluating its filter.
    pub fn validate(&self) -> Result<()> {
        self.compile_checked(false).map(|_| ())
    }

    /// HBase `Filter.hasFilterRow()`: true when the filter decides on whole rows after seeing
    /// their cells (`SingleColumnValue` and its exclude form, `Page`, `DependentColumn`,
    /// `FuzzyRow`, `RandomRow`, `Skip`, `WhileMatch`, and lists containing one). A Scan with
    /// `batch` and such a filter is an error [SCAN-3]. A filter that does not
    /// [validate](Self::validate) decides nothing: false.
    pub fn has_filter_row(&self) -> bool {
        self.compile_checked(false)
            .is_ok_and(|f| f.has_filter_row())
    }

    /// [`Filter::compile`] after the depth check, so that nothing recursive runs on a tree
    /// deeper than [`MAX_FILTER_DEPTH`].
    fn compile_checked(&self, reversed: bool) -> Result<Box<dyn FilterImpl>> {
        let depth = self.depth();
        if depth > MAX_FILTER_DEPTH {
            return Err(Error::invalid(format!(
                "filter nested {depth} levels deep; the limit is {MAX_FILTER_DEPTH} \
                 (MAX_FILTER_DEPTH)"
            )));
        }
        self.compile(reversed)
    }

    /// The registry of filter kinds: builds the filter (with its per-scan state) that runs
    /// this variant, for a scan in the given direction (`Filter.setReversed`). Constructors
    /// check their arguments (regular expressions, timestamps); the first error in tree order
    /// is returned. Recursive: callers check the depth first ([`Self::compile_checked`]).
    fn compile(&self, reversed: bool) -> Result<Box<dyn FilterImpl>> {
        let list = |fs: &[Filter]| -> Result<Vec<Box<dyn FilterImpl>>> {
            fs.iter().map(|f| f.compile(reversed)).collect()
        };
        Ok(match self {
            Filter::Prefix(p) => Box::new(PrefixFilter::new(p, reversed)),
            Filter::Row(op, c) => Box::new(RowFilter::new(*op, c)?),
            Filter::Family(op, c) => Box::new(FamilyFilter::new(*op, c)?),
            Filter::Qualifier(op, c) => Box::new(QualifierFilter::new(*op, c)?),
            Filter::Value(op, c) => Box::new(ValueFilter::new(*op, c)?),
            Filter::SingleColumnValue {
                family: f,
                qualifier: q,
                op,
                comparator: c,
                filter_if_missing: m,
                latest_version_only: l,
            } => Box::new(SingleColumnValueFilter::new(f, q, *op, c, *m, *l)?),
            Filter::ColumnPrefix(p) => Box::new(ColumnPrefixFilter::new(p)),
            Filter::ColumnRange {
                min,
                min_inclusive: mi,
                max,
                max_inclusive: ma,
            } => Box::new(ColumnRangeFilter::new(min, *mi, max, *ma)),
            Filter::Page(n) => Box::new(PageFilter::new(*n)),
            Filter::FirstKeyOnly => Box::new(FirstKeyOnlyFilter::default()),
            Filter::KeyOnly => Box::new(KeyOnlyFilter { len_as_val: false }),
            Filter::KeyOnlyValueLength => Box::new(KeyOnlyFilter { len_as_val: true }),
            Filter::Timestamps(ts) => Box::new(TimestampsFilter::new(ts)?),
            Filter::MultipleColumnPrefix(ps) => Box::new(MultipleColumnPrefixFilter::new(ps)?),
            Filter::ColumnCountGet(n) => Box::new(ColumnCountGetFilter::new(*n)),
            Filter::ColumnPagination { limit, offset } => {
                Box::new(ColumnPaginationFilter::new(*limit, Some(*offset), None))
            }
            Filter::ColumnPaginationFrom {
                limit,
                column_offset,
            } => Box::new(ColumnPaginationFilter::new(
                *limit,
                None,
                Some(column_offset.clone()),
            )),
            Filter::InclusiveStop(stop) => Box::new(InclusiveStopFilter::new(stop, reversed)),
            Filter::SingleColumnValueExclude {
                family: f,
                qualifier: q,
                op,
                comparator: c,
                filter_if_missing: m,
                latest_version_only: l,
            } => Box::new(SingleColumnValueExcludeFilter(
                SingleColumnValueFilter::new(f, q, *op, c, *m, *l)?,
            )),
            Filter::DependentColumn {
                family,
                qualifier,
                drop_dependent_column,
                value,
            } => Box::new(DependentColumnFilter::new(
                family,
                qualifier,
                *drop_dependent_column,
                value.as_ref(),
            )?),
            Filter::ColumnValue {
                family,
                qualifier,
                op,
                comparator,
            } => Box::new(ColumnValueFilter::new(family, qualifier, *op, comparator)?),
            Filter::MultiRowRange(ranges) => Box::new(MultiRowRangeFilter::new(ranges, reversed)?),
            Filter::FuzzyRow(keys) => Box::new(FuzzyRowFilter::new(keys, reversed)?),
            Filter::RandomRow { chance, seed } => Box::new(RandomRowFilter::new(*chance, *seed)),
            Filter::Skip(inner) => Box::new(SkipFilter::new(inner.compile(reversed)?)),
            Filter::WhileMatch(inner) => Box::new(WhileMatchFilter::new(inner.compile(reversed)?)),
            Filter::All(fs) => Box::new(FilterListWithAnd::new(list(fs)?, reversed)),
            Filter::Any(fs) => Box::new(FilterListWithOr::new(list(fs)?, reversed)),
        })
    }
}
