//! Filters that seek from row to row with row hints: HBase's `MultiRowRangeFilter` and
//! `FuzzyRowFilter`.
//!
//! Both answer `SEEK_NEXT_USING_HINT` for the cells of a row they reject, with a hint that
//! names another row (`createFirstOnRow`): the reader seeks there instead of reading the rows
//! in between (forward scans: the first row at or after the hint; reversed scans: the first
//! row at or before it). A hint that does not lie ahead of the current row is ignored (the
//! reader steps), so a hint can cost speed but never rows.

use super::RowRange;
use super::protocol::{CellView, FilterImpl, Hint, Rc};
use crate::base::error::{Error, Result};
use std::cmp::Ordering;

/// `RowRange.isValid`: an unbounded end, or `start < stop`, or `start == stop` with the stop
/// row included.
fn valid(r: &RowRange) -> bool {
    r.start.is_empty()
        || r.stop.is_empty()
        || r.start < r.stop
        || (r.start == r.stop && r.stop_inclusive)
}

/// The row lies before the range's start.
fn before_start(r: &RowRange, row: &[u8]) -> bool {
    !r.start.is_empty()
        && match row.cmp(r.start.as_slice()) {
            Ordering::Less => true,
            Ordering::Equal => !r.start_inclusive,
            Ordering::Greater => false,
        }
}

/// The row lies after the range's stop.
fn after_stop(r: &RowRange, row: &[u8]) -> bool {
    !r.stop.is_empty()
        && match row.cmp(r.stop.as_slice()) {
            Ordering::Greater => true,
            Ordering::Equal => !r.stop_inclusive,
            Ordering::Less => false,
        }
}

fn contains(r: &RowRange, row: &[u8]) -> bool {
    !before_start(r, row) && !after_stop(r, row)
}

/// `MultiRowRangeFilter.sortAndMerge`: the ranges sorted by start and merged where they
/// overlap or touch (two ranges meeting at a row that both exclude stay apart). Errors for
/// an empty list and invalid ranges, as HBase's constructor.
pub(super) fn sort_and_merge(ranges: &[RowRange]) -> Result<Vec<RowRange>> {
    if ranges.is_empty() {
        return Err(Error::invalid("MultiRowRangeFilter: no ranges found"));
    }
    if let Some(bad) = ranges.iter().find(|r| !valid(r)) {
        return Err(Error::invalid(format!(
            "MultiRowRangeFilter: invalid range: start row => {}, stop row => {}",
            String::from_utf8_lossy(&bad.start),
            String::from_utf8_lossy(&bad.stop)
        )));
    }
    let mut sorted = ranges.to_vec();
    // Empty (unbounded) starts first; an inclusive start before an exclusive one.
    sorted.sort_by(|a, b| {
        a.start
            .cmp(&b.start)
            .then(b.start_inclusive.cmp(&a.start_inclusive))
    });
    let mut merged: Vec<RowRange> = Vec::with_capacity(sorted.len());
    for r in sorted {
        if let Some(last) = merged.last_mut() {
            let touches = last.stop.is_empty()
                || r.start < last.stop
                || (r.start == last.stop && (last.stop_inclusive || r.start_inclusive));
            if touches {
                if !last.stop.is_empty() {
                    match (r.stop.is_empty(), r.stop.cmp(&last.stop)) {
                        (true, _) | (false, Ordering::Greater) => {
                            last.stop = r.stop;
                            last.stop_inclusive = r.stop_inclusive;
                        }
                        (false, Ordering::Equal) => last.stop_inclusive |= r.stop_inclusive,
                        (false, Ordering::Less) => {}
                    }
                }
                continue;
            }
        }
        merged.push(r);
    }
    Ok(merged)
}

/// `MultiRowRangeFilter`: rows in the merged ranges. `filterRowKey` locates the row among the
/// ranges and decides for the row's cells: include, leave the row (an excluded start row),
/// or seek to the next range's start (reversed: the previous range's stop). After the last
/// range everything remaining is filtered.
#[derive(Debug)]
pub(super) struct MultiRowRangeFilter {
    ranges: Vec<RowRange>,
    reversed: bool,
    done: bool,
    /// The range the current row is in or heads for.
    range: usize,
    current: Rc,
}

impl MultiRowRangeFilter {
    pub(super) fn new(ranges: &[RowRange], reversed: bool) -> Result<Self> {
        Ok(MultiRowRangeFilter {
            ranges: sort_and_merge(ranges)?,
            reversed,
            done: false,
            range: 0,
            current: Rc::Include,
        })
    }
}

impl FilterImpl for MultiRowRangeFilter {
    fn filter_all_remaining(&self) -> bool {
        self.done
    }

    // MultiRowRangeFilter.filterRowKey: always false; the row's cells get `current`.
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.done {
            return true;
        }
        if contains(&self.ranges[self.range], row) {
            self.current = Rc::Include;
            return false;
        }
        let next = if self.reversed {
            // The last range that does not start after the row.
            self.ranges
                .partition_point(|r| !before_start(r, row))
                .checked_sub(1)
        } else {
            // The first range that does not end before the row.
            let i = self.ranges.partition_point(|r| after_stop(r, row));
            (i < self.ranges.len()).then_some(i)
        };
        let Some(i) = next else {
            self.done = true;
            self.current = Rc::NextRow;
            return false;
        };
        self.range = i;
        let r = &self.ranges[i];
        self.current = if contains(r, row) {
            Rc::Include
        } else if (!self.reversed && row == r.start.as_slice())
            || (self.reversed && row == r.stop.as_slice())
        {
            // An excluded bound row: the next row is the range's first.
            Rc::NextRow
        } else {
            Rc::SeekNextUsingHint
        };
        false
    }

    fn filter_cell(&mut self, _: &CellView<'_>) -> Rc {
        self.current
    }

    // The next range's start row (reversed: its stop row).
    fn next_cell_hint<'a>(&'a self, _row: &'a [u8], _family: &'a [u8]) -> Option<Hint<'a>> {
        let r = &self.ranges[self.range];
        let row = if self.reversed { &r.stop } else { &r.start };
        Some(Hint {
            row,
            family: &[],
            qualifier: &[],
        })
    }
}

/// `FuzzyRowFilter`: rows matching one of the fuzzy keys (mask byte 0 = fixed, 1 = any);
/// the cells of other rows answer `SEEK_NEXT_USING_HINT` to the smallest next row that can
/// match (reversed: the largest previous one), computed per key as HBase's
/// `getNextForFuzzyRule` does; when no key can match any more, everything remaining is
/// filtered.
#[derive(Debug)]
pub(super) struct FuzzyRowFilter {
    /// `(key, mask)` with the key's free bytes zeroed (HBase's `preprocessSearchKey`).
    keys: Vec<(Vec<u8>, Vec<u8>)>,
    reversed: bool,
    filter_row: bool,
    done: bool,
    /// The row the last `SEEK_NEXT_USING_HINT` points at.
    hint: Vec<u8>,
}

impl FuzzyRowFilter {
    /// Keys and masks must have equal lengths ("Fuzzy pair lengths do not match"); masks may
    /// only hold 0 and 1.
    pub(super) fn new(keys: &[(Vec<u8>, Vec<u8>)], reversed: bool) -> Result<Self> {
        let mut out = Vec::with_capacity(keys.len());
        for (key, mask) in keys {
            if key.len() != mask.len() {
                return Err(Error::invalid(format!(
                    "FuzzyRowFilter: fuzzy pair lengths do not match: key of {} bytes, mask \
                     of {}",
                    key.len(),
                    mask.len()
                )));
            }
            if let Some(b) = mask.iter().find(|&&b| b > 1) {
                return Err(Error::invalid(format!(
                    "FuzzyRowFilter: mask bytes are 0 (fixed) or 1 (any), got {b}"
                )));
            }
            let key = key
                .iter()
                .zip(mask)
                .map(|(&k, &m)| if m == 0 { k } else { 0 })
                .collect();
            out.push((key, mask.clone()));
        }
        Ok(FuzzyRowFilter {
            keys: out,
            reversed,
            filter_row: false,
            done: false,
            hint: Vec::new(),
        })
    }
}

/// `satisfies`: the fixed bytes among the first `min(row, key)` bytes equal the key's.
fn satisfies(row: &[u8], key: &[u8], mask: &[u8]) -> bool {
    row.iter()
        .zip(key)
        .zip(mask)
        .all(|((r, k), m)| *m != 0 || r == k)
}

/// `getNextForFuzzyRule`: the next row in scan order after `row` that can satisfy
/// `(key, mask)`, or `None` when there is none. Forward: fixed bytes set from the key up to
/// the first one that makes the row larger; otherwise the last free byte before the first
/// fixed byte that makes it smaller is increased and the free bytes after it minimised;
/// trailing free bytes are trimmed. Reversed: the same with the order flipped, then the last
/// byte below 0xff increased, so that the hint is at or after every row it stands for.
fn next_for_fuzzy_rule(reversed: bool, row: &[u8], key: &[u8], mask: &[u8]) -> Option<Vec<u8>> {
    let (lt, gt) = if reversed {
        (Ordering::Greater, Ordering::Less)
    } else {
        (Ordering::Less, Ordering::Greater)
    };
    let max = if reversed { 0x00 } else { 0xff };
    let min = if reversed { 0xff } else { 0x00 };
    let len = row.len().max(key.len());
    let mut result = key.to_vec();
    result.resize(
        len,
        if reversed && row.len() > key.len() {
            0xff
        } else {
            0
        },
    );
    let free = |i: usize| i >= mask.len() || mask[i] == 1;
    let mut to_inc: Option<usize> = None;
    let mut increased = false;
    for i in 0..len {
        // Every byte before the first mismatching fixed byte lies inside the row.
        let Some(&r) = row.get(i) else { break };
        if free(i) {
            result[i] = r;
            if r != max {
                to_inc = Some(i);
            }
        } else {
            let ord = r.cmp(&key[i]);
            if ord == lt {
                increased = true;
                // The free bytes after it at their minimum in scan order (forward: the
                // zeroed key's 0x00 already; reversed: 0xff, where HBase keeps 0x00 and
                // would seek past matching rows).
                for (j, b) in result.iter_mut().enumerate().skip(i + 1) {
                    if free(j) {
                        *b = min;
                    }
                }
                break;
            }
            if ord == gt {
                break;
            }
        }
    }
    if !increased {
        let at = to_inc?;
        result[at] = if reversed {
            result[at] - 1
        } else {
            result[at] + 1
        };
        for (i, b) in result.iter_mut().enumerate().skip(at + 1) {
            if free(i) {
                *b = min;
            }
        }
    }
    // trimTrailingZeroes: drop trailing free bytes, but keep the increased one.
    let mut end = result.len().min(mask.len());
    while end > 0 && mask[end - 1] == 1 {
        end -= 1;
    }
    if let Some(at) = to_inc {
        end = end.max(at + 1);
    }
    result.truncate(end);
    if reversed {
        // increaseLastNonMaxByte (unsigned here: a hint that only grows).
        if let Some(b) = result.iter_mut().rev().find(|b| **b != 0xff) {
            *b += 1;
        }
    }
    Some(result)
}

impl FilterImpl for FuzzyRowFilter {
    fn reset(&mut self) {
        self.filter_row = false;
    }

    fn filter_all_remaining(&self) -> bool {
        self.done
    }

    // FuzzyRowFilter.filterCell
    fn filter_cell(&mut self, c: &CellView<'_>) -> Rc {
        if self
            .keys
            .iter()
            .any(|(key, mask)| satisfies(c.row, key, mask))
        {
            return Rc::Include;
        }
        self.filter_row = true;
        // getNextCellHint (RowTracker): the nearest next row over all keys.
        let mut best: Option<Vec<u8>> = None;
        for (key, mask) in &self.keys {
            if let Some(next) = next_for_fuzzy_rule(self.reversed, c.row, key, mask) {
                let better = best.as_ref().is_none_or(|b| {
                    let ord = next.cmp(b);
                    if self.reversed {
                        ord == Ordering::Greater
                    } else {
                        ord == Ordering::Less
                    }
                });
                if better {
                    best = Some(next);
                }
            }
        }
        match best {
            Some(h) => self.hint = h,
            None => self.done = true,
        }
        Rc::SeekNextUsingHint
    }

    fn filter_row(&mut self) -> bool {
        self.filter_row
    }

    fn next_cell_hint<'a>(&'a self, _row: &'a [u8], _family: &'a [u8]) -> Option<Hint<'a>> {
        (!self.done).then_some(Hint {
            row: &self.hint,
            family: &[],
            qualifier: &[],
        })
    }
}

#[cfg(test)]
mod tests {
    //! `getNextForFuzzyRule` against HBase's `TestFuzzyRowFilter#testGetNextForFuzzyRuleForward`
    //! / `#testGetNextForFuzzyRuleReverse` cases, and `satisfies`
    //! (`#testSatisfiesForward`).
    use super::{next_for_fuzzy_rule, satisfies};

    fn next(reversed: bool, row: &[u8], key: &[u8], mask: &[u8]) -> Option<Vec<u8>> {
        // Free key bytes are zeroed by the constructor.
        let key: Vec<u8> = key
            .iter()
            .zip(mask)
            .map(|(&k, &m)| if m == 0 { k } else { 0 })
            .collect();
        next_for_fuzzy_rule(reversed, row, &key, mask)
    }

    #[test]
    fn satisfies_compares_fixed_bytes_only() {
        // In the manner of TestFuzzyRowFilter#testSatisfiesForward.
        assert!(!satisfies(&[1, 2, 1, 4, 3], &[1, 2, 0, 3], &[0, 0, 1, 0]));
        assert!(satisfies(&[1, 2, 1, 3, 3], &[1, 2, 0, 3], &[0, 0, 1, 0]));
        assert!(satisfies(&[1, 2, 1, 3, 3], &[1, 2, 0, 3], &[0, 0, 1, 1]));
        assert!(!satisfies(&[1, 2, 1, 3, 3], &[1, 1, 1, 3], &[0, 0, 1, 1]));
        assert!(satisfies(&[1, 2, 1, 0], &[1, 2, 1, 1], &[0, 0, 0, 1]));
        // Only the first min(row, key) bytes count.
        assert!(satisfies(&[1, 2], &[1, 2, 1, 1], &[0, 0, 0, 0]));
        assert!(!satisfies(&[1, 1], &[1, 2, 1, 1], &[0, 0, 0, 0]));
    }

    #[test]
    fn next_row_forward() {
        // In the manner of TestFuzzyRowFilter#testGetNextForFuzzyRuleForward (worked by hand
        // from HBase's algorithm).
        assert_eq!(
            next(false, &[1, 1, 1], &[0, 1, 2], &[1, 0, 0]),
            Some(vec![1, 1, 2])
        );
        assert_eq!(
            next(false, &[1, 2, 1], &[0, 1, 2], &[1, 0, 0]),
            Some(vec![2, 1, 2])
        );
        assert_eq!(
            next(false, &[0, 2, 3, 2], &[0, 1, 0, 2, 0], &[1, 0, 1, 0, 1]),
            Some(vec![1, 1, 0, 2])
        );
        assert_eq!(
            next(false, &[0xff, 2, 3], &[0, 1, 0, 2, 0], &[1, 0, 1, 0, 1]),
            None
        );
        assert_eq!(next(false, &[2, 3, 1, 1, 1], &[1, 0, 1], &[0, 1, 0]), None);
        assert_eq!(
            next(false, &[1, 1, 1, 3, 0], &[1, 2, 0, 3], &[0, 0, 1, 0]),
            Some(vec![1, 2, 0, 3])
        );
        assert_eq!(
            next(false, &[1, 2, 1, 4, 5], &[1, 2, 0, 3], &[0, 0, 1, 0]),
            Some(vec![1, 2, 2, 3])
        );
    }

    #[test]
    fn next_row_reverse() {
        // TestFuzzyRowFilter#testGetNextForFuzzyRuleReverse's shape: hints after
        // increaseLastNonMaxByte, so that every row they stand for lies at or before them.
        assert_eq!(
            next(true, &[1, 2, 1, 4, 3], &[1, 2, 0, 3], &[0, 0, 1, 0]),
            Some(vec![1, 2, 1, 4])
        );
        // The free byte after a smaller fixed byte is maximised: [1, 0xff, 1] can match.
        assert_eq!(
            next(true, &[2, 3, 1, 1, 1], &[1, 0, 1], &[0, 1, 0]),
            Some(vec![1, 0xff, 2])
        );
        assert_eq!(next(true, &[0, 3, 1], &[1, 0, 1], &[0, 1, 0]), None);
    }
}
