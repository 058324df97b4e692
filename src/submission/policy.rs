//! The policy a submission is verified under, and the check suite that decides it: what the
//! certificate shows and the signed summary names (`specs/intake.md`).

use sha2::{Digest as _, Sha256};

/// The policy a submission is verified under: every record verified by its protocol's checks.
pub const POLICY_URI: &str = "https://crossverify.dev/policy/submission/v1";

/// The identity of the check suite: SHA-256 over every registered check's code, level and
/// name, one per line in code order, and how many there are.
#[must_use]
pub fn suite() -> (String, usize) {
    let all = crate::protocols::all();
    let mut h = Sha256::new();
    for c in &all {
        h.update(format!("{}\t{}\t{}\n", c.code, c.level.as_str(), c.name).as_bytes());
    }
    (hex::encode(h.finalize()), all.len())
}
