//! Every output format, pinned with insta snapshots on a sample report shaped like the
//! ledger command's and on real `manifest` runs through the binary.

use crate::sample;
use crate::support;

use crossverify::render::{self, Format, Options};
use crossverify::report::{CheckResult, Level, Outcome, Report};
use serde_json::Value;

fn text(report: &Report, format: Format) -> String {
    String::from_utf8(render::render(report, format, &Options::default())).expect("renderers write UTF-8")
}

/// Writes every format of `report` under `target/test-artifacts/<name>.*` for people to open.
fn leave_artifacts(report: &Report, name: &str) {
    let dir = support::root().join("target/test-artifacts");
    std::fs::create_dir_all(&dir).expect("artifacts dir");
    for f in Format::ALL {
        let file = dir.join(format!("{name}.{}.{}", f.name(), f.extension()));
        std::fs::write(&file, render::render(report, *f, &Options::default())).expect("write artifact");
        for (suffix, bytes) in render::companions(report, *f) {
            std::fs::write(dir.join(format!("{name}.{}-{suffix}.{}", f.name(), f.extension())), bytes)
                .expect("write companion");
        }
    }
}

#[test]
fn sample_in_every_text_format() {
    let report = sample::ledger_report();
    leave_artifacts(&report, "ledger-sample");
    insta::assert_snapshot!("sample_table", text(&report, Format::Table));
    insta::assert_snapshot!("sample_jsonl", text(&report, Format::Jsonl));
    insta::assert_snapshot!("sample_markdown", text(&report, Format::Markdown));
    insta::assert_snapshot!("sample_junit", text(&report, Format::Junit));
    insta::assert_snapshot!("sample_sarif", text(&report, Format::Sarif));
    insta::assert_snapshot!("sample_sarif_github", text(&report, Format::SarifGithub));
    insta::assert_snapshot!("sample_csv", text(&report, Format::Csv));
    let companions: Vec<String> = render::companions(&report, Format::Csv)
        .into_iter()
        .map(|(suffix, bytes)| format!("== {suffix}\n{}", String::from_utf8(bytes).expect("utf-8")))
        .collect();
    insta::assert_snapshot!("sample_csv_companions", companions.join("\n"));
}

#[test]
fn jsonl_is_one_record_per_result_then_the_summary() {
    let report = sample::ledger_report();
    let out = text(&report, Format::Jsonl);
    let lines: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).expect("each line is JSON")).collect();
    assert_eq!(lines.len(), report.results.len() + 1);
    for (line, result) in lines.iter().zip(&report.results) {
        assert_eq!(line["record"], "result");
        let mut back = line.clone();
        back.as_object_mut().expect("object").remove("record");
        let parsed: CheckResult = serde_json::from_value(back).expect("a result record is a CheckResult");
        assert_eq!(&parsed, result);
    }
    let last = lines.last().expect("summary line");
    assert_eq!(last["record"], "summary");
    assert_eq!(last["outcome"], "inconclusive");
    assert_eq!(last["exitCode"], 3);
    assert_eq!(last["summary"]["total"], report.results.len());
}

#[test]
fn sarif_levels_and_kinds_follow_the_outcome() {
    let mut report = sample::ledger_report();
    let g001 = crossverify::protocols::find("CV-G001").expect("registered");
    report.results.push(CheckResult::new(g001, Outcome::Failed, "x", "forced failure for the mapping"));
    report.results.push(CheckResult::new(g001, Outcome::Untested, "y", "not run here"));
    report.finish();
    let sarif: Value = serde_json::from_str(&text(&report, Format::Sarif)).expect("SARIF is JSON");
    let run = &sarif["runs"][0];
    assert_eq!(run["invocations"][0]["exitCode"], 1);
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), report.results.len(), "the full profile keeps every result");
    for (s, r) in results.iter().zip(&report.results) {
        let (kind, level) = match (r.outcome, r.level) {
            (Outcome::Passed, _) => ("pass", "none"),
            (Outcome::Failed, Level::Error) => ("fail", "error"),
            (Outcome::Failed, Level::Warning) => ("fail", "warning"),
            (Outcome::Failed, Level::Info) => ("fail", "note"),
            (Outcome::CantTell, _) => ("review", "none"),
            (Outcome::Untested, _) => ("open", "none"),
            (Outcome::Inapplicable, _) => ("notApplicable", "none"),
        };
        assert_eq!((s["kind"].as_str(), s["level"].as_str()), (Some(kind), Some(level)), "{}", r.subject);
        let rule = &run["tool"]["driver"]["rules"][s["ruleIndex"].as_u64().expect("index") as usize];
        assert_eq!(rule["id"], s["ruleId"]);
    }
    let github: Value = serde_json::from_str(&text(&report, Format::SarifGithub)).expect("SARIF is JSON");
    let kept = github["runs"][0]["results"].as_array().expect("results");
    assert!(kept.iter().all(|r| r["kind"] != "pass" && r["kind"] != "notApplicable"));
    assert!(kept.iter().all(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].is_string()));
    let omitted = &github["runs"][0]["properties"]["omitted"];
    assert_eq!(omitted["passed"].as_u64(), Some(report.summary.passed as u64));
}

#[test]
fn a_code_this_build_does_not_know_still_renders() {
    let mut report = Report::new("ledger");
    report.results.push(CheckResult {
        code: "CV-X999".into(),
        level: Level::Error,
        outcome: Outcome::Failed,
        subject: "CYCLE-000001".into(),
        message: "from a newer crossverify".into(),
        location: None,
        evidence: Default::default(),
    });
    report.finish();
    for f in Format::ALL {
        let out = text(&report, *f);
        assert!(out.contains("CV-X999"), "{} lost the unknown code", f.name());
    }
    assert!(text(&report, Format::Sarif).contains("UnregisteredCheck"));
}

#[test]
fn html_is_self_contained() {
    let html = text(&sample::ledger_report(), Format::Html);
    assert!(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"));
    for forbidden in ["<script", "<link", "src=\"http", "url(http", "@import", "<iframe"] {
        assert!(!html.contains(forbidden), "the page must not contain {forbidden}");
    }
    // Every failed or undecided check carries its doc page, collapsed.
    assert!(html.contains("id=\"check-CV-G001\"") && html.contains("id=\"check-CV-G002\""));
    assert_eq!(html.matches("<details class=\"docpage\">").count(), 2);
    assert!(!html.contains("id=\"check-CV-G003\""), "a passing check is not listed as needing attention");
}

#[test]
fn html_places_the_conventional_views_in_reading_order() {
    let html = text(&sample::ledger_report(), Format::Html);
    let at = |needle: &str| html.find(needle).unwrap_or_else(|| panic!("{needle} missing"));
    let order = [
        "class=\"verdict",
        "id=\"view-conformance\"",
        "id=\"view-timeline\"",
        "id=\"view-findings-per-cycle\"",
        "id=\"view-closure-lag\"",
        "id=\"view-findings\"",
        "id=\"view-cycles\"",
        "id=\"attention\"",
        "id=\"checks\"",
    ];
    for pair in order.windows(2) {
        assert!(at(pair[0]) < at(pair[1]), "{} should come before {}", pair[0], pair[1]);
    }
}

// ---- through the binary ------------------------------------------------------------------

fn manifest_run(format: &str) -> (String, i32) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = support::materialize("repo-special", tmp.path()).join("repo");
    let out = support::crossverify()
        .args(["manifest"])
        .arg(&repo)
        .args(["HEAD", "--format", format])
        .output()
        .expect("run crossverify");
    let text = String::from_utf8(out.stdout).expect("utf-8").replace(&repo.display().to_string(), "[REPO]");
    // `tool.commit` changes with every commit of crossverify.
    let text = text.replace(option_env!("CROSSVERIFY_BUILD_COMMIT").unwrap_or("[BUILD]"), "[BUILD]");
    (text, out.status.code().unwrap_or(-1))
}

#[test]
fn manifest_in_every_format() {
    for f in Format::ALL {
        let (out, code) = manifest_run(f.name());
        assert_eq!(code, 0, "{}: the special-entries fixture verifies (warnings only)", f.name());
        if *f == Format::Html {
            assert!(out.contains("VERIFIED") && out.contains("CV-G002"));
            continue;
        }
        insta::assert_snapshot!(format!("manifest_{}", f.name().replace('-', "_")), out);
    }
}

#[test]
fn csv_output_writes_companions_beside_the_primary_file() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(tmp.path().join("out")).expect("mkdir");
    let out = support::crossverify()
        .args(["checks", "--format", "json", "--output"])
        .arg(format!("csv={}", tmp.path().join("out/checks.csv").display()))
        .output()
        .expect("run crossverify");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let primary = std::fs::read_to_string(tmp.path().join("out/checks.csv")).expect("primary written");
    assert!(primary.starts_with("code,name,level,group,summary\n"), "{primary}");
    let results = std::fs::read_to_string(tmp.path().join("out/checks-results.csv")).expect("companion written");
    assert_eq!(results, "code,level,outcome,subject,message,repository,path,commit,evidence\n");
    // Standard output carries only the format asked for.
    assert!(String::from_utf8_lossy(&out.stdout).trim_start().starts_with('{'));
}

#[test]
fn table_output_has_no_colour_when_piped() {
    // NO_COLOR is removed so only the missing terminal keeps colour away.
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = support::materialize("repo-special", tmp.path()).join("repo");
    let out = support::crossverify()
        .env_remove("NO_COLOR")
        .env("TERM", "xterm-256color")
        .arg("manifest")
        .arg(&repo)
        .arg("HEAD")
        .output()
        .expect("run crossverify");
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    assert!(stdout.contains("failed"), "the fixture has failed results to colour");
    assert!(!stdout.contains('\u{1b}'), "escape codes on a pipe");
}

#[test]
fn table_output_is_coloured_on_a_terminal_unless_no_color() {
    // `script` (util-linux) gives the binary a pseudo-terminal as stdout.
    let Some(script) = ["/usr/bin/script", "/bin/script"].into_iter().find(|p| std::path::Path::new(p).is_file())
    else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = support::materialize("repo-special", tmp.path()).join("repo");
    // Standard error goes elsewhere: only standard output's colour is under test.
    let cmd = format!("{} manifest {} HEAD 2>/dev/null", env!("CARGO_BIN_EXE_crossverify"), repo.display());
    let run = |no_color: Option<&str>| {
        let mut c = std::process::Command::new(script);
        support::isolate(&mut c);
        c.args(["-qec", &cmd, "/dev/null"]).env("TERM", "xterm-256color").env_remove("NO_COLOR");
        if let Some(v) = no_color {
            c.env("NO_COLOR", v);
        }
        String::from_utf8_lossy(&c.output().expect("run script").stdout).into_owned()
    };
    assert!(run(None).contains("\u{1b}["), "a terminal gets colour");
    assert!(!run(Some("1")).contains("\u{1b}["), "NO_COLOR=1 turns colour off");
}

/// The sample report with an audit outcome, an info-level failure and six error-level
/// failures (one more than the closing lines name).
fn judged_sample() -> Report {
    use crossverify::report::{AuditOutcome, OutcomePart, Tone};
    let mut report = sample::ledger_report();
    let g001 = crossverify::protocols::find("CV-G001").expect("registered");
    for i in 1..=6 {
        report.results.push(CheckResult::new(
            g001,
            Outcome::Failed,
            format!("cycle-{i}"),
            format!("digest {i} differs"),
        ));
    }
    let info = crossverify::protocols::find("CV-A803").expect("registered");
    assert_eq!(crossverify::report::Registered::level(info), Level::Info);
    report.results.push(CheckResult::new(info, Outcome::Failed, "ledger", "context, not a failure"));
    report.finish();
    let part = |label: &str, count: u64, tone: Tone| OutcomePart { label: label.into(), count: Some(count), tone };
    report.audit_outcome = Some(AuditOutcome {
        basis: "latest verdict of each of 3 audited commits".into(),
        parts: vec![
            part("passed audit", 1, Tone::Good),
            part("blocked", 2, Tone::Bad),
            part("escalated", 0, Tone::Neutral),
        ],
        decision: Some(OutcomePart { label: "2 not admissible".into(), count: None, tone: Tone::Bad }),
        tone: Tone::Bad,
        decided_by: Vec::new(),
    });
    crossverify::protocols::describe(&mut report);
    report
}

/// Both verdicts, separately, in every human format and in JSON; the failing checks named.
#[test]
fn the_integrity_verdict_and_the_audit_outcome_are_said_separately() {
    let report = judged_sample();
    let table = text(&report, Format::Table);
    let closing: Vec<&str> = table.lines().rev().take(9).collect::<Vec<_>>().into_iter().rev().collect();
    insta::assert_snapshot!("judged_table_closing", closing.join("\n"));
    let markdown = text(&report, Format::Markdown);
    let head: Vec<&str> = markdown.lines().take_while(|l| !l.starts_with("Inputs:")).collect();
    insta::assert_snapshot!("judged_markdown_head", head.join("\n"));
    let html = text(&report, Format::Html);
    let banner = &html[html.find("<header").expect("banner")..html.find("</header>").expect("banner end")];
    insta::assert_snapshot!("judged_html_banner", banner);
    let json: Value = serde_json::from_str(&text(&report, Format::Json)).expect("JSON");
    assert_eq!(json["outcome"], "failed");
    assert_eq!(json["auditOutcome"]["decision"]["label"], "2 not admissible");
    assert_eq!(json["auditOutcome"]["parts"][1]["count"], 2);
    // Five failing checks named, the sixth counted.
    assert_eq!(table.lines().filter(|l| l.starts_with("  CV-G001 failed cycle-")).count(), 5, "{table}");
    assert!(table.contains("… and 1 more"));
    assert!(banner.contains("… and 1 more"));
}

/// A failure at level info is context: never counted or coloured as a failure.
#[test]
fn info_level_results_are_never_in_the_colour_of_failure() {
    let mut report = sample::ledger_report();
    let info = crossverify::protocols::find("CV-A803").expect("registered");
    report.results.push(CheckResult::new(info, Outcome::Failed, "ledger", "context, not a failure"));
    report.finish();
    crossverify::protocols::describe(&mut report);
    let html = text(&report, Format::Html);
    let banner = &html[..html.find("</header>").expect("banner end")];
    let failures = report.summary.errors + report.summary.warnings;
    assert_eq!(report.summary.failed, failures + 1, "the info-level failure is a failed result");
    assert!(banner.contains(&format!("<li class=\"failed\"><b>{failures}</b> failed</li>")), "{banner}");
    assert!(banner.contains("<li class=\"info\"><b>1</b> failed at info level (context)</li>"), "{banner}");
    assert!(html.contains("<details class=\"check muted\" id=\"check-CV-A803\""), "the check is drawn neutral");
    let row = &html[html.find("<tr><th scope=\"row\"><a href=\"#check-CV-A803\">").expect("count row")..];
    let row = &row[..row.find("</tr>").expect("row end")];
    assert!(row.contains("<td class=\"num\">1</td>") && !row.contains("num bad"), "{row}");
    assert!(html.contains(
        "<span class=\"badge muted\">failed</span> <code class=\"subject\">ledger</code> <span class=\"msg\">context"
    ));
    let coloured = render::render(&report, Format::Table, &Options { width: None, color: true, summary: false });
    let coloured = String::from_utf8(coloured).expect("utf-8");
    let row = coloured.lines().find(|l| l.contains("context, not a failure")).expect("row");
    assert!(!row.contains("\u{1b}["), "no colour on the info row: {row:?}");
    let junit = text(&report, Format::Junit);
    assert!(
        junit.contains("<skipped type=\"info\" message=\"info, not a failure: context, not a failure\">"),
        "{junit}"
    );
    assert!(junit.contains(&format!("failures=\"{failures}\"")), "JUnit counts no info-level failure");
}

/// A terminal table too wide for the terminal never cuts a heading inside a word: it wraps a
/// heading between its words, or shows one block per row (issue 23: the demo ledger's
/// lifecycle table printed `closed_confirmed_in` as `close`/`d_con`/`firme`/`d_in`).
#[test]
fn terminal_tables_keep_every_heading_word_whole() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let demo = support::materialize("demo", tmp.path());
    let mut opts = crossverify::crossaudit::Options::new(&demo.join("audit"));
    opts.science = Some(demo.join("science"));
    let report = crossverify::crossaudit::ledger(&opts, crossverify::progress::Ctx::silent()).expect("the demo runs");
    let out =
        String::from_utf8(render::render(&report, Format::Table, &Options { width: Some(100), ..Options::default() }))
            .expect("UTF-8");
    let mut tables = 0;
    for view in &report.views {
        let crossverify::report::View::Table(t) = view else { continue };
        tables += 1;
        for word in t.columns.iter().flat_map(|c| c.split_whitespace()) {
            assert!(out.contains(word), "the heading word {word} of {} is cut:\n{out}", t.id);
        }
    }
    assert!(tables > 3, "the demo's tables");
    assert!(report.views.iter().any(
        |v| matches!(v, crossverify::report::View::Table(t) if t.columns.iter().any(|c| c == "closed_confirmed_in"))
    ));
    assert!(out.contains("findings 1 of 3"), "the lifecycle table as one block per row:\n{out}");
}

/// The HTML counts name no "0 info notes" beside info-level results counted as cantTell.
#[test]
fn the_html_counts_say_nothing_of_info_failures_when_there_are_none() {
    let info = crossverify::protocols::find("CV-A708").expect("registered");
    assert_eq!(crossverify::report::Registered::level(info), Level::Info);
    let mut report = Report::new("ledger");
    for i in 0..3 {
        report.results.push(CheckResult::new(info, Outcome::CantTell, format!("cycle-{i}"), "not re-verifiable"));
    }
    report.finish();
    let html = text(&report, Format::Html);
    assert!(!html.contains("info notes") && !html.contains("failed at info level"), "a pill of zero info failures");
    assert!(html.contains("<b>3</b> cantTell"));
    report.results.push(CheckResult::new(info, Outcome::Failed, "cycle-9", "context"));
    report.finish();
    assert!(text(&report, Format::Html).contains("<b>1</b> failed at info level (context)"));
}

/// Every check's documentation in the HTML report is HTML: no Markdown link syntax is left as
/// text outside code.
#[test]
fn the_html_check_documentation_has_no_raw_markdown_links() {
    let mut report = Report::new("checks");
    for c in crossverify::protocols::all() {
        report.results.push(CheckResult::new(c, Outcome::Passed, "x", "y"));
    }
    report.finish();
    crossverify::protocols::describe(&mut report);
    let html = text(&report, Format::Html);
    let code = regex::Regex::new(r"(?s)<code>.*?</code>|<pre>.*?</pre>").expect("regex");
    let prose = code.replace_all(&html, "");
    let raw = regex::Regex::new(r"\]\([^)]*\)").expect("regex");
    let found: Vec<&str> = raw.find_iter(&prose).map(|m| m.as_str()).take(5).collect();
    assert!(found.is_empty(), "raw Markdown links in the HTML: {found:?}");
}
