//! Signatures and the keys that make them, below every protocol: Ed25519 with strict
//! verification, OpenSSH key encodings, DSSE envelopes.
//!
//! Nothing here decides a check; callers (the `anchors` checks, the protocols, signed reports)
//! turn these results into findings. Keys are always verifier inputs given out of band; a key
//! found inside the evidence it signs is never trusted for that reason.

pub mod dsse;
pub mod ed25519;
mod wire;
