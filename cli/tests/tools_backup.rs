//! `cellbase backup` / `cellbase restore` (issue 25): a backup opens as a database, restores
//! into a new directory, and an existing target is refused with exit status 1.

use std::process::Command;

fn cellbase(args: &[&std::ffi::OsStr]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cellbase"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn backup_then_restore_round_trips_and_refuses_existing_targets() {
    let dir = tempfile::tempdir().unwrap();
    let (db, backup, restored) = (
        dir.path().join("db"),
        dir.path().join("backup"),
        dir.path().join("restored"),
    );
    {
        let d = cellbase::Db::open(&db).unwrap();
        let t = d
            .create_table(
                cellbase::TableDescriptor::new("t").family(cellbase::FamilyDescriptor::new("f")),
            )
            .unwrap();
        for i in 0..100 {
            t.put(cellbase::Put::new(format!("r{i:03}")).add("f", "q", "v"))
                .unwrap();
        }
        d.close().unwrap();
    }
    let os = |s: &str| std::ffi::OsString::from(s);
    let (code, err) = cellbase(&[
        &os("backup"),
        &os("--db"),
        db.as_os_str(),
        &os("--to"),
        backup.as_os_str(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("block files linked"), "{err}");
    let (code, err) = cellbase(&[
        &os("backup"),
        &os("--db"),
        db.as_os_str(),
        &os("--to"),
        backup.as_os_str(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("already exists"), "{err}");
    let (code, err) = cellbase(&[
        &os("restore"),
        &os("--from"),
        backup.as_os_str(),
        &os("--db"),
        restored.as_os_str(),
    ]);
    assert_eq!(code, 0, "{err}");
    let d = cellbase::Db::open(&restored).unwrap();
    let n = d
        .table("t")
        .unwrap()
        .scan(cellbase::Scan::new())
        .unwrap()
        .count();
    assert_eq!(n, 100);
    let (code, err) = cellbase(&[
        &os("restore"),
        &os("--from"),
        dir.path().join("nope").as_os_str(),
        &os("--db"),
        dir.path().join("x").as_os_str(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("is not a cellbase database"), "{err}");
}
