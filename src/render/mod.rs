//! Renderers: one file per output format, each a pure function of a [`Report`].
//!
//! A renderer never recomputes a verdict or a figure; it only lays out what the report holds,
//! so every format tells the same story and `--output json=…` can be re-rendered later.
//! Everything shown beyond the results travels in the report too: check names, pages and links
//! in `Report::checks` (the command layer fills them with `protocols::describe`), tones, view
//! order and location inputs in `Report::hints`. No renderer imports the registry.
//! `docs/guide.md` ("Reading the outputs") describes what each format contains.

mod commonmark;
mod csv;
mod html;
mod json;
mod jsonl;
mod junit;
mod markdown;
mod sarif;
// The submission's certificate draws its lifecycle plot and figure values as the HTML report does.
pub(crate) mod svg;
pub(crate) mod table;
mod xml;

use crate::report::{Report, Summary, Tone};

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// Human table for the terminal.
    Table,
    /// The report object.
    Json,
    /// One JSON record per result, then one summary record.
    Jsonl,
    /// Comma-separated values: the report's primary table, or the results.
    Csv,
    /// SARIF 2.1.0 with every result, `kind` telling pass from fail.
    Sarif,
    /// SARIF 2.1.0 for GitHub code scanning: only results that are not a pass.
    SarifGithub,
    /// JUnit XML for CI test panes.
    Junit,
    /// A compact Markdown summary (CI job summaries).
    Markdown,
    /// One self-contained HTML page with inline SVG figures.
    Html,
}

impl Format {
    /// Every format.
    pub const ALL: &'static [Format] = &[
        Format::Table,
        Format::Json,
        Format::Jsonl,
        Format::Csv,
        Format::Sarif,
        Format::SarifGithub,
        Format::Junit,
        Format::Markdown,
        Format::Html,
    ];

    /// The name used on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Json => "json",
            Format::Jsonl => "jsonl",
            Format::Csv => "csv",
            Format::Sarif => "sarif",
            Format::SarifGithub => "sarif-github",
            Format::Junit => "junit",
            Format::Markdown => "markdown",
            Format::Html => "html",
        }
    }

    /// The usual file extension, without the dot.
    #[must_use]
    pub fn extension(self) -> &'static str {
        match self {
            Format::Table => "txt",
            Format::Json => "json",
            Format::Jsonl => "jsonl",
            Format::Csv => "csv",
            Format::Sarif | Format::SarifGithub => "sarif",
            Format::Junit => "xml",
            Format::Markdown => "md",
            Format::Html => "html",
        }
    }

    /// Parses a command-line name, in any letter case (`JSON`, `Sarif-GitHub`).
    #[must_use]
    pub fn parse(s: &str) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.name().eq_ignore_ascii_case(s))
    }
}

/// Presentation options for human formats.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Terminal width to fit, if known.
    pub width: Option<u16>,
    /// Whether to use ANSI colour.
    pub color: bool,
    /// Table and Markdown: just the verdict, the audit outcome and the results that decided
    /// them (`--summary`), for CI logs and job summaries.
    pub summary: bool,
}

/// [`render`], written to `out`: the bytes are the same. The JSON of a large report is written
/// as it is rendered, without holding it whole.
///
/// # Errors
/// When `out` refuses a write.
pub fn write(report: &Report, format: Format, opts: &Options, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    match format {
        Format::Json => json::write(report, out),
        _ => out.write_all(&render(report, format, opts)),
    }
}

/// Renders `report` in `format`. For `csv` this is the primary file only; see [`companions`].
#[must_use]
pub fn render(report: &Report, format: Format, opts: &Options) -> Vec<u8> {
    match format {
        #[cfg(feature = "cli")]
        Format::Table => table::render(report, opts).into_bytes(),
        // Without the `cli` feature there is no terminal table engine: the table is markdown.
        #[cfg(not(feature = "cli"))]
        Format::Table => {
            let _ = opts;
            markdown::render(report, opts.summary).into_bytes()
        }
        Format::Json => json::render(report),
        Format::Jsonl => jsonl::render(report).into_bytes(),
        Format::Csv => csv::primary(report),
        Format::Sarif => sarif::render(report, sarif::Profile::Full).into_bytes(),
        Format::SarifGithub => sarif::render(report, sarif::Profile::Github).into_bytes(),
        Format::Junit => junit::render(report).into_bytes(),
        Format::Markdown => markdown::render(report, opts.summary).into_bytes(),
        Format::Html => html::render(report).into_bytes(),
    }
}

/// Files that go beside the primary output of `format`, as `(suffix, bytes)`: written as
/// `<stem>-<suffix>.<ext>` next to `--output FORMAT=<stem>.<ext>`, never to standard output.
///
/// Only `csv` has companions: when the report has tables marked for CSV, the first is the
/// primary file and every other marked table (suffix = its id) and the results (suffix
/// `results`) become companions. Suffixes are unique and file-name safe.
#[must_use]
pub fn companions(report: &Report, format: Format) -> Vec<(String, Vec<u8>)> {
    match format {
        Format::Csv => csv::companions(report),
        _ => Vec::new(),
    }
}

/// Keeps ASCII letters, digits, `-` and `_` of a view id so it can name a file or an anchor.
pub(crate) fn slug(id: &str) -> String {
    let s: String = id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c.to_ascii_lowercase() } else { '-' })
        .collect();
    if s.is_empty() { "view".to_owned() } else { s }
}

/// Human word for a verdict, shared by the human formats.
pub(crate) fn verdict_word(v: crate::report::Verdict) -> &'static str {
    match v {
        crate::report::Verdict::Verified => "VERIFIED",
        crate::report::Verdict::Failed => "FAILED",
        crate::report::Verdict::Inconclusive => "INCONCLUSIVE",
    }
}

/// One sentence explaining the report's verdict ([`Report::reading`]).
pub(crate) fn verdict_reason(report: &Report) -> String {
    report.reading().reason
}

/// Failing checks named in a closing line or a banner before the rest are only counted.
pub(crate) const MAX_DECIDING: usize = 5;

/// Characters of a result's message shown in a one-line reason.
const REASON_CHARS: usize = 160;

/// The results that decided the verdict, one line each (`CV-A701 cycle-2: message`), the
/// first [`MAX_DECIDING`], and how many more there are.
pub(crate) fn deciding_lines(report: &Report) -> (Vec<String>, usize) {
    let all = report.deciding();
    let lines = all.iter().take(MAX_DECIDING).map(|r| result_line(r, r.outcome.as_str())).collect();
    (lines, all.len().saturating_sub(MAX_DECIDING))
}

/// `CV-A701 failed cycle-2: message` (`word` after the code), the message's first line cut at
/// [`REASON_CHARS`].
fn result_line(r: &crate::report::CheckResult, word: &str) -> String {
    let first = r.message.lines().next().unwrap_or_default();
    let msg: String = if first.chars().count() > REASON_CHARS {
        first.chars().take(REASON_CHARS - 1).chain(std::iter::once('…')).collect()
    } else {
        first.to_owned()
    };
    let subject = if r.subject.is_empty() { String::new() } else { format!(" {}", r.subject) };
    format!("{} {word}{subject}: {msg}", r.code)
}

/// "… and 3 more" for the deciding results not named.
pub(crate) fn more_line(more: usize) -> String {
    format!("… and {more} more (every result: --format json, csv or html)")
}

/// How the verdict is named beside an audit outcome: the records' integrity, then the decision
/// when only it decided (`records genuine, not admissible`); empty without an audit outcome.
pub(crate) fn integrity_word(report: &Report) -> String {
    let r = report.reading();
    match (r.integrity, r.decision) {
        (None, _) => String::new(),
        (Some(i), Some(d)) => format!("{i}, {d}"),
        (Some(i), None) => i.to_owned(),
    }
}

/// The failed warning-level results, one line each like [`deciding_lines`], the first
/// [`MAX_DECIDING`], and how many more: a warning never changes the verdict, and is never
/// hidden by it either.
pub(crate) fn warning_lines(report: &Report) -> (Vec<String>, usize) {
    let all = report.warnings();
    let lines = all.iter().take(MAX_DECIDING).map(|r| result_line(r, "warning")).collect();
    (lines, all.len().saturating_sub(MAX_DECIDING))
}

/// `, with 2 warnings` after a verdict word, or nothing.
pub(crate) fn with_warnings(report: &Report) -> String {
    match report.summary.warnings {
        0 => String::new(),
        1 => ", with 1 warning".to_owned(),
        n => format!(", with {n} warnings"),
    }
}

/// The tone of a failed result: a failure at level info is context, never drawn as failure.
pub(crate) fn result_tone(r: &crate::report::CheckResult) -> Option<Tone> {
    use crate::report::{Level, Outcome};
    match (r.outcome, r.level) {
        (Outcome::Failed, Level::Info) => Some(Tone::Neutral),
        (o, _) => Tone::of_model_word(o.as_str()),
    }
}

/// Human label of an outcome (EARL names mapped as in the ecosystem notes §3.3).
pub(crate) fn outcome_label(o: crate::report::Outcome) -> &'static str {
    match o {
        crate::report::Outcome::Passed => "OK",
        crate::report::Outcome::Failed => "FAIL",
        crate::report::Outcome::CantTell => "UNKNOWN",
        crate::report::Outcome::Inapplicable => "N/A",
        crate::report::Outcome::Untested => "SKIPPED",
    }
}

/// How a tone is drawn in each format: the one colour table.
pub(crate) struct Colors {
    /// CSS class of the HTML page.
    pub css: &'static str,
    /// SVG fill; `None` leaves the category to the chart palette.
    pub hex: Option<&'static str>,
    /// Terminal colour (read only by the comfy-table renderer of the `cli` feature).
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    pub term: Option<Ansi>,
}

/// The terminal colours the table format uses.
#[derive(Clone, Copy)]
pub(crate) enum Ansi {
    Green,
    Red,
    Yellow,
}

pub(crate) fn colors(t: Tone) -> Colors {
    match t {
        Tone::Good => Colors { css: "good", hex: Some("#1a7f37"), term: Some(Ansi::Green) },
        Tone::Bad => Colors { css: "bad", hex: Some("#c62828"), term: Some(Ansi::Red) },
        Tone::Unknown => Colors { css: "warn", hex: Some("#b7791f"), term: Some(Ansi::Yellow) },
        Tone::Neutral => Colors { css: "muted", hex: None, term: None },
    }
}

/// Name of a check, as the report documents it; empty for a code it does not document.
pub(crate) fn check_name<'a>(report: &'a Report, code: &str) -> &'a str {
    report.checks.get(code).map_or("", |c| c.name.as_str())
}

/// Address of a code's doc page: the report's, else where this version would publish it.
pub(crate) fn help_uri(report: &Report, code: &str) -> String {
    report.checks.get(code).map_or_else(|| crate::report::doc_uri(code), |c| c.help_uri.clone())
}

/// The counts sentence of the human formats; `strong` wraps the figures a reader scans for.
pub(crate) fn counts_sentence(s: &Summary, strong: fn(usize) -> String, sep: &str, noun: &str) -> String {
    format!(
        "{} {noun}: {} passed{sep}{} failed ({} error, {} warning, {} info){sep}{} cantTell{sep}{} inapplicable{sep}{} untested",
        strong(s.total),
        strong(s.passed),
        strong(s.failed),
        s.errors,
        s.warnings,
        s.infos(),
        strong(s.cant_tell),
        s.inapplicable,
        s.untested
    )
}

/// The counts a page shows as pills: `(count, label, class)`. Info-level failures are context,
/// counted in their own neutral pill and never as failed; that pill is left out when empty, so
/// a page never reads "0" of them beside info-level results that are counted elsewhere
/// (cantTell, untested).
pub(crate) fn count_pills(s: &Summary) -> Vec<(usize, &'static str, &'static str)> {
    let mut pills = vec![(s.passed, "passed", "passed"), (s.errors + s.warnings, "failed", "failed")];
    if s.infos() > 0 {
        pills.push((s.infos(), "failed at info level (context)", "info"));
    }
    pills.extend([
        (s.cant_tell, "cantTell", "cantTell"),
        (s.untested, "untested", "untested"),
        (s.inapplicable, "inapplicable", "inapplicable"),
    ]);
    pills
}

/// Text sections (such as `explain`'s doc page) in key order.
pub(crate) fn text_sections(report: &Report) -> impl Iterator<Item = (&str, &str)> {
    report.sections.iter().filter_map(|(k, v)| v.as_str().map(|s| (k.as_str(), s)))
}

#[cfg(test)]
mod tests;
