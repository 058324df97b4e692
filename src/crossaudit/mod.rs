//! CrossAudit: verify every receipt of a published ledger, replay what is deterministic and
//! report conformance to the paper's invariants I1–I8.
//!
//! Three format families exist (formats note §1): the v1 reference, the product's receipt
//! schema 2, and the deployed `CYCLE-NNNNNN` ledger. [`ledger`] crawls a whole ledger;
//! [`receipt()`] is the CI gate for one receipt. Both build the same [`crate::report::Report`].
//! Where a reference implementation accepts something the paper forbids, crossverify
//! implements the paper and reproduces the reference's decision as a named dialect in the
//! evidence (`specs/crossaudit.md`).
//!
//! This file is the module's public surface; the commands live in `commands.rs`, the crawl
//! they share in `crawl.rs`, the per-cycle checks by invariant in `check_*.rs` (driven by `verify.rs`), the
//! cross-cycle replay in `replay.rs` and `rounds.rs`, the per-receipt cache in `memo.rs`,
//! and the conversion for `stats` in `stats_input.rs`.

pub mod batch;
mod check_deployed;
mod check_format;
mod check_i1_vendors;
mod check_i2_history;
mod check_i3_citations;
mod check_i4_precedence;
mod check_i6_severity;
mod check_i7_binding;
mod check_i7_science;
mod check_i8_admission;
mod check_signed;
pub mod checks;
mod commands;
pub mod config;
pub mod constitution;
mod crawl;
pub mod dcl;
pub mod demo;
pub mod deployed;
mod derive;
pub mod detect;
mod lifecycle;
mod load;
mod memo;
pub mod receipt;
mod replay;
pub mod report_md;
mod rounds;
pub mod scope;
pub mod shard;
mod sigstore_receipt;
pub mod stats_input;
pub mod substitute;
pub mod synthesis;
mod verify;
mod views;

use std::collections::BTreeMap;

use serde_json::json;

pub use check_i8_admission::Admission;
pub use commands::{ledger, lifecycle_records, receipt};
pub use load::{DialectChoice, Error, Options};
pub use replay::cycle_id_for;
pub use shard::{Shard, ledger_shard, merge};
pub use views::conformance;

use crate::checks::Check;
#[cfg(feature = "cli")]
use crate::progress::Ctx;
use crate::report::Report;
use crawl::Run;

/// Reads `data` as every kind of cache payload this module stores (a receipt's results, a
/// tree diff); for the `cache_entry` fuzz target, which requires only that none panics.
#[cfg(feature = "fuzzing")]
pub(crate) fn read_cache_payloads(data: &[u8]) {
    memo::read_payload(data);
    load::read_changes_payload(data);
}

/// Checks owned by this module.
pub static CHECKS: &[&Check] = checks::CHECKS;

/// The invariants, with the guarantee each makes (paper Table 2).
pub const INVARIANTS: [(&str, &str); 8] = [
    ("I1", "the auditor never judges its own model family's output"),
    ("I2", "supervision history replayable from the repositories"),
    ("I3", "a report citing no rules, or an unverifiable Constitution, never passes"),
    ("I4", "no model may waive a scripted hard failure"),
    ("I5", "generator–auditor oscillation terminates"),
    ("I6", "only BLOCKER findings gate; humans are interrupted only by escalation"),
    ("I7", "a verdict binds commit, manifest and versions, or it is not a receipt"),
    ("I8", "no audit, no admission"),
];

fn inputs(report: &mut Report, opts: &Options, ledger: &load::Ledger) {
    report.input("audit", opts.audit.display().to_string());
    report.input("auditHead", ledger.audit_head.to_string());
    if let Some(r) = &opts.audit_rev {
        report.input("auditRev", r.clone());
    }
    report.input(
        "science",
        opts.science.as_ref().map_or(
            if ledger.local { "(the ledger repository: product local mode)".to_owned() } else { "(none)".to_owned() },
            |p| p.display().to_string(),
        ),
    );
    report.input(
        "dialect",
        format!("{}{}", ledger.family.as_str(), if opts.dialect == DialectChoice::Auto { " (detected)" } else { "" }),
    );
    report.input("ledgerDir", ledger.ledger_dir.clone());
    if let Some(h) = &opts.expect_audit_head {
        report.input("expectAuditHead", h.clone());
    }
    if let Some(s) = &opts.expect_sha {
        report.input("expectSha", s.clone());
    }
    if let Some(s) = &opts.expect_repo {
        report.input("expectRepo", s.clone());
    }
    if let Some(p) = &opts.allowed_signers {
        report.input("allowedSigners", p.display().to_string());
    }
    // Recorded so that `merge` re-runs the Sigstore checks with them (`shard::merge`).
    if let Some(p) = &opts.sigstore.trusted_root {
        report.input("trustedRoot", p.display().to_string());
    }
    if let Some(s) = &opts.sigstore.identity {
        report.input("certificateIdentity", s.clone());
    }
    if let Some(s) = &opts.sigstore.issuer {
        report.input("certificateOidcIssuer", s.clone());
    }
}

fn stats(report: &mut Report, run: &Run) {
    let mut verdicts: BTreeMap<String, u64> = BTreeMap::new();
    for f in &run.facts {
        if let Some(v) = &f.verdict {
            *verdicts.entry(v.clone()).or_default() += 1;
        }
    }
    let receipts = run.facts.iter().filter(|f| f.receipt.is_some()).count();
    report.stats.insert("cycles".into(), json!(run.ledger.cycles.len()));
    report.stats.insert("receipts".into(), json!(receipts));
    report.stats.insert("verdicts".into(), json!(verdicts));
    // How many blobs this run hashed depends on what a cache already held: work, not a figure
    // of the ledger.
    report.work.insert("blobsHashed".into(), run.hash_stats.blobs_hashed);
    report.work.insert("bytesHashed".into(), run.hash_stats.bytes_hashed);
}

/// `crossverify demo`: writes the built-in demo ledger ([`mod@demo`], minted from
/// `ledger-fixtures/demo-signed.toml`; with gix, no git CLI, no network) to a temporary directory and
/// verifies it like `crossverify ledger`.
///
/// # Errors
/// When the temporary directory cannot be written (exit 2).
#[cfg(feature = "cli")]
pub fn demo(ctx: Ctx<'_>) -> Result<Report, Error> {
    let dir = tempfile::Builder::new()
        .prefix("crossverify-demo-")
        .tempdir()
        .map_err(|e| Error::Usage(format!("creating a temporary directory for the demo ledger: {e}")))?;
    demo::unpack(dir.path()).map_err(Error::Usage)?;
    let mut opts = Options::new(&dir.path().join("audit"));
    opts.science = Some(dir.path().join("science"));
    opts.allowed_signers = Some(dir.path().join("allowed_signers"));
    let mut report = ledger(&opts, ctx)?;
    report.command = "demo".into();
    // The ledger lives in a temporary directory; name it by what it is so output is stable.
    report.input("audit", "<built-in demo>/audit");
    report.input("science", "<built-in demo>/science");
    report.input("allowedSigners", "<built-in demo>/allowed_signers");
    report.input("scenario", "ledger-fixtures/demo-signed.toml");
    // Its canonical paths name a temporary directory: the demo's output stays the same bytes.
    report.inputs.remove("identities");
    Ok(report)
}
