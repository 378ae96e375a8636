//! Tests of the filter module: the language, Java regexes, evaluation.

mod breadth;
mod eval;
mod parse;
mod regex;
mod unparse;
