//! Namespaces (HBase's `NamespaceDescriptor` and the `ns:qualifier` form of `TableName`): the
//! reserved namespaces, name rules, table-name normalization and the descriptor with
//! its properties and byte encoding for the manifest.
//!
//! HBase rules followed here (from `TableName` and `NamespaceDescriptor`):
//!
//! - A table name is `qualifier` or `namespace:qualifier`; without a namespace the table is in
//!   `default`, and `default:t` names the same table as `t`: the name is kept and shown
//!   without the `default:` prefix.
//! - Namespace names are `[a-zA-Z_0-9]+`. cellbase also limits them to
//!   [`MAX_NAMESPACE_LEN`] bytes.
//! - `default` and `hbase` always exist and cannot be dropped; `hbase` holds HBase's system
//!   tables, and cellbase refuses user tables there (HBase lets a superuser create them).

use crate::base::codec::{self, DecodeError, Reader};
use crate::base::error::{Error, Result};
use std::collections::BTreeMap;

/// The namespace of every table named without one (HBase's `default`).
pub const DEFAULT_NAMESPACE: &str = "default";
/// HBase's system namespace: it always exists, cannot be dropped and holds no user tables.
pub const SYSTEM_NAMESPACE: &str = "hbase";
/// The longest namespace name, in bytes (cellbase's limit; HBase has none of its own).
pub const MAX_NAMESPACE_LEN: usize = 128;
/// Separates the namespace from the table qualifier in a table name (HBase's
/// `TableName.NAMESPACE_DELIM`).
pub const NAMESPACE_DELIM: char = ':';

/// True for the namespaces that always exist (`default`, `hbase`).
pub fn is_reserved_namespace(ns: &str) -> bool {
    ns == DEFAULT_NAMESPACE || ns == SYSTEM_NAMESPACE
}

/// Checks a namespace name: 1..=[`MAX_NAMESPACE_LEN`] of `[a-zA-Z_0-9]`.
///
/// # Errors
/// [`Error::InvalidArgument`] with HBase's message for an illegal character.
pub fn validate_namespace_name(ns: &str) -> Result<()> {
    if ns.is_empty() {
        return Err(Error::invalid("Namespace name must not be empty"));
    }
    if let Some((i, c)) = ns
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
    {
        return Err(Error::invalid(format!(
            "Illegal character <{c}> at {i}. Namespaces can only contain 'alphanumeric \
             characters': i.e. [a-zA-Z_0-9]: {ns}"
        )));
    }
    if ns.len() > MAX_NAMESPACE_LEN {
        return Err(Error::invalid(format!(
            "namespace name is {} bytes; the limit is {MAX_NAMESPACE_LEN}",
            ns.len()
        )));
    }
    Ok(())
}

/// A table name without a `default:` prefix: `default:t` and `t` name the same table, and
/// both are kept and shown as `t` (HBase's `TableName.getNameAsString`).
pub fn normalize_table_name(name: &str) -> &str {
    name.strip_prefix(DEFAULT_NAMESPACE)
        .and_then(|rest| rest.strip_prefix(NAMESPACE_DELIM))
        .unwrap_or(name)
}

/// Splits a table name into namespace and qualifier (`t` is in `default`).
pub fn split_table_name(name: &str) -> (&str, &str) {
    match name.split_once(NAMESPACE_DELIM) {
        Some((ns, q)) => (ns, q),
        None => (DEFAULT_NAMESPACE, name),
    }
}

/// A namespace and its properties (HBase's `NamespaceDescriptor`; the shell's
/// `create_namespace 'ns', {'k' => 'v'}` and `alter_namespace`).
///
/// # Examples
///
/// ```
/// use cellbase::NamespaceDescriptor;
/// let ns = NamespaceDescriptor::new("analytics").property("owner", "data-team");
/// assert_eq!(ns.name(), "analytics");
/// assert_eq!(ns.properties().get("owner").map(String::as_str), Some("data-team"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamespaceDescriptor {
    name: String,
    properties: BTreeMap<String, String>,
}

impl NamespaceDescriptor {
    /// A namespace with no properties.
    pub fn new(name: &str) -> Self {
        NamespaceDescriptor {
            name: name.to_string(),
            properties: BTreeMap::new(),
        }
    }
    /// Sets a property (replacing one of the same key).
    pub fn property(mut self, key: &str, value: &str) -> Self {
        self.properties.insert(key.to_string(), value.to_string());
        self
    }
    /// The namespace name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The properties, sorted by key.
    pub fn properties(&self) -> &BTreeMap<String, String> {
        &self.properties
    }
    /// Sets (`Some`) or removes (`None`) a property.
    pub fn set_property(&mut self, key: &str, value: Option<&str>) {
        match value {
            Some(v) => {
                self.properties.insert(key.to_string(), v.to_string());
            }
            None => {
                self.properties.remove(key);
            }
        }
    }

    /// Encodes the descriptor (docs/FORMAT.md, section 4: namespace edits).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        codec::put_bytes(out, self.name.as_bytes());
        codec::put_varint(out, self.properties.len() as u64);
        for (k, v) in &self.properties {
            codec::put_bytes(out, k.as_bytes());
            codec::put_bytes(out, v.as_bytes());
        }
    }

    /// Decodes a descriptor written by [`NamespaceDescriptor::encode_into`].
    ///
    /// # Errors
    /// A decode error for short input or text that is not UTF-8.
    pub fn decode(r: &mut Reader<'_>) -> std::result::Result<Self, DecodeError> {
        let text = |r: &mut Reader<'_>, what: &'static str| {
            let at = r.pos();
            std::str::from_utf8(r.bytes(what)?)
                .map(str::to_string)
                .map_err(|_| DecodeError {
                    what: "namespace text not UTF-8",
                    offset: at,
                })
        };
        let name = text(r, "namespace name")?;
        let n = r.len(r.remaining(), "property count")?;
        let mut properties = BTreeMap::new();
        for _ in 0..n {
            let k = text(r, "property key")?;
            let v = text(r, "property value")?;
            properties.insert(k, v);
        }
        Ok(NamespaceDescriptor { name, properties })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// HBase's `TestNamespace.testNamespaceNames` / `TableName.isLegalNamespaceName`.
    #[test]
    fn namespace_names() {
        for ok in ["ns", "NS_1", "_", "a".repeat(MAX_NAMESPACE_LEN).as_str()] {
            assert!(validate_namespace_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "a-b",
            "a.b",
            "a:b",
            "a b",
            "é",
            &"a".repeat(MAX_NAMESPACE_LEN + 1),
        ] {
            assert!(validate_namespace_name(bad).is_err(), "{bad:?}");
        }
    }

    /// `default:t` is `t`; other namespaces are kept.
    #[test]
    fn normalization_and_split() {
        assert_eq!(normalize_table_name("default:t"), "t");
        assert_eq!(normalize_table_name("t"), "t");
        assert_eq!(normalize_table_name("ns:t"), "ns:t");
        assert_eq!(normalize_table_name("defaultx:t"), "defaultx:t");
        assert_eq!(split_table_name("t"), ("default", "t"));
        assert_eq!(split_table_name("ns:t"), ("ns", "t"));
    }

    #[test]
    fn descriptor_round_trip() {
        let d = NamespaceDescriptor::new("ns")
            .property("a", "1")
            .property("b", "");
        let mut out = Vec::new();
        d.encode_into(&mut out);
        let mut r = Reader::new(&out);
        assert_eq!(NamespaceDescriptor::decode(&mut r).unwrap(), d);
        assert!(r.is_empty());
        for cut in 0..out.len() {
            let mut r = Reader::new(&out[..cut]);
            assert!(NamespaceDescriptor::decode(&mut r).is_err());
        }
    }
}
