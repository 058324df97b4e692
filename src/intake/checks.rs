//! The intake family (`CV-N`): what a journal's verification of a whole submission adds to the
//! checks of the records it holds, which stay their protocols' own.

use crate::checks::{Check, Family, no_group, prefix_and_digits};
use crate::report::{Level, Tone};

/// Submissions: codes `CV-N` and three digits.
pub static FAMILY: Family = Family {
    name: "submission intake",
    prefix: "CV-N",
    grammar: "`CV-N` then three digits (0xx records of a submission, 1xx its verification summary)",
    code_ok: |c| prefix_and_digits(c, "CV-N", 3),
    group_label: None,
    group_ok: no_group,
    sources: &[(
        "SLSA VSA",
        "SLSA VSA: [the Verification Summary Attestation, v1](https://slsa.dev/spec/v1.0/verification_summary)",
    )],
    tones: &[("verified", Tone::Good), ("not verified", Tone::Bad)],
    first_views: &["submission-records"],
    location_inputs: &[],
};

/// Every record found in a submission was verified.
pub static RECORD_VERIFIED: Check = Check {
    code: "CV-N001",
    name: "submission-record-unverified",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "Every record found in a submission was verified by its protocol's command",
    what: "For each record the submission holds (a CrossAudit ledger, receipt or records, Proof-or-Stop evidence, a \
           CrossExam transcript, a claims file), runs the command its protocol's detector names, with the \
           repositories and trust store it needs found in the submission: a paired ledger with the repository \
           holding the science commits its receipts bind. Passes when that command ran; `cantTell` naming what \
           was missing (the science repository, a trust store, the ledger a claims file states figures of) \
           when it could not.",
    why: "A submission whose report lists only the records that could be verified reads as complete while the \
          others went unchecked. A record that could not be verified is reported, never left out, and keeps the \
          verdict from `verified`.",
    example: "CV-N001 cantTell audit: a CrossAudit ledger in a git repository: no repository of the submission \
              holds the science commits its receipts bind",
    spec: "[specs/intake.md#cv-n001](../../specs/intake.md#cv-n001)",
};

/// A signed verification summary is well formed.
pub static SUMMARY_WELL_FORMED: Check = Check {
    code: "CV-N101",
    name: "verification-summary-malformed",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "A signed verification summary is an in-toto Statement v1 with a SLSA VSA v1 predicate naming the certificate",
    what: "Checks the payload type (`application/vnd.in-toto+json`), `_type` `https://in-toto.io/Statement/v1`, \
           `predicateType` `https://slsa.dev/verification_summary/v1`, a subject list whose first entry is the \
           certificate with its SHA-256, and a predicate with `verifier.id`, `timeVerified`, `resourceUri`, \
           `policy.uri`, `verificationResult` (`PASSED` or `FAILED`), `verifiedLevels` and the recorded \
           invocation that `attest --replay` runs again.",
    why: "A valid signature over something that is not a verification summary attests nothing an editorial \
          system can act on; without the certificate's digest the summary does not say which certificate it \
          vouches for.",
    example: "CV-N101 failed submission.vsa.json: verificationResult is \"MAYBE\", not PASSED or FAILED",
    spec: "[specs/intake.md#cv-n101](../../specs/intake.md#cv-n101); SLSA VSA",
};

/// Checks of the family.
pub static CHECKS: &[&Check] = &[&RECORD_VERIFIED, &SUMMARY_WELL_FORMED];
