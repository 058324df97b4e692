//! The git layer's one error type: every failure a reader of objects can meet, typed so that
//! checks turn an evidence gap into `cantTell` and a misuse into exit 2.

use std::path::PathBuf;

use gix::ObjectId;

/// A git access failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The path is not a readable repository.
    #[error("{path}: not a readable git repository ({reason})")]
    Open {
        /// The path given.
        path: PathBuf,
        /// Why gix refused it.
        reason: String,
    },
    /// A revision did not resolve to a commit.
    #[error("{path}: revision `{rev}` does not resolve to a commit ({reason})")]
    Revision {
        /// Repository.
        path: PathBuf,
        /// The revision given.
        rev: String,
        /// Why.
        reason: String,
    },
    /// An object the history or a tree refers to is not in the object database.
    #[error("{path}: {what} {id} is missing from the object database{hint}")]
    MissingObject {
        /// Repository.
        path: PathBuf,
        /// The missing object (boxed, as in the other variants: a SHA-256 id is 32 bytes, and an
        /// error this size travels through every `Result` of the crate).
        id: Box<ObjectId>,
        /// What it was expected to be (`commit`, `tree`, `blob`).
        what: &'static str,
        /// A suggestion, e.g. to unshallow.
        hint: String,
    },
    /// An object exists but cannot be decoded, or has the wrong kind.
    #[error("{path}: {what} {id} is corrupt or of the wrong kind ({reason})")]
    CorruptObject {
        /// Repository.
        path: PathBuf,
        /// The object.
        id: Box<ObjectId>,
        /// What it was expected to be.
        what: &'static str,
        /// Decoder message.
        reason: String,
    },
    /// The repository is a shallow clone, so history-dependent facts cannot be established.
    #[error("{path}: shallow clone: history before {boundary} is missing; run `git fetch --unshallow` in {path}")]
    Shallow {
        /// Repository.
        path: PathBuf,
        /// First grafted commit.
        boundary: String,
    },
    /// A record is larger than [`MAX_RECORD_BYTES`](super::MAX_RECORD_BYTES).
    #[error("{path}: {what} {id} is {size} bytes, more than the {limit}-byte limit for records")]
    TooLarge {
        /// Repository.
        path: PathBuf,
        /// Object.
        id: Box<ObjectId>,
        /// What it holds.
        what: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// An object could not be written (only test harnesses write).
    #[error("{path}: could not write an object ({reason})")]
    Write {
        /// Repository.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

impl Error {
    /// Whether the failure means "evidence unavailable" (missing/corrupt object, shallow
    /// history) rather than a misuse such as an unknown path.
    #[must_use]
    pub fn is_evidence_gap(&self) -> bool {
        matches!(
            self,
            Error::MissingObject { .. } | Error::CorruptObject { .. } | Error::Shallow { .. } | Error::TooLarge { .. }
        )
    }
}

/// Result alias for this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;
