//! Filter lists: HBase's `FilterList` with `MUST_PASS_ALL` (`FilterListWithAND`) and
//! `MUST_PASS_ONE` (`FilterListWithOR`), with HBase's return-code merging; an empty list
//! passes everything [FLT-10].

use super::protocol::{CellView, FilterImpl, Hint, Rc, cmp_cell_hint, cmp_hints};
use crate::model::cell::Cell;
use std::borrow::Cow;
use std::cmp::Ordering;

/// `FilterListWithAND.mergeReturnCode`: the largest forward step ("Maximal Step Rule").
fn merge_and(rc: Rc, local: Rc) -> Rc {
    use Rc::*;
    if rc == SeekNextUsingHint {
        return SeekNextUsingHint;
    }
    match local {
        SeekNextUsingHint => SeekNextUsingHint,
        Include => rc,
        IncludeAndNextCol => match rc {
            Include | IncludeAndNextCol => IncludeAndNextCol,
            IncludeAndSeekNextRow => IncludeAndSeekNextRow,
            Skip | NextCol => NextCol,
            NextRow | SeekNextUsingHint => NextRow,
        },
        IncludeAndSeekNextRow => match rc {
            Include | IncludeAndNextCol | IncludeAndSeekNextRow => IncludeAndSeekNextRow,
            Skip | NextCol | NextRow | SeekNextUsingHint => NextRow,
        },
        Skip => match rc {
            Include | Skip => Skip,
            IncludeAndNextCol | NextCol => NextCol,
            IncludeAndSeekNextRow | NextRow | SeekNextUsingHint => NextRow,
        },
        NextCol => match rc {
            Include | IncludeAndNextCol | Skip | NextCol => NextCol,
            IncludeAndSeekNextRow | NextRow | SeekNextUsingHint => NextRow,
        },
        NextRow => NextRow,
    }
}

/// `FilterListWithOR.mergeReturnCode`: the smallest forward step ("Minimal Step Rule").
fn merge_or(rc: Option<Rc>, local: Rc) -> Rc {
    use Rc::*;
    let Some(rc) = rc else {
        return local;
    };
    match local {
        Include => Include,
        IncludeAndNextCol => match rc {
            Include | Skip | SeekNextUsingHint => Include,
            IncludeAndNextCol | IncludeAndSeekNextRow | NextCol | NextRow => IncludeAndNextCol,
        },
        IncludeAndSeekNextRow => match rc {
            Include | Skip | SeekNextUsingHint => Include,
            IncludeAndNextCol | NextCol => IncludeAndNextCol,
            IncludeAndSeekNextRow | NextRow => IncludeAndSeekNextRow,
        },
        Skip => match rc {
            Include | IncludeAndNextCol | IncludeAndSeekNextRow => Include,
            Skip | NextCol | NextRow | SeekNextUsingHint => Skip,
        },
        NextCol => match rc {
            Include => Include,
            NextCol | NextRow => NextCol,
            IncludeAndNextCol | IncludeAndSeekNextRow => IncludeAndNextCol,
            Skip | SeekNextUsingHint => Skip,
        },
        NextRow => match rc {
            Include => Include,
            IncludeAndNextCol => IncludeAndNextCol,
            IncludeAndSeekNextRow => IncludeAndSeekNextRow,
            Skip | SeekNextUsingHint => Skip,
            NextCol => NextCol,
            NextRow => NextRow,
        },
        SeekNextUsingHint => match rc {
            Include | IncludeAndNextCol | IncludeAndSeekNextRow => Include,
            Skip | NextCol | NextRow => Skip,
            SeekNextUsingHint => SeekNextUsingHint,
        },
    }
}

/// `FilterListWithAND` (`FilterList(MUST_PASS_ALL, ...)`): every member must pass [FLT-10].
#[derive(Debug)]
pub(super) struct FilterListWithAnd {
    children: Vec<Box<dyn FilterImpl>>,
    reversed: bool,
    /// `seekHintFilters` of the last `filterCell`.
    hint_children: Vec<usize>,
}

impl FilterListWithAnd {
    pub(super) fn new(children: Vec<Box<dyn FilterImpl>>, reversed: bool) -> Self {
        FilterListWithAnd {
            children,
            reversed,
            hint_children: Vec::new(),
        }
    }
}

impl FilterImpl for FilterListWithAnd {
    fn reset(&mut self) {
        self.children.iter_mut().for_each(|c| c.reset());
        self.hint_children.clear();
    }

    // An empty list is FilterBase: false.
    fn filter_all_remaining(&self) -> bool {
        self.children.iter().any(|c| c.filter_all_remaining())
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        // No early return: PrefixFilter must see every row change.
        let mut filtered = false;
        for c in self.children.iter_mut() {
            if c.filter_all_remaining() || c.filter_row_key(row) {
                filtered = true;
            }
        }
        filtered
    }

    /// `FilterListWithAND.filterCell`: members see the cell only while the merged code is an
    /// include (HBASE-20565); a member that is done ends the row.
    fn filter_cell(&mut self, c: &CellView<'_>) -> Rc {
        if self.children.is_empty() {
            return Rc::Include;
        }
        let mut rc = Rc::Include;
        self.hint_children.clear();
        for (i, child) in self.children.iter_mut().enumerate() {
            if child.filter_all_remaining() {
                return Rc::NextRow;
            }
            let local = child.filter_cell(c);
            if local == Rc::SeekNextUsingHint {
                self.hint_children.push(i);
            }
            rc = merge_and(rc, local);
            if !rc.is_include() {
                return rc;
            }
        }
        if !self.hint_children.is_empty() {
            return Rc::SeekNextUsingHint;
        }
        rc
    }

    /// Every member included the cell: each transforms it in turn (HBASE-18879).
    fn transform_cell<'v>(&self, value: Cow<'v, [u8]>) -> Cow<'v, [u8]> {
        self.children.iter().fold(value, |v, c| c.transform_cell(v))
    }

    fn has_filter_row(&self) -> bool {
        self.children.iter().any(|c| c.has_filter_row())
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        self.children
            .iter_mut()
            .for_each(|c| c.filter_row_cells(cells));
    }

    // Lazy, in order (FilterListWithAND.filterRow): a Page member after the deciding member
    // is not counted.
    fn filter_row(&mut self) -> bool {
        self.children.iter_mut().any(|c| c.filter_row())
    }

    /// The largest hint of the members that asked for a seek.
    fn next_cell_hint<'a>(&'a self, row: &'a [u8], family: &'a [u8]) -> Option<Hint<'a>> {
        let mut best: Option<Hint<'a>> = None;
        for &i in self.hint_children.iter() {
            let child = &self.children[i];
            if child.filter_all_remaining() {
                continue;
            }
            let Some(h) = child.next_cell_hint(row, family) else {
                continue;
            };
            best = match best {
                Some(b) if cmp_hints(b, h, self.reversed) != Ordering::Less => Some(b),
                _ => Some(h),
            };
        }
        best
    }
}

/// The previous cell and return code of one `FilterListWithOR` member (HBASE-17678); the
/// buffers are reused from cell to cell.
#[derive(Debug, Default)]
struct Prev {
    /// `None` when there is nothing to remember (no cell yet, or `Include` / `Skip`).
    rc: Option<Rc>,
    family: Vec<u8>,
    qualifier: Vec<u8>,
}

/// `FilterListWithOR` (`FilterList(MUST_PASS_ONE, ...)`): at least one member must pass
/// [FLT-10].
#[derive(Debug)]
pub(super) struct FilterListWithOr {
    children: Vec<Box<dyn FilterImpl>>,
    reversed: bool,
    prev: Vec<Prev>,
    /// `subFiltersIncludedCell` of the last `filterCell`.
    included: Vec<bool>,
}

impl FilterListWithOr {
    pub(super) fn new(children: Vec<Box<dyn FilterImpl>>, reversed: bool) -> Self {
        let n = children.len();
        FilterListWithOr {
            children,
            reversed,
            prev: (0..n).map(|_| Prev::default()).collect(),
            included: vec![false; n],
        }
    }
}

impl FilterImpl for FilterListWithOr {
    fn reset(&mut self) {
        self.children.iter_mut().for_each(|c| c.reset());
        self.prev.iter_mut().for_each(|p| p.rc = None);
        self.included.iter_mut().for_each(|b| *b = false);
    }

    fn filter_all_remaining(&self) -> bool {
        !self.children.is_empty() && self.children.iter().all(|c| c.filter_all_remaining())
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.children.is_empty() {
            return false;
        }
        let mut filtered = true;
        for c in self.children.iter_mut() {
            if !c.filter_all_remaining() && !c.filter_row_key(row) {
                filtered = false;
            }
        }
        filtered
    }

    /// `FilterListWithOR.filterCell`: every live member is asked, unless its previous answer
    /// already covers this cell (HBASE-17678, HBASE-18368).
    fn filter_cell(&mut self, c: &CellView<'_>) -> Rc {
        if self.children.is_empty() {
            return Rc::Include;
        }
        let mut rc: Option<Rc> = None;
        let members = self.children.iter_mut().zip(&mut self.prev);
        for ((child, prev), included) in members.zip(&mut self.included) {
            *included = false;
            if child.filter_all_remaining() {
                continue;
            }
            let known = code_from_previous(child.as_ref(), c, prev, self.reversed);
            let local = known.unwrap_or_else(|| child.filter_cell(c));
            match local {
                Rc::Include | Rc::Skip => prev.rc = None,
                _ => {
                    prev.rc = Some(local);
                    prev.family.clear();
                    prev.family.extend_from_slice(c.family);
                    prev.qualifier.clear();
                    prev.qualifier.extend_from_slice(c.qualifier);
                }
            }
            rc = Some(merge_or(rc, local));
            if local.is_include() {
                *included = true;
            }
        }
        rc.unwrap_or(Rc::Skip)
    }

    /// The members that included the cell transform it in turn (HBASE-18879).
    fn transform_cell<'v>(&self, value: Cow<'v, [u8]>) -> Cow<'v, [u8]> {
        self.children
            .iter()
            .zip(&self.included)
            .filter(|(_, inc)| **inc)
            .fold(value, |v, (c, _)| c.transform_cell(v))
    }

    fn has_filter_row(&self) -> bool {
        self.children.iter().any(|c| c.has_filter_row())
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        self.children
            .iter_mut()
            .for_each(|c| c.filter_row_cells(cells));
    }

    // Lazy, in order (FilterListWithOR.filterRow).
    fn filter_row(&mut self) -> bool {
        !self.children.is_empty() && self.children.iter_mut().all(|c| c.filter_row())
    }

    /// The smallest hint; none if any live member has none.
    fn next_cell_hint<'a>(&'a self, row: &'a [u8], family: &'a [u8]) -> Option<Hint<'a>> {
        let mut best: Option<Hint<'a>> = None;
        for child in self.children.iter() {
            if child.filter_all_remaining() {
                continue;
            }
            let h = child.next_cell_hint(row, family)?;
            best = match best {
                Some(b) if cmp_hints(b, h, self.reversed) != Ordering::Greater => Some(b),
                _ => Some(h),
            };
        }
        best
    }
}

/// `calculateReturnCodeByPrevCellAndRC`.
fn code_from_previous(
    child: &dyn FilterImpl,
    c: &CellView<'_>,
    p: &Prev,
    reversed: bool,
) -> Option<Rc> {
    match p.rc? {
        Rc::Include | Rc::Skip => None,
        Rc::SeekNextUsingHint => {
            let hint = child.next_cell_hint(c.row, &p.family)?;
            (cmp_cell_hint(c.row, c.family, c.qualifier, hint, reversed) == Ordering::Less)
                .then_some(Rc::SeekNextUsingHint)
        }
        Rc::NextCol | Rc::IncludeAndNextCol => (c.family == p.family.as_slice()
            && c.qualifier == p.qualifier.as_slice())
        .then_some(Rc::NextCol),
        Rc::NextRow | Rc::IncludeAndSeekNextRow => {
            (c.family == p.family.as_slice()).then_some(Rc::NextRow)
        }
    }
}

#[cfg(test)]
mod merge_tables {
    //! The merge functions against the matrices in HBase's `FilterListWithAND` /
    //! `FilterListWithOR` Javadoc (rows: the member's code; columns: the code so far).
    use super::{Rc, merge_and, merge_or};

    const ORDER: [Rc; 7] = [
        Rc::Include,
        Rc::IncludeAndNextCol,
        Rc::IncludeAndSeekNextRow,
        Rc::Skip,
        Rc::NextCol,
        Rc::NextRow,
        Rc::SeekNextUsingHint,
    ];

    fn code(s: &str) -> Rc {
        match s {
            "I" => Rc::Include,
            "INC" => Rc::IncludeAndNextCol,
            "INR" => Rc::IncludeAndSeekNextRow,
            "S" => Rc::Skip,
            "NC" => Rc::NextCol,
            "NR" => Rc::NextRow,
            "H" => Rc::SeekNextUsingHint,
            _ => unreachable!("{s}"),
        }
    }

    fn check(table: &str, merge: impl Fn(Rc, Rc) -> Rc) {
        for (local, line) in ORDER
            .iter()
            .zip(table.lines().filter(|l| !l.trim().is_empty()))
        {
            for (rc, want) in ORDER.iter().zip(line.split_whitespace()) {
                assert_eq!(merge(*rc, *local), code(want), "rc {rc:?}, local {local:?}");
            }
        }
    }

    #[test]
    fn and_is_the_maximal_step() {
        check(
            "
            I   INC INR S  NC NR H
            INC INC INR NC NC NR H
            INR INR INR NR NR NR H
            S   NC  NR  S  NC NR H
            NC  NC  NR  NC NC NR H
            NR  NR  NR  NR NR NR H
            H   H   H   H  H  H  H
            ",
            merge_and,
        );
    }

    #[test]
    fn or_is_the_minimal_step() {
        check(
            "
            I I   I   I I   I   I
            I INC INC I INC INC I
            I INC INR I INC INR I
            I I   I   S S   S   S
            I INC INC S NC  NC  S
            I INC INR S NC  NR  S
            I I   I   S S   S   H
            ",
            |rc, local| merge_or(Some(rc), local),
        );
        assert_eq!(merge_or(None, Rc::NextCol), Rc::NextCol);
    }
}
