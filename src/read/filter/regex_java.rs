//! Java regular expressions (`java.util.regex.Pattern`, as HBase's `RegexStringComparator`
//! compiles them: flag `DOTALL`, matched with `find()`) on top of the `regex` crate [FLT-2].
//!
//! The two dialects mostly agree. Where Java means something else, the pattern is translated:
//!
//! * `\d \w \s` (and `\D \W \S`, `\p{Alpha}`-style POSIX classes) are ASCII-only in Java;
//!   they become explicit ASCII classes (the crate's are Unicode-aware).
//! * `$` (outside `MULTILINE`) and `\Z` also match before a final line terminator in Java.
//! * `\Q...\E` quoting, `\e`, `\cX`, `\0oct`, `\h \H \v \V \R` are expanded.
//! * A backslash before any other non-alphanumeric character is a literal; `]` outside a
//!   class is a literal; inside a class `[:` and `~` are literals (the crate would read
//!   POSIX classes and symmetric difference).
//!
//! Java features the crate cannot run are rejected with [`Error::InvalidArgument`] rather
//! than approximated: look-ahead / look-behind, atomic groups, possessive quantifiers,
//! back-references, `\G \X \N{..} \k<..>`, the flags `d u U`, `\p{In..}` blocks and `java*`
//! properties. Remaining known differences (documented, not translated): `(?i)` folds
//! Unicode case (Java folds ASCII only unless `UNICODE_CASE`), `\b` uses Unicode word
//! characters, in `MULTILINE` mode `^`/`$` only treat `\n` as a line terminator, and inside
//! `(?-s)` groups `.` excludes only `\n`.

use crate::base::error::{Error, Result};
use regex::{Regex, RegexBuilder};

/// Java's `$` / `\Z` without MULTILINE: end of input, or just before a final line terminator.
const JAVA_END: &str = r"(?:\z|(?:\r\n|[\n\r\x{85}\x{2028}\x{2029}])\z)";
/// Java's `\R`.
const JAVA_LINEBREAK: &str = r"(?:\r\n|[\n\x0B\x0C\r\x{85}\x{2028}\x{2029}])";
/// Java's `\v` (vertical whitespace), as class members.
const VERTICAL_WS: &str = r"\n\x0B\x0C\r\x{85}\x{2028}\x{2029}";
/// Java's `\h` (horizontal whitespace), as class members.
const HORIZONTAL_WS: &str =
    r"\x20\t\x{A0}\x{1680}\x{180E}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}";

/// Compiles a Java pattern the way `new RegexStringComparator(pattern)` does (DOTALL).
pub(crate) fn compile(pattern: &str) -> Result<Regex> {
    let translated = translate(pattern)
        .map_err(|m| Error::invalid(format!("regular expression `{pattern}`: {m}")))?;
    RegexBuilder::new(&translated)
        .dot_matches_new_line(true)
        .build()
        .map_err(|e| {
            let detail = e.to_string();
            let last = detail.lines().last().unwrap_or("invalid pattern").trim();
            Error::invalid(format!(
                "regular expression `{pattern}` is invalid or unsupported: {last}"
            ))
        })
}

/// A character set that a Java escape stands for.
enum Set {
    /// Members in class syntax (without brackets).
    Members(&'static str),
    /// A Unicode property name for `\p{..}`.
    Property(String),
    /// Everything (`\p{all}`).
    All,
}

fn push_set(out: &mut String, set: &Set, negated: bool) {
    match set {
        Set::Members(m) => {
            out.push_str(if negated { "[^" } else { "[" });
            out.push_str(m);
            out.push(']');
        }
        Set::Property(name) => {
            out.push_str(if negated { r"\P{" } else { r"\p{" });
            out.push_str(name);
            out.push('}');
        }
        Set::All => out.push_str(if negated {
            r"[^\x00-\x{10FFFF}]"
        } else {
            r"[\x00-\x{10FFFF}]"
        }),
    }
}

/// A character that must match literally.
fn push_literal(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() {
        out.push(c);
    } else {
        out.push_str(&format!("\\x{{{:X}}}", c as u32));
    }
}

/// Java's POSIX character classes (US-ASCII only) and Unicode property names.
fn property(name: &str) -> std::result::Result<Set, String> {
    let posix = match name {
        "Lower" => Some(r"a-z"),
        "Upper" => Some(r"A-Z"),
        "ASCII" => Some(r"\x00-\x7F"),
        "Alpha" => Some(r"a-zA-Z"),
        "Digit" => Some(r"0-9"),
        "Alnum" => Some(r"a-zA-Z0-9"),
        "Punct" => Some(r"\x21-\x2F\x3A-\x40\x5B-\x60\x7B-\x7E"),
        "Graph" => Some(r"\x21-\x7E"),
        "Print" => Some(r"\x20-\x7E"),
        "Blank" => Some(r"\x20\t"),
        "Cntrl" => Some(r"\x00-\x1F\x7F"),
        "XDigit" => Some(r"0-9a-fA-F"),
        "Space" => Some(r"\x20\t\n\x0B\x0C\r"),
        _ => None,
    };
    if let Some(m) = posix {
        return Ok(Set::Members(m));
    }
    if name == "all" {
        return Ok(Set::All);
    }
    let is_category = |n: &str| {
        (1..=2).contains(&n.len())
            && n.starts_with(|c: char| c.is_ascii_uppercase())
            && n.chars().all(|c| c.is_ascii_alphabetic())
    };
    if is_category(name) {
        return Ok(Set::Property(name.to_string()));
    }
    // Java `IsL`, `IsLatin`, `IsAlphabetic`: category, script or binary property.
    if let Some(rest) = name.strip_prefix("Is")
        && !rest.is_empty()
        && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Ok(Set::Property(rest.to_string()));
    }
    Err(format!("unsupported character property \\p{{{name}}}"))
}

/// True when some inline flag group turns MULTILINE on (approximation: any `(?..m..)`).
fn has_multiline_flag(cs: &[char]) -> bool {
    let mut i = 0;
    while i + 1 < cs.len() {
        if cs[i] == '\\' {
            i += 2;
            continue;
        }
        if cs[i] == '(' && cs[i + 1] == '?' {
            let mut j = i + 2;
            while j < cs.len() && cs[j].is_ascii_alphabetic() {
                if cs[j] == 'm' {
                    return true;
                }
                j += 1;
            }
        }
        i += 1;
    }
    false
}

/// Translates a Java pattern to the `regex` crate's syntax (see the module docs).
pub(crate) fn translate(pattern: &str) -> std::result::Result<String, String> {
    let cs: Vec<char> = pattern.chars().collect();
    let multiline = has_multiline_flag(&cs);
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut depth = 0usize; // character-class nesting
    let mut prev_quantifier = false;
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        let mut quantifier = false;
        match c {
            '\\' => {
                i = escape(&cs, i, depth > 0, &mut out)?;
                prev_quantifier = false;
                continue;
            }
            '[' => {
                depth += 1;
                out.push('[');
                i += 1;
                if cs.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                match cs.get(i) {
                    // Java (like the crate) reads a leading `]` as a literal.
                    Some(']') => {
                        out.push_str(r"\]");
                        i += 1;
                    }
                    // `[:alpha:]` is POSIX syntax to the crate, plain characters to Java.
                    Some(':') => {
                        out.push_str(r"\:");
                        i += 1;
                    }
                    _ => {}
                }
                prev_quantifier = false;
                continue;
            }
            ']' if depth > 0 => {
                depth -= 1;
                out.push(']');
            }
            ']' => out.push_str(r"\]"),
            '~' if depth > 0 => out.push_str(r"\~"),
            _ if depth > 0 => out.push(c),
            '$' if !multiline => out.push_str(JAVA_END),
            '(' if cs.get(i + 1) == Some(&'?') => {
                i = group(&cs, i, &mut out)?;
                prev_quantifier = false;
                continue;
            }
            '*' | '+' | '?' => {
                if prev_quantifier {
                    match c {
                        '+' => return Err("possessive quantifiers are not supported".into()),
                        '?' => out.push('?'), // lazy
                        _ => return Err("dangling meta character '*'".into()),
                    }
                } else {
                    out.push(c);
                    quantifier = true;
                }
            }
            '{' => {
                // Java: a `{` outside a class must start a valid repetition.
                let mut j = i + 1;
                let digits = |j: &mut usize| {
                    let s = *j;
                    while *j < cs.len() && cs[*j].is_ascii_digit() {
                        *j += 1;
                    }
                    *j > s
                };
                if !digits(&mut j) {
                    return Err("illegal repetition".into());
                }
                if cs.get(j) == Some(&',') {
                    j += 1;
                    digits(&mut j);
                }
                if cs.get(j) != Some(&'}') {
                    return Err("illegal repetition".into());
                }
                out.extend(&cs[i..=j]);
                i = j + 1;
                prev_quantifier = true;
                continue;
            }
            _ => out.push(c),
        }
        prev_quantifier = quantifier;
        i += 1;
    }
    if depth > 0 {
        return Err("unclosed character class".into());
    }
    Ok(out)
}

/// `(?` at `cs[i]`: non-capturing and named groups pass, inline flags are checked, look-around
/// and atomic groups are rejected. Returns the index after what was consumed.
fn group(cs: &[char], i: usize, out: &mut String) -> std::result::Result<usize, String> {
    match cs.get(i + 2) {
        Some(':') => {
            out.push_str("(?:");
            Ok(i + 3)
        }
        Some('=') | Some('!') => Err("look-ahead is not supported".into()),
        Some('>') => Err("atomic groups are not supported".into()),
        Some('<') => match cs.get(i + 3) {
            Some('=') | Some('!') => Err("look-behind is not supported".into()),
            _ => {
                out.push_str("(?<");
                Ok(i + 3)
            }
        },
        _ => {
            let mut j = i + 2;
            out.push_str("(?");
            while let Some(&f) = cs.get(j) {
                match f {
                    'i' | 'm' | 's' | 'x' | '-' => out.push(f),
                    ':' | ')' => break,
                    'd' | 'u' | 'U' => return Err(format!("inline flag '{f}' is not supported")),
                    _ => return Err(format!("unknown inline modifier '{f}'")),
                }
                j += 1;
            }
            Ok(j)
        }
    }
}

/// A backslash escape at `cs[i]`. Returns the index after it.
fn escape(
    cs: &[char],
    i: usize,
    in_class: bool,
    out: &mut String,
) -> std::result::Result<usize, String> {
    let Some(&e) = cs.get(i + 1) else {
        return Err("unexpected trailing backslash".into());
    };
    let ascii = |m: &'static str| Set::Members(m);
    match e {
        'd' | 'D' => push_set(out, &ascii("0-9"), e == 'D'),
        'w' | 'W' => push_set(out, &ascii("a-zA-Z_0-9"), e == 'W'),
        's' | 'S' => push_set(out, &ascii(r"\x20\t\n\x0B\x0C\r"), e == 'S'),
        'v' | 'V' => push_set(out, &ascii(VERTICAL_WS), e == 'V'),
        'h' | 'H' => push_set(out, &ascii(HORIZONTAL_WS), e == 'H'),
        'p' | 'P' => {
            let (name, next): (String, usize) = match cs.get(i + 2) {
                Some('{') => {
                    let Some(end) = cs[i + 3..].iter().position(|&c| c == '}') else {
                        return Err("unclosed character property".into());
                    };
                    (cs[i + 3..i + 3 + end].iter().collect(), i + 4 + end)
                }
                Some(&c) => (c.to_string(), i + 3),
                None => return Err("character property name expected".into()),
            };
            push_set(out, &property(&name)?, e == 'P');
            return Ok(next);
        }
        'Q' => {
            let start = i + 2;
            let mut end = start;
            while end < cs.len() && !(cs[end] == '\\' && cs.get(end + 1) == Some(&'E')) {
                end += 1;
            }
            for &c in &cs[start..end] {
                push_literal(out, c);
            }
            return Ok(if end < cs.len() { end + 2 } else { end });
        }
        't' | 'n' | 'r' | 'f' | 'a' => {
            out.push('\\');
            out.push(e);
        }
        'e' => push_literal(out, '\u{1B}'),
        'c' => {
            let Some(&x) = cs.get(i + 2) else {
                return Err("illegal control escape sequence".into());
            };
            match char::from_u32(x as u32 ^ 64) {
                Some(ctl) => push_literal(out, ctl),
                None => return Err("illegal control escape sequence".into()),
            }
            return Ok(i + 3);
        }
        '0' => {
            // \0n, \0nn, \0mnn (m <= 3)
            let mut value = 0u32;
            let mut j = i + 2;
            let max_digits = match cs.get(j) {
                Some(c) if ('0'..='3').contains(c) => 3,
                _ => 2,
            };
            while j < i + 2 + max_digits && j < cs.len() && ('0'..='7').contains(&cs[j]) {
                value = value * 8 + (cs[j] as u32 - '0' as u32);
                j += 1;
            }
            if j == i + 2 {
                return Err("illegal octal escape sequence".into());
            }
            push_literal(out, char::from_u32(value).unwrap_or('\0'));
            return Ok(j);
        }
        'x' => out.push_str(r"\x"),
        'u' => {
            if cs.get(i + 2) == Some(&'{') {
                return Err(r"\u{...} is not Java syntax".into());
            }
            out.push_str(r"\u");
        }
        'b' | 'B' => {
            if cs.get(i + 2) == Some(&'{') {
                return Err(r"\b{...} boundaries are not supported".into());
            }
            out.push('\\');
            out.push(e);
        }
        'A' | 'z' => {
            out.push('\\');
            out.push(e);
        }
        'Z' => {
            if in_class {
                return Err(r"illegal escape \Z in a character class".into());
            }
            // Java's \Z ignores MULTILINE.
            out.push_str(JAVA_END);
        }
        'R' => {
            if in_class {
                return Err(r"illegal escape \R in a character class".into());
            }
            out.push_str(JAVA_LINEBREAK);
        }
        '1'..='9' | 'k' => return Err("back-references are not supported".into()),
        'G' | 'X' | 'N' => return Err(format!(r"\{e} is not supported")),
        c if c.is_ascii_alphanumeric() => return Err(format!(r"illegal/unsupported escape \{c}")),
        c => push_literal(out, c),
    }
    Ok(i + 2)
}
