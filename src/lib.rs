//! crossverify: an offline, third-party verifier and replayer for the supervision records AI
//! research and coding agents leave in git.
//!
//! The library is organised like a set of crates: [`git`] (isolated, typed object access),
//! [`manifest`] (SHA-256 manifests re-derived from commits, with a shared blob cache),
//! [`json`] (strict parsing, the exact serialisations the protocols hash, RFC 8785), [`trust`]
//! (Ed25519 keys with strict verification, OpenSSH encodings, DSSE envelopes, sshsig, Sigstore
//! bundles), [`cache`] (the persistent, authenticated cache), one module per protocol
//! ([`crossaudit`], [`proof_or_stop`], [`crossexam`]), [`anchors`] (checks on signed commits,
//! receipts and reports), [`attest`] (signed, replayable reports), [`stats`] (finding-lifecycle
//! figures and claim checks),
//! [`checks`] (the registry's types), [`protocols`] (the list of check families, one line per
//! protocol), [`report`] (the one report object every command produces) and [`render`] (one
//! file per output format, a pure function of the report). The library never prints;
//! progress and cancellation come in through [`progress::Ctx`].
//!
//! ```no_run
//! use crossverify::{git::{Repo, Scope}, manifest::{self, BlobHashes}, progress::Ctx};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let repo = Repo::open(std::path::Path::new("science"))?;
//! let commit = repo.resolve("HEAD")?;
//! let m = manifest::derive(&repo, commit, &Scope::new(["experiments"]), &BlobHashes::new(), Ctx::silent())?;
//! for e in &m.entries {
//!     let _ = (&e.display, e.value.marker());
//! }
//! # Ok(()) }
//! ```

pub mod anchors;
pub mod attest;
pub mod cache;
pub mod checks;
pub mod conformance;
pub mod crossaudit;
pub mod crossexam;
pub mod files;
pub mod foundation;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod git;
pub mod intake;
pub mod json;
pub mod manifest;
pub mod progress;
pub mod proof_or_stop;
pub mod protocols;
pub mod render;
pub mod report;
pub mod stats;
pub mod submission;
pub mod trust;
