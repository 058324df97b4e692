//! Issue 47: the certificate's lifecycle section is for people. From the guide's own Quick
//! start 2 command line, the certificate names each record's figures as the HTML report does
//! (the record's `figures` view in the JSON report the same line writes), shows a figure the
//! records cannot support as "not measured" and never as 0, and draws the closure-lag plot.

use crate::contrast::{bundle, guide_verify_line, run_line, submission};

use serde_json::Value;

/// Text as maud writes it into the page.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn shown(v: &Value) -> String {
    match v {
        Value::Null => "<span class=\"nm\">not measured</span>".to_owned(),
        Value::String(s) => esc(s),
        // As the HTML report prints a number: whole, or to two places without trailing zeros.
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() != 0.0) => {
            let two = format!("{:.2}", n.as_f64().unwrap_or_default());
            two.trim_end_matches('0').trim_end_matches('.').to_owned()
        }
        other => other.to_string(),
    }
}

#[test]
fn the_guides_certificate_names_the_figures_and_draws_the_lifecycle_plot() {
    let tmp = tempfile::tempdir().expect("tempdir");
    submission(tmp.path(), &[bundle("science.bundle"), bundle("audit.bundle")]);
    let line = guide_verify_line();
    let o = run_line(&line, &[], tmp.path());
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let report: Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("verification.json")).expect("report")).expect("JSON");
    let page = std::fs::read_to_string(tmp.path().join("certificate.html")).expect("certificate");
    let start = page.find("<section id=\"figures\">").expect("the lifecycle section");
    let section = &page[start..start + page[start..].find("</section>").expect("closes")];
    let records: Vec<&String> = report["stats"].as_object().expect("stats").keys().collect();
    assert_eq!(records.len(), 1, "{records:?}");
    let views = report["views"].as_array().expect("views");
    let view = |id: String| views.iter().find(|v| v["id"] == id.as_str()).unwrap_or_else(|| panic!("no view {id}"));
    let figures = view(format!("{}/figures", records[0]));
    let rows = figures["rows"].as_array().expect("rows");
    assert!(rows.len() > 10, "{figures}");
    let mut not_measured = 0;
    for row in rows {
        let cells: Vec<String> = row.as_array().expect("row").iter().map(shown).collect();
        let want = format!(
            "<tr><th scope=\"row\">{}</th>{}</tr>",
            cells[0],
            cells[1..].iter().map(|c| format!("<td>{c}</td>")).collect::<String>()
        );
        assert!(section.contains(&want), "the certificate lacks the row {want}\n{section}");
        not_measured += usize::from(row[1].is_null());
    }
    assert!(not_measured > 0, "the ledger has figures it cannot support, shown as such");
    assert_eq!(
        section.matches("not measured</span>").count(),
        not_measured,
        "every figure the records cannot support, and no other, reads not measured"
    );
    assert!(!section.contains("<code>/"), "no JSON pointer names a figure: {section}");
    let plot = view(format!("{}/closure-lag", records[0]));
    let title = esc(plot["title"].as_str().expect("title"));
    assert!(section.contains("<svg class=\"chart\""), "the lifecycle plot is drawn");
    assert!(section.contains(&format!("aria-label=\"{title}\"")), "the closure-lag plot: {title}");
}
