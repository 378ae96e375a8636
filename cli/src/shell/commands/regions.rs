//! `get_splits`, `locate_region` and `append`: commands an HBase designer or operator types
//! daily, in HBase 2.x's output (get_splits.rb, locate_region.rb, append.rb).

use super::args::{Opts, arity, bytes_of, echo_names, split_column, str_of};
use super::{Echo, R, SERVER_NAME, Session, err};
use crate::shell::format;
use crate::shell::ruby::Value;
use cellbase::rowkey::to_string_binary;
use std::io::Write;

impl Session {
    /// `get_splits 't'`: the start keys of every region but the first, after
    /// `Total number of splits = N` (regions).
    pub(super) fn get_splits(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "table name")?;
        self.exists_table(&name)?;
        let t = self.db.table(&name).or_else(|e| self.fail(&name, e))?;
        let splits: Vec<String> = t
            .regions()
            .iter()
            .map(|r| to_string_binary(&r.start_key))
            .filter(|k| !k.is_empty())
            .collect();
        writeln!(out, "Total number of splits = {}", splits.len() + 1)?;
        for s in &splits {
            writeln!(out, "{s}")?;
        }
        Ok(echo_names(&splits))
    }

    /// `locate_region 't', 'row'`: the region holding `row`, with its server.
    pub(super) fn locate_region(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 2, 2)?;
        let name = str_of(&args[0], "table name")?;
        let row = bytes_of(&args[1], "row key")?;
        self.exists_table(&name)?;
        let t = self.db.table(&name).or_else(|e| self.fail(&name, e))?;
        let Some(r) = t.regions().into_iter().find(|r| {
            r.start_key.as_slice() <= row.as_slice()
                && (r.end_key.is_empty() || row.as_slice() < r.end_key.as_slice())
        }) else {
            return err(format!("no region of {name} holds the row"));
        };
        let enc = super::encoded_name(&r);
        let host = SERVER_NAME.split(',').next().unwrap_or("localhost");
        format::two_col(out, "HOST", "REGION", false, self.width)?;
        let text = format!(
            "{{ENCODED => {enc}, NAME => '{}.{enc}.', STARTKEY => '{}', ENDKEY => '{}'}}",
            r.name,
            to_string_binary(&r.start_key),
            to_string_binary(&r.end_key)
        );
        format::two_col(out, &format!("{host}:0"), &text, true, self.width)?;
        writeln!(out, "1 row(s)")?;
        Ok(None)
    }

    /// `append 't', 'r', 'f:q', 'value'`: appends to the cell and prints the new value.
    pub(super) fn append(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 4, 5)?;
        let name = str_of(&args[0], "table name")?;
        let row = bytes_of(&args[1], "row")?;
        let (f, q) = split_column(&bytes_of(&args[2], "column")?);
        let q = q.unwrap_or_default();
        let value = bytes_of(&args[3], "value")?;
        if let Some(v) = args.get(4) {
            Opts::from(v)?.finish("append")?;
        }
        let t = self.table(&name)?;
        let r = t
            .append(cellbase::Append::new(&row).add(&f, &q, &value))
            .or_else(|e| self.fail(&name, e))?;
        if let Some(v) = r.value(&f, &q) {
            writeln!(out, "CURRENT VALUE = {}", to_string_binary(v))?;
        }
        Ok(None)
    }
}
