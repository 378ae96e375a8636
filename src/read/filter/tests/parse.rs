//! `Filter::parse`: HBase's filter language (hbase-shell.md §4.5, `ParseFilter`), with the
//! cases of HBase's `TestParseFilter` that map onto `Filter`.

use crate::base::error::Error;
use crate::read::filter::eval::FilterRunner;
use crate::read::filter::{Comparator, CompareOp, Filter};

fn p(s: &str) -> Filter {
    match Filter::parse(s) {
        Ok(f) => f,
        Err(e) => panic!("{s:?} should parse: {e}"),
    }
}

/// The InvalidArgument message for `s`.
fn bad(s: &str) -> String {
    match Filter::parse(s) {
        Err(Error::InvalidArgument(m)) => m,
        Err(e) => panic!("{s:?}: expected InvalidArgument, got {e:?}"),
        Ok(f) => panic!("{s:?} should not parse, got {f:?}"),
    }
}

fn bin(s: &str) -> Comparator {
    Comparator::Binary(s.as_bytes().to_vec())
}

fn prefix(s: &str) -> Filter {
    Filter::Prefix(s.as_bytes().to_vec())
}

#[test]
fn key_only_and_first_key_only() {
    // TestParseFilter#testKeyOnlyFilter, #testFirstKeyOnlyFilter [FLT-8]
    assert_eq!(p("KeyOnlyFilter()"), Filter::KeyOnly);
    assert_eq!(p("KeyOnlyFilter(false)"), Filter::KeyOnly);
    assert_eq!(p("KeyOnlyFilter(FALSE)"), Filter::KeyOnly);
    assert_eq!(p("KeyOnlyFilter(true)"), Filter::KeyOnlyValueLength);
    assert_eq!(p("KeyOnlyFilter ( TRUE )"), Filter::KeyOnlyValueLength);
    bad("KeyOnlyFilter ('') ");
    bad("KeyOnlyFilter(false, false)");
    assert_eq!(p(" FirstKeyOnlyFilter( ) "), Filter::FirstKeyOnly);
    bad(" FirstKeyOnlyFilter ('') ");
}

#[test]
fn prefix_and_column_prefix() {
    // TestParseFilter#testPrefixFilter, #testColumnPrefixFilter [FLT-4] [FLT-6]
    assert_eq!(p(" PrefixFilter('row' ) "), prefix("row"));
    assert!(bad(" PrefixFilter(row)").contains("quoted"));
    assert_eq!(
        p(" ColumnPrefixFilter('qualifier' ) "),
        Filter::ColumnPrefix(b"qualifier".to_vec())
    );
    assert!(bad("PrefixFilter('a', 'b')").contains("expects 1"));
    assert!(bad("PrefixFilter()").contains("expects 1"));
}

#[test]
fn multiple_column_prefix_filter() {
    // TestParseFilter#testMultipleColumnPrefixFilter [FLT-6]
    assert_eq!(
        p(" MultipleColumnPrefixFilter('qualifier2', 'qualifier1' ) "),
        Filter::MultipleColumnPrefix(vec![b"qualifier2".to_vec(), b"qualifier1".to_vec()])
    );
    assert_eq!(
        p("MultipleColumnPrefixFilter()"),
        Filter::MultipleColumnPrefix(vec![])
    );
    assert!(bad("MultipleColumnPrefixFilter('a', 'a')").contains("distinct"));
    bad("MultipleColumnPrefixFilter(a)");
}

#[test]
fn page_filter() {
    // TestParseFilter#testPageFilter [FLT-7]
    assert_eq!(p(" PageFilter(4)"), Filter::Page(4));
    assert_eq!(p("PageFilter(0)"), Filter::Page(0));
    assert_eq!(p("PageFilter(0005 )"), Filter::Page(5));
    bad(" PageFilter('123')");
    assert!(bad("PageFilter(-1)").contains("negative"));
    bad("PageFilter(+5)");
    bad("PageFilter(1.5)");
    bad("PageFilter(4, 5)");
    bad("PageFilter()");
    // HBase's convertByteArrayToLong quirks: a lone '-' is 0; overflow is detected only
    // when Java's wrapping arithmetic turns negative.
    assert_eq!(p("PageFilter(-)"), Filter::Page(0));
    assert!(bad("PageFilter(9223372036854775808)").contains("too large"));
    assert_eq!(
        p("PageFilter(20000000000000000000)"),
        Filter::Page(1_553_255_926_290_448_384)
    );
    assert_eq!(
        p("PageFilter(9223372036854775807)"),
        Filter::Page(9_223_372_036_854_775_807)
    );
}

#[test]
fn timestamps_filter() {
    // TestParseFilter#testTimestampsFilter [FLT-9]
    assert_eq!(
        p("TimestampsFilter(9223372036854775806, 6)"),
        Filter::Timestamps(vec![9_223_372_036_854_775_806, 6])
    );
    assert_eq!(p("TimestampsFilter()"), Filter::Timestamps(vec![]));
    assert!(bad("TimestampsFilter(9223372036854775808, 6)").contains("too large"));
    assert!(bad("TimestampsFilter(-45, 6)").contains("negative"));
    bad("TimestampsFilter('5')");
}

#[test]
fn compare_filters_and_every_comparator() {
    // TestParseFilter#testRowFilter, #testFamilyFilter, #testQualifierFilter, #testValueFilter
    // [FLT-1] [FLT-2]
    assert_eq!(
        p("RowFilter ( =,   'binary:regionse')"),
        Filter::Row(CompareOp::Equal, bin("regionse"))
    );
    assert_eq!(
        p("FamilyFilter(>=, 'binaryprefix:pre')"),
        Filter::Family(
            CompareOp::GreaterOrEqual,
            Comparator::BinaryPrefix(b"pre".to_vec())
        )
    );
    assert_eq!(
        p("QualifierFilter(=, 'regexstring:pre*')"),
        Filter::Qualifier(CompareOp::Equal, Comparator::Regex("pre*".into()))
    );
    assert_eq!(
        p("ValueFilter(!=, 'substring:pre')"),
        Filter::Value(CompareOp::NotEqual, Comparator::Substring("pre".into()))
    );
    for (text, op) in [
        ("<", CompareOp::Less),
        ("<=", CompareOp::LessOrEqual),
        ("=", CompareOp::Equal),
        ("!=", CompareOp::NotEqual),
        (">=", CompareOp::GreaterOrEqual),
        (">", CompareOp::Greater),
    ] {
        // Operators written without spaces around them.
        assert_eq!(
            p(&format!("ValueFilter({text},'binary:x')")),
            Filter::Value(op, bin("x"))
        );
    }
}

#[test]
fn comparator_value_keeps_everything_after_the_first_colon() {
    assert_eq!(
        p("ValueFilter(=, 'binary:a:b c, d)''e')"),
        Filter::Value(CompareOp::Equal, bin("a:b c, d)'e"))
    );
    assert_eq!(
        p("ValueFilter(=, 'binary:')"),
        Filter::Value(CompareOp::Equal, bin(""))
    );
    assert_eq!(
        p("RowFilter(=, 'binary:é')"),
        Filter::Row(CompareOp::Equal, bin("é"))
    );
}

#[test]
fn bad_comparators_and_operators() {
    // TestParseFilter#testIncorrectCompareOperator, #testIncorrectComparatorType
    assert!(bad("RowFilter ('>>' , 'binary:region')").contains("compare operator"));
    bad("RowFilter (>> , 'binary:region')");
    bad("RowFilter ('>=' , 'binaryoperator:region')");
    assert!(bad("RowFilter (>= , 'binaryoperator:region')").contains("binaryoperator"));
    bad("RowFilter ('>=' 'regexstring:pre*')");
    bad("SingleColumnValueFilter ('family', 'qualifier', '>=', 'substring:a', 'true', 'false')')");
    // regexstring / substring only with = and != (CompareFilter.extractArguments)
    assert!(bad("ValueFilter(<, 'substring:a')").contains("EQUAL"));
    assert!(bad("RowFilter(>=, 'regexstring:a')").contains("EQUAL"));
    assert!(bad("SingleColumnValueFilter('f', 'q', >, 'substring:a')").contains("EQUAL"));
    // HBase's other comparators are not part of the language (2.6 ParseFilter knows four).
    for kind in ["long", "null", "bit", "binarycomponent", "bigdecimal"] {
        let m = bad(&format!("ValueFilter(=, '{kind}:5')"));
        assert!(m.contains(kind), "{m}");
    }
    assert!(bad("ValueFilter(=, 'binary')").contains("type:value"));
    bad("ValueFilter(=, binary:x)");
    bad("ValueFilter(=)");
    bad("ValueFilter('binary:x', =)");
    // A regular expression the engine cannot run exactly is rejected, not approximated.
    assert!(bad("RowFilter(=, 'regexstring:(?=a)')").contains("look-ahead"));
    bad("RowFilter(=, 'regexstring:a(')");
}

#[test]
fn column_range_filter() {
    // TestParseFilter#testColumnRangeFilter [FLT-6]
    assert_eq!(
        p("ColumnRangeFilter('abc', true, 'xyz', false)"),
        Filter::ColumnRange {
            min: Some(b"abc".to_vec()),
            min_inclusive: true,
            max: Some(b"xyz".to_vec()),
            max_inclusive: false,
        }
    );
    // Empty bounds mean unbounded; booleans in any case.
    assert_eq!(
        p("ColumnRangeFilter('', FALSE, '', True)"),
        Filter::ColumnRange {
            min: None,
            min_inclusive: false,
            max: None,
            max_inclusive: true,
        }
    );
    bad("ColumnRangeFilter('a', yes, 'b', false)");
    bad("ColumnRangeFilter('a', true, 'b')");
}

#[test]
fn single_column_value_filter() {
    // TestParseFilter#testSingleColumnValueFilter; defaults false/true [FLT-5]
    assert_eq!(
        p("SingleColumnValueFilter ('family', 'qualifier', >=, 'binary:a', true, false)"),
        Filter::SingleColumnValue {
            family: b"family".to_vec(),
            qualifier: b"qualifier".to_vec(),
            op: CompareOp::GreaterOrEqual,
            comparator: bin("a"),
            filter_if_missing: true,
            latest_version_only: false,
        }
    );
    assert_eq!(
        p("SingleColumnValueFilter ('family', 'qualifier', >, 'binaryprefix:a')"),
        Filter::SingleColumnValue {
            family: b"family".to_vec(),
            qualifier: b"qualifier".to_vec(),
            op: CompareOp::Greater,
            comparator: Comparator::BinaryPrefix(b"a".to_vec()),
            filter_if_missing: false,
            latest_version_only: true,
        }
    );
    // happybase's test string (hbase-shell.md §4.5)
    assert_eq!(
        p("SingleColumnValueFilter ('cf1', 'qual1', =, 'binary:val1')"),
        Filter::SingleColumnValue {
            family: b"cf1".to_vec(),
            qualifier: b"qual1".to_vec(),
            op: CompareOp::Equal,
            comparator: bin("val1"),
            filter_if_missing: false,
            latest_version_only: true,
        }
    );
    assert!(bad("SingleColumnValueFilter('f', 'q', =, 'binary:a', true)").contains("4 or 6"));
    bad("SingleColumnValueFilter('f', 'q', =)");
    bad("SingleColumnValueFilter('f', 'q', =, 'binary:a', true, maybe)");
}

fn f_q_cmp() -> (Vec<u8>, Vec<u8>) {
    (b"family".to_vec(), b"qualifier".to_vec())
}

#[test]
fn column_count_get_and_pagination() {
    // TestParseFilter#testColumnCountGetFilter, #testColumnPaginationFilter
    assert_eq!(p(" ColumnCountGetFilter(4)"), Filter::ColumnCountGet(4));
    assert_eq!(
        p("ColumnPaginationFilter(4, 6)"),
        Filter::ColumnPagination {
            limit: 4,
            offset: 6
        }
    );
    assert!(bad("ColumnCountGetFilter(-1)").contains("negative"));
    assert!(bad("ColumnPaginationFilter(4, -6)").contains("negative"));
    assert!(bad("ColumnPaginationFilter(4)").contains("expects 2"));
    // convertByteArrayToInt: beyond Integer.MAX_VALUE is refused.
    assert!(bad("ColumnCountGetFilter(2147483648)").contains("int range"));
    assert_eq!(
        p("ColumnCountGetFilter(2147483647)"),
        Filter::ColumnCountGet(i32::MAX as u32)
    );
    bad("ColumnCountGetFilter('4')");
}

#[test]
fn inclusive_stop_filter() {
    // TestParseFilter#testInclusiveStopFilter [FLT-10]
    assert_eq!(
        p("InclusiveStopFilter ('row 3')"),
        Filter::InclusiveStop(b"row 3".to_vec())
    );
    bad("InclusiveStopFilter (row3)");
    bad("InclusiveStopFilter ()");
}

#[test]
fn single_column_value_exclude_filter() {
    // TestParseFilter#testSingleColumnValueExcludeFilter [FLT-5]
    let (family, qualifier) = f_q_cmp();
    assert_eq!(
        p("SingleColumnValueExcludeFilter ('family', 'qualifier', <, 'binaryprefix:a')"),
        Filter::SingleColumnValueExclude {
            family: family.clone(),
            qualifier: qualifier.clone(),
            op: CompareOp::Less,
            comparator: Comparator::BinaryPrefix(b"a".to_vec()),
            filter_if_missing: false,
            latest_version_only: true,
        }
    );
    assert_eq!(
        p(
            "SingleColumnValueExcludeFilter ('family', 'qualifier', <=, 'binaryprefix:a', true, false)"
        ),
        Filter::SingleColumnValueExclude {
            family,
            qualifier,
            op: CompareOp::LessOrEqual,
            comparator: Comparator::BinaryPrefix(b"a".to_vec()),
            filter_if_missing: true,
            latest_version_only: false,
        }
    );
    assert!(bad("SingleColumnValueExcludeFilter ('f', 'q', <, 'substring:a')").contains("EQUAL"));
    bad("SingleColumnValueExcludeFilter ('f', 'q', <, 'binary:a', true)");
}

#[test]
fn dependent_column_filter() {
    // TestParseFilter#testDependentColumnFilter: 2, 3 or 5 arguments
    let (family, qualifier) = f_q_cmp();
    assert_eq!(
        p("DependentColumnFilter('family', 'qualifier', true, =, 'binary:abc')"),
        Filter::DependentColumn {
            family: family.clone(),
            qualifier: qualifier.clone(),
            drop_dependent_column: true,
            value: Some((CompareOp::Equal, bin("abc"))),
        }
    );
    assert_eq!(
        p("DependentColumnFilter('family', 'qualifier')"),
        Filter::DependentColumn {
            family: family.clone(),
            qualifier: qualifier.clone(),
            drop_dependent_column: false,
            value: None,
        }
    );
    assert_eq!(
        p("DependentColumnFilter('family', 'qualifier', false)"),
        Filter::DependentColumn {
            family,
            qualifier,
            drop_dependent_column: false,
            value: None,
        }
    );
    assert!(bad("DependentColumnFilter('f', 'q', true, =)").contains("2 or 3 or 5"));
    bad("DependentColumnFilter('f')");
}

#[test]
fn column_value_filter() {
    // TestParseFilter#testColumnValueFilter
    let (family, qualifier) = f_q_cmp();
    assert_eq!(
        p("ColumnValueFilter ('family', 'qualifier', <, 'binaryprefix:value')"),
        Filter::ColumnValue {
            family,
            qualifier,
            op: CompareOp::Less,
            comparator: Comparator::BinaryPrefix(b"value".to_vec()),
        }
    );
    bad("ColumnValueFilter ('family', 'qualifier', <, 'binaryprefix:value', 'x')");
    assert!(bad("ColumnValueFilter ('f', 'q', >, 'regexstring:a')").contains("EQUAL"));
    bad("ColumnValueFilter ('f', 'q', <)");
}

#[test]
fn api_only_filters_and_comparators_are_not_in_the_language() {
    // ParseFilter.filterHashMap / createComparator: HBase 2.6's language has no
    // FuzzyRowFilter, MultiRowRangeFilter, RandomRowFilter, and only four comparators [FLT-2].
    for name in [
        "FuzzyRowFilter",
        "MultiRowRangeFilter",
        "RandomRowFilter",
        "SkipFilter",
        "WhileMatchFilter",
    ] {
        assert!(bad(&format!("{name}('a')")).contains(name));
    }
    for c in ["long:1", "bit:1", "null:", "nullcomparator:x"] {
        let m = bad(&format!("ValueFilter(=, '{c}')"));
        assert!(m.contains("unsupported comparator type"), "{m}");
    }
}

#[test]
fn skip_and_while() {
    // TestParseFilter#testSkipFilter, #testWhileFilter [FLT-10]
    assert_eq!(
        p("SKIP ValueFilter( =,  'binary:0')"),
        Filter::Skip(Box::new(Filter::Value(CompareOp::Equal, bin("0"))))
    );
    assert_eq!(
        p(" WHILE   RowFilter ( !=, 'binary:row1')"),
        Filter::WhileMatch(Box::new(Filter::Row(CompareOp::NotEqual, bin("row1"))))
    );
    assert_eq!(
        p("(WHILE PrefixFilter('a'))"),
        Filter::WhileMatch(Box::new(prefix("a")))
    );
    assert_eq!(
        p("SKIP SKIP PrefixFilter('a')"),
        Filter::Skip(Box::new(Filter::Skip(Box::new(prefix("a")))))
    );
    assert_eq!(
        p("SKIP(PrefixFilter('a') OR PrefixFilter('b'))"),
        Filter::Skip(Box::new(Filter::Any(vec![prefix("a"), prefix("b")])))
    );
    assert!(bad("SKIP").contains("SKIP") || !bad("SKIP").is_empty());
    bad("SKIP (");
    bad("WHILE");
    // Keywords need a space or '(' after them: `SKIPValueFilter(...)` is a filter name.
    assert!(bad("SKIPValueFilter(=, 'binary:0')").contains("SKIPValueFilter"));
}

#[test]
fn skip_and_while_bind_tighter_than_and_and_or() {
    // TestParseFilter#testCompoundFilter3, #testCompoundFilter4, #testPrecedence2:
    // SKIP/WHILE (1) before AND (2) before OR (3), as ParseFilter's operatorPrecedenceHashMap.
    assert_eq!(
        p(
            " ColumnPrefixFilter ('realtime')AND  FirstKeyOnlyFilter() OR SKIP FamilyFilter(=, 'substring:hihi')"
        ),
        Filter::Any(vec![
            Filter::All(vec![
                Filter::ColumnPrefix(b"realtime".to_vec()),
                Filter::FirstKeyOnly
            ]),
            Filter::Skip(Box::new(Filter::Family(
                CompareOp::Equal,
                Comparator::Substring("hihi".into())
            ))),
        ])
    );
    assert_eq!(
        p(
            " ColumnPrefixFilter ('realtime') OR FirstKeyOnlyFilter() OR SKIP FamilyFilter(=, 'substring:hihi')"
        ),
        Filter::Any(vec![
            Filter::ColumnPrefix(b"realtime".to_vec()),
            Filter::FirstKeyOnly,
            Filter::Skip(Box::new(Filter::Family(
                CompareOp::Equal,
                Comparator::Substring("hihi".into())
            ))),
        ])
    );
    assert_eq!(
        p(" PrefixFilter ('realtime')AND  SKIP FirstKeyOnlyFilter()OR KeyOnlyFilter()"),
        Filter::Any(vec![
            Filter::All(vec![
                prefix("realtime"),
                Filter::Skip(Box::new(Filter::FirstKeyOnly))
            ]),
            Filter::KeyOnly,
        ])
    );
    assert_eq!(
        p("SKIP PrefixFilter('a') AND PrefixFilter('b')"),
        Filter::All(vec![Filter::Skip(Box::new(prefix("a"))), prefix("b")])
    );
    assert_eq!(
        p("PrefixFilter('a') OR WHILE PrefixFilter('b') AND PrefixFilter('c')"),
        Filter::Any(vec![
            prefix("a"),
            Filter::All(vec![Filter::WhileMatch(Box::new(prefix("b"))), prefix("c")]),
        ])
    );
}

#[test]
fn wrappers_count_towards_the_depth_limit() {
    // MAX_FILTER_DEPTH: each SKIP / WHILE is a level, like a FilterList.
    let ok = format!("{}PrefixFilter('a')", "SKIP ".repeat(99));
    assert_eq!(p(&ok).depth(), 100);
    let deep = format!("{}PrefixFilter('a')", "WHILE ".repeat(100));
    assert!(bad(&deep).contains("MAX_FILTER_DEPTH"));
}

#[test]
fn unknown_names_are_named() {
    let m = bad("FooFilter('x')");
    assert!(m.contains("FooFilter"), "{m}");
    // Names are case-sensitive and end at '(' or a space (not a tab).
    assert!(bad("prefixfilter('x')").contains("prefixfilter"));
    assert!(bad("PrefixFilter\t('x')").contains("PrefixFilter\t"));
    // Keywords are upper-case: lower-case `and` starts a (bad) filter expression.
    assert!(bad("PrefixFilter('a') and KeyOnlyFilter()").contains("`and`"));
}

#[test]
fn and_binds_tighter_than_or() {
    let (a, b, c, d) = (prefix("a"), prefix("b"), prefix("c"), prefix("d"));
    assert_eq!(
        p("PrefixFilter('a') OR PrefixFilter('b') AND PrefixFilter('c')"),
        Filter::Any(vec![a.clone(), Filter::All(vec![b.clone(), c.clone()])])
    );
    assert_eq!(
        p("PrefixFilter('a') AND PrefixFilter('b') OR PrefixFilter('c') AND PrefixFilter('d')"),
        Filter::Any(vec![
            Filter::All(vec![a.clone(), b.clone()]),
            Filter::All(vec![c.clone(), d.clone()])
        ])
    );
    // Runs of one operator make one list.
    assert_eq!(
        p("PrefixFilter('a') OR PrefixFilter('b') OR PrefixFilter('c')"),
        Filter::Any(vec![a.clone(), b.clone(), c.clone()])
    );
    assert_eq!(
        p("PrefixFilter('a') OR PrefixFilter('b') AND PrefixFilter('c') OR PrefixFilter('d')"),
        Filter::Any(vec![
            a.clone(),
            Filter::All(vec![b.clone(), c.clone()]),
            d.clone()
        ])
    );
    // Parentheses group; a parenthesised list is not flattened into the outer one.
    assert_eq!(
        p("PrefixFilter('a') AND (PrefixFilter('b') OR PrefixFilter('c'))"),
        Filter::All(vec![a.clone(), Filter::Any(vec![b.clone(), c.clone()])])
    );
    assert_eq!(
        p("(PrefixFilter('a') OR PrefixFilter('b')) OR PrefixFilter('c')"),
        Filter::Any(vec![Filter::Any(vec![a.clone(), b.clone()]), c.clone()])
    );
    // Operators glued to parentheses.
    assert_eq!(
        p("PrefixFilter('a')AND(PrefixFilter('b'))OR(PrefixFilter('c'))"),
        Filter::Any(vec![Filter::All(vec![a.clone(), b.clone()]), c.clone()])
    );
}

#[test]
fn hbase_compound_filter_cases() {
    // TestParseFilter#testCompoundFilter1
    assert_eq!(
        p(" (PrefixFilter ('realtime')AND  FirstKeyOnlyFilter())"),
        Filter::All(vec![prefix("realtime"), Filter::FirstKeyOnly])
    );
    // #testCompoundFilter2
    assert_eq!(
        p(
            "(PrefixFilter('realtime') AND QualifierFilter (>=, 'binary:e'))OR FamilyFilter (=, 'binary:qualifier') "
        ),
        Filter::Any(vec![
            Filter::All(vec![
                prefix("realtime"),
                Filter::Qualifier(CompareOp::GreaterOrEqual, bin("e"))
            ]),
            Filter::Family(CompareOp::Equal, bin("qualifier")),
        ])
    );
    // #testCompoundFilter5
    assert_eq!(
        p("(ValueFilter(!=, 'substring:pre'))"),
        Filter::Value(CompareOp::NotEqual, Comparator::Substring("pre".into()))
    );
    assert_eq!(
        p(
            "(ValueFilter(>=,'binary:x') AND (ValueFilter(<=,'binary:y'))) OR ValueFilter(=,'binary:ab')"
        ),
        Filter::Any(vec![
            Filter::All(vec![
                Filter::Value(CompareOp::GreaterOrEqual, bin("x")),
                Filter::Value(CompareOp::LessOrEqual, bin("y")),
            ]),
            Filter::Value(CompareOp::Equal, bin("ab")),
        ])
    );
    // #testPrecedence1
    assert_eq!(
        p(" (PrefixFilter ('realtime')AND  FirstKeyOnlyFilter() OR KeyOnlyFilter())"),
        Filter::Any(vec![
            Filter::All(vec![prefix("realtime"), Filter::FirstKeyOnly]),
            Filter::KeyOnly
        ])
    );
    // #testCorrectFilterString, #testIncorrectFilterString
    assert_eq!(p("(FirstKeyOnlyFilter())"), Filter::FirstKeyOnly);
    bad("()");
}

#[test]
fn parentheses_behave_as_in_hbase() {
    assert_eq!(p("((PrefixFilter('a')))"), prefix("a"));
    assert!(bad("PrefixFilter('a'))").contains("mismatched"));
    assert!(bad(")").contains("mismatched"));
    // HBase pops a leftover '(' at the end of the string: unclosed groups are accepted.
    assert_eq!(p("(PrefixFilter('a')"), prefix("a"));
    assert_eq!(p("((PrefixFilter('a')"), prefix("a"));
    // HBase quirk: a ')' that closes a group still holding two different operators pops
    // one operator too many and reports mismatched parentheses.
    assert!(
        bad("(PrefixFilter('a') OR PrefixFilter('b') AND PrefixFilter('c'))")
            .contains("mismatched")
    );
    // ... while the same expression without parentheses is fine.
    p("PrefixFilter('a') OR PrefixFilter('b') AND PrefixFilter('c')");
}

#[test]
fn quoting() {
    // TestParseFilter#testUnescapedQuote1..3 (there with InclusiveStopFilter)
    assert_eq!(p("PrefixFilter ('row''3')"), prefix("row'3"));
    assert_eq!(p("PrefixFilter ('row''3''')"), prefix("row'3'"));
    assert_eq!(p(" PrefixFilter ('''')"), prefix("'"));
    assert_eq!(p("PrefixFilter('')"), prefix(""));
    // Quoted strings may hold the language's delimiters.
    assert_eq!(
        p("PrefixFilter('a b, c)(AND OR')"),
        prefix("a b, c)(AND OR")
    );
    assert_eq!(p("PrefixFilter('\t')"), prefix("\t"));
    bad("PrefixFilter('abc)");
    bad("PrefixFilter('abc''");
    // HBase skips the byte right after a closing quote without looking at it.
    assert_eq!(p("PrefixFilter('a'x)"), prefix("a"));
}

#[test]
fn whitespace_variants() {
    let want = Filter::All(vec![prefix("a"), Filter::KeyOnly]);
    for s in [
        "PrefixFilter('a') AND KeyOnlyFilter()",
        "  PrefixFilter ( 'a' )   AND   KeyOnlyFilter ( )  ",
        "\tPrefixFilter('a') AND KeyOnlyFilter()\t",
        "PrefixFilter('a')AND KeyOnlyFilter()",
        "PrefixFilter('a') AND(KeyOnlyFilter())",
        "PrefixFilter(,'a',) AND KeyOnlyFilter(,)",
    ] {
        assert_eq!(p(s), want, "{s:?}");
    }
    // Like HBase, a keyword needs a space or parenthesis (not a tab) on each side.
    bad("PrefixFilter('a')\tAND\tKeyOnlyFilter()");
    bad("PrefixFilter('a') AND\tKeyOnlyFilter()");
    bad("PrefixFilter('a') ANDKeyOnlyFilter()");
}

#[test]
fn malformed_strings() {
    for s in [
        "",
        "   ",
        "PrefixFilter",
        "PrefixFilter('a') PrefixFilter('b')",
        "AND PrefixFilter('a')",
        "PrefixFilter('a') AND",
        "PrefixFilter('a') AND ",
        "PrefixFilter('a') OR OR PrefixFilter('b')",
        "('a')",
        "(PrefixFilter('a') AND)",
        "'PrefixFilter('a')",
    ] {
        bad(s);
    }
    // Error messages carry the byte offset.
    assert!(bad("PrefixFilter('a') AND FooFilter()").contains("byte 22"));
}

/// Deterministic xorshift64* generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn garbage_never_panics() {
    const TOKENS: &[&str] = &[
        "(",
        ")",
        "'",
        "''",
        ",",
        " ",
        "\t",
        "AND",
        "OR",
        "SKIP",
        "WHILE",
        " AND ",
        " OR ",
        "=",
        "!=",
        "<=",
        ">",
        "-",
        "9",
        "123",
        "99999999999999999999",
        "true",
        "FALSE",
        "binary:",
        "regexstring:",
        "substring:",
        "binaryprefix:",
        "long:",
        "'regexstring:(?=x)'",
        "'regexstring:[a'",
        "PrefixFilter",
        "RowFilter",
        "ValueFilter",
        "SingleColumnValueFilter",
        "ColumnRangeFilter",
        "PageFilter",
        "TimestampsFilter",
        "MultipleColumnPrefixFilter",
        "KeyOnlyFilter",
        "FirstKeyOnlyFilter",
        "InclusiveStopFilter",
        "é",
        "\u{0}",
        "\\",
        ":",
        "x",
    ];
    const VALID: &[&str] = &[
        "PrefixFilter('row') AND ValueFilter(=, 'substring:x') OR KeyOnlyFilter()",
        "SingleColumnValueFilter ('cf1', 'qual1', =, 'binary:val1', true, false)",
        "(RowFilter(>=, 'binaryprefix:a') OR QualifierFilter(=, 'regexstring:^q[0-9]+$'))",
        "ColumnRangeFilter('a', true, 'z', false) AND TimestampsFilter(1, 2, 3) AND PageFilter(7)",
        "MultipleColumnPrefixFilter('a', 'b''c') OR FirstKeyOnlyFilter()",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut parsed = 0;
    for round in 0..6000 {
        let s: String = if round % 2 == 0 {
            let n = rng.below(12);
            (0..n).map(|_| TOKENS[rng.below(TOKENS.len())]).collect()
        } else {
            // Mutate a valid string: delete, duplicate or replace a few characters.
            let mut cs: Vec<char> = VALID[rng.below(VALID.len())].chars().collect();
            for _ in 0..1 + rng.below(3) {
                if cs.is_empty() {
                    break;
                }
                let at = rng.below(cs.len());
                match rng.below(3) {
                    0 => {
                        cs.remove(at);
                    }
                    1 => cs.insert(at, cs[at]),
                    _ => {
                        let t = TOKENS[rng.below(TOKENS.len())];
                        cs.splice(at..at + 1, t.chars());
                    }
                }
            }
            cs.into_iter().collect()
        };
        match Filter::parse(&s) {
            Ok(f) => {
                parsed += 1;
                f.validate().unwrap();
                FilterRunner::new(&f, false).unwrap();
            }
            Err(Error::InvalidArgument(_)) => {}
            Err(e) => panic!("{s:?}: unexpected error kind {e:?}"),
        }
    }
    assert!(parsed > 100, "only {parsed} strings parsed");
}

/// `(` × n, `PrefixFilter('a')`, then ` AND PrefixFilter('b'))` × n: a FilterList nested n deep.
fn nested(n: usize) -> String {
    let mut s = "(".repeat(n);
    s.push_str("PrefixFilter('a')");
    for _ in 0..n {
        s.push_str(" AND PrefixFilter('b'))");
    }
    s
}

#[test]
fn issue21_deeply_nested_filter_string_is_refused_not_a_stack_overflow() {
    // Issue 21, item 6: a Thrift filterString nested 3,000 deep (66 KB) overflowed the
    // connection thread's stack and aborted the gateway; the shell's FILTER did the same at
    // 10,000 levels. Past MAX_FILTER_DEPTH the parser answers InvalidArgument naming the
    // limit and the offset of the first parenthesis too many.
    use crate::read::filter::MAX_FILTER_DEPTH;
    for n in [3_000, 10_000] {
        let m = bad(&nested(n));
        assert!(
            m.contains(&format!("deeper than {MAX_FILTER_DEPTH} levels"))
                && m.contains(&format!("at byte {MAX_FILTER_DEPTH}:")),
            "{m}"
        );
    }
    // Exactly at the limit: accepted, and it runs.
    let f = p(&nested(MAX_FILTER_DEPTH - 1));
    assert_eq!(f.depth(), MAX_FILTER_DEPTH);
    FilterRunner::new(&f, false).unwrap();
    // Precedence can nest deeper than the parentheses (`(A OR B AND (...))` adds two levels
    // per parenthesis): the tree's depth is checked too, at the operator's offset.
    let mut s = "(".repeat(60);
    s.push_str("PrefixFilter('a')");
    for _ in 0..60 {
        s.push_str(" AND PrefixFilter('b') OR PrefixFilter('c'))");
    }
    let m = bad(&s);
    assert!(m.contains("deeper than 100 levels"), "{m}");
    // Parentheses that do not nest filters are bounded as well (the operator stack).
    let m = bad(&format!(
        "{}PrefixFilter('a'){}",
        "(".repeat(5_000),
        ")".repeat(5_000)
    ));
    assert!(m.contains("deeper than 100 levels"), "{m}");
}

#[test]
fn issue21_programmatic_filter_deeper_than_the_limit_is_refused_before_evaluation() {
    // A Filter built through the API (not the parser) is measured without recursion and
    // refused by validate(), which every Get and Scan runs before the recursive evaluator.
    use crate::read::filter::MAX_FILTER_DEPTH;
    let mut f = Filter::KeyOnly;
    for _ in 0..1_000 {
        f = Filter::All(vec![f]);
    }
    assert_eq!(f.depth(), 1_001);
    let m = match FilterRunner::new(&f, false) {
        Err(Error::InvalidArgument(m)) => m,
        other => panic!("expected InvalidArgument, got {other:?}"),
    };
    assert!(
        m.contains("1001 levels") && m.contains(&MAX_FILTER_DEPTH.to_string()),
        "{m}"
    );
    let mut ok = Filter::KeyOnly;
    for _ in 1..MAX_FILTER_DEPTH {
        ok = Filter::Any(vec![ok, Filter::FirstKeyOnly]);
    }
    assert_eq!(ok.depth(), MAX_FILTER_DEPTH);
    ok.validate().unwrap();
}
