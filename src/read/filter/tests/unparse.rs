//! `Filter::to_filter_string`: every filter the language can express parses back to itself;
//! the API-only ones are `Unsupported`, never a different filter.

use crate::base::error::Error;
use crate::read::filter::{BitOp, Comparator, CompareOp, Filter, RowRange};

fn round_trip(f: Filter) {
    let s = f.to_filter_string().unwrap();
    assert_eq!(Filter::parse(&s).unwrap(), f, "through {s:?}");
}

#[test]
fn every_language_filter_parses_back_to_itself() {
    let bin = |s: &str| Comparator::Binary(s.as_bytes().to_vec());
    let scv = Filter::SingleColumnValue {
        family: b"f".to_vec(),
        qualifier: b"q".to_vec(),
        op: CompareOp::GreaterOrEqual,
        comparator: bin("5"),
        filter_if_missing: true,
        latest_version_only: false,
    };
    let cases = vec![
        Filter::Prefix(b"user'1".to_vec()),
        Filter::Row(CompareOp::Less, bin("m")),
        Filter::Family(CompareOp::Equal, Comparator::BinaryPrefix(b"f".to_vec())),
        Filter::Qualifier(CompareOp::NotEqual, Comparator::Substring("ab".into())),
        Filter::Value(CompareOp::Equal, Comparator::Regex("^a.*b$".into())),
        Filter::Value(CompareOp::Greater, bin("")),
        scv.clone(),
        Filter::SingleColumnValueExclude {
            family: b"f".to_vec(),
            qualifier: b"q".to_vec(),
            op: CompareOp::LessOrEqual,
            comparator: bin("x"),
            filter_if_missing: false,
            latest_version_only: true,
        },
        Filter::ColumnPrefix(b"c".to_vec()),
        Filter::ColumnRange {
            min: Some(b"a".to_vec()),
            min_inclusive: true,
            max: Some(b"k".to_vec()),
            max_inclusive: false,
        },
        Filter::ColumnRange {
            min: None,
            min_inclusive: false,
            max: Some(b"k".to_vec()),
            max_inclusive: true,
        },
        Filter::Page(7),
        Filter::FirstKeyOnly,
        Filter::KeyOnly,
        Filter::KeyOnlyValueLength,
        Filter::Timestamps(vec![3, 1, 2]),
        Filter::MultipleColumnPrefix(vec![b"a".to_vec(), b"b".to_vec()]),
        Filter::ColumnCountGet(2),
        Filter::ColumnPagination {
            limit: 2,
            offset: 1,
        },
        Filter::InclusiveStop(b"r5".to_vec()),
        Filter::DependentColumn {
            family: b"f".to_vec(),
            qualifier: b"ts".to_vec(),
            drop_dependent_column: true,
            value: Some((CompareOp::Equal, bin("1"))),
        },
        Filter::DependentColumn {
            family: b"f".to_vec(),
            qualifier: b"ts".to_vec(),
            drop_dependent_column: false,
            value: None,
        },
        Filter::ColumnValue {
            family: b"f".to_vec(),
            qualifier: b"q".to_vec(),
            op: CompareOp::Equal,
            comparator: bin("v"),
        },
        Filter::Skip(Box::new(Filter::Value(CompareOp::NotEqual, bin("0")))),
        Filter::WhileMatch(Box::new(Filter::Row(CompareOp::Less, bin("r3")))),
        Filter::All(vec![Filter::Prefix(b"r".to_vec()), scv.clone()]),
        Filter::Any(vec![
            Filter::KeyOnly,
            Filter::All(vec![Filter::FirstKeyOnly, Filter::Page(3)]),
        ]),
    ];
    for f in cases {
        round_trip(f);
    }
}

#[test]
fn api_only_filters_and_comparators_are_unsupported() {
    let cases = vec![
        Filter::MultiRowRange(vec![RowRange::new("a", true, "b", false)]),
        Filter::FuzzyRow(vec![(b"a?".to_vec(), vec![0, 1])]),
        Filter::RandomRow {
            chance: 0.5,
            seed: Some(1),
        },
        Filter::ColumnPaginationFrom {
            limit: 1,
            column_offset: b"q".to_vec(),
        },
        Filter::Value(CompareOp::Equal, Comparator::Long(5)),
        Filter::Value(CompareOp::Equal, Comparator::Bit(vec![1], BitOp::And)),
        Filter::Value(CompareOp::Equal, Comparator::Null),
        Filter::Prefix(vec![0xff, 0xfe]),
        Filter::All(vec![]),
        // Nested: the whole filter is refused, not just the inner part.
        Filter::Any(vec![Filter::KeyOnly, Filter::FuzzyRow(vec![])]),
    ];
    for f in cases {
        match f.to_filter_string() {
            Err(Error::Unsupported(m)) => assert!(!m.is_empty()),
            other => panic!("{f:?}: {other:?}"),
        }
    }
}
