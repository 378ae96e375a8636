//! [`RemoteDb`] and [`RemoteTable`]: the remote side of [`Db`](crate::Db) and
//! [`Table`](crate::Table). Each call is one `THBaseService` call (docs/REMOTE.md has the
//! table); requests are checked here as the embedded engine checks them, so a bad request
//! fails the same way before anything is sent.

use crate::api::db::{BackgroundErrors, Metrics, SnapshotInfo, Traffic};
use crate::api::ops::{Append, CheckAndMutate, Delete, Get, Increment, Mutation, Put, Scan};
use crate::api::remote::client::{Client, Idempotent};
use crate::api::remote::options::RemoteOptions;
use crate::api::remote::scanner::Resume;
use crate::api::remote::{decode, encode};
use crate::api::scanner::Scanner;
use crate::api::table::RegionInfo;
use crate::api::table_admin::CompactionState;
use crate::api::table_handle::{Table, TableImp};
use crate::base::error::{Error, Result};
use crate::engine::recovery::RecoveryReport;
use crate::model::cell::RowResult;
use crate::model::family::FamilyDescriptor;
use crate::model::mutation::check_row;
use crate::model::namespace::NamespaceDescriptor;
use crate::model::schema::TableDescriptor;
use cellbase_thrift::protocol::{T_STRUCT, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A connection to a Thrift2 server.
#[derive(Clone, Debug)]
pub(crate) struct RemoteDb {
    client: Arc<Client>,
    /// Always empty: a remote database has no directory or open of its own.
    path: PathBuf,
    report: Arc<RecoveryReport>,
}

/// A table on a Thrift2 server.
#[derive(Clone, Debug)]
pub(crate) struct RemoteTable {
    client: Arc<Client>,
    name: String,
}

fn unsupported(client: &Client, call: &str) -> Error {
    Error::Unsupported(format!(
        "{call} on a remote database ({}): HBase's Thrift2 service has no such call \
         (docs/REMOTE.md)",
        client.addr()
    ))
}

fn bin(b: impl AsRef<[u8]>) -> Value {
    Value::Binary(b.as_ref().to_vec())
}

fn flag(v: Option<Value>, method: &str) -> Result<bool> {
    match v {
        Some(Value::Bool(b)) => Ok(b),
        _ => Err(Error::Remote(format!("{method}: reply without a boolean"))),
    }
}

fn value(v: Option<Value>, method: &str) -> Result<Value> {
    v.ok_or_else(|| Error::Remote(format!("{method}: reply without a result")))
}

impl RemoteDb {
    /// Connects to `thrift2://HOST:PORT`.
    pub(crate) fn connect(url: &str, opts: RemoteOptions) -> Result<RemoteDb> {
        let addr = url.strip_prefix("thrift2://").ok_or_else(|| {
            Error::invalid(format!(
                "{url:?}: a remote database address is thrift2://HOST:PORT"
            ))
        })?;
        if addr.is_empty() || !addr.contains(':') {
            return Err(Error::invalid(format!(
                "{url:?}: a remote database address is thrift2://HOST:PORT"
            )));
        }
        Ok(RemoteDb {
            client: Arc::new(Client::connect(addr, opts)?),
            path: PathBuf::new(),
            report: Arc::default(),
        })
    }

    pub(crate) fn unsupported(&self, call: &str) -> Error {
        unsupported(&self.client, call)
    }

    fn call(&self, m: &str, args: Vec<(i16, Value)>, idem: Idempotent) -> Result<Option<Value>> {
        self.client.call(m, args, idem)
    }

    fn handle(&self, name: &str) -> Table {
        Table {
            imp: TableImp::Remote(RemoteTable {
                client: self.client.clone(),
                name: name.to_string(),
            }),
        }
    }

    /// Drops the pool's connections.
    pub(crate) fn close(self) -> Result<()> {
        Ok(())
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn recovery_report(&self) -> &RecoveryReport {
        &self.report
    }

    pub(crate) fn metrics(&self) -> Metrics {
        Metrics::default()
    }

    pub(crate) fn background_errors(&self) -> BackgroundErrors {
        BackgroundErrors::default()
    }

    pub(crate) fn traffic(&self) -> Option<Traffic> {
        None
    }

    pub(crate) fn set_split_enabled(&self, _on: bool) -> bool {
        false
    }

    pub(crate) fn is_split_enabled(&self) -> bool {
        false
    }

    pub(crate) fn set_merge_enabled(&self, _on: bool) -> bool {
        false
    }

    pub(crate) fn is_merge_enabled(&self) -> bool {
        false
    }

    pub(crate) fn set_normalizer_enabled(&self, _on: bool) -> bool {
        false
    }

    pub(crate) fn is_normalizer_enabled(&self) -> bool {
        false
    }

    pub(crate) fn list_snapshots(&self) -> Vec<SnapshotInfo> {
        Vec::new()
    }

    pub(crate) fn create_table(&self, desc: TableDescriptor) -> Result<Table> {
        desc.validate()?;
        let splits = desc.initial_split_keys()?;
        let mut args = vec![(1, decode::table(&desc))];
        if !splits.is_empty() {
            args.push((
                2,
                Value::List(
                    cellbase_thrift::protocol::T_STRING,
                    splits.iter().map(bin).collect(),
                ),
            ));
        }
        self.call("createTable", args, Idempotent::No)?;
        Ok(self.handle(crate::model::namespace::normalize_table_name(desc.name())))
    }

    pub(crate) fn table(&self, name: &str) -> Result<Table> {
        let exists = self.call(
            "tableExists",
            vec![(1, decode::table_name(name))],
            Idempotent::Yes,
        )?;
        if !flag(exists, "tableExists")? {
            return Err(Error::TableNotFound(name.to_string()));
        }
        Ok(self.handle(crate::model::namespace::normalize_table_name(name)))
    }

    /// Every table's name; empty (and logged) when the server cannot be reached, as the
    /// embedded call cannot fail.
    pub(crate) fn table_names(&self) -> Vec<String> {
        let r = self
            .call(
                "getTableNamesByPattern",
                vec![(2, Value::Bool(false))],
                Idempotent::Yes,
            )
            .and_then(|v| {
                decode::elems(&value(v, "getTableNamesByPattern")?, "list<TTableName>")?
                    .iter()
                    .map(decode::name_of)
                    .collect::<Result<Vec<_>>>()
            });
        let mut names = r.unwrap_or_else(|e| {
            log::warn!(target: "cellbase::remote", "table_names: {e}");
            Vec::new()
        });
        names.sort();
        names
    }

    pub(crate) fn create_namespace(&self, name: &str) -> Result<()> {
        self.create_namespace_with(NamespaceDescriptor::new(name))
    }

    pub(crate) fn create_namespace_with(&self, desc: NamespaceDescriptor) -> Result<()> {
        self.call(
            "createNamespace",
            vec![(1, namespace(&desc))],
            Idempotent::No,
        )
        .map(drop)
    }

    /// Every namespace's name; empty (and logged) when the server cannot be reached.
    pub(crate) fn list_namespaces(&self) -> Vec<String> {
        let r = self
            .call("listNamespaces", Vec::new(), Idempotent::Yes)
            .and_then(|v| {
                Ok(decode::elems(&value(v, "listNamespaces")?, "list<string>")?
                    .iter()
                    .filter_map(|v| match v {
                        Value::Binary(b) => Some(String::from_utf8_lossy(b).into_owned()),
                        _ => None,
                    })
                    .collect::<Vec<_>>())
            });
        r.unwrap_or_else(|e| {
            log::warn!(target: "cellbase::remote", "list_namespaces: {e}");
            Vec::new()
        })
    }

    pub(crate) fn describe_namespace(&self, name: &str) -> Result<NamespaceDescriptor> {
        let v = self.call(
            "getNamespaceDescriptor",
            vec![(1, bin(name))],
            Idempotent::Yes,
        )?;
        let v = value(v, "getNamespaceDescriptor")?;
        let s = decode::strukt(&v, "TNamespaceDescriptor")?;
        let mut d = NamespaceDescriptor::new(name);
        for (id, f) in s {
            if let (2, Value::Map(_, _, kv)) = (id, f) {
                for (k, v) in kv {
                    if let (Value::Binary(k), Value::Binary(v)) = (k, v) {
                        d = d.property(&String::from_utf8_lossy(k), &String::from_utf8_lossy(v));
                    }
                }
            }
        }
        Ok(d)
    }

    pub(crate) fn list_namespace_tables(&self, name: &str) -> Result<Vec<String>> {
        let v = self.call(
            "getTableNamesByNamespace",
            vec![(1, bin(name))],
            Idempotent::Yes,
        )?;
        // The tables' own names, without the namespace, as the embedded call lists them.
        let mut names = decode::elems(&value(v, "getTableNamesByNamespace")?, "list<TTableName>")?
            .iter()
            .map(|t| {
                let full = decode::name_of(t)?;
                Ok(match full.split_once(':') {
                    Some((_, q)) => q.to_string(),
                    None => full,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        names.sort();
        Ok(names)
    }

    pub(crate) fn alter_namespace(&self, name: &str, key: &str, value: Option<&str>) -> Result<()> {
        let mut d = self.describe_namespace(name)?;
        d.set_property(key, value);
        self.call("modifyNamespace", vec![(1, namespace(&d))], Idempotent::No)
            .map(drop)
    }

    pub(crate) fn drop_namespace(&self, name: &str) -> Result<()> {
        self.call("deleteNamespace", vec![(1, bin(name))], Idempotent::No)
            .map(drop)
    }

    pub(crate) fn describe(&self, name: &str) -> Result<TableDescriptor> {
        let v = self.call(
            "getTableDescriptor",
            vec![(1, decode::table_name(name))],
            Idempotent::Yes,
        )?;
        decode::table_from(&value(v, "getTableDescriptor")?)
    }

    /// `modifyColumnFamily` for a family the table has, `addColumnFamily` otherwise.
    pub(crate) fn alter_family(&self, table: &str, family: FamilyDescriptor) -> Result<()> {
        family.validate()?;
        let has = self.describe(table)?.get_family(&family.name).is_some();
        let method = if has {
            "modifyColumnFamily"
        } else {
            "addColumnFamily"
        };
        self.call(
            method,
            vec![(1, decode::table_name(table)), (2, decode::family(&family))],
            Idempotent::No,
        )
        .map(drop)
    }

    pub(crate) fn delete_family(&self, table: &str, family: &[u8]) -> Result<()> {
        self.call(
            "deleteColumnFamily",
            vec![(1, decode::table_name(table)), (2, bin(family))],
            Idempotent::No,
        )
        .map(drop)
    }

    fn table_call(&self, method: &str, name: &str) -> Result<Option<Value>> {
        let idem = if method.starts_with("is") {
            Idempotent::Yes
        } else {
            Idempotent::No
        };
        self.call(method, vec![(1, decode::table_name(name))], idem)
    }

    pub(crate) fn drop_table(&self, name: &str) -> Result<()> {
        self.table_call("deleteTable", name).map(drop)
    }

    pub(crate) fn disable_table(&self, name: &str) -> Result<()> {
        self.table_call("disableTable", name).map(drop)
    }

    pub(crate) fn enable_table(&self, name: &str) -> Result<()> {
        self.table_call("enableTable", name).map(drop)
    }

    pub(crate) fn is_table_enabled(&self, name: &str) -> Result<bool> {
        flag(self.table_call("isTableEnabled", name)?, "isTableEnabled")
    }
}

/// `TNamespaceDescriptor`.
fn namespace(d: &NamespaceDescriptor) -> Value {
    let mut s = vec![(1, bin(d.name()))];
    if !d.properties().is_empty() {
        let kv = d
            .properties()
            .iter()
            .map(|(k, v)| (bin(k), bin(v)))
            .collect();
        s.push((
            2,
            Value::Map(
                cellbase_thrift::protocol::T_STRING,
                cellbase_thrift::protocol::T_STRING,
                kv,
            ),
        ));
    }
    Value::Struct(s)
}

impl RemoteTable {
    pub(crate) fn unsupported(&self, call: &str) -> Error {
        unsupported(&self.client, call)
    }

    fn call(
        &self,
        m: &str,
        mut args: Vec<(i16, Value)>,
        idem: Idempotent,
    ) -> Result<Option<Value>> {
        args.insert(0, (1, bin(&self.name)));
        self.client.call(m, args, idem)
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    fn check_get(g: &Get) -> Result<()> {
        check_row(&g.row)?;
        if g.max_versions == 0 {
            return Err(Error::invalid("versions must be positive"));
        }
        Ok(())
    }

    pub(crate) fn get(&self, g: Get) -> Result<RowResult> {
        Self::check_get(&g)?;
        let v = self.call("get", vec![(2, encode::get(&g)?)], Idempotent::Yes)?;
        decode::result(&value(v, "get")?)
    }

    pub(crate) fn exists(&self, g: Get) -> Result<bool> {
        Self::check_get(&g)?;
        flag(
            self.call("exists", vec![(2, encode::get(&g)?)], Idempotent::Yes)?,
            "exists",
        )
    }

    pub(crate) fn get_many(&self, gets: Vec<Get>) -> Result<Vec<RowResult>> {
        let tgets = gets
            .iter()
            .map(|g| Self::check_get(g).and_then(|()| encode::get(g)))
            .collect::<Result<Vec<_>>>()?;
        let v = self.call(
            "getMultiple",
            vec![(2, Value::List(T_STRUCT, tgets))],
            Idempotent::Yes,
        )?;
        decode::results(&value(v, "getMultiple")?)
    }

    pub(crate) fn scan(&self, s: Scan) -> Result<Scanner> {
        if s.max_versions == 0 {
            return Err(Error::invalid("versions must be positive"));
        }
        let caching = self.client.options().scanner_caching;
        let limit = s.limit;
        // A reversed prefix scan [SCAN-2] [SCAN-REV-1]: TScan has no prefix, and a reversed
        // scan's bounds are [stop, start] with the start inclusive, so no pair of rows bounds
        // exactly the prefix's rows. The scan starts at the prefix's stop row instead (one row
        // too many at most: that row itself) and ends at the first row below the prefix; the
        // scanner drops what is outside it.
        let (s, keep) = match (&s.prefix, s.reversed) {
            (Some(p), true) => {
                let p = p.clone();
                let mut r = s;
                r.start = std::mem::take(&mut r.stop);
                r.limit = r.limit.map(|l| l.saturating_add(1));
                (r, Some(p))
            }
            _ => (s, None),
        };
        let tscan = encode::scan(&s, caching)?;
        let rows = match s.limit {
            Some(l) => caching.min(u32::try_from(l).unwrap_or(u32::MAX)).max(1),
            None => caching,
        };
        let resume = Resume {
            allowed: s.filter.is_none() && s.batch.is_none(),
            limit: s.limit,
        };
        let inner = crate::api::remote::RemoteScanner::open(
            self.client.clone(),
            &self.name,
            tscan,
            rows,
            keep,
            resume,
        )?;
        Ok(Scanner::remote(inner, limit))
    }

    pub(crate) fn put(&self, p: Put) -> Result<()> {
        check_row(&p.row)?;
        self.call("put", vec![(2, encode::put(&p))], Idempotent::No)
            .map(drop)
    }

    pub(crate) fn put_all(&self, ps: impl IntoIterator<Item = Put>) -> Result<()> {
        let tputs = ps
            .into_iter()
            .map(|p| check_row(&p.row).map(|()| encode::put(&p)))
            .collect::<Result<Vec<_>>>()?;
        if tputs.is_empty() {
            return Ok(());
        }
        self.call(
            "putMultiple",
            vec![(2, Value::List(T_STRUCT, tputs))],
            Idempotent::No,
        )
        .map(drop)
    }

    /// `deleteSingle`, or `mutateRow` when the Delete needs several `TDelete`s (one per
    /// marker kind), so it stays atomic.
    pub(crate) fn delete(&self, d: Delete) -> Result<()> {
        check_row(&d.row)?;
        let mut tdeletes = encode::deletes(&d);
        if tdeletes.len() == 1 {
            let t = tdeletes.remove(0);
            return self
                .call("deleteSingle", vec![(2, t)], Idempotent::No)
                .map(drop);
        }
        self.mutate_row(d.row.clone(), vec![Mutation::Delete(d)])
    }

    pub(crate) fn mutate_row(&self, row: impl AsRef<[u8]>, ms: Vec<Mutation>) -> Result<()> {
        let row = row.as_ref();
        check_row(row)?;
        for m in &ms {
            let r = match m {
                Mutation::Put(p) => &p.row,
                Mutation::Delete(d) => &d.row,
            };
            if r.as_slice() != row {
                return Err(Error::invalid(
                    "every mutation of a mutate_row must be on its row",
                ));
            }
        }
        self.call(
            "mutateRow",
            vec![(2, encode::row_mutations(row, &ms))],
            Idempotent::No,
        )
        .map(drop)
    }

    pub(crate) fn check_and_mutate(&self, c: CheckAndMutate) -> Result<bool> {
        check_row(&c.row)?;
        let args = encode::check_and_mutate(&c)?;
        flag(
            self.call("checkAndMutate", args, Idempotent::No)?,
            "checkAndMutate",
        )
    }

    pub(crate) fn increment(&self, i: Increment) -> Result<RowResult> {
        check_row(&i.row)?;
        let v = self.call(
            "increment",
            vec![(2, encode::increment(&i))],
            Idempotent::No,
        )?;
        decode::result(&value(v, "increment")?)
    }

    pub(crate) fn append(&self, a: Append) -> Result<RowResult> {
        check_row(&a.row)?;
        let v = self.call("append", vec![(2, encode::append(&a))], Idempotent::No)?;
        decode::result(&value(v, "append")?)
    }

    /// The table's regions as the server locates them (no counters); empty (and logged)
    /// when the server cannot be reached, as the embedded call cannot fail.
    pub(crate) fn regions(&self) -> Vec<RegionInfo> {
        let r = self
            .call("getAllRegionLocations", Vec::new(), Idempotent::Yes)
            .and_then(|v| {
                decode::elems(
                    &value(v, "getAllRegionLocations")?,
                    "list<THRegionLocation>",
                )?
                .iter()
                .map(|l| decode::region(&self.name, l))
                .collect::<Result<Vec<_>>>()
            });
        r.unwrap_or_else(|e| {
            log::warn!(target: "cellbase::remote", "regions of {}: {e}", self.name);
            Vec::new()
        })
    }

    /// Thrift2 has no compaction-state call: a remote table reports `NONE`.
    pub(crate) fn compaction_state(&self) -> CompactionState {
        CompactionState::None
    }
}
