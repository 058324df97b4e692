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

/// Markup injection: whatever a report's strings hold, the HTML page and its SVG charts carry
/// only the renderers' own elements and attributes.
mod injection {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::super::{Format, Options, render, svg};
    use crate::report::{
        AuditOutcome, Chart, ChartKind, CheckDoc, CheckResult, Level, Location, Outcome, OutcomePart, Point, Report,
        Table, Tone, View,
    };

    /// Every element the page and its charts are built of (from `html.rs`, `svg.rs` and the
    /// Markdown in `commonmark.rs`).
    const ELEMENTS: &[&str] = &[
        "html",
        "head",
        "meta",
        "title",
        "style",
        "body",
        "header",
        "main",
        "footer",
        "section",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "p",
        "b",
        "em",
        "strong",
        "small",
        "code",
        "pre",
        "span",
        "a",
        "br",
        "wbr",
        "hr",
        "ul",
        "ol",
        "li",
        "dl",
        "dt",
        "dd",
        "div",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "details",
        "summary",
        "figure",
        "figcaption",
        "blockquote",
        "svg",
        "defs",
        "pattern",
        "rect",
        "line",
        "text",
    ];
    /// Elements without content or end tag.
    const VOID: &[&str] = &["meta", "br", "wbr", "hr"];
    const ATTRIBUTES: &[&str] = &[
        "lang",
        "charset",
        "http-equiv",
        "content",
        "name",
        "class",
        "id",
        "href",
        "title",
        "scope",
        "open",
        "start",
        "aria-hidden",
        "aria-label",
        "role",
        "xmlns",
        "viewBox",
        "width",
        "height",
        "patternUnits",
        "patternTransform",
        "fill",
        "stroke",
        "stroke-width",
        "stroke-dasharray",
        "x",
        "y",
        "x1",
        "y1",
        "x2",
        "y2",
        "transform",
        "text-anchor",
    ];
    const ENTITIES: &[&str] = &["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"];

    /// Text between tags or inside a quoted value: `<` never, `&` only as an entity.
    fn text(s: &str) -> Result<(), String> {
        if s.contains('<') {
            return Err(format!("a raw < in {s:?}"));
        }
        for (i, _) in s.match_indices('&') {
            if !ENTITIES.iter().any(|e| s[i..].starts_with(e)) {
                return Err(format!("a raw & in {s:?}"));
            }
        }
        Ok(())
    }

    /// `name attr="value" flag` as `name attr flag`, if every name is one the renderers write.
    fn tag(inside: &str) -> Result<String, String> {
        let (name, mut rest) = inside.split_once(' ').map_or((inside, ""), |(n, r)| (n, r));
        if !ELEMENTS.contains(&name) {
            return Err(format!("element <{name}>"));
        }
        let mut token = name.to_owned();
        while !rest.is_empty() {
            let end = rest.find(['=', ' ']).unwrap_or(rest.len());
            let attr = &rest[..end];
            if !ATTRIBUTES.contains(&attr) {
                return Err(format!("attribute {attr:?} on <{name}>"));
            }
            token.push(' ');
            token.push_str(attr);
            rest = &rest[end..];
            if let Some(v) = rest.strip_prefix("=\"") {
                let close = v.find('"').ok_or_else(|| format!("an unterminated value in <{inside}>"))?;
                text(&v[..close])?;
                rest = &v[close + 1..];
            }
            if !rest.is_empty() {
                rest = rest.strip_prefix(' ').ok_or_else(|| format!("attributes run together in <{inside}>"))?;
            }
        }
        Ok(token)
    }

    /// The tags of `page` (name and attribute names), if it is markup the renderers could have
    /// written: every `<` opens a known element with known attributes and quoted values, every
    /// `&` is an entity, and the elements nest.
    fn tags(page: &str) -> Result<Vec<String>, String> {
        let mut rest = page.strip_prefix("<!DOCTYPE html>").unwrap_or(page);
        let (mut out, mut open) = (Vec::new(), Vec::<String>::new());
        while let Some(at) = rest.find('<') {
            text(&rest[..at])?;
            let end = rest[at..].find('>').ok_or("a tag without its >")? + at;
            let inside = &rest[at + 1..end];
            rest = &rest[end + 1..];
            if let Some(name) = inside.strip_prefix('/') {
                if open.pop().as_deref() != Some(name) {
                    return Err(format!("</{name}> closes nothing open"));
                }
                out.push(format!("/{name}"));
                continue;
            }
            let token = tag(inside)?;
            let name = token.split(' ').next().unwrap_or_default();
            if !VOID.contains(&name) {
                open.push(name.to_owned());
            }
            out.push(token);
        }
        text(rest)?;
        if !open.is_empty() {
            return Err(format!("unclosed {open:?}"));
        }
        out.sort();
        Ok(out)
    }

    /// `s` with each markup character replaced by its own private-use character: the same
    /// length in characters, the same equalities between strings, nothing to escape.
    fn defang(s: &str) -> String {
        s.chars()
            .map(|c| match c {
                '<' => '\u{E000}',
                '>' => '\u{E001}',
                '&' => '\u{E002}',
                '"' => '\u{E003}',
                '\'' => '\u{E004}',
                c => c,
            })
            .collect()
    }

    fn result(code: &str, outcome: Outcome, subject: &str, message: &str) -> CheckResult {
        CheckResult {
            code: code.into(),
            level: Level::Error,
            outcome,
            subject: subject.into(),
            message: message.into(),
            location: None,
            evidence: BTreeMap::new(),
        }
    }

    fn chart(id: &str, kind: ChartKind, p: &[String], n: usize) -> Chart {
        Chart {
            id: id.into(),
            title: p[1].clone(),
            chart: kind,
            y_label: p[2].clone(),
            x_label: p[3].clone(),
            category_label: p[4].clone(),
            points: (0..n)
                .map(|i| Point {
                    label: p[(i + 4) % p.len()].clone(),
                    value: (i % 4 != 1).then_some(i as f64),
                    category: [Some(p[2].clone()), Some(p[5].clone()), None][i % 3].clone(),
                })
                .collect(),
            note: None,
        }
    }

    /// Results, their documentation and the audit outcome, from the plain strings `p` and the
    /// Markdown `md`.
    fn findings(r: &mut Report, p: &[String], md: &[String]) {
        let mut failed = result(&p[5], Outcome::Failed, &p[6], &p[7]);
        failed.location =
            Some(Location { repository: Some(p[0].clone()), path: Some(p[1].clone()), commit: Some(p[2].clone()) });
        failed.evidence.insert(p[3].clone(), json!(p[4]));
        failed.evidence.insert("nested".into(), json!({ "k": [p[6], 1, null] }));
        r.results.push(failed);
        r.results.push(result(&p[1], Outcome::CantTell, &p[2], &p[3]));
        r.results.push(result(&p[0], Outcome::Passed, "", &p[4]));
        r.finish();
        r.checks.insert(
            p[5].clone(),
            CheckDoc {
                name: p[6].clone(),
                level: Level::Error,
                family: p[0].clone(),
                group: None,
                summary: md[0].clone(),
                what: p[1].clone(),
                why: p[2].clone(),
                page: md[1].clone(),
                help_uri: p[7].clone(),
            },
        );
        r.audit_outcome = Some(AuditOutcome {
            basis: p[4].clone(),
            parts: vec![OutcomePart { label: p[5].clone(), count: Some(2), tone: Tone::Good }],
            decision: Some(OutcomePart { label: p[6].clone(), count: None, tone: Tone::Bad }),
            tone: Tone::Bad,
            // The failed result carries the decision: its label reaches the verdict's words.
            decided_by: vec![p[5].clone()],
        });
    }

    /// A report whose every string comes from `p` (plain text) or `md` (Markdown fields).
    fn report(p: &[String], md: &[String]) -> Report {
        let mut r = Report::new(&p[0]);
        r.tool.name.clone_from(&p[1]);
        r.tool.version.clone_from(&p[2]);
        r.input(&p[3], p[4].as_str());
        findings(&mut r, p, md);
        r.views.push(View::Table(Table {
            id: p[3].clone(),
            title: p[0].clone(),
            columns: vec![p[1].clone(), p[2].clone(), p[3].clone()],
            rows: vec![
                vec![json!(p[4]), json!(p[2]), json!(1)],
                vec![json!(format!("{}{}", "w".repeat(121), p[5])), Value::Null, json!([p[6]])],
            ],
            note: Some(md[2].clone()),
            csv: false,
        }));
        r.views.push(View::Chart(chart(&p[7], ChartKind::Bars, p, 9)));
        r.views.push(View::Chart(chart(&p[6], ChartKind::Histogram, p, 3)));
        r.views.push(View::Chart(chart(&p[5], ChartKind::Timeline, p, 12)));
        r.views.push(View::Chart(chart(&p[4], ChartKind::Timeline, p, 45)));
        r.hints.headline = Some((p[0].clone(), p[1].clone()));
        r.hints.tones.insert(p[2].clone(), Tone::Bad);
        r.hints.first_views.push(p[3].clone());
        r.stats.insert(p[0].clone(), json!(1));
        r.stats.insert(p[1].clone(), json!(p[2]));
        r.stats.insert("flat".into(), json!({ p[3].clone(): 1, "k": null }));
        r.stats.insert("nested".into(), json!({ "a": [format!("{}{}", "w".repeat(200), p[4])] }));
        r.sections.insert("doc".into(), json!(md[0]));
        r.sections.insert(p[5].clone(), json!({ "v": p[6] }));
        r
    }

    /// Any text, and text dense in markup and control characters; never the private-use
    /// characters [`defang`] writes.
    fn strings(n: usize) -> impl Strategy<Value = Vec<String>> {
        let one = prop_oneof![
            "(?s).{0,24}",
            "[<>&\"' a-z/=!_#:;\\[\\]()*`\n\r\u{1}\u{85}-]{0,24}",
            Just("\"><script>alert(1)</script><b x=\"".to_owned()),
            Just("</section></main><img src=x onerror=alert(1)>".to_owned()),
        ]
        .prop_map(|s: String| s.chars().filter(|c| !('\u{E000}'..='\u{E004}').contains(c)).collect::<String>());
        prop::collection::vec(one, n)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn no_report_string_becomes_markup(p in strings(8), md in strings(3)) {
            let r = report(&p, &md);
            let page = String::from_utf8(render(&r, Format::Html, &Options::default())).expect("UTF-8");
            let ours = tags(&page).map_err(|e| TestCaseError::fail(format!("{e}\n{page}")))?;
            prop_assert!(!page.contains(|c: char| c.is_control() && c != '\n' && c != '\t'));
            // The same report with no markup character in its plain strings has the same
            // elements and attributes: nothing in the page came from the strings themselves.
            let plain: Vec<String> = p.iter().map(|s| defang(s)).collect();
            let calm = String::from_utf8(render(&report(&plain, &md), Format::Html, &Options::default()))
                .expect("UTF-8");
            prop_assert_eq!(&ours, &tags(&calm).map_err(TestCaseError::fail)?);
            for v in &r.views {
                if let View::Chart(c) = v {
                    let chart = svg::chart(c, &r.hints).into_string();
                    tags(&chart).map_err(|e| TestCaseError::fail(format!("{e}\n{chart}")))?;
                }
            }
        }
    }

    #[test]
    fn the_checker_sees_markup_that_got_through() {
        assert!(tags("<p class=\"x\">a &amp; b</p>").is_ok());
        for page in [
            "<p>a <b>b</b></p><script>x</script>",
            "<p>1 < 2</p>",
            "<p>&copy</p>",
            "<p class=\"x\" onclick=\"y\">z</p>",
            "<p title=\"a\"b\">c</p>",
            "<p><b>x</p></b>",
            "<section>",
        ] {
            assert!(tags(page).is_err(), "{page}");
        }
    }

    #[test]
    fn an_unknown_check_code_is_escaped_in_its_anchors() {
        let mut r = Report::new("x");
        r.results.push(result("A\"><i>1", Outcome::Failed, "s", "m"));
        r.finish();
        let page = String::from_utf8(render(&r, Format::Html, &Options::default())).expect("UTF-8");
        assert!(page.contains("id=\"check-A&quot;&gt;&lt;i&gt;1\""), "{page}");
        assert!(page.contains("href=\"#check-A&quot;&gt;&lt;i&gt;1\""), "{page}");
        tags(&page).expect("markup of our own only");
    }
}

/// The results written in pieces on every core are the bytes `serde_json` writes for the
/// whole report, around every optional field and across piece boundaries.
#[test]
fn json_written_in_pieces_is_json_written_whole() {
    use crate::report::{AuditOutcome, CheckResult, Level, Location, Outcome, OutcomePart};
    for n in [0, 1, 4095, 4096, 4097, 5000] {
        let mut r = Report::new("ledger");
        r.inputs.insert("audit".into(), json!("a\nb \"q\" \u{1F600}"));
        r.reason = (n % 2 == 1).then(|| "why".to_owned());
        r.results = (0..n)
            .map(|i| CheckResult {
                code: format!("CV-A{}", 700 + i % 9),
                level: if i % 3 == 0 { Level::Error } else { Level::Warning },
                outcome: if i % 5 == 0 { Outcome::Failed } else { Outcome::Passed },
                subject: format!("cycles/{i:04}\n  \"results\": []"),
                message: format!("line one\nline two {i}"),
                location: (i % 7 == 0).then(|| Location {
                    repository: Some("audit".into()),
                    path: Some(format!("cycles/{i}/receipt.json")),
                    commit: None,
                }),
                evidence: (0..i % 4).map(|k| (format!("k{k}"), json!({"nested": [k, "x\ty"], "empty": {}}))).collect(),
            })
            .collect();
        r.stats.insert("cycles".into(), json!(n));
        r.sections.insert("admissions".into(), json!({"cycles/0001": {"ready": true}}));
        r.sections.insert("zeta".into(), json!([]));
        r.views.push(table("cycles", true));
        r.audit_outcome = (n % 2 == 0).then(|| AuditOutcome {
            basis: "x".into(),
            parts: vec![OutcomePart { label: "y".into(), count: Some(1), tone: Tone::Bad }],
            decision: None,
            tone: Tone::Good,
            decided_by: vec!["z".into()],
        });
        r.finish();
        let mut whole = serde_json::to_string_pretty(&r).unwrap();
        whole.push('\n');
        let pieces = String::from_utf8(render(&r, Format::Json, &Options::default())).unwrap();
        assert!(pieces == whole, "{n} results: the bytes differ");
    }
}
