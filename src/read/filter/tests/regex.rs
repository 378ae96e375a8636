//! Java regular expressions as `RegexStringComparator` runs them [FLT-2]: DOTALL, `find()`,
//! Java's syntax translated where the `regex` crate differs, rejected where it cannot run.

use crate::base::error::Error;
use crate::read::filter::regex_java::compile;

fn finds(pattern: &str, text: &str) -> bool {
    match compile(pattern) {
        Ok(r) => r.is_match(text),
        Err(e) => panic!("{pattern:?} should compile: {e}"),
    }
}

fn rejected(pattern: &str) -> String {
    match compile(pattern) {
        Err(Error::InvalidArgument(m)) => m,
        Err(e) => panic!("{pattern:?}: expected InvalidArgument, got {e:?}"),
        Ok(_) => panic!("{pattern:?} should be rejected"),
    }
}

#[test]
fn find_semantics_and_dotall() {
    // TestFilter: "test.+-2", "testRow.+-2", ".+-2", "testValue((One)|(Two))"
    assert!(finds("test.+-2", "testQualifierOne-2"));
    assert!(!finds("test.+-2", "testQualifierOne-3"));
    assert!(finds("testValue((One)|(Two))", "testValueTwo"));
    assert!(finds("pre*", "xxprxx")); // substring match, not full match
    assert!(finds("^a.b$", "a\nb")); // DOTALL
    assert!(!finds("^ab$", "xab"));
}

#[test]
fn ascii_shorthand_classes() {
    assert!(finds(r"^\d+$", "0123456789"));
    assert!(!finds(r"\d", "\u{663}")); // ARABIC-INDIC DIGIT THREE
    assert!(finds(r"^\w+$", "a_Z9"));
    assert!(!finds(r"\w", "é"));
    assert!(finds(r"\W", "é"));
    assert!(!finds(r"\s", "\u{A0}"));
    assert!(finds(r"^\s+$", " \t\n\u{B}\u{C}\r"));
    assert!(finds(r"^[\d\s]+$", "1 2"));
    assert!(finds(r"^[^\d]+$", "ab"));
    assert!(finds(r"^\p{Alpha}+$", "abcXYZ"));
    assert!(!finds(r"\p{Alpha}", "é"));
    assert!(finds(r"\p{L}", "é"));
    assert!(finds(r"\p{IsL}", "é"));
    assert!(finds(r"\pL", "é"));
    assert!(finds(r"^\P{Digit}$", "x"));
    assert!(finds(r"^[\p{Punct}]+$", "!-/:@[`{~"));
}

#[test]
fn end_of_input_like_java() {
    // Java's `$` also matches before a final line terminator.
    assert!(finds("abc$", "abc\n"));
    assert!(finds("abc$", "abc\r\n"));
    assert!(finds("abc$", "abc"));
    assert!(!finds("abc$", "abc\nx"));
    assert!(finds(r"abc\Z", "abc\n"));
    assert!(finds(r"abc\z", "abc"));
    assert!(!finds(r"abc\z", "abc\n"));
    assert!(finds("[$]", "$"));
    assert!(finds("(?m)^b$", "a\nb\nc"));
}

#[test]
fn java_literals_and_escapes() {
    assert!(finds(r"\Qa.b\E", "a.b"));
    assert!(!finds(r"\Qa.b\E", "axb"));
    assert!(finds(r"\Q(unterminated", "x(unterminated"));
    assert!(finds(r"\<x\>", "<x>")); // literals in Java, word boundaries to the crate
    assert!(finds(r"a\-b\#c", "a-b#c"));
    assert!(finds(r"\e", "\u{1B}"));
    assert!(finds(r"\cA", "\u{1}"));
    assert!(finds(r"\0101", "A"));
    assert!(finds(r"\x41\u0042\x{43}", "ABC"));
    assert!(finds(r"\t\n", "\t\n"));
    assert!(finds("a]", "a]"));
    assert!(finds("a}+", "a}}"));
    assert!(finds(r"\R", "\r\n"));
    assert!(finds(r"\h", "\u{A0}"));
    assert!(finds(r"^\v$", "\u{2028}"));
}

#[test]
fn java_character_classes() {
    // `[[:alpha:]]` is a nested class of the characters `:alph` in Java.
    assert!(finds("^[[:alpha:]]$", "h"));
    assert!(finds("^[[:alpha:]]$", ":"));
    assert!(!finds("^[[:alpha:]]$", "b"));
    // `~~` is no operator in Java.
    assert!(finds("^[a~~b]$", "~"));
    // Intersection and nested union.
    assert!(finds("^[a-z&&[^aeiou]]+$", "bcd"));
    assert!(!finds("^[a-z&&[^aeiou]]+$", "bad"));
    assert!(finds("^[a[0-9]]+$", "a1"));
    assert!(finds("^[]a]+$", "]a"));
}

#[test]
fn groups_flags_quantifiers() {
    assert!(finds("(?i)abc", "xABCx"));
    assert!(finds("(?i:a)b", "Ab"));
    assert!(finds(r"(?<year>\d{4})-", "2024-"));
    assert!(finds("a{2,}", "aa"));
    assert!(finds("a{2}", "aa"));
    assert!(finds("a+?b", "aab"));
    assert!(finds("(?:ab)+", "abab"));
    assert!(finds("(?x) a b # comment", "ab"));
}

#[test]
fn unsupported_java_features_are_rejected() {
    for (p, why) in [
        ("(?=a)", "look-ahead"),
        ("(?!a)", "look-ahead"),
        ("(?<=a)b", "look-behind"),
        ("(?<!a)b", "look-behind"),
        ("(?>a)", "atomic"),
        ("a++", "possessive"),
        ("a*+", "possessive"),
        ("a{2}+", "possessive"),
        (r"(a)\1", "back-reference"),
        (r"(?<n>a)\k<n>", "back-reference"),
        ("(?U)a", "flag"),
        ("(?d)a", "flag"),
        ("(?P<n>a)", "modifier"),
        (r"\p{InGreek}", "property"),
        (r"\p{javaLowerCase}", "property"),
        (r"\G", "not supported"),
        (r"\X", "not supported"),
        (r"\u{41}", "Java"),
        (r"\b{start}", "boundaries"),
        ("a{", "repetition"),
        ("a{,3}", "repetition"),
        ("{1}", "repetition"),
        (r"\y", "escape"),
        ("a\\", "backslash"),
        ("[a", "class"),
    ] {
        let m = rejected(p);
        assert!(m.contains(why), "{p:?}: {m}");
    }
    // Plain syntax errors, as in Java.
    for p in ["(", "a)", "*a", "a**", "[z-a]"] {
        rejected(p);
    }
}
