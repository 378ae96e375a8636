//! Operator tools: block file dump, verify, TSV export/import.
pub mod hfile;
pub mod tsv;
pub mod verify;
