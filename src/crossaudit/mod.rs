//! CrossAudit: verify every receipt of a published ledger, replay what is deterministic and
//! report conformance to the paper's invariants I1–I8.
//!
//! Three format families exist (formats note §1): the v1 reference, the product's receipt
//! schema 2, and the deployed `CYCLE-NNNNNN` ledger. [`ledger`] crawls a whole ledger;
//! [`receipt()`] is the CI gate for one receipt. Both build the same [`crate::report::Report`].
//! Where a reference implementation accepts something the paper forbids, crossverify
//! implements the paper and reproduces the reference's decision as a named dialect in the
//! evidence (`specs/crossaudit.md`).
//!
//! This file is the module's public surface and declares nothing else. The module is built in
//! floors, each importing only the floors below it (`docs/development.md`, "CrossAudit's
//! floors"; `tests/it/architecture.rs` keeps it so): the check catalogue (`checks.rs`) and the
//! record formats (`records/`, and the deployed ledger in `deployed/`); loading a ledger and the
//! shard plan (`load/`); the model of one cycle every check reads (`model/`); one file per
//! invariant family (`invariants/`), none importing another; the cross-cycle replay
//! (`replay/`); the crawl that drives them and the per-receipt cache (`crawl/`); above it the
//! statistics adapter, which converts a ledger for `stats` and declares its figure rules
//! (`stats/`); and on top the commands, their views and the front-door detector (`commands/`),
//! beside the protocol's entry in the registry (`protocol.rs`).

pub mod checks;
mod commands;
mod crawl;
pub mod demo;
pub mod deployed;
mod invariants;
mod load;
mod model;
pub mod protocol;
mod records;
mod replay;
pub mod stats;
pub use stats::input as stats_input;
pub use stats::receipts::lifecycle_records;

pub use checks::INVARIANTS;
#[cfg(feature = "cli")]
pub use commands::ledger::demo;
pub use commands::ledger::{ledger, receipt};
pub use commands::views::conformance;
pub use commands::{batch, detect};
pub use crawl::substitute;
pub use invariants::i8_admission::Admission;
pub use load::{DialectChoice, Error, Options};
pub use records::{config, constitution, dcl, receipt, report_md, scope, synthesis};
pub use replay::controller::cycle_id_for;
pub use shard::{Shard, ledger_shard, merge};

use crate::checks::Check;

/// Sharding one ledger over machines (`docs/scale.md`): the plan a run follows
/// (`load/shard.rs`) and the commands that make and merge the shards (`commands/shard.rs`).
pub mod shard {
    pub use super::commands::shard::{ledger_shard, merge};
    pub use super::load::shard::{Plan, Shard};
}

/// Checks owned by this module.
pub static CHECKS: &[&Check] = checks::CHECKS;

/// Reads `data` as every kind of cache payload this module stores (a receipt's results, a
/// tree diff); for the `cache_entry` fuzz target, which requires only that none panics.
#[cfg(feature = "fuzzing")]
pub(crate) fn read_cache_payloads(data: &[u8]) {
    crawl::memo::read_payload(data);
    load::read_changes_payload(data);
}
