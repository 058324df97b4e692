//! The report: the one object every command produces and every renderer renders.
//!
//! A command builds a [`Report`], adds [`CheckResult`]s, statistics, sections and views, then
//! calls [`Report::finish`], which derives the top-level [`Verdict`] and the counts from the
//! results. The exit code ([`Report::exit_code`]) is a pure function of that verdict, so the
//! process status and `--format json` can never disagree.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub mod merge;
mod order;

/// Version of the JSON report layout; bumped only for incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// Address of a code's doc page at this version's tag (SARIF `helpUri`, report links): a report
/// keeps pointing at the text its checks were built with.
#[must_use]
pub fn doc_uri(code: &str) -> String {
    format!("{}/blob/v{}/docs/checks/{code}.md", env!("CARGO_PKG_REPOSITORY"), env!("CARGO_PKG_VERSION"))
}

/// Result of one check on one subject (the five EARL outcomes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    /// The evidence was seen and satisfies the check.
    Passed,
    /// The evidence contradicts the check.
    Failed,
    /// The evidence needed is missing or cannot be verified.
    CantTell,
    /// The check does not apply to this subject.
    Inapplicable,
    /// The check was not run (the capability is missing here); never a pass.
    Untested,
}

impl Outcome {
    /// All outcomes, in report order.
    pub const ALL: [Outcome; 5] =
        [Outcome::Passed, Outcome::Failed, Outcome::CantTell, Outcome::Inapplicable, Outcome::Untested];

    /// The wire name (`cantTell`, …).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::CantTell => "cantTell",
            Outcome::Inapplicable => "inapplicable",
            Outcome::Untested => "untested",
        }
    }
}

/// How much a failed check matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// A failure fails the run; `cantTell`/`untested` makes it inconclusive.
    Error,
    /// Reported, never changes the verdict.
    Warning,
    /// Context for the reader.
    Info,
}

impl Level {
    /// The wire name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Info => "info",
        }
    }
}

/// The run's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Every error-level check passed (or did not apply).
    Verified,
    /// An error-level check failed.
    Failed,
    /// Nothing failed, but an error-level check could not be decided.
    Inconclusive,
}

impl Verdict {
    /// The wire name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Verified => "verified",
            Verdict::Failed => "failed",
            Verdict::Inconclusive => "inconclusive",
        }
    }

    /// Process exit code: 0 verified, 1 failed, 3 inconclusive (2 is "could not run", which
    /// never has a report).
    #[must_use]
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Verified => 0,
            Verdict::Failed => 1,
            Verdict::Inconclusive => 3,
        }
    }
}

/// Where a result points, for SARIF and links.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// Which repository (`science`, `audit`) or input the path belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// Repository-relative path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Commit the path was read at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// What [`CheckResult::new`] needs of a check: its code and the level of a failure. The
/// registry's check type implements it, so the report model does not depend on the registry.
pub trait Registered {
    /// Stable code.
    fn code(&self) -> &str;
    /// Level of a failure.
    fn level(&self) -> Level;
}

/// How a word in a cell or a chart category reads: the one colour vocabulary of every human
/// format. The code that builds a view decides it; renderers only map it to colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tone {
    /// Holds, passed, enforced.
    Good,
    /// Broken, failed, refused.
    Bad,
    /// Undecided or qualified.
    Unknown,
    /// Context without a judgement (not measured, not applicable).
    Neutral,
}

impl Tone {
    /// The tone of an outcome or verdict word of the report model itself (`passed`,
    /// `cantTell`, `verified`, …) and of "not measured"; `None` for any other word.
    #[must_use]
    pub fn of_model_word(word: &str) -> Option<Tone> {
        Some(match word {
            "passed" | "verified" => Tone::Good,
            "failed" => Tone::Bad,
            "cantTell" | "untested" | "inconclusive" => Tone::Unknown,
            "inapplicable" | "not measured" => Tone::Neutral,
            _ => return None,
        })
    }
}

/// What a renderer shows about a check: everything it would otherwise look up in a registry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckDoc {
    /// Kebab-case name (`manifest-digest-mismatch`).
    pub name: String,
    /// Level of a failure.
    pub level: Level,
    /// Name of the owning family.
    pub family: String,
    /// How the family groups its checks and this check's group (`invariant`, `I7`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<(String, String)>,
    /// One line.
    pub summary: String,
    /// "What it checks".
    pub what: String,
    /// "Why it matters".
    pub why: String,
    /// The whole documentation page, Markdown.
    pub page: String,
    /// Address of the page online.
    pub help_uri: String,
}

/// Presentation choices the code that built the report made, so renderers need no registry and
/// no protocol knowledge.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hints {
    /// Tone of words that appear in cells and chart categories, beyond the report model's own
    /// outcome words.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tones: BTreeMap<String, Tone>,
    /// View ids a page shows first, in this order; the other views follow in report order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub first_views: Vec<String>,
    /// View ids the terminal (`--format table`) shows, in report order, instead of every view
    /// and the results that did not pass; the others are in the document formats. Empty: all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub terminal_views: Vec<String>,
    /// Inputs (by key, in preference order) naming the file a result without a location is
    /// about, for formats that require a file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub location_inputs: Vec<String>,
    /// A label and a sentence the HTML header shows under the verdict (the one decision a
    /// reader came for, beside the verdict).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headline: Option<(String, String)>,
    /// The report informs (a listing, a doc page, a derived manifest) rather than verifies:
    /// human formats show no verdict banner.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub informational: bool,
}

impl Hints {
    /// Whether nothing was chosen.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        *self == Hints::default()
    }

    /// The tone of `word`: the report model's own words first, then the chosen ones.
    #[must_use]
    pub fn tone(&self, word: &str) -> Option<Tone> {
        Tone::of_model_word(word).or_else(|| self.tones.get(word).copied())
    }
}

/// One check applied to one subject.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    /// Stable check code (`CV-A701`).
    pub code: String,
    /// Severity of a failure.
    pub level: Level,
    /// What was found.
    pub outcome: Outcome,
    /// What was checked (a cycle, a receipt path, a finding…).
    pub subject: String,
    /// One sentence a reader can act on.
    pub message: String,
    /// Where, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// Expected and actual values and anything else that backs the outcome.
    #[serde(default)]
    pub evidence: BTreeMap<String, Value>,
}

impl CheckResult {
    /// A result for `check` with its registered level.
    #[must_use]
    pub fn new<C: Registered + ?Sized>(
        check: &C,
        outcome: Outcome,
        subject: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        CheckResult {
            code: check.code().to_owned(),
            level: check.level(),
            outcome,
            subject: subject.into(),
            message: message.into(),
            location: None,
            evidence: BTreeMap::new(),
        }
    }

    /// Adds one evidence entry.
    #[must_use]
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.evidence.insert(key.to_owned(), value.into());
        self
    }

    /// Sets the location.
    #[must_use]
    pub fn at(mut self, repository: Option<&str>, path: Option<&str>, commit: Option<&str>) -> Self {
        self.location = Some(Location {
            repository: repository.map(str::to_owned),
            path: path.map(str::to_owned),
            commit: commit.map(str::to_owned),
        });
        self
    }
}

/// Name and version of the tool that wrote the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    /// Always `crossverify`.
    pub name: String,
    /// Crate version.
    pub version: String,
    /// The commit the binary was built from ([`BUILD_COMMIT`]); set by the command layer, so a
    /// report built in a test does not change with every commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

impl Default for Tool {
    fn default() -> Self {
        Tool { name: env!("CARGO_PKG_NAME").to_owned(), version: env!("CARGO_PKG_VERSION").to_owned(), commit: None }
    }
}

// Input identities (issue 15, item 7): what an archived report was verified against, resolved.

/// The commit this build of crossverify came from (`build.rs`), when it was built from a git
/// checkout or the packager named it.
pub const BUILD_COMMIT: Option<&str> = option_env!("CROSSVERIFY_BUILD_COMMIT");

impl Report {
    /// Records under `inputs.identities.<role>` a repository's path as given, its canonical
    /// absolute form and the commit read, so an archived report says exactly what was verified
    /// whatever directory it was run from.
    pub fn identify(&mut self, role: &str, given: &std::path::Path, commit: Option<&str>) {
        let mut id = serde_json::Map::new();
        id.insert("given".into(), given.display().to_string().into());
        if let Ok(canonical) = std::fs::canonicalize(given) {
            id.insert("canonical".into(), canonical.display().to_string().into());
        }
        if let Some(c) = commit {
            id.insert("commit".into(), c.into());
        }
        let all = self.inputs.entry("identities".into()).or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Value::Object(m) = all {
            m.insert(role.to_owned(), Value::Object(id));
        }
    }
}

/// `inputs.identities` as a person reads it, one repository after another: `audit
/// /work/audit at 5d0d14f2161e… (given as audit)`; `None` for a value of another shape.
#[must_use]
pub fn identities_text(v: &Value) -> Option<String> {
    let roles = v.as_object()?;
    let mut parts = Vec::new();
    for (role, id) in roles {
        let id = id.as_object()?;
        let text = |k: &str| id.get(k).and_then(Value::as_str);
        let given = text("given");
        let place = text("canonical").or(given)?;
        let mut part = format!("{role} {place}");
        if let Some(c) = text("commit") {
            part.push_str(&format!(" at {}", c.get(..12).map_or_else(|| c.to_owned(), |s| format!("{s}…"))));
        }
        if let Some(g) = given.filter(|g| *g != place) {
            part.push_str(&format!(" (given as {g})"));
        }
        parts.push(part);
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// Counts of results by outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Results in total.
    pub total: usize,
    /// `passed` results.
    pub passed: usize,
    /// `failed` results.
    pub failed: usize,
    /// `cantTell` results.
    pub cant_tell: usize,
    /// `inapplicable` results.
    pub inapplicable: usize,
    /// `untested` results.
    pub untested: usize,
    /// Failed results at level error.
    pub errors: usize,
    /// Failed results at level warning.
    pub warnings: usize,
}

impl Summary {
    /// Failed results at level info (not stored: the JSON carries the two counts that decide).
    #[must_use]
    pub fn infos(&self) -> usize {
        self.failed - self.errors - self.warnings
    }
}

/// A presentational table: renderers show it as is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Stable identifier (`conformance`, `cycles`…), used for anchors and CSV file names.
    pub id: String,
    /// Heading.
    pub title: String,
    /// Column headings.
    pub columns: Vec<String>,
    /// Rows of cells (strings, numbers or null for "not measured").
    pub rows: Vec<Vec<Value>>,
    /// A sentence under the table, e.g. what "not measured" means here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Whether `--format csv` exports this table (the first exported table is the primary CSV;
    /// the others and the results become companion files).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub csv: bool,
}

/// Kind of chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ChartKind {
    /// One bar per point.
    Bars,
    /// Bars over bins; points are bins.
    Histogram,
    /// One coloured mark per point, in order; `category` picks the colour.
    Timeline,
}

/// One point of a chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Axis label.
    pub label: String,
    /// Height; `None` when not measured (drawn as a gap, never as zero).
    pub value: Option<f64>,
    /// Category for colouring (a decision, an outcome).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
}

/// A chart the HTML renderer draws as inline SVG.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Chart {
    /// Stable identifier.
    pub id: String,
    /// Heading.
    pub title: String,
    /// How to draw it.
    pub chart: ChartKind,
    /// Axis caption for values.
    pub y_label: String,
    /// Caption of what the points are (`bin`, a record's name).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub x_label: String,
    /// Caption of the categories of a timeline.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub category_label: String,
    /// Data.
    pub points: Vec<Point>,
    /// A sentence under the chart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A presentational block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum View {
    /// A table.
    Table(Table),
    /// A chart.
    Chart(Chart),
}

/// The report object (`--format json` prints exactly this).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Layout version of this object.
    pub schema_version: u32,
    /// Who wrote it.
    pub tool: Tool,
    /// The command that ran (`ledger`, `manifest`…).
    pub command: String,
    /// Resolved inputs: commits, paths, options. Enough to replay the run.
    pub inputs: BTreeMap<String, Value>,
    /// The verdict, derived from `results` by [`Report::finish`].
    pub outcome: Verdict,
    /// The one decision code of a command whose protocol defines one (a receipt bundle's
    /// reason), beside the verdict; the exit code still comes from the verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Counts by outcome.
    pub summary: Summary,
    /// Every check result, sorted.
    pub results: Vec<CheckResult>,
    /// Figures; a figure the input cannot support is `null` beside a reason, never 0.
    pub stats: BTreeMap<String, Value>,
    /// Command-specific sections at top level (`manifest`, `admission`…).
    #[serde(flatten)]
    pub sections: BTreeMap<String, Value>,
    /// Tables and charts for the human formats.
    pub views: Vec<View>,
    /// The documentation of every check code in `results`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub checks: BTreeMap<String, CheckDoc>,
    /// Presentation choices.
    #[serde(default, skip_serializing_if = "Hints::is_empty")]
    pub hints: Hints,
    /// What the records say about the work itself, beside `outcome` (which says whether the
    /// records are genuine); set by a protocol whose records carry decisions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_outcome: Option<AuditOutcome>,
    /// What this run did to reach the report (blobs hashed, bytes, cache entries used), shown
    /// beside it and never in it: a cache changes these figures and nothing else, so they
    /// cannot be part of bytes that must not depend on one.
    #[serde(skip)]
    pub work: BTreeMap<String, u64>,
}

impl Report {
    /// An empty report for `command`.
    #[must_use]
    pub fn new(command: &str) -> Self {
        Report {
            schema_version: SCHEMA_VERSION,
            tool: Tool::default(),
            command: command.to_owned(),
            inputs: BTreeMap::new(),
            outcome: Verdict::Verified,
            reason: None,
            summary: Summary::default(),
            results: Vec::new(),
            stats: BTreeMap::new(),
            sections: BTreeMap::new(),
            views: Vec::new(),
            checks: BTreeMap::new(),
            hints: Hints::default(),
            audit_outcome: None,
            work: BTreeMap::new(),
        }
    }

    /// Records an input.
    pub fn input(&mut self, key: &str, value: impl Into<Value>) {
        self.inputs.insert(key.to_owned(), value.into());
    }

    /// Adds a top-level section.
    ///
    /// # Panics
    /// When `key` is one of the report's own fields: that would corrupt the JSON contract.
    pub fn section(&mut self, key: &str, value: impl Into<Value>) {
        assert!(
            !matches!(
                key,
                "schemaVersion"
                    | "tool"
                    | "command"
                    | "inputs"
                    | "outcome"
                    | "reason"
                    | "summary"
                    | "results"
                    | "stats"
                    | "views"
                    | "checks"
                    | "hints"
            ),
            "section {key} would shadow a report field"
        );
        self.sections.insert(key.to_owned(), value.into());
    }

    /// Sorts results, counts them and derives the verdict. Call once all results are in.
    pub fn finish(&mut self) {
        order::sort(&mut self.results);
        self.results.dedup();
        let mut s = Summary { total: self.results.len(), ..Summary::default() };
        for r in &self.results {
            match r.outcome {
                Outcome::Passed => s.passed += 1,
                Outcome::Failed => s.failed += 1,
                Outcome::CantTell => s.cant_tell += 1,
                Outcome::Inapplicable => s.inapplicable += 1,
                Outcome::Untested => s.untested += 1,
            }
            if r.outcome == Outcome::Failed {
                match r.level {
                    Level::Error => s.errors += 1,
                    Level::Warning => s.warnings += 1,
                    Level::Info => {}
                }
            }
        }
        self.summary = s;
        self.outcome = verdict_of(&self.results);
    }

    /// Exit code of the run this report describes.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        self.outcome.exit_code()
    }

    /// The results that decided the verdict, in report order: the error-level failures of a
    /// failed run, the undecided error-level results of an inconclusive one, none otherwise.
    /// Warnings and info never decide, so they are never named as the reason.
    #[must_use]
    pub fn deciding(&self) -> Vec<&CheckResult> {
        let decides = |r: &&CheckResult| {
            r.level == Level::Error
                && match self.outcome {
                    Verdict::Failed => r.outcome == Outcome::Failed,
                    Verdict::Inconclusive => matches!(r.outcome, Outcome::CantTell | Outcome::Untested),
                    Verdict::Verified => false,
                }
        };
        self.results.iter().filter(decides).collect()
    }
}

// The audit outcome (issue 15 item 2): a verifier answers two questions, and a reader must
// never take the first answer for the second. `Report::outcome` says whether the records are
// genuine (and sets the exit code); `AuditOutcome` says what those records decided about the
// work (passed, blocked, escalated, admitted). Only the protocol knows its decision words, so it
// builds this block with tones; renderers show it as is.

/// What a protocol's records decided about the work, as a line and its counted parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditOutcome {
    /// What was counted (`latest verdict per audited commit`).
    pub basis: String,
    /// The counts, in reading order.
    pub parts: Vec<OutcomePart>,
    /// The decision that follows, if the protocol makes one (`admitted`, `not admitted`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<OutcomePart>,
    /// How the whole reads: good only when the work passed, bad when it was stopped.
    pub tone: Tone,
    /// Codes of the checks that carry the decision into the verdict (`receipt --admit`'s
    /// admission check): their failure is the decision, not a fault of the records, and the
    /// verdict's words say so ([`Report::reading`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decided_by: Vec<String>,
}

/// One counted word of an [`AuditOutcome`] (`3 passed audit`) or its decision (`count` absent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutcomePart {
    /// The words after the count.
    pub label: String,
    /// How many; absent for a decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// How it reads.
    pub tone: Tone,
}

impl OutcomePart {
    /// `count label`, or the label alone.
    #[must_use]
    pub fn text(&self) -> String {
        self.count.map_or_else(|| self.label.clone(), |n| format!("{n} {}", self.label))
    }
}

impl AuditOutcome {
    /// `3 passed audit, 1 blocked, 0 escalated; not admitted`.
    #[must_use]
    pub fn line(&self) -> String {
        let parts: Vec<String> = self.parts.iter().map(OutcomePart::text).collect();
        let mut line = parts.join(", ");
        if let Some(d) = &self.decision {
            if !line.is_empty() {
                line.push_str("; ");
            }
            line.push_str(&d.label);
        }
        line
    }
}

// How a verdict reads (issue 23 §1): the words every human format prints are derived here,
// once, so the terminal, Markdown, HTML and JUnit cannot tell two stories, and a genuine record
// whose only failure is the protocol's decision (a receipt that is not admissible) never reads
// as "not genuine".

/// The verdict in words: what the records' integrity is, and apart from it the decision that
/// decided the verdict when only the decision did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    /// The records' integrity (`records genuine`, `records not genuine`, `records not fully
    /// verifiable`), said beside an audit outcome; `None` for a report without one, whose
    /// verdict word says it all.
    pub integrity: Option<&'static str>,
    /// The decision, when a decision check (`AuditOutcome::decided_by`) failed or could not be
    /// decided (`not admissible`).
    pub decision: Option<String>,
    /// What the verdict's closing line is about: `integrity` or `decision` beside an audit
    /// outcome, `None` without one.
    pub about: Option<&'static str>,
    /// One sentence: why this verdict.
    pub reason: String,
}

impl Report {
    /// The verdict in words ([`Reading`]); renderers print it as it is.
    #[must_use]
    pub fn reading(&self) -> Reading {
        let decided_by = self.audit_outcome.as_ref().map_or(&[][..], |a| a.decided_by.as_slice());
        let is_decision = |r: &CheckResult| decided_by.contains(&r.code);
        let integrity = verdict_over(self.results.iter().filter(|r| !is_decision(r)));
        let decision_verdict = verdict_over(self.results.iter().filter(|r| is_decision(r)));
        let decision = self.audit_outcome.as_ref().and_then(|a| {
            (decision_verdict != Verdict::Verified)
                .then(|| a.decision.as_ref().map_or_else(|| "decision not made".to_owned(), |d| d.label.clone()))
        });
        // A gate asked about a commit no receipt binds verified no record: nothing is called
        // genuine, or not, for it.
        let nothing = self.results.iter().all(is_decision);
        let only_the_decision = self.outcome != Verdict::Verified && integrity == Verdict::Verified;
        let reason = match (&decision, only_the_decision) {
            (Some(d), true) => {
                let records = if nothing { "no record was verified" } else { "the records are genuine" };
                if decision_verdict == Verdict::Failed {
                    format!("{records}; the decision failed: {d}")
                } else {
                    format!("{records}; the decision could not be made: {d}")
                }
            }
            _ => verdict_reason(self.outcome).to_owned(),
        };
        let about = self.audit_outcome.as_ref().map(|_| if only_the_decision { "decision" } else { "integrity" });
        let words = if nothing && !decided_by.is_empty() { "no records verified" } else { integrity_words(integrity) };
        Reading { integrity: self.audit_outcome.as_ref().map(|_| words), decision, about, reason }
    }

    /// The warning-level results that failed: they never change the verdict, and a summary
    /// names them all the same.
    #[must_use]
    pub fn warnings(&self) -> Vec<&CheckResult> {
        self.results.iter().filter(|r| r.level == Level::Warning && r.outcome == Outcome::Failed).collect()
    }
}

/// What a verdict over the records' own checks says about them.
fn integrity_words(v: Verdict) -> &'static str {
    match v {
        Verdict::Verified => "records genuine",
        Verdict::Failed => "records not genuine",
        Verdict::Inconclusive => "records not fully verifiable",
    }
}

/// One sentence explaining a verdict.
#[must_use]
pub fn verdict_reason(v: Verdict) -> &'static str {
    match v {
        Verdict::Verified => "every error-level check passed or did not apply",
        Verdict::Failed => "an error-level check failed",
        Verdict::Inconclusive => "nothing failed, but an error-level check could not be decided (cantTell or untested)",
    }
}

/// The verdict rule: error-level failures fail; error-level `cantTell`/`untested` make the run
/// inconclusive; warnings and info never change the verdict.
#[must_use]
pub fn verdict_of(results: &[CheckResult]) -> Verdict {
    verdict_over(results.iter())
}

fn verdict_over<'a>(results: impl Iterator<Item = &'a CheckResult>) -> Verdict {
    let required = results.filter(|r| r.level == Level::Error);
    let mut inconclusive = false;
    for r in required {
        match r.outcome {
            Outcome::Failed => return Verdict::Failed,
            Outcome::CantTell | Outcome::Untested => inconclusive = true,
            Outcome::Passed | Outcome::Inapplicable => {}
        }
    }
    if inconclusive { Verdict::Inconclusive } else { Verdict::Verified }
}

#[cfg(test)]
mod tests;
