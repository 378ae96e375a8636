//! Row assembly: drives a merged cursor through the [`UserMatcher`] and groups the cells it
//! includes into rows.

use crate::error::{Error, Result};
use crate::model::CellType;
use crate::model::key::{KeyRef, first_after_family, first_after_row, last_on_column};
use crate::model::payload::PayloadRef;
use crate::ops::Cell;
use crate::read::cursor::CellCursor;
use crate::read::matcher::{MatchCode, UserMatcher};
use crate::read::merge::MergeCursor;
use std::path::PathBuf;

/// Reads rows of one region in order.
pub(crate) struct RowReader {
    cursor: MergeCursor,
    matcher: UserMatcher,
    read_point: u64,
    /// Exclusive stop row; empty = none.
    stop: Vec<u8>,
    done: bool,
    /// Reversed scans: rows are found one at a time, newest first, each read forward.
    reverse: Option<Reverse>,
}

/// A test on a row key.
pub(crate) type RowPredicate = Box<dyn Fn(&[u8]) -> bool + Send>;

/// Bounds of a reversed read of one region.
pub(crate) struct Reverse {
    /// The next row must sort before this row (exclusive upper bound).
    pub upper: Vec<u8>,
    /// Accepts a row found below `upper` (lower bounds of the scan and the region).
    pub accept: RowPredicate,
}

fn bad_key() -> Error {
    Error::corruption(
        PathBuf::from("<merged read>"),
        "malformed cell key from a source",
    )
}

impl RowReader {
    /// REQUIRES: `cursor` already positioned at the first candidate cell.
    pub fn new(cursor: MergeCursor, matcher: UserMatcher, read_point: u64, stop: Vec<u8>) -> Self {
        RowReader {
            cursor,
            matcher,
            read_point,
            stop,
            done: false,
            reverse: None,
        }
    }

    /// A reader returning rows in descending order [SCAN-REV-1]; cells inside a row stay in
    /// forward order [SORT-8].
    pub fn reversed(
        cursor: MergeCursor,
        matcher: UserMatcher,
        read_point: u64,
        reverse: Reverse,
    ) -> Self {
        RowReader {
            cursor,
            matcher,
            read_point,
            stop: Vec::new(),
            done: false,
            reverse: Some(reverse),
        }
    }

    /// The next row with at least one returned cell, as `(row, cells)`.
    pub fn next_row(&mut self) -> Result<Option<(Vec<u8>, Vec<Cell>)>> {
        if self.reverse.is_none() {
            return self.next_forward();
        }
        loop {
            let Some(rev) = self.reverse.as_mut() else {
                return Ok(None);
            };
            let Some(row) = self.cursor.prev_row(&rev.upper)? else {
                return Ok(None);
            };
            if !(rev.accept)(&row) {
                return Ok(None);
            }
            rev.upper = row.clone();
            self.cursor.seek(&crate::model::key::first_on_row(&row))?;
            let mut stop = row;
            stop.push(0);
            self.stop = stop;
            self.done = false;
            if let Some(r) = self.next_forward()? {
                return Ok(Some(r));
            }
        }
    }

    fn next_forward(&mut self) -> Result<Option<(Vec<u8>, Vec<Cell>)>> {
        let mut row: Option<Vec<u8>> = None;
        let mut cells: Vec<Cell> = Vec::new();
        while !self.done {
            if !self.cursor.valid() {
                self.done = true;
                break;
            }
            let key = KeyRef::parse(self.cursor.key()).ok_or_else(bad_key)?;
            match &row {
                Some(r) if r.as_slice() != key.row => {
                    if !cells.is_empty() {
                        return Ok(row.map(|r| (r, cells)));
                    }
                    row = None;
                }
                _ => {}
            }
            if row.is_none() {
                if !self.stop.is_empty() && key.row >= self.stop.as_slice() {
                    self.done = true;
                    break;
                }
                row = Some(key.row.to_vec());
            }
            if key.seq > self.read_point {
                self.cursor.next()?;
                continue;
            }
            let payload = PayloadRef::parse(self.cursor.payload()).ok_or_else(bad_key)?;
            let seek = match self.matcher.match_cell(&key, &payload) {
                MatchCode::Include => {
                    let cell_type = key.cell_type().ok_or_else(bad_key)?;
                    cells.push(Cell {
                        row: key.row.to_vec(),
                        family: key.family.to_vec(),
                        qualifier: key.qualifier.to_vec(),
                        ts: key.ts,
                        cell_type,
                        value: if cell_type == CellType::Put {
                            payload.value.to_vec()
                        } else {
                            Vec::new()
                        },
                    });
                    None
                }
                MatchCode::Skip => None,
                MatchCode::SeekNextColumn => {
                    Some(last_on_column(key.row, key.family, key.qualifier))
                }
                MatchCode::SeekNextFamily => Some(first_after_family(key.row, key.family)),
                MatchCode::SeekNextRow => Some(first_after_row(key.row)),
                MatchCode::Done => {
                    self.done = true;
                    break;
                }
            };
            match seek {
                None => self.cursor.next()?,
                Some(target) => self.cursor.seek(&target)?,
            }
        }
        Ok(if cells.is_empty() {
            None
        } else {
            row.map(|r| (r, cells))
        })
    }
}
