//! The `snapshots` group: `snapshot`, `list_snapshots`, `list_table_snapshots`,
//! `clone_snapshot`, `restore_snapshot`, `delete_snapshot` (HBase's shell commands over
//! `Db::snapshot` and friends), with HBase's output.

use super::args::{arity, echo_names, full_match_regex, str_of};
use super::{CmdError, Echo, R, Session, engine_msg, err};
use crate::shell::format;
use crate::shell::ruby::Value;
use std::io::Write;

/// `Time.at(ms / 1000).to_s` as HBase's shell prints a snapshot's creation time.
fn creation_time(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| {
            t.with_timezone(&chrono::Local)
                .format("%Y-%m-%d %H:%M:%S %z")
                .to_string()
        })
        .unwrap_or_else(|| ms.to_string())
}

fn engine(e: cellbase::Error) -> CmdError {
    CmdError(engine_msg(&e))
}

impl Session {
    /// `snapshot 'table', 'name'`.
    pub(super) fn snapshot(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 2, 3)?;
        let table = str_of(&args[0], "table name")?;
        let name = str_of(&args[1], "snapshot name")?;
        if let Some(Value::Hash(h)) = args.get(2)
            && !h.is_empty()
        {
            return err("snapshot: options (SKIP_FLUSH, TTL, MAX_FILESIZE) are not supported");
        }
        self.db.snapshot(&table, &name).map_err(engine)?;
        Ok(None)
    }

    /// `list_snapshots ['regex']` and `list_table_snapshots 'table regex'[, 'snapshot regex']`.
    pub(super) fn list_snapshots(
        &mut self,
        args: &[Value],
        by_table: bool,
        out: &mut dyn Write,
    ) -> R<Echo> {
        let (table_re, snap_re) = if by_table {
            arity(args, 1, 2)?;
            (
                Some(full_match_regex(&args[0], "table regex")?),
                args.get(1)
                    .map(|v| full_match_regex(v, "snapshot regex"))
                    .transpose()?,
            )
        } else {
            arity(args, 0, 1)?;
            (
                None,
                args.first()
                    .map(|v| full_match_regex(v, "regex"))
                    .transpose()?,
            )
        };
        let list: Vec<_> = self
            .db
            .list_snapshots()
            .into_iter()
            .filter(|s| table_re.as_ref().is_none_or(|r| r.is_match(&s.table)))
            .filter(|s| snap_re.as_ref().is_none_or(|r| r.is_match(&s.name)))
            .collect();
        format::two_col(out, "SNAPSHOT", "TABLE + CREATION TIME", false, self.width)?;
        for s in &list {
            let text = format!("{} ({})", s.table, creation_time(s.created_ms));
            format::two_col(out, &s.name, &text, true, self.width)?;
        }
        writeln!(out, "{} row(s)", list.len())?;
        Ok(echo_names(list.iter().map(|s| &s.name)))
    }

    /// `clone_snapshot 'name', 'table'`.
    pub(super) fn clone_snapshot(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 2, 3)?;
        let name = str_of(&args[0], "snapshot name")?;
        let table = str_of(&args[1], "table name")?;
        self.db.clone_snapshot(&name, &table).map_err(engine)?;
        Ok(None)
    }

    /// `restore_snapshot 'name'` (the table must be disabled).
    pub(super) fn restore_snapshot(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 1, 2)?;
        let name = str_of(&args[0], "snapshot name")?;
        self.db.restore_snapshot(&name).map_err(engine)?;
        Ok(None)
    }

    /// `delete_snapshot 'name'`.
    pub(super) fn delete_snapshot(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "snapshot name")?;
        self.db.delete_snapshot(&name).map_err(engine)?;
        Ok(None)
    }
}
