//! Loading a published ledger: what to verify (`options.rs`), the dialect and the cycle
//! directories at the audit revision (`read.rs`), the ledger they make (`ledger.rs`), the
//! append-only history of every ledger file (`history.rs`), and which cycles' manifests a
//! sharded run hashes (`shard.rs`).

mod history;
mod ledger;
mod options;
mod read;
pub(crate) mod shard;

pub(crate) use history::history;
#[cfg(feature = "fuzzing")]
pub(crate) use history::read_changes_payload;
pub(crate) use ledger::{Cycle, Ledger, artefacts};
pub use options::{DialectChoice, Error, Options};
pub(crate) use read::{bound_commits, disk_cycle, load, receipt_layouts};
