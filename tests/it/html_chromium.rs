//! The HTML report in a real browser: headless Chromium loads it with networking disabled,
//! the page's own Content-Security-Policy turns any external reference into a logged
//! violation, and a screenshot is left under `target/test-artifacts/` for people to look at.

use crate::sample;
use crate::support;
use crate::tools;

use std::path::{Path, PathBuf};
use std::process::Command;

use crossverify::render::{self, Format, Options};

/// What Chromium said about one page.
pub(crate) struct Load {
    pub(crate) dom: String,
    pub(crate) log: String,
}

pub(crate) fn load(chromium: &Path, page: &Path, screenshot: Option<&Path>) -> Load {
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
pub(crate) fn load_failures(log: &str) -> Vec<&str> {
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
    let out = support::crossverify()
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
    assert!(dom.contains("Audit outcome") && dom.contains("1 blocked"), "the audit outcome beside the verdict");
    assert!(dom.contains("id=\"view-conformance\""));
    assert!(dom.contains("<svg class=\"chart\""), "charts drawn");
    let probe = dir.join("demo.probe.html");
    std::fs::write(&probe, with_overflow_probe(&std::fs::read_to_string(&page).expect("page"))).expect("probe page");
    let (width, view, wide) = overflow_at_1280(&chromium, &probe);
    assert!(width <= view && wide.is_empty(), "demo at 1,280 px: {width} px in {view} px, sideways: {wide:?}");
    let size = std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0);
    assert!(size > 10_000, "screenshot {} is missing or empty", png.display());
}

/// A paired schema-2 ledger of `cycles` cycles (every fourth BLOCKED, then re-audited), minted
/// by the fixture crate. Minting 1,000 cycles takes about two minutes in a debug build, so the
/// ledger is kept under `target/test-data/`, named by the shape and a digest of the minter's
/// sources: a change to the minter mints afresh.
fn synthetic_ledger(cycles: usize) -> PathBuf {
    use crossverify_fixtures::fixture::synthetic::{Options, Sizes};
    use crossverify_fixtures::mint;
    let shape = mint::Synthetic {
        science: Options {
            seed: 15,
            commits: cycles,
            files: 4,
            churn_permille: 250,
            sizes: Sizes::Uniform { min: 16, max: 256 },
            files_per_dir: 4,
            ..Options::default()
        },
        blocked_every: 4,
    };
    let mut sources = format!("{shape:?}").into_bytes();
    let mut files = Vec::new();
    let mut stack = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("ledger-fixtures/src")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("minter sources") {
            let p = e.expect("entry").path();
            if p.is_dir() { stack.push(p) } else { files.push(p) }
        }
    }
    files.sort();
    for f in files {
        sources.extend(std::fs::read(&f).expect("read minter source"));
    }
    let key = crossverify::manifest::Digest::of(&sources).hex();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("target/test-data/html-ledger-{cycles}-{}", key.get(..16).unwrap_or(&key)));
    if dir.join("done").exists() {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    let built = mint::synthetic(&dir, &shape).expect("synthetic ledger");
    assert_eq!(built.cycles, cycles);
    std::fs::write(dir.join("done"), format!("{cycles} cycles\n")).expect("marker");
    dir
}

/// The page with a probe that records, after layout, how wide the document is and which
/// scroll boxes scroll sideways. The probe is a script, so this copy drops the page's CSP;
/// the page itself (screenshot, load check) keeps it.
fn with_overflow_probe(html: &str) -> String {
    let probe = "<script>addEventListener('load', () => {\
        const wide = [...document.querySelectorAll('.scroll, main > section, header')]\
          .filter(e => e.scrollWidth > e.clientWidth + 1)\
          .map(e => (e.closest('section, header') || e).id || e.className);\
        const out = document.createElement('pre');\
        out.id = 'overflow-probe';\
        out.textContent = JSON.stringify({page: document.documentElement.scrollWidth, view: innerWidth, wide});\
        document.body.appendChild(out);\
      });</script>";
    let start = html.find("<meta http-equiv=\"Content-Security-Policy\"").expect("the page has a CSP");
    let end = start + html[start..].find('>').expect("meta closes") + 1;
    format!("{}{}", &html[..start], &html[end..]).replace("</body>", &format!("{probe}</body>"))
}

/// What the probe saw at 1,280 px: (document width, viewport width, boxes that scroll sideways).
fn overflow_at_1280(chromium: &Path, page: &Path) -> (u64, u64, Vec<String>) {
    let profile = tempfile::tempdir().expect("profile dir");
    let out = Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,900"])
        .args(["--virtual-time-budget=5000", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom.find("<pre id=\"overflow-probe\">").expect("the probe ran") + "<pre id=\"overflow-probe\">".len();
    let text = &dom[start..start + dom[start..].find("</pre>").expect("probe closes")];
    let v: serde_json::Value = serde_json::from_str(&text.replace("&quot;", "\"")).expect("probe JSON");
    let wide = v["wide"].as_array().expect("list").iter().map(|x| x.as_str().unwrap_or_default().to_owned()).collect();
    (v["page"].as_u64().expect("page width"), v["view"].as_u64().expect("viewport"), wide)
}

/// `crossverify ledger` on minted ledgers of 3 and 1,000 cycles: the page loads nothing, names
/// both verdicts, and at 1,280 px nothing scrolls sideways, the page included. Screenshots
/// are left as `target/test-artifacts/ledger-{3,1000}-cycles.png`.
#[test]
fn ledgers_of_3_and_1000_cycles_fit_1280_pixels() {
    let Some(chromium) = tools::require("chromium", tools::chromium()) else { return };
    let dir = tools::artifacts();
    for cycles in [3, 1000] {
        let ledger = synthetic_ledger(cycles);
        let page = dir.join(format!("ledger-{cycles}-cycles.html"));
        let out = support::crossverify()
            .args(["ledger", "--quiet", "--audit"])
            .arg(ledger.join("audit"))
            .arg("--science")
            .arg(ledger.join("science"))
            .arg("--output")
            .arg(format!("html={}", page.display()))
            .args(["--format", "json"])
            .output()
            .expect("run crossverify ledger");
        assert_eq!(out.status.code(), Some(0), "{cycles} cycles: {}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
        let blocked = report["auditOutcome"]["parts"]
            .as_array()
            .and_then(|p| p.iter().find(|p| p["label"] == "blocked"))
            .and_then(|p| p["count"].as_u64());
        assert!(
            blocked.is_some(),
            "{cycles} cycles: the audit outcome counts blocked commits: {}",
            report["auditOutcome"]
        );
        let png = dir.join(format!("ledger-{cycles}-cycles.png"));
        let _ = std::fs::remove_file(&png);
        let loaded = load(&chromium, &page, Some(&png));
        let failures = load_failures(&loaded.log);
        assert!(failures.is_empty(), "{cycles} cycles: the page logged errors:\n{}", failures.join("\n"));
        assert!(loaded.dom.contains("Audit outcome") && loaded.dom.contains("records genuine"), "both verdicts shown");
        let html = std::fs::read_to_string(&page).expect("page");
        let probe = dir.join(format!("ledger-{cycles}-cycles.probe.html"));
        std::fs::write(&probe, with_overflow_probe(&html)).expect("write probe page");
        let (width, view, wide) = overflow_at_1280(&chromium, &probe);
        assert!(width <= view, "{cycles} cycles: the page is {width} px wide in a {view} px window");
        assert!(wide.is_empty(), "{cycles} cycles: these scroll sideways at 1,280 px: {wide:?}");
        let size = std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0);
        assert!(size > 10_000, "screenshot {} is missing or empty", png.display());
    }
}

/// The negative control of the overflow probe: a table cell that cannot wrap is caught.
#[test]
fn a_page_that_scrolls_sideways_is_caught() {
    let Some(chromium) = tools::require("chromium", tools::chromium()) else { return };
    let dir = tools::artifacts();
    let html = String::from_utf8(render::render(&sample::ledger_report(), Format::Html, &Options::default()))
        .expect("utf-8")
        .replace(
            "</main>",
            "<section id=\"too-wide\"><div class=\"scroll\"><table><tr><td style=\"white-space: nowrap\">\
             an unbreakable line far wider than 1,280 pixels an unbreakable line far wider than 1,280 pixels \
             an unbreakable line far wider than 1,280 pixels an unbreakable line far wider than 1,280 pixels\
             </td></tr></table></div></section></main>",
        );
    let probe = dir.join("too-wide.probe.html");
    std::fs::write(&probe, with_overflow_probe(&html)).expect("probe page");
    let (_, _, wide) = overflow_at_1280(&chromium, &probe);
    assert_eq!(wide, ["too-wide"], "the wide table went unnoticed");
}
