//! The `namespace` group (HBase's `create_namespace`, `drop_namespace`, `alter_namespace`,
//! `describe_namespace`, `list_namespace`, `list_namespace_tables`) over the engine's
//! namespaces, with the HBase shell's output.

use super::args::{Opts, arity, echo_names, full_match_regex, str_of};
use super::{CmdError, Echo, R, Session, err};
use crate::shell::format;
use crate::shell::ruby::Value;
use std::io::Write;

/// A `=> ["a", "b"]` echo.
impl Session {
    fn ns_fail<T>(&self, e: cellbase::Error) -> R<T> {
        err(super::engine_msg(&e))
    }

    /// `create_namespace 'ns'[, {'KEY' => 'VALUE', ...}]`.
    pub(super) fn create_namespace(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 1, 2)?;
        let name = str_of(&args[0], "namespace name")?;
        let mut desc = cellbase::NamespaceDescriptor::new(&name);
        if let Some(h) = args.get(1) {
            for (k, v) in Opts::from(h)?.0 {
                desc = desc.property(&k, &str_of(&v, "property value")?);
            }
        }
        self.db
            .create_namespace_with(desc)
            .or_else(|e| self.ns_fail(e))?;
        Ok(None)
    }

    /// `drop_namespace 'ns'`.
    pub(super) fn drop_namespace(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "namespace name")?;
        self.db.drop_namespace(&name).or_else(|e| self.ns_fail(e))?;
        Ok(None)
    }

    /// `alter_namespace 'ns', {METHOD => 'set', 'KEY' => 'VALUE'}` or
    /// `{METHOD => 'unset', NAME => 'KEY'}`.
    pub(super) fn alter_namespace(&mut self, args: &[Value]) -> R<Echo> {
        arity(args, 2, 2)?;
        let name = str_of(&args[0], "namespace name")?;
        let mut o = Opts::from(&args[1])?;
        let method = match o.take("METHOD") {
            Some(m) => str_of(&m, "METHOD")?,
            None => return err("Method should be specified"),
        };
        // Check everything before changing anything.
        let changes: Vec<(String, Option<String>)> = match method.as_str() {
            "set" => {
                o.0.iter()
                    .map(|(k, v)| Ok((k.clone(), Some(str_of(v, "property value")?))))
                    .collect::<R<_>>()?
            }
            "unset" => {
                let key = o
                    .take("NAME")
                    .ok_or_else(|| CmdError("NAME parameter missing for unset method".into()))?;
                o.finish("alter_namespace")?;
                vec![(str_of(&key, "NAME")?, None)]
            }
            other => return err(format!("Unknown method {other}")),
        };
        self.db
            .describe_namespace(&name)
            .or_else(|e| self.ns_fail(e))?;
        for (k, v) in changes {
            self.db
                .alter_namespace(&name, &k, v.as_deref())
                .or_else(|e| self.ns_fail(e))?;
        }
        Ok(None)
    }

    /// `describe_namespace 'ns'`: HBase's `NamespaceDescriptor.toString`.
    pub(super) fn describe_namespace(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "namespace name")?;
        let d = self
            .db
            .describe_namespace(&name)
            .or_else(|e| self.ns_fail(e))?;
        let mut line = format!("{{NAME => '{}'", d.name());
        for (k, v) in d.properties() {
            line.push_str(&format!(", {k} => '{v}'"));
        }
        line.push('}');
        format::one_col(out, "DESCRIPTION", self.width)?;
        format::one_col(out, &line, self.width)?;
        writeln!(out, "Quota is disabled")?;
        Ok(None)
    }

    /// `list_namespace[ 'regex']`.
    pub(super) fn list_namespace(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 0, 1)?;
        let re = args
            .first()
            .map(|v| full_match_regex(v, "regex"))
            .transpose()?;
        let names: Vec<String> = self
            .db
            .list_namespaces()
            .into_iter()
            .filter(|n| re.as_ref().is_none_or(|r| r.is_match(n)))
            .collect();
        format::one_col(out, "NAMESPACE", self.width)?;
        for n in &names {
            format::one_col(out, n, self.width)?;
        }
        writeln!(out, "{} row(s)", names.len())?;
        Ok(echo_names(&names))
    }

    /// `list_namespace_tables 'ns'`: the tables by their name inside the namespace.
    pub(super) fn list_namespace_tables(&mut self, args: &[Value], out: &mut dyn Write) -> R<Echo> {
        arity(args, 1, 1)?;
        let name = str_of(&args[0], "namespace name")?;
        let names = self
            .db
            .list_namespace_tables(&name)
            .or_else(|e| self.ns_fail(e))?;
        format::one_col(out, "TABLE", self.width)?;
        for n in &names {
            format::one_col(out, n, self.width)?;
        }
        writeln!(out, "{} row(s)", names.len())?;
        Ok(echo_names(&names))
    }
}
