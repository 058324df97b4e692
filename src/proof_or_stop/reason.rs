//! The paper's reason vocabulary and the fixed verification order that decides among them.

use serde::Serialize;

use crate::checks::Check;

/// The outcome of verifying one bundle: exactly one of the paper's eleven codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// Every step passed.
    Ok,
    /// Bound to another story, state or configuration than the live one.
    Stale,
    /// β missing, malformed or not re-derivable.
    BindingIncomplete,
    /// A signature that does not verify.
    SignatureInvalid,
    /// No signature.
    SignatureMissing,
    /// Not the trusted or authorised key.
    SignerKeyMismatch,
    /// Container or payload outside the format.
    MalformedBundle,
    /// An output digest of the wrong form, or not the attached bytes.
    DigestMismatch,
    /// A receipt with a non-zero exit, an empty or unconfigured command.
    ReceiptNotPassing,
    /// A required build or test receipt is absent.
    BuildProofMissing,
    /// The signed verdict or decision is not `pass`.
    DecisionNotPass,
}

impl Reason {
    /// Every code, `ok` first.
    pub const ALL: [Reason; 11] = [
        Reason::Ok,
        Reason::Stale,
        Reason::BindingIncomplete,
        Reason::SignatureInvalid,
        Reason::SignatureMissing,
        Reason::SignerKeyMismatch,
        Reason::MalformedBundle,
        Reason::DigestMismatch,
        Reason::ReceiptNotPassing,
        Reason::BuildProofMissing,
        Reason::DecisionNotPass,
    ];

    /// The wire name (`signature_invalid`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Ok => "ok",
            Reason::Stale => "stale",
            Reason::BindingIncomplete => "binding_incomplete",
            Reason::SignatureInvalid => "signature_invalid",
            Reason::SignatureMissing => "signature_missing",
            Reason::SignerKeyMismatch => "signer_key_mismatch",
            Reason::MalformedBundle => "malformed_bundle",
            Reason::DigestMismatch => "digest_mismatch",
            Reason::ReceiptNotPassing => "receipt_not_passing",
            Reason::BuildProofMissing => "build_proof_missing",
            Reason::DecisionNotPass => "decision_not_pass",
        }
    }

    /// The check that reports this reason (`None` for `ok`).
    #[must_use]
    pub fn check(self) -> Option<&'static Check> {
        use super::checks as c;
        Some(match self {
            Reason::Ok => return None,
            Reason::Stale => &c::STALE,
            Reason::BindingIncomplete => &c::BINDING_INCOMPLETE,
            Reason::SignatureInvalid => &c::SIGNATURE_INVALID,
            Reason::SignatureMissing => &c::SIGNATURE_MISSING,
            Reason::SignerKeyMismatch => &c::SIGNER_MISMATCH,
            Reason::MalformedBundle => &c::MALFORMED,
            Reason::DigestMismatch => &c::DIGEST_MISMATCH,
            Reason::ReceiptNotPassing => &c::RECEIPT_NOT_PASSING,
            Reason::BuildProofMissing => &c::BUILD_PROOF_MISSING,
            Reason::DecisionNotPass => &c::DECISION_NOT_PASS,
        })
    }
}

/// One step of the verification order (design note §4.6), with the reason it yields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Step {
    /// Size, UTF-8, strict JSON.
    A1,
    /// Closed container, pinned media type, envelope, payload type, base64.
    A2,
    /// No signature.
    B1,
    /// More than one signature.
    B1b,
    /// The key id and the convenience key against the trust store.
    B2,
    /// Strict Ed25519 over the PAE.
    B3,
    /// Payload format.
    C1,
    /// Producer against the trust store.
    C2,
    /// β present and well-formed.
    D1,
    /// `commandSetHash` re-derived.
    D2,
    /// Subjects equal the binding.
    D3,
    /// Story and claim.
    F1,
    /// `materialHash`.
    F2,
    /// `headHash`.
    F3,
    /// `storyFilesHash`, `scopeHash`.
    F4,
    /// `policyHash`, `commandSetHash` against the live configuration.
    F5,
    /// Receipts present.
    G1,
    /// Output digests.
    G2,
    /// Receipts passing.
    G3,
    /// Verdict and decision.
    H1,
}

impl Step {
    /// Every step, in the order they run.
    pub const ORDER: [Step; 20] = [
        Step::A1,
        Step::A2,
        Step::B1,
        Step::B1b,
        Step::B2,
        Step::B3,
        Step::C1,
        Step::C2,
        Step::D1,
        Step::D2,
        Step::D3,
        Step::F1,
        Step::F2,
        Step::F3,
        Step::F4,
        Step::F5,
        Step::G1,
        Step::G2,
        Step::G3,
        Step::H1,
    ];

    /// The reason a failure of this step yields.
    #[must_use]
    pub fn reason(self) -> Reason {
        match self {
            Step::A1 | Step::A2 | Step::B1b | Step::C1 | Step::D3 => Reason::MalformedBundle,
            Step::B1 => Reason::SignatureMissing,
            Step::B2 | Step::C2 => Reason::SignerKeyMismatch,
            Step::B3 => Reason::SignatureInvalid,
            Step::D1 | Step::D2 => Reason::BindingIncomplete,
            Step::F1 | Step::F2 | Step::F3 | Step::F4 | Step::F5 => Reason::Stale,
            Step::G1 => Reason::BuildProofMissing,
            Step::G2 => Reason::DigestMismatch,
            Step::G3 => Reason::ReceiptNotPassing,
            Step::H1 => Reason::DecisionNotPass,
        }
    }

    /// The name used in reports (`B1′` for the second signature rule).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Step::A1 => "A1",
            Step::A2 => "A2",
            Step::B1 => "B1",
            Step::B1b => "B1′",
            Step::B2 => "B2",
            Step::B3 => "B3",
            Step::C1 => "C1",
            Step::C2 => "C2",
            Step::D1 => "D1",
            Step::D2 => "D2",
            Step::D3 => "D3",
            Step::F1 => "F1",
            Step::F2 => "F2",
            Step::F3 => "F3",
            Step::F4 => "F4",
            Step::F5 => "F5",
            Step::G1 => "G1",
            Step::G2 => "G2",
            Step::G3 => "G3",
            Step::H1 => "H1",
        }
    }
}

/// A failed step: the first one decides the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// Which step failed.
    pub step: Step,
    /// What was wrong, for a reader (never parsed).
    pub detail: String,
}

impl Rejection {
    /// A failure of `step`.
    #[must_use]
    pub fn new(step: Step, detail: impl Into<String>) -> Self {
        Rejection { step, detail: detail.into() }
    }

    /// The reason it yields.
    #[must_use]
    pub fn reason(&self) -> Reason {
        self.step.reason()
    }
}
