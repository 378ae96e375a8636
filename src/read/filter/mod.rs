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
//!   case-insensitive contains (`Substring`, 0/1) or Java regex `find()` (`Regex`, 0/1) [FLT-2].
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
//! (Row, Family, Qualifier, Value), `value.rs` (SingleColumnValue), `column.rs` (ColumnPrefix,
//! ColumnRange, FirstKeyOnly, KeyOnly), `row.rs` (Prefix, Page), `time.rs` (Timestamps),
//! `list.rs` (FilterList AND / OR). A [`Filter`] compiles into a tree of them once per read
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
mod regex_java;
mod row;
mod time;
mod value;

#[cfg(test)]
mod tests;

use crate::base::error::{Error, Result};
use column::{ColumnPrefixFilter, ColumnRangeFilter, FirstKeyOnlyFilter, KeyOnlyFilter};
use compare::{FamilyFilter, QualifierFilter, RowFilter, ValueFilter};
use list::{FilterListWithAnd, FilterListWithOr};
use protocol::FilterImpl;
use row::{PageFilter, PrefixFilter};
use time::TimestampsFilter;
use value::SingleColumnValueFilter;

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
    /// `TimestampsFilter`: cells whose timestamp is in the list; an empty list returns
    /// nothing [FLT-9]. Timestamps must not be negative.
    Timestamps(Vec<i64>),
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
    /// Accepts exactly what HBase 2.6's parser accepts for the filters representable here
    /// (AND binds tighter than OR; `MultipleColumnPrefixFilter('a','b')` becomes
    /// `Any([ColumnPrefix(a), ColumnPrefix(b)])`). Everything else — unknown filter names,
    /// HBase filters this enum cannot represent (`SKIP`, `WHILE`, `InclusiveStopFilter`,
    /// `KeyOnlyFilter(true)`, ...), wrong arity, bad arguments, unbalanced parentheses,
    /// regular expressions the engine cannot run exactly — is an
    /// [`Error::InvalidArgument`] naming the problem and its byte offset. Never panics.
    pub fn parse(hbase_filter_string: &str) -> Result<Filter> {
        let f = parse::parse(hbase_filter_string)?;
        f.validate()?;
        Ok(f)
    }

    /// Nesting depth: 1 for a filter that is not a list, 1 + the deepest member for
    /// [`Filter::All`] / [`Filter::Any`] (1 for an empty list). Computed without recursion, so
    /// any tree can be measured.
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut todo: Vec<(&Filter, usize)> = vec![(self, 1)];
        while let Some((f, d)) = todo.pop() {
            deepest = deepest.max(d);
            if let Filter::All(fs) | Filter::Any(fs) = f {
                todo.extend(fs.iter().map(|c| (c, d + 1)));
            }
        }
        deepest
    }

    /// Checks that the filter can run: it is nested at most [`MAX_FILTER_DEPTH`] levels deep,
    /// every regular expression compiles (after translation from Java syntax) and no timestamp
    /// is negative (HBase's `TimestampsFilter` rejects them). Errors are
    /// [`Error::InvalidArgument`]. Every Get and Scan runs this before evaluating its filter.
    pub fn validate(&self) -> Result<()> {
        self.compile_checked(false).map(|_| ())
    }

    /// HBase `Filter.hasFilterRow()`: true when the filter decides on whole rows after seeing
    /// their cells (`SingleColumnValue`, `Page`, and lists containing one). A Scan with
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
            Filter::KeyOnly => Box::new(KeyOnlyFilter),
            Filter::Timestamps(ts) => Box::new(TimestampsFilter::new(ts)?),
            Filter::All(fs) => Box::new(FilterListWithAnd::new(list(fs)?, reversed)),
            Filter::Any(fs) => Box::new(FilterListWithOr::new(list(fs)?, reversed)),
        })
    }
}
