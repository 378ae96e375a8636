//! The `dml` group: put, get, scan, delete/deleteall, incr, get_counter, count, truncate.

use super::args::{
    ColSpec, Opts, arity, bool_of, bytes_of, col_specs, converter_for, formatter, int_of,
    maxlength_of, parse_filter, split_column, str_of, time_range, u32_of,
};
use super::metrics;
use super::{CmdError, Echo, R, Session, err};
use crate::shell::format::{self, Converter};
use crate::shell::ruby::Value;
use cellbase::rowkey::to_string_binary;
use cellbase::{Delete, Filter, Get, Increment, Put, Scan, TableDescriptor};
use std::io::Write;
use std::time::Duration;

/// A scan's request, its column specs, MAXLENGTH and default value formatter.
type ScanOpts = (
    Scan,
    Vec<ColSpec>,
    Option<usize>,
    Converter,
    metrics::Wanted,
);

/// (table, row, family, qualifier) of incr / get_counter.
type CounterArgs = (String, Vec<u8>, Vec<u8>, Vec<u8>);

impl Session {
    pub(super) fn put(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 4, 6)?;
        let name = str_of(&args[0], "table name")?;
        let row = bytes_of(&args[1], "row")?;
        let (fam, qual) = split_column(&bytes_of(&args[2], "column")?);
        let value = bytes_of(&args[3], "value")?;
        let mut ts = None;
        let mut ttl = None;
        for a in &args[4..] {
            match a {
                Value::Hash(_) => {
                    let mut o = Opts::from(a)?;
                    if let Some(v) = o.take("TTL") {
                        let ms = int_of(&v, "TTL")?;
                        if ms <= 0 {
                            return err(format!("TTL must be positive (milliseconds), got {ms}"));
                        }
                        ttl = Some(Duration::from_millis(ms as u64));
                    }
                    o.finish("put")?;
                }
                v if ts.is_none() => ts = Some(int_of(v, "timestamp")?),
                other => return err(format!("unexpected argument {}", other.describe())),
            }
        }
        let qual = qual.unwrap_or_default();
        let mut p = match ts {
            Some(ts) => Put::new(&row).add_at(&fam, &qual, ts, &value),
            None => Put::new(&row).add(&fam, &qual, &value),
        };
        if let Some(d) = ttl {
            p = p.ttl(d);
        }
        let t = self.table(&name)?;
        t.put(p).or_else(|e| self.fail(&name, e))?;
        Ok(None)
    }

    pub(super) fn get(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 2, usize::MAX)?;
        let name = str_of(&args[0], "table name")?;
        // `get 't', ['r1', 'r2', ...]` (a cellbase extension; HBase's get takes one row): one
        // `Table::get_many` batch, printed as scan prints rows.
        let many = match &args[1] {
            Value::Array(rows) => Some(
                rows.iter()
                    .map(|r| bytes_of(r, "row"))
                    .collect::<R<Vec<_>>>()?,
            ),
            _ => None,
        };
        let row = match &many {
            Some(rows) => rows.first().cloned().unwrap_or_default(),
            None => bytes_of(&args[1], "row")?,
        };
        let mut g = Get::new(&row);
        // The same read as a one-row scan, for METRICS (HBase serves a Get as one too).
        let mut stop = row.clone();
        stop.push(0);
        let mut s = Scan::new().start_row(&row).stop_row(stop);
        let mut want: metrics::Wanted = None;
        let mut cols: Vec<ColSpec> = Vec::new();
        let mut maxlength = None;
        let mut default_conv = Converter::StringBinary;
        for a in &args[2..] {
            match a {
                Value::Hash(_) => {
                    let mut o = Opts::from(a)?;
                    for key in ["COLUMN", "COLUMNS"] {
                        if let Some(v) = o.take(key) {
                            cols.extend(col_specs(&v)?);
                        }
                    }
                    if let Some(v) = o.take("TIMESTAMP") {
                        let ts = int_of(&v, "TIMESTAMP")?;
                        g = g.timestamp(ts);
                        s = s.timestamp(ts);
                    }
                    if let Some(v) = o.take("TIMERANGE") {
                        let (a, b) = time_range(&v)?;
                        g = g.time_range(a, b);
                        s = s.time_range(a, b);
                    }
                    if let Some(v) = o.take("VERSIONS") {
                        let n = u32_of(&v, "VERSIONS")?;
                        g = g.max_versions(n);
                        s = s.max_versions(n);
                    }
                    if let Some(v) = o.take("FILTER") {
                        let f = parse_filter(&v)?;
                        g = g.filter(f.clone());
                        s = s.filter(f);
                    }
                    if let Some(v) = o.take("MAXLENGTH") {
                        maxlength = maxlength_of(&v)?;
                    }
                    default_conv = formatter(&mut o)?;
                    want = metrics::wanted(&mut o)?;
                    o.ignore(&["CONSISTENCY", "CACHE_BLOCKS"]);
                    o.finish("get")?;
                }
                other => cols.extend(col_specs(other)?),
            }
        }
        for c in &cols {
            g = match &c.qualifier {
                Some(q) => g.column(&c.family, q),
                None => g.family(&c.family),
            };
            s = match &c.qualifier {
                Some(q) => s.column(&c.family, q),
                None => s.family(&c.family),
            };
        }
        let t = self.table(&name)?;
        if let Some(rows) = many {
            if want.is_some() {
                return err("METRICS applies to a get of one row");
            }
            let batch = rows.iter().map(|r| g.with_row(r)).collect();
            let results = t.get_many(batch).or_else(|e| self.fail(&name, e))?;
            format::two_col(out, "ROW", "COLUMN+CELL", false, self.width)?;
            let mut n = 0u64;
            for r in results.iter().filter(|r| !r.is_empty()) {
                n += 1;
                self.scan_row(out, r, &cols, &default_conv, maxlength)?;
            }
            writeln!(out, "{n} row(s)")?;
            return Ok(None);
        }
        let started = std::time::Instant::now();
        let (r, scanned) = match want {
            None => (t.get(g).or_else(|e| self.fail(&name, e))?, None),
            Some(_) => {
                let mut rows = t.scan(s).or_else(|e| self.fail(&name, e))?;
                let r = match rows.next() {
                    Some(r) => r.or_else(|e| self.fail(&name, e))?,
                    None => cellbase::RowResult::default(),
                };
                (r, Some(rows.metrics()))
            }
        };
        format::two_col(out, "COLUMN", "CELL", false, self.width)?;
        for cell in r.cells() {
            let conv = converter_for(&cols, &default_conv, cell.family(), cell.qualifier());
            let text = format::cell_text(cell, self.ts, &conv, maxlength);
            let column = format::column_name_with(cell, &default_conv);
            format::two_col(out, &column, &text, true, self.width)?;
        }
        writeln!(out, "{} row(s)", if r.is_empty() { 0 } else { 1 })?;
        if let (Some(want), Some(m)) = (want, scanned) {
            metrics::print(out, &m, started.elapsed().as_millis() as u64, &want)?;
        }
        Ok(None)
    }

    fn scan_opts(&self, v: Option<&Value>, cmd: &str) -> R<ScanOpts> {
        let mut s = Scan::new();
        let mut cols = Vec::new();
        let mut maxlength = None;
        let Some(v) = v else {
            return Ok((s, cols, maxlength, Converter::StringBinary, None));
        };
        let mut o = Opts::from(v)?;
        if let Some(v) = o.take("STARTROW") {
            s = s.start_row(bytes_of(&v, "STARTROW")?);
        }
        if let Some(v) = o.take("STOPROW") {
            s = s.stop_row(bytes_of(&v, "STOPROW")?);
        }
        if let Some(v) = o.take("ROWPREFIXFILTER") {
            s = s.prefix(bytes_of(&v, "ROWPREFIXFILTER")?);
        }
        if let Some(v) = o.take("LIMIT") {
            let n = int_of(&v, "LIMIT")?;
            if n > 0 {
                s = s.limit(n as u64);
            }
        }
        for key in ["COLUMNS", "COLUMN"] {
            if let Some(v) = o.take(key) {
                cols.extend(col_specs(&v)?);
            }
        }
        for c in &cols {
            s = match &c.qualifier {
                Some(q) => s.column(&c.family, q),
                None => s.family(&c.family),
            };
        }
        if let Some(v) = o.take("TIMESTAMP") {
            s = s.timestamp(int_of(&v, "TIMESTAMP")?);
        }
        if let Some(v) = o.take("TIMERANGE") {
            let (a, b) = time_range(&v)?;
            s = s.time_range(a, b);
        }
        if let Some(v) = o.take("VERSIONS") {
            s = s.max_versions(u32_of(&v, "VERSIONS")?);
        }
        if let Some(v) = o.take("RAW") {
            s = s.raw(bool_of(&v, "RAW")?);
        }
        if let Some(v) = o.take("REVERSED") {
            s = s.reversed(bool_of(&v, "REVERSED")?);
        }
        if let Some(v) = o.take("FILTER") {
            s = s.filter(parse_filter(&v)?);
        }
        if let Some(v) = o.take("MAXLENGTH") {
            maxlength = maxlength_of(&v)?;
        }
        let default_conv = formatter(&mut o)?;
        let want = metrics::wanted(&mut o)?;
        o.ignore(&[
            "CACHE",
            "CACHE_BLOCKS",
            "CONSISTENCY",
            "MAX_RESULT_SIZE",
            "ALLOW_PARTIAL_RESULTS",
            "ISOLATION_LEVEL",
            "READ_TYPE",
        ]);
        o.finish(cmd)?;
        Ok((s, cols, maxlength, default_conv, want))
    }

    pub(super) fn scan(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 1, 2)?;
        let name = str_of(&args[0], "table name")?;
        let (s, cols, maxlength, default_conv, want) = self.scan_opts(args.get(1), "scan")?;
        let t = self.table(&name)?;
        let started = std::time::Instant::now();
        let mut rows = t.scan(s).or_else(|e| self.fail(&name, e))?;
        format::two_col(out, "ROW", "COLUMN+CELL", false, self.width)?;
        let mut n = 0u64;
        for r in rows.by_ref() {
            let r = r.or_else(|e| self.fail(&name, e))?;
            n += 1;
            self.scan_row(out, &r, &cols, &default_conv, maxlength)?;
        }
        writeln!(out, "{n} row(s)")?;
        if let Some(want) = want {
            let millis = started.elapsed().as_millis() as u64;
            metrics::print(out, &rows.metrics(), millis, &want)?;
        }
        Ok(None)
    }

    /// One row in scan's form: ` row column=f:q, timestamp=..., value=...` per cell.
    fn scan_row(
        &self,
        out: &mut dyn Write,
        r: &cellbase::RowResult,
        cols: &[ColSpec],
        default_conv: &Converter,
        maxlength: Option<usize>,
    ) -> std::io::Result<()> {
        let key = default_conv.apply(r.row());
        for cell in r.cells() {
            let conv = converter_for(cols, default_conv, cell.family(), cell.qualifier());
            let text = format!(
                "column={}, {}",
                format::column_name_with(cell, default_conv),
                format::cell_text(cell, self.ts, &conv, maxlength)
            );
            format::two_col(out, &key, &text, true, self.width)?;
        }
        Ok(())
    }

    pub(super) fn delete(&mut self, args: &[Value], all: bool) -> R<Echo> {
        let cmd = if all { "deleteall" } else { "delete" };
        arity(args, if all { 2 } else { 3 }, 5)?;
        let name = str_of(&args[0], "table name")?;
        // deleteall 't1', {ROWPREFIXFILTER => 'p'}[, col[, ts]]
        let (row, prefix) = match &args[1] {
            Value::Hash(_) if all => {
                let mut o = Opts::from(&args[1])?;
                let p = o.take("ROWPREFIXFILTER").ok_or_else(|| {
                    CmdError("deleteall with a hash needs ROWPREFIXFILTER".into())
                })?;
                o.ignore(&["CACHE"]);
                o.finish(cmd)?;
                (None, Some(bytes_of(&p, "ROWPREFIXFILTER")?))
            }
            v => (Some(bytes_of(v, "row")?), None),
        };
        let mut column = None;
        let mut ts = None;
        for a in &args[2..] {
            match a {
                Value::Hash(h) if h.is_empty() => {}
                Value::Int(_) if ts.is_none() => ts = Some(int_of(a, "timestamp")?),
                Value::Str(_) if column.is_none() && ts.is_none() => {
                    column = Some(bytes_of(a, "column")?)
                }
                other => return err(format!("unexpected argument {}", other.describe())),
            }
        }
        if !all && column.is_none() {
            return err("delete needs a column");
        }
        let now = self.now();
        let build = |row: &[u8]| -> R<Delete> {
            let d = Delete::new(row);
            let col = column.as_deref().filter(|c| !c.is_empty());
            Ok(match (col.map(split_column), all) {
                (None, _) => match ts {
                    Some(ts) => d.up_to(ts),
                    None => d,
                },
                (Some((f, Some(q))), true) => match ts {
                    Some(ts) => d.versions_up_to(&f, &q, ts),
                    None => d.all_versions(&f, &q),
                },
                (Some((f, None)), true) => match ts {
                    Some(ts) => d.family_up_to(&f, ts),
                    None => d.family(&f),
                },
                (Some((f, Some(q))), false) => match ts {
                    Some(ts) => d.version(&f, &q, ts),
                    None => d.latest_version(&f, &q),
                },
                (Some((f, None)), false) => d.family_version(&f, ts.unwrap_or(now)),
            })
        };
        let t = self.table(&name)?;
        match (row, prefix) {
            (Some(row), _) => {
                let d = build(&row)?;
                t.delete(d).or_else(|e| self.fail(&name, e))?;
            }
            (None, Some(p)) => {
                let scan = Scan::new().prefix(&p).filter(Filter::FirstKeyOnly);
                let mut dels = Vec::new();
                for r in t.scan(scan).or_else(|e| self.fail(&name, e))? {
                    let r = r.or_else(|e| self.fail(&name, e))?;
                    dels.push(build(r.row())?);
                }
                for d in dels {
                    t.delete(d).or_else(|e| self.fail(&name, e))?;
                }
            }
            (None, None) => unreachable!("a row or a prefix is always set"),
        }
        Ok(None)
    }

    fn counter_args(&self, args: &[Value]) -> R<CounterArgs> {
        let name = str_of(&args[0], "table name")?;
        let row = bytes_of(&args[1], "row")?;
        let (f, q) = split_column(&bytes_of(&args[2], "column")?);
        Ok((name, row, f, q.unwrap_or_default()))
    }

    pub(super) fn incr(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 3, 5)?;
        let (name, row, f, q) = self.counter_args(args)?;
        let mut by = 1;
        for a in &args[3..] {
            match a {
                Value::Hash(_) => Opts::from(a)?.finish("incr")?,
                v => by = int_of(v, "increment")?,
            }
        }
        let t = self.table(&name)?;
        let r = match t.increment(Increment::new(&row).add(&f, &q, by)) {
            Ok(r) => r,
            Err(cellbase::Error::NotACounter { .. }) => {
                // The region server's message (HRegion: "Field is not a long, ...").
                let width = t
                    .get(Get::new(&row).column(&f, &q))
                    .ok()
                    .and_then(|r| r.value(&f, &q).map(<[u8]>::len))
                    .unwrap_or(0);
                return err(format!(
                    "org.apache.hadoop.hbase.DoNotRetryIOException: Field is not a long, it's {width} bytes wide"
                ));
            }
            Err(e) => return self.fail(&name, e),
        };
        let v = r
            .value(&f, &q)
            .and_then(|v| <[u8; 8]>::try_from(v).ok())
            .map(i64::from_be_bytes)
            .ok_or_else(|| CmdError("increment returned no value".into()))?;
        writeln!(out, "COUNTER VALUE = {v}")?;
        Ok(None)
    }

    pub(super) fn get_counter(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 3, 3)?;
        let (name, row, f, q) = self.counter_args(args)?;
        let t = self.table(&name)?;
        let r = t
            .get(Get::new(&row).column(&f, &q))
            .or_else(|e| self.fail(&name, e))?;
        match r.value(&f, &q) {
            None => writeln!(out, "No counter found at specified coordinates")?,
            Some(v) => match <[u8; 8]>::try_from(v) {
                Ok(b) => writeln!(out, "COUNTER VALUE = {}", i64::from_be_bytes(b))?,
                Err(_) => {
                    // Client-side Bytes.toLong(array, offset, length) in table.rb.
                    return err(format!(
                        "java.lang.IllegalArgumentException: Wrong length: {}, expected 8",
                        v.len()
                    ));
                }
            },
        }
        Ok(None)
    }

    pub(super) fn count(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 1, 2)?;
        let name = str_of(&args[0], "table name")?;
        let mut interval: u64 = 1000;
        let mut filter = Filter::FirstKeyOnly;
        // count.rb: an Integer second argument is the old syntax for INTERVAL; the hash is
        // otherwise a scan's (table.rb `_hash_to_scan`), counted with FirstKeyOnlyFilter.
        let mut scan = Scan::new();
        match args.get(1) {
            None => {}
            Some(Value::Int(i)) => interval = positive_interval(*i)?,
            Some(v) => {
                let mut o = Opts::from(v)?;
                if let Some(v) = o.take("INTERVAL") {
                    interval = positive_interval(int_of(&v, "INTERVAL")?)?;
                }
                if let Some(v) = o.take("FILTER") {
                    filter = Filter::All(vec![parse_filter(&v)?, Filter::FirstKeyOnly]);
                }
                let rest = Value::Hash(
                    o.0.into_iter()
                        .map(|(k, v)| (Value::Str(k.into_bytes()), v))
                        .collect(),
                );
                scan = self.scan_opts(Some(&rest), "count")?.0;
            }
        }
        let t = self.table(&name)?;
        let mut n = 0u64;
        for r in t
            .scan(scan.filter(filter))
            .or_else(|e| self.fail(&name, e))?
        {
            let r = r.or_else(|e| self.fail(&name, e))?;
            n += 1;
            if n.is_multiple_of(interval) {
                let line = format!("Current count: {n}, row: {}", to_string_binary(r.row()));
                format::one_col(out, &line, self.width)?;
            }
        }
        writeln!(out, "{n} row(s)")?;
        Ok(Some(n.to_string()))
    }

    pub(super) fn truncate(
        &mut self,
        args: &[Value],
        out: &mut dyn Write,
        preserve: bool,
    ) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "table name")?;
        let old = self.db.describe(&name).or_else(|e| self.fail(&name, e))?;
        let handle = self.db.table(&name).or_else(|e| self.fail(&name, e))?;
        let splits: Vec<Vec<u8>> = handle
            .regions()
            .into_iter()
            .map(|r| r.start_key)
            .filter(|k| !k.is_empty())
            .collect();
        let mut desc = TableDescriptor::new(&name);
        for f in old.families() {
            desc = desc.family(f.clone());
        }
        if let Some(n) = old.table_max_region_size() {
            desc = desc.max_region_size(n);
        }
        if let Some(n) = old.table_memstore_flush_size() {
            desc = desc.memstore_flush_size(n);
        }
        if preserve && !splits.is_empty() {
            desc = desc.split_keys(splits);
        }
        writeln!(out, "Truncating '{name}' table (it may take a while):")?;
        if self.db.is_table_enabled(&name).unwrap_or(false) {
            writeln!(out, "Disabling table...")?;
            self.db
                .disable_table(&name)
                .or_else(|e| self.fail(&name, e))?;
        }
        writeln!(out, "Truncating table...")?;
        self.db.drop_table(&name).or_else(|e| self.fail(&name, e))?;
        self.db
            .create_table(desc)
            .or_else(|e| self.fail(&name, e))?;
        Ok(None)
    }
}

/// count's INTERVAL: HBase divides by it (`count % interval`), so it must be positive.
fn positive_interval(i: i64) -> R<u64> {
    u64::try_from(i)
        .ok()
        .filter(|&i| i > 0)
        .ok_or_else(|| CmdError(format!("INTERVAL must be positive, got {i}")))
}
