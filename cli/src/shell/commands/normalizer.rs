//! The region normalizer's commands (group `tools`): `normalize` with HBase 2.6's table filter
//! (normalize.rb and admin.rb `normalize`: `TABLE_NAME`, `TABLE_NAMES`, `REGEX`, `NAMESPACE`),
//! `normalizer_switch` and `normalizer_enabled`.

use super::args::{Opts, arity, bool_of, full_match_regex, str_of};
use super::{Echo, R, Session, engine_msg, err};
use crate::shell::format;
use crate::shell::ruby::Value;
use std::io::Write;

impl Session {
    /// `normalize` runs the normalizer on every table with `NORMALIZATION_ENABLED`; a hash
    /// limits the tables as HBase's `NormalizeTableFilterParams` does (named tables, else the
    /// namespace's or all tables, then those whose full name the regex matches). Prints and
    /// echoes whether the normalizer ran (false while its switch is off).
    pub(super) fn normalize(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 0, 1)?;
        let tables = match args.first() {
            None => None,
            Some(v) => Some(self.normalize_filter(v)?),
        };
        let ran = match &tables {
            None => self.db.normalize(),
            Some(t) => self.db.normalize_tables(t),
        }
        .map_err(|e| super::CmdError(engine_msg(&e)))?;
        format::one_col(out, &ran.to_string(), self.width)?;
        Ok(Some(ran.to_string()))
    }

    /// The tables a `normalize` hash selects (HMaster's `getTableDescriptors`).
    fn normalize_filter(&self, v: &Value) -> R<Vec<String>> {
        let mut o = Opts::from(v)?;
        let mut named: Vec<String> = Vec::new();
        if let Some(t) = o.take("TABLE_NAME") {
            named.push(str_of(&t, "TABLE_NAME")?);
        }
        if let Some(ts) = o.take("TABLE_NAMES") {
            let Value::Array(items) = ts else {
                return err("TABLE_NAMES must be an array of table names");
            };
            for t in &items {
                named.push(str_of(t, "TABLE_NAMES")?);
            }
        }
        let namespace = o
            .take("NAMESPACE")
            .map(|n| str_of(&n, "NAMESPACE"))
            .transpose()?;
        let regex = o
            .take("REGEX")
            .map(|r| full_match_regex(&r, "REGEX"))
            .transpose()?;
        o.finish("normalize")?;
        let mut tables = if !named.is_empty() {
            named
        } else if let Some(ns) = namespace.filter(|n| !n.is_empty()) {
            self.db
                .list_namespace_tables(&ns)
                .map_err(|e| super::CmdError(engine_msg(&e)))?
        } else {
            self.db.table_names()
        };
        if let Some(re) = regex {
            tables.retain(|t| re.is_match(t));
        }
        Ok(tables)
    }

    /// `normalizer_switch true|false` prints the previous state; `normalizer_enabled` the
    /// current one (normalizer_switch.rb, normalizer_enabled.rb).
    pub(super) fn normalizer_switch(
        &mut self,
        args: &[Value],
        set: bool,
        out: &mut dyn Write,
    ) -> R<Echo> {
        let n = usize::from(set);
        arity(args, n, n)?;
        let state = if set {
            self.db
                .set_normalizer_enabled(bool_of(&args[0], "enableDisable")?)
        } else {
            self.db.is_normalizer_enabled()
        };
        format::one_col(out, &state.to_string(), self.width)?;
        Ok(None)
    }
}
