//! The machine-readable formats, checked by validators we did not write: the SARIF
//! Multitool (`validate`, with its SARIF and GitHub rule sets) and `xmllint` against the
//! vendored JUnit schema. Each validator is first shown a broken file, so a validator that
//! silently accepts everything fails the test instead of passing it.

use crate::sample;
use crate::support;
use crate::tools;

use std::path::{Path, PathBuf};
use std::process::Command;

use crossverify::render::{self, Format, Options};
use crossverify::report::Report;
use serde_json::Value;

/// Reports to validate: the sample and a real `manifest` run with special entries.
fn reports() -> Vec<(&'static str, Report)> {
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = support::materialize("repo-special", tmp.path()).join("repo");
    let out = support::crossverify()
        .arg("manifest")
        .arg(&repo)
        .args(["HEAD", "--format", "json"])
        .output()
        .expect("run crossverify");
    let manifest: Report = serde_json::from_slice(&out.stdout).expect("manifest report is JSON");
    vec![
        ("ledger-sample", sample::ledger_report()),
        ("manifest-special", manifest),
        ("checks", crossverify::protocols::checks_command()),
    ]
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write file to validate");
    p
}

/// Problems the Multitool reports for `file` (every level), as `RULE level: message`.
fn multitool(tool: &Path, file: &Path, rule_kinds: &str) -> Vec<String> {
    let config = support::root().join("tests/it/validators/sarif-multitool.xml");
    let out_dir = tempfile::tempdir().expect("tempdir");
    let log = out_dir.path().join("validation.sarif");
    let run = Command::new(tool)
        .arg("validate")
        .arg(file)
        .arg("--config")
        .arg(&config)
        .arg("--rule-kind")
        .arg(rule_kinds)
        .arg("--output")
        .arg(&log)
        .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
        // The Multitool needs no culture data; invariant mode spares it a libicu dependency.
        .env("DOTNET_SYSTEM_GLOBALIZATION_INVARIANT", "1")
        .output()
        .expect("run the SARIF Multitool");
    let text = std::fs::read(&log).unwrap_or_else(|_| {
        panic!(
            "the Multitool wrote no log (exit {:?}): {}{}",
            run.status.code(),
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        )
    });
    let v: Value = serde_json::from_slice(&text).expect("validation log is JSON");
    v["runs"][0]["results"]
        .as_array()
        .map(|rs| {
            rs.iter()
                .map(|r| {
                    format!(
                        "{} {}: {}",
                        r["ruleId"].as_str().unwrap_or("?"),
                        r["level"].as_str().unwrap_or("warning"),
                        r["message"]["arguments"]
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn sarif_passes_the_multitool_with_no_errors_or_warnings() {
    let Some(tool) = tools::require("SARIF Multitool", tools::sarif_multitool()) else { return };
    let dir = tempfile::tempdir().expect("tempdir");

    // Control: a log missing tool metadata and a location must be flagged.
    let mut broken: Value =
        serde_json::from_slice(&render::render(&sample::ledger_report(), Format::SarifGithub, &Options::default()))
            .expect("JSON");
    broken["runs"][0]["tool"]["driver"].as_object_mut().expect("driver").remove("informationUri");
    broken["runs"][0]["results"][0].as_object_mut().expect("result").remove("locations");
    let file = write(dir.path(), "broken.sarif", broken.to_string().as_bytes());
    let problems = multitool(&tool, &file, "Sarif;Gh");
    assert!(problems.iter().any(|p| p.starts_with("SARIF2005")), "control not flagged: {problems:?}");
    assert!(problems.iter().any(|p| p.starts_with("GH1015")), "control not flagged: {problems:?}");

    for (name, report) in reports() {
        let full =
            write(dir.path(), &format!("{name}.sarif"), &render::render(&report, Format::Sarif, &Options::default()));
        let problems = multitool(&tool, &full, "Sarif");
        assert!(problems.is_empty(), "{name}: --format sarif: {problems:#?}");
        let github = write(
            dir.path(),
            &format!("{name}.github.sarif"),
            &render::render(&report, Format::SarifGithub, &Options::default()),
        );
        let problems = multitool(&tool, &github, "Sarif;Gh");
        assert!(problems.is_empty(), "{name}: --format sarif-github with GitHub rules: {problems:#?}");
    }
}

fn xmllint(tool: &Path, file: &Path) -> (bool, String) {
    let xsd = support::root().join("test-vectors/junit/junit-10.xsd");
    let out = Command::new(tool).arg("--noout").arg("--schema").arg(&xsd).arg(file).output().expect("run xmllint");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn junit_validates_against_the_vendored_schema() {
    let Some(tool) = tools::require("xmllint", tools::xmllint()) else { return };
    let dir = tempfile::tempdir().expect("tempdir");

    let xsd = std::fs::read(support::root().join("test-vectors/junit/junit-10.xsd")).expect("vendored schema");
    let digest = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&xsd));
    let readme = std::fs::read_to_string(support::root().join("test-vectors/README.md")).expect("README");
    assert!(
        readme.contains(&digest),
        "junit-10.xsd changed: its SHA-256 {digest} is not the one recorded in test-vectors/README.md"
    );

    // Control: `skipped` is not an attribute of <testsuites> in this schema.
    let bad = write(dir.path(), "bad.xml", br#"<?xml version="1.0"?><testsuites skipped="1"></testsuites>"#);
    let (ok, msg) = xmllint(&tool, &bad);
    assert!(!ok, "xmllint accepted an invalid file: {msg}");

    for (name, report) in reports() {
        let file =
            write(dir.path(), &format!("{name}.xml"), &render::render(&report, Format::Junit, &Options::default()));
        let (ok, msg) = xmllint(&tool, &file);
        assert!(ok, "{name}: {msg}");
    }
}

/// The `<svg>` elements of an HTML page.
fn svgs(html: &str) -> Vec<&str> {
    html.match_indices("<svg ")
        .map(|(at, _)| &html[at..at + html[at..].find("</svg>").expect("an <svg> is closed") + "</svg>".len()])
        .collect()
}

#[test]
fn svg_charts_are_well_formed_xml() {
    use crossverify::report::{Chart, ChartKind, Point, View};
    let Some(tool) = tools::require("xmllint", tools::xmllint()) else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let well_formed = |name: &str, svg: &str| {
        let file = write(dir.path(), name, svg.as_bytes());
        let out = Command::new(&tool).arg("--noout").arg(&file).output().expect("run xmllint");
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    // Control: an element left open is not XML, though an HTML parser would close it.
    let (ok, msg) = well_formed("open.svg", r#"<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>"#);
    assert!(!ok, "xmllint accepted an unclosed <rect>: {msg}");

    let mut report = sample::ledger_report();
    let nasty = "a<b>&c\"d'e\u{1}f</title><script>x</script>";
    for (id, chart) in [("nasty-bars", ChartKind::Bars), ("nasty-timeline", ChartKind::Timeline)] {
        report.views.push(View::Chart(Chart {
            id: id.into(),
            title: nasty.into(),
            chart,
            y_label: nasty.into(),
            x_label: nasty.into(),
            category_label: nasty.into(),
            points: (0..50)
                .map(|i| Point {
                    label: format!("{nasty}{i}"),
                    value: (i % 3 != 0).then_some(f64::from(i)),
                    category: (i % 4 != 0).then(|| format!("{nasty}{}", i % 2)),
                })
                .collect(),
            note: None,
        }));
    }
    let html = String::from_utf8(render::render(&report, Format::Html, &Options::default())).expect("UTF-8");
    let charts = svgs(&html);
    assert_eq!(charts.len(), 5, "the sample's three charts and the two above");
    for (i, svg) in charts.iter().enumerate() {
        let (ok, msg) = well_formed(&format!("chart-{i}.svg"), svg);
        assert!(ok, "chart {i}: {msg}\n{svg}");
    }
}
