// Without the `cli` feature only the helpers the other renderers share are compiled.
#![cfg_attr(not(feature = "cli"), allow(unused_imports))]
use std::collections::BTreeMap;
use std::fmt::Write as _;

#[cfg(feature = "cli")]
use comfy_table::{Cell, Color, ContentArrangement, Table as CTable, presets};
use serde_json::Value;

use super::Options;
use crate::report::{ChartKind, Level, Outcome, Report, View};

/// Text shown for a figure the input cannot support.
pub(crate) const NOT_MEASURED: &str = "not measured";

#[cfg(feature = "cli")]
pub(super) fn render(report: &Report, opts: &Options) -> String {
    let mut out = String::new();
    // Text sections (a doc page) are documents: printed verbatim, and alone when there is
    // nothing to judge.
    for v in report.sections.values() {
        if let Value::String(text) = v {
            out.push_str(text);
        }
    }
    if report.results.is_empty() && report.views.is_empty() && !out.is_empty() {
        return out;
    }
    if report.hints.informational {
        // A listing or a derived object informs; a verdict banner would claim a verification.
        let _ = writeln!(out, "crossverify {}", report.command);
    } else {
        let _ = writeln!(out, "crossverify {} · {}", report.command, verdict_phrase(report));
    }
    if opts.summary && !report.hints.informational {
        closing(&mut out, report);
        return out;
    }
    for (k, v) in &report.inputs {
        let _ = writeln!(out, "  {k}: {}", scalar(v));
    }
    let shown =
        |id: &str| report.hints.terminal_views.is_empty() || report.hints.terminal_views.iter().any(|v| v == id);
    let mut left_out = Vec::new();
    for view in &report.views {
        match view {
            View::Table(t) if !shown(&t.id) => match t.rows.len() {
                0 => {}
                1 => left_out.push(format!("{} (1 row)", t.title)),
                n => left_out.push(format!("{} ({n} rows)", t.title)),
            },
            View::Chart(c) if !shown(&c.id) => left_out.push(c.title.clone()),
            View::Table(t) => table(&mut out, t, report, opts),
            View::Chart(c) => chart(&mut out, c, report, opts),
        }
    }
    if !left_out.is_empty() {
        let _ = writeln!(out, "\nIn --format html, json and markdown: {}.", left_out.join("; "));
    }
    if !report.results.is_empty() {
        let _ = writeln!(out, "\nChecks");
        let mut by_code: BTreeMap<&str, (Level, [usize; 5])> = BTreeMap::new();
        for r in &report.results {
            let e = by_code.entry(&r.code).or_insert((r.level, [0; 5]));
            let i = Outcome::ALL.iter().position(|o| *o == r.outcome).expect("ALL lists every outcome");
            e.1[i] += 1;
        }
        let mut tb = new_table(opts);
        let mut header = vec![Cell::new("code"), Cell::new("check"), Cell::new("level")];
        header.extend(Outcome::ALL.iter().map(|o| Cell::new(o.as_str())));
        tb.set_header(header);
        for (code, (level, counts)) in &by_code {
            let name = super::check_name(report, code);
            let mut row = vec![Cell::new(code), Cell::new(name), Cell::new(level.as_str())];
            for (o, n) in Outcome::ALL.iter().zip(counts) {
                // A failure at level info is context: never in the colour of failure.
                let plain = *n == 0 || (*o == Outcome::Failed && *level == Level::Info);
                row.push(if plain {
                    Cell::new(if *n == 0 { String::new() } else { n.to_string() })
                } else {
                    colored_count(*o, *n, report, opts)
                });
            }
            tb.add_row(row);
        }
        let _ = writeln!(out, "{tb}");
        let notable: Vec<_> =
            report.results.iter().filter(|r| !matches!(r.outcome, Outcome::Passed | Outcome::Inapplicable)).collect();
        // A report that chose its terminal views says in them what did not pass (conformance:
        // the wrong decisions listed, the undecided cases counted in the scores).
        if !notable.is_empty() && report.hints.terminal_views.is_empty() {
            let _ = writeln!(out, "\nResults that did not pass");
            let mut tb = new_table(opts);
            tb.set_header(vec!["outcome", "level", "code", "subject", "message"]);
            for r in notable {
                let outcome = if super::result_tone(r) == Some(crate::report::Tone::Neutral) {
                    Cell::new(r.outcome.as_str())
                } else {
                    colored(r.outcome.as_str(), report, opts)
                };
                tb.add_row(vec![
                    outcome,
                    Cell::new(r.level.as_str()),
                    Cell::new(&r.code),
                    Cell::new(&r.subject),
                    Cell::new(&r.message),
                ]);
            }
            let _ = writeln!(out, "{tb}");
        }
    }
    if report.results.is_empty() {
        return out;
    }
    let s = &report.summary;
    let _ = writeln!(out, "\n{}", super::counts_sentence(s, |n| n.to_string(), ", ", "result(s)"));
    if !report.hints.informational {
        closing(&mut out, report);
    }
    out
}

#[cfg(feature = "cli")]
/// `VERIFIED (exit 0)`, or with an audit outcome `records genuine: VERIFIED (exit 0) · audit
/// outcome: 2 passed audit, 1 blocked; not admitted`, so the two answers are never one word; a
/// genuine receipt that is only not admissible reads `records genuine, not admissible: FAILED`.
fn verdict_phrase(report: &Report) -> String {
    let verdict = format!("{}{}", super::verdict_word(report.outcome), super::with_warnings(report));
    match &report.audit_outcome {
        None => format!("{verdict} (exit {})", report.exit_code()),
        Some(a) => format!(
            "{}: {verdict} (exit {}) · audit outcome: {}",
            super::integrity_word(report),
            report.exit_code(),
            a.line()
        ),
    }
}

#[cfg(feature = "cli")]
/// The closing lines CI logs end with: the verdict and why (the results that decided it, one
/// line each), the failed warnings named the same way, then the audit outcome on its own line.
pub(crate) fn closing(out: &mut String, report: &Report) {
    let reading = report.reading();
    let label = reading.about.map_or_else(String::new, |a| format!("{a} "));
    let _ = writeln!(
        out,
        "{label}{}{} (exit {}): {}",
        report.outcome.as_str(),
        super::with_warnings(report),
        report.exit_code(),
        reading.reason
    );
    for (lines, more) in [super::deciding_lines(report), super::warning_lines(report)] {
        for l in lines {
            let _ = writeln!(out, "  {l}");
        }
        if more > 0 {
            let _ = writeln!(out, "  {}", super::more_line(more));
        }
    }
    if let Some(a) = &report.audit_outcome {
        let _ = writeln!(out, "audit outcome ({}): {}", a.basis, a.line());
    }
}

/// Points beyond which a chart is summarised for the terminal rather than listed: 1,000
/// cycles are a page of figures in HTML and a wall of rows in a CI log.
#[cfg(feature = "cli")]
const DENSE_POINTS: usize = 40;

/// Terminals get the numbers, with a bar of block characters for bars and histograms; the
/// HTML report draws them. A dense chart is summarised: a timeline by category (count, first
/// and last position), bars by ten position ranges (total, largest, not measured).
#[cfg(feature = "cli")]
fn chart(out: &mut String, c: &crate::report::Chart, report: &Report, opts: &Options) {
    let _ = writeln!(out, "\n{}", c.title);
    let mut tb = new_table(opts);
    let first = c.x_label.as_str();
    let n = c.points.len();
    if n > DENSE_POINTS && c.chart == ChartKind::Timeline {
        tb.set_header(vec![
            Cell::new(&c.category_label),
            Cell::new(format!("{first}s")),
            Cell::new("first"),
            Cell::new("last"),
        ]);
        let mut cats: Vec<(String, usize, usize, usize)> = Vec::new();
        for (i, p) in c.points.iter().enumerate() {
            let cat = p.category.clone().unwrap_or_else(|| NOT_MEASURED.to_owned());
            match cats.iter_mut().find(|e| e.0 == cat) {
                Some(e) => (e.1, e.3) = (e.1 + 1, i + 1),
                None => cats.push((cat, 1, i + 1, i + 1)),
            }
        }
        for (cat, count, a, z) in cats {
            tb.add_row(vec![colored(&cat, report, opts), Cell::new(count), Cell::new(a), Cell::new(z)]);
        }
    } else if n > DENSE_POINTS && c.chart == ChartKind::Bars {
        tb.set_header(vec![
            Cell::new(format!("{first} positions")),
            Cell::new(format!("{} (total)", c.y_label)),
            Cell::new("largest"),
            Cell::new(NOT_MEASURED),
        ]);
        let size = n.div_ceil(10);
        for (k, group) in c.points.chunks(size).enumerate() {
            let values: Vec<f64> = group.iter().filter_map(|p| p.value).collect();
            let total = (!values.is_empty()).then(|| values.iter().sum::<f64>());
            let largest = values.iter().copied().reduce(f64::max);
            let missing = group.len() - values.len();
            tb.add_row(vec![
                Cell::new(format!("{}–{}", k * size + 1, k * size + group.len())),
                Cell::new(total.map_or_else(|| NOT_MEASURED.to_owned(), fmt_num)),
                Cell::new(largest.map_or_else(|| NOT_MEASURED.to_owned(), fmt_num)),
                Cell::new(missing),
            ]);
        }
    } else {
        let max = c.points.iter().filter_map(|p| p.value).fold(0.0_f64, f64::max);
        if c.chart == ChartKind::Timeline {
            tb.set_header(vec![Cell::new(first), Cell::new(&c.category_label), Cell::new(&c.y_label)]);
        } else {
            tb.set_header(vec![Cell::new(first), Cell::new(&c.y_label), Cell::new("")]);
        }
        for p in &c.points {
            let v = p.value.map_or_else(|| NOT_MEASURED.to_owned(), fmt_num);
            if c.chart == ChartKind::Timeline {
                let cat = p.category.clone().unwrap_or_default();
                tb.add_row(vec![Cell::new(&p.label), colored(&cat, report, opts), Cell::new(v)]);
            } else {
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let bar = p.value.filter(|_| max > 0.0).map_or(0, |x| (x / max * 30.0).round() as usize);
                tb.add_row(vec![Cell::new(&p.label), Cell::new(v), Cell::new("█".repeat(bar))]);
            }
        }
    }
    let _ = writeln!(out, "{tb}");
    if n > DENSE_POINTS && c.chart != ChartKind::Histogram {
        let _ = writeln!(out, "{n} {first}s summarised; --format csv or html has each one.");
    }
    if let Some(note) = &c.note {
        let _ = writeln!(out, "{note}");
    }
}

#[cfg(feature = "cli")]
fn new_table(opts: &Options) -> CTable {
    let mut t = CTable::new();
    t.load_style(presets::UTF8_FULL_CONDENSED);
    // Never ask the terminal: the caller decides width and colour, so output is reproducible.
    t.force_no_tty();
    if opts.color {
        t.enforce_styling();
    }
    if let Some(w) = opts.width {
        t.set_width(w);
        t.set_content_arrangement(ContentArrangement::Dynamic);
    }
    t
}

/// A view's table: fitted to the terminal with every heading word whole, or one block per row
/// when even that is wider than the terminal.
#[cfg(feature = "cli")]
fn table(out: &mut String, t: &crate::report::Table, report: &Report, opts: &Options) {
    if t.rows.is_empty() {
        // A header over nothing says less than one line does.
        let _ = writeln!(out, "\n{}: none", t.title);
    } else if opts.width.is_some_and(|w| usize::from(w) < narrowest(&t.columns)) {
        let _ = writeln!(out, "\n{}", t.title);
        records(out, t, report, opts);
    } else {
        let _ = writeln!(out, "\n{}", t.title);
        let mut tb = new_table(opts);
        tb.set_header(t.columns.iter().map(Cell::new).collect::<Vec<_>>());
        for row in &t.rows {
            tb.add_row(row.iter().map(|c| colored(&cell(c), report, opts)).collect::<Vec<_>>());
        }
        keep_header_words(&mut tb, &t.columns);
        let _ = writeln!(out, "{tb}");
    }
    if let Some(n) = &t.note {
        let _ = writeln!(out, "{n}");
    }
}

/// The longest word of a column heading: the table layout may wrap a heading between its
/// words, never inside one (`closed_confirmed_in` is one word).
#[cfg(feature = "cli")]
fn longest_word(heading: &str) -> usize {
    heading.split_whitespace().map(|w| w.chars().count()).max().unwrap_or(0)
}

/// The width a table needs for every heading word to stay whole: the words, one space of
/// padding each side and the borders.
#[cfg(feature = "cli")]
fn narrowest(columns: &[String]) -> usize {
    columns.iter().map(|c| longest_word(c) + 3).sum::<usize>() + 1
}

/// Lets a fitted table shrink each column only down to its heading's longest word.
#[cfg(feature = "cli")]
fn keep_header_words(tb: &mut CTable, columns: &[String]) {
    use comfy_table::{ColumnConstraint, Width};
    for (column, heading) in tb.column_iter_mut().zip(columns) {
        let words = u16::try_from(longest_word(heading)).unwrap_or(u16::MAX);
        column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(words)));
    }
}

/// A table too wide for the terminal even with its headings wrapped between words, as one
/// block per row (`heading  value`), the way `psql` shows wide rows: every heading and value
/// whole, rather than each cut into pieces a few letters wide.
#[cfg(feature = "cli")]
fn records(out: &mut String, t: &crate::report::Table, report: &Report, opts: &Options) {
    for (i, row) in t.rows.iter().enumerate() {
        let _ = writeln!(out, "{} {} of {}", t.id, i + 1, t.rows.len());
        let mut tb = new_table(opts);
        tb.load_style(presets::NOTHING);
        for (heading, value) in t.columns.iter().zip(row) {
            tb.add_row(vec![Cell::new(format!(" {heading}")), colored(&cell(value), report, opts)]);
        }
        for line in tb.to_string().lines() {
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
}

/// A table cell for people: a full commit id shortened to its first 12 digits, so per-record
/// tables fit a terminal (the data formats keep every digit; digests are never shortened,
/// since a manifest is read to compare them).
pub(crate) fn cell(v: &Value) -> String {
    match v {
        Value::String(s) if s.len() == 40 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) => {
            format!("{}…", &s[..12])
        }
        other => scalar(other),
    }
}

/// A value for people: "not measured" for null.
pub(crate) fn scalar(v: &Value) -> String {
    match v {
        Value::Null => NOT_MEASURED.to_owned(),
        Value::String(s) => s.clone(),
        Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), fmt_num),
        Value::Bool(b) => b.to_string(),
        // The resolved repositories of a run are read, not parsed: never a JSON blob.
        Value::Object(_) => crate::report::identities_text(v).unwrap_or_else(|| v.to_string()),
        other => other.to_string(),
    }
}

pub(crate) fn fmt_num(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{f:.0}")
    } else {
        let s = format!("{f:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

#[cfg(feature = "cli")]
fn color_of(word: &str, report: &Report) -> Option<Color> {
    report.hints.tone(word).and_then(|t| super::colors(t).term).map(|a| match a {
        super::Ansi::Green => Color::Green,
        super::Ansi::Red => Color::Red,
        super::Ansi::Yellow => Color::Yellow,
    })
}

#[cfg(feature = "cli")]
fn colored(text: &str, report: &Report, opts: &Options) -> Cell {
    let cell = Cell::new(text);
    match (opts.color, color_of(text, report)) {
        (true, Some(c)) => cell.fg(c),
        _ => cell,
    }
}

#[cfg(feature = "cli")]
fn colored_count(o: Outcome, n: usize, report: &Report, opts: &Options) -> Cell {
    let cell = Cell::new(n);
    match (opts.color, color_of(o.as_str(), report)) {
        (true, Some(c)) if o != Outcome::Passed => cell.fg(c),
        _ => cell,
    }
}
