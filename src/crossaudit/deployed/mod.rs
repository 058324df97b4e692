//! The deployed CrossAudit variant: the only real, public CrossAudit ledger format.
//!
//! A deployed ledger is an audit repository (or a copy of one) holding
//! `projects/<project>/cycles/CYCLE-NNNNNN/` directories, each with `audit_result.json`,
//! `codex_run_metadata.json`, `report_manifest.json` and `audit_report.md` (formats note §4.4,
//! §5.7). Bare `CYCLE-NNNNNN/` directories (the public `ledger-mirror/`) and a single cycle
//! directory are read the same way. There is no receipt: a verifier checks the ledger's
//! internal consistency.
//!
//! Reading never touches a work tree when the ledger is a git repository: [`load`] reads
//! objects at a revision. Records go through the strict JSON parser; a malformed record is kept
//! as [`Record::Malformed`] and reported by [`verify`], not returned as an error.
//!
//! # Use from `crossverify ledger --dialect deployed`
//!
//! ```no_run
//! use crossverify::crossaudit::deployed;
//! use crossverify::progress::Ctx;
//! use crossverify::report::Report;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ledger = deployed::load(std::path::Path::new("audit-repo"), Some("HEAD"), Ctx::silent())?;
//! let mut report = Report::new("ledger");
//! report.results = deployed::verify(&ledger);
//! report.finish();
//! # Ok(()) }
//! ```
//!
//! [`verify`] returns `CV-A011`…`CV-A018` results (numbering gaps at level info; decision vs
//! scopes; closures of unraised IDs; double closures; manifest digests, redacted ones as
//! `cantTell`; record identity; malformed records; closed-while-open). The finding-lifecycle
//! figures of the same ledger come from [`crate::stats`], once `stats_input` has converted the
//! [`DeployedLedger`] into the neutral record model.

mod checks;
mod load;
mod model;
pub use crate::stats::time::{Timestamp, parse_timestamp};
pub use checks::{
    CHECKS, CLOSED_TWICE, CLOSED_WHILE_OPEN, DECISION_SCOPES, MANIFEST_DIGESTS, NUMBERING_GAP, RECORD_IDENTITY,
    RECORDS_WELL_FORMED, UNKNOWN_CLOSURE, verify,
};
pub use load::{LoadError, cycle_dirs_git, cycle_number, is_repository, load, load_dir, load_git};
pub use model::{
    AUDIT_REPORT, AUDIT_RESULT, AuditResult, ClosureEntry, DeployedCycle, DeployedFinding, DeployedLedger, Origin,
    REPORT_MANIFEST, RUN_METADATA, Record, ReportManifest, RunMetadata, find_finding_id, is_full_digest,
    parse_audit_result, parse_report_manifest, parse_run_metadata,
};

#[cfg(test)]
mod tests;
