//! The commands: `ledger`, `receipt` and `demo` (`ledger.rs`), the sharded run and its merge
//! (`shard.rs`), batches (`batch.rs`), the front-door detector (`detect.rs`), and the views they
//! put into reports (`views.rs`); the statistics records come from the adapter below
//! (`crossaudit/stats/`).

pub mod batch;
pub mod detect;
pub(crate) mod ledger;
pub(crate) mod shard;
pub(crate) mod views;
