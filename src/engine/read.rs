//! Assembling the read pipeline of one region: the sources a read needs (memstores and the
//! block files that may match), merged, fed through the matcher and the filters into a row
//! reader. Used by Get, Scan and the reads of check-and-mutate, increment and append.

use crate::base::error::Result;
use crate::engine::region::{FileSelection, Region, RegionVersion};
use crate::model::cursor::CellCursor;
use crate::model::key::first_on_row_into;
use crate::read::merge::MergeCursor;
use crate::read::query::{Query, cache_policy};
use crate::read::row::{ReaderParts, RowReader};
use std::sync::Arc;

/// A reversed row reader over one region [SCAN-REV-1].
pub(crate) fn region_reader_reversed(
    region: &Arc<Region>,
    version: &RegionVersion,
    q: &Query,
    read_point: u64,
    reverse: crate::read::row::Reverse,
    scan_rows: Option<(&[u8], &[u8])>,
) -> Result<RowReader> {
    let policy = cache_policy(&q.desc);
    let sel = FileSelection {
        families: q.families(),
        get_row: None,
        single_column: Default::default(),
        start: region.start(),
        stop: region.end(),
        scan_rows,
        time_range: q.spec.time_range,
        family_time_ranges: q.spec.family_time_ranges(),
        cache: &policy,
    };
    let merge = MergeCursor::new(version.cursors(&sel));
    Ok(RowReader::reversed(
        merge,
        q.matcher(),
        q.runner()?,
        read_point,
        reverse,
    ))
}

/// A row reader over one region from `start` (a Get when `get_row` is set; a scan passes its
/// own start and stop rows as `scan_rows` when it has both [BLOOM-5]), built from `parts`
/// (reused buffers; [`ReaderParts::take_spare`] gives the thread's spare ones).
#[allow(clippy::too_many_arguments)]
pub(crate) fn region_reader(
    region: &Arc<Region>,
    version: &RegionVersion,
    q: &Query,
    start: &[u8],
    get_row: Option<&[u8]>,
    scan_rows: Option<(&[u8], &[u8])>,
    read_point: u64,
    parts: ReaderParts,
) -> Result<RowReader> {
    let single_column = q
        .column_map()
        .into_iter()
        .flatten()
        .filter_map(|(f, qs)| match qs {
            Some(s) if s.len() == 1 => s.iter().next().map(|x| (f.as_slice(), x.as_slice())),
            _ => None,
        })
        .collect();
    let policy = cache_policy(&q.desc);
    let sel = FileSelection {
        families: q.families(),
        get_row,
        single_column,
        start,
        stop: region.end(),
        scan_rows,
        time_range: q.spec.time_range,
        family_time_ranges: q.spec.family_time_ranges(),
        cache: &policy,
    };
    let ReaderParts {
        matcher,
        mut children,
        heap,
        stop: mut buf,
        cells,
    } = parts;
    version.cursors_into(&sel, &mut children);
    let mut merge = MergeCursor::with_heap(children, heap);
    let from = if start < region.start() {
        region.start()
    } else {
        start
    };
    buf.clear();
    first_on_row_into(from, &mut buf);
    merge.seek(&buf)?;
    buf.clear();
    match get_row {
        Some(r) => {
            buf.extend_from_slice(r);
            buf.push(0);
        }
        None => buf.extend_from_slice(region.end()),
    }
    let matcher = match matcher {
        Some(mut m) => {
            m.reinit(q.desc.families(), &q.spec);
            m
        }
        None => q.matcher(),
    };
    Ok(RowReader::new(
        merge,
        matcher,
        q.runner()?,
        read_point,
        buf,
        cells,
    ))
}
