//! Protocol-free checks on signatures (family `CV-T`): Sigstore-wrapped receipts.
//!
//! Placeholder until the signed-commits slice lands its `mod.rs` with the family: the family
//! value below is the one the issue names (`CV-T` then three digits).

use crate::checks::{Family, no_group, prefix_and_digits};

pub mod sigstore;

/// The trust-anchor family.
pub static FAMILY: Family = Family {
    name: "trust anchors",
    prefix: "CV-T",
    grammar: "`CV-T` then three digits",
    code_ok: |c| prefix_and_digits(c, "CV-T", 3),
    group_label: None,
    group_ok: no_group,
    sources: &[],
    tones: &[],
    first_views: &[],
    location_inputs: &["receipt", "audit"],
};
