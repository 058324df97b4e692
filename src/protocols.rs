//! The list of check families, one line per protocol, and what the command layer does with it:
//! look codes up, list them, explain them, and put each check's documentation and each
//! family's presentation choices into a report before it is rendered.
//!
//! This is the one generic file a new protocol adds a line to; the registry (`checks`), the
//! report model and the renderers know no family.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::checks::{Check, Family, UnknownCode, Whereabouts, doc_page, group_cell};
use crate::report::{Report, Table, View};

/// Every family with its checks.
pub static FAMILIES: &[(&Family, &[&[&Check]])] = &[
    (&crate::foundation::FAMILY, &[crate::foundation::CHECKS]),
    (&crate::crossaudit::checks::FAMILY, &[crate::crossaudit::CHECKS, crate::crossaudit::deployed::CHECKS]),
    (&crate::stats::FAMILY, &[crate::stats::CHECKS]),
    (&crate::proof_or_stop::FAMILY, &[crate::proof_or_stop::CHECKS]),
    (&crate::crossexam::FAMILY, &[crate::crossexam::CHECKS]),
    (
        &crate::anchors::FAMILY,
        &[crate::anchors::commits::CHECKS, crate::anchors::reports::CHECKS, crate::anchors::sigstore::CHECKS],
    ),
];

/// What `crossverify verify PATH` found: a protocol's description of PATH, the equivalent
/// command line, and the run itself.
pub struct Detection {
    /// What PATH holds, in the protocol's words.
    pub what: String,
    /// The command the run is equivalent to.
    pub command: String,
    /// Runs the detected command.
    pub run: Run,
}

/// A detected command, ready to run.
pub type Run = Box<dyn FnOnce(crate::progress::Ctx<'_>) -> Result<Report, RunError>>;

/// Why a detected command could not run (exit 2).
pub type RunError = Box<dyn std::error::Error + Send + Sync>;

/// A protocol's answer to "is PATH yours?" (`science`: the science repository, if given).
pub type Detector = fn(&std::path::Path, Option<&std::path::Path>) -> Option<Detection>;

/// Every protocol's detector, one line per protocol, asked in this order.
pub static DETECTORS: &[Detector] = &[
    |p, s| {
        crate::crossaudit::detect::detect(p, s).map(|d| Detection {
            what: d.what.clone(),
            command: d.command.clone(),
            run: Box::new(move |ctx| d.run(ctx)),
        })
    },
    |p, _| {
        crate::crossexam::stats_input::is_transcript(p).then(|| {
            let opts = crate::crossexam::Options::new(p);
            Detection {
                what: "a CrossExam transcript (a `_Msg` directory with bus.jsonl)".to_owned(),
                command: format!("crossverify transcript {}", p.display()),
                run: Box::new(move |_| crate::crossexam::transcript(&opts).map_err(Into::into)),
            }
        })
    },
];

/// The protocol that recognises `path`. A path that more than one protocol recognises (a
/// directory holding both CrossAudit ledger records and a CrossExam transcript) is refused
/// with each protocol's command: verifying one of them would leave the other unverified
/// under a report that looks complete (`docs/scale.md`, "verify PATH").
///
/// # Errors
/// When no protocol does (the message says what was looked for), or several do (the message
/// lists the command for each).
pub fn detect(path: &std::path::Path, science: Option<&std::path::Path>) -> Result<Detection, String> {
    let mut found: Vec<Detection> = DETECTORS.iter().filter_map(|d| d(path, science)).collect();
    if found.len() > 1 {
        let each: Vec<String> = found.iter().map(|d| format!("`{}` ({})", d.command, d.what)).collect();
        return Err(format!(
            "{}: holds records of more than one protocol, and `verify` verifies one report of one protocol; \
             run each: {}",
            path.display(),
            each.join("; ")
        ));
    }
    found.pop().ok_or_else(|| {
        format!(
            "{}: not something crossverify recognises (looked for a CrossAudit ledger or receipt, in a git repository \
             or a directory, CrossAudit ledger records and a CrossExam `_Msg` directory); name the command instead (`crossverify --help`)",
            path.display()
        )
    })
}

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

/// Where each code is emitted and exercised, generated from the sources and the vectors by
/// `tests/registry.rs` (which fails when it is stale).
const WHEREABOUTS: &str = include_str!("../docs/checks/whereabouts.tsv");

/// Where `code` is emitted and exercised, as last generated.
#[must_use]
pub fn whereabouts(code: &str) -> Whereabouts {
    let words = |s: &str| s.split(' ').filter(|w| !w.is_empty()).map(str::to_owned).collect();
    WHEREABOUTS
        .lines()
        .filter_map(|l| {
            let mut f = l.split('\t');
            Some((f.next()?, f.next()?, f.next()?))
        })
        .find(|(c, _, _)| *c == code)
        .map(|(_, sources, vectors)| Whereabouts { sources: words(sources), vectors: words(vectors) })
        .unwrap_or_default()
}

/// The `whereabouts.tsv` text for `all` (code, sources, vectors; space-separated lists).
#[must_use]
pub fn whereabouts_tsv<'a>(all: impl IntoIterator<Item = (&'a str, &'a Whereabouts)>) -> String {
    let mut out = String::from("# code\tsources\tvectors; generated by tests/registry.rs, do not edit\n");
    for (code, w) in all {
        out.push_str(&format!("{code}\t{}\t{}\n", w.sources.join(" "), w.vectors.join(" ")));
    }
    out
}

/// The doc page of `c` with its whereabouts.
#[must_use]
pub fn page(c: &Check) -> String {
    doc_page(c, &whereabouts(c.code))
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
            report.checks.insert(code, c.doc(page(c)));
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
    report.section("doc", page(c));
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
            let page = page(c);
            for h in ["## What it checks", "## Why it matters", "## Example", "## Spec", "## Where"] {
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
        assert_eq!(e.sections["doc"], page(&crate::foundation::BLOB_READABLE));
        assert!(whereabouts("CV-G001").sources.iter().any(|s| s == "src/foundation/checks.rs"));
        let err = explain("CV-X000").expect_err("unknown");
        assert!(err.to_string().contains("`CV-X000`") && err.to_string().contains("crossverify checks"));
    }

    /// A family whose codes are rule IDs (`CX-G1`, as CrossExam's will be) fits the registry
    /// without any change to it.
    #[test]
    fn a_family_with_rule_id_codes_is_expressible() {
        static RULES: Family = Family {
            name: "rule ids",
            prefix: "CX-",
            grammar: "`CX-`, a letter, then digits",
            code_ok: |c| {
                let b = c.as_bytes();
                c.starts_with("CX-")
                    && b.get(3).is_some_and(u8::is_ascii_uppercase)
                    && b.len() > 4
                    && b[4..].iter().all(u8::is_ascii_digit)
            },
            group_label: Some("rule group"),
            group_ok: |c, g| g == c.get(3..4),
            sources: &[],
            tones: &[("OBJECTION", crate::report::Tone::Bad)],
            first_views: &[],
            location_inputs: &[],
        };
        static G1: Check = Check {
            code: "CX-G1",
            name: "demo-rule",
            level: crate::report::Level::Error,
            family: &RULES,
            group: Some("G"),
            summary: "A demo rule",
            what: "w",
            why: "y",
            example: "CX-G1 failed x",
            spec: "s",
        };
        assert!((RULES.code_ok)(G1.code) && !(RULES.code_ok)("CX-1"));
        assert!((RULES.group_ok)(G1.code, G1.group));
        let page = doc_page(&G1, &Whereabouts::default());
        assert!(page.starts_with("# CX-G1 `demo-rule`") && page.contains("family: rule ids · rule group G"));
        assert_eq!(G1.doc(page).group, Some(("rule group".to_owned(), "G".to_owned())));
    }

    #[test]
    fn describe_carries_docs_and_only_the_words_present() {
        let mut r = Report::new("demo");
        r.results.push(crate::report::CheckResult::new(
            &crate::foundation::BLOB_READABLE,
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
        // A saved report renders alone: every format reads the same from the JSON copy.
        let back: Report =
            serde_json::from_slice(&crate::render::render(&r, crate::render::Format::Json, &Default::default()))
                .expect("the JSON report reads back");
        for f in crate::render::Format::ALL {
            let opts = crate::render::Options::default();
            assert_eq!(crate::render::render(&back, *f, &opts), crate::render::render(&r, *f, &opts), "{}", f.name());
        }
    }
}
