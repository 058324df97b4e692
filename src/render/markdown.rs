//! A compact Markdown summary for CI job summaries (`$GITHUB_STEP_SUMMARY`) and PR comments.
//!
//! Flat GitHub-flavoured Markdown only: headings, one-level lists and simple tables (no nested
//! tables, which job summaries cannot show). Long tables and long lists are cut with a line
//! saying how many rows were left out and which format has them all, so the summary stays
//! far below GitHub's 1 MiB limit.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

use super::table::{NOT_MEASURED, fmt_num, scalar};
use crate::report::{Chart, Level, Outcome, Report, Table, Verdict, View};

/// Rows shown per table before cutting.
const MAX_ROWS: usize = 40;
/// Results listed under "Did not pass" before cutting.
const MAX_RESULTS: usize = 50;

pub(super) fn render(report: &Report, summary: bool) -> String {
    let mut out = String::new();
    let text: Vec<_> = super::text_sections(report).collect();
    if report.results.is_empty() && report.views.is_empty() && !text.is_empty() {
        // A document (`explain`) is already Markdown.
        for (_, t) in text {
            out.push_str(t);
        }
        return out;
    }
    if report.results.is_empty() {
        let _ = writeln!(out, "## crossverify {}\n\nNo check ran; this report only informs.\n", cell(&report.command));
    } else if report.hints.informational {
        let _ = writeln!(out, "## crossverify {}\n", cell(&report.command));
        counts(&mut out, report);
    } else {
        verdict(&mut out, report);
        if summary {
            footer(&mut out, report);
            return out;
        }
    }
    if !report.inputs.is_empty() {
        let inputs: Vec<String> =
            report.inputs.iter().map(|(k, v)| format!("{k} `{}`", code_span(&scalar(v)))).collect();
        let _ = writeln!(out, "Inputs: {}\n", inputs.join(" · "));
    }
    for view in &report.views {
        match view {
            View::Table(t) => table(&mut out, t),
            View::Chart(c) => chart(&mut out, c),
        }
    }
    if !report.results.is_empty() {
        results(&mut out, report);
    }
    footer(&mut out, report);
    out
}

fn table(out: &mut String, t: &Table) {
    let _ = writeln!(out, "### {}\n", cell(&t.title));
    let _ = writeln!(out, "| {} |", t.columns.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(t.columns.len().max(1)));
    for row in t.rows.iter().take(MAX_ROWS) {
        let cells: Vec<String> = row.iter().map(value_cell).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    if t.rows.len() > MAX_ROWS {
        let _ = writeln!(
            out,
            "\n*{} more rows not shown; `--format html` or `--format csv` has them all.*",
            t.rows.len() - MAX_ROWS
        );
    }
    if let Some(n) = &t.note {
        let _ = writeln!(out, "\n{}", n.trim());
    }
    out.push('\n');
}

fn chart(out: &mut String, c: &Chart) {
    // Charts become one line of figures; the HTML report draws them.
    let shown: Vec<String> = c
        .points
        .iter()
        .take(MAX_ROWS)
        .map(|p| {
            let v = p.value.map_or_else(|| format!("*{NOT_MEASURED}*"), fmt_num);
            match &p.category {
                Some(cat) => format!("{} {} ({v})", cell(&p.label), cell(cat)),
                None => format!("{} {v}", cell(&p.label)),
            }
        })
        .collect();
    let more = c.points.len().saturating_sub(MAX_ROWS);
    let tail = if more > 0 { format!(" · … {more} more") } else { String::new() };
    let _ = writeln!(out, "**{}** ({}): {}{tail}\n", cell(&c.title), cell(&c.y_label), shown.join(" · "));
}

/// The per-check counts, then every result that did not pass.
fn results(out: &mut String, report: &Report) {
    out.push_str("### Checks\n\n| code | check | level | passed | failed | cantTell | inapplicable | untested |\n|---|---|---|---|---|---|---|---|\n");
    let mut by_code: BTreeMap<&str, (Level, [usize; 5])> = BTreeMap::new();
    for r in &report.results {
        let e = by_code.entry(&r.code).or_insert((r.level, [0; 5]));
        e.1[Outcome::ALL.iter().position(|o| *o == r.outcome).expect("ALL lists every outcome")] += 1;
    }
    for (code, (level, n)) in &by_code {
        let name = super::check_name(report, code);
        let counts: Vec<String> = n.iter().map(|k| if *k == 0 { String::new() } else { k.to_string() }).collect();
        let _ = writeln!(
            out,
            "| [{code}]({}) | {} | {} | {} |",
            super::help_uri(report, code),
            cell(name),
            level.as_str(),
            counts.join(" | ")
        );
    }
    out.push('\n');
    let notable: Vec<_> =
        report.results.iter().filter(|r| !matches!(r.outcome, Outcome::Passed | Outcome::Inapplicable)).collect();
    if !notable.is_empty() {
        out.push_str("### Did not pass\n\n");
        for r in notable.iter().take(MAX_RESULTS) {
            let subject = if r.subject.is_empty() { String::new() } else { format!(" `{}`", code_span(&r.subject)) };
            let _ = writeln!(
                out,
                "- **{}** {} ({}){subject}: {}",
                super::outcome_label(r.outcome),
                r.code,
                r.level.as_str(),
                cell(&r.message)
            );
        }
        if notable.len() > MAX_RESULTS {
            let _ = writeln!(
                out,
                "- *… {} more; `--format json` or `--format html` lists every result.*",
                notable.len() - MAX_RESULTS
            );
        }
        out.push('\n');
    }
}

fn footer(out: &mut String, report: &Report) {
    let _ = writeln!(
        out,
        "<sub>{} {} · report schema {}</sub>",
        report.tool.name, report.tool.version, report.schema_version
    );
}

fn verdict(out: &mut String, report: &Report) {
    let mark = match report.outcome {
        Verdict::Verified => "✅",
        Verdict::Failed => "❌",
        Verdict::Inconclusive => "⚠️",
    };
    let integrity = super::integrity_word(report);
    let _ = writeln!(
        out,
        "## {mark} crossverify {}: {}{}{}{} (exit {})\n",
        cell(&report.command),
        cell(&integrity),
        if integrity.is_empty() { "" } else { ", " },
        super::verdict_word(report.outcome),
        super::with_warnings(report),
        report.exit_code()
    );
    let _ = writeln!(out, "{}.\n", cell(&capitalise(&super::verdict_reason(report))));
    for (lines, more) in [super::deciding_lines(report), super::warning_lines(report)] {
        for l in &lines {
            let _ = writeln!(out, "- {}", cell(l));
        }
        if more > 0 {
            let _ = writeln!(out, "- *{}*", cell(&super::more_line(more)));
        }
        if !lines.is_empty() {
            out.push('\n');
        }
    }
    if let Some(a) = &report.audit_outcome {
        // Text, not colour: a job summary shows the two answers as two sentences.
        let _ = writeln!(out, "**Audit outcome** ({}): {}\n", cell(&a.basis), cell(&a.line()));
    }
    counts(out, report);
}

fn counts(out: &mut String, report: &Report) {
    let s = &report.summary;
    if s.total > 0 {
        let _ = writeln!(out, "{}\n", super::counts_sentence(s, |n| format!("**{n}**"), " · ", "results"));
    }
}

fn value_cell(v: &Value) -> String {
    match v {
        Value::Null => format!("*{NOT_MEASURED}*"),
        other => cell(&super::table::cell(other)),
    }
}

/// Makes text safe inside a table cell or a list item: one line, no table or HTML breakage.
fn cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '*' | '_' | '`' | '[' | ']' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Text inside a single-backtick code span: backticks and pipes cannot appear there.
fn code_span(s: &str) -> String {
    s.replace('`', "'").replace('|', "¦").replace(['\n', '\r'], " ")
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().collect::<String>() + c.as_str())
}
