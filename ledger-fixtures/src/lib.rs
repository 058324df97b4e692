//! Dev-only fixture machinery for crossverify's tests, benches and examples: deterministic git
//! repositories ([`fixture`]) and CrossAudit ledgers minted from scenarios ([`mint`]).
//!
//! The minter is a second, independent reading of the formats note: it uses crossverify's
//! generic `git` layer but none of its protocol rules (manifest derivation, verdict synthesis
//! and the controller are written here again, in [`rules`]) and not its JSON writer (the
//! minter's is [`pyjson`]), so a wrong rule or a wrong byte in the verifier cannot make the
//! "genuine" fixtures agree with it.

pub mod demo;
pub mod fixture;
pub mod identity;
pub mod mint;
pub mod pyjson;
pub mod rules;
pub mod signing;
