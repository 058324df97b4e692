//! The list of check families, one line per protocol, and what the command layer does with it:
//! look codes up, list them, explain them, and put each check's documentation and each
//! family's presentation choices into a report before it is rendered.
//!
//! This is the one generic file a new protocol adds a line to ([`PROTOCOLS`]); the registry
//! (`checks`), the report model, the renderers and the statistics know no protocol.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::checks::{Check, Family, UnknownCode, Whereabouts, doc_page, group_cell};
use crate::report::{Report, Table, View};

/// One protocol, as its own directory describes it in its `protocol.rs`: its name, what its
/// front door recognises, its check family, its detector for `crossverify verify PATH` and its
/// statistics adapter for `crossverify stats PATH`.
#[derive(Debug)]
pub struct Protocol {
    /// The protocol's name.
    pub name: &'static str,
    /// What its detector looks for, in words.
    pub recognises: &'static str,
    /// Its check family.
    pub family: &'static Family,
    /// The family's checks.
    pub checks: &'static [&'static [&'static Check]],
    /// Its answer to "is PATH yours?", when its inputs can be recognised.
    pub detect: Option<Detector>,
    /// Its conversion into the statistics records, when it has finding lifecycles.
    pub stats: Option<crate::stats::Adapter>,
    /// The commits a record binds in a repository beside it (hex), when the protocol can read
    /// them without that repository: a journal's intake pairs the record with a repository
    /// holding them, opening each candidate once instead of running the record against each.
    pub binds: Option<fn(&std::path::Path) -> Vec<String>>,
}

/// A protocol's entry, read from the items its `src/<protocol>/protocol.rs` declares.
macro_rules! protocol {
    ($m:ident) => {
        protocol!($m, None)
    };
    ($m:ident, binds) => {
        protocol!($m, crate::$m::protocol::BINDS)
    };
    ($m:ident, $binds:expr) => {
        Protocol {
            name: crate::$m::protocol::NAME,
            recognises: crate::$m::protocol::RECOGNISES,
            family: &crate::$m::protocol::FAMILY,
            checks: crate::$m::protocol::CHECKS,
            detect: crate::$m::protocol::DETECT,
            stats: crate::$m::protocol::STATS,
            binds: $binds,
        }
    };
}

/// Every protocol, one line each. Detectors are asked in this order.
pub static PROTOCOLS: &[Protocol] = &[protocol!(crossaudit, binds), protocol!(proof_or_stop), protocol!(crossexam)];

/// The families that belong to no protocol: the foundation's, the statistics' (placed after
/// the first protocol's), the anchors' and the submissions' (`intake`).
static FOUNDATION: (&Family, &[&[&Check]]) = (&crate::foundation::FAMILY, &[crate::foundation::CHECKS]);
static STATISTICS: (&Family, &[&[&Check]]) = (&crate::stats::FAMILY, &[crate::stats::CHECKS]);
// The one name of a higher layer here: the registry lists every family, and the submission's
// is declared in a file that imports only the registry's types (tests/it/architecture.rs).
static INTAKE: (&Family, &[&[&Check]]) = (&crate::submission::checks::FAMILY, &[crate::submission::checks::CHECKS]);
static ANCHORS: (&Family, &[&[&Check]]) = (
    &crate::anchors::FAMILY,
    &[crate::anchors::commits::CHECKS, crate::anchors::reports::CHECKS, crate::anchors::sigstore::CHECKS],
);

/// Every family with its checks. The order is part of every report: a family earlier in it
/// wins a word's tone and puts its location inputs first (`describe`), so it is kept as it was
/// when this list was written out: the foundation, the first protocol, the statistics, the
/// other protocols, the anchors; then the families added since, at the end.
#[must_use]
pub fn families() -> Vec<(&'static Family, &'static [&'static [&'static Check]])> {
    let protocols = PROTOCOLS.iter().map(|p| (p.family, p.checks));
    let mut out = vec![FOUNDATION];
    out.extend(protocols.clone().take(1));
    out.push(STATISTICS);
    out.extend(protocols.skip(1));
    out.push(ANCHORS);
    out.push(INTAKE);
    out
}

pub use crate::checks::{Detection, Detector, Given, Run, RunError};

/// The protocol that recognises `path`. A path that more than one protocol recognises (a
/// directory holding both CrossAudit ledger records and a CrossExam transcript) is refused
/// with each protocol's command: verifying one of them would leave the other unverified
/// under a report that looks complete (`docs/scale.md`, "verify PATH").
///
/// # Errors
/// When no protocol does (the message says what was looked for), or several do (the message
/// lists the command for each).
pub fn detect(path: &std::path::Path, given: Given<'_>) -> Result<Detection, String> {
    let mut found: Vec<Detection> = PROTOCOLS.iter().filter_map(|p| p.detect).filter_map(|d| d(path, given)).collect();
    if found.len() > 1 {
        let each: Vec<String> = found.iter().map(|d| format!("`{}` ({})", d.command, d.what)).collect();
        return Err(format!(
            "{}: holds records of more than one protocol, and `verify` verifies one report of one protocol; \
             run `crossverify verify --submission {}` to verify all of them in one report, or each: {}",
            path.display(),
            path.display(),
            each.join("; ")
        ));
    }
    found.pop().ok_or_else(|| {
        let looked: Vec<&str> = PROTOCOLS.iter().filter(|p| p.detect.is_some()).map(|p| p.recognises).collect();
        let (last, rest) = looked.split_last().map_or(("", &[][..]), |(l, r)| (*l, r));
        let looked = if rest.is_empty() { last.to_owned() } else { format!("{} and {last}", rest.join(", ")) };
        format!(
            "{}: not something crossverify recognises (looked for {looked}); name the command instead (`crossverify --help`)",
            path.display()
        )
    })
}

/// What the protocol named `protocol` recognises at `path`, if it does: a journal's intake asks
/// every protocol of every path, and verifies each record found.
#[must_use]
pub fn detect_by(protocol: &str, path: &std::path::Path, given: Given<'_>) -> Option<Detection> {
    PROTOCOLS.iter().find(|p| p.name == protocol).and_then(|p| p.detect).and_then(|d| d(path, given))
}

/// The commits the record at `path` binds in a repository beside it, by the protocol named
/// `protocol` ([`Protocol::binds`]); empty when it declares none.
#[must_use]
pub fn binds(protocol: &str, path: &std::path::Path) -> Vec<String> {
    PROTOCOLS.iter().find(|p| p.name == protocol).and_then(|p| p.binds).map(|b| b(path)).unwrap_or_default()
}

/// The statistics adapter that reads `path`: the first protocol's that recognises it, else
/// the one that reads whatever no other recognises.
///
/// # Panics
/// When no protocol's adapter takes unrecognised paths (a registry without one is a bug).
#[must_use]
pub fn stats_adapter(path: &std::path::Path) -> crate::stats::Adapter {
    let adapters = || PROTOCOLS.iter().filter_map(|p| p.stats);
    adapters()
        .find(|a| a.recognises.is_some_and(|r| r(path)))
        .or_else(|| adapters().find(|a| a.recognises.is_none()))
        .expect("one protocol's statistics adapter reads what no other recognises")
}

/// Every registered check, sorted by code.
#[must_use]
pub fn all() -> Vec<&'static Check> {
    let mut v: Vec<&'static Check> =
        families().into_iter().flat_map(|(_, lists)| lists.iter().flat_map(|l| l.iter().copied())).collect();
    v.sort_by_key(|c| c.code);
    v
}

/// Looks a check up by code (case-insensitive).
#[must_use]
pub fn find(code: &str) -> Option<&'static Check> {
    all().into_iter().find(|c| c.code.eq_ignore_ascii_case(code))
}

/// The check a code or a check name names (`CV-A701`, `cv-a701`, `subject-binding-broken`):
/// reports print both, and a reader looks up whichever they have.
///
/// # Errors
/// [`UnknownCode`] naming the nearest code or name when neither matches, or the codes sharing
/// a name that more than one family uses.
pub fn lookup(code_or_name: &str) -> Result<&'static Check, UnknownCode> {
    if let Some(c) = find(code_or_name) {
        return Ok(c);
    }
    let named: Vec<&Check> = all().into_iter().filter(|c| c.name.eq_ignore_ascii_case(code_or_name)).collect();
    match named.as_slice() {
        [one] => return Ok(one),
        [] => {}
        several => {
            let codes: Vec<&str> = several.iter().map(|c| c.code).collect();
            return Err(UnknownCode { given: code_or_name.to_owned(), nearest: Some(codes.join("` or `")) });
        }
    }
    let asked = code_or_name.to_ascii_lowercase();
    let nearest = all()
        .into_iter()
        .flat_map(|c| [c.code, c.name])
        .map(|w| (edit_distance(&asked, &w.to_ascii_lowercase()), w))
        .min()
        .filter(|(d, w)| *d <= (w.chars().count() / 3).max(2))
        .map(|(_, w)| w.to_owned());
    Err(UnknownCode { given: code_or_name.to_owned(), nearest })
}

/// Levenshtein distance over characters (insertions, deletions and substitutions cost 1).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// Where each code is emitted and exercised, generated from the sources and the vectors by
/// `tests/it/registry.rs` (which fails when it is stale).
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
    let mut out = String::from("# code\tsources\tvectors; generated by tests/it/registry.rs, do not edit\n");
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
    let families = families();
    let reported: Vec<&Family> =
        families.iter().map(|(f, _)| *f).filter(|f| report.results.iter().any(|r| (f.code_ok)(&r.code))).collect();
    let hints = &mut report.hints;
    for (f, _) in &families {
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

/// `crossverify explain CODE`: the documentation page of the check a code or a check name
/// names ([`lookup`]), in the `doc` section.
///
/// # Errors
/// [`UnknownCode`] when no check has that code or name.
pub fn explain(code: &str) -> Result<Report, UnknownCode> {
    let c = lookup(code)?;
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

    /// Proof-or-Stop evidence is recognised at the front door; without the repository and the
    /// trust store it needs, the detection names them and the exact command. Any directory
    /// holding signed records (a story's, a directory of stories, a receipt beside the
    /// findings) goes to the floor, with the `repo` and `trust-store` a submission gives; only
    /// unsigned findings go to the statistics, and say so.
    #[test]
    fn proof_or_stop_evidence_is_detected_and_asks_for_what_it_needs() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("test-vectors/proof-or-stop");
        let evidence = root.join("floor/full-quorum");
        let found = detect(&evidence, Given::default()).expect("recognised");
        assert!(found.what.contains("Proof-or-Stop evidence directory"), "{}", found.what);
        let needs = found.run.err().expect("needs the live state");
        assert!(needs.contains("--repo and --trust-store"), "{needs}");
        assert_eq!(
            found.command,
            format!("crossverify floor {} --repo <REPO> --trust-store <TRUST-STORE>", evidence.display())
        );
        let repo = root.join("repos/golden.git");
        let given = [("repo", repo.as_path())];
        let found = detect(&root.join("bundles/00-authentic.json"), Given(&given)).expect("a bundle");
        assert!(found.command.contains(&format!("--repo {} --trust-store <TRUST-STORE>", repo.display())));
        assert!(found.run.is_err());
        let stories = detect(&root.join("stats"), Given::default()).expect("findings");
        assert!(stories.run.is_ok() && stories.command.starts_with("crossverify stats "));
        assert!(stories.what.contains("no signed record"), "{}", stories.what);
        // Every scenario of floor/ is a story with signed verdicts: the directory is theirs.
        let scenarios = root.join("floor");
        let found = detect(&scenarios, Given::default()).expect("a directory of stories");
        assert!(found.what.contains("directory of Proof-or-Stop evidence directories"), "{}", found.what);
        assert_eq!(
            found.command,
            format!("crossverify floor {} --repo <REPO> --trust-store <TRUST-STORE>", scenarios.display())
        );
        assert!(found.run.err().expect("needs the live state").contains("--repo and --trust-store"));
        let store = root.join("keys/trust-store.json");
        let both = [("science", repo.as_path()), ("repo", repo.as_path()), ("trust-store", store.as_path())];
        let found = detect(&scenarios, Given(&both)).expect("a directory of stories");
        assert!(found.run.is_ok(), "a submission's repository and trust store are taken");
        assert!(found.command.ends_with(&format!("--repo {} --trust-store {}", repo.display(), store.display())));
        let tmp = tempfile::tempdir().expect("tmp");
        let story = tmp.path().join("B-0001");
        std::fs::create_dir_all(story.join("receipts")).expect("mkdir");
        std::fs::copy(root.join("stats/B-0001/findings.json"), story.join("findings.json")).expect("findings");
        assert!(detect(&story, Given::default()).expect("findings").command.starts_with("crossverify stats "));
        std::fs::copy(root.join("golden/bundle.json"), story.join("receipts/done.json")).expect("receipt");
        for p in [&story, &tmp.path().to_path_buf()] {
            let found = detect(p, Given::default()).expect("signed evidence");
            assert!(found.command.starts_with("crossverify floor ") && found.run.is_err(), "{}", found.command);
        }
        assert_eq!(stats_adapter(&root.join("stats")).recognises.map(|r| r(&root.join("stats"))), Some(true));
    }

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
