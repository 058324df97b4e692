//! What the other files of the kit share: a suite's cases, an implementation's answers and how
//! an answer is scored, and the one error type.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// The protocols a case may belong to, in report order.
pub const PROTOCOLS: [&str; 3] = ["crossaudit", "proof-or-stop", "crossexam"];

/// The operations of the CLI protocol (`specs/conformance.md`), with the protocol each belongs to.
pub const OPERATIONS: [(&str, &str); 5] = [
    ("verify-receipt", "crossaudit"),
    ("verify-ledger", "crossaudit"),
    ("verify-bundle", "proof-or-stop"),
    ("verify-floor", "proof-or-stop"),
    ("verify-transcript", "crossexam"),
];

/// The categories of a case.
pub const CATEGORIES: [&str; 4] = ["genuine", "forged", "malformed", "edge"];

/// Why a suite could not be read or a run could not start (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file of the suite could not be read.
    #[error("{path}: {message}")]
    Read {
        /// The file, as the suite names it (or as given).
        path: String,
        /// Why.
        message: String,
    },
    /// The suite's index or manifest is not what the format says.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: String,
        /// What is wrong, with the JSON location where there is one.
        message: String,
    },
    /// A file's bytes differ from the SHA-256 the manifest lists, or a file the index uses is
    /// not listed.
    #[error("{path}: {message}")]
    Manifest {
        /// The file, relative to the suite's root.
        path: String,
        /// What differs.
        message: String,
    },
    /// The command line named something the suite does not have.
    #[error("{0}")]
    Usage(String),
    /// A case could not be materialised, or the journal could not be written.
    #[error("{0}")]
    Io(String),
    /// The caller asked to stop.
    #[error("interrupted")]
    Interrupted,
}

/// A decision an implementation gives, or the paper requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Decision {
    /// The record is what it claims to be.
    Accept,
    /// It is not.
    Reject,
}

impl Decision {
    /// The wire word.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Accept => "accept",
            Decision::Reject => "reject",
        }
    }

    /// The decision a wire word names.
    #[must_use]
    pub fn parse(s: &str) -> Option<Decision> {
        match s {
            "accept" => Some(Decision::Accept),
            "reject" => Some(Decision::Reject),
            _ => None,
        }
    }
}

/// What the paper requires of a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Required {
    /// This decision and no other.
    Exactly(Decision),
    /// The paper leaves it open: either decision is conformant (an error is not).
    Either,
}

impl Required {
    /// The wire word: `accept`, `reject` or `either`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Required::Exactly(d) => d.as_str(),
            Required::Either => "either",
        }
    }
}

/// How one input of a case is laid out before the implementation runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputKind {
    /// One file, copied.
    File(String),
    /// A directory: every manifest file under it, copied.
    Directory(String),
    /// A git repository: the bundles fetched in order, the work tree checked out at `head` on
    /// branch `main`, nothing else reachable.
    Repository {
        /// Git bundles, relative to the suite's root; later ones may need earlier ones.
        bundles: Vec<String>,
        /// The commit `main` points at.
        head: String,
    },
}

/// One case of the suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// Unique, stable identifier.
    pub id: String,
    /// `crossaudit`, `proof-or-stop` or `crossexam`.
    pub protocol: String,
    /// One of [`OPERATIONS`].
    pub operation: String,
    /// One of [`CATEGORIES`].
    pub category: String,
    /// A finer grouping (the tamper harness's classes, a reason code…).
    pub class: String,
    /// The decision the paper requires.
    pub expected: Required,
    /// The paper's reason.
    pub reason: String,
    /// Where the paper says so.
    pub section: String,
    /// Where the case comes from in this repository (for people; not needed to run it).
    pub source: String,
    /// Named inputs; an argument `{NAME}` is replaced by the materialised input's path.
    pub inputs: BTreeMap<String, InputKind>,
    /// The operation's arguments after the operation name.
    pub args: Vec<String>,
}

/// A recorded implementation: decisions someone made with a verifier that is not run here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The name it is selected by.
    pub name: String,
    /// The implementation and version that decided (`crossaudit 4.14.0`).
    pub version: String,
    /// When the decisions were recorded.
    pub date: String,
    /// How.
    pub how: String,
    /// Its decision per case id, with its reason where one was kept.
    pub decisions: BTreeMap<String, (Decision, Option<String>)>,
}

/// A suite, read and checked against its manifest.
#[derive(Debug, Clone)]
pub struct Suite {
    /// Its name.
    pub name: String,
    /// Its version (`1.0`).
    pub version: String,
    /// SHA-256 of the manifest's bytes: the identity a report cites.
    pub sha256: String,
    /// The directory every path of the suite is relative to.
    pub root: PathBuf,
    /// Every file of the suite and its SHA-256, relative to `root`.
    pub files: BTreeMap<String, String>,
    /// The cases, in index order.
    pub cases: Vec<Case>,
    /// The recorded implementations the suite carries.
    pub recorded: Vec<Recorded>,
}

/// What one implementation answered on one case, before it is scored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Exit 0 or 1 (and a JSON line agreeing with it, when there is one).
    Decided {
        /// The decision.
        decision: Decision,
        /// The reason code of its JSON line.
        reason: Option<String>,
    },
    /// The adapter said it does not implement the operation (exit 77).
    Unsupported,
    /// Any other exit, or an answer contradicting itself.
    Error(String),
    /// Killed by a signal (the memory cap among the causes).
    Crash(String),
    /// It ran past the time limit and was killed.
    Timeout,
    /// A recorded implementation holds no decision for the case.
    NotRecorded,
    /// The implementation is not available here; the reason says why.
    Skipped(String),
}

/// An answer scored against what the paper requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Score {
    /// Decided as the paper requires.
    AsRequired,
    /// Accepted what the paper rejects.
    FalseAccept,
    /// Rejected what the paper accepts.
    FalseReject,
    /// An error, a crash or a timeout: no decision.
    Error,
    /// Not run or not recorded: counted nowhere but here.
    NotRun,
    /// The implementation does not claim the operation.
    Unsupported,
}

impl Answer {
    /// The answer scored against `expected`.
    #[must_use]
    pub fn score(&self, expected: Required) -> Score {
        match (self, expected) {
            (Answer::Decided { .. }, Required::Either) => Score::AsRequired,
            (Answer::Decided { decision, .. }, Required::Exactly(want)) if *decision == want => Score::AsRequired,
            (Answer::Decided { decision: Decision::Accept, .. }, Required::Exactly(_)) => Score::FalseAccept,
            (Answer::Decided { .. }, Required::Exactly(_)) => Score::FalseReject,
            (Answer::Error(_) | Answer::Crash(_) | Answer::Timeout, _) => Score::Error,
            (Answer::NotRecorded | Answer::Skipped(_), _) => Score::NotRun,
            (Answer::Unsupported, _) => Score::Unsupported,
        }
    }

    /// The matrix cell's word.
    #[must_use]
    pub fn word(&self) -> String {
        match self {
            Answer::Decided { decision, .. } => decision.as_str().to_owned(),
            Answer::Unsupported => "unsupported".into(),
            Answer::Error(_) => "error".into(),
            Answer::Crash(_) => "crash".into(),
            Answer::Timeout => "timeout".into(),
            Answer::NotRecorded => "not recorded".into(),
            Answer::Skipped(_) => "skipped".into(),
        }
    }

    /// What an implementation said beyond its word: its reason code or the error.
    #[must_use]
    pub fn detail(&self) -> Option<&str> {
        match self {
            Answer::Decided { reason, .. } => reason.as_deref(),
            Answer::Error(m) | Answer::Crash(m) | Answer::Skipped(m) => Some(m),
            Answer::Unsupported | Answer::Timeout | Answer::NotRecorded => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_score_against_the_requirement() {
        let acc = Answer::Decided { decision: Decision::Accept, reason: None };
        let rej = Answer::Decided { decision: Decision::Reject, reason: None };
        assert_eq!(acc.score(Required::Exactly(Decision::Reject)), Score::FalseAccept);
        assert_eq!(rej.score(Required::Exactly(Decision::Accept)), Score::FalseReject);
        assert_eq!(rej.score(Required::Exactly(Decision::Reject)), Score::AsRequired);
        assert_eq!(acc.score(Required::Either), Score::AsRequired);
        assert_eq!(Answer::Timeout.score(Required::Either), Score::Error);
        assert_eq!(Answer::NotRecorded.score(Required::Exactly(Decision::Accept)), Score::NotRun);
    }
}
