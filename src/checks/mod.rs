//! The check registry: every check crossverify can report, with a stable code and its docs.
//!
//! Each protocol module declares its checks as `static` [`Check`] values and lists them in a
//! `CHECKS` slice; [`all`] gathers those slices. The doc page of a code (`docs/checks/<CODE>.md`,
//! `crossverify explain <CODE>`) is generated from the same value by [`doc_page`], and a test
//! fails when a committed page is stale.
//!
//! Codes read `CV-<F><NNN>`: `CV-` for crossverify, one family letter, three digits. For the
//! CrossAudit family the first digit is the invariant enforced (`CV-A701` is an I7 check), 0
//! for format-level checks. The shape deliberately cannot be mistaken for a Constitution rule
//! ID (`CA-<SECTION>-<NNN>`).

use crate::report::Level;

/// Which part of crossverify owns a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// Git access and manifest derivation (letter `G`).
    Git,
    /// CrossAudit ledgers and receipts (letter `A`).
    CrossAudit,
    /// Statistics and stated-figure claims (letter `S`).
    Stats,
}

impl Family {
    /// The family letter used in codes.
    #[must_use]
    pub fn letter(self) -> char {
        match self {
            Family::Git => 'G',
            Family::CrossAudit => 'A',
            Family::Stats => 'S',
        }
    }

    /// Human name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Family::Git => "git and manifests",
            Family::CrossAudit => "CrossAudit",
            Family::Stats => "statistics",
        }
    }
}

/// One registered check.
#[derive(Debug)]
pub struct Check {
    /// Stable code, e.g. `CV-A701`.
    pub code: &'static str,
    /// Kebab-case name of what is detected when it fails, e.g. `manifest-digest-mismatch`.
    pub name: &'static str,
    /// Level of a failure.
    pub level: Level,
    /// Owning family.
    pub family: Family,
    /// Protocol invariant enforced (`I7`), if any.
    pub invariant: Option<&'static str>,
    /// One line for `crossverify checks`.
    pub summary: &'static str,
    /// "What it checks" section of the doc page.
    pub what: &'static str,
    /// "Why it matters" section.
    pub why: &'static str,
    /// "Example" section: a representative failing result.
    pub example: &'static str,
    /// Spec section, e.g. `specs/crossaudit.md#cv-a701`, plus the protocol source.
    pub spec: &'static str,
}

/// Every registered check, sorted by code.
#[must_use]
pub fn all() -> Vec<&'static Check> {
    let mut v: Vec<&'static Check> = crate::manifest::CHECKS
        .iter()
        .chain(crate::crossaudit::CHECKS)
        .chain(crate::crossaudit::deployed::CHECKS)
        .chain(crate::stats::CHECKS)
        .copied()
        .collect();
    v.sort_by_key(|c| c.code);
    v
}

/// Looks a check up by code (case-insensitive).
#[must_use]
pub fn find(code: &str) -> Option<&'static Check> {
    all().into_iter().find(|c| c.code.eq_ignore_ascii_case(code))
}

/// Address of a code's doc page at this version's tag (SARIF `helpUri`, report links): a report
/// keeps pointing at the text its checks were built with.
#[must_use]
pub fn doc_uri(code: &str) -> String {
    format!("{}/blob/v{}/docs/checks/{code}.md", env!("CARGO_PKG_REPOSITORY"), env!("CARGO_PKG_VERSION"))
}

/// The doc page of a check, as committed under `docs/checks/<CODE>.md`.
#[must_use]
pub fn doc_page(c: &Check) -> String {
    let inv = c.invariant.map_or_else(String::new, |i| format!(" · invariant {i}"));
    format!(
        "# {code} `{name}`\n\n{summary}\n\nLevel: **{level}** · family: {family}{inv}\n\n\
         ## What it checks\n\n{what}\n\n## Why it matters\n\n{why}\n\n## Example\n\n```text\n{example}\n```\n\n\
         ## Spec\n\n{spec}\n\n<!-- generated from the check registry by `crossverify explain {code}`; do not edit -->\n",
        code = c.code,
        name = c.name,
        summary = c.summary,
        level = c.level.as_str(),
        family = c.family.name(),
        what = c.what.trim(),
        why = c.why.trim(),
        example = c.example.trim(),
        spec = spec_text(c.spec.trim()),
    )
}

/// The spec line with its shorthand sources spelled out as links a reader can follow.
fn spec_text(spec: &str) -> String {
    let mut sources = Vec::new();
    if spec.contains("formats note") {
        sources.push("formats note: [specs/notes/crossaudit-formats.md](../../specs/notes/crossaudit-formats.md)");
    }
    if spec.contains("real-ledger note") {
        sources.push(
            "real-ledger note: [specs/notes/crossaudit-real-ledgers.md](../../specs/notes/crossaudit-real-ledgers.md)",
        );
    }
    if spec.contains("paper") {
        sources.push("paper: *CrossAudit: A Git-Native, Cross-Vendor Audit Loop for Agentic Science*");
    }
    if sources.is_empty() {
        spec.to_owned()
    } else {
        format!(
            "{spec}

Sources — {}.",
            sources.join("; ")
        )
    }
}

#[cfg(test)]
mod tests;

/// The index page `docs/checks/README.md`: every code with its level, invariant and summary.
#[must_use]
pub fn index_page() -> String {
    let mut out = String::from(
        "# Check index\n\nEvery check crossverify reports, generated from the registry. `crossverify explain CODE` prints a page.\n\n| code | name | level | invariant | summary |\n|---|---|---|---|---|\n",
    );
    for c in all() {
        out.push_str(&format!(
            "| [{code}]({code}.md) | `{name}` | {level} | {inv} | {summary} |\n",
            code = c.code,
            name = c.name,
            level = c.level.as_str(),
            inv = c.invariant.unwrap_or(""),
            summary = c.summary
        ));
    }
    out.push_str("\n<!-- generated from the check registry; do not edit -->\n");
    out
}

/// `crossverify checks`: every registered code with its level and summary.
#[must_use]
pub fn command() -> crate::report::Report {
    let mut report = crate::report::Report::new("checks");
    let rows = all()
        .into_iter()
        .map(|c| {
            vec![
                c.code.into(),
                c.name.into(),
                c.level.as_str().into(),
                c.invariant.unwrap_or("").into(),
                c.summary.into(),
            ]
        })
        .collect();
    report.views.push(crate::report::View::Table(crate::report::Table {
        id: "checks".into(),
        title: "Registered checks".into(),
        columns: vec!["code".into(), "name".into(), "level".into(), "invariant".into(), "summary".into()],
        rows,
        note: Some("`crossverify explain CODE` prints a check's documentation page.".into()),
        csv: true,
    }));
    report.finish();
    report
}

/// An unknown check code.
#[derive(Debug, thiserror::Error)]
#[error("unknown check code `{0}`; `crossverify checks` lists them")]
pub struct UnknownCode(pub String);

/// `crossverify explain CODE`: the code's documentation page, in the `doc` section.
///
/// # Errors
/// [`UnknownCode`] when no check has that code.
pub fn explain(code: &str) -> Result<crate::report::Report, UnknownCode> {
    let c = find(code).ok_or_else(|| UnknownCode(code.to_owned()))?;
    let mut report = crate::report::Report::new("explain");
    report.input("code", c.code);
    report.section("doc", doc_page(c));
    report.finish();
    Ok(report)
}
