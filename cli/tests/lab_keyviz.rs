//! `cellbase lab keyviz` (issue 24, "Key Visualizer for a real database"): the heatmaps of a
//! real database's recorded traffic (`DbOptions::traffic_recording`, saved in its `TRAFFIC`
//! file), drawn like the lab report's, from the engine's own counts.
use cellbase::{
    Db, DbOptions, FamilyDescriptor, Get, ManualClock, Put, Scan, TableDescriptor, inspect,
};
use cellbase_cli::lab;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A database whose traffic moves through the key space: for 12 intervals of 1 s, 40 writes
/// in the key range of the moment (a time-first key's hot spot) and a few reads everywhere.
/// Returns the writes expected per region start key.
pub fn moving_hot_spot(dir: &Path) -> Vec<(Vec<u8>, u64)> {
    let clock = ManualClock::new(1_700_000_000_000);
    let db = Db::open_with(
        dir,
        DbOptions::default()
            .background_threads(0)
            .clock(clock.clone())
            .traffic_recording(Duration::from_secs(1), 60),
    )
    .expect("opens");
    let splits: Vec<Vec<u8>> = ["c", "f", "i"]
        .iter()
        .map(|k| k.as_bytes().to_vec())
        .collect();
    let t = db
        .create_table(
            TableDescriptor::new("events")
                .family(FamilyDescriptor::new("d"))
                .split_keys(splits),
        )
        .expect("creates");
    let mut writes = vec![0u64; 4];
    for step in 0..12u8 {
        let first = b'a' + step;
        for n in 0..40 {
            t.put(Put::new(format!("{}{n:03}", first as char)).add("d", "v", "x"))
                .expect("put");
        }
        writes[[b'c', b'f', b'i'].iter().filter(|&&s| first >= s).count()] += 40;
        let _ = t.get(Get::new("a000")).expect("get");
        for r in t.scan(Scan::new().start_row("f").limit(3)).expect("scan") {
            r.expect("row");
        }
        clock.advance(Duration::from_secs(1));
    }
    db.close().expect("closes");
    let starts: [&[u8]; 4] = [b"", b"c", b"f", b"i"];
    starts.iter().map(|s| s.to_vec()).zip(writes).collect()
}

#[test]
fn keyviz_draws_a_real_databases_recorded_traffic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db_dir = dir.path().join("db");
    let expected = moving_hot_spot(&db_dir);
    let out = dir.path().join("out");
    let (page, traffic) = lab::write_keyviz(&db_dir, &out, None).expect("keyviz");
    assert_eq!(traffic.intervals.len(), 12);
    let html = std::fs::read_to_string(&page).expect("read");
    assert!(html.starts_with("<!DOCTYPE html>"));
    for bad in ["<script", "<link", "src=", "url("] {
        assert!(!html.contains(bad), "page must not contain {bad}");
    }
    assert!(html.contains("writes by region heatmap of events"));
    assert!(html.contains("reads by region heatmap of events"));
    // Region boundaries label the key axis; one heat cell per region and interval with
    // traffic; the totals table gives each region's writes.
    for k in ["c", "f", "i"] {
        assert!(html.contains(&format!(">{k}</text>")), "axis label {k}");
    }
    let totals = lab::report::keyviz::totals(&traffic, "events");
    assert_eq!(
        totals
            .iter()
            .map(|r| (r.start_key.clone().into_bytes(), r.writes))
            .collect::<Vec<_>>(),
        expected
    );
    // Each interval's writes went to one region: the hot spot moves, as the heatmap shows.
    for iv in &traffic.intervals {
        let hot: Vec<_> = iv.regions.iter().filter(|r| r.writes > 0).collect();
        assert_eq!(hot.len(), 1, "{iv:?}");
        assert_eq!(hot[0].writes, 40);
    }
    // Reads: 1 Get in [, c) per interval; 3 scanned rows in [f, i) once rows exist there
    // (from the 6th interval on).
    let reads: Vec<(String, u64)> = totals
        .iter()
        .map(|r| (r.start_key.clone(), r.reads))
        .collect();
    assert_eq!(reads[0], (String::new(), 12));
    assert_eq!(reads[2], ("f".to_string(), 21));

    // The command: the same page, a summary on stdout.
    let run = Command::new(env!("CARGO_BIN_EXE_cellbase"))
        .args(["lab", "keyviz", "--db"])
        .arg(&db_dir)
        .arg("--out")
        .arg(dir.path().join("out2"))
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout.contains("events: 4 regions, 480 writes, 33 reads"),
        "{stdout}"
    );
    assert!(dir.path().join("out2/keyviz.html").exists());
}

#[test]
fn keyviz_fails_cleanly_without_a_recording() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = Db::open(dir.path()).expect("opens");
    db.close().expect("closes");
    let run = Command::new(env!("CARGO_BIN_EXE_cellbase"))
        .args(["lab", "keyviz", "--db"])
        .arg(dir.path())
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .expect("runs");
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("no recorded traffic"), "{stderr}");
    assert!(!stderr.contains("panicked"));
    // A damaged file: the engine's corruption error, no page.
    std::fs::write(dir.path().join("TRAFFIC"), b"CBTRAFIC garbage").expect("write");
    let e = lab::write_keyviz(dir.path(), &dir.path().join("out"), None).unwrap_err();
    assert!(e.contains("TRAFFIC"), "{e}");
    assert!(!dir.path().join("out/keyviz.html").exists());
}

#[test]
fn a_lab_run_in_a_directory_leaves_its_traffic_for_keyviz() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut d = lab::load(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/lab/hotspot.toml"),
        Some(2000),
    )
    .expect("loads");
    d.table.max_region_size = 64 << 10;
    d.table.memstore_flush_size = 16 << 10;
    println!("design hotspot: seed {}", d.seed);
    let r = lab::run_design(&d, Some(dir.path())).expect("runs");
    let t = inspect::read_traffic(dir.path()).expect("recorded");
    let totals = lab::report::keyviz::totals(&t, "events");
    // The engine's recording agrees with the lab's own counts.
    assert_eq!(totals.iter().map(|x| x.writes).sum::<u64>(), r.summary.puts);
    assert_eq!(totals.iter().map(|x| x.reads).sum::<u64>(), r.summary.reads);
    let (page, _) =
        lab::write_keyviz(dir.path(), &dir.path().join("out"), Some("events")).expect("keyviz");
    assert!(
        std::fs::read_to_string(page)
            .expect("read")
            .contains("heatmap of events")
    );
    assert!(lab::write_keyviz(dir.path(), &dir.path().join("out"), Some("nope")).is_err());
}
