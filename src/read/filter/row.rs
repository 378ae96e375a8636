//! Filters that pick rows by their key, their number or chance: HBase's `PrefixFilter`
//! [FLT-4], `PageFilter` [FLT-7], `InclusiveStopFilter` [FLT-10] and `RandomRowFilter`.

use super::Filter;
use super::parse::{Arg, arity, err, to_long, unquote};
use super::protocol::{CellView, FilterImpl, Rc};
use crate::base::error::Result;
use std::cmp::Ordering;

/// `PrefixFilter`: rows whose key starts with the prefix; everything remaining is filtered
/// once rows have passed it in scan order [FLT-4].
#[derive(Debug)]
pub(super) struct PrefixFilter {
    prefix: Vec<u8>,
    reversed: bool,
    passed_prefix: bool,
    filter_row: bool,
}

impl PrefixFilter {
    pub(super) fn new(prefix: &[u8], reversed: bool) -> Self {
        PrefixFilter {
            prefix: prefix.to_vec(),
            reversed,
            passed_prefix: false,
            filter_row: true,
        }
    }

    /// `PrefixFilter.createFilterFromArguments`.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        arity(name, args, &[1], base)?;
        Ok(Filter::Prefix(unquote(&args[0])?))
    }
}

impl FilterImpl for PrefixFilter {
    fn reset(&mut self) {
        self.filter_row = true;
    }

    fn filter_all_remaining(&self) -> bool {
        self.passed_prefix
    }

    // PrefixFilter.filterRowKey [FLT-4]
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.passed_prefix {
            return true;
        }
        let prefix = self.prefix.as_slice();
        if row.len() < prefix.len() {
            return true;
        }
        let cmp = row[..prefix.len()].cmp(prefix);
        if (!self.reversed && cmp == Ordering::Greater) || (self.reversed && cmp == Ordering::Less)
        {
            self.passed_prefix = true;
        }
        self.filter_row = cmp != Ordering::Equal;
        self.filter_row
    }

    fn filter_cell(&mut self, _: &CellView<'_>) -> Rc {
        if self.filter_row {
            Rc::NextRow
        } else {
            Rc::Include
        }
    }

    fn filter_row(&mut self) -> bool {
        self.filter_row
    }
}

/// `PageFilter`: at most `page_size` rows, counted per runner in `filterRow` [FLT-7].
#[derive(Debug)]
pub(super) struct PageFilter {
    page_size: u64,
    rows_accepted: u64,
}

impl PageFilter {
    pub(super) fn new(page_size: u64) -> Self {
        PageFilter {
            page_size,
            rows_accepted: 0,
        }
    }

    /// `PageFilter.createFilterFromArguments`: a page size that is not negative [FLT-7].
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        arity(name, args, &[1], base)?;
        let n = to_long(&args[0])?;
        if n < 0 {
            return Err(err(
                args[0].pos,
                format!("PageFilter: page size must not be negative, got {n}"),
            ));
        }
        Ok(Filter::Page(n.unsigned_abs()))
    }
}

impl FilterImpl for PageFilter {
    fn filter_all_remaining(&self) -> bool {
        self.rows_accepted >= self.page_size
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    // [FLT-7] counts every row that reaches filterRow.
    fn filter_row(&mut self) -> bool {
        self.rows_accepted = self.rows_accepted.saturating_add(1);
        self.rows_accepted > self.page_size
    }
}

/// `InclusiveStopFilter`: rows up to and including the stop row in scan order (down to it,
/// reversed); once a row lies beyond it, everything remaining is filtered [FLT-10].
#[derive(Debug)]
pub(super) struct InclusiveStopFilter {
    stop: Vec<u8>,
    reversed: bool,
    done: bool,
}

impl InclusiveStopFilter {
    pub(super) fn new(stop: &[u8], reversed: bool) -> Self {
        InclusiveStopFilter {
            stop: stop.to_vec(),
            reversed,
            done: false,
        }
    }

    /// `InclusiveStopFilter.createFilterFromArguments`: one quoted row.
    pub(super) fn from_arguments(name: &str, args: &[Arg], base: usize) -> Result<Filter> {
        arity(name, args, &[1], base)?;
        Ok(Filter::InclusiveStop(unquote(&args[0])?))
    }
}

impl FilterImpl for InclusiveStopFilter {
    fn filter_all_remaining(&self) -> bool {
        self.done
    }

    // InclusiveStopFilter.filterRowKey [FLT-10]
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.done {
            return true;
        }
        let cmp = row.cmp(self.stop.as_slice());
        self.done = if self.reversed {
            cmp == Ordering::Less
        } else {
            cmp == Ordering::Greater
        };
        self.done
    }

    fn filter_cell(&mut self, _: &CellView<'_>) -> Rc {
        if self.done { Rc::NextRow } else { Rc::Include }
    }
}

/// `RandomRowFilter`: each row passes with probability `chance`, decided in `filterRowKey`
/// from a xorshift64* generator (HBase: an unseeded `java.util.Random`; here seeded, so that
/// a given seed always picks the same rows).
#[derive(Debug)]
pub(super) struct RandomRowFilter {
    chance: f32,
    state: u64,
    filter_out_row: bool,
}

impl RandomRowFilter {
    /// `seed: None` draws a seed from the process's hasher randomness.
    pub(super) fn new(chance: f32, seed: Option<u64>) -> Self {
        let seed = seed.unwrap_or_else(|| {
            use std::hash::{BuildHasher, Hasher};
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(0x9e37_79b9_7f4a_7c15);
            h.finish()
        });
        RandomRowFilter {
            chance,
            // xorshift needs a non-zero state; mix the seed so that small seeds differ.
            state: (seed ^ 0x9e37_79b9_7f4a_7c15) | 1,
            filter_out_row: false,
        }
    }

    /// `Random.nextFloat`'s shape: a uniform float in [0, 1) from 24 random bits.
    fn next_float(&mut self) -> f32 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        let bits = x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40;
        // 24 bits: exact in an f32.
        bits as f32 / (1u32 << 24) as f32
    }
}

impl FilterImpl for RandomRowFilter {
    fn reset(&mut self) {
        self.filter_out_row = false;
    }

    // RandomRowFilter.filterRowKey
    fn filter_row_key(&mut self, _: &[u8]) -> bool {
        self.filter_out_row = if self.chance < 0.0 {
            true
        } else if self.chance > 1.0 {
            false
        } else {
            // !(nextFloat() < chance): a NaN chance filters every row, as in Java.
            self.next_float().partial_cmp(&self.chance) != Some(Ordering::Less)
        };
        self.filter_out_row
    }

    fn filter_cell(&mut self, _: &CellView<'_>) -> Rc {
        if self.filter_out_row {
            Rc::NextRow
        } else {
            Rc::Include
        }
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        self.filter_out_row
    }
}
