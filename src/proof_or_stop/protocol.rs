//! Proof-or-Stop's entry in the list of protocols (`src/protocols.rs`): what it recognises,
//! its check family, its front-door detector (`detect.rs`) and its statistics adapter.

use crate::checks::{Check, Detector};
use crate::stats::Adapter;

/// The protocol's name.
pub const NAME: &str = "Proof-or-Stop";

/// What its detector looks for, for the message when no protocol recognises a path.
pub const RECOGNISES: &str = "Proof-or-Stop evidence (a receipt bundle, a story's evidence directory or a \
                              directory of them, or stories' findings.json)";

pub use super::checks::FAMILY;

/// Its checks.
pub static CHECKS: &[&[&Check]] = &[super::CHECKS];

/// `crossverify verify PATH`: bundles, signed evidence (to the floor) and unsigned findings.
pub const DETECT: Option<Detector> = Some(super::detect::detect);

/// `crossverify stats PATH`: review findings, one cycle per round.
pub const STATS: Option<Adapter> =
    Some(Adapter { recognises: Some(super::stats::is_evidence), read: |o, _| super::stats::read(o.path) });
