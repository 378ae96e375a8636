//! Commands over many tables or a whole schema: `disable_all`, `enable_all`, `drop_all`
//! (HBase's disable_all.rb, enable_all.rb, drop_all.rb: list the matching tables, ask `y/n`,
//! then act on each, counting failures as admin.rb's `*_all` do) and `clone_table_schema`.

use super::args::{arity, bool_of, full_match_regex, str_of};
use super::{Echo, R, Session, engine_msg};
use crate::shell::format;
use crate::shell::ruby::Value;
use std::io::{BufRead, IsTerminal, Write};

/// What a `*_all` command does to each table.
#[derive(Clone, Copy)]
pub(super) enum AllOp {
    Disable,
    Enable,
    Drop,
}

impl AllOp {
    fn verb(self) -> (&'static str, &'static str) {
        match self {
            AllOp::Disable => ("Disable", "disabled"),
            AllOp::Enable => ("Enable", "enabled"),
            AllOp::Drop => ("Drop", "dropped"),
        }
    }
}

impl Session {
    /// The answer to a question: the next line of the input, else (interactive) a line read
    /// from the terminal; no input at all answers no.
    fn answer(&mut self, out: &mut dyn Write) -> R<String> {
        out.flush()?;
        if let Some(line) = self.pending.pop_front() {
            return Ok(String::from_utf8_lossy(&line).trim_end().to_string());
        }
        let stdin = std::io::stdin();
        if stdin.is_terminal() {
            let mut line = String::new();
            stdin.lock().read_line(&mut line)?;
            return Ok(line.trim_end().to_string());
        }
        Ok(String::new())
    }

    pub(super) fn all_tables(&mut self, op: AllOp, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 1, 1)?;
        let pattern = str_of(&args[0], "regex")?;
        let re = full_match_regex(&args[0], "regex")?;
        let list: Vec<String> = self
            .db
            .table_names()
            .into_iter()
            .filter(|t| re.is_match(t))
            .collect();
        for t in &list {
            format::one_col(out, t, self.width)?;
        }
        let (verb, done) = op.verb();
        if list.is_empty() {
            // Ruby prints the regex it built: /^pattern$/ as `(?-mix:^pattern$)`.
            writeln!(out, "No tables matched the regex (?-mix:^{pattern}$)")?;
            return Ok(None);
        }
        writeln!(out, "\n{verb} the above {} tables (y/n)?", list.len())?;
        let answer = self.answer(out)?;
        if !answer.to_ascii_lowercase().starts_with('y') {
            return Ok(None);
        }
        let mut failed = Vec::new();
        for t in &list {
            // HBase's Admin refuses to disable a disabled table, and to enable or drop an
            // enabled one; admin.rb prints the exception and counts the table as failed.
            let r = match (op, self.db.is_table_enabled(t)) {
                (_, Err(e)) => Err(engine_msg(&e)),
                (AllOp::Disable, Ok(false)) => Err(format!(
                    "org.apache.hadoop.hbase.TableNotEnabledException: {t}"
                )),
                (AllOp::Enable | AllOp::Drop, Ok(true)) => Err(format!(
                    "org.apache.hadoop.hbase.TableNotDisabledException: {t}"
                )),
                (AllOp::Disable, Ok(true)) => self.db.disable_table(t).map_err(|e| engine_msg(&e)),
                (AllOp::Enable, Ok(false)) => self.db.enable_table(t).map_err(|e| engine_msg(&e)),
                (AllOp::Drop, Ok(false)) => self.db.drop_table(t).map_err(|e| engine_msg(&e)),
            };
            if let Err(e) = r {
                writeln!(out, "table:{t}, error:{e}")?;
                failed.push(t.clone());
            }
        }
        writeln!(
            out,
            "{} tables successfully {done}",
            list.len() - failed.len()
        )?;
        if !failed.is_empty() {
            writeln!(
                out,
                "{} tables not {done} due to an exception: {}",
                failed.len(),
                failed.join(",")
            )?;
        }
        Ok(None)
    }

    /// `clone_table_schema 't', 'new_t'[, preserve_splits]` (admin.rb, `cloneTableSchema`).
    pub(super) fn clone_table_schema(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 2, 3)?;
        let name = str_of(&args[0], "table name")?;
        let new_name = str_of(&args[1], "new table name")?;
        let preserve = match args.get(2) {
            Some(v) => bool_of(v, "preserve_splits")?,
            None => true,
        };
        self.db
            .clone_table_schema(&name, &new_name, preserve)
            .or_else(|e| self.fail(&name, e))?;
        Ok(None)
    }
}
