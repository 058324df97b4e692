//! The check registry's types: a [`Check`] with a stable code and its docs, and the [`Family`]
//! that owns it.
//!
//! A family is data its owner declares: the prefix and grammar of its codes, how it groups its
//! checks, the sources its spec lines cite by shorthand and its presentation choices. The
//! registry imports no owner; the list of families lives above them, so adding one touches no
//! file here. The doc page of a code (`docs/checks/<CODE>.md`, `crossverify explain <CODE>`) is
//! generated from the same value by [`doc_page`], and a test fails when a committed page is
//! stale.

mod front_door;

pub use front_door::{Detection, Detector, Given, Run, RunError};

use crate::report::{CheckDoc, Level, Registered, Tone};

/// Which part of crossverify owns a check, as its owner declares it.
#[derive(Debug)]
pub struct Family {
    /// Human name.
    pub name: &'static str,
    /// What every code of the family starts with (`CV-G`).
    pub prefix: &'static str,
    /// The code grammar in words, for error messages and docs.
    pub grammar: &'static str,
    /// Whether a code follows the grammar.
    pub code_ok: fn(&str) -> bool,
    /// What a check's group is called (`rule`), when the family groups its checks.
    pub group_label: Option<&'static str>,
    /// Whether `group` is the right group for `code` (a code grammar may encode it).
    pub group_ok: fn(code: &str, group: Option<&str>) -> bool,
    /// Shorthand sources a spec line may cite (`formats note`), each with the sentence that
    /// spells it out on the doc page.
    pub sources: &'static [(&'static str, &'static str)],
    /// Tones of the words the family's views write in cells and chart categories.
    pub tones: &'static [(&'static str, Tone)],
    /// View ids a page shows first, in this order.
    pub first_views: &'static [&'static str],
    /// Inputs naming the file a result is about, in preference order.
    pub location_inputs: &'static [&'static str],
}

impl PartialEq for Family {
    fn eq(&self, other: &Self) -> bool {
        self.prefix == other.prefix
    }
}

impl Eq for Family {}

/// The common code grammar: `prefix` then exactly `digits` ASCII digits.
#[must_use]
pub fn prefix_and_digits(code: &str, prefix: &str, digits: usize) -> bool {
    code.strip_prefix(prefix).is_some_and(|d| d.len() == digits && d.bytes().all(|b| b.is_ascii_digit()))
}

/// A group check for families without groups: none is right.
#[must_use]
pub fn no_group(_code: &str, group: Option<&str>) -> bool {
    group.is_none()
}

/// One registered check.
#[derive(Debug)]
pub struct Check {
    /// Stable code, e.g. `CV-G001`.
    pub code: &'static str,
    /// Kebab-case name of what is detected when it fails, e.g. `manifest-digest-mismatch`.
    pub name: &'static str,
    /// Level of a failure.
    pub level: Level,
    /// Owning family.
    pub family: &'static Family,
    /// The family's group this check belongs to (`R7`), if any.
    pub group: Option<&'static str>,
    /// One line for `crossverify checks`.
    pub summary: &'static str,
    /// "What it checks" section of the doc page.
    pub what: &'static str,
    /// "Why it matters" section.
    pub why: &'static str,
    /// "Example" section: a representative failing result.
    pub example: &'static str,
    /// Spec section, e.g. `specs/foundation.md#manifest-derivation`, plus its sources.
    pub spec: &'static str,
}

impl Registered for Check {
    fn code(&self) -> &str {
        self.code
    }

    fn level(&self) -> Level {
        self.level
    }
}

/// Where a code lives in the repository: the source files that emit it and the test vectors
/// that exercise it, so a reader is one hop from the code to both.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Whereabouts {
    /// Repository-relative source files.
    pub sources: Vec<String>,
    /// File names under `test-vectors/checks/`.
    pub vectors: Vec<String>,
}

impl Check {
    /// What a report carries about this check (its doc page as given), so renderers need not
    /// look it up.
    #[must_use]
    pub fn doc(&self, page: String) -> CheckDoc {
        CheckDoc {
            name: self.name.to_owned(),
            level: self.level,
            family: self.family.name.to_owned(),
            group: self.family.group_label.zip(self.group).map(|(l, g)| (l.to_owned(), g.to_owned())),
            summary: self.summary.to_owned(),
            what: self.what.to_owned(),
            why: self.why.to_owned(),
            page,
            help_uri: doc_uri(self.code),
        }
    }
}

pub use crate::report::doc_uri;

/// The doc page of a check, as committed under `docs/checks/<CODE>.md`.
#[must_use]
pub fn doc_page(c: &Check, at: &Whereabouts) -> String {
    let group = match (c.family.group_label, c.group) {
        (Some(label), Some(g)) => format!(" · {label} {g}"),
        _ => String::new(),
    };
    format!(
        "# {code} `{name}`\n\n{summary}\n\nLevel: **{level}** · family: {family}{group}\n\n\
         ## What it checks\n\n{what}\n\n## Why it matters\n\n{why}\n\n## Example\n\n```text\n{example}\n```\n\n\
         ## Spec\n\n{spec}\n\n## Where\n\n{at}\n\n<!-- generated from the check registry by `crossverify explain {code}`; do not edit -->\n",
        code = c.code,
        name = c.name,
        summary = c.summary,
        level = c.level.as_str(),
        family = c.family.name,
        what = c.what.trim(),
        why = c.why.trim(),
        example = c.example.trim(),
        spec = spec_text(c),
        at = where_text(at),
    )
}

fn where_text(at: &Whereabouts) -> String {
    let links = |items: &[String], dir: &str| {
        if items.is_empty() {
            "none".to_owned()
        } else {
            items.iter().map(|i| format!("[`{i}`](../../{dir}{i})")).collect::<Vec<_>>().join(", ")
        }
    };
    format!("Emitted in: {}\n\nVectors: {}", links(&at.sources, ""), links(&at.vectors, "test-vectors/checks/"))
}

/// The spec line with its shorthand sources spelled out as links a reader can follow.
fn spec_text(c: &Check) -> String {
    let spec = c.spec.trim();
    let sources: Vec<&str> =
        c.family.sources.iter().filter(|(short, _)| spec.contains(short)).map(|(_, long)| *long).collect();
    if sources.is_empty() { spec.to_owned() } else { format!("{spec}\n\nSources — {}.", sources.join("; ")) }
}

/// The index page `docs/checks/README.md`: every code of `all` with its level, group and
/// summary.
#[must_use]
pub fn index_page(all: &[&Check]) -> String {
    let mut out = String::from(
        "# Check index\n\nEvery check crossverify reports, generated from the registry. `crossverify explain CODE` prints a page.\n\n| code | name | level | group | summary |\n|---|---|---|---|---|\n",
    );
    for c in all {
        out.push_str(&format!(
            "| [{code}]({code}.md) | `{name}` | {level} | {group} | {summary} |\n",
            code = c.code,
            name = c.name,
            level = c.level.as_str(),
            group = group_cell(c),
            summary = c.summary
        ));
    }
    out.push_str("\n<!-- generated from the check registry; do not edit -->\n");
    out
}

/// A check's group as a listing shows it (`rule R7`), empty without one.
#[must_use]
pub fn group_cell(c: &Check) -> String {
    match (c.family.group_label, c.group) {
        (Some(label), Some(g)) => format!("{label} {g}"),
        _ => String::new(),
    }
}

/// A code or check name that names no check, with the nearest one when a near one exists.
#[derive(Debug, thiserror::Error)]
#[error("unknown check code or name `{given}`{}; `crossverify checks` lists them", .nearest.as_ref().map_or_else(String::new, |n| format!(" (did you mean `{n}`?)")))]
pub struct UnknownCode {
    /// What was asked for.
    pub given: String,
    /// The code or name nearest to it (by edit distance), when one is near enough to suggest.
    pub nearest: Option<String>,
}
