//! The README's quick start: create a table, write versioned cells, read them back, delete,
//! flush, compact, reopen.
use cellbase::{Db, Delete, FamilyDescriptor, Get, Put, Scan, TableDescriptor};

fn main() -> cellbase::Result<()> {
    let dir = tempfile::tempdir()?;
    let db = Db::open(dir.path())?;
    let users = db.create_table(
        TableDescriptor::new("users").family(FamilyDescriptor::new("info").max_versions(3)),
    )?;
    users.put(
        Put::new("row-1")
            .add_at("info", "name", 1, "ada")
            .add_at("info", "lang", 1, "en"),
    )?;
    users.put(Put::new("row-1").add_at("info", "name", 2, "ada lovelace"))?;
    users.put(Put::new("row-2").add("info", "name", "grace"))?;

    let row = users.get(Get::new("row-1").family("info").max_versions(2))?;
    for (ts, v) in row.versions("info", "name") {
        println!("row-1 info:name @{ts} = {}", String::from_utf8_lossy(v));
    }

    users.delete(Delete::new("row-1").all_versions("info", "lang"))?;
    users.flush()?;
    users.major_compact()?;
    for row in users.scan(Scan::new().start_row("row-").stop_row("row-z"))? {
        let row = row?;
        let name = String::from_utf8_lossy(row.value("info", "name").unwrap_or_default());
        println!(
            "{} -> {name} ({} cells)",
            String::from_utf8_lossy(row.row()),
            row.cells().len()
        );
    }
    db.close()?;

    let db = Db::open(dir.path())?; // reopen: everything is still there
    println!("tables after reopen: {:?}", db.table_names());
    println!("regions: {:?}", db.table("users")?.regions());
    Ok(())
}
