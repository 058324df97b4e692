//! The verification certificate: one self-contained HTML page for a whole submission, for the
//! journal's archive — what was received (each archive's and bundle's SHA-256, each
//! repository's commit), each record's verdict and audit outcome, the lifecycle figures and
//! the claims check, and the tool and check suite that decided them. Written with maud, so
//! every value from the submission is escaped by construction; it loads nothing and runs no
//! script. It is a pure function of the submission's report, so `attest --replay` can derive
//! it again and compare its digest with the one the signed summary names.

use maud::{DOCTYPE, Markup, PreEscaped, html};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

use crate::render::svg;
use crate::render::table::{NOT_MEASURED, scalar};
use crate::report::{Outcome, Report, Table, Verdict, View};

/// Nothing may load; inline styles only.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

const STYLE: &str = "body{font:15px/1.5 system-ui,sans-serif;max-width:1100px;margin:0 auto;padding:0 20px 40px;color:#1d2329}\
header{margin:20px 0;padding:18px 24px;border-radius:8px;color:#fff}\
header.verified{background:#1a7f37}header.failed{background:#b42318}header.inconclusive{background:#9a6100}\
h1{margin:0;font-size:1.9rem}table{border-collapse:collapse;width:100%;margin:8px 0 20px}\
th,td{border:1px solid #d9dee3;padding:4px 8px;text-align:left;vertical-align:top;overflow-wrap:break-word}\
td code{overflow-wrap:anywhere}table.figures tbody th{width:30%;font-weight:600}.nm,.note,figcaption{color:#5f6b76}.nm{font-style:italic}\
figure{margin:8px 0 20px}figcaption{font-size:.88em}\
th{background:#f5f7f9}code{font-family:ui-monospace,monospace;font-size:.88em}\
td.passed{color:#1a7f37}td.failed{color:#b42318}td.cantTell,td.untested{color:#9a6100}dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px}dt{font-weight:600}";

/// Most results listed in "Checks that did not pass".
const MAX_LISTED: usize = 500;

/// The certificate's bytes.
#[must_use]
pub fn render(report: &Report) -> Vec<u8> {
    let word = match report.outcome {
        Verdict::Verified => "VERIFIED",
        Verdict::Failed => "FAILED",
        Verdict::Inconclusive => "INCONCLUSIVE",
    };
    let page = html! {
        (DOCTYPE) "\n"
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(CSP);
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { "Verification certificate: " (word) }
                style { (PreEscaped(STYLE)) (PreEscaped(svg::STYLE)) }
            }
            body {
                header class=(report.outcome.as_str()) {
                    p { "crossverify verification certificate" }
                    h1 { (word) " (exit " (report.exit_code()) ")" }
                    p { (report.summary.passed) " passed, " (report.summary.failed) " failed, "
                        (report.summary.cant_tell) " could not tell, " (report.summary.untested) " untested" }
                }
                main {
                    (received(report))
                    (records(report))
                    (figures(report))
                    (claims(report))
                    (attention(report))
                    (verifier(report))
                }
            }
        }
    };
    page.into_string().into_bytes()
}

/// The certificate's SHA-256, hex.
#[must_use]
pub fn digest(report: &Report) -> String {
    hex::encode(Sha256::digest(render(report)))
}

fn text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => "—".to_owned(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn received(report: &Report) -> Markup {
    let section = report.sections.get("received");
    let items = section.and_then(|s| s.get("items")).and_then(Value::as_array).cloned().unwrap_or_default();
    let repos = section.and_then(|s| s.get("repositories")).and_then(Value::as_array).cloned().unwrap_or_default();
    html! {
        section id="received" {
            h2 { "What was received" }
            table {
                tr { th { "input" } th { "kind" } th { "SHA-256" } th { "members" } th { "bytes" } }
                @for i in &items {
                    tr { td { code { (text(i.get("name"))) } } td { (text(i.get("kind"))) }
                         td { code { (text(i.get("sha256"))) } } td { (text(i.get("members"))) } td { (text(i.get("bytes"))) } }
                }
            }
            table {
                tr { th { "repository" } th { "HEAD commit" } }
                @for r in &repos {
                    tr { td { code { (text(r.get("repository"))) } } td { code { (text(r.get("head"))) } } }
                }
            }
        }
    }
}

fn records(report: &Report) -> Markup {
    let list = report.sections.get("records").and_then(Value::as_array).cloned().unwrap_or_default();
    html! {
        section id="records" {
            h2 { "Records and their verdicts" }
            table {
                tr { th { "record" } th { "what" } th { "paired with" } th { "verdict" } th { "audit outcome" } th { "command, or why not verified" } }
                @for r in &list {
                    @let outcome = text(r.get("outcome"));
                    tr {
                        td { code { (text(r.get("record"))) } }
                        td { (text(r.get("what"))) }
                        td { (r.get("pairedWith").and_then(Value::as_array).map(|a| a.iter().map(|v| text(Some(v))).collect::<Vec<_>>().join(", ")).unwrap_or_default()) }
                        td class=(outcome) { (if r.get("outcome").is_some_and(|o| !o.is_null()) { outcome.clone() } else { "not verified".to_owned() }) }
                        td { (audit_text(r.get("auditOutcome"))) }
                        td { @if let Some(Value::String(why)) = r.get("unverified") { (why) } @else { code { (text(r.get("command"))) } } }
                    }
                }
            }
        }
    }
}

fn audit_text(v: Option<&Value>) -> String {
    let Some(a) = v.filter(|v| !v.is_null()) else { return "—".to_owned() };
    let parts: Vec<String> = a
        .get("parts")
        .and_then(Value::as_array)
        .map(|ps| {
            ps.iter()
                .map(|p| match p.get("count") {
                    Some(n) => format!("{n} {}", text(p.get("label"))),
                    None => text(p.get("label")),
                })
                .collect()
        })
        .unwrap_or_default();
    let decision = a.get("decision").map(|d| format!(" → {}", text(d.get("label")))).unwrap_or_default();
    format!("{}: {}{decision}", text(a.get("basis")), parts.join(", "))
}

/// The view `id` of `record`, as the submission's report holds it (`<record>/<id>`).
fn record_view<'a>(report: &'a Report, record: &str, id: &str) -> Option<&'a View> {
    let want = format!("{record}/{id}");
    report.views.iter().find(|v| match v {
        View::Table(t) => t.id == want,
        View::Chart(c) => c.id == want,
    })
}

/// A figure's value for people: "not measured" for a figure the records cannot support, never
/// a zero; numbers as the HTML report prints them.
fn value(v: &Value) -> Markup {
    match v {
        Value::Null => html! { span class="nm" { (NOT_MEASURED) } },
        other => html! { (scalar(other)) },
    }
}

/// Each record's lifecycle figures under the names the HTML report and the Markdown give them
/// (the record's `figures` view: figure, value, why a figure is not measured), then the
/// closure-lag plot the HTML report draws. A record without that view lists its top-level
/// figures by their `stats` keys.
fn figures(report: &Report) -> Markup {
    html! {
        section id="figures" {
            h2 { "Lifecycle figures" }
            @if report.stats.is_empty() { p { "No record of the submission gives lifecycle figures." } }
            @for (record, stats) in &report.stats {
                h3 { code { (record) } }
                @if let Some(View::Table(t)) = record_view(report, record, "figures") {
                    (named_figures(t))
                } @else {
                    (keyed_figures(stats))
                }
                @if let Some(View::Chart(c)) = record_view(report, record, "closure-lag") {
                    @let title = c.title.strip_prefix(&format!("{record}: ")).unwrap_or(&c.title);
                    figure {
                        (svg::chart(c, &report.hints))
                        figcaption { b { (title) } @if let Some(note) = &c.note { ". " (note) } }
                    }
                }
            }
            @if !report.stats.is_empty() {
                p class="note" { "A figure the records cannot support is shown as " em { (NOT_MEASURED) }
                    " with the reason, never as 0; the JSON report holds every figure under " code { "stats" } "." }
            }
        }
    }
}

/// The named figures table: its first column names the figure, the others are shown as they are.
fn named_figures(t: &Table) -> Markup {
    html! {
        table class="figures" {
            thead { tr { @for c in &t.columns { th scope="col" { (c) } } } }
            tbody {
                @for row in &t.rows {
                    tr {
                        @for (i, cell) in row.iter().enumerate() {
                            @if i == 0 { th scope="row" { (scalar(cell)) } } @else { td { (value(cell)) } }
                        }
                    }
                }
            }
        }
    }
}

/// A record's top-level scalar figures by their keys, when it has no named table.
fn keyed_figures(stats: &Value) -> Markup {
    let rows: Vec<(&String, &Value)> = stats
        .as_object()
        .map(|m| m.iter().filter(|(_, v)| !v.is_object() && !v.is_array()).collect())
        .unwrap_or_default();
    html! {
        table class="figures" {
            thead { tr { th scope="col" { "figure" } th scope="col" { "value" } } }
            tbody { @for (k, v) in rows { tr { th scope="row" { code { (k) } } td { (value(v)) } } } }
        }
    }
}

fn claims(report: &Report) -> Markup {
    let claims: Vec<_> = report.results.iter().filter(|r| r.code.starts_with("CV-S")).collect();
    html! {
        section id="claims" {
            h2 { "Claims check" }
            @if claims.is_empty() { p { "The submission holds no claims file, or none could be checked (see the records above)." } }
            @else {
                table {
                    tr { th { "code" } th { "outcome" } th { "subject" } th { "message" } }
                    @for r in &claims {
                        tr { td { code { (r.code) } } td class=(r.outcome.as_str()) { (r.outcome.as_str()) } td { (r.subject) } td { (r.message) } }
                    }
                }
            }
        }
    }
}

fn attention(report: &Report) -> Markup {
    let listed: Vec<_> =
        report.results.iter().filter(|r| !matches!(r.outcome, Outcome::Passed | Outcome::Inapplicable)).collect();
    html! {
        section id="attention" {
            h2 { "Checks that did not pass (" (listed.len()) ")" }
            @if !listed.is_empty() {
                table {
                    tr { th { "code" } th { "level" } th { "outcome" } th { "subject" } th { "message" } }
                    @for r in listed.iter().take(MAX_LISTED) {
                        tr { td { code { (r.code) } } td { (r.level.as_str()) } td class=(r.outcome.as_str()) { (r.outcome.as_str()) }
                             td { (r.subject) } td { (r.message) } }
                    }
                }
                @if listed.len() > MAX_LISTED { p { (listed.len() - MAX_LISTED) " more in the JSON report." } }
            }
        }
    }
}

fn verifier(report: &Report) -> Markup {
    let (suite, checks) = super::policy::suite();
    let at = report.inputs.get("verifiedAt").and_then(Value::as_str).unwrap_or("—");
    html! {
        section id="verifier" {
            h2 { "Verified by" }
            dl {
                dt { "tool" } dd { code { (report.tool.name) " " (report.tool.version) } }
                dt { "build commit" } dd { code { (report.tool.commit.as_deref().unwrap_or("—")) } }
                dt { "verified at" } dd { (at) }
                dt { "check suite" } dd { (checks) " checks, SHA-256 " code { (suite) } }
                dt { "policy" } dd { code { (super::policy::POLICY_URI) } }
            }
            p { "This page is self-contained: it loads nothing and runs no script. Its SHA-256 is the subject of the \
                 signed verification summary written beside it (SLSA VSA v1)." }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::report::{Chart, ChartKind, Point};

    /// A submission report whose one record has a hostile name and hostile figure values.
    fn hostile() -> Report {
        let record = "paper/<script>alert(1)</script>.bundle";
        let mut report = Report::new("submission");
        report.stats.insert(
            record.into(),
            json!({"closed": 2, "closed_by_fix_commit": null, "finding_class": {"null": 5}, "cycles": 0}),
        );
        report.views.push(View::Table(Table {
            id: format!("{record}/figures"),
            title: format!("{record}: Headline figures"),
            columns: ["figure", "value", "note"].map(String::from).to_vec(),
            rows: vec![
                vec![json!("cycles"), json!(0), json!("")],
                vec![json!("verified closed"), json!(2), json!("<img src=http://x/a.png>")],
                vec![json!("named by a fix commit"), Value::Null, json!("needs the science repository's log")],
            ],
            note: None,
            csv: false,
        }));
        report.views.push(View::Chart(Chart {
            id: format!("{record}/closure-lag"),
            title: format!("{record}: Closure lag"),
            chart: ChartKind::Histogram,
            y_label: "findings".into(),
            x_label: "positions".into(),
            category_label: String::new(),
            points: vec![
                Point { label: "1".into(), value: Some(2.0), category: None },
                Point { label: "<b>2</b>".into(), value: None, category: None },
            ],
            note: Some("open findings are excluded".into()),
        }));
        report
    }

    fn figures_section(page: &str) -> &str {
        let start = page.find("<section id=\"figures\">").expect("figures section");
        &page[start..start + page[start..].find("</section>").expect("section closes")]
    }

    #[test]
    fn the_lifecycle_section_names_each_figure_and_draws_the_plot() {
        let page = String::from_utf8(render(&hostile())).expect("UTF-8");
        let figures = figures_section(&page);
        assert!(figures.contains("<tr><th scope=\"row\">verified closed</th><td>2</td>"), "{figures}");
        // A measured zero is 0; a figure the records cannot support is never one.
        assert!(figures.contains("<tr><th scope=\"row\">cycles</th><td>0</td>"), "{figures}");
        assert!(
            figures.contains(
                "<tr><th scope=\"row\">named by a fix commit</th><td><span class=\"nm\">not measured</span></td>\
                 <td>needs the science repository&#39;s log</td></tr>"
            ) || figures.contains(
                "<tr><th scope=\"row\">named by a fix commit</th><td><span class=\"nm\">not measured</span></td>\
                 <td>needs the science repository's log</td></tr>"
            ),
            "{figures}"
        );
        assert!(!figures.contains("/finding_class/null"), "no JSON pointer dump: {figures}");
        assert_eq!(figures.matches("<svg class=\"chart\"").count(), 1, "the closure-lag plot: {figures}");
        assert!(
            figures.contains("<figcaption><b>Closure lag</b>. open findings are excluded</figcaption>"),
            "{figures}"
        );
    }

    #[test]
    fn what_the_submission_names_is_escaped_and_nothing_loads() {
        let page = String::from_utf8(render(&hostile())).expect("UTF-8");
        assert!(!page.contains("<script"), "no script");
        assert!(!page.contains("<img"), "no image");
        assert!(!page.contains("<b>2</b>"), "chart labels are escaped");
        assert!(page.contains("paper/&lt;script&gt;alert(1)&lt;/script&gt;.bundle"));
        assert!(page.contains(CSP));
        // Every attribute maud writes is double-quoted, and a quote in the submission's text is
        // escaped, so an attribute naming a place to load from would read `src="` or `href="`.
        for attribute in ["src=\"", "href=\"", "url(http"] {
            assert!(!page.contains(attribute), "{attribute}: a reference outside the page");
        }
    }

    #[test]
    fn a_record_without_named_figures_lists_its_figures_by_key() {
        let mut report = hostile();
        report.views.clear();
        let page = String::from_utf8(render(&report)).expect("UTF-8");
        let figures = figures_section(&page);
        assert!(figures.contains("<th scope=\"row\"><code>closed_by_fix_commit</code></th><td><span class=\"nm\">not measured</span></td>"), "{figures}");
        assert!(!figures.contains("finding_class"), "nested objects stay in the JSON report: {figures}");
        assert!(!figures.contains("<svg"), "no plot without the view");
    }
}
