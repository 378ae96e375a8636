//! The README's quick start against an HBase Thrift2 server (`hbase thrift2` on a cluster, or
//! `cellbase thrift2 --db DIR --port 9090`): the same code, only the open call differs.
//!
//! `cargo run --example remote -- thrift2://127.0.0.1:9090` (the default address).
//! `.ci/remote_example.sh` starts `cellbase thrift2` and runs it; tests/readme_quickstart.rs
//! checks that the code below the open call is the README's, line for line.
use cellbase::{Db, Delete, FamilyDescriptor, Get, Put, Scan, TableDescriptor};

fn main() -> cellbase::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "thrift2://127.0.0.1:9090".to_string());
    let db = Db::connect(&addr)?; // the README: Db::temporary()?
    let users = db.create_table(
        TableDescriptor::new("users").family(FamilyDescriptor::new("info").max_versions(3)),
    )?;
    users.put(Put::new("row-1").add_at("info", "name", 1, "ada"))?;
    users.put(Put::new("row-1").add_at("info", "name", 2, "ada lovelace"))?;
    let row = users.get(Get::new("row-1").max_versions(2))?;
    assert_eq!(row.versions("info", "name").len(), 2);
    assert_eq!(row.value("info", "name"), Some(&b"ada lovelace"[..]));

    users.delete(Delete::new("row-1").version("info", "name", 2))?;
    for row in users.scan(Scan::new().prefix("row-"))? {
        println!("{:?}", row?);
    }
    Ok(())
}
