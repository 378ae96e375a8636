//! Request builders (plain data, validated when executed) and results.

mod counter;
mod mutation;
mod query;

pub use crate::model::cell::{Cell, RowResult};
pub(crate) use counter::Condition;
pub use counter::{Append, CheckAndMutate, Increment, Mutation};
pub use mutation::{Delete, Put};
pub(crate) use query::{Columns, prefix_stop};
pub use query::{Get, Scan};
