//! The `ddl` group: create, alter, describe, list, exists, enable/disable, drop, and the
//! family and table attributes they take.

use super::args::{
    Opts, arity, bool_of, bytes_of, echo_names, full_match_regex, int_of, str_of, u32_of,
};
use super::table_attrs::TableFlags;
use super::{CmdError, Echo, R, Session, engine_msg, err};
use crate::shell::format;
use crate::shell::ruby::Value;
use cellbase::region_split_policy::{
    DELIMITER_KEY, PREFIX_LENGTH_KEY, PREFIX_LENGTH_KEY_DEPRECATED,
};
use cellbase::rowkey::to_bytes_binary;
use cellbase::{
    BloomType, Compression, DataBlockEncoding, FamilyDescriptor, KeepDeletedCells,
    RegionSplitPolicy, SplitAlgorithm, TableDescriptor,
};
use std::io::Write;
use std::time::Duration;

/// TTL as seconds: an integer, `'FOREVER'`, `'86400 SECONDS (1 DAY)'` or `'1 DAY 2 HOURS'`.
fn ttl_of(v: &Value) -> R<Option<Duration>> {
    let secs: i64 = match v {
        Value::Int(i) => *i,
        _ => {
            let s = str_of(v, "TTL")?;
            let s = s.trim();
            if s.eq_ignore_ascii_case("FOREVER") {
                return Ok(None);
            }
            let head = s.split('(').next().unwrap_or(s).trim();
            if let Ok(n) = head.parse::<i64>() {
                n
            } else {
                let words: Vec<&str> = head.split_whitespace().collect();
                if words.is_empty() || !words.len().is_multiple_of(2) {
                    return err(format!("Invalid TTL value: {s}"));
                }
                let mut total: i64 = 0;
                for pair in words.chunks(2) {
                    let n: i64 = pair[0]
                        .parse()
                        .map_err(|_| CmdError(format!("Invalid TTL value: {s}")))?;
                    let unit = pair[1].to_ascii_uppercase();
                    let mult = match unit.trim_end_matches('S') {
                        "DAY" => 86400,
                        "HOUR" => 3600,
                        "MINUTE" => 60,
                        "SECOND" => 1,
                        _ => return err(format!("Invalid TTL value: {s}")),
                    };
                    total = total.saturating_add(n.saturating_mul(mult));
                }
                total
            }
        }
    };
    if secs >= i64::from(i32::MAX) {
        return Ok(None);
    }
    if secs <= 0 {
        return err(format!(
            "TTL must be a positive number of seconds, got {secs}"
        ));
    }
    Ok(Some(Duration::from_secs(secs as u64)))
}

/// Applies a family dictionary's settings (NAME already taken) onto `f`. Warnings for the
/// command's output (a codec stored as another) are pushed onto `warnings`.
fn family_attrs(
    mut f: FamilyDescriptor,
    o: &mut Opts,
    warnings: &mut Vec<String>,
) -> R<FamilyDescriptor> {
    if let Some(v) = o.take("VERSIONS") {
        f = f.max_versions(u32_of(&v, "VERSIONS")?);
    }
    if let Some(v) = o.take("MIN_VERSIONS") {
        f = f.min_versions(u32_of(&v, "MIN_VERSIONS")?);
    }
    if let Some(v) = o.take("TTL") {
        match ttl_of(&v)? {
            Some(d) => f = f.ttl(d),
            None => f.ttl = None,
        }
    }
    if let Some(v) = o.take("KEEP_DELETED_CELLS") {
        let k = match &v {
            Value::Bool(true) => KeepDeletedCells::True,
            Value::Bool(false) => KeepDeletedCells::False,
            _ => match str_of(&v, "KEEP_DELETED_CELLS")?
                .to_ascii_uppercase()
                .as_str()
            {
                "TRUE" => KeepDeletedCells::True,
                "FALSE" => KeepDeletedCells::False,
                "TTL" => KeepDeletedCells::Ttl,
                other => {
                    return err(format!(
                        "KEEP_DELETED_CELLS must be FALSE, TRUE or TTL, got {other}"
                    ));
                }
            },
        };
        f = f.keep_deleted_cells(k);
    }
    // BLOOMFILTER, with ROWPREFIX_FIXED_LENGTH's prefix length from the family's
    // CONFIGURATION (HBase's BloomFilterUtil.getBloomFilterParam) [BLOOM-5].
    let bloom_name = match o.take("BLOOMFILTER") {
        Some(v) => Some(str_of(&v, "BLOOMFILTER")?),
        None => None,
    };
    let mut config = match o.take("CONFIGURATION") {
        Some(v) => Some(Opts::from(&v)?),
        None => None,
    };
    let prefix_length = match config
        .as_mut()
        .and_then(|h| h.take(cellbase::ROW_PREFIX_LENGTH_KEY))
    {
        Some(Value::Int(n)) => Some(n.to_string()),
        Some(other) => Some(str_of(&other, cellbase::ROW_PREFIX_LENGTH_KEY)?),
        None => None,
    };
    let bloom = match (bloom_name, prefix_length) {
        (Some(name), given) => {
            // alter keeps a ROWPREFIX family's prefix length unless CONFIGURATION sets one.
            let kept = f.bloom_filter.prefix_length().map(|n| n.to_string());
            Some(BloomType::from_hbase_name(&name, given.or(kept).as_deref()))
        }
        // A new length for a ROWPREFIX family (refused for another type).
        (None, Some(given)) => {
            f.set_configuration(cellbase::ROW_PREFIX_LENGTH_KEY, &given)
                .map_err(|e| CmdError(engine_msg(&e)))?;
            None
        }
        (None, None) => None,
    };
    if let Some(b) = bloom {
        f = f.bloom_filter(b.map_err(|e| CmdError(engine_msg(&e)))?);
    }
    if let Some(v) = o.take("COMPRESSION") {
        let name = str_of(&v, "COMPRESSION")?;
        let (c, substituted) =
            Compression::from_hbase_name(&name).map_err(|e| CmdError(engine_msg(&e)))?;
        if substituted {
            // docs/SEMANTICS.md, "Compression": LZO is stored as LZ4, BZIP2 as GZ.
            warnings.push(format!(
                "WARNING: COMPRESSION => '{}' for family {} is stored as '{}': cellbase has no {} codec",
                name.to_ascii_uppercase(),
                String::from_utf8_lossy(&f.name),
                c.hbase_name(),
                name.to_ascii_uppercase()
            ));
        }
        f = f.compression(c);
    }
    if let Some(v) = o.take("BLOCKSIZE") {
        f = f.block_size(u32_of(&v, "BLOCKSIZE")?);
    }
    if let Some(v) = o.take("IN_MEMORY") {
        f = f.in_memory(bool_of(&v, "IN_MEMORY")?);
    }
    if let Some(v) = o.take("BLOCKCACHE") {
        f = f.block_cache(bool_of(&v, "BLOCKCACHE")?);
    }
    if let Some(v) = o.take("DATA_BLOCK_ENCODING") {
        // HBase's admin.rb: DataBlockEncoding.valueOf(arg.upcase). FAST_DIFF and DIFF write
        // suffix-delta entries, NONE, PREFIX and ROW_INDEX_V1 prefix-compressed ones.
        let e = str_of(&v, "DATA_BLOCK_ENCODING")?;
        f = f.data_block_encoding(
            DataBlockEncoding::from_hbase_name(&e).map_err(|e| CmdError(engine_msg(&e)))?,
        );
    }
    if let Some(v) = o.take("REPLICATION_SCOPE")
        && int_of(&v, "REPLICATION_SCOPE")? != 0
    {
        return err("REPLICATION_SCOPE other than 0 is not supported by cellbase");
    }
    // The rest of a family's CONFIGURATION: its compaction policy (FIFO, or the date-tiered
    // store engine and its settings) and major compaction period.
    if let Some(h) = config {
        family_configuration(&mut f, h)?;
    }
    f.validate().map_err(|e| CmdError(engine_msg(&e)))?;
    Ok(f)
}

/// Applies a family's `CONFIGURATION` hash: the store engine and policy classes first (the
/// date-tiered settings need the engine), then the other keys, each value as text.
fn family_configuration(f: &mut FamilyDescriptor, mut h: Opts) -> R<()> {
    let engine = cellbase::store_config::STORE_ENGINE_KEY;
    let mut entries = Vec::new();
    for key in [engine, cellbase::COMPACTION_POLICY_KEY] {
        if let Some(x) = h.take(key) {
            entries.push((key.to_string(), x));
        }
    }
    entries.append(&mut h.0);
    for (k, x) in entries {
        let text = match &x {
            Value::Int(n) => n.to_string(),
            Value::Float(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            other => str_of(other, &k)?,
        };
        f.set_configuration(&k, &text)
            .map_err(|e| CmdError(engine_msg(&e)))?;
    }
    Ok(())
}

/// The split policy options of a table options hash: `SPLIT_POLICY` (also inside METADATA),
/// and the policies' keys in `CONFIGURATION` or `METADATA` (HBase keeps both maps; the prefix
/// policies read their key from either). Other keys of those maps are refused.
#[derive(Default)]
struct PolicyOpts {
    class: Option<String>,
    config: Vec<(String, String)>,
}

impl PolicyOpts {
    fn take(&mut self, o: &mut Opts) -> R<()> {
        if let Some(v) = o.take("SPLIT_POLICY") {
            self.class = Some(str_of(&v, "SPLIT_POLICY")?);
        }
        for map in ["CONFIGURATION", "METADATA"] {
            let Some(v) = o.take(map) else { continue };
            let mut h = Opts::from(&v)?;
            if let Some(c) = h.take("SPLIT_POLICY") {
                self.class = Some(str_of(&c, "SPLIT_POLICY")?);
            }
            for key in [
                PREFIX_LENGTH_KEY,
                PREFIX_LENGTH_KEY_DEPRECATED,
                DELIMITER_KEY,
            ] {
                if let Some(x) = h.take(key) {
                    let s = match x {
                        Value::Int(n) => n.to_string(),
                        other => str_of(&other, key)?,
                    };
                    self.config.push((key.to_string(), s));
                }
            }
            if let Some((k, _)) = h.0.first() {
                return err(format!(
                    "{map} key {k} is not supported by cellbase (only SPLIT_POLICY, \
                     {PREFIX_LENGTH_KEY} and {DELIMITER_KEY})"
                ));
            }
        }
        Ok(())
    }

    /// The policy these options name, the settings they do not give taken from `current`
    /// (alter); `None` when they name nothing.
    fn resolve(&self, current: &RegionSplitPolicy) -> R<Option<RegionSplitPolicy>> {
        if self.class.is_none() && self.config.is_empty() {
            return Ok(None);
        }
        let class = self.class.clone().unwrap_or_else(|| current.class_name());
        let kept = current.configuration();
        let lookup = |k: &str| {
            self.config
                .iter()
                .rev()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
                .or_else(|| {
                    kept.as_ref()
                        .filter(|(key, _)| *key == k)
                        .map(|(_, v)| v.clone())
                })
        };
        RegionSplitPolicy::from_hbase(&class, lookup)
            .map(Some)
            .map_err(|e| CmdError(engine_msg(&e)))
    }
}

impl Session {
    pub(super) fn create(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 1, usize::MAX)?;
        let name = str_of(&args[0], "table name")?;
        let mut desc = TableDescriptor::new(&name);
        let mut nfam = 0;
        let mut split_keys: Option<Vec<Vec<u8>>> = None;
        let mut presplit: Option<(SplitAlgorithm, u32)> = None;
        let mut warnings = Vec::new();
        let mut policy = PolicyOpts::default();
        let mut flags = TableFlags::of(&TableDescriptor::new("t"));
        for a in &args[1..] {
            match a {
                Value::Str(f) => {
                    let f = FamilyDescriptor::new(f);
                    f.validate().map_err(|e| CmdError(engine_msg(&e)))?;
                    desc = desc.family(f);
                    nfam += 1;
                }
                Value::Hash(_) => {
                    let mut o = Opts::from(a)?;
                    if let Some(n) = o.take("NAME") {
                        let fam = family_attrs(
                            FamilyDescriptor::new(bytes_of(&n, "NAME")?),
                            &mut o,
                            &mut warnings,
                        )?;
                        desc = desc.family(fam);
                        nfam += 1;
                    }
                    if let Some(v) = o.take("SPLITS") {
                        let Value::Array(items) = v else {
                            return err("SPLITS must be an array of split keys");
                        };
                        let keys = items
                            .iter()
                            .map(|k| {
                                bytes_of(k, "split key")
                                    .map(|b| to_bytes_binary(&String::from_utf8_lossy(&b)))
                            })
                            .collect::<R<Vec<_>>>()?;
                        split_keys = Some(keys);
                    }
                    if let Some(v) = o.take("SPLITS_FILE") {
                        let path = str_of(&v, "SPLITS_FILE")?;
                        let text = std::fs::read_to_string(&path).map_err(|e| {
                            CmdError(format!("Unable to read splits file {path}: {e}"))
                        })?;
                        // As HBase: `File.foreach { |line| line.chomp }`, no other trimming.
                        split_keys = Some(text.lines().map(to_bytes_binary).collect());
                    }
                    if o.has("NUMREGIONS") || o.has("SPLITALGO") {
                        let Some(n) = o.take("NUMREGIONS") else {
                            return err("Number of regions must be specified");
                        };
                        let Some(alg) = o.take("SPLITALGO") else {
                            return err("Split algorithm must be specified");
                        };
                        let n = int_of(&n, "NUMREGIONS")?;
                        if n <= 1 {
                            return err("Number of regions must be greater than 1");
                        }
                        let n = u32::try_from(n)
                            .map_err(|_| CmdError(format!("NUMREGIONS out of range: {n}")))?;
                        let alg = SplitAlgorithm::from_name(&str_of(&alg, "SPLITALGO")?)
                            .map_err(|e| CmdError(engine_msg(&e)))?;
                        // Compute now so a bad count fails before anything is created.
                        cellbase::rowkey::split_keys_checked(alg, n)
                            .map_err(|e| CmdError(engine_msg(&e)))?;
                        presplit = Some((alg, n));
                    }
                    if let Some(v) = o.take("MAX_FILESIZE") {
                        desc = desc.max_region_size(table_size(&v, "MAX_FILESIZE")?);
                    }
                    if let Some(v) = o.take("MEMSTORE_FLUSHSIZE") {
                        desc = desc.memstore_flush_size(table_size(&v, "MEMSTORE_FLUSHSIZE")?);
                    }
                    policy.take(&mut o)?;
                    flags.take(&mut o)?;
                    o.finish("create")?;
                }
                other => {
                    return err(format!(
                        "Column family must be a String or a Hash, got {}",
                        other.describe()
                    ));
                }
            }
        }
        if nfam == 0 {
            return err("Table must have at least one column family");
        }
        if split_keys.is_some() && presplit.is_some() {
            return err("Use either SPLITS/SPLITS_FILE or NUMREGIONS/SPLITALGO, not both");
        }
        if let Some(k) = split_keys {
            desc = desc.split_keys(k);
        }
        if let Some((alg, n)) = presplit {
            desc = desc.pre_split(alg, n);
        }
        if let Some(p) = policy.resolve(&RegionSplitPolicy::default())? {
            desc = desc.split_policy(p);
        }
        desc = flags.apply(desc);
        self.db
            .create_table(desc)
            .or_else(|e| self.fail(&name, e))?;
        for w in warnings {
            writeln!(out, "{w}")?;
        }
        writeln!(out, "Created table {name}")?;
        Ok(Some(format!("Hbase::Table - {name}")))
    }

    /// HBase `admin.rb` `alter`: each argument is a family spec (a name, or a hash with NAME
    /// and no METHOD), a family deletion (`'delete' => 'f'`, `METHOD => 'delete'`), an unset of
    /// table attributes (`METHOD => 'table_att_unset'`), or table attributes (a hash without
    /// NAME, optionally `METHOD => 'table_att'`). Every argument is checked, against the schema
    /// as the earlier arguments leave it, before anything changes.
    pub(super) fn alter(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 2, usize::MAX)?;
        let name = str_of(&args[0], "table name")?;
        let current = self.db.describe(&name).or_else(|e| self.fail(&name, e))?;
        // The schema as the arguments so far leave it.
        let mut fams: Vec<FamilyDescriptor> = current.families().to_vec();
        let mut max_size = current.table_max_region_size();
        let mut flush_size = current.table_memstore_flush_size();
        let mut split_policy = current.table_split_policy().clone();
        let mut flags = TableFlags::of(&current);
        let mut changes = Vec::new();
        let mut warnings = Vec::new();
        for a in &args[1..] {
            match a {
                Value::Str(f) => {
                    let f = FamilyDescriptor::new(f);
                    f.validate().map_err(|e| CmdError(engine_msg(&e)))?;
                    upsert(&mut fams, &f);
                    changes.push(Alter::Family(f));
                }
                Value::Hash(_) => {
                    let mut o = Opts::from(a)?;
                    // `'delete' => 'f'` is `{METHOD => 'delete', NAME => 'f'}` (the rest of
                    // that hash is dropped, as HBase rebuilds it).
                    if let Some(d) = o.take("delete") {
                        o = Opts(vec![
                            ("METHOD".into(), Value::Str(b"delete".to_vec())),
                            ("NAME".into(), d),
                        ]);
                    }
                    let method = match o.take("METHOD") {
                        Some(m) => Some(str_of(&m, "METHOD")?),
                        None => None,
                    };
                    match method.as_deref() {
                        None if o.has("NAME") => {
                            let n = o.take("NAME").unwrap_or(Value::Nil);
                            let fname = bytes_of(&n, "NAME")?;
                            let base = fams
                                .iter()
                                .find(|f| f.name == fname)
                                .cloned()
                                .unwrap_or_else(|| FamilyDescriptor::new(&fname));
                            let f = family_attrs(base, &mut o, &mut warnings)?;
                            o.finish("alter")?;
                            upsert(&mut fams, &f);
                            changes.push(Alter::Family(f));
                        }
                        Some("delete") => {
                            let Some(n) = o.take("NAME") else {
                                return err("NAME parameter missing for delete method");
                            };
                            let fname = bytes_of(&n, "NAME")?;
                            o.finish("alter")?;
                            // HBase's removeColumnFamily ignores a family the table lacks.
                            if fams.iter().any(|f| f.name == fname) {
                                fams.retain(|f| f.name != fname);
                                if fams.is_empty() {
                                    // ModifyTableProcedure's check.
                                    return err(format!(
                                        "org.apache.hadoop.hbase.DoNotRetryIOException: Table {name} should have at least one column family."
                                    ));
                                }
                                changes.push(Alter::DeleteFamily(fname));
                            }
                        }
                        Some("table_att_unset") => {
                            let Some(n) = o.take("NAME") else {
                                return err("NAME parameter missing for table_att_unset method");
                            };
                            let keys = match &n {
                                Value::Array(a) => a.clone(),
                                v => vec![v.clone()],
                            };
                            o.finish("alter")?;
                            for k in keys {
                                let k = str_of(&k, "NAME")?;
                                if k == "SPLIT_POLICY" {
                                    split_policy = RegionSplitPolicy::default();
                                    changes.push(Alter::SplitPolicy);
                                    continue;
                                }
                                match flags.unset(&k) {
                                    Some(true) => {
                                        changes.push(Alter::Flags);
                                        continue;
                                    }
                                    Some(false) => {
                                        return err(format!("Could not find attribute: {k}"));
                                    }
                                    None => {}
                                }
                                let slot = match k.as_str() {
                                    "MAX_FILESIZE" => &mut max_size,
                                    "MEMSTORE_FLUSHSIZE" => &mut flush_size,
                                    _ => &mut None,
                                };
                                if slot.take().is_none() {
                                    return err(format!("Could not find attribute: {k}"));
                                }
                            }
                            changes.push(Alter::Sizes);
                        }
                        None | Some("table_att") => {
                            if let Some(v) = o.take("MAX_FILESIZE") {
                                max_size = Some(table_size(&v, "MAX_FILESIZE")?);
                            }
                            if let Some(v) = o.take("MEMSTORE_FLUSHSIZE") {
                                flush_size = Some(table_size(&v, "MEMSTORE_FLUSHSIZE")?);
                            }
                            let mut p = PolicyOpts::default();
                            p.take(&mut o)?;
                            if let Some(p) = p.resolve(&split_policy)? {
                                split_policy = p;
                                changes.push(Alter::SplitPolicy);
                            }
                            if flags.take(&mut o)? {
                                changes.push(Alter::Flags);
                            }
                            if let Some((k, _)) = o.0.first() {
                                return err(format!(
                                    "Altering table attribute {k} is not supported by cellbase (MAX_FILESIZE, MEMSTORE_FLUSHSIZE, SPLIT_POLICY, COMPACTION_ENABLED, DURABILITY, NORMALIZATION_ENABLED, NORMALIZER_TARGET_REGION_COUNT, NORMALIZER_TARGET_REGION_SIZE_MB and CONFIGURATION are)"
                                ));
                            }
                            changes.push(Alter::Sizes);
                        }
                        Some(m) => return err(format!("Unknown method: {m}")),
                    }
                }
                other => {
                    return err(format!(
                        "alter takes family names or hashes, got {}",
                        other.describe()
                    ));
                }
            }
        }
        for w in warnings {
            writeln!(out, "{w}")?;
        }
        writeln!(out, "Updating all regions with the new schema...")?;
        let mut sizes_done = false;
        let mut policy_done = false;
        let mut flags_done = false;
        for c in changes {
            let r = match c {
                Alter::Flags if flags_done => Ok(()),
                Alter::Flags => {
                    flags_done = true;
                    flags.install(&self.db, &name)
                }
                Alter::SplitPolicy if policy_done => Ok(()),
                Alter::SplitPolicy => {
                    policy_done = true;
                    self.db.set_table_split_policy(&name, split_policy.clone())
                }
                Alter::Family(f) => self.db.alter_family(&name, f),
                Alter::DeleteFamily(f) => self.db.delete_family(&name, &f),
                Alter::Sizes if sizes_done => Ok(()),
                Alter::Sizes => {
                    sizes_done = true;
                    self.db
                        .set_table_max_region_size(&name, max_size)
                        .and_then(|()| self.db.set_table_memstore_flush_size(&name, flush_size))
                }
            };
            r.or_else(|e| self.fail(&name, e))?;
        }
        let n = self.db.table(&name).map(|t| t.regions().len()).unwrap_or(1);
        writeln!(out, "{n}/{n} regions updated.")?;
        writeln!(out, "Done.")?;
        Ok(None)
    }

    pub(super) fn describe(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "table name")?;
        let desc = self.db.describe(&name).or_else(|e| self.fail(&name, e))?;
        let enabled = self.db.is_table_enabled(&name).unwrap_or(true);
        let state = if enabled { "ENABLED" } else { "DISABLED" };
        format::one_col(out, &format!("Table {name} is {state}"), self.width)?;
        let mut attrs = Vec::new();
        if let Some(n) = desc.table_max_region_size() {
            attrs.push(format!("MAX_FILESIZE => '{n}'"));
        }
        if let Some(n) = desc.table_memstore_flush_size() {
            attrs.push(format!("MEMSTORE_FLUSHSIZE => '{n}'"));
        }
        let policy = desc.table_split_policy();
        if *policy != RegionSplitPolicy::default() {
            attrs.push(format!("SPLIT_POLICY => '{}'", policy.class_name()));
        }
        attrs.extend(TableFlags::of(&desc).describe());
        if let Some((k, v)) = policy.configuration() {
            attrs.push(format!("CONFIGURATION => {{'{k}' => '{v}'}}"));
        }
        let line2 = if attrs.is_empty() {
            name.clone()
        } else {
            format!("{name}, {{TABLE_ATTRIBUTES => {{{}}}}}", attrs.join(", "))
        };
        format::one_col(out, &line2, self.width)?;
        format::one_col(out, "COLUMN FAMILIES DESCRIPTION", self.width)?;
        for f in desc.families() {
            format::one_col(out, &format::family_line(f), self.width)?;
            writeln!(out)?;
        }
        writeln!(out, "{} row(s)", desc.families().len())?;
        writeln!(out, "Quota is disabled")?;
        Ok(None)
    }

    pub(super) fn list(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 0, 1)?;
        let re = args
            .first()
            .map(|v| full_match_regex(v, "regex"))
            .transpose()?;
        let names: Vec<String> = self
            .db
            .table_names()
            .into_iter()
            .filter(|n| re.as_ref().is_none_or(|r| r.is_match(n)))
            .collect();
        format::one_col(out, "TABLE", self.width)?;
        for n in &names {
            format::one_col(out, n, self.width)?;
        }
        writeln!(out, "{} row(s)", names.len())?;
        Ok(echo_names(&names))
    }

    pub(super) fn exists(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "table name")?;
        let yes = self.db.describe(&name).is_ok();
        let answer = if yes { "does exist" } else { "does not exist" };
        format::one_col(out, &format!("Table {name} {answer}"), self.width)?;
        Ok(Some(yes.to_string()))
    }

    pub(super) fn set_enabled(&mut self, args: &[Value], enable: bool) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "table name")?;
        let now = self
            .db
            .is_table_enabled(&name)
            .or_else(|e| self.fail(&name, e))?;
        if now != enable {
            let r = if enable {
                self.db.enable_table(&name)
            } else {
                self.db.disable_table(&name)
            };
            r.or_else(|e| self.fail(&name, e))?;
        }
        Ok(None)
    }

    pub(super) fn is_enabled(
        &mut self,
        args: &[Value],
        out: &mut dyn Write,
        want: bool,
    ) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "table name")?;
        let enabled = self
            .db
            .is_table_enabled(&name)
            .or_else(|e| self.fail(&name, e))?;
        let answer = enabled == want;
        format::one_col(out, &answer.to_string(), self.width)?;
        Ok(Some(answer.to_string()))
    }

    pub(super) fn drop(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "table name")?;
        if self
            .db
            .is_table_enabled(&name)
            .or_else(|e| self.fail(&name, e))?
        {
            return err(format!("Table {name} is enabled. Disable it first."));
        }
        self.db.drop_table(&name).or_else(|e| self.fail(&name, e))?;
        Ok(None)
    }
}

/// One change of an `alter` command, applied after every argument was checked.
enum Alter {
    /// Add or replace a family.
    Family(FamilyDescriptor),
    /// Delete a family and its data.
    DeleteFamily(Vec<u8>),
    /// Install the final MAX_FILESIZE / MEMSTORE_FLUSHSIZE (set or unset).
    Sizes,
    /// Install the final SPLIT_POLICY.
    SplitPolicy,
    /// Install the final COMPACTION_ENABLED and DURABILITY.
    Flags,
}

fn upsert(fams: &mut Vec<FamilyDescriptor>, f: &FamilyDescriptor) {
    match fams.iter_mut().find(|x| x.name == f.name) {
        Some(x) => *x = f.clone(),
        None => fams.push(f.clone()),
    }
}

/// MAX_FILESIZE / MEMSTORE_FLUSHSIZE: an integer or a numeric string (HBase's
/// `JLong.valueOf`), greater than 0.
fn table_size(v: &Value, what: &str) -> R<u64> {
    let n = match v {
        Value::Str(s) => String::from_utf8_lossy(s)
            .trim()
            .parse::<i64>()
            .map_err(|_| CmdError(format!("{what} must be a number, got {}", v.describe())))?,
        other => int_of(other, what)?,
    };
    u64::try_from(n)
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| CmdError(format!("{what} must be positive, got {n}")))
}
