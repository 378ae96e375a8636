//! The read path: cursors over sorted cells, the k-way merge, the visibility matcher, row
//! assembly.

pub mod cursor;
pub mod matcher;
pub mod merge;
pub(crate) mod row;
pub(crate) mod source;
