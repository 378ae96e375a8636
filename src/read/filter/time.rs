//! Filters on cell timestamps: HBase's `TimestampsFilter` [FLT-9].

use super::Filter;
use super::parse::{Arg, err, to_long};
use super::protocol::{CellView, FilterImpl, Rc};
use crate::base::error::{Error, Result};
use std::collections::BTreeSet;

/// `TimestampsFilter` (canHint = false, as the language and the plain constructor build it):
/// cells whose timestamp is in the list; an empty list includes nothing [FLT-9].
#[derive(Debug)]
pub(super) struct TimestampsFilter {
    set: BTreeSet<i64>,
    /// The smallest timestamp (`Long.MAX_VALUE` for an empty list).
    min: i64,
}

impl TimestampsFilter {
    /// Refuses negative timestamps, as HBase's constructor does.
    pub(super) fn new(ts: &[i64]) -> Result<Self> {
        if let Some(t) = ts.iter().find(|&&t| t < 0) {
            return Err(Error::invalid(format!(
                "TimestampsFilter: timestamps must not be negative, got {t}"
            )));
        }
        let set: BTreeSet<i64> = ts.iter().copied().collect();
        // minTimestamp stays Long.MAX_VALUE for an empty list.
        let min = set.first().copied().unwrap_or(i64::MAX);
        Ok(TimestampsFilter { set, min })
    }

    /// `TimestampsFilter.createFilterFromArguments`: any number of timestamps, none negative.
    pub(super) fn from_arguments(_name: &str, args: &[Arg], _base: usize) -> Result<Filter> {
        let ts = args.iter().map(to_long).collect::<Result<Vec<_>>>()?;
        if let Some((a, t)) = args.iter().zip(&ts).find(|(_, t)| **t < 0) {
            return Err(err(
                a.pos,
                format!("TimestampsFilter: timestamps must not be negative, got {t}"),
            ));
        }
        Ok(Filter::Timestamps(ts))
    }
}

impl FilterImpl for TimestampsFilter {
    // TimestampsFilter.filterCell [FLT-9]
    fn filter_cell(&mut self, c: &CellView<'_>) -> Rc {
        if self.set.contains(&c.ts) {
            Rc::Include
        } else if c.ts < self.min {
            Rc::NextCol
        } else {
            Rc::Skip
        }
    }
}
