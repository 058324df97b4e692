//! The neutral record model every input is converted into before figures are computed.
//!
//! A converter (one per input format) fills [`Records`]: cycles in ledger order, each with the
//! findings it lists and the findings it verifies closed, plus the figures its format cannot
//! support ([`Records::unsupported`]) and caveats on figures it supports only in part. Figures
//! are then a pure function of [`Records`] ([`super::figures::compute`]), so a new format (the
//! v1 and schema-2 ledgers, whose per-cycle findings live in `checks.json` and the report) only
//! needs a converter:
//!
//! * one [`CycleRecord`] per audit cycle, in ledger order, with `id` the cycle directory name
//!   and `number` its ordinal when the name carries one (closure lag in cycle numbers);
//! * `decision` verbatim from the record (vocabularies differ between formats; the
//!   "decision is definitional" test is stated for the deployed one);
//! * one [`FindingRecord`] per finding occurrence, `id` stable across cycles;
//! * `verified_closed` the IDs a cycle confirms closed (a v1 ledger has no such list: leave it
//!   `None` and the closure figures become "not measured" with the reason given in
//!   `unsupported`);
//! * an `unsupported` entry for every figure the format cannot carry.

use std::collections::BTreeMap;

/// What kind of input the records came from, named by the protocol that converted it (so
/// this model lists no protocol's formats).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InputKind {
    id: &'static str,
    description: &'static str,
}

impl InputKind {
    /// A kind named `id` in `inputs.kind` and described by `description` in messages.
    #[must_use]
    pub const fn new(id: &'static str, description: &'static str) -> Self {
        InputKind { id, description }
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
}

/// The records of one input, in the neutral model.
#[derive(Debug, Clone)]
pub struct Records {
    /// Which format they came from.
    pub kind: InputKind,
    /// Cycles in ledger order.
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
    pub fn caveat(&mut self, figure: &str, text: &str) {
        add_caveat(&mut self.caveats, figure, text);
    }

    /// Marks `figures` as unsupported by this format for `reason`.
    pub fn unsupported(&mut self, figures: &[&str], reason: &str) {
        for f in figures {
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
    /// Cycle directory name (`CYCLE-000004`), or where the record was when it has none.
    pub id: String,
    /// The cycle's number when its name carries one (`CYCLE-000004` → 4).
    pub number: Option<u64>,
    /// The audited science commit.
    pub audited_commit: Option<String>,
    /// The decision; `None` when the cycle's result could not be read.
    pub decision: Option<String>,
    /// Auditor model identifier, verbatim (case-sensitive); `None` when unrecorded.
    pub model: Option<String>,
    /// Runner (`codex-cli`).
    pub runner: Option<String>,
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
    /// The ID under the mining script's reading (what the figures use).
    pub id: Option<String>,
    /// The ID under the analysis script's reading, when the format allows a second reading.
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
    /// Finding ID (`F-007`), stable across cycles.
    pub id: String,
    /// Severity as listed in this occurrence.
    pub severity: Option<String>,
    /// `blocked_scopes`; `None` when null or absent (counts as empty).
    pub scopes: Option<Vec<String>>,
    /// The `source:` evidence label (`DETERMINISTIC`, `JUDGMENT`), `None` when absent.
    pub source: Option<String>,
    /// The `finding_class:` evidence label (`HARD`, `SOFT`), `None` when absent.
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
