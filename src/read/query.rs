//! `Query`: what a Get or Scan asks of a region reader (schema, read spec, filter, direction),
//! and the block cache policy of each family.

use crate::base::error::Result;
use crate::model::schema::TableDescriptor;
use crate::read::filter::Filter;
use crate::read::filter::eval::FilterRunner;
use crate::read::matcher::{ColumnMap, ColumnSelection, ReadSpec, UserMatcher};
use crate::storage::sst::CachePolicy;
use std::sync::Arc;

/// What a Get or Scan asks of a region reader.
#[derive(Clone, Debug)]
pub(crate) struct Query {
    pub desc: Arc<TableDescriptor>,
    /// The selected columns are `spec.columns` ([`Query::column_map`]).
    pub spec: ReadSpec,
    pub filter: Option<Filter>,
    pub reversed: bool,
}

impl Query {
    /// The selected families and their qualifiers; `None` = every column.
    pub(crate) fn column_map(&self) -> Option<&ColumnMap> {
        match &self.spec.columns {
            ColumnSelection::All => None,
            ColumnSelection::Families(m) => Some(m),
        }
    }
    pub(crate) fn families(&self) -> Option<Vec<&[u8]>> {
        self.column_map()
            .map(|m| m.keys().map(Vec::as_slice).collect())
    }
    pub(crate) fn matcher(&self) -> Box<UserMatcher> {
        Box::new(UserMatcher::new(self.desc.families(), self.spec.clone()))
    }
    pub(crate) fn runner(&self) -> Result<Option<FilterRunner>> {
        self.filter
            .as_ref()
            .map(|f| FilterRunner::new(f, self.reversed))
            .transpose()
    }
}

/// The block cache policy of each family of `desc` (`BLOCKCACHE`, `IN_MEMORY`).
pub(crate) fn cache_policy(desc: &TableDescriptor) -> impl Fn(&[u8]) -> CachePolicy + '_ {
    move |fam: &[u8]| match desc.get_family(fam) {
        Some(f) => CachePolicy {
            fill: f.block_cache,
            in_memory: f.in_memory,
        },
        None => CachePolicy {
            fill: true,
            in_memory: false,
        },
    }
}
