//! Receiving a submission (issues 24 and 46): a journal gets an archive of repositories, git
//! bundles or a folder of them, and [`receive`] turns those bytes into repositories on disk, as
//! hostile input — archives unpacked within one budget counted as it is written (`archive`),
//! bundles cloned by git with no configuration (`bundle`), the tree searched for repositories
//! (`tree`), every repository confined to the tree it arrived in (`confine`) — or refuses them
//! with a typed [`Refusal`]. It knows no protocol and declares no check: `submission` (above
//! the protocols) finds the records, verifies them and owns the `CV-N` codes.

pub mod archive;
mod budget;
pub mod bundle;
mod confine;
mod receive;
mod refusal;
pub mod tree;

pub use archive::{Budget, Kind, Limits, Unpacked, clean_name, kind_of, kind_of_bytes, unpack, unpack_from};
pub use receive::{Intake, Received, RepoIn, receive, sha256_of};
pub use refusal::{Cap, Refusal, RefusalKind, bundle_word};
