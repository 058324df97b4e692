//! Proof-or-Stop evidence (arXiv 2607.14890v1 §3–§4, Table 5), in the concrete format of the
//! design note adopted by `specs/proof-or-stop.md`: signed receipt bundles (in-toto Statement
//! v1 in a DSSE envelope, Ed25519 verified strictly, RFC 8785 payloads), the state identities
//! they bind (`materialHash`, `headHash`, `storyFilesHash`), the fixed check order that yields
//! the paper's reason codes, the review-assurance floor, the done gate, and the conversion of
//! review findings into the neutral statistics records.

mod checks;
mod commands;
pub mod detect;
pub mod envelope;
pub mod evidence;
pub mod floor;
pub mod format;
pub mod identity;
pub mod live;
pub mod protocol;
pub mod reason;
pub mod review;
pub mod stats;
pub mod trust_store;
pub mod verify;

pub use checks::{
    BINDING_INCOMPLETE, BUILD_PROOF_MISSING, CHECKS, DECISION_NOT_PASS, DIGEST_MISMATCH, DONE_GATE, FAMILY, FLOOR,
    MALFORMED, RECEIPT_NOT_PASSING, RECORD_REJECTED, SIGNATURE_INVALID, SIGNATURE_MISSING, SIGNER_MISMATCH, STALE,
};
pub use commands::{BundleOptions, Error, Trust, bundle};
pub use floor::{FloorOptions, floor};
pub use reason::Reason;
