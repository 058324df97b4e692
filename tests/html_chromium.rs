//! The HTML report in a real browser: headless Chromium loads it with networking disabled,
//! the page's own Content-Security-Policy turns any external reference into a logged
//! violation, and a screenshot is left under `target/test-artifacts/` for people to look at.

#[path = "support/sample.rs"]
mod sample;
#[path = "support/tools.rs"]
mod tools;

use std::path::Path;
use std::process::Command;

use crossverify::render::{self, Format, Options};

/// What Chromium said about one page.
struct Load {
    dom: String,
    log: String,
}

fn load(chromium: &Path, page: &Path, screenshot: Option<&Path>) -> Load {
    let profile = tempfile::tempdir().expect("profile dir");
    let base = |c: &mut Command| {
        c.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=2000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()));
    };
    let url = format!("file://{}", page.display());
    let mut dump = Command::new(chromium);
    base(&mut dump);
    let out = dump.arg("--dump-dom").arg(&url).output().expect("run chromium");
    assert!(out.status.success(), "chromium --dump-dom failed: {}", String::from_utf8_lossy(&out.stderr));
    let mut log = String::from_utf8_lossy(&out.stderr).into_owned();
    if let Some(png) = screenshot {
        let mut shot = Command::new(chromium);
        base(&mut shot);
        let out = shot
            .arg("--window-size=1280,5000")
            .arg(format!("--screenshot={}", png.display()))
            .arg(&url)
            .output()
            .expect("run chromium");
        assert!(out.status.success(), "chromium --screenshot failed: {}", String::from_utf8_lossy(&out.stderr));
        log.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    Load { dom: String::from_utf8_lossy(&out.stdout).into_owned(), log }
}

/// Lines of Chromium's log that mean something on the page did not load or was blocked.
fn load_failures(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| {
            l.contains("Content Security Policy")
                || l.contains("Refused to")
                || l.contains("Failed to load")
                || l.contains("net::ERR_")
                // The page runs no script, so any console line is the browser complaining.
                || l.contains(":CONSOLE")
        })
        .collect()
}

#[test]
fn the_sample_ledger_report_renders_offline_and_loads_nothing() {
    let Some(chromium) = tools::require("chromium", tools::chromium()) else { return };
    let dir = tools::artifacts();
    let page = dir.join("ledger-sample.html");
    let html = render::render(&sample::ledger_report(), Format::Html, &Options::default());
    std::fs::write(&page, &html).expect("write page");
    let png = dir.join("ledger-sample.png");
    let _ = std::fs::remove_file(&png);
    let loaded = load(&chromium, &page, Some(&png));
    let failures = load_failures(&loaded.log);
    assert!(failures.is_empty(), "the page tried to load something or logged errors:\n{}", failures.join("\n"));
    // The DOM Chromium built holds the verdict, the matrix and the drawn figures.
    let dom = &loaded.dom;
    assert!(dom.contains("INCONCLUSIVE"), "verdict missing from the DOM");
    assert!(dom.contains("id=\"view-conformance\""));
    assert_eq!(dom.matches("<svg class=\"chart\"").count(), 3, "three charts drawn");
    assert!(dom.contains("not measured"));
    let size = std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0);
    assert!(size > 10_000, "screenshot {} is missing or empty", png.display());
}

#[test]
fn an_external_reference_is_caught() {
    // The negative control: the same detector must see a page that reaches out.
    let Some(chromium) = tools::require("chromium", tools::chromium()) else { return };
    let dir = tools::artifacts();
    let mut html =
        String::from_utf8(render::render(&sample::ledger_report(), Format::Html, &Options::default())).expect("utf-8");
    html = html.replace("</main>", "<img src=\"http://127.0.0.1:9/pixel.png\" alt=\"\"></main>");
    let page = dir.join("external-reference.html");
    std::fs::write(&page, html).expect("write page");
    let loaded = load(&chromium, &page, None);
    assert!(!load_failures(&loaded.log).is_empty(), "an external image went unnoticed; log:\n{}", loaded.log);
}

#[test]
fn the_demo_report_renders_offline_and_loads_nothing() {
    let Some(chromium) = tools::require("chromium", tools::chromium()) else { return };
    let dir = tools::artifacts();
    let page = dir.join("demo.html");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_crossverify"))
        .args(["demo", "--quiet", "--output"])
        .arg(format!("html={}", page.display()))
        .args(["--format", "json"])
        .env("NO_COLOR", "1")
        .output()
        .expect("run crossverify demo");
    assert_eq!(out.status.code(), Some(0), "the demo ledger is genuine: {}", String::from_utf8_lossy(&out.stderr));
    let png = dir.join("demo.png");
    let _ = std::fs::remove_file(&png);
    let loaded = load(&chromium, &page, Some(&png));
    let failures = load_failures(&loaded.log);
    assert!(failures.is_empty(), "the page tried to load something or logged errors:\n{}", failures.join("\n"));
    let dom = &loaded.dom;
    assert!(dom.contains("VERIFIED"), "verdict missing from the DOM");
    assert!(dom.contains("id=\"view-conformance\""));
    assert!(dom.contains("<svg class=\"chart\""), "charts drawn");
    let size = std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0);
    assert!(size > 10_000, "screenshot {} is missing or empty", png.display());
}
