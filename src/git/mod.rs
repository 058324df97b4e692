//! Read-only git access on gix, isolated from the user's and the system's git configuration.
//!
//! Everything a verdict depends on is read from git objects, never from a working tree, and
//! every failure is typed: a shallow history, a missing or corrupt object and a revision that
//! does not resolve are [`Error`] variants that checks turn into `cantTell` with the reason.
//! [`Repo`] is one thread's handle; [`SharedRepo`] hands out per-thread handles to rayon workers.

mod deltas;
mod error;
mod history;
pub mod indirection;
pub(crate) mod loose;
mod quote;
pub(crate) mod reftable;
mod repo;
mod revision;
mod signature;
mod storage;
mod tree;
mod walk;

pub use gix::ObjectId;

pub use deltas::DeltaFamilies;
pub use error::{Error, Result};
pub use quote::{c_quote, c_unquote, display_path, needs_c_quote};
pub use repo::{Children, Commit, LastChangeMemo, MAX_RECORD_BYTES, Person, Repo, SharedRepo, init_bare};
pub use signature::CommitSignature;
pub use storage::{Fingerprint, Pack, PackIndexes};
pub use tree::{Change, EntryKind, Scope, TreeEntry, TreeError, decode_tree};
pub use walk::MAX_TREE_DEPTH;

#[cfg(test)]
mod tests;
