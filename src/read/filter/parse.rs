//! HBase's filter language (`ParseFilter` / `ParseConstants`, hbase-shell.md §4.5).
//!
//! This mirrors HBase 2.6's `ParseFilter.parseFilterString` step by step, byte by byte, so
//! that the same strings are accepted and rejected:
//!
//! * The string is scanned left to right. `(` is pushed on an operator stack; spaces and tabs
//!   are skipped; `OR` / `AND` are operators only when preceded by a space or `)` and followed
//!   by a space or `(`; `SKIP` / `WHILE` also when at the start or after `(`. Anything else
//!   starts a *simple expression* that runs to the first `)` outside quotes
//!   (`extractFilterSimpleExpression`).
//! * Operators reduce by precedence: `SKIP`/`WHILE` (1) before `AND` (2) before `OR` (3);
//!   consecutive `AND`s (`OR`s) become one list. Like HBase, a `)` that closes a group with
//!   mixed operators left on the stack (`(A OR B AND C)`) is reported as mismatched
//!   parentheses — HBase's own quirk, kept so the accepted language is identical.
//! * A simple expression is `Name(args)`: the name runs to the first `(` or space; arguments
//!   are separated by spaces and commas; `'quoted'` arguments are byte strings with `''` for
//!   a quote; other arguments run to the next space, comma or `)` and are compare operators
//!   (`< <= = != >= >`), booleans (`true`/`false`, any case) or decimal integers.
//! * Comparators are `'type:value'`, split at the first colon: `binary`, `binaryprefix`,
//!   `regexstring`, `substring`; regex and substring only with `=` / `!=`.
//! * The name selects a registered filter (`REGISTRY`, HBase's `filterHashMap`); each filter's
//!   `createFilterFromArguments` is its `from_arguments`, next to the filter in its family's
//!   file, built from the argument helpers here.
//!
//! Nesting is bounded: more than [`MAX_FILTER_DEPTH`](super::MAX_FILTER_DEPTH) open
//! parentheses, or a filter tree (FilterLists inside FilterLists) deeper than that, is an
//! `InvalidArgument` naming the limit and the byte offset. HBase's parser has no limit and a
//! deep enough string overflows its stack too; here one hostile string (a Thrift
//! `filterString`, a shell `FILTER`) must not abort the process (issue 21, item 6).
//!
//! Every filter HBase 2.6 registers is accepted ([`FILTER_LANGUAGE_NAMES`]), and `SKIP` /
//! `WHILE` build [`Filter::Skip`] / [`Filter::WhileMatch`]. API-only filters
//! (`FuzzyRowFilter`, `MultiRowRangeFilter`, `RandomRowFilter`, ...) and comparators
//! (`LongComparator`, `BitComparator`, `NullComparator`) are unknown to the language, as in
//! HBase.

use super::column::{
    ColumnCountGetFilter, ColumnPaginationFilter, ColumnPrefixFilter, ColumnRangeFilter,
    FirstKeyOnlyFilter, KeyOnlyFilter, MultipleColumnPrefixFilter,
};
use super::compare::{FamilyFilter, QualifierFilter, RowFilter, ValueFilter};
use super::row::{InclusiveStopFilter, PageFilter, PrefixFilter};
use super::time::TimestampsFilter;
use super::value::{
    ColumnValueFilter, DependentColumnFilter, SingleColumnValueExcludeFilter,
    SingleColumnValueFilter,
};
use super::{Comparator, CompareOp, Filter, MAX_FILTER_DEPTH};
use crate::base::error::{Error, Result};
use std::fmt::Display;

/// Operator-stack entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    LParen,
    And,
    Or,
    Skip,
    While,
}

impl Op {
    /// `operatorPrecedenceHashMap`: lower binds tighter.
    fn precedence(self) -> u8 {
        match self {
            Op::Skip | Op::While => 1,
            Op::And => 2,
            Op::Or => 3,
            Op::LParen => u8::MAX,
        }
    }
}

/// The parse tree before conversion to [`Filter`], each inner node with its depth (see
/// [`Filter::depth`]).
enum Node {
    Leaf(Filter),
    /// An AND list.
    And(Vec<Node>, usize),
    /// An OR list.
    Or(Vec<Node>, usize),
    /// `SKIP` (SkipFilter).
    Skip(Box<Node>, usize),
    /// `WHILE` (WhileMatchFilter).
    While(Box<Node>, usize),
}

impl Node {
    /// Nesting depth, as [`Filter::depth`] counts it (a leaf's own lists included).
    fn depth(&self) -> usize {
        match self {
            Node::Leaf(f) => f.depth(),
            Node::And(_, d) | Node::Or(_, d) | Node::Skip(_, d) | Node::While(_, d) => *d,
        }
    }
}

fn too_deep(pos: usize) -> Error {
    err(
        pos,
        format!("filters nested deeper than {MAX_FILTER_DEPTH} levels (MAX_FILTER_DEPTH)"),
    )
}

pub(super) fn err(pos: usize, msg: impl Display) -> Error {
    Error::invalid(format!("filter string, at byte {pos}: {msg}"))
}

/// Parses a filter string (see the module docs).
pub(super) fn parse(s: &str) -> Result<Filter> {
    let b = s.as_bytes();
    let mut ops: Vec<(Op, usize)> = Vec::new();
    let mut stack: Vec<Node> = Vec::new();
    // Open group parentheses (those outside simple expressions).
    let mut parens = 0usize;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'(' {
            parens += 1;
            if parens > MAX_FILTER_DEPTH {
                return Err(too_deep(i));
            }
            ops.push((Op::LParen, i));
        } else if c == b' ' || c == b'\t' {
            // skipped
        } else if is_keyword(b, i, b"OR", false) {
            reduce(&mut ops, &mut stack, Op::Or, i)?;
            ops.push((Op::Or, i));
            i += 1;
        } else if is_keyword(b, i, b"AND", false) {
            reduce(&mut ops, &mut stack, Op::And, i)?;
            ops.push((Op::And, i));
            i += 2;
        } else if is_keyword(b, i, b"SKIP", true) {
            reduce(&mut ops, &mut stack, Op::Skip, i)?;
            ops.push((Op::Skip, i));
            i += 3;
        } else if is_keyword(b, i, b"WHILE", true) {
            reduce(&mut ops, &mut stack, Op::While, i)?;
            ops.push((Op::While, i));
            i += 4;
        } else if c == b')' {
            parens = parens.saturating_sub(1);
            let Some(&(top, _)) = ops.last() else {
                return Err(err(i, "mismatched parenthesis"));
            };
            if top == Op::LParen {
                ops.pop();
            } else {
                let mut top = top;
                while top != Op::LParen {
                    let node = pop_arguments(&mut ops, &mut stack, i)?;
                    stack.push(node);
                    match ops.pop() {
                        Some((t, _)) => top = t,
                        None => return Err(err(i, "mismatched parenthesis")),
                    }
                }
            }
        } else {
            let end = extract_simple_expression(b, i)?;
            let filter = parse_simple(&b[i..=end], i)?;
            stack.push(Node::Leaf(filter));
            i = end;
        }
        i += 1;
    }
    while !ops.is_empty() {
        let node = pop_arguments(&mut ops, &mut stack, b.len())?;
        stack.push(node);
    }
    let Some(root) = stack.pop() else {
        return Err(err(0, "incorrect filter string: no filter"));
    };
    if !stack.is_empty() {
        return Err(err(
            0,
            "incorrect filter string: filters must be joined by AND or OR",
        ));
    }
    to_filter(root)
}

/// `checkForOr` / `checkForAnd` / `checkForSkip` / `checkForWhile`.
fn is_keyword(b: &[u8], i: usize, kw: &[u8], unary: bool) -> bool {
    if b.get(i..i + kw.len()) != Some(kw) {
        return false;
    }
    let before_ok = match i.checked_sub(1).map(|p| b[p]) {
        None => unary,
        Some(b' ') | Some(b')') => true,
        Some(b'(') => unary,
        Some(_) => false,
    };
    let after_ok = matches!(b.get(i + kw.len()), Some(b' ') | Some(b'('));
    before_ok && after_ok
}

/// `reduce`: pops operators that bind tighter than `op`.
fn reduce(ops: &mut Vec<(Op, usize)>, stack: &mut Vec<Node>, op: Op, pos: usize) -> Result<()> {
    while let Some(&(top, _)) = ops.last() {
        if top == Op::LParen || top.precedence() >= op.precedence() {
            break;
        }
        let node = pop_arguments(ops, stack, pos)?;
        stack.push(node);
    }
    Ok(())
}

/// `popArguments`: applies the operator on top of the stack.
fn pop_arguments(ops: &mut Vec<(Op, usize)>, stack: &mut Vec<Node>, pos: usize) -> Result<Node> {
    let Some(&(top, op_pos)) = ops.last() else {
        return Err(err(pos, "incorrect filter string"));
    };
    match top {
        Op::Or | Op::And => {
            let name = if top == Op::Or { "an OR" } else { "an AND" };
            let missing = || err(pos, format!("{name} needs two filters"));
            let mut list = Vec::new();
            while ops.last().map(|o| o.0) == Some(top) {
                list.push(stack.pop().ok_or_else(missing)?);
                ops.pop();
            }
            list.push(stack.pop().ok_or_else(missing)?);
            list.reverse();
            let depth = 1 + list.iter().map(Node::depth).max().unwrap_or(0);
            if depth > MAX_FILTER_DEPTH {
                return Err(too_deep(op_pos));
            }
            Ok(if top == Op::Or {
                Node::Or(list, depth)
            } else {
                Node::And(list, depth)
            })
        }
        Op::Skip | Op::While => {
            let name = if top == Op::Skip { "SKIP" } else { "WHILE" };
            let Some(inner) = stack.pop() else {
                return Err(err(op_pos, format!("a {name} wraps a filter")));
            };
            ops.pop();
            let depth = 1 + inner.depth();
            if depth > MAX_FILTER_DEPTH {
                return Err(too_deep(op_pos));
            }
            let inner = Box::new(inner);
            Ok(if top == Op::Skip {
                Node::Skip(inner, depth)
            } else {
                Node::While(inner, depth)
            })
        }
        Op::LParen => {
            let node = stack
                .pop()
                .ok_or_else(|| err(pos, "incorrect filter string"))?;
            ops.pop();
            Ok(node)
        }
    }
}

fn to_filter(node: Node) -> Result<Filter> {
    match node {
        Node::Leaf(f) => Ok(f),
        Node::And(list, _) => Ok(Filter::All(
            list.into_iter().map(to_filter).collect::<Result<_>>()?,
        )),
        Node::Or(list, _) => Ok(Filter::Any(
            list.into_iter().map(to_filter).collect::<Result<_>>()?,
        )),
        Node::Skip(inner, _) => Ok(Filter::Skip(Box::new(to_filter(*inner)?))),
        Node::While(inner, _) => Ok(Filter::WhileMatch(Box::new(to_filter(*inner)?))),
    }
}

/// `isQuoteUnescaped`.
fn quote_unescaped(b: &[u8], i: usize) -> bool {
    i + 1 == b.len() || b[i + 1] != b'\''
}

/// `extractFilterSimpleExpression`: index of the `)` that ends the expression at `start`.
fn extract_simple_expression(b: &[u8], start: usize) -> Result<usize> {
    let mut quotes = 0usize;
    let mut i = start;
    while i < b.len() {
        if b[i] == b'\'' {
            if quote_unescaped(b, i) {
                quotes += 1;
            } else {
                i += 1; // the escaped quote
            }
        }
        if b[i] == b')' && quotes.is_multiple_of(2) {
            return Ok(i);
        }
        i += 1;
    }
    Err(err(
        start,
        "incorrect filter string: expected `Name(arguments)` ending with ')'",
    ))
}

/// One argument as HBase sees it: quoted ones keep their quotes (unescaped inside).
pub(super) struct Arg {
    raw: Vec<u8>,
    pub(super) pos: usize,
}

impl Arg {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.raw).into_owned()
    }
}

/// `parseSimpleFilterExpression`.
fn parse_simple(expr: &[u8], base: usize) -> Result<Filter> {
    let name_end = expr.iter().position(|&c| c == b'(' || c == b' ');
    let name_end = match name_end {
        Some(n) if n > 0 => n,
        _ => {
            return Err(err(
                base,
                format!(
                    "incorrect filter name in `{}`",
                    String::from_utf8_lossy(expr)
                ),
            ));
        }
    };
    let name = String::from_utf8_lossy(&expr[..name_end]).into_owned();
    let args = filter_arguments(expr, base)?;
    build(&name, &args, base)
}

/// `getFilterArguments`.
fn filter_arguments(expr: &[u8], base: usize) -> Result<Vec<Arg>> {
    let Some(lparen) = expr.iter().position(|&c| c == b'(') else {
        return Err(err(base, "incorrect argument list: '(' expected"));
    };
    let n = expr.len();
    let mut args = Vec::new();
    let mut i = lparen + 1;
    while i < n {
        let c = expr[i];
        if c == b' ' || c == b',' || c == b')' {
            i += 1;
            continue;
        }
        if c == b'\'' {
            let start = i;
            let mut j = start + 1;
            while j < n {
                if expr[j] == b'\'' {
                    if quote_unescaped(expr, j) {
                        args.push(Arg {
                            raw: unescape(expr, start, j),
                            pos: base + start,
                        });
                        i = j + 1;
                        break;
                    }
                    j += 1; // the escaped quote
                } else if j == n - 1 {
                    return Err(err(base + start, "unterminated quoted argument"));
                }
                j += 1;
            }
        } else {
            let start = i;
            let mut j = start;
            while j < n {
                if matches!(expr[j], b' ' | b',' | b')') {
                    args.push(Arg {
                        raw: expr[start..j].to_vec(),
                        pos: base + start,
                    });
                    i = j;
                    break;
                } else if j == n - 1 {
                    return Err(err(base + start, "incorrect argument list"));
                }
                j += 1;
            }
        }
        // Like HBase, the byte right after a closing quote is skipped unexamined.
        i += 1;
    }
    Ok(args)
}

/// `createUnescapdArgument`: the quoted argument `b[start..=end]` with `''` turned into `'`,
/// surrounding quotes kept.
fn unescape(b: &[u8], start: usize, end: usize) -> Vec<u8> {
    let mut out = vec![b'\''];
    let mut k = start + 1;
    while k < end {
        if b[k] == b'\'' && k != end - 1 && b[k + 1] == b'\'' {
            out.push(b'\'');
            k += 2;
        } else {
            out.push(b[k]);
            k += 1;
        }
    }
    out.push(b'\'');
    out
}

/// `removeQuotesFromByteArray`.
pub(super) fn unquote(arg: &Arg) -> Result<Vec<u8>> {
    let r = &arg.raw;
    if r.len() < 2 || r[0] != b'\'' || r[r.len() - 1] != b'\'' {
        return Err(err(
            arg.pos,
            format!("expected a quoted string, got `{}`", arg.text()),
        ));
    }
    Ok(r[1..r.len() - 1].to_vec())
}

/// `convertByteArrayToLong`, including its overflow check on Java's wrapping arithmetic.
pub(super) fn to_long(arg: &Arg) -> Result<i64> {
    let r = &arg.raw;
    let bad = || {
        err(
            arg.pos,
            format!("expected an integer, got `{}`", arg.text()),
        )
    };
    let (negative, digits) = match r.first() {
        Some(b'-') => (true, &r[1..]),
        Some(_) => (false, &r[..]),
        None => return Err(bad()),
    };
    let mut value: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return Err(bad());
        }
        value = value.wrapping_mul(10).wrapping_add(i64::from(d - b'0'));
        if value < 0 {
            return Err(err(
                arg.pos,
                format!("integer argument `{}` is too large", arg.text()),
            ));
        }
    }
    Ok(if negative { -value } else { value })
}

/// `convertByteArrayToBoolean`: `true` / `false` in any letter case.
pub(super) fn to_bool(arg: &Arg) -> Result<bool> {
    if arg.raw.eq_ignore_ascii_case(b"true") {
        Ok(true)
    } else if arg.raw.eq_ignore_ascii_case(b"false") {
        Ok(false)
    } else {
        Err(err(
            arg.pos,
            format!("expected true or false, got `{}`", arg.text()),
        ))
    }
}

/// `createCompareOperator`.
pub(super) fn to_op(arg: &Arg) -> Result<CompareOp> {
    Ok(match arg.raw.as_slice() {
        b"<" => CompareOp::Less,
        b"<=" => CompareOp::LessOrEqual,
        b"=" => CompareOp::Equal,
        b"!=" => CompareOp::NotEqual,
        b">=" => CompareOp::GreaterOrEqual,
        b">" => CompareOp::Greater,
        _ => {
            return Err(err(
                arg.pos,
                format!(
                    "invalid compare operator `{}` (expected <, <=, =, !=, >= or >)",
                    arg.text()
                ),
            ));
        }
    })
}

/// `createComparator` on the unquoted `type:value`.
pub(super) fn to_comparator(arg: &Arg) -> Result<Comparator> {
    let text = unquote(arg)?;
    let Some(colon) = text.iter().position(|&c| c == b':') else {
        return Err(err(
            arg.pos,
            format!(
                "incorrect comparator `{}`: expected 'type:value'",
                arg.text()
            ),
        ));
    };
    let (kind, value) = (&text[..colon], &text[colon + 1..]);
    let string = || String::from_utf8_lossy(value).into_owned();
    let comparator = match kind {
        b"binary" => Comparator::Binary(value.to_vec()),
        b"binaryprefix" => Comparator::BinaryPrefix(value.to_vec()),
        b"regexstring" => Comparator::Regex(string()),
        b"substring" => Comparator::Substring(string()),
        _ => {
            return Err(err(
                arg.pos,
                format!(
                    "unsupported comparator type `{}` (the filter language knows binary, \
                     binaryprefix, regexstring and substring)",
                    String::from_utf8_lossy(kind)
                ),
            ));
        }
    };
    if let Comparator::Regex(p) = &comparator {
        super::regex_java::compile(p).map_err(|e| err(arg.pos, e))?;
    }
    Ok(comparator)
}

pub(super) fn arity(name: &str, args: &[Arg], allowed: &[usize], base: usize) -> Result<()> {
    if allowed.contains(&args.len()) {
        return Ok(());
    }
    let expected = allowed
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(" or ");
    Err(err(
        base,
        format!(
            "{name} expects {expected} argument(s) but got {}",
            args.len()
        ),
    ))
}

/// A filter's `createFilterFromArguments`: its registered name (for messages), its arguments
/// and the byte offset of its expression; it lives with the filter, in the filter's family.
type FromArguments = fn(&str, &[Arg], usize) -> Result<Filter>;

/// `ParseFilter.filterHashMap`: HBase 2.6's registered filters, in its order, by name.
const REGISTRY: [(&str, FromArguments); 19] = [
    ("KeyOnlyFilter", KeyOnlyFilter::from_arguments),
    ("FirstKeyOnlyFilter", FirstKeyOnlyFilter::from_arguments),
    ("PrefixFilter", PrefixFilter::from_arguments),
    ("ColumnPrefixFilter", ColumnPrefixFilter::from_arguments),
    (
        "MultipleColumnPrefixFilter",
        MultipleColumnPrefixFilter::from_arguments,
    ),
    ("ColumnCountGetFilter", ColumnCountGetFilter::from_arguments),
    ("PageFilter", PageFilter::from_arguments),
    (
        "ColumnPaginationFilter",
        ColumnPaginationFilter::from_arguments,
    ),
    ("InclusiveStopFilter", InclusiveStopFilter::from_arguments),
    ("TimestampsFilter", TimestampsFilter::from_arguments),
    ("RowFilter", RowFilter::from_arguments),
    ("FamilyFilter", FamilyFilter::from_arguments),
    ("QualifierFilter", QualifierFilter::from_arguments),
    ("ValueFilter", ValueFilter::from_arguments),
    ("ColumnRangeFilter", ColumnRangeFilter::from_arguments),
    (
        "SingleColumnValueFilter",
        SingleColumnValueFilter::from_arguments,
    ),
    (
        "SingleColumnValueExcludeFilter",
        SingleColumnValueExcludeFilter::from_arguments,
    ),
    (
        "DependentColumnFilter",
        DependentColumnFilter::from_arguments,
    ),
    ("ColumnValueFilter", ColumnValueFilter::from_arguments),
];

/// The names of the filter language: exactly HBase 2.6's registered filters
/// (`ParseFilter.getSupportedFilters`, the shell's `show_filters`), in `ParseFilter`'s
/// registration order. [`Filter::parse`](super::Filter::parse) accepts these and no others.
pub const FILTER_LANGUAGE_NAMES: &[&str] = &registry_names(&REGISTRY);

/// The names of `REGISTRY`, at compile time (one list for the parser and the shell).
const fn registry_names<const N: usize>(
    r: &[(&'static str, FromArguments); N],
) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = r[i].0;
        i += 1;
    }
    out
}

/// `createFilterFromArguments` of the registered filter `name`.
fn build(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
    if let Some((_, from_arguments)) = REGISTRY.iter().find(|(n, _)| *n == name) {
        return from_arguments(name, args, base);
    }
    Err(err(
        base,
        format!("unknown filter `{name}` (HBase: Filter Name {name} not supported)"),
    ))
}
