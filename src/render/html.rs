//! One self-contained HTML page: no script, no external asset, no network, so it can be
//! archived with a submission and opened anywhere. A strict Content-Security-Policy in the
//! page itself makes any accidental external reference fail loudly instead of loading.
//!
//! Reading order: the verdict and the report's headline, the views the report asks to show
//! first (`hints.firstViews`), the other views in report order, then every check that did not
//! pass with its evidence and its doc page, then the per-check counts and the figures.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

use super::commonmark::{inline, markdown};
use super::svg;
use super::table::{NOT_MEASURED, fmt_num, scalar};
use super::xml::esc;
use crate::report::{Chart, ChartKind, CheckResult, Hints, Outcome, Report, Table, Verdict, View};

/// Tables longer than this scroll inside a box with a sticky header, so a 1,000-cycle table
/// neither hides behind a click nor pushes the rest of the page away.
const OPEN_ROWS: usize = 60;
/// Text cells longer than this show their start and fold the rest (a 1,000-word decision
/// sequence is one click away, not a wall).
const LONG_CELL_CHARS: usize = 120;
/// Results shown per check in the "did not pass" section.
const MAX_RESULTS_PER_CHECK: usize = 200;
/// Largest JSON section embedded verbatim.
const MAX_SECTION_BYTES: usize = 64 * 1024;

/// The page's Content-Security-Policy: nothing may load, inline styles only.
pub(crate) const CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const STYLE: &str = include_str!("html.css");

pub(super) fn render(report: &Report) -> String {
    let mut out = String::new();
    let verdict = super::verdict_word(report.outcome);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"{} {}\">\n<title>crossverify {}: {verdict}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n",
        esc(&report.tool.name),
        esc(&report.tool.version),
        esc(&report.command)
    );
    header(&mut out, report);
    out.push_str("<main>\n");
    let docs: Vec<_> = super::text_sections(report).collect();
    for (key, text) in &docs {
        let _ =
            writeln!(out, "<section class=\"doc\" id=\"section-{}\">{}</section>", super::slug(key), markdown(text));
    }
    inputs(&mut out, report);

    let mut views: Vec<&View> = Vec::new();
    let first = &report.hints.first_views;
    for id in first {
        views.extend(report.views.iter().filter(|v| view_id(v) == id));
    }
    views.extend(report.views.iter().filter(|v| !first.iter().any(|id| id == view_id(v))));
    for v in views {
        match v {
            View::Table(t) => table(&mut out, t, &report.hints),
            View::Chart(c) => chart(&mut out, c, &report.hints),
        }
    }
    attention(&mut out, report);
    check_counts(&mut out, report);
    figures(&mut out, report);
    other_sections(&mut out, report);
    out.push_str("</main>\n");
    let _ = write!(
        out,
        "<footer>Written by {} {} · report schema {} · this page is self-contained: it loads nothing and runs no script. \
         Outcomes follow W3C EARL: passed, failed, cantTell (evidence missing or unverifiable), inapplicable, untested \
         (not run here; never a pass).</footer>\n</body>\n</html>\n",
        esc(&report.tool.name),
        esc(&report.tool.version),
        report.schema_version
    );
    out
}

fn view_id(v: &View) -> &str {
    match v {
        View::Table(t) => &t.id,
        View::Chart(c) => &c.id,
    }
}

fn header(out: &mut String, report: &Report) {
    if report.results.is_empty() || report.hints.informational {
        // Nothing was verified (`checks`, `explain`, `manifest`): a verdict banner would claim
        // too much; a derived object's own findings still get their counts.
        let why = if report.results.is_empty() {
            "No check ran; this report only informs."
        } else {
            "This report informs; its findings are listed below."
        };
        let _ = write!(
            out,
            "<header class=\"verdict neutral\">\n<p class=\"kicker\">crossverify · <code>{}</code> report</p>\n\
             <h1>{}</h1>\n<p class=\"why\">{why} <span class=\"exit\">exit code {}</span></p>\n",
            esc(&report.command),
            esc(&capitalise_word(&report.command)),
            report.exit_code()
        );
    } else {
        let class = report.outcome.as_str();
        let icon = match report.outcome {
            Verdict::Verified => "✓",
            Verdict::Failed => "✗",
            Verdict::Inconclusive => "!",
        };
        let integrity = report
            .audit_outcome
            .as_ref()
            .map_or_else(String::new, |_| format!(" <small>{}</small>", super::integrity_word(report)));
        let _ = write!(
            out,
            "<header class=\"verdict {class}\">\n<p class=\"kicker\">crossverify · <code>{}</code> report</p>\n\
             <h1><span class=\"icon\" aria-hidden=\"true\">{icon}</span> {}{integrity}</h1>\n<p class=\"why\">{} <span class=\"exit\">exit code {}</span></p>\n",
            esc(&report.command),
            super::verdict_word(report.outcome),
            esc(&capitalise(&super::verdict_reason(report))),
            report.exit_code()
        );
        deciding(out, report);
        audit_outcome(out, report);
    }
    if let Some((label, text)) = &report.hints.headline {
        let _ = writeln!(out, "<p class=\"headline\"><b>{}:</b> {}</p>", esc(label), esc(text));
    }
    let s = &report.summary;
    if s.total > 0 {
        out.push_str("<ul class=\"counts\">");
        for (n, label, cls) in super::count_pills(s) {
            let _ = write!(out, "<li class=\"{cls}{}\"><b>{n}</b> {label}</li>", if n == 0 { " zero" } else { "" });
        }
        out.push_str("</ul>\n");
        let attention = s.failed + s.cant_tell + s.untested;
        if attention > 0 {
            let _ = writeln!(
                out,
                "<p class=\"jump\"><a href=\"#attention\">{attention} result{} did not pass: evidence and explanations below ↓</a></p>",
                if attention == 1 { "" } else { "s" }
            );
        }
    }
    out.push_str("</header>\n");
}

/// The results that decided the verdict, named in the banner: code, subject and message, one
/// line each, linked to their evidence below.
fn deciding(out: &mut String, report: &Report) {
    let (lines, more) = super::deciding_lines(report);
    if lines.is_empty() {
        return;
    }
    out.push_str("<ul class=\"deciding\">");
    for (line, r) in lines.iter().zip(report.deciding()) {
        let _ = write!(out, "<li><a href=\"#check-{}\">{}</a></li>", esc(&r.code), esc(line));
    }
    if more > 0 {
        let _ = write!(out, "<li class=\"more\">{}</li>", esc(&super::more_line(more)));
    }
    out.push_str("</ul>\n");
}

/// What the records decided about the work, on a white card inside the banner so its colour
/// is never read as the verdict's.
fn audit_outcome(out: &mut String, report: &Report) {
    let Some(a) = &report.audit_outcome else { return };
    let badge = |p: &crate::report::OutcomePart| {
        format!("<span class=\"badge {}\">{}</span>", super::colors(p.tone).css, esc(&p.text()))
    };
    let parts: Vec<String> = a.parts.iter().map(badge).collect();
    let decision =
        a.decision.as_ref().map_or_else(String::new, |d| format!(" <span class=\"sep\">→</span> {}", badge(d)));
    let _ = writeln!(
        out,
        "<p class=\"audit-outcome tone-{}\"><b>Audit outcome</b> <span class=\"basis\">({})</span> {}{decision}</p>",
        super::colors(a.tone).css,
        esc(&a.basis),
        parts.join(" ")
    );
}

fn inputs(out: &mut String, report: &Report) {
    if report.inputs.is_empty() {
        return;
    }
    let heading = if report.results.is_empty() { "Inputs" } else { "What was verified" };
    let _ = write!(out, "<section id=\"inputs\"><h2>{heading}</h2><dl class=\"inputs\">");
    for (k, v) in &report.inputs {
        let _ = write!(out, "<dt>{}</dt><dd><code>{}</code></dd>", esc(k), esc(&scalar(v)));
    }
    out.push_str("</dl></section>\n");
}

fn table(out: &mut String, t: &Table, hints: &Hints) {
    let id = super::slug(&t.id);
    let _ = writeln!(out, "<section class=\"view\" id=\"view-{id}\"><h2>{}</h2>", esc(&t.title));
    let collapsed = t.rows.len() > OPEN_ROWS;
    if collapsed {
        let _ = writeln!(
            out,
            "<p class=\"note\">{} rows: the table scrolls, its header stays; <code>--format csv</code> has them as a file.</p>",
            t.rows.len()
        );
    }
    // A column holding numbers is right-aligned throughout, "not measured" cells included.
    let numeric: Vec<bool> =
        (0..t.columns.len()).map(|i| t.rows.iter().any(|r| r.get(i).is_some_and(Value::is_number))).collect();
    // Many columns get a denser type so a 1,280 px page holds them without sideways scrolling;
    // column names may break after `_` (`closed_confirmed_in`).
    let wide = if t.columns.len() > 8 { " class=\"wide\"" } else { "" };
    let _ = write!(out, "<div class=\"scroll{}\"><table{wide}><thead><tr>", if collapsed { " tall" } else { "" });
    for (i, c) in t.columns.iter().enumerate() {
        let cls = if numeric.get(i) == Some(&true) { " class=\"num\"" } else { "" };
        let _ = write!(out, "<th scope=\"col\"{cls}>{}</th>", esc(c).replace('_', "_<wbr>"));
    }
    out.push_str("</tr></thead><tbody>\n");
    for row in &t.rows {
        out.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            let tag = if i == 0 { "th scope=\"row\"" } else { "td" };
            let close = if i == 0 { "th" } else { "td" };
            let mut cls = cell_class(cell, hints);
            if numeric.get(i) == Some(&true) && cell.is_null() {
                cls = " class=\"nm num\"".to_owned();
            }
            let _ = write!(out, "<{tag}{cls}>{}</{close}>", cell_html(cell, hints));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
    if let Some(n) = &t.note {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", inline(n));
    }
    out.push_str("</section>\n");
}

fn cell_class(v: &Value, hints: &Hints) -> String {
    match v {
        Value::Null => " class=\"nm\"".to_owned(),
        Value::Number(_) => " class=\"num\"".to_owned(),
        Value::String(s) => match word_class(s, hints) {
            Some(c) => format!(" class=\"{c}\""),
            None => String::new(),
        },
        _ => String::new(),
    }
}

fn cell_html(v: &Value, hints: &Hints) -> String {
    match v {
        Value::Null => NOT_MEASURED.to_owned(),
        Value::String(s) if s.chars().count() > LONG_CELL_CHARS => {
            let head: String = s.chars().take(LONG_CELL_CHARS / 2).collect();
            format!(
                "<details class=\"long\"><summary>{}… <span class=\"note\">({} characters)</span></summary>{}</details>",
                esc(&head),
                s.chars().count(),
                esc(s)
            )
        }
        Value::String(s) if word_class(s, hints).is_some() => format!("<span class=\"badge\">{}</span>", esc(s)),
        other => {
            let (shown, full) = (super::table::cell(other), scalar(other));
            // A shortened commit id keeps every digit in its tooltip, for copying.
            if shown == full { esc(&shown) } else { format!("<code title=\"{}\">{}</code>", esc(&full), esc(&shown)) }
        }
    }
}

/// Status words that get a coloured badge.
fn word_class(s: &str, hints: &Hints) -> Option<&'static str> {
    hints.tone(s).map(|t| super::colors(t).css)
}

fn chart(out: &mut String, c: &Chart, hints: &Hints) {
    let id = super::slug(&c.id);
    let _ = write!(out, "<section class=\"view\" id=\"view-{id}\"><h2>{}</h2>\n<figure>", esc(&c.title));
    out.push_str(&svg::chart(c, hints));
    let missing = c.points.iter().filter(|p| p.value.is_none()).count();
    let mut caption = String::new();
    if let Some(n) = &c.note {
        caption.push_str(&inline(n));
    }
    if missing > 0 {
        let how = if c.chart == ChartKind::Timeline {
            format!("{} is marked n/m in the cell, never 0", esc(&c.y_label))
        } else {
            "drawn as hatched gaps, never as 0".to_owned()
        };
        let _ = write!(
            caption,
            "{}<span class=\"nm\">{missing} of {} point{} not measured</span>: {how}.",
            if caption.is_empty() { "" } else { " " },
            c.points.len(),
            if c.points.len() == 1 { "" } else { "s" }
        );
    }
    if !caption.is_empty() {
        let _ = write!(out, "<figcaption>{caption}</figcaption>");
    }
    out.push_str("</figure></section>\n");
}

fn attention(out: &mut String, report: &Report) {
    let notable: Vec<&CheckResult> = report
        .results
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Failed | Outcome::CantTell | Outcome::Untested))
        .collect();
    if notable.is_empty() {
        return;
    }
    let mut by_code: BTreeMap<&str, Vec<&CheckResult>> = BTreeMap::new();
    for r in notable {
        by_code.entry(&r.code).or_default().push(r);
    }
    out.push_str(
        "<section id=\"attention\"><h2>Checks that did not pass</h2>\n<p class=\"lede\">Each check below lists every subject it \
         failed on or could not decide, with the evidence crossverify saw. Open <em>What this check does</em> for its \
         full documentation.</p>\n",
    );
    for (code, results) in by_code {
        let check = report.checks.get(code);
        let mut counts: BTreeMap<Outcome, usize> = BTreeMap::new();
        for r in &results {
            *counts.entry(r.outcome).or_default() += 1;
        }
        let worst = match results.iter().filter_map(|r| super::result_tone(r)).min() {
            Some(crate::report::Tone::Bad) => "bad",
            Some(crate::report::Tone::Neutral) => "muted",
            _ => "warn",
        };
        let tally: Vec<String> = counts.iter().map(|(o, n)| format!("{n} {}", o.as_str())).collect();
        let _ = writeln!(
            out,
            "<details class=\"check {worst}\" id=\"check-{code}\" open><summary><code>{}</code> <b>{}</b> \
             <span class=\"level\">{}</span> <span class=\"tally\">{}</span></summary>",
            esc(code),
            esc(check.map_or("", |c| c.name.as_str())),
            esc(results[0].level.as_str()),
            esc(&tally.join(", "))
        );
        if let Some(c) = check {
            let _ = writeln!(out, "<p class=\"summary\">{}</p>", inline(&c.summary));
            let _ = writeln!(
                out,
                "<details class=\"docpage\"><summary>What this check does</summary><div class=\"doc\">{}</div>\
                 <p class=\"note\">Online: <a href=\"{}\">{}</a></p></details>",
                markdown(&c.page),
                esc(&c.help_uri),
                esc(&c.help_uri)
            );
        } else {
            let _ = writeln!(
                out,
                "<p class=\"note\">This build of crossverify does not know check {}; its page may be at <a href=\"{}\">{}</a>.</p>",
                esc(code),
                esc(&super::help_uri(report, code)),
                esc(&super::help_uri(report, code))
            );
        }
        out.push_str("<ol class=\"results\">\n");
        for r in results.iter().take(MAX_RESULTS_PER_CHECK) {
            result(out, r);
        }
        out.push_str("</ol>\n");
        if results.len() > MAX_RESULTS_PER_CHECK {
            let _ = writeln!(
                out,
                "<p class=\"note\">{} more results for this check are in <code>--format json</code> and <code>--format csv</code>.</p>",
                results.len() - MAX_RESULTS_PER_CHECK
            );
        }
        out.push_str("</details>\n");
    }
    out.push_str("</section>\n");
}

fn result(out: &mut String, r: &CheckResult) {
    let cls = super::result_tone(r).map_or("warn", |t| super::colors(t).css);
    let _ = write!(
        out,
        "<li><span class=\"badge {cls}\">{}</span> {}<span class=\"msg\">{}</span>",
        esc(r.outcome.as_str()),
        if r.subject.is_empty() {
            String::new()
        } else {
            format!("<code class=\"subject\">{}</code> ", esc(&r.subject))
        },
        esc(&r.message)
    );
    let mut rows: Vec<(String, String)> = Vec::new();
    if let Some(loc) = &r.location {
        for (k, v) in [("repository", &loc.repository), ("path", &loc.path), ("commit", &loc.commit)] {
            if let Some(v) = v {
                rows.push((k.to_owned(), format!("<code>{}</code>", esc(v))));
            }
        }
    }
    for (k, v) in &r.evidence {
        let shown = match v {
            Value::Null => "<span class=\"nm\">not available</span>".to_owned(),
            Value::String(s) => format!("<code>{}</code>", esc(s)),
            Value::Number(_) | Value::Bool(_) => format!("<code>{}</code>", esc(&v.to_string())),
            other => {
                format!("<pre>{}</pre>", esc(&serde_json::to_string_pretty(other).expect("evidence is JSON-safe")))
            }
        };
        rows.push((k.clone(), shown));
    }
    if !rows.is_empty() {
        out.push_str("<table class=\"evidence\"><tbody>");
        for (k, v) in rows {
            let _ = write!(out, "<tr><th scope=\"row\">{}</th><td>{v}</td></tr>", esc(&k));
        }
        out.push_str("</tbody></table>");
    }
    out.push_str("</li>\n");
}

fn check_counts(out: &mut String, report: &Report) {
    if report.results.is_empty() {
        return;
    }
    let mut by_code: BTreeMap<&str, (&CheckResult, [usize; 5])> = BTreeMap::new();
    for r in &report.results {
        let e = by_code.entry(&r.code).or_insert((r, [0; 5]));
        e.1[Outcome::ALL.iter().position(|o| *o == r.outcome).expect("ALL lists every outcome")] += 1;
    }
    out.push_str("<section id=\"checks\"><h2>Every check run</h2><div class=\"scroll\"><table><thead><tr><th scope=\"col\">code</th><th scope=\"col\">check</th><th scope=\"col\">level</th>");
    for o in Outcome::ALL {
        let _ = write!(out, "<th scope=\"col\" class=\"num\">{}</th>", o.as_str());
    }
    out.push_str("</tr></thead><tbody>\n");
    for (code, (first, counts)) in by_code {
        let check = report.checks.get(code);
        let has_attention = counts[1] + counts[2] + counts[4] > 0;
        let code_html = if has_attention {
            format!("<a href=\"#check-{code}\"><code>{}</code></a>", esc(code))
        } else {
            format!("<a href=\"{}\"><code>{}</code></a>", esc(&super::help_uri(report, code)), esc(code))
        };
        let _ = write!(
            out,
            "<tr><th scope=\"row\">{code_html}</th><td>{}<br><span class=\"note\">{}</span></td><td>{}</td>",
            esc(check.map_or("", |c| c.name.as_str())),
            esc(check.map_or("", |c| c.summary.as_str())),
            esc(first.level.as_str())
        );
        for (o, n) in Outcome::ALL.iter().zip(counts) {
            let cls = match (o, n) {
                (_, 0) => "num zero",
                (Outcome::Passed, _) => "num good",
                // A failure at level info is context, never in the colour of failure.
                (Outcome::Failed, _) if first.level == crate::report::Level::Info => "num",
                (Outcome::Failed, _) => "num bad",
                (Outcome::CantTell | Outcome::Untested, _) => "num warn",
                (Outcome::Inapplicable, _) => "num",
            };
            let _ = write!(out, "<td class=\"{cls}\">{n}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div></section>\n");
}

fn figures(out: &mut String, report: &Report) {
    if report.stats.is_empty() {
        return;
    }
    out.push_str("<section id=\"figures\"><h2>Figures</h2><div class=\"scroll\"><table class=\"figures\"><tbody>\n");
    for (k, v) in &report.stats {
        let shown = match v {
            Value::Null => format!("<span class=\"nm\">{NOT_MEASURED}</span>"),
            Value::Object(_) | Value::Array(_) => {
                let text = v.to_string();
                if let Some(flat) = flat_figure(v).filter(|f| f.len() <= 240) {
                    flat
                } else if text.len() <= 160 {
                    format!("<code>{}</code>", esc(&text))
                } else {
                    format!(
                        "<details><summary>{} entries</summary><pre>{}</pre></details>",
                        v.as_object().map_or_else(|| v.as_array().map_or(0, Vec::len), serde_json::Map::len),
                        esc(&truncate(&serde_json::to_string_pretty(v).expect("stats are JSON-safe")))
                    )
                }
            }
            Value::Number(n) => n.as_f64().map_or_else(|| esc(&n.to_string()), fmt_num),
            other => esc(&scalar(other)),
        };
        let _ = writeln!(out, "<tr><th scope=\"row\"><code>{}</code></th><td>{shown}</td></tr>", esc(k));
    }
    out.push_str("</tbody></table></div>\n<p class=\"note\">A figure the input cannot support is shown as <em>not measured</em>, never as 0.</p></section>\n");
}

/// `{"median": 1, "max": 4}` → `median 1 · max 4`; `[7, null]` → `7, not measured`; `None`
/// when a member is itself nested.
fn flat_figure(v: &Value) -> Option<String> {
    let one = |x: &Value| match x {
        Value::Null => Some(format!("<span class=\"nm\">{NOT_MEASURED}</span>")),
        Value::Number(n) => Some(n.as_f64().map_or_else(|| esc(&n.to_string()), fmt_num)),
        Value::String(s) => Some(esc(s)),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    };
    match v {
        Value::Object(m) => {
            let parts: Option<Vec<String>> =
                m.iter().map(|(k, x)| one(x).map(|x| format!("{} <b>{x}</b>", esc(k)))).collect();
            parts.map(|p| p.join(" · "))
        }
        Value::Array(a) => a.iter().map(one).collect::<Option<Vec<_>>>().map(|p| p.join(", ")),
        _ => None,
    }
}

fn other_sections(out: &mut String, report: &Report) {
    let objects: Vec<_> = report.sections.iter().filter(|(_, v)| !v.is_string()).collect();
    if objects.is_empty() {
        return;
    }
    out.push_str("<section id=\"sections\"><h2>Details</h2>\n");
    for (k, v) in objects {
        let text = serde_json::to_string_pretty(v).expect("sections are JSON-safe");
        let _ = writeln!(
            out,
            "<details id=\"section-{}\"><summary><code>{}</code></summary><pre>{}</pre></details>",
            super::slug(k),
            esc(k),
            esc(&truncate(&text))
        );
    }
    out.push_str("</section>\n");
}

fn truncate(text: &str) -> String {
    if text.len() <= MAX_SECTION_BYTES {
        return text.to_owned();
    }
    let mut end = MAX_SECTION_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n… cut at {} KiB; --format json has all of it.", &text[..end], MAX_SECTION_BYTES / 1024)
}

fn capitalise_word(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().collect::<String>() + c.as_str())
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().collect::<String>() + c.as_str()) + "."
}
