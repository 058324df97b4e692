//! Why a submission could not be verified (exit 2): a leaf the other files take it from.

/// Why a submission could not be verified (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The intake refused it: an input, an archive member, a cap, an indirection, a clone.
    #[error(transparent)]
    Refused(#[from] crate::intake::Refusal),
    /// Repositories, but no record any protocol recognises.
    #[error(
        "{inputs}: holds the repositories {} but no record crossverify recognises (a CrossAudit ledger or records, \
         Proof-or-Stop evidence, a CrossExam transcript)",
        .repositories.join(", ")
    )]
    NoRecords {
        /// The inputs as given.
        inputs: String,
        /// The repositories found, by name.
        repositories: Vec<String>,
    },
}
