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

use crate::report::{Outcome, Report, Verdict};

/// Nothing may load; inline styles only.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

const STYLE: &str = "body{font:15px/1.5 system-ui,sans-serif;max-width:1100px;margin:0 auto;padding:0 20px 40px;color:#1d2329}\
header{margin:20px 0;padding:18px 24px;border-radius:8px;color:#fff}\
header.verified{background:#1a7f37}header.failed{background:#b42318}header.inconclusive{background:#9a6100}\
h1{margin:0;font-size:1.9rem}table{border-collapse:collapse;width:100%;margin:8px 0 20px}\
th,td{border:1px solid #d9dee3;padding:4px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}\
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
                style { (PreEscaped(STYLE)) }
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

/// A figure object's scalar values, nested ones by their path (`/closure_lag/median`).
fn flat(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                flat(&format!("{prefix}/{k}"), v, out);
            }
        }
        Value::Array(_) => {}
        other => out.push((prefix.to_owned(), text(Some(other)))),
    }
}

/// Each record's scalar figures.
fn figures(report: &Report) -> Markup {
    let each: Vec<(&String, Vec<(String, String)>)> = report
        .stats
        .iter()
        .map(|(record, stats)| {
            let mut rows = Vec::new();
            flat("", stats, &mut rows);
            (record, rows)
        })
        .collect();
    html! {
        section id="figures" {
            h2 { "Lifecycle figures" }
            @if each.is_empty() { p { "No record of the submission gives lifecycle figures." } }
            @for (record, rows) in &each {
                h3 { code { (record) } }
                table {
                    tr { th { "figure" } th { "value" } }
                    @for (k, v) in rows.iter().take(200) { tr { td { code { (k) } } td { (v) } } }
                }
            }
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
