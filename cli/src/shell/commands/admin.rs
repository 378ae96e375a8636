//! The `tools` group: flush, compact, major_compact, split, merge_region, list_regions, and
//! the region names they take.

use super::args::{Opts, arity, bytes_of, str_of};
use super::{CmdError, Echo, R, SERVER_NAME, Session, err};
use crate::shell::format;
use crate::shell::ruby::Value;
use cellbase::rowkey::to_string_binary;
use std::io::Write;

impl Session {
    /// Resolves a table name or a region name (`table,startKey,id`, optionally with its
    /// `.md5.` suffix, or the 32-hex encoded name alone) to (table, region name).
    fn resolve(&self, arg: &str) -> R<(String, Option<String>)> {
        if self.db.describe(arg).is_ok() {
            return Ok((arg.to_string(), None));
        }
        for t in self.db.table_names() {
            let Ok(h) = self.db.table(&t) else { continue };
            for r in h.regions() {
                let enc = encoded_name(&r);
                if arg == r.name || arg == enc || arg == format!("{}.{enc}.", r.name) {
                    return Ok((t, Some(r.name)));
                }
            }
        }
        if arg.contains(',') || (arg.len() == 32 && arg.bytes().all(|b| b.is_ascii_hexdigit())) {
            return err(format!("Unknown region {arg}!"));
        }
        err(format!("Unknown table {arg}!"))
    }

    /// `flush` / `compact` / `major_compact` of a table or a region, optionally one family
    /// (flush.rb, compact.rb, major_compact.rb). A flush always writes the region's whole
    /// memstore (cellbase keeps one per region), so with a family it flushes every family.
    pub(super) fn maintain(&mut self, cmd: &str, args: &[Value]) -> R<Echo> {
        arity(args, 1, 3)?;
        let target = str_of(&args[0], "table or region name")?;
        let (table, region) = self.resolve(&target)?;
        let mut family = None;
        if let Some(f) = args.get(1).filter(|v| !matches!(v, Value::Nil)) {
            let f = bytes_of(f, "column family")?;
            let desc = self.db.describe(&table).or_else(|e| self.fail(&table, e))?;
            if desc.get_family(&f).is_none() {
                return self.fail(
                    &table,
                    cellbase::Error::NoSuchFamily {
                        table: table.clone(),
                        family: String::from_utf8_lossy(&f).into_owned(),
                    },
                );
            }
            family = Some(f);
        }
        if let Some(v) = args.get(2) {
            let kind = str_of(v, "compaction type")?;
            if cmd == "flush" || kind != "NORMAL" {
                return err(format!(
                    "{cmd}: type {kind} is not supported by cellbase (MOB)"
                ));
            }
        }
        let t = self.table(&table)?;
        let major = cmd == "major_compact";
        let r = match (cmd, &region, &family) {
            ("flush", Some(r), _) => t.flush_region(r),
            ("flush", None, _) => t.flush(),
            (_, Some(r), f) => t.compact_region(r, f.as_deref(), major),
            (_, None, Some(f)) => t.compact_family(f, major),
            ("compact", None, None) => t.compact(),
            (_, None, None) => t.major_compact(),
        };
        r.or_else(|e| self.fail(&table, e))?;
        Ok(None)
    }

    /// `compaction_state 't'` (compaction_state.rb: the Java enum's name as the result).
    pub(super) fn compaction_state(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "table name")?;
        let t = self.db.table(&name).or_else(|e| self.fail(&name, e))?;
        Ok(Some(t.compaction_state().hbase_name().to_string()))
    }

    /// `truncate_region 'REGIONNAME'` (HBase 2.6 truncate_region.rb).
    pub(super) fn truncate_region(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 1, 1)?;
        let target = str_of(&args[0], "region name")?;
        let (table, region) = self.resolve(&target)?;
        let Some(region) = region else {
            return err(format!("Unknown region {target}!"));
        };
        let t = self.table(&table)?;
        t.truncate_region(&region)
            .or_else(|e| self.fail(&table, e))?;
        Ok(None)
    }

    /// `splitormerge_switch 'SPLIT'|'MERGE', bool` prints the previous state;
    /// `splitormerge_enabled 'SPLIT'|'MERGE'` the current one (splitormerge_switch.rb,
    /// splitormerge_enabled.rb).
    pub(super) fn splitormerge(
        &mut self,
        args: &[Value],
        set: bool,
        out: &mut dyn Write,
    ) -> R<Echo> {
        arity(args, if set { 2 } else { 1 }, if set { 2 } else { 1 })?;
        let kind = str_of(&args[0], "switch type")?;
        let split = match kind.as_str() {
            "SPLIT" => true,
            "MERGE" => false,
            // Java's `MasterSwitchType.valueOf`.
            other => {
                return err(format!(
                    "java.lang.IllegalArgumentException: No enum constant \
                     org.apache.hadoop.hbase.client.MasterSwitchType.{other}"
                ));
            }
        };
        let state = if set {
            let on = super::args::bool_of(&args[1], "enabled")?;
            if split {
                self.db.set_split_enabled(on)
            } else {
                self.db.set_merge_enabled(on)
            }
        } else if split {
            self.db.is_split_enabled()
        } else {
            self.db.is_merge_enabled()
        };
        format::one_col(out, &state.to_string(), self.width)?;
        Ok(None)
    }

    pub(super) fn split(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 1, 2)?;
        let target = str_of(&args[0], "table or region name")?;
        let (table, region) = self.resolve(&target)?;
        let key = args.get(1).map(|k| bytes_of(k, "split key")).transpose()?;
        let t = self.table(&table)?;
        if let Some(region) = &region {
            let Some(key) = &key else {
                return err(
                    "Splitting one region at its own split point is not supported by cellbase: give a split key, or split the whole table",
                );
            };
            let info = t.regions().into_iter().find(|r| &r.name == region);
            if let Some(info) = info
                && (key.as_slice() < info.start_key.as_slice()
                    || (!info.end_key.is_empty() && key.as_slice() >= info.end_key.as_slice()))
            {
                return err(format!(
                    "Split key {} is outside region {region}",
                    to_string_binary(key)
                ));
            }
        }
        t.split(key.as_deref()).or_else(|e| self.fail(&table, e))?;
        Ok(None)
    }

    pub(super) fn merge_region(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 1, 3)?;
        let names: Vec<String> = match &args[0] {
            Value::Array(a) => a
                .iter()
                .map(|v| str_of(v, "region name"))
                .collect::<R<_>>()?,
            v => {
                let mut n = vec![str_of(v, "region name")?];
                if let Some(b) = args.get(1).filter(|b| matches!(b, Value::Str(_))) {
                    n.push(str_of(b, "region name")?);
                }
                n
            }
        };
        if names.len() < 2 {
            return err("merge_region needs at least two regions");
        }
        // `true` after the names: HBase's `force`, which merges regions that are not
        // adjacent; cellbase keeps a table's regions contiguous, so it changes nothing here.
        let force = args
            .iter()
            .skip(1)
            .find_map(|a| match a {
                Value::Bool(b) => Some(*b),
                _ => None,
            })
            .unwrap_or(false);
        // HBase's translate_hbase_exceptions names the command's FIRST argument in
        // "Unknown region ...!", whichever region was unknown.
        let first = match &args[0] {
            Value::Array(_) => format!(
                "[{}]",
                names
                    .iter()
                    .map(|n| format!("{n:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => names[0].clone(),
        };
        let unknown = |e: CmdError| {
            if e.0.starts_with("Unknown region ") {
                CmdError(format!("Unknown region {first}!"))
            } else {
                e
            }
        };
        let mut table = None::<String>;
        let mut regions = Vec::new();
        for n in &names {
            let (t, r) = self.resolve(n).map_err(unknown)?;
            let Some(r) = r else {
                return err("merge_region takes region names, not table names");
            };
            if table.as_ref().is_some_and(|x| *x != t) {
                return err("Cannot merge regions of different tables");
            }
            table = Some(t);
            regions.push(r);
        }
        let table = table.unwrap_or_default();
        let t = self.table(&table)?;
        // In key order; each must start where the one before ends
        // (MergeTableRegionsProcedure's adjacency check).
        let infos = t.regions();
        let chosen: Vec<&cellbase::RegionInfo> =
            infos.iter().filter(|i| regions.contains(&i.name)).collect();
        if chosen.len() != regions.len() {
            return err("merge_region: a region is named twice");
        }
        if chosen.windows(2).any(|w| w[0].end_key != w[1].start_key) {
            return err(format!(
                "org.apache.hadoop.hbase.exceptions.MergeRegionException: Unable to merge \
                 non-adjacent regions {} when force={force}{}",
                names.join(", "),
                if force {
                    " (cellbase keeps a table's regions contiguous: only adjacent regions merge)"
                } else {
                    ""
                }
            ));
        }
        // Left to right: the merged region keeps the first one's start key in its name.
        let mut merged = chosen[0].name.clone();
        for next in &chosen[1..] {
            t.merge(&merged, &next.name)
                .or_else(|e| self.fail(&table, e))?;
            merged = t
                .regions()
                .into_iter()
                .find(|r| r.end_key == next.end_key)
                .map(|r| r.name)
                .unwrap_or_default();
        }
        Ok(None)
    }

    pub(super) fn list_regions(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 1, 3)?;
        let name = str_of(&args[0], "table name")?;
        let mut server: Option<String> = None;
        let mut locality_threshold: Option<f64> = None;
        match args.get(1) {
            None | Some(Value::Nil) => {}
            Some(Value::Str(_)) => server = Some(str_of(&args[1], "SERVER_NAME")?),
            Some(v @ Value::Hash(_)) => {
                let mut o = Opts::from(v)?;
                if let Some(s) = o.take("SERVER_NAME") {
                    server = Some(str_of(&s, "SERVER_NAME")?);
                }
                if let Some(l) = o.take("LOCALITY_THRESHOLD") {
                    // list_regions.rb: a Float (not an Integer), within [0, 1.0].
                    let Value::Float(th) = l else {
                        return err("LOCALITY_THRESHOLD must be a float value");
                    };
                    if !(0.0..=1.0).contains(&th) {
                        return err("LOCALITY_THRESHOLD must be between 0 and 1.0, inclusive");
                    }
                    locality_threshold = Some(th);
                }
                o.finish("list_regions")?;
            }
            Some(other) => {
                return err(format!(
                    "list_regions: second argument must be a server name or a hash, got {}",
                    other.describe()
                ));
            }
        }
        const ALL: [(&str, usize); 7] = [
            ("SERVER_NAME", 12),
            ("REGION_NAME", 12),
            ("START_KEY", 10),
            ("END_KEY", 10),
            ("SIZE", 5),
            ("REQ", 5),
            ("LOCALITY", 10),
        ];
        const POSSIBLE: &str = "Possible values are SERVER_NAME, REGION_NAME, START_KEY, END_KEY, SIZE, REQ, LOCALITY.";
        let cols: Vec<usize> = match args.get(2) {
            None | Some(Value::Nil) => (0..ALL.len()).collect(),
            Some(Value::Array(a)) => {
                // A Ruby hash in list_regions.rb: a repeated column keeps its first place.
                let mut v = Vec::new();
                for c in a {
                    let c = str_of(c, "column")?;
                    match ALL.iter().position(|(n, _)| n.eq_ignore_ascii_case(&c)) {
                        Some(i) if v.contains(&i) => {}
                        Some(i) => v.push(i),
                        None => return err(format!("{c} is not a valid column. {POSSIBLE}")),
                    }
                }
                v
            }
            Some(other) => {
                // Ruby's "#{cols}": a string's own text, another value's to_s.
                let text = match other {
                    Value::Str(t) => String::from_utf8_lossy(t).into_owned(),
                    v => v.describe(),
                };
                return err(format!("{text} must be an array of strings. {POSSIBLE}"));
            }
        };
        self.exists_table(&name)?;
        if !self.db.is_table_enabled(&name).unwrap_or(true) {
            return err(format!("Table {name} must be enabled."));
        }
        let t = self.db.table(&name).or_else(|e| self.fail(&name, e))?;
        let mut rows = Vec::new();
        for r in t.regions() {
            let locality = 1.0_f64;
            // list_regions.rb accepts a server whose name starts with the given text.
            if server
                .as_deref()
                .is_some_and(|s| !SERVER_NAME.starts_with(s))
            {
                continue;
            }
            if locality_threshold.is_some_and(|th| locality > th) {
                continue;
            }
            let full = [
                SERVER_NAME.to_string(),
                format!("{}.{}.", r.name, encoded_name(&r)),
                // list_regions.rb strips the keys' toStringBinary text.
                to_string_binary(&r.start_key).trim().to_string(),
                to_string_binary(&r.end_key).trim().to_string(),
                (r.store_file_bytes / (1024 * 1024)).to_string(),
                (r.read_requests + r.write_requests).to_string(),
                format!("{locality:.1}"),
            ];
            rows.push(cols.iter().map(|&i| full[i].clone()).collect::<Vec<_>>());
        }
        let columns: Vec<(&str, usize)> = cols.iter().map(|&i| ALL[i]).collect();
        format::regions_table(out, &columns, &rows)?;
        Ok(None)
    }
}

/// HBase's encoded region name: the MD5 of the region name as 32 lower-case hex digits.
pub fn encoded_name(region: &cellbase::RegionInfo) -> String {
    // RegionInfo.createRegionName hashes the raw bytes `table,startKey,id` (the start key as
    // bytes, not its toStringBinary text).
    let (table, _) = region.name.split_once(',').unwrap_or((&region.name, ""));
    let (_, id) = region.name.rsplit_once(',').unwrap_or(("", ""));
    let mut raw = Vec::with_capacity(table.len() + region.start_key.len() + id.len() + 2);
    raw.extend_from_slice(table.as_bytes());
    raw.push(b',');
    raw.extend_from_slice(&region.start_key);
    raw.push(b',');
    raw.extend_from_slice(id.as_bytes());
    let digest = &cellbase::rowkey::md5_prefix(&raw)[..16];
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::encoded_name;

    fn region(name: &str, start: &[u8]) -> cellbase::RegionInfo {
        cellbase::RegionInfo {
            name: name.into(),
            start_key: start.to_vec(),
            end_key: Vec::new(),
            memstore_bytes: 0,
            store_files: 0,
            store_file_bytes: 0,
            read_requests: 0,
            write_requests: 0,
        }
    }

    #[test]
    fn encoded_names_match_hbase() {
        // Region names and encoded names printed by an HBase 2.2.3 shell (locate_region and
        // hbase:meta scans in a published transcript).
        assert_eq!(
            encoded_name(&region("test,,1619324005040", b"")),
            "797a96a1f98775885db2a0456f9aacb3"
        );
        assert_eq!(
            encoded_name(&region("table1,123_row,1619492890981", b"123_row")),
            "af738ee4f6ff984718e7fa3e4c675ea7"
        );
        // A binary start key is hashed as bytes, not as its toStringBinary text.
        let raw = encoded_name(&region("t,\\x10\\x00,5", b"\x10\x00"));
        let text = encoded_name(&region("t,\\x10\\x00,5", b"\\x10\\x00"));
        assert_ne!(raw, text);
    }
}
