//! Issue 47: every page crossverify writes is readable. Headless Chromium lays each page out and
//! a probe (`contrast.js`) takes, for every element with text of its own, the computed
//! foreground and the effective background (the layers behind it up to the first opaque one,
//! gradient stops and SVG shapes included, alpha composited) and the WCAG 2.x contrast ratio;
//! every one must reach 4.5, or 3 for large text (24 px, or 18.66 px bold). Pages: the
//! certificate of every outcome `verify --certificate` writes one for, from the guide's own
//! command line, and the HTML report of every command run here, for each outcome the inputs
//! give, with a rendered report of every verdict, audit outcome tone and chart colour besides.

use crate::sample;
use crate::support;
use crate::tools;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crossverify::render::{self, Format, Options};
use crossverify::report::{
    AuditOutcome, Chart, ChartKind, CheckResult, Outcome, OutcomePart, Point, Report, Tone, Verdict, View,
};
use serde_json::Value;

const PROBE: &str = include_str!("contrast.js");

/// What the probe measured on one page.
struct Measured {
    checked: usize,
    headline: Value,
    failures: Vec<Value>,
    /// Words of letters a table cell broke across lines.
    broken: Vec<Value>,
    /// (document width, window width) at 1,280 px.
    width: (u64, u64),
}

/// A copy of `page` with the probe: a script, so the copy drops the page's CSP.
fn with_probe(html: &str) -> String {
    let start = html.find("<meta http-equiv=\"Content-Security-Policy\"").expect("the page has a CSP");
    let end = start + html[start..].find('>').expect("meta closes") + 1;
    let body = html.rfind("</body>").expect("the page has a body");
    format!("{}{}<script>{PROBE}</script>{}", &html[..start], &html[end..body], &html[body..])
}

fn measure(chromium: &Path, page: &Path) -> Measured {
    let html = std::fs::read_to_string(page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
    let probe = page.with_extension("contrast.html");
    std::fs::write(&probe, with_probe(&html)).expect("probe page");
    let profile = tempfile::tempdir().expect("profile dir");
    let out = Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,900"])
        .args(["--virtual-time-budget=5000", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}", probe.display()))
        .output()
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&out.stdout);
    let open = "<pre id=\"contrast-probe\">";
    let start = dom.rfind(open).unwrap_or_else(|| panic!("{}: the probe did not run", page.display())) + open.len();
    let text = &dom[start..start + dom[start..].find("</pre>").expect("probe closes")];
    let text = text.replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    let v: Value = serde_json::from_str(&text).expect("probe JSON");
    Measured {
        checked: v["checked"].as_u64().expect("checked") as usize,
        headline: v["headline"].clone(),
        failures: v["failures"].as_array().cloned().unwrap_or_default(),
        broken: v["broken"].as_array().cloned().unwrap_or_default(),
        width: (v["width"]["page"].as_u64().expect("page width"), v["width"]["view"].as_u64().expect("view")),
    }
}

/// `page`'s headline and every text element reach WCAG AA.
fn assert_readable(chromium: &Path, page: &Path, what: &str) -> Measured {
    let m = measure(chromium, page);
    assert!(m.checked > 10, "{what}: only {} text elements found", m.checked);
    assert!(m.headline.is_object(), "{what}: no h1 measured");
    assert_eq!(m.headline["pass"], true, "{what}: the headline is unreadable: {}", m.headline);
    let shown: Vec<String> = m.failures.iter().take(12).map(Value::to_string).collect();
    assert!(
        m.failures.is_empty(),
        "{what}: {} of {} text elements below WCAG AA, e.g.\n{}",
        m.failures.len(),
        m.checked,
        shown.join("\n")
    );
    m
}

/// The negative control: red text on a red box, a muted line on grey, and white SVG text on a
/// yellow bar are each caught; the readable lines beside them are not.
#[test]
fn unreadable_text_is_caught() {
    let Some(chromium) = tools::require("chromium", tools::chromium()) else { return };
    let page = tools::artifacts().join("contrast-control.html");
    let html = "<!DOCTYPE html><html><head>\
        <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
        <style>header{background:#b42318;color:#fff}.failed{color:#b42318}</style></head><body>\
        <header class=\"failed\"><h1>FAILED (exit 1)</h1><p style=\"color:#fff\">readable</p></header>\
        <p style=\"background:linear-gradient(#fff,#767676);color:#595959\">grey on a gradient</p>\
        <p style=\"color:#1d2329\">ink on white</p><p>ink</p><p>ink</p><p>ink</p><p>ink</p><p>ink</p><p>ink</p>\
        <svg viewBox=\"0 0 100 40\" width=\"400\"><rect x=\"0\" y=\"0\" width=\"100\" height=\"40\" fill=\"#f0e442\"></rect>\
        <text x=\"50\" y=\"24\" fill=\"#fff\" font-size=\"4\">white on yellow</text></svg></body></html>";
    std::fs::write(&page, html).expect("page");
    let m = measure(&chromium, &page);
    assert_eq!(m.headline["pass"], false, "{}", m.headline);
    assert_eq!(m.headline["ratio"], 1.0, "{}", m.headline);
    let texts: Vec<&str> = m.failures.iter().filter_map(|f| f["text"].as_str()).collect();
    assert_eq!(texts, ["FAILED (exit 1)", "grey on a gradient", "white on yellow"], "{:?}", m.failures);
}

fn guide() -> String {
    std::fs::read_to_string(support::root().join("docs/guide.md")).expect("guide")
}

/// The guide's first command line starting with `start`, continuation lines joined, as words.
pub(crate) fn guide_line(start: &str) -> Vec<String> {
    let guide = guide();
    let at = guide.find(start).unwrap_or_else(|| panic!("the guide has no line {start:?}"));
    let mut line = String::new();
    for l in guide[at..].lines() {
        let l = l.trim();
        match l.strip_suffix('\\') {
            Some(head) => line.push_str(head),
            None => {
                line.push_str(l);
                break;
            }
        }
        line.push(' ');
    }
    line.split_whitespace().map(str::to_owned).collect()
}

/// The guide's Quick start 2 command line (`crossverify verify submission.zip …`), as words.
pub(crate) fn guide_verify_line() -> Vec<String> {
    let words = guide_line("crossverify verify submission.zip");
    assert!(words.iter().any(|w| w == "--certificate"), "{words:?}");
    words
}

/// The guide's example claims file (Quick start 1, step 3).
fn guide_claims() -> String {
    let guide = guide();
    let at = guide.find("# claims.toml").expect("the guide's claims file");
    guide[at..guide[at..].find("```").map_or(guide.len(), |e| at + e)]
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("\n")
}

/// `words` (`crossverify …`) run in `dir`, with the guide's `--verified-at` kept as written.
pub(crate) fn run_line(words: &[String], extra: &[&str], dir: &Path) -> Output {
    assert_eq!(words[0], "crossverify");
    support::crossverify().current_dir(dir).args(&words[1..]).args(extra).output().expect("runs")
}

/// A journal's working folder: the editor's key and `submission.zip` holding `members`
/// under `paper-1234/`.
pub(crate) fn submission(dir: &Path, members: &[(&str, Vec<u8>)]) {
    let key = crossverify_fixtures::signing::TestKey::named("journal-editor");
    std::fs::write(dir.join("editor_ed25519"), key.private_openssh()).expect("key");
    std::fs::write(dir.join("editor_ed25519.pub"), format!("{}\n", key.public_openssh())).expect("key");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(dir.join("submission.zip")).expect("zip"));
    let opts = zip::write::SimpleFileOptions::default()
        .last_modified_time(zip::DateTime::from_date_and_time(2026, 1, 2, 3, 4, 5).expect("date"));
    for (name, bytes) in members {
        zip.start_file(format!("paper-1234/{name}"), opts).expect("member");
        std::io::Write::write_all(&mut zip, bytes).expect("write");
    }
    zip.finish().expect("zip");
}

fn paired_case() -> PathBuf {
    support::root().join("test-vectors/real/crossaudit/schema2-ledgers/paired-multiround-r2")
}

pub(crate) fn bundle(name: &str) -> (&str, Vec<u8>) {
    (name, std::fs::read(paired_case().join(name)).expect("bundle"))
}

/// One submission for each outcome: (name, members, exit code). The paired ledger verifies; a
/// claims file stating 7 cycles of its 2 fails; its audit bundle without the science
/// repository cannot be verified (CV-N001 cantTell); a release download without `.git` cannot
/// run.
/// A file of a submission: its name under `paper-1234/` and its bytes.
type Member = (&'static str, Vec<u8>);

fn submissions() -> Vec<(&'static str, Vec<Member>, i32)> {
    let claims = ("claims.toml", b"\"/cycles\" = 7\n".to_vec());
    let release = ("science-1.0/README.md", b"a working tree, no .git\n".to_vec());
    vec![
        ("verified", vec![bundle("science.bundle"), bundle("audit.bundle")], 0),
        ("failed", vec![bundle("science.bundle"), bundle("audit.bundle"), claims], 1),
        ("inconclusive", vec![bundle("audit.bundle")], 3),
        ("could-not-run", vec![release], 2),
    ]
}

/// The certificate of every outcome, from the guide's command line, the HTML report of the
/// same run (`--output html=report.html` added) and that of the guide's `attest --replay` of
/// its signed summary. A run that cannot verify (exit 2) writes no
/// certificate, so there is none to read.
#[test]
fn the_certificate_and_report_of_every_outcome_are_readable() {
    let Some(chromium) = tools::require("chromium", tools::chromium()) else { return };
    let line = guide_verify_line();
    let artifacts = tools::artifacts();
    for (outcome, members, exit) in submissions() {
        let tmp = tempfile::tempdir().expect("tempdir");
        submission(tmp.path(), &members);
        let o = run_line(&line, &["--output", "html=report.html"], tmp.path());
        assert_eq!(o.status.code(), Some(exit), "{outcome}: {}", String::from_utf8_lossy(&o.stderr));
        let cert = tmp.path().join("certificate.html");
        if exit == 2 {
            assert!(!cert.exists(), "{outcome}: a run that could not verify wrote a certificate");
            continue;
        }
        let page = artifacts.join(format!("contrast-certificate-{outcome}.html"));
        std::fs::copy(&cert, &page).expect("keep the certificate");
        let m = assert_readable(&chromium, &page, &format!("the {outcome} certificate"));
        let word = outcome.to_uppercase();
        assert!(m.headline["text"].as_str().is_some_and(|t| t.starts_with(&word)), "{outcome}: {}", m.headline);
        assert!(m.broken.is_empty(), "{outcome}: the certificate breaks these words across lines: {:?}", m.broken);
        assert!(m.width.0 <= m.width.1, "{outcome}: the certificate is {} px wide at {} px", m.width.0, m.width.1);
        let report = artifacts.join(format!("contrast-submission-{outcome}.html"));
        std::fs::copy(tmp.path().join("report.html"), &report).expect("keep the report");
        let m = assert_readable(&chromium, &report, &format!("the {outcome} submission report"));
        assert!(m.headline["text"].as_str().is_some_and(|t| t.contains(&word)), "{outcome}: {}", m.headline);
        // Step 3 of the quick start: anyone checks the signed summary and replays it.
        let attest = artifacts.join(format!("contrast-attest-{outcome}.html"));
        let o = run_line(
            &guide_line("crossverify attest certificate.vsa.json"),
            &["--output", &format!("html={}", attest.display()), "--quiet"],
            tmp.path(),
        );
        assert_eq!(o.status.code(), Some(0), "{outcome}: attest: {}", String::from_utf8_lossy(&o.stderr));
        assert_readable(&chromium, &attest, &format!("attest of the {outcome} summary"));
    }
}

/// `crossverify ARGS --output html=PAGE` in `dir`, or the guide's `line` with the same
/// output added; the page is measured and the exit code said.
fn html_run(chromium: &Path, dir: &Path, name: &str, line: &[String]) -> String {
    let page = tools::artifacts().join(format!("contrast-{name}.html"));
    let o = run_line(line, &["--output", &format!("html={}", page.display()), "--quiet"], dir);
    let code = o.status.code().expect("exited");
    assert!(matches!(code, 0 | 1 | 3), "{line:?}: exit {code}: {}", String::from_utf8_lossy(&o.stderr));
    assert_readable(chromium, &page, name);
    format!("{name}: exit {code}")
}

fn words(args: &[&str]) -> Vec<String> {
    std::iter::once("crossverify").chain(args.iter().copied()).map(str::to_owned).collect()
}

/// The HTML report of every command that verifies or informs, on the inputs the suite holds:
/// the guide's `ledger` and `stats` lines (Quick start 1, with its claims file) on the four
/// product ledgers, `receipt --admit`, `manifest`, `demo`, `transcript` on the three real
/// CrossExam transcripts, Proof-or-Stop `bundle`, `floor` and `stats` on its corpus, the
/// guide's `conformance run` line (about 90 s), `checks` and `explain`; `attest` is in the
/// certificate test. Every page's headline and text reach WCAG
/// AA, whatever its outcome; the outcomes met are left in
/// `target/test-artifacts/contrast-commands.txt`, and verified and failed must both be among them.
#[test]
fn the_html_report_of_every_command_is_readable() {
    let Some(chromium) = tools::require("chromium", tools::chromium()) else { return };
    let mut met: Vec<String> = Vec::new();
    let base = support::root().join("test-vectors/real/crossaudit/schema2-ledgers");
    let mut cases: Vec<PathBuf> =
        std::fs::read_dir(&base).expect("ledgers").map(|e| e.expect("entry").path()).collect();
    cases.retain(|p| p.is_dir());
    cases.sort();
    for case in &cases {
        let tmp = tempfile::tempdir().expect("tempdir");
        let paired = case.join("audit.bundle").exists();
        support::clone_bundle(&case.join("science.bundle"), &tmp.path().join("science"));
        let audit = if paired { case.join("audit.bundle") } else { case.join("science.bundle") };
        support::clone_bundle(&audit, &tmp.path().join("audit"));
        let name = case.file_name().and_then(|n| n.to_str()).expect("name");
        std::fs::write(tmp.path().join("claims.toml"), guide_claims()).expect("claims");
        met.push(html_run(
            &chromium,
            tmp.path(),
            &format!("ledger-{name}"),
            &guide_line("crossverify ledger --audit audit"),
        ));
        met.push(html_run(&chromium, tmp.path(), &format!("stats-{name}"), &guide_line("crossverify stats audit")));
        let expected: Value =
            serde_json::from_slice(&std::fs::read(case.join("expected.json")).expect("expected")).expect("JSON");
        let sha = expected["expect_sha"].as_str().expect("sha");
        let receipt = words(&["receipt", "--science", "science", "--audit", "audit", "--expect-sha", sha, "--admit"]);
        met.push(html_run(&chromium, tmp.path(), &format!("receipt-{name}"), &receipt));
        if paired {
            met.push(html_run(&chromium, tmp.path(), "manifest", &words(&["manifest", "science", "HEAD"])));
        }
    }
    let here = support::root();
    met.push(html_run(&chromium, &here, "demo", &words(&["demo"])));
    for t in ["claim-and-concede", "clean-two-seat", "simulated-debate"] {
        let msg = format!("test-vectors/crossexam/real/{t}/_Msg");
        met.push(html_run(&chromium, &here, &format!("transcript-{t}"), &words(&["transcript", &msg])));
    }
    // Proof-or-Stop: a genuine and a stale bundle, a full and a degraded review floor, and the
    // floor's lifecycle figures, on the corpus the proof_or_stop tests use.
    let pos = here.join("test-vectors/proof-or-stop");
    let live = ["--trust-store", "keys/trust-store.json", "--policy", "config/policy.json"];
    let live = [&live[..], &["--command-set", "config/command-set.json", "--scope", "config/scope.json"]].concat();
    for (name, args) in [
        ("bundle-authentic", &["bundle", "bundles/00-authentic.json", "--repo", "repos/golden.git"][..]),
        ("bundle-stale", &["bundle", "bundles/02-stale-material-hash.json", "--repo", "repos/golden.git"]),
        ("floor-full-quorum", &["floor", "floor/full-quorum", "--repo", "repos/golden.git"]),
        ("floor-degraded", &["floor", "floor/degraded-single-host", "--repo", "repos/golden.git"]),
    ] {
        met.push(html_run(&chromium, &pos, name, &words(&[args, &live[..]].concat())));
    }
    met.push(html_run(&chromium, &pos, "stats-floor", &words(&["stats", "floor/full-quorum"])));
    // docs/guide.md, "Scoring verifiers": the suite named, so the run's files stay in a scratch folder.
    let scratch = tempfile::tempdir().expect("tempdir");
    let mut conformance = guide_line("crossverify conformance run --implementation crossverify");
    conformance.extend(["--suite".into(), here.join("test-vectors/conformance").display().to_string()]);
    met.push(html_run(&chromium, scratch.path(), "conformance", &conformance));
    met.push(html_run(&chromium, &here, "checks", &words(&["checks"])));
    met.push(html_run(&chromium, &here, "explain", &words(&["explain", "CV-A303"])));
    std::fs::write(tools::artifacts().join("contrast-commands.txt"), met.join("\n") + "\n").expect("list");
    assert!(met.iter().any(|m| m.ends_with("exit 0")) && met.iter().any(|m| m.ends_with("exit 1")), "{met:?}");
}

/// A report of `verdict` holding every kind of text the page colours: the audit outcome in
/// each tone, a headline, every outcome in the counts, a table with every tone's word, and
/// charts whose categories take the tones' colours and every palette colour.
fn report_of(verdict: Verdict, informational: bool) -> Report {
    let mut report = sample::ledger_report();
    let g001 = crossverify::protocols::find("CV-G001").expect("registered");
    let outcomes: &[Outcome] = match verdict {
        Verdict::Verified => &[Outcome::Passed, Outcome::Inapplicable],
        Verdict::Failed => &[Outcome::Failed, Outcome::CantTell, Outcome::Untested],
        Verdict::Inconclusive => &[Outcome::CantTell, Outcome::Untested],
    };
    report
        .results
        .retain(|r| verdict != Verdict::Verified || matches!(r.outcome, Outcome::Passed | Outcome::Inapplicable));
    for (i, o) in outcomes.iter().enumerate() {
        report.results.push(CheckResult::new(g001, *o, format!("cycle-{i}"), format!("forced {}", o.as_str())));
    }
    report.finish();
    assert_eq!(report.outcome, verdict);
    let part = |label: &str, count: u64, tone: Tone| OutcomePart { label: label.into(), count: Some(count), tone };
    report.audit_outcome = Some(AuditOutcome {
        basis: "latest verdict of each of 4 audited commits".into(),
        parts: vec![
            part("passed audit", 1, Tone::Good),
            part("blocked", 1, Tone::Bad),
            part("escalated", 1, Tone::Unknown),
            part("withdrawn", 1, Tone::Neutral),
        ],
        decision: Some(OutcomePart { label: "not admissible".into(), count: None, tone: Tone::Bad }),
        tone: Tone::Bad,
        decided_by: Vec::new(),
    });
    report.hints.headline = Some(("Admission".into(), "not ready to admit".into()));
    report.hints.informational = informational;
    for (word, tone) in
        [("PASS", Tone::Good), ("BLOCKED", Tone::Bad), ("ESCALATE", Tone::Unknown), ("SKIP", Tone::Neutral)]
    {
        report.hints.tones.insert(word.into(), tone);
    }
    let words = ["PASS", "BLOCKED", "ESCALATE", "SKIP", "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"];
    let point =
        |i: usize, w: &str| Point { label: format!("c{i}"), value: Some((i % 4) as f64), category: Some(w.into()) };
    for kind in [ChartKind::Timeline, ChartKind::Bars] {
        report.views.push(View::Chart(Chart {
            id: format!("every-colour-{kind:?}"),
            title: "Every colour".into(),
            chart: kind,
            y_label: "decision".into(),
            x_label: "cycle".into(),
            category_label: "decision".into(),
            points: words
                .iter()
                .enumerate()
                .map(|(i, w)| point(i, w))
                .chain([Point { label: "gap".into(), value: None, category: None }])
                .collect(),
            note: None,
        }));
    }
    crossverify::protocols::describe(&mut report);
    report
}

/// Every verdict, and the banner of a report that informs, rendered by the library with every
/// colour the page uses: the HTML report of any command draws from these.
#[test]
fn every_verdict_and_tone_of_the_html_report_is_readable() {
    let Some(chromium) = tools::require("chromium", tools::chromium()) else { return };
    let artifacts = tools::artifacts();
    for (verdict, informational) in
        [(Verdict::Verified, false), (Verdict::Failed, false), (Verdict::Inconclusive, false), (Verdict::Failed, true)]
    {
        let report = report_of(verdict, informational);
        let name = format!("contrast-{}{}", verdict.as_str(), if informational { "-informs" } else { "" });
        let page = artifacts.join(format!("{name}.html"));
        std::fs::write(&page, render::render(&report, Format::Html, &Options::default())).expect("page");
        assert_readable(&chromium, &page, &name);
    }
}
