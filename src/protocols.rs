//! The list of check families, one line per protocol, and what the command layer does with it:
//! look codes up, list them, explain them, and put each check's documentation and each
//! family's presentation choices into a report before it is rendered.
//!
//! This is the one generic file a new protocol adds a line to; the registry (`checks`), the
//! report model and the renderers know no family.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::checks::{Check, Family, UnknownCode, doc_page, group_cell};
use crate::report::{Report, Table, View};

/// Every family with its checks.
pub static FAMILIES: &[(&Family, &[&[&Check]])] = &[
    (&crate::manifest::FAMILY, &[crate::manifest::CHECKS]),
    (&crate::crossaudit::checks::FAMILY, &[crate::crossaudit::CHECKS, crate::crossaudit::deployed::CHECKS]),
    (&crate::stats::FAMILY, &[crate::stats::CHECKS]),
];

/// Every registered check, sorted by code.
#[must_use]
pub fn all() -> Vec<&'static Check> {
    let mut v: Vec<&'static Check> =
        FAMILIES.iter().flat_map(|(_, lists)| lists.iter().flat_map(|l| l.iter().copied())).collect();
    v.sort_by_key(|c| c.code);
    v
}

/// Looks a check up by code (case-insensitive).
#[must_use]
pub fn find(code: &str) -> Option<&'static Check> {
    all().into_iter().find(|c| c.code.eq_ignore_ascii_case(code))
}

/// The index page `docs/checks/README.md`.
#[must_use]
pub fn index_page() -> String {
    crate::checks::index_page(&all())
}

/// Puts into `report` what its renderers show beyond the results: the documentation of every
/// code it reports, and the tones, view order and location inputs the families declare (only
/// the words and views the report holds, so the JSON stays about this report).
pub fn describe(report: &mut Report) {
    let codes: BTreeSet<String> = report.results.iter().map(|r| r.code.clone()).collect();
    for code in codes {
        if let Some(c) = find(&code) {
            report.checks.insert(code, c.doc());
        }
    }
    let mut words = BTreeSet::new();
    let mut ids = BTreeSet::new();
    for v in &report.views {
        match v {
            View::Table(t) => {
                ids.insert(t.id.clone());
                words.extend(t.rows.iter().flatten().filter_map(Value::as_str).map(str::to_owned));
            }
            View::Chart(c) => {
                ids.insert(c.id.clone());
                words.extend(c.points.iter().filter_map(|p| p.category.clone()));
            }
        }
    }
    let reported: Vec<&Family> =
        FAMILIES.iter().map(|(f, _)| *f).filter(|f| report.results.iter().any(|r| (f.code_ok)(&r.code))).collect();
    let hints = &mut report.hints;
    for (f, _) in FAMILIES {
        for (word, tone) in f.tones {
            if words.contains(*word) {
                hints.tones.entry((*word).to_owned()).or_insert(*tone);
            }
        }
        for id in f.first_views {
            if ids.contains(*id) && !hints.first_views.iter().any(|v| v == id) {
                hints.first_views.push((*id).to_owned());
            }
        }
    }
    for f in reported {
        for k in f.location_inputs {
            if !hints.location_inputs.iter().any(|v| v == k) {
                hints.location_inputs.push((*k).to_owned());
            }
        }
    }
}

/// `crossverify checks`: every registered code with its level and summary.
#[must_use]
pub fn checks_command() -> Report {
    let mut report = Report::new("checks");
    let rows = all()
        .into_iter()
        .map(|c| vec![c.code.into(), c.name.into(), c.level.as_str().into(), group_cell(c).into(), c.summary.into()])
        .collect();
    report.views.push(View::Table(Table {
        id: "checks".into(),
        title: "Registered checks".into(),
        columns: vec!["code".into(), "name".into(), "level".into(), "group".into(), "summary".into()],
        rows,
        note: Some("`crossverify explain CODE` prints a check's documentation page.".into()),
        csv: true,
    }));
    report.hints.informational = true;
    report.finish();
    report
}

/// `crossverify explain CODE`: the code's documentation page, in the `doc` section.
///
/// # Errors
/// [`UnknownCode`] when no check has that code.
pub fn explain(code: &str) -> Result<Report, UnknownCode> {
    let c = find(code).ok_or_else(|| UnknownCode(code.to_owned()))?;
    let mut report = Report::new("explain");
    report.input("code", c.code);
    report.section("doc", doc_page(c));
    report.hints.informational = true;
    report.finish();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_sorted_and_lookup_ignores_case() {
        let all = all();
        let codes: Vec<&str> = all.iter().map(|c| c.code).collect();
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        assert_eq!(codes, sorted);
        assert_eq!(find("cv-g002").map(|c| c.code), Some("CV-G002"));
        assert!(find("CV-Z999").is_none());
    }

    #[test]
    fn doc_pages_have_the_fixed_sections() {
        for c in all() {
            let page = doc_page(c);
            for h in ["## What it checks", "## Why it matters", "## Example", "## Spec"] {
                assert!(page.contains(h), "{}: {h}", c.code);
            }
            assert!(page.starts_with(&format!("# {} `{}`", c.code, c.name)));
        }
    }

    #[test]
    fn checks_and_explain_commands_build_reports() {
        let r = checks_command();
        let View::Table(t) = &r.views[0] else { panic!("a table") };
        assert_eq!(t.rows.len(), all().len());
        assert!(r.hints.informational);
        let e = explain("cv-g001").expect("known code");
        assert_eq!(e.sections["doc"], doc_page(&crate::manifest::BLOB_READABLE));
        let err = explain("CV-X000").expect_err("unknown");
        assert!(err.to_string().contains("`CV-X000`") && err.to_string().contains("crossverify checks"));
    }

    #[test]
    fn describe_carries_docs_and_only_the_words_present() {
        let mut r = Report::new("demo");
        r.results.push(crate::report::CheckResult::new(
            &crate::manifest::BLOB_READABLE,
            crate::report::Outcome::Passed,
            "x",
            "ok",
        ));
        r.views.push(View::Table(Table {
            id: "t".into(),
            title: "t".into(),
            columns: vec!["a".into()],
            rows: vec![vec!["BLOCK".into()]],
            note: None,
            csv: false,
        }));
        r.finish();
        describe(&mut r);
        assert_eq!(r.checks["CV-G001"].name, "blob-unreadable");
        assert_eq!(r.hints.tones.len(), 1);
        assert_eq!(r.hints.location_inputs, ["path", "repo"]);
    }
}
