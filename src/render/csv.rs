//! CSV: the report's primary table, or its results, for R, pandas and spreadsheets.
//!
//! Which file is primary: the first table view marked `csv: true`, else the results. The other
//! marked tables and (when a table was primary) the results are companions, written beside an
//! `--output csv=PATH` file. Conventions, so every file loads the same way:
//! - UTF-8, comma-separated, `\n` line ends, one header row, quoting only where needed;
//! - headers are snake_case (`Model failures` → `model_failures`), so they are column names in R
//!   and pandas as they stand;
//! - `null` ("not measured") is an empty cell, which R and pandas read as missing, never 0;
//! - numbers are written as the exact JSON number token; nested values as compact JSON;
//! - a text cell starting with `=`, `+`, `-`, `@`, tab or carriage return gets a leading `'`
//!   so a spreadsheet never runs input text as a formula (OWASP CSV injection).

use serde_json::Value;

use crate::report::{Report, Table, View};

const RESULT_COLUMNS: [&str; 9] =
    ["code", "level", "outcome", "subject", "message", "repository", "path", "commit", "evidence"];

fn csv_tables(report: &Report) -> impl Iterator<Item = &Table> {
    report.views.iter().filter_map(|v| match v {
        View::Table(t) if t.csv => Some(t),
        _ => None,
    })
}

pub(super) fn primary(report: &Report) -> Vec<u8> {
    match csv_tables(report).next() {
        Some(t) => table(t),
        None => results(report),
    }
}

pub(super) fn companions(report: &Report) -> Vec<(String, Vec<u8>)> {
    let mut tables = csv_tables(report);
    if tables.next().is_none() {
        return Vec::new();
    }
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for t in tables {
        let base = super::slug(&t.id);
        let mut name = base.clone();
        let mut n = 2;
        while name == "results" || out.iter().any(|(s, _)| *s == name) {
            name = format!("{base}-{n}");
            n += 1;
        }
        out.push((name, table(t)));
    }
    out.push(("results".to_owned(), results(report)));
    out
}

fn writer() -> csv::Writer<Vec<u8>> {
    csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new())
}

fn finish(w: csv::Writer<Vec<u8>>) -> Vec<u8> {
    w.into_inner().expect("writing to memory cannot fail")
}

fn table(t: &Table) -> Vec<u8> {
    let mut w = writer();
    w.write_record(t.columns.iter().map(|c| snake(c))).expect("writing to memory cannot fail");
    for row in &t.rows {
        w.write_record(row.iter().map(value_cell)).expect("writing to memory cannot fail");
    }
    finish(w)
}

fn results(report: &Report) -> Vec<u8> {
    let mut w = writer();
    w.write_record(RESULT_COLUMNS).expect("writing to memory cannot fail");
    for r in &report.results {
        let loc = r.location.clone().unwrap_or_default();
        let evidence =
            if r.evidence.is_empty() { String::new() } else { Value::from_iter(r.evidence.clone()).to_string() };
        let cells = [
            text_cell(&r.code),
            r.level.as_str().to_owned(),
            r.outcome.as_str().to_owned(),
            text_cell(&r.subject),
            text_cell(&r.message),
            text_cell(loc.repository.as_deref().unwrap_or("")),
            text_cell(loc.path.as_deref().unwrap_or("")),
            text_cell(loc.commit.as_deref().unwrap_or("")),
            text_cell(&evidence),
        ];
        w.write_record(cells).expect("writing to memory cannot fail");
    }
    finish(w)
}

fn value_cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => text_cell(s),
        other => text_cell(&other.to_string()),
    }
}

fn text_cell(s: &str) -> String {
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{s}") } else { s.to_owned() }
}

/// `file added in` → `file_added_in`; `A1–A8` → `a1_a8`.
fn snake(header: &str) -> String {
    let mut out = String::with_capacity(header.len());
    for c in header.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    if out.is_empty() { "column".to_owned() } else { out }
}
