//! `crossverify verify SUBMISSION...` (issue 24): a journal's submission — archives, git
//! bundles, a folder of repositories side by side — received as hostile input (`intake`),
//! every record in it found and verified by its own protocol's command (`records`), in one
//! report (`report`), with a verification certificate (`certificate`, one self-contained HTML
//! page) and a signed SLSA Verification Summary Attestation of it (`vsa`).
//!
//! It sits above the protocols and the attestations: it runs their commands through the
//! front door (`protocols::detect`) and never verifies anything itself.

pub mod batch;
pub mod certificate;
pub mod checks;
mod error;
pub mod policy;
mod records;
mod report;
pub mod vsa;

use std::path::{Path, PathBuf};

pub use crate::intake::{Intake, Received, RepoIn, receive, sha256_of};
pub use error::Error;
pub use records::{Anchors, Extra, Record, ambiguity, discover, sole_record_below, verify_all};
pub use report::{COMMAND, build, head_of};

use crate::intake::Limits;
use crate::progress::Ctx;
use crate::report::Report;

/// What to verify, and how.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    /// The inputs as given: directories, archives, bundles.
    pub inputs: &'a [PathBuf],
    /// An empty private directory the caller owns and removes afterwards: archives are
    /// unpacked and bundles cloned here, and nothing is written anywhere else.
    pub work: &'a Path,
    /// The unpacking caps.
    pub limits: Limits,
    /// `--trust-store`, when given: the journal's own trust anchors.
    pub trust_store: Option<&'a Path>,
    /// `--accept-self-declared-keys`: the journal accepts trust stores the submission holds.
    pub accept_self_declared: bool,
    /// The verification time (RFC 3339), an input like any other so that a replay gives the
    /// same bytes.
    pub verified_at: &'a str,
}

/// Receives the submission and verifies every record in it, in one report.
///
/// # Errors
/// The submission cannot be received (an input unreadable, an archive member refused, a
/// bundle git cannot read, a shallow or partial clone, no repository at all), or holds no
/// record any protocol recognises.
pub fn verify(opts: &Options<'_>, ctx: Ctx<'_>) -> Result<Report, Error> {
    let intake = receive(opts.inputs, opts.work, opts.limits, ctx)?;
    let extra = Extra { trust_store: opts.trust_store, accept_self_declared: opts.accept_self_declared };
    let records = verify_all(&intake, extra, ctx);
    if records.is_empty() {
        return Err(Error::NoRecords {
            inputs: shown_inputs(opts.inputs),
            repositories: intake.repos.iter().map(|r| r.shown.clone()).collect(),
            beside: intake.trees_beside(),
        });
    }
    let mut extra = vec![(
        "submission",
        serde_json::json!(opts.inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>()),
    )];
    if let Some(t) = opts.trust_store {
        extra.push(("trustStore", t.display().to_string().into()));
    }
    if opts.accept_self_declared {
        extra.push(("acceptSelfDeclaredKeys", true.into()));
    }
    if opts.limits != Limits::default() {
        let l = opts.limits;
        extra.push((
            "limits",
            serde_json::json!({
                "maxEntries": l.max_entries, "maxUnpackedBytes": l.max_bytes, "maxExpansionRatio": l.max_ratio,
                "maxNesting": l.max_nesting, "maxDepth": l.max_depth,
            }),
        ));
    }
    Ok(build(&intake, &records, opts.verified_at, &extra))
}

fn shown_inputs(inputs: &[PathBuf]) -> String {
    inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
}

/// Whether `inputs` are a submission rather than one protocol's records: more than one
/// input, an archive or bundle, or a directory that is not itself a repository but holds
/// repositories, bundles or archives.
#[must_use]
pub fn is_submission(inputs: &[PathBuf]) -> bool {
    match inputs {
        [one] if one.is_dir() => {
            if one.join(".git").exists()
                || one.join("objects").is_dir()
                || crate::protocols::detect(one, crate::checks::Given::default()).is_ok()
            {
                return false;
            }
            let found = crate::intake::tree::search(one, Limits::default().max_depth);
            !found.repos.is_empty() || !found.packed.is_empty()
        }
        // Only a regular file is sniffed: reading a FIFO would wait for a writer forever.
        [one] => one.metadata().is_ok_and(|m| m.is_file()) && crate::intake::kind_of(one).is_ok_and(|k| k.is_some()),
        _ => true,
    }
}
