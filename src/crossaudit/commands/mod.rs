//! The commands: `ledger`, `receipt`, `demo` and the records `stats` reads (`ledger.rs`), the
//! sharded run and its merge (`shard.rs`), batches (`batch.rs`), the front-door detector
//! (`detect.rs`), and the views and statistics records they put into reports (`views.rs`,
//! `lifecycle.rs`).

pub mod batch;
pub mod detect;
pub(crate) mod ledger;
pub(crate) mod lifecycle;
pub(crate) mod shard;
pub(crate) mod views;
