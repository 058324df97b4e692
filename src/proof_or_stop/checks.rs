//! The Proof-or-Stop check family (`CV-P` then three digits): one check per reason code of the
//! bundle contract, in the fixed verification order, then the review floor and the done gate.

use crate::checks::{Check, Family, no_group, prefix_and_digits};
use crate::report::{Level, Tone};

/// The family: `CV-P###`, never a Constitution rule id (`CA-<SECTION>-<NNN>`).
pub static FAMILY: Family = Family {
    name: "Proof-or-Stop",
    prefix: "CV-P",
    grammar: "`CV-P` then three digits (`0xx` the bundle contract, `1xx` the review floor and the done gate)",
    code_ok: |c| prefix_and_digits(c, "CV-P", 3),
    group_label: None,
    group_ok: no_group,
    sources: &[
        ("paper", "paper: Proof-or-Stop, arXiv 2607.14890v1 (§3, §4, Table 5)"),
        ("design note", "design note: `../shared/reference/proof-or-stop.md` §4–§5, adopted in specs/proof-or-stop.md"),
    ],
    tones: &[
        ("ok", Tone::Good),
        ("met", Tone::Good),
        ("full-quorum", Tone::Good),
        ("advisory", Tone::Neutral),
        ("not reached", Tone::Neutral),
        ("block", Tone::Bad),
        ("not met", Tone::Bad),
        ("stale", Tone::Bad),
        ("degraded-single-host", Tone::Unknown),
        ("local-key-single-host", Tone::Unknown),
    ],
    first_views: &["pos-steps", "pos-identities", "pos-floor", "pos-findings"],
    location_inputs: &["bundle", "evidence", "repo"],
};

/// Where the reason checks are specified: the verification order.
const ORDER_SPEC: &str =
    "[specs/proof-or-stop.md#check-order](../../specs/proof-or-stop.md#check-order) (design note §4.6; paper Table 5)";

/// The bundle container and its signed payload follow the closed POS-v1 format (reason `malformed_bundle`)
pub static MALFORMED: Check = Check {
    code: "CV-P001",
    name: "malformed-bundle",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "The bundle container and its signed payload follow the closed POS-v1 format (reason `malformed_bundle`)",
    what: "Steps A1, A2, B1′, C1 and D3: size limit, strict JSON without duplicate keys, the closed container with the \
     pinned media type, exactly one signature, then (after the signature verified) the payload's RFC 8785 byte \
     form, no `null`, closed schemas, types and enum values, and subjects equal to the binding.",
    why: "A format that tolerates extra members, nulls or a second serialisation lets a signed value mean two things; the \
     paper's critical B-4c65 finding was a canonicaliser that dropped `null`.",
    example: "CV-P001 failed bundle.json: C1 /predicate/hostVerdict: null is outside the canonical profile",
    spec: ORDER_SPEC,
};

/// The envelope carries a signature (reason `signature_missing`)
pub static SIGNATURE_MISSING: Check = Check {
    code: "CV-P002",
    name: "signature-missing",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "The envelope carries a signature (reason `signature_missing`)",
    what: "Step B1: `signatures` is an empty array or its one `sig` is the empty string.",
    why: "Unsigned evidence is self-report, which has no term in the admissibility predicate.",
    example: "CV-P002 failed bundle.json: B1 the envelope has no signature",
    spec: ORDER_SPEC,
};

/// The signer is the trusted key, authorised for the role, lane and host it claims (reason `signer_key_mismatch`)
pub static SIGNER_MISMATCH: Check = Check {
    code: "CV-P003",
    name: "signer-key-mismatch",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "The signer is the trusted key, authorised for the role, lane and host it claims (reason `signer_key_mismatch`)",
    what: "Step B2 (before the signature is checked): the envelope's `keyid` names a key of the trust store and the \
     bundle's convenience copy in `verificationMaterial` equals that key. Step C2 (after): the signed \
     `producer.keyId` is the signing key, its role and lane are allowed, `producer.host` is the key's host.",
    why: "A signature only proves possession of some key; trust comes from the verifier's own list, never from the bundle.",
    example: "CV-P003 failed bundle.json: B2 verificationMaterial key sha256:9f1c… is not the trusted key sha256:06e3…",
    spec: ORDER_SPEC,
};

/// The Ed25519 signature verifies strictly over the DSSE PAE of the exact payload bytes (reason `signature_invalid`)
pub static SIGNATURE_INVALID: Check = Check {
    code: "CV-P004",
    name: "signature-invalid",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "The Ed25519 signature verifies strictly over the DSSE PAE of the exact payload bytes (reason `signature_invalid`)",
    what: "Step B3: the signature decodes to 64 bytes and `verify_strict` accepts it over \
     `PAE(payloadType, payload)`. Nothing inside the payload is read before this step passes.",
    why: "Any change to the signed bytes after signing (an edited receipt, a swapped verdict, a member added with value \
     `null`) must break the signature; `verify_strict` also refuses weak keys and malleable signatures.",
    example: "CV-P004 failed bundle.json: B3 the signature does not verify over the payload",
    spec: ORDER_SPEC,
};

/// The binding β is complete, well-formed and re-derivable (reason `binding_incomplete`)
pub static BINDING_INCOMPLETE: Check = Check {
    code: "CV-P005",
    name: "binding-incomplete",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "The binding β is complete, well-formed and re-derivable (reason `binding_incomplete`)",
    what: "Steps D1 and D2: `materialHash`, `headHash`, `storyFilesHash`, `policyHash`, `commandSetHash` and the \
     algorithm ids are present, non-empty and of the right form, and `sha256(JCS(commandSet))` equals \
     `binding.commandSetHash`.",
    why: "Evidence that cannot be tied to one state cannot be fresh or stale; a wildcard binding is the paper's \
     null-subject bypass (F-d).",
    example: "CV-P005 failed bundle.json: D1 binding.commandSetHash is absent",
    spec: ORDER_SPEC,
};

/// The evidence is bound to the live story, source state and configuration (reason `stale`)
pub static STALE: Check = Check {
    code: "CV-P006",
    name: "evidence-stale",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "The evidence is bound to the live story, source state and configuration (reason `stale`)",
    what: "Steps F1–F5: the story id and base, `materialHash` (strict), the `headHash` rule (HEAD, or an ancestor whose \
     diff to HEAD touches only metadata roots), `storyFilesHash` and `scopeHash`, `policyHash` and \
     `commandSetHash`, each recomputed from the repository and the live configuration.",
    why: "Freshness is digest equality with the live state, never time: a pass recorded at another state says nothing \
     about this one.",
    example: "CV-P006 failed bundle.json: F2 materialHash sha256:5dc7… is not the live sha256:0a41…",
    spec: ORDER_SPEC,
};

/// Every required command, including a build and a test, has a receipt (reason `build_proof_missing`)
pub static BUILD_PROOF_MISSING: Check = Check {
    code: "CV-P007",
    name: "build-proof-missing",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "Every required command, including a build and a test, has a receipt (reason `build_proof_missing`)",
    what: "Step G1: `receipts` is non-empty, every `required` command of the command set has a receipt, and there is a \
     build-phase and a test-phase receipt.",
    why: "A done claim without the receipts of the configured command set is a claim without proof.",
    example: "CV-P007 failed bundle.json: G1 no receipts",
    spec: ORDER_SPEC,
};

/// Every receipt's output digest is `sha256:` and 64 lowercase hex, and attached logs re-hash to it (reason `digest_mismatch`)
pub static DIGEST_MISMATCH: Check = Check {
    code: "CV-P008",
    name: "output-digest-mismatch",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "Every receipt's output digest is `sha256:` and 64 lowercase hex, and attached logs re-hash to it (reason \
     `digest_mismatch`)",
    what: "Step G2: the form of each `outputDigest`, and for each attached output log, SHA-256 of its bytes.",
    why: "A digest of another algorithm or form cannot be compared with anything; an attached log that does not re-hash \
     is not the output the receipt names.",
    example: "CV-P008 failed bundle.json: G2 receipt build: outputDigest md5:… is not sha256: and 64 lowercase hex",
    spec: ORDER_SPEC,
};

/// Every receipt records the configured command, non-empty, exiting 0 (reason `receipt_not_passing`)
pub static RECEIPT_NOT_PASSING: Check = Check {
    code: "CV-P009",
    name: "receipt-not-passing",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "Every receipt records the configured command, non-empty, exiting 0 (reason `receipt_not_passing`)",
    what: "Step G3: `cmd` is non-empty, (`cmd`, `args`, `cwd`) equal the command spec of `commandId`, the id is known, and \
     `exit` is 0.",
    why: "The outcome is recomputed from the receipts, never taken from the signed decision: the paper's \
     failing-receipt acceptance finding.",
    example: "CV-P009 failed bundle.json: G3 receipt test exited 1",
    spec: ORDER_SPEC,
};

/// The signed host verdict and decision are `pass` (reason `decision_not_pass`)
pub static DECISION_NOT_PASS: Check = Check {
    code: "CV-P010",
    name: "decision-not-pass",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "The signed host verdict and decision are `pass` (reason `decision_not_pass`)",
    what: "Step H1, the last step: `hostVerdict` and `decision` are both `pass`. `ok` is returned only after it.",
    why: "A signed `fail` is honest evidence of failure; returning pass before every step ran was the paper's B-086b.",
    example: "CV-P010 failed bundle.json: H1 decision is fail",
    spec: ORDER_SPEC,
};

/// The review-assurance floor (Eq. 4).
pub static FLOOR: Check = Check {
    code: "CV-P101",
    name: "review-floor-not-met",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "At least R review rounds each hold K passing verdicts independent in host, session and key, over the \
              current state",
    what: "Counts signed `review-verdict/v1` passes of the story whose signature verifies under the trust store \
           (role `review-verdict`, the key's own host) and which are fresh: judged under the live policy, object \
           format and scope (`story.scopeHash`), and `materialHash` equal to the live one, or `storyFilesHash` \
           equal to the live one with neither side `EMPTY_STORY_FILES_HASH`. A round (numbered from 1) qualifies \
           when K of its passes differ pairwise in host, session and key id; the floor is met when R rounds \
           qualify. R and K are the paper's 3 and 2, raised but never lowered by the policy or the flags. When \
           records that do not bind their scope would make it met, the result is cantTell, never passed. A \
           degraded single-host record never makes it met: the assurance is then `degraded-single-host`, local \
           only.",
    why: "One reviewer, or one machine under several names, is not a quorum; the paper's Eq. 5 forbids upgrading \
          the local fallback into the full claim.",
    example: "CV-P101 failed B-0001: 1 of 3 rounds has 2 independent passes (degraded-single-host recorded)",
    spec: "[specs/proof-or-stop.md#cv-p101](../../specs/proof-or-stop.md#cv-p101) (paper Eq. 4–5; design note §5)",
};

/// The done gate over the open findings.
pub static DONE_GATE: Check = Check {
    code: "CV-P102",
    name: "done-blocked-by-finding",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "No open finding blocks done at the current round (critical always; high until round 3; medium until \
              round 2; low never)",
    what: "Decides from the signed records: a finding id any verified `finding` verdict of the story names (or \
           a signed `finding-event/v1` adds) is open and blocks, whatever the unsigned `findings.json` says of \
           its severity, until a signed `finding-event/v1` resolves or dismisses it in or after the round it was \
           last raised in; the unsigned file's resolution trail closes nothing, and omitting the finding does \
           not hide it. A later PASS resolves nothing. The other open findings of `findings.json` block by \
           severity at the current round (the fresh verdicts' largest), with the paper's advisory rounds \
           delayed, never advanced, by the policy.",
    why: "A newer pass must not hide an older unresolved finding (the paper's B-6c4d race fix).",
    example: "CV-P102 failed F-001: open high finding blocks done at round 2 (advisory from round 3)",
    spec: "[specs/proof-or-stop.md#cv-p102](../../specs/proof-or-stop.md#cv-p102) (paper §8; design note §4.8)",
};

/// A review record that did not verify and therefore does not count.
pub static RECORD_REJECTED: Check = Check {
    code: "CV-P103",
    name: "review-record-rejected",
    level: Level::Warning,
    family: &FAMILY,
    group: None,
    summary: "Every review record in the evidence directory verifies (a record that does not is not counted)",
    what: "Each `*.json` bundle under `verdicts/` goes through the bundle contract's signature and format steps \
           with the review predicate (a round below 1 is malformed); a record that fails is reported with its \
           reason and left out of the floor and the gate. A verified record of another story, or bound to another \
           policy, object format, scope or source state, is stale and not counted; one that binds no scope and \
           whose story files the live scope cannot disprove is cantTell and not counted.",
    why: "Absent or unverifiable evidence never counts in favour; saying which record was dropped lets a reader \
          see why a floor is not met.",
    example: "CV-P103 failed verdicts/r1-b.json: signature_invalid",
    spec: "[specs/proof-or-stop.md#cv-p103](../../specs/proof-or-stop.md#cv-p103) (design note §4.7)",
};

/// Every check of the family, by code.
pub static CHECKS: &[&Check] = &[
    &MALFORMED,
    &SIGNATURE_MISSING,
    &SIGNER_MISMATCH,
    &SIGNATURE_INVALID,
    &BINDING_INCOMPLETE,
    &STALE,
    &BUILD_PROOF_MISSING,
    &DIGEST_MISMATCH,
    &RECEIPT_NOT_PASSING,
    &DECISION_NOT_PASS,
    &FLOOR,
    &DONE_GATE,
    &RECORD_REJECTED,
];
