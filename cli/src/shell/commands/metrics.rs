//! `status` ('summary', 'simple', 'detailed') and the scan metrics that `scan` and `get`
//! print after their rows when asked (`METRICS => true`, `METRICS => ['ROWS_SCANNED', ...]`,
//! `ALL_METRICS => true`), in HBase 2.x's layout.

use super::args::{Opts, arity, str_of};
use super::{Echo, R, Session, err};
use crate::shell::ruby::Value;
use cellbase::ScanMetrics;
use std::io::Write;

/// HBase's `ScanMetrics` keys, in the order the shell prints them (sorted).
pub const SCAN_METRIC_KEYS: [&str; 11] = [
    "BYTES_IN_REMOTE_RESULTS",
    "BYTES_IN_RESULTS",
    "MILLIS_BETWEEN_NEXTS",
    "NOT_SERVING_REGION_EXCEPTION",
    "REGIONS_SCANNED",
    "REMOTE_RPC_CALLS",
    "REMOTE_RPC_RETRIES",
    "ROWS_FILTERED",
    "ROWS_SCANNED",
    "RPC_CALLS",
    "RPC_RETRIES",
];

/// Which scan metrics a command asked for: `None` = none, `Some(empty)` = all.
pub(super) type Wanted = Option<Vec<String>>;

/// Reads `METRICS` (true/false, or an array of names) and `ALL_METRICS` (true/false).
pub(super) fn wanted(o: &mut Opts) -> R<Wanted> {
    let mut want: Wanted = None;
    if let Some(v) = o.take("ALL_METRICS")
        && matches!(v, Value::Bool(true))
    {
        want = Some(Vec::new());
    }
    match o.take("METRICS") {
        None | Some(Value::Bool(false)) | Some(Value::Nil) => {}
        Some(Value::Bool(true)) => want = Some(Vec::new()),
        Some(Value::Array(names)) => {
            let mut list = Vec::new();
            for n in &names {
                let name = str_of(n, "METRICS")?;
                if !SCAN_METRIC_KEYS.contains(&name.as_str()) {
                    return err(format!(
                        "unknown scan metric {name}; known: {}",
                        SCAN_METRIC_KEYS.join(", ")
                    ));
                }
                list.push(name);
            }
            if want.is_none() {
                want = Some(list);
            }
        }
        Some(other) => {
            return err(format!(
                "METRICS must be true, false or an array of metric names, not {}",
                other.describe()
            ));
        }
    }
    Ok(want)
}

/// The `METRIC / VALUE` table HBase's shell prints after a scan's rows.
pub(super) fn print(out: &mut dyn Write, m: &ScanMetrics, millis: u64, want: &[String]) -> R<()> {
    let value = |k: &str| -> u64 {
        match k {
            "BYTES_IN_RESULTS" => m.bytes_in_results,
            "MILLIS_BETWEEN_NEXTS" => millis,
            "REGIONS_SCANNED" => m.regions_scanned,
            "ROWS_FILTERED" => m.rows_filtered,
            "ROWS_SCANNED" => m.rows_scanned,
            "RPC_CALLS" => m.rpc_calls,
            // Embedded: no remote calls, no retries, no region moves.
            _ => 0,
        }
    };
    writeln!(out, "{:<40} VALUE", "METRIC")?;
    for k in SCAN_METRIC_KEYS {
        if want.is_empty() || want.iter().any(|w| w == k) {
            writeln!(out, " {:<39} {}", k, value(k))?;
        }
    }
    Ok(())
}

impl Session {
    /// `status`, `status 'simple'`, `status 'detailed'` (also `'summary'`).
    pub(super) fn status(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 0, 1)?;
        let format = match args.first() {
            Some(v) => Some(str_of(v, "status format")?),
            None => None,
        };
        let m = self.db.metrics();
        match crate::info::status::render(&m, format.as_deref()) {
            Some(text) => write!(out, "{text}")?,
            None => {
                return err(format!(
                    "status format must be one of {}, not {}",
                    crate::info::status::FORMATS.join(", "),
                    format.unwrap_or_default()
                ));
            }
        }
        Ok(None)
    }
}
