//! The submission family (`CV-N`): what a journal's verification of a whole submission adds to
//! the checks of the records it holds, which stay their protocols' own. This file imports only
//! the registry's types: the list of families (`protocols`, a layer below) names it.

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

/// Every repository of a submission holds a record or was paired with one.
pub static REPOSITORY_VERIFIED: Check = Check {
    code: "CV-N002",
    name: "submission-repository-unverified",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "Every repository a submission holds was verified: a record was found in it, or a record was paired with it",
    what: "For each repository found in the submission, at any depth (inside another repository, below a directory \
           whose name is not UTF-8, inside a nested archive): passes when a record of any protocol lies in it or a \
           record's command was run with it (a paired science repository); `cantTell` naming the repository and \
           the reason when neither holds (no record found in it, its `HEAD` unreadable).",
    why: "\"Verified\" means every record the submission holds was verified. A repository that drops out of the \
          report silently could hold the record the verdict should have been about: one good record must not hide \
          a repository nobody looked at.",
    example: "CV-N002 cantTell submission.zip/paper/supplement: a git repository in which no record of any protocol \
              was found, and with which no record was paired",
    spec: "[specs/intake.md#cv-n002](../../specs/intake.md#cv-n002)",
};

/// The keys a record was verified with are the journal's, not the authors' own.
pub static TRUST_ANCHORS_GIVEN: Check = Check {
    code: "CV-N003",
    name: "trust-anchors-self-declared",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "A record's signatures were verified against trust anchors the journal gave, not ones the submission declares",
    what: "For each record verified with a trust store: passes when the store is the journal's (`--trust-store`); \
           `cantTell` when it arrived inside the submission (the authors' own claim of whose keys count), naming \
           the file and the flag that decides it: `--trust-store FILE` with the journal's anchors, or \
           `--accept-self-declared-keys` when the journal accepts the authors' keys (then `passed`, and the \
           report and certificate say the keys are self-declared).",
    why: "A signature proves only that the holder of a key signed. Keys the authors ship beside their own evidence \
          let them sign anything and vouch for it themselves: verified evidence needs anchors the verifier trusts \
          for reasons of its own.",
    example: "CV-N003 cantTell stories: signatures verified only against submission.zip/trust-store.json, which the \
              submission declares itself; pass --trust-store FILE (the journal's anchors) or \
              --accept-self-declared-keys",
    spec: "[specs/intake.md#cv-n003](../../specs/intake.md#cv-n003)",
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

/// The files a signed verification summary names are the ones beside it.
pub static SUMMARY_SUBJECT_MATCHES: Check = Check {
    code: "CV-N102",
    name: "summary-subject-digest-mismatch",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "Each file a signed verification summary names (the certificate first) has the SHA-256 it records",
    what: "For each subject of the summary with a `sha256` digest, reads the file of that name in the \
           attestation's own directory (never the current one) and compares its SHA-256 with the recorded one; \
           the report shows both (a `subjects` table and the result's evidence). `passed` when they are equal, \
           `failed` when they differ; `cantTell` when the file is not there, or its name is refused (absolute, a \
           `..` component, a symbolic link on the way, longer than a path: the names are someone else's \
           input), or something other \
           than a regular file is in its place. A member of an archive the summary also names is covered by the \
           archive's digest and a repository (`gitCommit`) is no file (`inapplicable`: `--replay` reads both \
           again); a subject recorded only with another algorithm is `untested`.",
    why: "The signature binds digests, not files: a certificate edited after signing still carries a valid \
          summary beside it. Only hashing the file in hand ties the summary to it; one that is absent was not \
          checked and never counts as checked.",
    example: "CV-N102 failed certificate.html: SHA-256 9b1c… here, e875… recorded: not the file the summary vouches for",
    spec: "[specs/intake.md#cv-n102](../../specs/intake.md#cv-n102); SLSA VSA",
};

/// Checks of the family.
pub static CHECKS: &[&Check] =
    &[&RECORD_VERIFIED, &REPOSITORY_VERIFIED, &TRUST_ANCHORS_GIVEN, &SUMMARY_WELL_FORMED, &SUMMARY_SUBJECT_MATCHES];
