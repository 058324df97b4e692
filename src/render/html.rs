//! One self-contained HTML page: no script, no external asset, no network, so it can be
//! archived with a submission and opened anywhere. A strict Content-Security-Policy in the
//! page itself makes any accidental external reference fail loudly instead of loading.
//!
//! Reading order: the verdict and the report's headline, the views the report asks to show
//! first (`hints.firstViews`), the other views in report order, then every check that did not
//! pass with its evidence and its doc page, then the per-check counts and the figures.
//!
//! The markup is maud's: every value spliced in is escaped (`&<>"`) by construction, and
//! attributes are always double-quoted, so `'` needs no escape. The only markup taken as is
//! comes from [`doc`] (the Markdown, see there), the stylesheet and the SVG charts, which are
//! maud's too.

use std::collections::BTreeMap;

use maud::{DOCTYPE, Markup, PreEscaped, html};
use serde_json::Value;

use super::commonmark;
use super::svg;
use super::table::{NOT_MEASURED, fmt_num, scalar};
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
    let verdict = super::verdict_word(report.outcome);
    let page = html! {
        (DOCTYPE) "\n"
        html lang="en" {
            "\n"
            head {
                "\n"
                meta charset="utf-8"; "\n"
                meta http-equiv="Content-Security-Policy" content=(CSP); "\n"
                meta name="viewport" content="width=device-width, initial-scale=1"; "\n"
                meta name="generator" content={ (report.tool.name) " " (report.tool.version) }; "\n"
                title { "crossverify " (report.command) ": " (verdict) } "\n"
                // Our own stylesheet, verbatim: `<style>` holds raw text, where escaping would
                // corrupt it rather than protect it.
                style { "\n" (PreEscaped(STYLE)) (PreEscaped(svg::STYLE)) } "\n"
            } "\n"
            body {
                "\n"
                (header(report))
                main {
                    "\n"
                    @for (key, text) in super::text_sections(report) {
                        section class="doc" id={ "section-" (super::slug(key)) } { (doc(text)) } "\n"
                    }
                    (inputs(report))
                    @for v in ordered_views(report) {
                        @match v {
                            View::Table(t) => (table(t, &report.hints)),
                            View::Chart(c) => (chart(c, &report.hints)),
                        }
                    }
                    (attention(report))
                    (check_counts(report))
                    (figures(report))
                    (other_sections(report))
                } "\n"
                footer {
                    "Written by " (report.tool.name) " " (report.tool.version) " · report schema "
                    (report.schema_version) " · this page is self-contained: it loads nothing and runs no script. \
                     Outcomes follow W3C EARL: passed, failed, cantTell (evidence missing or unverifiable), \
                     inapplicable, untested (not run here; never a pass)."
                } "\n"
            } "\n"
        } "\n"
    };
    without_controls(page.into_string())
}

/// `page` with every control character other than newline and tab replaced by U+FFFD: the
/// HTML parser reports them as errors and XML 1.0 (an SVG read on its own) cannot carry them.
/// The page's own markup has none, so this touches text from the report alone.
fn without_controls(page: String) -> String {
    let stray = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !page.contains(stray) {
        return page;
    }
    page.chars().map(|c| if stray(c) { '\u{FFFD}' } else { c }).collect()
}

/// Markdown of the report (doc pages, notes, summaries) as HTML. `commonmark` builds it from
/// pulldown-cmark's events: it writes every text, code and raw-HTML event through the escaper
/// and emits only its own fixed tags, so what it returns is already markup, not text.
fn doc(md: &str) -> Markup {
    PreEscaped(commonmark::markdown(md))
}

/// One line of Markdown (a note, a summary) as HTML, without a paragraph; see [`doc`].
fn doc_inline(md: &str) -> Markup {
    PreEscaped(commonmark::inline(md))
}

fn view_id(v: &View) -> &str {
    match v {
        View::Table(t) => &t.id,
        View::Chart(c) => &c.id,
    }
}

/// The views the report asks to show first, in that order, then the others in report order.
fn ordered_views(report: &Report) -> Vec<&View> {
    let mut views: Vec<&View> = Vec::new();
    let first = &report.hints.first_views;
    for id in first {
        views.extend(report.views.iter().filter(|v| view_id(v) == id));
    }
    views.extend(report.views.iter().filter(|v| !first.iter().any(|id| id == view_id(v))));
    views
}

fn header(report: &Report) -> Markup {
    html! {
        @if report.results.is_empty() || report.hints.informational {
            header class="verdict neutral" { "\n" (informs(report)) (header_rest(report)) }
        } @else {
            header class={ "verdict " (report.outcome.as_str()) } {
                "\n" (banner(report)) (deciding(report)) (audit_outcome(report)) (header_rest(report))
            }
        }
        "\n"
    }
}

/// The top of a report that verified nothing (`checks`, `explain`, `manifest`): a verdict
/// banner would claim too much; a derived object's own findings still get their counts.
fn informs(report: &Report) -> Markup {
    let why = if report.results.is_empty() {
        "No check ran; this report only informs."
    } else {
        "This report informs; its findings are listed below."
    };
    html! { (kicker(report)) h1 { (capitalise_word(&report.command)) } "\n" (why_line(report, why)) }
}

/// `crossverify · <command> report`, above the verdict.
fn kicker(report: &Report) -> Markup {
    html! { p class="kicker" { "crossverify · " code { (report.command) } " report" } "\n" }
}

/// The sentence under the verdict, with the exit code.
fn why_line(report: &Report, sentence: &str) -> Markup {
    html! { p class="why" { (sentence) " " span class="exit" { "exit code " (report.exit_code()) } } "\n" }
}

/// The verdict, its icon and the sentence that explains it.
fn banner(report: &Report) -> Markup {
    let icon = match report.outcome {
        Verdict::Verified => "✓",
        Verdict::Failed => "✗",
        Verdict::Inconclusive => "!",
    };
    html! {
        (kicker(report))
        h1 {
            span class="icon" aria-hidden="true" { (icon) } " " (super::verdict_word(report.outcome))
            @if report.audit_outcome.is_some() { " " small { (super::integrity_word(report)) } }
        } "\n"
        (why_line(report, &capitalise(&super::verdict_reason(report))))
    }
}

/// The headline, the counts and the jump to what did not pass, under either kind of top.
fn header_rest(report: &Report) -> Markup {
    let s = &report.summary;
    let counts = super::count_pills(s);
    let attention = s.failed + s.cant_tell + s.untested;
    html! {
        @if let Some((label, text)) = &report.hints.headline {
            p class="headline" { b { (label) ":" } " " (text) } "\n"
        }
        @if s.total > 0 {
            ul class="counts" {
                @for (n, label, cls) in counts {
                    li class={ (cls) @if n == 0 { " zero" } } { b { (n) } " " (label) }
                }
            } "\n"
            @if attention > 0 {
                p class="jump" {
                    a href="#attention" {
                        (attention) " result" @if attention != 1 { "s" }
                        " did not pass: evidence and explanations below ↓"
                    }
                } "\n"
            }
        }
    }
}

/// The results that decided the verdict, named in the banner: code, subject and message, one
/// line each, linked to their evidence below.
fn deciding(report: &Report) -> Markup {
    let (lines, more) = super::deciding_lines(report);
    html! {
        @if !lines.is_empty() {
            ul class="deciding" {
                @for (line, r) in lines.iter().zip(report.deciding()) {
                    li { a href={ "#check-" (r.code) } { (line) } }
                }
                @if more > 0 { li class="more" { (super::more_line(more)) } }
            } "\n"
        }
    }
}

/// What the records decided about the work, on a white card inside the banner so its colour
/// is never read as the verdict's.
fn audit_outcome(report: &Report) -> Markup {
    let Some(a) = &report.audit_outcome else { return html! {} };
    let badge = |p: &crate::report::OutcomePart| {
        html! { span class={ "badge " (super::colors(p.tone).css) } { (p.text()) } }
    };
    html! {
        p class={ "audit-outcome tone-" (super::colors(a.tone).css) } {
            b { "Audit outcome" } " " span class="basis" { "(" (a.basis) ")" } " "
            @for (i, p) in a.parts.iter().enumerate() { @if i > 0 { " " } (badge(p)) }
            @if let Some(d) = &a.decision { " " span class="sep" { "→" } " " (badge(d)) }
        } "\n"
    }
}

fn inputs(report: &Report) -> Markup {
    let heading = if report.results.is_empty() { "Inputs" } else { "What was verified" };
    html! {
        @if !report.inputs.is_empty() {
            section id="inputs" {
                h2 { (heading) }
                dl class="inputs" {
                    @for (k, v) in &report.inputs { dt { (k) } dd { code { (scalar(v)) } } }
                }
            } "\n"
        }
    }
}

fn table(t: &Table, hints: &Hints) -> Markup {
    let collapsed = t.rows.len() > OPEN_ROWS;
    // A column holding numbers is right-aligned throughout, "not measured" cells included.
    let numeric: Vec<bool> =
        (0..t.columns.len()).map(|i| t.rows.iter().any(|r| r.get(i).is_some_and(Value::is_number))).collect();
    let is_numeric = |i: usize| numeric.get(i) == Some(&true);
    // Many columns get a denser type so a 1,280 px page holds them without sideways scrolling;
    // column names may break after `_` (`closed_confirmed_in`).
    let wide = (t.columns.len() > 8).then_some("wide");
    html! {
        section class="view" id={ "view-" (super::slug(&t.id)) } {
            h2 { (t.title) } "\n"
            @if collapsed {
                p class="note" {
                    (t.rows.len()) " rows: the table scrolls, its header stays; " code { "--format csv" }
                    " has them as a file."
                } "\n"
            }
            div class={ "scroll" @if collapsed { " tall" } } {
                table class=[wide] {
                    thead { tr {
                        @for (i, c) in t.columns.iter().enumerate() {
                            th scope="col" class=[is_numeric(i).then_some("num")] {
                                @for (k, part) in c.split('_').enumerate() { @if k > 0 { "_" wbr; } (part) }
                            }
                        }
                    } }
                    tbody {
                        "\n"
                        @for row in &t.rows {
                            tr {
                                @for (i, cell) in row.iter().enumerate() {
                                    @let cls = if is_numeric(i) && cell.is_null() {
                                        Some("nm num".to_owned())
                                    } else {
                                        cell_class(cell, hints)
                                    };
                                    @if i == 0 {
                                        th scope="row" class=[cls] { (cell_html(cell, hints)) }
                                    } @else {
                                        td class=[cls] { (cell_html(cell, hints)) }
                                    }
                                }
                            } "\n"
                        }
                    }
                }
            } "\n"
            @if let Some(n) = &t.note { p class="note" { (doc_inline(n)) } "\n" }
        } "\n"
    }
}

fn cell_class(v: &Value, hints: &Hints) -> Option<String> {
    match v {
        Value::Null => Some("nm".to_owned()),
        Value::Number(_) => Some("num".to_owned()),
        Value::String(s) => word_class(s, hints).map(str::to_owned),
        _ => None,
    }
}

fn cell_html(v: &Value, hints: &Hints) -> Markup {
    match v {
        Value::Null => html! { (NOT_MEASURED) },
        Value::String(s) if s.chars().count() > LONG_CELL_CHARS => {
            let head: String = s.chars().take(LONG_CELL_CHARS / 2).collect();
            html! {
                details class="long" {
                    summary { (head) "… " span class="note" { "(" (s.chars().count()) " characters)" } }
                    (s)
                }
            }
        }
        Value::String(s) if word_class(s, hints).is_some() => html! { span class="badge" { (s) } },
        other => {
            let (shown, full) = (super::table::cell(other), scalar(other));
            // A shortened commit id keeps every digit in its tooltip, for copying.
            html! { @if shown == full { (shown) } @else { code title=(full) { (shown) } } }
        }
    }
}

/// Status words that get a coloured badge.
fn word_class(s: &str, hints: &Hints) -> Option<&'static str> {
    hints.tone(s).map(|t| super::colors(t).css)
}

fn chart(c: &Chart, hints: &Hints) -> Markup {
    let missing = c.points.iter().filter(|p| p.value.is_none()).count();
    let note = c.note.as_deref().map(commonmark::inline).unwrap_or_default();
    html! {
        section class="view" id={ "view-" (super::slug(&c.id)) } {
            h2 { (c.title) } "\n"
            figure {
                (svg::chart(c, hints))
                @if !note.is_empty() || missing > 0 {
                    figcaption {
                        // The note is Markdown made markup by `commonmark`; see `doc`.
                        (PreEscaped(&note))
                        @if missing > 0 {
                            @if !note.is_empty() { " " }
                            span class="nm" {
                                (missing) " of " (c.points.len()) " point" @if c.points.len() != 1 { "s" }
                                " not measured"
                            }
                            ": "
                            @if c.chart == ChartKind::Timeline {
                                (c.y_label) " is marked n/m in the cell, never 0"
                            } @else {
                                "drawn as hatched gaps, never as 0"
                            }
                            "."
                        }
                    }
                }
            }
        } "\n"
    }
}

fn attention(report: &Report) -> Markup {
    let mut by_code: BTreeMap<&str, Vec<&CheckResult>> = BTreeMap::new();
    for r in &report.results {
        if matches!(r.outcome, Outcome::Failed | Outcome::CantTell | Outcome::Untested) {
            by_code.entry(&r.code).or_default().push(r);
        }
    }
    html! {
        @if !by_code.is_empty() {
            section id="attention" {
                h2 { "Checks that did not pass" } "\n"
                p class="lede" {
                    "Each check below lists every subject it failed on or could not decide, with the evidence \
                     crossverify saw. Open " em { "What this check does" } " for its full documentation."
                } "\n"
                @for (code, results) in by_code { (attention_check(report, code, &results)) }
            } "\n"
        }
    }
}

/// One check that did not pass: its name and tally, its documentation and its results.
fn attention_check(report: &Report, code: &str, results: &[&CheckResult]) -> Markup {
    let check = report.checks.get(code);
    let mut counts: BTreeMap<Outcome, usize> = BTreeMap::new();
    for r in results {
        *counts.entry(r.outcome).or_default() += 1;
    }
    let worst = match results.iter().filter_map(|r| super::result_tone(r)).min() {
        Some(crate::report::Tone::Bad) => "bad",
        Some(crate::report::Tone::Neutral) => "muted",
        _ => "warn",
    };
    let tally: Vec<String> = counts.iter().map(|(o, n)| format!("{n} {}", o.as_str())).collect();
    html! {
        details class={ "check " (worst) } id={ "check-" (code) } open {
            summary {
                code { (code) } " " b { (check.map_or("", |c| c.name.as_str())) } " "
                span class="level" { (results[0].level.as_str()) } " " span class="tally" { (tally.join(", ")) }
            } "\n"
            @if let Some(c) = check {
                p class="summary" { (doc_inline(&c.summary)) } "\n"
                details class="docpage" {
                    summary { "What this check does" }
                    div class="doc" { (doc(&c.page)) }
                    p class="note" { "Online: " a href=(c.help_uri) { (c.help_uri) } }
                } "\n"
            } @else {
                @let uri = super::help_uri(report, code);
                p class="note" {
                    "This build of crossverify does not know check " (code) "; its page may be at "
                    a href=(uri) { (uri) } "."
                } "\n"
            }
            ol class="results" {
                "\n"
                @for r in results.iter().take(MAX_RESULTS_PER_CHECK) { (result(r)) }
            } "\n"
            @if results.len() > MAX_RESULTS_PER_CHECK {
                p class="note" {
                    (results.len() - MAX_RESULTS_PER_CHECK) " more results for this check are in "
                    code { "--format json" } " and " code { "--format csv" } "."
                } "\n"
            }
        } "\n"
    }
}

fn result(r: &CheckResult) -> Markup {
    let cls = super::result_tone(r).map_or("warn", |t| super::colors(t).css);
    let mut rows: Vec<(&str, Markup)> = Vec::new();
    if let Some(loc) = &r.location {
        for (k, v) in [("repository", &loc.repository), ("path", &loc.path), ("commit", &loc.commit)] {
            if let Some(v) = v {
                rows.push((k, html! { code { (v) } }));
            }
        }
    }
    for (k, v) in &r.evidence {
        let shown = match v {
            Value::Null => html! { span class="nm" { "not available" } },
            Value::String(s) => html! { code { (s) } },
            Value::Number(_) | Value::Bool(_) => html! { code { (v.to_string()) } },
            other => html! { pre { (serde_json::to_string_pretty(other).expect("evidence is JSON-safe")) } },
        };
        rows.push((k, shown));
    }
    html! {
        li {
            span class={ "badge " (cls) } { (r.outcome.as_str()) } " "
            @if !r.subject.is_empty() { code class="subject" { (r.subject) } " " }
            span class="msg" { (r.message) }
            @if !rows.is_empty() {
                table class="evidence" { tbody {
                    @for (k, v) in rows { tr { th scope="row" { (k) } td { (v) } } }
                } }
            }
        } "\n"
    }
}

fn check_counts(report: &Report) -> Markup {
    let mut by_code: BTreeMap<&str, (&CheckResult, [usize; 5])> = BTreeMap::new();
    for r in &report.results {
        let e = by_code.entry(&r.code).or_insert((r, [0; 5]));
        e.1[Outcome::ALL.iter().position(|o| *o == r.outcome).expect("ALL lists every outcome")] += 1;
    }
    html! {
        @if !report.results.is_empty() {
            section id="checks" {
                h2 { "Every check run" }
                div class="scroll" { table {
                    thead { tr {
                        th scope="col" { "code" } th scope="col" { "check" } th scope="col" { "level" }
                        @for o in Outcome::ALL { th scope="col" class="num" { (o.as_str()) } }
                    } }
                    tbody {
                        "\n"
                        @for (code, (first, counts)) in by_code { (count_row(report, code, first, counts)) }
                    }
                } }
            } "\n"
        }
    }
}

/// One check's row of the counts table: its code (linked to its results or its page), name,
/// level and a count per outcome.
fn count_row(report: &Report, code: &str, first: &CheckResult, counts: [usize; 5]) -> Markup {
    let check = report.checks.get(code);
    let has_attention = counts[1] + counts[2] + counts[4] > 0;
    let href = if has_attention { format!("#check-{code}") } else { super::help_uri(report, code) };
    html! {
        tr {
            th scope="row" { a href=(href) { code { (code) } } }
            td {
                (check.map_or("", |c| c.name.as_str())) br;
                span class="note" { (check.map_or("", |c| c.summary.as_str())) }
            }
            td { (first.level.as_str()) }
            @for (o, n) in Outcome::ALL.iter().zip(counts) {
                @let cls = match (o, n) {
                    (_, 0) => "num zero",
                    (Outcome::Passed, _) => "num good",
                    // A failure at level info is context, never in the colour of failure.
                    (Outcome::Failed, _) if first.level == crate::report::Level::Info => "num",
                    (Outcome::Failed, _) => "num bad",
                    (Outcome::CantTell | Outcome::Untested, _) => "num warn",
                    (Outcome::Inapplicable, _) => "num",
                };
                td class=(cls) { (n) }
            }
        } "\n"
    }
}

fn figures(report: &Report) -> Markup {
    html! {
        @if !report.stats.is_empty() {
            section id="figures" {
                h2 { "Figures" }
                div class="scroll" { table class="figures" { tbody {
                    "\n"
                    @for (k, v) in &report.stats {
                        tr { th scope="row" { code { (k) } } td { (figure(v)) } } "\n"
                    }
                } } } "\n"
                p class="note" {
                    "A figure the input cannot support is shown as " em { "not measured" } ", never as 0."
                }
            } "\n"
        }
    }
}

/// One figure's value: a number as the tables print it, a flat object or list on one line,
/// anything larger as JSON.
fn figure(v: &Value) -> Markup {
    match v {
        Value::Null => html! { span class="nm" { (NOT_MEASURED) } },
        Value::Object(_) | Value::Array(_) => {
            let text = v.to_string();
            if let Some(flat) = flat_figure(v).filter(|f| f.0.len() <= 240) {
                flat
            } else if text.len() <= 160 {
                html! { code { (text) } }
            } else {
                let entries = v.as_object().map_or_else(|| v.as_array().map_or(0, Vec::len), serde_json::Map::len);
                let pretty = serde_json::to_string_pretty(v).expect("stats are JSON-safe");
                html! { details { summary { (entries) " entries" } pre { (truncate(&pretty)) } } }
            }
        }
        Value::Number(n) => html! { (n.as_f64().map_or_else(|| n.to_string(), fmt_num)) },
        other => html! { (scalar(other)) },
    }
}

/// `{"median": 1, "max": 4}` → `median 1 · max 4`; `[7, null]` → `7, not measured`; `None`
/// when a member is itself nested.
fn flat_figure(v: &Value) -> Option<Markup> {
    let one = |x: &Value| match x {
        Value::Null => Some(html! { span class="nm" { (NOT_MEASURED) } }),
        Value::Number(n) => Some(html! { (n.as_f64().map_or_else(|| n.to_string(), fmt_num)) }),
        Value::String(s) => Some(html! { (s) }),
        Value::Bool(b) => Some(html! { (b.to_string()) }),
        _ => None,
    };
    let parts: Vec<Markup> = match v {
        Value::Object(m) => {
            m.iter().map(|(k, x)| one(x).map(|x| html! { (k) " " b { (x) } })).collect::<Option<_>>()?
        }
        Value::Array(a) => a.iter().map(one).collect::<Option<_>>()?,
        _ => return None,
    };
    let sep = if v.is_object() { " · " } else { ", " };
    Some(html! { @for (i, p) in parts.iter().enumerate() { @if i > 0 { (sep) } (p) } })
}

fn other_sections(report: &Report) -> Markup {
    let objects: Vec<_> = report.sections.iter().filter(|(_, v)| !v.is_string()).collect();
    html! {
        @if !objects.is_empty() {
            section id="sections" {
                h2 { "Details" } "\n"
                @for (k, v) in objects {
                    details id={ "section-" (super::slug(k)) } {
                        summary { code { (k) } }
                        pre { (truncate(&serde_json::to_string_pretty(v).expect("sections are JSON-safe"))) }
                    } "\n"
                }
            } "\n"
        }
    }
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
