//! `PUT`/`POST /TABLE/ROW?check=put` and `?check=delete`: HBase's `RowResource.checkAndPut`
//! and `checkAndDelete`. The cell set holds one row; its LAST cell is the check (its column
//! must equal that value, an empty value also matching a missing cell [CAM-3]); the cells
//! before it are the put, or the delete's columns and families (each up to its timestamp).
//! 200 when applied, 304 when the check failed.
use super::http::Response;
use super::model::RowModel;
use super::rows::{RowSpec, split_column};
use super::service::{bad, fail};
use cellbase::{CheckAndMutate, Delete, LATEST_TIMESTAMP, Put, Table};

/// 304, HBase's answer to a failed check (no body, as HTTP requires).
fn not_modified() -> Response {
    Response::empty(304)
}

fn one_row(rows: Vec<RowModel>, spec: &RowSpec) -> Result<(Vec<u8>, RowModel), Response> {
    if rows.len() != 1 {
        return Err(bad("Number of rows specified is not 1."));
    }
    let row = rows.into_iter().next().unwrap_or_default();
    let key = row.key.clone().unwrap_or_else(|| spec.row.clone());
    Ok((key, row))
}

/// `checkAndPut`.
pub fn check_and_put(t: &Table, rows: Vec<RowModel>, spec: &RowSpec) -> Result<Response, Response> {
    let (key, row) = one_row(rows, spec)?;
    let Some((check, puts)) = row.cells.split_last() else {
        return Err(bad(
            "Either row key is null or no data found for columns specified.",
        ));
    };
    if puts.is_empty() {
        return Err(bad(
            "Either row key is null or no data found for columns specified.",
        ));
    }
    let check_col = check.column.clone().unwrap_or_default();
    let (cf, cq) = match split_column(&check_col) {
        (f, Some(q)) if !q.is_empty() => (f.to_vec(), q.to_vec()),
        _ => return Err(bad("Column incorrectly specified.")),
    };
    let mut put = Put::new(&key);
    let mut matched = false;
    for c in puts {
        let Some(col) = &c.column else {
            return Err(bad("Column found to be null."));
        };
        let (f, Some(q)) = split_column(col) else {
            return Err(bad("a put column needs family:qualifier"));
        };
        put = put.add_at(f, q, c.timestamp.unwrap_or(LATEST_TIMESTAMP), &c.value);
        matched |= *col == check_col;
    }
    if !matched {
        return Err(bad("The column to put and check do not match."));
    }
    let cam = CheckAndMutate::new(&key)
        .if_equals(&cf, &cq, &check.value)
        .then_put(put);
    match t.check_and_mutate(cam) {
        Ok(true) => Ok(Response::empty(200)),
        Ok(false) => Ok(not_modified()),
        Err(e) => Err(fail(&e)),
    }
}

/// `checkAndDelete`.
pub fn check_and_delete(
    t: &Table,
    rows: Vec<RowModel>,
    spec: &RowSpec,
) -> Result<Response, Response> {
    let (key, row) = one_row(rows, spec)?;
    let Some((check, rest)) = row.cells.split_last() else {
        return Err(bad("Column not specified for check."));
    };
    let check_col = match (&check.column, spec.columns.first()) {
        (Some(c), _) | (None, Some(c)) => c.clone(),
        (None, None) => return Err(bad("Column not specified for check.")),
    };
    let mut d = Delete::new(&key);
    for c in rest {
        let Some(col) = &c.column else {
            return Err(bad("Column found to be null."));
        };
        let ts = c.timestamp.unwrap_or(LATEST_TIMESTAMP);
        d = match split_column(col) {
            // `Delete.addFamily(f, ts)`: every version up to ts.
            (f, None) => d.family_up_to(f, ts),
            // `Delete.addColumn(f, q, ts)`: the version at ts (the latest without one).
            (f, Some(q)) if ts == LATEST_TIMESTAMP => d.latest_version(f, q),
            (f, Some(q)) => d.version(f, q, ts),
        };
    }
    let (cf, cq) = match split_column(&check_col) {
        (f, Some(q)) => (f.to_vec(), q.to_vec()),
        _ => return Err(bad("Column to check incorrectly specified.")),
    };
    if rest.is_empty() {
        // Back-compatible form: the check cell alone deletes every version of its column.
        d = d.all_versions(&cf, &cq);
    }
    let cam = CheckAndMutate::new(&key)
        .if_equals(&cf, &cq, &check.value)
        .then_delete(d);
    match t.check_and_mutate(cam) {
        Ok(true) => Ok(Response::empty(200)),
        Ok(false) => Ok(not_modified()),
        Err(e) => Err(fail(&e)),
    }
}
