//! Why a submission could not be verified (exit 2): a leaf the other files take it from.

/// Why a submission could not be verified (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An input cannot be read or is of no known kind.
    #[error("{0}")]
    Input(String),
    /// An archive member was refused.
    #[error(transparent)]
    Refused(#[from] crate::intake::Refused),
    /// A git bundle git could not read.
    #[error("{0}")]
    Bundle(String),
    /// A repository is a shallow or partial clone.
    #[error("{0}")]
    Incomplete(String),
    /// Files without any repository (a release download).
    #[error("{0}")]
    NoHistory(String),
    /// Repositories, but no record any protocol recognises.
    #[error("{0}")]
    NoRecords(String),
}
