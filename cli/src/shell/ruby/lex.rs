//! The lexer: bytes to tokens (quoted strings with their escapes, numbers, names,
//! punctuation and statement ends).

use super::ParseError;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Str(Vec<u8>),
    Int(i64),
    Float(f64),
    Ident(String),
    Comma,
    Arrow,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    LParen,
    RParen,
    /// `;` or a newline: ends a statement.
    End,
}

/// Tokenizes `src`. Newlines inside brackets or after `,`/`=>` are not statement ends.
pub(super) fn lex(src: &[u8]) -> Result<Vec<(Tok, usize)>, ParseError> {
    let mut out: Vec<(Tok, usize)> = Vec::new();
    let mut depth: i32 = 0;
    let mut i = 0;
    while i < src.len() {
        let c = src[i];
        let start = i;
        match c {
            b' ' | b'\t' | b'\r' | 0x0c => i += 1,
            b'\\' if src.get(i + 1) == Some(&b'\n') => {
                // Line continuation: at the end of the input, more lines are needed.
                if i + 2 >= src.len() {
                    return Err(ParseError::incomplete(src.len()));
                }
                i += 2;
            }
            b'\n' | b';' => {
                let continues = matches!(out.last(), Some((Tok::Comma | Tok::Arrow, _)));
                if depth == 0 && !(c == b'\n' && continues) {
                    out.push((Tok::End, i));
                }
                i += 1;
            }
            b'#' => {
                while i < src.len() && src[i] != b'\n' {
                    i += 1;
                }
            }
            b',' => {
                out.push((Tok::Comma, i));
                i += 1;
            }
            b'=' if src.get(i + 1) == Some(&b'>') => {
                out.push((Tok::Arrow, i));
                i += 2;
            }
            b'[' | b'{' | b'(' => {
                depth += 1;
                out.push((
                    match c {
                        b'[' => Tok::LBracket,
                        b'{' => Tok::LBrace,
                        _ => Tok::LParen,
                    },
                    i,
                ));
                i += 1;
            }
            b']' | b'}' | b')' => {
                depth -= 1;
                if depth < 0 {
                    return Err(ParseError::syntax(i, format!("unexpected '{}'", c as char)));
                }
                out.push((
                    match c {
                        b']' => Tok::RBracket,
                        b'}' => Tok::RBrace,
                        _ => Tok::RParen,
                    },
                    i,
                ));
                i += 1;
            }
            b'\'' => {
                let (s, next) = single_quoted(src, i)?;
                out.push((Tok::Str(s), start));
                i = next;
            }
            b'"' => {
                let (s, next) = double_quoted(src, i)?;
                out.push((Tok::Str(s), start));
                i = next;
            }
            b'0'..=b'9' | b'-' | b'+' => {
                let (t, next) = number(src, i)?;
                out.push((t, start));
                i = next;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let mut j = i;
                while j < src.len()
                    && (src[j].is_ascii_alphanumeric() || src[j] == b'_' || src[j] == b'?')
                {
                    j += 1;
                }
                // Ruby method names may end in `?` or `!`; keep `?` handling simple.
                let word = String::from_utf8_lossy(&src[i..j]).into_owned();
                if src.get(j) == Some(&b'.')
                    && word.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                {
                    return Err(ParseError::syntax(
                        i,
                        "Java/Ruby expressions are not supported by cellbase's shell; use literals and filter strings",
                    ));
                }
                out.push((Tok::Ident(word), start));
                i = j;
            }
            c if c >= 0x80 => {
                return Err(ParseError::syntax(i, "invalid multibyte char (UTF-8)"));
            }
            c => {
                return Err(ParseError::syntax(
                    i,
                    format!(
                        "unexpected character {}",
                        cellbase::rowkey::to_string_binary(&[c])
                    ),
                ));
            }
        }
    }
    if depth > 0 || matches!(out.last(), Some((Tok::Comma | Tok::Arrow, _))) {
        return Err(ParseError::incomplete(src.len()));
    }
    Ok(out)
}

fn single_quoted(src: &[u8], open: usize) -> Result<(Vec<u8>, usize), ParseError> {
    let mut s = Vec::new();
    let mut i = open + 1;
    while i < src.len() {
        match src[i] {
            b'\'' => return Ok((s, i + 1)),
            b'\\' if matches!(src.get(i + 1), Some(b'\'' | b'\\')) => {
                s.push(src[i + 1]);
                i += 2;
            }
            c => {
                s.push(c);
                i += 1;
            }
        }
    }
    Err(ParseError::incomplete(src.len()))
}

fn hex_digit(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

fn double_quoted(src: &[u8], open: usize) -> Result<(Vec<u8>, usize), ParseError> {
    let mut s = Vec::new();
    let mut i = open + 1;
    while i < src.len() {
        match src[i] {
            b'"' => return Ok((s, i + 1)),
            b'#' if src.get(i + 1) == Some(&b'{') => {
                return Err(ParseError::syntax(
                    i,
                    "string interpolation #{...} is not supported",
                ));
            }
            b'\\' => {
                let Some(&e) = src.get(i + 1) else {
                    return Err(ParseError::incomplete(src.len()));
                };
                i += 2;
                match e {
                    b'n' => s.push(b'\n'),
                    b't' => s.push(b'\t'),
                    b'r' => s.push(b'\r'),
                    b'0'..=b'7' => {
                        let mut v: u32 = u32::from(e - b'0');
                        let mut n = 1;
                        while n < 3 && matches!(src.get(i), Some(b'0'..=b'7')) {
                            v = v * 8 + u32::from(src[i] - b'0');
                            i += 1;
                            n += 1;
                        }
                        s.push((v & 0xff) as u8);
                    }
                    b'x' => {
                        let Some(h) = src.get(i).and_then(|&c| hex_digit(c)) else {
                            return Err(ParseError::syntax(i, "invalid hex escape"));
                        };
                        i += 1;
                        let mut v = h;
                        if let Some(l) = src.get(i).and_then(|&c| hex_digit(c)) {
                            v = v * 16 + l;
                            i += 1;
                        }
                        s.push(v);
                    }
                    b'u' => {
                        let braces = src.get(i) == Some(&b'{');
                        if braces {
                            i += 1;
                        }
                        let mut v: u32 = 0;
                        let mut n = 0;
                        while n < if braces { 6 } else { 4 } {
                            match src.get(i).and_then(|&c| hex_digit(c)) {
                                Some(d) => {
                                    v = v * 16 + u32::from(d);
                                    i += 1;
                                    n += 1;
                                }
                                None => break,
                            }
                        }
                        if braces {
                            if src.get(i) != Some(&b'}') {
                                return Err(ParseError::syntax(i, "invalid Unicode escape"));
                            }
                            i += 1;
                        }
                        let ch = (n > 0 && (braces || n == 4))
                            .then(|| char::from_u32(v))
                            .flatten()
                            .ok_or_else(|| ParseError::syntax(i, "invalid Unicode escape"))?;
                        let mut buf = [0u8; 4];
                        s.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                    }
                    b'a' => s.push(0x07),
                    b'b' => s.push(0x08),
                    b'e' => s.push(0x1b),
                    b'f' => s.push(0x0c),
                    b'v' => s.push(0x0b),
                    b's' => s.push(b' '),
                    b'\n' => {}
                    other => s.push(other),
                }
            }
            c => {
                s.push(c);
                i += 1;
            }
        }
    }
    Err(ParseError::incomplete(src.len()))
}

fn number(src: &[u8], start: usize) -> Result<(Tok, usize), ParseError> {
    let mut i = start;
    if matches!(src[i], b'-' | b'+') {
        i += 1;
        if !matches!(src.get(i), Some(b'0'..=b'9')) {
            return Err(ParseError::syntax(start, "unexpected sign"));
        }
    }
    let mut text = String::new();
    if src[start] == b'-' {
        text.push('-');
    }
    // Hex literal.
    if src.get(i) == Some(&b'0') && matches!(src.get(i + 1), Some(b'x' | b'X')) {
        let mut j = i + 2;
        let mut digits = String::new();
        while j < src.len() && (src[j].is_ascii_hexdigit() || src[j] == b'_') {
            if src[j] != b'_' {
                digits.push(src[j] as char);
            }
            j += 1;
        }
        let v = i64::from_str_radix(&digits, 16)
            .map_err(|_| ParseError::syntax(start, "invalid hex integer"))?;
        return Ok((Tok::Int(if text == "-" { -v } else { v }), j));
    }
    let mut float = false;
    while i < src.len() {
        match src[i] {
            b'0'..=b'9' => text.push(src[i] as char),
            b'_' => {}
            b'.' if !float && matches!(src.get(i + 1), Some(b'0'..=b'9')) => {
                float = true;
                text.push('.');
            }
            b'e' | b'E' if float => {
                text.push('e');
                if matches!(src.get(i + 1), Some(b'-' | b'+')) {
                    i += 1;
                    text.push(src[i] as char);
                }
            }
            _ => break,
        }
        i += 1;
    }
    if src
        .get(i)
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
    {
        return Err(ParseError::syntax(i, "invalid number"));
    }
    if float {
        let v: f64 = text
            .parse()
            .map_err(|_| ParseError::syntax(start, "invalid float"))?;
        Ok((Tok::Float(v), i))
    } else {
        let v: i64 = text
            .parse()
            .map_err(|_| ParseError::syntax(start, "integer out of range"))?;
        Ok((Tok::Int(v), i))
    }
}
