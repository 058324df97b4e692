//! What to verify, and why verifying could not run at all.

use crate::git::{self};
use std::path::{Path, PathBuf};

/// Which format family to verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DialectChoice {
    /// Decide from what the ledger holds.
    Auto,
    /// v1 reference.
    V1,
    /// Product receipt schema 2.
    Schema2,
    /// Deployed CYCLE-NNNNNN ledger.
    Deployed,
}

/// What to verify.
#[derive(Debug, Clone)]
pub struct Options {
    /// Repository holding the ledger (the audit repository, or the science repository in the
    /// product's local mode).
    pub audit: PathBuf,
    /// Science repository; `None` means "the ledger repository itself" for the product's local
    /// mode, and no science evidence otherwise.
    pub science: Option<PathBuf>,
    /// Dialect.
    pub dialect: DialectChoice,
    /// Audit revision (default `HEAD`).
    pub audit_rev: Option<String>,
    /// A previously seen audit head that must still be an ancestor.
    pub expect_audit_head: Option<String>,
    /// Expected audited commit (receipt gate).
    pub expect_sha: Option<String>,
    /// Expected science repository name (receipt gate).
    pub expect_repo: Option<String>,
    /// Receipt identities (lower-case hex, at least 16 digits: a prefix matches) the caller's
    /// own store has already admitted: the single-use evidence the product keeps unpublished.
    pub consumed: Option<std::collections::BTreeSet<String>>,
    /// Trusted root and identity for receipts wrapped in Sigstore bundles (`--trusted-root`).
    pub sigstore: crate::anchors::sigstore::Options,
    /// Allowed-signers file: every ledger commit must be signed by a key it allows.
    pub allowed_signers: Option<PathBuf>,
    /// The persistent blob-digest cache (`--cache`); `None` hashes every blob.
    pub cache: Option<std::sync::Arc<crate::cache::Cache>>,
    /// Sharding (`--shard K/N`, `merge`): which cycles' manifests this run hashes.
    pub shard: Option<std::sync::Arc<super::shard::Plan>>,
}

impl Options {
    /// Options for `audit` with everything else defaulted.
    #[must_use]
    pub fn new(audit: &Path) -> Self {
        Options {
            audit: audit.to_owned(),
            science: None,
            dialect: DialectChoice::Auto,
            audit_rev: None,
            expect_audit_head: None,
            expect_sha: None,
            expect_repo: None,
            consumed: None,
            sigstore: crate::anchors::sigstore::Options::default(),
            allowed_signers: None,
            cache: None,
            shard: None,
        }
    }
}

/// Could not verify at all (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Repository access failed before any evidence could be read.
    #[error(transparent)]
    Git(#[from] git::Error),
    /// The inputs do not make sense together.
    #[error("{0}")]
    Usage(String),
    /// The committed ledger holds records of more than one layout, so auto-detection picks none
    /// (a copied-in folder would otherwise choose the checks). `ledger` reports it as a failed
    /// check (CV-A005): adding files never turns a failing ledger into one that "could not run".
    #[error("{}", ambiguous(.0))]
    MixedLayouts(Vec<String>),
    /// The caller interrupted the run.
    #[error(transparent)]
    Interrupted(#[from] crate::progress::Interrupted),
}

/// The refusal of a ledger holding several layouts.
pub(crate) fn ambiguous(layouts: &[String]) -> String {
    format!(
        "ambiguous ledger: it holds {}; auto-detection will not pick one, since a copied-in folder \
         would then choose the checks; name the layout with --dialect v1|schema2|deployed",
        layouts.join(" and ")
    )
}
