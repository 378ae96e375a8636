//! The public error type. Every fallible public call returns [`Result`].

use std::fmt;
use std::path::PathBuf;

/// `std::result::Result` with cellbase's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong in cellbase.
#[non_exhaustive]
#[derive(Debug)]
pub enum Error {
    /// An operating-system I/O error.
    Io(std::io::Error),
    /// A file failed a checksum or format check. `detail` names the offset and what failed.
    Corruption {
        /// The damaged file.
        path: PathBuf,
        /// What failed, including the byte offset where known.
        detail: String,
    },
    /// No table with that name.
    TableNotFound(String),
    /// A table with that name already exists.
    TableExists(String),
    /// No namespace with that name (HBase's `NamespaceNotFoundException`): a namespace
    /// operation on a missing namespace, or a table created in one.
    NamespaceNotFound(String),
    /// A namespace with that name already exists (HBase's `NamespaceExistException`),
    /// including the reserved `default` and `hbase`.
    NamespaceExists(String),
    /// A namespace that still holds tables cannot be dropped (HBase's `ConstraintException`
    /// "Only empty namespaces can be removed").
    NamespaceNotEmpty {
        /// The namespace.
        namespace: String,
        /// How many tables it holds.
        tables: usize,
    },
    /// The table has no such column family (family shown as lossy UTF-8).
    NoSuchFamily {
        /// Table name.
        table: String,
        /// Family name, lossy UTF-8.
        family: String,
    },
    /// A request or option was malformed (the message says which and why).
    InvalidArgument(String),
    /// An increment found a stored value that is not 8 bytes wide.
    NotACounter {
        /// Row of the offending cell.
        row: Vec<u8>,
        /// Family of the offending cell.
        family: Vec<u8>,
        /// Qualifier of the offending cell.
        qualifier: Vec<u8>,
    },
    /// The table is disabled.
    TableDisabled(String),
    /// The table is enabled where it must be disabled (HBase's `TableNotDisabledException`,
    /// e.g. restoring a snapshot over it).
    TableNotDisabled(String),
    /// No snapshot has this name (HBase's `SnapshotDoesNotExistException`).
    SnapshotNotFound(String),
    /// A snapshot with this name exists (HBase's `SnapshotExistsException`).
    SnapshotExists(String),
    /// The database was closed.
    Closed,
    /// Another process or `Db` handle holds the directory's lock.
    Locked(PathBuf),
    /// An earlier write-ahead-log write or sync failed; data may be lost, so the database
    /// refuses further writes until it is reopened (fsync is never retried).
    Poisoned(String),
    /// The call cannot be made on this kind of database: a remote database
    /// ([`Db::connect`](crate::Db::connect)) asked for something HBase's Thrift2 service cannot
    /// express (a flush, a snapshot, a filter with no filter-language form, ...). The message
    /// names the call and why (docs/REMOTE.md lists them).
    Unsupported(String),
    /// A remote server reported an error that has no typed variant here (its message, as
    /// sent, after the method's name).
    Remote(String),
    /// The file was written by an unsupported (newer) format version.
    UnsupportedFormat {
        /// The file.
        path: PathBuf,
        /// The version found.
        found: u32,
    },
    /// The directory holds files but is not a cellbase database (no `CURRENT`, nothing of a
    /// database in it): an open refuses to create a database there, and deletes nothing.
    NotADatabase {
        /// The directory.
        path: PathBuf,
        /// What was found in it (a few names).
        found: String,
    },
}

impl Error {
    /// Builds an [`Error::Corruption`].
    pub(crate) fn corruption(path: impl Into<PathBuf>, detail: impl Into<String>) -> Error {
        Error::Corruption {
            path: path.into(),
            detail: detail.into(),
        }
    }

    /// Builds an [`Error::InvalidArgument`].
    pub(crate) fn invalid(msg: impl Into<String>) -> Error {
        Error::InvalidArgument(msg.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(e) => write!(f, "I/O error: {e}"),
            Error::Corruption { path, detail } => {
                write!(f, "corruption in {}: {detail}", path.display())
            }
            Error::TableNotFound(t) => write!(f, "table not found: {t}"),
            Error::TableExists(t) => write!(f, "table already exists: {t}"),
            Error::NamespaceNotFound(ns) => write!(f, "namespace not found: {ns}"),
            Error::NamespaceExists(ns) => write!(f, "namespace already exists: {ns}"),
            // HBase's own message (DeleteNamespaceProcedure).
            Error::NamespaceNotEmpty { namespace, tables } => write!(
                f,
                "Only empty namespaces can be removed. Namespace {namespace} has {tables} tables"
            ),
            Error::NoSuchFamily { table, family } => {
                write!(f, "column family {family} does not exist in table {table}")
            }
            Error::InvalidArgument(m) => write!(f, "invalid argument: {m}"),
            Error::NotACounter {
                row,
                family,
                qualifier,
            } => write!(
                f,
                "cell {}/{}:{} is not a counter (value is not 8 bytes wide)",
                String::from_utf8_lossy(row),
                String::from_utf8_lossy(family),
                String::from_utf8_lossy(qualifier)
            ),
            Error::TableDisabled(t) => write!(f, "table is disabled: {t}"),
            Error::TableNotDisabled(t) => write!(f, "table is not disabled: {t}"),
            Error::SnapshotNotFound(s) => write!(f, "snapshot '{s}' doesn't exist"),
            Error::SnapshotExists(s) => {
                write!(f, "snapshot '{s}' already stored on the filesystem")
            }
            Error::Closed => write!(f, "database is closed"),
            Error::Locked(p) => write!(
                f,
                "database directory {} is locked by another process or handle",
                p.display()
            ),
            Error::Poisoned(m) => write!(
                f,
                "database refuses writes after a failed log write or sync ({m}); reopen it"
            ),
            Error::Unsupported(m) => write!(f, "unsupported: {m}"),
            Error::Remote(m) => write!(f, "remote error: {m}"),
            Error::UnsupportedFormat { path, found } => {
                write!(
                    f,
                    "{} has unsupported format version {found}",
                    path.display()
                )
            }
            Error::NotADatabase { path, found } => write!(
                f,
                "{} is not a cellbase database and not empty (found {found}); refusing to \
                 create a database in it",
                path.display()
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}
