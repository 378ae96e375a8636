//! A small tokenizer and evaluator for the Ruby literals HBase shell users type:
//! `'single'` and `"double"` strings, integers, floats, `true`/`false`/`nil`, upper-case
//! constants (which evaluate to their own names, as the HBase shell defines them), arrays,
//! `=>` hashes (with or without braces for a trailing hash argument), and the statement forms
//! `cmd arg, arg` and `cmd(arg, arg)`, several per line separated by `;`.
//!
//! The lexer works on bytes, so binary garbage inside quotes stays bytes and binary garbage
//! outside quotes is a typed [`ParseError`] with its position, never a panic.
//!
//! `lex` turns the bytes into tokens; this module holds the values, the errors and the
//! recursive parser over the tokens.

mod lex;

use lex::{Tok, lex};
use std::fmt;

/// A Ruby literal value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A string (bytes: double-quoted escapes such as `\x00` can produce any byte).
    Str(Vec<u8>),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// `true` / `false`.
    Bool(bool),
    /// `nil`.
    Nil,
    /// `[a, b, ...]`.
    Array(Vec<Value>),
    /// `{k => v, ...}`, in the order written.
    Hash(Vec<(Value, Value)>),
}

impl Value {
    /// Ruby's `inspect`-ish text, used in error messages.
    pub fn describe(&self) -> String {
        match self {
            Value::Str(s) => format!("'{}'", cellbase::rowkey::to_string_binary(s)),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => f.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Nil => "nil".into(),
            Value::Array(a) => format!(
                "[{}]",
                a.iter().map(Value::describe).collect::<Vec<_>>().join(", ")
            ),
            Value::Hash(h) => format!(
                "{{{}}}",
                h.iter()
                    .map(|(k, v)| format!("{} => {}", k.describe(), v.describe()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// The class name Ruby would report (`String`, `Integer`, ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Str(_) => "String",
            Value::Int(_) => "Integer",
            Value::Float(_) => "Float",
            Value::Bool(true) => "TrueClass",
            Value::Bool(false) => "FalseClass",
            Value::Nil => "NilClass",
            Value::Array(_) => "Array",
            Value::Hash(_) => "Hash",
        }
    }
}

/// One parsed statement: a command name and its evaluated arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    /// The command (method) name.
    pub command: String,
    /// Its arguments; a trailing brace-less `k => v` list is one [`Value::Hash`].
    pub args: Vec<Value>,
}

/// Why a piece of input did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// The input ends inside a string, bracket, or after a `,` / `=>`: read another line.
    Incomplete,
    /// A real syntax error.
    Syntax(String),
    /// A lower-case name used as a value (Ruby's NameError).
    UndefinedName(String),
}

/// A parse error with the byte offset where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What went wrong.
    pub kind: ParseErrorKind,
    /// Byte offset in the input.
    pub pos: usize,
}

impl ParseError {
    fn syntax(pos: usize, msg: impl Into<String>) -> Self {
        ParseError {
            kind: ParseErrorKind::Syntax(msg.into()),
            pos,
        }
    }
    fn incomplete(pos: usize) -> Self {
        ParseError {
            kind: ParseErrorKind::Incomplete,
            pos,
        }
    }
    /// True when more input could complete the statement.
    pub fn is_incomplete(&self) -> bool {
        self.kind == ParseErrorKind::Incomplete
    }
}

impl ParseError {
    /// The message without the position.
    pub fn message(&self) -> String {
        match &self.kind {
            ParseErrorKind::Incomplete => "unexpected end-of-input".into(),
            ParseErrorKind::Syntax(m) => m.clone(),
            ParseErrorKind::UndefinedName(n) => {
                format!("undefined local variable or method `{n}' for main:Object")
            }
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ParseErrorKind::Incomplete => write!(f, "unexpected end of input"),
            ParseErrorKind::Syntax(m) => write!(f, "{m} (at offset {})", self.pos),
            ParseErrorKind::UndefinedName(n) => {
                write!(
                    f,
                    "undefined local variable or method `{n}' for main:Object"
                )
            }
        }
    }
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    end: usize,
    depth: usize,
}

/// Deepest array/hash nesting accepted (keeps the recursive parser's stack bounded).
const MAX_DEPTH: usize = 64;

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }
    fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |(_, p)| *p)
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).map(|(t, _)| t.clone());
        self.pos += 1;
        t
    }
    fn expect(&mut self, want: &Tok, what: &str) -> Result<(), ParseError> {
        let at = self.at();
        match self.next() {
            Some(ref t) if t == want => Ok(()),
            None => Err(ParseError::incomplete(self.end)),
            Some(_) => Err(ParseError::syntax(at, format!("expected {what}"))),
        }
    }

    fn statement(&mut self) -> Result<Statement, ParseError> {
        let at = self.at();
        let command = match self.next() {
            Some(Tok::Ident(w)) => w,
            _ => return Err(ParseError::syntax(at, "expected a command name")),
        };
        let mut args = Vec::new();
        match self.peek() {
            None | Some(Tok::End) => {}
            Some(Tok::LParen) => {
                self.next();
                if self.peek() != Some(&Tok::RParen) {
                    args = self.arg_list(true)?;
                }
                self.expect(&Tok::RParen, "')'")?;
            }
            _ => args = self.arg_list(false)?,
        }
        match self.peek() {
            None | Some(Tok::End) => Ok(Statement { command, args }),
            Some(_) => Err(ParseError::syntax(
                self.at(),
                "unexpected token after arguments (missing ','?)",
            )),
        }
    }

    /// `a, b, k => v, k2 => v2`: trailing pairs become one hash.
    fn arg_list(&mut self, in_parens: bool) -> Result<Vec<Value>, ParseError> {
        let mut args = Vec::new();
        let mut pairs: Vec<(Value, Value)> = Vec::new();
        loop {
            let v = self.value()?;
            if self.peek() == Some(&Tok::Arrow) {
                self.next();
                let val = self.value()?;
                pairs.push((v, val));
            } else if !pairs.is_empty() {
                return Err(ParseError::syntax(
                    self.at(),
                    "a positional argument cannot follow `key => value` pairs",
                ));
            } else {
                args.push(v);
            }
            match self.peek() {
                Some(Tok::Comma) => {
                    self.next();
                    if in_parens && self.peek() == Some(&Tok::RParen) {
                        break;
                    }
                }
                _ => break,
            }
        }
        if !pairs.is_empty() {
            args.push(Value::Hash(pairs));
        }
        Ok(args)
    }

    fn value(&mut self) -> Result<Value, ParseError> {
        if self.depth >= MAX_DEPTH {
            return Err(ParseError::syntax(self.at(), "nesting too deep"));
        }
        self.depth += 1;
        let v = self.value_inner();
        self.depth -= 1;
        v
    }

    fn value_inner(&mut self) -> Result<Value, ParseError> {
        let at = self.at();
        match self.next() {
            None => Err(ParseError::incomplete(self.end)),
            Some(Tok::Str(mut s)) => {
                // Ruby concatenates adjacent string literals.
                while let Some(Tok::Str(more)) = self.peek() {
                    s.extend_from_slice(more);
                    self.next();
                }
                Ok(Value::Str(s))
            }
            Some(Tok::Int(i)) => Ok(Value::Int(i)),
            Some(Tok::Float(f)) => Ok(Value::Float(f)),
            Some(Tok::Ident(w)) => match w.as_str() {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                "nil" => Ok(Value::Nil),
                _ if w.starts_with(|c: char| c.is_ascii_uppercase()) => {
                    Ok(Value::Str(w.into_bytes()))
                }
                _ => Err(ParseError {
                    kind: ParseErrorKind::UndefinedName(w),
                    pos: at,
                }),
            },
            Some(Tok::LBracket) => {
                let mut items = Vec::new();
                loop {
                    if self.peek() == Some(&Tok::RBracket) {
                        self.next();
                        break;
                    }
                    items.push(self.value()?);
                    let at = self.at();
                    match self.next() {
                        Some(Tok::Comma) => {}
                        Some(Tok::RBracket) => break,
                        None => return Err(ParseError::incomplete(self.end)),
                        Some(_) => return Err(ParseError::syntax(at, "expected ',' or ']'")),
                    }
                }
                Ok(Value::Array(items))
            }
            Some(Tok::LBrace) => {
                let mut pairs = Vec::new();
                loop {
                    if self.peek() == Some(&Tok::RBrace) {
                        self.next();
                        break;
                    }
                    let k = self.value()?;
                    self.expect(&Tok::Arrow, "'=>'")?;
                    let v = self.value()?;
                    pairs.push((k, v));
                    let at = self.at();
                    match self.next() {
                        Some(Tok::Comma) => {}
                        Some(Tok::RBrace) => break,
                        None => return Err(ParseError::incomplete(self.end)),
                        Some(_) => return Err(ParseError::syntax(at, "expected ',' or '}'")),
                    }
                }
                Ok(Value::Hash(pairs))
            }
            Some(_) => Err(ParseError::syntax(at, "unexpected token")),
        }
    }
}

/// Parses a chunk of input into statements. Empty statements (blank lines, comments) are
/// skipped. Returns [`ParseErrorKind::Incomplete`] when more lines are needed.
pub fn parse(src: &[u8]) -> Result<Vec<Statement>, ParseError> {
    let toks = lex(src)?;
    let mut p = Parser {
        toks,
        pos: 0,
        end: src.len(),
        depth: 0,
    };
    let mut out = Vec::new();
    while p.pos < p.toks.len() {
        if p.peek() == Some(&Tok::End) {
            p.next();
            continue;
        }
        out.push(p.statement()?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> Statement {
        let mut v = parse(s.as_bytes()).unwrap();
        assert_eq!(v.len(), 1, "{s}");
        v.remove(0)
    }
    fn s(x: &str) -> Value {
        Value::Str(x.as_bytes().to_vec())
    }

    #[test]
    fn forms() {
        let st = one("create 't1', 'f1', {SPLITS => ['1','2']}");
        assert_eq!(st.command, "create");
        assert_eq!(
            st.args,
            vec![
                s("t1"),
                s("f1"),
                Value::Hash(vec![(s("SPLITS"), Value::Array(vec![s("1"), s("2")]))])
            ]
        );
        let st = one("create'users', 'info'");
        assert_eq!(st.args, vec![s("users"), s("info")]);
        let st = one("alter 't1', NAME => 'f1', VERSIONS => 5");
        assert_eq!(
            st.args,
            vec![
                s("t1"),
                Value::Hash(vec![(s("NAME"), s("f1")), (s("VERSIONS"), Value::Int(5))])
            ]
        );
        let st = one("get('t1', 'r1')");
        assert_eq!(st.args, vec![s("t1"), s("r1")]);
        assert_eq!(one("list").args, vec![]);
    }

    #[test]
    fn strings() {
        assert_eq!(
            one(r#"put "a\x00\xff\n\t\\\"""#).args,
            vec![Value::Str(b"a\x00\xff\n\t\\\"".to_vec())]
        );
        assert_eq!(
            one(r"put 'a\x00\'\\'").args,
            vec![Value::Str(b"a\\x00'\\".to_vec())]
        );
        assert_eq!(
            one(r#"put "\u00e9""#).args,
            vec![Value::Str("é".as_bytes().to_vec())]
        );
        assert_eq!(one(r#"put 'a' "b""#).args, vec![s("ab")]);
    }

    #[test]
    fn numbers_and_literals() {
        assert_eq!(
            one("x -5, 1_000, 0.8, true, false, nil, 0x1F").args,
            vec![
                Value::Int(-5),
                Value::Int(1000),
                Value::Float(0.8),
                Value::Bool(true),
                Value::Bool(false),
                Value::Nil,
                Value::Int(31)
            ]
        );
    }

    #[test]
    fn incomplete_and_errors() {
        for src in [
            "create 't1',",
            "create 't1', {NAME =>",
            "put 'a",
            "scan 't', {",
            "x [1,",
        ] {
            assert!(parse(src.as_bytes()).unwrap_err().is_incomplete(), "{src}");
        }
        assert!(parse(b"create 't1' \\\n").unwrap_err().is_incomplete());
        assert_eq!(parse(b"create 't1', \\\n 'f'\n").unwrap()[0].args.len(), 2);
        let multi = "create 't1',\n  {NAME => 'f1',\n   VERSIONS => 2}\n";
        assert_eq!(parse(multi.as_bytes()).unwrap().len(), 1);
        for src in ["create 't1' 'f1' 3", "get 't', foo", "}", "put \x01", "a.b"] {
            let e = parse(src.as_bytes()).unwrap_err();
            assert!(!e.is_incomplete(), "{src}: {e:?}");
        }
        assert_eq!(parse(b"a; b 'x'\n\n# c\n").unwrap().len(), 2);
        let deep = format!("x {}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(!parse(deep.as_bytes()).unwrap_err().is_incomplete());
    }
}
