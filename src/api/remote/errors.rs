//! Server errors back to typed [`Error`]s.
//!
//! `cellbase thrift2` sends each engine error's text as `TIOError.message` (or
//! `TIllegalArgument.message`), so the variants that carry one name are recognised by their
//! text and come back as the same variant the embedded engine returns. Any other message (an
//! HBase server's Java exception text, say) is [`Error::Remote`] with the message as sent.

use crate::base::error::Error;

/// The error for `msg` from field `id` of `method`'s reply (1 `TIOError`, 2 `TIllegalArgument`).
pub(crate) fn from_server(method: &str, id: i16, msg: &str) -> Error {
    let after = |p: &str| msg.strip_prefix(p).map(str::to_string);
    if let Some(t) = after("table not found: ") {
        return Error::TableNotFound(t);
    }
    if let Some(t) = after("table already exists: ") {
        return Error::TableExists(t);
    }
    if let Some(t) = after("namespace not found: ") {
        return Error::NamespaceNotFound(t);
    }
    if let Some(t) = after("namespace already exists: ") {
        return Error::NamespaceExists(t);
    }
    if let Some(t) = after("table is disabled: ") {
        return Error::TableDisabled(t);
    }
    if let Some(t) = after("table is not disabled: ") {
        return Error::TableNotDisabled(t);
    }
    if let Some(m) = after("unsupported: ") {
        return Error::Unsupported(m);
    }
    if let Some(e) = namespace_not_empty(msg) {
        return e;
    }
    if let Some(m) = after("invalid argument: ") {
        return Error::InvalidArgument(m);
    }
    if let Some((table, family)) = no_such_family(msg) {
        return Error::NoSuchFamily { table, family };
    }
    if let Some(e) = not_a_counter(msg) {
        return e;
    }
    if id == 2 {
        return Error::InvalidArgument(format!("{method}: {msg}"));
    }
    Error::Remote(format!("{method}: {msg}"))
}

/// [`Error::NamespaceNotEmpty`]'s text: `Only empty namespaces can be removed. Namespace NS
/// has N tables`.
fn namespace_not_empty(msg: &str) -> Option<Error> {
    let rest = msg.strip_prefix("Only empty namespaces can be removed. Namespace ")?;
    let (namespace, n) = rest.rsplit_once(" has ")?;
    let tables = n.strip_suffix(" tables")?.parse().ok()?;
    Some(Error::NamespaceNotEmpty {
        namespace: namespace.to_string(),
        tables,
    })
}

/// [`Error::NoSuchFamily`]'s text: `column family F does not exist in table T`.
fn no_such_family(msg: &str) -> Option<(String, String)> {
    let rest = msg.strip_prefix("column family ")?;
    let (family, table) = rest.rsplit_once(" does not exist in table ")?;
    Some((table.to_string(), family.to_string()))
}

/// [`Error::NotACounter`]'s text (after the Thrift gateways' `Field is not a long: `):
/// `cell R/F:Q is not a counter ...`.
fn not_a_counter(msg: &str) -> Option<Error> {
    let i = msg.find("cell ")?;
    let (cell, _) = msg[i + 5..].split_once(" is not a counter")?;
    let (row, column) = cell.rsplit_once('/')?;
    let (family, qualifier) = column.split_once(':')?;
    Some(Error::NotACounter {
        row: row.as_bytes().to_vec(),
        family: family.as_bytes().to_vec(),
        qualifier: qualifier.as_bytes().to_vec(),
    })
}
