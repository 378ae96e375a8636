//! The report: one self-contained HTML file with the heatmaps, the JSON twin, the comparison
//! page; and, where Chromium is installed, a headless screenshot in which the heatmap shows.
use cellbase_cli::lab;
use std::path::{Path, PathBuf};
use std::process::Command;

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/lab")
        .join(name)
}

fn small(name: &str) -> lab::Design {
    let mut d = lab::load(&example(name), Some(2000)).expect("loads");
    d.table.max_region_size = 64 << 10;
    d.table.memstore_flush_size = 16 << 10;
    println!("design {name}: seed {}", d.seed);
    d
}

#[test]
fn report_and_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let r = lab::run_design(&small("hotspot.toml"), None).expect("runs");
    let html_path = lab::write_run(dir.path(), &r).expect("writes");
    let html = std::fs::read_to_string(&html_path).expect("read");
    assert!(html.starts_with("<!DOCTYPE html>"));
    // Self-contained: no scripts, stylesheets or images fetched from anywhere (the only
    // `url(` is the in-page hatch pattern, `url(#unwritten)`).
    for bad in ["<script", "<link", "src="] {
        assert!(!html.contains(bad), "report must not contain {bad}");
    }
    assert_eq!(
        html.matches("url(").count(),
        html.matches("url(#unwritten)").count(),
        "only in-page references"
    );
    // Region start keys label the by-region heatmap; the simulated cluster has its section,
    // per-server heatmaps and the projection; what to try next follows the findings.
    assert!(html.contains("region start key"));
    assert!(html.contains("writes by server heatmap") && html.contains("reads by server heatmap"));
    assert!(html.contains("Projected latency per operation"));
    assert!(html.contains("What to try next"));
    assert!(!r.next_steps.is_empty());
    assert!(
        r.next_steps[0].contains("\"ts\"") && r.next_steps[0].contains("Salt it"),
        "{:?}",
        r.next_steps
    );
    assert!(
        html.matches("<svg").count() >= 6,
        "heatmaps, share chart, split timeline"
    );
    assert!(
        html.contains("writes by region heatmap")
            && html.contains("reads by key-range bucket heatmap")
    );
    // The region table lists every final region.
    for reg in &r.regions {
        assert!(html.contains(&lab::report::esc(&reg.name)));
    }
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("hotspot.json")).expect("json"),
    )
    .expect("valid JSON");
    assert_eq!(json["summary"]["puts"], 2000);
    assert_eq!(
        json["summary"]["splits"].as_u64(),
        Some(r.splits.len() as u64)
    );
    assert!(json["windows"].as_array().is_some_and(|w| !w.is_empty()));
    // The cluster object (docs/LAB.md documents every field).
    let c = &json["cluster"];
    assert_eq!(c["servers"], 5);
    for f in [
        "projected_ops_per_sec",
        "hottest_server_write_share",
        "hottest_server_read_share",
        "time_server_over_2x_writes",
    ] {
        assert!(c[f].as_f64().is_some(), "cluster.{f}: {c}");
    }
    for op in c["operations"].as_array().expect("operations") {
        for f in [
            "projected_p50_ms",
            "projected_p99_ms",
            "servers_touched_mean",
        ] {
            assert!(op[f].as_f64().is_some(), "{f}: {op}");
        }
    }
    assert_eq!(
        json["regions"]
            .as_array()
            .expect("regions")
            .iter()
            .map(|g| g["range_writes"].as_u64().unwrap_or(0))
            .sum::<u64>(),
        2000
    );
    // Findings quote the measured numbers.
    assert!(r.findings[0].contains(&format!("{:.0}%", r.summary.time_over_half * 100.0)));

    let runs = lab::compare(&[small("hotspot.toml"), small("salted.toml")]).expect("compare");
    let page = lab::write_compare(dir.path(), &runs).expect("writes");
    let html = std::fs::read_to_string(page).expect("read");
    assert!(html.contains("Winner"));
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("compare.json")).expect("json"),
    )
    .expect("valid JSON");
    let winners = json["winners"].as_array().expect("winners");
    let w = winners
        .iter()
        .find(|w| w["metric"] == "Time with one region > 50% of writes")
        .expect("metric present");
    assert_eq!(w["winner"], "salted");
    assert!(
        winners.iter().all(|w| !w["metric"]
            .as_str()
            .unwrap_or("")
            .contains("Single-process")),
        "{winners:?}"
    );
    assert!(json["headline"].as_array().is_some_and(|h| !h.is_empty()));
    // One colour scale for the compared maps, and the page says so.
    assert!(html.contains("Shared scales"));
    assert!(html.contains("Projected on the simulated cluster"));
}

fn chromium() -> Option<PathBuf> {
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "headless_shell",
    ]
    .iter()
    .find_map(|n| {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("command -v {n}"))
            .output()
            .ok()?;
        let p = String::from_utf8_lossy(&out.stdout).trim().to_string();
        (out.status.success() && !p.is_empty()).then(|| PathBuf::from(p))
    })
}

/// Pixels of `png` close to the heat scale's hottest colours (orange to dark purple).
fn hot_pixels(png: &Path) -> (u64, u64) {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(png).expect("png"),
    ));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buf).expect("png frame");
    let channels = info.color_type.samples();
    let stops = [(254, 196, 79), (240, 59, 32), (189, 0, 38), (73, 0, 106)];
    let mut hot = 0;
    let total = u64::from(info.width) * u64::from(info.height);
    for px in buf[..info.buffer_size()].chunks(channels) {
        if channels < 3 {
            continue;
        }
        let (r, g, b) = (i32::from(px[0]), i32::from(px[1]), i32::from(px[2]));
        if stops
            .iter()
            .any(|&(sr, sg, sb)| (r - sr).abs() + (g - sg).abs() + (b - sb).abs() < 60)
        {
            hot += 1;
        }
    }
    (hot, total)
}

/// Screenshots `html` into `shot` with headless Chromium.
fn screenshot(browser: &Path, html: &Path, shot: &Path, size: &str) {
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("--window-size={size}"))
        .arg(format!("file://{}", html.display()))
        .output()
        .expect("chromium runs");
    assert!(
        shot.exists(),
        "no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The comparison page renders in headless Chromium with its heatmaps visible. With
/// `CELLBASE_LAB_SCREENSHOT=DIR` the screenshot is kept as `DIR/lab-compare.png` (the one in
/// docs/LAB.md is made so).
#[test]
fn compare_page_shows_in_headless_chromium() {
    let Some(browser) = chromium() else {
        println!(
            "SKIPPED: no Chromium on this machine (apt-get install -y chromium to run this test)"
        );
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let runs = lab::compare(&[small("hotspot.toml"), small("salted.toml")]).expect("compare");
    let page = lab::write_compare(dir.path(), &runs).expect("writes");
    let shot = dir.path().join("compare.png");
    screenshot(&browser, &page, &shot, "1280,2600");
    let (hot, total) = hot_pixels(&shot);
    println!("{hot} heat-coloured pixels of {total}");
    assert!(
        hot * 100 > total,
        "heatmaps not visible: {hot} of {total} pixels"
    );
    if let Some(keep) = std::env::var_os("CELLBASE_LAB_SCREENSHOT") {
        let to = PathBuf::from(keep).join("lab-compare.png");
        std::fs::copy(&shot, &to).expect("copy the screenshot");
        println!("screenshot kept: {}", to.display());
    }
}

#[test]
fn heatmap_shows_in_headless_chromium() {
    let Some(browser) = chromium() else {
        println!(
            "SKIPPED: no Chromium on this machine (apt-get install -y chromium to run this test)"
        );
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let r = lab::run_design(&small("hotspot.toml"), None).expect("runs");
    let html = lab::write_run(dir.path(), &r).expect("writes");
    let shot = dir.path().join("shot.png");
    screenshot(&browser, &html, &shot, "1280,2400");
    let (hot, total) = hot_pixels(&shot);
    println!("{hot} heat-coloured pixels of {total}");
    // The hotspot's heatmaps paint the hot region's band: a visible share of the page.
    assert!(
        hot * 50 > total,
        "heatmap not visible: {hot} of {total} pixels"
    );
    if let Some(keep) = std::env::var_os("CELLBASE_LAB_SCREENSHOT") {
        let to = PathBuf::from(keep).join("lab-run.png");
        std::fs::copy(&shot, &to).expect("copy the screenshot");
        println!("screenshot kept: {}", to.display());
    }
}

/// Issue 24: the keyviz page of a real database's recorded traffic renders, and its heatmaps
/// show. The database is the one `lab run --db` leaves (the engine recorded the hotspot
/// design's traffic). With `CELLBASE_LAB_SCREENSHOT=DIR` the screenshot is kept as
/// `DIR/lab-keyviz.png` (the one in docs/LAB.md is made so).
#[test]
fn keyviz_page_shows_in_headless_chromium() {
    let Some(browser) = chromium() else {
        println!(
            "SKIPPED: no Chromium on this machine (apt-get install -y chromium to run this test)"
        );
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    lab::run_design(&small("hotspot.toml"), Some(&db)).expect("runs");
    let (page, _) = lab::write_keyviz(&db, dir.path(), None).expect("keyviz");
    let shot = dir.path().join("keyviz.png");
    screenshot(&browser, &page, &shot, "1280,900");
    let (hot, total) = hot_pixels(&shot);
    println!("keyviz: {hot} heat-coloured pixels of {total}");
    assert!(
        hot * 20 > total,
        "keyviz heatmap not visible: {hot} of {total} pixels"
    );
    if let Some(keep) = std::env::var_os("CELLBASE_LAB_SCREENSHOT") {
        let to = PathBuf::from(keep).join("lab-keyviz.png");
        std::fs::copy(&shot, &to).expect("copy the screenshot");
        println!("screenshot kept: {}", to.display());
    }
}
