//! Security of the embedding [issue 5, item 8]: one owner per directory (lock file, in-process
//! and across processes), names that cannot escape the data directory, owner-only permissions,
//! and `unsafe` confined to the one documented memory map.

use cellbase::{Db, DbOptions, Error, FamilyDescriptor, Put, TableDescriptor};
use std::path::{Path, PathBuf};
use std::process::Command;

const CHILD_ENV: &str = "CELLBASE_SECURITY_CHILD_DIR";

fn opts() -> DbOptions {
    DbOptions::default().background_threads(0)
}

/// A second `Db` on the same directory in the same process is refused with `Error::Locked`
/// naming the directory; once the first is closed, opening works.
#[test]
fn second_db_in_process_is_locked_out() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(dir.path(), opts()).unwrap();
    match Db::open_with(dir.path(), opts()) {
        Err(Error::Locked(p)) => assert_eq!(p, dir.path()),
        other => panic!("expected Locked, got {:?}", other.map(|_| ())),
    }
    let msg = Error::Locked(dir.path().to_path_buf()).to_string();
    assert!(msg.contains(&dir.path().display().to_string()), "{msg}");
    db.close().unwrap();
    Db::open_with(dir.path(), opts()).unwrap();
}

/// A second process opening a directory this process holds gets `Error::Locked` (the child
/// re-runs this test binary and reports what `Db::open` returned).
#[test]
fn second_process_is_locked_out() {
    if let Ok(dir) = std::env::var(CHILD_ENV) {
        match Db::open_with(&dir, opts()) {
            Err(Error::Locked(_)) => println!("CHILD-RESULT locked"),
            Err(e) => println!("CHILD-RESULT error {e}"),
            Ok(_) => println!("CHILD-RESULT opened"),
        }
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(dir.path(), opts()).unwrap();
    let run_child = || {
        let out = Command::new(std::env::current_exe().unwrap())
            .args(["second_process_is_locked_out", "--exact", "--nocapture"])
            .env(CHILD_ENV, dir.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        stdout
            .lines()
            .find_map(|l| l.strip_prefix("CHILD-RESULT ").map(str::to_string))
            .unwrap_or_else(|| panic!("child printed no result: {stdout}"))
    };
    assert_eq!(run_child(), "locked");
    db.close().unwrap();
    assert_eq!(run_child(), "opened");
}

/// Table and family names that could name a path (`/`, `\`, `..`, NUL, control characters,
/// leading dots) are refused; files are named by number, so even accepted names never reach
/// the filesystem: everything the database creates stays inside its directory.
#[test]
fn names_cannot_escape_the_data_directory() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("db");
    let db = Db::open_with(&dir, opts()).unwrap();
    for bad in [
        "../evil", "..", ".", "a/b", "/abs", "a\\b", "nul\0x", "tab\tx", "", "-x", ".hidden",
    ] {
        let e = db
            .create_table(TableDescriptor::new(bad).family(FamilyDescriptor::new("f")))
            .map(|_| ())
            .unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "table {bad:?}: {e}");
    }
    for bad in [
        "../evil", "..", ".", "a/b", "/abs", "a\\b", "nul\0x", "a:b", "", ".f",
    ] {
        let e = db
            .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new(bad)))
            .map(|_| ())
            .unwrap_err();
        assert!(
            matches!(e, Error::InvalidArgument(_)),
            "family {bad:?}: {e}"
        );
    }
    // Accepted names with dots and dashes: all files still land under `dir`.
    let t = db
        .create_table(TableDescriptor::new("a..b-c_d.e").family(FamilyDescriptor::new("f..g-h")))
        .unwrap();
    for i in 0..50 {
        t.put(Put::new(format!("../../row{i}")).add("f..g-h", "../q", "v"))
            .unwrap();
    }
    t.flush().unwrap();
    drop(t);
    db.close().unwrap();
    let outside: Vec<PathBuf> = walk(root.path())
        .into_iter()
        .filter(|p| !p.starts_with(&dir) && p != &dir)
        .collect();
    assert!(
        outside.is_empty(),
        "created outside the database directory: {outside:?}"
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}

/// Every file the database creates is 0600 and every directory 0700 (owner only), whatever
/// the umask.
#[cfg(unix)]
#[test]
fn files_and_directories_are_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("nested").join("db");
    let db = Db::open_with(&dir, opts()).unwrap();
    let t = db
        .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))
        .unwrap();
    for i in 0..100 {
        t.put(Put::new(format!("r{i}")).add("f", "q", "v")).unwrap();
    }
    t.flush().unwrap();
    drop(t);
    db.close().unwrap();
    let mut checked = 0;
    for p in walk(&root.path().join("nested")) {
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        let want = if p.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode, want, "{} has mode {mode:o}", p.display());
        checked += 1;
    }
    assert!(checked >= 6, "{checked} entries checked");
}

/// `unsafe` appears in five places only, each site with a SAFETY comment (or, for an `unsafe
/// fn`, a `# Safety` section): the documented memory map of immutable block files, the
/// `madvise(MADV_DONTNEED)` that unmaps its metadata pages once decoded (measured necessary
/// for peak memory) and the `sync_file_range` that starts their writeback (measured necessary
/// for the longest write, docs/PERFORMANCE.md) in `src/base/io/std_fs.rs`, the memstore's skiplist (`src/storage/memstore/skiplist.rs`: raw node
/// links in an arena, measured necessary for the write path, with its own randomized,
/// concurrent and drop tests), and glibc's `malloc_trim` after flushes and compactions
/// (`src/base/util.rs`, measured necessary for peak memory, tests/free_memory.rs); the crate
/// denies `unsafe_code` everywhere else. Files are never
/// truncated while mapped: only WAL segments (read with `read_all`, never mapped) are
/// truncated, and `io::MemFs` refuses to truncate or re-create a file that is open for
/// reading, so every test on it checks that.
#[test]
fn unsafe_is_confined_to_the_documented_sites() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sites = Vec::new();
    for p in walk(&src) {
        if p.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&p).unwrap();
            for (i, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                if code.contains("unsafe {")
                    || code.contains("unsafe fn")
                    || code.contains("unsafe impl")
                {
                    sites.push((
                        p.strip_prefix(&src).unwrap().to_path_buf(),
                        i + 1,
                        text.clone(),
                    ));
                }
            }
        }
    }
    let in_file = |f: &str| sites.iter().filter(|s| s.0 == Path::new(f)).count();
    assert_eq!(in_file("base/io/std_fs.rs"), 3);
    assert_eq!(in_file("base/util.rs"), 1);
    assert_eq!(
        sites.len(),
        4 + in_file("storage/memstore/skiplist.rs"),
        "unsafe sites: {:?}",
        sites.iter().map(|s| (&s.0, s.1)).collect::<Vec<_>>()
    );
    for (file, line, text) in &sites {
        let before: Vec<&str> = text.lines().take(*line).collect();
        assert!(
            before
                .iter()
                .rev()
                .take(8)
                .any(|l| l.contains("SAFETY:") || l.contains("# Safety")),
            "the unsafe site at {}:{line} has no SAFETY comment",
            file.display()
        );
    }
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    assert!(lib.contains("#![deny(unsafe_code)]"));
}

/// Every file operation of the engine goes through the `io::FileSystem` seam: outside
/// `src/base/io/std_fs.rs` no engine code (test modules aside) names `std::fs`, `File::` or
/// `OpenOptions`, so fault injection and the power-loss simulation see all I/O.
#[test]
fn all_file_io_goes_through_the_seam() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut offenders = Vec::new();
    for p in walk(&src) {
        let rel = p.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.extension().is_none_or(|e| e != "rs")
            || rel == "base/io/std_fs.rs"
            || name == "tests.rs"
            || name.ends_with("_tests.rs")
            || name == "testutil.rs"
        {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let engine = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (i, line) in engine.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if ["std::fs", "File::", "OpenOptions", "read_dir"]
                .iter()
                .any(|w| code.contains(w))
            {
                offenders.push(format!("{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "file I/O outside the seam: {offenders:#?}"
    );
}

/// A relative database path is made durable too: the directory it creates is synced in its
/// parent, the working directory (simulated on the in-memory filesystem).
#[test]
fn relative_database_path_survives_power_loss() {
    use cellbase::testing::io::MemFs;
    use std::sync::Arc;
    let mem = MemFs::new();
    let o = || opts().durability(cellbase::Durability::FsyncWal);
    let db = Db::open_with_fs("rel/db", o(), Arc::new(mem.clone())).unwrap();
    let t = db
        .create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))
        .unwrap();
    t.put(Put::new("r").add("f", "q", "v")).unwrap();
    drop(t);
    drop(db);
    mem.crash();
    let db = Db::open_with_fs("rel/db", o(), Arc::new(mem)).unwrap();
    let t = db.table("t").expect("table survives the power loss");
    assert!(
        t.get(cellbase::Get::new("r"))
            .unwrap()
            .value("f", "q")
            .is_some()
    );
}
