//! Tests of the filter module: the language, Java regexes, evaluation.

mod eval;
mod parse;
mod regex;
