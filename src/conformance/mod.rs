//! The conformance kit: a versioned, language-neutral suite of cases (inputs as files and git
//! bundles, the decision each paper requires with its reason and section, a manifest with the
//! SHA-256 of every file), a small CLI protocol any verifier joins through an adapter
//! executable (`specs/conformance.md`), and the run that scores implementations against the
//! suite: a matrix of cases × implementations and a score per implementation, as a report.
//! The suite is built into the binary (`embedded.rs`), so the kit runs outside a checkout.
//!
//! The kit knows no protocol's code: an implementation (crossverify's own included) is an
//! adapter process or a record of decisions, so the same rules hold for every column.

mod adapter;
#[cfg(target_os = "linux")]
mod contain;
#[cfg(not(target_os = "linux"))]
#[path = "contain_portable.rs"]
mod contain;
mod embedded;
mod materialise;
mod model;
mod report;
mod run;
mod suite;

pub use adapter::{DECLINE, Limits, Probe, Program};
pub use contain::exec as exec_contained;
pub use embedded::{EMBEDDED, load_embedded};
pub use model::{
    Answer, CATEGORIES, Case, Decision, Error, InputKind, OPERATIONS, PROTOCOLS, Recorded, Required, Score, Suite,
};
pub use report::{CODE, build as report};
pub use run::{Answers, Implementation, Options, Ran, Status, run};
pub use suite::{Index, MANIFEST, MAX_INDEX_BYTES, Manifest, load, parse_index, parse_manifest, parse_recorded};
