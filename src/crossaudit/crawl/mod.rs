//! One run over a ledger: every cycle verified in parallel (`verify.rs` drives the checks of one
//! cycle, `memo.rs` caches its outcome), then the replay and the ledger-wide checks (`run.rs`);
//! and the same verification on a ledger with one record substituted (`substitute.rs`).

pub(crate) mod memo;
pub(crate) mod run;
pub mod substitute;
pub(crate) mod verify;
