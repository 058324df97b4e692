use serde_json::json;

use super::*;
use crate::report::{Table, Tone, View};

fn table(id: &str, csv: bool) -> View {
    View::Table(Table {
        id: id.into(),
        title: id.into(),
        columns: vec!["a".into(), "b".into()],
        rows: vec![vec![json!("=1+1"), json!(null)], vec![json!(2.5), json!(["x"])]],
        note: None,
        csv,
    })
}

#[test]
fn every_format_name_parses_back() {
    for f in Format::ALL {
        assert_eq!(Format::parse(f.name()), Some(*f));
    }
    assert_eq!(Format::parse("xml"), None);
    assert_eq!(Format::parse("SARIF-GitHub"), Some(Format::SarifGithub));
}

#[cfg(feature = "cli")]
#[test]
fn a_thousand_point_chart_is_summarised_for_the_terminal() {
    use crate::report::{Chart, ChartKind, Point};
    let points: Vec<Point> = (0..1000)
        .map(|i| Point {
            label: format!("c{i}"),
            value: (i != 5).then_some(f64::from(i % 4 == 3)),
            category: Some(if i % 4 == 3 { "BLOCKED" } else { "PASS" }.into()),
        })
        .collect();
    let mut r = Report::new("x");
    for (id, kind) in [("timeline", ChartKind::Timeline), ("bars", ChartKind::Bars)] {
        r.views.push(View::Chart(Chart {
            id: id.into(),
            title: id.into(),
            chart: kind,
            y_label: "findings".into(),
            x_label: "cycle".into(),
            category_label: "decision".into(),
            points: points.clone(),
            note: None,
        }));
    }
    let text = String::from_utf8(render(&r, Format::Table, &Options::default())).unwrap();
    assert!(text.lines().count() < 60, "{text}");
    assert!(text.contains("│ PASS     ┆ 750    ┆ 1     ┆ 999  │"), "{text}");
    assert!(text.contains("│ BLOCKED  ┆ 250    ┆ 4     ┆ 1000 │"), "{text}");
    // Positions 1–100: 25 blocked cycles with one finding each; position 6 not measured.
    assert!(text.contains("│ 1–100           ┆ 25               ┆ 1       ┆ 1            │"), "{text}");
    assert_eq!(text.matches("1000 cycles summarised").count(), 2);
}

#[test]
fn csv_without_marked_tables_is_the_results_alone() {
    let mut r = Report::new("x");
    r.views.push(table("shown", false));
    r.finish();
    let primary = String::from_utf8(render(&r, Format::Csv, &Options::default())).unwrap();
    assert!(primary.starts_with("code,level,outcome,subject,message,"), "{primary}");
    assert!(companions(&r, Format::Csv).is_empty());
}

#[test]
fn first_marked_table_is_primary_and_the_rest_are_companions() {
    let mut r = Report::new("x");
    r.views.push(table("skipped", false));
    r.views.push(table("items", true));
    r.views.push(table("rows", true));
    r.views.push(table("results", true));
    r.finish();
    let primary = String::from_utf8(render(&r, Format::Csv, &Options::default())).unwrap();
    // null is an empty cell, formulas are defused, nested values are JSON.
    assert_eq!(primary, "a,b\n'=1+1,\n2.5,\"[\"\"x\"\"]\"\n");
    let names: Vec<String> = companions(&r, Format::Csv).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["rows", "results-2", "results"]);
    assert!(companions(&r, Format::Json).is_empty());
}

#[test]
fn slugs_are_file_name_safe() {
    assert_eq!(slug("Per row/x"), "per-row-x");
    assert_eq!(slug(""), "view");
}

#[test]
fn tones_come_from_the_report_alone() {
    let mut r = Report::new("x");
    r.views.push(View::Table(Table {
        id: "t".into(),
        title: "t".into(),
        columns: vec!["state".into()],
        rows: vec![vec![json!("HALTED")], vec![json!("RUNNING")]],
        note: None,
        csv: false,
    }));
    r.finish();
    let html = String::from_utf8(render(&r, Format::Html, &Options::default())).unwrap();
    assert!(!html.contains("class=\"bad\"><span class=\"badge\">HALTED"), "an undeclared word has no tone");
    r.hints.tones.insert("HALTED".into(), Tone::Bad);
    let html = String::from_utf8(render(&r, Format::Html, &Options::default())).unwrap();
    assert!(html.contains("class=\"bad\"><span class=\"badge\">HALTED</span>"), "{html}");
    assert!(html.contains(">RUNNING</th>"));
    let colored = Options { width: None, color: true, summary: false };
    let table = String::from_utf8(render(&r, Format::Table, &colored)).unwrap();
    let line = table.lines().find(|l| l.contains("HALTED")).unwrap();
    assert!(line.contains('\u{1b}'), "a toned word is coloured in the terminal: {line:?}");
    let line = table.lines().find(|l| l.contains("RUNNING")).unwrap();
    assert!(!line.contains('\u{1b}'));
}

#[test]
fn check_names_and_links_come_from_the_report() {
    let mut r = Report::new("x");
    r.results.push(crate::report::CheckResult {
        code: "ZZ-1".into(),
        level: crate::report::Level::Error,
        outcome: crate::report::Outcome::Failed,
        subject: "s".into(),
        message: "m".into(),
        location: None,
        evidence: std::collections::BTreeMap::new(),
    });
    r.finish();
    let md = String::from_utf8(render(&r, Format::Markdown, &Options::default())).unwrap();
    assert!(md.contains("| [ZZ-1](") && md.contains("/docs/checks/ZZ-1.md) |  |"), "{md}");
    r.checks.insert(
        "ZZ-1".into(),
        crate::report::CheckDoc {
            name: "made-up".into(),
            level: crate::report::Level::Error,
            family: "f".into(),
            group: None,
            summary: "s".into(),
            what: "w".into(),
            why: "y".into(),
            page: "# ZZ-1".into(),
            help_uri: "https://example.org/zz-1".into(),
        },
    );
    let md = String::from_utf8(render(&r, Format::Markdown, &Options::default())).unwrap();
    assert!(md.contains("| [ZZ-1](https://example.org/zz-1) | made-up |"), "{md}");
}
