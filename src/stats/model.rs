//! The neutral record model every input is converted into before figures are computed.
//!
//! A protocol's adapter fills [`Records`]: cycles in order (a cycle is the protocol's unit of
//! review: an audit, a round, an arguing message), each with the findings it lists and the
//! findings it verifies closed; it declares, by [`Group`], the figures its records cannot
//! support ([`Records::cannot_measure`]), caveats on figures it supports only in part, and,
//! in its [`InputKind`], what its decisions say about blocking findings ([`Gate`]), how its
//! cycles are named by number ([`Numbering`]), the words its views use for the order and the
//! numbers of its cycles ([`Terms`]), which commits of a repository's log fix a finding
//! ([`FixRule`]) and how it reads closure entries two ways.
//! Figures are then a pure function of [`Records`] ([`super::figures::compute`]):
//!
//! * one [`CycleRecord`] per cycle, in order, with `id` its name and `number` its ordinal
//!   when the name carries one (closure lag in cycle numbers);
//! * `decision` verbatim from the record;
//! * one [`FindingRecord`] per finding occurrence, `id` stable across cycles;
//! * `verified_closed` the IDs a cycle confirms closed (`None` when the format keeps no such
//!   list: the closure figures become "not measured", saying which cycles lack it);
//! * a declared reason for every figure group the format cannot carry.

use std::collections::BTreeMap;

/// A group of figures an input can or cannot measure. A protocol's adapter declares, by
/// group, what its records cannot support ([`Records::cannot_measure`]); a figure of such a
/// group is "not measured" with the adapter's reason, never computed around the gap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Group {
    /// Each cycle's decision: the counts and the sequence.
    Decisions,
    /// Whether each decision follows from its cycle's blocking findings (the declared [`Gate`]).
    Gate,
    /// How decisions coincide with blocking findings.
    DecisionVsBlocking,
    /// Findings named by fix commits in the science repository's log.
    FixCommits,
    /// Severities, distinct and per occurrence.
    Severity,
    /// The findings' evidence labels (source, class).
    Labels,
    /// The scopes findings block.
    Scopes,
    /// Rule citations.
    Rules,
    /// Audit durations and the gaps between cycles.
    Durations,
    /// The models that audited.
    Models,
    /// Closure lag counted in cycle numbers.
    CycleNumbers,
    /// Gaps in the cycle numbers (named by the declared [`Numbering`]).
    Numbering,
}

impl Group {
    /// The figures of the group.
    #[must_use]
    pub fn figures(self) -> &'static [&'static str] {
        match self {
            Group::Decisions => &["decisions", "decision_sequence"],
            Group::Gate => &["decision_is_definitional"],
            Group::DecisionVsBlocking => &["decision_vs_blocking"],
            Group::FixCommits => &["closed_by_fix_commit", "closed_fix_and_verified", "science_fix_commits"],
            Group::Severity => &["severity_distinct", "severity_occurrences"],
            Group::Labels => &["source", "source_x_severity", "finding_class"],
            Group::Scopes => &["scopes"],
            Group::Rules => &["rules", "rule_cycle_spread", "single_rule_occurrences", "most_cited_rule"],
            Group::Durations => &["audit_minutes", "gap_minutes"],
            Group::Models => &["models", "n_models", "cycles_without_model"],
            Group::CycleNumbers => &["closure_lag_cycle_numbers"],
            Group::Numbering => &["numbering_gaps"],
        }
    }
}

/// Which decisions say something about blocking findings, as the protocol declares them: a
/// decision other than `exempt` is definitional when it is `blocked` exactly when a finding of
/// its cycle blocks a scope (`None`: no decision is exempt, or none is the blocking one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Gate {
    /// The decision that passes whatever its findings.
    pub exempt: Option<&'static str>,
    /// The decision a blocking finding calls for.
    pub blocked: Option<&'static str>,
}

/// How the protocol names its cycles by number, for the numbering gaps.
#[derive(Debug, Clone, Copy)]
pub struct Numbering {
    /// The name of the cycle numbered `n`, as a gap is reported.
    pub name: fn(u64) -> String,
    /// Why the gaps are not measured when a cycle carries no number.
    pub unnumbered: &'static str,
}

/// The words the views use for the order of the cycles (`closure lag (<order> positions)`,
/// `Cycles in <order> order`) and for their numbers (`<number> numbers`), as the protocol
/// names them; [`Terms::NEUTRAL`] when it declares none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Terms {
    /// What holds the cycles in order.
    pub order: &'static str,
    /// What the cycles' numbers are called.
    pub number: &'static str,
}

impl Terms {
    /// The words of a protocol that declares none.
    pub const NEUTRAL: Terms = Terms { order: "record", number: "cycle" };
}

/// Which commits of a repository's log fix findings, as the protocol's history names them: the
/// fix-commit figures count the commits `is_fix` accepts and credit each finding whose ID
/// `finding_ids` finds in the subject.
#[derive(Debug, Clone, Copy)]
pub struct FixRule {
    /// Whether a commit subject is a fix commit.
    pub is_fix: fn(&str) -> bool,
    /// The finding IDs a fix commit's subject names, in order.
    pub finding_ids: fn(&str) -> Vec<String>,
}

/// What kind of input the records came from, named by the protocol that converted it (so
/// this model lists no protocol's formats), with what the protocol declares about its
/// decisions, its cycle numbers and its second reading of closure entries.
#[derive(Debug, Clone, Copy)]
pub struct InputKind {
    id: &'static str,
    description: &'static str,
    gate: Option<Gate>,
    numbering: Option<Numbering>,
    second_reading: Option<&'static str>,
    terms: Option<Terms>,
    fix_rule: Option<FixRule>,
}

impl PartialEq for InputKind {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for InputKind {}

impl InputKind {
    /// A kind named `id` in `inputs.kind` and described by `description` in messages; it
    /// declares no gate, no numbering, no second reading, no terms and no fix rule until told.
    #[must_use]
    pub const fn new(id: &'static str, description: &'static str) -> Self {
        InputKind { id, description, gate: None, numbering: None, second_reading: None, terms: None, fix_rule: None }
    }

    /// Declares which decisions gate on blocking findings.
    #[must_use]
    pub const fn gate(mut self, gate: Gate) -> Self {
        self.gate = Some(gate);
        self
    }

    /// Declares how cycles are named by number.
    #[must_use]
    pub const fn numbering(mut self, numbering: Numbering) -> Self {
        self.numbering = Some(numbering);
        self
    }

    /// Declares the caveat on closure entries that the format allows two readings of (the
    /// figures use [`Closure::id`]); the entries are appended to it.
    #[must_use]
    pub const fn second_reading(mut self, caveat: &'static str) -> Self {
        self.second_reading = Some(caveat);
        self
    }

    /// Declares the words the views use for the cycles' order and numbers.
    #[must_use]
    pub const fn terms(mut self, terms: Terms) -> Self {
        self.terms = Some(terms);
        self
    }

    /// Declares which commits of a repository's log fix findings.
    #[must_use]
    pub const fn fix_rule(mut self, rule: FixRule) -> Self {
        self.fix_rule = Some(rule);
        self
    }

    /// Name used in `inputs.kind`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        self.id
    }

    /// A phrase for messages.
    #[must_use]
    pub fn describe(self) -> &'static str {
        self.description
    }

    /// The declared gate.
    #[must_use]
    pub fn declared_gate(self) -> Option<Gate> {
        self.gate
    }

    /// The declared numbering.
    #[must_use]
    pub fn declared_numbering(self) -> Option<Numbering> {
        self.numbering
    }

    /// The declared terms, else [`Terms::NEUTRAL`].
    #[must_use]
    pub fn declared_terms(self) -> Terms {
        self.terms.unwrap_or(Terms::NEUTRAL)
    }

    /// The declared fix rule: without one, no commit is a fix commit.
    #[must_use]
    pub fn declared_fix_rule(self) -> Option<FixRule> {
        self.fix_rule
    }

    /// The declared caveat on closure entries read two ways.
    #[must_use]
    pub fn declared_second_reading(self) -> Option<&'static str> {
        self.second_reading
    }
}

/// The records of one input, in the neutral model.
#[derive(Debug, Clone)]
pub struct Records {
    /// Which format they came from.
    pub kind: InputKind,
    /// Cycles in record order.
    pub cycles: Vec<CycleRecord>,
    /// Figures this format cannot support: figure key → reason.
    pub unsupported: BTreeMap<String, String>,
    /// Figures this format supports only in part: figure key → caveat.
    pub caveats: BTreeMap<String, String>,
    /// Set when the records as a whole could not be read (or converted): every figure is then
    /// not measured, for this reason.
    pub unreadable: Option<String>,
}

impl Records {
    /// Empty records of `kind`.
    #[must_use]
    pub fn new(kind: InputKind) -> Self {
        Records { kind, cycles: Vec::new(), unsupported: BTreeMap::new(), caveats: BTreeMap::new(), unreadable: None }
    }

    /// Adds a caveat to `figure` (appended when it already has one).
    ///
    /// # Panics
    /// When `figure` is not a figure: a misspelt name would otherwise drop the caveat silently.
    pub fn caveat(&mut self, figure: &str, text: &str) {
        assert!(FIGURES.contains(&figure), "{figure} is not a figure");
        add_caveat(&mut self.caveats, figure, text);
    }

    /// Declares that these records cannot measure the figures of `groups`, for `reason`.
    pub fn cannot_measure(&mut self, groups: &[Group], reason: &str) {
        for f in groups.iter().flat_map(|g| g.figures()) {
            self.unsupported.insert((*f).to_owned(), reason.to_owned());
        }
    }
}

/// Adds `text` to the caveats of `figure`, after any it already has.
pub fn add_caveat(caveats: &mut BTreeMap<String, String>, figure: &str, text: &str) {
    caveats
        .entry(figure.to_owned())
        .and_modify(|c| {
            c.push_str("; ");
            c.push_str(text);
        })
        .or_insert_with(|| text.to_owned());
}

/// One audit cycle.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CycleRecord {
    /// The cycle's name in its records, or where the record was when it has none.
    pub id: String,
    /// The cycle's number when its name carries one.
    pub number: Option<u64>,
    /// The audited science commit.
    pub audited_commit: Option<String>,
    /// The decision; `None` when the cycle's result could not be read.
    pub decision: Option<String>,
    /// Auditor model identifier, verbatim (case-sensitive); `None` when unrecorded.
    pub model: Option<String>,
    /// `started_at`, verbatim.
    pub started_at: Option<String>,
    /// `completed_at`, verbatim.
    pub completed_at: Option<String>,
    /// Finding occurrences, in record order; `None` when the cycle's result could not be read.
    pub findings: Option<Vec<FindingRecord>>,
    /// Verified-closed entries; `None` when unknown.
    pub verified_closed: Option<Vec<Closure>>,
}

/// One verified-closed entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closure {
    /// The entry as written.
    pub raw: String,
    /// The ID under the format's first reading (what the figures use).
    pub id: Option<String>,
    /// The ID under the format's second reading, when it allows one.
    pub alt: Option<String>,
}

impl Closure {
    /// An entry whose ID is not in doubt.
    #[must_use]
    pub fn plain(id: &str) -> Self {
        Closure { raw: id.to_owned(), id: Some(id.to_owned()), alt: Some(id.to_owned()) }
    }
}

/// One finding occurrence (a finding listed by one cycle).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FindingRecord {
    /// Finding ID, stable across cycles.
    pub id: String,
    /// Severity as listed in this occurrence.
    pub severity: Option<String>,
    /// The scopes it blocks; `None` when null or absent (counts as empty).
    pub scopes: Option<Vec<String>>,
    /// The evidence label saying where the finding came from, `None` when absent.
    pub source: Option<String>,
    /// The evidence label classing the finding, `None` when absent.
    pub finding_class: Option<String>,
    /// Rule citations, sorted and unique.
    pub rules: Vec<String>,
    /// First 16 hex of SHA-256 of the title, when known.
    pub title_sha16: Option<String>,
}

impl FindingRecord {
    /// Whether the finding gates some scope.
    #[must_use]
    pub fn is_blocking(&self) -> bool {
        self.scopes.as_ref().is_some_and(|s| !s.is_empty())
    }
}

/// Every figure key, in the order the headline table shows them.
pub const FIGURES: &[&str] = &[
    "cycles",
    "decisions",
    "decision_sequence",
    "findings_per_cycle",
    "finding_occurrences",
    "distinct_findings",
    "closed",
    "open",
    "open_findings",
    "closed_by_fix_commit",
    "closed_fix_and_verified",
    "science_fix_commits",
    "closure_lag",
    "closure_lag_cycle_numbers",
    "recurring",
    "n_recurring",
    "reopened",
    "unknown_closures",
    "severity_distinct",
    "severity_occurrences",
    "source",
    "source_x_severity",
    "finding_class",
    "scopes",
    "rules",
    "rule_cycle_spread",
    "single_rule_occurrences",
    "most_cited_rule",
    "audit_minutes",
    "gap_minutes",
    "models",
    "n_models",
    "cycles_without_model",
    "decision_is_definitional",
    "decision_vs_blocking",
    "numbering_gaps",
];
